/* libjpeg-turbo shims: every entry point owns its setjmp, so error_exit's longjmp never
   leaves C. Messages are silenced; a premature end of data (of the file or of a scan's
   entropy-coded segment) is an error, not a warning. */
#include "CCodecShims.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <unistd.h>

#include <jpeglib.h>
#include <jerror.h>

typedef struct pf_jpeg_error {
    struct jpeg_error_mgr pub;
    jmp_buf jump;
    char *message;
    int status;
} pf_jpeg_error;

static void pf_jpeg_fail(j_common_ptr cinfo, int status, const char *text) {
    pf_jpeg_error *error = (pf_jpeg_error *)cinfo->err;
    error->status = status;
    if (error->message != NULL) {
        strncpy(error->message, text, PF_MESSAGE_CAPACITY - 1);
        error->message[PF_MESSAGE_CAPACITY - 1] = '\0';
    }
    longjmp(error->jump, 1);
}

static void pf_jpeg_error_exit(j_common_ptr cinfo) {
    char text[JMSG_LENGTH_MAX];
    (*cinfo->err->format_message)(cinfo, text);
    pf_jpeg_fail(cinfo, cinfo->err->msg_code == JERR_OUT_OF_MEMORY ? PF_OUT_OF_MEMORY : PF_ERROR,
                 text);
}

static void pf_jpeg_emit_message(j_common_ptr cinfo, int level) {
    if (level < 0) {
        /* jpeg_mem_src pads a truncated file with a fake EOI and warns; refuse instead. */
        if (cinfo->err->msg_code == JWRN_JPEG_EOF)
            pf_jpeg_fail(cinfo, PF_ERROR, "the file is truncated (premature end of JPEG data)");
        /* A marker inside the entropy-coded data means the scan was cut short; libjpeg would
           fill the rest of the image with zeros, so a few hundred bytes declaring 100
           megapixels would cost a full decode. Refuse it like a truncated file. */
        if (cinfo->err->msg_code == JWRN_HIT_MARKER)
            pf_jpeg_fail(cinfo, PF_ERROR, "the scan data is truncated (premature end of data segment)");
        cinfo->err->num_warnings++;
    }
}

static void pf_jpeg_output_message(j_common_ptr cinfo) { (void)cinfo; }

static void pf_jpeg_install_error(pf_jpeg_error *error) {
    jpeg_std_error(&error->pub);
    error->pub.error_exit = pf_jpeg_error_exit;
    error->pub.emit_message = pf_jpeg_emit_message;
    error->pub.output_message = pf_jpeg_output_message;
}

/* ---- decoding ---- */

typedef struct pf_jpeg_progress {
    struct jpeg_progress_mgr pub;
    int maximum_scans;
} pf_jpeg_progress;

/* A libjpeg source manager over an open file: pread from a moving offset into a 64 KiB
   buffer, so the file is never all in memory. The end of the file is handled as jpeg_mem_src
   handles the end of its bytes (a fake EOI and JWRN_JPEG_EOF, which pf_jpeg_emit_message
   turns into a "truncated" error), so both sources fail on the same files. */
typedef struct pf_jpeg_fd_source {
    struct jpeg_source_mgr pub;
    int fd;
    /* The file's size when it was opened: bytes past it are not read. */
    uint64_t size;
    uint64_t offset;
    JOCTET buffer[65536];
} pf_jpeg_fd_source;

struct pf_jpeg_decoder {
    struct jpeg_decompress_struct cinfo;
    pf_jpeg_error error;
    pf_jpeg_progress progress;
    const uint8_t *data;
    size_t size;
    /* Set by pf_jpeg_decoder_create_fd (fd >= 0): read the file, not `data`. */
    pf_jpeg_fd_source *fd_source;
    int color;
    int adobe;
    int raw_cmyk;
    int header_read;
    int pixels_read;
    /* pf_jpeg_set_scale's denominator: 1, 2, 4 or 8. */
    int scale_denominator;
};

/* Called by libjpeg for every iMCU row it consumes: a progressive file made of thousands of
   tiny scans would otherwise cost time quadratic in its size. */
static void pf_jpeg_progress_monitor(j_common_ptr cinfo) {
    if (!cinfo->is_decompressor) return;
    j_decompress_ptr dinfo = (j_decompress_ptr)cinfo;
    pf_jpeg_progress *progress = (pf_jpeg_progress *)cinfo->progress;
    if (dinfo->input_scan_number > progress->maximum_scans) {
        char text[PF_MESSAGE_CAPACITY];
        snprintf(text, sizeof text, "more than %d progressive scans", progress->maximum_scans);
        pf_jpeg_fail(cinfo, PF_TOO_MANY_SCANS, text);
    }
}

pf_jpeg_decoder *pf_jpeg_decoder_create(const uint8_t *data, size_t size, int maximum_scans) {
    pf_jpeg_decoder *decoder = (pf_jpeg_decoder *)calloc(1, sizeof *decoder);
    if (decoder == NULL) return NULL;
    decoder->data = data;
    decoder->size = size;
    decoder->scale_denominator = 1;
    pf_jpeg_install_error(&decoder->error);
    decoder->cinfo.err = &decoder->error.pub;
    if (setjmp(decoder->error.jump)) {
        free(decoder);
        return NULL;
    }
    jpeg_create_decompress(&decoder->cinfo);
    decoder->progress.pub.progress_monitor = pf_jpeg_progress_monitor;
    decoder->progress.maximum_scans = maximum_scans > 0 ? maximum_scans : 1;
    decoder->cinfo.progress = &decoder->progress.pub;
    return decoder;
}

pf_jpeg_decoder *pf_jpeg_decoder_create_fd(int fd, uint64_t size, int maximum_scans) {
    pf_jpeg_fd_source *source = (pf_jpeg_fd_source *)calloc(1, sizeof *source);
    if (source == NULL) return NULL;
    pf_jpeg_decoder *decoder = pf_jpeg_decoder_create(NULL, 0, maximum_scans);
    if (decoder == NULL) {
        free(source);
        return NULL;
    }
    source->fd = fd;
    source->size = size;
    decoder->fd_source = source;
    return decoder;
}

void pf_jpeg_decoder_destroy(pf_jpeg_decoder *decoder) {
    if (decoder == NULL) return;
    /* Frees everything, whatever state an error left the object in. */
    jpeg_destroy_decompress(&decoder->cinfo);
    free(decoder->fd_source);
    free(decoder);
}

static void pf_jpeg_fd_source_init(j_decompress_ptr cinfo) { (void)cinfo; }

