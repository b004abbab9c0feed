/* The unsharp mask kernels of CSIMDBytesUnsharp.h. The horizontal pass: SSE2 and AVX2 loops
 * with pmaddwd on pairs of folded sums (as CSIMDBytesBlur.c), the portable loop for the tails.
 * The combines: portable loops written so that the compiler vectorizes them (no aliasing between
 * inputs and outputs), compiled once for the baseline and once for AVX2 (target attribute),
 * chosen at run time. */
#include "CSIMDBytesUnsharp.h"
#include "CSIMDBytesResample.h"

int pf_csimd_uses_avx2(void);

#define PF_US_H_SHIFT (PF_RS_WEIGHT_BITS + PF_RS_MID_BITS - PF_US_BLUR_BITS)
#define PF_US_BLOCK 256

#define PF_US_AVX2 __attribute__((target("avx2")))
#define PF_US_INLINE static inline __attribute__((always_inline))

PF_US_INLINE void us_blur_h(const int16_t *restrict src, long bpp, const int16_t *restrict half, long r, long width,
                            int16_t *restrict dst) {
    const long n = width * bpp;
    int32_t acc[PF_US_BLOCK];
    for (long j0 = 0; j0 < n; j0 += PF_US_BLOCK) {
        const long m = n - j0 < PF_US_BLOCK ? n - j0 : PF_US_BLOCK;
        const int16_t *s = src + j0;
        const int32_t center = half[r];
        const int16_t *c = s + r * bpp;
        for (long j = 0; j < m; j++) acc[j] = (1 << (PF_US_H_SHIFT - 1)) + (int32_t)c[j] * center;
        for (long k = 0; k < r; k++) {
            const int16_t *a = s + k * bpp, *b = s + (2 * r - k) * bpp;
            const int32_t w = half[k];
            /* a[j] + b[j] <= 2 * 255 * 64: fits 16 bits. */
            for (long j = 0; j < m; j++) acc[j] += (int32_t)(int16_t)(a[j] + b[j]) * w;
        }
        for (long j = 0; j < m; j++) dst[j0 + j] = (int16_t)(acc[j] >> PF_US_H_SHIFT);
    }
}

PF_US_INLINE void us_combine(const unsigned char *restrict src, const int16_t *restrict blur, long n, int16_t intensity,
                             long q, unsigned char *restrict dst) {
    const int32_t k = intensity, shift = (int32_t)q + PF_US_BLUR_BITS, round = 1 << (shift - 1);
    for (long i = 0; i < n; i++) {
        const int32_t s = src[i];
        const int16_t d = (int16_t)((s << PF_US_BLUR_BITS) - blur[i]);
        int32_t v = s + ((k * d + round) >> shift);
        v = v < 0 ? 0 : v > 255 ? 255 : v;
        dst[i] = (unsigned char)v;
    }
}

PF_US_INLINE void us_luma(const unsigned char *restrict src, const int16_t *restrict blur, long pixels,
                          const int16_t *restrict weights, long q, unsigned char *restrict dst) {
    const int32_t w0 = weights[0], w1 = weights[1], w2 = weights[2];
    const int32_t shift = (int32_t)q + PF_US_BLUR_BITS, round = 1 << (shift - 1);
    for (long p = 0; p < pixels; p++) {
        const unsigned char *s = src + 4 * p;
        const int16_t *g = blur + 4 * p;
        const int32_t r = s[0], gr = s[1], b = s[2];
        const int32_t l = w0 * (int16_t)((r << PF_US_BLUR_BITS) - g[0]) + w1 * (int16_t)((gr << PF_US_BLUR_BITS) - g[1])
                          + w2 * (int16_t)((b << PF_US_BLUR_BITS) - g[2]);
        const int32_t t = (l + round) >> shift;
        int32_t x = r + t, y = gr + t, z = b + t;
        x = x < 0 ? 0 : x > 255 ? 255 : x;
        y = y < 0 ? 0 : y > 255 ? 255 : y;
        z = z < 0 ? 0 : z > 255 ? 255 : z;
        unsigned char *d = dst + 4 * p;
        d[0] = (unsigned char)x;
        d[1] = (unsigned char)y;
        d[2] = (unsigned char)z;
        d[3] = s[3];
    }
}

/* The weights in pairs for pmaddwd: pair p holds half[2p] (low) and half[2p + 1] (high), 0 past r. */
static inline void us_weight_pairs(const int16_t *half, long r, int32_t *w) {
    for (long p = 0; 2 * p <= r; p++) {
        uint32_t lo = (uint16_t)half[2 * p], hi = 2 * p + 1 <= r ? (uint16_t)half[2 * p + 1] : 0;
        w[p] = (int32_t)(lo | hi << 16);
    }
}

