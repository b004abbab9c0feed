/* The byte blur kernels of CSIMDBytesBlur.h. */
#include "CSIMDBytesBlur.h"
#include "CSIMDBytesResample.h"
#if defined(__x86_64__) || defined(__SSE2__)
#include <emmintrin.h>
#define PF_BL_SSE2 1
#endif

int pf_csimd_uses_avx2(void);

#define PF_BL_V_SHIFT (PF_RS_WEIGHT_BITS - PF_RS_MID_BITS)
#define PF_BL_H_SHIFT (PF_RS_WEIGHT_BITS + PF_RS_MID_BITS)

/* The scalar loops: the definition (see the header) and the tails of the vector loops. */
static inline void bl_v_tail(const unsigned char *const *rows, const int16_t *half, long r, long i, long n,
                             int16_t *dst) {
    for (; i < n; i++) {
        int32_t acc = 1 << (PF_BL_V_SHIFT - 1);
        for (long k = 0; k < r; k++) acc += ((int32_t)rows[k][i] + rows[2 * r - k][i]) * half[k];
        acc += (int32_t)rows[r][i] * half[r];
        dst[i] = (int16_t)(acc >> PF_BL_V_SHIFT);
    }
}

static inline void bl_h_tail(const int16_t *src, long bpp, const int16_t *half, long r, long j, long n,
                             unsigned char *dst) {
    for (; j < n; j++) {
        const int16_t *s = src + j;
        int32_t acc = 1 << (PF_BL_H_SHIFT - 1);
        for (long k = 0; k < r; k++) acc += ((int32_t)s[k * bpp] + s[(2 * r - k) * bpp]) * half[k];
        acc += (int32_t)s[r * bpp] * half[r];
        acc >>= PF_BL_H_SHIFT;
        dst[j] = (unsigned char)(acc > 255 ? 255 : acc);
    }
}

/* The SSE2 loops multiply 16-bit values by one weight with pmaddwd against (w, 0) and (0, w):
 * the even and the odd values of a vector into two 32-bit accumulators. */
#if PF_BL_SSE2
static void bl_v_sse2(const unsigned char *const *rows, const int16_t *half, long r, long n, int16_t *dst) {
    long i = 0;
    const __m128i zero = _mm_setzero_si128(), round = _mm_set1_epi32(1 << (PF_BL_V_SHIFT - 1));
    const __m128i low16 = _mm_set1_epi32(0xFFFF);
    for (; i + 8 <= n; i += 8) {
        __m128i even = round, odd = round;
        for (long k = 0; k <= r; k++) {
            __m128i v = _mm_unpacklo_epi8(_mm_loadl_epi64((const __m128i *)(const void *)(rows[k] + i)), zero);
            if (k < r) {
                v = _mm_add_epi16(
                    v, _mm_unpacklo_epi8(_mm_loadl_epi64((const __m128i *)(const void *)(rows[2 * r - k] + i)), zero));
            }
            __m128i we = _mm_set1_epi32((uint16_t)half[k]), wo = _mm_slli_epi32(we, 16);
            even = _mm_add_epi32(even, _mm_madd_epi16(v, we));
            odd = _mm_add_epi32(odd, _mm_madd_epi16(v, wo));
        }
        even = _mm_and_si128(_mm_srli_epi32(even, PF_BL_V_SHIFT), low16);
        odd = _mm_slli_epi32(_mm_srli_epi32(odd, PF_BL_V_SHIFT), 16);
        _mm_storeu_si128((__m128i *)(void *)(dst + i), _mm_or_si128(even, odd));
    }
    bl_v_tail(rows, half, r, i, n, dst);
}

