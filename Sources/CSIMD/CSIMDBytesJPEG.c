/* The JPEG upsampling and color kernels of CSIMDBytesJPEG.h. One body, compiled for
 * baseline x86-64 and for AVX2 (clang vectorizes its loops; integer arithmetic, so the same
 * bytes either way). */
#include "CSIMDBytesJPEG.h"

int pf_csimd_uses_avx2(void);

#define PF_JPEG_BODY(SUFFIX, ATTRIBUTE)                                                                       \
    ATTRIBUTE static void jpeg_h2_##SUFFIX(const unsigned char *c, long n, unsigned char *out) {              \
        out[0] = c[0];                                                                                       \
        out[1] = (unsigned char)((3 * c[0] + c[1] + 2) >> 2);                                                \
        for (long i = 1; i < n - 1; i++) {                                                                   \
            int t = 3 * c[i];                                                                                \
            out[2 * i] = (unsigned char)((t + c[i - 1] + 1) >> 2);                                           \
            out[2 * i + 1] = (unsigned char)((t + c[i + 1] + 2) >> 2);                                       \
        }                                                                                                    \
        out[2 * n - 2] = (unsigned char)((3 * c[n - 1] + c[n - 2] + 1) >> 2);                                \
        out[2 * n - 1] = c[n - 1];                                                                           \
    }                                                                                                        \
    ATTRIBUTE static void jpeg_v2_##SUFFIX(const unsigned char *c, const unsigned char *f, long n, int bias,  \
                                           unsigned char *out) {                                             \
        for (long i = 0; i < n; i++) out[i] = (unsigned char)((3 * c[i] + f[i] + bias) >> 2);                \
    }                                                                                                        \
    ATTRIBUTE static void jpeg_h2v2_##SUFFIX(const unsigned char *c, const unsigned char *f, long n,         \
                                             unsigned short *s, unsigned char *out) {                        \
        for (long i = 0; i < n; i++) s[i] = (unsigned short)(3 * c[i] + f[i]);                               \
        out[0] = (unsigned char)((4 * s[0] + 8) >> 4);                                                       \
        out[1] = (unsigned char)((3 * s[0] + s[1] + 7) >> 4);                                                \
        for (long i = 1; i < n - 1; i++) {                                                                   \
            int t = 3 * s[i];                                                                                \
            out[2 * i] = (unsigned char)((t + s[i - 1] + 8) >> 4);                                           \
            out[2 * i + 1] = (unsigned char)((t + s[i + 1] + 7) >> 4);                                       \
        }                                                                                                    \
        out[2 * n - 2] = (unsigned char)((3 * s[n - 1] + s[n - 2] + 8) >> 4);                                \
        out[2 * n - 1] = (unsigned char)((4 * s[n - 1] + 7) >> 4);                                           \
    }                                                                                                        \
    ATTRIBUTE static void jpeg_color_##SUFFIX(const unsigned char *y, const unsigned char *cb,               \
                                              const unsigned char *cr, long width, unsigned char *dst) {     \
        for (long i = 0; i < width; i++) {                                                                   \
            int l = y[i], b = cb[i] - 128, r = cr[i] - 128;                                                  \
            int red = l + ((91881 * r + 32768) >> 16);                                                       \
            int green = l + ((-22554 * b - 46802 * r + 32768) >> 16);                                        \
            int blue = l + ((116130 * b + 32768) >> 16);                                                     \
            red = red < 0 ? 0 : red > 255 ? 255 : red;                                                       \
            green = green < 0 ? 0 : green > 255 ? 255 : green;                                               \
            blue = blue < 0 ? 0 : blue > 255 ? 255 : blue;                                                   \
            dst[4 * i] = (unsigned char)red;                                                                 \
            dst[4 * i + 1] = (unsigned char)green;                                                           \
            dst[4 * i + 2] = (unsigned char)blue;                                                            \
            dst[4 * i + 3] = 255;                                                                            \
        }                                                                                                    \
    }                                                                                                        \
    ATTRIBUTE static void jpeg_row_##SUFFIX(const unsigned char *y, const unsigned char *cb,                 \
                                            const unsigned char *cb_far, const unsigned char *cr,            \
                                            const unsigned char *cr_far, long width, long n, int hw, int hh,  \
                                            int far_below, unsigned char *scratch, unsigned char *dst) {     \
        long room = (width + 3) & ~1L;                                                                             \
        unsigned char *ub = scratch, *ur = scratch + room;                                                   \
        unsigned short *sums = (unsigned short *)(scratch + 2 * room);                                       \
        const unsigned char *b = cb, *r = cr;                                                                \
        if (hw && hh) {                                                                                      \
            jpeg_h2v2_##SUFFIX(cb, cb_far, n, sums, ub);                                                     \
            jpeg_h2v2_##SUFFIX(cr, cr_far, n, sums, ur);                                                     \
            b = ub;                                                                                          \
            r = ur;                                                                                          \
        } else if (hw) {                                                                                     \
            jpeg_h2_##SUFFIX(cb, n, ub);                                                                     \
            jpeg_h2_##SUFFIX(cr, n, ur);                                                                     \
            b = ub;                                                                                          \
            r = ur;                                                                                          \
        } else if (hh) {                                                                                     \
            jpeg_v2_##SUFFIX(cb, cb_far, n, far_below ? 2 : 1, ub);                                          \
            jpeg_v2_##SUFFIX(cr, cr_far, n, far_below ? 2 : 1, ur);                                          \
            b = ub;                                                                                          \
            r = ur;                                                                                          \
        }                                                                                                    \
        jpeg_color_##SUFFIX(y, b, r, width, dst);                                                            \
    }

PF_JPEG_BODY(portable, )

#if defined(__x86_64__) && defined(__clang__)
PF_JPEG_BODY(avx2, __attribute__((target("avx2"))))
#endif

void pf_jpeg_ycc_to_rgba8_row(const unsigned char *y, const unsigned char *cb, const unsigned char *cb_far,
                              const unsigned char *cr, const unsigned char *cr_far, long width, long chroma_width,
                              int half_width, int half_height, int far_below, unsigned char *scratch,
                              unsigned char *dst) {
#if defined(__x86_64__) && defined(__clang__)
    if (pf_csimd_uses_avx2()) {
        jpeg_row_avx2(y, cb, cb_far, cr, cr_far, width, chroma_width, half_width, half_height, far_below, scratch,
                      dst);
        return;
    }
#endif
    jpeg_row_portable(y, cb, cb_far, cr, cr_far, width, chroma_width, half_width, half_height, far_below, scratch,
                      dst);
}
