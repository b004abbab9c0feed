/* libtiff shims: every TIFF handle has its own error and warning handlers (nothing is printed
   and no global handler is touched), reads from or writes to memory, and reports failures as
   a status plus the first message libtiff gave. */
#include "CCodecShims.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tiffio.h>
#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>

static void pf_tiff_copy_message(char *message, const char *text) {
    if (message == NULL) return;
    if (text == NULL || text[0] == '\0') text = "unknown error";
    strncpy(message, text, PF_MESSAGE_CAPACITY - 1);
    message[PF_MESSAGE_CAPACITY - 1] = '\0';
}

/* The first error libtiff reported on a handle. */
typedef struct pf_tiff_errors {
    char text[PF_MESSAGE_CAPACITY];
    int count;
} pf_tiff_errors;

static int pf_tiff_error_handler(TIFF *tif, void *user_data, const char *module, const char *format,
                                 va_list arguments) {
    (void)tif;
    (void)module;
    pf_tiff_errors *errors = (pf_tiff_errors *)user_data;
    if (errors != NULL && errors->count++ == 0) {
        vsnprintf(errors->text, sizeof errors->text, format, arguments);
    }
    return 1; /* handled: libtiff calls no global handler */
}

static int pf_tiff_warning_handler(TIFF *tif, void *user_data, const char *module, const char *format,
                                   va_list arguments) {
    (void)tif;
    (void)user_data;
    (void)module;
    (void)format;
    (void)arguments;
    return 1;
}

/* Copies the first libtiff error into `message`, or `fallback` when there was none. */
static int pf_tiff_fail(const pf_tiff_errors *errors, const char *fallback, char *message) {
    pf_tiff_copy_message(message, errors->count > 0 ? errors->text : fallback);
    return PF_ERROR;
}

static TIFFOpenOptions *pf_tiff_options(pf_tiff_errors *errors, int64_t maximum_allocation) {
    TIFFOpenOptions *options = TIFFOpenOptionsAlloc();
    if (options == NULL) return NULL;
    if (maximum_allocation > 0) TIFFOpenOptionsSetMaxSingleMemAlloc(options, (tmsize_t)maximum_allocation);
    TIFFOpenOptionsSetErrorHandlerExtR(options, pf_tiff_error_handler, errors);
    TIFFOpenOptionsSetWarningHandlerExtR(options, pf_tiff_warning_handler, errors);
    return options;
}

/* ---- memory I/O ---- */

/* Bytes read from (`data`, `size`) or written to a growable buffer (`output`). */
typedef struct pf_tiff_memory {
    const uint8_t *data;
    size_t size;
    size_t offset;
    uint8_t *output;
    size_t capacity;
    /* Reading an open file with pread instead of `data` (decoders only). */
    int reads_fd;
    int fd;
} pf_tiff_memory;

static tmsize_t pf_tiff_read(thandle_t handle, void *buffer, tmsize_t count) {
    pf_tiff_memory *m = (pf_tiff_memory *)handle;
    if (count <= 0 || m->offset >= m->size) return 0;
    size_t n = (size_t)count;
    if (n > m->size - m->offset) n = m->size - m->offset;
    if (m->reads_fd) {
        /* Positional reads: decoders sharing the descriptor never move each other's offset. */
        size_t done = 0;
        while (done < n) {
            ssize_t got = pread(m->fd, (uint8_t *)buffer + done, n - done, (off_t)(m->offset + done));
            if (got < 0) {
                if (errno == EINTR) continue;
                return -1;
            }
            if (got == 0) break;
            done += (size_t)got;
        }
        m->offset += done;
        return (tmsize_t)done;
    }
    const uint8_t *source = m->output != NULL ? m->output : m->data;
    memcpy(buffer, source + m->offset, n);
    m->offset += n;
    return (tmsize_t)n;
}

static tmsize_t pf_tiff_write_refused(thandle_t handle, void *buffer, tmsize_t count) {
    (void)handle;
    (void)buffer;
    (void)count;
    return -1;
}

static tmsize_t pf_tiff_write(thandle_t handle, void *buffer, tmsize_t count) {
    pf_tiff_memory *m = (pf_tiff_memory *)handle;
    if (count < 0) return -1;
    size_t n = (size_t)count;
    if (n > SIZE_MAX - m->offset) return -1;
    size_t end = m->offset + n;
    if (end > m->capacity) {
        size_t capacity = m->capacity < 65536 ? 65536 : m->capacity;
        while (capacity < end) {
            if (capacity > SIZE_MAX / 2) {
                capacity = end;
                break;
            }
            capacity *= 2;
        }
        uint8_t *grown = (uint8_t *)realloc(m->output, capacity);
        if (grown == NULL) return -1;
        m->output = grown;
        m->capacity = capacity;
    }
    /* A seek past the end leaves a gap: fill it with zeros. */
    if (m->offset > m->size) memset(m->output + m->size, 0, m->offset - m->size);
    memcpy(m->output + m->offset, buffer, n);
    m->offset = end;
    if (end > m->size) m->size = end;
    return count;
}

static toff_t pf_tiff_seek(thandle_t handle, toff_t offset, int whence) {
    pf_tiff_memory *m = (pf_tiff_memory *)handle;
    uint64_t base;
    switch (whence) {
    case SEEK_SET: base = 0; break;
    case SEEK_CUR: base = m->offset; break;
    case SEEK_END: base = m->size; break;
    default: return (toff_t)-1;
    }
    /* libtiff passes negative relative offsets as huge unsigned values. */
    uint64_t target = base + (uint64_t)offset;
    if ((int64_t)offset < 0 ? target > base : target < base) return (toff_t)-1;
    if (target > (uint64_t)SIZE_MAX / 2) return (toff_t)-1;
    m->offset = (size_t)target;
    return (toff_t)target;
}

static int pf_tiff_close(thandle_t handle) {
    (void)handle;
    return 0;
}

static toff_t pf_tiff_size(thandle_t handle) { return (toff_t)((pf_tiff_memory *)handle)->size; }

static int pf_tiff_map(thandle_t handle, void **base, toff_t *size) {
    pf_tiff_memory *m = (pf_tiff_memory *)handle;
    if (m->output != NULL || m->data == NULL || m->reads_fd) return 0;
    /* libtiff only reads through a mapping of a file opened for reading. */
    *base = (void *)(uintptr_t)m->data;
    *size = (toff_t)m->size;
    return 1;
}

static int pf_tiff_no_map(thandle_t handle, void **base, toff_t *size) {
    (void)handle;
    (void)base;
    (void)size;
    return 0;
}

static void pf_tiff_unmap(thandle_t handle, void *base, toff_t size) {
    (void)handle;
    (void)base;
    (void)size;
}

/* ---- decoding ---- */

enum { PF_TIFF_PATH_DIRECT = 0, PF_TIFF_PATH_RGBA = 1 };

struct pf_tiff_decoder {
    pf_tiff_memory memory;
    pf_tiff_errors errors;
    TIFF *tif;
    int64_t maximum_allocation;
    /* The page pf_tiff_read_page_info made current, and how to read it. */
    int page_ready;
    pf_tiff_page_info info;
    int path;
    int bits;
    int samples;          /* samples per pixel in the file */
    int color_samples;    /* 1 gray or palette, 3 RGB, 4 CMYK */
    int alpha_index;      /* sample index of the alpha channel, or -1 */
    int associated;       /* alpha is premultiplied */
    int min_is_white;
    int separate;         /* PlanarConfiguration 2 */
    int palette_shift;    /* 8 for 16-bit colormap entries, 0 for 8-bit ones */
    uint16_t *colormap[3];
    /* Bands of the current page (pf_tiff_prepare_bands): a band is one strip (of every
       plane) or one row of tiles, `band_rows` tall, decoded with `scratch`. */
    uint32_t band_rows;
    tmsize_t line;        /* bytes of a scanline (strips) or of a tile row (tiles) */
    tmsize_t chunk_size;  /* bytes of a strip or a tile */
    uint8_t *scratch;     /* one strip or tile, plus 8 bytes */
    /* Rows handed out one by one (pf_tiff_rows_begin): the band holding `band_first`... */
    uint8_t *band;        /* band_rows output rows, `band_stride` apart */
    size_t band_stride;
    uint32_t band_first;  /* first row of the band held in `band` */
    uint32_t band_count;  /* rows of it, 0 when none is held */
    uint32_t next_row;
    int rows_ready;
};

