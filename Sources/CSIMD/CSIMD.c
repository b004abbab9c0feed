/* CSIMD is mostly header-only; this file holds the functions compiled for more than one
 * instruction set, with their run-time dispatch. */
#include "CSIMD.h"

void pf_csimd_anchor(void) {}

static void point_program_baseline(const pf_float4 *src, pf_float4 *dst, long count,
                                   const pf_point_step *steps, int nsteps, int flags) {
    pf_point_program(src, dst, count, steps, nsteps, flags, 0);
}
static void correlate_h_baseline(const float *src, const float *taps, int ntaps, long nfloats, float *dst) {
    pf_correlate_h(src, taps, ntaps, nfloats, dst);
}
static void correlate_v_baseline(const float *const *rows, const float *taps, int ntaps, long nfloats, float *dst) {
    pf_correlate_v(rows, taps, ntaps, nfloats, dst);
}

#if defined(__x86_64__) && defined(__clang__)
#include <cpuid.h>
#define PF_AVX2_VARIANT(name, params, args) __attribute__((target("avx2"))) static void name##_avx2 params { name args; }
#define PF_AVX2_CALL(name, args) name##_avx2 args

__attribute__((target("avx2")))
static void point_program_avx2(const pf_float4 *src, pf_float4 *dst, long count,
                               const pf_point_step *steps, int nsteps, int flags) {
    pf_point_program(src, dst, count, steps, nsteps, flags, 1);
}

__attribute__((target("avx2")))
static void correlate_h_avx2(const float *src, const float *taps, int ntaps, long nfloats, float *dst) {
    pf_correlate_h(src, taps, ntaps, nfloats, dst);
}
__attribute__((target("avx2")))
static void correlate_v_avx2(const float *const *rows, const float *taps, int ntaps, long nfloats, float *dst) {
    pf_correlate_v(rows, taps, ntaps, nfloats, dst);
}

__attribute__((target("xsave")))
static int detect_avx2(void) {
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d)) return 0;
    const unsigned osxsave = 1u << 27, avx = 1u << 28;
    if ((c & osxsave) == 0 || (c & avx) == 0) return 0;
    /* The OS must save the XMM and YMM registers (XCR0 bits 1 and 2). */
    unsigned long long xcr0 = __builtin_ia32_xgetbv(0);
    if ((xcr0 & 6) != 6) return 0;
    if (__get_cpuid_max(0, 0) < 7) return 0;
    __cpuid_count(7, 0, a, b, c, d);
    return (b & (1u << 5)) != 0;
}

static int avx2_state = -1; /* -1: not yet detected; racing first calls compute the same value */

int pf_csimd_uses_avx2(void) {
    int s = __atomic_load_n(&avx2_state, __ATOMIC_RELAXED);
    if (s < 0) {
        s = detect_avx2();
        __atomic_store_n(&avx2_state, s, __ATOMIC_RELAXED);
    }
    return s;
}

void pf_point_program_run(const pf_float4 *src, pf_float4 *dst, long count,
                          const pf_point_step *steps, int nsteps, int flags) {
    if (pf_csimd_uses_avx2()) point_program_avx2(src, dst, count, steps, nsteps, flags);
    else point_program_baseline(src, dst, count, steps, nsteps, flags);
}

void pf_correlate_h_run(const float *src, const float *taps, int ntaps, long nfloats, float *dst) {
    if (pf_csimd_uses_avx2()) correlate_h_avx2(src, taps, ntaps, nfloats, dst);
    else correlate_h_baseline(src, taps, ntaps, nfloats, dst);
}
void pf_correlate_v_run(const float *const *rows, const float *taps, int ntaps, long nfloats, float *dst) {
    if (pf_csimd_uses_avx2()) correlate_v_avx2(rows, taps, ntaps, nfloats, dst);
    else correlate_v_baseline(rows, taps, ntaps, nfloats, dst);
}
#else
#define PF_AVX2_VARIANT(name, params, args)
#define PF_AVX2_CALL(name, args) name##_baseline args
int pf_csimd_uses_avx2(void) { return 0; }

void pf_correlate_h_run(const float *src, const float *taps, int ntaps, long nfloats, float *dst) {
    correlate_h_baseline(src, taps, ntaps, nfloats, dst);
}
void pf_correlate_v_run(const float *const *rows, const float *taps, int ntaps, long nfloats, float *dst) {
    correlate_v_baseline(rows, taps, ntaps, nfloats, dst);
}

void pf_point_program_run(const pf_float4 *src, pf_float4 *dst, long count,
                          const pf_point_step *steps, int nsteps, int flags) {
    point_program_baseline(src, dst, count, steps, nsteps, flags);
}
#endif

/* In a _run function with its own AVX2 variant: runs `call` (the AVX2 variant) and returns
 * when the processor has AVX2; the code after it is the baseline. */
