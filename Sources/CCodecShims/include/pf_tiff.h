#ifndef PIXELFLOW_PF_TIFF_H
#define PIXELFLOW_PF_TIFF_H

/* libtiff shims for PixelFlow (conventions: see CCodecShims.h). This header includes no
   header of libtiff itself.

   libtiff reports errors through handlers: every TIFF handle opened here gets its own error
   and warning handlers (libtiff 4.5's TIFFOpenOptions), which copy the first error into the
   handle's context and never print; the global handlers are never used, so decodes on
   different threads share nothing. */

#include <stddef.h>
#include <stdint.h>

/* The color model of a page, as the inspector reports it. */
enum {
    PF_TIFF_MODEL_GRAY = 0,
    PF_TIFF_MODEL_RGB = 1,
    PF_TIFF_MODEL_PALETTE = 2,
    PF_TIFF_MODEL_CMYK = 3,
    PF_TIFF_MODEL_YCBCR = 4,
    /* CIE L*a*b*, LogLuv and the rest: read through libtiff's RGBA interface. */
    PF_TIFF_MODEL_OTHER = 5,
};

/* The layout pf_tiff_read_pixels writes. */
enum {
    /* 1 byte per pixel. */
    PF_TIFF_OUTPUT_GRAY8 = 0,
    /* 4 bytes per pixel: R, G, B, A (C, M, Y, K for CMYK), straight alpha. */
    PF_TIFF_OUTPUT_RGBA8 = 1,
    /* 4 native-endian uint16 per pixel, as RGBA8. */
    PF_TIFF_OUTPUT_RGBA16 = 2,
};

typedef struct pf_tiff_page_info {
    uint32_t width;
    uint32_t height;
    /* As stored: BitsPerSample and SamplesPerPixel. */
    int bits_per_sample;
    int samples_per_pixel;
    /* PF_TIFF_MODEL_* */
    int color_model;
    /* Non-zero when an extra sample is associated or unassociated alpha. */
    int has_alpha;
    /* The Orientation tag, 1...8 (1 when absent or out of range). */
    int orientation;
    /* PF_TIFF_OUTPUT_*; only meaningful when `supported` is non-zero. */
    int output;
    /* Non-zero when the output holds C, M, Y, K instead of R, G, B, A. */
    int is_cmyk;
    /* Zero when PixelFlow cannot read this page; the message says why. */
    int supported;
    /* Tile size, or 0 x 0 for a striped page. */
    uint32_t tile_width;
    uint32_t tile_height;
    /* The ICC profile (tag 34675) and XMP packet (tag 700) as libtiff holds them, valid until
       the next call on the decoder; NULL and 0 when absent. */
    const uint8_t *icc;
    uint32_t icc_size;
    const uint8_t *xmp;
    uint32_t xmp_size;
} pf_tiff_page_info;

typedef struct pf_tiff_decoder pf_tiff_decoder;

/* Opens the TIFF in `size` bytes at `data` (not copied; kept alive by the caller until
   pf_tiff_decoder_destroy) and reads its first directory. No single allocation of libtiff
   may exceed `maximum_allocation` bytes. On success `*decoder` must be destroyed. */
int pf_tiff_decoder_open(const uint8_t *data, size_t size, int64_t maximum_allocation,
                         pf_tiff_decoder **decoder, char *message);
/* The same over `size` bytes of the open file `fd`, read with pread as libtiff needs them
   (no mapping); the caller keeps `fd` open until the decoder is destroyed. */
int pf_tiff_decoder_open_fd(int fd, uint64_t size, int64_t maximum_allocation,
                            pf_tiff_decoder **result, char *message);
void pf_tiff_decoder_destroy(pf_tiff_decoder *decoder);

/* Counts the directories (pages) by reading them one after the other, and stops as soon as
   the count exceeds `limit` (then `*count` is limit + 1). A directory that cannot be read
   ends the chain (the pages before it count). libtiff refuses directory loops. */
int pf_tiff_count_pages(pf_tiff_decoder *decoder, uint32_t limit, uint32_t *count, char *message);

/* Makes page `index` current and describes it. A page PixelFlow cannot read is reported with
   `supported` 0 and the reason in `message`, and the status PF_OK. Corrupt directories or
   strip and tile layouts whose sizes overflow are errors. */
int pf_tiff_read_page_info(pf_tiff_decoder *decoder, uint32_t index, pf_tiff_page_info *info,
                           char *message);

/* Decodes the current page into `pixels`, rows `stride` bytes apart, in the layout
   `info.output` said. Associated alpha is un-premultiplied; MinIsWhite is inverted; palette
   indices are looked up (colormap scaled to 8 bits). */
int pf_tiff_read_pixels(pf_tiff_decoder *decoder, uint8_t *pixels, size_t stride, char *message);

