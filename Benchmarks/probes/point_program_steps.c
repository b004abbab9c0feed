/* What each step of a point program costs, on one 256-pixel chunk in the L1 cache.
 *
 *   clang -O2 -ISources/CSIMD/include Benchmarks/probes/point_program_steps.c Sources/CSIMD/CSIMD.c \
 *       -o /tmp/steps-probe && /tmp/steps-probe
 *
 * A = a 3x3 color matrix with bias (alpha kept), G = gamma 0.75 (two square roots a channel).
 * chain5 runs as A G A (the optimizer folds invert and color controls into the first matrix,
 * sepia and exposure into the second). Best of 40 runs of 10000 passes over the chunk. */
#include "CSIMD.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec * 1e-9; }

int main(void) {
    enum { N = 256 };
    pf_float4 *src = aligned_alloc(4096, 65536), *dst = src + N + 32; /* apart by more than 4 KiB */
    srand(1);
    for (int i = 0; i < N; i++)
        src[i] = (pf_float4){rand() / (float)RAND_MAX, rand() / (float)RAND_MAX, rand() / (float)RAND_MAX, 1};
    pf_point_step a, g;
    memset(&a, 0, sizeof a);
    memset(&g, 0, sizeof g);
    const float m[16] = {0.5f, 0.25f, 0.2f, 0, 0.2f, 0.5f, 0.25f, 0, 0.25f, 0.2f, 0.5f, 0, 0, 0, 0, 1};
    memcpy(a.m, m, sizeof m);
    a.bias[0] = 0.01f;
    a.alpha_fixed = 1;
    a.rgb_only = 1;
    g.kind = PF_STEP_GAMMA;
    g.rest = 3;
    const struct { const char *name; pf_point_step steps[3]; int count; } programs[] = {
        {"A", {a}, 1}, {"A A", {a, a}, 2}, {"A A A", {a, a, a}, 3}, {"G", {g}, 1},
        {"A G", {a, g}, 2}, {"G A", {g, a}, 2}, {"A G A", {a, g, a}, 3}, {"G G", {g, g}, 2},
    };
    for (int p = 0; p < 8; p++) {
        double best = 1e9;
        for (int r = 0; r < 40; r++) {
            double t0 = now();
            for (int k = 0; k < 10000; k++)
                pf_point_program_run(src, dst, N, programs[p].steps, programs[p].count, PF_PROGRAM_ZERO_TRANSPARENT);
            double t = now() - t0;
            if (t < best) best = t;
        }
        printf("%-6s %6.0f MPix/s  %.2f ns/pixel\n", programs[p].name, 10000.0 * N / best / 1e6, best / (10000.0 * N) * 1e9);
    }
    return 0;
}
