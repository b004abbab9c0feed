/* lcms2 shims: profile inspection, built-in profiles and row transforms. lcms2 reports
   errors through a log handler and NULL returns, never longjmp; its default handler prints
   nothing. */
#include "CCodecShims.h"

#include <lcms2.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void set_message(char *message, const char *text) {
    if (message) snprintf(message, PF_MESSAGE_CAPACITY, "%s", text);
}

static cmsUInt32Number lcms_format(int layout) {
    switch (layout) {
    case PF_LCMS_RGBA8: return TYPE_RGBA_8;
    case PF_LCMS_RGBA16: return TYPE_RGBA_16;
    case PF_LCMS_GRAY8: return TYPE_GRAY_8;
    case PF_LCMS_RGBA_FLOAT: return TYPE_RGBA_FLT;
    case PF_LCMS_CMYK8: return TYPE_CMYK_8;
    case PF_LCMS_CMYK16: return TYPE_CMYK_16;
    case PF_LCMS_GRAY16: return TYPE_GRAY_16;
    default: return 0;
    }
}

static int layout_has_alpha(int layout) {
    return layout == PF_LCMS_RGBA8 || layout == PF_LCMS_RGBA16 || layout == PF_LCMS_RGBA_FLOAT;
}

/* The sRGB curve as lcms2's parametric type 4: Y = (aX + b)^g for X >= d, else cX. */
static const cmsFloat64Number srgb_params[5] = {2.4, 1.0 / 1.055, 0.055 / 1.055, 1.0 / 12.92, 0.04045};
/* BT.709: V = 1.099 L^0.45 - 0.099 for L >= 0.018, else 4.5 L; inverted as a type 4 curve. */
static const cmsFloat64Number bt709_params[5] = {1.0 / 0.45, 1.0 / 1.099, 0.099 / 1.099, 1.0 / 4.5, 0.081};

static double srgb_decode(double v) {
    return v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4);
}

static cmsToneCurve *make_curve(int transfer, double gamma) {
    switch (transfer) {
    case PF_LCMS_TRANSFER_LINEAR: return cmsBuildGamma(NULL, 1.0);
    case PF_LCMS_TRANSFER_SRGB: return cmsBuildParametricToneCurve(NULL, 4, srgb_params);
    case PF_LCMS_TRANSFER_GAMMA: return gamma > 0 && isfinite(gamma) ? cmsBuildGamma(NULL, gamma) : NULL;
    case PF_LCMS_TRANSFER_BT709: return cmsBuildParametricToneCurve(NULL, 4, bt709_params);
    default: return NULL;
    }
}

static int save_profile(cmsHPROFILE profile, const char *description, uint8_t **output,
                        size_t *output_size, char *message) {
    cmsMLU *desc = cmsMLUalloc(NULL, 1);
    cmsMLU *copyright = cmsMLUalloc(NULL, 1);
    int ok = desc && copyright;
    if (ok) {
        cmsMLUsetASCII(desc, "en", "US", description);
        cmsMLUsetASCII(copyright, "en", "US", "No copyright, use freely");
        ok = cmsWriteTag(profile, cmsSigProfileDescriptionTag, desc)
             && cmsWriteTag(profile, cmsSigCopyrightTag, copyright);
    }
    if (desc) cmsMLUfree(desc);
    if (copyright) cmsMLUfree(copyright);
    cmsSetProfileVersion(profile, 4.3);
    cmsUInt32Number needed = 0;
    if (!ok || !cmsSaveProfileToMem(profile, NULL, &needed) || needed == 0) {
        set_message(message, "lcms2 could not serialize the profile");
        return PF_ERROR;
    }
    uint8_t *bytes = malloc(needed);
    if (!bytes) { set_message(message, "out of memory"); return PF_OUT_OF_MEMORY; }
    if (!cmsSaveProfileToMem(profile, bytes, &needed)) {
        free(bytes);
        set_message(message, "lcms2 could not serialize the profile");
        return PF_ERROR;
    }
    // lcms2 stamps the header's creation date (bytes 24-35: year, month, day, hour, minute,
    // second, big-endian 16-bit) with the current time, so two writes of one image a second
    // apart would differ. A generated profile is a pure function of its parameters: give it a
    // fixed date, 2026-01-01 00:00:00. No profile ID (bytes 84-99) is computed, so nothing
    // else depends on those bytes.
    if (needed >= 36) {
        static const uint16_t fixed_date[6] = {2026, 1, 1, 0, 0, 0};
        for (int i = 0; i < 6; i++) {
            bytes[24 + 2 * i] = (uint8_t)(fixed_date[i] >> 8);
            bytes[25 + 2 * i] = (uint8_t)(fixed_date[i] & 0xff);
        }
    }
    *output = bytes;
    *output_size = needed;
    return PF_OK;
}

