#ifndef PIXELFLOW_CSIMD_BLEND_H
#define PIXELFLOW_CSIMD_BLEND_H
/* Blends of premultiplied pixels. Part of CSIMD (CSIMD.h includes every part). */
#include "CSIMDCommon.h"
/* No contraction of a * b + c into fused multiply-adds (see CSIMDRowKernels.h). */
#pragma clang fp contract(off)
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

#endif
