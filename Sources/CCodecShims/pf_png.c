/* libpng shims: every entry point owns its setjmp, so libpng's longjmp never leaves C. */
#include "CCodecShims.h"
#include "pf_deflate.h"
#include "pf_png_filter.h"

#include <errno.h>
#include <libdeflate.h>
#include <png.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zlib.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define PF_LITTLE_ENDIAN 0
#else
#define PF_LITTLE_ENDIAN 1
#endif

/* Where the current call wants its error message. */
typedef struct pf_png_error_context {
    char *message;
    /* Memory the current call must free if libpng fails (freed before the longjmp). */
    void *owned;
} pf_png_error_context;

static void pf_copy_message(char *message, const char *text) {
    if (message == NULL) return;
    if (text == NULL) text = "unknown error";
    strncpy(message, text, PF_MESSAGE_CAPACITY - 1);
    message[PF_MESSAGE_CAPACITY - 1] = '\0';
}

static void pf_png_error(png_structp png, png_const_charp text) {
    pf_png_error_context *context = (pf_png_error_context *)png_get_error_ptr(png);
    if (context != NULL) {
        pf_copy_message(context->message, text);
        free(context->owned);
        context->owned = NULL;
    }
    /* Never returns: libpng's default handler (which prints) is never reached. */
    png_longjmp(png, 1);
}

static void pf_png_warning(png_structp png, png_const_charp text) {
    (void)png;
    (void)text;
}

/* ---- decoding ---- */

struct pf_png_decoder {
    pf_png_error_context error;
    /* The file's bytes in memory, or NULL when they are read from `fd` with pread. */
    const uint8_t *data;
    int fd;
    size_t size;
    size_t offset;
    png_structp png;
    png_infop info;
    int header_read;
    int pixels_read;
    /* Row-by-row decoding: started, rows read so far, and whether a call failed (libpng's
       state is then undefined, so every later call fails too). */
    int rows_started;
    png_uint_32 rows_read;
    int failed;
    /* 0 when pf_png_read_pixels must not try the direct path (tests compare the two). */
    int direct_allowed;
    /* 1 once pf_png_read_pixels has decoded the image through the direct path. */
    int decoded_directly;
};

static void pf_png_read_data(png_structp png, png_bytep out, size_t count) {
    pf_png_decoder *decoder = (pf_png_decoder *)png_get_io_ptr(png);
    if (count > decoder->size - decoder->offset) png_error(png, "the file is truncated");
    if (decoder->fd >= 0) {
        /* Positional reads: decoders sharing the descriptor never move each other's offset. */
        size_t done = 0;
        while (done < count) {
            ssize_t n = pread(decoder->fd, out + done, count - done, (off_t)(decoder->offset + done));
            if (n < 0) {
                if (errno == EINTR) continue;
                png_error(png, "cannot read the file");
            }
            if (n == 0) png_error(png, "the file is truncated");
            done += (size_t)n;
        }
    } else {
        memcpy(out, decoder->data + decoder->offset, count);
    }
    decoder->offset += count;
}

pf_png_decoder *pf_png_decoder_create(const uint8_t *data, size_t size) {
    pf_png_decoder *decoder = (pf_png_decoder *)calloc(1, sizeof *decoder);
    if (decoder == NULL) return NULL;
    decoder->data = data;
    decoder->size = size;
    decoder->fd = -1;
    decoder->direct_allowed = 1;
    decoder->png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &decoder->error, pf_png_error,
                                          pf_png_warning);
    if (decoder->png == NULL) {
        free(decoder);
        return NULL;
    }
    decoder->info = png_create_info_struct(decoder->png);
    if (decoder->info == NULL) {
        png_destroy_read_struct(&decoder->png, NULL, NULL);
        free(decoder);
        return NULL;
    }
    return decoder;
}

pf_png_decoder *pf_png_decoder_create_fd(int fd, uint64_t size) {
    pf_png_decoder *decoder = pf_png_decoder_create(NULL, (size_t)size);
    if (decoder != NULL) decoder->fd = fd;
    return decoder;
}

void pf_png_decoder_set_direct(pf_png_decoder *decoder, int allowed) { decoder->direct_allowed = allowed != 0; }
int pf_png_decoder_decoded_directly(const pf_png_decoder *decoder) { return decoder->decoded_directly; }

void pf_png_decoder_destroy(pf_png_decoder *decoder) {
    if (decoder == NULL) return;
    png_destroy_read_struct(&decoder->png, &decoder->info, NULL);
    free(decoder);
}

int pf_png_read_header(pf_png_decoder *decoder, pf_png_header *header, char *message) {
    png_structp png = decoder->png;
    png_infop info = decoder->info;
    decoder->error.message = message;
    if (decoder->header_read) {
        pf_copy_message(message, "the header was already read");
        return PF_ERROR;
    }
    decoder->header_read = 1;
    if (setjmp(png_jmpbuf(png))) return PF_ERROR;

    /* The caller checks the size against its own limits; libpng's only stop the absurd. */
    png_set_user_limits(png, 0x7fffffffU, 0x7fffffffU);
    /* Bound the ancillary chunks: count, and bytes per chunk (including inflated zTXt). */
    png_set_chunk_cache_max(png, 256);
    png_set_chunk_malloc_max(png, 8u << 20);
    /* Chunks PixelFlow does not use are skipped without being buffered or inflated. */
    static const png_byte skipped[] = "tEXt\0zTXt\0iTXt\0sPLT\0";
    png_set_keep_unknown_chunks(png, PNG_HANDLE_CHUNK_NEVER, skipped, 4);
    png_set_keep_unknown_chunks(png, PNG_HANDLE_CHUNK_NEVER, NULL, 0);
    png_set_read_fn(png, decoder, pf_png_read_data);
    png_read_info(png, info);

    header->width = png_get_image_width(png, info);
    header->height = png_get_image_height(png, info);
    header->bit_depth = png_get_bit_depth(png, info);
    header->color_type = png_get_color_type(png, info);
    header->interlaced = png_get_interlace_type(png, info) != PNG_INTERLACE_NONE;
    header->has_transparency = png_get_valid(png, info, PNG_INFO_tRNS) != 0;
    return PF_OK;
}

/* Sets libpng's transformations for the `output` layout (PF_PNG_OUTPUT_*) and updates the
   info; returns the number of passes. The one place both pf_png_read_pixels and
   pf_png_start_rows configure the output, so that their rows are the same. Errors longjmp. */
static int pf_png_set_output(png_structp png, png_infop info, int output) {
    png_uint_32 width = png_get_image_width(png, info);
    int bit_depth = png_get_bit_depth(png, info);
    int color_type = png_get_color_type(png, info);
    int has_trns = png_get_valid(png, info, PNG_INFO_tRNS) != 0;
    size_t bytes_per_pixel = 0;

    if (output == PF_PNG_OUTPUT_GRAY8) {
        if (color_type != PNG_COLOR_TYPE_GRAY || bit_depth > 8 || has_trns)
            png_error(png, "gray8 output needs a gray image of at most 8 bits without tRNS");
        if (bit_depth < 8) png_set_expand_gray_1_2_4_to_8(png);
        bytes_per_pixel = 1;
    } else if (output == PF_PNG_OUTPUT_RGBA8 || output == PF_PNG_OUTPUT_RGBA16) {
        int sixteen = output == PF_PNG_OUTPUT_RGBA16;
        /* Palette to RGB, low-bit gray to 8 bits, tRNS to an alpha channel. */
        png_set_expand(png);
        if (sixteen && bit_depth < 16) png_set_expand_16(png);
        if (!sixteen && bit_depth == 16) png_set_strip_16(png);
        if (color_type == PNG_COLOR_TYPE_GRAY || color_type == PNG_COLOR_TYPE_GRAY_ALPHA)
            png_set_gray_to_rgb(png);
        if ((color_type & PNG_COLOR_MASK_ALPHA) == 0 && !has_trns)
            png_set_add_alpha(png, sixteen ? 0xffff : 0xff, PNG_FILLER_AFTER);
        if (sixteen && PF_LITTLE_ENDIAN) png_set_swap(png);
        bytes_per_pixel = sixteen ? 8 : 4;
    } else {
        png_error(png, "unknown output layout");
    }

    int passes = png_set_interlace_handling(png);
    png_read_update_info(png, info);
    if (png_get_rowbytes(png, info) != (size_t)width * bytes_per_pixel)
        png_error(png, "unexpected row size after transformations");
    return passes;
}

