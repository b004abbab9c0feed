/*
 * The vector kernels of CSIMDBytes.h, written once for any vector width: the including file
 * defines PF_BV (a vector of PF_BW bytes), PF_LDV / PF_STV (unaligned load and store of one
 * vector), PF_PICKV (per-byte maximum or minimum of two vectors) and PF_BN(name) (the name of
 * each function for that width). CSIMDBytes.h includes it with 16-byte vectors under the
 * plain names; CSIMD.c includes it again with 32-byte vectors compiled for AVX2 (names ending
 * in _w32), behind the run-time dispatched pf_u8_*_run entry points. The kernels are exact,
 * so both widths give the same bytes (ByteKernelsTests checks it). No include guard; the
 * parameters are undefined at the end.
 */

#include "CSIMDMedianNetworks.h"

/* ---------------------------------------------------------------------------------------- */
/* Morphology: running extrema                                                              */
/* ---------------------------------------------------------------------------------------- */

/* dst[i] = E(src[i + k * bpp] for k < w) for i < n: the extremum over a horizontal window of
 * w pixels starting at each pixel. Reads src[0 ..< n + (w - 1) * bpp]. Direct scan: w - 1
 * operations per PF_BW bytes, for small windows. */
PF_INLINE void PF_BN(pf_u8_extremum_h_direct_)(const pf_u8 *src, pf_u8 *dst, long n, long bpp, int w, int is_max) {
    if (n < PF_BW) {
        for (long i = 0; i < n; i++) {
            pf_u8 m = src[i];
            for (int k = 1; k < w; k++) m = pf_pick1(m, src[i + k * bpp], is_max);
            dst[i] = m;
        }
        return;
    }
    long i = 0;
    for (;;) {
        if (i > n - PF_BW) i = n - PF_BW;
        const pf_u8 *s = src + i;
        PF_BV m;
        switch (w) {
        case 1: m = PF_LDV(s); break;
        case 3:
            m = PF_PICKV(PF_PICKV(PF_LDV(s), PF_LDV(s + bpp), is_max), PF_LDV(s + 2 * bpp), is_max);
            break;
        case 5:
            m = PF_PICKV(PF_PICKV(PF_LDV(s), PF_LDV(s + bpp), is_max),
                          PF_PICKV(PF_LDV(s + 2 * bpp), PF_LDV(s + 3 * bpp), is_max), is_max);
            m = PF_PICKV(m, PF_LDV(s + 4 * bpp), is_max);
            break;
        case 7:
            m = PF_PICKV(PF_PICKV(PF_LDV(s), PF_LDV(s + bpp), is_max),
                          PF_PICKV(PF_LDV(s + 2 * bpp), PF_LDV(s + 3 * bpp), is_max), is_max);
            m = PF_PICKV(m, PF_PICKV(PF_PICKV(PF_LDV(s + 4 * bpp), PF_LDV(s + 5 * bpp), is_max),
                                       PF_LDV(s + 6 * bpp), is_max), is_max);
            break;
        default:
            m = PF_LDV(s);
            for (int k = 1; k < w; k++) m = PF_PICKV(m, PF_LDV(s + k * bpp), is_max);
        }
        PF_STV(dst + i, m);
        if (i == n - PF_BW) break;
        i += PF_BW;
    }
}

/* In place: m[i] = E(m[i], m[i + s]) for i < len (reads m[0 ..< len + s]). Forward order, so
 * every m[i + s] is read before it is updated; a scalar tail (an overlapping vector would
 * combine values twice). */
PF_INLINE void PF_BN(pf_u8_pick_shifted_inplace_)(pf_u8 *m, long len, long s, int is_max) {
    long i = 0;
    for (; i + PF_BW <= len; i += PF_BW) PF_STV(m + i, PF_PICKV(PF_LDV(m + i), PF_LDV(m + i + s), is_max));
    for (; i < len; i++) m[i] = pf_pick1(m[i], m[i + s], is_max);
}

