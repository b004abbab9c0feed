#!/usr/bin/env python3
"""PNG file sizes: PixelFlow's encoder beside libvips' pngsave on the same pixels.

Images (made or copied into --out): the peers' 1920x1080 benchmark image (bench_peers.py's
make_images, seed 42, RGBA), scikit-image's astronaut, coffee and chelsea photos (RGB),
scikit-image's logo flattened on white (flat graphics), and a generated 1920x1080 chart
(flat colors, bars, lines and text, like a screenshot or a plot); plus any --image given
(for instance bench_huge.py's 50 MP PNG).

For each: libvips' default `pngsave` (compression 6, no filter) and `filter="all"`
(compression 6, adaptive filters: the png_encode peer row's setting), and PixelFlow's
`pixelflow apply IN OUT` at its default level and at each --levels level. Every PixelFlow
file is decoded back with Pillow and compared with the input's pixels.

    python3 scripts/png_sizes.py --pixelflow .build-bench/release/pixelflow [--levels 1,2,6,9] \
        [--image /tmp/huge/in-50mp.png] [--out /tmp/png-sizes]
"""
import argparse
import os
import subprocess
import sys
import time


def make_inputs(out):
    import numpy as np
    from PIL import Image, ImageDraw
    paths = []
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "shared", "peers"))
    try:
        import bench_peers
        a, _ = bench_peers.make_images(1920, 1080)
        p = os.path.join(out, "peer-1920x1080.png")
        Image.fromarray(a).save(p, compress_level=1)
        paths.append(p)
    except Exception as e:  # the peers' folder is optional
        print(f"no peer image: {e}", file=sys.stderr)
    from skimage import data
    for name in ("astronaut", "coffee", "chelsea"):
        p = os.path.join(out, f"photo-{name}.png")
        Image.fromarray(getattr(data, name)()).save(p, compress_level=1)
        paths.append(p)
    logo = Image.fromarray(data.logo()).convert("RGBA")
    flat = Image.new("RGBA", logo.size, (255, 255, 255, 255))
    flat.alpha_composite(logo)
    p = os.path.join(out, "flat-logo.png")
    flat.convert("RGB").save(p, compress_level=1)
    paths.append(p)
    # A chart: axes, grid, bars, two polylines and labels on white, as a plot or screenshot.
    w, h = 1920, 1080
    img = Image.new("RGB", (w, h), (255, 255, 255))
    d = ImageDraw.Draw(img)
    rng = np.random.default_rng(3)
    for x in range(120, w - 60, 80):
        d.line([(x, 60), (x, h - 120)], fill=(230, 230, 230))
    for y in range(60, h - 120, 60):
        d.line([(120, y), (w - 60, y)], fill=(230, 230, 230))
    colors = [(31, 119, 180), (255, 127, 14), (44, 160, 44), (214, 39, 40)]
    for i, x in enumerate(range(140, w - 100, 60)):
        top = int(h - 120 - rng.integers(50, 800))
        d.rectangle([x, top, x + 40, h - 120], fill=colors[i % 4], outline=(0, 0, 0))
        d.text((x, h - 110), f"Q{i % 4 + 1}", fill=(0, 0, 0))
        d.text((x, top - 14), f"{rng.integers(10, 999)}", fill=(60, 60, 60))
    for c in range(2):
        pts = [(120 + i * 30, int(400 + 200 * np.sin(i / (7 + c * 3)) + rng.normal(0, 20))) for i in range(60)]
        d.line(pts, fill=colors[c + 2], width=3)
    d.line([(120, 60), (120, h - 120), (w - 60, h - 120)], fill=(0, 0, 0), width=2)
    for k in range(12):
        d.text((20, 60 + k * 80), f"label {k} - revenue by quarter", fill=(0, 0, 0))
    p = os.path.join(out, "flat-chart-1920x1080.png")
    img.save(p, compress_level=1)
    paths.append(p)
    return paths


def pixels(path):
    import numpy as np
    from PIL import Image
    im = Image.open(path)
    return np.asarray(im.convert("RGBA" if "A" in im.mode else "RGB"))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pixelflow", required=True, help="the pixelflow command-line tool (release)")
    ap.add_argument("--levels", default="1,2,6,9")
    ap.add_argument("--image", action="append", default=[])
    ap.add_argument("--out", default="/tmp/png-sizes")
    args = ap.parse_args()
    import pyvips
    os.makedirs(args.out, exist_ok=True)
    images = make_inputs(args.out) + args.image
    levels = [int(x) for x in args.levels.split(",")]
    head = ["image", "pixels", "vips default", "vips filter=all"] + ["PixelFlow default"] + [f"PixelFlow {l}" for l in levels]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for src in images:
        name = os.path.splitext(os.path.basename(src))[0]
        im = pyvips.Image.new_from_file(src, access="sequential")
        sizes = []
        for i, kw in enumerate([{}, {"compression": 6, "filter": "all"}]):
            dst = os.path.join(args.out, f"{name}.vips{i}.png")
            im.write_to_file(dst, **kw)
            im = pyvips.Image.new_from_file(src, access="sequential")
            sizes.append(os.path.getsize(dst))
        want = pixels(src)
        cells = [name, f"{im.width}x{im.height}x{im.bands}", f"{sizes[0]:,}", f"{sizes[1]:,}"]
        for level in [None] + levels:
            dst = os.path.join(args.out, f"{name}.pf{level}.png")
            cmd = [args.pixelflow, "apply", src, dst, "--strip"] + ([] if level is None else ["--compression", str(level)])
            t0 = time.time()
            subprocess.run(cmd, check=True)
            dt = time.time() - t0
            size = os.path.getsize(dst)
            same = (pixels(dst) == want).all()
            cells.append(f"{size:,} ({size / sizes[0]:.3f}){'' if same else ' PIXELS DIFFER'}")
            print(f"{name} level {level}: {size} bytes, {dt:.2f} s", file=sys.stderr)
        print("| " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
