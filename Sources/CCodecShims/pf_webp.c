/* libwebp shims: libwebp reports errors by return values (no longjmp, no printing), so each
   entry point only turns them into a status and a message. Every object is owned by the
   caller's decoder or by the call: there is no global mutable state. */
#include "CCodecShims.h"

#include <webp/decode.h>
#include <webp/demux.h>
#include <webp/encode.h>
#include <webp/mux.h>
#include <stdlib.h>
#include <string.h>

/* libwebp's own limit on a side (WEBP_MAX_DIMENSION in encode.h). */
#define PF_WEBP_MAX_SIDE 16383

static int pf_webp_fail(char *message, int status, const char *text) {
    if (message != NULL) {
        strncpy(message, text != NULL ? text : "unknown error", PF_MESSAGE_CAPACITY - 1);
        message[PF_MESSAGE_CAPACITY - 1] = '\0';
    }
    return status;
}

static const char *pf_webp_status_text(VP8StatusCode status) {
    switch (status) {
    case VP8_STATUS_OK: return "no error";
    case VP8_STATUS_OUT_OF_MEMORY: return "out of memory";
    case VP8_STATUS_INVALID_PARAM: return "invalid parameter";
    case VP8_STATUS_BITSTREAM_ERROR: return "corrupt bitstream";
    case VP8_STATUS_UNSUPPORTED_FEATURE: return "unsupported feature";
    case VP8_STATUS_SUSPENDED: return "decoding suspended";
    case VP8_STATUS_USER_ABORT: return "decoding aborted";
    case VP8_STATUS_NOT_ENOUGH_DATA: return "the file is truncated";
    }
    return "unknown decoder error";
}

static const char *pf_webp_encoding_error_text(WebPEncodingError error) {
    switch (error) {
    case VP8_ENC_OK: return "no error";
    case VP8_ENC_ERROR_OUT_OF_MEMORY: return "out of memory";
    case VP8_ENC_ERROR_BITSTREAM_OUT_OF_MEMORY: return "out of memory for the bitstream";
    case VP8_ENC_ERROR_NULL_PARAMETER: return "missing parameter";
    case VP8_ENC_ERROR_INVALID_CONFIGURATION: return "invalid configuration";
    case VP8_ENC_ERROR_BAD_DIMENSION: return "bad dimensions (at most 16383 pixels a side)";
    case VP8_ENC_ERROR_PARTITION0_OVERFLOW: return "partition 0 overflow (the image is too complex)";
    case VP8_ENC_ERROR_PARTITION_OVERFLOW: return "partition overflow";
    case VP8_ENC_ERROR_BAD_WRITE: return "write error";
    case VP8_ENC_ERROR_FILE_TOO_BIG: return "the file would be larger than 4 GiB";
    case VP8_ENC_ERROR_USER_ABORT: return "encoding aborted";
    case VP8_ENC_ERROR_LAST: break;
    }
    return "unknown encoder error";
}

static const char *pf_webp_mux_error_text(WebPMuxError error) {
    switch (error) {
    case WEBP_MUX_OK: return "no error";
    case WEBP_MUX_NOT_FOUND: return "muxer: not found";
    case WEBP_MUX_INVALID_ARGUMENT: return "muxer: invalid argument";
    case WEBP_MUX_BAD_DATA: return "muxer: bad data";
    case WEBP_MUX_MEMORY_ERROR: return "out of memory";
    case WEBP_MUX_NOT_ENOUGH_DATA: return "muxer: not enough data";
    }
    return "muxer: unknown error";
}

/* ---- decoding ---- */

struct pf_webp_decoder {
    WebPData data;
    WebPDemuxer *demux;
    WebPAnimDecoder *animation;
    uint32_t frames_read;
    uint32_t frame_count;
    int is_animated;
};

static const char *const pf_webp_chunk_ids[3] = {"ICCP", "EXIF", "XMP "};

pf_webp_decoder *pf_webp_decoder_create(const uint8_t *data, size_t size) {
    pf_webp_decoder *decoder = (pf_webp_decoder *)calloc(1, sizeof *decoder);
    if (decoder == NULL) return NULL;
    decoder->data.bytes = data;
    decoder->data.size = size;
    return decoder;
}