static boolean pf_jpeg_fd_source_fill(j_decompress_ptr cinfo) {
    pf_jpeg_fd_source *src = (pf_jpeg_fd_source *)cinfo->src;
    size_t want = sizeof src->buffer;
    if (src->offset >= src->size) want = 0;
    else if (src->size - src->offset < want) want = (size_t)(src->size - src->offset);
    ssize_t n = 0;
    if (want > 0) {
        do {
            n = pread(src->fd, src->buffer, want, (off_t)src->offset);
        } while (n < 0 && errno == EINTR);
        if (n < 0) {
            char text[PF_MESSAGE_CAPACITY];
            snprintf(text, sizeof text, "cannot read the file: %s", strerror(errno));
            pf_jpeg_fail((j_common_ptr)cinfo, PF_ERROR, text);
        }
    }
    if (n == 0) {
        /* As jpeg_mem_src at the end of its bytes: a warning (an error here) and a fake EOI. */
        WARNMS(cinfo, JWRN_JPEG_EOF);
        src->buffer[0] = (JOCTET)0xFF;
        src->buffer[1] = (JOCTET)JPEG_EOI;
        n = 2;
    } else {
        src->offset += (uint64_t)n;
    }
    src->pub.next_input_byte = src->buffer;
    src->pub.bytes_in_buffer = (size_t)n;
    return TRUE;
}

static void pf_jpeg_fd_source_skip(j_decompress_ptr cinfo, long num_bytes) {
    pf_jpeg_fd_source *src = (pf_jpeg_fd_source *)cinfo->src;
    if (num_bytes <= 0) return;
    size_t n = (size_t)num_bytes;
    if (n <= src->pub.bytes_in_buffer) {
        src->pub.next_input_byte += n;
        src->pub.bytes_in_buffer -= n;
        return;
    }
    /* Past the buffer: move the offset; the next fill reads from there (or meets the end). */
    src->offset += (uint64_t)(n - src->pub.bytes_in_buffer);
    src->pub.bytes_in_buffer = 0;
}

static void pf_jpeg_fd_source_term(j_decompress_ptr cinfo) { (void)cinfo; }

static void pf_jpeg_install_fd_source(j_decompress_ptr cinfo, pf_jpeg_fd_source *source) {
    source->offset = 0;
    source->pub.init_source = pf_jpeg_fd_source_init;
    source->pub.fill_input_buffer = pf_jpeg_fd_source_fill;
    source->pub.skip_input_data = pf_jpeg_fd_source_skip;
    source->pub.resync_to_restart = jpeg_resync_to_restart;
    source->pub.term_source = pf_jpeg_fd_source_term;
    source->pub.next_input_byte = NULL;
    source->pub.bytes_in_buffer = 0;
    cinfo->src = &source->pub;
}

int pf_jpeg_read_header(pf_jpeg_decoder *decoder, pf_jpeg_header *header, uint8_t *exif,
                        char *message) {
    j_decompress_ptr cinfo = &decoder->cinfo;
    decoder->error.message = message;
    decoder->error.status = PF_ERROR;
    if (setjmp(decoder->error.jump)) return decoder->error.status;
    if (decoder->header_read)
        pf_jpeg_fail((j_common_ptr)cinfo, PF_ERROR, "the header was already read");
    decoder->header_read = 1;

    if (decoder->fd_source != NULL) pf_jpeg_install_fd_source(cinfo, decoder->fd_source);
    else jpeg_mem_src(cinfo, decoder->data, (unsigned long)decoder->size);
    jpeg_save_markers(cinfo, JPEG_APP0 + 1, 0xFFFF);
    jpeg_save_markers(cinfo, JPEG_APP0 + 2, 0xFFFF);
    jpeg_read_header(cinfo, TRUE);

    memset(header, 0, sizeof *header);
    header->width = cinfo->image_width;
    header->height = cinfo->image_height;
    header->components = cinfo->num_components;
    header->progressive = cinfo->progressive_mode ? 1 : 0;
    header->adobe = cinfo->saw_Adobe_marker ? 1 : 0;
    switch (cinfo->jpeg_color_space) {
    case JCS_GRAYSCALE: header->color = PF_JPEG_COLOR_GRAY; break;
    case JCS_YCbCr:
    case JCS_RGB: header->color = PF_JPEG_COLOR_RGB; break;
    case JCS_CMYK:
    case JCS_YCCK: header->color = PF_JPEG_COLOR_CMYK; break;
    default: header->color = PF_JPEG_COLOR_OTHER; break;
    }
    decoder->color = header->color;
    decoder->adobe = header->adobe;

    for (jpeg_saved_marker_ptr marker = cinfo->marker_list; marker != NULL; marker = marker->next) {
        if (marker->marker == JPEG_APP0 + 1 && marker->data_length >= 6 &&
            memcmp(marker->data, "Exif\0\0", 6) == 0) {
            size_t length = marker->data_length;
            if (length > PF_JPEG_EXIF_CAPACITY) length = PF_JPEG_EXIF_CAPACITY;
            if (exif != NULL) {
                memcpy(exif, marker->data, length);
                header->exif_size = length;
            }
            break;
        }
    }
    return PF_OK;
}

static const char pf_xmp_namespace[] = "http://ns.adobe.com/xap/1.0/";

void pf_jpeg_copy_metadata(pf_jpeg_decoder *decoder, uint8_t **icc, size_t *icc_size,
                           uint8_t **xmp, size_t *xmp_size) {
    j_decompress_ptr cinfo = &decoder->cinfo;
    *icc = NULL; *icc_size = 0; *xmp = NULL; *xmp_size = 0;
    if (!decoder->header_read) return;
    /* jpeg_read_icc_profile only reads the saved markers; it reports errors through the
       error manager only for out-of-memory, which a jump to here turns into "no profile". */
    char message[PF_MESSAGE_CAPACITY];
    decoder->error.message = message;
    decoder->error.status = PF_ERROR;
    if (setjmp(decoder->error.jump)) { *icc = NULL; *icc_size = 0; return; }
    JOCTET *profile = NULL;
    unsigned int length = 0;
    if (jpeg_read_icc_profile(cinfo, &profile, &length) && profile != NULL && length > 0) {
        /* libjpeg allocates with malloc: hand it over as it is. */
        *icc = profile;
        *icc_size = length;
    }
    size_t prefix = sizeof pf_xmp_namespace; /* with its NUL */
    for (jpeg_saved_marker_ptr marker = cinfo->marker_list; marker != NULL; marker = marker->next) {
        if (marker->marker == JPEG_APP0 + 1 && marker->data_length > prefix &&
            memcmp(marker->data, pf_xmp_namespace, prefix) == 0) {
            size_t n = marker->data_length - prefix;
            uint8_t *copy = malloc(n);
            if (copy != NULL) {
                memcpy(copy, marker->data + prefix, n);
                *xmp = copy;
                *xmp_size = n;
            }
            break;
        }
    }
}

void pf_jpeg_set_raw_cmyk(pf_jpeg_decoder *decoder, int raw) { decoder->raw_cmyk = raw ? 1 : 0; }

void pf_jpeg_set_scale(pf_jpeg_decoder *decoder, int denominator) {
    decoder->scale_denominator =
        (denominator == 2 || denominator == 4 || denominator == 8) ? denominator : 1;
}

/* In place, 4 bytes per pixel: stored CMYK (Adobe's inverted or not) to ink values. */
static void pf_cmyk_to_ink(uint8_t *row, JDIMENSION width, int inverted) {
    if (!inverted) return;
    for (size_t i = 0; i < (size_t)width * 4; i++) row[i] = (uint8_t)(255u - row[i]);
}

