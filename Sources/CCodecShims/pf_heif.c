/* libheif shims: libheif returns its errors as values, so each call here checks them and
   copies the message; nothing is printed and no state is shared between decoders. */
#include <stdio.h>
#include "CCodecShims.h"

#include <libheif/heif.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static void pf_copy_message(char *message, const char *text) {
    if (message == NULL) return;
    if (text == NULL || text[0] == '\0') text = "unknown error";
    strncpy(message, text, PF_MESSAGE_CAPACITY - 1);
    message[PF_MESSAGE_CAPACITY - 1] = '\0';
}

/* libheif's plugins are registered by heif_init; it is reference counted and never undone
   here (the process keeps one reference). */
static pthread_once_t pf_heif_once = PTHREAD_ONCE_INIT;
static void pf_heif_init_once(void) { (void)heif_init(NULL); }
static void pf_heif_ensure_init(void) { pthread_once(&pf_heif_once, pf_heif_init_once); }

/* The status for a libheif error, with its message copied. */
static int pf_heif_status(struct heif_error error, char *message) {
    pf_copy_message(message, error.message);
    if (error.code == heif_error_Memory_allocation_error) {
        return error.subcode == heif_suberror_Security_limit_exceeded ? PF_HEIF_SIZE_LIMIT : PF_OUT_OF_MEMORY;
    }
    if (error.code == heif_error_Unsupported_feature && error.subcode == heif_suberror_Unsupported_codec) {
        return PF_HEIF_MISSING_CODEC;
    }
    return PF_ERROR;
}

int pf_heif_have_decoder(int codec) {
    pf_heif_ensure_init();
    return heif_have_decoder_for_format((enum heif_compression_format)codec);
}

int pf_heif_have_encoder(int codec) {
    pf_heif_ensure_init();
    return heif_have_encoder_for_format((enum heif_compression_format)codec);
}

/* ---- decoding ---- */

struct pf_heif_decoder {
    struct heif_context *context;
    struct heif_image_handle *handle;
    pf_heif_header header;
    heif_item_id exif_id;
    heif_item_id xmp_id;
};

pf_heif_decoder *pf_heif_decoder_create(void) {
    pf_heif_ensure_init();
    pf_heif_decoder *decoder = (pf_heif_decoder *)calloc(1, sizeof *decoder);
    if (decoder == NULL) return NULL;
    decoder->context = heif_context_alloc();
    if (decoder->context == NULL) {
        free(decoder);
        return NULL;
    }
    return decoder;
}

void pf_heif_decoder_destroy(pf_heif_decoder *decoder) {
    if (decoder == NULL) return;
    if (decoder->handle != NULL) heif_image_handle_release(decoder->handle);
    heif_context_free(decoder->context);
    free(decoder);
}

int pf_heif_open(pf_heif_decoder *decoder, const uint8_t *data, size_t size, int maximum_side,
                 int *image_count, char *message) {
    *image_count = 0;
    if (maximum_side > 0) heif_context_set_maximum_image_size_limit(decoder->context, maximum_side);
    struct heif_error error = heif_context_read_from_memory_without_copy(decoder->context, data, size, NULL);
    if (error.code != heif_error_Ok) return pf_heif_status(error, message);
    *image_count = heif_context_get_number_of_top_level_images(decoder->context);
    if (*image_count < 1) {
        pf_copy_message(message, "the file holds no image");
        return PF_ERROR;
    }
    return PF_OK;
}

/* The first metadata item of `type` (and `content_type` when not NULL), or 0. */
static heif_item_id pf_heif_find_metadata(const struct heif_image_handle *handle, const char *type,
                                          const char *content_type) {
    int count = heif_image_handle_get_number_of_metadata_blocks(handle, type);
    if (count <= 0) return 0;
    heif_item_id *ids = (heif_item_id *)malloc((size_t)count * sizeof *ids);
    if (ids == NULL) return 0;
    count = heif_image_handle_get_list_of_metadata_block_IDs(handle, type, ids, count);
    heif_item_id found = 0;
    for (int i = 0; i < count && found == 0; i++) {
        const char *content = heif_image_handle_get_metadata_content_type(handle, ids[i]);
        if (content_type == NULL || (content != NULL && strcmp(content, content_type) == 0)) found = ids[i];
    }
    free(ids);
    return found;
}

