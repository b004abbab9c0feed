#ifndef PIXELFLOW_CSIMD_H
#define PIXELFLOW_CSIMD_H
/*
 * Vector operations that Swift's generic SIMD types do not lower to vector instructions on
 * Linux (measured: SIMD4<Float>.squareRoot() became four scalar square roots, and
 * float-to-int conversions a per-lane loop). Clang's element-wise builtins on
 * ext_vector_type values, which Swift imports as SIMD4<Float> and SIMD4<Int32>, compile to
 * single instructions on every target (sqrtps, minps, cvttps2dq, ...). Header-only: the
 * functions are always inlined into the Swift kernels that call them.
 */
typedef float pf_float4 __attribute__((ext_vector_type(4)));
typedef int pf_int4 __attribute__((ext_vector_type(4)));

#define PF_INLINE static inline __attribute__((always_inline))

/* Square root of each lane (correctly rounded). */
PF_INLINE pf_float4 pf_sqrt4(pf_float4 v) { return __builtin_elementwise_sqrt(v); }
/* Lane-wise minimum and maximum (for NaN lanes, the other operand). */
PF_INLINE pf_float4 pf_min4(pf_float4 a, pf_float4 b) { return __builtin_elementwise_min(a, b); }
PF_INLINE pf_float4 pf_max4(pf_float4 a, pf_float4 b) { return __builtin_elementwise_max(a, b); }
/* Float to int32, rounding toward zero; lanes must be in int32 range and not NaN. */
PF_INLINE pf_int4 pf_trunc_to_int4(pf_float4 v) { return __builtin_convertvector(v, pf_int4); }
/* Int32 to float, lane-wise. */
PF_INLINE pf_float4 pf_int_to_float4(pf_int4 v) { return __builtin_convertvector(v, pf_float4); }
/* Floor of each lane. */
PF_INLINE pf_float4 pf_floor4(pf_float4 v) { return __builtin_elementwise_floor(v); }

/* Stores a vector without bringing its cache line in (non-temporal): for output that is
 * written once and not read again soon. Call pf_store_fence() before other threads read it. */
PF_INLINE void pf_stream4(pf_float4 *p, pf_float4 v) { __builtin_nontemporal_store(v, p); }
/* Orders earlier non-temporal stores before later memory operations. */
PF_INLINE void pf_store_fence(void) { __atomic_thread_fence(__ATOMIC_SEQ_CST); }

/* Core Image's gamma for powers that are multiples of 1/4 (|power| = whole + rest / 4):
 * rgb = sign(rgb) * |rgb|^power through square roots and multiplies, alpha unchanged, in
 * place over `count` pixels. Bit operations keep sign and alpha (Swift's lane assignment and
 * replace(with:where:) became scalar code here). */
PF_INLINE void pf_gamma_quarters(pf_float4 *p, long count, int whole, int rest, int invert) {
    const pf_int4 sign = (pf_int4)(int)0x80000000;
    const pf_int4 color = {-1, -1, -1, 0};
    for (long i = 0; i < count; i++) {
        pf_float4 v = p[i];
        pf_int4 vb = (pf_int4)v;
        pf_float4 a = (pf_float4)(vb & 0x7FFFFFFF);
        pf_float4 r = 1.0f;
        for (int k = 0; k < whole; k++) r = r * a;
        if (rest) {
            pf_float4 s = __builtin_elementwise_sqrt(a);
            if (rest >= 2) r = r * s;
            if (rest & 1) r = r * __builtin_elementwise_sqrt(s);
        }
        if (invert) r = 1.0f / r;
        pf_int4 rb = (((pf_int4)r | (vb & sign)) & color) | (vb & ~color);
        p[i] = (pf_float4)rb;
    }
}

/* 8-bit block statistics for local thresholding (the QR binarizer): the sum, minimum and
 * maximum of an 8-pixel-wide block of `rows` rows, `stride` bytes apart. Unaligned loads. */
