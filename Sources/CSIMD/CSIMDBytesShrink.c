/* The thumbnail byte kernels of CSIMDBytesShrink.h. */
#include "CSIMDBytesShrink.h"
#include "CSIMDBytesTaps.h"
#include <string.h>
#if defined(__x86_64__) || defined(__SSE2__)
#include <emmintrin.h>
#define PF_SH_SSE2 1
#endif

int pf_csimd_uses_avx2(void);

/* round(x * 16448 / 2^16): c * a / 255 * 64 for x = c * a, a * 64 for x = a * 255. */
static inline uint32_t sh_premultiply(uint32_t x) { return (x * 16448u + 32768u) >> 16; }

/* acc[j] += the row's value j (premultiplied when `premultiply`), j < inWidth * bpp. */
static void sh_accumulate(const unsigned char *row, long bpp, long inWidth, int premultiply, uint32_t *acc) {
    long i = 0, n = inWidth * bpp;
#if PF_SH_SSE2
    const __m128i zero = _mm_setzero_si128();
    if (premultiply) {
        /* Per 16-bit lane: x = c * a for colors, a * 255 for alpha, then round(x * 16448 / 2^16). */
        const __m128i colors = _mm_set_epi16(0, -1, -1, -1, 0, -1, -1, -1);
        const __m128i alpha255 = _mm_set_epi16(255, 0, 0, 0, 255, 0, 0, 0);
        const __m128i m = _mm_set1_epi16(16448);
        for (; i + 16 <= n; i += 16) {
            __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(row + i));
            __m128i halves[2] = {_mm_unpacklo_epi8(v, zero), _mm_unpackhi_epi8(v, zero)};
            for (int h = 0; h < 2; h++) {
                __m128i p = halves[h];
                __m128i a = _mm_shufflehi_epi16(_mm_shufflelo_epi16(p, 0xFF), 0xFF);
                __m128i f = _mm_or_si128(_mm_and_si128(a, colors), alpha255);
                __m128i x = _mm_mullo_epi16(p, f);
                __m128i q = _mm_add_epi16(_mm_mulhi_epu16(x, m), _mm_srli_epi16(_mm_mullo_epi16(x, m), 15));
                uint32_t *d = acc + i + 8 * h;
                __m128i d0 = _mm_loadu_si128((const __m128i *)(const void *)d);
                __m128i d1 = _mm_loadu_si128((const __m128i *)(const void *)(d + 4));
                _mm_storeu_si128((__m128i *)(void *)d, _mm_add_epi32(d0, _mm_unpacklo_epi16(q, zero)));
                _mm_storeu_si128((__m128i *)(void *)(d + 4), _mm_add_epi32(d1, _mm_unpackhi_epi16(q, zero)));
            }
        }
    } else {
        for (; i + 16 <= n; i += 16) {
            __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(row + i));
            __m128i halves[2] = {_mm_unpacklo_epi8(v, zero), _mm_unpackhi_epi8(v, zero)};
            for (int h = 0; h < 2; h++) {
                uint32_t *d = acc + i + 8 * h;
                __m128i d0 = _mm_loadu_si128((const __m128i *)(const void *)d);
                __m128i d1 = _mm_loadu_si128((const __m128i *)(const void *)(d + 4));
                _mm_storeu_si128((__m128i *)(void *)d, _mm_add_epi32(d0, _mm_unpacklo_epi16(halves[h], zero)));
                _mm_storeu_si128((__m128i *)(void *)(d + 4), _mm_add_epi32(d1, _mm_unpackhi_epi16(halves[h], zero)));
            }
        }
    }
#endif
    if (premultiply) {
        for (; i < n; i += 4) {
            uint32_t a = row[i + 3];
            acc[i] += sh_premultiply(row[i] * a);
            acc[i + 1] += sh_premultiply(row[i + 1] * a);
            acc[i + 2] += sh_premultiply(row[i + 2] * a);
            acc[i + 3] += sh_premultiply(a * 255u);
        }
    } else {
        for (; i < n; i++) acc[i] += row[i];
    }
}

/* The stored value of a sum `s` of `n` values (see the header); `inv` = 1.0f / n. The same
 * float operations in the vector code. */
static inline int32_t sh_mean(uint32_t s, long n, float inv, int mode) {
    if (mode == 0) return (int32_t)(((float)s + (float)(n / 2) + 0.5f) * inv);
    if (mode == 1) return (int32_t)((float)s * (64.0f * inv) + 0.5f);
    return (int32_t)((float)s * inv + 0.5f);
}

