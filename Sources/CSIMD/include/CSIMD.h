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

/* ---- Row kernels whose exact rounding matters. Contraction of a * b + c into a fused
 * multiply-add is turned off below, so a build with FMA enabled rounds exactly as the
 * default build and as the Swift reference code (which never contracts). ---- */
#pragma clang fp contract(off)

typedef unsigned char pf_u8x4 __attribute__((ext_vector_type(4)));

/* 8-bit RGBA to float: dst[i] = src[i] * (1/255) per channel (the same float constant and
 * the same single rounding as PixelFlow's Swift loader). */
PF_INLINE void pf_load_rgba8_row(const unsigned char *src, pf_float4 *dst, long count) {
    const float k = 1.0f / 255.0f;
    for (long i = 0; i < count; i++) {
        pf_u8x4 v;
        __builtin_memcpy(&v, src + 4 * i, 4);
        dst[i] = __builtin_convertvector(v, pf_float4) * k;
    }
}

/* One pixel of pf_store_rgba8_row. */
PF_INLINE pf_u8x4 pf_quantize8(pf_float4 v) {
    pf_float4 s = v * 255.0f;
    s = s + 0.5f;
    pf_int4 keep = s >= 0.0f;                 /* false for NaN and negatives */
    s = (pf_float4)((pf_int4)s & keep);
    pf_int4 big = s > 255.0f;
    s = (pf_float4)(((pf_int4)s & ~big) | ((pf_int4)(pf_float4)255.0f & big));
    return __builtin_convertvector(__builtin_convertvector(s, pf_int4), pf_u8x4);
}

/* Float RGBA to 8 bits: clamp(floor(v * 255 + 0.5), 0, 255) per channel (round half up,
 * two roundings: the product, then the sum), NaN stores 0. Exactly PixelBuffer._quantize8. */
PF_INLINE void pf_store_rgba8_row(const pf_float4 *src, unsigned char *dst, long count) {
    long i = 0;
    for (; i + 4 <= count; i += 4) {
        pf_u8x4 q0 = pf_quantize8(src[i]), q1 = pf_quantize8(src[i + 1]);
        pf_u8x4 q2 = pf_quantize8(src[i + 2]), q3 = pf_quantize8(src[i + 3]);
        __builtin_memcpy(dst + 4 * i, &q0, 4);
        __builtin_memcpy(dst + 4 * i + 4, &q1, 4);
        __builtin_memcpy(dst + 4 * i + 8, &q2, 4);
        __builtin_memcpy(dst + 4 * i + 12, &q3, 4);
    }
    for (; i < count; i++) {
        pf_u8x4 q = pf_quantize8(src[i]);
        __builtin_memcpy(dst + 4 * i, &q, 4);
    }
}

/* 3x3 correlation of one row: dst[x] = sum over j, i (row-major) of w[3j+i] * row_j[x+i],
 * then + bias, where a, b, c point at the left ends of the three window rows. Every output
 * sums its nine products in that order with separate roundings (no fused multiply-add), so
 * it equals the scalar loop exactly. With rgb_only, alpha is copied from the center pixel. */
PF_INLINE pf_float4 pf_corr3x3_one(const pf_float4 *a, const pf_float4 *b, const pf_float4 *c, long x,
                                   const pf_float4 w[9], pf_float4 bias) {
    pf_float4 acc = a[x] * w[0];
    acc = acc + a[x + 1] * w[1];
    acc = acc + a[x + 2] * w[2];
    acc = acc + b[x] * w[3];
    acc = acc + b[x + 1] * w[4];
    acc = acc + b[x + 2] * w[5];
    acc = acc + c[x] * w[6];
    acc = acc + c[x + 1] * w[7];
    acc = acc + c[x + 2] * w[8];
    return acc + bias;
}