int pf_lcms_make_rgb_profile(const double white[2], const double red[2], const double green[2],
                             const double blue[2], int transfer, double gamma,
                             const char *description, uint8_t **output, size_t *output_size,
                             char *message) {
    cmsCIExyY wp = {white[0], white[1], 1.0};
    cmsCIExyYTRIPLE primaries = {{red[0], red[1], 1.0}, {green[0], green[1], 1.0}, {blue[0], blue[1], 1.0}};
    cmsToneCurve *curve = make_curve(transfer, gamma);
    if (!curve) { set_message(message, "invalid transfer function"); return PF_ERROR; }
    cmsToneCurve *curves[3] = {curve, curve, curve};
    cmsHPROFILE profile = cmsCreateRGBProfile(&wp, &primaries, curves);
    cmsFreeToneCurve(curve);
    if (!profile) { set_message(message, "lcms2 could not make an RGB profile from these chromaticities"); return PF_ERROR; }
    int status = save_profile(profile, description, output, output_size, message);
    cmsCloseProfile(profile);
    return status;
}

int pf_lcms_make_gray_profile(int transfer, double gamma, const char *description,
                              uint8_t **output, size_t *output_size, char *message) {
    cmsToneCurve *curve = make_curve(transfer, gamma);
    if (!curve) { set_message(message, "invalid transfer function"); return PF_ERROR; }
    cmsHPROFILE profile = cmsCreateGrayProfile(cmsD50_xyY(), curve);
    cmsFreeToneCurve(curve);
    if (!profile) { set_message(message, "lcms2 could not make a gray profile"); return PF_ERROR; }
    int status = save_profile(profile, description, output, output_size, message);
    cmsCloseProfile(profile);
    return status;
}

/* Whether `curve` is the sRGB curve within `tolerance` at 64 points. */
static int is_srgb_curve(const cmsToneCurve *curve, double tolerance) {
    if (!curve) return 0;
    for (int i = 0; i <= 64; i++) {
        double x = i / 64.0;
        double y = cmsEvalToneCurveFloat(curve, (cmsFloat32Number)x);
        if (fabs(y - srgb_decode(x)) > tolerance) return 0;
    }
    return 1;
}

static int is_srgb_profile(cmsHPROFILE profile, int space) {
    const double tolerance = 0.002;
    if (space == PF_LCMS_SPACE_GRAY) {
        return is_srgb_curve(cmsReadTag(profile, cmsSigGrayTRCTag), tolerance);
    }
    if (space != PF_LCMS_SPACE_RGB || !cmsIsMatrixShaper(profile)) return 0;
    cmsHPROFILE srgb = cmsCreate_sRGBProfile();
    if (!srgb) return 0;
    static const cmsTagSignature colorants[3] = {cmsSigRedColorantTag, cmsSigGreenColorantTag, cmsSigBlueColorantTag};
    static const cmsTagSignature curves[3] = {cmsSigRedTRCTag, cmsSigGreenTRCTag, cmsSigBlueTRCTag};
    int same = 1;
    for (int c = 0; c < 3 && same; c++) {
        const cmsCIEXYZ *a = cmsReadTag(profile, colorants[c]);
        const cmsCIEXYZ *b = cmsReadTag(srgb, colorants[c]);
        if (!a || !b || fabs(a->X - b->X) > tolerance || fabs(a->Y - b->Y) > tolerance
            || fabs(a->Z - b->Z) > tolerance) {
            same = 0;
        } else if (!is_srgb_curve(cmsReadTag(profile, curves[c]), tolerance)) {
            same = 0;
        }
    }
    cmsCloseProfile(srgb);
    return same;
}

