/* giflib shims: giflib reports errors by return value (no longjmp), so every call is
   checked and its error code turned into a message. No global state. */
#include "CCodecShims.h"

#include <gif_lib.h>
#include <stdlib.h>
#include <string.h>

static void pf_gif_message(char *message, const char *text) {
    if (message == NULL) return;
    if (text == NULL) text = "unknown error";
    strncpy(message, text, PF_MESSAGE_CAPACITY - 1);
    message[PF_MESSAGE_CAPACITY - 1] = '\0';
}

/* The status and message for giflib's error `code`. */
static int pf_gif_fail(char *message, int code, const char *fallback) {
    if (code == D_GIF_ERR_NOT_ENOUGH_MEM || code == E_GIF_ERR_NOT_ENOUGH_MEM) {
        pf_gif_message(message, "out of memory");
        return PF_OUT_OF_MEMORY;
    }
    if (code == D_GIF_ERR_READ_FAILED) {
        pf_gif_message(message, "the file is truncated");
        return PF_ERROR;
    }
    const char *text = code != 0 ? GifErrorString(code) : NULL;
    pf_gif_message(message, text != NULL ? text : fallback);
    return PF_ERROR;
}

/* ---- decoding ---- */

/* A growable byte array owned by the decoder (the ICC and XMP blocks). */
typedef struct pf_gif_bytes {
    uint8_t *data;
    size_t size;
    size_t capacity;
} pf_gif_bytes;

static int pf_gif_bytes_append(pf_gif_bytes *bytes, const uint8_t *data, size_t count) {
    if (count > bytes->capacity - bytes->size) {
        size_t capacity = bytes->capacity < 1024 ? 1024 : bytes->capacity;
        while (capacity - bytes->size < count) {
            if (capacity > SIZE_MAX / 2) return 0;
            capacity *= 2;
        }
        uint8_t *grown = (uint8_t *)realloc(bytes->data, capacity);
        if (grown == NULL) return 0;
        bytes->data = grown;
        bytes->capacity = capacity;
    }
    memcpy(bytes->data + bytes->size, data, count);
    bytes->size += count;
    return 1;
}

struct pf_gif_decoder {
    const uint8_t *data;
    size_t size;
    size_t offset;
    GifFileType *gif;
    /* 1 after pf_gif_next_frame returned a frame whose pixels are not read yet. */
    int frame_pending;
    int frames_seen;
    int loop_count;
    int has_icc;
    int has_xmp;
    pf_gif_bytes icc;
    pf_gif_bytes xmp;
    /* Scratch row of the current frame's width. */
    uint8_t *row;
    size_t row_capacity;
};

static int pf_gif_read_data(GifFileType *gif, GifByteType *out, int count) {
    pf_gif_decoder *decoder = (pf_gif_decoder *)gif->UserData;
    if (count <= 0) return 0;
    size_t available = decoder->size - decoder->offset;
    size_t n = (size_t)count < available ? (size_t)count : available;
    memcpy(out, decoder->data + decoder->offset, n);
    decoder->offset += n;
    return (int)n;
}

pf_gif_decoder *pf_gif_decoder_create(const uint8_t *data, size_t size) {
    pf_gif_decoder *decoder = (pf_gif_decoder *)calloc(1, sizeof *decoder);
    if (decoder == NULL) return NULL;
    decoder->data = data;
    decoder->size = size;
    decoder->loop_count = -1;
    return decoder;
}

void pf_gif_decoder_destroy(pf_gif_decoder *decoder) {
    if (decoder == NULL) return;
    if (decoder->gif != NULL) {
        int error = 0;
        DGifCloseFile(decoder->gif, &error);
    }
    free(decoder->icc.data);
    free(decoder->xmp.data);
    free(decoder->row);
    free(decoder);
}

static void pf_gif_copy_map(const ColorMapObject *map, int *count, uint8_t *colors) {
    *count = 0;
    if (map == NULL || map->Colors == NULL || map->ColorCount <= 0) return;
    int n = map->ColorCount > 256 ? 256 : map->ColorCount;
    for (int i = 0; i < n; i++) {
        colors[3 * i] = map->Colors[i].Red;
        colors[3 * i + 1] = map->Colors[i].Green;
        colors[3 * i + 2] = map->Colors[i].Blue;
    }
    *count = n;
}

