/* The byte warp kernels of CSIMDBytesWarp.h. */
#include "CSIMDBytesWarp.h"
#include <string.h>
#if defined(__x86_64__) || defined(__SSE2__)
#include <emmintrin.h>
#define PF_BW_SSE2 1
#endif

int pf_csimd_uses_avx2(void);

/* ---- 2x2 box ---------------------------------------------------------------------------- */

static void bw_box2x2_tail(const unsigned char *row0, const unsigned char *row1, long bpp, long i, long width,
                           unsigned char *dst) {
    for (; i < width; i++) {
        for (long c = 0; c < bpp; c++) {
            long a = 2 * i * bpp + c, b = a + bpp;
            dst[i * bpp + c] = (unsigned char)((row0[a] + row0[b] + row1[a] + row1[b] + 2) >> 2);
        }
    }
}

void pf_u8_box2x2_portable(const unsigned char *row0, const unsigned char *row1, long bpp, long width,
                           unsigned char *dst) {
    bw_box2x2_tail(row0, row1, bpp, 0, width, dst);
}

static void bw_box2x2_sse2(const unsigned char *row0, const unsigned char *row1, long bpp, long width,
                           unsigned char *dst) {
    long i = 0;
#if PF_BW_SSE2
    const __m128i zero = _mm_setzero_si128(), two = _mm_set1_epi16(2), low = _mm_set1_epi16(0xFF);
    if (bpp == 4) {
        /* 8 source pixels (32 bytes) of each row give 4 outputs. */
        for (; i + 4 <= width; i += 4) {
            __m128i s[2];
            for (int h = 0; h < 2; h++) {
                __m128i a = _mm_loadu_si128((const __m128i *)(const void *)(row0 + 8 * i + 16 * h));
                __m128i b = _mm_loadu_si128((const __m128i *)(const void *)(row1 + 8 * i + 16 * h));
                /* 16-bit columns: pixels 0, 1 (lo) and 2, 3 (hi) of both rows. */
                __m128i lo = _mm_add_epi16(_mm_unpacklo_epi8(a, zero), _mm_unpacklo_epi8(b, zero));
                __m128i hi = _mm_add_epi16(_mm_unpackhi_epi8(a, zero), _mm_unpackhi_epi8(b, zero));
                __m128i sum = _mm_add_epi16(_mm_unpacklo_epi64(lo, hi), _mm_unpackhi_epi64(lo, hi));
                s[h] = _mm_srli_epi16(_mm_add_epi16(sum, two), 2);
            }
            _mm_storeu_si128((__m128i *)(void *)(dst + 4 * i), _mm_packus_epi16(s[0], s[1]));
        }
    } else if (bpp == 1) {
        /* 32 source bytes of each row give 16 outputs; a 16-bit lane holds a pair. */
        for (; i + 16 <= width; i += 16) {
            __m128i s[2];
            for (int h = 0; h < 2; h++) {
                __m128i a = _mm_loadu_si128((const __m128i *)(const void *)(row0 + 2 * i + 16 * h));
                __m128i b = _mm_loadu_si128((const __m128i *)(const void *)(row1 + 2 * i + 16 * h));
                __m128i sum = _mm_add_epi16(_mm_add_epi16(_mm_and_si128(a, low), _mm_srli_epi16(a, 8)),
                                            _mm_add_epi16(_mm_and_si128(b, low), _mm_srli_epi16(b, 8)));
                s[h] = _mm_srli_epi16(_mm_add_epi16(sum, two), 2);
            }
            _mm_storeu_si128((__m128i *)(void *)(dst + i), _mm_packus_epi16(s[0], s[1]));
        }
    }
#endif
    bw_box2x2_tail(row0, row1, bpp, i, width, dst);
}

#if defined(__x86_64__) && defined(__clang__)
#include <immintrin.h>
#define PF_BW_AVX2 1

/* 64 source bytes of each row give 32 output bytes: pshufb puts the two pixels of a pair
 * channel by channel side by side (rgba; gray pairs already are), pmaddubsw with ones adds
 * them into 16 bits, the rows are added, rounded and packed; packus interleaves the 128-bit
 * lanes, which vpermq restores. */