#if defined(__x86_64__) && defined(__clang__)
#define PF_AVX2_FIRST(call) do { if (pf_csimd_uses_avx2()) { call; return; } } while (0)
#else
#define PF_AVX2_FIRST(call) do { } while (0)
#endif

/* Row kernels from CSIMD.h compiled here, at the C target's optimization level (Swift builds
 * imported inline C for size), for baseline x86-64 and AVX2, dispatched like the others. */
#define PF_DISPATCHED(name, params, args) \
    static void name##_baseline params { name args; } \
    PF_AVX2_VARIANT(name, params, args) \
    void name##_run params { \
        if (pf_csimd_uses_avx2()) PF_AVX2_CALL(name, args); else name##_baseline args; \
    }

PF_DISPATCHED(pf_store_gray8_row, (const pf_float4 *src, unsigned char *dst, long count), (src, dst, count))
PF_DISPATCHED(pf_correlate_v_block, (const float *const *rows, const float *taps, int ntaps, long nfloats,
              float *const *dsts, int nout), (rows, taps, ntaps, nfloats, dsts, nout))
PF_DISPATCHED(pf_affine_bilinear_row, (const pf_float4 *src, long stride, long rx, long ry, long rw, long rh,
              double a, double b, double bx, double by, long x0, long count, pf_float4 *dst),
              (src, stride, rx, ry, rw, rh, a, b, bx, by, x0, count, dst))
PF_DISPATCHED(pf_blend_row, (int op, const pf_float4 *fg, const pf_float4 *bg, pf_float4 *dst, long count, float amount, int stream),
              (op, fg, bg, dst, count, amount, stream))

/* Calls `call`, which names ORDER, with ORDER a constant equal to `order` (PF_ORDER_RGBA for
 * any value other than BGRA and ARGB): each byte order gets its own copy of the inlined
 * kernel, with the order's choices folded away. */
#define PF_WITH_ORDER(order, call) do { \
        switch (order) { \
        case PF_ORDER_BGRA: { enum { ORDER = PF_ORDER_BGRA }; call; break; } \
        case PF_ORDER_ARGB: { enum { ORDER = PF_ORDER_ARGB }; call; break; } \
        default: { enum { ORDER = PF_ORDER_RGBA }; call; break; } \
        } \
    } while (0)
#if defined(__x86_64__) && defined(__clang__)
#include <immintrin.h>
/* A kernel body for the AVX2 variants, inlined into them with a constant order. */
#define PF_AVX2_INLINE static inline __attribute__((always_inline, target("avx2")))
#endif

/* The 4 x 8-bit loads and stores (pf_load_4x8_row and the others of CSIMDRowKernels.h), for
 * every byte order; the rgba8 entry points are the same functions with PF_ORDER_RGBA. */

/* pf_load_4x8_row: the AVX2 variant is the same loop compiled for AVX2. */
static void load_4x8_row_baseline(const unsigned char *src, pf_float4 *dst, long count, int order) {
    PF_WITH_ORDER(order, pf_load_4x8_row(src, dst, count, ORDER));
}
#if defined(__x86_64__) && defined(__clang__)
__attribute__((target("avx2")))
static void load_4x8_row_avx2(const unsigned char *src, pf_float4 *dst, long count, int order) {
    PF_WITH_ORDER(order, pf_load_4x8_row(src, dst, count, ORDER));
}
#endif
/* pf_load_rgba8_row_stream_run: pf_load_rgba8_row with non-temporal stores (the same floats:
 * each byte converted, then multiplied by 1/255), for a large destination written once: it
 * skips reading the destination's cache lines (Evaluator.loadSource, for a large render of an
 * rgba8 source into rgbaF32). The baseline build streams 16 bytes a pixel. */
static void load_rgba8_row_stream_baseline(const unsigned char *src, pf_float4 *dst, long count) {
    const float k = 1.0f / 255.0f;
    for (long i = 0; i < count; i++) {
        pf_u8x4 v;
        __builtin_memcpy(&v, src + 4 * i, 4);
        pf_stream4(dst + i, __builtin_convertvector(v, pf_float4) * k);
    }
}
#if defined(__x86_64__) && defined(__clang__)
/* The AVX2 variant: 8 pixels (32 bytes) widened to four vectors of 8 floats, each stored as
 * 32 bytes once dst is 32-byte aligned (the pixels before that stored plainly). */
