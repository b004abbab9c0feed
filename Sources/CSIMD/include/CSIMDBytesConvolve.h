#ifndef PIXELFLOW_CSIMD_BYTES_CONVOLVE_H
#define PIXELFLOW_CSIMD_BYTES_CONVOLVE_H
/*
 * 2-D convolutions of 8-bit rows with fixed-point weights (the byte form of CIConvolution3X3 ...
 * 7X7, the RGB variants and the 9-tap rows and columns; Sources/PixelFlowEngine/ByteForms+Convolution.swift).
 *
 * The kw x kh taps, row-major from the top left, are numbered t = j kw + k and read
 * rows[j][i + k bpp]. Their signed 16-bit weights come in pairs, one 32-bit lane per pair:
 * pairs[p] = (uint16)w[2p] | (uint16)w[2p + 1] << 16 (w[n] = 0 past the last tap), so that
 * pmaddwd multiplies two taps' 16-bit values by their weights and adds them into 32-bit sums
 * (the values of the two taps are interleaved by an unpack). The caller keeps every sum inside
 * 32 bits: sum |w| * 255 + |bias| < 2^31.
 *
 * For 0 <= i < width * bpp: acc = bias[c] + sum_t w[t] rows[j][i + k bpp], with c = i mod 4 for
 * bpp 4 and 0 for bpp 1; dst[i] = min(255, max(0, acc >> shift)) (an arithmetic shift: the floor;
 * the caller folds the rounding term into bias). With keep_alpha (bpp 4), the alpha bytes are
 * copied from the center tap instead: dst[4q + 3] = rows[kh / 2][4q + 3 + (kw / 2) 4].
 * rows[j] points at the left end of the window row j: width + kw - 1 pixels are read.
 *
 * Integer sums: the result does not depend on the vector width, the instruction set or how rows
 * are cut. The _run entry point uses SSE2 on x86-64 (16 bytes a step) and 32-byte AVX2 code where
 * the processor has it (pf_csimd_uses_avx2); other targets run the scalar loop.
 */
#include <stdint.h>

void pf_u8_convolve_row_run(const unsigned char *const *rows, long kw, long kh, long bpp, const int32_t *pairs,
                            const int32_t *bias, long shift, int keep_alpha, long width, unsigned char *dst);

/* The kernel above with a choice of loops, for the tests: `variant` 0 the best the processor has
 * (as the _run function), 1 the SSE2 loop (x86-64 baseline), 2 the scalar loop, 3 the AVX2 loop
 * (SSE2 without AVX2). Same results. */
void pf_u8_convolve_row_variant(const unsigned char *const *rows, long kw, long kh, long bpp, const int32_t *pairs,
                                const int32_t *bias, long shift, int keep_alpha, long width, unsigned char *dst,
                                int variant);

#endif
