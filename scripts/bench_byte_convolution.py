#!/usr/bin/env python3
"""PixelFlow's byte convolutions against its float path and OpenCV's uint8 filter2D, in one run.

    python3 scripts/bench_byte_convolution.py --pixelflow .build-bench/release/pixelflow-bench \
        --threads 1,2 --rounds 3 --runs 9

Rounds alternate between `pixelflow-bench --task byte-convolution` (which itself alternates
byte path on and off) and OpenCV on the same cases: 1920x1080 RGBA uint8 (gray for the gray
case), the same kernels, BORDER_REPLICATE (PixelFlow's clampedToExtent), cv2.setNumThreads(t).
Prints, per case and thread count, the medians over the rounds and the ratios float/bytes
(PixelFlow's speed-up) and OpenCV/bytes (above 1: PixelFlow's byte form is faster).
bench_peers.py (../shared/peers) has only an f32 form of conv3x3_emboss, so this is the u8
comparison.
"""
import argparse
import json
import statistics
import subprocess
import time

import cv2
import numpy as np


def ramp(n):
    w = np.array([1 + (i * 7) % 5 for i in range(n)], dtype=np.float64)
    return w / w.sum()


SHARPEN = np.array([[-1, -1, -1], [-1, 16, -1], [-1, -1, -1]], dtype=np.float32) / 8
CASES = {
    "sharpen3x3": (SHARPEN, 4),
    "emboss3x3": (np.array([[-2, -1, 0], [-1, 1, 1], [0, 1, 2]], dtype=np.float32), 4),
    "conv5x5": (ramp(25).reshape(5, 5).astype(np.float32), 4),
    "conv7x7": (ramp(49).reshape(7, 7).astype(np.float32), 4),
    "conv9h": (ramp(9).reshape(1, 9).astype(np.float32), 4),
    "sharpen3x3_gray": (SHARPEN, 1),
}


def opencv_ms(threads, runs, w, h):
    cv2.setNumThreads(threads)
    rng = np.random.default_rng(1)
    out = {}
    for name, (k, ch) in CASES.items():
        src = rng.integers(0, 256, size=(h, w, ch) if ch > 1 else (h, w), dtype=np.uint8)
        cv2.filter2D(src, -1, k, borderType=cv2.BORDER_REPLICATE)
        t = []
        for _ in range(runs):
            t0 = time.perf_counter()
            cv2.filter2D(src, -1, k, borderType=cv2.BORDER_REPLICATE)
            t.append(time.perf_counter() - t0)
        out[name] = statistics.median(t) * 1000
    return out


def pixelflow_ms(exe, threads, runs, task="byte-convolution"):
    """{case: (bytes ms, float ms)} from one `pixelflow-bench --task TASK` run (its json lines)."""
    p = subprocess.run([exe, "--task", task, "--threads", str(threads), "--runs", str(runs)],
                       check=True, capture_output=True, text=True)
    out = {}
    for line in p.stdout.splitlines():
        if line.startswith("json: "):
            d = json.loads(line[6:])
            out[d["case"]] = (d["bytes_ms"], d["float_ms"])
    return out


def arguments():
    """The byte-task scripts' options: --pixelflow, --threads, --rounds, --runs."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--pixelflow", required=True)
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--runs", type=int, default=9)
    return ap.parse_args()


def main():
    a = arguments()
    print("1920x1080, medians over %d rounds (ms); float/bytes and opencv/bytes ratios" % a.rounds)
    for t in [int(x) for x in a.threads.split(",")]:
        pf, cv = {}, {}
        for _ in range(a.rounds):
            for k, v in pixelflow_ms(a.pixelflow, t, a.runs).items():
                pf.setdefault(k, []).append(v)
            for k, v in opencv_ms(t, a.runs, 1920, 1080).items():
                cv.setdefault(k, []).append(v)
        for name in CASES:
            b = statistics.median(x[0] for x in pf[name])
            f = statistics.median(x[1] for x in pf[name])
            o = statistics.median(cv[name])
            print("  %d thr %-16s bytes %7.2f  float %7.2f  opencv %7.2f  float/bytes %5.2f  opencv/bytes %5.2f"
                  % (t, name, b, f, o, f / b, o / b))


if __name__ == "__main__":
    main()