int pf_heif_select_image(pf_heif_decoder *decoder, int index, pf_heif_header *header, char *message) {
    memset(header, 0, sizeof *header);
    if (decoder->handle != NULL) {
        heif_image_handle_release(decoder->handle);
        decoder->handle = NULL;
    }
    heif_item_id primary = 0;
    struct heif_error error = heif_context_get_primary_image_ID(decoder->context, &primary);
    if (error.code != heif_error_Ok) return pf_heif_status(error, message);
    heif_item_id selected = primary;
    if (index > 0) {
        int count = heif_context_get_number_of_top_level_images(decoder->context);
        if (index >= count) {
            pf_copy_message(message, "image index out of range");
            return PF_ERROR;
        }
        heif_item_id *ids = (heif_item_id *)malloc((size_t)count * sizeof *ids);
        if (ids == NULL) {
            pf_copy_message(message, "out of memory");
            return PF_OUT_OF_MEMORY;
        }
        count = heif_context_get_list_of_top_level_image_IDs(decoder->context, ids, count);
        /* The others in ID order, skipping the primary image. */
        int seen = 0;
        selected = 0;
        for (int i = 0; i < count && selected == 0; i++) {
            if (ids[i] == primary) continue;
            if (++seen == index) selected = ids[i];
        }
        free(ids);
        if (selected == 0) {
            pf_copy_message(message, "image index out of range");
            return PF_ERROR;
        }
    }
    error = heif_context_get_image_handle(decoder->context, selected, &decoder->handle);
    if (error.code != heif_error_Ok) return pf_heif_status(error, message);
    struct heif_image_handle *handle = decoder->handle;
    header->item_id = selected;
    int width = heif_image_handle_get_width(handle);
    int height = heif_image_handle_get_height(handle);
    header->width = width > 0 ? (uint32_t)width : 0;
    header->height = height > 0 ? (uint32_t)height : 0;
    int coded_width = heif_image_handle_get_ispe_width(handle);
    int coded_height = heif_image_handle_get_ispe_height(handle);
    header->coded_width = coded_width > 0 ? (uint32_t)coded_width : 0;
    header->coded_height = coded_height > 0 ? (uint32_t)coded_height : 0;
    header->bits_per_sample = heif_image_handle_get_luma_bits_per_pixel(handle);
    header->has_alpha = heif_image_handle_has_alpha_channel(handle) != 0;
    header->premultiplied_alpha = header->has_alpha && heif_image_handle_is_premultiplied_alpha(handle) != 0;

    struct heif_color_profile_nclx *nclx = NULL;
    error = heif_image_handle_get_nclx_color_profile(handle, &nclx);
    if (error.code == heif_error_Ok && nclx != NULL) {
        header->has_nclx = 1;
        header->color_primaries = (int)nclx->color_primaries;
        header->transfer_characteristics = (int)nclx->transfer_characteristics;
        header->matrix_coefficients = (int)nclx->matrix_coefficients;
        header->full_range = nclx->full_range_flag != 0;
    }
    heif_nclx_color_profile_free(nclx);
    header->icc_size = heif_image_handle_get_raw_color_profile_size(handle);

    decoder->exif_id = pf_heif_find_metadata(handle, "Exif", NULL);
    decoder->xmp_id = pf_heif_find_metadata(handle, "mime", "application/rdf+xml");
    if (decoder->exif_id != 0) header->exif_size = heif_image_handle_get_metadata_size(handle, decoder->exif_id);
    if (decoder->xmp_id != 0) header->xmp_size = heif_image_handle_get_metadata_size(handle, decoder->xmp_id);
    decoder->header = *header;
    return PF_OK;
}

int pf_heif_read_metadata(pf_heif_decoder *decoder, uint8_t *icc, uint8_t *exif, uint8_t *xmp,
                          char *message) {
    const struct heif_image_handle *handle = decoder->handle;
    if (handle == NULL) {
        pf_copy_message(message, "no image selected");
        return PF_ERROR;
    }
    struct heif_error error;
    if (decoder->header.icc_size > 0 && icc != NULL) {
        error = heif_image_handle_get_raw_color_profile(handle, icc);
        if (error.code != heif_error_Ok) return pf_heif_status(error, message);
    }
    if (decoder->header.exif_size > 0 && exif != NULL) {
        error = heif_image_handle_get_metadata(handle, decoder->exif_id, exif);
        if (error.code != heif_error_Ok) return pf_heif_status(error, message);
    }
    if (decoder->header.xmp_size > 0 && xmp != NULL) {
        error = heif_image_handle_get_metadata(handle, decoder->xmp_id, xmp);
        if (error.code != heif_error_Ok) return pf_heif_status(error, message);
    }
    return PF_OK;
}

