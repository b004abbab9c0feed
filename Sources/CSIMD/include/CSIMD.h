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

/* 3x3 correlation of one output row: dst[x] = sum over j, i of rows_j[x + i] * w[3j + i],
 * summed in row-major order starting from zero, plus `bias`; with `rgb_only`, alpha is the
 * center pixel's. Swift's SIMD4<Float> version of this loop became lane-by-lane scalar code
 * (about 120 instructions a pixel); this one keeps the nine broadcast weights in registers.
 * No fused multiply-adds, on any target, so the sums equal the scalar reference's. */
PF_INLINE void pf_correlate3x3_row(const pf_float4 *a, const pf_float4 *c, const pf_float4 *d,
                                   const float *w, pf_float4 bias, int rgb_only, long count,
                                   pf_float4 *dst) {
#pragma clang fp contract(off)
    const pf_float4 w0 = w[0], w1 = w[1], w2 = w[2], w3 = w[3], w4 = w[4], w5 = w[5], w6 = w[6],
                    w7 = w[7], w8 = w[8];
    for (long x = 0; x < count; x++) {
        pf_float4 acc = 0.0f;
        acc = acc + a[x] * w0; acc = acc + a[x + 1] * w1; acc = acc + a[x + 2] * w2;
        acc = acc + c[x] * w3; acc = acc + c[x + 1] * w4; acc = acc + c[x + 2] * w5;
        acc = acc + d[x] * w6; acc = acc + d[x + 1] * w7; acc = acc + d[x + 2] * w8;
        acc = acc + bias;
        if (rgb_only) acc.w = c[x + 1].w;
        dst[x] = acc;
    }
}

/* Bilinear samples of one output row from two source rows p and q (q the row below p):
 * for each i, with j = ix[i], top = p[j] + (p[j+1] - p[j]) * wx[i], bottom likewise from q,
 * dst[i] = top + (bottom - top) * wy. The caller guarantees j and j + 1 are inside the rows.
 * No fused multiply-adds (the Swift sampler's exact operations). */
PF_INLINE void pf_bilinear_row(const pf_float4 *p, const pf_float4 *q, const long *ix,
                               const float *wx, float wy, long count, pf_float4 *dst) {
#pragma clang fp contract(off)
    const pf_float4 vy = wy;
    for (long i = 0; i < count; i++) {
        long j = ix[i];
        pf_float4 vx = wx[i];
        pf_float4 top = p[j] + (p[j + 1] - p[j]) * vx;
        pf_float4 bottom = q[j] + (q[j + 1] - q[j]) * vx;
        dst[i] = top + (bottom - top) * vy;
    }
}

/* Stores float RGBA as 8-bit RGBA: with `unpremultiply`, first divides color by alpha as
 * unpremultiplyRow does (alpha 1 unchanged; alpha > 0 multiplies by 1 / alpha; otherwise
 * transparent black); then clamp(floor(v * 255 + 0.5), 0, 255) per lane, NaN giving 0, as
 * quantizeToUInt8 does. For s >= 0, truncation equals floor. No fused multiply-adds. */
typedef unsigned char pf_u8x4 __attribute__((ext_vector_type(4)));
PF_INLINE void pf_store_rgba8_row(const pf_float4 *src, long count, unsigned char *dst,
                                  int unpremultiply) {
#pragma clang fp contract(off)
    for (long i = 0; i < count; i++) {
        pf_float4 v = src[i];
        if (unpremultiply && v.w != 1.0f) {
            if (v.w > 0.0f) {
                float r = 1.0f / v.w;
                v = (pf_float4){v.x * r, v.y * r, v.z * r, v.w};
            } else {
                v = 0.0f;
            }
        }
        pf_float4 s = v * 255.0f;
        s = s + 0.5f;
        s = (pf_float4)((pf_int4)s & (s >= 0.0f));
        s = __builtin_elementwise_min(s, (pf_float4)255.0f);
        pf_u8x4 u = __builtin_convertvector(__builtin_convertvector(s, pf_int4), pf_u8x4);
        __builtin_memcpy(dst + 4 * i, &u, 4);
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

#endif