#if PF_SH_SSE2
/* The 16-bit values of 4 RGBA pixels (two vectors of 2 pixels): premultiplied (mode 2) or
 * times 64 (mode 1), as sh_accumulate and sh_premultiply compute them. */
static inline void sh_values4(const unsigned char *p, int premultiply, __m128i *lo, __m128i *hi) {
    const __m128i zero = _mm_setzero_si128();
    __m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
    __m128i h[2] = {_mm_unpacklo_epi8(v, zero), _mm_unpackhi_epi8(v, zero)};
    for (int i = 0; i < 2; i++) {
        if (premultiply) {
            const __m128i colors = _mm_set_epi16(0, -1, -1, -1, 0, -1, -1, -1);
            const __m128i alpha255 = _mm_set_epi16(255, 0, 0, 0, 255, 0, 0, 0);
            const __m128i m = _mm_set1_epi16(16448);
            __m128i a = _mm_shufflehi_epi16(_mm_shufflelo_epi16(h[i], 0xFF), 0xFF);
            __m128i x = _mm_mullo_epi16(h[i], _mm_or_si128(_mm_and_si128(a, colors), alpha255));
            h[i] = _mm_add_epi16(_mm_mulhi_epu16(x, m), _mm_srli_epi16(_mm_mullo_epi16(x, m), 15));
        } else {
            h[i] = _mm_slli_epi16(h[i], 6);
        }
    }
    *lo = h[0];
    *hi = h[1];
}

/* The 2x2 box of RGBA rows into 16-bit values (modes 1 and 2), two whole blocks per step:
 * values <= 16320, so the four of a block sum in 16 bits, and (s + 2) >> 2 is sh_mean's
 * floor(s / 4 + 1/2). Returns the outputs done. */
static long sh_box2_rgba_to16(const unsigned char *r0, const unsigned char *r1, long inWidth, int premultiply,
                              int16_t *dst) {
    long i = 0;
    const __m128i two = _mm_set1_epi16(2);
    for (; 2 * i + 4 <= inWidth; i += 2) {
        __m128i a0, a1, b0, b1;
        sh_values4(r0 + 8 * i, premultiply, &a0, &a1);
        sh_values4(r1 + 8 * i, premultiply, &b0, &b1);
        __m128i v0 = _mm_add_epi16(a0, b0), v1 = _mm_add_epi16(a1, b1);
        __m128i s = _mm_add_epi16(_mm_unpacklo_epi64(v0, v1), _mm_unpackhi_epi64(v0, v1));
        _mm_storeu_si128((__m128i *)(void *)(dst + 4 * i), _mm_srli_epi16(_mm_add_epi16(s, two), 2));
    }
    return i;
}
#endif

