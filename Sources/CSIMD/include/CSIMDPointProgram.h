#ifndef PIXELFLOW_CSIMD_POINT_PROGRAM_H
#define PIXELFLOW_CSIMD_POINT_PROGRAM_H
/* Point programs: fused chains of color steps run channel by channel (pf_point_program). Part of CSIMD (CSIMD.h includes every part). */
#include "CSIMDCommon.h"
/* ---- Point programs: a fused chain of color steps run channel by channel ---------------
 * Blocks of 8 interleaved RGBA float pixels are split into R, G, B and A vectors of 8 lanes
 * (two SSE vectors, or one AVX vector in the AVX2 variant), go through every step in
 * registers, and are interleaved back into the destination. Per pixel this does the
 * arithmetic once per channel instead of once per vector lane, and loads and stores each
 * pixel once for the whole chain. Each step does exactly the operations, in the same order,
 * of the interleaved Swift kernels (colorMatrixRow, pf_gamma_quarters, pf_unpremultiply,
 * pf_premultiply, pf_zero_unless_positive_alpha), so results are bit-identical to them;
 * contraction into fused multiply-adds is disabled to keep it so. */
typedef float pf_float8 __attribute__((ext_vector_type(8)));
typedef int pf_int8 __attribute__((ext_vector_type(8)));

enum { PF_STEP_AFFINE = 0, PF_STEP_GAMMA = 1 };
/* One step. AFFINE: out_c = m[4c]*r + m[4c+1]*g + m[4c+2]*b + m[4c+3]*a + bias[c], in that
 * order; with alpha_fixed, the alpha row is (0, 0, 0, 1) and bias[3] is 0, so alpha is
 * unchanged and not computed; rgb_only (set with alpha_fixed when m[3], m[7] and m[11] are 0)
 * skips the alpha column too. GAMMA: rgb = sign(rgb) * |rgb|^(whole + rest/4), inverted
 * (1 / x) when `invert`, alpha unchanged. */
typedef struct {
    int kind;
    int whole, rest, invert;
    int alpha_fixed;
    int rgb_only;
    float m[16];
    float bias[4];
} pf_point_step;

enum {
    PF_PROGRAM_UNPREMULTIPLY_INPUT = 1,  /* the input is premultiplied: unpremultiply first */
    PF_PROGRAM_PREMULTIPLY_OUTPUT = 2,   /* premultiply the result */
    PF_PROGRAM_ZERO_TRANSPARENT = 4,     /* else: pixels whose alpha is not > 0 become 0 */
    PF_PROGRAM_STREAM = 8                /* store non-temporally (dst 16-byte aligned) */
};
/* Pixels per call the evaluator passes for input it loads first (a chunk that stays in the L1
 * cache); input read in place goes a row per call. */
#define PF_PROGRAM_MAX 256

/* Plane access by 8 lanes (macros: an 8-float vector passed by value would change the ABI
 * of a function on targets without AVX; these are always expanded inline). */
typedef float pf_float8_unaligned __attribute__((ext_vector_type(8), aligned(4), may_alias));
#define pf_load8(p) (*(const pf_float8_unaligned *)(p))
#define pf_store8(p, v) (*(pf_float8_unaligned *)(p) = (v))

/* The steps' arithmetic on one block of 8 pixels held in the pf_float8 lvalues r, g, b, a
 * (macros, expanded inline in the block loop). */
#define PF_BLOCK_UNPREMULTIPLY(r, g, b, a) do { \
        pf_int8 keep_ = (a) > zero; \
        pf_int8 scale_ = ((a) != one) & keep_; \
        pf_float8 q_ = one / (a); \
        pf_float8 s_ = (pf_float8)(((pf_int8)q_ & scale_) | ((pf_int8)one & ~scale_)); \
        r = (pf_float8)((pf_int8)((r) * s_) & keep_); \
        g = (pf_float8)((pf_int8)((g) * s_) & keep_); \
        b = (pf_float8)((pf_int8)((b) * s_) & keep_); \
        a = (pf_float8)((pf_int8)((a) * one) & keep_); \
    } while (0)
/* Alpha neither changes nor feeds the colors (most color adjustments): the zero alpha
 * column is skipped (only a -0 color or an infinite alpha could tell the difference). With
 * alpha_fixed alpha is not computed: for an infinite color the interleaved kernel gives
 * alpha 0 * inf = NaN, the program keeps alpha. */