static int space_of(cmsHPROFILE profile) {
    switch (cmsGetColorSpace(profile)) {
    case cmsSigRgbData: return PF_LCMS_SPACE_RGB;
    case cmsSigGrayData: return PF_LCMS_SPACE_GRAY;
    case cmsSigCmykData: return PF_LCMS_SPACE_CMYK;
    default: return PF_LCMS_SPACE_OTHER;
    }
}

int pf_lcms_profile_inspect(const uint8_t *icc, size_t size, pf_lcms_profile_info *info,
                            char *description, size_t capacity, char *message) {
    if (!icc || size < 132 || size > 0xFFFFFFFFu) {
        set_message(message, "the ICC profile is shorter than its 128-byte header and tag count");
        return PF_ERROR;
    }
    cmsHPROFILE profile = cmsOpenProfileFromMem(icc, (cmsUInt32Number)size);
    if (!profile) { set_message(message, "lcms2 cannot parse the ICC profile"); return PF_ERROR; }
    memset(info, 0, sizeof *info);
    info->color_space = space_of(profile);
    info->is_matrix_shaper = cmsIsMatrixShaper(profile) ? 1 : 0;
    info->is_srgb = is_srgb_profile(profile, info->color_space);
    info->version = cmsGetProfileVersion(profile);
    if (description && capacity > 0) {
        description[0] = 0;
        cmsUInt32Number n = cmsGetProfileInfoASCII(profile, cmsInfoDescription, "en", "US", description,
                                                   (cmsUInt32Number)capacity);
        if (n == 0) description[0] = 0;
        description[capacity - 1] = 0;
    }
    cmsCloseProfile(profile);
    return PF_OK;
}

struct pf_lcms_transform {
    cmsHTRANSFORM transform;
    int source_layout;
    int destination_layout;
};

pf_lcms_transform *pf_lcms_transform_create(const uint8_t *source_icc, size_t source_size,
                                            int source_layout, const uint8_t *destination_icc,
                                            size_t destination_size, int destination_layout,
                                            int intent, char *message) {
    cmsUInt32Number in_format = lcms_format(source_layout), out_format = lcms_format(destination_layout);
    if (!in_format || !out_format || intent < 0 || intent > 3) {
        set_message(message, "invalid transform layout or intent");
        return NULL;
    }
    if (source_size > 0xFFFFFFFFu || destination_size > 0xFFFFFFFFu) {
        set_message(message, "ICC profile too large");
        return NULL;
    }
    cmsHPROFILE source = cmsOpenProfileFromMem(source_icc, (cmsUInt32Number)source_size);
    if (!source) { set_message(message, "lcms2 cannot parse the source ICC profile"); return NULL; }
    cmsHPROFILE destination = cmsOpenProfileFromMem(destination_icc, (cmsUInt32Number)destination_size);
    if (!destination) {
        cmsCloseProfile(source);
        set_message(message, "lcms2 cannot parse the destination ICC profile");
        return NULL;
    }
    cmsUInt32Number flags = cmsFLAGS_NOCACHE;
    if (layout_has_alpha(source_layout) && layout_has_alpha(destination_layout)) flags |= cmsFLAGS_COPY_ALPHA;
    cmsHTRANSFORM t = cmsCreateTransform(source, in_format, destination, out_format, (cmsUInt32Number)intent, flags);
    cmsCloseProfile(source);
    cmsCloseProfile(destination);
    if (!t) {
        set_message(message, "lcms2 cannot make a transform between these profiles (does the source profile match the pixels: RGB, gray or CMYK?)");
        return NULL;
    }
    pf_lcms_transform *result = malloc(sizeof *result);
    if (!result) {
        cmsDeleteTransform(t);
        set_message(message, "out of memory");
        return NULL;
    }
    result->transform = t;
    result->source_layout = source_layout;
    result->destination_layout = destination_layout;
    return result;
}