static int pf_tiff_decoder_open_any(const uint8_t *data, int fd, size_t size, int64_t maximum_allocation,
                                    pf_tiff_decoder **result, char *message);

int pf_tiff_decoder_open(const uint8_t *data, size_t size, int64_t maximum_allocation,
                         pf_tiff_decoder **result, char *message) {
    return pf_tiff_decoder_open_any(data, -1, size, maximum_allocation, result, message);
}

int pf_tiff_decoder_open_fd(int fd, uint64_t size, int64_t maximum_allocation,
                            pf_tiff_decoder **result, char *message) {
    if (size > (uint64_t)SIZE_MAX / 2) {
        *result = NULL;
        pf_tiff_copy_message(message, "the file is too large");
        return PF_ERROR;
    }
    return pf_tiff_decoder_open_any(NULL, fd, (size_t)size, maximum_allocation, result, message);
}

static int pf_tiff_decoder_open_any(const uint8_t *data, int fd, size_t size, int64_t maximum_allocation,
                                    pf_tiff_decoder **result, char *message) {
    *result = NULL;
    pf_tiff_decoder *d = (pf_tiff_decoder *)calloc(1, sizeof *d);
    if (d == NULL) {
        pf_tiff_copy_message(message, "out of memory");
        return PF_OUT_OF_MEMORY;
    }
    d->memory.data = data;
    d->memory.size = size;
    d->memory.reads_fd = fd >= 0;
    d->memory.fd = fd;
    d->maximum_allocation = maximum_allocation;
    TIFFOpenOptions *options = pf_tiff_options(&d->errors, maximum_allocation);
    if (options == NULL) {
        free(d);
        pf_tiff_copy_message(message, "out of memory");
        return PF_OUT_OF_MEMORY;
    }
    d->tif = TIFFClientOpenExt("TIFF", "r", (thandle_t)&d->memory, pf_tiff_read, pf_tiff_write_refused,
                               pf_tiff_seek, pf_tiff_close, pf_tiff_size, pf_tiff_map, pf_tiff_unmap,
                               options);
    TIFFOpenOptionsFree(options);
    if (d->tif == NULL) {
        int status = pf_tiff_fail(&d->errors, "not a readable TIFF", message);
        free(d);
        return status;
    }
    *result = d;
    return PF_OK;
}

void pf_tiff_decoder_destroy(pf_tiff_decoder *d) {
    if (d == NULL) return;
    if (d->tif != NULL) TIFFClose(d->tif);
    free(d->scratch);
    free(d->band);
    free(d);
}

int pf_tiff_count_pages(pf_tiff_decoder *d, uint32_t limit, uint32_t *count, char *message) {
    d->errors.count = 0;
    d->page_ready = 0;
    d->rows_ready = 0;
    if (!TIFFSetDirectory(d->tif, 0)) return pf_tiff_fail(&d->errors, "the first page cannot be read", message);
    uint32_t n = 1;
    for (;;) {
        if (n > limit) break;
        /* Errors libtiff reports while still reading a directory are not failures. */
        d->errors.count = 0;
        if (!TIFFReadDirectory(d->tif)) break;
        n++;
    }
    /* TIFFReadDirectory returns 0 at the end of the chain and on errors (a truncated or
       corrupt directory, a loop): only the second is reported. */
    if (n <= limit && d->errors.count > 0) {
        char text[PF_MESSAGE_CAPACITY];
        snprintf(text, sizeof text, "page %u cannot be read: %s", (unsigned)n, d->errors.text);
        pf_tiff_copy_message(message, text);
        return PF_ERROR;
    }
    *count = n;
    return PF_OK;
}

static int pf_tiff_unsupported(pf_tiff_decoder *d, pf_tiff_page_info *info, const char *reason, char *message) {
    d->info.supported = 0;
    *info = d->info;
    pf_tiff_copy_message(message, reason);
    return PF_OK;
}

