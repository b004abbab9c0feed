/* PNG row unfiltering: see include/pf_png_filter.h. */
#include "pf_png_filter.h"

#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

enum { PF_FILTER_NONE = 0, PF_FILTER_SUB = 1, PF_FILTER_UP = 2, PF_FILTER_AVG = 3, PF_FILTER_PAETH = 4 };

/* The Paeth predictor of the specification (9.4), ties going to a, then b. */
static inline uint8_t pf_paeth(int a, int b, int c) {
    int p = a + b - c;
    int pa = p > a ? p - a : a - p;
    int pb = p > b ? p - b : b - p;
    int pc = p > c ? p - c : c - p;
    if (pa <= pb && pa <= pc) return (uint8_t)a;
    if (pb <= pc) return (uint8_t)b;
    return (uint8_t)c;
}

int pf_png_unfilter_row_scalar(int filter, const uint8_t *src, const uint8_t *prev, uint8_t *dst,
                               size_t row_bytes, int bytes_per_pixel) {
    size_t n = row_bytes, bpp = (size_t)bytes_per_pixel;
    if (filter < 0 || filter > 4) return -1;
    if (bpp > n) bpp = n;
    switch (filter) {
    case PF_FILTER_NONE:
        if (dst != src) memmove(dst, src, n);
        break;
    case PF_FILTER_SUB:
        for (size_t i = 0; i < bpp; i++) dst[i] = src[i];
        for (size_t i = bpp; i < n; i++) dst[i] = (uint8_t)(src[i] + dst[i - bpp]);
        break;
    case PF_FILTER_UP:
        for (size_t i = 0; i < n; i++) dst[i] = (uint8_t)(src[i] + (prev ? prev[i] : 0));
        break;
    case PF_FILTER_AVG:
        for (size_t i = 0; i < n; i++) {
            int a = i >= bpp ? dst[i - bpp] : 0, b = prev ? prev[i] : 0;
            dst[i] = (uint8_t)(src[i] + ((a + b) >> 1));
        }
        break;
    case PF_FILTER_PAETH:
        for (size_t i = 0; i < n; i++) {
            int a = i >= bpp ? dst[i - bpp] : 0, b = prev ? prev[i] : 0;
            int c = (i >= bpp && prev) ? prev[i - bpp] : 0;
            dst[i] = (uint8_t)(src[i] + pf_paeth(a, b, c));
        }
        break;
    }
    return 0;
}

#if defined(__SSE2__)

/* One pixel of `BPP` bytes into the low bytes of a vector, the rest zero (exactly BPP bytes
   read, so never past the end of a row), and back. */
#define PF_DEFINE_PIXEL_IO(BPP)                                                             \
    static inline __m128i pf_load_px##BPP(const uint8_t *p) {                              \
        uint64_t v = 0;                                                                     \
        memcpy(&v, p, BPP);                                                                 \
        return _mm_cvtsi64_si128((long long)v);                                             \
    }                                                                                       \
    static inline void pf_store_px##BPP(uint8_t *p, __m128i x) {                           \
        uint64_t v = (uint64_t)_mm_cvtsi128_si64(x);                                        \
        memcpy(p, &v, BPP);                                                                 \
    }
PF_DEFINE_PIXEL_IO(3)
PF_DEFINE_PIXEL_IO(4)
PF_DEFINE_PIXEL_IO(6)
PF_DEFINE_PIXEL_IO(8)

static inline __m128i pf_abs16(__m128i x) { return _mm_max_epi16(x, _mm_sub_epi16(_mm_setzero_si128(), x)); }
static inline __m128i pf_select(__m128i mask, __m128i yes, __m128i no) {
    return _mm_or_si128(_mm_and_si128(mask, yes), _mm_andnot_si128(mask, no));
}

/* Sub, Average and Paeth one pixel at a time, the pixel on the left kept in a register.
   Lanes are bytes (Sub), or 16-bit (Paeth's differences); bytes past BPP are zero and unused. */