/* The folded sum at distance k from the window's start: s[k] + s[2r - k], or s[r] alone, or 0 past r. */
#if defined(__x86_64__) || defined(__SSE2__)
#include <immintrin.h>
static inline __m128i us_fold128(const int16_t *s, long bpp, long r, long k) {
    if (k > r) return _mm_setzero_si128();
    __m128i a = _mm_loadu_si128((const __m128i *)(const void *)(s + k * bpp));
    if (k == r) return a;
    return _mm_add_epi16(a, _mm_loadu_si128((const __m128i *)(const void *)(s + (2 * r - k) * bpp)));
}

/* SSE2: two distances a step, their folded sums interleaved (unpack) times the weight pair, one
 * pmaddwd per 4 values; the pack restores the order. The scalar loop finishes the row. */
static void us_blur_h_base(const int16_t *src, long bpp, const int16_t *half, long r, long width, int16_t *dst) {
    const long n = width * bpp, pairs = r / 2 + 1;
    int32_t w[pairs];
    us_weight_pairs(half, r, w);
    const __m128i round = _mm_set1_epi32(1 << (PF_US_H_SHIFT - 1));
    long j = 0;
    for (; j + 8 <= n; j += 8) {
        const int16_t *s = src + j;
        __m128i lo = round, hi = round;
        for (long p = 0; p < pairs; p++) {
            __m128i f0 = us_fold128(s, bpp, r, 2 * p), f1 = us_fold128(s, bpp, r, 2 * p + 1);
            __m128i wp = _mm_set1_epi32(w[p]);
            lo = _mm_add_epi32(lo, _mm_madd_epi16(_mm_unpacklo_epi16(f0, f1), wp));
            hi = _mm_add_epi32(hi, _mm_madd_epi16(_mm_unpackhi_epi16(f0, f1), wp));
        }
        _mm_storeu_si128((__m128i *)(void *)(dst + j),
                         _mm_packs_epi32(_mm_srai_epi32(lo, PF_US_H_SHIFT), _mm_srai_epi32(hi, PF_US_H_SHIFT)));
    }
    /* n - j is a multiple of bpp: n is, and j of 8. */
    if (j < n) us_blur_h(src + j, bpp, half, r, (n - j) / bpp, dst + j);
}

static inline PF_US_AVX2 __m256i us_fold256(const int16_t *s, long bpp, long r, long k) {
    if (k > r) return _mm256_setzero_si256();
    __m256i a = _mm256_loadu_si256((const __m256i *)(const void *)(s + k * bpp));
    if (k == r) return a;
    return _mm256_add_epi16(a, _mm256_loadu_si256((const __m256i *)(const void *)(s + (2 * r - k) * bpp)));
}

/* AVX2: the SSE2 loop 16 values a step (the in-lane unpacks and pack keep the order). */
PF_US_AVX2 static void us_blur_h_avx2(const int16_t *src, long bpp, const int16_t *half, long r, long width,
                                      int16_t *dst) {
    const long n = width * bpp, pairs = r / 2 + 1;
    int32_t w[pairs];
    us_weight_pairs(half, r, w);
    const __m256i round = _mm256_set1_epi32(1 << (PF_US_H_SHIFT - 1));
    long j = 0;
    for (; j + 16 <= n; j += 16) {
        const int16_t *s = src + j;
        __m256i lo = round, hi = round;
        for (long p = 0; p < pairs; p++) {
            __m256i f0 = us_fold256(s, bpp, r, 2 * p), f1 = us_fold256(s, bpp, r, 2 * p + 1);
            __m256i wp = _mm256_set1_epi32(w[p]);
            lo = _mm256_add_epi32(lo, _mm256_madd_epi16(_mm256_unpacklo_epi16(f0, f1), wp));
            hi = _mm256_add_epi32(hi, _mm256_madd_epi16(_mm256_unpackhi_epi16(f0, f1), wp));
        }
        _mm256_storeu_si256(
            (__m256i *)(void *)(dst + j),
            _mm256_packs_epi32(_mm256_srai_epi32(lo, PF_US_H_SHIFT), _mm256_srai_epi32(hi, PF_US_H_SHIFT)));
    }
    if (j < n) us_blur_h(src + j, bpp, half, r, (n - j) / bpp, dst + j);
}

/* AVX-512 (BW and VNNI: vpdpwssd adds the pmaddwd pairs into the sums in one instruction, the
 * same integers), 32 values a step; the AVX2 loop finishes the row. */
#define PF_US_512 __attribute__((target("avx512f,avx512bw,avx512vnni,avx2")))
int pf_csimd_uses_avx512_vnni(void);

