/* The linear-light blend and alpha-table kernels of CSIMDBytesLinearBlend.h. */
#include "CSIMDBytesLinearBlend.h"
#include <string.h>

/* The float steps must round alike in the portable and AVX2 loops: no fused multiply-adds. */
#pragma clang fp contract(off)

int pf_csimd_uses_avx2(void);

static inline unsigned char lb_byte(int32_t v) { return (unsigned char)(v < 0 ? 0 : v > 255 ? 255 : v); }

static inline int32_t lb_sign(int32_t v, int32_t s) { return s > 0 ? v : s < 0 ? -v : 0; }

/* The alpha byte: the formula of pf_u8_blend_rgba_run. */
static inline unsigned char lb_alpha(int32_t x, int32_t shift) {
    if (shift > 0) return lb_byte((x + (1 << (shift - 1))) >> shift);
    if (x < 0) x = 0;
    if (x > 65280) x = 65280;
    int32_t t = x + 128;
    return lb_byte((t + (t >> 8)) >> 8);
}

/* One color channel's linear value, clamped to 0...PF_U8_LINEAR_SCALE. */
static inline int32_t lb_linear(int32_t F, int32_t B, int32_t wf, int32_t wb, pf_u8_blend_coefficients c) {
    int32_t x = F * wf + B * wb, v;
    if (c.shift > 0) {
        v = (x + (1 << (c.shift - 1))) >> c.shift;
    } else {
        float s = (float)x * (1.0f / 255.0f);
        if (c.product != 0) {
            float p = (float)(F * B) * (1.0f / 32640.0f);
            s = c.product > 0 ? s + p : s - p;
        }
        v = (int32_t)__builtin_lrintf(s);
    }
    return v < 0 ? 0 : v > PF_U8_LINEAR_SCALE ? PF_U8_LINEAR_SCALE : v;
}

static void lb_blend_portable(const unsigned char *fg, const unsigned char *bg, unsigned char *dst, long i, long count,
                              const int32_t *decode, const unsigned char *encode, pf_u8_blend_coefficients c) {
    for (; i < count; i++) {
        const unsigned char *f = fg + 4 * i, *b = bg + 4 * i;
        int32_t fa = f[3], ba = b[3];
        int32_t wf = c.f_weight + lb_sign(ba, c.f_by_b_alpha), wb = c.b_weight + lb_sign(fa, c.b_by_f_alpha);
        unsigned char o[4];
        for (int k = 0; k < 3; k++) o[k] = encode[lb_linear(decode[f[k]], decode[b[k]], wf, wb, c)];
        o[3] = lb_alpha(fa * wf + ba * wb + lb_sign(fa * ba, c.product), c.shift);
        memcpy(dst + 4 * i, o, 4);
    }
}

static void lb_table_portable(const unsigned char *src, unsigned char *dst, long i, long count,
                              const unsigned char *table) {
    for (; i < count; i++) {
        const unsigned char *p = src + 4 * i;
        const unsigned char *t = table + 256 * p[3];
        unsigned char o[4] = {t[p[0]], t[p[1]], t[p[2]], p[3]};
        memcpy(dst + 4 * i, o, 4);
    }
}

#if defined(__x86_64__) && defined(__clang__)
#include <immintrin.h>

/* 8 pixels a step, each a 32-bit lane: the weights from the alphas, per color channel two
 * gathers of linear values, the sums by pmulld, the float steps of lb_linear in the same
 * order, and a byte gather from the encode table. */
