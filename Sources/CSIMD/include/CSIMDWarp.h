#ifndef PIXELFLOW_CSIMD_WARP_H
#define PIXELFLOW_CSIMD_WARP_H
/* Affine warp, bilinear. Part of CSIMD (CSIMD.h includes every part). */
#include "CSIMDCommon.h"
/* No contraction of a * b + c into fused multiply-adds (see CSIMDRowKernels.h). */
#pragma clang fp contract(off)
/* ---- Affine warp, bilinear ----------------------------------------------------------
 * Output pixels x0 ..< x0 + count of a row whose centers map to source positions
 * (a * cx + bx, b * cx + by) with cx = x0 + i + 0.5 (the caller folds the row's y into bx
 * and by). The source is the rect (rx, ry, rw, rh), `src` pointing at its first pixel,
 * rows `stride` pixels apart; samples outside it are transparent. Per pixel, in double:
 * f = position - 0.5, zero unless rx - 1 < fx < rx + rw and ry - 1 < fy < ry + rh, taps at
 * floor(f) and floor(f) + 1, weights (float)(f - floor(f)); then in float
 * top = p00 + (p10 - p00) * wx, bottom likewise, out = top + (bottom - top) * wy. These are
 * the operations of the scalar reference (no contraction), so the same bits; coordinates
 * are computed four pixels at a time. */
typedef double pf_double4 __attribute__((ext_vector_type(4)));
PF_INLINE pf_float4 pf_bilinear_tap(const pf_float4 *src, long stride, long rx, long ry, long rw, long rh,
                                    long ix, long iy, float wx, float wy) {
#pragma clang fp contract(off)
    pf_float4 p00, p10, p01, p11;
    if (ix >= rx && ix + 1 < rx + rw && iy >= ry && iy + 1 < ry + rh) {
        const pf_float4 *p = src + (iy - ry) * stride + (ix - rx);
        p00 = p[0]; p10 = p[1]; p01 = p[stride]; p11 = p[stride + 1];
    } else {
        const pf_float4 z = 0.0f;
#define PF_TAP(x_, y_) (((x_) >= rx && (x_) < rx + rw && (y_) >= ry && (y_) < ry + rh) ? src[((y_) - ry) * stride + ((x_) - rx)] : z)
        p00 = PF_TAP(ix, iy); p10 = PF_TAP(ix + 1, iy); p01 = PF_TAP(ix, iy + 1); p11 = PF_TAP(ix + 1, iy + 1);
#undef PF_TAP
    }
    pf_float4 top = p00 + (p10 - p00) * wx;
    pf_float4 bottom = p01 + (p11 - p01) * wx;
    return top + (bottom - top) * wy;
}
PF_INLINE void pf_affine_bilinear_row(const pf_float4 *src, long stride, long rx, long ry, long rw, long rh,
                                      double a, double b, double bx, double by, long x0, long count, pf_float4 *dst) {
#pragma clang fp contract(off)
    const double xlo = (double)(rx - 1), xhi = (double)(rx + rw), ylo = (double)(ry - 1), yhi = (double)(ry + rh);
    for (long i = 0; i < count; i += 4) {
        const pf_double4 cx = (pf_double4){(double)(x0 + i), (double)(x0 + i + 1), (double)(x0 + i + 2), (double)(x0 + i + 3)} + 0.5;
        const pf_double4 fx = (a * cx + bx) - 0.5, fy = (b * cx + by) - 0.5;
        const pf_double4 flx = __builtin_elementwise_floor(fx), fly = __builtin_elementwise_floor(fy);
        const pf_float4 wx = __builtin_convertvector(fx - flx, pf_float4), wy = __builtin_convertvector(fy - fly, pf_float4);
        const long n = count - i < 4 ? count - i : 4;
        for (long k = 0; k < n; k++) {
            const double x = fx[k], y = fy[k];
            if (x > xlo && x < xhi && y > ylo && y < yhi)
                dst[i + k] = pf_bilinear_tap(src, stride, rx, ry, rw, rh, (long)flx[k], (long)fly[k], wx[k], wy[k]);
            else
                dst[i + k] = (pf_float4)0.0f;
        }
    }
}

#endif
