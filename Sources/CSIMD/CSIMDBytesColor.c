/* The byte color kernels of CSIMDBytesColor.h. */
#include "CSIMDBytesColor.h"
#include <string.h>

int pf_csimd_uses_avx2(void);

static inline unsigned char bc_byte(int32_t v) { return (unsigned char)(v < 0 ? 0 : v > 255 ? 255 : v); }

static inline int32_t bc_dot(const unsigned char *p, const int16_t *w, int32_t bias) {
    return (int32_t)p[0] * w[0] + (int32_t)p[1] * w[1] + (int32_t)p[2] * w[2] + (int32_t)p[3] * w[3] + bias;
}

static void bc_rgba_portable(const unsigned char *src, unsigned char *dst, long i, long count, const int16_t *w,
                             const int32_t *bias, int shift, int zero_transparent) {
    for (; i < count; i++) {
        const unsigned char *p = src + 4 * i;
        unsigned char *q = dst + 4 * i;
        if (zero_transparent && p[3] == 0) {
            memset(q, 0, 4);
            continue;
        }
        unsigned char o[4];
        for (int k = 0; k < 4; k++) o[k] = bc_byte(bc_dot(p, w + 4 * k, bias[k]) >> shift);
        memcpy(q, o, 4);
    }
}

static void bc_gray_portable(const unsigned char *src, unsigned char *dst, long i, long count, const int16_t *w,
                             int32_t bias, int shift) {
    for (; i < count; i++) dst[i] = bc_byte(bc_dot(src + 4 * i, w, bias) >> shift);
}

static inline unsigned char bc_times_alpha(unsigned c, unsigned a) {
    unsigned t = c * a + 128;
    return (unsigned char)((t + (t >> 8)) >> 8);
}

static void bc_premultiply_portable(const unsigned char *src, unsigned char *dst, long i, long count) {
    for (; i < count; i++) {
        const unsigned char *p = src + 4 * i;
        unsigned char o[4] = {bc_times_alpha(p[0], p[3]), bc_times_alpha(p[1], p[3]), bc_times_alpha(p[2], p[3]), p[3]};
        memcpy(dst + 4 * i, o, 4);
    }
}

static void bc_source_over_portable(const unsigned char *fg, const unsigned char *bg, unsigned char *dst, long i,
                                    long count) {
    for (; i < count; i++) {
        unsigned inv = 255u - fg[4 * i + 3];
        for (int k = 0; k < 4; k++) {
            unsigned v = fg[4 * i + k] + bc_times_alpha(bg[4 * i + k], inv);
            dst[4 * i + k] = (unsigned char)(v > 255 ? 255 : v);
        }
    }
}

#if defined(__x86_64__) && defined(__clang__)
#include <immintrin.h>

/* 8 pixels a step: 255 - fg.a spread over each pixel's bytes by a byte shuffle, the products
 * with bg in 16-bit lanes, the exact division by 255, then a saturating add of fg. */
__attribute__((target("avx2"))) static void bc_source_over_avx2(const unsigned char *fg, const unsigned char *bg,
                                                                unsigned char *dst, long count) {
    const __m256i spread = _mm256_setr_epi8(3, 3, 3, 3, 7, 7, 7, 7, 11, 11, 11, 11, 15, 15, 15, 15, 3, 3, 3, 3, 7, 7, 7,
                                            7, 11, 11, 11, 11, 15, 15, 15, 15);
    const __m256i ones = _mm256_set1_epi8((char)0xFF), round = _mm256_set1_epi16(128);
    long i = 0;
    for (; i + 8 <= count; i += 8) {
        __m256i f = _mm256_loadu_si256((const __m256i *)(const void *)(fg + 4 * i));
        __m256i b = _mm256_loadu_si256((const __m256i *)(const void *)(bg + 4 * i));
        __m256i inv = _mm256_sub_epi8(ones, _mm256_shuffle_epi8(f, spread));
        __m256i r[2];
        for (int h = 0; h < 2; h++) {
            __m256i b16 = _mm256_cvtepu8_epi16(h ? _mm256_extracti128_si256(b, 1) : _mm256_castsi256_si128(b));
            __m256i i16 = _mm256_cvtepu8_epi16(h ? _mm256_extracti128_si256(inv, 1) : _mm256_castsi256_si128(inv));
            __m256i t = _mm256_add_epi16(_mm256_mullo_epi16(b16, i16), round);
            r[h] = _mm256_srli_epi16(_mm256_add_epi16(t, _mm256_srli_epi16(t, 8)), 8);
        }
        __m256i o = _mm256_permute4x64_epi64(_mm256_packus_epi16(r[0], r[1]), 0xD8);
        _mm256_storeu_si256((__m256i *)(void *)(dst + 4 * i), _mm256_adds_epu8(f, o));
    }
    bc_source_over_portable(fg, bg, dst, i, count);
}