static void bl_h_sse2(const int16_t *src, long bpp, const int16_t *half, long r, long n, unsigned char *dst) {
    long j = 0;
    const __m128i round = _mm_set1_epi32(1 << (PF_BL_H_SHIFT - 1)), low16 = _mm_set1_epi32(0xFFFF);
    for (; j + 8 <= n; j += 8) {
        const int16_t *s = src + j;
        __m128i even = round, odd = round;
        for (long k = 0; k <= r; k++) {
            __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(s + k * bpp));
            if (k < r) v = _mm_add_epi16(v, _mm_loadu_si128((const __m128i *)(const void *)(s + (2 * r - k) * bpp)));
            __m128i we = _mm_set1_epi32((uint16_t)half[k]), wo = _mm_slli_epi32(we, 16);
            even = _mm_add_epi32(even, _mm_madd_epi16(v, we));
            odd = _mm_add_epi32(odd, _mm_madd_epi16(v, wo));
        }
        even = _mm_and_si128(_mm_srli_epi32(even, PF_BL_H_SHIFT), low16);
        odd = _mm_slli_epi32(_mm_srli_epi32(odd, PF_BL_H_SHIFT), 16);
        __m128i v = _mm_or_si128(even, odd);
        _mm_storel_epi64((__m128i *)(void *)(dst + j), _mm_packus_epi16(v, v));
    }
    bl_h_tail(src, bpp, half, r, j, n, dst);
}
#endif

#if defined(__x86_64__) && defined(__clang__)
#include <immintrin.h>
/* The weights of distances 2p and 2p + 1 as one 32-bit lane (the second 0 past r). */
static inline void bl_weight_pairs(const int16_t *half, long r, int32_t *w) {
    for (long p = 0; p < (r + 2) / 2; p++) {
        uint32_t lo = (uint16_t)half[2 * p], hi = 2 * p + 1 <= r ? (uint16_t)half[2 * p + 1] : 0;
        w[p] = (int32_t)(lo | (hi << 16));
    }
}

/* The loops below on both vector widths (vectors V, intrinsics prefixed M: _mm256 or _mm512; B
 * the width in bits), with DOT adding the pmaddwd products of a weight pair into 32-bit sums. */
#define BL_LOAD256(at) _mm256_loadu_si256((const __m256i *)(const void *)(at))
#define BL_LOAD512(at) _mm512_loadu_si512((const void *)(at))
#define BL_MADD(M, a, u, w) M##_add_epi32(a, M##_madd_epi16(u, w))
#define BL_DPWSSD(M, a, u, w) M##_dpwssd_epi32(a, u, w)

/* NAME(rows, r, k, i, lo, hi): the 16-bit sums of the two rows at distance k (the center row
 * alone at k = r, zeros past r), bytes i... widened into lo and hi. */
#define BL_V_FOLD(NAME, TARGET, M, V, B)                                                                \
    static inline TARGET void NAME(const unsigned char *const *rows, long r, long k, long i, V *lo, V *hi) { \
        const V ones = M##_set1_epi8(1), zero = M##_setzero_si##B();                                   \
        if (k > r) {                                                                                   \
            *lo = zero;                                                                                \
            *hi = zero;                                                                                \
            return;                                                                                    \
        }                                                                                              \
        V a = BL_LOAD##B(rows[k] + i);                                                                 \
        if (k == r) {                                                                                  \
            *lo = M##_unpacklo_epi8(a, zero);                                                          \
            *hi = M##_unpackhi_epi8(a, zero);                                                          \
            return;                                                                                    \
        }                                                                                              \
        V b = BL_LOAD##B(rows[2 * r - k] + i);                                                         \
        *lo = M##_maddubs_epi16(M##_unpacklo_epi8(a, b), ones);                                        \
        *hi = M##_maddubs_epi16(M##_unpackhi_epi8(a, b), ones);                                        \
    }

/* The vertical sums of one step: the folded rows of distances 2p and 2p + 1 (FOLD) interleaved
 * times the weight pair w[p], into a0...a3 (set to round). */