/* In place, 4 bytes per pixel: CMYK (or Adobe's inverted CMYK) to RGBA. */
static void pf_cmyk_to_rgba(uint8_t *row, JDIMENSION width, int inverted) {
    for (JDIMENSION x = 0; x < width; x++) {
        uint8_t *p = row + (size_t)x * 4;
        /* With Adobe's convention the stored values are 255 - ink. */
        unsigned c = inverted ? p[0] : 255u - p[0];
        unsigned m = inverted ? p[1] : 255u - p[1];
        unsigned y = inverted ? p[2] : 255u - p[2];
        unsigned k = inverted ? p[3] : 255u - p[3];
        p[0] = (uint8_t)((c * k + 127) / 255);
        p[1] = (uint8_t)((m * k + 127) / 255);
        p[2] = (uint8_t)((y * k + 127) / 255);
        p[3] = 255;
    }
}

int pf_jpeg_start_rows(pf_jpeg_decoder *decoder, char *message) {
    j_decompress_ptr cinfo = &decoder->cinfo;
    decoder->error.message = message;
    decoder->error.status = PF_ERROR;
    if (setjmp(decoder->error.jump)) return decoder->error.status;
    if (!decoder->header_read || decoder->pixels_read)
        pf_jpeg_fail((j_common_ptr)cinfo, PF_ERROR, "pixels read out of order");
    decoder->pixels_read = 1;

    int components;
    switch (decoder->color) {
    case PF_JPEG_COLOR_GRAY: cinfo->out_color_space = JCS_GRAYSCALE; components = 1; break;
    case PF_JPEG_COLOR_RGB: cinfo->out_color_space = JCS_EXT_RGBA; components = 4; break;
    case PF_JPEG_COLOR_CMYK: cinfo->out_color_space = JCS_CMYK; components = 4; break;
    default:
        pf_jpeg_fail((j_common_ptr)cinfo, PF_ERROR, "unsupported JPEG color space");
        return PF_ERROR;
    }
    unsigned int d = (unsigned int)decoder->scale_denominator;
    if (d > 1) {
        cinfo->scale_num = 1;
        cinfo->scale_denom = d;
    }
    jpeg_start_decompress(cinfo);
    /* libjpeg rounds scaled sizes up (jdiv_round_up), as the header promises. */
    if (cinfo->output_components != components ||
        cinfo->output_width != (cinfo->image_width + d - 1) / d ||
        cinfo->output_height != (cinfo->image_height + d - 1) / d)
        pf_jpeg_fail((j_common_ptr)cinfo, PF_ERROR, "unexpected output layout");
    return PF_OK;
}

int pf_jpeg_read_rows(pf_jpeg_decoder *decoder, uint8_t *const *rows, uint32_t count, char *message) {
    j_decompress_ptr cinfo = &decoder->cinfo;
    decoder->error.message = message;
    decoder->error.status = PF_ERROR;
    if (setjmp(decoder->error.jump)) return decoder->error.status;
    if (!decoder->pixels_read)
        pf_jpeg_fail((j_common_ptr)cinfo, PF_ERROR, "rows read before pf_jpeg_start_rows");
    if (count > cinfo->output_height - cinfo->output_scanline)
        pf_jpeg_fail((j_common_ptr)cinfo, PF_ERROR, "rows read past the end of the image");
    for (uint32_t i = 0; i < count; i++) {
        JSAMPROW row = rows[i];
        if (jpeg_read_scanlines(cinfo, &row, 1) != 1)
            pf_jpeg_fail((j_common_ptr)cinfo, PF_ERROR, "the file is truncated");
        if (decoder->color == PF_JPEG_COLOR_CMYK) {
            if (decoder->raw_cmyk) pf_cmyk_to_ink(row, cinfo->output_width, decoder->adobe);
            else pf_cmyk_to_rgba(row, cinfo->output_width, decoder->adobe);
        }
    }
    return PF_OK;
}

int pf_jpeg_read_pixels(pf_jpeg_decoder *decoder, uint8_t *pixels, size_t stride, char *message) {
    int status = pf_jpeg_start_rows(decoder, message);
    if (status != PF_OK) return status;
    uint32_t height = decoder->cinfo.output_height;
    for (uint32_t y = 0; y < height; y++) {
        uint8_t *row = pixels + (size_t)y * stride;
        status = pf_jpeg_read_rows(decoder, &row, 1, message);
        if (status != PF_OK) return status;
    }
    /* Trailing data after the last row (and EOI) is not needed; jpeg_destroy_decompress
       in pf_jpeg_decoder_destroy releases the rest. */
    return PF_OK;
}

/* ---- raw decoding (entropy decoding and IDCT only) ---- */

int pf_jpeg_raw_supported(pf_jpeg_decoder *decoder) {
    j_decompress_ptr cinfo = &decoder->cinfo;
    if (!decoder->header_read || decoder->pixels_read) return 0;
    if (decoder->color != PF_JPEG_COLOR_RGB || cinfo->jpeg_color_space != JCS_YCbCr) return 0;
    if (cinfo->num_components != 3 || decoder->scale_denominator != 1) return 0;
    if (cinfo->data_precision != 8 || cinfo->CCIR601_sampling) return 0;
    jpeg_component_info *c = cinfo->comp_info;
    int h = c[0].h_samp_factor, v = c[0].v_samp_factor;
    if (h < 1 || h > 2 || v < 1 || v > 2) return 0;
    for (int i = 1; i < 3; i++)
        if (c[i].h_samp_factor != 1 || c[i].v_samp_factor != 1) return 0;
    /* libjpeg's fancy horizontal upsampling needs 3 chroma columns (else it replicates). */
    JDIMENSION chroma_width = (cinfo->image_width + (JDIMENSION)h - 1) / (JDIMENSION)h;
    if (h == 2 && chroma_width <= 2) return 0;
    return 1;
}

int pf_jpeg_start_raw(pf_jpeg_decoder *decoder, pf_jpeg_raw_layout *layout, char *message) {
    j_decompress_ptr cinfo = &decoder->cinfo;
    decoder->error.message = message;
    decoder->error.status = PF_ERROR;
    if (setjmp(decoder->error.jump)) return decoder->error.status;
    if (!pf_jpeg_raw_supported(decoder))
        pf_jpeg_fail((j_common_ptr)cinfo, PF_ERROR, "raw decoding is not supported for this file");
    decoder->pixels_read = 1;
    cinfo->raw_data_out = TRUE;
    cinfo->out_color_space = JCS_YCbCr;
    jpeg_start_decompress(cinfo);
    jpeg_component_info *c = cinfo->comp_info;
    if (cinfo->output_width != cinfo->image_width || cinfo->output_height != cinfo->image_height ||
        c[0].DCT_scaled_size != DCTSIZE || c[1].DCT_scaled_size != DCTSIZE ||
        c[2].DCT_scaled_size != DCTSIZE)
        pf_jpeg_fail((j_common_ptr)cinfo, PF_ERROR, "unexpected raw layout");
    memset(layout, 0, sizeof *layout);
    layout->width = cinfo->image_width;
    layout->height = cinfo->image_height;
    layout->chroma_half_width = c[0].h_samp_factor == 2;
    layout->chroma_half_height = c[0].v_samp_factor == 2;
    layout->luma_rows = (uint32_t)c[0].v_samp_factor * DCTSIZE;
    layout->chroma_rows = DCTSIZE;
    layout->luma_stride = cinfo->MCUs_per_row * (uint32_t)c[0].h_samp_factor * DCTSIZE;
    layout->chroma_stride = cinfo->MCUs_per_row * DCTSIZE;
    layout->chroma_width = c[1].downsampled_width;
    layout->chroma_height = c[1].downsampled_height;
    layout->imcu_rows = cinfo->total_iMCU_rows;
    return PF_OK;
}

