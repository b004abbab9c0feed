#ifndef PIXELFLOW_CSIMD_BYTES_JPEG_H
#define PIXELFLOW_CSIMD_BYTES_JPEG_H
/* JPEG decoding's last steps on the planes of libjpeg-turbo's raw output: chroma upsampling
 * and YCbCr to RGBA, giving the bytes libjpeg-turbo's jpeg_read_scanlines gives with its
 * default settings (fancy upsampling, JCS_EXT_RGBA). Part of CSIMD (CSIMD.h includes every
 * part); compiled in CSIMDBytesJPEG.c for baseline x86-64 (16-byte vectors) and AVX2, chosen
 * at run time, with the same results (the AVX2 build does the halved-width upsampling 16
 * samples a step with intrinsics, the same integer formulas).
 *
 * Upsampling (libjpeg's "fancy" triangle filter, jdsample.c), per chroma row c of n samples:
 * - halved width: out[0] = c[0], out[2n - 1] = c[n - 1],
 *   out[2i] = (3 c[i] + c[i - 1] + 1) >> 2, out[2i + 1] = (3 c[i] + c[i + 1] + 2) >> 2;
 * - halved height: the near row c (the chroma row holding the output row's center) and the
 *   far row f (the one above for the upper output row of a pair, below for the lower; at the
 *   image's top and bottom edges the near row itself): (3 c[i] + f[i] + bias) >> 2 with bias
 *   1 when f is above and 2 when below;
 * - both: s[i] = 3 c[i] + f[i], out[0] = (4 s[0] + 8) >> 4, out[2n - 1] = (4 s[n - 1] + 7) >> 4,
 *   out[2i] = (3 s[i] + s[i - 1] + 8) >> 4, out[2i + 1] = (3 s[i] + s[i + 1] + 7) >> 4.
 * Color (jdcolor.c, 16-bit fixed point, x = Cb - 128 or Cr - 128, >> arithmetic):
 *   R = Y + ((91881 Cr' + 32768) >> 16), G = Y + ((-22554 Cb' - 46802 Cr' + 32768) >> 16),
 *   B = Y + ((116130 Cb' + 32768) >> 16), each clamped to 0...255; alpha 255. */
#include "CSIMDCommon.h"

/* One output row of `width` RGBA pixels into `dst` from the Y row `y` (`width` samples) and
 * the Cb and Cr rows: `cb`, `cr` the near rows, `cb_far`, `cr_far` the far rows (read only
 * when `half_height`), `chroma_width` samples each (>= 3 when `half_width`; the row's
 * `width` is then at most 2 * chroma_width). `far_below`: the far rows are below the near
 * ones (the lower output row of a pair). `scratch`: 4 * (width + 4) bytes. */
void pf_jpeg_ycc_to_rgba8_row(const unsigned char *y, const unsigned char *cb, const unsigned char *cb_far,
                              const unsigned char *cr, const unsigned char *cr_far, long width, long chroma_width,
                              int half_width, int half_height, int far_below, unsigned char *scratch,
                              unsigned char *dst);

#endif
