/* The byte resampling kernels of CSIMDBytesResample.h. */
#include "CSIMDBytesResample.h"
#include <string.h>
#if defined(__x86_64__) || defined(__SSE2__)
#include <emmintrin.h>
#define PF_RS_SSE2 1
#endif

int pf_csimd_uses_avx2(void);

#define PF_RS_H_SHIFT (PF_RS_WEIGHT_BITS - PF_RS_MID_BITS)
#define PF_RS_V_SHIFT (PF_RS_WEIGHT_BITS + PF_RS_MID_BITS)

static inline int16_t rs_saturate16(int32_t v) {
    return (int16_t)(v < -32768 ? -32768 : v > 32767 ? 32767 : v);
}

/* One output pixel of `bpp` channels, portable. */
static inline void rs_h_pixel_scalar(const unsigned char *s, long bpp, const int16_t *w, int n, int16_t *out) {
    for (long c = 0; c < bpp; c++) {
        int32_t acc = 1 << (PF_RS_H_SHIFT - 1);
        for (int k = 0; k < n; k++) acc += (int32_t)s[k * bpp + c] * w[k];
        out[c] = rs_saturate16(acc >> PF_RS_H_SHIFT);
    }
}

void pf_u8_resample_h_run(const unsigned char *src, long bpp, const int32_t *starts, const int32_t *counts,
                          const int16_t *weights, long maxTaps, long width, int16_t *dst) {
#if PF_RS_SSE2
    if (bpp == 4) {
        const __m128i zero = _mm_setzero_si128();
        const __m128i round = _mm_set1_epi32(1 << (PF_RS_H_SHIFT - 1));
        for (long i = 0; i < width; i++) {
            const unsigned char *s = src + (long)starts[i] * 4;
            const int16_t *w = weights + i * maxTaps;
            int n = counts[i], k = 0;
            __m128i acc = round;
            /* Two taps per pmaddwd: channels of pixels k and k + 1 interleaved as 16-bit
             * pairs (r0 r1 g0 g1 b0 b1 a0 a1) times (w0 w1) pairs. */
            for (; k + 1 < n; k += 2) {
                int32_t p0, p1;
                memcpy(&p0, s + k * 4, 4);
                memcpy(&p1, s + k * 4 + 4, 4);
                __m128i a = _mm_unpacklo_epi8(_mm_cvtsi32_si128(p0), zero);
                __m128i b = _mm_unpacklo_epi8(_mm_cvtsi32_si128(p1), zero);
                __m128i pair = _mm_unpacklo_epi16(a, b);
                __m128i ww = _mm_set1_epi32((int32_t)(((uint32_t)(uint16_t)w[k + 1] << 16) | (uint16_t)w[k]));
                acc = _mm_add_epi32(acc, _mm_madd_epi16(pair, ww));
            }
            if (k < n) {
                int32_t p0;
                memcpy(&p0, s + k * 4, 4);
                __m128i a = _mm_unpacklo_epi16(_mm_unpacklo_epi8(_mm_cvtsi32_si128(p0), zero), zero);
                acc = _mm_add_epi32(acc, _mm_madd_epi16(a, _mm_set1_epi32((uint16_t)w[k])));
            }
            acc = _mm_srai_epi32(acc, PF_RS_H_SHIFT);
            __m128i packed = _mm_packs_epi32(acc, acc);
            _mm_storel_epi64((__m128i *)(void *)(dst + i * 4), packed);
        }
        return;
    }
#endif
    for (long i = 0; i < width; i++) {
        rs_h_pixel_scalar(src + (long)starts[i] * bpp, bpp, weights + i * maxTaps, counts[i], dst + i * bpp);
    }
}

/* The vertical pass, written as plain loops over 16 values at a time (clang vectorizes them:
 * 16-bit products summed in 32 bits), compiled for the baseline and for AVX2. */
static inline __attribute__((always_inline)) void rs_v_body(const int16_t *const *rows, const int16_t *weights,
                                                            long taps, long n, unsigned char *dst) {
    long i = 0;
    for (; i + 16 <= n; i += 16) {
        int32_t acc[16];
        for (int j = 0; j < 16; j++) acc[j] = 1 << (PF_RS_V_SHIFT - 1);
        for (long k = 0; k < taps; k++) {
            const int16_t *r = rows[k] + i;
            int32_t w = weights[k];
            for (int j = 0; j < 16; j++) acc[j] += (int32_t)r[j] * w;
        }
        for (int j = 0; j < 16; j++) {
            int32_t v = acc[j] >> PF_RS_V_SHIFT;
            dst[i + j] = (unsigned char)(v < 0 ? 0 : v > 255 ? 255 : v);
        }
    }
    for (; i < n; i++) {
        int32_t acc = 1 << (PF_RS_V_SHIFT - 1);
        for (long k = 0; k < taps; k++) acc += (int32_t)rows[k][i] * weights[k];
        int32_t v = acc >> PF_RS_V_SHIFT;
        dst[i] = (unsigned char)(v < 0 ? 0 : v > 255 ? 255 : v);
    }
}

static void rs_v_baseline(const int16_t *const *rows, const int16_t *weights, long taps, long n, unsigned char *dst) {
    rs_v_body(rows, weights, taps, n, dst);
}

#if defined(__x86_64__) && defined(__clang__)
__attribute__((target("avx2")))
static void rs_v_avx2(const int16_t *const *rows, const int16_t *weights, long taps, long n, unsigned char *dst) {
    rs_v_body(rows, weights, taps, n, dst);
}
#endif

