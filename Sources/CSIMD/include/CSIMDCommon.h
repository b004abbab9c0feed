#ifndef PIXELFLOW_CSIMD_COMMON_H
#define PIXELFLOW_CSIMD_COMMON_H
/* The vector types of CSIMD and the row operations every part uses (square roots, minima,
 * premultiplication, non-temporal copies). Part of CSIMD (CSIMD.h includes every part). */
typedef float pf_float4 __attribute__((ext_vector_type(4)));
typedef int pf_int4 __attribute__((ext_vector_type(4)));

#define PF_INLINE static inline __attribute__((always_inline))

/* Square root of each lane (correctly rounded). */
PF_INLINE pf_float4 pf_sqrt4(pf_float4 v) { return __builtin_elementwise_sqrt(v); }
/* Lane-wise minimum and maximum (for NaN lanes, the other operand). */
PF_INLINE pf_float4 pf_min4(pf_float4 a, pf_float4 b) { return __builtin_elementwise_min(a, b); }
PF_INLINE pf_float4 pf_max4(pf_float4 a, pf_float4 b) { return __builtin_elementwise_max(a, b); }
/* Float to int32, rounding toward zero; lanes must be in int32 range and not NaN. */
PF_INLINE pf_int4 pf_trunc_to_int4(pf_float4 v) { return __builtin_convertvector(v, pf_int4); }
/* Int32 to float, lane-wise. */
PF_INLINE pf_float4 pf_int_to_float4(pf_int4 v) { return __builtin_convertvector(v, pf_float4); }
/* Floor of each lane. */
PF_INLINE pf_float4 pf_floor4(pf_float4 v) { return __builtin_elementwise_floor(v); }

/* Stores a vector without bringing its cache line in (non-temporal): for output that is
 * written once and not read again soon. Call pf_store_fence() before other threads read it. */
PF_INLINE void pf_stream4(pf_float4 *p, pf_float4 v) { __builtin_nontemporal_store(v, p); }
/* Orders earlier non-temporal stores before later memory operations. */
PF_INLINE void pf_store_fence(void) { __atomic_thread_fence(__ATOMIC_SEQ_CST); }

/* Core Image's gamma for powers that are multiples of 1/4 (|power| = whole + rest / 4):
 * rgb = sign(rgb) * |rgb|^power through square roots and multiplies, alpha unchanged, in
 * place over `count` pixels. Bit operations keep sign and alpha (Swift's lane assignment and
 * replace(with:where:) became scalar code here). */
PF_INLINE void pf_gamma_quarters(pf_float4 *p, long count, int whole, int rest, int invert) {
    const pf_int4 sign = (pf_int4)(int)0x80000000;
    const pf_int4 color = {-1, -1, -1, 0};
    for (long i = 0; i < count; i++) {
        pf_float4 v = p[i];
        pf_int4 vb = (pf_int4)v;
        pf_float4 a = (pf_float4)(vb & 0x7FFFFFFF);
        pf_float4 r = 1.0f;
        for (int k = 0; k < whole; k++) r = r * a;
        if (rest) {
            pf_float4 s = __builtin_elementwise_sqrt(a);
            if (rest >= 2) r = r * s;
            if (rest & 1) r = r * __builtin_elementwise_sqrt(s);
        }
        if (invert) r = 1.0f / r;
        pf_int4 rb = (((pf_int4)r | (vb & sign)) & color) | (vb & ~color);
        p[i] = (pf_float4)rb;
    }
}

/* 8-bit block statistics for local thresholding (the QR binarizer): the sum, minimum and
 * maximum of an 8-pixel-wide block of `rows` rows, `stride` bytes apart. Unaligned loads. */
