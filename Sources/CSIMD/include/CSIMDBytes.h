#ifndef PIXELFLOW_CSIMD_BYTES_H
#define PIXELFLOW_CSIMD_BYTES_H
/*
 * Exact 8-bit order-statistic kernels (morphology and median) on rows of interleaved bytes:
 * RGBA8 (bpp = 4) or gray8 (bpp = 1). Every channel byte is processed independently, so a row
 * of `count` pixels is a row of n = count * bpp bytes, and the neighbour of byte i one pixel to
 * the right is byte i + bpp: a window of pixels is a set of shifted, unaligned loads.
 *
 * Vectors are 16 bytes (clang ext_vector_type, one SSE2 register on baseline x86-64, one NEON
 * register on arm64, lowered to scalar code elsewhere); minima and maxima are
 * __builtin_elementwise_min/max (pminub/pmaxub). Results are exact, so they never depend on
 * evaluation order, vector width or tiling. Loops end with an overlapping last vector rather
 * than a scalar tail when a row holds at least 16 bytes; shorter rows go through a padded
 * copy. No kernel reads outside the ranges its comment gives, or writes outside [dst, dst + n).
 *
 * Used by the engine's byte path (Sources/PixelFlow/Execution/BytePlan.swift); tested against
 * scalar references in Tests/PixelFlowTests/Kernels/ByteKernelsTests.swift.
 */
#include <stddef.h>

typedef unsigned char pf_u8x16 __attribute__((ext_vector_type(16)));
typedef unsigned char pf_u8;

#ifndef PF_INLINE
#define PF_INLINE static inline __attribute__((always_inline))
#endif

PF_INLINE pf_u8x16 pf_ld16(const pf_u8 *p) { pf_u8x16 v; __builtin_memcpy(&v, p, 16); return v; }
PF_INLINE void pf_st16(pf_u8 *p, pf_u8x16 v) { __builtin_memcpy(p, &v, 16); }
/* The per-byte maximum (is_max) or minimum. Callers hoist is_max out of their loops by
 * calling the kernels with a constant, so the branch folds away after inlining. */
PF_INLINE pf_u8x16 pf_pick16(pf_u8x16 a, pf_u8x16 b, int is_max) {
    return is_max ? __builtin_elementwise_max(a, b) : __builtin_elementwise_min(a, b);
}
PF_INLINE pf_u8 pf_pick1(pf_u8 a, pf_u8 b, int is_max) { return is_max ? (a > b ? a : b) : (a < b ? a : b); }

#include "CSIMDMedianNetworks.h"

/* ---------------------------------------------------------------------------------------- */
/* Morphology: running extrema                                                              */
/* ---------------------------------------------------------------------------------------- */

/* dst[i] = E(src[i + k * bpp] for k < w) for i < n: the extremum over a horizontal window of
 * w pixels starting at each pixel. Reads src[0 ..< n + (w - 1) * bpp]. Direct scan: w - 1
 * operations per 16 bytes, for small windows. */
PF_INLINE void pf_u8_extremum_h_direct_(const pf_u8 *src, pf_u8 *dst, long n, long bpp, int w, int is_max) {
    if (n < 16) {
        for (long i = 0; i < n; i++) {
            pf_u8 m = src[i];
            for (int k = 1; k < w; k++) m = pf_pick1(m, src[i + k * bpp], is_max);
            dst[i] = m;
        }
        return;
    }
    long i = 0;
    for (;;) {
        if (i > n - 16) i = n - 16;
        const pf_u8 *s = src + i;
        pf_u8x16 m;
        switch (w) {
        case 1: m = pf_ld16(s); break;
        case 3:
            m = pf_pick16(pf_pick16(pf_ld16(s), pf_ld16(s + bpp), is_max), pf_ld16(s + 2 * bpp), is_max);
            break;
        case 5:
            m = pf_pick16(pf_pick16(pf_ld16(s), pf_ld16(s + bpp), is_max),
                          pf_pick16(pf_ld16(s + 2 * bpp), pf_ld16(s + 3 * bpp), is_max), is_max);
            m = pf_pick16(m, pf_ld16(s + 4 * bpp), is_max);
            break;
        case 7:
            m = pf_pick16(pf_pick16(pf_ld16(s), pf_ld16(s + bpp), is_max),
                          pf_pick16(pf_ld16(s + 2 * bpp), pf_ld16(s + 3 * bpp), is_max), is_max);
            m = pf_pick16(m, pf_pick16(pf_pick16(pf_ld16(s + 4 * bpp), pf_ld16(s + 5 * bpp), is_max),
                                       pf_ld16(s + 6 * bpp), is_max), is_max);
            break;
        default:
            m = pf_ld16(s);
            for (int k = 1; k < w; k++) m = pf_pick16(m, pf_ld16(s + k * bpp), is_max);
        }
        pf_st16(dst + i, m);
        if (i == n - 16) break;
        i += 16;
    }
}

