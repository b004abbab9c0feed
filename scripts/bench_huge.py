#!/usr/bin/env python3
"""Huge images in bounded memory (issue #27): PixelFlow beside libvips on the same files.

Tasks, each run in its own child process (wall time of the process and peak resident memory
from wait4's ru_maxrss, as vips-bench reports them), several rounds alternating the peers:
  sepia      JPEG -> sepia (CISepiaTone 1 / libvips recomb with the same matrix) -> JPEG q90
  downscale  JPEG -> Lanczos 3 to 10% -> JPEG q90
  thumbnail  JPEG -> 1000 px wide -> JPEG q90 (libvips: thumbnail, which shrinks on load)
  png-sepia  PNG -> sepia -> PNG
on a 20 MP and an 80 MP JPEG (5000x4000, 10000x8000) and a 50 MP PNG (8660x5774), made here
with seed 7 (smooth gradients plus noise, as photos compress).

    python3 scripts/bench_huge.py --pixelflow .build-bench/release/pixelflow-bench --out /tmp/huge --json huge.json
    python3 scripts/bench_huge.py --run vips TASK IN OUT     # one libvips run (used by the driver)

PixelFlow's side is `pixelflow-bench --task TASK` (library defaults: streamed source,
streamed write). Needs numpy, Pillow (to make the inputs) and pyvips with pyvips-binary.
"""
import argparse
import json
import os
import resource
import subprocess
import sys
import time

SEPIA = [[0.393, 0.769, 0.189], [0.349, 0.686, 0.168], [0.272, 0.534, 0.131]]


def make_image(path, width, height):
    import numpy as np
    from PIL import Image
    rng = np.random.default_rng(7)
    rows = []
    for y0 in range(0, height, 1000):  # in bands, so making an 80 MP input stays small
        h = min(1000, height - y0)
        yy, xx = np.mgrid[y0:y0 + h, 0:width].astype(np.float32)
        yy /= height
        xx /= width
        band = np.stack([0.5 + 0.4 * np.sin(6 * xx + 2 * yy), yy, 0.5 + 0.3 * np.cos(5 * xx * yy)], -1)
        band += rng.normal(0, 0.012, band.shape).astype(np.float32)
        rows.append(np.clip(np.floor(band * 255 + 0.5), 0, 255).astype(np.uint8))
    img = Image.fromarray(np.concatenate(rows, 0))
    if path.endswith(".png"):
        img.save(path, compress_level=6)
    else:
        img.save(path, "JPEG", quality=90)


def run_vips(task, src, dst):
    import pyvips
    if task == "thumbnail":
        im = pyvips.Image.thumbnail(src, 1000)
    else:
        im = pyvips.Image.new_from_file(src, access="sequential")
        if task in ("sepia", "png-sepia"):
            im = im.recomb(pyvips.Image.new_from_array(SEPIA)).cast("uchar")
        elif task == "downscale":
            im = im.resize(0.1, kernel="lanczos3")
    if dst.endswith(".png"):
        im.write_to_file(dst)
    else:
        im.write_to_file(dst, Q=90)


def child(cmd):
    """Runs cmd; returns (wall seconds, peak RSS MiB, stdout)."""
    t0 = time.time()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(p.pid, 0)
    wall = time.time() - t0
    out = p.stdout.read().decode()
    err = p.stderr.read().decode()
    if status != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed: {err.strip()}")
    return wall, usage.ru_maxrss / 1024.0, out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--run", nargs=4, metavar=("PEER", "TASK", "IN", "OUT"))
    ap.add_argument("--make", nargs=3, metavar=("PATH", "WIDTH", "HEIGHT"))
    ap.add_argument("--pixelflow", help="the pixelflow-bench binary (release)")
    ap.add_argument("--out", default="/tmp/pixelflow-huge")
    ap.add_argument("--json")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--threads", type=int, default=os.cpu_count())
    args = ap.parse_args()
    if args.make:
        make_image(args.make[0], int(args.make[1]), int(args.make[2]))
        return
    if args.run:
        peer, task, src, dst = args.run
        assert peer == "vips"
        run_vips(task, src, dst)
        return
    os.makedirs(args.out, exist_ok=True)
    inputs = {"jpeg20": ("in-20mp.jpg", 5000, 4000), "jpeg80": ("in-80mp.jpg", 10000, 8000),
              "png50": ("in-50mp.png", 8660, 5774)}
    for key, (name, w, h) in inputs.items():
        path = os.path.join(args.out, name)
        if not os.path.exists(path):
            print(f"making {path} ({w}x{h})", file=sys.stderr)
            # In a child: the driver must stay small, or every child it forks starts with the
            # driver's pages counted in its peak resident memory.
            subprocess.run([sys.executable, os.path.abspath(__file__), "--make", path, str(w), str(h)], check=True)
    cases = [("sepia", "jpeg20", ".jpg"), ("sepia", "jpeg80", ".jpg"), ("downscale", "jpeg80", ".jpg"),
             ("thumbnail", "jpeg80", ".jpg"), ("png-sepia", "png50", ".png")]
    results = []
    for task, key, ext in cases:
        src = os.path.join(args.out, inputs[key][0])
        for r in range(args.rounds):
            for peer in ("pixelflow", "vips"):
                dst = os.path.join(args.out, f"out-{task}-{key}-{peer}{ext}")
                if peer == "pixelflow":
                    t = "sepia" if task == "png-sepia" else task
                    cmd = [args.pixelflow, "--task", t, "--input", src, "--output", dst, "--threads", str(args.threads)]
                else:
                    cmd = [sys.executable, os.path.abspath(__file__), "--run", "vips", task, src, dst]
                wall, rss, _ = child(cmd)
                results.append({"task": task, "input": key, "peer": peer, "round": r, "wall_s": round(wall, 3),
                                "peak_rss_mb": round(rss, 1)})
                print(f"{task:10s} {key:7s} {peer:9s} round {r}: {wall:6.2f} s  {rss:7.1f} MiB", file=sys.stderr)
    summary = []
    for task, key, _ in cases:
        row = {"task": task, "input": key}
        for peer in ("pixelflow", "vips"):
            rs = [x for x in results if x["task"] == task and x["input"] == key and x["peer"] == peer]
            row[peer] = {"wall_s_best": min(x["wall_s"] for x in rs), "peak_rss_mb_max": max(x["peak_rss_mb"] for x in rs)}
        summary.append(row)
    print("| task | input | PixelFlow s | libvips s | PixelFlow MiB | libvips MiB |")
    print("|---|---|---|---|---|---|")
    for row in summary:
        p, v = row["pixelflow"], row["vips"]
        print(f"| {row['task']} | {row['input']} | {p['wall_s_best']:.2f} | {v['wall_s_best']:.2f} | "
              f"{p['peak_rss_mb_max']:.0f} | {v['peak_rss_mb_max']:.0f} |")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"results": results, "summary": summary, "threads": args.threads}, f, indent=1)


if __name__ == "__main__":
    main()
