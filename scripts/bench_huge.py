#!/usr/bin/env python3
"""Huge images in bounded memory (issue #27): PixelFlow beside libvips on the same files.

Tasks, each run in its own child process (wall time of the process and peak resident memory
from wait4's ru_maxrss, as vips-bench reports them), several rounds alternating the peers:
  sepia      JPEG -> sepia (CISepiaTone 1 / libvips recomb with the same matrix) -> JPEG q90
  downscale  JPEG -> Lanczos 3 to 10% -> JPEG q90
  thumbnail  JPEG -> 1000 px wide -> JPEG q90 (libvips: thumbnail, which shrinks on load)
  png-sepia  PNG -> sepia -> PNG (zlib level 6 on both sides)
  tiff-sepia TIFF -> sepia -> TIFF (uncompressed on both sides)
  p3-sepia   JPEG with an embedded Display P3 profile -> sepia -> JPEG (libvips: icc_transform
             to sRGB from the embedded profile, then the same recomb)
  o3-sepia   JPEG with EXIF orientation 3 (turned 180 degrees) -> upright -> sepia -> JPEG
             (libvips: autorot, on an image opened for random access, as autorot needs)
  o6-sepia   the same with orientation 6 (turned 90 degrees clockwise, a portrait photo)
on a 20 MP and an 80 MP JPEG (5000x4000, 10000x8000), a 50 MP PNG (8660x5774) and a 50 MP
uncompressed TIFF, made here with seed 7 (smooth gradients plus noise, as photos compress);
the P3 and orientation-3 inputs are the 80 MP JPEG's pixels saved with the profile
(Tests/PixelFlowTests/Fixtures/Color/display_p3.icc) or the EXIF tag.

    python3 scripts/bench_huge.py --pixelflow .build-bench/release/pixelflow-bench --out /tmp/huge --json huge.json \
        [--update-doc Docs/Performance.md]
    python3 scripts/bench_huge.py --run vips TASK IN OUT     # one libvips run (used by the driver)

--baseline BIN adds a second pixelflow-bench (an older build) to every round, as the peer
"baseline", to compare builds in the same run (not written to the doc).

--update-doc replaces the page's "## Huge images" section (or adds one before "## QR codes");
scripts/bench-compare.sh runs this script as one of its steps, and scripts/bench_compare.py
renders the same section.

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
    if "-p3" in path:
        icc = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Tests", "PixelFlowTests", "Fixtures",
                           "Color", "display_p3.icc")
        img.save(path, "JPEG", quality=90, icc_profile=open(icc, "rb").read())
        return
    if "-o3" in path or "-o6" in path:
        exif = Image.Exif()
        exif[0x0112] = 3 if "-o3" in path else 6
        img.save(path, "JPEG", quality=90, exif=exif.tobytes())
        return
    if path.endswith(".png"):
        img.save(path, compress_level=6)
    elif path.endswith(".tif"):
        img.save(path, compression="raw")
    else:
        img.save(path, "JPEG", quality=90)


def run_vips(task, src, dst):
    import pyvips
    if task == "thumbnail":
        im = pyvips.Image.thumbnail(src, 1000)
    elif task in ("o3-sepia", "o6-sepia"):
        # autorot turns 180 degrees, which reads the image in random order: libvips decodes a
        # large file to a temporary file on disk for that (or to memory below its threshold).
        im = pyvips.Image.new_from_file(src).autorot()
        im = im.recomb(pyvips.Image.new_from_array(SEPIA)).cast("uchar")
    else:
        im = pyvips.Image.new_from_file(src, access="sequential")
        if task == "p3-sepia":
            im = im.icc_transform("srgb", embedded=True)
        if task in ("sepia", "png-sepia", "tiff-sepia", "p3-sepia"):
            im = im.recomb(pyvips.Image.new_from_array(SEPIA)).cast("uchar")
        elif task == "downscale":
            im = im.resize(0.1, kernel="lanczos3")
    if dst.endswith(".png"):
        im.write_to_file(dst, compression=6)
    elif dst.endswith(".tif"):
        im.write_to_file(dst, compression="none")
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
    ap.add_argument("--baseline", help="another pixelflow-bench binary to run beside it (peer 'baseline')")
    ap.add_argument("--cases", help="comma-separated task:input pairs to run (default: all)")
    ap.add_argument("--out", default="/tmp/pixelflow-huge")
    ap.add_argument("--json")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--threads", type=int, default=os.cpu_count())
    ap.add_argument("--update-doc", help="the Markdown page whose Huge images section to replace")
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
              "png50": ("in-50mp.png", 8660, 5774), "tiff50": ("in-50mp.tif", 8660, 5774),
              "jpeg80p3": ("in-80mp-p3.jpg", 10000, 8000), "jpeg80o3": ("in-80mp-o3.jpg", 10000, 8000),
              "jpeg80o6": ("in-80mp-o6.jpg", 10000, 8000)}
    cases = [("sepia", "jpeg20", ".jpg"), ("sepia", "jpeg80", ".jpg"), ("downscale", "jpeg80", ".jpg"),
             ("thumbnail", "jpeg80", ".jpg"), ("png-sepia", "png50", ".png"), ("tiff-sepia", "tiff50", ".tif"),
             ("p3-sepia", "jpeg80p3", ".jpg"), ("o3-sepia", "jpeg80o3", ".jpg"), ("o6-sepia", "jpeg80o6", ".jpg")]
    if args.cases:
        wanted = set(args.cases.split(","))
        cases = [c for c in cases if f"{c[0]}:{c[1]}" in wanted]
    peers = ["pixelflow"] + (["baseline"] if args.baseline else []) + ["vips"]
    inputs = {k: v for k, v in inputs.items() if any(c[1] == k for c in cases)}
    for key, (name, w, h) in inputs.items():
        path = os.path.join(args.out, name)
        if not os.path.exists(path):
            print(f"making {path} ({w}x{h})", file=sys.stderr)
            # In a child: the driver must stay small, or every child it forks starts with the
            # driver's pages counted in its peak resident memory.
            subprocess.run([sys.executable, os.path.abspath(__file__), "--make", path, str(w), str(h)], check=True)
    results = []
    for task, key, ext in cases:
        src = os.path.join(args.out, inputs[key][0])
        for r in range(args.rounds):
            for peer in peers:
                dst = os.path.join(args.out, f"out-{task}-{key}-{peer}{ext}")
                if peer in ("pixelflow", "baseline"):
                    t = "sepia" if task.endswith("-sepia") else task
                    binary = args.pixelflow if peer == "pixelflow" else args.baseline
                    cmd = [binary, "--task", t, "--input", src, "--output", dst, "--threads", str(args.threads)]
                else:
                    cmd = [sys.executable, os.path.abspath(__file__), "--run", "vips", task, src, dst]
                wall, rss, _ = child(cmd)
                results.append({"task": task, "input": key, "peer": peer, "round": r, "wall_s": round(wall, 3),
                                "peak_rss_mb": round(rss, 1)})
                print(f"{task:10s} {key:7s} {peer:9s} round {r}: {wall:6.2f} s  {rss:7.1f} MiB", file=sys.stderr)
    summary = []
    for task, key, _ in cases:
        row = {"task": task, "input": key}
        for peer in peers:
            rs = [x for x in results if x["task"] == task and x["input"] == key and x["peer"] == peer]
            row[peer] = {"wall_s_best": min(x["wall_s"] for x in rs), "peak_rss_mb_max": max(x["peak_rss_mb"] for x in rs)}
        summary.append(row)
    print("| task | input | PixelFlow s | libvips s | PixelFlow MiB | libvips MiB |"
          + (" baseline s | baseline MiB |" if args.baseline else ""))
    print("|---|---|---|---|---|---|" + ("---|---|" if args.baseline else ""))
    for row in summary:
        p, v = row["pixelflow"], row["vips"]
        extra = ""
        if args.baseline:
            b = row["baseline"]
            extra = f" {b['wall_s_best']:.2f} | {b['peak_rss_mb_max']:.0f} |"
        print(f"| {row['task']} | {row['input']} | {p['wall_s_best']:.2f} | {v['wall_s_best']:.2f} | "
              f"{p['peak_rss_mb_max']:.0f} | {v['peak_rss_mb_max']:.0f} |" + extra)
    import datetime
    data = {"results": results, "summary": summary, "threads": args.threads, "rounds": args.rounds,
            "date": f"{datetime.datetime.utcnow():%Y-%m-%d %H:%M}", "load": round(os.getloadavg()[0], 1),
            "vips": vips_version()}
    if args.json:
        with open(args.json, "w") as f:
            json.dump(data, f, indent=1)
    if args.update_doc:
        update_doc(args.update_doc, markdown_section(data))


def vips_version():
    try:
        import pyvips
        return f"libvips {pyvips.version(0)}.{pyvips.version(1)}.{pyvips.version(2)} (pyvips {pyvips.__version__})"
    except Exception:
        return "libvips"


def markdown_section(data):
    """The "## Huge images" section of Docs/Performance.md for the results of one run."""
    md = ["## Huge images", ""]
    md.append(f"Made by `scripts/bench_huge.py` on {data.get('date', '?')} UTC ({os.cpu_count()} cores, load average "
              f"{data.get('load', '?')} at the end), {data.get('threads', '?')} threads, {data.get('vips', 'libvips')}. "
              "Each task runs in its own child process, PixelFlow (`pixelflow-bench --task`, library defaults: "
              "streamed source, streamed write) and libvips (`access=\"sequential\"`, `thumbnail` for the "
              f"thumbnail) alternating, {data.get('rounds', '?')} rounds; wall time of the whole process (best "
              "round) and peak resident memory (ru_maxrss, worst round). Inputs made with seed 7: smooth gradients "
              "plus noise. Ratios above 1: PixelFlow is faster or smaller.")
    md.append("")
    md.append("| task | input | PixelFlow s | libvips s | time ratio | PixelFlow MiB | libvips MiB | memory ratio |")
    md.append("|---|---|---|---|---|---|---|---|")
    names = {"jpeg20": "20 MP JPEG", "jpeg80": "80 MP JPEG", "png50": "50 MP PNG", "tiff50": "50 MP TIFF",
             "jpeg80p3": "80 MP JPEG, Display P3", "jpeg80o3": "80 MP JPEG, orientation 3",
             "jpeg80o6": "80 MP JPEG, orientation 6"}
    for row in data["summary"]:
        p, v = row["pixelflow"], row["vips"]
        md.append(f"| {row['task']} | {names.get(row['input'], row['input'])} | {p['wall_s_best']:.2f} | "
                  f"{v['wall_s_best']:.2f} | {v['wall_s_best'] / p['wall_s_best']:.2f} | "
                  f"{p['peak_rss_mb_max']:.0f} | {v['peak_rss_mb_max']:.0f} | "
                  f"{v['peak_rss_mb_max'] / p['peak_rss_mb_max']:.2f} |")
    if any(r["task"] in ("p3-sepia", "o3-sepia", "o6-sepia") for r in data["summary"]):
        md.append("")
        md.append("p3-sepia: PixelFlow converts the Display P3 profile row by row as the file is decoded (lcms2 "
                  "into linear sRGB floats, bit-identical to a whole-image decode); libvips runs `icc_transform` "
                  "to sRGB. o3-sepia and o6-sepia: PixelFlow decodes the file once into an unlinked temporary file "
                  "in $TMPDIR and reads its rows bottom up (3) or bands of its columns as rows (6); libvips opens it for random access (a decode to a temporary "
                  "file above its disc threshold) and runs `autorot`. Disk and page cache are not in the peak "
                  "resident memory of either.")
    by = {(r["task"], r["input"]): r for r in data["summary"]}
    if ("sepia", "jpeg20") in by and ("sepia", "jpeg80") in by:
        a = by[("sepia", "jpeg20")]["pixelflow"]["peak_rss_mb_max"]
        b = by[("sepia", "jpeg80")]["pixelflow"]["peak_rss_mb_max"]
        md.append("")
        md.append(f"Peak memory of sepia grows {b / a:.2f}x from 20 MP to 80 MP (4x the pixels).")
    md.append("")
    md.append("Reproduce: `swift build -c release --product pixelflow-bench --scratch-path .build-bench && "
              "python3 scripts/bench_huge.py --pixelflow .build-bench/release/pixelflow-bench --out /tmp/huge "
              "--json huge.json --update-doc Docs/Performance.md` (needs `scripts/setup.sh --reference-tools`).")
    md.append("")
    return md


def update_doc(path, section):
    """Replaces the section that starts with section[0] (up to the next "## ") in the page at
    path, or inserts it before "## QR codes" (else at the end)."""
    lines = open(path).read().split("\n") if os.path.exists(path) else []
    if section[0] in lines:
        start = lines.index(section[0])
        end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("## ")), len(lines))
        lines[start:end] = section
    else:
        at = next((i for i, line in enumerate(lines) if line.startswith("## QR codes")), len(lines))
        lines[at:at] = section
    open(path, "w").write("\n".join(lines).rstrip("\n") + "\n")


if __name__ == "__main__":
    main()