/* In place: m[i] = E(m[i], m[i + s]) for i < len (reads m[0 ..< len + s]). Forward order, so
 * every m[i + s] is read before it is updated; a scalar tail (an overlapping vector would
 * combine values twice). */
PF_INLINE void pf_u8_pick_shifted_inplace_(pf_u8 *m, long len, long s, int is_max) {
    long i = 0;
    for (; i + 16 <= len; i += 16) pf_st16(m + i, pf_pick16(pf_ld16(m + i), pf_ld16(m + i + s), is_max));
    for (; i < len; i++) m[i] = pf_pick1(m[i], m[i + s], is_max);
}

/* Like pf_u8_extremum_h_direct_ for any w, by doubling: windows of 1, 2, 4, ..., P pixels
 * (P the largest power of two <= w) in place in `scratch`, then the extremum of two windows of
 * P that overlap to cover w. `scratch` holds n + (w - 1) * bpp bytes.
 * Cost: log2(w) + 1 operations per 16 bytes (van Herk/Gil-Werman needs 3 per pixel, but runs
 * along the row one pixel at a time; the doubling passes are whole-vector). */
PF_INLINE void pf_u8_extremum_h_doubling_(const pf_u8 *src, pf_u8 *dst, long n, long bpp, int w, int is_max,
                                          pf_u8 *scratch) {
    long len = n + (long)(w - 1) * bpp;
    __builtin_memcpy(scratch, src, (size_t)len);
    long span = 1;
    while (2 * span <= w) {
        long s = span * bpp;
        len -= s;
        pf_u8_pick_shifted_inplace_(scratch, len, s, is_max);
        span *= 2;
    }
    /* scratch[i] = E over `span` pixels from i, for i < n + (w - span) * bpp. */
    pf_u8_extremum_h_direct_(scratch, dst, n, (w - span) * bpp, w == span ? 1 : 2, is_max);
}

/* dst[i] = E(src[i + k * bpp] for k < w), i < n (n = count * bpp bytes): the per-channel
 * maximum (is_max) or minimum over a horizontal window of w pixels starting at each pixel.
 * Reads src[0 ..< n + (w - 1) * bpp]; `scratch` (n + (w - 1) * bpp bytes) is used when w > 15. */
PF_INLINE void pf_u8_extremum_h(const pf_u8 *src, pf_u8 *dst, long n, long bpp, int w, int is_max, pf_u8 *scratch) {
    if (w <= 15) {
        /* Constant window sizes and operation, so that each common case is its own loop
         * without a switch per vector (the byte path's 5x5 dilation is 12 instructions per
         * pixel with the switch and is_max tested inside, against 9). */
        switch (w * 2 + (is_max != 0)) {
        case 3 * 2 + 1: pf_u8_extremum_h_direct_(src, dst, n, bpp, 3, 1); break;
        case 3 * 2: pf_u8_extremum_h_direct_(src, dst, n, bpp, 3, 0); break;
        case 5 * 2 + 1: pf_u8_extremum_h_direct_(src, dst, n, bpp, 5, 1); break;
        case 5 * 2: pf_u8_extremum_h_direct_(src, dst, n, bpp, 5, 0); break;
        case 7 * 2 + 1: pf_u8_extremum_h_direct_(src, dst, n, bpp, 7, 1); break;
        case 7 * 2: pf_u8_extremum_h_direct_(src, dst, n, bpp, 7, 0); break;
        default:
            if (is_max) pf_u8_extremum_h_direct_(src, dst, n, bpp, w, 1);
            else pf_u8_extremum_h_direct_(src, dst, n, bpp, w, 0);
        }
    } else {
        if (is_max) pf_u8_extremum_h_doubling_(src, dst, n, bpp, w, 1, scratch);
        else pf_u8_extremum_h_doubling_(src, dst, n, bpp, w, 0, scratch);
    }
}

