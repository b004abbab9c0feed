#!/usr/bin/env bash
# CPU time per png_decode of PNG (default .build-compare/A.png, written by
# `python3 scripts/bench_compare.py inputs --size 1920x1080 --out .build-compare`):
# PixelFlow's shims with and without the direct path, then OpenCV, libvips and Pillow, in
# ROUNDS alternating rounds. Run from the package root: bash Benchmarks/png-decode-cpu/run.sh
set -euo pipefail
PNG=${1:-.build-compare/A.png}
ROUNDS=${ROUNDS:-3}
RUNS=${RUNS:-15}
OUT=.build-compare/decode_cpu
mkdir -p .build-compare
S=Sources/CCodecShims
clang -O2 -I"$S/include" Benchmarks/png-decode-cpu/decode_cpu.c "$S/pf_png.c" "$S/pf_png_filter.c" \
    "$S/pf_deflate.c" "$S/pf_common.c" $(pkg-config --cflags --libs libpng libdeflate) -lz -lpthread -o "$OUT"
for r in $(seq "$ROUNDS"); do
    echo "== round $r"
    "$OUT" "$PNG" 0 "$RUNS"
    "$OUT" "$PNG" 1 "$RUNS"
    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE python3 Benchmarks/png-decode-cpu/peers_cpu.py "$PNG" "$RUNS"
done