int pf_tiff_read_page_info(pf_tiff_decoder *d, uint32_t index, pf_tiff_page_info *info, char *message) {
    TIFF *tif = d->tif;
    d->errors.count = 0;
    d->page_ready = 0;
    d->rows_ready = 0;
    memset(&d->info, 0, sizeof d->info);
    memset(info, 0, sizeof *info);
    if (!TIFFSetDirectory(tif, (tdir_t)index)) {
        return pf_tiff_fail(&d->errors, "the page cannot be read", message);
    }
    pf_tiff_page_info *p = &d->info;
    uint32_t width = 0, height = 0;
    uint16_t bits = 1, samples = 1, sample_format = SAMPLEFORMAT_UINT, planar = PLANARCONFIG_CONTIG;
    uint16_t photometric = 0, compression = COMPRESSION_NONE, orientation = ORIENTATION_TOPLEFT;
    uint16_t ink_set = INKSET_CMYK, extra_count = 0;
    uint16_t *extra_types = NULL;
    if (!TIFFGetField(tif, TIFFTAG_IMAGEWIDTH, &width) || !TIFFGetField(tif, TIFFTAG_IMAGELENGTH, &height)) {
        return pf_tiff_fail(&d->errors, "the page has no ImageWidth or ImageLength", message);
    }
    TIFFGetFieldDefaulted(tif, TIFFTAG_BITSPERSAMPLE, &bits);
    TIFFGetFieldDefaulted(tif, TIFFTAG_SAMPLESPERPIXEL, &samples);
    TIFFGetFieldDefaulted(tif, TIFFTAG_SAMPLEFORMAT, &sample_format);
    TIFFGetFieldDefaulted(tif, TIFFTAG_PLANARCONFIG, &planar);
    TIFFGetFieldDefaulted(tif, TIFFTAG_COMPRESSION, &compression);
    TIFFGetFieldDefaulted(tif, TIFFTAG_ORIENTATION, &orientation);
    TIFFGetFieldDefaulted(tif, TIFFTAG_INKSET, &ink_set);
    TIFFGetFieldDefaulted(tif, TIFFTAG_EXTRASAMPLES, &extra_count, &extra_types);
    if (!TIFFGetField(tif, TIFFTAG_PHOTOMETRIC, &photometric)) {
        photometric = samples >= 3 ? PHOTOMETRIC_RGB : PHOTOMETRIC_MINISBLACK;
    }
    uint32_t icc_size = 0, xmp_size = 0;
    void *icc = NULL, *xmp = NULL;
    if (TIFFGetField(tif, TIFFTAG_ICCPROFILE, &icc_size, &icc) && icc != NULL && icc_size > 0) {
        p->icc = (const uint8_t *)icc;
        p->icc_size = icc_size;
    }
    if (TIFFGetField(tif, TIFFTAG_XMLPACKET, &xmp_size, &xmp) && xmp != NULL && xmp_size > 0) {
        p->xmp = (const uint8_t *)xmp;
        p->xmp_size = xmp_size;
    }

    p->width = width;
    p->height = height;
    p->bits_per_sample = bits;
    p->samples_per_pixel = samples;
    p->orientation = orientation >= 1 && orientation <= 8 ? orientation : 1;
    if (TIFFIsTiled(tif)) {
        TIFFGetField(tif, TIFFTAG_TILEWIDTH, &p->tile_width);
        TIFFGetField(tif, TIFFTAG_TILELENGTH, &p->tile_height);
        if (p->tile_width == 0 || p->tile_height == 0) {
            return pf_tiff_fail(&d->errors, "a tile has no size", message);
        }
    }

    int color_samples = extra_count <= samples ? samples - extra_count : 0;
    d->alpha_index = -1;
    d->associated = 0;
    if (extra_count > 0 && extra_types != NULL && color_samples > 0 &&
        (extra_types[0] == EXTRASAMPLE_ASSOCALPHA || extra_types[0] == EXTRASAMPLE_UNASSALPHA)) {
        d->alpha_index = color_samples;
        d->associated = extra_types[0] == EXTRASAMPLE_ASSOCALPHA;
        p->has_alpha = 1;
    }
    d->bits = bits;
    d->samples = samples;
    d->color_samples = color_samples;
    d->separate = planar == PLANARCONFIG_SEPARATE && samples > 1;
    d->min_is_white = photometric == PHOTOMETRIC_MINISWHITE;
    d->path = PF_TIFF_PATH_DIRECT;

    int direct = 0;
    switch (photometric) {
    case PHOTOMETRIC_MINISBLACK:
    case PHOTOMETRIC_MINISWHITE:
        p->color_model = PF_TIFF_MODEL_GRAY;
        direct = color_samples == 1;
        break;
    case PHOTOMETRIC_RGB:
        p->color_model = PF_TIFF_MODEL_RGB;
        direct = color_samples == 3;
        break;
    case PHOTOMETRIC_PALETTE:
        p->color_model = PF_TIFF_MODEL_PALETTE;
        direct = color_samples == 1 && bits <= 16 &&
                 TIFFGetField(tif, TIFFTAG_COLORMAP, &d->colormap[0], &d->colormap[1], &d->colormap[2]);
        break;
    case PHOTOMETRIC_SEPARATED:
        p->color_model = ink_set == INKSET_CMYK && color_samples == 4 ? PF_TIFF_MODEL_CMYK : PF_TIFF_MODEL_OTHER;
        direct = p->color_model == PF_TIFF_MODEL_CMYK;
        break;
    case PHOTOMETRIC_YCBCR:
        p->color_model = PF_TIFF_MODEL_YCBCR;
        /* libjpeg converts JPEG-compressed YCbCr to RGB; the rest goes through TIFFRGBAImage. */
        if (compression == COMPRESSION_JPEG && color_samples == 3 && bits == 8) {
            direct = TIFFSetField(tif, TIFFTAG_JPEGCOLORMODE, JPEGCOLORMODE_RGB);
        }
        break;
    default:
        p->color_model = PF_TIFF_MODEL_OTHER;
        break;
    }
    if (sample_format != SAMPLEFORMAT_UINT && sample_format != SAMPLEFORMAT_VOID) direct = 0;
    if (bits < 1 || bits > 16 || compression == COMPRESSION_OJPEG) direct = 0;

    if (!direct) {
        char reason[1024];
        if (sample_format == SAMPLEFORMAT_IEEEFP) {
            return pf_tiff_unsupported(d, info, "floating-point samples are not supported", message);
        }
        if (bits > 16) {
            snprintf(reason, sizeof reason, "%u-bit samples are not supported (at most 16)", (unsigned)bits);
            return pf_tiff_unsupported(d, info, reason, message);
        }
        reason[0] = '\0';
        if (!TIFFRGBAImageOK(tif, reason)) {
            if (reason[0] == '\0') snprintf(reason, sizeof reason, "photometric interpretation %u is not supported",
                                            (unsigned)photometric);
            return pf_tiff_unsupported(d, info, reason, message);
        }
        d->path = PF_TIFF_PATH_RGBA;
        p->output = PF_TIFF_OUTPUT_RGBA8;
        p->supported = 1;
    } else {
        p->is_cmyk = p->color_model == PF_TIFF_MODEL_CMYK;
        /* CMYK fills all four output channels: its alpha is reported but not read. */
        if (p->is_cmyk) d->alpha_index = -1;
        if (p->color_model == PF_TIFF_MODEL_PALETTE) {
            p->output = PF_TIFF_OUTPUT_RGBA8;
            /* Some writers store 8-bit values in the 16-bit colormap (libtiff's checkcmap). */
            size_t entries = (size_t)1 << bits;
            d->palette_shift = 0;
            for (size_t i = 0; i < entries && d->palette_shift == 0; i++) {
                if (d->colormap[0][i] >= 256 || d->colormap[1][i] >= 256 || d->colormap[2][i] >= 256)
                    d->palette_shift = 8;
            }
        } else if (bits > 8) {
            p->output = PF_TIFF_OUTPUT_RGBA16;
        } else if (p->color_model == PF_TIFF_MODEL_GRAY && !p->has_alpha) {
            p->output = PF_TIFF_OUTPUT_GRAY8;
        } else {
            p->output = PF_TIFF_OUTPUT_RGBA8;
        }
        /* The layout must have sizes libtiff can compute without overflow. */
        if (TIFFIsTiled(tif)) {
            uint64_t tile = TIFFTileSize64(tif), row = TIFFTileRowSize64(tif);
            if (tile == 0 || row == 0 || row > tile) return pf_tiff_fail(&d->errors, "the tile layout is invalid", message);
            if (d->maximum_allocation > 0 && tile > (uint64_t)d->maximum_allocation) {
                return pf_tiff_fail(&d->errors, "a tile is larger than the memory limit", message);
            }
        } else {
            uint64_t line = TIFFScanlineSize64(tif);
            if (line == 0 || TIFFNumberOfStrips(tif) == 0) {
                return pf_tiff_fail(&d->errors, "the strip layout is invalid", message);
            }
            if (line > ((uint64_t)width * 16 * samples + 7) / 8 + 16) {
                return pf_tiff_fail(&d->errors, "the strip layout is invalid", message);
            }
        }
        p->supported = 1;
    }
    d->page_ready = 1;
    *info = *p;
    return PF_OK;
}

/* Sample `index` of a row of `bits`-bit samples packed from the most significant bit (the
   buffer has 4 readable bytes past the row). */
static inline uint32_t pf_tiff_sample(const uint8_t *row, uint64_t index, int bits) {
    if (bits == 8) return row[index];
    if (bits == 16) {
        uint16_t v;
        memcpy(&v, row + 2 * index, 2);
        return v;
    }
    uint64_t bit = index * (uint64_t)bits;
    const uint8_t *p = row + (bit >> 3);
    uint32_t word = (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2];
    return (word >> (24 - (bit & 7) - (unsigned)bits)) & ((1u << bits) - 1);
}

/* `value` of `bits` bits scaled to 0...255 or 0...65535 (rounded). */
static inline uint32_t pf_tiff_scale(uint32_t value, int bits, int to16) {
    uint32_t top = (1u << bits) - 1, target = to16 ? 65535 : 255;
    if ((uint32_t)bits == (to16 ? 16u : 8u)) return value;
    if (to16 && bits == 8) return value * 257;
    return (uint32_t)(((uint64_t)value * target + top / 2) / top);
}

/* Stores sample `c` (file order) of `count` pixels of a span into the output pixels at `out`.
   `step` is how many samples apart the pixels are in `source` (the samples per pixel of a
   contiguous row, 1 for a plane), `first` the index of sample `c` of the first pixel. */