/* dst[i] = E(rows[0][i], ..., rows[h - 1][i]) for i < n: the extremum down a column of h rows. */
PF_INLINE void pf_u8_extremum_rows_(const pf_u8 *const *rows, int h, pf_u8 *dst, long n, int is_max) {
    if (n < 16) {
        for (long i = 0; i < n; i++) {
            pf_u8 m = rows[0][i];
            for (int k = 1; k < h; k++) m = pf_pick1(m, rows[k][i], is_max);
            dst[i] = m;
        }
        return;
    }
    long i = 0;
    if (h == 5 || h == 3) {
        /* Row pointers in registers: a store to dst could alias rows[], so they would be
         * reloaded every vector. */
        const pf_u8 *r0 = rows[0], *r1 = rows[1], *r2 = rows[2], *r3 = rows[h == 5 ? 3 : 2], *r4 = rows[h == 5 ? 4 : 2];
        for (;;) {
            if (i > n - 16) i = n - 16;
            pf_u8x16 m = pf_pick16(pf_pick16(pf_ld16(r0 + i), pf_ld16(r1 + i), is_max), pf_ld16(r2 + i), is_max);
            if (h == 5) m = pf_pick16(m, pf_pick16(pf_ld16(r3 + i), pf_ld16(r4 + i), is_max), is_max);
            pf_st16(dst + i, m);
            if (i == n - 16) break;
            i += 16;
        }
        return;
    }
    for (;;) {
        if (i > n - 16) i = n - 16;
        pf_u8x16 m;
        {
            m = pf_ld16(rows[0] + i);
            for (int k = 1; k < h; k++) m = pf_pick16(m, pf_ld16(rows[k] + i), is_max);
        }
        pf_st16(dst + i, m);
        if (i == n - 16) break;
        i += 16;
    }
}

PF_INLINE void pf_u8_extremum_rows(const pf_u8 *const *rows, int h, pf_u8 *dst, long n, int is_max) {
    switch (h * 2 + (is_max != 0)) {
    case 3 * 2 + 1: pf_u8_extremum_rows_(rows, 3, dst, n, 1); break;
    case 3 * 2: pf_u8_extremum_rows_(rows, 3, dst, n, 0); break;
    case 5 * 2 + 1: pf_u8_extremum_rows_(rows, 5, dst, n, 1); break;
    case 5 * 2: pf_u8_extremum_rows_(rows, 5, dst, n, 0); break;
    default:
        if (is_max) pf_u8_extremum_rows_(rows, h, dst, n, 1); else pf_u8_extremum_rows_(rows, h, dst, n, 0);
    }
}

/* d[i] = E(a[i], b[i]) for i < n (d may be a or b). */
PF_INLINE void pf_u8_pick_rows_(const pf_u8 *a, const pf_u8 *b, pf_u8 *d, long n, int is_max) {
    long i = 0;
    for (; i + 16 <= n; i += 16) pf_st16(d + i, pf_pick16(pf_ld16(a + i), pf_ld16(b + i), is_max));
    for (; i < n; i++) d[i] = pf_pick1(a[i], b[i], is_max);
}

PF_INLINE void pf_u8_pick_rows(const pf_u8 *a, const pf_u8 *b, pf_u8 *d, long n, int is_max) {
    if (is_max) pf_u8_pick_rows_(a, b, d, n, 1); else pf_u8_pick_rows_(a, b, d, n, 0);
}

/* Vertical extremum over windows of h rows by van Herk/Gil-Werman: `src` holds `rows` rows of
 * n bytes, `srcStride` apart; output row y (y < rows - h + 1) is the extremum of source rows
 * y ... y + h - 1, written at dst + y * dstStride. Blocks of h rows start at source row 0:
 * suffix runs (to the end of a block) are kept in `suffix` (rows * n bytes), prefix runs (from
 * the start of a block) are carried in `prefix` (n bytes); output y = E(suffix[y],
 * prefix[y + h - 1]).
 * Cost: 3 operations per 16 bytes whatever h (van Herk 1992; Gil and Werman 1993). */
PF_INLINE void pf_u8_extremum_v_vanherk_(const pf_u8 *src, long srcStride, long rows, long n, int h,
                                         pf_u8 *dst, long dstStride, pf_u8 *suffix, pf_u8 *prefix, int is_max) {
    for (long j = rows - 1; j >= 0; j--) {
        const pf_u8 *s = src + j * srcStride;
        pf_u8 *d = suffix + j * n;
        if (j == rows - 1 || (j + 1) % h == 0) __builtin_memcpy(d, s, (size_t)n);
        else pf_u8_pick_rows_(s, d + n, d, n, is_max);
    }
    for (long j = 0; j < rows; j++) {
        const pf_u8 *s = src + j * srcStride;
        if (j % h == 0) __builtin_memcpy(prefix, s, (size_t)n);
        else pf_u8_pick_rows_(prefix, s, prefix, n, is_max);
        long y = j - (h - 1);
        if (y >= 0) pf_u8_pick_rows_(suffix + y * n, prefix, dst + y * dstStride, n, is_max);
    }
}

