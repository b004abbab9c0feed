/* CSIMD is mostly header-only; this file holds the functions compiled for more than one
 * instruction set, with their run-time dispatch. */
#include "CSIMD.h"

void pf_csimd_anchor(void) {}

static void point_program_baseline(const pf_float4 *src, pf_float4 *dst, long count,
                                   const pf_point_step *steps, int nsteps, int flags) {
    pf_point_program(src, dst, count, steps, nsteps, flags);
}
static void correlate_h_baseline(const float *src, const float *taps, int ntaps, long nfloats, float *dst) {
    pf_correlate_h(src, taps, ntaps, nfloats, dst);
}
static void correlate_v_baseline(const float *const *rows, const float *taps, int ntaps, long nfloats, float *dst) {
    pf_correlate_v(rows, taps, ntaps, nfloats, dst);
}

#if defined(__x86_64__) && defined(__clang__)
#include <cpuid.h>

__attribute__((target("avx2")))
static void point_program_avx2(const pf_float4 *src, pf_float4 *dst, long count,
                               const pf_point_step *steps, int nsteps, int flags) {
    pf_point_program(src, dst, count, steps, nsteps, flags);
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
