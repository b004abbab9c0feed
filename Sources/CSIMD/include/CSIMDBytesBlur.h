#ifndef PIXELFLOW_CSIMD_BYTES_BLUR_H
#define PIXELFLOW_CSIMD_BYTES_BLUR_H
/*
 * Separable blurs of 8-bit rows with symmetric fixed-point taps (the byte form of Gaussian and
 * box blurs; Sources/PixelFlowEngine/ByteForms+Blur.swift). The same arithmetic as the
 * resampling kernels of CSIMDBytesResample.h with the weights w[0 ... 2r] of every output,
 * w[k] == w[2r - k] >= 0: the two taps at the same distance are added first and multiplied once,
 * (s[i - d] + s[i + d]) * w[r - d], which halves the multiplies. Integer sums, so each output
 * equals the resampling kernels' exactly (the tests check it), and the result does not depend on
 * the vector width, the instruction set or how rows are cut.
 *
 * `half` holds w[0 ... r]: half[k] weighs the taps k and 2r - k, half[r] the center. Weights
 * have 14 fractional bits (PF_RS_WEIGHT_BITS), are at least 0 and sum (over all 2r + 1 taps) to
 * at most 2^14, so no intermediate saturates: the 16-bit values (6 fractional bits) stay below
 * 255.5 * 64 and the sum of two of them fits 16 bits.
 *
 * The _run entry points use SSE2 on x86-64, 32-byte AVX2 code where the processor has it
 * (pf_csimd_uses_avx2), and 64-byte AVX-512 code where it also has AVX-512 BW and VNNI (whose
 * vpdpwssd adds the products into the sums in one instruction); other targets run the portable
 * loops. Same results everywhere.
 */
#include <stdint.h>

/* Vertical: for 0 <= i < n, dst[i] = (2^7 + sum_{k < r} (rows[k][i] + rows[2r - k][i]) * half[k]
 * + rows[r][i] * half[r]) >> 8: bytes in, 16-bit values with 6 fractional bits out.
 * `rows` holds 2r + 1 row pointers (repeat one for a clamped row). */
void pf_u8_blur_v_to16_run(const unsigned char *const *rows, const int16_t *half, long radius, long n,
                           int16_t *dst);

/* Horizontal, 16-bit values in (interleaved, `bpp` 1 or 4 values per pixel), bytes out: for
 * 0 <= j < width * bpp, with s = src + j, dst[j] = min(255, (2^19 + sum_{k < r} (s[k bpp] +
 * s[(2r - k) bpp]) * half[k] + s[r bpp] * half[r]) >> 20). `src` is the first pixel of output
 * 0's window (its center minus r pixels). */
void pf_u8_blur_h_from16_run(const int16_t *src, long bpp, const int16_t *half, long radius, long width,
                             unsigned char *dst);

/* The kernels above with a choice of loops, for the tests: `variant` 0 the best the processor has
 * (as the _run functions), 1 the SSE2 loops (x86-64 baseline), 2 the scalar loops, 3 the AVX2
 * loops (SSE2 without AVX2). Same results. */
void pf_u8_blur_v_to16_variant(const unsigned char *const *rows, const int16_t *half, long radius, long n,
                               int16_t *dst, int variant);
void pf_u8_blur_h_from16_variant(const int16_t *src, long bpp, const int16_t *half, long radius, long width,
                                 unsigned char *dst, int variant);

#endif
