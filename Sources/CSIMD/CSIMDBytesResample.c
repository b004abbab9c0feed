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

void pf_u8_resample_h_pairs_run(const unsigned char *src, long bpp, long width, int16_t *dst) {
    long i = 0;
#if PF_RS_SSE2
    if (bpp == 4) {
        const __m128i zero = _mm_setzero_si128();
        /* 4 source pixels (16 bytes) give 2 outputs. */
        for (; i + 2 <= width; i += 2) {
            __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(src + i * 8));
            __m128i lo = _mm_unpacklo_epi8(v, zero), hi = _mm_unpackhi_epi8(v, zero);
            __m128i sum = _mm_add_epi16(_mm_unpacklo_epi64(lo, hi), _mm_unpackhi_epi64(lo, hi));
            _mm_storeu_si128((__m128i *)(void *)(dst + i * 4), _mm_slli_epi16(sum, 5));
        }
    }
#endif
    for (; i < width; i++) {
        for (long c = 0; c < bpp; c++) {
            dst[i * bpp + c] = (int16_t)(((int)src[2 * i * bpp + c] + (int)src[(2 * i + 1) * bpp + c]) * 32);
        }
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