__attribute__((target("avx2")))
static void load_rgba8_row_stream_avx2(const unsigned char *src, pf_float4 *dst, long count) {
    const float k = 1.0f / 255.0f;
    typedef unsigned char pf_u8x8 __attribute__((ext_vector_type(8)));
    long i = 0;
    for (; i < count && ((unsigned long)(dst + i) & 31); i++) {
        pf_u8x4 v;
        __builtin_memcpy(&v, src + 4 * i, 4);
        dst[i] = __builtin_convertvector(v, pf_float4) * k;
    }
    for (; i + 8 <= count; i += 8) {
        for (int q = 0; q < 4; q++) {
            pf_u8x8 b;
            __builtin_memcpy(&b, src + 4 * i + 8 * q, 8);
            __builtin_nontemporal_store(__builtin_convertvector(b, pf_float8) * k, (pf_float8 *)(dst + i + 2 * q));
        }
    }
    for (; i < count; i++) {
        pf_u8x4 v;
        __builtin_memcpy(&v, src + 4 * i, 4);
        dst[i] = __builtin_convertvector(v, pf_float4) * k;
    }
}
#endif
void pf_load_rgba8_row_stream_run(const unsigned char *src, pf_float4 *dst, long count) {
    PF_AVX2_FIRST(load_rgba8_row_stream_avx2(src, dst, count));
    load_rgba8_row_stream_baseline(src, dst, count);
}

void pf_load_4x8_row_run(const unsigned char *src, pf_float4 *dst, long count, int order) {
    PF_AVX2_FIRST(load_4x8_row_avx2(src, dst, count, order));
    load_4x8_row_baseline(src, dst, count, order);
}
void pf_load_rgba8_row_run(const unsigned char *src, pf_float4 *dst, long count) {
    pf_load_4x8_row_run(src, dst, count, PF_ORDER_RGBA);
}


/* pf_store_4x8_srgb_row: the baseline build is the scalar loop; the AVX2 one splits 8
 * pixels into channel vectors and gathers each lane's bucket code and the threshold of that
 * code as one 64-bit pair (lanes 0, 1, 4, 5 in one gather and 2, 3, 6, 7 in the other, so
 * that one in-lane shuffle puts the eight thresholds, and another the eight codes, in lane
 * order), with the same comparisons and conversions as pf_srgb_encode8 and pf_quantize8,
 * and packs each pixel's four codes into a 32-bit word at the order's byte positions.
 * Half the gathered elements of a code gather followed by a threshold gather, and no gather
 * waits on another. */
static void store_4x8_srgb_row_baseline(const pf_float4 *src, unsigned char *dst, long count,
                                        const float *thresholds, const unsigned char *buckets, int order) {
    PF_WITH_ORDER(order, pf_store_4x8_srgb_row(src, dst, count, thresholds, buckets, ORDER));
}
#if defined(__x86_64__) && defined(__clang__)
PF_AVX2_INLINE void store_4x8_srgb_row_avx2_body(const pf_float4 *src, unsigned char *dst, long count,
                                                 const float *thresholds, const unsigned char *buckets,
                                                 const unsigned long long *pairs, int order) {
#pragma clang fp contract(off)
    const pf_float8 zero = 0.0f, one = 1.0f, scale = 4096.0f, q255 = 255.0f, half = 0.5f;
    long i = 0;
    for (; i + 8 <= count; i += 8) {
        pf_float8 v[4];
        PF_SPLIT8(src + i, v);
        pf_int8 code[4];
        for (int c = 0; c < 3; c++) {
            pf_int8 pos = v[c] > zero;                       /* false for NaN */
            pf_float8 x = (pf_float8)((pf_int8)v[c] & pos);
            pf_int8 below = x < one;
            x = (pf_float8)(((pf_int8)x & below) | ((pf_int8)one & ~below));
            pf_int8 bucket = __builtin_convertvector(x * scale, pf_int8);
            const pf_int4 lo = __builtin_shufflevector(bucket, bucket, 0, 1, 4, 5);
            const pf_int4 hi = __builtin_shufflevector(bucket, bucket, 2, 3, 6, 7);
            const __m256 pa = (__m256)_mm256_i32gather_epi64((const long long *)pairs, (__m128i)lo, 8);
            const __m256 pb = (__m256)_mm256_i32gather_epi64((const long long *)pairs, (__m128i)hi, 8);
            const pf_float8 t = (pf_float8)_mm256_shuffle_ps(pa, pb, 0x88);   /* low halves: thresholds */
            const pf_int8 kk = (pf_int8)_mm256_shuffle_ps(pa, pb, 0xDD);     /* high halves: codes */
            code[c] = kk - (pf_int8)(x >= t);
        }
        pf_float8 a = v[3] * q255;
        a = a + half;
        pf_int8 keep = a >= zero;
        a = (pf_float8)((pf_int8)a & keep);
        pf_int8 big = a > q255;
        a = (pf_float8)(((pf_int8)a & ~big) | ((pf_int8)q255 & big));
        code[3] = __builtin_convertvector(a, pf_int8);
        typedef unsigned pf_uint8v __attribute__((ext_vector_type(8)));
        /* unsigned: 255 << 24 is defined */
        pf_uint8v packed = ((pf_uint8v)code[0] << (8 * pf_order_byte(order, 0))) |
                           ((pf_uint8v)code[1] << (8 * pf_order_byte(order, 1))) |
                           ((pf_uint8v)code[2] << (8 * pf_order_byte(order, 2))) |
                           ((pf_uint8v)code[3] << (8 * pf_order_byte(order, 3)));
        __builtin_memcpy(dst + 4 * i, &packed, 32);
    }
    pf_store_4x8_srgb_row(src + i, dst + 4 * i, count - i, thresholds, buckets, order);
}
__attribute__((target("avx2")))
static void store_4x8_srgb_row_avx2(const pf_float4 *src, unsigned char *dst, long count,
                                    const float *thresholds, const unsigned char *buckets,
                                    const unsigned long long *pairs, int order) {
    PF_WITH_ORDER(order, store_4x8_srgb_row_avx2_body(src, dst, count, thresholds, buckets, pairs, ORDER));
}
#endif

