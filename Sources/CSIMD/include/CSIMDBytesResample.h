#ifndef PIXELFLOW_CSIMD_BYTES_RESAMPLE_H
#define PIXELFLOW_CSIMD_BYTES_RESAMPLE_H
/*
 * Separable resampling of 8-bit rows with fixed-point weights (the byte form of scale warps
 * and Lanczos-3 warps; Sources/PixelFlow/Execution/ByteForms.swift builds the taps).
 *
 * Weights are signed 16-bit with 14 fractional bits (PF_RS_WEIGHT_BITS). The horizontal pass
 * reads `bpp` (1 or 4) interleaved bytes per pixel and writes signed 16-bit values with 6
 * fractional bits (value * 64, rounded half up, saturated), which holds a Lanczos overshoot
 * of up to 2x a byte; the vertical pass sums those rows times the vertical weights and writes
 * bytes, rounded half up and clamped to 0...255.
 *
 * Error against the exact weighted sum of the bytes: at most 1/128 of a unit from the
 * intermediate rounding times the sum of |vertical weights|, plus the weights' quantization
 * (2^-15 each, times 255, per tap), before the final rounding: about 0.1 unit for 12 taps,
 * so the byte is within 1 of the rounded exact value. Integer arithmetic: the result does not
 * depend on the vector width, the instruction set or how rows are cut into tiles.
 *
 * The _run entry points (CSIMDBytesResample.c) use SSE2 on x86-64 (the baseline) and, for the
 * vertical pass, 32-byte AVX2 code where the processor has it; other targets run the portable
 * loops. Same results everywhere.
 */
#include <stdint.h>

#define PF_RS_WEIGHT_BITS 14
#define PF_RS_MID_BITS 6

/* Output pixel i (0 <= i < width) of the row sums counts[i] source pixels from column
 * starts[i] (relative to `src`, which must hold them) times weights[i * maxTaps + k]; writes
 * width * bpp values to dst. counts[i] == 0 writes zeros. bpp is 1 or 4. */
void pf_u8_resample_h_run(const unsigned char *src, long bpp, const int32_t *starts, const int32_t *counts,
                          const int16_t *weights, long maxTaps, long width, int16_t *dst);

/* The horizontal pass when every output averages two adjacent source pixels (a 2x box shrink,
 * the bilinear half-size scale): output i reads source pixels 2i and 2i + 1 from `src`;
 * dst = (a + b) * 32, exactly what pf_u8_resample_h_run gives for weights 8192, 8192. */
void pf_u8_resample_h_pairs_run(const unsigned char *src, long bpp, long width, int16_t *dst);

/* dst[i] = clamp(round(sum_k rows[k][i] * weights[k] / 2^20), 0, 255) for 0 <= i < n;
 * taps == 0 writes zeros. */
void pf_u8_resample_v_run(const int16_t *const *rows, const int16_t *weights, long taps, long n,
                          unsigned char *dst);

#endif
