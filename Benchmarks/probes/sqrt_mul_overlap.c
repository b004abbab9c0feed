/* Does this core overlap square roots with multiplies and additions?
 *
 *   clang -O2 Benchmarks/probes/sqrt_mul_overlap.c -o /tmp/sqrt-probe && /tmp/sqrt-probe
 *
 * One loop iteration issues the arithmetic of chain5 on 8 pixels (Docs/Performance.md,
 * "Engine figures"): 6 square roots (vsqrtps ymm: gamma 0.75 on three channels), 20 multiplies
 * and 18 additions (two 3x3 matrices with bias and the gamma products), spread over enough
 * independent register chains that latency does not limit the loop. When the three kinds
 * use separate execution resources, all of them together cost what the square roots alone
 * cost. Times are ns per iteration (per 8 pixels), best of 5 runs. */
#include <immintrin.h>
#include <stdio.h>
#include <time.h>

static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec * 1e-9; }
#define N 5000000L

#define SQ s0 = _mm256_sqrt_ps(s0); s1 = _mm256_sqrt_ps(s1); s2 = _mm256_sqrt_ps(s2); \
           s3 = _mm256_sqrt_ps(s3); s4 = _mm256_sqrt_ps(s4); s5 = _mm256_sqrt_ps(s5);
#define MU m0 = _mm256_mul_ps(m0, k); m1 = _mm256_mul_ps(m1, k); m2 = _mm256_mul_ps(m2, k); m3 = _mm256_mul_ps(m3, k);
#define AD a0 = _mm256_add_ps(a0, c); a1 = _mm256_add_ps(a1, c); a2 = _mm256_add_ps(a2, c);
#define PROBE(name, code) \
    __attribute__((target("avx2"), noinline)) static float name(void) { \
        __m256 s0 = _mm256_set1_ps(2), s1 = _mm256_set1_ps(3), s2 = _mm256_set1_ps(4); \
        __m256 s3 = _mm256_set1_ps(5), s4 = _mm256_set1_ps(6), s5 = _mm256_set1_ps(7); \
        __m256 m0 = _mm256_set1_ps(1), m1 = _mm256_set1_ps(2), m2 = _mm256_set1_ps(3), m3 = _mm256_set1_ps(4); \
        __m256 a0 = m0, a1 = m1, a2 = m2, k = _mm256_set1_ps(0.9999999f), c = _mm256_set1_ps(1e-7f); \
        for (long i = 0; i < N; i++) { \
            code \
            __asm__ volatile("" : "+x"(s0), "+x"(s1), "+x"(s2), "+x"(s3), "+x"(s4), "+x"(s5)); \
        } \
        __m256 r = s0 + s1 + s2 + s3 + s4 + s5 + m0 + m1 + m2 + m3 + a0 + a1 + a2; \
        return r[0]; \
    }
PROBE(sqrts, SQ)
PROBE(muls, MU MU MU MU MU)
PROBE(adds, AD AD AD AD AD AD)
PROBE(muls_adds, MU MU MU MU MU AD AD AD AD AD AD)
PROBE(sqrts_muls, SQ MU MU MU MU MU)
PROBE(sqrts_adds, SQ AD AD AD AD AD AD)
PROBE(all, SQ MU MU MU MU MU AD AD AD AD AD AD)

int main(void) {
    const struct { const char *name; float (*run)(void); } cases[] = {
        {"6 sqrt", sqrts}, {"20 mul", muls}, {"18 add", adds}, {"20 mul + 18 add", muls_adds},
        {"6 sqrt + 20 mul", sqrts_muls}, {"6 sqrt + 18 add", sqrts_adds}, {"6 sqrt + 20 mul + 18 add", all},
    };
    float sink = 0;
    for (int i = 0; i < 7; i++) {
        double best = 1e9;
        for (int r = 0; r < 5; r++) {
            double t0 = now();
            sink += cases[i].run();
            double t = now() - t0;
            if (t < best) best = t;
        }
        printf("%-26s %.2f ns per iteration\n", cases[i].name, best / N * 1e9);
    }
    return sink == 12345.0f;
}
