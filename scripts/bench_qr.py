#!/usr/bin/env python3
"""QR code reading, PixelFlow against zxing-cpp, on the same images in the same session.

Makes a deterministic set of test images with codes from an independent generator (segno):
  - `frame`: one 1920x1080 photo-like frame with one code (version 4-M, 6 px modules, turned
    12 degrees), the speed comparison of issue #7;
  - `varied` (120 images, 800x600): module sizes 2-8 px, any rotation, mild perspective
    (corners moved by up to 6% of the code's size), Gaussian blur (sigma up to 0.5 module),
    noise (sigma up to 12 of 255), uneven light, JPEG quality 30-90 for two thirds of them,
    light-on-dark for one in ten; versions 1-10, all levels. The decode-rate comparison.
Then times zxing-cpp (`zxingcpp.read_barcodes` restricted to QR codes, on 8-bit gray numpy
arrays, the default try-harder settings) image by image, runs `pixelflow-bench --task qr` on the
same folder (our detector at accuracy high on 8-bit gray buffers), both single-threaded, and
reports per set: median time per image, decode rate (expected message among the decoded
ones), wrong messages, and the speed ratio zxing-cpp time / PixelFlow time (above 1: we are
faster).

    swift build -c release --product pixelflow-bench --scratch-path .build-bench
    python3 scripts/bench_qr.py --pixelflow .build-bench/release/pixelflow-bench --json qr.json \
        --update-doc Docs/Performance.md

--update-doc replaces the page's "## QR codes" section (or appends one); scripts/bench-compare.sh
runs this script as one of its steps, and scripts/bench_compare.py renders the same section.

With --hard it runs instead on the hard set of issue #24 (scripts/make_qr_hard_set.py: 348 images,
low contrast, uneven light, light-on-dark, strong perspective, blur, 1.5-12 px modules, versions
1-40, JPEG q20-90, several codes per image, 40 negatives) and reports, per category and for both
peers, the codes decoded, the false decodes (messages not in the image) and the time per image
(median and p90); --update-doc then replaces the "## The hard set" section of Docs/QRCode.md:

    python3 scripts/bench_qr.py --pixelflow .build-bench/release/pixelflow-bench --hard --runs 3 \
        --json qr-hard.json --update-doc Docs/QRCode.md

Needs: pip install segno zxing-cpp opencv-python-headless numpy pillow
"""
import argparse
import io
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time

import cv2
import numpy as np
import segno
import zxingcpp
from PIL import Image

WORDS = ["PixelFlow", "https://example.org/a/b?c=", "0123456789", "QR CODE TEST", "Grüße", "frame",
         "lorem ipsum dolor sit amet", "SWIFT-6", "42", "α β γ"]


def background(rng, w, h):
    """A photo-like backdrop: smooth gradients, blobs, lines and texture."""
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    img = 90 + 60 * np.sin(xx / rng.uniform(60, 200) + rng.uniform(0, 6)) * np.cos(yy / rng.uniform(60, 200))
    img = np.dstack([img + rng.uniform(-30, 30) for _ in range(3)])
    for _ in range(12):
        c = tuple(int(v) for v in rng.integers(0, 255, 3))
        cv2.circle(img, (int(rng.integers(0, w)), int(rng.integers(0, h))), int(rng.integers(10, 120)), c, -1)
    for _ in range(10):
        c = tuple(int(v) for v in rng.integers(0, 255, 3))
        cv2.line(img, (int(rng.integers(0, w)), int(rng.integers(0, h))),
                 (int(rng.integers(0, w)), int(rng.integers(0, h))), c, int(rng.integers(1, 4)))
    img += rng.normal(0, 6, img.shape)
    return np.clip(img, 0, 255).astype(np.uint8)


