#!/usr/bin/env bash
# Counts heap allocations of renders with many and with few tiles, to check that the tile
# loop allocates nothing per tile (Docs/Architecture.md, "The tile loop").
#
#   bash scripts/count_allocations.sh
#
# Builds a small LD_PRELOAD library that counts malloc, calloc, realloc and the aligned
# allocators (forwarding to glibc's __libc_* functions) and exports the count as
# `pf_malloc_count`, then runs PipelineTests.testTheTileLoopAllocatesNoMoreWithMoreTiles from
# the debug test bundle with it preloaded. The test renders a mixed graph with 16x16 and
# 128x128 tiles on one thread, prints both counts and fails when the smaller tiles allocate
# more than a few arena chunks beyond the larger ones. Without the library the test skips.
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat > "$work/count.c" <<'C'
#include <stddef.h>
#include <stdatomic.h>
extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
static atomic_long count;
long pf_malloc_count(void) { return atomic_load(&count); }
void *malloc(size_t n) { atomic_fetch_add(&count, 1); return __libc_malloc(n); }
void *calloc(size_t a, size_t b) { atomic_fetch_add(&count, 1); return __libc_calloc(a, b); }
void *realloc(void *p, size_t n) { atomic_fetch_add(&count, 1); return __libc_realloc(p, n); }
void *memalign(size_t a, size_t n) { atomic_fetch_add(&count, 1); return __libc_memalign(a, n); }
void *aligned_alloc(size_t a, size_t n) { atomic_fetch_add(&count, 1); return __libc_memalign(a, n); }
int posix_memalign(void **r, size_t a, size_t n) {
  atomic_fetch_add(&count, 1);
  *r = __libc_memalign(a, n);
  return *r ? 0 : 12;
}
C
cc -O2 -shared -fPIC -o "$work/libcount.so" "$work/count.c"
swift build --build-tests >/dev/null
bundle=$(find -L .build/debug -maxdepth 1 -name "*PackageTests.xctest" | head -1)
LD_PRELOAD="$work/libcount.so" "$bundle" "PixelFlowTests.PipelineTests/testTheTileLoopAllocatesNoMoreWithMoreTiles" 2>&1 |
  grep -E "allocations per render|error|passed|failed|skipped"
