#ifndef PIXELFLOW_CSIMD_BYTES_COLOR_H
#define PIXELFLOW_CSIMD_BYTES_COLOR_H
/*
 * Point operations on 8-bit rows with fixed-point weights (the byte form of color matrices and
 * grayscale; Sources/PixelFlow/Execution/ByteColor.swift builds the weights and states the
 * error bound).
 *
 * Weights are signed 16-bit values with `shift` fractional bits; the bias is a signed 32-bit
 * value in the same scale that already holds the rounding term 2^(shift - 1), so every output
 * is floor((sum_j byte_j * w_j + bias) / 2^shift) clamped to 0...255: the exact weighted sum,
 * rounded half up. Sums are exact 32-bit integers (|sum| < 4 * 255 * 2^15 + |bias|), so the
 * bytes do not depend on the vector width, the instruction set or how rows are cut.
 *
 * The _run entry points (CSIMDBytesColor.c) take 8 pixels per AVX2 instruction where the
 * processor has it (each pixel a 32-bit lane: R and B, then G and A, as 16-bit pairs into
 * pmaddwd) and otherwise the portable loops. Same results everywhere.
 */
#include <stdint.h>

/* RGBA8 to RGBA8, `count` pixels: channel k of pixel i is
 * clamp((sum_j src[4i + j] * w[4k + j] + bias[k]) >> shift); with `zero_transparent`, pixels
 * whose source alpha is 0 are written as four zeros. 0 < shift < 16. */
void pf_u8_matrix_rgba_run(const unsigned char *src, unsigned char *dst, long count, const int16_t *w,
                           const int32_t *bias, int shift, int zero_transparent);

/* RGBA8 to gray8, `count` pixels: dst[i] = clamp((sum_j src[4i + j] * w[j] + bias) >> shift). */
void pf_u8_matrix_gray_run(const unsigned char *src, unsigned char *dst, long count, const int16_t *w, int32_t bias,
                           int shift);

/* Straight RGBA8 to premultiplied: each color byte c becomes round(c * a / 255) (exact: x / 255
 * is never a tie), computed as (x + 128 + ((x + 128) >> 8)) >> 8 with x = c * a; alpha kept. */
void pf_u8_premultiply_rgba_run(const unsigned char *src, unsigned char *dst, long count);

/* Premultiplied RGBA8 source-over: each byte is fg + round(bg * (255 - fg.a) / 255), saturated
 * at 255 (exact: never a tie), computed as above with x = bg * (255 - fg.a). */
void pf_u8_source_over_rgba_run(const unsigned char *fg, const unsigned char *bg, unsigned char *dst, long count);

/* Bytes through a 256-entry table: dst[i] = table[src[i]]. */
void pf_u8_table_run(const unsigned char *src, unsigned char *dst, long count, const unsigned char *table);

#endif
