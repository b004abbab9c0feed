#ifndef PIXELFLOW_CCODECSHIMS_H
#define PIXELFLOW_CCODECSHIMS_H

/*
 * C shims over libpng and libjpeg-turbo for PixelFlow's codecs.
 *
 * Both libraries report errors by longjmp. A longjmp must never cross a Swift frame, so
 * every function here calls setjmp itself, never calls back into Swift, and reports
 * failure as a non-zero status with a NUL-terminated message written to the caller's
 * `message` buffer of PF_MESSAGE_CAPACITY bytes. Warnings are discarded; nothing is printed.
 *
 * Decoding is split in two calls so that the caller can check the dimensions against its
 * limits before it allocates anything sized by them: `*_read_header` parses up to the image
 * data and reports the size; `*_read_pixels` decodes into a buffer the caller allocated.
 * Both take an opaque decoder made by `*_decoder_create` over bytes the caller keeps alive
 * until `*_decoder_destroy`.
 *
 * This header deliberately includes neither png.h nor jpeglib.h.
 */

#include <stddef.h>
#include <stdint.h>

#define PF_MESSAGE_CAPACITY 256

/* Status codes returned by every function that can fail. */
enum {
    PF_OK = 0,
    /* The library reported an error; the message says which. */
    PF_ERROR = 1,
    /* Memory could not be allocated. */
    PF_OUT_OF_MEMORY = 2,
    /* The JPEG has more scans than the caller allowed. */
    PF_TOO_MANY_SCANS = 3,
    /* Writing to the output file descriptor failed; the message says why. */
    PF_IO_ERROR = 4,
};

/* Frees memory returned by the encoders. */
void pf_free(void *pointer);

/* Metadata blocks an encoder writes; a NULL pointer (or size 0) leaves that block out. */
typedef struct pf_metadata_blocks {
    /* An ICC profile. */
    const uint8_t *icc;
    size_t icc_size;
    /* An EXIF TIFF structure, without the "Exif\0\0" prefix. */
    const uint8_t *exif;
    size_t exif_size;
    /* An XMP packet. */
    const uint8_t *xmp;
    size_t xmp_size;
} pf_metadata_blocks;

/* ---- PNG ---------------------------------------------------------------------------- */

/* Pixel layouts the PNG decoder can produce. */
enum {
    /* 1 byte per pixel: gray, expanded from 1/2/4 bits. Only for gray images without tRNS. */
    PF_PNG_OUTPUT_GRAY8 = 0,
    /* 4 bytes per pixel: RGBA, palette expanded, tRNS as alpha, missing alpha 255. */
    PF_PNG_OUTPUT_RGBA8 = 1,
    /* 8 bytes per pixel: RGBA as native-endian uint16, missing alpha 65535. */
    PF_PNG_OUTPUT_RGBA16 = 2,
};

typedef struct pf_png_header {
    uint32_t width;
    uint32_t height;
    /* Bits per sample: 1, 2, 4, 8 or 16. */
    int bit_depth;
    /* PNG color type: 0 gray, 2 RGB, 3 palette, 4 gray+alpha, 6 RGBA. */
    int color_type;
    /* Non-zero for Adam7. */
    int interlaced;
    /* Non-zero when a tRNS chunk is present. */
    int has_transparency;
} pf_png_header;

typedef struct pf_png_decoder pf_png_decoder;

/* Makes a decoder over `size` bytes at `data` (not copied). NULL when out of memory. */
pf_png_decoder *pf_png_decoder_create(const uint8_t *data, size_t size);
/* A decoder reading `size` bytes from the start of the open file `fd` with pread, as
   needed (the caller keeps `fd` open until the decoder is destroyed). */
pf_png_decoder *pf_png_decoder_create_fd(int fd, uint64_t size);
void pf_png_decoder_destroy(pf_png_decoder *decoder);
/* `allowed` 0: pf_png_read_pixels decodes through libpng only, never directly (for tests
   comparing the two; the default is 1). */