int pf_gif_read_screen(pf_gif_decoder *decoder, pf_gif_screen *screen, char *message) {
    if (decoder->gif != NULL) {
        pf_gif_message(message, "the screen was already read");
        return PF_ERROR;
    }
    int error = 0;
    decoder->gif = DGifOpen(decoder, pf_gif_read_data, &error);
    if (decoder->gif == NULL) return pf_gif_fail(message, error, "cannot read the header");
    GifFileType *gif = decoder->gif;
    memset(screen, 0, sizeof *screen);
    screen->width = (uint32_t)gif->SWidth;
    screen->height = (uint32_t)gif->SHeight;
    screen->background_index = gif->SBackGroundColor;
    pf_gif_copy_map(gif->SColorMap, &screen->global_color_count, screen->global_colors);
    return PF_OK;
}

/* Reads the sub-blocks of an extension whose first block is `block`. */
static int pf_gif_read_extension(pf_gif_decoder *decoder, int code, GifByteType *block, pf_gif_frame *control,
                                 char *message) {
    GifFileType *gif = decoder->gif;
    /* What the following sub-blocks are: 0 skipped, 1 loop, 2 ICC, 3 XMP. */
    int kind = 0;
    if (code == GRAPHICS_EXT_FUNC_CODE && block != NULL && block[0] >= 4) {
        control->disposal = (block[1] >> 2) & 7;
        control->delay = block[2] | (block[3] << 8);
        control->transparent_index = (block[1] & 1) ? block[4] : -1;
    } else if (code == APPLICATION_EXT_FUNC_CODE && block != NULL && block[0] == 11) {
        if (memcmp(block + 1, "NETSCAPE2.0", 11) == 0 || memcmp(block + 1, "ANIMEXTS1.0", 11) == 0) {
            kind = 1;
        } else if (memcmp(block + 1, "ICCRGBG1012", 11) == 0 && !decoder->has_icc) {
            kind = 2;
            decoder->has_icc = 1;
        } else if (memcmp(block + 1, "XMP DataXMP", 11) == 0 && !decoder->has_xmp) {
            kind = 3;
            decoder->has_xmp = 1;
        }
    }
    for (;;) {
        if (DGifGetExtensionNext(gif, &block) == GIF_ERROR) return pf_gif_fail(message, gif->Error, "bad extension");
        if (block == NULL) break;
        int ok = 1;
        if (kind == 1 && block[0] >= 3 && block[1] == 1) {
            decoder->loop_count = block[2] | (block[3] << 8);
        } else if (kind == 2) {
            ok = pf_gif_bytes_append(&decoder->icc, block + 1, block[0]);
        } else if (kind == 3) {
            /* XMP is stored raw: the sub-block lengths are bytes of the packet. */
            ok = pf_gif_bytes_append(&decoder->xmp, block, (size_t)block[0] + 1);
        }
        if (!ok) {
            pf_gif_message(message, "out of memory");
            return PF_OUT_OF_MEMORY;
        }
    }
    if (kind == 3) {
        /* Drop the 257-byte magic trailer 0x01, 0xFF, 0xFE, ..., 0x00 when it is there. */
        pf_gif_bytes *x = &decoder->xmp;
        if (x->size >= 257 && x->data[x->size - 257] == 1) {
            int trailer = 1;
            for (int i = 0; i < 256 && trailer; i++) trailer = x->data[x->size - 256 + i] == (uint8_t)(255 - i);
            if (trailer) x->size -= 257;
        }
    }
    return PF_OK;
}

