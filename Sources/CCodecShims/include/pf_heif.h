#ifndef PIXELFLOW_PF_HEIF_H
#define PIXELFLOW_PF_HEIF_H

/* libheif shims for PixelFlow (conventions: see CCodecShims.h). This header includes no
   header of libheif itself.

   libheif reports errors as returned values (no longjmp, no callbacks), so every function
   here returns a PF_* status with libheif's message copied into the caller's `message`
   buffer of PF_MESSAGE_CAPACITY bytes. libheif is initialized once per process
   (pthread_once); no other state is shared, so decoders on different threads are
   independent. */

#include <stddef.h>
#include <stdint.h>

/* Status beyond PF_OK / PF_ERROR / PF_OUT_OF_MEMORY: this libheif build has no decoder or
   encoder for the codec the file or the call needs (the message names it). */
#define PF_HEIF_MISSING_CODEC 16
/* Status: libheif's own size limit (set from the caller's maximum side) refused the image. */
#define PF_HEIF_SIZE_LIMIT 17

/* Codecs inside a HEIF container. */
enum {
    PF_HEIF_CODEC_HEVC = 1, /* .heic */
    PF_HEIF_CODEC_AV1 = 4,  /* .avif */
};

/* Non-zero when this libheif build can decode / encode `codec` (PF_HEIF_CODEC_*). */
int pf_heif_have_decoder(int codec);
int pf_heif_have_encoder(int codec);

/* Pixel layouts the decoder produces. */
enum {
    /* 4 bytes per pixel RGBA, alpha 255 where the image has none. */
    PF_HEIF_OUTPUT_RGBA8 = 0,
    /* 8 bytes per pixel RGBA as native-endian uint16, scaled from the stored bit depth to
       0...65535 (v * 65535 / (2^bits - 1), rounded); alpha 65535 where there is none. */
    PF_HEIF_OUTPUT_RGBA16 = 1,
};

/* What the selected image's headers say. */
typedef struct pf_heif_header {
    /* The item ID of the image (for reading its properties from the boxes). */
    uint32_t item_id;
    /* Size of the pixels pf_heif_read_pixels gives: clap, irot and imir applied. */
    uint32_t width;
    uint32_t height;
    /* Size of the coded image (ispe) before clap crops it, 0 when unknown: libheif decodes
       at this size first, so the caller checks it against its limits too. */
    uint32_t coded_width;
    uint32_t coded_height;
    /* Bits per luma sample (8, 10, 12), or -1 when unknown. */
    int bits_per_sample;
    int has_alpha;
    int premultiplied_alpha;
    /* Non-zero when an nclx colr box is present; its code points follow. */
    int has_nclx;
    int color_primaries;
    int transfer_characteristics;
    int matrix_coefficients;
    int full_range;
    /* Sizes of the blocks pf_heif_read_metadata copies (0 when absent): the raw ICC profile
       (prof or rICC), the first Exif item as stored (a 4-byte big-endian offset to the TIFF
       header, then the TIFF structure), the first XMP item (mime, application/rdf+xml). */
    size_t icc_size;
    size_t exif_size;
    size_t xmp_size;
} pf_heif_header;

typedef struct pf_heif_decoder pf_heif_decoder;

/* Makes a decoder; NULL when out of memory. */
pf_heif_decoder *pf_heif_decoder_create(void);
void pf_heif_decoder_destroy(pf_heif_decoder *decoder);

/* Parses the boxes of the `size` bytes at `data` (not copied: keep them alive until
   pf_heif_decoder_destroy) with libheif's size limit set to `maximum_side` pixels, and
   reports how many top-level images the file holds. */
int pf_heif_open(pf_heif_decoder *decoder, const uint8_t *data, size_t size, int maximum_side,
                 int *image_count, char *message);

/* Selects top-level image `index` (0: the primary image; i > 0: the i-th of the other
   top-level images in item-ID order) and fills `header`. */
int pf_heif_select_image(pf_heif_decoder *decoder, int index, pf_heif_header *header, char *message);

/* Copies the selected image's ICC profile, Exif and XMP blocks into the caller's buffers of
   the sizes the header gave (each may be NULL when its size is 0). */
int pf_heif_read_metadata(pf_heif_decoder *decoder, uint8_t *icc, uint8_t *exif, uint8_t *xmp,
                          char *message);

/* Decodes the selected image into `pixels`, rows `stride` bytes apart, in the `output`
   layout (PF_HEIF_OUTPUT_*), with straight alpha (premultiplied files are divided out),
   its transformations (clap, irot, imir) applied as libheif does by default. */
int pf_heif_read_pixels(pf_heif_decoder *decoder, int output, uint8_t *pixels, size_t stride,
                        char *message);

/* Sample layouts the encoder accepts. */
enum {
    /* 1 byte per pixel, written as monochrome. */
    PF_HEIF_INPUT_GRAY8 = 0,
    /* 4 bytes per pixel RGBA, written without alpha. */
    PF_HEIF_INPUT_RGBA8_AS_RGB = 1,
    /* 4 bytes per pixel RGBA, written with alpha. */
    PF_HEIF_INPUT_RGBA8 = 2,
    /* 8 bytes per pixel native-endian uint16 RGBA, written at 10 bits without alpha (HEVC
       only: libheif 1.15 with aom cannot write 10-bit AV1). */
    PF_HEIF_INPUT_RGBA16_AS_RGB = 3,
    /* 8 bytes per pixel native-endian uint16 RGBA, written at 10 bits with alpha (HEVC only). */
    PF_HEIF_INPUT_RGBA16 = 4,
};

/* What pf_heif_encode writes besides the pixels. */
typedef struct pf_heif_encode_settings {
    /* PF_HEIF_CODEC_HEVC or PF_HEIF_CODEC_AV1. */
    int codec;
    /* 1...100 (libheif's lossy quality). */
    int quality;
    /* Non-zero: lossless (RGB as 4:4:4 with the identity matrix; gray as monochrome). */
    int lossless;
    /* 0...9: AV1 speed 9 - effort; x265 preset ultrafast ... veryslow (8 and 9). */
    int effort;
    const uint8_t *icc;
    size_t icc_size;
    /* A TIFF structure without any prefix (libheif adds the 4-byte offset before it). */
    const uint8_t *exif;
    size_t exif_size;
    const uint8_t *xmp;
    size_t xmp_size;
} pf_heif_encode_settings;

/* Encodes one image into a malloc'd buffer returned in `*output` (free with pf_free) of
   `*output_size` bytes. PF_HEIF_MISSING_CODEC when libheif has no encoder for the codec. */
int pf_heif_encode(const uint8_t *pixels, size_t stride, uint32_t width, uint32_t height,
                   int input, const pf_heif_encode_settings *settings,
                   uint8_t **output, size_t *output_size, char *message);

#endif