int pf_jpeg_read_raw(pf_jpeg_decoder *decoder, uint8_t *y, uint8_t *cb, uint8_t *cr, char *message) {
    j_decompress_ptr cinfo = &decoder->cinfo;
    decoder->error.message = message;
    decoder->error.status = PF_ERROR;
    if (setjmp(decoder->error.jump)) return decoder->error.status;
    if (!decoder->pixels_read || !cinfo->raw_data_out)
        pf_jpeg_fail((j_common_ptr)cinfo, PF_ERROR, "raw rows read before pf_jpeg_start_raw");
    if (cinfo->output_scanline >= cinfo->output_height)
        pf_jpeg_fail((j_common_ptr)cinfo, PF_ERROR, "raw rows read past the end of the image");
    jpeg_component_info *c = cinfo->comp_info;
    JDIMENSION luma_rows = (JDIMENSION)c[0].v_samp_factor * DCTSIZE;
    size_t luma_stride = (size_t)cinfo->MCUs_per_row * (size_t)c[0].h_samp_factor * DCTSIZE;
    size_t chroma_stride = (size_t)cinfo->MCUs_per_row * DCTSIZE;
    JSAMPROW luma[2 * DCTSIZE], blue[DCTSIZE], red[DCTSIZE];
    for (JDIMENSION i = 0; i < luma_rows; i++) luma[i] = y + i * luma_stride;
    for (int i = 0; i < DCTSIZE; i++) {
        blue[i] = cb + (size_t)i * chroma_stride;
        red[i] = cr + (size_t)i * chroma_stride;
    }
    JSAMPARRAY planes[3] = {luma, blue, red};
    if (jpeg_read_raw_data(cinfo, planes, luma_rows) != luma_rows)
        pf_jpeg_fail((j_common_ptr)cinfo, PF_ERROR, "the file is truncated");
    return PF_OK;
}

/* ---- encoding ---- */

typedef struct pf_jpeg_destination {
    struct jpeg_destination_mgr pub;
    uint8_t *data;
    size_t capacity;
    size_t size;
} pf_jpeg_destination;

static void pf_jpeg_init_destination(j_compress_ptr cinfo) {
    pf_jpeg_destination *dest = (pf_jpeg_destination *)cinfo->dest;
    dest->capacity = 65536;
    dest->data = (uint8_t *)malloc(dest->capacity);
    if (dest->data == NULL) ERREXIT(cinfo, JERR_OUT_OF_MEMORY);
    dest->pub.next_output_byte = dest->data;
    dest->pub.free_in_buffer = dest->capacity;
}

static boolean pf_jpeg_empty_output_buffer(j_compress_ptr cinfo) {
    pf_jpeg_destination *dest = (pf_jpeg_destination *)cinfo->dest;
    /* libjpeg calls this only when the whole buffer is full. */
    size_t used = dest->capacity;
    if (dest->capacity > ((size_t)-1) / 2) ERREXIT(cinfo, JERR_OUT_OF_MEMORY);
    size_t capacity = dest->capacity * 2;
    uint8_t *grown = (uint8_t *)realloc(dest->data, capacity);
    if (grown == NULL) ERREXIT(cinfo, JERR_OUT_OF_MEMORY);
    dest->data = grown;
    dest->capacity = capacity;
    dest->pub.next_output_byte = grown + used;
    dest->pub.free_in_buffer = capacity - used;
    return TRUE;
}

static void pf_jpeg_term_destination(j_compress_ptr cinfo) {
    pf_jpeg_destination *dest = (pf_jpeg_destination *)cinfo->dest;
    dest->size = dest->capacity - dest->pub.free_in_buffer;
}

/* Writes straight to a file descriptor through a 64 KiB buffer (the streaming encoder). */
typedef struct pf_jpeg_fd_destination {
    struct jpeg_destination_mgr pub;
    int fd;
    uint8_t buffer[65536];
} pf_jpeg_fd_destination;

static void pf_jpeg_fd_flush(j_compress_ptr cinfo, size_t count) {
    pf_jpeg_fd_destination *dest = (pf_jpeg_fd_destination *)cinfo->dest;
    size_t done = 0;
    while (done < count) {
        ssize_t n = write(dest->fd, dest->buffer + done, count - done);
        if (n < 0) {
            if (errno == EINTR) continue;
            char text[PF_MESSAGE_CAPACITY];
            snprintf(text, sizeof text, "cannot write: %s", strerror(errno));
            pf_jpeg_fail((j_common_ptr)cinfo, PF_IO_ERROR, text);
        }
        done += (size_t)n;
    }
}

static void pf_jpeg_fd_init(j_compress_ptr cinfo) {
    pf_jpeg_fd_destination *dest = (pf_jpeg_fd_destination *)cinfo->dest;
    dest->pub.next_output_byte = dest->buffer;
    dest->pub.free_in_buffer = sizeof dest->buffer;
}

static boolean pf_jpeg_fd_empty(j_compress_ptr cinfo) {
    pf_jpeg_fd_destination *dest = (pf_jpeg_fd_destination *)cinfo->dest;
    /* libjpeg calls this only when the whole buffer is full. */
    pf_jpeg_fd_flush(cinfo, sizeof dest->buffer);
    dest->pub.next_output_byte = dest->buffer;
    dest->pub.free_in_buffer = sizeof dest->buffer;
    return TRUE;
}

static void pf_jpeg_fd_term(j_compress_ptr cinfo) {
    pf_jpeg_fd_destination *dest = (pf_jpeg_fd_destination *)cinfo->dest;
    pf_jpeg_fd_flush(cinfo, sizeof dest->buffer - dest->pub.free_in_buffer);
}

/* ---- 4:2:0 color: RGBX rows to YCbCr planes, given to libjpeg as raw data ----

   libjpeg-turbo's own path converts every pixel to Y, Cb and Cr, then averages each 2x2
   block of the chroma planes: three sums of products a pixel and a second pass. Here luma is
   libjpeg's own formula, bit for bit (jccolor.c: 16 fractional bits, rounded):
       Y = (19595 R + 38470 G + 7471 B + 32768) >> 16,
   and each chroma sample is computed once per 2x2 block, from the block's sums of R, G and B
   (the chroma formulas are linear, so this is the average of the four pixels' chroma with
   one rounding instead of two), with 15-bit coefficients that sum to 0 (gray stays 128):
       Cb = (-5529 Rs - 10855 Gs + 16384 Bs + (128 << 17) + (1 << 16)) >> 17,
       Cr = (16384 Rs - 13720 Gs - 2664 Bs + (128 << 17) + (1 << 16)) >> 17, clamped to 255.
   Columns past the width repeat the last pixel and rows past the height the last row, as
   libjpeg's converter pads. */

