#ifndef PIXELFLOW_PF_DEFLATE_H
#define PIXELFLOW_PF_DEFLATE_H

/*
 * PixelFlow's own deflate encoder (RFC 1951), written for PNG image data compressed in
 * parallel chunks: LZ77 over a hash table with chains of bounded depth, then dynamic Huffman
 * blocks with codes limited to 15 bits (a stored block wherever that is shorter).
 */

#include <stddef.h>
#include <stdint.h>

/* The highest level pf_deflate takes (levels are 1...PF_DEFLATE_MAX_LEVEL). */
#define PF_DEFLATE_MAX_LEVEL 9

/* Compresses `size` bytes at `data` as a piece of a raw deflate stream: blocks that may refer
   back into the `dictionary_size` bytes before `data` (at most 32768 of them are used), ended
   byte-aligned, by the final block when `last` is non-zero, else by an empty stored block (a
   sync flush), so that the pieces of consecutive byte ranges concatenate into one stream.
   `level` 1 (fastest) ... 9 (smallest) sets how hard the match search works; the output is a
   function of the bytes, the dictionary and the level only. Writes at most
   pf_deflate_bound(size) bytes to `output`, and their count to `*output_size`. Returns 0, or
   -1 for a level out of range. Pure and thread-safe; allocates nothing beyond its stack and
   one work area, and returns 1 when that cannot be allocated. */
int pf_deflate(const uint8_t *data, size_t size, size_t dictionary_size, int level, int last,
               uint8_t *output, size_t *output_size);

/* The most bytes pf_deflate writes for `size` input bytes. */
size_t pf_deflate_bound(size_t size);

/* pf_deflate in a work area of pf_deflate_work_size() bytes (aligned for uint32_t) that the
   caller provides, so that one compressing many pieces allocates it once; the same output.
   Returns 0, or -1 for a level out of range. */
int pf_deflate_in(void *work, const uint8_t *data, size_t size, size_t dictionary_size, int level, int last,
                  uint8_t *output, size_t *output_size);
size_t pf_deflate_work_size(void);

#endif
