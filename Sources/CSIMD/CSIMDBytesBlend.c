/* The byte blend, unpremultiply and linear-light matrix kernels of CSIMDBytesBlend.h. */
#include "CSIMDBytesBlend.h"
#include <string.h>

int pf_csimd_uses_avx2(void);

static inline unsigned char bb_byte(int32_t v) { return (unsigned char)(v < 0 ? 0 : v > 255 ? 255 : v); }

/* round(x / 255) for 0 <= x <= 65280, saturated at 255: exact for x < 65663. */
static inline unsigned char bb_div255(int32_t x) {
    if (x < 0) x = 0;
    if (x > 65280) x = 65280;
    int32_t t = x + 128;
    return bb_byte((t + (t >> 8)) >> 8);
}

static inline int32_t bb_sign(int32_t v, int32_t s) { return s > 0 ? v : s < 0 ? -v : 0; }

static void bb_blend_portable(const unsigned char *fg, const unsigned char *bg, unsigned char *dst, long i, long count,
                              pf_u8_blend_coefficients c) {
    for (; i < count; i++) {
        const unsigned char *f = fg + 4 * i, *b = bg + 4 * i;
        int32_t wf = c.f_weight + bb_sign(b[3], c.f_by_b_alpha), wb = c.b_weight + bb_sign(f[3], c.b_by_f_alpha);
        unsigned char o[4];
        for (int k = 0; k < 4; k++) {
            int32_t x = f[k] * wf + b[k] * wb + bb_sign(f[k] * b[k], c.product);
            o[k] = c.shift > 0 ? bb_byte((x + (1 << (c.shift - 1))) >> c.shift) : bb_div255(x);
        }
        memcpy(dst + 4 * i, o, 4);
    }
}

static inline unsigned char bb_unpremultiply1(unsigned c, unsigned a, uint32_t m) {
    return (unsigned char)(((c < a ? c : a) * m + (1u << 19)) >> 20);
}

static void bb_unpremultiply_portable(const unsigned char *src, unsigned char *dst, long i, long count,
                                      const uint32_t *m) {
    for (; i < count; i++) {
        const unsigned char *p = src + 4 * i;
        unsigned a = p[3];
        uint32_t k = m[a];
        unsigned char o[4] = {bb_unpremultiply1(p[0], a, k), bb_unpremultiply1(p[1], a, k),
                              bb_unpremultiply1(p[2], a, k), (unsigned char)a};
        memcpy(dst + 4 * i, o, 4);
    }
}

static inline int32_t bb_linear_channel(const int32_t *x, const int16_t *w, int32_t bias, int shift) {
    int32_t s = x[0] * w[0] + x[1] * w[1] + x[2] * w[2] + x[3] * w[3] + bias;
    s >>= shift;
    return s < 0 ? 0 : s > PF_U8_LINEAR_SCALE ? PF_U8_LINEAR_SCALE : s;
}

static void bb_linear_rgba_portable(const unsigned char *src, unsigned char *dst, long i, long count,
                                    const int32_t *decode, const unsigned char *encode, const int16_t *w,
                                    const int32_t *bias, int shift, int zero_transparent) {
    for (; i < count; i++) {
        const unsigned char *p = src + 4 * i;
        unsigned char o[4] = {0, 0, 0, 0};
        if (!(zero_transparent && p[3] == 0)) {
            int32_t x[4] = {decode[p[0]], decode[p[1]], decode[p[2]], 128 * p[3]};
            for (int k = 0; k < 3; k++) o[k] = encode[bb_linear_channel(x, w + 4 * k, bias[k], shift)];
            o[3] = p[3];
        }
        memcpy(dst + 4 * i, o, 4);
    }
}

static void bb_linear_gray_portable(const unsigned char *src, unsigned char *dst, long i, long count,
                                    const int32_t *decode, const unsigned char *encode, const int16_t *w, int32_t bias,
                                    int shift) {
    for (; i < count; i++) {
        const unsigned char *p = src + 4 * i;
        int32_t x[4] = {decode[p[0]], decode[p[1]], decode[p[2]], 128 * p[3]};
        dst[i] = encode[bb_linear_channel(x, w, bias, shift)];
    }
}

#if defined(__x86_64__) && defined(__clang__)
#include <immintrin.h>