#define PF_BLOCK_AFFINE3(r, g, b) do { \
        pf_float8 r2_ = (pf_float8)m[0] * (r) + (pf_float8)m[1] * (g) + (pf_float8)m[2] * (b) + (pf_float8)st->bias[0]; \
        pf_float8 g2_ = (pf_float8)m[4] * (r) + (pf_float8)m[5] * (g) + (pf_float8)m[6] * (b) + (pf_float8)st->bias[1]; \
        pf_float8 b2_ = (pf_float8)m[8] * (r) + (pf_float8)m[9] * (g) + (pf_float8)m[10] * (b) + (pf_float8)st->bias[2]; \
        r = r2_; g = g2_; b = b2_; \
    } while (0)
#define PF_BLOCK_AFFINE4(r, g, b, a) do { \
        pf_float8 r2_ = (pf_float8)m[0] * (r) + (pf_float8)m[1] * (g) + (pf_float8)m[2] * (b) + (pf_float8)m[3] * (a) + (pf_float8)st->bias[0]; \
        pf_float8 g2_ = (pf_float8)m[4] * (r) + (pf_float8)m[5] * (g) + (pf_float8)m[6] * (b) + (pf_float8)m[7] * (a) + (pf_float8)st->bias[1]; \
        pf_float8 b2_ = (pf_float8)m[8] * (r) + (pf_float8)m[9] * (g) + (pf_float8)m[10] * (b) + (pf_float8)m[11] * (a) + (pf_float8)st->bias[2]; \
        if (!st->alpha_fixed) \
            a = (pf_float8)m[12] * (r) + (pf_float8)m[13] * (g) + (pf_float8)m[14] * (b) + (pf_float8)m[15] * (a) + (pf_float8)st->bias[3]; \
        r = r2_; g = g2_; b = b2_; \
    } while (0)
#define PF_BLOCK_GAMMA(v) do { \
        pf_int8 vb_ = (pf_int8)(v); \
        pf_float8 x_ = (pf_float8)(vb_ & 0x7FFFFFFF); \
        pf_float8 y_ = one; \
        for (int w_ = 0; w_ < whole; w_++) y_ = y_ * x_; \
        if (rest) { \
            pf_float8 q_ = __builtin_elementwise_sqrt(x_); \
            if (rest >= 2) y_ = y_ * q_; \
            if (rest & 1) y_ = y_ * __builtin_elementwise_sqrt(q_); \
        } \
        if (inv) y_ = one / y_; \
        v = (pf_float8)((pf_int8)y_ | (vb_ & sign)); \
    } while (0)
#define PF_BLOCK_FINISH(r, g, b, a) do { \
        if (flags & PF_PROGRAM_PREMULTIPLY_OUTPUT) { \
            r = (r) * (a); g = (g) * (a); b = (b) * (a); a = (a) * one; \
        } else if (flags & PF_PROGRAM_ZERO_TRANSPARENT) { \
            pf_int8 keep_ = (a) > zero; \
            r = (pf_float8)((pf_int8)(r) & keep_); g = (pf_float8)((pf_int8)(g) & keep_); \
            b = (pf_float8)((pf_int8)(b) & keep_); a = (pf_float8)((pf_int8)(a) & keep_); \
        } \
    } while (0)

/* A 4x4 transpose inside each 16-byte half of the 8-lane vectors i0..i3, into o[0..3] (no
 * shuffle crosses halves). It is its own inverse: it turns pixels into channel vectors and
 * channel vectors back into pixels. */
#define PF_TRANSPOSE_HALVES(i0, i1, i2, i3, o) do { \
        pf_float8 t0_ = __builtin_shufflevector(i0, i1, 0, 8, 1, 9, 4, 12, 5, 13); \
        pf_float8 t1_ = __builtin_shufflevector(i0, i1, 2, 10, 3, 11, 6, 14, 7, 15); \
        pf_float8 t2_ = __builtin_shufflevector(i2, i3, 0, 8, 1, 9, 4, 12, 5, 13); \
        pf_float8 t3_ = __builtin_shufflevector(i2, i3, 2, 10, 3, 11, 6, 14, 7, 15); \
        (o)[0] = __builtin_shufflevector(t0_, t2_, 0, 1, 8, 9, 4, 5, 12, 13); \
        (o)[1] = __builtin_shufflevector(t0_, t2_, 2, 3, 10, 11, 6, 7, 14, 15); \
        (o)[2] = __builtin_shufflevector(t1_, t3_, 0, 1, 8, 9, 4, 5, 12, 13); \
        (o)[3] = __builtin_shufflevector(t1_, t3_, 2, 3, 10, 11, 6, 7, 14, 15); \
    } while (0)
