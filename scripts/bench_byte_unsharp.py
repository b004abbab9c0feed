#!/usr/bin/env python3
"""PixelFlow's byte unsharp masks against its float path, Pillow and OpenCV on uint8, in one run.

    python3 scripts/bench_byte_unsharp.py --pixelflow .build-bench/release/pixelflow-bench \
        --threads 1,2 --rounds 3 --runs 9

Rounds alternate between `pixelflow-bench --task byte-unsharp` (which itself alternates byte
path on and off) and the peers on the same cases, 1920x1080 uint8 RGBA (gray for the gray case):
- Pillow: `ImageFilter.UnsharpMask(radius=sigma, percent=100 k, threshold=0)` (one thread; its
  Gaussian is three box passes);
- OpenCV: `GaussianBlur(src, (0, 0), sigma, BORDER_REPLICATE)` then
  `addWeighted(src, 1 + k, blur, -k, 0)` (cv2.setNumThreads(t)).
The luma case has no peer form (Pillow and OpenCV sharpen every channel): its peers run the
all-channel mask with the same sigma and k. Prints, per case and thread count, the medians over
the rounds and the ratios float/bytes (PixelFlow's speed-up) and peer/bytes (above 1:
PixelFlow's byte form is faster).
"""
import statistics
import time

import cv2
import numpy as np
from PIL import Image, ImageFilter

from bench_byte_convolution import arguments, pixelflow_ms

# case: (sigma, k, channels)
CASES = {
    "unsharp_s2_k1": (2.0, 1.0, 4),
    "unsharp_default": (2.5, 0.5, 4),
    "unsharp_s5_k1": (5.0, 1.0, 4),
    "sharpen_luma_default": (1.69, 0.4, 4),
    "unsharp_s2_k1_gray": (2.0, 1.0, 1),
}


def timed(f, runs):
    f()
    t = []
    for _ in range(runs):
        t0 = time.perf_counter()
        f()
        t.append(time.perf_counter() - t0)
    return statistics.median(t) * 1000


def peers_ms(threads, runs, w, h):
    cv2.setNumThreads(threads)
    rng = np.random.default_rng(1)
    out = {}
    for name, (sigma, k, ch) in CASES.items():
        src = rng.integers(0, 256, size=(h, w, ch) if ch > 1 else (h, w), dtype=np.uint8)

        def opencv():
            blur = cv2.GaussianBlur(src, (0, 0), sigma, borderType=cv2.BORDER_REPLICATE)
            return cv2.addWeighted(src, 1 + k, blur, -k, 0)

        image = Image.fromarray(src, "RGBA" if ch == 4 else "L")
        mask = ImageFilter.UnsharpMask(radius=sigma, percent=int(round(100 * k)), threshold=0)
        out[name] = (timed(opencv, runs), timed(lambda: image.filter(mask), runs) if threads == 1 else None)
    return out


def main():
    a = arguments()
    print("1920x1080, medians over %d rounds (ms); float/bytes, opencv/bytes and pillow/bytes ratios" % a.rounds)
    for t in [int(x) for x in a.threads.split(",")]:
        pf, cv, pil = {}, {}, {}
        for _ in range(a.rounds):
            for k, v in pixelflow_ms(a.pixelflow, t, a.runs, task="byte-unsharp").items():
                pf.setdefault(k, []).append(v)
            for k, (o, p) in peers_ms(t, a.runs, 1920, 1080).items():
                cv.setdefault(k, []).append(o)
                if p is not None:
                    pil.setdefault(k, []).append(p)
        for name in CASES:
            b = statistics.median(x[0] for x in pf[name])
            f = statistics.median(x[1] for x in pf[name])
            o = statistics.median(cv[name])
            line = "  %d thr %-22s bytes %7.2f  float %7.2f  opencv %7.2f  float/bytes %5.2f  opencv/bytes %5.2f" % (
                t, name, b, f, o, f / b, o / b)
            if name in pil:
                p = statistics.median(pil[name])
                line += "  pillow %7.2f  pillow/bytes %5.2f" % (p, p / b)
            print(line)


if __name__ == "__main__":
    main()