PF_INLINE void pf_u8_extremum_v_vanherk(const pf_u8 *src, long srcStride, long rows, long n, int h,
                                        pf_u8 *dst, long dstStride, pf_u8 *suffix, pf_u8 *prefix, int is_max) {
    if (is_max) pf_u8_extremum_v_vanherk_(src, srcStride, rows, n, h, dst, dstStride, suffix, prefix, 1);
    else pf_u8_extremum_v_vanherk_(src, srcStride, rows, n, h, dst, dstStride, suffix, prefix, 0);
}

/* ---------------------------------------------------------------------------------------- */
/* Median                                                                                   */
/* ---------------------------------------------------------------------------------------- */

#define PF_CE(a, b) do { pf_u8x16 _lo = __builtin_elementwise_min(a, b); \
                         b = __builtin_elementwise_max(a, b); a = _lo; } while (0)

/* Median of three per byte (4 operations). */
PF_INLINE pf_u8x16 pf_median3_u8x16(pf_u8x16 a, pf_u8x16 b, pf_u8x16 c) {
    return __builtin_elementwise_max(__builtin_elementwise_min(a, b),
                                     __builtin_elementwise_min(__builtin_elementwise_max(a, b), c));
}

/* 3x3 median of a row, n >= 16 bytes: rows r[0..2] point at the pixel left of the first output
 * (each readable for n + 2 * bpp bytes). Each column is sorted once into lo, mid, hi (3
 * compare-exchanges, shared by three outputs), then the median is median3(max of the lows,
 * median of the middles, min of the highs) (Paeth, Graphics Gems 1990). `scratch` holds
 * 3 * (n + 2 * bpp) bytes. About 6 + 12 operations per 16 bytes. */
PF_INLINE void pf_u8_median3x3_row_(const pf_u8 *const *r, pf_u8 *dst, long n, long bpp, pf_u8 *scratch) {
    long m = n + 2 * bpp;
    pf_u8 *lo = scratch, *mid = scratch + m, *hi = scratch + 2 * m;
    const pf_u8 *r0 = r[0], *r1 = r[1], *r2 = r[2];
    long i = 0;
    for (;;) {
        if (i > m - 16) i = m - 16;
        pf_u8x16 a = pf_ld16(r0 + i), b = pf_ld16(r1 + i), c = pf_ld16(r2 + i);
        PF_CE(a, b); PF_CE(b, c); PF_CE(a, b);
        pf_st16(lo + i, a); pf_st16(mid + i, b); pf_st16(hi + i, c);
        if (i == m - 16) break;
        i += 16;
    }
    i = 0;
    for (;;) {
        if (i > n - 16) i = n - 16;
        pf_u8x16 l = __builtin_elementwise_max(__builtin_elementwise_max(pf_ld16(lo + i), pf_ld16(lo + i + bpp)),
                                               pf_ld16(lo + i + 2 * bpp));
        pf_u8x16 md = pf_median3_u8x16(pf_ld16(mid + i), pf_ld16(mid + i + bpp), pf_ld16(mid + i + 2 * bpp));
        pf_u8x16 h = __builtin_elementwise_min(__builtin_elementwise_min(pf_ld16(hi + i), pf_ld16(hi + i + bpp)),
                                               pf_ld16(hi + i + 2 * bpp));
        pf_st16(dst + i, pf_median3_u8x16(l, md, h));
        if (i == n - 16) break;
        i += 16;
    }
}

/* 5x5 median of a row, n >= 16 bytes: rows r[0..4] point two pixels left of the first output
 * (each readable for n + 4 * bpp bytes). Each column is sorted once (9 compare-exchanges), the
 * sorted columns x and x + 1 are merged into runs of ten (26 operations, shared by two
 * outputs), and each output takes the 13th of the runs of columns (x, x+1), (x+3, x+4) and
 * column x + 2 with the pruned network pf_median25_u8x16 (72 operations). Arrays are kept
 * per rank (structure of arrays), so neighbouring pixels are shifted loads. `scratch` holds
 * 15 * (n + 4 * bpp) bytes. About 116 operations per 16 bytes. */