static void pf_tiff_store_span(const pf_tiff_decoder *d, int c, const uint8_t *source, uint32_t first,
                               uint32_t step, uint32_t count, uint8_t *out) {
    const int bits = d->bits, output = d->info.output, to16 = output == PF_TIFF_OUTPUT_RGBA16;
    const uint32_t top = (1u << bits) - 1;
    const int model = d->info.color_model;
    const int is_color = c < d->color_samples;
    const int fill_alpha = c == 0 && d->alpha_index < 0 && !d->info.is_cmyk;
    uint16_t *out16 = (uint16_t *)(void *)out;
    for (uint32_t i = 0; i < count; i++) {
        uint32_t v = pf_tiff_sample(source, (uint64_t)first + (uint64_t)i * step, bits);
        if (output == PF_TIFF_OUTPUT_GRAY8) {
            if (d->min_is_white) v = top - v;
            out[i] = (uint8_t)pf_tiff_scale(v, bits, 0);
            continue;
        }
        if (c == d->alpha_index) {
            if (to16) out16[4 * i + 3] = (uint16_t)pf_tiff_scale(v, bits, 1);
            else out[4 * i + 3] = (uint8_t)pf_tiff_scale(v, bits, 0);
            continue;
        }
        if (!is_color) continue;
        if (model == PF_TIFF_MODEL_PALETTE) {
            int s = d->palette_shift;
            out[4 * i] = (uint8_t)(d->colormap[0][v] >> s);
            out[4 * i + 1] = (uint8_t)(d->colormap[1][v] >> s);
            out[4 * i + 2] = (uint8_t)(d->colormap[2][v] >> s);
        } else if (model == PF_TIFF_MODEL_GRAY) {
            if (d->min_is_white) v = top - v;
            uint32_t g = pf_tiff_scale(v, bits, to16);
            if (to16) out16[4 * i] = out16[4 * i + 1] = out16[4 * i + 2] = (uint16_t)g;
            else out[4 * i] = out[4 * i + 1] = out[4 * i + 2] = (uint8_t)g;
        } else {
            uint32_t s = pf_tiff_scale(v, bits, to16);
            if (to16) out16[4 * i + c] = (uint16_t)s;
            else out[4 * i + c] = (uint8_t)s;
        }
        if (fill_alpha) {
            if (to16) out16[4 * i + 3] = 65535;
            else out[4 * i + 3] = 255;
        }
    }
}

/* Whether sample `c` is read at all (extra samples besides alpha are skipped). */
static int pf_tiff_wanted(const pf_tiff_decoder *d, int c) {
    return c < d->color_samples || c == d->alpha_index;
}

/* All wanted samples of `count` pixels of a contiguous span, or sample `plane` of a plane. */
static void pf_tiff_store(const pf_tiff_decoder *d, int plane, const uint8_t *source, uint32_t count,
                          uint8_t *out) {
    if (d->separate) {
        pf_tiff_store_span(d, plane, source, 0, 1, count, out);
        return;
    }
    /* The common layouts, 8-bit RGB(A) and gray, without the per-sample dispatch. */
    if (d->bits == 8 && !d->min_is_white && d->info.output == PF_TIFF_OUTPUT_RGBA8 &&
        (d->info.color_model == PF_TIFF_MODEL_RGB || d->info.color_model == PF_TIFF_MODEL_YCBCR ||
         d->info.color_model == PF_TIFF_MODEL_GRAY)) {
        const size_t step = (size_t)d->samples;
        const int gray = d->info.color_model == PF_TIFF_MODEL_GRAY, alpha = d->alpha_index;
        for (uint32_t i = 0; i < count; i++) {
            const uint8_t *s = source + i * step;
            out[4 * i] = s[0];
            out[4 * i + 1] = gray ? s[0] : s[1];
            out[4 * i + 2] = gray ? s[0] : s[2];
            out[4 * i + 3] = alpha >= 0 ? s[alpha] : 255;
        }
        return;
    }
    if (d->bits == 8 && d->info.output == PF_TIFF_OUTPUT_GRAY8 && !d->min_is_white && d->samples == 1) {
        memcpy(out, source, count);
        return;
    }
    for (int c = 0; c < d->samples; c++) {
        if (pf_tiff_wanted(d, c)) pf_tiff_store_span(d, c, source, (uint32_t)c, (uint32_t)d->samples, count, out);
    }
}

/* Straight alpha from premultiplied, in place over `rows` output rows. */
static void pf_tiff_unpremultiply(const pf_tiff_page_info *info, uint8_t *pixels, size_t stride, uint32_t rows) {
    for (uint32_t y = 0; y < rows; y++) {
        uint8_t *row = pixels + (size_t)y * stride;
        if (info->output == PF_TIFF_OUTPUT_RGBA16) {
            uint16_t *p = (uint16_t *)(void *)row;
            for (uint32_t x = 0; x < info->width; x++, p += 4) {
                uint32_t a = p[3];
                for (int c = 0; c < 3; c++) {
                    uint32_t v = a == 0 ? 0 : (uint32_t)(((uint64_t)p[c] * 65535 + a / 2) / a);
                    p[c] = (uint16_t)(v > 65535 ? 65535 : v);
                }
            }
        } else {
            uint8_t *p = row;
            for (uint32_t x = 0; x < info->width; x++, p += 4) {
                uint32_t a = p[3];
                for (int c = 0; c < 3; c++) {
                    uint32_t v = a == 0 ? 0 : (p[c] * 255u + a / 2) / a;
                    p[c] = (uint8_t)(v > 255 ? 255 : v);
                }
            }
        }
    }
}

static size_t pf_tiff_bytes_per_pixel(int output) {
    return output == PF_TIFF_OUTPUT_GRAY8 ? 1 : output == PF_TIFF_OUTPUT_RGBA8 ? 4 : 8;
}

/* Sizes the bands of the current page and allocates the scratch strip or tile. Strips are
   read whole through TIFFReadEncodedStrip (not scanline by scanline: some writers, tifffile
   among them, let PackBits runs cross rows, which libtiff's scanline reading cuts); libtiff
   chops a single uncompressed strip into small ones, so the scratch stays small for those. */
static int pf_tiff_prepare_bands(pf_tiff_decoder *d, char *message) {
    TIFF *tif = d->tif;
    free(d->scratch);
    d->scratch = NULL;
    if (TIFFIsTiled(tif)) {
        d->band_rows = d->info.tile_height;
        d->chunk_size = TIFFTileSize(tif);
        d->line = TIFFTileRowSize(tif);
        if (d->chunk_size <= 0 || d->line <= 0) return pf_tiff_fail(&d->errors, "the tile layout is invalid", message);
    } else {
        uint32_t rows_per_strip = 0;
        TIFFGetFieldDefaulted(tif, TIFFTAG_ROWSPERSTRIP, &rows_per_strip);
        if (rows_per_strip == 0 || rows_per_strip > d->info.height) rows_per_strip = d->info.height;
        d->band_rows = rows_per_strip;
        d->line = TIFFScanlineSize(tif);
        d->chunk_size = TIFFStripSize(tif);
        if (d->line <= 0 || d->chunk_size <= 0 ||
            (uint64_t)d->chunk_size < (uint64_t)d->line * rows_per_strip) {
            return pf_tiff_fail(&d->errors, "the strip layout is invalid", message);
        }
        if (d->maximum_allocation > 0 && (uint64_t)d->chunk_size > (uint64_t)d->maximum_allocation) {
            return pf_tiff_fail(&d->errors, "a strip is larger than the memory limit", message);
        }
    }
    d->scratch = (uint8_t *)calloc(1, (size_t)d->chunk_size + 8);
    if (d->scratch == NULL) {
        pf_tiff_copy_message(message, "out of memory");
        return PF_OUT_OF_MEMORY;
    }
    return PF_OK;
}

