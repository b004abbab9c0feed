/* The byte convolution kernels of CSIMDBytesConvolve.h. */
#include "CSIMDBytesConvolve.h"
#if defined(__x86_64__) || defined(__SSE2__)
#include <emmintrin.h>
#define PF_CV_SSE2 1
#endif

int pf_csimd_uses_avx2(void);

/* At most 9 x 9 taps. */
#define PF_CV_MAX_TAPS 81

/* The taps' row starts and 16-bit weights, unpacked once per call. */
typedef struct {
    const unsigned char *at[PF_CV_MAX_TAPS + 1];
    int16_t w[PF_CV_MAX_TAPS + 1];
    long count, pairs;
} pf_cv_taps;

static inline void cv_taps(const unsigned char *const *rows, long kw, long kh, long bpp, const int32_t *pairs,
                           pf_cv_taps *t) {
    long n = kw * kh;
    t->count = n;
    t->pairs = (n + 1) / 2;
    for (long j = 0; j < kh; j++)
        for (long k = 0; k < kw; k++) t->at[j * kw + k] = rows[j] + k * bpp;
    /* The odd tap out reads the last tap again, with weight 0. */
    t->at[n] = t->at[n - 1];
    for (long p = 0; p < t->pairs; p++) {
        uint32_t v = (uint32_t)pairs[p];
        t->w[2 * p] = (int16_t)(uint16_t)(v & 0xFFFF);
        t->w[2 * p + 1] = (int16_t)(uint16_t)(v >> 16);
    }
}

/* The definition (see the header), and the tails of the vector loops. */
static inline void cv_tail(const pf_cv_taps *t, const unsigned char *center, long bpp, const int32_t *bias, long shift,
                           int keep_alpha, long i, long n, unsigned char *dst) {
    for (; i < n; i++) {
        int32_t acc = bias[bpp == 4 ? (i & 3) : 0];
        for (long k = 0; k < t->count; k++) acc += (int32_t)t->w[k] * t->at[k][i];
        acc >>= shift;
        dst[i] = (unsigned char)(acc < 0 ? 0 : acc > 255 ? 255 : acc);
        if (keep_alpha && (i & 3) == 3) dst[i] = center[i];
    }
}

#if PF_CV_SSE2
static void cv_sse2(const pf_cv_taps *t, const unsigned char *center, long bpp, const int32_t *pairs,
                    const int32_t *bias, long shift, int keep_alpha, long i, long n, unsigned char *dst) {
    const __m128i zero = _mm_setzero_si128();
    const __m128i b = bpp == 4 ? _mm_setr_epi32(bias[0], bias[1], bias[2], bias[3]) : _mm_set1_epi32(bias[0]);
    const __m128i count = _mm_cvtsi32_si128((int)shift);
    const __m128i alpha = _mm_set1_epi32((int)0xFF000000u);
    for (; i + 16 <= n; i += 16) {
        __m128i a0 = b, a1 = b, a2 = b, a3 = b;
        for (long p = 0; p < t->pairs; p++) {
            __m128i x = _mm_loadu_si128((const __m128i *)(const void *)(t->at[2 * p] + i));
            __m128i y = _mm_loadu_si128((const __m128i *)(const void *)(t->at[2 * p + 1] + i));
            __m128i xl = _mm_unpacklo_epi8(x, zero), xh = _mm_unpackhi_epi8(x, zero);
            __m128i yl = _mm_unpacklo_epi8(y, zero), yh = _mm_unpackhi_epi8(y, zero);
            __m128i w = _mm_set1_epi32(pairs[p]);
            a0 = _mm_add_epi32(a0, _mm_madd_epi16(_mm_unpacklo_epi16(xl, yl), w));
            a1 = _mm_add_epi32(a1, _mm_madd_epi16(_mm_unpackhi_epi16(xl, yl), w));
            a2 = _mm_add_epi32(a2, _mm_madd_epi16(_mm_unpacklo_epi16(xh, yh), w));
            a3 = _mm_add_epi32(a3, _mm_madd_epi16(_mm_unpackhi_epi16(xh, yh), w));
        }
        a0 = _mm_sra_epi32(a0, count);
        a1 = _mm_sra_epi32(a1, count);
        a2 = _mm_sra_epi32(a2, count);
        a3 = _mm_sra_epi32(a3, count);
        __m128i v = _mm_packus_epi16(_mm_packs_epi32(a0, a1), _mm_packs_epi32(a2, a3));
        if (keep_alpha) {
            __m128i c = _mm_loadu_si128((const __m128i *)(const void *)(center + i));
            v = _mm_or_si128(_mm_andnot_si128(alpha, v), _mm_and_si128(alpha, c));
        }
        _mm_storeu_si128((__m128i *)(void *)(dst + i), v);
    }
    cv_tail(t, center, bpp, bias, shift, keep_alpha, i, n, dst);
}
#endif

