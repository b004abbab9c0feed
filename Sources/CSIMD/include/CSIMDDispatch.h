#ifndef PIXELFLOW_CSIMD_DISPATCH_H
#define PIXELFLOW_CSIMD_DISPATCH_H
/* Entry points compiled in CSIMD.c for baseline x86-64 and AVX2, chosen at run time. Part of CSIMD (CSIMD.h includes every part). */
#include "CSIMDCommon.h"
/* No contraction of a * b + c into fused multiply-adds (see CSIMDRowKernels.h). */
#pragma clang fp contract(off)
#include "CSIMDPointProgram.h"
/* Exact 8-bit morphology and median kernels (the byte path). */
/* The row kernels above compiled in CSIMD.c for baseline x86-64 and AVX2 and dispatched at run
 * time (same results: no contraction, the same operations). */
void pf_load_rgba8_row_run(const unsigned char *src, pf_float4 *dst, long count);
void pf_store_rgba8_row_run(const pf_float4 *src, unsigned char *dst, long count);
/* The same two with non-temporal stores (the same values), for a large destination written
 * once: they skip reading its cache lines. Call pf_store_fence() before another thread reads
 * the destination. */
void pf_load_rgba8_row_stream_run(const unsigned char *src, pf_float4 *dst, long count);
void pf_store_rgba8_row_stream_run(const pf_float4 *src, unsigned char *dst, long count);
/* The 4 x 8-bit row kernels for any byte order `order` (PF_ORDER_RGBA, _BGRA or _ARGB, see
 * CSIMDRowKernels.h); each order runs its own compiled copy, with the same results as the
 * inline kernels. The rgba8 entry points are these with PF_ORDER_RGBA. */
void pf_load_4x8_row_run(const unsigned char *src, pf_float4 *dst, long count, int order);
void pf_store_4x8_row_run(const pf_float4 *src, unsigned char *dst, long count, int order);
void pf_load_4x8_srgb_row_run(const unsigned char *src, pf_float4 *dst, long count, const float *table, int order);
void pf_store_4x8_srgb_row_run(const pf_float4 *src, unsigned char *dst, long count,
                               const float *thresholds, const unsigned char *buckets,
                               const unsigned long long *pairs, int order);
void pf_store_gray8_row_run(const pf_float4 *src, unsigned char *dst, long count);
/* pf_bilinear_half_rgba8_row, 4 output pixels at a time with AVX2 where the processor has it
 * (same results). */
void pf_bilinear_half_rgba8_row_run(const unsigned char *top, const unsigned char *bottom, long count, pf_float4 *dst);
/* pf_rgba8_to_gray8_row, 8 pixels at a time with AVX2 where the processor has it (same bytes). */
void pf_rgba8_to_gray8_row_run(const unsigned char *src, unsigned char *dst, long count, int premultiply);
/* pf_load_rgba8_srgb_row; the AVX2 variant gathers 8 pixels' colors from the table at a time. */
void pf_load_rgba8_srgb_row_run(const unsigned char *src, pf_float4 *dst, long count, const float *table);
/* pf_store_rgba8_srgb_row; the AVX2 variant looks the codes up 8 pixels at a time in `pairs`
 * (4097 entries: bucket i's code buckets[i] in the high 32 bits and thresholds[buckets[i]]'s
 * bits in the low 32), one 64-bit gather per 4 lanes, and makes the same comparison, so the
 * same bytes. */
void pf_store_rgba8_srgb_row_run(const pf_float4 *src, unsigned char *dst, long count,
                                 const float *thresholds, const unsigned char *buckets,
                                 const unsigned long long *pairs);
/* pf_affine_bilinear_row (the AVX2 variant rounds and converts coordinates in 4-lane vectors). */
void pf_affine_bilinear_row_run(const pf_float4 *src, long stride, long rx, long ry, long rw, long rh,
                                double a, double b, double bx, double by, long x0, long count, pf_float4 *dst);
/* pf_blend_row (its AVX2 variant takes two pixels per 32-byte vector). */
void pf_blend_row_run(int op, const pf_float4 *fg, const pf_float4 *bg, pf_float4 *dst, long count,
                      float amount, int stream);
void pf_correlate3x3_row_run(const pf_float4 *a, const pf_float4 *b, const pf_float4 *c, const float *weights,
                             pf_float4 bias, int rgb_only, long count, pf_float4 *dst);

#endif