def place(rng, img, message, level, version, module, angle, jitter, inverted):
    """Draws a segno symbol (4-module quiet zone) onto img through a perspective transform."""
    qr = segno.make(message, error=level, version=version, micro=False)
    m = np.array(qr.matrix, dtype=np.uint8)
    n = m.shape[0] + 8
    symbol = np.full((n, n), 255, np.uint8)
    symbol[4:-4, 4:-4] = np.where(m == 1, 0, 255)
    if inverted:
        symbol = 255 - symbol
    side = n * module
    h, w = img.shape[:2]
    diag = side * 1.5
    if diag >= min(w, h) - 4:
        return False
    cx = rng.uniform(diag / 2 + 2, w - diag / 2 - 2)
    cy = rng.uniform(diag / 2 + 2, h - diag / 2 - 2)
    a = math.radians(angle)
    corners = []
    for (u, v) in [(-0.5, -0.5), (0.5, -0.5), (0.5, 0.5), (-0.5, 0.5)]:
        x, y = u * side, v * side
        x += rng.uniform(-jitter, jitter) * side
        y += rng.uniform(-jitter, jitter) * side
        corners.append((cx + x * math.cos(a) - y * math.sin(a), cy + x * math.sin(a) + y * math.cos(a)))
    src = np.float32([[0, 0], [n, 0], [n, n], [0, n]])
    H = cv2.getPerspectiveTransform(src, np.float32(corners))
    warped = cv2.warpPerspective(symbol, H, (w, h), flags=cv2.INTER_NEAREST, borderValue=0)
    mask = cv2.warpPerspective(np.full((n, n), 255, np.uint8), H, (w, h), flags=cv2.INTER_NEAREST, borderValue=0)
    for c in range(3):
        img[..., c] = np.where(mask > 0, warped, img[..., c])
    return True


def degrade(rng, img, module, blur, noise, light, quality, path):
    out = img.astype(np.float32)
    if blur > 0:
        out = cv2.GaussianBlur(out, (0, 0), blur * module)
    if light:
        h, w = out.shape[:2]
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        gain = 0.55 + 0.45 * (xx / w) * (0.6 + 0.4 * yy / h)
        out *= gain[..., None]
    if noise > 0:
        out += rng.normal(0, noise, out.shape)
    out = np.clip(out, 0, 255).astype(np.uint8)
    if quality:
        Image.fromarray(out).save(path, quality=int(quality))
    else:
        Image.fromarray(out).save(path)