typedef unsigned char pf_u8x8 __attribute__((ext_vector_type(8)));
typedef unsigned short pf_u16x8 __attribute__((ext_vector_type(8)));
PF_INLINE void pf_block8_stats(const unsigned char *p, long stride, int rows,
                               unsigned int *sum, unsigned char *lo, unsigned char *hi) {
    pf_u16x8 s = 0;
    pf_u8x8 mn = 255, mx = 0;
    for (int y = 0; y < rows; y++) {
        pf_u8x8 v;
        __builtin_memcpy(&v, p + y * stride, 8);
        s += __builtin_convertvector(v, pf_u16x8);
        mn = __builtin_elementwise_min(mn, v);
        mx = __builtin_elementwise_max(mx, v);
    }
    *sum = __builtin_reduce_add(__builtin_convertvector(s, unsigned int __attribute__((ext_vector_type(8)))));
    *lo = __builtin_reduce_min(mn);
    *hi = __builtin_reduce_max(mx);
}
/* dst[i] = src[i] <= threshold ? 1 : 0 for 8 pixels in each of `rows` rows. */
PF_INLINE void pf_threshold8(const unsigned char *src, unsigned char *dst, long stride, int rows,
                             unsigned char threshold) {
    for (int y = 0; y < rows; y++) {
        pf_u8x8 v;
        __builtin_memcpy(&v, src + y * stride, 8);
        pf_u8x8 r = (pf_u8x8)(v <= threshold) & (pf_u8x8)1;
        __builtin_memcpy(dst + y * stride, &r, 8);
    }
}

/* Straight-alpha helpers over `count` RGBA float pixels, in place, branch-free so that they
 * stay vector code. pf_zero_unless_positive_alpha: pixels whose alpha is not > 0 (zero,
 * negative or NaN) become (0, 0, 0, 0), as premultiplying and unpremultiplying would make
 * them. pf_unpremultiply: rgb /= alpha (as rgb * (1 / alpha), alpha kept) where alpha > 0
 * and alpha != 1; other pixels with alpha > 0 are unchanged; the rest become zero.
 * pf_premultiply: rgb *= alpha, alpha kept. */
PF_INLINE void pf_zero_unless_positive_alpha(pf_float4 *p, long count) {
    for (long i = 0; i < count; i++) {
        pf_float4 v = p[i];
        pf_float4 a = v.wwww;
        pf_int4 keep = a > 0.0f;
        p[i] = (pf_float4)((pf_int4)v & keep);
    }
}
PF_INLINE void pf_unpremultiply(pf_float4 *p, long count) {
    const pf_float4 one = 1.0f;
    for (long i = 0; i < count; i++) {
        pf_float4 v = p[i];
        pf_float4 a = v.wwww;
        pf_int4 keep = a > 0.0f;
        pf_int4 scale = (a != one) & keep;
        pf_float4 r = one / a;
        r.w = 1.0f;
        pf_float4 s = (pf_float4)(((pf_int4)r & scale) | ((pf_int4)one & ~scale));
        p[i] = (pf_float4)((pf_int4)(v * s) & keep);
    }
}
PF_INLINE void pf_premultiply(pf_float4 *p, long count) {
    for (long i = 0; i < count; i++) {
        pf_float4 v = p[i];
        pf_float4 a = v.wwww;
        a.w = 1.0f;
        p[i] = v * a;
    }
}

/* dst[i] = src[i] for `count` pixels with non-temporal stores (dst 16-byte aligned): the
 * last step of a fused chain whose output is not read again during the render. */
PF_INLINE void pf_stream_copy4(pf_float4 *dst, const pf_float4 *src, long count) {
    for (long i = 0; i < count; i++) __builtin_nontemporal_store(src[i], dst + i);
}

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

/* ---- Row kernels whose exact rounding matters. Contraction of a * b + c into a fused
 * multiply-add is turned off below, so a build with FMA enabled rounds exactly as the
 * default build and as the Swift reference code (which never contracts). ---- */
#pragma clang fp contract(off)

