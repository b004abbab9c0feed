/* The byte convolution kernels of CSIMDBytesConvolve.h. */
#include "CSIMDBytesConvolve.h"
#include "CSIMDBytesTaps.h"
#if defined(__x86_64__) || defined(__SSE2__)
#include <emmintrin.h>
#define PF_CV_SSE2 1
#endif

int pf_csimd_uses_avx2(void);
#if defined(__x86_64__) && defined(__clang__)
int pf_csimd_uses_avx512_vnni(void); /* CSIMDBytesBlur.c */
#endif

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
    pf_unpack_weight_pairs(pairs, n, t->w);
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

/* The outer loop of every vector kernel below, W bytes a step from i while i + W <= n (vectors
 * V, intrinsics prefixed M: _mm, _mm256 or _mm512): per step the accumulators start at the bias
 * b, each tap pair (t->at[2p], t->at[2p + 1]) loads its bytes x and y and STEP adds them in, and
 * FINISH shifts and packs the sums into the bytes v, whose alpha bytes keep_alpha takes from the
 * center pixel (KEEP). ACCUMULATORS declares the sums; the two forms are CV_SUMS32 (32-bit sums of
 * the 16-bit weights) and CV_SUMS16 (16-bit sums of small byte weights, see the header). */
#define CV_LOOP(V, M, W, LOAD, STORE, KEEP, ACCUMULATORS, STEP, FINISH)                                  \
    for (; i + (W) <= n; i += (W)) {                                                                   \
        ACCUMULATORS(V);                                                                               \
        for (long p = 0; p < t->pairs; p++) {                                                          \
            V x = LOAD(t->at[2 * p] + i);                                                              \
            V y = LOAD(t->at[2 * p + 1] + i);                                                          \
            STEP(M, V);                                                                                \
        }                                                                                              \
        V v = FINISH(M);                                                                               \
        if (keep_alpha) v = KEEP(v, LOAD(center + i), alpha);                                          \
        STORE(dst + i, v);                                                                             \
    }

/* 32-bit sums: the two taps' bytes widened to 16 bits and interleaved, pmaddwd against the
 * (w0, w1) pair (DOT adds the products into a sum), four sums of W / 4 bytes. */
