#ifndef PIXELFLOW_CSIMD_BYTES_WARP_H
#define PIXELFLOW_CSIMD_BYTES_WARP_H
/*
 * Byte warps (Sources/PixelFlowEngine/ByteForms+Warp.swift): the 2x2 box of a bilinear
 * half-size scale, and affine warps (rotations, shears) with fixed-point bilinear sampling.
 * Integer arithmetic throughout: the bytes do not depend on the vector width, the instruction
 * set or how rows are cut into bands.
 *
 * The _run entry points (CSIMDBytesWarp.c) take 32-byte AVX2 code where the processor has it
 * and otherwise SSE2 (the box) or the portable loops (the affine warp). Same results everywhere.
 */
#include <stdint.h>

/* One output row of the 2x2 box: output pixel i, channel c, is
 * (r0[2i] + r0[2i + 1] + r1[2i] + r1[2i + 1] + 2) >> 2 of that channel (the mean, rounded half
 * up, exactly), for `bpp` 1 (gray8) or 4 (RGBA8) interleaved bytes per pixel. Reads 2 * width
 * pixels of each row. A bilinear sample at the center of a 2x2 block weighs each pixel 1/4. */
void pf_u8_box2x2_run(const unsigned char *row0, const unsigned char *row1, long bpp, long width,
                      unsigned char *dst);

/* The portable loop of pf_u8_box2x2_run (tests compare the two). */
void pf_u8_box2x2_portable(const unsigned char *row0, const unsigned char *row1, long bpp, long width,
                           unsigned char *dst);

/* Fixed-point bilinear sampling of premultiplied RGBA8, transparent outside: `count` output
 * pixels; pixel i samples at f = (fx + i dx, fy + i dy) / 2^32 (the float path's
 * position - 0.5, in source pixels from the first pixel `src` of a width x height rect,
 * rows `bytesPerRow` apart).
 *
 * Per pixel: P = (int32_t)((fx + i dx) >> 16) (16 fractional bits), ix = P >> 16 (floor),
 * wx = (P & 0xFFFF) >> 1 (15 bits); likewise y. Taps (ix, iy), (ix + 1, iy), (ix, iy + 1),
 * (ix + 1, iy + 1), each 0 outside the rect. Per channel, with values v << 7 (7 fractional
 * bits) and m(a, w) = (a w + 2^14) >> 15 (pmulhrsw):
 *     top = p00 + m(p10 - p00, wx), bottom = p01 + m(p11 - p01, wx),
 *     v = top + m(bottom - top, wy), byte = (v + 64) >> 7.
 * Error against the exact bilinear value of the bytes at f, before the final rounding: the
 * position is truncated by less than 2^-16 and the weight by less than 2^-15 per axis
 * (at most 255 * 4.6e-5 = 0.012 units each), and each of the three roundings of m adds at most
 * 1/256 unit to a convex combination (0.008 in all): below 0.032 units, so each byte is the
 * exact value rounded, or off by one where that value lies within 0.032 of a half.
 * The caller keeps |positions| below 2^14 pixels (P fits 32 bits) and width, height,
 * bytesPerRow * height below 2^31. */
void pf_u8_affine_bilinear_rgba_run(const unsigned char *src, long bytesPerRow, long width, long height, int64_t fx,
                                    int64_t fy, int64_t dx, int64_t dy, long count, unsigned char *dst);

/* The portable loop of pf_u8_affine_bilinear_rgba_run (tests compare the two). */
void pf_u8_affine_bilinear_rgba_portable(const unsigned char *src, long bytesPerRow, long width, long height,
                                         int64_t fx, int64_t fy, int64_t dx, int64_t dy, long count,
                                         unsigned char *dst);

#endif