typedef unsigned char pf_u8x4 __attribute__((ext_vector_type(4)));

/* 8-bit RGBA to float: dst[i] = src[i] * (1/255) per channel (the same float constant and
 * the same single rounding as PixelFlow's Swift loader). */
PF_INLINE void pf_load_rgba8_row(const unsigned char *src, pf_float4 *dst, long count) {
    const float k = 1.0f / 255.0f;
    for (long i = 0; i < count; i++) {
        pf_u8x4 v;
        __builtin_memcpy(&v, src + 4 * i, 4);
        dst[i] = __builtin_convertvector(v, pf_float4) * k;
    }
}

/* One pixel of pf_store_rgba8_row. */
PF_INLINE pf_u8x4 pf_quantize8(pf_float4 v) {
    pf_float4 s = v * 255.0f;
    s = s + 0.5f;
    pf_int4 keep = s >= 0.0f;                 /* false for NaN and negatives */
    s = (pf_float4)((pf_int4)s & keep);
    pf_int4 big = s > 255.0f;
    s = (pf_float4)(((pf_int4)s & ~big) | ((pf_int4)(pf_float4)255.0f & big));
    return __builtin_convertvector(__builtin_convertvector(s, pf_int4), pf_u8x4);
}

/* Float RGBA to 8 bits: clamp(floor(v * 255 + 0.5), 0, 255) per channel (round half up,
 * two roundings: the product, then the sum), NaN stores 0. Exactly PixelBuffer._quantize8. */
PF_INLINE void pf_store_rgba8_row(const pf_float4 *src, unsigned char *dst, long count) {
    long i = 0;
    for (; i + 4 <= count; i += 4) {
        pf_u8x4 q0 = pf_quantize8(src[i]), q1 = pf_quantize8(src[i + 1]);
        pf_u8x4 q2 = pf_quantize8(src[i + 2]), q3 = pf_quantize8(src[i + 3]);
        __builtin_memcpy(dst + 4 * i, &q0, 4);
        __builtin_memcpy(dst + 4 * i + 4, &q1, 4);
        __builtin_memcpy(dst + 4 * i + 8, &q2, 4);
        __builtin_memcpy(dst + 4 * i + 12, &q3, 4);
    }
    for (; i < count; i++) {
        pf_u8x4 q = pf_quantize8(src[i]);
        __builtin_memcpy(dst + 4 * i, &q, 4);
    }
}

/* 3x3 correlation of one row: dst[x] = sum over j, i (row-major) of w[3j+i] * row_j[x+i],
 * then + bias, where a, b, c point at the left ends of the three window rows. Every output
 * sums its nine products in that order with separate roundings (no fused multiply-add), so
 * it equals the scalar loop exactly. With rgb_only, alpha is copied from the center pixel. */
PF_INLINE pf_float4 pf_corr3x3_one(const pf_float4 *a, const pf_float4 *b, const pf_float4 *c, long x,
                                   const pf_float4 w[9], pf_float4 bias) {
    pf_float4 acc = a[x] * w[0];
    acc = acc + a[x + 1] * w[1];
    acc = acc + a[x + 2] * w[2];
    acc = acc + b[x] * w[3];
    acc = acc + b[x + 1] * w[4];
    acc = acc + b[x + 2] * w[5];
    acc = acc + c[x] * w[6];
    acc = acc + c[x + 1] * w[7];
    acc = acc + c[x + 2] * w[8];
    return acc + bias;
}

PF_INLINE void pf_correlate3x3_row(const pf_float4 *a, const pf_float4 *b, const pf_float4 *c,
                                   const float *weights, pf_float4 bias, int rgb_only, long count,
                                   pf_float4 *dst) {
    pf_float4 w[9];
    for (int k = 0; k < 9; k++) w[k] = (pf_float4)weights[k];
    long x = 0;
    if (rgb_only) {
        for (; x < count; x++) {
            pf_float4 o = pf_corr3x3_one(a, b, c, x, w, bias);
            o.w = b[x + 1].w;
            dst[x] = o;
        }
        return;
    }
    for (; x + 2 <= count; x += 2) {
        pf_float4 o0 = pf_corr3x3_one(a, b, c, x, w, bias);
        pf_float4 o1 = pf_corr3x3_one(a, b, c, x + 1, w, bias);
        dst[x] = o0;
        dst[x + 1] = o1;
    }
    for (; x < count; x++) dst[x] = pf_corr3x3_one(a, b, c, x, w, bias);
}