__attribute__((target("avx2"))) static void bw_box2x2_avx2(const unsigned char *row0, const unsigned char *row1,
                                                            long bpp, long width, unsigned char *dst) {
    long i = 0;
    const __m256i ones = _mm256_set1_epi8(1), two = _mm256_set1_epi16(2);
    const __m256i pairs = bpp == 4 ? _mm256_setr_epi8(0, 4, 1, 5, 2, 6, 3, 7, 8, 12, 9, 13, 10, 14, 11, 15, 0, 4, 1, 5,
                                                      2, 6, 3, 7, 8, 12, 9, 13, 10, 14, 11, 15)
                                   : _mm256_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3,
                                                      4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    const long step = 32 / bpp; /* outputs per iteration */
    if (bpp == 4 || bpp == 1) {
        for (; i + step <= width; i += step) {
            const unsigned char *a = row0 + 2 * i * bpp, *b = row1 + 2 * i * bpp;
            __m256i s[2];
            for (int h = 0; h < 2; h++) {
                __m256i va = _mm256_loadu_si256((const __m256i *)(const void *)(a + 32 * h));
                __m256i vb = _mm256_loadu_si256((const __m256i *)(const void *)(b + 32 * h));
                __m256i sa = _mm256_maddubs_epi16(_mm256_shuffle_epi8(va, pairs), ones);
                __m256i sb = _mm256_maddubs_epi16(_mm256_shuffle_epi8(vb, pairs), ones);
                s[h] = _mm256_srli_epi16(_mm256_add_epi16(_mm256_add_epi16(sa, sb), two), 2);
            }
            __m256i packed = _mm256_permute4x64_epi64(_mm256_packus_epi16(s[0], s[1]), 0xD8);
            _mm256_storeu_si256((__m256i *)(void *)(dst + i * bpp), packed);
        }
    }
    bw_box2x2_tail(row0, row1, bpp, i, width, dst);
}
#endif

void pf_u8_box2x2_run(const unsigned char *row0, const unsigned char *row1, long bpp, long width,
                      unsigned char *dst) {
#if PF_BW_AVX2
    if (pf_csimd_uses_avx2()) {
        bw_box2x2_avx2(row0, row1, bpp, width, dst);
        return;
    }
#endif
    bw_box2x2_sse2(row0, row1, bpp, width, dst);
}

/* ---- Affine warp, fixed-point bilinear ---------------------------------------------------- */

/* (a w + 2^14) >> 15, as pmulhrsw. */
static inline int32_t bw_mulhrs(int32_t a, int32_t w) { return (a * w + (1 << 14)) >> 15; }

static inline uint32_t bw_tap(const unsigned char *src, long bytesPerRow, long width, long height, long x, long y) {
    if (x < 0 || x >= width || y < 0 || y >= height) return 0;
    uint32_t v;
    memcpy(&v, src + y * bytesPerRow + x * 4, 4);
    return v;
}

static void bw_affine_tail(const unsigned char *src, long bytesPerRow, long width, long height, int64_t fx,
                           int64_t fy, int64_t dx, int64_t dy, long i, long count, unsigned char *dst) {
    for (; i < count; i++) {
        const int32_t px = (int32_t)((fx + i * dx) >> 16), py = (int32_t)((fy + i * dy) >> 16);
        const long ix = px >> 16, iy = py >> 16;
        const int32_t wx = (px & 0xFFFF) >> 1, wy = (py & 0xFFFF) >> 1;
        const uint32_t p00 = bw_tap(src, bytesPerRow, width, height, ix, iy);
        const uint32_t p10 = bw_tap(src, bytesPerRow, width, height, ix + 1, iy);
        const uint32_t p01 = bw_tap(src, bytesPerRow, width, height, ix, iy + 1);
        const uint32_t p11 = bw_tap(src, bytesPerRow, width, height, ix + 1, iy + 1);
        for (int c = 0; c < 4; c++) {
            const int32_t a = (int32_t)((p00 >> (8 * c)) & 0xFF) << 7, b = (int32_t)((p10 >> (8 * c)) & 0xFF) << 7;
            const int32_t e = (int32_t)((p01 >> (8 * c)) & 0xFF) << 7, f = (int32_t)((p11 >> (8 * c)) & 0xFF) << 7;
            const int32_t top = a + bw_mulhrs(b - a, wx), bottom = e + bw_mulhrs(f - e, wx);
            const int32_t v = top + bw_mulhrs(bottom - top, wy);
            dst[4 * i + c] = (unsigned char)((v + 64) >> 7);
        }
    }
}

