#ifndef PIXELFLOW_CSIMD_BYTES_CHAIN_H
#define PIXELFLOW_CSIMD_BYTES_CHAIN_H
/*
 * The two kernels of the chained byte form, a convolution of a separable resample
 * (Sources/PixelFlowEngine/ByteForms+Chain.swift): the resample's output stays in signed 16
 * bits with 6 fractional bits (value * 64) between the two stages, never rounded to bytes.
 *
 * The resample's vertical pass is pf_u8_resample_v_to16_run (CSIMDBytesResample.h: bytes in,
 * 16-bit values with 6 fractional bits out). Its horizontal pass here keeps 16 bits:
 *
 *   pf_i16_resample_h_to16_run: output value i (pixel i / bpp, channel i mod bpp) is
 *   saturate16((2^13 + sum_k src[(starts[p] + k) bpp + c] weights[p maxTaps + k]) >> 14), the
 *   weights signed 16-bit with 14 fractional bits (PF_RS_WEIGHT_BITS): the resampled value
 *   times 64, rounded half up. counts[p] == 0 writes zeros. Weights past counts[p] are 0, and
 *   src holds one readable pixel after the last one a tap reads (and after pixel starts[p] when
 *   counts[p] is 0): with maxTaps 2 the AVX2 loop reads two pixels per output whatever its count.
 *
 * The convolution reads those 16-bit rows:
 *
 *   pf_i16_convolve_row_run: for 0 <= i < width bpp, with c = i mod 4 for bpp 4 and 0 for bpp 1,
 *   acc = bias[c] + sum_t w[t] rows[j][i + k bpp] over the kw x kh taps t = j kw + k (row-major
 *   from the top left; rows[j] points at the left end of window row j, width + kw - 1 pixels
 *   are read), and dst[i] = min(255, max(0, acc >> shift)) (an arithmetic shift: the floor; the
 *   caller folds the rounding term into bias and gives the total shift, the weights' fractional
 *   bits plus the values' 6). The signed 16-bit weights come in pairs, one 32-bit lane per pair,
 *   pairs[p] = (uint16)w[2p] | (uint16)w[2p + 1] << 16 (w[n] = 0 past the last tap), so that
 *   pmaddwd multiplies the two taps' interleaved 16-bit values by the pair and adds them into
 *   32-bit sums. The caller keeps every sum inside 32 bits:
 *   sum |w| * max |value| + |bias| < 2^31.
 *
 * Integer sums: the results do not depend on the vector width, the instruction set or how
 * rows are cut. The _run entry points use SSE2 on x86-64, AVX2 where the processor has it and,
 * for the convolution, AVX-512 BW with VNNI (vpdpwssd) where it has those; other targets run
 * the scalar loops.
 */
#include <stdint.h>

void pf_i16_resample_h_to16_run(const int16_t *src, long bpp, const int32_t *starts, const int32_t *counts,
                                const int16_t *weights, long maxTaps, long width, int16_t *dst);

/* The kernel above with a choice of loops, for the tests: `variant` 0 the best the processor has
 * (as the _run function), 1 the SSE2 loop (x86-64 baseline; scalar for bpp 1), 2 the scalar loop,
 * 3 the AVX2 loop for bpp 4 (else as 1). Same results. */
void pf_i16_resample_h_to16_variant(const int16_t *src, long bpp, const int32_t *starts, const int32_t *counts,
                                    const int16_t *weights, long maxTaps, long width, int16_t *dst, int variant);

void pf_i16_convolve_row_run(const int16_t *const *rows, long kw, long kh, long bpp, const int32_t *pairs,
                             const int32_t *bias, long shift, long width, unsigned char *dst);

/* `variant` 0 the best, 1 SSE2, 2 scalar, 3 AVX2 (SSE2 without it), 6 AVX-512 BW/VNNI (AVX2
 * without those). Same results. */
void pf_i16_convolve_row_variant(const int16_t *const *rows, long kw, long kh, long bpp, const int32_t *pairs,
                                 const int32_t *bias, long shift, long width, unsigned char *dst, int variant);

#endif
