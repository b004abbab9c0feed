#ifndef PIXELFLOW_CSIMD_BYTES_RESAMPLE_H
#define PIXELFLOW_CSIMD_BYTES_RESAMPLE_H
/*
 * Separable resampling of 8-bit rows with fixed-point weights (the byte form of scale warps
 * and Lanczos-3 warps; Sources/PixelFlow/Execution/ByteForms.swift builds the taps).
 *
 * Weights are signed 16-bit with 14 fractional bits (PF_RS_WEIGHT_BITS). The vertical pass
 * reads rows of `bpp` (1 or 4) interleaved bytes per pixel and writes signed 16-bit values
 * with 6 fractional bits (value * 64, rounded half up, saturated), which holds a Lanczos
 * overshoot of up to 2x a byte; the horizontal pass sums those values times the horizontal
 * weights and writes bytes, rounded half up and clamped to 0...255.
 *
 * Error against the exact weighted sum of the bytes: at most 1/128 of a unit from the
 * intermediate rounding times the sum of |vertical weights|, plus the weights' quantization
 * (2^-15 each, times 255, per tap), before the final rounding: about 0.1 unit for 12 taps,
 * so the byte is within 1 of the rounded exact value. Integer arithmetic: the result does not
 * depend on the vector width, the instruction set or how rows are cut into tiles.
 *
 * The _run entry points (CSIMDBytesResample.c) use SSE2 on x86-64 (the baseline; the
 * horizontal pass takes two taps per pmaddwd) and 32-byte AVX2 code where the processor has
 * it (the vertical pass, 64-byte AVX-512 BW code first where the processor also has AVX-512 F,
 * BW and VNNI; the RGBA horizontal pass, four taps per vpmaddwd); other targets run
 * the portable loops. Same results everywhere.
 */
#include <stdint.h>

#define PF_RS_WEIGHT_BITS 14
#define PF_RS_MID_BITS 6

/* The engine runs the vertical pass first (the costlier horizontal pass then runs on output
 * rows only). Vertical: dst[i] = saturate16(round(sum_k rows[k][i] * weights[k] / 2^8)) for
 * 0 <= i < n, bytes in, 16-bit values with 6 fractional bits out; taps == 0 writes zeros. */
void pf_u8_resample_v_to16_run(const unsigned char *const *rows, const int16_t *weights, long taps, long n,
                               int16_t *dst);

/* Horizontal, 16-bit values in (from pf_u8_resample_v_to16_run), bytes out: output pixel i sums
 * counts[i] pixels of `src` from starts[i] times weights[i * maxTaps + k], rounded half up
 * after / 2^20, clamped to 0...255; counts[i] == 0 writes zeros. bpp is 1 or 4. */
void pf_u8_resample_h_from16_run(const int16_t *src, long bpp, const int32_t *starts, const int32_t *counts,
                                 const int16_t *weights, long maxTaps, long width, unsigned char *dst);

/* pf_u8_resample_h_from16_run when output i reads pixels 2i and 2i + 1 with weights 1/2, 1/2:
 * (a + b + 64) >> 7, the same bytes. */
void pf_u8_resample_h_from16_pairs_run(const int16_t *src, long bpp, long width, unsigned char *dst);

#endif