static inline uint8_t pf_ycc_luma(const uint8_t *p) {
    return (uint8_t)((19595u * p[0] + 38470u * p[1] + 7471u * p[2] + 32768u) >> 16);
}
static inline uint8_t pf_ycc_chroma(int r, int g, int b, int cr, int cg, int cb) {
    int v = (cr * r + cg * g + cb * b + (128 << 17) + (1 << 16)) >> 17;
    return (uint8_t)(v > 255 ? 255 : v);
}

/* Luma from x0 to luma_width and chroma from x0 / 2 to chroma_width (x0 even), one pixel at a
   time: the edges, and everything without AVX2. */
static void pf_ycc420_scalar(const uint8_t *r0, const uint8_t *r1, uint32_t width, uint32_t x0,
                             uint8_t *y0, uint8_t *y1, uint8_t *cb, uint8_t *cr,
                             uint32_t luma_width, uint32_t chroma_width) {
    for (uint32_t x = x0; x < luma_width; x++) {
        uint32_t s = 4 * (x < width ? x : width - 1);
        y0[x] = pf_ycc_luma(r0 + s);
        y1[x] = pf_ycc_luma(r1 + s);
    }
    for (uint32_t c = x0 / 2; c < chroma_width; c++) {
        uint32_t a = 2 * c < width ? 2 * c : width - 1, b = 2 * c + 1 < width ? 2 * c + 1 : width - 1;
        const uint8_t *p = r0 + 4 * a, *q = r0 + 4 * b, *u = r1 + 4 * a, *v = r1 + 4 * b;
        int rs = p[0] + q[0] + u[0] + v[0], gs = p[1] + q[1] + u[1] + v[1], bs = p[2] + q[2] + u[2] + v[2];
        cb[c] = pf_ycc_chroma(rs, gs, bs, -5529, -10855, 16384);
        cr[c] = pf_ycc_chroma(rs, gs, bs, 16384, -13720, -2664);
    }
}

#if defined(__x86_64__) && defined(__clang__)
#include <immintrin.h>
/* 8 pixels' luma as 8 32-bit lanes: the R and B bytes as 16-bit pairs (pmaddwd with 19595,
   7471), G and X as pairs (pmaddwd with 38470 - 65536, 0), plus G << 16. */
__attribute__((target("avx2"))) static inline __m256i pf_ycc_luma8(__m256i v) {
    const __m256i low = _mm256_set1_epi32(0x00FF00FF);
    __m256i rb = _mm256_and_si256(v, low), gx = _mm256_srli_epi16(v, 8);
    __m256i y = _mm256_add_epi32(_mm256_madd_epi16(rb, _mm256_set1_epi32((7471 << 16) | 19595)),
                                 _mm256_madd_epi16(gx, _mm256_set1_epi32((uint16_t)(int16_t)(38470 - 65536))));
    y = _mm256_add_epi32(y, _mm256_slli_epi32(gx, 16));
    return _mm256_srli_epi32(_mm256_add_epi32(y, _mm256_set1_epi32(32768)), 16);
}
/* 16 luma bytes in order from two vectors of 8 lanes. */
__attribute__((target("avx2"))) static inline void pf_ycc_store16(uint8_t *out, __m256i a, __m256i b) {
    __m256i w = _mm256_permute4x64_epi64(_mm256_packus_epi32(a, b), 0xD8);
    __m256i q = _mm256_permute4x64_epi64(_mm256_packus_epi16(w, w), 0x08);
    _mm_storeu_si128((__m128i *)out, _mm256_castsi256_si128(q));
}
/* One chroma plane's 8 samples for 16 columns: the column sums' pmaddwd, pairs of columns
   added (vphaddd, then vpermd into order), rounded and shifted. */
__attribute__((target("avx2"))) static inline __m256i pf_ycc_chroma8(__m256i rb0, __m256i gx0, __m256i rb1,
                                                                    __m256i gx1, int cr, int cg, int cb) {
    const __m256i crb = _mm256_set1_epi32((int)(((uint32_t)(uint16_t)cb << 16) | (uint16_t)cr));
    const __m256i cgx = _mm256_set1_epi32((uint16_t)cg);
    __m256i a = _mm256_add_epi32(_mm256_madd_epi16(rb0, crb), _mm256_madd_epi16(gx0, cgx));
    __m256i b = _mm256_add_epi32(_mm256_madd_epi16(rb1, crb), _mm256_madd_epi16(gx1, cgx));
    __m256i s = _mm256_permutevar8x32_epi32(_mm256_hadd_epi32(a, b), _mm256_setr_epi32(0, 1, 4, 5, 2, 3, 6, 7));
    return _mm256_srai_epi32(_mm256_add_epi32(s, _mm256_set1_epi32((128 << 17) + (1 << 16))), 17);
}
__attribute__((target("avx2"))) static uint32_t pf_ycc420_avx2(const uint8_t *r0, const uint8_t *r1, uint32_t width,
                                                              uint8_t *y0, uint8_t *y1, uint8_t *cb, uint8_t *cr) {
    const __m256i low = _mm256_set1_epi32(0x00FF00FF);
    uint32_t x = 0;
    for (; x + 16 <= width; x += 16) {
        __m256i a0 = _mm256_loadu_si256((const __m256i *)(r0 + 4 * x));
        __m256i a1 = _mm256_loadu_si256((const __m256i *)(r0 + 4 * x + 32));
        __m256i b0 = _mm256_loadu_si256((const __m256i *)(r1 + 4 * x));
        __m256i b1 = _mm256_loadu_si256((const __m256i *)(r1 + 4 * x + 32));
        pf_ycc_store16(y0 + x, pf_ycc_luma8(a0), pf_ycc_luma8(a1));
        pf_ycc_store16(y1 + x, pf_ycc_luma8(b0), pf_ycc_luma8(b1));
        /* Column sums of the two rows as 16-bit pairs (at most 510 each). */
        __m256i rb0 = _mm256_add_epi16(_mm256_and_si256(a0, low), _mm256_and_si256(b0, low));
        __m256i gx0 = _mm256_add_epi16(_mm256_srli_epi16(a0, 8), _mm256_srli_epi16(b0, 8));
        __m256i rb1 = _mm256_add_epi16(_mm256_and_si256(a1, low), _mm256_and_si256(b1, low));
        __m256i gx1 = _mm256_add_epi16(_mm256_srli_epi16(a1, 8), _mm256_srli_epi16(b1, 8));
        __m256i u = pf_ycc_chroma8(rb0, gx0, rb1, gx1, -5529, -10855, 16384);
        __m256i v = pf_ycc_chroma8(rb0, gx0, rb1, gx1, 16384, -13720, -2664);
        /* [u0-3 v0-3 | u4-7 v4-7] as 16 bits, bytes, then u0-7 and v0-7 as two 64-bit halves. */
        __m256i q = _mm256_packus_epi16(_mm256_packus_epi32(u, v), _mm256_setzero_si256());
        __m128i uv = _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(q, _mm256_setr_epi32(0, 4, 1, 5, 2, 3, 6, 7)));
        _mm_storel_epi64((__m128i *)(cb + x / 2), uv);
        _mm_storel_epi64((__m128i *)(cr + x / 2), _mm_srli_si128(uv, 8));
    }
    return x;
}
#endif