/* ---- direct decoding of non-interlaced 8- and 16-bit images and 8-bit palettes ----

   libpng inflates the image data a row at a time through zlib (whose adler32 is plain C) and
   unfilters in plain C. For the common layouts (gray, gray-alpha, RGB, RGBA without tRNS at
   8 and 16 bits; 8-bit palettes with or without tRNS) PixelFlow instead gathers the IDAT chunks,
   checking each CRC as libpng does, inflates them in one call to libdeflate (which checks the
   adler32), unfilters with pf_png_unfilter_row and converts each row to the output layout,
   giving the bytes libpng's transformations give. Anything unusual (another layout, a bad
   CRC or zlib stream, a filter byte above 4, a palette index past the palette, too little or
   too much image data, no memory)
   makes it step aside before writing a pixel that could be mistaken for a result: libpng then
   decodes the file from where its header ended, with its own checks and error messages. */

/* The most decompressed bytes (filter bytes included) decoded directly; larger images go
   through libpng, whose memory is a row, not a second copy of the image. */
#define PF_PNG_DIRECT_MAX_RAW ((size_t)128 << 20)

/* A buffer of `size` bytes for the direct path; `*mapped` is what pf_png_big_free needs.
   Large ones are mapped with transparent huge pages where Linux has them: the buffers are
   written once from end to end, and at 4 KiB a page their page faults were a quarter of the
   decode's time (1920x1080 RGBA: 27.3 ms of CPU per decode with malloc, 21.0 with huge
   pages). */
static void *pf_png_big_alloc(size_t size, size_t *mapped) {
    *mapped = 0;
#if defined(MADV_HUGEPAGE)
    const size_t huge = (size_t)2 << 20;
    if (size >= huge / 2 && size <= ((size_t)-1) - huge) {
        size_t length = (size + huge - 1) & ~(huge - 1);
        void *p = mmap(NULL, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p != MAP_FAILED) {
            (void)madvise(p, length, MADV_HUGEPAGE); /* advice only: a refusal changes nothing */
            *mapped = length;
            return p;
        }
    }
#endif
    return malloc(size ? size : 1);
}

static void pf_png_big_free(void *p, size_t mapped) {
    if (p == NULL) return;
    if (mapped) munmap(p, mapped);
    else free(p);
}

/* Reads `count` bytes at `offset` of the decoder's file; 0 on success, -1 past the end or
   on a read error. */
static int pf_png_read_at(const pf_png_decoder *decoder, size_t offset, uint8_t *out, size_t count) {
    if (offset > decoder->size || count > decoder->size - offset) return -1;
    if (decoder->fd < 0) {
        memcpy(out, decoder->data + offset, count);
        return 0;
    }
    size_t done = 0;
    while (done < count) {
        ssize_t n = pread(decoder->fd, out + done, count - done, (off_t)(offset + done));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return -1;
        done += (size_t)n;
    }
    return 0;
}

static uint32_t pf_be32(const uint8_t *p) {
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}

/* The image data of every IDAT chunk from the one whose data starts at `offset` (libpng's
   position after png_read_info), each chunk's CRC checked, in a malloc'd buffer; NULL when a
   chunk is cut short, a CRC is wrong, a read fails or memory runs out. */
static uint8_t *pf_png_gather_idat(const pf_png_decoder *decoder, size_t offset, size_t *size_out,
                                   size_t *mapped) {
    uint8_t head[8];
    if (offset < 8 || pf_png_read_at(decoder, offset - 8, head, 8) != 0 || memcmp(head + 4, "IDAT", 4) != 0)
        return NULL;
    size_t capacity = decoder->size - offset;
    uint8_t *data = (uint8_t *)pf_png_big_alloc(capacity, mapped);
    if (data == NULL) return NULL;
    size_t size = 0;
    uint32_t type_crc = libdeflate_crc32(0, "IDAT", 4);
    for (;;) {
        uint32_t length = pf_be32(head);
        uint8_t crc[4];
        if (length > 0x7fffffffU || length > capacity - size ||
            pf_png_read_at(decoder, offset, data + size, length) != 0 ||
            pf_png_read_at(decoder, offset + length, crc, 4) != 0 ||
            libdeflate_crc32(type_crc, data + size, length) != pf_be32(crc)) {
            pf_png_big_free(data, *mapped);
            return NULL;
        }
        size += length;
        offset += (size_t)length + 4;
        /* The image data ends at the first other chunk (or the end of the file). */
        if (pf_png_read_at(decoder, offset, head, 8) != 0 || memcmp(head + 4, "IDAT", 4) != 0) break;
        offset += 8;
    }
    *size_out = size;
    return data;
}

/* Unfiltered rows of `channels` samples of `depth` bits to the output layout: 8-bit RGB and
   gray-alpha to RGBA with an opaque alpha, 16-bit big-endian samples to native-endian RGBA16
   (gray repeated, an opaque alpha where there is none), as libpng's transformations do. */
static void pf_png_convert_row(const uint8_t *src, uint8_t *dst, size_t width, int channels, int depth) {
    if (depth == 8) {
        if (channels == 3) {
            for (size_t x = 0; x < width; x++) {
                dst[4 * x] = src[3 * x];
                dst[4 * x + 1] = src[3 * x + 1];
                dst[4 * x + 2] = src[3 * x + 2];
                dst[4 * x + 3] = 0xff;
            }
        } else { /* gray and alpha */
            for (size_t x = 0; x < width; x++) {
                uint8_t g = src[2 * x];
                dst[4 * x] = g;
                dst[4 * x + 1] = g;
                dst[4 * x + 2] = g;
                dst[4 * x + 3] = src[2 * x + 1];
            }
        }
        return;
    }
    uint16_t *out = (uint16_t *)(void *)dst;
    for (size_t x = 0; x < width; x++) {
        const uint8_t *p = src + 2 * (size_t)channels * x;
        uint16_t s0 = (uint16_t)((p[0] << 8) | p[1]);
        uint16_t r = s0, g = s0, b = s0, a = 0xffff;
        if (channels >= 3) {
            g = (uint16_t)((p[2] << 8) | p[3]);
            b = (uint16_t)((p[4] << 8) | p[5]);
        }
        if (channels == 4) a = (uint16_t)((p[6] << 8) | p[7]);
        if (channels == 2) a = (uint16_t)((p[2] << 8) | p[3]);
        out[4 * x] = r;
        out[4 * x + 1] = g;
        out[4 * x + 2] = b;
        out[4 * x + 3] = a;
    }
}

/* Decodes the whole image directly into `pixels` (see above). Returns PF_OK, or PF_ERROR when
   the caller must decode with libpng instead (`pixels` may then hold partial rows, which
   libpng overwrites). */