/* Bilinear samples of one output row of a pure-scale warp, where both taps of every sample
 * lie inside the two source rows `top` and `bottom`: for each i, with j = index[i] and
 * wx = weight[i], t = top[j] + (top[j+1] - top[j]) * wx, b likewise on `bottom`, and
 * dst[i] = t + (b - t) * wy: the operations, order and roundings of PixelFlow's
 * bilinearSample, so the results are identical. */
PF_INLINE void pf_bilinear_row(const pf_float4 *top, const pf_float4 *bottom, const long *index,
                               const float *weight, float wy, long count, pf_float4 *dst) {
    for (long i = 0; i < count; i++) {
        long j = index[i];
        float wx = weight[i];
        pf_float4 p0 = top[j], p1 = top[j + 1], q0 = bottom[j], q1 = bottom[j + 1];
        pf_float4 t = p0 + (p1 - p0) * wx;
        pf_float4 b = q0 + (q1 - q0) * wx;
        dst[i] = t + (b - t) * wy;
    }
}

/* pf_bilinear_row for the exact half-size case: index[i] = 2i, every weight 0.5 (each
 * output is the mean of a 2x2 block, computed with the same operations as above). */
PF_INLINE void pf_bilinear_half_row(const pf_float4 *top, const pf_float4 *bottom, long count,
                                    pf_float4 *dst) {
    const float h = 0.5f;
    for (long i = 0; i < count; i++) {
        pf_float4 p0 = top[2 * i], p1 = top[2 * i + 1], q0 = bottom[2 * i], q1 = bottom[2 * i + 1];
        pf_float4 t = p0 + (p1 - p0) * h;
        pf_float4 b = q0 + (q1 - q0) * h;
        dst[i] = t + (b - t) * h;
    }
}

/* pf_bilinear_half_row on 8-bit rows: each pixel converted as pf_load_rgba8_row does, then
 * the same operations as pf_bilinear_half_row (identical results, without the float rows). */
PF_INLINE void pf_bilinear_half_rgba8_row(const unsigned char *top, const unsigned char *bottom, long count,
                                          pf_float4 *dst) {
    const float k = 1.0f / 255.0f, h = 0.5f;
    for (long i = 0; i < count; i++) {
        pf_u8x4 a0, a1, b0, b1;
        __builtin_memcpy(&a0, top + 8 * i, 4);
        __builtin_memcpy(&a1, top + 8 * i + 4, 4);
        __builtin_memcpy(&b0, bottom + 8 * i, 4);
        __builtin_memcpy(&b1, bottom + 8 * i + 4, 4);
        pf_float4 p0 = __builtin_convertvector(a0, pf_float4) * k, p1 = __builtin_convertvector(a1, pf_float4) * k;
        pf_float4 q0 = __builtin_convertvector(b0, pf_float4) * k, q1 = __builtin_convertvector(b1, pf_float4) * k;
        pf_float4 t = p0 + (p1 - p0) * h;
        pf_float4 b = q0 + (q1 - q0) * h;
        dst[i] = t + (b - t) * h;
    }
}

#pragma clang fp contract(on)

/* Rec. 709 luma of float RGBA quantized to 8 bits: dst[i] = quantize8(0.2126 r + 0.7152 g +
 * 0.0722 b), summed left to right without contraction and rounded as pf_quantize8; exactly
 * PixelBuffer._luma then _quantize8. Four pixels per step. */