void pf_store_4x8_srgb_row_run(const pf_float4 *src, unsigned char *dst, long count,
                               const float *thresholds, const unsigned char *buckets,
                               const unsigned long long *pairs, int order) {
    PF_AVX2_FIRST(store_4x8_srgb_row_avx2(src, dst, count, thresholds, buckets, pairs, order));
    store_4x8_srgb_row_baseline(src, dst, count, thresholds, buckets, order);
}
void pf_store_rgba8_srgb_row_run(const pf_float4 *src, unsigned char *dst, long count,
                                 const float *thresholds, const unsigned char *buckets,
                                 const unsigned long long *pairs) {
    pf_store_4x8_srgb_row_run(src, dst, count, thresholds, buckets, pairs, PF_ORDER_RGBA);
}

/* pf_load_4x8_srgb_row: the AVX2 variant reads 8 pixels as 32-bit words, gathers the three
 * colors from the table (each channel's byte taken from its position in the order), converts
 * alpha with the same multiply, and interleaves. */
static void load_4x8_srgb_row_baseline(const unsigned char *src, pf_float4 *dst, long count, const float *table,
                                       int order) {
    PF_WITH_ORDER(order, pf_load_4x8_srgb_row(src, dst, count, table, ORDER));
}
#if defined(__x86_64__) && defined(__clang__)
PF_AVX2_INLINE void load_4x8_srgb_row_avx2_body(const unsigned char *src, pf_float4 *dst, long count,
                                                const float *table, int order) {
#pragma clang fp contract(off)
    typedef unsigned pf_uint8v __attribute__((ext_vector_type(8)));
    const pf_float8 scale = 1.0f / 255.0f;
    long i = 0;
    for (; i + 8 <= count; i += 8) {
        pf_uint8v w;
        __builtin_memcpy(&w, src + 4 * i, 32);
        pf_float8 v[4], o[4];
        for (int c = 0; c < 3; c++) {
            pf_uint8v idx = (w >> (8 * pf_order_byte(order, c))) & 0xFF;
            v[c] = (pf_float8)_mm256_i32gather_ps(table, (__m256i)idx, 4);
        }
        v[3] = __builtin_convertvector((pf_int8)((w >> (8 * pf_order_byte(order, 3))) & 0xFF), pf_float8) * scale;
        PF_MERGE8(v, o);
        PF_STORE8(dst + i, o, 0);
    }
    pf_load_4x8_srgb_row(src + 4 * i, dst + i, count - i, table, order);
}
__attribute__((target("avx2")))
static void load_4x8_srgb_row_avx2(const unsigned char *src, pf_float4 *dst, long count, const float *table,
                                   int order) {
    PF_WITH_ORDER(order, load_4x8_srgb_row_avx2_body(src, dst, count, table, ORDER));
}
#endif

void pf_load_4x8_srgb_row_run(const unsigned char *src, pf_float4 *dst, long count, const float *table, int order) {
    PF_AVX2_FIRST(load_4x8_srgb_row_avx2(src, dst, count, table, order));
    load_4x8_srgb_row_baseline(src, dst, count, table, order);
}
void pf_load_rgba8_srgb_row_run(const unsigned char *src, pf_float4 *dst, long count, const float *table) {
    pf_load_4x8_srgb_row_run(src, dst, count, table, PF_ORDER_RGBA);
}

/* pf_store_4x8_row: the AVX2 variant quantizes the row as a flat array of floats, 32 at a
 * time (8 pixels) with pf_quantize8's steps on 8 lanes: v * 255, + 0.5, then the clamp as
 * vmaxps with 0 (which returns its second operand, 0, for NaN, as pf_quantize8's mask does)
 * and vminps with 255, and truncation. Two signed packs to 16 bits and one unsigned pack to
 * bytes leave the pixels in the order 0 2 4 6 1 3 5 7, which one vpermd puts back; every
 * channel goes through the same operations, so the bytes are the same. Other byte orders
 * move the bytes of each pixel with one byte shuffle (vpshufb). */
