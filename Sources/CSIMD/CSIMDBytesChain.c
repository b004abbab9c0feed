/* The chained byte form's kernels of CSIMDBytesChain.h. */
#include "CSIMDBytesChain.h"
#include "CSIMDBytesResample.h"
#include "CSIMDBytesTaps.h"
#include <string.h>
#if defined(__x86_64__) || defined(__SSE2__)
#include <emmintrin.h>
#define PF_CH_SSE2 1
#endif
#if defined(__x86_64__) && defined(__clang__)
#include <immintrin.h>
#define PF_CH_X86 1
int pf_csimd_uses_avx2(void);
int pf_csimd_uses_avx512_vnni(void); /* CSIMDBytesBlur.c */
#endif

/* The horizontal pass keeps 6 fractional bits: a shift by the weights' 14 bits. */
#define PF_CH_H_SHIFT PF_RS_WEIGHT_BITS

static inline int16_t ch_saturate16(int32_t v) { return (int16_t)(v < -32768 ? -32768 : v > 32767 ? 32767 : v); }

/* ---- Horizontal pass, 16 bits in and out ---- */

static void ch_h_scalar(const int16_t *src, long bpp, const int32_t *starts, const int32_t *counts,
                        const int16_t *weights, long maxTaps, long width, int16_t *dst) {
    for (long i = 0; i < width; i++) {
        const int16_t *s = src + (long)starts[i] * bpp;
        const int16_t *w = weights + i * maxTaps;
        for (long c = 0; c < bpp; c++) {
            int32_t acc = 1 << (PF_CH_H_SHIFT - 1);
            for (int k = 0; k < counts[i]; k++) acc += (int32_t)s[k * bpp + c] * w[k];
            dst[i * bpp + c] = ch_saturate16(acc >> PF_CH_H_SHIFT);
        }
    }
}

#if PF_CH_SSE2
/* Stores one RGBA output of 16-bit values from its tap sum (CSIMDBytesTaps.h, with the
 * rounding term). */
static inline void ch_h_rgba_store(__m128i acc, int16_t *dst) {
    acc = _mm_srai_epi32(acc, PF_CH_H_SHIFT);
    _mm_storel_epi64((__m128i *)(void *)dst, _mm_packs_epi32(acc, acc));
}

static void ch_h_rgba_sse2(const int16_t *src, const int32_t *starts, const int32_t *counts, const int16_t *weights,
                           long maxTaps, long width, int16_t *dst) {
    const __m128i round = _mm_set1_epi32(1 << (PF_CH_H_SHIFT - 1));
    for (long i = 0; i < width; i++) {
        ch_h_rgba_store(pf_i16_rgba_taps_sse2(src + (long)starts[i] * 4, weights + i * maxTaps, 0, counts[i], round),
                        dst + i * 4);
    }
}
#endif

#if PF_CH_X86
/* RGBA: two taps four outputs a step, more four taps per vpmaddwd (pf_i16_rgba_taps_avx2).
 * The same integer sums as the SSE2 loop. */