void pf_u8_affine_bilinear_rgba_portable(const unsigned char *src, long bytesPerRow, long width, long height,
                                         int64_t fx, int64_t fy, int64_t dx, int64_t dy, long count,
                                         unsigned char *dst) {
    bw_affine_tail(src, bytesPerRow, width, height, fx, fy, dx, dy, 0, count, dst);
}

#if PF_BW_AVX2
/* Bits 16...47 of four 64-bit lanes of `lo` and four of `hi`, as eight 32-bit lanes. */
__attribute__((target("avx2"))) static inline __m256i bw_middle32(__m256i lo, __m256i hi) {
    const __m256i even = _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7);
    __m256i a = _mm256_permutevar8x32_epi32(_mm256_srli_epi64(lo, 16), even);
    __m256i b = _mm256_permutevar8x32_epi32(_mm256_srli_epi64(hi, 16), even);
    return _mm256_permute2x128_si256(a, b, 0x20);
}

/* 8 pixels per iteration: exact 64-bit positions per lane, four masked gathers of 32-bit
 * pixels (a lane whose tap is outside keeps 0 and reads nothing), then per pixel R and B,
 * G and A as 16-bit pairs with 7 fractional bits (`(p << 7) & 0x7F807F80`, `(p >> 1) & ...`)
 * through three pmulhrsw lerps. */
