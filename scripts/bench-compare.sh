#!/usr/bin/env bash
# Runs PixelFlow's benchmark and the peers' (OpenCV, libvips, Halide, numpy, Pillow) one
# after the other on this machine, and writes Docs/Performance.md and Docs/performance.svg.
#
#   scripts/bench-compare.sh            # 3840x2160: about 30 minutes on 2 cores
#   scripts/bench-compare.sh --quick    # 1920x1080: about 10 minutes
#
# Steps: install the peers' Python packages when missing; build pixelflow-bench twice
# (default release, and -target-cpu native into .build-bench-native); write the peers' test
# images; run ../shared/peers/bench_peers.py on the ops PixelFlow implements; run both
# PixelFlow builds (the default one also measures peak memory per op in child processes);
# run libvips' benchmark task for all; join everything (scripts/bench_compare.py).
# Intermediate JSON goes to .build-compare/ (gitignored).
set -euo pipefail
cd "$(dirname "$0")/.."

QUICK=()
SIZE=3840x2160
SKIP_PEERS=0
for a in "$@"; do
    case "$a" in
        --quick) QUICK=(--quick); SIZE=1920x1080 ;;
        --skip-peers) SKIP_PEERS=1 ;;   # reuse .build-compare/peers.json from an earlier run
        -h|--help) sed -n '2,14p' "$0"; exit 0 ;;
        *) echo "unknown argument $a" >&2; exit 2 ;;
    esac
done

PEERS_DIR=../shared/peers
OUT=.build-compare
mkdir -p "$OUT"
PY=${PYTHON:-python3}
# The peer command runs without OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE (they slow a current numpy);
# nothing else changes them.
PEER_ENV=(env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE)

if ! "${PEER_ENV[@]}" "$PY" -c 'import cv2, pyvips, PIL, halide, numpy' 2>/dev/null; then
    echo "== installing the peers (pip install -r $PEERS_DIR/requirements.txt)"
    "$PY" -m pip install -q -r "$PEERS_DIR/requirements.txt"
fi

# PIXELFLOW_BENCH / PIXELFLOW_BENCH_NATIVE: use executables built elsewhere instead of building.
BENCH=${PIXELFLOW_BENCH:-.build-bench/release/pixelflow-bench}
BENCH_NATIVE=${PIXELFLOW_BENCH_NATIVE:-.build-bench-native/release/pixelflow-bench}
if [ -z "${PIXELFLOW_BENCH:-}" ]; then
    echo "== building pixelflow-bench (default, and -target-cpu native)"
    swift build -c release --scratch-path .build-bench --product pixelflow-bench
    swift build -c release --scratch-path .build-bench-native --product pixelflow-bench \
        -Xswiftc -target-cpu -Xswiftc native
fi

echo "== the peers' test images ($SIZE)"
"${PEER_ENV[@]}" "$PY" scripts/bench_compare.py inputs --size "$SIZE" --out "$OUT"
INPUTS=(--image "$OUT/A.png" --image-b "$OUT/B.png" --png "$OUT/A.png" --jpeg "$OUT/A.jpg")

# The peer ops PixelFlow implements (substrings of variant ids, as bench_peers.py --ops takes).
OPS=u8_to_f32,f32_to_u8,invert,color_matrix,color_controls,gamma,chain5,gaussian,conv3x3,resize_half,thumbnail,rotate15,alpha_blend,source_atop,grayscale,png_,jpeg_,box_r5,unsharp,dilate5,sobel_mag,median5

if [ "$SKIP_PEERS" = 0 ] || [ ! -f "$OUT/peers.json" ]; then
    echo "== peers: bench_peers.py ${QUICK[*]:-} --ops $OPS"
    "${PEER_ENV[@]}" "$PY" "$PEERS_DIR/bench_peers.py" "${QUICK[@]}" --ops "$OPS" \
        --json "$OUT/peers.json" --md "$OUT/peers.md" > "$OUT/peers.log"
fi

echo "== PixelFlow, default build (all sections, peak memory per op)"
"$BENCH" "${QUICK[@]}" "${INPUTS[@]}" --rss --label default --json "$OUT/pixelflow-default.json" | tee "$OUT/pixelflow-default.log"
echo "== PixelFlow, -target-cpu native (peer ops and engine)"
"$BENCH_NATIVE" "${QUICK[@]}" "${INPUTS[@]}" --sections peer,engine --label native --json "$OUT/pixelflow-native.json" \
    | tee "$OUT/pixelflow-native.log"

echo "== libvips' benchmark task"
"${PEER_ENV[@]}" "$PY" scripts/bench_vips_task.py --pixelflow "$BENCH" --out "$OUT" --json "$OUT/task.json"

echo "== Huge images against libvips"
"$PY" scripts/bench_huge.py --pixelflow "$BENCH" --out "$OUT/huge" --json "$OUT/huge.json"

echo "== QR codes against zxing-cpp"
"$PY" -m pip install -q segno zxing-cpp 2>/dev/null || true
"$PY" scripts/bench_qr.py --pixelflow "$BENCH" --json "$OUT/qr.json"

echo "== report"
"$PY" scripts/bench_compare.py report --peers "$OUT/peers.json" --ours "$OUT/pixelflow-default.json" \
    --native "$OUT/pixelflow-native.json" --task "$OUT/task.json" --huge "$OUT/huge.json" --qr "$OUT/qr.json" --md Docs/Performance.md --svg Docs/performance.svg