/* Like pf_u8_extremum_h_direct_ for any w, by doubling: windows of 1, 2, 4, ..., P pixels
 * (P the largest power of two <= w) in place in `scratch`, then the extremum of two windows of
 * P that overlap to cover w. `scratch` holds n + (w - 1) * bpp bytes.
 * Cost: log2(w) + 1 operations per PF_BW bytes (van Herk/Gil-Werman needs 3 per pixel, but runs
 * along the row one pixel at a time; the doubling passes are whole-vector). */
PF_INLINE void PF_BN(pf_u8_extremum_h_doubling_)(const pf_u8 *src, pf_u8 *dst, long n, long bpp, int w, int is_max,
                                          pf_u8 *scratch) {
    long len = n + (long)(w - 1) * bpp;
    __builtin_memcpy(scratch, src, (size_t)len);
    long span = 1;
    while (2 * span <= w) {
        long s = span * bpp;
        len -= s;
        PF_BN(pf_u8_pick_shifted_inplace_)(scratch, len, s, is_max);
        span *= 2;
    }
    /* scratch[i] = E over `span` pixels from i, for i < n + (w - span) * bpp. */
    PF_BN(pf_u8_extremum_h_direct_)(scratch, dst, n, (w - span) * bpp, w == span ? 1 : 2, is_max);
}

/* dst[i] = E(src[i + k * bpp] for k < w), i < n (n = count * bpp bytes): the per-channel
 * maximum (is_max) or minimum over a horizontal window of w pixels starting at each pixel.
 * Reads src[0 ..< n + (w - 1) * bpp]; `scratch` (n + (w - 1) * bpp bytes) is used when w > 15. */
PF_INLINE void PF_BN(pf_u8_extremum_h)(const pf_u8 *src, pf_u8 *dst, long n, long bpp, int w, int is_max, pf_u8 *scratch) {
    if (w <= 15) {
        /* Constant window sizes and operation, so that each common case is its own loop
         * without a switch per vector (the byte path's 5x5 dilation is 12 instructions per
         * pixel with the switch and is_max tested inside, against 9). */
        switch (w * 2 + (is_max != 0)) {
        case 3 * 2 + 1: PF_BN(pf_u8_extremum_h_direct_)(src, dst, n, bpp, 3, 1); break;
        case 3 * 2: PF_BN(pf_u8_extremum_h_direct_)(src, dst, n, bpp, 3, 0); break;
        case 5 * 2 + 1: PF_BN(pf_u8_extremum_h_direct_)(src, dst, n, bpp, 5, 1); break;
        case 5 * 2: PF_BN(pf_u8_extremum_h_direct_)(src, dst, n, bpp, 5, 0); break;
        case 7 * 2 + 1: PF_BN(pf_u8_extremum_h_direct_)(src, dst, n, bpp, 7, 1); break;
        case 7 * 2: PF_BN(pf_u8_extremum_h_direct_)(src, dst, n, bpp, 7, 0); break;
        default:
            if (is_max) PF_BN(pf_u8_extremum_h_direct_)(src, dst, n, bpp, w, 1);
            else PF_BN(pf_u8_extremum_h_direct_)(src, dst, n, bpp, w, 0);
        }
    } else {
        if (is_max) PF_BN(pf_u8_extremum_h_doubling_)(src, dst, n, bpp, w, 1, scratch);
        else PF_BN(pf_u8_extremum_h_doubling_)(src, dst, n, bpp, w, 0, scratch);
    }
}