static int pf_png_read_pixels_direct(pf_png_decoder *decoder, int output, uint8_t *pixels, size_t stride) {
    png_structp png = decoder->png;
    png_infop info = decoder->info;
    size_t width = png_get_image_width(png, info), height = png_get_image_height(png, info);
    int depth = png_get_bit_depth(png, info), color_type = png_get_color_type(png, info);
    int palette = color_type == PNG_COLOR_TYPE_PALETTE;
    /* tRNS only with a palette (it is part of the palette's table below). */
    if (png_get_interlace_type(png, info) != PNG_INTERLACE_NONE ||
        (png_get_valid(png, info, PNG_INFO_tRNS) && !palette))
        return PF_ERROR;
    int channels;
    switch (color_type) {
    case PNG_COLOR_TYPE_GRAY: channels = 1; break;
    case PNG_COLOR_TYPE_GRAY_ALPHA: channels = 2; break;
    case PNG_COLOR_TYPE_RGB: channels = 3; break;
    case PNG_COLOR_TYPE_RGB_ALPHA: channels = 4; break;
    case PNG_COLOR_TYPE_PALETTE: channels = 1; break;
    default: return PF_ERROR;
    }
    int gray8 = output == PF_PNG_OUTPUT_GRAY8 && channels == 1 && depth == 8 && !palette;
    int rgba8 = output == PF_PNG_OUTPUT_RGBA8 && (channels >= 2 || palette) && depth == 8;
    int rgba16 = output == PF_PNG_OUTPUT_RGBA16 && depth == 16;
    if (!(gray8 || rgba8 || rgba16)) return PF_ERROR;
    /* An 8-bit palette's RGBA entries: alpha from tRNS (255 past its end), as png_set_expand
       gives; indices past the palette's end go to libpng. */
    uint8_t table[256][4];
    int palette_size = 0;
    if (palette) {
        png_colorp colors = NULL;
        png_bytep alphas = NULL;
        int alpha_count = 0;
        if (png_get_PLTE(png, info, &colors, &palette_size) == 0 || colors == NULL || palette_size <= 0 ||
            palette_size > 256)
            return PF_ERROR;
        if (png_get_tRNS(png, info, &alphas, &alpha_count, NULL) == 0 || alphas == NULL) alpha_count = 0;
        for (int i = 0; i < palette_size; i++) {
            table[i][0] = colors[i].red;
            table[i][1] = colors[i].green;
            table[i][2] = colors[i].blue;
            table[i][3] = i < alpha_count ? alphas[i] : 0xff;
        }
    }
    int bpp = channels * depth / 8;
    size_t row_bytes = width * (size_t)bpp;
    /* The dimensions are checked against the decode limits, so these products do not wrap. */
    if (width == 0 || height == 0 || row_bytes + 1 > PF_PNG_DIRECT_MAX_RAW / height) return PF_ERROR;
    size_t raw_size = (row_bytes + 1) * height;

    size_t compressed_size = 0, compressed_mapped = 0, raw_mapped = 0;
    uint8_t *compressed = pf_png_gather_idat(decoder, decoder->offset, &compressed_size, &compressed_mapped);
    if (compressed == NULL) return PF_ERROR;
    uint8_t *raw = (uint8_t *)pf_png_big_alloc(raw_size, &raw_mapped);
    struct libdeflate_decompressor *inflater = raw ? libdeflate_alloc_decompressor() : NULL;
    size_t inflated = 0;
    int status = inflater != NULL &&
                 libdeflate_zlib_decompress(inflater, compressed, compressed_size, raw, raw_size, &inflated) ==
                     LIBDEFLATE_SUCCESS &&
                 inflated == raw_size
                     ? PF_OK
                     : PF_ERROR;
    libdeflate_free_decompressor(inflater);
    pf_png_big_free(compressed, compressed_mapped);

    /* 8-bit RGBA and gray rows unfilter straight into `pixels`; the others in place in `raw`,
       then convert. */
    int direct = channels == 4 ? depth == 8 : gray8;
    for (size_t y = 0; status == PF_OK && y < height; y++) {
        uint8_t *row = raw + y * (row_bytes + 1);
        uint8_t *out = pixels + y * stride;
        if (direct) {
            const uint8_t *prev = y > 0 ? out - stride : NULL;
            if (pf_png_unfilter_row(row[0], row + 1, prev, out, row_bytes, bpp) != 0) status = PF_ERROR;
        } else {
            const uint8_t *prev = y > 0 ? row - row_bytes : NULL;
            if (pf_png_unfilter_row(row[0], row + 1, prev, row + 1, row_bytes, bpp) != 0) status = PF_ERROR;
            else if (!palette) pf_png_convert_row(row + 1, out, width, channels, depth);
            else {
                for (size_t x = 0; x < width; x++) {
                    uint8_t index = row[1 + x];
                    if (index >= palette_size) {
                        status = PF_ERROR;
                        break;
                    }
                    memcpy(out + 4 * x, table[index], 4);
                }
            }
        }
    }
    pf_png_big_free(raw, raw_mapped);
    return status;
}

int pf_png_read_pixels(pf_png_decoder *decoder, int output, uint8_t *pixels, size_t stride,
                       char *message) {
    png_structp png = decoder->png;
    png_infop info = decoder->info;
    decoder->error.message = message;
    if (!decoder->header_read || decoder->pixels_read || decoder->rows_started) {
        pf_copy_message(message, "pixels read out of order");
        return PF_ERROR;
    }
    decoder->pixels_read = 1;
    if (setjmp(png_jmpbuf(png))) return PF_ERROR;

    if (decoder->direct_allowed && pf_png_read_pixels_direct(decoder, output, pixels, stride) == PF_OK) {
        decoder->decoded_directly = 1;
        return PF_OK;
    }

    png_uint_32 height = png_get_image_height(png, info);
    int passes = pf_png_set_output(png, info, output);

    /* With interlacing each pass fills in its pixels of every row, in place. */
    for (int pass = 0; pass < passes; pass++) {
        for (png_uint_32 y = 0; y < height; y++) {
            png_read_row(png, pixels + (size_t)y * stride, NULL);
        }
    }
    /* The chunks after the image data (and IEND) are not needed: a file missing them still
       decodes, as in most viewers. */
    return PF_OK;
}

int pf_png_start_rows(pf_png_decoder *decoder, int output, char *message) {
    png_structp png = decoder->png;
    png_infop info = decoder->info;
    decoder->error.message = message;
    if (!decoder->header_read || decoder->pixels_read || decoder->rows_started || decoder->failed) {
        pf_copy_message(message, "rows started out of order");
        return PF_ERROR;
    }
    decoder->rows_started = 1;
    if (setjmp(png_jmpbuf(png))) {
        decoder->failed = 1;
        return PF_ERROR;
    }
    if (png_get_interlace_type(png, info) != PNG_INTERLACE_NONE)
        png_error(png, "an interlaced PNG cannot be read row by row");
    if (pf_png_set_output(png, info, output) != 1)
        png_error(png, "an interlaced PNG cannot be read row by row");
    return PF_OK;
}

int pf_png_read_rows(pf_png_decoder *decoder, uint8_t *const *rows, uint32_t count, char *message) {
    png_structp png = decoder->png;
    png_infop info = decoder->info;
    decoder->error.message = message;
    if (!decoder->rows_started || decoder->failed) {
        pf_copy_message(message, decoder->failed ? "an earlier error stopped the decoder" : "rows read before start");
        return PF_ERROR;
    }
    if (count > png_get_image_height(png, info) - decoder->rows_read) {
        pf_copy_message(message, "more rows read than the image has");
        return PF_ERROR;
    }
    if (setjmp(png_jmpbuf(png))) {
        decoder->failed = 1;
        return PF_ERROR;
    }
    for (uint32_t i = 0; i < count; i++) {
        png_read_row(png, rows[i], NULL);
        decoder->rows_read++;
    }
    return PF_OK;
}

/* ---- encoding ---- */

typedef struct pf_png_output {
    pf_png_error_context error;
    uint8_t *data;
    size_t size;
    size_t capacity;
} pf_png_output;