void pf_webp_decoder_destroy(pf_webp_decoder *decoder) {
    if (decoder == NULL) return;
    if (decoder->animation != NULL) WebPAnimDecoderDelete(decoder->animation);
    if (decoder->demux != NULL) WebPDemuxDelete(decoder->demux);
    free(decoder);
}

int pf_webp_read_header(pf_webp_decoder *decoder, pf_webp_header *header, char *message) {
    memset(header, 0, sizeof *header);
    if (decoder->demux != NULL) return pf_webp_fail(message, PF_ERROR, "the header was already read");
    const uint8_t *bytes = decoder->data.bytes;
    size_t size = decoder->data.size;
    if (size < 12 || memcmp(bytes, "RIFF", 4) != 0 || memcmp(bytes + 8, "WEBP", 4) != 0)
        return pf_webp_fail(message, PF_ERROR, "not a RIFF WEBP file");
    /* The RIFF size counts from byte 8; bytes after its end are ignored, as libwebp does. */
    uint64_t riff_end = 8 + ((uint64_t)bytes[4] | (uint64_t)bytes[5] << 8 | (uint64_t)bytes[6] << 16 |
                             (uint64_t)bytes[7] << 24);
    if (riff_end > size) return pf_webp_fail(message, PF_ERROR, "the file is truncated");
    decoder->demux = WebPDemux(&decoder->data);
    if (decoder->demux == NULL) return pf_webp_fail(message, PF_ERROR, "malformed RIFF container or chunk");
    WebPDemuxer *demux = decoder->demux;
    uint32_t flags = WebPDemuxGetI(demux, WEBP_FF_FORMAT_FLAGS);
    header->canvas_width = WebPDemuxGetI(demux, WEBP_FF_CANVAS_WIDTH);
    header->canvas_height = WebPDemuxGetI(demux, WEBP_FF_CANVAS_HEIGHT);
    header->frame_count = WebPDemuxGetI(demux, WEBP_FF_FRAME_COUNT);
    header->is_animated = (flags & ANIMATION_FLAG) != 0;
    header->has_alpha = (flags & ALPHA_FLAG) != 0;
    if (header->frame_count == 0) return pf_webp_fail(message, PF_ERROR, "the file holds no image");

    WebPIterator frame;
    if (WebPDemuxGetFrame(demux, 1, &frame)) {
        if (frame.has_alpha) header->has_alpha = 1;
        WebPDemuxReleaseIterator(&frame);
    }
    for (int i = 0; i < 3; i++) {
        WebPChunkIterator chunk;
        if (WebPDemuxGetChunk(demux, pf_webp_chunk_ids[i], 1, &chunk)) {
            header->chunk_sizes[i] = chunk.chunk.size;
            WebPDemuxReleaseChunkIterator(&chunk);
        }
    }
    decoder->frame_count = header->frame_count;
    decoder->is_animated = header->is_animated;
    return PF_OK;
}

int pf_webp_copy_chunk(pf_webp_decoder *decoder, int chunk, uint8_t *output, size_t capacity,
                       char *message) {
    if (decoder->demux == NULL) return pf_webp_fail(message, PF_ERROR, "the header was not read");
    if (chunk < 0 || chunk > 2) return pf_webp_fail(message, PF_ERROR, "unknown chunk");
    WebPChunkIterator iterator;
    if (!WebPDemuxGetChunk(decoder->demux, pf_webp_chunk_ids[chunk], 1, &iterator))
        return pf_webp_fail(message, PF_ERROR, "the chunk is missing");
    int status = PF_OK;
    if (iterator.chunk.size > capacity) {
        status = pf_webp_fail(message, PF_ERROR, "the chunk is larger than the buffer");
    } else if (iterator.chunk.size > 0) {
        memcpy(output, iterator.chunk.bytes, iterator.chunk.size);
    }
    WebPDemuxReleaseChunkIterator(&iterator);
    return status;
}

int pf_webp_frame_duration(pf_webp_decoder *decoder, uint32_t index, int *duration, char *message) {
    *duration = 0;
    if (decoder->demux == NULL) return pf_webp_fail(message, PF_ERROR, "the header was not read");
    if (index >= decoder->frame_count) return pf_webp_fail(message, PF_ERROR, "no such frame");
    WebPIterator frame;
    if (!WebPDemuxGetFrame(decoder->demux, (int)index + 1, &frame))
        return pf_webp_fail(message, PF_ERROR, "no such frame");
    *duration = decoder->is_animated ? frame.duration : 0;
    WebPDemuxReleaseIterator(&frame);
    return PF_OK;
}