/* dst[i] = E(rows[0][i], ..., rows[h - 1][i]) for i < n: the extremum down a column of h rows. */
PF_INLINE void PF_BN(pf_u8_extremum_rows_)(const pf_u8 *const *rows, int h, pf_u8 *dst, long n, int is_max) {
    if (n < PF_BW) {
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
            if (i > n - PF_BW) i = n - PF_BW;
            PF_BV m = PF_PICKV(PF_PICKV(PF_LDV(r0 + i), PF_LDV(r1 + i), is_max), PF_LDV(r2 + i), is_max);
            if (h == 5) m = PF_PICKV(m, PF_PICKV(PF_LDV(r3 + i), PF_LDV(r4 + i), is_max), is_max);
            PF_STV(dst + i, m);
            if (i == n - PF_BW) break;
            i += PF_BW;
        }
        return;
    }
    for (;;) {
        if (i > n - PF_BW) i = n - PF_BW;
        PF_BV m;
        {
            m = PF_LDV(rows[0] + i);
            for (int k = 1; k < h; k++) m = PF_PICKV(m, PF_LDV(rows[k] + i), is_max);
        }
        PF_STV(dst + i, m);
        if (i == n - PF_BW) break;
        i += PF_BW;
    }
}

PF_INLINE void PF_BN(pf_u8_extremum_rows)(const pf_u8 *const *rows, int h, pf_u8 *dst, long n, int is_max) {
    switch (h * 2 + (is_max != 0)) {
    case 3 * 2 + 1: PF_BN(pf_u8_extremum_rows_)(rows, 3, dst, n, 1); break;
    case 3 * 2: PF_BN(pf_u8_extremum_rows_)(rows, 3, dst, n, 0); break;
    case 5 * 2 + 1: PF_BN(pf_u8_extremum_rows_)(rows, 5, dst, n, 1); break;
    case 5 * 2: PF_BN(pf_u8_extremum_rows_)(rows, 5, dst, n, 0); break;
    default:
        if (is_max) PF_BN(pf_u8_extremum_rows_)(rows, h, dst, n, 1); else PF_BN(pf_u8_extremum_rows_)(rows, h, dst, n, 0);
    }
}

/* Two output rows at once: d0[i] = E(rows[0][i], ..., rows[h - 1][i]) and d1[i] = E(rows[1][i],
 * ..., rows[h][i]) for i < n (h + 1 rows; h >= 2). The h - 1 rows both windows hold are
 * reduced once: (h - 2) + 2 operations per PF_BW bytes for the two rows, against 2 (h - 1)
 * for two calls of pf_u8_extremum_rows, and h + 1 loads against 2 h. */
PF_INLINE void PF_BN(pf_u8_extremum_rows2_)(const pf_u8 *const *rows, int h, pf_u8 *d0, pf_u8 *d1, long n, int is_max) {
    if (n < PF_BW) {
        for (long i = 0; i < n; i++) {
            pf_u8 m = rows[1][i];
            for (int k = 2; k < h; k++) m = pf_pick1(m, rows[k][i], is_max);
            d0[i] = pf_pick1(m, rows[0][i], is_max);
            d1[i] = pf_pick1(m, rows[h][i], is_max);
        }
        return;
    }
    long i = 0;
    if (h == 5 || h == 3) {
        /* Row pointers in registers, as in pf_u8_extremum_rows_. */
        const pf_u8 *r0 = rows[0], *r1 = rows[1], *r2 = rows[2], *r3 = rows[3];
        const pf_u8 *r4 = rows[h == 5 ? 4 : 3], *r5 = rows[h == 5 ? 5 : 3];
        for (;;) {
            if (i > n - PF_BW) i = n - PF_BW;
            PF_BV m;
            if (h == 5) {
                m = PF_PICKV(PF_PICKV(PF_LDV(r1 + i), PF_LDV(r2 + i), is_max),
                             PF_PICKV(PF_LDV(r3 + i), PF_LDV(r4 + i), is_max), is_max);
                PF_STV(d0 + i, PF_PICKV(m, PF_LDV(r0 + i), is_max));
                PF_STV(d1 + i, PF_PICKV(m, PF_LDV(r5 + i), is_max));
            } else {
                m = PF_PICKV(PF_LDV(r1 + i), PF_LDV(r2 + i), is_max);
                PF_STV(d0 + i, PF_PICKV(m, PF_LDV(r0 + i), is_max));
                PF_STV(d1 + i, PF_PICKV(m, PF_LDV(r3 + i), is_max));
            }
            if (i == n - PF_BW) break;
            i += PF_BW;
        }
        return;
    }
    for (;;) {
        if (i > n - PF_BW) i = n - PF_BW;
        PF_BV m = PF_LDV(rows[1] + i);
        for (int k = 2; k < h; k++) m = PF_PICKV(m, PF_LDV(rows[k] + i), is_max);
        PF_STV(d0 + i, PF_PICKV(m, PF_LDV(rows[0] + i), is_max));
        PF_STV(d1 + i, PF_PICKV(m, PF_LDV(rows[h] + i), is_max));
        if (i == n - PF_BW) break;
        i += PF_BW;
    }
}