__attribute__((target("avx2"))) static void bw_affine_avx2(const unsigned char *src, long bytesPerRow, long width,
                                                            long height, int64_t fx, int64_t fy, int64_t dx,
                                                            int64_t dy, long count, unsigned char *dst) {
    long i = 0;
    __m256i x0 = _mm256_add_epi64(_mm256_set1_epi64x(fx), _mm256_setr_epi64x(0, dx, 2 * dx, 3 * dx));
    __m256i y0 = _mm256_add_epi64(_mm256_set1_epi64x(fy), _mm256_setr_epi64x(0, dy, 2 * dy, 3 * dy));
    __m256i x1 = _mm256_add_epi64(x0, _mm256_set1_epi64x(4 * dx));
    __m256i y1 = _mm256_add_epi64(y0, _mm256_set1_epi64x(4 * dy));
    const __m256i sx = _mm256_set1_epi64x(8 * dx), sy = _mm256_set1_epi64x(8 * dy);
    const __m256i fraction = _mm256_set1_epi32(0xFFFF), channels = _mm256_set1_epi32(0x7F807F80);
    const __m256i minus1 = _mm256_set1_epi32(-1), minus2 = _mm256_set1_epi32(-2);
    const __m256i w = _mm256_set1_epi32((int)width), w1 = _mm256_set1_epi32((int)width - 1);
    const __m256i h = _mm256_set1_epi32((int)height), h1 = _mm256_set1_epi32((int)height - 1);
    const __m256i stride = _mm256_set1_epi32((int)bytesPerRow), r64 = _mm256_set1_epi16(64);
    const __m256i zero = _mm256_setzero_si256();
    const int *base = (const int *)(const void *)src;
    const int *right = (const int *)(const void *)(src + 4);
    const int *below = (const int *)(const void *)(src + bytesPerRow);
    const int *diagonal = (const int *)(const void *)(src + bytesPerRow + 4);
    for (; i + 8 <= count; i += 8) {
        const __m256i px = bw_middle32(x0, x1), py = bw_middle32(y0, y1);
        const __m256i ix = _mm256_srai_epi32(px, 16), iy = _mm256_srai_epi32(py, 16);
        __m256i wx = _mm256_srli_epi32(_mm256_and_si256(px, fraction), 1);
        __m256i wy = _mm256_srli_epi32(_mm256_and_si256(py, fraction), 1);
        wx = _mm256_or_si256(wx, _mm256_slli_epi32(wx, 16));
        wy = _mm256_or_si256(wy, _mm256_slli_epi32(wy, 16));
        const __m256i inX0 = _mm256_and_si256(_mm256_cmpgt_epi32(ix, minus1), _mm256_cmpgt_epi32(w, ix));
        const __m256i inX1 = _mm256_and_si256(_mm256_cmpgt_epi32(ix, minus2), _mm256_cmpgt_epi32(w1, ix));
        const __m256i inY0 = _mm256_and_si256(_mm256_cmpgt_epi32(iy, minus1), _mm256_cmpgt_epi32(h, iy));
        const __m256i inY1 = _mm256_and_si256(_mm256_cmpgt_epi32(iy, minus2), _mm256_cmpgt_epi32(h1, iy));
        const __m256i offset = _mm256_add_epi32(_mm256_mullo_epi32(iy, stride), _mm256_slli_epi32(ix, 2));
        const __m256i p00 = _mm256_mask_i32gather_epi32(zero, base, offset, _mm256_and_si256(inX0, inY0), 1);
        const __m256i p10 = _mm256_mask_i32gather_epi32(zero, right, offset, _mm256_and_si256(inX1, inY0), 1);
        const __m256i p01 = _mm256_mask_i32gather_epi32(zero, below, offset, _mm256_and_si256(inX0, inY1), 1);
        const __m256i p11 = _mm256_mask_i32gather_epi32(zero, diagonal, offset, _mm256_and_si256(inX1, inY1), 1);
#define PF_BW_RB(p) _mm256_and_si256(_mm256_slli_epi32(p, 7), channels)
#define PF_BW_GA(p) _mm256_and_si256(_mm256_srli_epi32(p, 1), channels)
#define PF_BW_LERP(a, b, t) _mm256_add_epi16(a, _mm256_mulhrs_epi16(_mm256_sub_epi16(b, a), t))
        const __m256i rbTop = PF_BW_LERP(PF_BW_RB(p00), PF_BW_RB(p10), wx);
        const __m256i rbBottom = PF_BW_LERP(PF_BW_RB(p01), PF_BW_RB(p11), wx);
        const __m256i gaTop = PF_BW_LERP(PF_BW_GA(p00), PF_BW_GA(p10), wx);
        const __m256i gaBottom = PF_BW_LERP(PF_BW_GA(p01), PF_BW_GA(p11), wx);
        const __m256i rb = _mm256_srli_epi16(_mm256_add_epi16(PF_BW_LERP(rbTop, rbBottom, wy), r64), 7);
        const __m256i ga = _mm256_srli_epi16(_mm256_add_epi16(PF_BW_LERP(gaTop, gaBottom, wy), r64), 7);
#undef PF_BW_RB
#undef PF_BW_GA
#undef PF_BW_LERP
        _mm256_storeu_si256((__m256i *)(void *)(dst + 4 * i), _mm256_or_si256(rb, _mm256_slli_epi16(ga, 8)));
        x0 = _mm256_add_epi64(x0, sx);
        x1 = _mm256_add_epi64(x1, sx);
        y0 = _mm256_add_epi64(y0, sy);
        y1 = _mm256_add_epi64(y1, sy);
    }
    bw_affine_tail(src, bytesPerRow, width, height, fx, fy, dx, dy, i, count, dst);
}
#endif

void pf_u8_affine_bilinear_rgba_run(const unsigned char *src, long bytesPerRow, long width, long height, int64_t fx,
                                    int64_t fy, int64_t dx, int64_t dy, long count, unsigned char *dst) {
#if PF_BW_AVX2
    if (pf_csimd_uses_avx2()) {
        bw_affine_avx2(src, bytesPerRow, width, height, fx, fy, dx, dy, count, dst);
        return;
    }
#endif
    bw_affine_tail(src, bytesPerRow, width, height, fx, fy, dx, dy, 0, count, dst);
}