__attribute__((target("avx2"))) static void ch_h_rgba_avx2(const int16_t *src, const int32_t *starts,
                                                            const int32_t *counts, const int16_t *weights,
                                                            long maxTaps, long width, int16_t *dst) {
    const __m256i spread = _mm256_setr_epi8(0, 1, 8, 9, 2, 3, 10, 11, 4, 5, 12, 13, 6, 7, 14, 15, 0, 1, 8, 9, 2, 3, 10,
                                            11, 4, 5, 12, 13, 6, 7, 14, 15);
    const __m128i round = _mm_set1_epi32(1 << (PF_CH_H_SHIFT - 1));
    long i = 0;
    if (maxTaps == 2) {
        /* Two taps (bilinear): four outputs a step, each 128-bit lane one output's two pixels
         * interleaved channel by channel times its weight pair. Reads pixel starts[i] + 1 even
         * when counts[i] < 2 (its weight is 0; the header asks for that pixel to be readable). */
        const __m256i lo = _mm256_setr_epi32(0, 0, 0, 0, 1, 1, 1, 1), hi = _mm256_setr_epi32(2, 2, 2, 2, 3, 3, 3, 3);
        const __m256i round8 = _mm256_set1_epi32(1 << (PF_CH_H_SHIFT - 1));
        for (; i + 4 <= width; i += 4) {
#define PF_CH_PX(j) _mm_loadu_si128((const __m128i *)(const void *)(src + (long)starts[i + (j)] * 4))
            __m256i p01 = _mm256_inserti128_si256(_mm256_castsi128_si256(PF_CH_PX(0)), PF_CH_PX(1), 1);
            __m256i p23 = _mm256_inserti128_si256(_mm256_castsi128_si256(PF_CH_PX(2)), PF_CH_PX(3), 1);
#undef PF_CH_PX
            __m256i w4 = _mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)(const void *)(weights + i * 2)));
            __m256i a = _mm256_madd_epi16(_mm256_shuffle_epi8(p01, spread), _mm256_permutevar8x32_epi32(w4, lo));
            __m256i b = _mm256_madd_epi16(_mm256_shuffle_epi8(p23, spread), _mm256_permutevar8x32_epi32(w4, hi));
            a = _mm256_srai_epi32(_mm256_add_epi32(a, round8), PF_CH_H_SHIFT);
            b = _mm256_srai_epi32(_mm256_add_epi32(b, round8), PF_CH_H_SHIFT);
            /* In-lane pack: [o0 o2 | o1 o3], put in order by a qword permutation. */
            __m256i v = _mm256_permute4x64_epi64(_mm256_packs_epi32(a, b), 0xD8);
            _mm256_storeu_si256((__m256i *)(void *)(dst + i * 4), v);
        }
    }
    for (; i < width; i++)
        ch_h_rgba_store(pf_i16_rgba_taps_avx2(src + (long)starts[i] * 4, weights + i * maxTaps, counts[i], round),
                        dst + i * 4);
}
#endif

void pf_i16_resample_h_to16_variant(const int16_t *src, long bpp, const int32_t *starts, const int32_t *counts,
                                    const int16_t *weights, long maxTaps, long width, int16_t *dst, int variant) {
#if PF_CH_X86
    if (bpp == 4 && (variant == 0 || variant == 3) && pf_csimd_uses_avx2()) {
        ch_h_rgba_avx2(src, starts, counts, weights, maxTaps, width, dst);
        return;
    }
#endif
#if PF_CH_SSE2
    if (bpp == 4 && variant != 2) {
        ch_h_rgba_sse2(src, starts, counts, weights, maxTaps, width, dst);
        return;
    }
#endif
    ch_h_scalar(src, bpp, starts, counts, weights, maxTaps, width, dst);
}

void pf_i16_resample_h_to16_run(const int16_t *src, long bpp, const int32_t *starts, const int32_t *counts,
                                const int16_t *weights, long maxTaps, long width, int16_t *dst) {
    pf_i16_resample_h_to16_variant(src, bpp, starts, counts, weights, maxTaps, width, dst, 0);
}

/* ---- Convolution of 16-bit rows into bytes ---- */

/* At most 9 x 9 taps. */
#define PF_CH_MAX_TAPS 81

/* The taps' row starts and weights, unpacked once per call. The odd tap out reads the last tap
 * again with weight 0. */
typedef struct {
    const int16_t *at[PF_CH_MAX_TAPS + 1];
    int16_t w[PF_CH_MAX_TAPS + 1];
    long count, pairs;
} ch_taps;

static inline void ch_make_taps(const int16_t *const *rows, long kw, long kh, long bpp, const int32_t *pairs,
                                ch_taps *t) {
    long n = kw * kh;
    t->count = n;
    t->pairs = (n + 1) / 2;
    for (long j = 0; j < kh; j++)
        for (long k = 0; k < kw; k++) t->at[j * kw + k] = rows[j] + k * bpp;
    t->at[n] = t->at[n - 1];
    pf_unpack_weight_pairs(pairs, n, t->w);
}

static inline void ch_cv_tail(const ch_taps *t, long bpp, const int32_t *bias, long shift, long i, long n,
                              unsigned char *dst) {
    for (; i < n; i++) {
        int32_t acc = bias[bpp == 4 ? (i & 3) : 0];
        for (long k = 0; k < t->count; k++) acc += (int32_t)t->w[k] * t->at[k][i];
        acc >>= shift;
        dst[i] = (unsigned char)(acc < 0 ? 0 : acc > 255 ? 255 : acc);
    }
}