int pf_gif_next_frame(pf_gif_decoder *decoder, pf_gif_frame *frame, int *at_end, char *message) {
    GifFileType *gif = decoder->gif;
    *at_end = 0;
    if (gif == NULL || decoder->frame_pending) {
        pf_gif_message(message, gif == NULL ? "the screen was not read" : "the previous frame was not read");
        return PF_ERROR;
    }
    memset(frame, 0, sizeof *frame);
    frame->transparent_index = -1;
    for (;;) {
        GifRecordType type;
        if (decoder->frames_seen > 0 && decoder->offset == decoder->size) {
            /* A missing trailer ends the file, as in browsers. */
            *at_end = 1;
            return PF_OK;
        }
        if (DGifGetRecordType(gif, &type) == GIF_ERROR) return pf_gif_fail(message, gif->Error, "bad record");
        switch (type) {
        case IMAGE_DESC_RECORD_TYPE:
            if (DGifGetImageDesc(gif) == GIF_ERROR) return pf_gif_fail(message, gif->Error, "bad image descriptor");
            frame->left = (uint32_t)gif->Image.Left;
            frame->top = (uint32_t)gif->Image.Top;
            frame->width = (uint32_t)gif->Image.Width;
            frame->height = (uint32_t)gif->Image.Height;
            frame->interlaced = gif->Image.Interlace ? 1 : 0;
            pf_gif_copy_map(gif->Image.ColorMap, &frame->local_color_count, frame->local_colors);
            /* giflib keeps a SavedImage per descriptor; only the count matters here. */
            decoder->frame_pending = 1;
            decoder->frames_seen += 1;
            return PF_OK;
        case EXTENSION_RECORD_TYPE: {
            int code = 0;
            GifByteType *block = NULL;
            if (DGifGetExtension(gif, &code, &block) == GIF_ERROR) {
                return pf_gif_fail(message, gif->Error, "bad extension");
            }
            int status = pf_gif_read_extension(decoder, code, block, frame, message);
            if (status != PF_OK) return status;
            break;
        }
        case TERMINATE_RECORD_TYPE:
            *at_end = 1;
            return PF_OK;
        default:
            pf_gif_message(message, "unknown record type");
            return PF_ERROR;
        }
    }
}

int pf_gif_skip_frame(pf_gif_decoder *decoder, char *message) {
    GifFileType *gif = decoder->gif;
    if (gif == NULL || !decoder->frame_pending) {
        pf_gif_message(message, "no frame to skip");
        return PF_ERROR;
    }
    decoder->frame_pending = 0;
    int code_size = 0;
    GifByteType *block = NULL;
    if (DGifGetCode(gif, &code_size, &block) == GIF_ERROR) return pf_gif_fail(message, gif->Error, "bad image data");
    while (block != NULL) {
        if (DGifGetCodeNext(gif, &block) == GIF_ERROR) return pf_gif_fail(message, gif->Error, "bad image data");
    }
    return PF_OK;
}

/* The row of the image that the `index`-th stored row of an interlaced frame of `height`
   rows is: passes every 8th row from 0, every 8th from 4, every 4th from 2, every 2nd from 1. */
static uint32_t pf_gif_interlaced_row(uint32_t index, uint32_t height) {
    static const uint32_t starts[4] = {0, 4, 2, 1};
    static const uint32_t steps[4] = {8, 8, 4, 2};
    for (int pass = 0; pass < 4; pass++) {
        uint32_t rows = height > starts[pass] ? (height - starts[pass] + steps[pass] - 1) / steps[pass] : 0;
        if (index < rows) return starts[pass] + index * steps[pass];
        index -= rows;
    }
    return height; /* not reached for index < height */
}

int pf_gif_read_frame(pf_gif_decoder *decoder, uint32_t x, uint32_t y, uint32_t width, uint32_t height,
                      uint8_t *indices, size_t stride, char *message) {
    GifFileType *gif = decoder->gif;
    if (gif == NULL || !decoder->frame_pending) {
        pf_gif_message(message, "no frame to read");
        return PF_ERROR;
    }
    uint32_t frame_width = (uint32_t)gif->Image.Width, frame_height = (uint32_t)gif->Image.Height;
    if (width > 0 && height > 0 &&
        (indices == NULL || x > frame_width || width > frame_width - x || y > frame_height ||
         height > frame_height - y)) {
        pf_gif_message(message, "the rectangle is outside the frame");
        return PF_ERROR;
    }
    if (frame_width == 0 || frame_height == 0) return pf_gif_skip_frame(decoder, message);
    decoder->frame_pending = 0;
    if (frame_width > decoder->row_capacity) {
        uint8_t *row = (uint8_t *)realloc(decoder->row, frame_width);
        if (row == NULL) {
            pf_gif_message(message, "out of memory");
            return PF_OUT_OF_MEMORY;
        }
        decoder->row = row;
        decoder->row_capacity = frame_width;
    }
    for (uint32_t stored = 0; stored < frame_height; stored++) {
        if (DGifGetLine(gif, decoder->row, (int)frame_width) == GIF_ERROR) {
            return pf_gif_fail(message, gif->Error, "bad image data");
        }
        uint32_t row = gif->Image.Interlace ? pf_gif_interlaced_row(stored, frame_height) : stored;
        if (width > 0 && row >= y && row - y < height) {
            memcpy(indices + (size_t)(row - y) * stride, decoder->row + x, width);
        }
    }
    return PF_OK;
}