PF_INLINE void pf_store_gray8_row(const pf_float4 *src, unsigned char *dst, long count) {
#pragma clang fp contract(off)
    const pf_float4 wr = 0.2126f, wg = 0.7152f, wb = 0.0722f;
    long i = 0;
    for (; i + 4 <= count; i += 4) {
        pf_float4 p0 = src[i], p1 = src[i + 1], p2 = src[i + 2], p3 = src[i + 3];
        pf_float4 t0 = __builtin_shufflevector(p0, p1, 0, 4, 1, 5);  /* x0 x1 y0 y1 */
        pf_float4 t1 = __builtin_shufflevector(p2, p3, 0, 4, 1, 5);  /* x2 x3 y2 y3 */
        pf_float4 t2 = __builtin_shufflevector(p0, p1, 2, 6, 3, 7);  /* z0 z1 w0 w1 */
        pf_float4 t3 = __builtin_shufflevector(p2, p3, 2, 6, 3, 7);
        pf_float4 x = __builtin_shufflevector(t0, t1, 0, 1, 4, 5);
        pf_float4 y = __builtin_shufflevector(t0, t1, 2, 3, 6, 7);
        pf_float4 z = __builtin_shufflevector(t2, t3, 0, 1, 4, 5);
        pf_float4 l = wr * x + wg * y + wb * z;
        pf_u8x4 q = pf_quantize8(l);
        __builtin_memcpy(dst + i, &q, 4);
    }
    for (; i < count; i++) {
        pf_float4 v = src[i];
        float l = 0.2126f * v.x + 0.7152f * v.y + 0.0722f * v.z;
        dst[i] = pf_quantize8((pf_float4)l).x;
    }
}
/* RGBA8 to gray8 without a float row: each pixel converted as pf_load_rgba8_row does (then
 * premultiplied as pf_premultiply when `premultiply`), and its luma quantized as
 * pf_store_gray8_row: the same operations in the same order, so the same bytes as loading the
 * row to floats and storing it gray. */
PF_INLINE void pf_rgba8_to_gray8_row(const unsigned char *src, unsigned char *dst, long count, int premultiply) {
#pragma clang fp contract(off)
    const float k = 1.0f / 255.0f;
    for (long i = 0; i < count; i++) {
        pf_u8x4 v;
        __builtin_memcpy(&v, src + 4 * i, 4);
        pf_float4 p = __builtin_convertvector(v, pf_float4) * k;
        if (premultiply) {
            pf_float4 a = p.wwww;
            a.w = 1.0f;
            p = p * a;
        }
        float l = 0.2126f * p.x + 0.7152f * p.y + 0.0722f * p.z;
        dst[i] = pf_quantize8((pf_float4)l).x;
    }
}

/* All alpha bytes (every fourth byte, from byte 3) of `count` RGBA8 pixels are 255. */
PF_INLINE int pf_rgba8_all_opaque(const unsigned char *p, long count) {
    typedef unsigned char u8x16 __attribute__((ext_vector_type(16)));
    long n = count * 4, i = 0;
    u8x16 acc = 255;
    for (; i + 16 <= n; i += 16) { u8x16 v; __builtin_memcpy(&v, p + i, 16); acc &= v; }
    unsigned char a = acc[3] & acc[7] & acc[11] & acc[15];
    for (; i < n; i += 4) a &= p[i + 3];
    return a == 255;
}

/* 8-bit sRGB RGBA to float: colors through the 256-entry decode table, alpha as a * (1/255)
 * (exactly loadRowRGBA's 8-bit sRGB path). */
PF_INLINE void pf_load_rgba8_srgb_row(const unsigned char *src, pf_float4 *dst, long count, const float *table) {
    for (long i = 0; i < count; i++) {
        const unsigned char *p = src + 4 * i;
        dst[i] = (pf_float4){table[p[0]], table[p[1]], table[p[2]], (float)p[3] * (1.0f / 255.0f)};
    }
}

