#ifndef PIXELFLOW_CSIMD_BYTES_LINEAR_BLEND_H
#define PIXELFLOW_CSIMD_BYTES_LINEAR_BLEND_H
/*
 * Byte forms of blends, premultiplying and unpremultiplying in linear light: sRGB-encoded
 * RGBA8 in and out, color management on (Sources/PixelFlowEngine/ByteColor+LinearBlend.swift
 * chooses them and states their error bounds).
 *
 * The blend reads each color byte through `decode` (256 entries: the float path's decode
 * table times PF_U8_LINEAR_SCALE, rounded), combines the two linear values with the
 * coefficients of CSIMDBytesBlend.h, rounds to an integer linear value, clamps it to
 * 0...PF_U8_LINEAR_SCALE and writes encode[value] (PF_U8_LINEAR_SCALE + 1 entries and 3 bytes
 * of padding). Alpha is not decoded: it is the byte formula of pf_u8_blend_rgba_run. Per
 * color channel, with F = decode[f_k], B = decode[b_k], the alpha bytes fa and ba:
 *
 *     wf = f_weight + f_by_b_alpha ba,  wb = b_weight + b_by_f_alpha fa
 *     x  = F wf + B wb                            (exact in 32 bits)
 *     shift > 0:  value = (x + 2^(shift - 1)) >> shift
 *     shift = 0:  value = nearest((float)x * (1/255) + product * ((float)(F B) * (1/32640)))
 *
 * (float: IEEE single precision, the reciprocals rounded to float, no contraction, the
 * nearest integer with ties to even, the same operations in the portable loop and the AVX2
 * one, so the bytes do not depend on the instruction set). `x < 2^24` when shift = 0, so
 * (float)x is exact; F B < 2^30 rounds by at most 2^-24 relative, and each product by the
 * rounded reciprocal is within 2^-23 relative of the exact quotient: below 0.01 of a linear
 * step over the whole range.
 *
 * Premultiplying and unpremultiplying are functions of (c, a): a table of 65536 entries (plus
 * 3 bytes of padding), table[c + 256 a], made by the float path's own row conversions.
 */
#include <stdint.h>
#include "CSIMDBytesBlend.h"

/* `count` pixels: dst[i] = the linear-light blend of fg[i] and bg[i] (above). */
void pf_u8_linear_blend_rgba_run(const unsigned char *fg, const unsigned char *bg, unsigned char *dst, long count,
                                 const int32_t *decode, const unsigned char *encode, pf_u8_blend_coefficients c);

/* `count` pixels: each color byte c of a pixel with alpha a becomes table[c + 256 a]; alpha
 * is kept. */
void pf_u8_alpha_table_rgba_run(const unsigned char *src, unsigned char *dst, long count, const unsigned char *table);

#endif
