/* libtiff shims: every TIFF handle has its own error and warning handlers (nothing is printed
   and no global handler is touched), reads from or writes to memory, and reports failures as
   a status plus the first message libtiff gave. */
#include "CCodecShims.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tiffio.h>

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
} pf_tiff_memory;

static tmsize_t pf_tiff_read(thandle_t handle, void *buffer, tmsize_t count) {
    pf_tiff_memory *m = (pf_tiff_memory *)handle;
    if (count <= 0 || m->offset >= m->size) return 0;
    size_t n = (size_t)count;
    if (n > m->size - m->offset) n = m->size - m->offset;
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
    if (m->output != NULL || m->data == NULL) return 0;
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
};

int pf_tiff_decoder_open(const uint8_t *data, size_t size, int64_t maximum_allocation,
                         pf_tiff_decoder **result, char *message) {
    *result = NULL;
    pf_tiff_decoder *d = (pf_tiff_decoder *)calloc(1, sizeof *d);
    if (d == NULL) {
        pf_tiff_copy_message(message, "out of memory");
        return PF_OUT_OF_MEMORY;
    }
    d->memory.data = data;
    d->memory.size = size;
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
    free(d);
}

int pf_tiff_count_pages(pf_tiff_decoder *d, uint32_t limit, uint32_t *count, char *message) {
    d->errors.count = 0;
    d->page_ready = 0;
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

/* Straight alpha from premultiplied, in place over every output row. */
static void pf_tiff_unpremultiply(const pf_tiff_page_info *info, uint8_t *pixels, size_t stride) {
    for (uint32_t y = 0; y < info->height; y++) {
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

/* Whole strips through TIFFReadEncodedStrip (not scanline by scanline: some writers, tifffile
   among them, let PackBits runs cross rows, which libtiff's scanline reading cuts). libtiff
   chops a single uncompressed strip into small ones, so the buffer stays small for those. */
static int pf_tiff_read_strips(pf_tiff_decoder *d, uint8_t *pixels, size_t stride, char *message) {
    TIFF *tif = d->tif;
    tmsize_t line = TIFFScanlineSize(tif), strip_size = TIFFStripSize(tif);
    uint32_t rows_per_strip = 0;
    TIFFGetFieldDefaulted(tif, TIFFTAG_ROWSPERSTRIP, &rows_per_strip);
    if (rows_per_strip == 0 || rows_per_strip > d->info.height) rows_per_strip = d->info.height;
    if (line <= 0 || strip_size <= 0 || (uint64_t)strip_size < (uint64_t)line * rows_per_strip) {
        return pf_tiff_fail(&d->errors, "the strip layout is invalid", message);
    }
    if (d->maximum_allocation > 0 && (uint64_t)strip_size > (uint64_t)d->maximum_allocation) {
        return pf_tiff_fail(&d->errors, "a strip is larger than the memory limit", message);
    }
    uint8_t *buffer = (uint8_t *)malloc((size_t)strip_size + 8);
    if (buffer == NULL) {
        pf_tiff_copy_message(message, "out of memory");
        return PF_OUT_OF_MEMORY;
    }
    int planes = d->separate ? d->samples : 1;
    for (int plane = 0; plane < planes; plane++) {
        if (d->separate && !pf_tiff_wanted(d, plane)) continue;
        for (uint32_t y = 0; y < d->info.height; y += rows_per_strip) {
            uint32_t strip = TIFFComputeStrip(tif, y, (uint16_t)plane);
            memset(buffer, 0, (size_t)strip_size + 8);
            if (TIFFReadEncodedStrip(tif, strip, buffer, strip_size) < 0) {
                free(buffer);
                return pf_tiff_fail(&d->errors, "a strip cannot be decoded", message);
            }
            uint32_t rows = d->info.height - y < rows_per_strip ? d->info.height - y : rows_per_strip;
            for (uint32_t r = 0; r < rows; r++) {
                pf_tiff_store(d, plane, buffer + (size_t)r * (size_t)line, d->info.width,
                              pixels + (size_t)(y + r) * stride);
            }
        }
    }
    free(buffer);
    return PF_OK;
}

static int pf_tiff_read_tiles(pf_tiff_decoder *d, uint8_t *pixels, size_t stride, char *message) {
    TIFF *tif = d->tif;
    const uint32_t tile_width = d->info.tile_width, tile_height = d->info.tile_height;
    const uint32_t width = d->info.width, height = d->info.height;
    tmsize_t tile_size = TIFFTileSize(tif), row_size = TIFFTileRowSize(tif);
    if (tile_size <= 0 || row_size <= 0) return pf_tiff_fail(&d->errors, "the tile layout is invalid", message);
    uint8_t *buffer = (uint8_t *)calloc(1, (size_t)tile_size + 8);
    if (buffer == NULL) {
        pf_tiff_copy_message(message, "out of memory");
        return PF_OUT_OF_MEMORY;
    }
    const size_t pixel_bytes = pf_tiff_bytes_per_pixel(d->info.output);
    int planes = d->separate ? d->samples : 1;
    for (int plane = 0; plane < planes; plane++) {
        if (d->separate && !pf_tiff_wanted(d, plane)) continue;
        for (uint32_t ty = 0; ty < height; ty += tile_height) {
            for (uint32_t tx = 0; tx < width; tx += tile_width) {
                uint32_t tile = TIFFComputeTile(tif, tx, ty, 0, (uint16_t)plane);
                if (TIFFReadEncodedTile(tif, tile, buffer, tile_size) < 0) {
                    free(buffer);
                    return pf_tiff_fail(&d->errors, "a tile cannot be decoded", message);
                }
                uint32_t rows = height - ty < tile_height ? height - ty : tile_height;
                uint32_t columns = width - tx < tile_width ? width - tx : tile_width;
                for (uint32_t r = 0; r < rows; r++) {
                    if ((uint64_t)(r + 1) * (uint64_t)row_size > (uint64_t)tile_size) break;
                    pf_tiff_store(d, plane, buffer + (size_t)r * (size_t)row_size, columns,
                                  pixels + (size_t)(ty + r) * stride + (size_t)tx * pixel_bytes);
                }
            }
            if (ty > UINT32_MAX - tile_height) break;
        }
    }
    free(buffer);
    return PF_OK;
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
    if (premultiplied) pf_tiff_unpremultiply(&d->info, pixels, stride);
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
    int status = TIFFIsTiled(d->tif) ? pf_tiff_read_tiles(d, pixels, stride, message)
                                     : pf_tiff_read_strips(d, pixels, stride, message);
    if (status != PF_OK) return status;
    if (d->alpha_index >= 0 && d->associated && !d->info.is_cmyk) {
        pf_tiff_unpremultiply(&d->info, pixels, stride);
    }
    return PF_OK;
}

/* ---- encoding ---- */

int pf_tiff_encode(const uint8_t *pixels, size_t stride, uint32_t width, uint32_t height,
                   int input, int compression, int quality,
                   const uint8_t *icc, size_t icc_size, const uint8_t *xmp, size_t xmp_size,
                   uint8_t **output, size_t *output_size, char *message) {
    *output = NULL;
    *output_size = 0;
    int bits = input == PF_TIFF_INPUT_RGBA16 || input == PF_TIFF_INPUT_RGBA16_AS_RGB ? 16 : 8;
    int samples = input == PF_TIFF_INPUT_GRAY8 ? 1
                : input == PF_TIFF_INPUT_RGBA8_AS_RGB || input == PF_TIFF_INPUT_RGBA16_AS_RGB ? 3 : 4;
    if (width == 0 || height == 0) {
        pf_tiff_copy_message(message, "the image is empty");
        return PF_ERROR;
    }
    if (compression == PF_TIFF_COMPRESSION_JPEG && bits != 8) {
        pf_tiff_copy_message(message, "JPEG compression takes 8-bit samples only");
        return PF_ERROR;
    }
    if (icc_size > UINT32_MAX || xmp_size > UINT32_MAX) {
        pf_tiff_copy_message(message, "a metadata block is larger than 4 GiB");
        return PF_ERROR;
    }
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

    uint8_t *line = NULL;
    if (ok) {
        tmsize_t line_size = TIFFScanlineSize(tif);
        line = line_size > 0 && (size_t)line_size >= row_bytes ? (uint8_t *)calloc(1, (size_t)line_size) : NULL;
        if (line == NULL) ok = 0;
    }
    for (uint32_t y = 0; ok && y < height; y++) {
        const uint8_t *row = pixels + (size_t)y * stride;
        if (samples == 4 || samples == 1) {
            memcpy(line, row, row_bytes);
        } else if (bits == 8) {
            for (uint32_t x = 0; x < width; x++) memcpy(line + 3 * (size_t)x, row + 4 * (size_t)x, 3);
        } else {
            for (uint32_t x = 0; x < width; x++) memcpy(line + 6 * (size_t)x, row + 8 * (size_t)x, 6);
        }
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