#define CV_SUMS32(V) V a0 = b, a1 = b, a2 = b, a3 = b
#define CV_STEP32(M, V, DOT)                                                                           \
    V xl = M##_unpacklo_epi8(x, zero), xh = M##_unpackhi_epi8(x, zero);                                \
    V yl = M##_unpacklo_epi8(y, zero), yh = M##_unpackhi_epi8(y, zero);                                \
    V w = M##_set1_epi32(pairs[p]);                                                                    \
    a0 = DOT(M, a0, M##_unpacklo_epi16(xl, yl), w);                                                    \
    a1 = DOT(M, a1, M##_unpackhi_epi16(xl, yl), w);                                                    \
    a2 = DOT(M, a2, M##_unpacklo_epi16(xh, yh), w);                                                    \
    a3 = DOT(M, a3, M##_unpackhi_epi16(xh, yh), w)
#define CV_MADD(M, a, u, w) M##_add_epi32(a, M##_madd_epi16(u, w))
#define CV_DPWSSD(M, a, u, w) M##_dpwssd_epi32(a, u, w)
#define CV_STEP32_MADD(M, V) CV_STEP32(M, V, CV_MADD)
#define CV_STEP32_DPWSSD(M, V) CV_STEP32(M, V, CV_DPWSSD)
#define CV_FINISH32(M)                                                                                 \
    M##_packus_epi16(M##_packs_epi32(M##_sra_epi32(a0, count), M##_sra_epi32(a1, count)),               \
                     M##_packs_epi32(M##_sra_epi32(a2, count), M##_sra_epi32(a3, count)))

/* 16-bit sums: the two taps' bytes interleaved, pmaddubsw against the (w0, w1) byte pair. */
#define CV_SUMS16(V) V lo = b, hi = b
#define CV_STEP16(M, V)                                                                                \
    V w = M##_set1_epi16(small[p]);                                                                    \
    lo = M##_add_epi16(lo, M##_maddubs_epi16(M##_unpacklo_epi8(x, y), w));                             \
    hi = M##_add_epi16(hi, M##_maddubs_epi16(M##_unpackhi_epi8(x, y), w))
#define CV_FINISH16(M) M##_packus_epi16(M##_sra_epi16(lo, count), M##_sra_epi16(hi, count))

/* Loads, stores and the alpha bytes put back, per vector width: an and/or against the mask
 * vector `alpha` up to 256 bits, a byte-mask blend with AVX-512 BW. */
#define CV_LOAD128(at) _mm_loadu_si128((const __m128i *)(const void *)(at))
#define CV_STORE128(at, v) _mm_storeu_si128((__m128i *)(void *)(at), v)
#define CV_KEEP128(v, c, alpha) _mm_or_si128(_mm_andnot_si128(alpha, v), _mm_and_si128(alpha, c))
#define CV_LOAD256(at) _mm256_loadu_si256((const __m256i *)(const void *)(at))
#define CV_STORE256(at, v) _mm256_storeu_si256((__m256i *)(void *)(at), v)
#define CV_KEEP256(v, c, alpha) _mm256_or_si256(_mm256_andnot_si256(alpha, v), _mm256_and_si256(alpha, c))
#define CV_LOAD512(at) _mm512_loadu_si512((const void *)(at))
#define CV_STORE512(at, v) _mm512_storeu_si512((void *)(at), v)
#define CV_KEEP512(v, c, alpha) _mm512_mask_blend_epi8(alpha, v, c)

#if PF_CV_SSE2
static void cv_sse2(const pf_cv_taps *t, const unsigned char *center, long bpp, const int32_t *pairs,
                    const int32_t *bias, long shift, int keep_alpha, long i, long n, unsigned char *dst) {
    const __m128i zero = _mm_setzero_si128();
    const __m128i b = bpp == 4 ? _mm_setr_epi32(bias[0], bias[1], bias[2], bias[3]) : _mm_set1_epi32(bias[0]);
    const __m128i count = _mm_cvtsi32_si128((int)shift);
    const __m128i alpha = _mm_set1_epi32((int)0xFF000000u);
    CV_LOOP(__m128i, _mm, 16, CV_LOAD128, CV_STORE128, CV_KEEP128, CV_SUMS32, CV_STEP32_MADD, CV_FINISH32)
    cv_tail(t, center, bpp, bias, shift, keep_alpha, i, n, dst);
}
#endif

#if defined(__x86_64__) && defined(__clang__)
#include <immintrin.h>
/* The SSE2 loop on 32 bytes: the unpacks and packs work within 128-bit lanes, and every step is
 * such an in-lane operation, so the packed bytes come out in order without a permute. */
__attribute__((target("avx2"))) static void cv_avx2(const pf_cv_taps *t, const unsigned char *center, long bpp,
                                                      const int32_t *pairs, const int32_t *bias, long shift,
                                                      int keep_alpha, long i, long n, unsigned char *dst) {
    const __m256i zero = _mm256_setzero_si256();
    const __m256i b = bpp == 4 ? _mm256_setr_epi32(bias[0], bias[1], bias[2], bias[3], bias[0], bias[1], bias[2], bias[3])
                               : _mm256_set1_epi32(bias[0]);
    const __m128i count = _mm_cvtsi32_si128((int)shift);
    const __m256i alpha = _mm256_set1_epi32((int)0xFF000000u);
    CV_LOOP(__m256i, _mm256, 32, CV_LOAD256, CV_STORE256, CV_KEEP256, CV_SUMS32, CV_STEP32_MADD, CV_FINISH32)
#if PF_CV_SSE2
    cv_sse2(t, center, bpp, pairs, bias, shift, keep_alpha, i, n, dst);
#else
    cv_tail(t, center, bpp, bias, shift, keep_alpha, i, n, dst);
#endif
}
#endif

#if defined(__x86_64__) && defined(__clang__)
/* The 32-bit kernel on 64 bytes a step with AVX-512 BW and VNNI: vpdpwssd multiplies the pairs
 * and adds them into the sums in one instruction. */
__attribute__((target("avx512f,avx512bw,avx512vnni,avx2"))) static long cv_avx512(
    const pf_cv_taps *t, const unsigned char *center, long bpp, const int32_t *pairs, const int32_t *bias, long shift,
    int keep_alpha, long n, unsigned char *dst) {
    const __m512i zero = _mm512_setzero_si512();
    const __m512i b = bpp == 4 ? _mm512_broadcast_i32x4(_mm_setr_epi32(bias[0], bias[1], bias[2], bias[3]))
                               : _mm512_set1_epi32(bias[0]);
    const __m128i count = _mm_cvtsi32_si128((int)shift);
    const __mmask64 alpha = 0x8888888888888888ull;
    long i = 0;
    CV_LOOP(__m512i, _mm512, 64, CV_LOAD512, CV_STORE512, CV_KEEP512, CV_SUMS32, CV_STEP32_DPWSSD, CV_FINISH32)
    return i;
}

/* Small integer weights in 16 bits (see the header): the two taps' bytes interleaved by an
 * unpack, pmaddubsw against the (w0, w1) byte pair into 16-bit sums, 32 bytes a step. */
__attribute__((target("avx2"))) static long cv_small_avx2(const pf_cv_taps *t, const unsigned char *center, long bpp,
                                                             const int16_t *small, const int16_t *bias, long shift,
                                                             int keep_alpha, long i, long n, unsigned char *dst) {
    const __m256i b = bpp == 4 ? _mm256_setr_epi16(bias[0], bias[1], bias[2], bias[3], bias[0], bias[1], bias[2],
                                                   bias[3], bias[0], bias[1], bias[2], bias[3], bias[0], bias[1],
                                                   bias[2], bias[3])
                               : _mm256_set1_epi16(bias[0]);
    const __m128i count = _mm_cvtsi32_si128((int)shift);
    const __m256i alpha = _mm256_set1_epi32((int)0xFF000000u);
    CV_LOOP(__m256i, _mm256, 32, CV_LOAD256, CV_STORE256, CV_KEEP256, CV_SUMS16, CV_STEP16, CV_FINISH16)
    return i;
}

/* The same on 64 bytes a step with AVX-512 BW (in-lane unpacks and packs again); the alpha bytes
 * blended by a byte mask. */
__attribute__((target("avx512f,avx512bw,avx2"))) static long cv_small_avx512(
    const pf_cv_taps *t, const unsigned char *center, long bpp, const int16_t *small, const int16_t *bias, long shift,
    int keep_alpha, long n, unsigned char *dst) {
    uint64_t pattern = (uint64_t)(uint16_t)bias[0] | (uint64_t)(uint16_t)bias[1] << 16 |
                       (uint64_t)(uint16_t)bias[2] << 32 | (uint64_t)(uint16_t)bias[3] << 48;
    const __m512i b = bpp == 4 ? _mm512_set1_epi64((long long)pattern) : _mm512_set1_epi16(bias[0]);
    const __m128i count = _mm_cvtsi32_si128((int)shift);
    const __mmask64 alpha = 0x8888888888888888ull;
    long i = 0;
    CV_LOOP(__m512i, _mm512, 64, CV_LOAD512, CV_STORE512, CV_KEEP512, CV_SUMS16, CV_STEP16, CV_FINISH16)
    return i;
}
#endif

void pf_u8_convolve_row_small_variant(const unsigned char *const *rows, long kw, long kh, long bpp,
                                      const int32_t *pairs, const int32_t *bias, long shift, const int16_t *small,
                                      const int16_t *small_bias, long small_shift, int keep_alpha, long width,
                                      unsigned char *dst, int variant) {
    if (kw < 1 || kh < 1 || kw * kh > PF_CV_MAX_TAPS || width <= 0) return;
#if defined(__x86_64__) && defined(__clang__)
    if ((variant == 0 || variant == 4 || variant == 5) && pf_csimd_uses_avx2()) {
        pf_cv_taps t;
        cv_taps(rows, kw, kh, bpp, pairs, &t);
        const unsigned char *center = rows[kh / 2] + (kw / 2) * bpp;
        int keep = keep_alpha && bpp == 4;
        long n = width * bpp;
        long i = 0;
        if ((variant == 0 || variant == 5) && pf_csimd_uses_avx512_vnni()) {
            i = cv_small_avx512(&t, center, bpp, small, small_bias, small_shift, keep, n, dst);
        }
        i = cv_small_avx2(&t, center, bpp, small, small_bias, small_shift, keep, i, n, dst);
        if (i < n) {
#if PF_CV_SSE2
            cv_sse2(&t, center, bpp, pairs, bias, shift, keep, i, n, dst);
#else
            cv_tail(&t, center, bpp, bias, shift, keep, i, n, dst);
#endif
        }
        return;
    }
#endif
    pf_u8_convolve_row_variant(rows, kw, kh, bpp, pairs, bias, shift, keep_alpha, width, dst,
                               variant >= 4 ? 0 : variant);
}

void pf_u8_convolve_row_small_run(const unsigned char *const *rows, long kw, long kh, long bpp, const int32_t *pairs,
                                  const int32_t *bias, long shift, const int16_t *small, const int16_t *small_bias,
                                  long small_shift, int keep_alpha, long width, unsigned char *dst) {
    pf_u8_convolve_row_small_variant(rows, kw, kh, bpp, pairs, bias, shift, small, small_bias, small_shift, keep_alpha,
                                     width, dst, 0);
}

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
    if ((variant == 0 || variant == 3 || variant == 6) && pf_csimd_uses_avx2()) {
        long i = 0;
        if ((variant == 0 || variant == 6) && pf_csimd_uses_avx512_vnni()) {
            i = cv_avx512(&t, center, bpp, pairs, bias, shift, keep, n, dst);
        }
        cv_avx2(&t, center, bpp, pairs, bias, shift, keep, i, n, dst);
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