#if defined(__x86_64__) && defined(__clang__)
#include <immintrin.h>
/* The SSE2 loop on 32 bytes: the unpacks and packs work within 128-bit lanes, and every step is
 * such an in-lane operation, so the packed bytes come out in order without a permute. */
__attribute__((target("avx2"))) static void cv_avx2(const pf_cv_taps *t, const unsigned char *center, long bpp,
                                                      const int32_t *pairs, const int32_t *bias, long shift,
                                                      int keep_alpha, long n, unsigned char *dst) {
    const __m256i zero = _mm256_setzero_si256();
    const __m256i b = bpp == 4 ? _mm256_setr_epi32(bias[0], bias[1], bias[2], bias[3], bias[0], bias[1], bias[2], bias[3])
                               : _mm256_set1_epi32(bias[0]);
    const __m128i count = _mm_cvtsi32_si128((int)shift);
    const __m256i alpha = _mm256_set1_epi32((int)0xFF000000u);
    long i = 0;
    for (; i + 32 <= n; i += 32) {
        __m256i a0 = b, a1 = b, a2 = b, a3 = b;
        for (long p = 0; p < t->pairs; p++) {
            __m256i x = _mm256_loadu_si256((const __m256i *)(const void *)(t->at[2 * p] + i));
            __m256i y = _mm256_loadu_si256((const __m256i *)(const void *)(t->at[2 * p + 1] + i));
            __m256i xl = _mm256_unpacklo_epi8(x, zero), xh = _mm256_unpackhi_epi8(x, zero);
            __m256i yl = _mm256_unpacklo_epi8(y, zero), yh = _mm256_unpackhi_epi8(y, zero);
            __m256i w = _mm256_set1_epi32(pairs[p]);
            a0 = _mm256_add_epi32(a0, _mm256_madd_epi16(_mm256_unpacklo_epi16(xl, yl), w));
            a1 = _mm256_add_epi32(a1, _mm256_madd_epi16(_mm256_unpackhi_epi16(xl, yl), w));
            a2 = _mm256_add_epi32(a2, _mm256_madd_epi16(_mm256_unpacklo_epi16(xh, yh), w));
            a3 = _mm256_add_epi32(a3, _mm256_madd_epi16(_mm256_unpackhi_epi16(xh, yh), w));
        }
        a0 = _mm256_sra_epi32(a0, count);
        a1 = _mm256_sra_epi32(a1, count);
        a2 = _mm256_sra_epi32(a2, count);
        a3 = _mm256_sra_epi32(a3, count);
        __m256i v = _mm256_packus_epi16(_mm256_packs_epi32(a0, a1), _mm256_packs_epi32(a2, a3));
        if (keep_alpha) {
            __m256i c = _mm256_loadu_si256((const __m256i *)(const void *)(center + i));
            v = _mm256_or_si256(_mm256_andnot_si256(alpha, v), _mm256_and_si256(alpha, c));
        }
        _mm256_storeu_si256((__m256i *)(void *)(dst + i), v);
    }
#if PF_CV_SSE2
    cv_sse2(t, center, bpp, pairs, bias, shift, keep_alpha, i, n, dst);
#else
    cv_tail(t, center, bpp, bias, shift, keep_alpha, i, n, dst);
#endif
}
#endif

void pf_u8_convolve_row_variant(const unsigned char *const *rows, long kw, long kh, long bpp, const int32_t *pairs,
                                const int32_t *bias, long shift, int keep_alpha, long width, unsigned char *dst,
                                int variant) {
    if (kw < 1 || kh < 1 || kw * kh > PF_CV_MAX_TAPS || width <= 0) return;
    pf_cv_taps t;
    cv_taps(rows, kw, kh, bpp, pairs, &t);
    const unsigned char *center = rows[kh / 2] + (kw / 2) * bpp;
    int keep = keep_alpha && bpp == 4;
    long n = width * bpp;
#if defined(__x86_64__) && defined(__clang__)
    if ((variant == 0 || variant == 3) && pf_csimd_uses_avx2()) {
        cv_avx2(&t, center, bpp, pairs, bias, shift, keep, n, dst);
        return;
    }
#endif
#if PF_CV_SSE2
    if (variant != 2) {
        cv_sse2(&t, center, bpp, pairs, bias, shift, keep, 0, n, dst);
        return;
    }
#endif
    cv_tail(&t, center, bpp, bias, shift, keep, 0, n, dst);
}

void pf_u8_convolve_row_run(const unsigned char *const *rows, long kw, long kh, long bpp, const int32_t *pairs,
                            const int32_t *bias, long shift, int keep_alpha, long width, unsigned char *dst) {
    pf_u8_convolve_row_variant(rows, kw, kh, bpp, pairs, bias, shift, keep_alpha, width, dst, 0);
}
