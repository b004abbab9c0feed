#ifndef PIXELFLOW_CSIMD_BYTES_UNSHARP_H
#define PIXELFLOW_CSIMD_BYTES_UNSHARP_H
/*
 * Unsharp masks of 8-bit rows (the byte form of CIUnsharpMask and CISharpenLuminance;
 * Sources/PixelFlowEngine/ByteForms+Unsharp.swift). The Gaussian runs as the byte blur does
 * (CSIMDBytesBlur.h, CSIMDBytesResample.h: a vertical pass of bytes into 16-bit values with 6
 * fractional bits), but its horizontal pass keeps 16 bits: values with 7 fractional bits
 * (PF_US_BLUR_BITS), never rounded to bytes. A combine kernel then computes, from the source
 * bytes s and that blur g, per channel
 *
 *     out = clamp(s + floor((K (128 s - g) + 2^(q + 6)) / 2^(q + 7)))          (unsharp mask)
 *
 * with K = round(k 2^q) the intensity in fixed point, or for the luma form, per pixel
 *
 *     L = W0 (128 sR - gR) + W1 (128 sG - gG) + W2 (128 sB - gB)
 *     out = (clamp(sC + floor((L + 2^(q + 6)) / 2^(q + 7))) for R, G, B; sA)
 *
 * with Wc = round(k lumaC 2^q): out = s + k (s - g) rounded half up and clamped to 0...255.
 * Every product fits 32 bits (|128 s - g| <= 32640, K and Wc at most 32767). Integer
 * arithmetic: the bytes do not depend on the vector width, the instruction set or how rows are
 * cut. The error bound against the exact formula is the engine's (ByteUnsharp.errorBound).
 *
 * The _run entry points use SSE2 on x86-64 and AVX2 where the processor has it
 * (pf_csimd_uses_avx2): the folded horizontal pass with pmaddwd on pairs of distances, 16 values
 * a step, and 32 where the processor has AVX-512 BW and VNNI (vpdpwssd); the combines as portable loops that the compiler vectorizes, compiled for both. Other
 * targets run the portable loops. Same results everywhere.
 */
#include <stdint.h>

#define PF_US_BLUR_BITS 7

/* Horizontal pass, folded symmetric taps (as pf_u8_blur_h_from16_run), 16-bit values in and out:
 * for 0 <= j < width * bpp, with s = src + j, dst[j] = (2^12 + sum_{k < r} (s[k bpp] +
 * s[(2r - k) bpp]) * half[k] + s[r bpp] * half[r]) >> 13. Weights at least 0, 14 fractional
 * bits, summing to at most 2^14; inputs in 0 ... 255 * 64. */
void pf_i16_blur_h_to16_run(const int16_t *src, long bpp, const int16_t *half, long radius, long width,
                            int16_t *dst);

/* Horizontal pass with per-output taps (as pf_u8_resample_h_from16_run), 16-bit values out:
 * output pixel i sums counts[i] pixels of `src` from starts[i] times weights[i * maxTaps + k],
 * dst = (sum + 2^12) >> 13 (the blur's 7 fractional bits, where pf_i16_resample_h_to16_run
 * of CSIMDBytesChain.h keeps 6), saturated to 16 bits; counts[i] == 0 writes zeros. bpp 1 or 4. */
void pf_i16_resample_h_to_blur_run(const int16_t *src, long bpp, const int32_t *starts, const int32_t *counts,
                                const int16_t *weights, long maxTaps, long width, int16_t *dst);

/* The unsharp combine on n values (every channel alike: rgba8 and gray8). */
void pf_u8_unsharp_run(const unsigned char *src, const int16_t *blur, long n, int16_t intensity, long q,
                       unsigned char *dst);

/* The luma combine on `pixels` RGBA pixels; `weights` holds W0, W1, W2. */
void pf_u8_sharpen_luma_rgba_run(const unsigned char *src, const int16_t *blur, long pixels,
                                 const int16_t *weights, long q, unsigned char *dst);

/* The kernels above with a choice of loops, for the tests: `variant` 0 the best the processor
 * has (as the _run functions), 1 the baseline loops (SSE2 on x86-64), 2 the portable loops (the
 * horizontal pass; the baseline for the combines), 3 the AVX2 loops (baseline without AVX2),
 * 4 the AVX-512 horizontal pass (AVX2 or baseline without it). Same results. */
void pf_i16_blur_h_to16_variant(const int16_t *src, long bpp, const int16_t *half, long radius, long width,
                                int16_t *dst, int variant);
void pf_u8_unsharp_variant(const unsigned char *src, const int16_t *blur, long n, int16_t intensity, long q,
                           unsigned char *dst, int variant);
void pf_u8_sharpen_luma_rgba_variant(const unsigned char *src, const int16_t *blur, long pixels,
                                     const int16_t *weights, long q, unsigned char *dst, int variant);

#endif
