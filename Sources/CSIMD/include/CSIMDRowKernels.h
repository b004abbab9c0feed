#ifndef PIXELFLOW_CSIMD_ROW_KERNELS_H
#define PIXELFLOW_CSIMD_ROW_KERNELS_H
/* Row kernels whose exact rounding matters: conversions between bytes and floats, sRGB. Part of CSIMD (CSIMD.h includes every part). */
#include "CSIMDCommon.h"
/* ---- Row kernels whose exact rounding matters. Contraction of a * b + c into a fused
 * multiply-add is turned off below, so a build with FMA enabled rounds exactly as the
 * default build and as the Swift reference code (which never contracts). ---- */
#pragma clang fp contract(off)

typedef unsigned char pf_u8x4 __attribute__((ext_vector_type(4)));

/* Byte orders of the 4 x 8-bit formats (PixelFormat.rgba8, .bgra8, .argb8): which memory byte
 * of a pixel holds R, G, B and A. Kernels that take an `order` are called with a constant, so
 * every choice below folds away after inlining; for RGBA they are exactly the code before
 * there were other orders. */
enum { PF_ORDER_RGBA = 0, PF_ORDER_BGRA = 1, PF_ORDER_ARGB = 2 };
/* The memory byte (0-3) of channel c (0 R, 1 G, 2 B, 3 A) in `order`: RGBA c; BGRA 2, 1, 0, 3;
 * ARGB 1, 2, 3, 0. */
PF_INLINE int pf_order_byte(int order, int c) {
    if (order == PF_ORDER_BGRA) return c == 3 ? 3 : 2 - c;
    if (order == PF_ORDER_ARGB) return (c + 1) & 3;
    return c;
}
/* Four values in memory order to R, G, B, A lanes (one shuffle; none for RGBA). */
PF_INLINE pf_float4 pf_order_to_rgba(pf_float4 v, int order) {
    if (order == PF_ORDER_BGRA) return v.zyxw;
    if (order == PF_ORDER_ARGB) return v.yzwx;
    return v;
}
/* R, G, B, A lanes to memory order: the inverse of pf_order_to_rgba. */
PF_INLINE pf_float4 pf_rgba_to_order(pf_float4 v, int order) {
    if (order == PF_ORDER_BGRA) return v.zyxw;
    if (order == PF_ORDER_ARGB) return v.wxyz;
    return v;
}

/* 8-bit pixels in `order` to float RGBA: dst[i] = src[i] * (1/255) per channel (the same float
 * constant and the same single rounding as PixelFlow's Swift loader), lanes put in R, G, B, A
 * order by one shuffle. */