void pf_lcms_transform_rows(const pf_lcms_transform *transform, const void *source,
                            size_t source_stride, void *destination, size_t destination_stride,
                            uint32_t width, uint32_t height) {
    cmsDoTransformLineStride(transform->transform, source, destination, width, height,
                             (cmsUInt32Number)source_stride, (cmsUInt32Number)destination_stride, 0, 0);
}

void pf_lcms_transform_destroy(pf_lcms_transform *transform) {
    if (!transform) return;
    cmsDeleteTransform(transform->transform);
    free(transform);
}

/* Whether `profile` has a LUT tag lcms2 would read instead of its matrix and curves. */
static int has_lut(cmsHPROFILE profile) {
    static const cmsTagSignature luts[] = {
        cmsSigAToB0Tag, cmsSigAToB1Tag, cmsSigAToB2Tag, cmsSigDToB0Tag, cmsSigDToB1Tag, cmsSigDToB2Tag,
        cmsSigBToA0Tag, cmsSigBToA1Tag, cmsSigBToA2Tag, cmsSigBToD0Tag, cmsSigBToD1Tag, cmsSigBToD2Tag};
    for (size_t i = 0; i < sizeof luts / sizeof luts[0]; i++) {
        if (cmsIsTag(profile, luts[i])) return 1;
    }
    return 0;
}

/* The colorants of an RGB matrix/TRC profile as a row-major matrix (columns R, G, B). */
static int read_colorants(cmsHPROFILE profile, double m[9]) {
    static const cmsTagSignature colorants[3] = {cmsSigRedColorantTag, cmsSigGreenColorantTag, cmsSigBlueColorantTag};
    for (int c = 0; c < 3; c++) {
        const cmsCIEXYZ *xyz = cmsReadTag(profile, colorants[c]);
        if (!xyz) return 0;
        m[c] = xyz->X;
        m[3 + c] = xyz->Y;
        m[6 + c] = xyz->Z;
    }
    return 1;
}

static int invert3(const double m[9], double r[9]) {
    double det = m[0] * (m[4] * m[8] - m[5] * m[7]) - m[1] * (m[3] * m[8] - m[5] * m[6])
                 + m[2] * (m[3] * m[7] - m[4] * m[6]);
    if (!isfinite(det) || fabs(det) < 1e-9) return 0;
    double i = 1 / det;
    r[0] = (m[4] * m[8] - m[5] * m[7]) * i; r[1] = (m[2] * m[7] - m[1] * m[8]) * i; r[2] = (m[1] * m[5] - m[2] * m[4]) * i;
    r[3] = (m[5] * m[6] - m[3] * m[8]) * i; r[4] = (m[0] * m[8] - m[2] * m[6]) * i; r[5] = (m[2] * m[3] - m[0] * m[5]) * i;
    r[6] = (m[3] * m[7] - m[4] * m[6]) * i; r[7] = (m[1] * m[6] - m[0] * m[7]) * i; r[8] = (m[0] * m[4] - m[1] * m[3]) * i;
    return 1;
}