int pf_gif_loop_count(const pf_gif_decoder *decoder) { return decoder->loop_count; }

const uint8_t *pf_gif_icc_profile(const pf_gif_decoder *decoder, size_t *size) {
    *size = decoder->has_icc ? decoder->icc.size : 0;
    return decoder->has_icc && decoder->icc.size > 0 ? decoder->icc.data : NULL;
}

const uint8_t *pf_gif_xmp(const pf_gif_decoder *decoder, size_t *size) {
    *size = decoder->has_xmp ? decoder->xmp.size : 0;
    return decoder->has_xmp && decoder->xmp.size > 0 ? decoder->xmp.data : NULL;
}

/* ---- encoding ---- */

static int pf_gif_write_data(GifFileType *gif, const GifByteType *data, int count) {
    pf_gif_bytes *bytes = (pf_gif_bytes *)gif->UserData;
    if (count <= 0) return 0;
    return pf_gif_bytes_append(bytes, data, (size_t)count) ? count : 0;
}

static int pf_gif_is_map_size(int count) {
    return count >= 2 && count <= 256 && (count & (count - 1)) == 0;
}

/* Writes an application extension: the 11-byte identifier, then `data` cut into sub-blocks
   (`raw` = 0) or `data` as it stands, its bytes read as sub-block lengths (`raw` = 1, for XMP
   followed by its magic trailer). */
static int pf_gif_put_application(GifFileType *gif, const char *identifier, const uint8_t *data, size_t size,
                                  int raw) {
    if (EGifPutExtensionLeader(gif, APPLICATION_EXT_FUNC_CODE) == GIF_ERROR) return 0;
    if (EGifPutExtensionBlock(gif, 11, identifier) == GIF_ERROR) return 0;
    if (!raw) {
        for (size_t offset = 0; offset < size; offset += 255) {
            size_t n = size - offset < 255 ? size - offset : 255;
            if (EGifPutExtensionBlock(gif, (int)n, data + offset) == GIF_ERROR) return 0;
        }
    } else {
        size_t offset = 0;
        while (offset < size && data[offset] != 0) {
            size_t n = data[offset];
            if (n > size - offset - 1) return 0;
            if (EGifPutExtensionBlock(gif, (int)n, data + offset + 1) == GIF_ERROR) return 0;
            offset += n + 1;
        }
    }
    return EGifPutExtensionTrailer(gif) != GIF_ERROR;
}

/* Writes the XMP packet followed by its 257-byte magic trailer. */
static int pf_gif_put_xmp(GifFileType *gif, const uint8_t *xmp, size_t size) {
    if (size > SIZE_MAX - 258) return 0;
    uint8_t *raw = (uint8_t *)malloc(size + 258);
    if (raw == NULL) return 0;
    memcpy(raw, xmp, size);
    raw[size] = 1;
    for (int i = 0; i < 256; i++) raw[size + 1 + i] = (uint8_t)(255 - i);
    raw[size + 257] = 0;
    int ok = pf_gif_put_application(gif, "XMP DataXMP", raw, size + 258, 1);
    free(raw);
    return ok;
}