/* v (0 ... 2^bits - 1) scaled to 0...65535, rounded. */
static inline uint16_t pf_heif_scale16(uint32_t v, uint32_t maximum) {
    if (v >= maximum) return 65535;
    return (uint16_t)((v * 65535u + maximum / 2) / maximum);
}

int pf_heif_read_pixels(pf_heif_decoder *decoder, int output, uint8_t *pixels, size_t stride,
                        char *message) {
    const struct heif_image_handle *handle = decoder->handle;
    if (handle == NULL) {
        pf_copy_message(message, "no image selected");
        return PF_ERROR;
    }
    if (output != PF_HEIF_OUTPUT_RGBA8 && output != PF_HEIF_OUTPUT_RGBA16) {
        pf_copy_message(message, "unknown output layout");
        return PF_ERROR;
    }
    const int sixteen = output == PF_HEIF_OUTPUT_RGBA16;
    const int alpha = decoder->header.has_alpha;
    enum heif_chroma chroma = sixteen ? (alpha ? heif_chroma_interleaved_RRGGBBAA_LE : heif_chroma_interleaved_RRGGBB_LE)
                                      : (alpha ? heif_chroma_interleaved_RGBA : heif_chroma_interleaved_RGB);
    struct heif_decoding_options *options = heif_decoding_options_alloc();
    if (options == NULL) {
        pf_copy_message(message, "out of memory");
        return PF_OUT_OF_MEMORY;
    }
    /* libheif 1.15 reports -1 when the item's decoder configuration gives no bit depth; such
     * items have made heif_decode_image allocate close to 1 GB for a 64x48 image (a 2.3 KB
     * file found by fuzz-heif, Fuzz/corpus/heif/regression-*), so they are refused first. */
    if (decoder->header.bits_per_sample < 1 || decoder->header.bits_per_sample > 16) {
        heif_decoding_options_free(options);
        snprintf(message, PF_MESSAGE_CAPACITY, "the image item declares no valid bit depth (%d)",
                 decoder->header.bits_per_sample);
        return PF_ERROR;
    }
    struct heif_image *image = NULL;
    struct heif_error error = heif_decode_image(handle, &image, heif_colorspace_RGB, chroma, options);
    heif_decoding_options_free(options);
    if (error.code != heif_error_Ok) {
        heif_image_release(image);
        return pf_heif_status(error, message);
    }
    int status = PF_OK;
    int in_stride = 0;
    const uint8_t *plane = heif_image_get_plane_readonly(image, heif_channel_interleaved, &in_stride);
    int width = heif_image_get_width(image, heif_channel_interleaved);
    int height = heif_image_get_height(image, heif_channel_interleaved);
    int bits = heif_image_get_bits_per_pixel_range(image, heif_channel_interleaved);
    if (plane == NULL || width != (int)decoder->header.width || height != (int)decoder->header.height) {
        pf_copy_message(message, "the decoded image does not have the size its header declares");
        status = PF_ERROR;
    } else if (sixteen ? (bits <= 8 || bits > 16) : bits != 8) {
        pf_copy_message(message, "the decoded image has an unexpected bit depth");
        status = PF_ERROR;
    } else if (!sixteen) {
        const int channels = alpha ? 4 : 3;
        for (int y = 0; y < height; y++) {
            const uint8_t *in = plane + (size_t)y * (size_t)in_stride;
            uint8_t *out = pixels + (size_t)y * stride;
            for (int x = 0; x < width; x++, in += channels, out += 4) {
                uint8_t a = alpha ? in[3] : 255;
                if (decoder->header.premultiplied_alpha && a != 255) {
                    for (int c = 0; c < 3; c++) {
                        out[c] = a == 0 ? 0 : (uint8_t)((in[c] >= a ? 255u : ((uint32_t)in[c] * 255u + a / 2) / a));
                    }
                } else {
                    out[0] = in[0];
                    out[1] = in[1];
                    out[2] = in[2];
                }
                out[3] = a;
            }
        }
    } else {
        const int channels = alpha ? 4 : 3;
        const uint32_t maximum = (1u << bits) - 1u;
        for (int y = 0; y < height; y++) {
            const uint8_t *in = plane + (size_t)y * (size_t)in_stride;
            uint16_t *out = (uint16_t *)(void *)(pixels + (size_t)y * stride);
            for (int x = 0; x < width; x++, in += 2 * channels, out += 4) {
                uint32_t v[4];
                for (int c = 0; c < channels; c++) v[c] = (uint32_t)in[2 * c] | (uint32_t)in[2 * c + 1] << 8;
                if (!alpha) v[3] = maximum;
                if (decoder->header.premultiplied_alpha && v[3] < maximum) {
                    for (int c = 0; c < 3; c++) {
                        v[c] = v[3] == 0 ? 0 : (v[c] >= v[3] ? maximum : (v[c] * maximum + v[3] / 2) / v[3]);
                    }
                }
                for (int c = 0; c < 4; c++) out[c] = pf_heif_scale16(v[c], maximum);
            }
        }
    }
    heif_image_release(image);
    return status;
}