/* A linear value to its 8-bit sRGB code, exactly SRGB._encode8: NaN and values <= 0 give 0,
 * values >= 1 give 255, others the code of their bucket in the 4096-bucket index, plus one
 * when they reach the next code's threshold. `buckets` holds 4097 codes,
 * `thresholds` 256 values. */
PF_INLINE unsigned pf_srgb_encode8(float v, const float *thresholds, const unsigned char *buckets) {
    float x = v > 0.0f ? v : 0.0f;
    x = x < 1.0f ? x : 1.0f;
    int k = buckets[(int)(x * 4096.0f)];
    return (unsigned)(k + (x >= thresholds[k]));
}

/* Float RGBA in linear light to 8-bit sRGB: colors through pf_srgb_encode8, alpha through
 * pf_quantize8 (exactly storeRowRGBA's 8-bit sRGB path). */
PF_INLINE void pf_store_rgba8_srgb_row(const pf_float4 *src, unsigned char *dst, long count,
                                       const float *thresholds, const unsigned char *buckets) {
    for (long i = 0; i < count; i++) {
        pf_float4 v = src[i];
        pf_u8x4 q = pf_quantize8(v);
        dst[4 * i] = (unsigned char)pf_srgb_encode8(v.x, thresholds, buckets);
        dst[4 * i + 1] = (unsigned char)pf_srgb_encode8(v.y, thresholds, buckets);
        dst[4 * i + 2] = (unsigned char)pf_srgb_encode8(v.z, thresholds, buckets);
        dst[4 * i + 3] = q.w;
    }
}

/* ---- Affine warp, bilinear ----------------------------------------------------------
 * Output pixels x0 ..< x0 + count of a row whose centers map to source positions
 * (a * cx + bx, b * cx + by) with cx = x0 + i + 0.5 (the caller folds the row's y into bx
 * and by). The source is the rect (rx, ry, rw, rh), `src` pointing at its first pixel,
 * rows `stride` pixels apart; samples outside it are transparent. Per pixel, in double:
 * f = position - 0.5, zero unless rx - 1 < fx < rx + rw and ry - 1 < fy < ry + rh, taps at
 * floor(f) and floor(f) + 1, weights (float)(f - floor(f)); then in float
 * top = p00 + (p10 - p00) * wx, bottom likewise, out = top + (bottom - top) * wy. These are
 * the operations of the scalar reference (no contraction), so the same bits; coordinates
 * are computed four pixels at a time. */
typedef double pf_double4 __attribute__((ext_vector_type(4)));
PF_INLINE pf_float4 pf_bilinear_tap(const pf_float4 *src, long stride, long rx, long ry, long rw, long rh,
                                    long ix, long iy, float wx, float wy) {
#pragma clang fp contract(off)
    pf_float4 p00, p10, p01, p11;
    if (ix >= rx && ix + 1 < rx + rw && iy >= ry && iy + 1 < ry + rh) {
        const pf_float4 *p = src + (iy - ry) * stride + (ix - rx);
        p00 = p[0]; p10 = p[1]; p01 = p[stride]; p11 = p[stride + 1];
    } else {
        const pf_float4 z = 0.0f;
#define PF_TAP(x_, y_) (((x_) >= rx && (x_) < rx + rw && (y_) >= ry && (y_) < ry + rh) ? src[((y_) - ry) * stride + ((x_) - rx)] : z)
        p00 = PF_TAP(ix, iy); p10 = PF_TAP(ix + 1, iy); p01 = PF_TAP(ix, iy + 1); p11 = PF_TAP(ix + 1, iy + 1);
#undef PF_TAP
    }
    pf_float4 top = p00 + (p10 - p00) * wx;
    pf_float4 bottom = p01 + (p11 - p01) * wx;
    return top + (bottom - top) * wy;
}
PF_INLINE void pf_affine_bilinear_row(const pf_float4 *src, long stride, long rx, long ry, long rw, long rh,
                                      double a, double b, double bx, double by, long x0, long count, pf_float4 *dst) {
#pragma clang fp contract(off)
    const double xlo = (double)(rx - 1), xhi = (double)(rx + rw), ylo = (double)(ry - 1), yhi = (double)(ry + rh);
    for (long i = 0; i < count; i += 4) {
        const pf_double4 cx = (pf_double4){(double)(x0 + i), (double)(x0 + i + 1), (double)(x0 + i + 2), (double)(x0 + i + 3)} + 0.5;
        const pf_double4 fx = (a * cx + bx) - 0.5, fy = (b * cx + by) - 0.5;
        const pf_double4 flx = __builtin_elementwise_floor(fx), fly = __builtin_elementwise_floor(fy);
        const pf_float4 wx = __builtin_convertvector(fx - flx, pf_float4), wy = __builtin_convertvector(fy - fly, pf_float4);
        const long n = count - i < 4 ? count - i : 4;
        for (long k = 0; k < n; k++) {
            const double x = fx[k], y = fy[k];
            if (x > xlo && x < xhi && y > ylo && y < yhi)
                dst[i + k] = pf_bilinear_tap(src, stride, rx, ry, rw, rh, (long)flx[k], (long)fly[k], wx[k], wy[k]);
            else
                dst[i + k] = (pf_float4)0.0f;
        }
    }
}