void pf_png_decoder_set_direct(pf_png_decoder *decoder, int allowed);
/* 1 when pf_png_read_pixels decoded the image through the direct path, else 0. */
int pf_png_decoder_decoded_directly(const pf_png_decoder *decoder);

/* Reads the signature and the chunks before the image data. Ancillary chunks are bounded
   (at most 256 cached chunks, 8 MiB per chunk) and text, ICC and sPLT chunks are skipped. */
int pf_png_read_header(pf_png_decoder *decoder, pf_png_header *header, char *message);

/* Decodes every row (all passes when interlaced) into `pixels`, rows `stride` bytes apart,
   in the `output` layout (PF_PNG_OUTPUT_*). Call once, after pf_png_read_header.
   Non-interlaced 8- and 16-bit gray, gray-alpha, RGB and RGBA images without tRNS, and
   8-bit palette images (with or without tRNS), up to 128 MiB of image data, are decoded
   directly: IDAT CRCs checked, one libdeflate inflate
   (adler32 checked), PixelFlow's SIMD unfiltering (pf_png_filter.h), the same pixels as
   libpng's transformations. Everything else, and any file the direct path finds fault with,
   goes through libpng, which reports the error. */
int pf_png_read_pixels(pf_png_decoder *decoder, int output, uint8_t *pixels, size_t stride,
                       char *message);

/* Row-by-row decoding of a non-interlaced PNG, the alternative to pf_png_read_pixels (same
   transformations, same pixels): pf_png_start_rows once after the header with the output
   layout (it fails for an Adam7 file), then pf_png_read_rows for the next `count` rows, top
   to bottom, each into its own pointer. An error (corrupt or truncated data) may come from
   any call and leaves the decoder only fit for pf_png_decoder_destroy. */
int pf_png_start_rows(pf_png_decoder *decoder, int output, char *message);
int pf_png_read_rows(pf_png_decoder *decoder, uint8_t *const *rows, uint32_t count, char *message);

/* Sample layouts the PNG encoder accepts. */
enum {
    /* 1 byte per pixel, written as 8-bit gray. */
    PF_PNG_INPUT_GRAY8 = 0,
    /* 4 bytes per pixel RGBA, written as 8-bit RGB (alpha dropped). */
    PF_PNG_INPUT_RGBA8_AS_RGB = 1,
    /* 4 bytes per pixel RGBA, written as 8-bit RGBA. */
    PF_PNG_INPUT_RGBA8 = 2,
    /* 8 bytes per pixel native-endian uint16 RGBA, written as 16-bit RGB. */
    PF_PNG_INPUT_RGBA16_AS_RGB = 3,
    /* 8 bytes per pixel native-endian uint16 RGBA, written as 16-bit RGBA. */
    PF_PNG_INPUT_RGBA16 = 4,
};

/* Encodes a PNG into a malloc'd buffer returned in `*output` (free with pf_free) of
   `*output_size` bytes, every row through libpng (its filters and one zlib stream).
   `compression_level` is zlib's 0...9. With `srgb_chunk` an sRGB chunk is written instead of
   the metadata's ICC profile; EXIF goes in eXIf, XMP in an uncompressed iTXt chunk
   "XML:com.adobe.xmp". PixelFlow uses it for Adam7-interlaced files; non-interlaced ones go
   through pf_png_encoder and pf_png_deflate_chunk, in parallel. */
int pf_png_encode(const uint8_t *pixels, size_t stride, uint32_t width, uint32_t height,
                  int input, int interlaced, int compression_level,
                  const pf_metadata_blocks *metadata, int srgb_chunk,
                  uint8_t **output, size_t *output_size, char *message);

/* How the image data of a non-interlaced PNG is cut into pieces compressed independently.
   Each row is packed (the input layout's PNG samples, big-endian) and filtered: one filter
   byte, then `row_bytes` bytes. The filtered rows are cut into chunks of `rows_per_chunk`
   whole rows (about 256 KiB: max(1, 262144 / (row_bytes + 1))), a function of the width and
   layout only. */