/* Decodes the band whose first row is `y` (a multiple of band_rows) into output rows
   `stride` apart from `out`: its strip or row of tiles in each plane, each row converted by
   pf_tiff_store, then un-premultiplied. The full decode and the row reader both go through
   here, so they make the same libtiff calls in the same order and give the same bytes. */
static int pf_tiff_decode_band(pf_tiff_decoder *d, uint32_t y, uint8_t *out, size_t stride, char *message) {
    TIFF *tif = d->tif;
    const uint32_t width = d->info.width, height = d->info.height;
    const uint32_t rows = height - y < d->band_rows ? height - y : d->band_rows;
    const int planes = d->separate ? d->samples : 1;
    const int tiled = TIFFIsTiled(tif);
    const size_t pixel_bytes = pf_tiff_bytes_per_pixel(d->info.output);
    for (int plane = 0; plane < planes; plane++) {
        if (d->separate && !pf_tiff_wanted(d, plane)) continue;
        if (!tiled) {
            uint32_t strip = TIFFComputeStrip(tif, y, (uint16_t)plane);
            memset(d->scratch, 0, (size_t)d->chunk_size + 8);
            if (TIFFReadEncodedStrip(tif, strip, d->scratch, d->chunk_size) < 0) {
                return pf_tiff_fail(&d->errors, "a strip cannot be decoded", message);
            }
            for (uint32_t r = 0; r < rows; r++) {
                pf_tiff_store(d, plane, d->scratch + (size_t)r * (size_t)d->line, width, out + (size_t)r * stride);
            }
            continue;
        }
        const uint32_t tile_width = d->info.tile_width;
        for (uint64_t tx = 0; tx < width; tx += tile_width) {
            uint32_t tile = TIFFComputeTile(tif, (uint32_t)tx, y, 0, (uint16_t)plane);
            if (TIFFReadEncodedTile(tif, tile, d->scratch, d->chunk_size) < 0) {
                return pf_tiff_fail(&d->errors, "a tile cannot be decoded", message);
            }
            uint32_t columns = width - tx < tile_width ? width - (uint32_t)tx : tile_width;
            for (uint32_t r = 0; r < rows; r++) {
                if ((uint64_t)(r + 1) * (uint64_t)d->line > (uint64_t)d->chunk_size) break;
                pf_tiff_store(d, plane, d->scratch + (size_t)r * (size_t)d->line, columns,
                              out + (size_t)r * stride + (size_t)tx * pixel_bytes);
            }
        }
    }
    if (d->alpha_index >= 0 && d->associated && !d->info.is_cmyk) {
        pf_tiff_unpremultiply(&d->info, out, stride, rows);
    }
    return PF_OK;
}

/* Every band of the current page, top to bottom, into `pixels`. */
static int pf_tiff_read_bands(pf_tiff_decoder *d, uint8_t *pixels, size_t stride, char *message) {
    int status = pf_tiff_prepare_bands(d, message);
    for (uint64_t y = 0; status == PF_OK && y < d->info.height; y += d->band_rows) {
        status = pf_tiff_decode_band(d, (uint32_t)y, pixels + (size_t)y * stride, stride, message);
    }
    free(d->scratch);
    d->scratch = NULL;
    return status;
}

/* Through TIFFRGBAImage: packed ABGR words, premultiplied when there is alpha. */
static int pf_tiff_read_rgba(pf_tiff_decoder *d, uint8_t *pixels, size_t stride, char *message) {
    const uint32_t width = d->info.width, height = d->info.height;
    TIFFRGBAImage image;
    char reason[1024] = "";
    if (!TIFFRGBAImageBegin(&image, d->tif, 1, reason)) {
        pf_tiff_copy_message(message, reason[0] ? reason : "the page cannot be read as RGBA");
        return PF_ERROR;
    }
    /* Rows as stored: ask for the file's own orientation, so nothing is flipped. */
    image.req_orientation = image.orientation;
    int packed = stride == (size_t)width * 4;
    uint32_t *raster = packed ? (uint32_t *)(void *)pixels : (uint32_t *)malloc((size_t)width * height * 4);
    if (raster == NULL) {
        TIFFRGBAImageEnd(&image);
        pf_tiff_copy_message(message, "out of memory");
        return PF_OUT_OF_MEMORY;
    }
    int ok = TIFFRGBAImageGet(&image, raster, width, height);
    int premultiplied = image.alpha != 0;
    TIFFRGBAImageEnd(&image);
    if (!ok) {
        if (!packed) free(raster);
        return pf_tiff_fail(&d->errors, "the page cannot be decoded", message);
    }
    for (uint32_t y = 0; y < height; y++) {
        const uint32_t *source = raster + (size_t)y * width;
        uint8_t *out = pixels + (size_t)y * stride;
        for (uint32_t x = 0; x < width; x++) {
            uint32_t v = source[x];
            out[4 * x] = (uint8_t)TIFFGetR(v);
            out[4 * x + 1] = (uint8_t)TIFFGetG(v);
            out[4 * x + 2] = (uint8_t)TIFFGetB(v);
            out[4 * x + 3] = (uint8_t)TIFFGetA(v);
        }
    }
    if (!packed) free(raster);
    if (premultiplied) pf_tiff_unpremultiply(&d->info, pixels, stride, height);
    return PF_OK;
}

int pf_tiff_read_pixels(pf_tiff_decoder *d, uint8_t *pixels, size_t stride, char *message) {
    if (!d->page_ready || !d->info.supported) {
        pf_tiff_copy_message(message, "no readable page was selected");
        return PF_ERROR;
    }
    d->page_ready = 0;
    d->errors.count = 0;
    if (d->path == PF_TIFF_PATH_RGBA) return pf_tiff_read_rgba(d, pixels, stride, message);
    return pf_tiff_read_bands(d, pixels, stride, message);
}

int pf_tiff_rows_begin(pf_tiff_decoder *d, uint32_t maximum_band_rows, uint64_t maximum_band_bytes,
                       int *streamable, char *message) {
    *streamable = 0;
    if (!d->page_ready || !d->info.supported) {
        pf_tiff_copy_message(message, "no readable page was selected");
        return PF_ERROR;
    }
    d->errors.count = 0;
    if (d->path != PF_TIFF_PATH_DIRECT) {
        pf_tiff_copy_message(message, "the page is read through libtiff's RGBA interface");
        return PF_OK;
    }
    int status = pf_tiff_prepare_bands(d, message);
    if (status != PF_OK) return status;
    const uint64_t stride = (uint64_t)d->info.width * pf_tiff_bytes_per_pixel(d->info.output);
    const uint64_t bytes = (uint64_t)d->band_rows * stride + (uint64_t)d->chunk_size;
    if (d->band_rows > maximum_band_rows || bytes > maximum_band_bytes) {
        free(d->scratch);
        d->scratch = NULL;
        pf_tiff_copy_message(message, "a strip or row of tiles is too large to stream");
        return PF_OK;
    }
    free(d->band);
    d->band = (uint8_t *)malloc((size_t)(d->band_rows * stride));
    if (d->band == NULL) {
        pf_tiff_copy_message(message, "out of memory");
        return PF_OUT_OF_MEMORY;
    }
    d->band_stride = (size_t)stride;
    d->band_count = 0;
    d->next_row = 0;
    d->page_ready = 0;
    d->rows_ready = 1;
    *streamable = 1;
    return PF_OK;
}

