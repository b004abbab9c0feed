/* libpng shims: every entry point owns its setjmp, so libpng's longjmp never leaves C. */
#include "CCodecShims.h"

#include <errno.h>
#include <png.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define PF_LITTLE_ENDIAN 0
#else
#define PF_LITTLE_ENDIAN 1
#endif

/* Where the current call wants its error message. */
typedef struct pf_png_error_context {
    char *message;
} pf_png_error_context;

static void pf_copy_message(char *message, const char *text) {
    if (message == NULL) return;
    if (text == NULL) text = "unknown error";
    strncpy(message, text, PF_MESSAGE_CAPACITY - 1);
    message[PF_MESSAGE_CAPACITY - 1] = '\0';
}

static void pf_png_error(png_structp png, png_const_charp text) {
    pf_png_error_context *context = (pf_png_error_context *)png_get_error_ptr(png);
    if (context != NULL) pf_copy_message(context->message, text);
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

static void pf_png_write_data(png_structp png, png_bytep bytes, size_t count) {
    pf_png_output *output = (pf_png_output *)png_get_io_ptr(png);
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
            png_text text;
            memset(&text, 0, sizeof text);
            text.compression = PNG_ITXT_COMPRESSION_NONE;
            text.key = "XML:com.adobe.xmp";
            text.text = (png_charp)metadata->xmp;
            text.itxt_length = metadata->xmp_size;
            text.lang = "";
            text.lang_key = "";
            png_set_text(png, info, &text, 1);
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

/* ---- streaming encoding ---- */

struct pf_png_encoder {
    /* First, so that libpng's error pointer (this struct) is also the error context. */
    pf_png_error_context error;
    png_structp png;
    png_infop info;
    int fd;
    /* Set by the write callback before it fails, so the status says PF_IO_ERROR. */
    int io_failed;
    int failed;
    int finished;
    uint32_t height;
    uint32_t rows_written;
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

static void pf_png_fd_write(png_structp png, png_bytep bytes, size_t count) {
    pf_png_encoder *encoder = (pf_png_encoder *)png_get_io_ptr(png);
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

static int pf_png_encoder_status(pf_png_encoder *encoder) {
    encoder->failed = 1;
    return encoder->io_failed ? PF_IO_ERROR : PF_ERROR;
}

int pf_png_encoder_create(int fd, uint32_t width, uint32_t height, int input, int compression_level,
                          const pf_metadata_blocks *metadata, int srgb_chunk,
                          pf_png_encoder **result, char *message) {
    *result = NULL;
    int bit_depth, color_type, strip_alpha;
    if (!pf_png_input_layout(input, &bit_depth, &color_type, &strip_alpha)) {
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
    encoder->fd = fd;
    encoder->height = height;
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
    png_set_write_fn(encoder->png, encoder, pf_png_fd_write, pf_png_flush);
    if (pf_png_start_write(encoder->png, encoder->info, width, height, input, 0, compression_level,
                           metadata, srgb_chunk) != 1)
        png_error(encoder->png, "interlaced output cannot be written row by row");
    *result = encoder;
    return PF_OK;
}

int pf_png_encoder_write_rows(pf_png_encoder *encoder, const uint8_t *pixels, size_t stride,
                              uint32_t count, char *message) {
    encoder->error.message = message;
    if (encoder->failed || encoder->finished) {
        pf_copy_message(message, encoder->failed ? "an earlier error stopped the encoder" : "rows written after the end");
        return PF_ERROR;
    }
    if (count > encoder->height - encoder->rows_written) {
        pf_copy_message(message, "more rows written than the image has");
        return PF_ERROR;
    }
    if (setjmp(png_jmpbuf(encoder->png))) return pf_png_encoder_status(encoder);
    for (uint32_t i = 0; i < count; i++) {
        png_write_row(encoder->png, pixels + (size_t)i * stride);
        encoder->rows_written++;
    }
    return PF_OK;
}

int pf_png_encoder_finish(pf_png_encoder *encoder, char *message) {
    encoder->error.message = message;
    if (encoder->failed || encoder->finished || encoder->rows_written != encoder->height) {
        pf_copy_message(message, encoder->failed ? "an earlier error stopped the encoder"
                                                 : "finished before every row was written");
        return PF_ERROR;
    }
    if (setjmp(png_jmpbuf(encoder->png))) return pf_png_encoder_status(encoder);
    encoder->finished = 1;
    png_write_end(encoder->png, NULL);
    pf_png_fd_drain(encoder);
    return PF_OK;
}

void pf_png_encoder_destroy(pf_png_encoder *encoder) {
    if (encoder == NULL) return;
    if (encoder->png != NULL) png_destroy_write_struct(&encoder->png, &encoder->info);
    free(encoder);
}