/* Splits 8 interleaved pixels at `s` into R, G, B, A vectors at v[0..3]: pixels i and i + 4
 * share a vector (one 16-byte load and one 16-byte insert), and the transpose inside each half
 * leaves the lanes in pixel order. */
#define PF_SPLIT8(s, v) do { \
        pf_float8 a0_ = __builtin_shufflevector((s)[0], (s)[4], 0, 1, 2, 3, 4, 5, 6, 7); \
        pf_float8 a1_ = __builtin_shufflevector((s)[1], (s)[5], 0, 1, 2, 3, 4, 5, 6, 7); \
        pf_float8 a2_ = __builtin_shufflevector((s)[2], (s)[6], 0, 1, 2, 3, 4, 5, 6, 7); \
        pf_float8 a3_ = __builtin_shufflevector((s)[3], (s)[7], 0, 1, 2, 3, 4, 5, 6, 7); \
        PF_TRANSPOSE_HALVES(a0_, a1_, a2_, a3_, v); \
    } while (0)
/* Interleaves R, G, B, A vectors at v[0..3] into o[0..3], where o[i] holds pixels i (low
 * half) and i + 4 (high half): the inverse of PF_SPLIT8. */
#define PF_MERGE8(v, o) PF_TRANSPOSE_HALVES((v)[0], (v)[1], (v)[2], (v)[3], o)
/* Stores the 8 pixels of o[0..3] (PF_MERGE8's layout) at d, non-temporally when `stream`. */
#define PF_STORE8(d, o, stream) do { \
        if (stream) { \
            for (int q_ = 0; q_ < 4; q_++) { \
                __builtin_nontemporal_store((o)[q_].lo, (d) + q_); \
                __builtin_nontemporal_store((o)[q_].hi, (d) + q_ + 4); \
            } \
        } else { \
            for (int q_ = 0; q_ < 4; q_++) { (d)[q_] = (o)[q_].lo; (d)[q_ + 4] = (o)[q_].hi; } \
        } \
    } while (0)

/* The point program's own layout, which needs no lane order: block q of 8 pixels is loaded
 * as four 32-byte vectors (pixels 2q and 2q + 1 each), and the transpose inside each half
 * gives channel vectors whose lanes hold pixels 0, 2, 4, 6 | 1, 3, 5, 7. The same permutation
 * for every channel keeps each pixel's channels together; merging (the same transpose)
 * restores pixel order, so the block is stored with four 32-byte stores (no 16-byte inserts
 * or extracts: measured 1.3x faster for one color matrix at 3840x2160). */
#define PF_SPLIT8_PAIRS(s, v) do { \
        const float *f_ = (const float *)(s); \
        pf_float8 i0_ = pf_load8(f_), i1_ = pf_load8(f_ + 8), i2_ = pf_load8(f_ + 16), i3_ = pf_load8(f_ + 24); \
        PF_TRANSPOSE_HALVES(i0_, i1_, i2_, i3_, v); \
    } while (0)
/* Stores the merged block o[0..3] (pixels 2q, 2q + 1 in o[q]) at d; non-temporally when
 * `stream`, which needs d 32-byte aligned. */
#define PF_STORE8_PAIRS(d, o, stream) do { \
        float *f_ = (float *)(d); \
        if (stream) { \
            for (int q_ = 0; q_ < 4; q_++) __builtin_nontemporal_store((o)[q_], (pf_float8 *)(f_ + 8 * q_)); \
        } else { \
            for (int q_ = 0; q_ < 4; q_++) pf_store8(f_ + 8 * q_, (o)[q_]); \
        } \
    } while (0)
/* Loads block `i_` (pixels i_ ..< i_ + 8, zeros past `count`) into channel vectors; `full_`
 * (a constant) when the block is known to be whole. */