PF_INLINE void pf_u8_median5x5_row_(const pf_u8 *const *r, pf_u8 *dst, long n, long bpp, pf_u8 *scratch) {
    const pf_u8 *r0 = r[0], *r1 = r[1], *r2 = r[2], *r3 = r[3], *r4 = r[4];
    long m = n + 4 * bpp;          /* column bytes */
    long mp = m - bpp;             /* column-pair bytes */
    pf_u8 *cols = scratch;         /* 5 arrays of m */
    pf_u8 *pairs = scratch + 5 * m; /* 10 arrays of m (mp used) */
    long i = 0;
    for (;;) {
        if (i > m - 16) i = m - 16;
        pf_u8x16 v0 = pf_ld16(r0 + i), v1 = pf_ld16(r1 + i), v2 = pf_ld16(r2 + i),
                 v3 = pf_ld16(r3 + i), v4 = pf_ld16(r4 + i);
        PF_CE(v0, v1); PF_CE(v3, v4); PF_CE(v2, v4); PF_CE(v2, v3); PF_CE(v0, v3);
        PF_CE(v0, v2); PF_CE(v1, v4); PF_CE(v1, v3); PF_CE(v1, v2);
        pf_st16(cols + i, v0); pf_st16(cols + m + i, v1); pf_st16(cols + 2 * m + i, v2);
        pf_st16(cols + 3 * m + i, v3); pf_st16(cols + 4 * m + i, v4);
        if (i == m - 16) break;
        i += 16;
    }
    i = 0;
    for (;;) {
        if (i > mp - 16) i = mp - 16;
        /* Loads and stores written out: Swift compiles imported inline C at a level that does
         * not unroll small loops, which would keep these arrays on the stack (measured: the 5x5
         * median took 1.8x the instructions of clang -O2). */
        const pf_u8 *p = cols + i;
        pf_u8x16 a[5] = { pf_ld16(p), pf_ld16(p + m), pf_ld16(p + 2 * m), pf_ld16(p + 3 * m), pf_ld16(p + 4 * m) };
        p += bpp;
        pf_u8x16 b[5] = { pf_ld16(p), pf_ld16(p + m), pf_ld16(p + 2 * m), pf_ld16(p + 3 * m), pf_ld16(p + 4 * m) };
        pf_u8x16 d[10];
        pf_merge5x5_u8x16(a, b, d);
        pf_u8 *q = pairs + i;
        pf_st16(q, d[0]); pf_st16(q + m, d[1]); pf_st16(q + 2 * m, d[2]); pf_st16(q + 3 * m, d[3]);
        pf_st16(q + 4 * m, d[4]); pf_st16(q + 5 * m, d[5]); pf_st16(q + 6 * m, d[6]); pf_st16(q + 7 * m, d[7]);
        pf_st16(q + 8 * m, d[8]); pf_st16(q + 9 * m, d[9]);
        if (i == mp - 16) break;
        i += 16;
    }
    i = 0;
    for (;;) {
        if (i > n - 16) i = n - 16;
        const pf_u8 *p = pairs + i, *q = pairs + i + 3 * bpp, *t = cols + i + 2 * bpp;
        pf_u8x16 a[10] = { pf_ld16(p), pf_ld16(p + m), pf_ld16(p + 2 * m), pf_ld16(p + 3 * m), pf_ld16(p + 4 * m),
                           pf_ld16(p + 5 * m), pf_ld16(p + 6 * m), pf_ld16(p + 7 * m), pf_ld16(p + 8 * m), pf_ld16(p + 9 * m) };
        pf_u8x16 b[10] = { pf_ld16(q), pf_ld16(q + m), pf_ld16(q + 2 * m), pf_ld16(q + 3 * m), pf_ld16(q + 4 * m),
                           pf_ld16(q + 5 * m), pf_ld16(q + 6 * m), pf_ld16(q + 7 * m), pf_ld16(q + 8 * m), pf_ld16(q + 9 * m) };
        pf_u8x16 c[5] = { pf_ld16(t), pf_ld16(t + m), pf_ld16(t + 2 * m), pf_ld16(t + 3 * m), pf_ld16(t + 4 * m) };
        pf_st16(dst + i, pf_median25_u8x16(a, b, c));
        if (i == n - 16) break;
        i += 16;
    }
}

