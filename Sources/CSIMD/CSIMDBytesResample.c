/* The byte resampling kernels of CSIMDBytesResample.h. */
#include "CSIMDBytesResample.h"
#include "CSIMDBytesTaps.h"
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

/* Vertical first (see the header). Two rows per pmaddwd: the bytes of rows k and k + 1
 * widened to 16 bits and interleaved, times the weight pair (w_k, w_k+1). */
static inline void rs_v16_tail(const unsigned char *const *rows, const int16_t *weights, long taps, long i, long n,
                               int16_t *dst) {
    for (; i < n; i++) {
        int32_t acc = 1 << (PF_RS_H_SHIFT - 1);
        for (long k = 0; k < taps; k++) acc += (int32_t)rows[k][i] * weights[k];
        dst[i] = rs_saturate16(acc >> PF_RS_H_SHIFT);
    }
}

static inline int32_t rs_weight_pair(const int16_t *weights, long k, long taps) {
    uint32_t lo = (uint16_t)weights[k], hi = k + 1 < taps ? (uint16_t)weights[k + 1] : 0;
    return (int32_t)(lo | (hi << 16));
}

static void rs_v16_portable(const unsigned char *const *rows, const int16_t *weights, long taps, long n,
                            int16_t *dst) {
    long i = 0;
#if PF_RS_SSE2
    const __m128i zero = _mm_setzero_si128(), round = _mm_set1_epi32(1 << (PF_RS_H_SHIFT - 1));
    for (; i + 8 <= n; i += 8) {
        __m128i a0 = round, a1 = round;
        for (long k = 0; k < taps; k += 2) {
            __m128i r0 = _mm_unpacklo_epi8(_mm_loadl_epi64((const __m128i *)(const void *)(rows[k] + i)), zero);
            __m128i r1 = k + 1 < taps
                ? _mm_unpacklo_epi8(_mm_loadl_epi64((const __m128i *)(const void *)(rows[k + 1] + i)), zero)
                : zero;
            __m128i w = _mm_set1_epi32(rs_weight_pair(weights, k, taps));
            a0 = _mm_add_epi32(a0, _mm_madd_epi16(_mm_unpacklo_epi16(r0, r1), w));
            a1 = _mm_add_epi32(a1, _mm_madd_epi16(_mm_unpackhi_epi16(r0, r1), w));
        }
        a0 = _mm_srai_epi32(a0, PF_RS_H_SHIFT);
        a1 = _mm_srai_epi32(a1, PF_RS_H_SHIFT);
        _mm_storeu_si128((__m128i *)(void *)(dst + i), _mm_packs_epi32(a0, a1));
    }
#endif
    rs_v16_tail(rows, weights, taps, i, n, dst);
}

#if defined(__x86_64__) && defined(__clang__)
#include <immintrin.h>
int pf_csimd_uses_avx512_vnni(void); /* CSIMDBytesBlur.c: AVX-512 F, BW and VNNI */

/* The AVX2 loop below with 64-byte vectors, 32 values a step (the unpacks and the pack are
 * in-lane, as there); returns where it stopped. */
__attribute__((target("avx512f,avx512bw")))
static long rs_v16_avx512(const unsigned char *const *rows, const int16_t *weights, long taps, long n, int16_t *dst) {
    long i = 0;
    const __m512i zero = _mm512_setzero_si512(), round = _mm512_set1_epi32(1 << (PF_RS_H_SHIFT - 1));
    for (; i + 32 <= n; i += 32) {
        __m512i a0 = round, a1 = round;
        for (long k = 0; k < taps; k += 2) {
            __m512i r0 = _mm512_cvtepu8_epi16(_mm256_loadu_si256((const __m256i *)(const void *)(rows[k] + i)));
            __m512i r1 = k + 1 < taps
                ? _mm512_cvtepu8_epi16(_mm256_loadu_si256((const __m256i *)(const void *)(rows[k + 1] + i)))
                : zero;
            __m512i w = _mm512_set1_epi32(rs_weight_pair(weights, k, taps));
            a0 = _mm512_add_epi32(a0, _mm512_madd_epi16(_mm512_unpacklo_epi16(r0, r1), w));
            a1 = _mm512_add_epi32(a1, _mm512_madd_epi16(_mm512_unpackhi_epi16(r0, r1), w));
        }
        a0 = _mm512_srai_epi32(a0, PF_RS_H_SHIFT);
        a1 = _mm512_srai_epi32(a1, PF_RS_H_SHIFT);
        _mm512_storeu_si512((void *)(dst + i), _mm512_packs_epi32(a0, a1));
    }
    return i;
}