PF_INLINE void pf_correlate3x3_row(const pf_float4 *a, const pf_float4 *b, const pf_float4 *c,
                                   const float *weights, pf_float4 bias, int rgb_only, long count,
                                   pf_float4 *dst) {
    pf_float4 w[9];
    for (int k = 0; k < 9; k++) w[k] = (pf_float4)weights[k];
    long x = 0;
    if (rgb_only) {
        for (; x < count; x++) {
            pf_float4 o = pf_corr3x3_one(a, b, c, x, w, bias);
            o.w = b[x + 1].w;
            dst[x] = o;
        }
        return;
    }
    for (; x + 2 <= count; x += 2) {
        pf_float4 o0 = pf_corr3x3_one(a, b, c, x, w, bias);
        pf_float4 o1 = pf_corr3x3_one(a, b, c, x + 1, w, bias);
        dst[x] = o0;
        dst[x + 1] = o1;
    }
    for (; x < count; x++) dst[x] = pf_corr3x3_one(a, b, c, x, w, bias);
}

/* Bilinear samples of one output row of a pure-scale warp, where both taps of every sample
 * lie inside the two source rows `top` and `bottom`: for each i, with j = index[i] and
 * wx = weight[i], t = top[j] + (top[j+1] - top[j]) * wx, b likewise on `bottom`, and
 * dst[i] = t + (b - t) * wy: the operations, order and roundings of PixelFlow's
 * bilinearSample, so the results are identical. */
PF_INLINE void pf_bilinear_row(const pf_float4 *top, const pf_float4 *bottom, const long *index,
                               const float *weight, float wy, long count, pf_float4 *dst) {
    for (long i = 0; i < count; i++) {
        long j = index[i];
        float wx = weight[i];
        pf_float4 p0 = top[j], p1 = top[j + 1], q0 = bottom[j], q1 = bottom[j + 1];
        pf_float4 t = p0 + (p1 - p0) * wx;
        pf_float4 b = q0 + (q1 - q0) * wx;
        dst[i] = t + (b - t) * wy;
    }
}

/* pf_bilinear_row for the exact half-size case: index[i] = 2i, every weight 0.5 (each
 * output is the mean of a 2x2 block, computed with the same operations as above). */
PF_INLINE void pf_bilinear_half_row(const pf_float4 *top, const pf_float4 *bottom, long count,
                                    pf_float4 *dst) {
    const float h = 0.5f;
    for (long i = 0; i < count; i++) {
        pf_float4 p0 = top[2 * i], p1 = top[2 * i + 1], q0 = bottom[2 * i], q1 = bottom[2 * i + 1];
        pf_float4 t = p0 + (p1 - p0) * h;
        pf_float4 b = q0 + (q1 - q0) * h;
        dst[i] = t + (b - t) * h;
    }
}

/* pf_bilinear_half_row on 8-bit rows: each pixel converted as pf_load_rgba8_row does, then
 * the same operations as pf_bilinear_half_row (identical results, without the float rows). */
PF_INLINE void pf_bilinear_half_rgba8_row(const unsigned char *top, const unsigned char *bottom, long count,
                                          pf_float4 *dst) {
    const float k = 1.0f / 255.0f, h = 0.5f;
    for (long i = 0; i < count; i++) {
        pf_u8x4 a0, a1, b0, b1;
        __builtin_memcpy(&a0, top + 8 * i, 4);
        __builtin_memcpy(&a1, top + 8 * i + 4, 4);
        __builtin_memcpy(&b0, bottom + 8 * i, 4);
        __builtin_memcpy(&b1, bottom + 8 * i + 4, 4);
        pf_float4 p0 = __builtin_convertvector(a0, pf_float4) * k, p1 = __builtin_convertvector(a1, pf_float4) * k;
        pf_float4 q0 = __builtin_convertvector(b0, pf_float4) * k, q1 = __builtin_convertvector(b1, pf_float4) * k;
        pf_float4 t = p0 + (p1 - p0) * h;
        pf_float4 b = q0 + (q1 - q0) * h;
        dst[i] = t + (b - t) * h;
    }
}

#pragma clang fp contract(on)

#endif