int pf_tiff_rows_read(pf_tiff_decoder *d, uint8_t *const *rows, uint32_t count, char *message) {
    if (!d->rows_ready || count > d->info.height - d->next_row) {
        pf_tiff_copy_message(message, "rows past the end of the page, or no page to read rows from");
        return PF_ERROR;
    }
    for (uint32_t i = 0; i < count; i++) {
        const uint32_t y = d->next_row;
        if (d->band_count == 0 || y >= d->band_first + d->band_count) {
            const uint32_t first = y - y % d->band_rows;
            d->band_count = 0;
            d->errors.count = 0;
            int status = pf_tiff_decode_band(d, first, d->band, d->band_stride, message);
            if (status != PF_OK) {
                d->rows_ready = 0;
                return status;
            }
            d->band_first = first;
            d->band_count = d->info.height - first < d->band_rows ? d->info.height - first : d->band_rows;
        }
        memcpy(rows[i], d->band + (size_t)(y - d->band_first) * d->band_stride, d->band_stride);
        d->next_row++;
    }
    return PF_OK;
}

/* ---- encoding ---- */

static int pf_tiff_input_bits(int input) {
    return input == PF_TIFF_INPUT_RGBA16 || input == PF_TIFF_INPUT_RGBA16_AS_RGB ? 16 : 8;
}

static int pf_tiff_input_samples(int input) {
    return input == PF_TIFF_INPUT_GRAY8 ? 1
         : input == PF_TIFF_INPUT_RGBA8_AS_RGB || input == PF_TIFF_INPUT_RGBA16_AS_RGB ? 3 : 4;
}

/* The checks both encoders make before opening anything. */
static int pf_tiff_check_encoding(uint32_t width, uint32_t height, int input, int compression, size_t icc_size,
                                  size_t xmp_size, char *message) {
    if (width == 0 || height == 0) {
        pf_tiff_copy_message(message, "the image is empty");
        return PF_ERROR;
    }
    if (compression == PF_TIFF_COMPRESSION_JPEG && pf_tiff_input_bits(input) != 8) {
        pf_tiff_copy_message(message, "JPEG compression takes 8-bit samples only");
        return PF_ERROR;
    }
    if (icc_size > UINT32_MAX || xmp_size > UINT32_MAX) {
        pf_tiff_copy_message(message, "a metadata block is larger than 4 GiB");
        return PF_ERROR;
    }
    return PF_OK;
}

/* Sets every field of the page both encoders write and allocates `*line`, one scanline the
   predictor may difference in place (free it). Returns 0 on failure. */
static int pf_tiff_set_page_fields(TIFF *tif, uint32_t width, uint32_t height, int input, int compression,
                                   int quality, const uint8_t *icc, size_t icc_size, const uint8_t *xmp,
                                   size_t xmp_size, uint8_t **line) {
    *line = NULL;
    const int bits = pf_tiff_input_bits(input), samples = pf_tiff_input_samples(input);
    uint16_t tiff_compression = COMPRESSION_NONE;
    switch (compression) {
    case PF_TIFF_COMPRESSION_LZW: tiff_compression = COMPRESSION_LZW; break;
    case PF_TIFF_COMPRESSION_DEFLATE: tiff_compression = COMPRESSION_ADOBE_DEFLATE; break;
    case PF_TIFF_COMPRESSION_PACKBITS: tiff_compression = COMPRESSION_PACKBITS; break;
    case PF_TIFF_COMPRESSION_JPEG: tiff_compression = COMPRESSION_JPEG; break;
    default: break;
    }
    int ycbcr = compression == PF_TIFF_COMPRESSION_JPEG && samples == 3;
    size_t row_bytes = (size_t)width * (size_t)samples * (size_t)(bits / 8);
    uint32_t rows_per_strip = row_bytes >= 65536 ? 1 : (uint32_t)(65536 / row_bytes);
    if (compression == PF_TIFF_COMPRESSION_JPEG) rows_per_strip = (rows_per_strip + 15) / 16 * 16;
    if (rows_per_strip > height) rows_per_strip = height;

    int ok = TIFFSetField(tif, TIFFTAG_IMAGEWIDTH, width) && TIFFSetField(tif, TIFFTAG_IMAGELENGTH, height) &&
             TIFFSetField(tif, TIFFTAG_BITSPERSAMPLE, (uint16_t)bits) &&
             TIFFSetField(tif, TIFFTAG_SAMPLESPERPIXEL, (uint16_t)samples) &&
             TIFFSetField(tif, TIFFTAG_PLANARCONFIG, (uint16_t)PLANARCONFIG_CONTIG) &&
             TIFFSetField(tif, TIFFTAG_ORIENTATION, (uint16_t)ORIENTATION_TOPLEFT) &&
             TIFFSetField(tif, TIFFTAG_COMPRESSION, tiff_compression);
    if (ok && samples == 4) {
        uint16_t extra = EXTRASAMPLE_UNASSALPHA;
        ok = TIFFSetField(tif, TIFFTAG_EXTRASAMPLES, (uint16_t)1, &extra);
    }
    if (ok) {
        uint16_t photometric = samples == 1 ? PHOTOMETRIC_MINISBLACK : ycbcr ? PHOTOMETRIC_YCBCR : PHOTOMETRIC_RGB;
        ok = TIFFSetField(tif, TIFFTAG_PHOTOMETRIC, photometric);
    }
    if (ok && (compression == PF_TIFF_COMPRESSION_LZW || compression == PF_TIFF_COMPRESSION_DEFLATE)) {
        ok = TIFFSetField(tif, TIFFTAG_PREDICTOR, (uint16_t)PREDICTOR_HORIZONTAL);
    }
    if (ok && compression == PF_TIFF_COMPRESSION_JPEG) {
        ok = TIFFSetField(tif, TIFFTAG_JPEGQUALITY, quality);
        if (ok && ycbcr) {
            ok = TIFFSetField(tif, TIFFTAG_YCBCRSUBSAMPLING, (uint16_t)2, (uint16_t)2) &&
                 TIFFSetField(tif, TIFFTAG_JPEGCOLORMODE, JPEGCOLORMODE_RGB);
        }
    }
    if (ok) ok = TIFFSetField(tif, TIFFTAG_ROWSPERSTRIP, rows_per_strip);
    if (ok && icc != NULL && icc_size > 0) ok = TIFFSetField(tif, TIFFTAG_ICCPROFILE, (uint32_t)icc_size, icc);
    if (ok && xmp != NULL && xmp_size > 0) ok = TIFFSetField(tif, TIFFTAG_XMLPACKET, (uint32_t)xmp_size, xmp);
    if (ok) {
        tmsize_t line_size = TIFFScanlineSize(tif);
        *line = line_size > 0 && (size_t)line_size >= row_bytes ? (uint8_t *)calloc(1, (size_t)line_size) : NULL;
        if (*line == NULL) ok = 0;
    }
    return ok;
}

/* The file's samples of one input row (RGBA as RGB drops alpha). */
static void pf_tiff_pack_row(int input, uint32_t width, const uint8_t *row, uint8_t *line) {
    const int bits = pf_tiff_input_bits(input), samples = pf_tiff_input_samples(input);
    if (samples == 4 || samples == 1) {
        memcpy(line, row, (size_t)width * (size_t)samples * (size_t)(bits / 8));
    } else if (bits == 8) {
        for (uint32_t x = 0; x < width; x++) memcpy(line + 3 * (size_t)x, row + 4 * (size_t)x, 3);
    } else {
        for (uint32_t x = 0; x < width; x++) memcpy(line + 6 * (size_t)x, row + 8 * (size_t)x, 6);
    }
}