__attribute__((target("avx2")))
static void rs_v16_avx2(const unsigned char *const *rows, const int16_t *weights, long taps, long n, int16_t *dst) {
    long i = pf_csimd_uses_avx512_vnni() ? rs_v16_avx512(rows, weights, taps, n, dst) : 0;
    const __m256i zero = _mm256_setzero_si256(), round = _mm256_set1_epi32(1 << (PF_RS_H_SHIFT - 1));
    for (; i + 16 <= n; i += 16) {
        __m256i a0 = round, a1 = round;
        for (long k = 0; k < taps; k += 2) {
            __m256i r0 = _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(const void *)(rows[k] + i)));
            __m256i r1 = k + 1 < taps
                ? _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(const void *)(rows[k + 1] + i)))
                : zero;
            __m256i w = _mm256_set1_epi32(rs_weight_pair(weights, k, taps));
            /* In-lane interleave; the in-lane pack below restores the order. */
            a0 = _mm256_add_epi32(a0, _mm256_madd_epi16(_mm256_unpacklo_epi16(r0, r1), w));
            a1 = _mm256_add_epi32(a1, _mm256_madd_epi16(_mm256_unpackhi_epi16(r0, r1), w));
        }
        a0 = _mm256_srai_epi32(a0, PF_RS_H_SHIFT);
        a1 = _mm256_srai_epi32(a1, PF_RS_H_SHIFT);
        _mm256_storeu_si256((__m256i *)(void *)(dst + i), _mm256_packs_epi32(a0, a1));
    }
    rs_v16_tail(rows, weights, taps, i, n, dst);
}
#endif

void pf_u8_resample_v_to16_run(const unsigned char *const *rows, const int16_t *weights, long taps, long n,
                               int16_t *dst) {
    if (taps == 0) {
        memset(dst, 0, (size_t)n * sizeof(int16_t));
        return;
    }
#if defined(__x86_64__) && defined(__clang__)
    if (pf_csimd_uses_avx2()) {
        rs_v16_avx2(rows, weights, taps, n, dst);
        return;
    }
#endif
    rs_v16_portable(rows, weights, taps, n, dst);
}

static inline unsigned char rs_byte(int32_t v) { return (unsigned char)(v < 0 ? 0 : v > 255 ? 255 : v); }

#if PF_RS_SSE2
/* Stores one RGBA byte pixel of the horizontal pass from its tap sum (CSIMDBytesTaps.h, with
 * the rounding term): shifted, saturated to 16 bits and then to bytes. */
static inline void rs_h16_rgba_store(__m128i acc, unsigned char *dst) {
    acc = _mm_srai_epi32(acc, PF_RS_V_SHIFT);
    __m128i v = _mm_packs_epi32(acc, acc);
    v = _mm_packus_epi16(v, v);
    int32_t px = _mm_cvtsi128_si32(v);
    memcpy(dst, &px, 4);
}
#endif
#if defined(__x86_64__) && defined(__clang__)
/* RGBA, four taps per vpmaddwd step (pf_i16_rgba_taps_avx2): the same integer sums as the
 * SSE2 loop, so the same bytes. */