#if PF_CH_SSE2
/* 8 values a step: per pair of taps, the two rows' values interleaved, one pmaddwd per 4. */
static long ch_cv_sse2(const ch_taps *t, long bpp, const int32_t *pairs, const int32_t *bias, long shift, long i,
                       long n, unsigned char *dst) {
    const __m128i b = bpp == 4 ? _mm_setr_epi32(bias[0], bias[1], bias[2], bias[3]) : _mm_set1_epi32(bias[0]);
    const __m128i count = _mm_cvtsi32_si128((int)shift);
    for (; i + 8 <= n; i += 8) {
        __m128i a0 = b, a1 = b;
        for (long p = 0; p < t->pairs; p++) {
            __m128i x = _mm_loadu_si128((const __m128i *)(const void *)(t->at[2 * p] + i));
            __m128i y = _mm_loadu_si128((const __m128i *)(const void *)(t->at[2 * p + 1] + i));
            __m128i w = _mm_set1_epi32(pairs[p]);
            a0 = _mm_add_epi32(a0, _mm_madd_epi16(_mm_unpacklo_epi16(x, y), w));
            a1 = _mm_add_epi32(a1, _mm_madd_epi16(_mm_unpackhi_epi16(x, y), w));
        }
        __m128i v = _mm_packs_epi32(_mm_sra_epi32(a0, count), _mm_sra_epi32(a1, count));
        _mm_storel_epi64((__m128i *)(void *)(dst + i), _mm_packus_epi16(v, v));
    }
    return i;
}
#endif

#if PF_CH_X86
/* 32 values a step, two sets of sums of 16: the unpacks and packs are in-lane, so the packed
 * bytes come out as [0-7 16-23 | 8-15 24-31] and one qword permutation puts them in order. */
__attribute__((target("avx2"))) static long ch_cv_avx2(const ch_taps *t, long bpp, const int32_t *pairs,
                                                       const int32_t *bias, long shift, long i, long n,
                                                       unsigned char *dst) {
    const __m256i b = bpp == 4 ? _mm256_setr_epi32(bias[0], bias[1], bias[2], bias[3], bias[0], bias[1], bias[2], bias[3])
                               : _mm256_set1_epi32(bias[0]);
    const __m128i count = _mm_cvtsi32_si128((int)shift);
    for (; i + 32 <= n; i += 32) {
        __m256i a0 = b, a1 = b, a2 = b, a3 = b;
        for (long p = 0; p < t->pairs; p++) {
            const int16_t *xs = t->at[2 * p] + i, *ys = t->at[2 * p + 1] + i;
            __m256i x0 = _mm256_loadu_si256((const __m256i *)(const void *)xs);
            __m256i y0 = _mm256_loadu_si256((const __m256i *)(const void *)ys);
            __m256i x1 = _mm256_loadu_si256((const __m256i *)(const void *)(xs + 16));
            __m256i y1 = _mm256_loadu_si256((const __m256i *)(const void *)(ys + 16));
            __m256i w = _mm256_set1_epi32(pairs[p]);
            a0 = _mm256_add_epi32(a0, _mm256_madd_epi16(_mm256_unpacklo_epi16(x0, y0), w));
            a1 = _mm256_add_epi32(a1, _mm256_madd_epi16(_mm256_unpackhi_epi16(x0, y0), w));
            a2 = _mm256_add_epi32(a2, _mm256_madd_epi16(_mm256_unpacklo_epi16(x1, y1), w));
            a3 = _mm256_add_epi32(a3, _mm256_madd_epi16(_mm256_unpackhi_epi16(x1, y1), w));
        }
        __m256i v0 = _mm256_packs_epi32(_mm256_sra_epi32(a0, count), _mm256_sra_epi32(a1, count));
        __m256i v1 = _mm256_packs_epi32(_mm256_sra_epi32(a2, count), _mm256_sra_epi32(a3, count));
        __m256i v = _mm256_permute4x64_epi64(_mm256_packus_epi16(v0, v1), 0xD8);
        _mm256_storeu_si256((__m256i *)(void *)(dst + i), v);
    }
    return i;
}