void pf_u8_resample_v_run(const int16_t *const *rows, const int16_t *weights, long taps, long n,
                          unsigned char *dst) {
    if (taps == 0) {
        memset(dst, 0, (size_t)n);
        return;
    }
#if defined(__x86_64__) && defined(__clang__)
    if (pf_csimd_uses_avx2()) {
        rs_v_avx2(rows, weights, taps, n, dst);
        return;
    }
#endif
    rs_v_baseline(rows, weights, taps, n, dst);
}

/* Affine bilinear on bytes (see the header). */
#define PF_AF_BITS 11
#define PF_AF_ONE (1 << PF_AF_BITS)

void pf_u8_affine_bilinear_row_run(const unsigned char *src, long stride, long bpp, long wx, long wy, long ww,
                                   long wh, double a, double b, double bx, double by, long x0, long count,
                                   unsigned char *dst) {
#pragma clang fp contract(off)
    const double xlo = (double)(wx - 1), xhi = (double)(wx + ww), ylo = (double)(wy - 1), yhi = (double)(wy + wh);
    for (long i = 0; i < count; i++) {
        const double cx = (double)(x0 + i) + 0.5;
        const double fx = (a * cx + bx) - 0.5, fy = (b * cx + by) - 0.5;
        unsigned char *out = dst + i * bpp;
        if (!(fx > xlo && fx < xhi && fy > ylo && fy < yhi)) {
            for (long c = 0; c < bpp; c++) out[c] = 0;
            continue;
        }
        /* floor for values above -1 (positions inside the window are). */
        long ix = (long)(fx + 1.0) - 1, iy = (long)(fy + 1.0) - 1;
        int ux = (int)((fx - (double)ix) * PF_AF_ONE + 0.5), uy = (int)((fy - (double)iy) * PF_AF_ONE + 0.5);
        if (ux >= PF_AF_ONE) { ix += 1; ux = 0; }
        if (uy >= PF_AF_ONE) { iy += 1; uy = 0; }
        const int inside = ix >= wx && ix + 1 < wx + ww && iy >= wy && iy + 1 < wy + wh;
        const unsigned char *p00, *p10, *p01, *p11;
        static const unsigned char zeros[4] = {0, 0, 0, 0};
        if (inside) {
            p00 = src + iy * stride + ix * bpp;
            p10 = p00 + bpp;
            p01 = p00 + stride;
            p11 = p01 + bpp;
        } else {
            const int x0in = ix >= wx && ix < wx + ww, x1in = ix + 1 >= wx && ix + 1 < wx + ww;
            const int y0in = iy >= wy && iy < wy + wh, y1in = iy + 1 >= wy && iy + 1 < wy + wh;
            p00 = x0in && y0in ? src + iy * stride + ix * bpp : zeros;
            p10 = x1in && y0in ? src + iy * stride + (ix + 1) * bpp : zeros;
            p01 = x0in && y1in ? src + (iy + 1) * stride + ix * bpp : zeros;
            p11 = x1in && y1in ? src + (iy + 1) * stride + (ix + 1) * bpp : zeros;
        }
#if PF_RS_SSE2
        if (bpp == 4) {
            const __m128i zero = _mm_setzero_si128();
            int32_t q00, q10, q01, q11;
            memcpy(&q00, p00, 4); memcpy(&q10, p10, 4); memcpy(&q01, p01, 4); memcpy(&q11, p11, 4);
            const __m128i wxp = _mm_set1_epi32((int32_t)(((uint32_t)ux << 16) | (uint32_t)(PF_AF_ONE - ux)));
            const __m128i wyp = _mm_set1_epi32((int32_t)(((uint32_t)uy << 16) | (uint32_t)(PF_AF_ONE - uy)));
            const __m128i top = _mm_madd_epi16(
                _mm_unpacklo_epi16(_mm_unpacklo_epi8(_mm_cvtsi32_si128(q00), zero), _mm_unpacklo_epi8(_mm_cvtsi32_si128(q10), zero)), wxp);
            const __m128i bot = _mm_madd_epi16(
                _mm_unpacklo_epi16(_mm_unpacklo_epi8(_mm_cvtsi32_si128(q01), zero), _mm_unpacklo_epi8(_mm_cvtsi32_si128(q11), zero)), wxp);
            const __m128i r8 = _mm_set1_epi32(8);
            const __m128i t16 = _mm_srai_epi32(_mm_add_epi32(top, r8), 4), b16 = _mm_srai_epi32(_mm_add_epi32(bot, r8), 4);
            /* t16, b16 <= 255 * 128: fit 16 bits. Interleave per channel and weigh by rows. */
            const __m128i tp = _mm_packs_epi32(t16, t16), bp = _mm_packs_epi32(b16, b16);
            __m128i v = _mm_madd_epi16(_mm_unpacklo_epi16(tp, bp), wyp);
            v = _mm_srai_epi32(_mm_add_epi32(v, _mm_set1_epi32(1 << 17)), 18);
            v = _mm_packs_epi32(v, v);
            v = _mm_packus_epi16(v, v);
            int32_t res = _mm_cvtsi128_si32(v);
            memcpy(out, &res, 4);
            continue;
        }
#endif
        for (long c = 0; c < bpp; c++) {
            int32_t t = ((int32_t)p00[c] * (PF_AF_ONE - ux) + (int32_t)p10[c] * ux + 8) >> 4;
            int32_t bo = ((int32_t)p01[c] * (PF_AF_ONE - ux) + (int32_t)p11[c] * ux + 8) >> 4;
            int32_t v = (t * (PF_AF_ONE - uy) + bo * uy + (1 << 17)) >> 18;
            out[c] = (unsigned char)(v > 255 ? 255 : v);
        }
    }
}