#define BL_V_PAIRS(M, V, FOLD, DOT)                                                                    \
    V a0 = round, a1 = round, a2 = round, a3 = round;                                                  \
    for (long p = 0; p < pairs; p++) {                                                                 \
        V lo0, hi0, lo1, hi1;                                                                          \
        FOLD(rows, r, 2 * p, i, &lo0, &hi0);                                                           \
        FOLD(rows, r, 2 * p + 1, i, &lo1, &hi1);                                                       \
        V wp = M##_set1_epi32(w[p]);                                                                   \
        a0 = DOT(M, a0, M##_unpacklo_epi16(lo0, lo1), wp);                                             \
        a1 = DOT(M, a1, M##_unpackhi_epi16(lo0, lo1), wp);                                             \
        a2 = DOT(M, a2, M##_unpacklo_epi16(hi0, hi1), wp);                                             \
        a3 = DOT(M, a3, M##_unpackhi_epi16(hi0, hi1), wp);                                             \
    }

/* The horizontal sums of one step: the 16-bit values at distances 2p and 2p + 1 folded (the
 * center alone at r, zeros past r), interleaved times the weight pair w[p], into lo and hi (set
 * to round). */
#define BL_H_PAIRS(M, V, B, DOT)                                                                       \
    V lo = round, hi = round;                                                                          \
    for (long p = 0; p < pairs; p++) {                                                                 \
        long k = 2 * p;                                                                                \
        V f0 = BL_LOAD##B(s + k * bpp);                                                                \
        if (k < r) f0 = M##_add_epi16(f0, BL_LOAD##B(s + (2 * r - k) * bpp));                          \
        V f1 = M##_setzero_si##B();                                                                    \
        if (k + 1 <= r) {                                                                              \
            f1 = BL_LOAD##B(s + (k + 1) * bpp);                                                        \
            if (k + 1 < r) f1 = M##_add_epi16(f1, BL_LOAD##B(s + (2 * r - k - 1) * bpp));              \
        }                                                                                              \
        V wp = M##_set1_epi32(w[p]);                                                                   \
        lo = DOT(M, lo, M##_unpacklo_epi16(f0, f1), wp);                                               \
        hi = DOT(M, hi, M##_unpackhi_epi16(f0, f1), wp);                                               \
    }

/* 32 bytes and two distances a step: the bytes of the two rows at one distance interleaved
 * (unpack) and added by pmaddubsw against ones (a + b <= 510), the folded sums of the two
 * distances interleaved (unpack) times the weight pair, one pmaddwd per 8 values. The in-lane
 * pack and one 128-bit permute restore the order. */
BL_V_FOLD(bl_v_fold, __attribute__((target("avx2"))), _mm256, __m256i, 256)

__attribute__((target("avx2"))) static void bl_v_avx2(const unsigned char *const *rows, const int16_t *half, long r,
                                                        long i, long n, int16_t *dst) {
    const __m256i round = _mm256_set1_epi32(1 << (PF_BL_V_SHIFT - 1));
    long pairs = (r + 2) / 2;
    int32_t w[pairs];
    bl_weight_pairs(half, r, w);
    for (; i + 32 <= n; i += 32) {
        BL_V_PAIRS(_mm256, __m256i, bl_v_fold, BL_MADD)
        /* Values 0-7 and 16-23, then 8-15 and 24-31. */
        __m256i lo = _mm256_packs_epi32(_mm256_srai_epi32(a0, PF_BL_V_SHIFT), _mm256_srai_epi32(a1, PF_BL_V_SHIFT));
        __m256i hi = _mm256_packs_epi32(_mm256_srai_epi32(a2, PF_BL_V_SHIFT), _mm256_srai_epi32(a3, PF_BL_V_SHIFT));
        _mm256_storeu_si256((__m256i *)(void *)(dst + i), _mm256_permute2x128_si256(lo, hi, 0x20));
        _mm256_storeu_si256((__m256i *)(void *)(dst + i + 16), _mm256_permute2x128_si256(lo, hi, 0x31));
    }
    bl_v_tail(rows, half, r, i, n, dst);
}

/* Two distances a step: their folded sums interleaved (unpack) times the weight pair, one
 * pmaddwd per 8 values; the in-lane pack restores the order. */
__attribute__((target("avx2"))) static void bl_h_avx2(const int16_t *src, long bpp, const int16_t *half, long r,
                                                        long j, long n, unsigned char *dst) {
    const __m256i round = _mm256_set1_epi32(1 << (PF_BL_H_SHIFT - 1));
    long pairs = (r + 2) / 2;
    int32_t w[pairs];
    bl_weight_pairs(half, r, w);
    for (; j + 16 <= n; j += 16) {
        const int16_t *s = src + j;
        BL_H_PAIRS(_mm256, __m256i, 256, BL_MADD)
        __m256i v = _mm256_packs_epi32(_mm256_srai_epi32(lo, PF_BL_H_SHIFT), _mm256_srai_epi32(hi, PF_BL_H_SHIFT));
        __m128i bytes = _mm_packus_epi16(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
        _mm_storeu_si128((__m128i *)(void *)(dst + j), bytes);
    }
    bl_h_tail(src, bpp, half, r, j, n, dst);
}

/* AVX-512 (BW and VNNI: vpdpwssd adds the pmaddwd pairs into the sums in one instruction, the
 * same integers), 64 values a step, as the AVX2 loops; the AVX2 loops finish the rows. */
#define PF_BL_512 __attribute__((target("avx512f,avx512bw,avx512vnni,avx2")))

BL_V_FOLD(bl_v_fold512, PF_BL_512, _mm512, __m512i, 512)

PF_BL_512 static void bl_v_avx512(const unsigned char *const *rows, const int16_t *half, long r, long n,
                                  int16_t *dst) {
    long i = 0;
    const __m512i round = _mm512_set1_epi32(1 << (PF_BL_V_SHIFT - 1));
    /* Per 128-bit lane, lo holds values 0-7 and hi 8-15 of the lane's 16: these pick 0-31, 32-63. */
    const __m512i first = _mm512_set_epi64(11, 10, 3, 2, 9, 8, 1, 0);
    const __m512i second = _mm512_set_epi64(15, 14, 7, 6, 13, 12, 5, 4);
    long pairs = (r + 2) / 2;
    int32_t w[pairs];
    bl_weight_pairs(half, r, w);
    for (; i + 64 <= n; i += 64) {
        BL_V_PAIRS(_mm512, __m512i, bl_v_fold512, BL_DPWSSD)
        __m512i lo = _mm512_packs_epi32(_mm512_srai_epi32(a0, PF_BL_V_SHIFT), _mm512_srai_epi32(a1, PF_BL_V_SHIFT));
        __m512i hi = _mm512_packs_epi32(_mm512_srai_epi32(a2, PF_BL_V_SHIFT), _mm512_srai_epi32(a3, PF_BL_V_SHIFT));
        _mm512_storeu_si512((void *)(dst + i), _mm512_permutex2var_epi64(lo, first, hi));
        _mm512_storeu_si512((void *)(dst + i + 32), _mm512_permutex2var_epi64(lo, second, hi));
    }
    bl_v_avx2(rows, half, r, i, n, dst);
}

PF_BL_512 static void bl_h_avx512(const int16_t *src, long bpp, const int16_t *half, long r, long n,
                                  unsigned char *dst) {
    long j = 0;
    const __m512i round = _mm512_set1_epi32(1 << (PF_BL_H_SHIFT - 1));
    long pairs = (r + 2) / 2;
    int32_t w[pairs];
    bl_weight_pairs(half, r, w);
    for (; j + 32 <= n; j += 32) {
        const int16_t *s = src + j;
        BL_H_PAIRS(_mm512, __m512i, 512, BL_DPWSSD)
        /* Values 0...255 (weights >= 0, summing to at most 2^14): the unsigned narrowing is exact. */
        __m512i v = _mm512_packs_epi32(_mm512_srai_epi32(lo, PF_BL_H_SHIFT), _mm512_srai_epi32(hi, PF_BL_H_SHIFT));
        _mm256_storeu_si256((__m256i *)(void *)(dst + j), _mm512_cvtusepi16_epi8(v));
    }
    bl_h_avx2(src, bpp, half, r, j, n, dst);
}

#include <cpuid.h>
/* AVX-512 F, BW and VNNI, with the ZMM and mask registers saved by the OS (XCR0 bits 5-7). */
__attribute__((target("xsave"))) static int bl_detect_avx512(void) {
    if (!pf_csimd_uses_avx2()) return 0;
    unsigned a, b, c, d;
    if (__get_cpuid_max(0, 0) < 7) return 0;
    __cpuid_count(7, 0, a, b, c, d);
    if ((b & (1u << 16)) == 0 || (b & (1u << 30)) == 0 || (c & (1u << 11)) == 0) return 0;
    unsigned long long xcr0 = __builtin_ia32_xgetbv(0);
    return (xcr0 & 0xE6) == 0xE6;
}

static int bl_avx512_state = -1; /* -1: not yet detected; racing first calls compute the same value */

static int bl_uses_avx512(void) {
    int s = __atomic_load_n(&bl_avx512_state, __ATOMIC_RELAXED);
    if (s < 0) {
        s = bl_detect_avx512();
        __atomic_store_n(&bl_avx512_state, s, __ATOMIC_RELAXED);
    }
    return s;
}

/* For the other byte kernels (CSIMDBytesConvolve.c): AVX-512 F, BW and VNNI usable. */
int pf_csimd_uses_avx512_vnni(void) { return bl_uses_avx512(); }
#endif

/* variant: 0 the best the processor has, 1 the SSE2 (baseline) loops, 2 the scalar loops, 3 the
 * AVX2 loops (SSE2 without AVX2). */
void pf_u8_blur_v_to16_variant(const unsigned char *const *rows, const int16_t *half, long radius, long n,
                               int16_t *dst, int variant) {
#if defined(__x86_64__) && defined(__clang__)
    if (variant == 0 && bl_uses_avx512()) {
        bl_v_avx512(rows, half, radius, n, dst);
        return;
    }
    if ((variant == 0 || variant == 3) && pf_csimd_uses_avx2()) {
        bl_v_avx2(rows, half, radius, 0, n, dst);
        return;
    }
#endif
#if PF_BL_SSE2
    if (variant != 2) {
        bl_v_sse2(rows, half, radius, n, dst);
        return;
    }
#endif
    bl_v_tail(rows, half, radius, 0, n, dst);
}

void pf_u8_blur_h_from16_variant(const int16_t *src, long bpp, const int16_t *half, long radius, long width,
                                 unsigned char *dst, int variant) {
#if defined(__x86_64__) && defined(__clang__)
    if (variant == 0 && bl_uses_avx512()) {
        bl_h_avx512(src, bpp, half, radius, width * bpp, dst);
        return;
    }
    if ((variant == 0 || variant == 3) && pf_csimd_uses_avx2()) {
        bl_h_avx2(src, bpp, half, radius, 0, width * bpp, dst);
        return;
    }
#endif
#if PF_BL_SSE2
    if (variant != 2) {
        bl_h_sse2(src, bpp, half, radius, width * bpp, dst);
        return;
    }
#endif
    bl_h_tail(src, bpp, half, radius, 0, width * bpp, dst);
}

void pf_u8_blur_v_to16_run(const unsigned char *const *rows, const int16_t *half, long radius, long n,
                           int16_t *dst) {
    pf_u8_blur_v_to16_variant(rows, half, radius, n, dst, 0);
}

void pf_u8_blur_h_from16_run(const int16_t *src, long bpp, const int16_t *half, long radius, long width,
                             unsigned char *dst) {
    pf_u8_blur_h_from16_variant(src, bpp, half, radius, width, dst, 0);
}
