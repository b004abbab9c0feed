#ifndef PIXELFLOW_PF_LCMS_H
#define PIXELFLOW_PF_LCMS_H

/* lcms2 shims for PixelFlow's color management (conventions: see CCodecShims.h). This
   header includes no header of lcms2 itself.

   Profiles travel as ICC bytes; PixelFlow makes the bytes of its built-in color spaces with
   pf_lcms_make_rgb_profile and pf_lcms_make_gray_profile. Transforms use the default lcms2
   context and are created with cmsFLAGS_NOCACHE, so one transform may run on several
   threads at once (lcms2's only per-transform mutable state is the one-pixel cache). */

#include <stddef.h>
#include <stdint.h>

/* Pixel layouts of a transform's input and output. */
enum {
    PF_LCMS_RGBA8 = 0,       /* 4 x uint8, alpha copied */
    PF_LCMS_RGBA16 = 1,      /* 4 x native uint16, alpha copied */
    PF_LCMS_GRAY8 = 2,       /* 1 x uint8 */
    PF_LCMS_RGBA_FLOAT = 3,  /* 4 x float, 0...1 nominal, unbounded for matrix-shaper profiles */
    PF_LCMS_CMYK8 = 4,       /* 4 x uint8, 0 = no ink */
    PF_LCMS_CMYK16 = 5,      /* 4 x native uint16, 0 = no ink */
    PF_LCMS_GRAY16 = 6,      /* 1 x native uint16 */
};

/* The color space of a profile's device side. */
enum {
    PF_LCMS_SPACE_OTHER = 0,
    PF_LCMS_SPACE_RGB = 1,
    PF_LCMS_SPACE_GRAY = 2,
    PF_LCMS_SPACE_CMYK = 3,
};

typedef struct pf_lcms_profile_info {
    /* PF_LCMS_SPACE_* */
    int color_space;
    /* Non-zero for a matrix/TRC profile (three colorants and three curves). */
    int is_matrix_shaper;
    /* Non-zero when the profile is sRGB within 0.002: the colorants of lcms2's sRGB and the
       sRGB curve at 64 points (a gray profile: the curve alone). */
    int is_srgb;
    /* The ICC version, e.g. 2.1 or 4.3. */
    double version;
} pf_lcms_profile_info;

/* Parses `size` bytes of an ICC profile and reports what it is; its description (the
   English one, ASCII) goes into `description` (at most `capacity` bytes, NUL-terminated). */
int pf_lcms_profile_inspect(const uint8_t *icc, size_t size, pf_lcms_profile_info *info,
                            char *description, size_t capacity, char *message);

/* Transfer functions of the profiles PixelFlow makes. */
enum {
    PF_LCMS_TRANSFER_LINEAR = 0,
    PF_LCMS_TRANSFER_SRGB = 1,       /* IEC 61966-2-1 */
    PF_LCMS_TRANSFER_GAMMA = 2,      /* y = x^gamma */
    PF_LCMS_TRANSFER_BT709 = 3,      /* ITU-R BT.709 / BT.2020 (10 and 12 bit use the same curve) */
};

/* Makes an ICC v4.3 RGB matrix/TRC profile (parametric curves, about 700 bytes) from CIE xy
   chromaticities (adapted to D50 with Bradford by lcms2) and a transfer function, with `description`, into a malloc'd buffer
   (free with pf_free). `gamma` is only read for PF_LCMS_TRANSFER_GAMMA. */
int pf_lcms_make_rgb_profile(const double white[2], const double red[2], const double green[2],
                             const double blue[2], int transfer, double gamma,
                             const char *description, uint8_t **output, size_t *output_size,
                             char *message);

/* Makes an ICC v4.3 gray profile (D50 white) with a transfer function, as above. */
int pf_lcms_make_gray_profile(int transfer, double gamma, const char *description,
                              uint8_t **output, size_t *output_size, char *message);

typedef struct pf_lcms_transform pf_lcms_transform;

/* A transform from pixels in `source_layout` described by `source_icc` to pixels in
   `destination_layout` described by `destination_icc`, with an ICC rendering intent
   (0 perceptual, 1 relative colorimetric, 2 saturation, 3 absolute colorimetric). The
   profile bytes are not kept. NULL on failure, with the reason in `message`. */
pf_lcms_transform *pf_lcms_transform_create(const uint8_t *source_icc, size_t source_size,
                                            int source_layout, const uint8_t *destination_icc,
                                            size_t destination_size, int destination_layout,
                                            int intent, char *message);

/* Transforms `height` rows of `width` pixels. Alpha is copied (and rescaled between
   layouts) when both layouts have it; a destination alpha without a source alpha is left
   as it was. */
void pf_lcms_transform_rows(const pf_lcms_transform *transform, const void *source,
                            size_t source_stride, void *destination, size_t destination_stride,
                            uint32_t width, uint32_t height);

void pf_lcms_transform_destroy(pf_lcms_transform *transform);

/* The tables and matrix of a conversion from a matrix/TRC profile to a matrix/TRC RGB profile
   with linear curves (PixelFlow's linear working spaces), for PixelFlow's own row code:
   returns 3 for an RGB source, 1 for a gray one, 0 when the conversion is not of that kind
   (and `message` says why): a source or destination with an A2B/D2B (or B2A/B2D) LUT, which
   lcms2 would use instead of the matrix; a destination whose curves are not linear; a source
   curve that does not map 0 to 0 (lcms2 forces black point compensation for v4 profiles at
   the perceptual intent, which is the identity only when both black points are 0).

   `tables` receives, per source channel, 2^bits floats (bits 8 or 16): entry i is the
   channel's tone curve evaluated by cmsEvalToneCurveFloat at (float)i / (2^bits - 1), as
   lcms2's float pipeline unrolls and evaluates stored values. `matrix` (row-major, 3x3 for
   RGB; for gray, its first column, the rest 0) is the inverse of the destination colorants
   times the source colorants (for gray: the D50 white), all as the profiles store them
   (D50-adapted), in double. */
int pf_lcms_matrix_shaper_tables(const uint8_t *source_icc, size_t source_size,
                                 const uint8_t *destination_icc, size_t destination_size, int bits,
                                 float *tables, double matrix[9], char *message);

#endif