/* 64 values a step with vpdpwssd (multiply the pairs and add into the sums in one
 * instruction); the in-lane packs leave each 128-bit lane's values in order, vpmovuswb narrows
 * the non-negative 16-bit values with unsigned saturation. */
__attribute__((target("avx512f,avx512bw,avx512vnni"))) static long ch_cv_avx512(const ch_taps *t, long bpp,
                                                                                const int32_t *pairs,
                                                                                const int32_t *bias, long shift,
                                                                                long i, long n, unsigned char *dst) {
    const __m512i b = bpp == 4 ? _mm512_broadcast_i32x4(_mm_setr_epi32(bias[0], bias[1], bias[2], bias[3]))
                               : _mm512_set1_epi32(bias[0]);
    const __m128i count = _mm_cvtsi32_si128((int)shift);
    const __m512i zero = _mm512_setzero_si512();
    for (; i + 64 <= n; i += 64) {
        __m512i a0 = b, a1 = b, a2 = b, a3 = b;
        for (long p = 0; p < t->pairs; p++) {
            const int16_t *xs = t->at[2 * p] + i, *ys = t->at[2 * p + 1] + i;
            __m512i x0 = _mm512_loadu_si512((const void *)xs), y0 = _mm512_loadu_si512((const void *)ys);
            __m512i x1 = _mm512_loadu_si512((const void *)(xs + 32)), y1 = _mm512_loadu_si512((const void *)(ys + 32));
            __m512i w = _mm512_set1_epi32(pairs[p]);
            a0 = _mm512_dpwssd_epi32(a0, _mm512_unpacklo_epi16(x0, y0), w);
            a1 = _mm512_dpwssd_epi32(a1, _mm512_unpackhi_epi16(x0, y0), w);
            a2 = _mm512_dpwssd_epi32(a2, _mm512_unpacklo_epi16(x1, y1), w);
            a3 = _mm512_dpwssd_epi32(a3, _mm512_unpackhi_epi16(x1, y1), w);
        }
        __m512i v0 = _mm512_packs_epi32(_mm512_sra_epi32(a0, count), _mm512_sra_epi32(a1, count));
        __m512i v1 = _mm512_packs_epi32(_mm512_sra_epi32(a2, count), _mm512_sra_epi32(a3, count));
        _mm256_storeu_si256((__m256i *)(void *)(dst + i), _mm512_cvtusepi16_epi8(_mm512_max_epi16(v0, zero)));
        _mm256_storeu_si256((__m256i *)(void *)(dst + i + 32), _mm512_cvtusepi16_epi8(_mm512_max_epi16(v1, zero)));
    }
    return i;
}
#endif

void pf_i16_convolve_row_variant(const int16_t *const *rows, long kw, long kh, long bpp, const int32_t *pairs,
                                 const int32_t *bias, long shift, long width, unsigned char *dst, int variant) {
    if (width <= 0 || kw <= 0 || kh <= 0 || kw * kh > PF_CH_MAX_TAPS) return;
    ch_taps t;
    ch_make_taps(rows, kw, kh, bpp, pairs, &t);
    long n = width * bpp, i = 0;
#if PF_CH_X86
    if ((variant == 0 || variant == 6) && pf_csimd_uses_avx512_vnni()) {
        i = ch_cv_avx512(&t, bpp, pairs, bias, shift, i, n, dst);
    }
    if ((variant == 0 || variant == 3 || variant == 6) && pf_csimd_uses_avx2()) {
        i = ch_cv_avx2(&t, bpp, pairs, bias, shift, i, n, dst);
    }
#endif
#if PF_CH_SSE2
    if (variant != 2) i = ch_cv_sse2(&t, bpp, pairs, bias, shift, i, n, dst);
#endif
    ch_cv_tail(&t, bpp, bias, shift, i, n, dst);
}

void pf_i16_convolve_row_run(const int16_t *const *rows, long kw, long kh, long bpp, const int32_t *pairs,
                             const int32_t *bias, long shift, long width, unsigned char *dst) {
    pf_i16_convolve_row_variant(rows, kw, kh, bpp, pairs, bias, shift, width, dst, 0);
}