/* 8 pixels a step, in two halves of 4 pixels in 16-bit lanes: the per-pixel weights from the
 * alphas (broadcast by a byte shuffle, signs applied by psignw), then (f, b) pairs times the
 * weight pairs by pmaddwd into 32-bit sums, plus the signed product f * b; then the rounding
 * division (or shift) and saturating packs. */
__attribute__((target("avx2"))) static void bb_blend_avx2(const unsigned char *fg, const unsigned char *bg,
                                                          unsigned char *dst, long count, pf_u8_blend_coefficients c) {
    const __m256i spread = _mm256_setr_epi8(6, 7, 6, 7, 6, 7, 6, 7, 14, 15, 14, 15, 14, 15, 14, 15, 6, 7, 6, 7, 6, 7, 6,
                                            7, 14, 15, 14, 15, 14, 15, 14, 15);
    const __m256i f0 = _mm256_set1_epi16(c.f_weight), f1 = _mm256_set1_epi16(c.f_by_b_alpha);
    const __m256i b0 = _mm256_set1_epi16(c.b_weight), b1 = _mm256_set1_epi16(c.b_by_f_alpha);
    const __m256i pr = _mm256_set1_epi32(c.product), zero = _mm256_setzero_si256();
    const __m256i top = _mm256_set1_epi32(65280), half = _mm256_set1_epi32(c.shift > 0 ? 1 << (c.shift - 1) : 128);
    const __m128i sh = _mm_cvtsi32_si128(c.shift);
    long i = 0;
    for (; i + 8 <= count; i += 8) {
        __m256i fv = _mm256_loadu_si256((const __m256i *)(const void *)(fg + 4 * i));
        __m256i bv = _mm256_loadu_si256((const __m256i *)(const void *)(bg + 4 * i));
        __m256i r[2];
        for (int h = 0; h < 2; h++) {
            __m256i f = _mm256_cvtepu8_epi16(h ? _mm256_extracti128_si256(fv, 1) : _mm256_castsi256_si128(fv));
            __m256i b = _mm256_cvtepu8_epi16(h ? _mm256_extracti128_si256(bv, 1) : _mm256_castsi256_si128(bv));
            __m256i wf = _mm256_add_epi16(f0, _mm256_sign_epi16(_mm256_shuffle_epi8(b, spread), f1));
            __m256i wb = _mm256_add_epi16(b0, _mm256_sign_epi16(_mm256_shuffle_epi8(f, spread), b1));
            __m256i fb = _mm256_mullo_epi16(f, b);
            __m256i x[2];
            for (int part = 0; part < 2; part++) {
                __m256i v = part ? _mm256_unpackhi_epi16(f, b) : _mm256_unpacklo_epi16(f, b);
                __m256i w = part ? _mm256_unpackhi_epi16(wf, wb) : _mm256_unpacklo_epi16(wf, wb);
                __m256i p = part ? _mm256_unpackhi_epi16(fb, zero) : _mm256_unpacklo_epi16(fb, zero);
                __m256i s = _mm256_add_epi32(_mm256_madd_epi16(v, w), _mm256_sign_epi32(p, pr));
                if (c.shift > 0) {
                    s = _mm256_sra_epi32(_mm256_add_epi32(s, half), sh);
                } else {
                    s = _mm256_add_epi32(_mm256_min_epi32(_mm256_max_epi32(s, zero), top), half);
                    s = _mm256_srli_epi32(_mm256_add_epi32(s, _mm256_srli_epi32(s, 8)), 8);
                }
                x[part] = s;
            }
            r[h] = _mm256_packs_epi32(x[0], x[1]);
        }
        __m256i o = _mm256_permute4x64_epi64(_mm256_packus_epi16(r[0], r[1]), 0xD8);
        _mm256_storeu_si256((__m256i *)(void *)(dst + 4 * i), o);
    }
    bb_blend_portable(fg, bg, dst, i, count, c);
}

/* 8 pixels a step, each a 32-bit lane: the multiplier gathered by alpha, each color
 * min(c, a) * m in 32 bits. */