/* ---- Blends of premultiplied pixels ---------------------------------------------------
 * dst[i] = fg[i] (op) bg[i] for `count` pixels, two pixels per 8-lane vector, with the
 * operations of the W3C / Porter-Duff formulas in this order (no contraction):
 *   SOURCE_OVER  fg + bg * (1 - fg.a)
 *   SOURCE_ATOP  rgb = fg.rgb * bg.a + bg.rgb * (1 - fg.a), a = bg.a
 *   MIX          bg * (1 - amount) + fg * amount
 * The same operations for a pixel in any lane, so results do not depend on the pairing or on
 * alignment. `dst` may be `fg` or `bg`; other overlaps are not allowed. With `stream`, stores
 * are non-temporal (dst 16-byte aligned; a dst that is not 32-byte aligned gets its first
 * pixel stored alone). */
enum { PF_BLEND_SOURCE_OVER = 0, PF_BLEND_SOURCE_ATOP = 1, PF_BLEND_MIX = 2 };
#define PF_BLEND_W4(v) __builtin_shufflevector(v, v, 3, 3, 3, 3)
#define PF_BLEND_W8(v) __builtin_shufflevector(v, v, 3, 3, 3, 3, 7, 7, 7, 7)
/* One loop per operator: PAIR(f, b) on pf_float8 pairs, ONE(f, b) on single pixels. */
#define PF_BLEND_LOOP(PAIR, ONE) do { \
        long i_ = 0; \
        if (stream && ((unsigned long)dst & 31) && count > 0) { \
            pf_float4 f_ = fg[0], b_ = bg[0]; \
            __builtin_nontemporal_store(ONE(f_, b_), dst); \
            i_ = 1; \
        } \
        for (; i_ + 2 <= count; i_ += 2) { \
            pf_float8 f_ = pf_load8(fg + i_), b_ = pf_load8(bg + i_); \
            pf_float8 o_ = PAIR(f_, b_); \
            if (stream) __builtin_nontemporal_store(o_, (pf_float8 *)(dst + i_)); \
            else pf_store8(dst + i_, o_); \
        } \
        if (i_ < count) { \
            pf_float4 f_ = fg[i_], b_ = bg[i_]; \
            pf_float4 o_ = ONE(f_, b_); \
            if (stream) __builtin_nontemporal_store(o_, dst + i_); \
            else dst[i_] = o_; \
        } \
    } while (0)