PF_US_512 static void us_blur_h_avx512(const int16_t *src, long bpp, const int16_t *half, long r, long width,
                                       int16_t *dst) {
    const long n = width * bpp, pairs = r / 2 + 1;
    int32_t w[pairs];
    us_weight_pairs(half, r, w);
    const __m512i round = _mm512_set1_epi32(1 << (PF_US_H_SHIFT - 1)), zero = _mm512_setzero_si512();
    long j = 0;
    for (; j + 32 <= n; j += 32) {
        const int16_t *s = src + j;
        __m512i lo = round, hi = round;
        for (long p = 0; p < pairs; p++) {
            long k = 2 * p;
            __m512i f0 = _mm512_loadu_si512((const void *)(s + k * bpp));
            if (k < r) f0 = _mm512_add_epi16(f0, _mm512_loadu_si512((const void *)(s + (2 * r - k) * bpp)));
            __m512i f1 = zero;
            if (k + 1 <= r) {
                f1 = _mm512_loadu_si512((const void *)(s + (k + 1) * bpp));
                if (k + 1 < r) f1 = _mm512_add_epi16(f1, _mm512_loadu_si512((const void *)(s + (2 * r - k - 1) * bpp)));
            }
            __m512i wp = _mm512_set1_epi32(w[p]);
            lo = _mm512_dpwssd_epi32(lo, _mm512_unpacklo_epi16(f0, f1), wp);
            hi = _mm512_dpwssd_epi32(hi, _mm512_unpackhi_epi16(f0, f1), wp);
        }
        _mm512_storeu_si512((void *)(dst + j),
                            _mm512_packs_epi32(_mm512_srai_epi32(lo, PF_US_H_SHIFT), _mm512_srai_epi32(hi, PF_US_H_SHIFT)));
    }
    if (j < n) us_blur_h_avx2(src + j, bpp, half, r, (n - j) / bpp, dst + j);
}
#else
static void us_blur_h_base(const int16_t *src, long bpp, const int16_t *half, long r, long width, int16_t *dst) {
    us_blur_h(src, bpp, half, r, width, dst);
}
static void us_blur_h_avx2(const int16_t *src, long bpp, const int16_t *half, long r, long width, int16_t *dst) {
    us_blur_h(src, bpp, half, r, width, dst);
}
#endif
static void us_combine_base(const unsigned char *src, const int16_t *blur, long n, int16_t k, long q,
                            unsigned char *dst) {
    us_combine(src, blur, n, k, q, dst);
}
PF_US_AVX2 static void us_combine_avx2(const unsigned char *src, const int16_t *blur, long n, int16_t k, long q,
                                       unsigned char *dst) {
    us_combine(src, blur, n, k, q, dst);
}
#if defined(__x86_64__) || defined(__SSE2__)
#include <emmintrin.h>
/* SSE2, 4 pixels a step: d = 128 s - g as 16-bit lanes, pmaddwd against (W0, W1, W2, 0) per pixel
 * gives R W0 + G W1 and B W2 in two 32-bit lanes, added by a shuffle; the rounded shift, packed
 * to 16 bits, is spread over the pixel's R, G, B lanes (alpha's is 0), added to s and packed to
 * bytes with unsigned saturation (the clamp). The portable loop finishes the row. */
PF_US_INLINE void us_luma_sse2(const unsigned char *src, const int16_t *blur, long pixels, const int16_t *w, long q,
                               unsigned char *dst) {
    const __m128i weights = _mm_setr_epi16(w[0], w[1], w[2], 0, w[0], w[1], w[2], 0);
    const __m128i round = _mm_set1_epi32(1 << (q + PF_US_BLUR_BITS - 1));
    const __m128i count = _mm_cvtsi32_si128((int)q + PF_US_BLUR_BITS);
    const __m128i colors = _mm_setr_epi16(-1, -1, -1, 0, -1, -1, -1, 0), zero = _mm_setzero_si128();
    long p = 0;
    for (; p + 4 <= pixels; p += 4) {
        __m128i s = _mm_loadu_si128((const __m128i *)(const void *)(src + 4 * p));
        __m128i slo = _mm_unpacklo_epi8(s, zero), shi = _mm_unpackhi_epi8(s, zero);
        __m128i dlo = _mm_sub_epi16(_mm_slli_epi16(slo, PF_US_BLUR_BITS),
                                    _mm_loadu_si128((const __m128i *)(const void *)(blur + 4 * p)));
        __m128i dhi = _mm_sub_epi16(_mm_slli_epi16(shi, PF_US_BLUR_BITS),
                                    _mm_loadu_si128((const __m128i *)(const void *)(blur + 4 * p + 8)));
        __m128i mlo = _mm_madd_epi16(dlo, weights), mhi = _mm_madd_epi16(dhi, weights);
        mlo = _mm_add_epi32(mlo, _mm_shuffle_epi32(mlo, _MM_SHUFFLE(2, 3, 0, 1)));
        mhi = _mm_add_epi32(mhi, _mm_shuffle_epi32(mhi, _MM_SHUFFLE(2, 3, 0, 1)));
        __m128i t = _mm_packs_epi32(_mm_sra_epi32(_mm_add_epi32(mlo, round), count),
                                    _mm_sra_epi32(_mm_add_epi32(mhi, round), count));
        __m128i tlo = _mm_and_si128(_mm_unpacklo_epi32(t, t), colors);
        __m128i thi = _mm_and_si128(_mm_unpackhi_epi32(t, t), colors);
        __m128i out = _mm_packus_epi16(_mm_adds_epi16(slo, tlo), _mm_adds_epi16(shi, thi));
        _mm_storeu_si128((__m128i *)(void *)(dst + 4 * p), out);
    }
    us_luma(src + 4 * p, blur + 4 * p, pixels - p, w, q, dst + 4 * p);
}
#define PF_US_LUMA us_luma_sse2
#else
#define PF_US_LUMA us_luma
#endif

