#ifndef PIXELFLOW_CSIMD_CORRELATION_H
#define PIXELFLOW_CSIMD_CORRELATION_H
/* Correlation on flat float rows (separable and 2D convolutions). Part of CSIMD (CSIMD.h includes every part). */
#include "CSIMDCommon.h"
/* ---- Correlation on flat float rows ---------------------------------------------------
 * Interleaved RGBA rows seen as flat float arrays: a horizontal tap k of a pixel is 4 floats
 * away, so both passes are plain element-wise multiply-adds that vectorize at any width.
 * Every output sums its taps in order starting from 0, without contraction: the results are
 * those of the interleaved Swift loops (correlateRowHorizontal, correlateRowsVertical). */

/* dst[i] = sum_k taps[k] * rows[k][i] for i in [0, nfloats). */
PF_INLINE void pf_correlate_v(const float *const *rows, const float *taps, int ntaps, long nfloats, float *dst) {
#pragma clang fp contract(off)
    long i = 0;
    /* Eight independent sums: with four, each step waited on the previous addition. */
    for (; i + 64 <= nfloats; i += 64) {
        pf_float8 a0 = 0.0f, a1 = 0.0f, a2 = 0.0f, a3 = 0.0f, a4 = 0.0f, a5 = 0.0f, a6 = 0.0f, a7 = 0.0f;
        for (int k = 0; k < ntaps; k++) {
            const pf_float8 w = taps[k];
            const float *q = rows[k] + i;
            a0 = a0 + pf_load8(q) * w;
            a1 = a1 + pf_load8(q + 8) * w;
            a2 = a2 + pf_load8(q + 16) * w;
            a3 = a3 + pf_load8(q + 24) * w;
            a4 = a4 + pf_load8(q + 32) * w;
            a5 = a5 + pf_load8(q + 40) * w;
            a6 = a6 + pf_load8(q + 48) * w;
            a7 = a7 + pf_load8(q + 56) * w;
        }
        pf_store8(dst + i, a0); pf_store8(dst + i + 8, a1); pf_store8(dst + i + 16, a2); pf_store8(dst + i + 24, a3);
        pf_store8(dst + i + 32, a4); pf_store8(dst + i + 40, a5); pf_store8(dst + i + 48, a6); pf_store8(dst + i + 56, a7);
    }
    for (; i + 8 <= nfloats; i += 8) {
        pf_float8 a = 0.0f;
        for (int k = 0; k < ntaps; k++) a = a + pf_load8(rows[k] + i) * (pf_float8)taps[k];
        pf_store8(dst + i, a);
    }
    for (; i < nfloats; i++) {
        float a = 0.0f;
        for (int k = 0; k < ntaps; k++) a = a + rows[k][i] * taps[k];
        dst[i] = a;
    }
}

/* pf_correlate_v for `nout` consecutive output rows at once: dsts[j][i] = sum_k taps[k] *
 * rows[j + k][i] (rows holds ntaps + nout - 1 pointers). Each output row is summed exactly as
 * pf_correlate_v sums it, tap 0 first, so the results are the same; what changes is the
 * order of the work. Four output rows and 16 floats at a time keep eight sums in registers,
 * and each input vector loaded serves the four rows (up to four taps), so an input row is
 * read from memory once per block of outputs instead of once per output row and tap. */
