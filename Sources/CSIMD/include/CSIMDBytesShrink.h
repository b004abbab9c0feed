#ifndef PIXELFLOW_CSIMD_BYTES_SHRINK_H
#define PIXELFLOW_CSIMD_BYTES_SHRINK_H
/*
 * Byte kernels of thumbnails (Sources/PixelFlow/Execution/ByteForms+Shrink.swift): an integer
 * box shrink of 8-bit rows, optionally premultiplying straight alpha on the fly into 16-bit
 * values; a vertical resampling pass over such 16-bit rows; and a horizontal pass that
 * unpremultiplies as it stores bytes.
 *
 * 16-bit values have 6 fractional bits (value * 64, as CSIMDBytesResample.h's intermediate).
 * Premultiplying a straight RGBA8 pixel (c, a) gives c * a / 255 * 64 for a color channel,
 * computed as round(c * a * 16448 / 2^16) (16448 / 2^16 = 64 / 255 to 2e-5 relative: at most
 * 1/64 of a unit off), and a * 64 exactly for alpha (a * 255 * 16448 / 2^16 rounds to a * 64).
 * An opaque pixel's colors premultiply to c * 64 exactly.
 *
 * Integer arithmetic throughout but for the final divisions (float, exact where stated): the
 * results do not depend on the vector width, the instruction set or how rows are cut.
 */
#include <stdint.h>

/* One output row of a box shrink by `k`: output pixel i averages, over the `rowCount` rows
 * `rows`, the pixels [k i, min(k i + k, inWidth)) of each row (`bpp` 1 or 4 interleaved bytes
 * per pixel). `mode` 0 writes bytes: the mean rounded half up, exactly (floor((sum + n / 2) / n)
 * for n values). `mode` 1 writes 16-bit values round(mean * 64); `mode` 2 (bpp 4) premultiplies
 * each pixel first and writes the mean of the premultiplied 16-bit values, rounded. `scratch`
 * holds inWidth * bpp uint32_t. k is 1...32. */
void pf_u8_box_shrink_run(const unsigned char *const *rows, long rowCount, long bpp, long inWidth, long k,
                          long outWidth, int mode, uint32_t *scratch, void *dst);

/* Vertical pass over 16-bit rows: dst[i] = saturate16(round(sum_k rows[k][i] * weights[k] / 2^14))
 * for 0 <= i < n (weights with 14 fractional bits, as CSIMDBytesResample.h); taps == 0 writes
 * zeros. */
void pf_i16_resample_v_run(const int16_t *const *rows, const int16_t *weights, long taps, long n, int16_t *dst);

/* Horizontal pass over premultiplied RGBA 16-bit values with unpremultiplying store, as the
 * float path's unpremultiply then quantize: output pixel i sums counts[i] pixels of `src` from
 * starts[i] times weights[i * maxTaps + k] into A (alpha) and C (each color), in units of
 * 2^20 per byte value. A <= 0 writes (0, 0, 0, 0). Otherwise alpha = clamp(floor(A / 2^20 + 1/2))
 * and color = clamp(floor(255 * C / A + 1/2)) to 0...255 (the division in float). */
void pf_u8_resample_h_from16_unpremultiply_run(const int16_t *src, const int32_t *starts, const int32_t *counts,
                                               const int16_t *weights, long maxTaps, long width, unsigned char *dst);

#endif