static void store_4x8_row_baseline(const pf_float4 *src, unsigned char *dst, long count, int order) {
    PF_WITH_ORDER(order, pf_store_4x8_row(src, dst, count, ORDER));
}
#if defined(__x86_64__) && defined(__clang__)
PF_AVX2_INLINE void store_4x8_row_avx2_body(const pf_float4 *src, unsigned char *dst, long count, int order,
                                             int stream) {
#pragma clang fp contract(off)
    typedef unsigned char pf_u8x32 __attribute__((ext_vector_type(32)));
    const __m256 zero = _mm256_setzero_ps(), q255 = _mm256_set1_ps(255.0f), half = _mm256_set1_ps(0.5f);
    const __m256i pixels = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
    const float *f = (const float *)src;
    long i = 0;
    if (stream) {
        /* Up to 32-byte alignment of dst with the scalar kernel (the same bytes). */
        long lead = (long)((32 - ((unsigned long)dst & 31)) & 31) / 4;
        if ((unsigned long)dst & 3) lead = count;
        if (lead > count) lead = count;
        pf_store_4x8_row(src, dst, lead, order);
        i = lead;
    }
    for (; i + 8 <= count; i += 8) {
        __m256i c[4];
        for (int q = 0; q < 4; q++) {
            __m256 s = _mm256_mul_ps(_mm256_loadu_ps(f + 4 * i + 8 * q), q255);
            s = _mm256_add_ps(s, half);
            s = _mm256_min_ps(_mm256_max_ps(s, zero), q255);
            c[q] = _mm256_cvttps_epi32(s);
        }
        __m256i words = _mm256_packus_epi16(_mm256_packs_epi32(c[0], c[1]), _mm256_packs_epi32(c[2], c[3]));
        pf_u8x32 b = (pf_u8x32)_mm256_permutevar8x32_epi32(words, pixels);
        /* Byte k of a pixel in the order is its RGBA byte of that channel. */
        if (order == PF_ORDER_BGRA) {
            b = __builtin_shufflevector(b, b, 2, 1, 0, 3, 6, 5, 4, 7, 10, 9, 8, 11, 14, 13, 12, 15,
                                        18, 17, 16, 19, 22, 21, 20, 23, 26, 25, 24, 27, 30, 29, 28, 31);
        } else if (order == PF_ORDER_ARGB) {
            b = __builtin_shufflevector(b, b, 3, 0, 1, 2, 7, 4, 5, 6, 11, 8, 9, 10, 15, 12, 13, 14,
                                        19, 16, 17, 18, 23, 20, 21, 22, 27, 24, 25, 26, 31, 28, 29, 30);
        }
        if (stream) __builtin_nontemporal_store(b, (pf_u8x32 *)(dst + 4 * i));
        else __builtin_memcpy(dst + 4 * i, &b, 32);
    }
    pf_store_4x8_row(src + i, dst + 4 * i, count - i, order);
}
__attribute__((target("avx2")))
static void store_4x8_row_avx2(const pf_float4 *src, unsigned char *dst, long count, int order) {
    PF_WITH_ORDER(order, store_4x8_row_avx2_body(src, dst, count, ORDER, 0));
}
__attribute__((target("avx2")))
static void store_rgba8_row_stream_avx2(const pf_float4 *src, unsigned char *dst, long count) {
    store_4x8_row_avx2_body(src, dst, count, PF_ORDER_RGBA, 1);
}
#endif

void pf_store_4x8_row_run(const pf_float4 *src, unsigned char *dst, long count, int order) {
    PF_AVX2_FIRST(store_4x8_row_avx2(src, dst, count, order));
    store_4x8_row_baseline(src, dst, count, order);
}
void pf_store_rgba8_row_run(const pf_float4 *src, unsigned char *dst, long count) {
    pf_store_4x8_row_run(src, dst, count, PF_ORDER_RGBA);
}
/* pf_store_rgba8_row with non-temporal 32-byte stores where AVX2 runs it (the same bytes;
 * the baseline build stores as pf_store_rgba8_row does). */
void pf_store_rgba8_row_stream_run(const pf_float4 *src, unsigned char *dst, long count) {
    PF_AVX2_FIRST(store_rgba8_row_stream_avx2(src, dst, count));
    pf_store_4x8_row(src, dst, count, PF_ORDER_RGBA);
}

/* pf_correlate3x3_row: the AVX2 variant works on the rows as flat arrays of floats, two pixels
 * (8 lanes) at a time: tap i of a lane is 4 * i floats to the right, so each lane sums the
 * nine products in pf_corr3x3_one's order, then adds the bias (same operations per channel;
 * with rgb_only the alpha lanes take the center pixel's alpha). */