/* ---- encoding ---- */

typedef struct pf_heif_output {
    uint8_t *data;
    size_t size;
} pf_heif_output;

static struct heif_error pf_heif_write(struct heif_context *context, const void *data, size_t size,
                                       void *userdata) {
    (void)context;
    pf_heif_output *output = (pf_heif_output *)userdata;
    struct heif_error ok = {heif_error_Ok, heif_suberror_Unspecified, "Success"};
    struct heif_error failed = {heif_error_Encoding_error, heif_suberror_Cannot_write_output_data,
                                "out of memory for the output"};
    /* libheif writes the whole file in one call; append in case a later version splits it. */
    if (size > ((size_t)-1) - output->size) return failed;
    uint8_t *grown = (uint8_t *)realloc(output->data, output->size + size + 1);
    if (grown == NULL) return failed;
    memcpy(grown + output->size, data, size);
    output->data = grown;
    output->size += size;
    return ok;
}

/* Sets the encoder's speed from `effort` 0...9: AV1 encoders' integer "speed" as
   9 - effort clamped to its range, x265's "preset" as the effort-th of ultrafast ...
   veryslow (effort 8 and 9 both veryslow: x265's placebo refuses images under 64 pixels). */
static void pf_heif_set_effort(struct heif_encoder *encoder, int effort) {
    static const char *const presets[10] = {"ultrafast", "superfast", "veryfast", "faster", "fast",
                                            "medium", "slow", "slower", "veryslow", "veryslow"};
    if (effort < 0) effort = 0;
    if (effort > 9) effort = 9;
    const struct heif_encoder_parameter *const *parameters = heif_encoder_list_parameters(encoder);
    for (; parameters != NULL && *parameters != NULL; parameters++) {
        const char *name = heif_encoder_parameter_get_name(*parameters);
        if (name == NULL) continue;
        if (strcmp(name, "speed") == 0 &&
            heif_encoder_parameter_get_type(*parameters) == heif_encoder_parameter_type_integer) {
            int have_minimum = 0, have_maximum = 0, minimum = 0, maximum = 0, count = 0;
            const int *values = NULL;
            int speed = 9 - effort;
            heif_encoder_parameter_get_valid_integer_values(*parameters, &have_minimum, &have_maximum, &minimum,
                                                            &maximum, &count, &values);
            if (have_minimum && speed < minimum) speed = minimum;
            if (have_maximum && speed > maximum) speed = maximum;
            (void)heif_encoder_set_parameter_integer(encoder, "speed", speed);
        } else if (strcmp(name, "preset") == 0) {
            (void)heif_encoder_set_parameter_string(encoder, "preset", presets[effort]);
        }
    }
}