def make_set(folder):
    rng = np.random.default_rng(18004)
    manifest = []
    # The 1080p frame with one code.
    img = background(rng, 1920, 1080)
    place(rng, img, "https://example.org/pixelflow/qr-bench", "M", 4, 6, 12, 0.0, False)
    degrade(rng, img, 6, 0, 3, False, 0, os.path.join(folder, "frame.png"))
    manifest.append({"file": "frame.png", "message": "https://example.org/pixelflow/qr-bench", "set": "frame"})
    i = 0
    while len([e for e in manifest if e["set"] == "varied"]) < 120:
        i += 1
        img = background(rng, 800, 600)
        words = [WORDS[int(k)] for k in rng.integers(0, len(WORDS), int(rng.integers(1, 5)))]
        message = " ".join(words) + f" #{i}"
        level = "LMQH"[int(rng.integers(0, 4))]
        module = int(rng.integers(2, 9))
        try:
            version = segno.make(message, error=level, micro=False).version
        except Exception:
            continue
        if version > 10:
            continue
        angle = float(rng.uniform(0, 360))
        jitter = float(rng.uniform(0, 0.06))
        inverted = rng.uniform() < 0.1
        if not place(rng, img, message, level, version, module, angle, jitter, inverted):
            continue
        blur = float(rng.uniform(0, 0.5)) if rng.uniform() < 0.6 else 0
        noise = float(rng.uniform(0, 12))
        light = rng.uniform() < 0.3
        quality = int(rng.integers(30, 91)) if rng.uniform() < 2 / 3 else 0
        name = f"v{i:03d}." + ("jpg" if quality else "png")
        degrade(rng, img, module, blur, noise, light, quality, os.path.join(folder, name))
        manifest.append({"file": name, "message": message, "set": "varied", "module": module, "angle": round(angle, 1),
                         "jitter": round(jitter, 3), "blur": round(blur, 2), "noise": round(noise, 1),
                         "light": bool(light), "quality": quality, "inverted": bool(inverted),
                         "version": version, "level": level})
    with open(os.path.join(folder, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
    return manifest


def time_zxing(folder, manifest, runs):
    out = {}
    for e in manifest:
        expected = e.get("messages", [e["message"]])
        gray = np.array(Image.open(os.path.join(folder, e["file"])).convert("L"))
        times = []
        found = []
        for k in range(runs + 1):
            t0 = time.perf_counter()
            found = zxingcpp.read_barcodes(gray, formats=zxingcpp.BarcodeFormat.QRCode)
            if k > 0:
                times.append(time.perf_counter() - t0)
        texts = [r.text for r in found if r.valid]
        read = sum(1 for m in expected if m in texts)
        out[e["file"]] = {"median_ms": statistics.median(times) * 1e3, "min_ms": min(times) * 1e3,
                          "decoded": read == len(expected), "decoded_count": read, "found": len(texts),
                          "wrong": len([t for t in texts if t not in expected])}
    return out


def summarize(manifest, ours, theirs):
    rows = []
    for name in ("frame", "varied"):
        files = [e["file"] for e in manifest if e["set"] == name]
        row = {"set": name, "images": len(files)}
        for peer, data in (("pixelflow", ours), ("zxing-cpp", theirs)):
            row[peer] = {
                "median_ms_per_image": statistics.median(data[f]["median_ms"] for f in files),
                "total_ms": sum(data[f]["median_ms"] for f in files),
                "decoded": sum(1 for f in files if data[f]["decoded"]),
                "wrong": sum(data[f]["wrong"] for f in files),
            }
        row["speed_ratio"] = row["zxing-cpp"]["total_ms"] / row["pixelflow"]["total_ms"]
        rows.append(row)
    return rows


def percentile(values, q):
    v = sorted(values)
    if not v:
        return float("nan")
    k = (len(v) - 1) * q
    i = int(math.floor(k))
    j = min(i + 1, len(v) - 1)
    return v[i] + (v[j] - v[i]) * (k - i)


def summarize_hard(manifest, ours, theirs):
    """Per category and in total: codes, codes decoded, false decodes, ms per image (median, p90)."""
    from make_qr_hard_set import CATEGORIES
    rows = []
    for name in CATEGORIES + ["negative", "all"]:
        entries = [e for e in manifest if name == "all" or e["category"] == name]
        row = {"category": name, "images": len(entries), "codes": sum(len(e["messages"]) for e in entries)}
        for peer, data in (("pixelflow", ours), ("zxing-cpp", theirs)):
            times = [data[e["file"]]["median_ms"] for e in entries]
            row[peer] = {"decoded": sum(data[e["file"]]["decoded_count"] for e in entries),
                         "false": sum(data[e["file"]]["wrong"] for e in entries),
                         "median_ms": statistics.median(times), "p90_ms": percentile(times, 0.9),
                         "total_ms": sum(times)}
        rows.append(row)
    return rows


def hard_section(data):
    """The "## The hard set" section of Docs/QRCode.md."""
    import datetime
    import platform
    md = ["## The hard set", ""]
    md.append(f"Made by `scripts/bench_qr.py --hard` on {datetime.datetime.utcnow():%Y-%m-%d %H:%M} UTC "
              f"({platform.machine()}, {os.cpu_count()} cores shared, load average {os.getloadavg()[0]:.1f} at the end), "
              f"zxing-cpp {data.get('zxing_cpp', '?')} from PyPI, median of {data['runs']} runs per image, one thread "
              "each, 8-bit gray input. Decoded: codes whose message was read, of all codes in the category; false: "
              "decoded messages that are not in the image. Time per image in milliseconds, median and 90th percentile.")
    md.append("")
    md.append("| category | images | codes | PixelFlow decoded | zxing-cpp decoded | false (ours / theirs) | "
              "PixelFlow ms median / p90 | zxing-cpp ms median / p90 |")
    md.append("|---|---|---|---|---|---|---|---|")
    for r in data["hard"]:
        p, z = r["pixelflow"], r["zxing-cpp"]
        codes = r["codes"]
        def rate(k):
            return f"{k} ({100 * k / codes:.0f}%)" if codes else "-"
        md.append(f"| {r['category']} | {r['images']} | {codes} | {rate(p['decoded'])} | {rate(z['decoded'])} | "
                  f"{p['false']} / {z['false']} | {p['median_ms']:.1f} / {p['p90_ms']:.1f} | "
                  f"{z['median_ms']:.1f} / {z['p90_ms']:.1f} |")
    md.append("")
    md.append("Reproduce: `swift build -c release --product pixelflow-bench --scratch-path .build-bench && "
              "python3 scripts/bench_qr.py --pixelflow .build-bench/release/pixelflow-bench --hard --runs 3 "
              "--json qr-hard.json --update-doc Docs/QRCode.md`.")
    md.append("")
    return md


def markdown_section(data):
    """The "## QR codes" section of Docs/Performance.md for the joined results."""
    import datetime
    import platform
    md = ["## QR codes: PixelFlow against zxing-cpp", ""]
    md.append(f"Made by `scripts/bench_qr.py` on {datetime.datetime.utcnow():%Y-%m-%d %H:%M} UTC "
              f"({platform.machine()}, {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at the end), "
              f"zxing-cpp {data.get('zxing_cpp', '?')} from PyPI. Both read the same files as 8-bit gray, on one "
              f"thread, median of {data['runs']} runs per image; PixelFlow's `QRCodeDetector` at accuracy high, "
              "zxing-cpp's `read_barcodes` restricted to QR codes with its default (try-harder) settings. "
              "Codes made by segno. The speed ratio is zxing-cpp's total time over ours (above 1: PixelFlow is faster); "
              "a decode counts when the expected message is among the decoded ones.")
    md.append("")
    md.append("| set | images | PixelFlow ms/image (median) | zxing-cpp ms/image (median) | speed ratio (total) | "
              "PixelFlow decoded | zxing-cpp decoded | wrong messages (ours / theirs) |")
    md.append("|---|---|---|---|---|---|---|---|")
    for r in data["sets"]:
        p, z = r["pixelflow"], r["zxing-cpp"]
        md.append(f"| {r['set']} | {r['images']} | {p['median_ms_per_image']:.2f} | {z['median_ms_per_image']:.2f} | "
                  f"{r['speed_ratio']:.2f} | {p['decoded']} | {z['decoded']} | {p['wrong']} / {z['wrong']} |")
    md.append("")
    md.append("`frame` is one 1920x1080 photo-like frame with one version 4-M code (6 px modules, turned 12 degrees); "
              "`varied` is 120 800x600 images with module sizes 2-8 px, any rotation, corners moved by up to 6% "
              "(perspective), Gaussian blur up to half a module, noise, uneven light, JPEG quality 30-90 for two "
              "thirds and light-on-dark codes for one in ten. Reproduce: "
              "`swift build -c release --product pixelflow-bench --scratch-path .build-bench && "
              "python3 scripts/bench_qr.py --pixelflow .build-bench/release/pixelflow-bench --json qr.json "
              "--update-doc Docs/Performance.md`.")
    md.append("")
    return md


def update_doc(path, section):
    """Replaces the section that starts with section[0] (up to the next "## ") in the page at path."""
    lines = open(path).read().split("\n") if os.path.exists(path) else []
    try:
        start = lines.index(section[0])
        end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("## ")), len(lines))
        lines[start:end] = section
    except ValueError:
        if lines and lines[-1] == "":
            lines.pop()
        lines += [""] + section
    open(path, "w").write("\n".join(lines).rstrip("\n") + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pixelflow", required=True, help="the pixelflow-bench executable (release build)")
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--folder", help="keep the images here (default: a temporary folder)")
    ap.add_argument("--json", help="write the joined results here")
    ap.add_argument("--update-doc", help="replace the QR section of this Markdown page (Docs/Performance.md; "
                    "with --hard, the hard-set section of Docs/QRCode.md)")
    ap.add_argument("--hard", action="store_true", help="run on the hard set (scripts/make_qr_hard_set.py) instead")
    ap.add_argument("--reuse", action="store_true", help="reuse the images already in --folder")
    ap.add_argument("--zxing-cache", help="reuse zxing-cpp's results from this file (made on the first run); "
                    "for iterating on PixelFlow only")
    args = ap.parse_args()
    if args.hard:
        return main_hard(args)
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.folder or tmp
        os.makedirs(folder, exist_ok=True)
        manifest = make_set(folder)
        theirs = time_zxing(folder, manifest, args.runs)
        ours_path = os.path.join(folder, "pixelflow.json")
        subprocess.run([args.pixelflow, "--task", "qr", "--input", folder, "--output", ours_path,
                        "--runs", str(args.runs)], check=True)
        with open(ours_path) as f:
            ours = {r["file"]: r for r in json.load(f)["images"]}
        rows = summarize(manifest, ours, theirs)
    for r in rows:
        p, z = r["pixelflow"], r["zxing-cpp"]
        print(f"{r['set']:7s} {r['images']:4d} images  pixelflow {p['median_ms_per_image']:7.2f} ms/image "
              f"decoded {p['decoded']}/{r['images']} wrong {p['wrong']}   zxing-cpp {z['median_ms_per_image']:7.2f} ms/image "
              f"decoded {z['decoded']}/{r['images']} wrong {z['wrong']}   speed ratio {r['speed_ratio']:.2f}")
    try:
        from importlib.metadata import version
        zxing_version = version("zxing-cpp")
    except Exception:
        zxing_version = "?"
    data = {"zxing_cpp": zxing_version, "runs": args.runs, "sets": rows,
            "per_image": {"pixelflow": ours, "zxing-cpp": theirs}}
    if args.json:
        with open(args.json, "w") as f:
            json.dump(data, f, indent=1)
    if args.update_doc:
        update_doc(args.update_doc, markdown_section(data))


def zxing_version():
    try:
        from importlib.metadata import version
        return version("zxing-cpp")
    except Exception:
        return "?"


def main_hard(args):
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from make_qr_hard_set import make_hard_set
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.folder or tmp
        os.makedirs(folder, exist_ok=True)
        if args.reuse and os.path.exists(os.path.join(folder, "manifest.json")):
            with open(os.path.join(folder, "manifest.json")) as f:
                manifest = json.load(f)
        else:
            manifest = make_hard_set(folder)
        if args.zxing_cache and os.path.exists(args.zxing_cache):
            with open(args.zxing_cache) as f:
                theirs = json.load(f)
        else:
            theirs = time_zxing(folder, manifest, args.runs)
            if args.zxing_cache:
                with open(args.zxing_cache, "w") as f:
                    json.dump(theirs, f)
        ours_path = os.path.join(folder, "pixelflow.json")
        subprocess.run([args.pixelflow, "--task", "qr", "--input", folder, "--output", ours_path,
                        "--runs", str(args.runs)], check=True)
        with open(ours_path) as f:
            ours = {r["file"]: r for r in json.load(f)["images"]}
    rows = summarize_hard(manifest, ours, theirs)
    print(f"{'category':14s} {'codes':>5s}  {'ours':>4s} {'zxing':>5s}  {'false':>7s}  {'ours ms med/p90':>16s}  {'zxing ms med/p90':>16s}")
    for r in rows:
        p, z = r["pixelflow"], r["zxing-cpp"]
        print(f"{r['category']:14s} {r['codes']:5d}  {p['decoded']:4d} {z['decoded']:5d}  {p['false']:3d}/{z['false']:<3d}  "
              f"{p['median_ms']:7.1f} {p['p90_ms']:8.1f}  {z['median_ms']:7.1f} {z['p90_ms']:8.1f}")
    data = {"zxing_cpp": zxing_version(), "runs": args.runs, "hard": rows,
            "per_image": {"pixelflow": ours, "zxing-cpp": theirs}}
    if args.json:
        with open(args.json, "w") as f:
            json.dump(data, f, indent=1)
    if args.update_doc:
        update_doc(args.update_doc, hard_section(data))


if __name__ == "__main__":
    main()