/* Appends `count` bytes to a growable output buffer; errors longjmp through `png`. */
static void pf_png_append(png_structp png, pf_png_output *output, png_const_bytep bytes, size_t count) {
    if (count > output->capacity - output->size) {
        size_t capacity = output->capacity ? output->capacity : 65536;
        while (count > capacity - output->size) {
            if (capacity > ((size_t)-1) / 2) png_error(png, "output too large");
            capacity *= 2;
        }
        uint8_t *grown = (uint8_t *)realloc(output->data, capacity);
        if (grown == NULL) png_error(png, "out of memory");
        output->data = grown;
        output->capacity = capacity;
    }
    memcpy(output->data + output->size, bytes, count);
    output->size += count;
}

static void pf_png_write_data(png_structp png, png_bytep bytes, size_t count) {
    pf_png_append(png, (pf_png_output *)png_get_io_ptr(png), bytes, count);
}

static void pf_png_flush(png_structp png) { (void)png; }

int pf_png_copy_icc(pf_png_decoder *decoder, uint8_t **icc, size_t *icc_size) {
    *icc = NULL;
    *icc_size = 0;
    if (!decoder->header_read) return PF_ERROR;
    png_charp name = NULL;
    int compression = 0;
    png_bytep profile = NULL;
    png_uint_32 length = 0;
    if (png_get_iCCP(decoder->png, decoder->info, &name, &compression, &profile, &length) == 0 ||
        profile == NULL || length == 0)
        return PF_OK;
    uint8_t *copy = malloc(length);
    if (copy == NULL) return PF_OUT_OF_MEMORY;
    memcpy(copy, profile, length);
    *icc = copy;
    *icc_size = length;
    return PF_OK;
}

/* The bit depth, color type and whether the alpha channel is dropped for an input layout
   (PF_PNG_INPUT_*); 0 for an unknown layout. */
static int pf_png_input_layout(int input, int *bit_depth, int *color_type, int *strip_alpha) {
    *strip_alpha = 0;
    switch (input) {
    case PF_PNG_INPUT_GRAY8: *bit_depth = 8; *color_type = PNG_COLOR_TYPE_GRAY; return 1;
    case PF_PNG_INPUT_RGBA8_AS_RGB: *bit_depth = 8; *color_type = PNG_COLOR_TYPE_RGB; *strip_alpha = 1; return 1;
    case PF_PNG_INPUT_RGBA8: *bit_depth = 8; *color_type = PNG_COLOR_TYPE_RGBA; return 1;
    case PF_PNG_INPUT_RGBA16_AS_RGB: *bit_depth = 16; *color_type = PNG_COLOR_TYPE_RGB; *strip_alpha = 1; return 1;
    case PF_PNG_INPUT_RGBA16: *bit_depth = 16; *color_type = PNG_COLOR_TYPE_RGBA; return 1;
    default: return 0;
    }
}

/* Sets the header and the metadata chunks, writes everything before the image data and sets
   the row transformations: the settings both encoders share, so that they write the same
   bytes. Returns the number of passes. Errors longjmp. */
static int pf_png_start_write(png_structp png, png_infop info, uint32_t width, uint32_t height,
                              int input, int interlaced, int compression_level,
                              const pf_metadata_blocks *metadata, int srgb_chunk) {
    int bit_depth, color_type, strip_alpha;
    pf_png_input_layout(input, &bit_depth, &color_type, &strip_alpha);
    png_set_IHDR(png, info, width, height, bit_depth, color_type,
                 interlaced ? PNG_INTERLACE_ADAM7 : PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_set_compression_level(png, compression_level);
    if (srgb_chunk) png_set_sRGB(png, info, PNG_sRGB_INTENT_PERCEPTUAL);
    if (metadata != NULL) {
        if (metadata->icc != NULL && metadata->icc_size > 0 && !srgb_chunk) {
            if (metadata->icc_size > 0x7fffffffU) png_error(png, "the ICC profile is too large");
            png_set_iCCP(png, info, "ICC profile", PNG_COMPRESSION_TYPE_BASE, metadata->icc,
                         (png_uint_32)metadata->icc_size);
        }
        if (metadata->exif != NULL && metadata->exif_size > 0) {
            if (metadata->exif_size > 0x7fffffffU) png_error(png, "the EXIF block is too large");
            png_set_eXIf_1(png, info, (png_uint_32)metadata->exif_size, (png_bytep)metadata->exif);
        }
        if (metadata->xmp != NULL && metadata->xmp_size > 0) {
            /* png_set_text copies the text with strlen: give it a NUL-terminated copy (an XMP
               packet is XML, so it holds no NUL of its own). */
            pf_png_error_context *context = (pf_png_error_context *)png_get_error_ptr(png);
            char *xmp = (char *)malloc(metadata->xmp_size + 1);
            if (xmp == NULL) png_error(png, "out of memory");
            memcpy(xmp, metadata->xmp, metadata->xmp_size);
            xmp[metadata->xmp_size] = '\0';
            context->owned = xmp;
            png_text text;
            memset(&text, 0, sizeof text);
            text.compression = PNG_ITXT_COMPRESSION_NONE;
            text.key = "XML:com.adobe.xmp";
            text.text = xmp;
            text.lang = "";
            text.lang_key = "";
            png_set_text(png, info, &text, 1);
            context->owned = NULL;
            free(xmp);
        }
    }
    png_write_info(png, info);
    if (bit_depth == 16 && PF_LITTLE_ENDIAN) png_set_swap(png);
    if (strip_alpha) png_set_filler(png, 0, PNG_FILLER_AFTER);
    return png_set_interlace_handling(png);
}

int pf_png_encode(const uint8_t *pixels, size_t stride, uint32_t width, uint32_t height,
                  int input, int interlaced, int compression_level,
                  const pf_metadata_blocks *metadata, int srgb_chunk,
                  uint8_t **output, size_t *output_size, char *message) {
    pf_png_output out;
    memset(&out, 0, sizeof out);
    out.error.message = message;
    *output = NULL;
    *output_size = 0;

    int bit_depth, color_type, strip_alpha;
    if (!pf_png_input_layout(input, &bit_depth, &color_type, &strip_alpha)) {
        pf_copy_message(message, "unknown input layout");
        return PF_ERROR;
    }
    if (compression_level < 0 || compression_level > 9) {
        pf_copy_message(message, "compression level must be in 0...9");
        return PF_ERROR;
    }

    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &out.error, pf_png_error,
                                              pf_png_warning);
    if (png == NULL) {
        pf_copy_message(message, "out of memory");
        return PF_OUT_OF_MEMORY;
    }
    png_infop info = png_create_info_struct(png);
    if (info == NULL) {
        png_destroy_write_struct(&png, NULL);
        pf_copy_message(message, "out of memory");
        return PF_OUT_OF_MEMORY;
    }
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        free(out.data);
        return PF_ERROR;
    }

    png_set_write_fn(png, &out, pf_png_write_data, pf_png_flush);
    int passes = pf_png_start_write(png, info, width, height, input, interlaced, compression_level,
                                    metadata, srgb_chunk);
    for (int pass = 0; pass < passes; pass++) {
        for (uint32_t y = 0; y < height; y++) {
            png_write_row(png, pixels + (size_t)y * stride);
        }
    }
    png_write_end(png, NULL);
    png_destroy_write_struct(&png, &info);

    *output = out.data;
    *output_size = out.size;
    return PF_OK;
}

/* ---- image data in chunks compressed in parallel ---- */

/* About this many filtered bytes per chunk (whole rows). */
#define PF_PNG_CHUNK_TARGET 262144u
/* Deflate's window: the dictionary of a chunk is the last this many filtered bytes above it. */
#define PF_PNG_WINDOW 32768u
/* Bytes of zlib stream per IDAT chunk (the last one holds the rest). */
#define PF_PNG_IDAT_SIZE 65536u
/* zlib takes sizes as uInt: longer buffers go in pieces of at most this. */
#define PF_ZLIB_PIECE (1u << 30)