/* Two RGBX rows (r1 may be r0) to two luma rows of luma_width samples and one row of each
   chroma plane of chroma_width samples. Exported for the tests. */
void pf_jpeg_ycc420_rows(const uint8_t *r0, const uint8_t *r1, uint32_t width, uint8_t *y0, uint8_t *y1,
                         uint8_t *cb, uint8_t *cr, uint32_t luma_width, uint32_t chroma_width) {
    if (width == 0) return; /* no pixel to repeat into the padding */
    uint32_t x = 0;
#if defined(__x86_64__) && defined(__clang__)
    if (__builtin_cpu_supports("avx2")) x = pf_ycc420_avx2(r0, r1, width, y0, y1, cb, cr);
#endif
    pf_ycc420_scalar(r0, r1, width, x, y0, y1, cb, cr, luma_width, chroma_width);
}

/* The planes of one row of MCUs (16 luma rows, 8 of each chroma plane) filled two rows at a
   time and given to jpeg_write_raw_data when full, in libjpeg's image pool (freed with the
   compression). `last` holds a copy of the last row given: a lone row waits there for its
   pair, and the bottom padding repeats it. */
typedef struct pf_jpeg_planes {
    uint32_t width, luma_width, chroma_width;
    JSAMPROW y[16], cb[8], cr[8];
    uint8_t *last;
    int pending; /* `last` waits for the row below it */
    int rows;    /* luma rows of the current row of MCUs filled */
} pf_jpeg_planes;

/* Whether the encoder gives libjpeg YCbCr planes (4:2:0 color) instead of RGBX rows. */
static int pf_jpeg_uses_planes(int components, int subsampling) {
    return components == 4 && subsampling == PF_JPEG_SUBSAMPLING_420;
}

/* Call after jpeg_start_compress. */
static void pf_jpeg_planes_start(j_compress_ptr cinfo, pf_jpeg_planes *p) {
    memset(p, 0, sizeof *p);
    p->width = cinfo->image_width;
    p->luma_width = (cinfo->image_width + 15) & ~15u;
    p->chroma_width = p->luma_width / 2;
    JSAMPARRAY y = (*cinfo->mem->alloc_sarray)((j_common_ptr)cinfo, JPOOL_IMAGE, p->luma_width, 16);
    JSAMPARRAY cb = (*cinfo->mem->alloc_sarray)((j_common_ptr)cinfo, JPOOL_IMAGE, p->chroma_width, 8);
    JSAMPARRAY cr = (*cinfo->mem->alloc_sarray)((j_common_ptr)cinfo, JPOOL_IMAGE, p->chroma_width, 8);
    for (int i = 0; i < 16; i++) p->y[i] = y[i];
    for (int i = 0; i < 8; i++) p->cb[i] = cb[i], p->cr[i] = cr[i];
    p->last = (uint8_t *)(*cinfo->mem->alloc_large)((j_common_ptr)cinfo, JPOOL_IMAGE, (size_t)p->width * 4);
}

static void pf_jpeg_planes_pair(j_compress_ptr cinfo, pf_jpeg_planes *p, const uint8_t *r0, const uint8_t *r1) {
    int k = p->rows;
    pf_jpeg_ycc420_rows(r0, r1, p->width, p->y[k], p->y[k + 1], p->cb[k / 2], p->cr[k / 2], p->luma_width,
                        p->chroma_width);
    p->rows += 2;
    if (p->rows == 16) {
        JSAMPARRAY planes[3] = {p->y, p->cb, p->cr};
        jpeg_write_raw_data(cinfo, planes, 16);
        p->rows = 0;
    }
}

/* `count` (> 0) more rows, top to bottom. */
static void pf_jpeg_planes_feed(j_compress_ptr cinfo, pf_jpeg_planes *p, const uint8_t *pixels, size_t stride,
                                uint32_t count) {
    uint32_t i = 0;
    if (p->pending) {
        pf_jpeg_planes_pair(cinfo, p, p->last, pixels);
        p->pending = 0;
        i = 1;
    }
    for (; i + 2 <= count; i += 2) pf_jpeg_planes_pair(cinfo, p, pixels + i * stride, pixels + (i + 1) * stride);
    memcpy(p->last, pixels + (size_t)(count - 1) * stride, (size_t)p->width * 4);
    p->pending = i < count;
}

/* After the last row: its pair and the rest of the row of MCUs repeat it. */
static void pf_jpeg_planes_finish(j_compress_ptr cinfo, pf_jpeg_planes *p) {
    if (p->pending) pf_jpeg_planes_pair(cinfo, p, p->last, p->last);
    p->pending = 0;
    while (p->rows != 0) pf_jpeg_planes_pair(cinfo, p, p->last, p->last);
}

/* The settings shared by both encoders, so that they write the same bytes. */
static void pf_jpeg_configure(j_compress_ptr cinfo, uint32_t width, uint32_t height, int components,
                              int quality, int subsampling, int progressive, int restart_rows) {
    if (components != 1 && components != 4)
        pf_jpeg_fail((j_common_ptr)cinfo, PF_ERROR, "components must be 1 or 4");
    if (quality < 1 || quality > 100)
        pf_jpeg_fail((j_common_ptr)cinfo, PF_ERROR, "quality must be in 1...100");
    cinfo->image_width = width;
    cinfo->image_height = height;
    cinfo->input_components = components;
    cinfo->in_color_space = components == 1 ? JCS_GRAYSCALE : JCS_EXT_RGBX;
    jpeg_set_defaults(cinfo);
    jpeg_set_quality(cinfo, quality, TRUE);
    if (components == 4) {
        int h = subsampling == PF_JPEG_SUBSAMPLING_444 ? 1 : 2;
        int v = subsampling == PF_JPEG_SUBSAMPLING_420 ? 2 : 1;
        cinfo->comp_info[0].h_samp_factor = h;
        cinfo->comp_info[0].v_samp_factor = v;
        for (int i = 1; i < 3; i++) {
            cinfo->comp_info[i].h_samp_factor = 1;
            cinfo->comp_info[i].v_samp_factor = 1;
        }
    }
    /* 4:2:0 color goes in as YCbCr planes (pf_jpeg_planes). */
    cinfo->raw_data_in = pf_jpeg_uses_planes(components, subsampling) ? TRUE : FALSE;
    if (progressive) jpeg_simple_progression(cinfo);
    /* jpeg_set_defaults leaves optimize_coding off: the standard Huffman tables, the same in
       every band of pf_jpeg_encode_band. */
    cinfo->optimize_coding = FALSE;
    cinfo->restart_in_rows = restart_rows;
}