/* 8 pixels a step: 16-bit lanes, each color times its pixel's alpha (broadcast by a byte
 * shuffle), alpha times 255; then the exact division by 255. */
__attribute__((target("avx2"))) static void bc_premultiply_avx2(const unsigned char *src, unsigned char *dst,
                                                                long count) {
    const __m256i spread = _mm256_setr_epi8(6, 7, 6, 7, 6, 7, -1, -1, 14, 15, 14, 15, 14, 15, -1, -1, 6, 7, 6, 7, 6, 7,
                                            -1, -1, 14, 15, 14, 15, 14, 15, -1, -1);
    const __m256i alpha255 = _mm256_setr_epi16(0, 0, 0, 255, 0, 0, 0, 255, 0, 0, 0, 255, 0, 0, 0, 255);
    const __m256i round = _mm256_set1_epi16(128);
    long i = 0;
    for (; i + 8 <= count; i += 8) {
        __m128i lo = _mm_loadu_si128((const __m128i *)(const void *)(src + 4 * i));
        __m128i hi = _mm_loadu_si128((const __m128i *)(const void *)(src + 4 * i + 16));
        __m256i v[2] = {_mm256_cvtepu8_epi16(lo), _mm256_cvtepu8_epi16(hi)};
        for (int h = 0; h < 2; h++) {
            __m256i m = _mm256_or_si256(_mm256_shuffle_epi8(v[h], spread), alpha255);
            __m256i t = _mm256_add_epi16(_mm256_mullo_epi16(v[h], m), round);
            v[h] = _mm256_srli_epi16(_mm256_add_epi16(t, _mm256_srli_epi16(t, 8)), 8);
        }
        /* The in-lane pack gives pixels 0-1, 4-5, 2-3, 6-7: put the 64-bit pairs in order. */
        __m256i o = _mm256_permute4x64_epi64(_mm256_packus_epi16(v[0], v[1]), 0xD8);
        _mm256_storeu_si256((__m256i *)(void *)(dst + 4 * i), o);
    }
    bc_premultiply_portable(src, dst, i, count);
}

/* Weights of output k as the two pmaddwd operands: (w_R, w_B) for the R/B lanes, (w_G, w_A)
 * for the G/A lanes. */
__attribute__((target("avx2"))) static inline __m256i bc_pair(int16_t lo, int16_t hi) {
    return _mm256_set1_epi32((int32_t)((uint32_t)(uint16_t)lo | ((uint32_t)(uint16_t)hi << 16)));
}

/* One output channel of 8 pixels: (rb . wRB + ga . wGA + bias) >> shift, 32-bit lanes. */
__attribute__((target("avx2"))) static inline __m256i bc_channel(__m256i rb, __m256i ga, __m256i wrb, __m256i wga,
                                                                  __m256i bias, __m128i shift) {
    __m256i s = _mm256_add_epi32(_mm256_madd_epi16(rb, wrb), _mm256_madd_epi16(ga, wga));
    return _mm256_sra_epi32(_mm256_add_epi32(s, bias), shift);
}

__attribute__((target("avx2"))) static void bc_rgba_avx2(const unsigned char *src, unsigned char *dst, long count,
                                                         const int16_t *w, const int32_t *bias, int shift,
                                                         int zero_transparent) {
    const __m256i low = _mm256_set1_epi32(0x00FF00FF), alpha = _mm256_set1_epi32((int)0xFF000000u);
    const __m128i sh = _mm_cvtsi32_si128(shift);
    __m256i wrb[4], wga[4], b[4];
    for (int k = 0; k < 4; k++) {
        wrb[k] = bc_pair(w[4 * k], w[4 * k + 2]);
        wga[k] = bc_pair(w[4 * k + 1], w[4 * k + 3]);
        b[k] = _mm256_set1_epi32(bias[k]);
    }
    /* After the packs, each 128-bit lane holds R0-3 G0-3 B0-3 A0-3 of its 4 pixels: transpose. */
    const __m256i order = _mm256_setr_epi8(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15, 0, 4, 8, 12, 1, 5, 9,
                                           13, 2, 6, 10, 14, 3, 7, 11, 15);
    long i = 0;
    for (; i + 8 <= count; i += 8) {
        __m256i px = _mm256_loadu_si256((const __m256i *)(const void *)(src + 4 * i));
        __m256i rb = _mm256_and_si256(px, low), ga = _mm256_and_si256(_mm256_srli_epi32(px, 8), low);
        __m256i c0 = bc_channel(rb, ga, wrb[0], wga[0], b[0], sh);
        __m256i c1 = bc_channel(rb, ga, wrb[1], wga[1], b[1], sh);
        __m256i c2 = bc_channel(rb, ga, wrb[2], wga[2], b[2], sh);
        __m256i c3 = bc_channel(rb, ga, wrb[3], wga[3], b[3], sh);
        /* Saturating packs clamp to 0...255 (signed 16 bits first, which keeps the order). */
        __m256i o = _mm256_packus_epi16(_mm256_packs_epi32(c0, c1), _mm256_packs_epi32(c2, c3));
        o = _mm256_shuffle_epi8(o, order);
        if (zero_transparent) {
            __m256i clear = _mm256_cmpeq_epi32(_mm256_and_si256(px, alpha), _mm256_setzero_si256());
            o = _mm256_andnot_si256(clear, o);
        }
        _mm256_storeu_si256((__m256i *)(void *)(dst + 4 * i), o);
    }
    bc_rgba_portable(src, dst, i, count, w, bias, shift, zero_transparent);
}