int pf_webp_read_pixels(pf_webp_decoder *decoder, uint8_t *pixels, size_t stride, char *message) {
    if (decoder->demux == NULL) return pf_webp_fail(message, PF_ERROR, "the header was not read");
    if (decoder->is_animated) return pf_webp_fail(message, PF_ERROR, "an animation is decoded frame by frame");
    uint32_t width = WebPDemuxGetI(decoder->demux, WEBP_FF_CANVAS_WIDTH);
    uint32_t height = WebPDemuxGetI(decoder->demux, WEBP_FF_CANVAS_HEIGHT);

    WebPDecoderConfig config;
    if (!WebPInitDecoderConfig(&config)) return pf_webp_fail(message, PF_ERROR, "libwebp version mismatch");
    VP8StatusCode status = WebPGetFeatures(decoder->data.bytes, decoder->data.size, &config.input);
    if (status != VP8_STATUS_OK) return pf_webp_fail(message, PF_ERROR, pf_webp_status_text(status));
    if ((uint32_t)config.input.width != width || (uint32_t)config.input.height != height)
        return pf_webp_fail(message, PF_ERROR, "the image size differs from the canvas size");
    config.output.colorspace = MODE_RGBA;
    config.output.is_external_memory = 1;
    config.output.u.RGBA.rgba = pixels;
    config.output.u.RGBA.stride = (int)stride;
    config.output.u.RGBA.size = stride * height;
    status = WebPDecode(decoder->data.bytes, decoder->data.size, &config);
    WebPFreeDecBuffer(&config.output);
    if (status != VP8_STATUS_OK) return pf_webp_fail(message, PF_ERROR, pf_webp_status_text(status));
    return PF_OK;
}

int pf_webp_start_frames(pf_webp_decoder *decoder, char *message) {
    if (decoder->demux == NULL) return pf_webp_fail(message, PF_ERROR, "the header was not read");
    if (decoder->animation != NULL) return pf_webp_fail(message, PF_ERROR, "the frames were already started");
    WebPAnimDecoderOptions options;
    if (!WebPAnimDecoderOptionsInit(&options)) return pf_webp_fail(message, PF_ERROR, "libwebp version mismatch");
    options.color_mode = MODE_RGBA;
    options.use_threads = 0;
    decoder->animation = WebPAnimDecoderNew(&decoder->data, &options);
    if (decoder->animation == NULL)
        return pf_webp_fail(message, PF_ERROR, "the animation cannot be decoded (malformed or out of memory)");
    return PF_OK;
}

int pf_webp_read_next_frame(pf_webp_decoder *decoder, uint8_t *pixels, size_t stride, char *message) {
    if (decoder->animation == NULL) return pf_webp_fail(message, PF_ERROR, "the frames were not started");
    if (!WebPAnimDecoderHasMoreFrames(decoder->animation))
        return pf_webp_fail(message, PF_ERROR, "no more frames");
    uint8_t *canvas = NULL;
    int timestamp = 0;
    if (!WebPAnimDecoderGetNext(decoder->animation, &canvas, &timestamp) || canvas == NULL)
        return pf_webp_fail(message, PF_ERROR, "a frame is corrupt or truncated");
    decoder->frames_read++;
    if (pixels != NULL) {
        WebPAnimInfo info;
        if (!WebPAnimDecoderGetInfo(decoder->animation, &info))
            return pf_webp_fail(message, PF_ERROR, "no animation information");
        size_t row = (size_t)info.canvas_width * 4;
        for (uint32_t y = 0; y < info.canvas_height; y++)
            memcpy(pixels + (size_t)y * stride, canvas + (size_t)y * row, row);
    }
    return PF_OK;
}

/* ---- encoding ---- */

/* Copies `data` into a malloc'd buffer for the caller (who frees it with pf_free), whatever
   allocator libwebp used. */