PF_INLINE void PF_BN(pf_u8_extremum_rows2)(const pf_u8 *const *rows, int h, pf_u8 *d0, pf_u8 *d1, long n, int is_max) {
    switch (h * 2 + (is_max != 0)) {
    case 3 * 2 + 1: PF_BN(pf_u8_extremum_rows2_)(rows, 3, d0, d1, n, 1); break;
    case 3 * 2: PF_BN(pf_u8_extremum_rows2_)(rows, 3, d0, d1, n, 0); break;
    case 5 * 2 + 1: PF_BN(pf_u8_extremum_rows2_)(rows, 5, d0, d1, n, 1); break;
    case 5 * 2: PF_BN(pf_u8_extremum_rows2_)(rows, 5, d0, d1, n, 0); break;
    default:
        if (is_max) PF_BN(pf_u8_extremum_rows2_)(rows, h, d0, d1, n, 1);
        else PF_BN(pf_u8_extremum_rows2_)(rows, h, d0, d1, n, 0);
    }
}

/* d[i] = E(a[i], b[i]) for i < n (d may be a or b). */
PF_INLINE void PF_BN(pf_u8_pick_rows_)(const pf_u8 *a, const pf_u8 *b, pf_u8 *d, long n, int is_max) {
    long i = 0;
    for (; i + PF_BW <= n; i += PF_BW) PF_STV(d + i, PF_PICKV(PF_LDV(a + i), PF_LDV(b + i), is_max));
    for (; i < n; i++) d[i] = pf_pick1(a[i], b[i], is_max);
}

PF_INLINE void PF_BN(pf_u8_pick_rows)(const pf_u8 *a, const pf_u8 *b, pf_u8 *d, long n, int is_max) {
    if (is_max) PF_BN(pf_u8_pick_rows_)(a, b, d, n, 1); else PF_BN(pf_u8_pick_rows_)(a, b, d, n, 0);
}

/* Vertical extremum over windows of h rows by van Herk/Gil-Werman: `src` holds `rows` rows of
 * n bytes, `srcStride` apart; output row y (y < rows - h + 1) is the extremum of source rows
 * y ... y + h - 1, written at dst + y * dstStride. Blocks of h rows start at source row 0:
 * suffix runs (to the end of a block) are kept in `suffix` (rows * n bytes), prefix runs (from
 * the start of a block) are carried in `prefix` (n bytes); output y = E(suffix[y],
 * prefix[y + h - 1]).
 * Cost: 3 operations per PF_BW bytes whatever h (van Herk 1992; Gil and Werman 1993). */
PF_INLINE void PF_BN(pf_u8_extremum_v_vanherk_)(const pf_u8 *src, long srcStride, long rows, long n, int h,
                                         pf_u8 *dst, long dstStride, pf_u8 *suffix, pf_u8 *prefix, int is_max) {
    for (long j = rows - 1; j >= 0; j--) {
        const pf_u8 *s = src + j * srcStride;
        pf_u8 *d = suffix + j * n;
        if (j == rows - 1 || (j + 1) % h == 0) __builtin_memcpy(d, s, (size_t)n);
        else PF_BN(pf_u8_pick_rows_)(s, d + n, d, n, is_max);
    }
    for (long j = 0; j < rows; j++) {
        const pf_u8 *s = src + j * srcStride;
        if (j % h == 0) __builtin_memcpy(prefix, s, (size_t)n);
        else PF_BN(pf_u8_pick_rows_)(prefix, s, prefix, n, is_max);
        long y = j - (h - 1);
        if (y >= 0) PF_BN(pf_u8_pick_rows_)(suffix + y * n, prefix, dst + y * dstStride, n, is_max);
    }
}