__attribute__((target("avx2"))) static void bb_unpremultiply_avx2(const unsigned char *src, unsigned char *dst,
                                                                  long count, const uint32_t *m) {
    const __m256i low = _mm256_set1_epi32(0xFF), half = _mm256_set1_epi32(1 << 19);
    long i = 0;
    for (; i + 8 <= count; i += 8) {
        __m256i px = _mm256_loadu_si256((const __m256i *)(const void *)(src + 4 * i));
        __m256i a = _mm256_srli_epi32(px, 24);
        __m256i k = _mm256_i32gather_epi32((const int *)(const void *)m, a, 4);
        __m256i o = _mm256_slli_epi32(a, 24);
        for (int c = 0; c < 3; c++) {
            __m256i v = _mm256_min_epi32(_mm256_and_si256(_mm256_srli_epi32(px, 8 * c), low), a);
            v = _mm256_srli_epi32(_mm256_add_epi32(_mm256_mullo_epi32(v, k), half), 20);
            o = _mm256_or_si256(o, _mm256_slli_epi32(v, 8 * c));
        }
        _mm256_storeu_si256((__m256i *)(void *)(dst + 4 * i), o);
    }
    bb_unpremultiply_portable(src, dst, i, count, m);
}

/* The weights of output k as pmaddwd operands: (w_R, w_G) and (w_B, w_A). */
__attribute__((target("avx2"))) static inline __m256i bb_pair(int16_t lo, int16_t hi) {
    return _mm256_set1_epi32((int32_t)((uint32_t)(uint16_t)lo | ((uint32_t)(uint16_t)hi << 16)));
}

/* The linear values of 8 pixels as (R, G) and (B, 128 A) 16-bit pairs, from three gathers. */
__attribute__((target("avx2"))) static inline void bb_linear_pairs(__m256i px, const int32_t *decode, __m256i *rg,
                                                                    __m256i *ba) {
    const __m256i low = _mm256_set1_epi32(0xFF);
    __m256i r = _mm256_i32gather_epi32((const int *)(const void *)decode, _mm256_and_si256(px, low), 4);
    __m256i g =
        _mm256_i32gather_epi32((const int *)(const void *)decode, _mm256_and_si256(_mm256_srli_epi32(px, 8), low), 4);
    __m256i b =
        _mm256_i32gather_epi32((const int *)(const void *)decode, _mm256_and_si256(_mm256_srli_epi32(px, 16), low), 4);
    __m256i a = _mm256_slli_epi32(_mm256_srli_epi32(px, 24), 7);
    *rg = _mm256_or_si256(r, _mm256_slli_epi32(g, 16));
    *ba = _mm256_or_si256(b, _mm256_slli_epi32(a, 16));
}

/* One linear output channel of 8 pixels, clamped to 0...PF_U8_LINEAR_SCALE, through the encode table. */
__attribute__((target("avx2"))) static inline __m256i bb_linear_encode(__m256i rg, __m256i ba, __m256i wrg,
                                                                       __m256i wba, __m256i bias, __m128i sh,
                                                                       const unsigned char *encode) {
    __m256i s = _mm256_add_epi32(_mm256_madd_epi16(rg, wrg), _mm256_madd_epi16(ba, wba));
    s = _mm256_sra_epi32(_mm256_add_epi32(s, bias), sh);
    s = _mm256_min_epi32(_mm256_max_epi32(s, _mm256_setzero_si256()), _mm256_set1_epi32(PF_U8_LINEAR_SCALE));
    __m256i e = _mm256_i32gather_epi32((const int *)(const void *)encode, s, 1);
    return _mm256_and_si256(e, _mm256_set1_epi32(0xFF));
}