void pf_u8_box_shrink_run(const unsigned char *const *rows, long rowCount, long bpp, long inWidth, long k,
                          long outWidth, int mode, uint32_t *scratch, void *dst) {
    int premultiply = mode == 2 && bpp == 4;
#if PF_SH_SSE2
    if (k == 2 && rowCount == 2 && bpp == 4 && mode != 0) {
        long done = sh_box2_rgba_to16(rows[0], rows[1], inWidth, premultiply, (int16_t *)dst);
        if (done == outWidth) return;
        if (done > 0) {
            /* The last blocks by the general code below, from the first output not done. */
            const unsigned char *rest[2] = {rows[0] + 8 * done, rows[1] + 8 * done};
            pf_u8_box_shrink_run(rest, 2, bpp, inWidth - 2 * done, k, outWidth - done, mode, scratch,
                                 (int16_t *)dst + 4 * done);
            return;
        }
    }
#endif
    memset(scratch, 0, (size_t)(inWidth * bpp) * sizeof(uint32_t));
    for (long r = 0; r < rowCount; r++) sh_accumulate(rows[r], bpp, inWidth, premultiply, scratch);
    unsigned char *d8 = (unsigned char *)dst;
    int16_t *d16 = (int16_t *)dst;
    for (long i = 0; i < outWidth; i++) {
        long x0 = k * i, x1 = x0 + k < inWidth ? x0 + k : inWidth;
        long cols = x1 > x0 ? x1 - x0 : 0, n = cols * rowCount;
        if (n == 0) {
            for (long c = 0; c < bpp; c++) {
                if (mode == 0) d8[i * bpp + c] = 0;
                else d16[i * bpp + c] = 0;
            }
            continue;
        }
        float inv = 1.0f / (float)n;
#if PF_SH_SSE2
        if (bpp == 4) {
            __m128i s = _mm_setzero_si128();
            for (long x = x0; x < x1; x++) s = _mm_add_epi32(s, _mm_loadu_si128((const __m128i *)(const void *)(scratch + 4 * x)));
            __m128 f = _mm_cvtepi32_ps(s);
            __m128i q;
            if (mode == 0) {
                f = _mm_add_ps(f, _mm_set1_ps((float)(n / 2) + 0.5f));
                q = _mm_cvttps_epi32(_mm_mul_ps(f, _mm_set1_ps(inv)));
                q = _mm_packs_epi32(q, q);
                q = _mm_packus_epi16(q, q);
                int32_t px = _mm_cvtsi128_si32(q);
                memcpy(d8 + 4 * i, &px, 4);
            } else {
                float scale = mode == 1 ? 64.0f * inv : inv;
                q = _mm_cvttps_epi32(_mm_add_ps(_mm_mul_ps(f, _mm_set1_ps(scale)), _mm_set1_ps(0.5f)));
                q = _mm_packs_epi32(q, q);
                _mm_storel_epi64((__m128i *)(void *)(d16 + 4 * i), q);
            }
            continue;
        }
#endif
        for (long c = 0; c < bpp; c++) {
            uint32_t s = 0;
            for (long x = x0; x < x1; x++) s += scratch[x * bpp + c];
            int32_t v = sh_mean(s, n, inv, mode);
            if (mode == 0) d8[i * bpp + c] = (unsigned char)(v > 255 ? 255 : v);
            else d16[i * bpp + c] = (int16_t)(v > 32767 ? 32767 : v);
        }
    }
}

static inline int16_t sh_saturate16(int32_t v) { return (int16_t)(v < -32768 ? -32768 : v > 32767 ? 32767 : v); }

static inline int32_t sh_weight_pair(const int16_t *weights, long k, long taps) {
    uint32_t lo = (uint16_t)weights[k], hi = k + 1 < taps ? (uint16_t)weights[k + 1] : 0;
    return (int32_t)(lo | (hi << 16));
}

static void sh_v16_tail(const int16_t *const *rows, const int16_t *weights, long taps, long i, long n, int16_t *dst) {
    for (; i < n; i++) {
        int32_t acc = 1 << 13;
        for (long k = 0; k < taps; k++) acc += (int32_t)rows[k][i] * weights[k];
        dst[i] = sh_saturate16(acc >> 14);
    }
}

static void sh_v16_portable(const int16_t *const *rows, const int16_t *weights, long taps, long n, int16_t *dst) {
    long i = 0;
#if PF_SH_SSE2
    const __m128i zero = _mm_setzero_si128(), round = _mm_set1_epi32(1 << 13);
    for (; i + 8 <= n; i += 8) {
        __m128i a0 = round, a1 = round;
        for (long k = 0; k < taps; k += 2) {
            __m128i r0 = _mm_loadu_si128((const __m128i *)(const void *)(rows[k] + i));
            __m128i r1 = k + 1 < taps ? _mm_loadu_si128((const __m128i *)(const void *)(rows[k + 1] + i)) : zero;
            __m128i w = _mm_set1_epi32(sh_weight_pair(weights, k, taps));
            a0 = _mm_add_epi32(a0, _mm_madd_epi16(_mm_unpacklo_epi16(r0, r1), w));
            a1 = _mm_add_epi32(a1, _mm_madd_epi16(_mm_unpackhi_epi16(r0, r1), w));
        }
        _mm_storeu_si128((__m128i *)(void *)(dst + i), _mm_packs_epi32(_mm_srai_epi32(a0, 14), _mm_srai_epi32(a1, 14)));
    }
#endif
    sh_v16_tail(rows, weights, taps, i, n, dst);
}