int pf_tiff_encode(const uint8_t *pixels, size_t stride, uint32_t width, uint32_t height,
                   int input, int compression, int quality,
                   const uint8_t *icc, size_t icc_size, const uint8_t *xmp, size_t xmp_size,
                   uint8_t **output, size_t *output_size, char *message) {
    *output = NULL;
    *output_size = 0;
    int status = pf_tiff_check_encoding(width, height, input, compression, icc_size, xmp_size, message);
    if (status != PF_OK) return status;
    pf_tiff_errors errors = {{0}, 0};
    pf_tiff_memory memory = {0};
    TIFFOpenOptions *options = pf_tiff_options(&errors, 0);
    if (options == NULL) {
        pf_tiff_copy_message(message, "out of memory");
        return PF_OUT_OF_MEMORY;
    }
    /* A memory sink that has not grown yet: point `output` at something non-NULL so reads
       during writing come from the sink, never from a NULL `data`. */
    memory.output = (uint8_t *)malloc(65536);
    memory.capacity = memory.output != NULL ? 65536 : 0;
    if (memory.output == NULL) {
        TIFFOpenOptionsFree(options);
        pf_tiff_copy_message(message, "out of memory");
        return PF_OUT_OF_MEMORY;
    }
    TIFF *tif = TIFFClientOpenExt("TIFF", "w", (thandle_t)&memory, pf_tiff_read, pf_tiff_write, pf_tiff_seek,
                                  pf_tiff_close, pf_tiff_size, pf_tiff_no_map, pf_tiff_unmap, options);
    TIFFOpenOptionsFree(options);
    if (tif == NULL) {
        free(memory.output);
        return pf_tiff_fail(&errors, "libtiff could not start the file", message);
    }
    uint8_t *line = NULL;
    int ok = pf_tiff_set_page_fields(tif, width, height, input, compression, quality, icc, icc_size, xmp, xmp_size,
                                     &line);
    for (uint32_t y = 0; ok && y < height; y++) {
        pf_tiff_pack_row(input, width, pixels + (size_t)y * stride, line);
        /* The predictor differences `line` in place, so it is always a copy. */
        ok = TIFFWriteScanline(tif, line, y, 0) >= 0;
    }
    free(line);
    if (ok) ok = TIFFWriteDirectory(tif);
    TIFFClose(tif);
    if (!ok || errors.count > 0) {
        free(memory.output);
        return pf_tiff_fail(&errors, "libtiff could not write the image", message);
    }
    *output = memory.output;
    *output_size = memory.size;
    return PF_OK;
}

/* ---- encoding to a file descriptor ---- */

/* A file read and written at `offset` with pread and pwrite (libtiff seeks to write the
   directory and to pad it to an even offset; a gap reads as zeros, as in the memory sink). */
typedef struct pf_tiff_file {
    int fd;
    uint64_t offset;
    /* Writes are dropped (and reported done) while set: an abandoned handle's flush. */
    int discard;
    int error_number;
} pf_tiff_file;

static tmsize_t pf_tiff_file_read(thandle_t handle, void *buffer, tmsize_t count) {
    pf_tiff_file *f = (pf_tiff_file *)handle;
    size_t done = 0;
    while (count > 0 && done < (size_t)count) {
        ssize_t n = pread(f->fd, (uint8_t *)buffer + done, (size_t)count - done, (off_t)(f->offset + done));
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            f->error_number = errno;
            return -1;
        }
        if (n == 0) break;
        done += (size_t)n;
    }
    f->offset += done;
    return (tmsize_t)done;
}

static tmsize_t pf_tiff_file_write(thandle_t handle, void *buffer, tmsize_t count) {
    pf_tiff_file *f = (pf_tiff_file *)handle;
    if (count < 0) return -1;
    if (f->discard) return count;
    size_t done = 0;
    while (done < (size_t)count) {
        ssize_t n = pwrite(f->fd, (const uint8_t *)buffer + done, (size_t)count - done, (off_t)(f->offset + done));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            f->error_number = n < 0 ? errno : EIO;
            return -1;
        }
        done += (size_t)n;
    }
    f->offset += done;
    return count;
}

static toff_t pf_tiff_file_size(thandle_t handle) {
    struct stat st;
    return fstat(((pf_tiff_file *)handle)->fd, &st) == 0 ? (toff_t)st.st_size : 0;
}

static toff_t pf_tiff_file_seek(thandle_t handle, toff_t offset, int whence) {
    pf_tiff_file *f = (pf_tiff_file *)handle;
    uint64_t base;
    switch (whence) {
    case SEEK_SET: base = 0; break;
    case SEEK_CUR: base = f->offset; break;
    case SEEK_END: base = f->discard ? f->offset : (uint64_t)pf_tiff_file_size(handle); break;
    default: return (toff_t)-1;
    }
    uint64_t target = base + (uint64_t)offset;
    if ((int64_t)offset < 0 ? target > base : target < base) return (toff_t)-1;
    if (target > (uint64_t)INT64_MAX) return (toff_t)-1;
    f->offset = target;
    return (toff_t)target;
}

struct pf_tiff_encoder {
    pf_tiff_errors errors;
    pf_tiff_file file;
    TIFF *tif;
    uint32_t width;
    uint32_t height;
    uint32_t row;       /* rows written so far */
    int input;          /* the layout being written: an _AS_RGB one while alpha may be dropped */
    int compression;
    int quality;
    uint8_t *icc, *xmp; /* copies */
    size_t icc_size, xmp_size;
    uint8_t *line;      /* one scanline of the file */
    uint8_t *rgba_line; /* one RGBA input row rebuilt from the spill file */
    int spill;          /* the RGB rows written so far, or -1 */
    int failed;
};

static int pf_tiff_encoder_fail(pf_tiff_encoder *e, const char *fallback, char *message) {
    e->failed = 1;
    if (e->file.error_number != 0) {
        char text[PF_MESSAGE_CAPACITY];
        snprintf(text, sizeof text, "cannot write: %s", strerror(e->file.error_number));
        pf_tiff_copy_message(message, text);
        return PF_IO_ERROR;
    }
    return pf_tiff_fail(&e->errors, fallback, message);
}

/* Opens a libtiff handle over the file at offset 0 with the page's fields for `e->input`. */
static int pf_tiff_encoder_open(pf_tiff_encoder *e, char *message) {
    TIFFOpenOptions *options = pf_tiff_options(&e->errors, 0);
    if (options == NULL) {
        pf_tiff_copy_message(message, "out of memory");
        return PF_OUT_OF_MEMORY;
    }
    e->file.offset = 0;
    e->tif = TIFFClientOpenExt("TIFF", "w", (thandle_t)&e->file, pf_tiff_file_read, pf_tiff_file_write,
                               pf_tiff_file_seek, pf_tiff_close, pf_tiff_file_size, pf_tiff_no_map, pf_tiff_unmap,
                               options);
    TIFFOpenOptionsFree(options);
    if (e->tif == NULL) return pf_tiff_encoder_fail(e, "libtiff could not start the file", message);
    free(e->line);
    if (!pf_tiff_set_page_fields(e->tif, e->width, e->height, e->input, e->compression, e->quality, e->icc,
                                 e->icc_size, e->xmp, e->xmp_size, &e->line)) {
        return pf_tiff_encoder_fail(e, "libtiff could not write the image", message);
    }
    return PF_OK;
}