__attribute__((target("avx2"))) static void lb_blend_avx2(const unsigned char *fg, const unsigned char *bg,
                                                          unsigned char *dst, long count, const int32_t *decode,
                                                          const unsigned char *encode, pf_u8_blend_coefficients c) {
    const __m256i low = _mm256_set1_epi32(0xFF), zero = _mm256_setzero_si256();
    const __m256i f0 = _mm256_set1_epi32(c.f_weight), f1 = _mm256_set1_epi32(c.f_by_b_alpha);
    const __m256i b0 = _mm256_set1_epi32(c.b_weight), b1 = _mm256_set1_epi32(c.b_by_f_alpha);
    const __m256i pr = _mm256_set1_epi32(c.product), top = _mm256_set1_epi32(PF_U8_LINEAR_SCALE);
    const __m256i half = _mm256_set1_epi32(c.shift > 0 ? 1 << (c.shift - 1) : 0);
    const __m256i atop = _mm256_set1_epi32(65280), a128 = _mm256_set1_epi32(128);
    const __m256 r255 = _mm256_set1_ps(1.0f / 255.0f), rscale = _mm256_set1_ps(1.0f / 32640.0f);
    const __m128i sh = _mm_cvtsi32_si128(c.shift);
    long i = 0;
    for (; i + 8 <= count; i += 8) {
        __m256i fv = _mm256_loadu_si256((const __m256i *)(const void *)(fg + 4 * i));
        __m256i bv = _mm256_loadu_si256((const __m256i *)(const void *)(bg + 4 * i));
        __m256i fa = _mm256_srli_epi32(fv, 24), ba = _mm256_srli_epi32(bv, 24);
        __m256i wf = _mm256_add_epi32(f0, _mm256_sign_epi32(ba, f1));
        __m256i wb = _mm256_add_epi32(b0, _mm256_sign_epi32(fa, b1));
        __m256i xa = _mm256_add_epi32(_mm256_mullo_epi32(fa, wf), _mm256_mullo_epi32(ba, wb));
        xa = _mm256_add_epi32(xa, _mm256_sign_epi32(_mm256_mullo_epi32(fa, ba), pr));
        if (c.shift > 0) {
            xa = _mm256_sra_epi32(_mm256_add_epi32(xa, half), sh);
        } else {
            __m256i t = _mm256_add_epi32(_mm256_min_epi32(_mm256_max_epi32(xa, zero), atop), a128);
            xa = _mm256_srli_epi32(_mm256_add_epi32(t, _mm256_srli_epi32(t, 8)), 8);
        }
        xa = _mm256_min_epi32(_mm256_max_epi32(xa, zero), low);
        __m256i o = _mm256_slli_epi32(xa, 24);
        for (int k = 0; k < 3; k++) {
            __m256i fk = _mm256_and_si256(_mm256_srli_epi32(fv, 8 * k), low);
            __m256i bk = _mm256_and_si256(_mm256_srli_epi32(bv, 8 * k), low);
            __m256i F = _mm256_i32gather_epi32((const int *)(const void *)decode, fk, 4);
            __m256i B = _mm256_i32gather_epi32((const int *)(const void *)decode, bk, 4);
            __m256i x = _mm256_add_epi32(_mm256_mullo_epi32(F, wf), _mm256_mullo_epi32(B, wb));
            __m256i v;
            if (c.shift > 0) {
                v = _mm256_sra_epi32(_mm256_add_epi32(x, half), sh);
            } else {
                __m256 s = _mm256_mul_ps(_mm256_cvtepi32_ps(x), r255);
                if (c.product != 0) {
                    __m256 p = _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_mullo_epi32(F, B)), rscale);
                    s = c.product > 0 ? _mm256_add_ps(s, p) : _mm256_sub_ps(s, p);
                }
                v = _mm256_cvtps_epi32(s);
            }
            v = _mm256_min_epi32(_mm256_max_epi32(v, zero), top);
            __m256i e = _mm256_and_si256(_mm256_i32gather_epi32((const int *)(const void *)encode, v, 1), low);
            o = _mm256_or_si256(o, _mm256_slli_epi32(e, 8 * k));
        }
        _mm256_storeu_si256((__m256i *)(void *)(dst + 4 * i), o);
    }
    lb_blend_portable(fg, bg, dst, i, count, decode, encode, c);
}

/* 8 pixels a step: per color channel, the index c + 256 a and a byte gather. */
__attribute__((target("avx2"))) static void lb_table_avx2(const unsigned char *src, unsigned char *dst, long count,
                                                          const unsigned char *table) {
    const __m256i low = _mm256_set1_epi32(0xFF), alpha = _mm256_set1_epi32((int)0xFF000000u);
    long i = 0;
    for (; i + 8 <= count; i += 8) {
        __m256i px = _mm256_loadu_si256((const __m256i *)(const void *)(src + 4 * i));
        __m256i row = _mm256_slli_epi32(_mm256_srli_epi32(px, 24), 8);
        __m256i o = _mm256_and_si256(px, alpha);
        for (int k = 0; k < 3; k++) {
            __m256i idx = _mm256_or_si256(row, _mm256_and_si256(_mm256_srli_epi32(px, 8 * k), low));
            __m256i e = _mm256_and_si256(_mm256_i32gather_epi32((const int *)(const void *)table, idx, 1), low);
            o = _mm256_or_si256(o, _mm256_slli_epi32(e, 8 * k));
        }
        _mm256_storeu_si256((__m256i *)(void *)(dst + 4 * i), o);
    }
    lb_table_portable(src, dst, i, count, table);
}
#endif

void pf_u8_linear_blend_rgba_run(const unsigned char *fg, const unsigned char *bg, unsigned char *dst, long count,
                                 const int32_t *decode, const unsigned char *encode, pf_u8_blend_coefficients c) {
#if defined(__x86_64__) && defined(__clang__)
    if (pf_csimd_uses_avx2()) {
        lb_blend_avx2(fg, bg, dst, count, decode, encode, c);
        return;
    }
#endif
    lb_blend_portable(fg, bg, dst, 0, count, decode, encode, c);
}

void pf_u8_alpha_table_rgba_run(const unsigned char *src, unsigned char *dst, long count, const unsigned char *table) {
#if defined(__x86_64__) && defined(__clang__)
    if (pf_csimd_uses_avx2()) {
        lb_table_avx2(src, dst, count, table);
        return;
    }
#endif
    lb_table_portable(src, dst, 0, count, table);
}