__attribute__((target("avx2"))) static void bb_linear_rgba_avx2(const unsigned char *src, unsigned char *dst,
                                                                long count, const int32_t *decode,
                                                                const unsigned char *encode, const int16_t *w,
                                                                const int32_t *bias, int shift, int zero_transparent) {
    const __m128i sh = _mm_cvtsi32_si128(shift);
    const __m256i alpha = _mm256_set1_epi32((int)0xFF000000u);
    __m256i wrg[3], wba[3], b[3];
    for (int k = 0; k < 3; k++) {
        wrg[k] = bb_pair(w[4 * k], w[4 * k + 1]);
        wba[k] = bb_pair(w[4 * k + 2], w[4 * k + 3]);
        b[k] = _mm256_set1_epi32(bias[k]);
    }
    long i = 0;
    for (; i + 8 <= count; i += 8) {
        __m256i px = _mm256_loadu_si256((const __m256i *)(const void *)(src + 4 * i));
        __m256i rg, ba;
        bb_linear_pairs(px, decode, &rg, &ba);
        __m256i o = _mm256_and_si256(px, alpha);
        for (int k = 0; k < 3; k++)
            o = _mm256_or_si256(o, _mm256_slli_epi32(bb_linear_encode(rg, ba, wrg[k], wba[k], b[k], sh, encode), 8 * k));
        if (zero_transparent) {
            __m256i clear = _mm256_cmpeq_epi32(_mm256_and_si256(px, alpha), _mm256_setzero_si256());
            o = _mm256_andnot_si256(clear, o);
        }
        _mm256_storeu_si256((__m256i *)(void *)(dst + 4 * i), o);
    }
    bb_linear_rgba_portable(src, dst, i, count, decode, encode, w, bias, shift, zero_transparent);
}

__attribute__((target("avx2"))) static void bb_linear_gray_avx2(const unsigned char *src, unsigned char *dst,
                                                                long count, const int32_t *decode,
                                                                const unsigned char *encode, const int16_t *w,
                                                                int32_t bias, int shift) {
    const __m128i sh = _mm_cvtsi32_si128(shift);
    const __m256i wrg = bb_pair(w[0], w[1]), wba = bb_pair(w[2], w[3]), b = _mm256_set1_epi32(bias);
    const __m256i order = _mm256_setr_epi8(0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 0, 4, 8, 12, -1,
                                           -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1);
    long i = 0;
    for (; i + 8 <= count; i += 8) {
        __m256i px = _mm256_loadu_si256((const __m256i *)(const void *)(src + 4 * i));
        __m256i rg, ba;
        bb_linear_pairs(px, decode, &rg, &ba);
        __m256i e = _mm256_shuffle_epi8(bb_linear_encode(rg, ba, wrg, wba, b, sh, encode), order);
        uint32_t lo = (uint32_t)_mm256_extract_epi32(e, 0), hi = (uint32_t)_mm256_extract_epi32(e, 4);
        memcpy(dst + i, &lo, 4);
        memcpy(dst + i + 4, &hi, 4);
    }
    bb_linear_gray_portable(src, dst, i, count, decode, encode, w, bias, shift);
}
#endif

void pf_u8_blend_rgba_run(const unsigned char *fg, const unsigned char *bg, unsigned char *dst, long count,
                          pf_u8_blend_coefficients c) {
#if defined(__x86_64__) && defined(__clang__)
    if (pf_csimd_uses_avx2()) {
        bb_blend_avx2(fg, bg, dst, count, c);
        return;
    }
#endif
    bb_blend_portable(fg, bg, dst, 0, count, c);
}

void pf_u8_unpremultiply_rgba_run(const unsigned char *src, unsigned char *dst, long count,
                                  const uint32_t *multipliers) {
#if defined(__x86_64__) && defined(__clang__)
    if (pf_csimd_uses_avx2()) {
        bb_unpremultiply_avx2(src, dst, count, multipliers);
        return;
    }
#endif
    bb_unpremultiply_portable(src, dst, 0, count, multipliers);
}

void pf_u8_linear_matrix_rgba_run(const unsigned char *src, unsigned char *dst, long count, const int32_t *decode,
                                  const unsigned char *encode, const int16_t *w, const int32_t *bias, int shift,
                                  int zero_transparent) {
#if defined(__x86_64__) && defined(__clang__)
    if (pf_csimd_uses_avx2()) {
        bb_linear_rgba_avx2(src, dst, count, decode, encode, w, bias, shift, zero_transparent);
        return;
    }
#endif
    bb_linear_rgba_portable(src, dst, 0, count, decode, encode, w, bias, shift, zero_transparent);
}

void pf_u8_linear_matrix_gray_run(const unsigned char *src, unsigned char *dst, long count, const int32_t *decode,
                                  const unsigned char *encode, const int16_t *w, int32_t bias, int shift) {
#if defined(__x86_64__) && defined(__clang__)
    if (pf_csimd_uses_avx2()) {
        bb_linear_gray_avx2(src, dst, count, decode, encode, w, bias, shift);
        return;
    }
#endif
    bb_linear_gray_portable(src, dst, 0, count, decode, encode, w, bias, shift);
}