int pf_gif_encode(uint32_t width, uint32_t height, const uint8_t *global_colors, int global_color_count,
                  const pf_gif_frame_input *frames, size_t frame_count, int loop_count,
                  const uint8_t *icc, size_t icc_size, const uint8_t *xmp, size_t xmp_size,
                  uint8_t **output, size_t *output_size, char *message) {
    *output = NULL;
    *output_size = 0;
    if (width == 0 || height == 0 || width > 65535 || height > 65535) {
        pf_gif_message(message, "the size must be 1...65535 on each side");
        return PF_ERROR;
    }
    if (global_colors != NULL && !pf_gif_is_map_size(global_color_count)) {
        pf_gif_message(message, "the global color map size must be a power of two 2...256");
        return PF_ERROR;
    }
    if (xmp != NULL && memchr(xmp, 0, xmp_size) != NULL) {
        pf_gif_message(message, "the XMP packet holds a NUL byte");
        return PF_ERROR;
    }
    pf_gif_bytes bytes = {NULL, 0, 0};
    int error = 0;
    GifFileType *gif = EGifOpen(&bytes, pf_gif_write_data, &error);
    if (gif == NULL) return pf_gif_fail(message, error, "cannot start the encoder");
    EGifSetGifVersion(gif, true);
    ColorMapObject *map = NULL;
    int status = PF_OK;
    const char *failure = NULL;

    if (global_colors != NULL) {
        map = GifMakeMapObject(global_color_count, NULL);
        if (map == NULL) {
            status = PF_OUT_OF_MEMORY;
            failure = "out of memory";
            goto done;
        }
        for (int i = 0; i < global_color_count; i++) {
            map->Colors[i].Red = global_colors[3 * i];
            map->Colors[i].Green = global_colors[3 * i + 1];
            map->Colors[i].Blue = global_colors[3 * i + 2];
        }
    }
    if (EGifPutScreenDesc(gif, (int)width, (int)height, 8, 0, map) == GIF_ERROR) goto giflib_error;
    if (loop_count >= 0) {
        uint8_t loop[3] = {1, (uint8_t)(loop_count & 255), (uint8_t)((loop_count >> 8) & 255)};
        if (!pf_gif_put_application(gif, "NETSCAPE2.0", loop, 3, 0)) goto giflib_error;
    }
    if (icc != NULL && !pf_gif_put_application(gif, "ICCRGBG1012", icc, icc_size, 0)) goto giflib_error;
    if (xmp != NULL && !pf_gif_put_xmp(gif, xmp, xmp_size)) goto giflib_error;

    for (size_t f = 0; f < frame_count; f++) {
        const pf_gif_frame_input *frame = &frames[f];
        if (frame->width == 0 || frame->height == 0 || frame->left > width || frame->width > width - frame->left ||
            frame->top > height || frame->height > height - frame->top) {
            status = PF_ERROR;
            failure = "a frame lies outside the screen";
            goto done;
        }
        if ((frame->colors == NULL && global_colors == NULL) ||
            (frame->colors != NULL && !pf_gif_is_map_size(frame->color_count))) {
            status = PF_ERROR;
            failure = "a frame has no valid color map";
            goto done;
        }
        if (frame->has_control) {
            GraphicsControlBlock control;
            control.DisposalMode = frame->disposal & 7;
            control.UserInputFlag = false;
            control.DelayTime = frame->delay;
            control.TransparentColor = frame->transparent_index >= 0 ? frame->transparent_index : NO_TRANSPARENT_COLOR;
            GifByteType extension[4];
            size_t length = EGifGCBToExtension(&control, extension);
            if (EGifPutExtension(gif, GRAPHICS_EXT_FUNC_CODE, (int)length, extension) == GIF_ERROR) goto giflib_error;
        }
        ColorMapObject *local = NULL;
        if (frame->colors != NULL) {
            local = GifMakeMapObject(frame->color_count, NULL);
            if (local == NULL) {
                status = PF_OUT_OF_MEMORY;
                failure = "out of memory";
                goto done;
            }
            for (int i = 0; i < frame->color_count; i++) {
                local->Colors[i].Red = frame->colors[3 * i];
                local->Colors[i].Green = frame->colors[3 * i + 1];
                local->Colors[i].Blue = frame->colors[3 * i + 2];
            }
        }
        int put = EGifPutImageDesc(gif, (int)frame->left, (int)frame->top, (int)frame->width, (int)frame->height,
                                   false, local);
        GifFreeMapObject(local);
        if (put == GIF_ERROR) goto giflib_error;
        for (uint32_t row = 0; row < frame->height; row++) {
            /* giflib takes a non-const line but does not write to it. */
            GifPixelType *line = (GifPixelType *)(frame->indices + (size_t)row * frame->stride);
            if (EGifPutLine(gif, line, (int)frame->width) == GIF_ERROR) goto giflib_error;
        }
    }
    goto done;

giflib_error:
    status = gif->Error == E_GIF_ERR_NOT_ENOUGH_MEM ? PF_OUT_OF_MEMORY : PF_ERROR;
    failure = GifErrorString(gif->Error);
    if (failure == NULL) failure = "giflib failed";
done:
    GifFreeMapObject(map);
    if (EGifCloseFile(gif, &error) == GIF_ERROR && status == PF_OK) {
        status = PF_ERROR;
        failure = GifErrorString(error);
    }
    if (status != PF_OK) {
        pf_gif_message(message, failure);
        free(bytes.data);
        return status;
    }
    *output = bytes.data;
    *output_size = bytes.size;
    return PF_OK;
}