#define PF_PROGRAM_LOAD(i_, full_, r, g, b, a) do { \
        pf_float4 tail_[8]; \
        const pf_float4 *s_ = src + (i_); \
        if (!(full_) && (i_) + 8 > count) { \
            for (long j_ = 0; j_ < 8; j_++) tail_[j_] = (i_) + j_ < count ? src[(i_) + j_] : (pf_float4)0.0f; \
            s_ = tail_; \
        } \
        pf_float8 v_[4]; \
        PF_SPLIT8_PAIRS(s_, v_); \
        r = v_[0]; g = v_[1]; b = v_[2]; a = v_[3]; \
        if (flags & PF_PROGRAM_UNPREMULTIPLY_INPUT) PF_BLOCK_UNPREMULTIPLY(r, g, b, a); \
    } while (0)
/* Runs steps [k0, k1) on one block. */
#define PF_PROGRAM_STEPS(k0, k1, r, g, b, a) do { \
        for (int k_ = (k0); k_ < (k1); k_++) { \
            const pf_point_step *st = steps + k_; \
            if (st->kind == PF_STEP_AFFINE) { \
                const float *m = st->m; \
                if (st->rgb_only) PF_BLOCK_AFFINE3(r, g, b); \
                else PF_BLOCK_AFFINE4(r, g, b, a); \
            } else { \
                const int whole = st->whole, rest = st->rest, inv = st->invert; \
                PF_BLOCK_GAMMA(r); PF_BLOCK_GAMMA(g); PF_BLOCK_GAMMA(b); \
            } \
        } \
    } while (0)
/* Runs steps [k0, k1), all color matrices, on one block. */
#define PF_PROGRAM_AFFINES(k0, k1, r, g, b, a) do { \
        for (int k_ = (k0); k_ < (k1); k_++) { \
            const pf_point_step *st = steps + k_; \
            const float *m = st->m; \
            if (st->rgb_only) PF_BLOCK_AFFINE3(r, g, b); \
            else PF_BLOCK_AFFINE4(r, g, b, a); \
        } \
    } while (0)
/* Finishes block `i_` and stores its pixels below `count`; `full_` as for PF_PROGRAM_LOAD. */
#define PF_PROGRAM_STORE(i_, full_, r, g, b, a) do { \
        PF_BLOCK_FINISH(r, g, b, a); \
        pf_float8 v_[4] = {r, g, b, a}, o_[4]; \
        PF_MERGE8(v_, o_); \
        if ((full_) || (i_) + 8 <= count) { \
            PF_STORE8_PAIRS(dst + (i_), o_, stream); \
        } else { \
            pf_float4 out_[8] = {o_[0].lo, o_[0].hi, o_[1].lo, o_[1].hi, o_[2].lo, o_[2].hi, o_[3].lo, o_[3].hi}; \
            for (long j_ = 0; (i_) + j_ < count; j_++) dst[(i_) + j_] = out_[j_]; \
        } \
    } while (0)
/* Gamma split in two at its first square root (the operations of PF_BLOCK_GAMMA in its order,
 * with `whole` and `rest` constants and no inversion): q = sqrt(|v|) first, the rest later. */
#define PF_GAMMA_ROOT(v, q) do { q = __builtin_elementwise_sqrt((pf_float8)((pf_int8)(v) & 0x7FFFFFFF)); } while (0)
#define PF_GAMMA_REST(v, q) do { \
        pf_int8 vb_ = (pf_int8)(v); \
        pf_float8 x_ = (pf_float8)(vb_ & 0x7FFFFFFF); \
        pf_float8 y_ = one; \
        for (int w_ = 0; w_ < whole; w_++) y_ = y_ * x_; \
        if (rest >= 2) y_ = y_ * (q); \
        if (rest & 1) y_ = y_ * __builtin_elementwise_sqrt(q); \
        v = (pf_float8)((pf_int8)y_ | (vb_ & sign)); \
    } while (0)

/* The step of a program that the pipelined loop splits at, or -1: programs with exactly one
 * gamma step, whose power is whole + rest / 4 with whole 0 or 1 and rest 1 to 3, not
 * inverted (any color matrices before and after it). */
