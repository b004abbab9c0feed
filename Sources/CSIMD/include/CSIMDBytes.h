#ifndef PIXELFLOW_CSIMD_BYTES_H
#define PIXELFLOW_CSIMD_BYTES_H
/*
 * Exact 8-bit order-statistic kernels (morphology and median) on rows of interleaved bytes:
 * RGBA8 (bpp = 4) or gray8 (bpp = 1). Every channel byte is processed independently, so a row
 * of `count` pixels is a row of n = count * bpp bytes, and the neighbour of byte i one pixel to
 * the right is byte i + bpp: a window of pixels is a set of shifted, unaligned loads.
 *
 * The kernels (CSIMDBytesKernels.h) are written for a vector width of PF_BW bytes. Here they
 * are 16 bytes (clang ext_vector_type, one SSE2 register on baseline x86-64, one NEON
 * register on arm64, lowered to scalar code elsewhere); CSIMD.c compiles them again with
 * 32-byte vectors for AVX2, behind the pf_u8_*_run entry points below. Minima and maxima are
 * __builtin_elementwise_min/max (pminub/pmaxub). Results are exact, so they never depend on
 * evaluation order, vector width or tiling. Loops end with an overlapping last vector rather
 * than a scalar tail when a row holds at least one vector; shorter rows go through a padded
 * copy. No kernel reads outside the ranges its comment gives, or writes outside [dst, dst + n).
 *
 * Used by the engine's byte path (Sources/PixelFlow/Execution/BytePlan.swift); tested against
 * scalar references in Tests/PixelFlowTests/Kernels/ByteKernelsTests.swift.
 */
#include <stddef.h>

typedef unsigned char pf_u8x16 __attribute__((ext_vector_type(16)));
typedef unsigned char pf_u8;

#ifndef PF_INLINE
#define PF_INLINE static inline __attribute__((always_inline))
#endif

PF_INLINE pf_u8x16 pf_ld16(const pf_u8 *p) { pf_u8x16 v; __builtin_memcpy(&v, p, 16); return v; }
PF_INLINE void pf_st16(pf_u8 *p, pf_u8x16 v) { __builtin_memcpy(p, &v, 16); }
/* The per-byte maximum (is_max) or minimum. Callers hoist is_max out of their loops by
 * calling the kernels with a constant, so the branch folds away after inlining. */
PF_INLINE pf_u8x16 pf_pick16(pf_u8x16 a, pf_u8x16 b, int is_max) {
    return is_max ? __builtin_elementwise_max(a, b) : __builtin_elementwise_min(a, b);
}
PF_INLINE pf_u8 pf_pick1(pf_u8 a, pf_u8 b, int is_max) { return is_max ? (a > b ? a : b) : (a < b ? a : b); }

/* The vector kernels, on 16-byte vectors under the names below (see CSIMDBytesKernels.h). */
#define PF_BV pf_u8x16
#define PF_BW 16
#define PF_LDV(p) pf_ld16(p)
#define PF_STV(p, v) pf_st16(p, v)
#define PF_PICKV(a, b, is_max) pf_pick16(a, b, is_max)
#define PF_BN(name) name
#include "CSIMDBytesKernels.h"

/* The kernels above dispatched at run time, for Swift to call (defined in CSIMD.c): rows of
 * at least 32 bytes go through 32-byte vectors compiled for AVX2 where the processor has it,
 * other rows and processors through the 16-byte kernels. Same arguments, scratch sizes and
 * results as the functions without _run. */
void pf_u8_extremum_h_run(const pf_u8 *src, pf_u8 *dst, long n, long bpp, int w, int is_max, pf_u8 *scratch);
void pf_u8_extremum_rows_run(const pf_u8 *const *rows, int h, pf_u8 *dst, long n, int is_max);
void pf_u8_extremum_rows2_run(const pf_u8 *const *rows, int h, pf_u8 *d0, pf_u8 *d1, long n, int is_max);
void pf_u8_pick_rows_run(const pf_u8 *a, const pf_u8 *b, pf_u8 *d, long n, int is_max);
void pf_u8_extremum_v_vanherk_run(const pf_u8 *src, long srcStride, long rows, long n, int h,
                                  pf_u8 *dst, long dstStride, pf_u8 *suffix, pf_u8 *prefix, int is_max);
void pf_u8_median3x3_row_run(const pf_u8 *const *rows, pf_u8 *dst, long n, long bpp, pf_u8 *scratch);
void pf_u8_median5x5_row_run(const pf_u8 *const *rows, pf_u8 *dst, long n, long bpp, pf_u8 *scratch);

/* The median per channel over (2r+1) x (2r+1) windows by a sliding histogram (Huang, Yang and
 * Tang 1979), for `count` x `height` outputs of `bpp` channels: rows[j] (j < height + 2r) points
 * at the first window column of input row j (count + 2r pixels); output row y goes to
 * dst + y * dstStride. Per output row the histograms are rebuilt, then move one column per
 * output, and the median bin (the (side^2 / 2)-th smallest value, counting from 0) is tracked
 * with the count of values below it.
 * Cost: 2 * (2r + 1) histogram updates per channel and pixel, plus (2r + 1)^2 per row; 4 KiB
 * of stack. */
PF_INLINE void pf_u8_median_histogram(const pf_u8 *const *rows, int r, long count, long height, long bpp,
                                      pf_u8 *dst, long dstStride) {
    long side = 2 * r + 1;
    int half = (int)((side * side) / 2);
    int hist[4][256];
    for (long y = 0; y < height; y++) {
        const pf_u8 *const *win = rows + y;
        pf_u8 *d = dst + y * dstStride;
        for (long c = 0; c < bpp; c++) {
            int *h = hist[c];
            __builtin_memset(h, 0, sizeof(hist[0]));
            for (long j = 0; j < side; j++) {
                const pf_u8 *row = win[j] + c;
                for (long i = 0; i < side; i++) h[row[i * bpp]]++;
            }
            int m = 0, below = 0;
            while (below + h[m] <= half) { below += h[m]; m++; }
            d[c] = (pf_u8)m;
            long in = side * bpp;
            for (long x = 1; x < count; x++) {
                long p = (x - 1) * bpp + c;
                for (long j = 0; j < side; j++) {
                    int o = win[j][p], v = win[j][p + in];
                    h[o]--; below -= (o < m);
                    h[v]++; below += (v < m);
                }
                while (below > half) { m--; below -= h[m]; }
                while (below + h[m] <= half) { below += h[m]; m++; }
                d[x * bpp + c] = (pf_u8)m;
            }
        }
    }
}

#endif