PF_INLINE void pf_load_4x8_row(const unsigned char *src, pf_float4 *dst, long count, int order) {
    const float k = 1.0f / 255.0f;
    for (long i = 0; i < count; i++) {
        pf_u8x4 v;
        __builtin_memcpy(&v, src + 4 * i, 4);
        dst[i] = pf_order_to_rgba(__builtin_convertvector(v, pf_float4) * k, order);
    }
}
/* pf_load_4x8_row for RGBA bytes. */
PF_INLINE void pf_load_rgba8_row(const unsigned char *src, pf_float4 *dst, long count) {
    pf_load_4x8_row(src, dst, count, PF_ORDER_RGBA);
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

/* Float RGBA to 8 bits in `order`: clamp(floor(v * 255 + 0.5), 0, 255) per channel (round
 * half up, two roundings: the product, then the sum), NaN stores 0. Exactly
 * PixelBuffer._quantize8, with the lanes put in memory order by one shuffle first. */
PF_INLINE void pf_store_4x8_row(const pf_float4 *src, unsigned char *dst, long count, int order) {
    long i = 0;
    for (; i + 4 <= count; i += 4) {
        pf_u8x4 q0 = pf_quantize8(pf_rgba_to_order(src[i], order));
        pf_u8x4 q1 = pf_quantize8(pf_rgba_to_order(src[i + 1], order));
        pf_u8x4 q2 = pf_quantize8(pf_rgba_to_order(src[i + 2], order));
        pf_u8x4 q3 = pf_quantize8(pf_rgba_to_order(src[i + 3], order));
        __builtin_memcpy(dst + 4 * i, &q0, 4);
        __builtin_memcpy(dst + 4 * i + 4, &q1, 4);
        __builtin_memcpy(dst + 4 * i + 8, &q2, 4);
        __builtin_memcpy(dst + 4 * i + 12, &q3, 4);
    }
    for (; i < count; i++) {
        pf_u8x4 q = pf_quantize8(pf_rgba_to_order(src[i], order));
        __builtin_memcpy(dst + 4 * i, &q, 4);
    }
}
/* pf_store_4x8_row to RGBA bytes. */
PF_INLINE void pf_store_rgba8_row(const pf_float4 *src, unsigned char *dst, long count) {
    pf_store_4x8_row(src, dst, count, PF_ORDER_RGBA);
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

/* Rec. 709 luma of float RGBA quantized to 8 bits: dst[i] = quantize8(0.2126 r + 0.7152 g +
 * 0.0722 b), summed left to right without contraction and rounded as pf_quantize8; exactly
 * PixelBuffer._luma then _quantize8. Four pixels per step. */
PF_INLINE void pf_store_gray8_row(const pf_float4 *src, unsigned char *dst, long count) {
#pragma clang fp contract(off)
    const pf_float4 wr = 0.2126f, wg = 0.7152f, wb = 0.0722f;
    long i = 0;
    for (; i + 4 <= count; i += 4) {
        pf_float4 p0 = src[i], p1 = src[i + 1], p2 = src[i + 2], p3 = src[i + 3];
        pf_float4 t0 = __builtin_shufflevector(p0, p1, 0, 4, 1, 5);  /* x0 x1 y0 y1 */
        pf_float4 t1 = __builtin_shufflevector(p2, p3, 0, 4, 1, 5);  /* x2 x3 y2 y3 */
        pf_float4 t2 = __builtin_shufflevector(p0, p1, 2, 6, 3, 7);  /* z0 z1 w0 w1 */
        pf_float4 t3 = __builtin_shufflevector(p2, p3, 2, 6, 3, 7);
        pf_float4 x = __builtin_shufflevector(t0, t1, 0, 1, 4, 5);
        pf_float4 y = __builtin_shufflevector(t0, t1, 2, 3, 6, 7);
        pf_float4 z = __builtin_shufflevector(t2, t3, 0, 1, 4, 5);
        pf_float4 l = wr * x + wg * y + wb * z;
        pf_u8x4 q = pf_quantize8(l);
        __builtin_memcpy(dst + i, &q, 4);
    }
    for (; i < count; i++) {
        pf_float4 v = src[i];
        float l = 0.2126f * v.x + 0.7152f * v.y + 0.0722f * v.z;
        dst[i] = pf_quantize8((pf_float4)l).x;
    }
}
/* RGBA8 to gray8 without a float row: each pixel converted as pf_load_rgba8_row does (then
 * premultiplied as pf_premultiply when `premultiply`), and its luma quantized as
 * pf_store_gray8_row: the same operations in the same order, so the same bytes as loading the
 * row to floats and storing it gray. */
PF_INLINE void pf_rgba8_to_gray8_row(const unsigned char *src, unsigned char *dst, long count, int premultiply) {
#pragma clang fp contract(off)
    const float k = 1.0f / 255.0f;
    for (long i = 0; i < count; i++) {
        pf_u8x4 v;
        __builtin_memcpy(&v, src + 4 * i, 4);
        pf_float4 p = __builtin_convertvector(v, pf_float4) * k;
        if (premultiply) {
            pf_float4 a = p.wwww;
            a.w = 1.0f;
            p = p * a;
        }
        float l = 0.2126f * p.x + 0.7152f * p.y + 0.0722f * p.z;
        dst[i] = pf_quantize8((pf_float4)l).x;
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

/* 8-bit sRGB pixels in `order` to float RGBA: colors through the 256-entry decode table, alpha
 * as a * (1/255) (exactly loadRowRGBA's 8-bit sRGB path). */
PF_INLINE void pf_load_4x8_srgb_row(const unsigned char *src, pf_float4 *dst, long count, const float *table,
                                    int order) {
    const int rb = pf_order_byte(order, 0), gb = pf_order_byte(order, 1);
    const int bb = pf_order_byte(order, 2), ab = pf_order_byte(order, 3);
    for (long i = 0; i < count; i++) {
        const unsigned char *p = src + 4 * i;
        dst[i] = (pf_float4){table[p[rb]], table[p[gb]], table[p[bb]], (float)p[ab] * (1.0f / 255.0f)};
    }
}
/* pf_load_4x8_srgb_row for RGBA bytes. */
PF_INLINE void pf_load_rgba8_srgb_row(const unsigned char *src, pf_float4 *dst, long count, const float *table) {
    pf_load_4x8_srgb_row(src, dst, count, table, PF_ORDER_RGBA);
}

/* A linear value to its 8-bit sRGB code, exactly SRGB._encode8: NaN and values <= 0 give 0,
 * values >= 1 give 255, others the code of their bucket in the 4096-bucket index, plus one
 * when they reach the next code's threshold. `buckets` holds 4097 codes,
 * `thresholds` 256 values. */
PF_INLINE unsigned pf_srgb_encode8(float v, const float *thresholds, const unsigned char *buckets) {
    float x = v > 0.0f ? v : 0.0f;
    x = x < 1.0f ? x : 1.0f;
    int k = buckets[(int)(x * 4096.0f)];
    return (unsigned)(k + (x >= thresholds[k]));
}

/* Float RGBA in linear light to 8-bit sRGB in `order`: colors through pf_srgb_encode8, alpha
 * through pf_quantize8 (exactly storeRowRGBA's 8-bit sRGB path). */
PF_INLINE void pf_store_4x8_srgb_row(const pf_float4 *src, unsigned char *dst, long count,
                                     const float *thresholds, const unsigned char *buckets, int order) {
    const int rb = pf_order_byte(order, 0), gb = pf_order_byte(order, 1);
    const int bb = pf_order_byte(order, 2), ab = pf_order_byte(order, 3);
    for (long i = 0; i < count; i++) {
        pf_float4 v = src[i];
        pf_u8x4 q = pf_quantize8(v);
        dst[4 * i + rb] = (unsigned char)pf_srgb_encode8(v.x, thresholds, buckets);
        dst[4 * i + gb] = (unsigned char)pf_srgb_encode8(v.y, thresholds, buckets);
        dst[4 * i + bb] = (unsigned char)pf_srgb_encode8(v.z, thresholds, buckets);
        dst[4 * i + ab] = q.w;
    }
}
/* pf_store_4x8_srgb_row to RGBA bytes. */
PF_INLINE void pf_store_rgba8_srgb_row(const pf_float4 *src, unsigned char *dst, long count,
                                       const float *thresholds, const unsigned char *buckets) {
    pf_store_4x8_srgb_row(src, dst, count, thresholds, buckets, PF_ORDER_RGBA);
}

#endif
