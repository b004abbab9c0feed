#ifndef PIXELFLOW_PF_PNG_FILTER_H
#define PIXELFLOW_PF_PNG_FILTER_H

/*
 * PNG row unfiltering (PNG specification, section 9 "Filtering"): the inverse of the five
 * filters None, Sub, Up, Average and Paeth, with SSE2 for 3, 4, 6 and 8 bytes per pixel (one
 * pixel per step, as the filters chain each pixel to the one on its left) and plain C for the
 * others. The tests check every filter and pixel size against a scalar reference in Swift.
 */

#include <stddef.h>
#include <stdint.h>

/* Unfilters one row of `row_bytes` bytes: `dst[i] = src[i] + predictor`, the predictor
   from the bytes already unfiltered in `dst` on the left (`bytes_per_pixel` back) and from
   `prev`, the unfiltered row above (NULL for the first row: all zeros). `filter` is the row's
   filter byte, 0...4. `dst` may be `src` (in place) but must not overlap `prev`.
   `bytes_per_pixel` is 1...8. Returns 0, or -1 for a filter byte above 4 (nothing written). */
int pf_png_unfilter_row(int filter, const uint8_t *src, const uint8_t *prev, uint8_t *dst,
                        size_t row_bytes, int bytes_per_pixel);

/* The same in plain C, one byte at a time: the reference the SIMD variants are checked against
   in the tests, and what other pixel sizes use. */
int pf_png_unfilter_row_scalar(int filter, const uint8_t *src, const uint8_t *prev, uint8_t *dst,
                               size_t row_bytes, int bytes_per_pixel);

#endif
