/* Does this core overlap square roots with multiplies, and with additions?
 *
 *   clang -O2 Benchmarks/probes/sqrt_mul_overlap.c -o /tmp/sqrt-probe && /tmp/sqrt-probe
 *
 * Each loop iteration issues 4 independent 8-lane square roots (vsqrtps ymm; every chain
 * depends on its own result from two iterations back, so latency does not limit it), and/or 6
 * independent 8-lane multiplies or additions. When the multiplies share an execution pipe
 * with the square roots, "sqrt + mul" costs more than "sqrt" alone; additions on other pipes
 * add nothing. This is the arithmetic floor of chain5 (Docs/Performance.md, "Engine figures"):
 * per 8 pixels, 6 square roots (gamma 0.75 on three channels) and 21 multiplies (two 3x3
 * matrices and the gamma products). Times are ns per iteration, best of 5 runs. */
#include <immintrin.h>
#include <stdio.h>
#include <time.h>

static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec * 1e-9; }
#define N 20000000L

__attribute__((target("avx2"), noinline)) static float run(int sqrts, int muls, int adds) {
    __m256 s[8];
    for (int j = 0; j < 8; j++) s[j] = _mm256_set1_ps(1.5f + j);
    __m256 m[6], k = _mm256_set1_ps(0.9999999f);
    for (int j = 0; j < 6; j++) m[j] = _mm256_set1_ps(1.0f + j);
    for (long i = 0; i < N; i++) {
        if (sqrts) for (int j = 0; j < 4; j++) s[(i & 1) * 4 + j] = _mm256_sqrt_ps(s[(i & 1) * 4 + j]);
        if (muls) for (int j = 0; j < 6; j++) m[j] = _mm256_mul_ps(m[j], k);
        if (adds) for (int j = 0; j < 6; j++) m[j] = _mm256_add_ps(m[j], k);
    }
    __m256 r = m[0];
    for (int j = 1; j < 6; j++) r = _mm256_add_ps(r, m[j]);
    for (int j = 0; j < 8; j++) r = _mm256_add_ps(r, s[j]);
    return r[0];
}

int main(void) {
    const struct { const char *name; int s, m, a; } cases[] = {
        {"4 sqrt", 1, 0, 0}, {"6 mul", 0, 1, 0}, {"6 add", 0, 0, 1},
        {"4 sqrt + 6 mul", 1, 1, 0}, {"4 sqrt + 6 add", 1, 0, 1},
    };
    float sink = 0;
    for (int c = 0; c < 5; c++) {
        double best = 1e9;
        for (int r = 0; r < 5; r++) {
            double t0 = now();
            sink += run(cases[c].s, cases[c].m, cases[c].a);
            double t = now() - t0;
            if (t < best) best = t;
        }
        printf("%-16s %.2f ns per iteration\n", cases[c].name, best / N * 1e9);
    }
    return sink == 12345.0f;
}