#if defined(__x86_64__) && defined(__clang__)
__attribute__((target("avx2")))
static void correlate3x3_row_avx2(const pf_float4 *a, const pf_float4 *b, const pf_float4 *c, const float *weights,
                                  pf_float4 bias, int rgb_only, long count, pf_float4 *dst) {
#pragma clang fp contract(off)
    const float *fa = (const float *)a, *fb = (const float *)b, *fc = (const float *)c;
    float *fd = (float *)dst;
    pf_float8 w[9];
    for (int k = 0; k < 9; k++) w[k] = (pf_float8)weights[k];
    const pf_float8 bias8 = {bias.x, bias.y, bias.z, bias.w, bias.x, bias.y, bias.z, bias.w};
    const pf_int8 alpha = {0, 0, 0, -1, 0, 0, 0, -1};
    long x = 0;
    for (; x + 2 <= count; x += 2) {
        const long k = 4 * x;
        pf_float8 acc = pf_load8(fa + k) * w[0];
        acc = acc + pf_load8(fa + k + 4) * w[1];
        acc = acc + pf_load8(fa + k + 8) * w[2];
        acc = acc + pf_load8(fb + k) * w[3];
        acc = acc + pf_load8(fb + k + 4) * w[4];
        acc = acc + pf_load8(fb + k + 8) * w[5];
        acc = acc + pf_load8(fc + k) * w[6];
        acc = acc + pf_load8(fc + k + 4) * w[7];
        acc = acc + pf_load8(fc + k + 8) * w[8];
        acc = acc + bias8;
        if (rgb_only) acc = (pf_float8)(((pf_int8)acc & ~alpha) | ((pf_int8)pf_load8(fb + k + 4) & alpha));
        pf_store8(fd + k, acc);
    }
    pf_correlate3x3_row(a + x, b + x, c + x, weights, bias, rgb_only, count - x, dst + x);
}
#endif

void pf_correlate3x3_row_run(const pf_float4 *a, const pf_float4 *b, const pf_float4 *c, const float *weights,
                             pf_float4 bias, int rgb_only, long count, pf_float4 *dst) {
    PF_AVX2_FIRST(correlate3x3_row_avx2(a, b, c, weights, bias, rgb_only, count, dst));
    pf_correlate3x3_row(a, b, c, weights, bias, rgb_only, count, dst);
}

/* pf_bilinear_half_rgba8_row: the AVX2 variant makes 4 output pixels from 8 pixels of each
 * row: the even and the odd pixels are split apart as 32-bit words, and every channel goes
 * through pf_load_rgba8_row's conversion and the three interpolations on 16 float lanes (the
 * same operations per channel). */
#if defined(__x86_64__) && defined(__clang__)
__attribute__((target("avx2")))
static void bilinear_half_rgba8_row_avx2(const unsigned char *top, const unsigned char *bottom, long count,
                                         pf_float4 *dst) {
#pragma clang fp contract(off)
    typedef unsigned pf_u32x8 __attribute__((ext_vector_type(8)));
    typedef unsigned pf_u32x4 __attribute__((ext_vector_type(4)));
    typedef unsigned char pf_u8x16v __attribute__((ext_vector_type(16)));
    typedef float pf_float16 __attribute__((ext_vector_type(16)));
    const pf_float16 k = 1.0f / 255.0f, h = 0.5f;
    long i = 0;
    for (; i + 4 <= count; i += 4) {
        pf_u32x8 a, b;
        __builtin_memcpy(&a, top + 8 * i, 32);
        __builtin_memcpy(&b, bottom + 8 * i, 32);
        pf_u32x4 a0 = __builtin_shufflevector(a, a, 0, 2, 4, 6), a1 = __builtin_shufflevector(a, a, 1, 3, 5, 7);
        pf_u32x4 b0 = __builtin_shufflevector(b, b, 0, 2, 4, 6), b1 = __builtin_shufflevector(b, b, 1, 3, 5, 7);
        pf_float16 p0 = __builtin_convertvector((pf_u8x16v)a0, pf_float16) * k;
        pf_float16 p1 = __builtin_convertvector((pf_u8x16v)a1, pf_float16) * k;
        pf_float16 q0 = __builtin_convertvector((pf_u8x16v)b0, pf_float16) * k;
        pf_float16 q1 = __builtin_convertvector((pf_u8x16v)b1, pf_float16) * k;
        pf_float16 t = p0 + (p1 - p0) * h;
        pf_float16 u = q0 + (q1 - q0) * h;
        pf_float16 o = t + (u - t) * h;
        __builtin_memcpy(dst + i, &o, 64);
    }
    pf_bilinear_half_rgba8_row(top + 8 * i, bottom + 8 * i, count - i, dst + i);
}
#endif