typedef struct pf_png_chunking {
    /* Bytes of a packed row, without the filter byte. */
    size_t row_bytes;
    /* Rows per chunk (the last chunk may have fewer). */
    uint32_t rows_per_chunk;
    /* Rows above a chunk's first row that pf_png_deflate_chunk reads (when the image has them):
       those whose filtered bytes hold the chunk's 32 KiB dictionary, and the row above them. */
    uint32_t history_rows;
} pf_png_chunking;

/* The chunking of rows `width` pixels wide in the `input` layout (PF_PNG_INPUT_*).
   PF_ERROR for an unknown layout or a zero width. */
int pf_png_chunking_for(uint32_t width, int input, pf_png_chunking *chunking);

/* One compressed chunk: raw deflate bytes (malloc'd; free with pf_free), and the adler32 and
   size of the filtered bytes it holds. */
typedef struct pf_png_chunk {
    uint8_t *data;
    size_t size;
    uint32_t adler;
    size_t filtered_size;
} pf_png_chunk;

/* Filters and compresses one chunk: `count` rows `stride` bytes apart from `rows` (the chunk's
   first row), as a piece of a raw deflate stream primed with the last 32 KiB of the filtered
   rows above it, ended by a sync flush (or, with `last`, the final block). `rows_above` is how
   many rows above `rows` (at negative multiples of `stride`) may be read, and must be
   min(the index of the chunk's first row, chunking.history_rows): the output then depends only
   on the pixels, the layout and the level, never on who calls it or when. Each row is filtered
   with the filter (None, Sub, Up, Average, Paeth) whose residuals, taken as signed bytes,
   have the least sum of absolute values (level 0: None). Levels 1...9 deflate with
   pf_deflate (pf_deflate.h), level 0 stores through zlib. Pure and thread-safe.
   PF_OUT_OF_MEMORY or PF_ERROR (bad arguments; zlib failing). */
int pf_png_deflate_chunk(const uint8_t *rows, size_t stride, uint32_t width, int input,
                         uint32_t rows_above, uint32_t count, int compression_level, int last,
                         pf_png_chunk *chunk);

/* A PNG encoder for non-interlaced images whose image data is compressed by
   pf_png_deflate_chunk. Create writes, through libpng, everything before the image data (the
   chunks and settings of pf_png_encode) to `fd`, or to memory when `fd` is negative; then
   pf_png_encoder_write_chunk takes the chunks in order (one thread at a time), adding them to
   one zlib stream cut into IDAT chunks of 65536 bytes (the last one shorter);
   pf_png_encoder_finish, once every row's chunk is written, writes the adler32, the last IDAT
   and IEND. pf_png_encoder_take_output then hands over the memory output (free with
   pf_free). A failure (PF_IO_ERROR for write errors) leaves the encoder only fit for
   pf_png_encoder_destroy. The descriptor is neither closed nor synced. */
typedef struct pf_png_encoder pf_png_encoder;
int pf_png_encoder_create(int fd, uint32_t width, uint32_t height, int input, int compression_level,
                          const pf_metadata_blocks *metadata, int srgb_chunk,
                          pf_png_encoder **encoder, char *message);
int pf_png_encoder_write_chunk(pf_png_encoder *encoder, const pf_png_chunk *chunk, char *message);
int pf_png_encoder_finish(pf_png_encoder *encoder, char *message);
void pf_png_encoder_take_output(pf_png_encoder *encoder, uint8_t **output, size_t *output_size);
void pf_png_encoder_destroy(pf_png_encoder *encoder);

/* Inflates the zlib stream `input` into `output` (at most `capacity` bytes), checking its
   adler32; the inflated size goes to `*output_size`. PF_ERROR for a corrupt stream or one
   that inflates past `capacity`. For tests, which check the encoder's zlib framing with it. */
int pf_zlib_inflate(const uint8_t *input, size_t size, uint8_t *output, size_t capacity,
                    size_t *output_size);

/* After the header: a copy of the iCCP profile, inflated (malloc'd, free with pf_free), or
   NULL when there is none or libpng rejected it. */
int pf_png_copy_icc(pf_png_decoder *decoder, uint8_t **icc, size_t *icc_size);

/* ---- JPEG --------------------------------------------------------------------------- */

