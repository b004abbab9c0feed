#ifndef PIXELFLOW_CSIMD_BYTES_BLEND_H
#define PIXELFLOW_CSIMD_BYTES_BLEND_H
/*
 * Byte forms of blends, unpremultiplication and color matrices in linear light (the `.color`
 * byte form; Sources/PixelFlowKernels/ByteBlendFormula.swift and
 * Sources/PixelFlowEngine/ByteColor+Linear.swift
 * choose them and state their exactness).
 *
 * All arithmetic is in integers, so the bytes do not depend on the vector width, the
 * instruction set or how rows are cut. The _run entry points (CSIMDBytesBlend.c) take 8 pixels
 * per AVX2 step where the processor has it, else the portable loops: same results.
 */
#include <stdint.h>

/* The coefficients of a blend of premultiplied RGBA8 pixels f (foreground) and b (background),
 * per channel k (alpha included):
 *
 *     x = f_k * (f_weight + f_by_b_alpha * b_a) + b_k * (b_weight + b_by_f_alpha * f_a)
 *         + product * f_k * b_k
 *
 * with f_by_b_alpha, b_by_f_alpha and product in {-1, 0, 1}. With `shift` 0 the output is
 * round(x / 255) (x clamped to 0...65280 first; exact: x / 255 is never a tie); with `shift`
 * > 0, floor((x + 2^(shift - 1)) / 2^shift) clamped to 0...255 (constant weights, the mix).
 * Porter-Duff source-atop is (0, 1, 255, -1, 0): f * b_a + b * (255 - f_a), all over 255. */
typedef struct {
    int16_t f_weight, f_by_b_alpha, b_weight, b_by_f_alpha, product;
    int32_t shift;
} pf_u8_blend_coefficients;

/* `count` pixels: dst[i] = blend(fg[i], bg[i]) on all four channels. */
void pf_u8_blend_rgba_run(const unsigned char *fg, const unsigned char *bg, unsigned char *dst, long count,
                          pf_u8_blend_coefficients c);

/* Premultiplied RGBA8 to straight: color c of a pixel with alpha a > 0 becomes
 * round(255 * min(c, a) / a) computed as (min(c, a) * m[a] + 2^19) >> 20, with
 * m[a] = round(255 * 2^20 / a) and m[0] = 0 (`multipliers`, 256 entries): a pixel with alpha
 * 0 becomes four zeros; alpha is kept. Equal to round(255 c / a) (255 where c > a) for every
 * (c, a) whose quotient is not a tie (checked exhaustively in the tests). */
void pf_u8_unpremultiply_rgba_run(const unsigned char *src, unsigned char *dst, long count,
                                  const uint32_t *multipliers);

/* The scale of linear values in the linear-light kernels: 32640 = 255 * 128, so alpha a is
 * exactly 128 a and every linear value fits a signed 16-bit lane. */
#define PF_U8_LINEAR_SCALE 32640

/* RGBA8 in sRGB encoding through a color matrix in linear light, `count` pixels: with
 * X = (decode[r], decode[g], decode[b], 128 a) (decode: 256 entries, linear values times
 * PF_U8_LINEAR_SCALE), channel k < 3 is encode[clamp((sum_j X_j w[4k + j] + bias[k]) >> shift,
 * 0, PF_U8_LINEAR_SCALE)] (encode: PF_U8_LINEAR_SCALE + 1 entries plus 3 bytes of padding);
 * alpha is kept; with `zero_transparent`, pixels whose alpha is 0 become four zeros. The
 * caller keeps |sum| + |bias| below 2^31. */
void pf_u8_linear_matrix_rgba_run(const unsigned char *src, unsigned char *dst, long count, const int32_t *decode,
                                  const unsigned char *encode, const int16_t *w, const int32_t *bias, int shift,
                                  int zero_transparent);

/* The same into gray8: dst[i] = encode[clamp((sum_j X_j w[j] + bias) >> shift, 0, PF_U8_LINEAR_SCALE)]. */
void pf_u8_linear_matrix_gray_run(const unsigned char *src, unsigned char *dst, long count, const int32_t *decode,
                                  const unsigned char *encode, const int16_t *w, int32_t bias, int shift);

#endif