/* Copies the caller's pixels into a new libheif image in the layout `input` says. */
static struct heif_error pf_heif_make_image(const uint8_t *pixels, size_t stride, int width, int height, int input,
                                            struct heif_image **out) {
    /* Callers pass 16-bit input only where 10-bit encoding works (see pf_heif_encode). */
    struct heif_error error;
    struct heif_image *image = NULL;
    const int gray = input == PF_HEIF_INPUT_GRAY8;
    const int sixteen = input == PF_HEIF_INPUT_RGBA16 || input == PF_HEIF_INPUT_RGBA16_AS_RGB;
    const int alpha = input == PF_HEIF_INPUT_RGBA8 || input == PF_HEIF_INPUT_RGBA16;
    enum heif_chroma chroma = gray ? heif_chroma_monochrome
                              : sixteen ? (alpha ? heif_chroma_interleaved_RRGGBBAA_LE : heif_chroma_interleaved_RRGGBB_LE)
                                        : (alpha ? heif_chroma_interleaved_RGBA : heif_chroma_interleaved_RGB);
    error = heif_image_create(width, height, gray ? heif_colorspace_monochrome : heif_colorspace_RGB, chroma, &image);
    if (error.code != heif_error_Ok) return error;
    enum heif_channel channel = gray ? heif_channel_Y : heif_channel_interleaved;
    error = heif_image_add_plane(image, channel, width, height, sixteen ? 10 : 8);
    if (error.code != heif_error_Ok) {
        heif_image_release(image);
        return error;
    }
    int out_stride = 0;
    uint8_t *plane = heif_image_get_plane(image, channel, &out_stride);
    const int channels = gray ? 1 : alpha ? 4 : 3;
    for (int y = 0; y < height; y++) {
        const uint8_t *in = pixels + (size_t)y * stride;
        uint8_t *row = plane + (size_t)y * (size_t)out_stride;
        if (gray) {
            memcpy(row, in, (size_t)width);
        } else if (!sixteen) {
            for (int x = 0; x < width; x++, in += 4, row += channels) memcpy(row, in, (size_t)channels);
        } else {
            const uint16_t *in16 = (const uint16_t *)(const void *)in;
            for (int x = 0; x < width; x++, in16 += 4) {
                for (int c = 0; c < channels; c++) {
                    /* 0...65535 to 0...1023, rounded. */
                    uint32_t v = ((uint32_t)in16[c] * 1023u + 32767u) / 65535u;
                    *row++ = (uint8_t)(v & 0xff);
                    *row++ = (uint8_t)(v >> 8);
                }
            }
        }
    }
    *out = image;
    return error;
}