PF_INLINE void pf_blend_row(int op, const pf_float4 *fg, const pf_float4 *bg, pf_float4 *dst, long count,
                            float amount, int stream) {
#pragma clang fp contract(off)
    const float keep = 1.0f - amount;
#define PF_OVER8(f, b) ((f) + (b) * (1.0f - PF_BLEND_W8(f)))
#define PF_OVER4(f, b) ((f) + (b) * (1.0f - PF_BLEND_W4(f)))
#define PF_ATOP8(f, b) __builtin_shufflevector((f) * PF_BLEND_W8(b) + (b) * (1.0f - PF_BLEND_W8(f)), b, 0, 1, 2, 11, 4, 5, 6, 15)
#define PF_ATOP4(f, b) __builtin_shufflevector((f) * PF_BLEND_W4(b) + (b) * (1.0f - PF_BLEND_W4(f)), b, 0, 1, 2, 7)
#define PF_MIX8(f, b) ((b) * keep + (f) * amount)
#define PF_MIX4(f, b) ((b) * keep + (f) * amount)
    switch (op) {
    case PF_BLEND_SOURCE_OVER: PF_BLEND_LOOP(PF_OVER8, PF_OVER4); break;
    case PF_BLEND_SOURCE_ATOP: PF_BLEND_LOOP(PF_ATOP8, PF_ATOP4); break;
    default: PF_BLEND_LOOP(PF_MIX8, PF_MIX4); break;
    }
#undef PF_OVER8
#undef PF_OVER4
#undef PF_ATOP8
#undef PF_ATOP4
#undef PF_MIX8
#undef PF_MIX4
}
#undef PF_BLEND_LOOP
#undef PF_BLEND_W4
#undef PF_BLEND_W8

/* Exact 8-bit morphology and median kernels (the byte path). */
/* The row kernels above compiled in CSIMD.c for baseline x86-64 and AVX2 and dispatched at run
 * time (same results: no contraction, the same operations). */
void pf_load_rgba8_row_run(const unsigned char *src, pf_float4 *dst, long count);
void pf_store_rgba8_row_run(const pf_float4 *src, unsigned char *dst, long count);
void pf_store_gray8_row_run(const pf_float4 *src, unsigned char *dst, long count);
/* pf_bilinear_half_rgba8_row, 4 output pixels at a time with AVX2 where the processor has it
 * (same results). */
void pf_bilinear_half_rgba8_row_run(const unsigned char *top, const unsigned char *bottom, long count, pf_float4 *dst);
/* pf_rgba8_to_gray8_row, 8 pixels at a time with AVX2 where the processor has it (same bytes). */
void pf_rgba8_to_gray8_row_run(const unsigned char *src, unsigned char *dst, long count, int premultiply);
/* pf_load_rgba8_srgb_row; the AVX2 variant gathers 8 pixels' colors from the table at a time. */
void pf_load_rgba8_srgb_row_run(const unsigned char *src, pf_float4 *dst, long count, const float *table);
/* pf_store_rgba8_srgb_row; the AVX2 variant looks the codes up 8 pixels at a time in `pairs`
 * (4097 entries: bucket i's code buckets[i] in the high 32 bits and thresholds[buckets[i]]'s
 * bits in the low 32), one 64-bit gather per 4 lanes, and makes the same comparison, so the
 * same bytes. */
void pf_store_rgba8_srgb_row_run(const pf_float4 *src, unsigned char *dst, long count,
                                 const float *thresholds, const unsigned char *buckets,
                                 const unsigned long long *pairs);
/* pf_affine_bilinear_row (the AVX2 variant rounds and converts coordinates in 4-lane vectors). */
void pf_affine_bilinear_row_run(const pf_float4 *src, long stride, long rx, long ry, long rw, long rh,
                                double a, double b, double bx, double by, long x0, long count, pf_float4 *dst);
/* pf_blend_row (its AVX2 variant takes two pixels per 32-byte vector). */
void pf_blend_row_run(int op, const pf_float4 *fg, const pf_float4 *bg, pf_float4 *dst, long count,
                      float amount, int stream);
void pf_correlate3x3_row_run(const pf_float4 *a, const pf_float4 *b, const pf_float4 *c, const float *weights,
                             pf_float4 bias, int rgb_only, long count, pf_float4 *dst);

#include "CSIMDBytes.h"

#endif