__attribute__((target("avx2")))
static void rs_h16_rgba_avx2(const int16_t *src, const int32_t *starts, const int32_t *counts, const int16_t *weights,
                             long maxTaps, long width, unsigned char *dst) {
    const __m128i round = _mm_set1_epi32(1 << (PF_RS_V_SHIFT - 1));
    for (long i = 0; i < width; i++) {
        const int16_t *s = src + (long)starts[i] * 4;
        rs_h16_rgba_store(pf_i16_rgba_taps_avx2(s, weights + i * maxTaps, counts[i], round), dst + i * 4);
    }
}
#endif

void pf_u8_resample_h_from16_run(const int16_t *src, long bpp, const int32_t *starts, const int32_t *counts,
                                 const int16_t *weights, long maxTaps, long width, unsigned char *dst) {
#if defined(__x86_64__) && defined(__clang__)
    if (bpp == 4 && pf_csimd_uses_avx2()) {
        rs_h16_rgba_avx2(src, starts, counts, weights, maxTaps, width, dst);
        return;
    }
#endif
#if PF_RS_SSE2
    if (bpp == 4) {
        const __m128i round = _mm_set1_epi32(1 << (PF_RS_V_SHIFT - 1));
        for (long i = 0; i < width; i++) {
            const int16_t *s = src + (long)starts[i] * 4;
            rs_h16_rgba_store(pf_i16_rgba_taps_sse2(s, weights + i * maxTaps, 0, counts[i], round), dst + i * 4);
        }
        return;
    }
#endif
    for (long i = 0; i < width; i++) {
        const int16_t *s = src + (long)starts[i] * bpp;
        const int16_t *w = weights + i * maxTaps;
        for (long c = 0; c < bpp; c++) {
            int32_t acc = 1 << (PF_RS_V_SHIFT - 1);
            for (int k = 0; k < counts[i]; k++) acc += (int32_t)s[k * bpp + c] * w[k];
            dst[i * bpp + c] = rs_byte(acc >> PF_RS_V_SHIFT);
        }
    }
}

void pf_u8_resample_h_from16_pairs_run(const int16_t *src, long bpp, long width, unsigned char *dst) {
    long n = width * bpp, i = 0;
#if PF_RS_SSE2
    if (bpp == 4) {
        const __m128i r = _mm_set1_epi16(64);
        /* 4 source pixels (two 16-byte vectors) give 2 outputs; 4 outputs per iteration. */
        for (; i + 16 <= n; i += 16) {
            const int16_t *s = src + 2 * i;
            __m128i p0 = _mm_loadu_si128((const __m128i *)(const void *)s);
            __m128i p1 = _mm_loadu_si128((const __m128i *)(const void *)(s + 8));
            __m128i p2 = _mm_loadu_si128((const __m128i *)(const void *)(s + 16));
            __m128i p3 = _mm_loadu_si128((const __m128i *)(const void *)(s + 24));
            /* Sums fit 16 bits: values <= 255 * 64 (no overshoot for weights 1/2). */
            __m128i a = _mm_add_epi16(_mm_unpacklo_epi64(p0, p1), _mm_unpackhi_epi64(p0, p1));
            __m128i b = _mm_add_epi16(_mm_unpacklo_epi64(p2, p3), _mm_unpackhi_epi64(p2, p3));
            a = _mm_srai_epi16(_mm_add_epi16(a, r), 7);
            b = _mm_srai_epi16(_mm_add_epi16(b, r), 7);
            _mm_storeu_si128((__m128i *)(void *)(dst + i), _mm_packus_epi16(a, b));
        }
    }
#endif
    for (; i < n; i++) {
        long px = i / bpp, c = i % bpp;
        int32_t sum = (int32_t)src[2 * px * bpp + c] + (int32_t)src[(2 * px + 1) * bpp + c];
        dst[i] = rs_byte((sum + 64) >> 7);
    }
}