int pf_heif_encode(const uint8_t *pixels, size_t stride, uint32_t width, uint32_t height,
                   int input, const pf_heif_encode_settings *settings,
                   uint8_t **output, size_t *output_size, char *message) {
    *output = NULL;
    *output_size = 0;
    pf_heif_ensure_init();
    if (input < PF_HEIF_INPUT_GRAY8 || input > PF_HEIF_INPUT_RGBA16) {
        pf_copy_message(message, "unknown input layout");
        return PF_ERROR;
    }
    if (width == 0 || height == 0 || width > 0x7fffffff || height > 0x7fffffff) {
        pf_copy_message(message, "the image size is out of range");
        return PF_ERROR;
    }
    if (settings->codec != PF_HEIF_CODEC_HEVC && settings->codec != PF_HEIF_CODEC_AV1) {
        pf_copy_message(message, "unknown codec");
        return PF_ERROR;
    }
    if (settings->codec == PF_HEIF_CODEC_AV1 && (input == PF_HEIF_INPUT_RGBA16 || input == PF_HEIF_INPUT_RGBA16_AS_RGB)) {
        /* libheif 1.15 asks aom for AV1 profile 2 at 10 bits, which aom 3.6 rejects with an
           assert that aborts the process: the caller converts to 8 bits first. */
        pf_copy_message(message, "10-bit AV1 is not supported by this libheif; convert to 8 bits");
        return PF_ERROR;
    }
    if (settings->exif_size > 0x7fffffff || settings->xmp_size > 0x7fffffff) {
        pf_copy_message(message, "a metadata block is larger than 2 GiB");
        return PF_ERROR;
    }

    struct heif_context *context = heif_context_alloc();
    if (context == NULL) {
        pf_copy_message(message, "out of memory");
        return PF_OUT_OF_MEMORY;
    }
    struct heif_encoder *encoder = NULL;
    struct heif_image *image = NULL;
    struct heif_encoding_options *options = NULL;
    struct heif_color_profile_nclx *nclx = NULL;
    struct heif_image_handle *handle = NULL;
    pf_heif_output out = {NULL, 0};
    int status = PF_OK;
    struct heif_error error;

    error = heif_context_get_encoder_for_format(context, (enum heif_compression_format)settings->codec, &encoder);
    if (error.code != heif_error_Ok) {
        status = PF_HEIF_MISSING_CODEC;
        pf_copy_message(message, error.message);
        goto done;
    }
    error = heif_encoder_set_lossy_quality(encoder, settings->quality);
    if (error.code != heif_error_Ok) goto failed;
    error = heif_encoder_set_lossless(encoder, settings->lossless != 0);
    if (error.code != heif_error_Ok) goto failed;
    pf_heif_set_effort(encoder, settings->effort);
    /* Lossless RGB is stored as GBR (identity matrix), which needs full-resolution chroma:
       aom aborts the process (an assert) on the identity matrix with 4:2:0. */
    const int identity = settings->lossless && input != PF_HEIF_INPUT_GRAY8 &&
                         heif_encoder_set_parameter_string(encoder, "chroma", "444").code == heif_error_Ok;

    error = pf_heif_make_image(pixels, stride, (int)width, (int)height, input, &image);
    if (error.code != heif_error_Ok) goto failed;
    if (settings->icc != NULL && settings->icc_size > 0) {
        error = heif_image_set_raw_color_profile(image, "prof", settings->icc, settings->icc_size);
        if (error.code != heif_error_Ok) goto failed;
    }

    options = heif_encoding_options_alloc();
    nclx = heif_nclx_color_profile_alloc();
    if (options == NULL || nclx == NULL) {
        status = PF_OUT_OF_MEMORY;
        pf_copy_message(message, "out of memory");
        goto done;
    }
    /* sRGB primaries and transfer; BT.601 matrix (identity when lossless); full range. */
    nclx->color_primaries = heif_color_primaries_ITU_R_BT_709_5;
    nclx->transfer_characteristics = heif_transfer_characteristic_IEC_61966_2_1;
    nclx->matrix_coefficients = identity ? heif_matrix_coefficients_RGB_GBR : heif_matrix_coefficients_ITU_R_BT_601_6;
    nclx->full_range_flag = 1;
    /* libheif 1.15 takes the AV1 encoder's nclx from the image, the container's from the
       options: set both. */
    error = heif_image_set_nclx_color_profile(image, nclx);
    if (error.code != heif_error_Ok) goto failed;
    options->output_nclx_profile = nclx;
    /* libheif leaves the nclx box out of HEVC files by default (older macOS showed such
       files wrongly); lossless needs it to say the matrix is the identity. */
    if (identity) options->macOS_compatibility_workaround_no_nclx_profile = 0;
    options->save_alpha_channel = 1;
    /* With an ICC profile, the nclx box still says how YCbCr maps to RGB. */
    options->save_two_colr_boxes_when_ICC_and_nclx_available = 1;

    error = heif_context_encode_image(context, image, encoder, options, &handle);
    if (error.code != heif_error_Ok) goto failed;
    if (settings->exif != NULL && settings->exif_size > 0) {
        error = heif_context_add_exif_metadata(context, handle, settings->exif, (int)settings->exif_size);
        if (error.code != heif_error_Ok) goto failed;
    }
    if (settings->xmp != NULL && settings->xmp_size > 0) {
        error = heif_context_add_XMP_metadata(context, handle, settings->xmp, (int)settings->xmp_size);
        if (error.code != heif_error_Ok) goto failed;
    }
    struct heif_writer writer;
    writer.writer_api_version = 1;
    writer.write = pf_heif_write;
    error = heif_context_write(context, &writer, &out);
    if (error.code != heif_error_Ok) goto failed;
    *output = out.data;
    *output_size = out.size;
    out.data = NULL;
    goto done;

failed:
    status = pf_heif_status(error, message);
done:
    free(out.data);
    if (handle != NULL) heif_image_handle_release(handle);
    if (options != NULL) {
        options->output_nclx_profile = NULL;
        heif_encoding_options_free(options);
    }
    heif_nclx_color_profile_free(nclx);
    heif_image_release(image);
    if (encoder != NULL) heif_encoder_release(encoder);
    heif_context_free(context);
    return status;
}