static int matrix_shaper_tables(cmsHPROFILE source, cmsHPROFILE destination, int bits, float *tables,
                                double matrix[9], char *message) {
    if (bits != 8 && bits != 16) { set_message(message, "only 8- and 16-bit values have tables"); return 0; }
    if (has_lut(source) || has_lut(destination)) { set_message(message, "a profile has a LUT"); return 0; }
    if (cmsGetColorSpace(destination) != cmsSigRgbData || !cmsIsMatrixShaper(destination)) {
        set_message(message, "the destination is not an RGB matrix/TRC profile");
        return 0;
    }
    static const cmsTagSignature trcs[3] = {cmsSigRedTRCTag, cmsSigGreenTRCTag, cmsSigBlueTRCTag};
    for (int c = 0; c < 3; c++) {
        const cmsToneCurve *curve = cmsReadTag(destination, trcs[c]);
        if (!curve || !cmsIsToneCurveLinear(curve)) {
            set_message(message, "the destination's curves are not linear");
            return 0;
        }
        for (int i = 0; i <= 16; i++) {
            cmsFloat32Number x = (cmsFloat32Number)i / 16;
            if (cmsEvalToneCurveFloat(curve, x) != x) {
                set_message(message, "the destination's curves are not linear");
                return 0;
            }
        }
    }
    double d[9], inverse[9];
    if (!read_colorants(destination, d) || !invert3(d, inverse)) {
        set_message(message, "the destination's colorants are not invertible");
        return 0;
    }
    const cmsToneCurve *curves[3];
    int channels;
    double s[9];
    if (cmsGetColorSpace(source) == cmsSigGrayData) {
        channels = 1;
        curves[0] = cmsReadTag(source, cmsSigGrayTRCTag);
        const cmsCIEXYZ *white = cmsD50_XYZ();
        for (int i = 0; i < 9; i++) matrix[i] = 0;
        for (int r = 0; r < 3; r++) {
            matrix[3 * r] = inverse[3 * r] * white->X + inverse[3 * r + 1] * white->Y + inverse[3 * r + 2] * white->Z;
        }
    } else if (cmsGetColorSpace(source) == cmsSigRgbData && cmsIsMatrixShaper(source) && read_colorants(source, s)) {
        channels = 3;
        for (int c = 0; c < 3; c++) curves[c] = cmsReadTag(source, trcs[c]);
        for (int r = 0; r < 3; r++) {
            for (int c = 0; c < 3; c++) {
                matrix[3 * r + c] = inverse[3 * r] * s[c] + inverse[3 * r + 1] * s[3 + c] + inverse[3 * r + 2] * s[6 + c];
            }
        }
    } else {
        set_message(message, "the source is not a matrix/TRC RGB or gray TRC profile");
        return 0;
    }
    size_t entries = (size_t)1 << bits;
    cmsFloat32Number maximum = (cmsFloat32Number)(entries - 1);
    for (int c = 0; c < channels; c++) {
        if (!curves[c]) { set_message(message, "the source lacks a tone curve"); return 0; }
        if (cmsEvalToneCurveFloat(curves[c], 0) != 0) {
            set_message(message, "a source curve does not map 0 to 0 (black point compensation would apply)");
            return 0;
        }
        float *table = tables + (size_t)c * entries;
        for (size_t i = 0; i < entries; i++) table[i] = cmsEvalToneCurveFloat(curves[c], (cmsFloat32Number)i / maximum);
    }
    return channels;
}

int pf_lcms_matrix_shaper_tables(const uint8_t *source_icc, size_t source_size,
                                 const uint8_t *destination_icc, size_t destination_size, int bits,
                                 float *tables, double matrix[9], char *message) {
    if (source_size > 0xFFFFFFFFu || destination_size > 0xFFFFFFFFu) {
        set_message(message, "ICC profile too large");
        return 0;
    }
    cmsHPROFILE source = cmsOpenProfileFromMem(source_icc, (cmsUInt32Number)source_size);
    if (!source) { set_message(message, "lcms2 cannot parse the source ICC profile"); return 0; }
    cmsHPROFILE destination = cmsOpenProfileFromMem(destination_icc, (cmsUInt32Number)destination_size);
    if (!destination) {
        cmsCloseProfile(source);
        set_message(message, "lcms2 cannot parse the destination ICC profile");
        return 0;
    }
    int channels = matrix_shaper_tables(source, destination, bits, tables, matrix, message);
    cmsCloseProfile(source);
    cmsCloseProfile(destination);
    return channels;
}