void pf_bilinear_half_rgba8_row_run(const unsigned char *top, const unsigned char *bottom, long count, pf_float4 *dst) {
    PF_AVX2_FIRST(bilinear_half_rgba8_row_avx2(top, bottom, count, dst));
    pf_bilinear_half_rgba8_row(top, bottom, count, dst);
}

/* pf_rgba8_to_gray8_row: the AVX2 variant takes 8 pixels as 32-bit words, converts each
 * channel to float and does pf_load_rgba8_row's multiply, pf_premultiply's, the luma sum and
 * pf_quantize8's steps on 8 lanes (the same operations per pixel). */
#if defined(__x86_64__) && defined(__clang__)
__attribute__((target("avx2")))
static void rgba8_to_gray8_row_avx2(const unsigned char *src, unsigned char *dst, long count, int premultiply) {
#pragma clang fp contract(off)
    typedef unsigned pf_uint8v __attribute__((ext_vector_type(8)));
    typedef unsigned char pf_u8x8 __attribute__((ext_vector_type(8)));
    const pf_float8 k = 1.0f / 255.0f, wr = 0.2126f, wg = 0.7152f, wb = 0.0722f;
    const pf_float8 zero = 0.0f, q255 = 255.0f, half = 0.5f;
    long i = 0;
    for (; i + 8 <= count; i += 8) {
        pf_uint8v w;
        __builtin_memcpy(&w, src + 4 * i, 32);
        pf_float8 r = __builtin_convertvector((pf_int8)(w & 0xFF), pf_float8) * k;
        pf_float8 g = __builtin_convertvector((pf_int8)((w >> 8) & 0xFF), pf_float8) * k;
        pf_float8 b = __builtin_convertvector((pf_int8)((w >> 16) & 0xFF), pf_float8) * k;
        if (premultiply) {
            pf_float8 a = __builtin_convertvector((pf_int8)(w >> 24), pf_float8) * k;
            r = r * a; g = g * a; b = b * a;
        }
        pf_float8 l = wr * r + wg * g + wb * b;
        pf_float8 s = l * q255;
        s = s + half;
        pf_int8 keep = s >= zero;
        s = (pf_float8)((pf_int8)s & keep);
        pf_int8 big = s > q255;
        s = (pf_float8)(((pf_int8)s & ~big) | ((pf_int8)q255 & big));
        pf_u8x8 q = __builtin_convertvector(__builtin_convertvector(s, pf_int8), pf_u8x8);
        __builtin_memcpy(dst + i, &q, 8);
    }
    pf_rgba8_to_gray8_row(src + 4 * i, dst + i, count - i, premultiply);
}
#endif

void pf_rgba8_to_gray8_row_run(const unsigned char *src, unsigned char *dst, long count, int premultiply) {
    PF_AVX2_FIRST(rgba8_to_gray8_row_avx2(src, dst, count, premultiply));
    pf_rgba8_to_gray8_row(src, dst, count, premultiply);
}

/* The byte kernels (CSIMDBytesKernels.h) again on 32-byte vectors, compiled for AVX2, and the
 * entry points that choose them for rows of at least 32 bytes (the 16-byte versions' scratch
 * sizes cover both: the 32-byte kernels only use the padded path below 32 bytes, which the
 * dispatch never sends them). */
