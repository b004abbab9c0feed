#ifndef PIXELFLOW_CSIMD_BYTES_TAPS_H
#define PIXELFLOW_CSIMD_BYTES_TAPS_H
/* What the byte kernels' files share: the weight pairs' unpacking of the convolutions
 * (CSIMDBytesConvolve.c, CSIMDBytesChain.c) and the tap sums of the 16-bit RGBA horizontal
 * passes (CSIMDBytesResample.c: 16 bits in, bytes out; CSIMDBytesChain.c: 16 bits in and
 * out; CSIMDBytesShrink.c: bytes out, unpremultiplied; each shifts, packs and stores the sum
 * its own way). Private to CSIMD (not in
 * include/). */
#include <stdint.h>
#include <string.h>

/* Unpacks `count` convolution weights from the pairs the byte forms pass ((w_2p, w_2p+1) as
 * the low and high 16 bits of pairs[p]) into w[0...count rounded up to even - 1]; an odd
 * count's last weight is the 0 of its pair. */
static inline void pf_unpack_weight_pairs(const int32_t *pairs, long count, int16_t *w) {
    for (long p = 0; p < (count + 1) / 2; p++) {
        uint32_t v = (uint32_t)pairs[p];
        w[2 * p] = (int16_t)(uint16_t)(v & 0xFFFF);
        w[2 * p + 1] = (int16_t)(uint16_t)(v >> 16);
    }
}

#if defined(__x86_64__) || defined(__SSE2__)
#include <emmintrin.h>
/* The sum of taps k...n - 1 of RGBA pixels `s` (4 x 16 bits each) times weights `w`, added to
 * `acc` (which holds the rounding term), two taps per pmaddwd: pixels k and k + 1 interleaved
 * channel by channel, times (w_k, w_k+1). The odd last tap is paired with 0. */
static inline __attribute__((always_inline)) __m128i pf_i16_rgba_taps_sse2(const int16_t *s, const int16_t *w, int k,
                                                                          int n, __m128i acc) {
    for (; k + 1 < n; k += 2) {
        __m128i a = _mm_loadl_epi64((const __m128i *)(const void *)(s + k * 4));
        __m128i b = _mm_loadl_epi64((const __m128i *)(const void *)(s + k * 4 + 4));
        int32_t pair;
        memcpy(&pair, w + k, 4);
        acc = _mm_add_epi32(acc, _mm_madd_epi16(_mm_unpacklo_epi16(a, b), _mm_set1_epi32(pair)));
    }
    if (k < n) {
        __m128i a = _mm_loadl_epi64((const __m128i *)(const void *)(s + k * 4));
        acc = _mm_add_epi32(acc, _mm_madd_epi16(_mm_unpacklo_epi16(a, _mm_setzero_si128()),
                                                _mm_set1_epi32((uint16_t)w[k])));
    }
    return acc;
}
#endif

#if defined(__x86_64__) && defined(__clang__)
#include <immintrin.h>
/* The same sum over all n taps, four taps per vpmaddwd step: the 16 values of pixels
 * k...k + 3 in one load, each 128-bit lane's two pixels interleaved channel by channel
 * (pshufb), times the weight pairs (w_k, w_k+1) in the low lane and (w_k+2, w_k+3) in the high
 * one; the lanes are added, and the last 0 to 3 taps go through the SSE2 sum. The same
 * integers as pf_i16_rgba_taps_sse2(s, w, 0, n, acc). */
__attribute__((target("avx2"))) static inline __attribute__((always_inline)) __m128i
pf_i16_rgba_taps_avx2(const int16_t *s, const int16_t *w, int n, __m128i acc) {
    const __m256i spread = _mm256_setr_epi8(0, 1, 8, 9, 2, 3, 10, 11, 4, 5, 12, 13, 6, 7, 14, 15, 0, 1, 8, 9, 2, 3, 10,
                                            11, 4, 5, 12, 13, 6, 7, 14, 15);
    const __m256i pairs = _mm256_setr_epi32(0, 0, 0, 0, 1, 1, 1, 1);
    int k = 0;
    __m256i acc4 = _mm256_setzero_si256();
    for (; k + 4 <= n; k += 4) {
        __m256i p = _mm256_shuffle_epi8(_mm256_loadu_si256((const __m256i *)(const void *)(s + k * 4)), spread);
        long long quad;
        memcpy(&quad, w + k, 8);
        __m256i wq = _mm256_permutevar8x32_epi32(_mm256_castsi128_si256(_mm_cvtsi64_si128(quad)), pairs);
        acc4 = _mm256_add_epi32(acc4, _mm256_madd_epi16(p, wq));
    }
    acc = _mm_add_epi32(acc, _mm_add_epi32(_mm256_castsi256_si128(acc4), _mm256_extracti128_si256(acc4, 1)));
    return pf_i16_rgba_taps_sse2(s, w, k, n, acc);
}
#endif
#endif