PF_INLINE void PF_BN(pf_u8_extremum_v_vanherk)(const pf_u8 *src, long srcStride, long rows, long n, int h,
                                        pf_u8 *dst, long dstStride, pf_u8 *suffix, pf_u8 *prefix, int is_max) {
    if (is_max) PF_BN(pf_u8_extremum_v_vanherk_)(src, srcStride, rows, n, h, dst, dstStride, suffix, prefix, 1);
    else PF_BN(pf_u8_extremum_v_vanherk_)(src, srcStride, rows, n, h, dst, dstStride, suffix, prefix, 0);
}

/* ---------------------------------------------------------------------------------------- */
/* Median                                                                                   */
/* ---------------------------------------------------------------------------------------- */

#define PF_CE(a, b) do { PF_BV _lo = __builtin_elementwise_min(a, b); \
                         b = __builtin_elementwise_max(a, b); a = _lo; } while (0)

/* Median of three per byte (4 operations). */
PF_INLINE PF_BV PF_BN(pf_median3)(PF_BV a, PF_BV b, PF_BV c) {
    return __builtin_elementwise_max(__builtin_elementwise_min(a, b),
                                     __builtin_elementwise_min(__builtin_elementwise_max(a, b), c));
}

/* 3x3 median of a row, n >= PF_BW bytes: rows r[0..2] point at the pixel left of the first output
 * (each readable for n + 2 * bpp bytes). Each column is sorted once into lo, mid, hi (3
 * compare-exchanges, shared by three outputs), then the median is median3(max of the lows,
 * median of the middles, min of the highs) (Paeth, Graphics Gems 1990). `scratch` holds
 * 3 * (n + 2 * bpp) bytes. About 6 + 12 operations per PF_BW bytes. */
PF_INLINE void PF_BN(pf_u8_median3x3_row_)(const pf_u8 *const *r, pf_u8 *dst, long n, long bpp, pf_u8 *scratch) {
    long m = n + 2 * bpp;
    pf_u8 *lo = scratch, *mid = scratch + m, *hi = scratch + 2 * m;
    const pf_u8 *r0 = r[0], *r1 = r[1], *r2 = r[2];
    long i = 0;
    for (;;) {
        if (i > m - PF_BW) i = m - PF_BW;
        PF_BV a = PF_LDV(r0 + i), b = PF_LDV(r1 + i), c = PF_LDV(r2 + i);
        PF_CE(a, b); PF_CE(b, c); PF_CE(a, b);
        PF_STV(lo + i, a); PF_STV(mid + i, b); PF_STV(hi + i, c);
        if (i == m - PF_BW) break;
        i += PF_BW;
    }
    i = 0;
    for (;;) {
        if (i > n - PF_BW) i = n - PF_BW;
        PF_BV l = __builtin_elementwise_max(__builtin_elementwise_max(PF_LDV(lo + i), PF_LDV(lo + i + bpp)),
                                               PF_LDV(lo + i + 2 * bpp));
        PF_BV md = PF_BN(pf_median3)(PF_LDV(mid + i), PF_LDV(mid + i + bpp), PF_LDV(mid + i + 2 * bpp));
        PF_BV h = __builtin_elementwise_min(__builtin_elementwise_min(PF_LDV(hi + i), PF_LDV(hi + i + bpp)),
                                               PF_LDV(hi + i + 2 * bpp));
        PF_STV(dst + i, PF_BN(pf_median3)(l, md, h));
        if (i == n - PF_BW) break;
        i += PF_BW;
    }
}