static int pf_webp_hand_over(const uint8_t *data, size_t size, uint8_t **output, size_t *output_size,
                             char *message) {
    uint8_t *copy = (uint8_t *)malloc(size > 0 ? size : 1);
    if (copy == NULL) return pf_webp_fail(message, PF_OUT_OF_MEMORY, "out of memory");
    memcpy(copy, data, size);
    *output = copy;
    *output_size = size;
    return PF_OK;
}

static int pf_webp_make_config(WebPConfig *config, int lossless, int quality, int method, char *message) {
    if (quality < 1 || quality > 100) return pf_webp_fail(message, PF_ERROR, "quality must be in 1...100");
    if (method < 0 || method > 6) return pf_webp_fail(message, PF_ERROR, "method must be in 0...6");
    if (!WebPConfigInit(config)) return pf_webp_fail(message, PF_ERROR, "libwebp version mismatch");
    config->quality = (float)quality;
    config->method = method;
    if (lossless) {
        config->lossless = 1;
        /* Keep the RGB of transparent pixels: lossless means every value comes back. */
        config->exact = 1;
    }
    if (!WebPValidateConfig(config)) return pf_webp_fail(message, PF_ERROR, "invalid encoder configuration");
    return PF_OK;
}

static int pf_webp_import(WebPPicture *picture, const uint8_t *pixels, size_t stride, uint32_t width,
                          uint32_t height, int has_alpha, int lossless, char *message) {
    if (!WebPPictureInit(picture)) return pf_webp_fail(message, PF_ERROR, "libwebp version mismatch");
    if (width == 0 || height == 0 || width > PF_WEBP_MAX_SIDE || height > PF_WEBP_MAX_SIDE)
        return pf_webp_fail(message, PF_ERROR, "WebP images are 1...16383 pixels a side");
    if (stride > 0x7fffffff) return pf_webp_fail(message, PF_ERROR, "rows are too long");
    picture->width = (int)width;
    picture->height = (int)height;
    /* ARGB input for lossless (exact values); the lossy path converts to YUV itself. */
    picture->use_argb = lossless ? 1 : 0;
    int ok = has_alpha ? WebPPictureImportRGBA(picture, pixels, (int)stride)
                       : WebPPictureImportRGBX(picture, pixels, (int)stride);
    if (!ok) {
        WebPPictureFree(picture);
        return pf_webp_fail(message, PF_OUT_OF_MEMORY, "out of memory");
    }
    return PF_OK;
}

int pf_webp_encode(const uint8_t *pixels, size_t stride, uint32_t width, uint32_t height,
                   int has_alpha, int lossless, int quality, int method,
                   const uint8_t *icc, size_t icc_size, const uint8_t *exif, size_t exif_size,
                   const uint8_t *xmp, size_t xmp_size,
                   uint8_t **output, size_t *output_size, char *message) {
    *output = NULL;
    *output_size = 0;
    WebPConfig config;
    int status = pf_webp_make_config(&config, lossless, quality, method, message);
    if (status != PF_OK) return status;
    WebPPicture picture;
    status = pf_webp_import(&picture, pixels, stride, width, height, has_alpha, lossless, message);
    if (status != PF_OK) return status;

    WebPMemoryWriter writer;
    WebPMemoryWriterInit(&writer);
    picture.writer = WebPMemoryWrite;
    picture.custom_ptr = &writer;
    int encoded = WebPEncode(&config, &picture);
    WebPEncodingError error = picture.error_code;
    WebPPictureFree(&picture);
    if (!encoded) {
        WebPMemoryWriterClear(&writer);
        return pf_webp_fail(message, error == VP8_ENC_ERROR_OUT_OF_MEMORY ? PF_OUT_OF_MEMORY : PF_ERROR,
                            pf_webp_encoding_error_text(error));
    }

    if (icc == NULL && exif == NULL && xmp == NULL) {
        status = pf_webp_hand_over(writer.mem, writer.size, output, output_size, message);
        WebPMemoryWriterClear(&writer);
        return status;
    }

    /* Metadata: the muxer writes the VP8X header (with its flags) and the chunks in the
       order the specification gives. */
    WebPMux *mux = WebPMuxNew();
    if (mux == NULL) {
        WebPMemoryWriterClear(&writer);
        return pf_webp_fail(message, PF_OUT_OF_MEMORY, "out of memory");
    }
    WebPData image = {writer.mem, writer.size};
    WebPMuxError mux_error = WebPMuxSetImage(mux, &image, 0);
    const uint8_t *blocks[3] = {icc, exif, xmp};
    size_t sizes[3] = {icc_size, exif_size, xmp_size};
    for (int i = 0; i < 3 && mux_error == WEBP_MUX_OK; i++) {
        if (blocks[i] == NULL) continue;
        WebPData chunk = {blocks[i], sizes[i]};
        mux_error = WebPMuxSetChunk(mux, pf_webp_chunk_ids[i], &chunk, 0);
    }
    WebPData assembled = {NULL, 0};
    if (mux_error == WEBP_MUX_OK) mux_error = WebPMuxAssemble(mux, &assembled);
    WebPMuxDelete(mux);
    WebPMemoryWriterClear(&writer);
    if (mux_error != WEBP_MUX_OK) {
        WebPDataClear(&assembled);
        return pf_webp_fail(message, mux_error == WEBP_MUX_MEMORY_ERROR ? PF_OUT_OF_MEMORY : PF_ERROR,
                            pf_webp_mux_error_text(mux_error));
    }
    status = pf_webp_hand_over(assembled.bytes, assembled.size, output, output_size, message);
    WebPDataClear(&assembled);
    return status;
}

