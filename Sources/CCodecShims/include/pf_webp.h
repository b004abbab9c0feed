#ifndef PIXELFLOW_PF_WEBP_H
#define PIXELFLOW_PF_WEBP_H

/* libwebp shims for PixelFlow (conventions: see CCodecShims.h). This header includes no
   header of libwebp itself.

   Decoding: pf_webp_decoder_create over the file's bytes, pf_webp_read_header (the whole
   RIFF container is parsed by libwebp's demuxer: canvas size, frame count, metadata chunk
   sizes; no pixel is decoded and nothing sized by the canvas is allocated), then either
   pf_webp_read_pixels (a still image) or pf_webp_start_frames + pf_webp_read_next_frame
   (an animation, composited frame by frame). Every pixel output is RGBA, 4 bytes per pixel,
   straight alpha, alpha 255 where the file has none. */

#include <stddef.h>
#include <stdint.h>

/* The metadata chunks of a WebP file. */
enum {
    PF_WEBP_CHUNK_ICCP = 0,
    PF_WEBP_CHUNK_EXIF = 1,
    PF_WEBP_CHUNK_XMP = 2,
};

typedef struct pf_webp_header {
    /* The canvas: the image of a still file, the area every frame is composited on. */
    uint32_t canvas_width;
    uint32_t canvas_height;
    /* Frames of an animation; 1 for a still image. */
    uint32_t frame_count;
    /* Non-zero when the file says it has alpha (VP8X flag, VP8L header bit or ALPH chunk). */
    int has_alpha;
    /* Non-zero for an animated file (VP8X animation flag). */
    int is_animated;
    /* Payload sizes of the first ICCP, EXIF and "XMP " chunks, 0 when absent. */
    size_t chunk_sizes[3];
} pf_webp_header;

typedef struct pf_webp_decoder pf_webp_decoder;

/* Makes a decoder over `size` bytes at `data` (not copied). NULL when out of memory. */
pf_webp_decoder *pf_webp_decoder_create(const uint8_t *data, size_t size);
void pf_webp_decoder_destroy(pf_webp_decoder *decoder);

/* Parses the container. A truncated or malformed container is an error. */
int pf_webp_read_header(pf_webp_decoder *decoder, pf_webp_header *header, char *message);

/* Copies the payload of chunk `chunk` (PF_WEBP_CHUNK_*) into `output`, which holds
   `header.chunk_sizes[chunk]` bytes. Call after pf_webp_read_header. */
int pf_webp_copy_chunk(pf_webp_decoder *decoder, int chunk, uint8_t *output, size_t capacity,
                       char *message);

/* The duration of frame `index` (0-based) in milliseconds as stored; 0 for a still image. */
int pf_webp_frame_duration(pf_webp_decoder *decoder, uint32_t index, int *duration, char *message);

/* Decodes a still image into `pixels` (canvas_width x canvas_height, rows `stride` bytes
   apart). For an animated file this is an error: use the frame calls. */
int pf_webp_read_pixels(pf_webp_decoder *decoder, uint8_t *pixels, size_t stride, char *message);

/* Prepares compositing an animation (or a still image, as one frame). Allocates libwebp's
   two canvases of canvas_width x canvas_height x 4 bytes: call only once the caller has
   checked the canvas size. */
int pf_webp_start_frames(pf_webp_decoder *decoder, char *message);

/* Decodes the next frame, composites it (blend and dispose as the file says, on a
   transparent background) and copies the whole canvas into `pixels` when it is not NULL
   (NULL skips the copy, for frames before the one wanted). */
int pf_webp_read_next_frame(pf_webp_decoder *decoder, uint8_t *pixels, size_t stride, char *message);

/* Encodes width x height RGBA pixels (4 bytes per pixel, rows `stride` bytes apart) into a
   malloc'd buffer returned in `*output` (free with pf_free) of `*output_size` bytes.
   `has_alpha` zero: alpha is ignored and no alpha is written. `lossless` non-zero: VP8L
   with exact RGB under transparent pixels, `quality` then trades size for speed. `quality`
   is 1...100, `method` 0...6. Each metadata block is written (through libwebp's muxer, in
   an extended VP8X file) when its pointer is not NULL. */
int pf_webp_encode(const uint8_t *pixels, size_t stride, uint32_t width, uint32_t height,
                   int has_alpha, int lossless, int quality, int method,
                   const uint8_t *icc, size_t icc_size, const uint8_t *exif, size_t exif_size,
                   const uint8_t *xmp, size_t xmp_size,
                   uint8_t **output, size_t *output_size, char *message);

/* Encodes an animation of `frame_count` frames, each a full width x height RGBA canvas
   (4 bytes per pixel, rows `stride` bytes apart, frame i at `frames[i]`) shown for
   `durations[i]` milliseconds, looping forever. libwebp's animation encoder chooses the
   sub-rectangles, blending and disposal. Other parameters as for pf_webp_encode. */
int pf_webp_encode_animation(const uint8_t *const *frames, const int *durations, uint32_t frame_count,
                             size_t stride, uint32_t width, uint32_t height, int lossless,
                             int quality, int method, uint8_t **output, size_t *output_size,
                             char *message);

#endif