/* Bytes per pixel of the input layout's packed PNG samples (the filters' bpp). */
static size_t pf_png_packed_pixel_bytes(int input) {
    switch (input) {
    case PF_PNG_INPUT_GRAY8: return 1;
    case PF_PNG_INPUT_RGBA8_AS_RGB: return 3;
    case PF_PNG_INPUT_RGBA8: return 4;
    case PF_PNG_INPUT_RGBA16_AS_RGB: return 6;
    default: return 8;
    }
}

int pf_png_chunking_for(uint32_t width, int input, pf_png_chunking *chunking) {
    int bit_depth, color_type, strip_alpha;
    memset(chunking, 0, sizeof *chunking);
    if (width == 0 || !pf_png_input_layout(input, &bit_depth, &color_type, &strip_alpha)) return PF_ERROR;
    size_t row_bytes = (size_t)width * pf_png_packed_pixel_bytes(input);
    size_t line = row_bytes + 1;
    size_t rows_per_chunk = PF_PNG_CHUNK_TARGET / line;
    if (rows_per_chunk < 1) rows_per_chunk = 1;
    chunking->row_bytes = row_bytes;
    chunking->rows_per_chunk = (uint32_t)rows_per_chunk;
    chunking->history_rows = (uint32_t)((PF_PNG_WINDOW + line - 1) / line + 1);
    return PF_OK;
}

/* The PNG samples of one row of `width` input pixels: alpha dropped for the _AS_RGB layouts,
   16-bit samples big-endian. Not called for gray8 and rgba8, whose rows are their samples. */
static void pf_png_pack_row(int input, const uint8_t *src, uint32_t width, uint8_t *dst) {
    size_t n = width;
    switch (input) {
    case PF_PNG_INPUT_RGBA8_AS_RGB:
        for (size_t x = 0; x < n; x++) {
            dst[3 * x] = src[4 * x];
            dst[3 * x + 1] = src[4 * x + 1];
            dst[3 * x + 2] = src[4 * x + 2];
        }
        break;
    case PF_PNG_INPUT_RGBA16_AS_RGB:
        for (size_t x = 0; x < n; x++) {
            for (size_t c = 0; c < 3; c++) {
                uint16_t v;
                memcpy(&v, src + 8 * x + 2 * c, 2);
                dst[6 * x + 2 * c] = (uint8_t)(v >> 8);
                dst[6 * x + 2 * c + 1] = (uint8_t)v;
            }
        }
        break;
    case PF_PNG_INPUT_RGBA16:
        for (size_t i = 0; i < 4 * n; i++) {
            uint16_t v;
            memcpy(&v, src + 2 * i, 2);
            dst[2 * i] = (uint8_t)(v >> 8);
            dst[2 * i + 1] = (uint8_t)v;
        }
        break;
    default:
        memcpy(dst, src, n * pf_png_packed_pixel_bytes(input));
        break;
    }
}

/* The heuristic's cost of a residual: its absolute value taken as a signed byte. */
static inline uint32_t pf_png_cost(uint8_t v) { return v < 128 ? v : 256u - v; }

/* The Paeth predictor of the PNG specification (section 9.4): of a (left), b (above) and
   c (above left), the one nearest a + b - c, ties to a then b. */
static inline int pf_png_paeth(int a, int b, int c) {
    int p = b - c, q = a - c;
    int pa = p < 0 ? -p : p, pb = q < 0 ? -q : q, pc = p + q < 0 ? -(p + q) : p + q;
    return (pa <= pb && pa <= pc) ? a : (pb <= pc ? b : c);
}

#if defined(__SSE2__)
/* The sums of pf_png_choose_filter for bytes [i, i + 16 * blocks) (i >= bpp), 16 at a time:
   the same residuals and costs, so the same sums. Average is (a + b) >> 1 = pavgb(a, b) minus
   the carry ((a ^ b) & 1); Paeth's distances are taken on 16-bit lanes. */
static void pf_png_filter_sums_sse2(const uint8_t *row, const uint8_t *prior, size_t i, size_t blocks, size_t bpp,
                                    uint64_t total[5]) {
    const __m128i zero = _mm_setzero_si128(), one = _mm_set1_epi8(1);
    __m128i sum[5] = {zero, zero, zero, zero, zero};
    for (size_t k = 0; k < blocks; k++, i += 16) {
        __m128i x = _mm_loadu_si128((const __m128i *)(row + i));
        __m128i a = _mm_loadu_si128((const __m128i *)(row + i - bpp));
        __m128i b = _mm_loadu_si128((const __m128i *)(prior + i));
        __m128i c = _mm_loadu_si128((const __m128i *)(prior + i - bpp));
        __m128i average = _mm_sub_epi8(_mm_avg_epu8(a, b), _mm_and_si128(_mm_xor_si128(a, b), one));
        __m128i paeth[2];
        for (int half = 0; half < 2; half++) {
            __m128i a16 = half ? _mm_unpackhi_epi8(a, zero) : _mm_unpacklo_epi8(a, zero);
            __m128i b16 = half ? _mm_unpackhi_epi8(b, zero) : _mm_unpacklo_epi8(b, zero);
            __m128i c16 = half ? _mm_unpackhi_epi8(c, zero) : _mm_unpacklo_epi8(c, zero);
            __m128i p = _mm_sub_epi16(b16, c16), q = _mm_sub_epi16(a16, c16), r = _mm_add_epi16(p, q);
            __m128i pa = _mm_max_epi16(p, _mm_sub_epi16(zero, p));
            __m128i pb = _mm_max_epi16(q, _mm_sub_epi16(zero, q));
            __m128i pc = _mm_max_epi16(r, _mm_sub_epi16(zero, r));
            /* a when pa <= pb and pa <= pc, else b when pb <= pc, else c. */
            __m128i not_a = _mm_or_si128(_mm_cmpgt_epi16(pa, pb), _mm_cmpgt_epi16(pa, pc));
            __m128i not_b = _mm_cmpgt_epi16(pb, pc);
            __m128i bc = _mm_or_si128(_mm_and_si128(not_b, c16), _mm_andnot_si128(not_b, b16));
            paeth[half] = _mm_or_si128(_mm_and_si128(not_a, bc), _mm_andnot_si128(not_a, a16));
        }
        __m128i predictions[5] = {zero, a, b, average, _mm_packus_epi16(paeth[0], paeth[1])};
        for (int t = 0; t < 5; t++) {
            __m128i v = _mm_sub_epi8(x, predictions[t]);
            __m128i cost = _mm_min_epu8(v, _mm_sub_epi8(zero, v));
            sum[t] = _mm_add_epi64(sum[t], _mm_sad_epu8(cost, zero));
        }
    }
    for (int t = 0; t < 5; t++) {
        uint64_t lanes[2];
        _mm_storeu_si128((__m128i *)lanes, sum[t]);
        total[t] += lanes[0] + lanes[1];
    }
}
#endif

/* The filter type (0 None, 1 Sub, 2 Up, 3 Average, 4 Paeth) whose residuals for `row` (`n`
   bytes, pixels `bpp` bytes apart) under `prior` have the least sum of costs, the lowest type
   on ties: the "minimum sum of absolute differences" heuristic of the PNG specification,
   section 12.8, as libpng applies it. */
