/* The JPEG upsampling and color kernels of CSIMDBytesJPEG.h. One body, compiled for
 * baseline x86-64 and for AVX2 (clang vectorizes its loops; integer arithmetic, so the same
 * bytes either way). */
#include "CSIMDBytesJPEG.h"

int pf_csimd_uses_avx2(void);

/* The interior of the halved-width upsamplers (i from 1 while 16 samples and the one after
 * them exist): the first i the scalar loop of the body still has to do. Baseline: none. */
static inline long jpeg_h2_fast_portable(const unsigned char *c, long n, unsigned char *out) {
    (void)c, (void)n, (void)out;
    return 1;
}
static inline long jpeg_h2v2_fast_portable(const unsigned short *s, long n, unsigned char *out) {
    (void)s, (void)n, (void)out;
    return 1;
}

#if defined(__x86_64__) && defined(__clang__)
#include <immintrin.h>

/* 16 samples a step in 16-bit lanes: the even outputs e and odd outputs o (each < 256) go out
 * as the 16-bit words e | o << 8, i.e. the bytes e, o. The same integer formulas. */
__attribute__((target("avx2"))) static inline long jpeg_h2_fast_avx2(const unsigned char *c, long n,
                                                                       unsigned char *out) {
    long i = 1;
    const __m256i one = _mm256_set1_epi16(1), two = _mm256_set1_epi16(2);
    for (; i + 16 <= n - 1; i += 16) {
        __m256i here = _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(c + i)));
        __m256i left = _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(c + i - 1)));
        __m256i right = _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(c + i + 1)));
        __m256i t = _mm256_add_epi16(_mm256_add_epi16(here, here), here);
        __m256i e = _mm256_srli_epi16(_mm256_add_epi16(_mm256_add_epi16(t, left), one), 2);
        __m256i o = _mm256_srli_epi16(_mm256_add_epi16(_mm256_add_epi16(t, right), two), 2);
        _mm256_storeu_si256((__m256i *)(out + 2 * i), _mm256_or_si256(e, _mm256_slli_epi16(o, 8)));
    }
    return i;
}

__attribute__((target("avx2"))) static inline long jpeg_h2v2_fast_avx2(const unsigned short *s, long n,
                                                                         unsigned char *out) {
    long i = 1;
    const __m256i seven = _mm256_set1_epi16(7), eight = _mm256_set1_epi16(8);
    for (; i + 16 <= n - 1; i += 16) {
        __m256i here = _mm256_loadu_si256((const __m256i *)(s + i));
        __m256i left = _mm256_loadu_si256((const __m256i *)(s + i - 1));
        __m256i right = _mm256_loadu_si256((const __m256i *)(s + i + 1));
        __m256i t = _mm256_add_epi16(_mm256_add_epi16(here, here), here);
        __m256i e = _mm256_srli_epi16(_mm256_add_epi16(_mm256_add_epi16(t, left), eight), 4);
        __m256i o = _mm256_srli_epi16(_mm256_add_epi16(_mm256_add_epi16(t, right), seven), 4);
        _mm256_storeu_si256((__m256i *)(out + 2 * i), _mm256_or_si256(e, _mm256_slli_epi16(o, 8)));
    }
    return i;
}
#endif

#define PF_JPEG_BODY(SUFFIX, ATTRIBUTE)                                                                       \
    ATTRIBUTE static void jpeg_h2_##SUFFIX(const unsigned char *c, long n, unsigned char *out) {              \
        out[0] = c[0];                                                                                       \
        out[1] = (unsigned char)((3 * c[0] + c[1] + 2) >> 2);                                                \
        for (long i = jpeg_h2_fast_##SUFFIX(c, n, out); i < n - 1; i++) {                                    \
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
        for (long i = jpeg_h2v2_fast_##SUFFIX(s, n, out); i < n - 1; i++) {                                  \
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