/* 5x5 median of a row, n >= PF_BW bytes: rows r[0..4] point two pixels left of the first output
 * (each readable for n + 4 * bpp bytes). Each column is sorted once (9 compare-exchanges), the
 * sorted columns x and x + 1 are merged into runs of ten (26 operations, shared by two
 * outputs), and each output takes the 13th of the runs of columns (x, x+1), (x+3, x+4) and
 * column x + 2 with the pruned network pf_median25_u8x16 (72 operations). Arrays are kept
 * per rank (structure of arrays), so neighbouring pixels are shifted loads. `scratch` holds
 * 15 * (n + 4 * bpp) bytes. About 116 operations per PF_BW bytes. */
PF_INLINE void PF_BN(pf_u8_median5x5_row_)(const pf_u8 *const *r, pf_u8 *dst, long n, long bpp, pf_u8 *scratch) {
    const pf_u8 *r0 = r[0], *r1 = r[1], *r2 = r[2], *r3 = r[3], *r4 = r[4];
    long m = n + 4 * bpp;          /* column bytes */
    long mp = m - bpp;             /* column-pair bytes */
    pf_u8 *cols = scratch;         /* 5 arrays of m */
    pf_u8 *pairs = scratch + 5 * m; /* 10 arrays of m (mp used) */
    long i = 0;
    for (;;) {
        if (i > m - PF_BW) i = m - PF_BW;
        PF_BV v0 = PF_LDV(r0 + i), v1 = PF_LDV(r1 + i), v2 = PF_LDV(r2 + i),
                 v3 = PF_LDV(r3 + i), v4 = PF_LDV(r4 + i);
        PF_CE(v0, v1); PF_CE(v3, v4); PF_CE(v2, v4); PF_CE(v2, v3); PF_CE(v0, v3);
        PF_CE(v0, v2); PF_CE(v1, v4); PF_CE(v1, v3); PF_CE(v1, v2);
        PF_STV(cols + i, v0); PF_STV(cols + m + i, v1); PF_STV(cols + 2 * m + i, v2);
        PF_STV(cols + 3 * m + i, v3); PF_STV(cols + 4 * m + i, v4);
        if (i == m - PF_BW) break;
        i += PF_BW;
    }
    i = 0;
    for (;;) {
        if (i > mp - PF_BW) i = mp - PF_BW;
        /* Loads and stores written out: Swift compiles imported inline C at a level that does
         * not unroll small loops, which would keep these arrays on the stack (measured: the 5x5
         * median took 1.8x the instructions of clang -O2). */
        const pf_u8 *p = cols + i;
        PF_BV a[5] = { PF_LDV(p), PF_LDV(p + m), PF_LDV(p + 2 * m), PF_LDV(p + 3 * m), PF_LDV(p + 4 * m) };
        p += bpp;
        PF_BV b[5] = { PF_LDV(p), PF_LDV(p + m), PF_LDV(p + 2 * m), PF_LDV(p + 3 * m), PF_LDV(p + 4 * m) };
        PF_BV d[10];
        PF_BN(pf_merge5x5)(a, b, d);
        pf_u8 *q = pairs + i;
        PF_STV(q, d[0]); PF_STV(q + m, d[1]); PF_STV(q + 2 * m, d[2]); PF_STV(q + 3 * m, d[3]);
        PF_STV(q + 4 * m, d[4]); PF_STV(q + 5 * m, d[5]); PF_STV(q + 6 * m, d[6]); PF_STV(q + 7 * m, d[7]);
        PF_STV(q + 8 * m, d[8]); PF_STV(q + 9 * m, d[9]);
        if (i == mp - PF_BW) break;
        i += PF_BW;
    }
    i = 0;
    for (;;) {
        if (i > n - PF_BW) i = n - PF_BW;
        const pf_u8 *p = pairs + i, *q = pairs + i + 3 * bpp, *t = cols + i + 2 * bpp;
        PF_BV a[10] = { PF_LDV(p), PF_LDV(p + m), PF_LDV(p + 2 * m), PF_LDV(p + 3 * m), PF_LDV(p + 4 * m),
                           PF_LDV(p + 5 * m), PF_LDV(p + 6 * m), PF_LDV(p + 7 * m), PF_LDV(p + 8 * m), PF_LDV(p + 9 * m) };
        PF_BV b[10] = { PF_LDV(q), PF_LDV(q + m), PF_LDV(q + 2 * m), PF_LDV(q + 3 * m), PF_LDV(q + 4 * m),
                           PF_LDV(q + 5 * m), PF_LDV(q + 6 * m), PF_LDV(q + 7 * m), PF_LDV(q + 8 * m), PF_LDV(q + 9 * m) };
        PF_BV c[5] = { PF_LDV(t), PF_LDV(t + m), PF_LDV(t + 2 * m), PF_LDV(t + 3 * m), PF_LDV(t + 4 * m) };
        PF_STV(dst + i, PF_BN(pf_median25)(a, b, c));
        if (i == n - PF_BW) break;
        i += PF_BW;
    }
}