#if defined(__x86_64__) && defined(__clang__)
#pragma clang attribute push (__attribute__((target("avx2"))), apply_to = function)
typedef unsigned char pf_u8x32 __attribute__((ext_vector_type(32)));
PF_INLINE pf_u8x32 pf_ld32(const pf_u8 *p) { pf_u8x32 v; __builtin_memcpy(&v, p, 32); return v; }
PF_INLINE void pf_st32(pf_u8 *p, pf_u8x32 v) { __builtin_memcpy(p, &v, 32); }
PF_INLINE pf_u8x32 pf_pick32(pf_u8x32 a, pf_u8x32 b, int is_max) {
    return is_max ? __builtin_elementwise_max(a, b) : __builtin_elementwise_min(a, b);
}
#define PF_BV pf_u8x32
#define PF_BW 32
#define PF_LDV(p) pf_ld32(p)
#define PF_STV(p, v) pf_st32(p, v)
#define PF_PICKV(a, b, is_max) pf_pick32(a, b, is_max)
#define PF_BN(name) name##_w32
#include "CSIMDBytesKernels.h"
static void u8_extremum_h_avx2(const pf_u8 *src, pf_u8 *dst, long n, long bpp, int w, int is_max, pf_u8 *scratch) {
    pf_u8_extremum_h_w32(src, dst, n, bpp, w, is_max, scratch);
}
static void u8_extremum_rows_avx2(const pf_u8 *const *rows, int h, pf_u8 *dst, long n, int is_max) {
    pf_u8_extremum_rows_w32(rows, h, dst, n, is_max);
}
static void u8_extremum_rows2_avx2(const pf_u8 *const *rows, int h, pf_u8 *d0, pf_u8 *d1, long n, int is_max) {
    pf_u8_extremum_rows2_w32(rows, h, d0, d1, n, is_max);
}
static void u8_pick_rows_avx2(const pf_u8 *a, const pf_u8 *b, pf_u8 *d, long n, int is_max) {
    pf_u8_pick_rows_w32(a, b, d, n, is_max);
}
static void u8_extremum_v_vanherk_avx2(const pf_u8 *src, long srcStride, long rows, long n, int h,
                                       pf_u8 *dst, long dstStride, pf_u8 *suffix, pf_u8 *prefix, int is_max) {
    pf_u8_extremum_v_vanherk_w32(src, srcStride, rows, n, h, dst, dstStride, suffix, prefix, is_max);
}
static void u8_median3x3_row_avx2(const pf_u8 *const *rows, pf_u8 *dst, long n, long bpp, pf_u8 *scratch) {
    pf_u8_median3x3_row_w32(rows, dst, n, bpp, scratch);
}
static void u8_median5x5_row_avx2(const pf_u8 *const *rows, pf_u8 *dst, long n, long bpp, pf_u8 *scratch) {
    pf_u8_median5x5_row_w32(rows, dst, n, bpp, scratch);
}
#pragma clang attribute pop
#define PF_BYTES_WIDE(n) ((n) >= 32 && pf_csimd_uses_avx2())
#else
#define PF_BYTES_WIDE(n) 0
#define u8_extremum_h_avx2 pf_u8_extremum_h
#define u8_extremum_rows_avx2 pf_u8_extremum_rows
#define u8_pick_rows_avx2 pf_u8_pick_rows
#define u8_extremum_rows2_avx2 pf_u8_extremum_rows2
#define u8_extremum_v_vanherk_avx2 pf_u8_extremum_v_vanherk
#define u8_median3x3_row_avx2 pf_u8_median3x3_row
#define u8_median5x5_row_avx2 pf_u8_median5x5_row
#endif

void pf_u8_extremum_h_run(const pf_u8 *src, pf_u8 *dst, long n, long bpp, int w, int is_max, pf_u8 *scratch) {
    if (PF_BYTES_WIDE(n)) u8_extremum_h_avx2(src, dst, n, bpp, w, is_max, scratch);
    else pf_u8_extremum_h(src, dst, n, bpp, w, is_max, scratch);
}
void pf_u8_extremum_rows_run(const pf_u8 *const *rows, int h, pf_u8 *dst, long n, int is_max) {
    if (PF_BYTES_WIDE(n)) u8_extremum_rows_avx2(rows, h, dst, n, is_max);
    else pf_u8_extremum_rows(rows, h, dst, n, is_max);
}
void pf_u8_extremum_rows2_run(const pf_u8 *const *rows, int h, pf_u8 *d0, pf_u8 *d1, long n, int is_max) {
    if (PF_BYTES_WIDE(n)) u8_extremum_rows2_avx2(rows, h, d0, d1, n, is_max);
    else pf_u8_extremum_rows2(rows, h, d0, d1, n, is_max);
}
void pf_u8_pick_rows_run(const pf_u8 *a, const pf_u8 *b, pf_u8 *d, long n, int is_max) {
    if (PF_BYTES_WIDE(n)) u8_pick_rows_avx2(a, b, d, n, is_max);
    else pf_u8_pick_rows(a, b, d, n, is_max);
}
void pf_u8_extremum_v_vanherk_run(const pf_u8 *src, long srcStride, long rows, long n, int h,
                                  pf_u8 *dst, long dstStride, pf_u8 *suffix, pf_u8 *prefix, int is_max) {
    if (PF_BYTES_WIDE(n)) u8_extremum_v_vanherk_avx2(src, srcStride, rows, n, h, dst, dstStride, suffix, prefix, is_max);
    else pf_u8_extremum_v_vanherk(src, srcStride, rows, n, h, dst, dstStride, suffix, prefix, is_max);
}
void pf_u8_median3x3_row_run(const pf_u8 *const *rows, pf_u8 *dst, long n, long bpp, pf_u8 *scratch) {
    if (PF_BYTES_WIDE(n)) u8_median3x3_row_avx2(rows, dst, n, bpp, scratch);
    else pf_u8_median3x3_row(rows, dst, n, bpp, scratch);
}
void pf_u8_median5x5_row_run(const pf_u8 *const *rows, pf_u8 *dst, long n, long bpp, pf_u8 *scratch) {
    if (PF_BYTES_WIDE(n)) u8_median5x5_row_avx2(rows, dst, n, bpp, scratch);
    else pf_u8_median5x5_row(rows, dst, n, bpp, scratch);
}
