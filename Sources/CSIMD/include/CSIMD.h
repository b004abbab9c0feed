#ifndef PIXELFLOW_CSIMD_H
#define PIXELFLOW_CSIMD_H
/*
 * Vector operations that Swift's generic SIMD types do not lower to vector instructions on
 * Linux (measured: SIMD4<Float>.squareRoot() became four scalar square roots, and
 * float-to-int conversions a per-lane loop). Clang's element-wise builtins on
 * ext_vector_type values, which Swift imports as SIMD4<Float> and SIMD4<Int32>, compile to
 * single instructions on every target (sqrtps, minps, cvttps2dq, ...). Header-only: the
 * functions are always inlined into the Swift kernels that call them.
 */
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

/* All alpha bytes (every fourth byte, from byte 3) of `count` RGBA8 pixels are 255. */
PF_INLINE int pf_rgba8_all_opaque(const unsigned char *p, long count) {
    typedef unsigned char u8x16 __attribute__((ext_vector_type(16)));
    long n = count * 4, i = 0;
    u8x16 acc = 255;
    for (; i + 16 <= n; i += 16) { u8x16 v; __builtin_memcpy(&v, p + i, 16); acc &= v; }
    unsigned char a = acc[3] & acc[7] & acc[11] & acc[15];
    for (; i < n; i += 4) a &= p[i + 3];
    return a == 255;
}

/* Exact 8-bit morphology and median kernels (the byte path). */
#include "CSIMDBytes.h"

#endif