/* Writes the metadata segments; call right after jpeg_start_compress. */
static void pf_jpeg_write_metadata(j_compress_ptr cinfo, const pf_metadata_blocks *m) {
    if (m == NULL) return;
    if (m->exif != NULL && m->exif_size > 0) {
        if (m->exif_size + 6 > 65533)
            pf_jpeg_fail((j_common_ptr)cinfo, PF_ERROR, "the EXIF block is larger than a JPEG segment (65527 bytes)");
        jpeg_write_m_header(cinfo, JPEG_APP0 + 1, (unsigned int)(m->exif_size + 6));
        static const uint8_t prefix[6] = {'E', 'x', 'i', 'f', 0, 0};
        for (int i = 0; i < 6; i++) jpeg_write_m_byte(cinfo, prefix[i]);
        for (size_t i = 0; i < m->exif_size; i++) jpeg_write_m_byte(cinfo, m->exif[i]);
    }
    if (m->xmp != NULL && m->xmp_size > 0) {
        size_t prefix = sizeof pf_xmp_namespace;
        if (m->xmp_size + prefix > 65533)
            pf_jpeg_fail((j_common_ptr)cinfo, PF_ERROR, "the XMP packet is larger than a JPEG segment (extended XMP is not written)");
        jpeg_write_m_header(cinfo, JPEG_APP0 + 1, (unsigned int)(m->xmp_size + prefix));
        for (size_t i = 0; i < prefix; i++) jpeg_write_m_byte(cinfo, (uint8_t)pf_xmp_namespace[i]);
        for (size_t i = 0; i < m->xmp_size; i++) jpeg_write_m_byte(cinfo, m->xmp[i]);
    }
    if (m->icc != NULL && m->icc_size > 0) {
        if (m->icc_size > 255u * 65519u)
            pf_jpeg_fail((j_common_ptr)cinfo, PF_ERROR, "the ICC profile is larger than 255 JPEG segments");
        jpeg_write_icc_profile(cinfo, m->icc, (unsigned int)m->icc_size);
    }
}

int pf_jpeg_encode_restart(const uint8_t *pixels, size_t stride, uint32_t width, uint32_t height,
                           int components, int quality, int subsampling, int progressive,
                           int restart_rows, const pf_metadata_blocks *metadata,
                           uint8_t **output, size_t *output_size, char *message) {
    struct jpeg_compress_struct cinfo;
    pf_jpeg_error error;
    pf_jpeg_destination dest;
    memset(&cinfo, 0, sizeof cinfo);
    memset(&dest, 0, sizeof dest);
    *output = NULL;
    *output_size = 0;
    pf_jpeg_install_error(&error);
    error.message = message;
    error.status = PF_ERROR;
    cinfo.err = &error.pub;
    if (setjmp(error.jump)) {
        jpeg_destroy_compress(&cinfo);
        free(dest.data);
        return error.status;
    }
    jpeg_create_compress(&cinfo);
    dest.pub.init_destination = pf_jpeg_init_destination;
    dest.pub.empty_output_buffer = pf_jpeg_empty_output_buffer;
    dest.pub.term_destination = pf_jpeg_term_destination;
    cinfo.dest = &dest.pub;
    pf_jpeg_configure(&cinfo, width, height, components, quality, subsampling, progressive, restart_rows);

    jpeg_start_compress(&cinfo, TRUE);
    pf_jpeg_write_metadata(&cinfo, metadata);
    if (cinfo.raw_data_in) {
        pf_jpeg_planes planes;
        pf_jpeg_planes_start(&cinfo, &planes);
        pf_jpeg_planes_feed(&cinfo, &planes, pixels, stride, height);
        pf_jpeg_planes_finish(&cinfo, &planes);
    }
    while (!cinfo.raw_data_in && cinfo.next_scanline < cinfo.image_height) {
        JSAMPROW row = (JSAMPROW)(pixels + (size_t)cinfo.next_scanline * stride);
        jpeg_write_scanlines(&cinfo, &row, 1);
    }
    jpeg_finish_compress(&cinfo);
    jpeg_destroy_compress(&cinfo);

    *output = dest.data;
    *output_size = dest.size;
    return PF_OK;
}

int pf_jpeg_encode(const uint8_t *pixels, size_t stride, uint32_t width, uint32_t height,
                   int components, int quality, int subsampling, int progressive,
                   const pf_metadata_blocks *metadata,
                   uint8_t **output, size_t *output_size, char *message) {
    return pf_jpeg_encode_restart(pixels, stride, width, height, components, quality, subsampling,
                                  progressive, 0, metadata, output, output_size, message);
}

/* ---- banded encoding ---- */

int pf_jpeg_mcu_height(int components, int subsampling) {
    return components == 4 && subsampling == PF_JPEG_SUBSAMPLING_420 ? 16 : 8;
}

static int pf_jpeg_band_fail(char *message, const char *text) {
    if (message != NULL) snprintf(message, PF_MESSAGE_CAPACITY, "%s", text);
    return PF_ERROR;
}

int pf_jpeg_encode_band(const uint8_t *pixels, size_t stride, uint32_t width, uint32_t rows,
                        uint32_t image_height, uint32_t first_row, int components, int quality,
                        int subsampling, const pf_metadata_blocks *metadata,
                        uint8_t **output, size_t *output_size, char *message) {
    *output = NULL;
    *output_size = 0;
    uint32_t mcu = (uint32_t)pf_jpeg_mcu_height(components, subsampling);
    if (rows == 0 || first_row % mcu != 0 || first_row > image_height || rows > image_height - first_row ||
        (first_row + rows < image_height && rows % mcu != 0))
        return pf_jpeg_band_fail(message, "a band must start and end on a row of MCUs");
    if (image_height > 65535) return pf_jpeg_band_fail(message, "the image is taller than 65535 rows");
    int first = first_row == 0, last = first_row + rows == image_height;
    uint8_t *jpeg = NULL;
    size_t size = 0;
    int status = pf_jpeg_encode_restart(pixels, stride, width, rows, components, quality, subsampling, 0, 1,
                                        first ? metadata : NULL, &jpeg, &size, message);
    if (status != PF_OK) return status;

    /* Walk the marker segments to the SOS; note the frame header (SOF0...SOF2). */
    size_t i = 2, sof = 0, data = 0;
    while (i + 4 <= size && jpeg[i] == 0xFF) {
        uint8_t marker = jpeg[i + 1];
        size_t length = ((size_t)jpeg[i + 2] << 8) | jpeg[i + 3];
        if (marker >= 0xC0 && marker <= 0xC2) sof = i;
        if (marker == 0xDA) { data = i + 2 + length; break; }
        i += 2 + length;
    }
    /* libjpeg ends the file with the entropy-coded data, then EOI (FF D9). */
    if (sof == 0 || data == 0 || data + 2 > size || jpeg[size - 2] != 0xFF || jpeg[size - 1] != 0xD9) {
        free(jpeg);
        return pf_jpeg_band_fail(message, "libjpeg wrote an unexpected layout");
    }
    size_t end = last ? size : size - 2;
    if (first) {
        jpeg[sof + 5] = (uint8_t)(image_height >> 8); /* the frame's height: the image's */
        jpeg[sof + 6] = (uint8_t)image_height;
        *output = jpeg;
        *output_size = end;
        return PF_OK;
    }
    /* A later band: RST before its first row of MCUs, then its data with each RSTn numbered
       for the whole image (the RST before MCU row r is RST((r - 1) mod 8)). */
    uint32_t first_mcu_row = first_row / mcu;
    size_t count = end - data;
    uint8_t *band = (uint8_t *)malloc(count + 2);
    if (band == NULL) {
        free(jpeg);
        return pf_jpeg_band_fail(message, "out of memory");
    }
    band[0] = 0xFF;
    band[1] = (uint8_t)(0xD0 + ((first_mcu_row - 1) & 7));
    memcpy(band + 2, jpeg + data, count);
    free(jpeg);
    uint8_t *p = band + 2, *stop = band + 2 + count;
    while (p + 1 < stop) {
        p = memchr(p, 0xFF, (size_t)(stop - p - 1));
        if (p == NULL) break;
        uint8_t next = p[1];
        if (next >= 0xD0 && next <= 0xD7) p[1] = (uint8_t)(0xD0 + ((next - 0xD0 + first_mcu_row) & 7));
        p += 2; /* FF 00 (a stuffed byte) or FF Dn: neither starts a marker at p + 1 */
    }
    *output = band;
    *output_size = count + 2;
    return PF_OK;
}