static int pf_png_choose_filter(const uint8_t *row, const uint8_t *prior, size_t n, size_t bpp) {
    uint64_t total[5] = {0, 0, 0, 0, 0};
    size_t i = 0;
    /* The first pixel has no left neighbour (a = c = 0): Sub is None, Paeth is Up. */
    for (; i < bpp; i++) {
        int x = row[i], b = prior[i];
        total[0] += pf_png_cost((uint8_t)x);
        total[1] += pf_png_cost((uint8_t)x);
        total[2] += pf_png_cost((uint8_t)(x - b));
        total[3] += pf_png_cost((uint8_t)(x - (b >> 1)));
        total[4] += pf_png_cost((uint8_t)(x - b));
    }
#if defined(__SSE2__)
    if (n - i >= 16) {
        size_t blocks = (n - i) / 16;
        pf_png_filter_sums_sse2(row, prior, i, blocks, bpp, total);
        i += 16 * blocks;
    }
#endif
    /* In blocks whose 32-bit sums cannot overflow (at most 128 per byte). */
    while (i < n) {
        size_t end = n - i > ((size_t)1 << 22) ? i + ((size_t)1 << 22) : n;
        uint32_t s0 = 0, s1 = 0, s2 = 0, s3 = 0, s4 = 0;
        for (; i < end; i++) {
            int x = row[i], a = row[i - bpp], b = prior[i], c = prior[i - bpp];
            s0 += pf_png_cost((uint8_t)x);
            s1 += pf_png_cost((uint8_t)(x - a));
            s2 += pf_png_cost((uint8_t)(x - b));
            s3 += pf_png_cost((uint8_t)(x - ((a + b) >> 1)));
            s4 += pf_png_cost((uint8_t)(x - pf_png_paeth(a, b, c)));
        }
        total[0] += s0;
        total[1] += s1;
        total[2] += s2;
        total[3] += s3;
        total[4] += s4;
    }
    int best = 0;
    for (int type = 1; type < 5; type++)
        if (total[type] < total[best]) best = type;
    return best;
}

/* Writes the filter byte `type` and the residuals of `row` under `prior` to `out`. */
static void pf_png_apply_filter(int type, const uint8_t *row, const uint8_t *prior, size_t n, size_t bpp,
                                uint8_t *out) {
    out[0] = (uint8_t)type;
    uint8_t *d = out + 1;
    size_t i;
    switch (type) {
    case 1:
        for (i = 0; i < bpp; i++) d[i] = row[i];
        for (; i < n; i++) d[i] = (uint8_t)(row[i] - row[i - bpp]);
        break;
    case 2:
        for (i = 0; i < n; i++) d[i] = (uint8_t)(row[i] - prior[i]);
        break;
    case 3:
        for (i = 0; i < bpp; i++) d[i] = (uint8_t)(row[i] - (prior[i] >> 1));
        for (; i < n; i++) d[i] = (uint8_t)(row[i] - ((row[i - bpp] + prior[i]) >> 1));
        break;
    case 4:
        for (i = 0; i < bpp; i++) d[i] = (uint8_t)(row[i] - prior[i]);
        for (; i < n; i++) d[i] = (uint8_t)(row[i] - pf_png_paeth(row[i - bpp], prior[i], prior[i - bpp]));
        break;
    default:
        memcpy(d, row, n);
        break;
    }
}

/* Packs and filters `count` rows `stride` bytes apart from `first` into `out` (row_bytes + 1
   bytes each); `above` is the input row above the first, NULL at the top of the image (a row
   of zeros then, as the specification says). `scratch`: 3 * row_bytes zeroed bytes. */
static void pf_png_filter_rows(const uint8_t *first, size_t stride, const uint8_t *above, uint32_t width,
                               int input, size_t row_bytes, uint32_t count, int adaptive, uint8_t *scratch,
                               uint8_t *out) {
    size_t bpp = pf_png_packed_pixel_bytes(input);
    int identity = input == PF_PNG_INPUT_GRAY8 || input == PF_PNG_INPUT_RGBA8;
    uint8_t *packed[2] = {scratch + row_bytes, scratch + 2 * row_bytes};
    const uint8_t *prior = scratch;
    if (above != NULL && adaptive) {
        if (identity) {
            prior = above;
        } else {
            pf_png_pack_row(input, above, width, packed[1]);
            prior = packed[1];
        }
    }
    for (uint32_t y = 0; y < count; y++) {
        const uint8_t *src = first + (size_t)y * stride;
        const uint8_t *row = src;
        if (!identity) {
            pf_png_pack_row(input, src, width, packed[y & 1]);
            row = packed[y & 1];
        }
        int type = adaptive ? pf_png_choose_filter(row, prior, row_bytes, bpp) : 0;
        pf_png_apply_filter(type, row, prior, row_bytes, bpp, out + (size_t)y * (row_bytes + 1));
        prior = row;
    }
}

static uint32_t pf_adler32(uint32_t adler, const uint8_t *bytes, size_t size) {
    while (size > 0) {
        size_t piece = size > PF_ZLIB_PIECE ? PF_ZLIB_PIECE : size;
        adler = (uint32_t)adler32(adler, bytes, (uInt)piece);
        bytes += piece;
        size -= piece;
    }
    return adler;
}

/* Buffers a thread reuses from one chunk to the next: the filtered rows, the filter's scratch
   rows, pf_deflate's work area and its output. Allocating them for every chunk (about 1 MiB
   for 256 KiB of rows) made the kernel hand out and zero fresh pages each time: 108000 page
   faults for the 50 MP png-sepia task. Freed when the thread exits; a buffer that grew past
   PF_PNG_KEEP (very wide rows) is freed after its chunk. */
typedef struct pf_png_workspace {
    void *deflate_work;
    uint8_t *filtered;
    size_t filtered_capacity;
    uint8_t *scratch;
    size_t scratch_capacity;
    uint8_t *out;
    size_t out_capacity;
} pf_png_workspace;

#define PF_PNG_KEEP ((size_t)8 << 20)

static pthread_key_t pf_png_workspace_key;
static pthread_once_t pf_png_workspace_once = PTHREAD_ONCE_INIT;
static int pf_png_workspace_key_made;

static void pf_png_workspace_free(void *pointer) {
    pf_png_workspace *w = (pf_png_workspace *)pointer;
    if (w == NULL) return;
    free(w->deflate_work);
    free(w->filtered);
    free(w->scratch);
    free(w->out);
    free(w);
}

static void pf_png_make_workspace_key(void) {
    pf_png_workspace_key_made = pthread_key_create(&pf_png_workspace_key, pf_png_workspace_free) == 0;
}

/* This thread's workspace, or NULL when none can be made (the caller then uses `fallback`,
   a zeroed one it frees itself). */
static pf_png_workspace *pf_png_thread_workspace(void) {
    pthread_once(&pf_png_workspace_once, pf_png_make_workspace_key);
    if (!pf_png_workspace_key_made) return NULL;
    pf_png_workspace *w = (pf_png_workspace *)pthread_getspecific(pf_png_workspace_key);
    if (w != NULL) return w;
    w = (pf_png_workspace *)calloc(1, sizeof *w);
    if (w != NULL && pthread_setspecific(pf_png_workspace_key, w) != 0) {
        free(w);
        w = NULL;
    }
    return w;
}

/* `*buffer` with room for `needed` bytes (its contents are not kept), or NULL. */
static uint8_t *pf_png_reserve(uint8_t **buffer, size_t *capacity, size_t needed) {
    if (*buffer != NULL && *capacity >= needed) return *buffer;
    free(*buffer);
    *buffer = (uint8_t *)malloc(needed > 0 ? needed : 1);
    *capacity = *buffer != NULL ? needed : 0;
    return *buffer;
}

/* Frees what a chunk grew past PF_PNG_KEEP, or everything when `w` is a caller's fallback. */
static void pf_png_release(pf_png_workspace *w, int fallback) {
    if (fallback) {
        free(w->deflate_work);
        free(w->filtered);
        free(w->scratch);
        free(w->out);
        memset(w, 0, sizeof *w);
        return;
    }
    uint8_t **buffers[3] = {&w->filtered, &w->scratch, &w->out};
    size_t *capacities[3] = {&w->filtered_capacity, &w->scratch_capacity, &w->out_capacity};
    for (int k = 0; k < 3; k++) {
        if (*capacities[k] > PF_PNG_KEEP) {
            free(*buffers[k]);
            *buffers[k] = NULL;
            *capacities[k] = 0;
        }
    }
}