#if defined(__x86_64__) && defined(__clang__)
#include <immintrin.h>
__attribute__((target("avx2")))
static void sh_v16_avx2(const int16_t *const *rows, const int16_t *weights, long taps, long n, int16_t *dst) {
    long i = 0;
    const __m256i zero = _mm256_setzero_si256(), round = _mm256_set1_epi32(1 << 13);
    for (; i + 16 <= n; i += 16) {
        __m256i a0 = round, a1 = round;
        for (long k = 0; k < taps; k += 2) {
            __m256i r0 = _mm256_loadu_si256((const __m256i *)(const void *)(rows[k] + i));
            __m256i r1 = k + 1 < taps ? _mm256_loadu_si256((const __m256i *)(const void *)(rows[k + 1] + i)) : zero;
            __m256i w = _mm256_set1_epi32(sh_weight_pair(weights, k, taps));
            /* In-lane interleave; the in-lane pack below restores the order. */
            a0 = _mm256_add_epi32(a0, _mm256_madd_epi16(_mm256_unpacklo_epi16(r0, r1), w));
            a1 = _mm256_add_epi32(a1, _mm256_madd_epi16(_mm256_unpackhi_epi16(r0, r1), w));
        }
        _mm256_storeu_si256((__m256i *)(void *)(dst + i),
                            _mm256_packs_epi32(_mm256_srai_epi32(a0, 14), _mm256_srai_epi32(a1, 14)));
    }
    sh_v16_tail(rows, weights, taps, i, n, dst);
}
#endif

void pf_i16_resample_v_run(const int16_t *const *rows, const int16_t *weights, long taps, long n, int16_t *dst) {
    if (taps == 0) {
        memset(dst, 0, (size_t)n * sizeof(int16_t));
        return;
    }
#if defined(__x86_64__) && defined(__clang__)
    if (pf_csimd_uses_avx2()) {
        sh_v16_avx2(rows, weights, taps, n, dst);
        return;
    }
#endif
    sh_v16_portable(rows, weights, taps, n, dst);
}

static inline unsigned char sh_byte(int32_t v) { return (unsigned char)(v < 0 ? 0 : v > 255 ? 255 : v); }

/* 255 * c / a + 1/2, clamped to [0, 255.5) and truncated: the same float operations in both
 * versions. */
static inline unsigned char sh_unpremultiplied(int32_t c, float scale) {
    float f = (float)c * scale + 0.5f;
    f = f < 0.0f ? 0.0f : f;
    f = f > 255.0f ? 255.0f : f;
    return (unsigned char)(int32_t)f;
}

void pf_u8_resample_h_from16_unpremultiply_run(const int16_t *src, const int32_t *starts, const int32_t *counts,
                                               const int16_t *weights, long maxTaps, long width, unsigned char *dst) {
    for (long i = 0; i < width; i++) {
        const int16_t *s = src + (long)starts[i] * 4;
        const int16_t *w = weights + i * maxTaps;
        int n = counts[i];
        int32_t acc[4];
#if PF_SH_SSE2
        __m128i sum = pf_i16_rgba_taps_sse2(s, w, 0, n, _mm_setzero_si128());
        /* The store in vector form: the same float operations as sh_unpremultiplied per color,
         * the alpha byte as sh_byte((A + 2^19) >> 20). */
        int32_t a = _mm_cvtsi128_si32(_mm_shuffle_epi32(sum, 0xFF));
        if (a <= 0) {
            memset(dst + i * 4, 0, 4);
            continue;
        }
        __m128 f = _mm_add_ps(_mm_mul_ps(_mm_cvtepi32_ps(sum), _mm_set1_ps(255.0f / (float)a)), _mm_set1_ps(0.5f));
        f = _mm_min_ps(_mm_max_ps(f, _mm_setzero_ps()), _mm_set1_ps(255.0f));
        __m128i q = _mm_cvttps_epi32(f);
        q = _mm_packs_epi32(q, q);
        q = _mm_packus_epi16(q, q);
        int32_t px = (_mm_cvtsi128_si32(q) & 0x00FFFFFF) | ((int32_t)sh_byte((a + (1 << 19)) >> 20) << 24);
        memcpy(dst + i * 4, &px, 4);
        continue;
#else
        for (int c = 0; c < 4; c++) {
            int32_t t = 0;
            for (int k = 0; k < n; k++) t += (int32_t)s[k * 4 + c] * w[k];
            acc[c] = t;
        }
#endif
        unsigned char *d = dst + i * 4;
        if (acc[3] <= 0) {
            memset(d, 0, 4);
            continue;
        }
        float scale = 255.0f / (float)acc[3];
        d[0] = sh_unpremultiplied(acc[0], scale);
        d[1] = sh_unpremultiplied(acc[1], scale);
        d[2] = sh_unpremultiplied(acc[2], scale);
        d[3] = sh_byte((acc[3] + (1 << 19)) >> 20);
    }
}