__attribute__((target("avx2"))) static void bc_gray_avx2(const unsigned char *src, unsigned char *dst, long count,
                                                         const int16_t *w, int32_t bias, int shift) {
    const __m256i low = _mm256_set1_epi32(0x00FF00FF);
    const __m128i sh = _mm_cvtsi32_si128(shift);
    const __m256i wrb = bc_pair(w[0], w[2]), wga = bc_pair(w[1], w[3]), b = _mm256_set1_epi32(bias);
    /* The packs interleave the 4-pixel halves of the four vectors: put them back in order. */
    const __m256i order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
    long i = 0;
    for (; i + 32 <= count; i += 32) {
        __m256i c[4];
        for (int v = 0; v < 4; v++) {
            __m256i px = _mm256_loadu_si256((const __m256i *)(const void *)(src + 4 * (i + 8 * v)));
            __m256i rb = _mm256_and_si256(px, low), ga = _mm256_and_si256(_mm256_srli_epi32(px, 8), low);
            c[v] = bc_channel(rb, ga, wrb, wga, b, sh);
        }
        __m256i o = _mm256_packus_epi16(_mm256_packs_epi32(c[0], c[1]), _mm256_packs_epi32(c[2], c[3]));
        o = _mm256_permutevar8x32_epi32(o, order);
        _mm256_storeu_si256((__m256i *)(void *)(dst + i), o);
    }
    bc_gray_portable(src, dst, i, count, w, bias, shift);
}
#endif

void pf_u8_matrix_rgba_run(const unsigned char *src, unsigned char *dst, long count, const int16_t *w,
                           const int32_t *bias, int shift, int zero_transparent) {
#if defined(__x86_64__) && defined(__clang__)
    if (pf_csimd_uses_avx2()) {
        bc_rgba_avx2(src, dst, count, w, bias, shift, zero_transparent);
        return;
    }
#endif
    bc_rgba_portable(src, dst, 0, count, w, bias, shift, zero_transparent);
}

void pf_u8_matrix_gray_run(const unsigned char *src, unsigned char *dst, long count, const int16_t *w, int32_t bias,
                           int shift) {
#if defined(__x86_64__) && defined(__clang__)
    if (pf_csimd_uses_avx2()) {
        bc_gray_avx2(src, dst, count, w, bias, shift);
        return;
    }
#endif
    bc_gray_portable(src, dst, 0, count, w, bias, shift);
}

void pf_u8_premultiply_rgba_run(const unsigned char *src, unsigned char *dst, long count) {
#if defined(__x86_64__) && defined(__clang__)
    if (pf_csimd_uses_avx2()) {
        bc_premultiply_avx2(src, dst, count);
        return;
    }
#endif
    bc_premultiply_portable(src, dst, 0, count);
}

void pf_u8_source_over_rgba_run(const unsigned char *fg, const unsigned char *bg, unsigned char *dst, long count) {
#if defined(__x86_64__) && defined(__clang__)
    if (pf_csimd_uses_avx2()) {
        bc_source_over_avx2(fg, bg, dst, count);
        return;
    }
#endif
    bc_source_over_portable(fg, bg, dst, 0, count);
}

void pf_u8_table_run(const unsigned char *src, unsigned char *dst, long count, const unsigned char *table) {
    for (long i = 0; i < count; i++) dst[i] = table[src[i]];
}