/* Color spaces reported by the JPEG header. */
enum {
    PF_JPEG_COLOR_GRAY = 0,
    PF_JPEG_COLOR_RGB = 1,   /* YCbCr or RGB: decoded to RGBA */
    PF_JPEG_COLOR_CMYK = 2,  /* CMYK or YCCK: converted to RGBA */
    PF_JPEG_COLOR_OTHER = 3, /* anything else libjpeg knows: unsupported */
};

/* Largest APP1 payload (a JPEG marker segment holds at most 65533 bytes). */
#define PF_JPEG_EXIF_CAPACITY 65536

typedef struct pf_jpeg_header {
    uint32_t width;
    uint32_t height;
    int components;
    /* PF_JPEG_COLOR_* */
    int color;
    int progressive;
    /* Non-zero when an Adobe APP14 marker was seen (CMYK is then stored inverted). */
    int adobe;
    /* Bytes of the first APP1 "Exif\0\0" payload copied into the caller's buffer, or 0. */
    size_t exif_size;
} pf_jpeg_header;

typedef struct pf_jpeg_decoder pf_jpeg_decoder;

/* Makes a decoder over `size` bytes at `data` (not copied) that fails once the input has
   more than `maximum_scans` scans. NULL when out of memory. */
pf_jpeg_decoder *pf_jpeg_decoder_create(const uint8_t *data, size_t size, int maximum_scans);
/* The same over the open file `fd` (not closed, not moved: read with pread), of which the
   first `size` bytes are read, 64 KiB at a time as libjpeg asks for them. A read error fails
   the call that meets it; the end of the file is an error as for bytes in memory. */
pf_jpeg_decoder *pf_jpeg_decoder_create_fd(int fd, uint64_t size, int maximum_scans);
void pf_jpeg_decoder_destroy(pf_jpeg_decoder *decoder);

/* Reads the markers up to the first scan. `exif` (PF_JPEG_EXIF_CAPACITY bytes, or NULL)
   receives the first Exif APP1 payload, starting with "Exif\0\0". A truncated file is an error. */
int pf_jpeg_read_header(pf_jpeg_decoder *decoder, pf_jpeg_header *header, uint8_t *exif,
                        char *message);

/* After the header: the ICC profile joined from the APP2 ICC_PROFILE segments (NULL when
   there is none or the segments are inconsistent) and the XMP packet of the first APP1
   segment in Adobe's XMP namespace, without its prefix (NULL when none); each malloc'd,
   free with pf_free. */
void pf_jpeg_copy_metadata(pf_jpeg_decoder *decoder, uint8_t **icc, size_t *icc_size,
                           uint8_t **xmp, size_t *xmp_size);

/* Before the pixels: decode CMYK files to raw ink values (C, M, Y, K, 0 = no ink, Adobe's
   inversion undone) instead of converting them to RGBA. */
void pf_jpeg_set_raw_cmyk(pf_jpeg_decoder *decoder, int raw);

/* Before the pixels: decode at 1/`denominator` of the size (1, 2, 4 or 8; anything else
   means 1) with libjpeg's DCT scaling, for pf_jpeg_read_pixels and pf_jpeg_start_rows alike.
   The output is ceil(width / denominator) x ceil(height / denominator); output pixel (x, y)
   stands for the block of stored pixels [d x, d x + d) x [d y, d y + d) (padded at the right
   and bottom edges), computed from the block's lowest-frequency DCT coefficients. */
void pf_jpeg_set_scale(pf_jpeg_decoder *decoder, int denominator);

/* Decodes into `pixels`, rows `stride` bytes apart: 1 byte per pixel for
   PF_JPEG_COLOR_GRAY, otherwise 4 bytes RGBA with alpha 255. Call once, after the header. */
int pf_jpeg_read_pixels(pf_jpeg_decoder *decoder, uint8_t *pixels, size_t stride, char *message);

/* Row-by-row decoding, the alternative to pf_jpeg_read_pixels (same settings, same pixels):
   pf_jpeg_start_rows once after the header, then pf_jpeg_read_rows for the next `count`
   rows, top to bottom, each into its own pointer (layout as for pf_jpeg_read_pixels). An
   error (corrupt or truncated data) may come from any call. */