int pf_tiff_encoder_create(int fd, uint32_t width, uint32_t height, int input, int compression, int quality,
                           const uint8_t *icc, size_t icc_size, const uint8_t *xmp, size_t xmp_size,
                           const char *spill_folder, pf_tiff_encoder **result, char *message) {
    *result = NULL;
    if (input != PF_TIFF_INPUT_GRAY8 && input != PF_TIFF_INPUT_RGBA8 && input != PF_TIFF_INPUT_RGBA16) {
        pf_tiff_copy_message(message, "rows must be gray8, rgba8 or rgba16");
        return PF_ERROR;
    }
    int status = pf_tiff_check_encoding(width, height, input, compression, icc_size, xmp_size, message);
    if (status != PF_OK) return status;
    pf_tiff_encoder *e = (pf_tiff_encoder *)calloc(1, sizeof *e);
    if (e == NULL) {
        pf_tiff_copy_message(message, "out of memory");
        return PF_OUT_OF_MEMORY;
    }
    e->file.fd = fd;
    e->spill = -1;
    e->width = width;
    e->height = height;
    e->compression = compression;
    e->quality = quality;
    e->input = input == PF_TIFF_INPUT_RGBA8 ? PF_TIFF_INPUT_RGBA8_AS_RGB
             : input == PF_TIFF_INPUT_RGBA16 ? PF_TIFF_INPUT_RGBA16_AS_RGB : input;
    e->icc_size = icc != NULL ? icc_size : 0;
    e->xmp_size = xmp != NULL ? xmp_size : 0;
    e->icc = e->icc_size > 0 ? (uint8_t *)malloc(e->icc_size) : NULL;
    e->xmp = e->xmp_size > 0 ? (uint8_t *)malloc(e->xmp_size) : NULL;
    e->rgba_line = (uint8_t *)malloc((size_t)width * (size_t)(pf_tiff_input_bits(input) / 2));
    if ((e->icc_size > 0 && e->icc == NULL) || (e->xmp_size > 0 && e->xmp == NULL) || e->rgba_line == NULL) {
        pf_tiff_encoder_destroy(e);
        pf_tiff_copy_message(message, "out of memory");
        return PF_OUT_OF_MEMORY;
    }
    if (e->icc_size > 0) memcpy(e->icc, icc, e->icc_size);
    if (e->xmp_size > 0) memcpy(e->xmp, xmp, e->xmp_size);
    if (e->input != input) {
        char path[4096];
        snprintf(path, sizeof path, "%s/.pixelflow-tiff-spill.XXXXXX", spill_folder != NULL ? spill_folder : ".");
        e->spill = mkstemp(path);
        if (e->spill < 0) {
            char text[PF_MESSAGE_CAPACITY];
            snprintf(text, sizeof text, "cannot create a spill file in %s: %s", spill_folder, strerror(errno));
            pf_tiff_encoder_destroy(e);
            pf_tiff_copy_message(message, text);
            return PF_IO_ERROR;
        }
        unlink(path);
    }
    status = pf_tiff_encoder_open(e, message);
    if (status != PF_OK) {
        pf_tiff_encoder_destroy(e);
        return status;
    }
    *result = e;
    return PF_OK;
}

/* Whether every alpha of an RGBA row is the maximum. */
static int pf_tiff_row_is_opaque(int input, uint32_t width, const uint8_t *row) {
    if (pf_tiff_input_bits(input) == 8) {
        for (uint32_t x = 0; x < width; x++) if (row[4 * (size_t)x + 3] != 255) return 0;
    } else {
        const uint16_t *p = (const uint16_t *)(const void *)row;
        for (uint32_t x = 0; x < width; x++) if (p[4 * (size_t)x + 3] != 65535) return 0;
    }
    return 1;
}

/* Drops the RGB file written so far and writes its rows again as RGBA, from the spill file:
   those rows were opaque, so their alpha is the maximum. */
static int pf_tiff_encoder_switch_to_rgba(pf_tiff_encoder *e, char *message) {
    e->file.discard = 1;
    TIFFClose(e->tif);
    e->tif = NULL;
    e->file.discard = 0;
    e->errors.count = 0;
    if (ftruncate(e->file.fd, 0) != 0) {
        e->file.error_number = errno;
        return pf_tiff_encoder_fail(e, "cannot truncate the file", message);
    }
    const int rgb_input = e->input;
    e->input = rgb_input == PF_TIFF_INPUT_RGBA8_AS_RGB ? PF_TIFF_INPUT_RGBA8 : PF_TIFF_INPUT_RGBA16;
    int status = pf_tiff_encoder_open(e, message);
    if (status != PF_OK) return status;
    const int bytes = pf_tiff_input_bits(e->input) / 8;
    const size_t rgb_bytes = (size_t)e->width * 3 * (size_t)bytes;
    pf_tiff_file spill = {e->spill, 0, 0, 0};
    for (uint32_t y = 0; y < e->row; y++) {
        /* The spill holds packed RGB; rebuild the RGBA row, then pack it as pf_tiff_encode would. */
        uint8_t *rgb = e->line;
        if (pf_tiff_file_read(&spill, rgb, (tmsize_t)rgb_bytes) != (tmsize_t)rgb_bytes) {
            e->file.error_number = spill.error_number != 0 ? spill.error_number : EIO;
            return pf_tiff_encoder_fail(e, "cannot read the spill file", message);
        }
        for (uint32_t x = 0; x < e->width; x++) {
            memcpy(e->rgba_line + 4 * bytes * (size_t)x, rgb + 3 * bytes * (size_t)x, 3 * (size_t)bytes);
            memset(e->rgba_line + 4 * bytes * (size_t)x + 3 * bytes, 0xff, (size_t)bytes);
        }
        pf_tiff_pack_row(e->input, e->width, e->rgba_line, e->line);
        if (TIFFWriteScanline(e->tif, e->line, y, 0) < 0) {
            return pf_tiff_encoder_fail(e, "libtiff could not write the image", message);
        }
    }
    close(e->spill);
    e->spill = -1;
    return PF_OK;
}

int pf_tiff_encoder_write_rows(pf_tiff_encoder *e, const uint8_t *pixels, size_t stride, uint32_t count,
                               char *message) {
    if (e->failed || e->tif == NULL || count > e->height - e->row) {
        pf_tiff_copy_message(message, e->failed ? "the encoder failed before" : "rows past the end of the image");
        return PF_ERROR;
    }
    for (uint32_t i = 0; i < count; i++) {
        const uint8_t *row = pixels + (size_t)i * stride;
        if (e->spill >= 0 && !pf_tiff_row_is_opaque(e->input, e->width, row)) {
            int status = pf_tiff_encoder_switch_to_rgba(e, message);
            if (status != PF_OK) return status;
        }
        pf_tiff_pack_row(e->input, e->width, row, e->line);
        if (e->spill >= 0) {
            /* Before TIFFWriteScanline, whose predictor differences `line` in place. */
            pf_tiff_file spill = {e->spill, (uint64_t)e->row * (uint64_t)TIFFScanlineSize64(e->tif), 0, 0};
            tmsize_t size = (tmsize_t)TIFFScanlineSize(e->tif);
            if (pf_tiff_file_write(&spill, e->line, size) != size) {
                e->file.error_number = spill.error_number != 0 ? spill.error_number : EIO;
                return pf_tiff_encoder_fail(e, "cannot write the spill file", message);
            }
        }
        if (TIFFWriteScanline(e->tif, e->line, e->row, 0) < 0) {
            return pf_tiff_encoder_fail(e, "libtiff could not write the image", message);
        }
        e->row++;
    }
    return PF_OK;
}

int pf_tiff_encoder_finish(pf_tiff_encoder *e, char *message) {
    if (e->failed || e->tif == NULL || e->row != e->height) {
        pf_tiff_copy_message(message, e->failed ? "the encoder failed before" : "not every row was written");
        return PF_ERROR;
    }
    int ok = TIFFWriteDirectory(e->tif);
    TIFFClose(e->tif);
    e->tif = NULL;
    if (!ok || e->errors.count > 0 || e->file.error_number != 0) {
        return pf_tiff_encoder_fail(e, "libtiff could not write the image", message);
    }
    return PF_OK;
}

void pf_tiff_encoder_destroy(pf_tiff_encoder *e) {
    if (e == NULL) return;
    if (e->tif != NULL) {
        e->file.discard = 1;
        TIFFClose(e->tif);
    }
    if (e->spill >= 0) close(e->spill);
    free(e->line);
    free(e->rgba_line);
    free(e->icc);
    free(e->xmp);
    free(e);
}