PF_INLINE int pf_point_program_pivot(const pf_point_step *steps, int nsteps) {
    int pivot = -1;
    for (int k = 0; k < nsteps; k++) {
        if (steps[k].kind != PF_STEP_GAMMA) continue;
        const pf_point_step *st = steps + k;
        if (pivot >= 0 || st->rest < 1 || st->rest > 3 || st->whole < 0 || st->whole > 1 || st->invert) return -1;
        pivot = k;
    }
    return pivot;
}

/* Runs the steps over `count` pixels from `src` into `dst` (which may be `src`), one block of
 * 8 pixels at a time: the block is split into R, G, B and A vectors, goes through every step
 * in registers, and is interleaved back. One block per iteration keeps every value in a
 * register (two blocks per iteration spilled and measured 10% slower). */
PF_INLINE void pf_point_program_blocks(const pf_float4 *src, pf_float4 *dst, long count,
                                       const pf_point_step *steps, int nsteps, int flags) {
#pragma clang fp contract(off)
    const int stream = flags & PF_PROGRAM_STREAM;
    const pf_float8 one = 1.0f, zero = 0.0f;
    const pf_int8 sign = (pf_int8)(int)0x80000000;
    for (long i = 0; i < count; i += 8) {
        pf_float8 r, g, b, a;
        PF_PROGRAM_LOAD(i, 0, r, g, b, a);
        PF_PROGRAM_STEPS(0, nsteps, r, g, b, a);
        PF_PROGRAM_STORE(i, 0, r, g, b, a);
    }
}

/* The same operations for a program with one gamma step at `pivot`, software-pipelined in
 * three stages: each iteration loads block i and runs it to the gamma's first square roots,
 * finishes the gamma of block i - 8, and runs the steps after the gamma on block i - 16 and
 * stores it. In the plain loop each block is one chain of dependent operations about 75
 * cycles long (two square roots in a row in the middle), and the out-of-order window holds
 * under two blocks, so the matrices waited for the square roots instead of overlapping them;
 * with the stages interleaved the three parts of an iteration are independent (measured
 * 1.3x faster for chain5). Needs registers for three blocks: used by the AVX2 variant only. */
PF_INLINE void pf_point_program_pipelined(const pf_float4 *src, pf_float4 *dst, long count,
                                          const pf_point_step *steps, int nsteps, int pivot, int flags,
                                          const int whole, const int rest) {
#pragma clang fp contract(off)
    const int stream = flags & PF_PROGRAM_STREAM;
    const pf_float8 one = 1.0f, zero = 0.0f;
    const pf_int8 sign = (pf_int8)(int)0x80000000;
    const long blocks = (count + 7) / 8;
    /* Block k - 1 after its square roots (r1..a1, q), block k - 2 after its gamma (r2..a2). */
    pf_float8 r1 = zero, g1 = zero, b1 = zero, a1 = zero, qr = zero, qg = zero, qb = zero;
    pf_float8 r2 = zero, g2 = zero, b2 = zero, a2 = zero;
#define PF_STAGE1(k, full) do { \
        PF_PROGRAM_LOAD(8 * (k), full, r0, g0, b0, a0); \
        PF_PROGRAM_AFFINES(0, pivot, r0, g0, b0, a0); \
        PF_GAMMA_ROOT(r0, sr); PF_GAMMA_ROOT(g0, sg); PF_GAMMA_ROOT(b0, sb); \
    } while (0)
#define PF_STAGE2() do { PF_GAMMA_REST(r1, qr); PF_GAMMA_REST(g1, qg); PF_GAMMA_REST(b1, qb); } while (0)
#define PF_STAGE3(k, full) do { \
        PF_PROGRAM_AFFINES(pivot + 1, nsteps, r2, g2, b2, a2); \
        PF_PROGRAM_STORE(8 * (k), full, r2, g2, b2, a2); \
    } while (0)