/* Runs a median row kernel of radius `rad` on rows shorter than PF_BW bytes through padded copies
 * (`pad` holds (2 * rad + 2) * (PF_BW + 2 * rad * bpp) bytes). */
PF_INLINE void PF_BN(pf_u8_median_row_padded_)(const pf_u8 *const *r, pf_u8 *dst, long n, long bpp, int rad,
                                        pf_u8 *scratch, pf_u8 *pad) {
    long side = 2 * rad + 1, len = n + 2 * rad * bpp, plen = PF_BW + 2 * rad * bpp;
    const pf_u8 *rows[5];
    for (long j = 0; j < side; j++) {
        pf_u8 *p = pad + j * plen;
        __builtin_memset(p, 0, (size_t)plen);
        __builtin_memcpy(p, r[j], (size_t)len);
        rows[j] = p;
    }
    pf_u8 *out = pad + side * plen;
    if (rad == 1) PF_BN(pf_u8_median3x3_row_)(rows, out, PF_BW, bpp, scratch);
    else PF_BN(pf_u8_median5x5_row_)(rows, out, PF_BW, bpp, scratch);
    __builtin_memcpy(dst, out, (size_t)n);
}

/* The 3x3 median per channel of a row of n bytes (see pf_u8_median3x3_row_). `scratch` holds
 * 3 * (max(n, PF_BW) + 2 * bpp) + 4 * (PF_BW + 2 * bpp) bytes. */
PF_INLINE void PF_BN(pf_u8_median3x3_row)(const pf_u8 *const *rows, pf_u8 *dst, long n, long bpp, pf_u8 *scratch) {
    if (n >= PF_BW) PF_BN(pf_u8_median3x3_row_)(rows, dst, n, bpp, scratch);
    else PF_BN(pf_u8_median_row_padded_)(rows, dst, n, bpp, 1, scratch, scratch + 3 * (PF_BW + 2 * bpp));
}

/* The 5x5 median per channel of a row of n bytes (see pf_u8_median5x5_row_). `scratch` holds
 * 15 * (max(n, PF_BW) + 4 * bpp) + 6 * (PF_BW + 4 * bpp) bytes. */
PF_INLINE void PF_BN(pf_u8_median5x5_row)(const pf_u8 *const *rows, pf_u8 *dst, long n, long bpp, pf_u8 *scratch) {
    if (n >= PF_BW) PF_BN(pf_u8_median5x5_row_)(rows, dst, n, bpp, scratch);
    else PF_BN(pf_u8_median_row_padded_)(rows, dst, n, bpp, 2, scratch, scratch + 15 * (PF_BW + 4 * bpp));
}

#undef PF_CE
#undef PF_BV
#undef PF_BW
#undef PF_LDV
#undef PF_STV
#undef PF_PICKV
#undef PF_BN