typedef unsigned char pf_u8x8 __attribute__((ext_vector_type(8)));
typedef unsigned short pf_u16x8 __attribute__((ext_vector_type(8)));
PF_INLINE void pf_block8_stats(const unsigned char *p, long stride, int rows,
                               unsigned int *sum, unsigned char *lo, unsigned char *hi) {
    pf_u16x8 s = 0;
    pf_u8x8 mn = 255, mx = 0;
    for (int y = 0; y < rows; y++) {
        pf_u8x8 v;
        __builtin_memcpy(&v, p + y * stride, 8);
        s += __builtin_convertvector(v, pf_u16x8);
        mn = __builtin_elementwise_min(mn, v);
        mx = __builtin_elementwise_max(mx, v);
    }
    *sum = __builtin_reduce_add(__builtin_convertvector(s, unsigned int __attribute__((ext_vector_type(8)))));
    *lo = __builtin_reduce_min(mn);
    *hi = __builtin_reduce_max(mx);
}
/* dst[i] = src[i] <= threshold ? 1 : 0 for 8 pixels in each of `rows` rows. */
PF_INLINE void pf_threshold8(const unsigned char *src, unsigned char *dst, long stride, int rows,
                             unsigned char threshold) {
    for (int y = 0; y < rows; y++) {
        pf_u8x8 v;
        __builtin_memcpy(&v, src + y * stride, 8);
        pf_u8x8 r = (pf_u8x8)(v <= threshold) & (pf_u8x8)1;
        __builtin_memcpy(dst + y * stride, &r, 8);
    }
}

/* Straight-alpha helpers over `count` RGBA float pixels, in place, branch-free so that they
 * stay vector code. pf_zero_unless_positive_alpha: pixels whose alpha is not > 0 (zero,
 * negative or NaN) become (0, 0, 0, 0), as premultiplying and unpremultiplying would make
 * them. pf_unpremultiply: rgb /= alpha (as rgb * (1 / alpha), alpha kept) where alpha > 0
 * and alpha != 1; other pixels with alpha > 0 are unchanged; the rest become zero.
 * pf_premultiply: rgb *= alpha, alpha kept. */
PF_INLINE void pf_zero_unless_positive_alpha(pf_float4 *p, long count) {
    for (long i = 0; i < count; i++) {
        pf_float4 v = p[i];
        pf_float4 a = v.wwww;
        pf_int4 keep = a > 0.0f;
        p[i] = (pf_float4)((pf_int4)v & keep);
    }
}
PF_INLINE void pf_unpremultiply_pixel(pf_float4 *p) {
    const pf_float4 one = 1.0f;
    pf_float4 v = *p;
    pf_float4 a = v.wwww;
    pf_int4 keep = a > 0.0f;
    pf_int4 scale = (a != one) & keep;
    pf_float4 r = one / a;
    r.w = 1.0f;
    pf_float4 s = (pf_float4)(((pf_int4)r & scale) | ((pf_int4)one & ~scale));
    *p = (pf_float4)((pf_int4)(v * s) & keep);
}
/* Four pixels at a time; a group whose alphas are all exactly 1 (opaque images: most of them)
 * is left as it is, which is what the division would give, without the division or a store. */
PF_INLINE void pf_unpremultiply(pf_float4 *p, long count) {
    long i = 0;
    for (; i + 4 <= count; i += 4) {
        if (p[i].w == 1.0f && p[i + 1].w == 1.0f && p[i + 2].w == 1.0f && p[i + 3].w == 1.0f) continue;
        for (long k = i; k < i + 4; k++) pf_unpremultiply_pixel(p + k);
    }
    for (; i < count; i++) pf_unpremultiply_pixel(p + i);
}
PF_INLINE void pf_premultiply(pf_float4 *p, long count) {
    for (long i = 0; i < count; i++) {
        pf_float4 v = p[i];
        pf_float4 a = v.wwww;
        a.w = 1.0f;
        p[i] = v * a;
    }
}

/* dst[i] = src[i] for `count` pixels with non-temporal stores (dst 16-byte aligned): the
 * last step of a fused chain whose output is not read again during the render. */
PF_INLINE void pf_stream_copy4(pf_float4 *dst, const pf_float4 *src, long count) {
    for (long i = 0; i < count; i++) __builtin_nontemporal_store(src[i], dst + i);
}

#endif