int pf_jpeg_start_rows(pf_jpeg_decoder *decoder, char *message);
int pf_jpeg_read_rows(pf_jpeg_decoder *decoder, uint8_t *const *rows, uint32_t count, char *message);

/* Raw decoding: libjpeg-turbo's entropy decoding and inverse DCT only, the Y, Cb and Cr
   planes at their sampled sizes, one row of MCUs (an iMCU row) per call; the caller does
   the upsampling and color conversion (PixelFlow's pf_jpeg_ycc_* kernels, which give the
   bytes of pf_jpeg_read_rows). */
typedef struct pf_jpeg_raw_layout {
    uint32_t width;
    uint32_t height;
    /* 1 when Cb and Cr have half the columns (4:2:2, 4:2:0), else 0. */
    int chroma_half_width;
    /* 1 when Cb and Cr have half the rows (4:2:0, 4:4:0), else 0. */
    int chroma_half_height;
    /* Rows of each plane per iMCU row: 8 or 16 of Y, 8 of Cb and Cr. */
    uint32_t luma_rows;
    uint32_t chroma_rows;
    /* Bytes per plane row (whole MCUs: at least the sampled width). */
    uint32_t luma_stride;
    uint32_t chroma_stride;
    /* The sampled size of Cb and Cr (libjpeg's downsampled_width and _height). */
    uint32_t chroma_width;
    uint32_t chroma_height;
    /* iMCU rows in the image. */
    uint32_t imcu_rows;
} pf_jpeg_raw_layout;

/* After the header (and pf_jpeg_set_scale, pf_jpeg_set_raw_cmyk): 1 when raw decoding gives
   the pixels of pf_jpeg_read_rows with PixelFlow's kernels: 3-component YCbCr at full size,
   Y sampled 1x1, 2x1, 1x2 or 2x2 and Cb, Cr 1x1, Cb and Cr wider than 2 samples when they
   are halved horizontally (libjpeg's fancy upsampling needs 3). Otherwise 0. */
int pf_jpeg_raw_supported(pf_jpeg_decoder *decoder);

/* Starts raw decoding (instead of pf_jpeg_start_rows) and fills `layout`. PF_ERROR when
   pf_jpeg_raw_supported is 0 or the data is corrupt. */
int pf_jpeg_start_raw(pf_jpeg_decoder *decoder, pf_jpeg_raw_layout *layout, char *message);

/* Decodes the next iMCU row: luma_rows rows of Y at `y` (luma_stride apart), chroma_rows
   rows of Cb and Cr at `cb`, `cr` (chroma_stride apart). Rows past the image bottom hold
   padding. An error for corrupt or truncated data, or past the last iMCU row. */
int pf_jpeg_read_raw(pf_jpeg_decoder *decoder, uint8_t *y, uint8_t *cb, uint8_t *cr, char *message);

/* Chroma subsampling of the JPEG encoder. */
enum {
    PF_JPEG_SUBSAMPLING_420 = 0,
    PF_JPEG_SUBSAMPLING_422 = 1,
    PF_JPEG_SUBSAMPLING_444 = 2,
};

/* Encodes a JPEG into a malloc'd buffer (free with pf_free). `components` is 1 (gray, 1 byte
   per pixel) or 4 (RGBA, 4 bytes per pixel, alpha ignored). `quality` is 1...100. The
   metadata (or NULL) goes after the JFIF segment: EXIF as APP1 "Exif", XMP as APP1 in Adobe's
   namespace (blocks over a segment's 65533 bytes fail: extended XMP is not written), the ICC
   profile as APP2 ICC_PROFILE segments. */
int pf_jpeg_encode(const uint8_t *pixels, size_t stride, uint32_t width, uint32_t height,
                   int components, int quality, int subsampling, int progressive,
                   const pf_metadata_blocks *metadata,
                   uint8_t **output, size_t *output_size, char *message);