/* Prepares to hand out the rows of the current page top to bottom with pf_tiff_rows_read,
   with exactly the bytes pf_tiff_read_pixels gives: a band (one strip of every plane, or one
   row of tiles) is decoded at a time by the same code. `*streamable` is 0 (and the status
   PF_OK, the reason in `message`) when the page is read through libtiff's RGBA interface
   or has bands taller than `maximum_band_rows` or needing more than
   `maximum_band_bytes` of buffers; the page must then be decoded with pf_tiff_read_pixels
   after pf_tiff_read_page_info again. CMYK rows are ink values, as pf_tiff_read_pixels gives. Errors are those of a corrupt strip or tile layout. */
int pf_tiff_rows_begin(pf_tiff_decoder *decoder, uint32_t maximum_band_rows, uint64_t maximum_band_bytes,
                       int *streamable, char *message);

/* Decodes the next `count` rows, row i into rows[i] (width times 1, 4 or 8 bytes, as
   `info.output` says). After an error the decoder reads no more rows. */
int pf_tiff_rows_read(pf_tiff_decoder *decoder, uint8_t *const *rows, uint32_t count, char *message);

/* Sample layouts the TIFF encoder accepts. */
enum {
    /* 1 byte per pixel, written as 8-bit gray. */
    PF_TIFF_INPUT_GRAY8 = 0,
    /* 4 bytes per pixel RGBA, written as 8-bit RGB (alpha dropped). */
    PF_TIFF_INPUT_RGBA8_AS_RGB = 1,
    /* 4 bytes per pixel RGBA, written as 8-bit RGBA with unassociated alpha. */
    PF_TIFF_INPUT_RGBA8 = 2,
    /* 4 native-endian uint16 per pixel, written as 16-bit RGB. */
    PF_TIFF_INPUT_RGBA16_AS_RGB = 3,
    /* 4 native-endian uint16 per pixel, written as 16-bit RGBA with unassociated alpha. */
    PF_TIFF_INPUT_RGBA16 = 4,
};

/* Compressions of the TIFF encoder. */
enum {
    PF_TIFF_COMPRESSION_NONE = 0,
    /* LZW with horizontal differencing (Predictor 2). */
    PF_TIFF_COMPRESSION_LZW = 1,
    /* Adobe Deflate (8) with horizontal differencing. */
    PF_TIFF_COMPRESSION_DEFLATE = 2,
    PF_TIFF_COMPRESSION_PACKBITS = 3,
    /* New-style JPEG (7), 8-bit input only; RGB is stored as YCbCr 4:2:0. */
    PF_TIFF_COMPRESSION_JPEG = 4,
};

/* Encodes one page into a malloc'd buffer returned in `*output` (free with pf_free) of
   `*output_size` bytes, strips of about 64 KiB. `quality` (1...100) is used by JPEG.
   `icc` and `xmp` (either may be NULL) are written as tags 34675 and 700. */
int pf_tiff_encode(const uint8_t *pixels, size_t stride, uint32_t width, uint32_t height,
                   int input, int compression, int quality,
                   const uint8_t *icc, size_t icc_size, const uint8_t *xmp, size_t xmp_size,
                   uint8_t **output, size_t *output_size, char *message);

typedef struct pf_tiff_encoder pf_tiff_encoder;

/* Starts a one-page TIFF written to `fd` (open for reading and writing, seekable, empty)
   row by row, with exactly the bytes pf_tiff_encode gives for the same pixels and settings.
   `input` is PF_TIFF_INPUT_GRAY8, PF_TIFF_INPUT_RGBA8 or PF_TIFF_INPUT_RGBA16: RGBA rows are
   written as RGB while every alpha so far is the maximum (pf_tiff_encode's rule); meanwhile
   each RGB row also goes to a spill file made (and unlinked at once) in `spill_folder`. At
   the first alpha below the maximum, the RGB file is dropped, `fd` truncated, and the rows
   so far are written again as RGBA from the spill file. `icc` and `xmp` are copied. The
   descriptor is never closed. On success `*encoder` must be destroyed. */
int pf_tiff_encoder_create(int fd, uint32_t width, uint32_t height, int input, int compression, int quality,
                           const uint8_t *icc, size_t icc_size, const uint8_t *xmp, size_t xmp_size,
                           const char *spill_folder, pf_tiff_encoder **encoder, char *message);

/* Writes the next `count` rows, `stride` bytes apart. PF_IO_ERROR for a failed write or read
   of the file or the spill file; after any error the encoder writes nothing more. */
int pf_tiff_encoder_write_rows(pf_tiff_encoder *encoder, const uint8_t *pixels, size_t stride, uint32_t count,
                               char *message);

/* Writes the directory once every row was written. */
int pf_tiff_encoder_finish(pf_tiff_encoder *encoder, char *message);

/* Frees the encoder; an unfinished file is left as it is (the caller removes it). */
void pf_tiff_encoder_destroy(pf_tiff_encoder *encoder);

#endif