/* Runs a median row kernel of radius `rad` on rows shorter than 16 bytes through padded copies
 * (`pad` holds (2 * rad + 2) * (16 + 2 * rad * bpp) bytes). */
PF_INLINE void pf_u8_median_row_padded_(const pf_u8 *const *r, pf_u8 *dst, long n, long bpp, int rad,
                                        pf_u8 *scratch, pf_u8 *pad) {
    long side = 2 * rad + 1, len = n + 2 * rad * bpp, plen = 16 + 2 * rad * bpp;
    const pf_u8 *rows[5];
    for (long j = 0; j < side; j++) {
        pf_u8 *p = pad + j * plen;
        __builtin_memset(p, 0, (size_t)plen);
        __builtin_memcpy(p, r[j], (size_t)len);
        rows[j] = p;
    }
    pf_u8 *out = pad + side * plen;
    if (rad == 1) pf_u8_median3x3_row_(rows, out, 16, bpp, scratch);
    else pf_u8_median5x5_row_(rows, out, 16, bpp, scratch);
    __builtin_memcpy(dst, out, (size_t)n);
}

/* The 3x3 median per channel of a row of n bytes (see pf_u8_median3x3_row_). `scratch` holds
 * 3 * (max(n, 16) + 2 * bpp) + 4 * (16 + 2 * bpp) bytes. */
PF_INLINE void pf_u8_median3x3_row(const pf_u8 *const *rows, pf_u8 *dst, long n, long bpp, pf_u8 *scratch) {
    if (n >= 16) pf_u8_median3x3_row_(rows, dst, n, bpp, scratch);
    else pf_u8_median_row_padded_(rows, dst, n, bpp, 1, scratch, scratch + 3 * (16 + 2 * bpp));
}

/* The 5x5 median per channel of a row of n bytes (see pf_u8_median5x5_row_). `scratch` holds
 * 15 * (max(n, 16) + 4 * bpp) + 6 * (16 + 4 * bpp) bytes. */
PF_INLINE void pf_u8_median5x5_row(const pf_u8 *const *rows, pf_u8 *dst, long n, long bpp, pf_u8 *scratch) {
    if (n >= 16) pf_u8_median5x5_row_(rows, dst, n, bpp, scratch);
    else pf_u8_median_row_padded_(rows, dst, n, bpp, 2, scratch, scratch + 15 * (16 + 4 * bpp));
}

/* The median per channel over (2r+1) x (2r+1) windows by a sliding histogram (Huang, Yang and
 * Tang 1979), for `count` x `height` outputs of `bpp` channels: rows[j] (j < height + 2r) points
 * at the first window column of input row j (count + 2r pixels); output row y goes to
 * dst + y * dstStride. Per output row the histograms are rebuilt, then move one column per
 * output, and the median bin (the (side^2 / 2)-th smallest value, counting from 0) is tracked
 * with the count of values below it.
 * Cost: 2 * (2r + 1) histogram updates per channel and pixel, plus (2r + 1)^2 per row; 4 KiB
 * of stack. */
PF_INLINE void pf_u8_median_histogram(const pf_u8 *const *rows, int r, long count, long height, long bpp,
                                      pf_u8 *dst, long dstStride) {
    long side = 2 * r + 1;
    int half = (int)((side * side) / 2);
    int hist[4][256];
    for (long y = 0; y < height; y++) {
        const pf_u8 *const *win = rows + y;
        pf_u8 *d = dst + y * dstStride;
        for (long c = 0; c < bpp; c++) {
            int *h = hist[c];
            __builtin_memset(h, 0, sizeof(hist[0]));
            for (long j = 0; j < side; j++) {
                const pf_u8 *row = win[j] + c;
                for (long i = 0; i < side; i++) h[row[i * bpp]]++;
            }
            int m = 0, below = 0;
            while (below + h[m] <= half) { below += h[m]; m++; }
            d[c] = (pf_u8)m;
            long in = side * bpp;
            for (long x = 1; x < count; x++) {
                long p = (x - 1) * bpp + c;
                for (long j = 0; j < side; j++) {
                    int o = win[j][p], v = win[j][p + in];
                    h[o]--; below -= (o < m);
                    h[v]++; below += (v < m);
                }
                while (below > half) { m--; below -= h[m]; }
                while (below + h[m] <= half) { below += h[m]; m++; }
                d[x * bpp + c] = (pf_u8)m;
            }
        }
    }
}

#undef PF_CE

#endif