int pf_png_deflate_chunk(const uint8_t *rows, size_t stride, uint32_t width, int input,
                         uint32_t rows_above, uint32_t count, int compression_level, int last,
                         pf_png_chunk *chunk) {
    memset(chunk, 0, sizeof *chunk);
    pf_png_chunking chunking;
    if (rows == NULL || count == 0 || compression_level < 0 || compression_level > 9 ||
        pf_png_chunking_for(width, input, &chunking) != PF_OK)
        return PF_ERROR;
    int adaptive = compression_level > 0;
    size_t row_bytes = chunking.row_bytes, line = row_bytes + 1;
    /* Level 0 stores: no dictionary to find matches in, so no rows above to filter. */
    uint32_t dictionary_rows = adaptive ? chunking.history_rows - 1 : 0;
    uint32_t d = rows_above < dictionary_rows ? rows_above : dictionary_rows;
    const uint8_t *above = rows_above > d ? rows - (size_t)(d + 1) * stride : NULL;
    if ((size_t)count + d > ((size_t)-1) / line || row_bytes > ((size_t)-1) / 3) return PF_OUT_OF_MEMORY;

    pf_png_workspace fallback_workspace;
    memset(&fallback_workspace, 0, sizeof fallback_workspace);
    pf_png_workspace *w = pf_png_thread_workspace();
    int fallback = w == NULL;
    if (fallback) w = &fallback_workspace;

    size_t filtered_size = ((size_t)d + count) * line;
    uint8_t *filtered = pf_png_reserve(&w->filtered, &w->filtered_capacity, filtered_size);
    uint8_t *scratch = pf_png_reserve(&w->scratch, &w->scratch_capacity, 3 * row_bytes);
    if (filtered == NULL || scratch == NULL) {
        pf_png_release(w, fallback);
        return PF_OUT_OF_MEMORY;
    }
    /* The row above the image is zeros; the two packed rows are written before they are read. */
    memset(scratch, 0, row_bytes);
    pf_png_filter_rows(rows - (size_t)d * stride, stride, above, width, input, row_bytes, d + count, adaptive,
                       scratch, filtered);

    const uint8_t *data = filtered + (size_t)d * line;
    size_t size = (size_t)count * line;
    size_t dictionary_size = (size_t)d * line;
    if (dictionary_size > PF_PNG_WINDOW) dictionary_size = PF_PNG_WINDOW;
    chunk->adler = pf_adler32(1, data, size);
    chunk->filtered_size = size;

    if (adaptive) {
        /* Levels 1...9: PixelFlow's own deflate (pf_deflate.c), into the workspace, then
           copied into a buffer of the exact size that the chunk hands over. */
        if (w->deflate_work == NULL) w->deflate_work = malloc(pf_deflate_work_size());
        uint8_t *out = pf_png_reserve(&w->out, &w->out_capacity, pf_deflate_bound(size));
        size_t used = 0;
        int status = w->deflate_work == NULL || out == NULL
                         ? 1
                         : pf_deflate_in(w->deflate_work, data, size, dictionary_size, compression_level, last, out,
                                         &used);
        uint8_t *copy = status == 0 ? (uint8_t *)malloc(used > 0 ? used : 1) : NULL;
        if (copy != NULL) memcpy(copy, out, used);
        pf_png_release(w, fallback);
        if (status == -1) return PF_ERROR;
        if (copy == NULL) return PF_OUT_OF_MEMORY;
        chunk->data = copy;
        chunk->size = used;
        return PF_OK;
    }

    /* Level 0: zlib's stored blocks. */
    z_stream z;
    memset(&z, 0, sizeof z);
    int status = deflateInit2(&z, 0, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY);
    if (status != Z_OK) {
        pf_png_release(w, fallback);
        return status == Z_MEM_ERROR ? PF_OUT_OF_MEMORY : PF_ERROR;
    }
    size_t capacity = (size_t)deflateBound(&z, (uLong)size) + 64, used = 0;
    uint8_t *out = (uint8_t *)malloc(capacity);
    int result = out == NULL ? PF_OUT_OF_MEMORY : PF_OK;
    size_t consumed = 0;
    while (result == PF_OK) {
        size_t piece = size - consumed > PF_ZLIB_PIECE ? PF_ZLIB_PIECE : size - consumed;
        z.next_in = (Bytef *)(data + consumed);
        z.avail_in = (uInt)piece;
        int flush = consumed + piece < size ? Z_NO_FLUSH : (last ? Z_FINISH : Z_SYNC_FLUSH);
        for (;;) {
            if (capacity - used < 4096) {
                uint8_t *grown = capacity > ((size_t)-1) / 2 ? NULL : (uint8_t *)realloc(out, capacity * 2);
                if (grown == NULL) {
                    result = PF_OUT_OF_MEMORY;
                    break;
                }
                out = grown;
                capacity *= 2;
            }
            size_t room = capacity - used > PF_ZLIB_PIECE ? PF_ZLIB_PIECE : capacity - used;
            z.next_out = out + used;
            z.avail_out = (uInt)room;
            status = deflate(&z, flush);
            used += room - z.avail_out;
            if (status == Z_STREAM_ERROR) {
                result = PF_ERROR;
                break;
            }
            if (flush == Z_FINISH ? status == Z_STREAM_END : (z.avail_in == 0 && z.avail_out != 0)) break;
        }
        consumed += piece;
        if (consumed == size) break;
    }
    deflateEnd(&z);
    pf_png_release(w, fallback);
    if (result != PF_OK) {
        free(out);
        return result;
    }
    chunk->data = out;
    chunk->size = used;
    return PF_OK;
}

int pf_zlib_inflate(const uint8_t *input, size_t size, uint8_t *output, size_t capacity,
                    size_t *output_size) {
    *output_size = 0;
    if (size > PF_ZLIB_PIECE || capacity > PF_ZLIB_PIECE) return PF_ERROR;
    z_stream z;
    memset(&z, 0, sizeof z);
    if (inflateInit(&z) != Z_OK) return PF_OUT_OF_MEMORY;
    z.next_in = (Bytef *)input;
    z.avail_in = (uInt)size;
    z.next_out = output;
    z.avail_out = (uInt)capacity;
    int status = inflate(&z, Z_FINISH);
    *output_size = capacity - z.avail_out;
    inflateEnd(&z);
    return status == Z_STREAM_END ? PF_OK : PF_ERROR;
}

/* ---- the encoder of non-interlaced files ---- */

struct pf_png_encoder {
    /* First, so that libpng's error pointer (this struct) is also the error context. */
    pf_png_error_context error;
    png_structp png;
    png_infop info;
    /* The descriptor written to, or -1 for `memory`. */
    int fd;
    pf_png_output memory;
    /* Set by the write callback before it fails, so the status says PF_IO_ERROR. */
    int io_failed;
    int failed;
    int finished;
    /* Filtered bytes the image has, those the chunks written so far held, and their adler32. */
    size_t filtered_total;
    size_t filtered_written;
    uint32_t adler;
    /* The zlib stream not yet written as an IDAT chunk (less than PF_PNG_IDAT_SIZE bytes). */
    size_t pending;
    uint8_t idat[PF_PNG_IDAT_SIZE];
    /* Bytes for `fd` not yet written. */
    size_t buffered;
    uint8_t buffer[65536];
};