PF_INLINE void pf_correlate_v_block(const float *const *rows, const float *taps, int ntaps, long nfloats,
                                    float *const *dsts, int nout) {
#pragma clang fp contract(off)
    long i = 0;
    for (; i + 16 <= nfloats; i += 16) {
        int j = 0;
        for (; j + 4 <= nout; j += 4) {
            pf_float8 s00 = 0.0f, s01 = 0.0f, s10 = 0.0f, s11 = 0.0f, s20 = 0.0f, s21 = 0.0f, s30 = 0.0f, s31 = 0.0f;
            /* Input row j + r serves output j + m with tap r - m, when that is a tap. */
#define PF_CV_TAP(m, a0, a1) do { \
                const int k_ = r - (m); \
                if (k_ >= 0 && k_ < ntaps) { const pf_float8 w_ = taps[k_]; a0 = a0 + v0 * w_; a1 = a1 + v1 * w_; } \
            } while (0)
            for (int r = 0; r < ntaps + 3; r++) {
                const float *q = rows[j + r] + i;
                const pf_float8 v0 = pf_load8(q), v1 = pf_load8(q + 8);
                PF_CV_TAP(0, s00, s01); PF_CV_TAP(1, s10, s11); PF_CV_TAP(2, s20, s21); PF_CV_TAP(3, s30, s31);
            }
#undef PF_CV_TAP
            pf_store8(dsts[j] + i, s00); pf_store8(dsts[j] + i + 8, s01);
            pf_store8(dsts[j + 1] + i, s10); pf_store8(dsts[j + 1] + i + 8, s11);
            pf_store8(dsts[j + 2] + i, s20); pf_store8(dsts[j + 2] + i + 8, s21);
            pf_store8(dsts[j + 3] + i, s30); pf_store8(dsts[j + 3] + i + 8, s31);
        }
        for (; j < nout; j++) {
            pf_float8 a0 = 0.0f, a1 = 0.0f;
            for (int k = 0; k < ntaps; k++) {
                const pf_float8 w = taps[k];
                const float *q = rows[j + k] + i;
                a0 = a0 + pf_load8(q) * w;
                a1 = a1 + pf_load8(q + 8) * w;
            }
            pf_store8(dsts[j] + i, a0); pf_store8(dsts[j] + i + 8, a1);
        }
    }
    for (int j = 0; j < nout; j++) {
        for (long t = i; t < nfloats; t++) {
            float a = 0.0f;
            for (int k = 0; k < ntaps; k++) a = a + rows[j + k][t] * taps[k];
            dsts[j][t] = a;
        }
    }
}

/* dst[i] = sum_k taps[k] * src[i + 4k] for i in [0, nfloats): the vertical pass over the rows
 * src, src + 4, src + 8, ... (a horizontal tap is one pixel, 4 floats, further along). */
PF_INLINE void pf_correlate_h(const float *src, const float *taps, int ntaps, long nfloats, float *dst) {
#pragma clang fp contract(off)
    enum { batch = 128 };
    const float *rows[batch];
    if (ntaps <= batch) {
        for (int k = 0; k < ntaps; k++) rows[k] = src + 4 * k;
        pf_correlate_v(rows, taps, ntaps, nfloats, dst);
        return;
    }
    /* Longer kernels (more than 128 taps): one float at a time, still summed in order. */
    for (long i = 0; i < nfloats; i++) {
        float a = 0.0f;
        for (int t = 0; t < ntaps; t++) a = a + src[i + 4 * t] * taps[t];
        dst[i] = a;
    }
}

/* The same two, dispatched at run time like pf_point_program_run (CSIMD.c). */
void pf_correlate_h_run(const float *src, const float *taps, int ntaps, long nfloats, float *dst);
void pf_correlate_v_run(const float *const *rows, const float *taps, int ntaps, long nfloats, float *dst);
void pf_correlate_v_block_run(const float *const *rows, const float *taps, int ntaps, long nfloats,
                               float *const *dsts, int nout);

/* Resampling along a row: dst[i] = sum_{k < counts[i]} weights[i * max_taps + k] *
 * src[starts[i] + k] for `n` output pixels (RGBA float pixels; taps summed in order from 0,
 * without contraction, as the Swift loop it replaces). */
PF_INLINE void pf_resample_h(const pf_float4 *src, const long *starts, const long *counts, const float *weights,
                             long max_taps, long n, pf_float4 *dst) {
#pragma clang fp contract(off)
    for (long i = 0; i < n; i++) {
        const pf_float4 *base = src + starts[i];
        const float *w = weights + i * max_taps;
        const long c = counts[i];
        pf_float4 acc = 0.0f;
        for (long k = 0; k < c; k++) acc = acc + base[k] * w[k];
        dst[i] = acc;
    }
}

#endif