static void us_luma_base(const unsigned char *src, const int16_t *blur, long pixels, const int16_t *w, long q,
                         unsigned char *dst) {
    PF_US_LUMA(src, blur, pixels, w, q, dst);
}
PF_US_AVX2 static void us_luma_avx2(const unsigned char *src, const int16_t *blur, long pixels, const int16_t *w,
                                    long q, unsigned char *dst) {
    PF_US_LUMA(src, blur, pixels, w, q, dst);
}

static int us_avx2(int variant) {
#if defined(__x86_64__)
    return (variant == 0 || variant == 3 || variant == 4) && pf_csimd_uses_avx2();
#else
    (void)variant;
    return 0;
#endif
}

void pf_i16_blur_h_to16_variant(const int16_t *src, long bpp, const int16_t *half, long radius, long width,
                                int16_t *dst, int variant) {
#if defined(__x86_64__) || defined(__SSE2__)
    if ((variant == 0 || variant == 4) && pf_csimd_uses_avx512_vnni()) {
        us_blur_h_avx512(src, bpp, half, radius, width, dst);
        return;
    }
#endif
    if (us_avx2(variant)) {
        us_blur_h_avx2(src, bpp, half, radius, width, dst);
    } else if (variant == 2) {
        us_blur_h(src, bpp, half, radius, width, dst);
    } else {
        us_blur_h_base(src, bpp, half, radius, width, dst);
    }
}

void pf_u8_unsharp_variant(const unsigned char *src, const int16_t *blur, long n, int16_t intensity, long q,
                           unsigned char *dst, int variant) {
    if (us_avx2(variant)) {
        us_combine_avx2(src, blur, n, intensity, q, dst);
    } else {
        us_combine_base(src, blur, n, intensity, q, dst);
    }
}

void pf_u8_sharpen_luma_rgba_variant(const unsigned char *src, const int16_t *blur, long pixels,
                                     const int16_t *weights, long q, unsigned char *dst, int variant) {
    if (us_avx2(variant)) {
        us_luma_avx2(src, blur, pixels, weights, q, dst);
    } else if (variant == 2) {
        us_luma(src, blur, pixels, weights, q, dst);
    } else {
        us_luma_base(src, blur, pixels, weights, q, dst);
    }
}

void pf_i16_blur_h_to16_run(const int16_t *src, long bpp, const int16_t *half, long radius, long width,
                            int16_t *dst) {
    pf_i16_blur_h_to16_variant(src, bpp, half, radius, width, dst, 0);
}

void pf_i16_resample_h_to_blur_run(const int16_t *src, long bpp, const int32_t *starts, const int32_t *counts,
                                const int16_t *weights, long maxTaps, long width, int16_t *dst) {
    for (long i = 0; i < width; i++) {
        const int16_t *w = weights + i * maxTaps;
        for (long c = 0; c < bpp; c++) {
            const int16_t *s = src + (long)starts[i] * bpp + c;
            int32_t acc = 1 << (PF_US_H_SHIFT - 1);
            for (long k = 0; k < counts[i]; k++) acc += (int32_t)s[k * bpp] * w[k];
            acc >>= PF_US_H_SHIFT;
            if (counts[i] == 0) acc = 0;
            dst[i * bpp + c] = (int16_t)(acc > 32767 ? 32767 : acc < -32768 ? -32768 : acc);
        }
    }
}

void pf_u8_unsharp_run(const unsigned char *src, const int16_t *blur, long n, int16_t intensity, long q,
                       unsigned char *dst) {
    pf_u8_unsharp_variant(src, blur, n, intensity, q, dst, 0);
}

void pf_u8_sharpen_luma_rgba_run(const unsigned char *src, const int16_t *blur, long pixels,
                                 const int16_t *weights, long q, unsigned char *dst) {
    pf_u8_sharpen_luma_rgba_variant(src, blur, pixels, weights, q, dst, 0);
}