/* Writes the buffered bytes to the descriptor; on failure records why and longjmps. */
static void pf_png_fd_drain(pf_png_encoder *encoder) {
    size_t done = 0;
    while (done < encoder->buffered) {
        ssize_t n = write(encoder->fd, encoder->buffer + done, encoder->buffered - done);
        if (n < 0) {
            if (errno == EINTR) continue;
            char text[PF_MESSAGE_CAPACITY];
            snprintf(text, sizeof text, "cannot write: %s", strerror(errno));
            encoder->io_failed = 1;
            png_error(encoder->png, text);
        }
        done += (size_t)n;
    }
    encoder->buffered = 0;
}

static void pf_png_encoder_write_data(png_structp png, png_bytep bytes, size_t count) {
    pf_png_encoder *encoder = (pf_png_encoder *)png_get_io_ptr(png);
    if (encoder->fd < 0) {
        pf_png_append(png, &encoder->memory, bytes, count);
        return;
    }
    while (count > 0) {
        if (encoder->buffered == sizeof encoder->buffer) pf_png_fd_drain(encoder);
        size_t n = sizeof encoder->buffer - encoder->buffered;
        if (n > count) n = count;
        memcpy(encoder->buffer + encoder->buffered, bytes, n);
        encoder->buffered += n;
        bytes += n;
        count -= n;
    }
}

/* Adds `size` bytes to the zlib stream, writing an IDAT chunk for every PF_PNG_IDAT_SIZE
   bytes: where the chunks are cut depends on the stream only. Errors longjmp. */
static void pf_png_idat_append(pf_png_encoder *encoder, const uint8_t *bytes, size_t size) {
    static const png_byte idat[5] = "IDAT";
    while (size > 0) {
        if (encoder->pending == 0 && size >= PF_PNG_IDAT_SIZE) {
            png_write_chunk(encoder->png, idat, bytes, PF_PNG_IDAT_SIZE);
            bytes += PF_PNG_IDAT_SIZE;
            size -= PF_PNG_IDAT_SIZE;
            continue;
        }
        size_t n = PF_PNG_IDAT_SIZE - encoder->pending;
        if (n > size) n = size;
        memcpy(encoder->idat + encoder->pending, bytes, n);
        encoder->pending += n;
        bytes += n;
        size -= n;
        if (encoder->pending == PF_PNG_IDAT_SIZE) {
            png_write_chunk(encoder->png, idat, encoder->idat, PF_PNG_IDAT_SIZE);
            encoder->pending = 0;
        }
    }
}

static int pf_png_encoder_status(pf_png_encoder *encoder) {
    encoder->failed = 1;
    return encoder->io_failed ? PF_IO_ERROR : PF_ERROR;
}

int pf_png_encoder_create(int fd, uint32_t width, uint32_t height, int input, int compression_level,
                          const pf_metadata_blocks *metadata, int srgb_chunk,
                          pf_png_encoder **result, char *message) {
    *result = NULL;
    pf_png_chunking chunking;
    if (pf_png_chunking_for(width == 0 ? 1 : width, input, &chunking) != PF_OK) {
        pf_copy_message(message, "unknown input layout");
        return PF_ERROR;
    }
    if (compression_level < 0 || compression_level > 9) {
        pf_copy_message(message, "compression level must be in 0...9");
        return PF_ERROR;
    }
    pf_png_encoder *encoder = (pf_png_encoder *)calloc(1, sizeof *encoder);
    if (encoder == NULL) {
        pf_copy_message(message, "out of memory");
        return PF_OUT_OF_MEMORY;
    }
    encoder->fd = fd < 0 ? -1 : fd;
    encoder->filtered_total = (size_t)height * (chunking.row_bytes + 1);
    encoder->adler = 1;
    encoder->error.message = message;
    encoder->png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &encoder->error, pf_png_error,
                                           pf_png_warning);
    if (encoder->png != NULL) encoder->info = png_create_info_struct(encoder->png);
    if (encoder->info == NULL) {
        pf_png_encoder_destroy(encoder);
        pf_copy_message(message, "out of memory");
        return PF_OUT_OF_MEMORY;
    }
    if (setjmp(png_jmpbuf(encoder->png))) {
        int status = pf_png_encoder_status(encoder);
        pf_png_encoder_destroy(encoder);
        return status;
    }
    png_set_write_fn(encoder->png, encoder, pf_png_encoder_write_data, pf_png_flush);
    /* The signature, IHDR and the metadata chunks, exactly as pf_png_encode writes them
       (png_set_IHDR checks the size). The image data is ours: libpng never sees a row. */
    pf_png_start_write(encoder->png, encoder->info, width, height, input, 0, compression_level, metadata,
                       srgb_chunk);
    /* The zlib header: CMF 0x78 (deflate, 32 KiB window), FLG with zlib's FLEVEL for the level
       and no preset dictionary, FCHECK making the pair a multiple of 31. */
    unsigned level_flags = compression_level < 2 ? 0 : compression_level < 6 ? 1 : compression_level == 6 ? 2 : 3;
    unsigned header = (0x78u << 8) | (level_flags << 6);
    header += 31 - header % 31;
    const uint8_t zlib_header[2] = {(uint8_t)(header >> 8), (uint8_t)header};
    pf_png_idat_append(encoder, zlib_header, 2);
    *result = encoder;
    return PF_OK;
}

int pf_png_encoder_write_chunk(pf_png_encoder *encoder, const pf_png_chunk *chunk, char *message) {
    encoder->error.message = message;
    if (encoder->failed || encoder->finished) {
        pf_copy_message(message, encoder->failed ? "an earlier error stopped the encoder" : "image data written after the end");
        return PF_ERROR;
    }
    if (chunk->filtered_size > encoder->filtered_total - encoder->filtered_written) {
        pf_copy_message(message, "more image data written than the image has");
        return PF_ERROR;
    }
    if (setjmp(png_jmpbuf(encoder->png))) return pf_png_encoder_status(encoder);
    pf_png_idat_append(encoder, chunk->data, chunk->size);
    encoder->adler = (uint32_t)adler32_combine(encoder->adler, chunk->adler, (z_off_t)chunk->filtered_size);
    encoder->filtered_written += chunk->filtered_size;
    return PF_OK;
}

int pf_png_encoder_finish(pf_png_encoder *encoder, char *message) {
    encoder->error.message = message;
    if (encoder->failed || encoder->finished || encoder->filtered_written != encoder->filtered_total) {
        pf_copy_message(message, encoder->failed ? "an earlier error stopped the encoder"
                                                 : "finished before every row was written");
        return PF_ERROR;
    }
    if (setjmp(png_jmpbuf(encoder->png))) return pf_png_encoder_status(encoder);
    encoder->finished = 1;
    const uint8_t trailer[4] = {(uint8_t)(encoder->adler >> 24), (uint8_t)(encoder->adler >> 16),
                                (uint8_t)(encoder->adler >> 8), (uint8_t)encoder->adler};
    pf_png_idat_append(encoder, trailer, 4);
    static const png_byte idat[5] = "IDAT", iend[5] = "IEND";
    if (encoder->pending > 0) png_write_chunk(encoder->png, idat, encoder->idat, encoder->pending);
    encoder->pending = 0;
    /* What png_write_end(png, NULL) writes: no chunk follows the image data (png_write_info
       wrote every metadata chunk before it). */
    png_write_chunk(encoder->png, iend, NULL, 0);
    if (encoder->fd >= 0) pf_png_fd_drain(encoder);
    return PF_OK;
}

void pf_png_encoder_take_output(pf_png_encoder *encoder, uint8_t **output, size_t *output_size) {
    *output = encoder->memory.data;
    *output_size = encoder->memory.size;
    memset(&encoder->memory, 0, sizeof encoder->memory);
}

void pf_png_encoder_destroy(pf_png_encoder *encoder) {
    if (encoder == NULL) return;
    if (encoder->png != NULL) png_destroy_write_struct(&encoder->png, &encoder->info);
    free(encoder->memory.data);
    free(encoder);
}