/* pf_jpeg_encode with a restart marker after every `restart_rows` rows of MCUs (0: none). */
int pf_jpeg_encode_restart(const uint8_t *pixels, size_t stride, uint32_t width, uint32_t height,
                           int components, int quality, int subsampling, int progressive,
                           int restart_rows, const pf_metadata_blocks *metadata,
                           uint8_t **output, size_t *output_size, char *message);

/* The encoders' color conversion for 4:2:0 (libjpeg-turbo gets YCbCr planes as raw data):
   two RGBX rows (r1 may equal r0) of `width` pixels to two luma rows of `luma_width`
   samples and one row of each chroma plane of `chroma_width` samples, columns past the width
   repeating the last pixel. Luma is libjpeg's formula bit for bit, (19595 R + 38470 G +
   7471 B + 32768) >> 16; chroma comes from each 2x2 block's sums of R, G and B with 15-bit
   coefficients, (-5529 Rs - 10855 Gs + 16384 Bs + (128 << 17) + (1 << 16)) >> 17 for Cb and
   (16384 Rs - 13720 Gs - 2664 Bs + ...) >> 17 for Cr, at most 255: the block's mean chroma
   rounded once, where libjpeg rounds each pixel's and then the mean. */
void pf_jpeg_ycc420_rows(const uint8_t *r0, const uint8_t *r1, uint32_t width, uint8_t *y0, uint8_t *y1,
                         uint8_t *cb, uint8_t *cr, uint32_t luma_width, uint32_t chroma_width);

/* Rows in one row of MCUs: 16 for color with 4:2:0 chroma, else 8. */
int pf_jpeg_mcu_height(int components, int subsampling);

/* One band of a baseline JPEG encoded alone: rows first_row ..< first_row + rows of an image
   of `image_height` rows (`pixels` points at row first_row), both ends on a row of MCUs
   (except the image's end). The output (malloc'd, free with pf_free) is the band's part of the
   file that pf_jpeg_encode_restart with restart_rows 1 writes for the whole image, byte for
   byte: the first band brings the headers and `metadata` (ignored for later bands), each
   later band starts with its RST marker (numbered for the whole image), the last band
   ends with EOI. Concatenated in order, the bands are that file. */
int pf_jpeg_encode_band(const uint8_t *pixels, size_t stride, uint32_t width, uint32_t rows,
                        uint32_t image_height, uint32_t first_row, int components, int quality,
                        int subsampling, const pf_metadata_blocks *metadata,
                        uint8_t **output, size_t *output_size, char *message);

/* A streaming JPEG encoder that writes to a file descriptor as rows arrive, with the same
   settings (and so the same bytes) as pf_jpeg_encode, or as pf_jpeg_encode_restart with
   `restart_rows` (0: no restart markers; 1: one after every row of MCUs, the bytes of
   pf_jpeg_encode_band's bands stitched). Rows go in top to bottom through
   pf_jpeg_encoder_write_rows, any number at a time; pf_jpeg_encoder_finish writes the end
   once every row was given. A failure (PF_IO_ERROR for write errors) leaves the encoder
   only fit for pf_jpeg_encoder_destroy. The descriptor is neither closed nor synced. */
typedef struct pf_jpeg_encoder pf_jpeg_encoder;
pf_jpeg_encoder *pf_jpeg_encoder_create(int fd, uint32_t width, uint32_t height, int components,
                                        int quality, int subsampling, int progressive, int restart_rows,
                                        const pf_metadata_blocks *metadata, char *message);
int pf_jpeg_encoder_write_rows(pf_jpeg_encoder *encoder, const uint8_t *pixels, size_t stride,
                               uint32_t count, char *message);
int pf_jpeg_encoder_finish(pf_jpeg_encoder *encoder, char *message);
void pf_jpeg_encoder_destroy(pf_jpeg_encoder *encoder);

/* ---- The other formats and color management: one header each ------------------------ */

#include "pf_webp.h"
#include "pf_tiff.h"
#include "pf_gif.h"
#include "pf_heif.h"
#include "pf_lcms.h"
#include "pf_deflate.h"
#include "pf_png_filter.h"

#endif