/* ---- streaming encoding ---- */

struct pf_jpeg_encoder {
    struct jpeg_compress_struct cinfo;
    pf_jpeg_error error;
    pf_jpeg_fd_destination dest;
    int started;
    int finished;
    uint32_t rows_given;
    pf_jpeg_planes planes;
    /* Copies of the metadata blocks, written when the first rows arrive. */
    pf_metadata_blocks metadata;
    uint8_t *metadata_storage;
};

pf_jpeg_encoder *pf_jpeg_encoder_create(int fd, uint32_t width, uint32_t height, int components,
                                        int quality, int subsampling, int progressive, int restart_rows,
                                        const pf_metadata_blocks *metadata, char *message) {
    pf_jpeg_encoder *encoder = (pf_jpeg_encoder *)calloc(1, sizeof *encoder);
    if (encoder == NULL) {
        if (message != NULL) snprintf(message, PF_MESSAGE_CAPACITY, "out of memory");
        return NULL;
    }
    if (metadata != NULL) {
        size_t total = metadata->icc_size + metadata->exif_size + metadata->xmp_size;
        encoder->metadata_storage = malloc(total > 0 ? total : 1);
        if (encoder->metadata_storage == NULL) {
            free(encoder);
            if (message != NULL) snprintf(message, PF_MESSAGE_CAPACITY, "out of memory");
            return NULL;
        }
        uint8_t *p = encoder->metadata_storage;
        if (metadata->icc && metadata->icc_size) { memcpy(p, metadata->icc, metadata->icc_size); encoder->metadata.icc = p; encoder->metadata.icc_size = metadata->icc_size; p += metadata->icc_size; }
        if (metadata->exif && metadata->exif_size) { memcpy(p, metadata->exif, metadata->exif_size); encoder->metadata.exif = p; encoder->metadata.exif_size = metadata->exif_size; p += metadata->exif_size; }
        if (metadata->xmp && metadata->xmp_size) { memcpy(p, metadata->xmp, metadata->xmp_size); encoder->metadata.xmp = p; encoder->metadata.xmp_size = metadata->xmp_size; }
    }
    j_compress_ptr cinfo = &encoder->cinfo;
    pf_jpeg_install_error(&encoder->error);
    encoder->error.message = message;
    encoder->error.status = PF_ERROR;
    cinfo->err = &encoder->error.pub;
    if (setjmp(encoder->error.jump)) {
        jpeg_destroy_compress(cinfo);
        free(encoder->metadata_storage);
        free(encoder);
        return NULL;
    }
    jpeg_create_compress(cinfo);
    encoder->dest.fd = fd;
    encoder->dest.pub.init_destination = pf_jpeg_fd_init;
    encoder->dest.pub.empty_output_buffer = pf_jpeg_fd_empty;
    encoder->dest.pub.term_destination = pf_jpeg_fd_term;
    cinfo->dest = &encoder->dest.pub;
    pf_jpeg_configure(cinfo, width, height, components, quality, subsampling, progressive, restart_rows);
    return encoder;
}

int pf_jpeg_encoder_write_rows(pf_jpeg_encoder *encoder, const uint8_t *pixels, size_t stride,
                               uint32_t count, char *message) {
    j_compress_ptr cinfo = &encoder->cinfo;
    encoder->error.message = message;
    encoder->error.status = PF_ERROR;
    if (setjmp(encoder->error.jump)) return encoder->error.status;
    if (encoder->finished)
        pf_jpeg_fail((j_common_ptr)cinfo, PF_ERROR, "rows written after the end");
    if (count > cinfo->image_height - encoder->rows_given)
        pf_jpeg_fail((j_common_ptr)cinfo, PF_ERROR, "more rows written than the image has");
    if (!encoder->started) {
        encoder->started = 1;
        jpeg_start_compress(cinfo, TRUE);
        pf_jpeg_write_metadata(cinfo, &encoder->metadata);
        if (cinfo->raw_data_in) pf_jpeg_planes_start(cinfo, &encoder->planes);
    }
    encoder->rows_given += count;
    if (cinfo->raw_data_in) {
        if (count > 0) pf_jpeg_planes_feed(cinfo, &encoder->planes, pixels, stride, count);
        return PF_OK;
    }
    for (uint32_t i = 0; i < count; i++) {
        JSAMPROW row = (JSAMPROW)(pixels + (size_t)i * stride);
        jpeg_write_scanlines(cinfo, &row, 1);
    }
    return PF_OK;
}

int pf_jpeg_encoder_finish(pf_jpeg_encoder *encoder, char *message) {
    j_compress_ptr cinfo = &encoder->cinfo;
    encoder->error.message = message;
    encoder->error.status = PF_ERROR;
    if (setjmp(encoder->error.jump)) return encoder->error.status;
    if (!encoder->started || encoder->finished || encoder->rows_given != cinfo->image_height)
        pf_jpeg_fail((j_common_ptr)cinfo, PF_ERROR, "finished before every row was written");
    encoder->finished = 1;
    if (cinfo->raw_data_in) pf_jpeg_planes_finish(cinfo, &encoder->planes);
    jpeg_finish_compress(cinfo);
    return PF_OK;
}

void pf_jpeg_encoder_destroy(pf_jpeg_encoder *encoder) {
    if (encoder == NULL) return;
    jpeg_destroy_compress(&encoder->cinfo);
    free(encoder->metadata_storage);
    free(encoder);
}