#define PF_SHIFT() do { \
        r2 = r1; g2 = g1; b2 = b1; a2 = a1; \
        r1 = r0; g1 = g0; b1 = b0; a1 = a0; qr = sr; qg = sg; qb = sb; \
    } while (0)
    pf_float8 r0 = zero, g0 = zero, b0 = zero, a0 = zero, sr = zero, sg = zero, sb = zero;
    const long full = count / 8;
    for (long k = 0; k < blocks + 2;) {
        if (k >= 2 && k < full) {
            /* Every block in flight is whole: no checks. */
            for (; k < full; k++) {
                PF_STAGE1(k, 1);
                PF_STAGE2();
                PF_STAGE3(k - 2, 1);
                PF_SHIFT();
            }
            continue;
        }
        /* Filling and draining the pipeline, and the partial block. */
        if (k < blocks) PF_STAGE1(k, 0);
        if (k >= 1 && k <= blocks) PF_STAGE2();
        if (k >= 2) PF_STAGE3(k - 2, 0);
        PF_SHIFT();
        k++;
    }
#undef PF_STAGE1
#undef PF_STAGE2
#undef PF_STAGE3
#undef PF_SHIFT
}

/* Runs a point program (see pf_point_program_blocks); `pipelined` chooses the pipelined
 * loop for programs it applies to. A non-temporal destination that is not 32-byte aligned
 * gets its first pixel stored plainly. Every pixel goes through the same operations in any
 * lane of any block, so the results do not depend on the loop or the alignment. */
PF_INLINE void pf_point_program(const pf_float4 *src, pf_float4 *dst, long count,
                                const pf_point_step *steps, int nsteps, int flags, int pipelined) {
    if (count <= 0) return;
    if ((flags & PF_PROGRAM_STREAM) && ((unsigned long)dst & 31)) {
        pf_point_program_blocks(src, dst, 1, steps, nsteps, flags & ~PF_PROGRAM_STREAM);
        src++; dst++; count--;
    }
    const int pivot = pipelined ? pf_point_program_pivot(steps, nsteps) : -1;
    if (pivot < 0) {
        pf_point_program_blocks(src, dst, count, steps, nsteps, flags);
        return;
    }
    /* The power and the flags other than PF_PROGRAM_STREAM as constants in each of the 24
     * instantiations below: branches on them inside the loop cost 40% (measured). */
    const int unpremultiply = (flags & PF_PROGRAM_UNPREMULTIPLY_INPUT) != 0;
    const int finish = flags & PF_PROGRAM_PREMULTIPLY_OUTPUT ? 1 : flags & PF_PROGRAM_ZERO_TRANSPARENT ? 2 : 0;
    const int stream = flags & PF_PROGRAM_STREAM;
    if (finish == 0) {
        pf_point_program_blocks(src, dst, count, steps, nsteps, flags);
        return;
    }
    const int power = 4 * steps[pivot].whole + steps[pivot].rest;
#define PF_PIPELINED(u_, f_, w_, r_) case 64 * u_ + 16 * f_ + 4 * w_ + r_: \
        pf_point_program_pipelined(src, dst, count, steps, nsteps, pivot, \
            (u_ ? PF_PROGRAM_UNPREMULTIPLY_INPUT : 0) | (f_ == 1 ? PF_PROGRAM_PREMULTIPLY_OUTPUT : PF_PROGRAM_ZERO_TRANSPARENT) | stream, \
            w_, r_); break;
#define PF_PIPELINED6(u_, f_) PF_PIPELINED(u_, f_, 0, 1) PF_PIPELINED(u_, f_, 0, 2) PF_PIPELINED(u_, f_, 0, 3) \
                              PF_PIPELINED(u_, f_, 1, 1) PF_PIPELINED(u_, f_, 1, 2) PF_PIPELINED(u_, f_, 1, 3)
    switch (64 * unpremultiply + 16 * finish + power) {
    PF_PIPELINED6(0, 1) PF_PIPELINED6(0, 2) PF_PIPELINED6(1, 1) PF_PIPELINED6(1, 2)
    }
#undef PF_PIPELINED6
#undef PF_PIPELINED
}

/* pf_point_program compiled twice, for the baseline target and for AVX2 (chosen once at run
 * time from CPUID when the processor and OS support it). Both variants do the same IEEE
 * operations in the same order without contraction, so results do not depend on which runs.
 * Defined in CSIMD.c. */
void pf_point_program_run(const pf_float4 *src, pf_float4 *dst, long count,
                          const pf_point_step *steps, int nsteps, int flags);
/* 1 when pf_point_program_run uses its AVX2 variant on this machine, else 0. */
int pf_csimd_uses_avx2(void);

#endif