int pf_webp_encode_animation(const uint8_t *const *frames, const int *durations, uint32_t frame_count,
                             size_t stride, uint32_t width, uint32_t height, int lossless,
                             int quality, int method, uint8_t **output, size_t *output_size,
                             char *message) {
    *output = NULL;
    *output_size = 0;
    if (frame_count == 0) return pf_webp_fail(message, PF_ERROR, "an animation needs at least one frame");
    if (width == 0 || height == 0 || width > PF_WEBP_MAX_SIDE || height > PF_WEBP_MAX_SIDE)
        return pf_webp_fail(message, PF_ERROR, "WebP images are 1...16383 pixels a side");
    WebPConfig config;
    int status = pf_webp_make_config(&config, lossless, quality, method, message);
    if (status != PF_OK) return status;
    WebPAnimEncoderOptions options;
    if (!WebPAnimEncoderOptionsInit(&options)) return pf_webp_fail(message, PF_ERROR, "libwebp version mismatch");
    options.anim_params.loop_count = 0;
    WebPAnimEncoder *encoder = WebPAnimEncoderNew((int)width, (int)height, &options);
    if (encoder == NULL) return pf_webp_fail(message, PF_OUT_OF_MEMORY, "out of memory");

    int timestamp = 0;
    for (uint32_t i = 0; i < frame_count; i++) {
        if (durations[i] < 0 || durations[i] > 0xffffff)
            status = pf_webp_fail(message, PF_ERROR, "a frame duration is outside 0...16777215 ms");
        else if (timestamp > 0x7fffffff - durations[i])
            status = pf_webp_fail(message, PF_ERROR, "the animation is too long");
        if (status != PF_OK) break;
        WebPPicture picture;
        status = pf_webp_import(&picture, frames[i], stride, width, height, 1, lossless, message);
        if (status != PF_OK) break;
        if (!WebPAnimEncoderAdd(encoder, &picture, timestamp, &config)) {
            const char *text = WebPAnimEncoderGetError(encoder);
            status = pf_webp_fail(message, PF_ERROR, text != NULL && text[0] ? text : "a frame could not be encoded");
        }
        WebPPictureFree(&picture);
        if (status != PF_OK) break;
        timestamp += durations[i];
    }
    WebPData assembled = {NULL, 0};
    if (status == PF_OK) {
        /* The last frame's duration is the end timestamp minus its start. */
        if (!WebPAnimEncoderAdd(encoder, NULL, timestamp, NULL) || !WebPAnimEncoderAssemble(encoder, &assembled)) {
            const char *text = WebPAnimEncoderGetError(encoder);
            status = pf_webp_fail(message, PF_ERROR, text != NULL && text[0] ? text : "the animation could not be assembled");
        }
    }
    WebPAnimEncoderDelete(encoder);
    if (status == PF_OK) status = pf_webp_hand_over(assembled.bytes, assembled.size, output, output_size, message);
    WebPDataClear(&assembled);
    return status;
}
