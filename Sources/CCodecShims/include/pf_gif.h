#ifndef PIXELFLOW_PF_GIF_H
#define PIXELFLOW_PF_GIF_H

/* giflib shims for PixelFlow (conventions: see CCodecShims.h). This header includes no
   header of giflib itself.

   Decoding walks the records one frame at a time so that the caller counts frames and
   checks sizes before it allocates: pf_gif_read_screen, then pf_gif_next_frame until it
   reports the end, each frame followed by exactly one pf_gif_read_frame or
   pf_gif_skip_frame. The caller composites; the shim only hands out color indices. */

#include <stddef.h>
#include <stdint.h>

/* The logical screen descriptor and the global color map. */
typedef struct pf_gif_screen {
    uint32_t width;
    uint32_t height;
    int background_index;
    /* Entries of the global color map (2...256), 0 when the file has none. */
    int global_color_count;
    /* R, G, B of each entry. */
    uint8_t global_colors[768];
} pf_gif_screen;

/* An image descriptor with the Graphic Control Extension that came before it. */
typedef struct pf_gif_frame {
    /* The frame's rectangle in screen coordinates, as stored (not clipped). */
    uint32_t left;
    uint32_t top;
    uint32_t width;
    uint32_t height;
    int interlaced;
    /* Entries of the local color map (2...256), 0 when the frame uses the global one. */
    int local_color_count;
    uint8_t local_colors[768];
    /* Disposal method 0...7 of the Graphic Control Extension (0 without one). */
    int disposal;
    /* Delay in centiseconds (0 without a Graphic Control Extension). */
    int delay;
    /* The transparent color index, or -1. */
    int transparent_index;
} pf_gif_frame;

typedef struct pf_gif_decoder pf_gif_decoder;

/* Makes a decoder over `size` bytes at `data` (not copied). NULL when out of memory. */
pf_gif_decoder *pf_gif_decoder_create(const uint8_t *data, size_t size);
void pf_gif_decoder_destroy(pf_gif_decoder *decoder);

/* Reads the signature, the logical screen descriptor and the global color map. */
int pf_gif_read_screen(pf_gif_decoder *decoder, pf_gif_screen *screen, char *message);

/* Reads records up to the next image descriptor and fills `frame`, or sets `*at_end` when
   the trailer (or, after at least one frame, the end of the bytes) comes first.
   Extensions on the way are read: Graphic Control (for this frame), NETSCAPE2.0 (loop
   count), ICCRGBG1012 (ICC profile) and "XMP DataXMP"; the others are skipped. */
int pf_gif_next_frame(pf_gif_decoder *decoder, pf_gif_frame *frame, int *at_end, char *message);

/* Decodes the pixels of the frame pf_gif_next_frame returned, interlaced rows put in their
   place, and keeps the color indices of the rectangle at (`x`, `y`) of size `width` x
   `height` in frame coordinates, rows `stride` bytes apart in `indices`; the rest is decoded
   and dropped. An empty rectangle (and NULL `indices`) is allowed. */
int pf_gif_read_frame(pf_gif_decoder *decoder, uint32_t x, uint32_t y, uint32_t width, uint32_t height,
                      uint8_t *indices, size_t stride, char *message);

/* Skips the compressed pixels of the frame pf_gif_next_frame returned, without decoding them. */
int pf_gif_skip_frame(pf_gif_decoder *decoder, char *message);

/* The NETSCAPE2.0 loop count seen so far (0 = forever), or -1 when there was none. */
int pf_gif_loop_count(const pf_gif_decoder *decoder);

/* The first ICC profile (ICCRGBG1012) and XMP packet ("XMP DataXMP", magic trailer
   removed) seen so far, owned by the decoder; NULL and 0 when there was none. */
const uint8_t *pf_gif_icc_profile(const pf_gif_decoder *decoder, size_t *size);
const uint8_t *pf_gif_xmp(const pf_gif_decoder *decoder, size_t *size);

/* One frame to encode. */
typedef struct pf_gif_frame_input {
    /* Color indices, `width` x `height`, rows `stride` bytes apart. */
    const uint8_t *indices;
    size_t stride;
    uint32_t left;
    uint32_t top;
    uint32_t width;
    uint32_t height;
    /* A local color map (R, G, B each) of a power of two 2...256 entries, or NULL and 0 to
       use the global one. */
    const uint8_t *colors;
    int color_count;
    /* Whether a Graphic Control Extension is written, and its fields. */
    int has_control;
    int transparent_index;  /* -1 for none */
    int delay;              /* centiseconds, 0...65535 */
    int disposal;           /* 0...3 */
} pf_gif_frame_input;

/* Encodes a GIF89a into a malloc'd buffer (free with pf_free). `global_colors` holds
   `global_color_count` entries (a power of two 2...256), or is NULL and 0 when every frame
   has its own map. `loop_count` >= 0 writes a NETSCAPE2.0 extension (0 = forever). `icc`
   is written as an ICCRGBG1012 extension and `xmp` (which must hold no NUL byte) as an
   "XMP DataXMP" one, each when not NULL. */
int pf_gif_encode(uint32_t width, uint32_t height, const uint8_t *global_colors, int global_color_count,
                  const pf_gif_frame_input *frames, size_t frame_count, int loop_count,
                  const uint8_t *icc, size_t icc_size, const uint8_t *xmp, size_t xmp_size,
                  uint8_t **output, size_t *output_size, char *message);

#endif