#define PF_DEFINE_UNFILTER(BPP)                                                              \
    static void pf_sub##BPP(const uint8_t *src, uint8_t *dst, size_t n) {                    \
        __m128i a = _mm_setzero_si128();                                                     \
        for (size_t i = 0; i + BPP <= n; i += BPP) {                                         \
            a = _mm_add_epi8(a, pf_load_px##BPP(src + i));                                   \
            pf_store_px##BPP(dst + i, a);                                                    \
        }                                                                                    \
    }                                                                                        \
    static void pf_avg##BPP(const uint8_t *src, const uint8_t *prev, uint8_t *dst, size_t n) { \
        __m128i a = _mm_setzero_si128(), one = _mm_set1_epi8(1);                             \
        for (size_t i = 0; i + BPP <= n; i += BPP) {                                         \
            __m128i b = pf_load_px##BPP(prev + i);                                           \
            /* floor((a + b) / 2): the rounded-up average less the carried low bit. */      \
            __m128i avg = _mm_sub_epi8(_mm_avg_epu8(a, b), _mm_and_si128(_mm_xor_si128(a, b), one)); \
            a = _mm_add_epi8(avg, pf_load_px##BPP(src + i));                                 \
            pf_store_px##BPP(dst + i, a);                                                    \
        }                                                                                    \
    }                                                                                        \
    static void pf_paeth##BPP(const uint8_t *src, const uint8_t *prev, uint8_t *dst, size_t n) { \
        __m128i zero = _mm_setzero_si128();                                                  \
        __m128i a = zero, c = zero; /* 16-bit lanes */                                       \
        for (size_t i = 0; i + BPP <= n; i += BPP) {                                         \
            __m128i b = _mm_unpacklo_epi8(pf_load_px##BPP(prev + i), zero);                  \
            __m128i pa = _mm_sub_epi16(b, c); /* p - a */                                    \
            __m128i pb = _mm_sub_epi16(a, c); /* p - b */                                    \
            __m128i pc = pf_abs16(_mm_add_epi16(pa, pb));                                    \
            pa = pf_abs16(pa);                                                               \
            pb = pf_abs16(pb);                                                               \
            __m128i smallest = _mm_min_epi16(pc, _mm_min_epi16(pa, pb));                     \
            __m128i nearest = pf_select(_mm_cmpeq_epi16(smallest, pa), a,                    \
                                        pf_select(_mm_cmpeq_epi16(smallest, pb), b, c));     \
            __m128i x = _mm_add_epi8(_mm_packus_epi16(nearest, nearest), pf_load_px##BPP(src + i)); \
            pf_store_px##BPP(dst + i, x);                                                    \
            a = _mm_unpacklo_epi8(x, zero);                                                  \
            c = b;                                                                           \
        }                                                                                    \
    }
PF_DEFINE_UNFILTER(3)
PF_DEFINE_UNFILTER(4)
PF_DEFINE_UNFILTER(6)
PF_DEFINE_UNFILTER(8)

static void pf_up(const uint8_t *src, const uint8_t *prev, uint8_t *dst, size_t n) {
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        __m128i x = _mm_add_epi8(_mm_loadu_si128((const __m128i *)(src + i)), _mm_loadu_si128((const __m128i *)(prev + i)));
        _mm_storeu_si128((__m128i *)(dst + i), x);
    }
    for (; i < n; i++) dst[i] = (uint8_t)(src[i] + prev[i]);
}

#define PF_DISPATCH(KIND, ...)                                                          \
    switch (bytes_per_pixel) {                                                          \
    case 3: pf_##KIND##3(__VA_ARGS__); return 0;                                        \
    case 4: pf_##KIND##4(__VA_ARGS__); return 0;                                        \
    case 6: pf_##KIND##6(__VA_ARGS__); return 0;                                        \
    case 8: pf_##KIND##8(__VA_ARGS__); return 0;                                        \
    default: break;                                                                     \
    }

int pf_png_unfilter_row(int filter, const uint8_t *src, const uint8_t *prev, uint8_t *dst,
                        size_t row_bytes, int bytes_per_pixel) {
    /* Whole pixels only: a row of 8-bit samples is a whole number of pixels. */
    int simd = bytes_per_pixel >= 3 && row_bytes % (size_t)bytes_per_pixel == 0;
    switch (filter) {
    case PF_FILTER_SUB:
        if (simd) PF_DISPATCH(sub, src, dst, row_bytes)
        break;
    case PF_FILTER_UP:
        if (prev != NULL) {
            pf_up(src, prev, dst, row_bytes);
            return 0;
        }
        break;
    case PF_FILTER_AVG:
        if (simd && prev != NULL) PF_DISPATCH(avg, src, prev, dst, row_bytes)
        break;
    case PF_FILTER_PAETH:
        if (simd && prev != NULL) PF_DISPATCH(paeth, src, prev, dst, row_bytes)
        break;
    default: break;
    }
    return pf_png_unfilter_row_scalar(filter, src, prev, dst, row_bytes, bytes_per_pixel);
}

#else

int pf_png_unfilter_row(int filter, const uint8_t *src, const uint8_t *prev, uint8_t *dst,
                        size_t row_bytes, int bytes_per_pixel) {
    return pf_png_unfilter_row_scalar(filter, src, prev, dst, row_bytes, bytes_per_pixel);
}

#endif
