#!/usr/bin/env python3
"""libvips' published real-world benchmark task, done by PixelFlow, libvips, OpenCV and Pillow.

The task (libvips "vips-bench", the speed and memory use comparison): load a 5000x5000 RGB
JPEG, crop 100 pixels off every edge, shrink by 10% (bilinear), sharpen with the 3x3 mask
[-1 -1 -1; -1 16 -1; -1 -1 -1] / 8, save as JPEG quality 90.

Each implementation runs in its own child process, several times; for each we keep the
process wall time (start to exit, including interpreter and library start-up, as vips-bench
reports), the time the task itself took inside the process (load to saved file), and the
peak resident memory of the child (ru_maxrss from wait4).

    python3 scripts/bench_vips_task.py --pixelflow .build-bench/release/pixelflow-bench --out DIR --json task.json
    python3 scripts/bench_vips_task.py --run vips IN.jpg OUT.jpg      # one run, prints JSON (used by the driver)
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

SIZE = 5000
SHARPEN = [[-1, -1, -1], [-1, 16, -1], [-1, -1, -1]]


def make_image(path):
    """A deterministic 5000x5000 RGB JPEG (q90): the peers' test-image generator, seed 7."""
    import numpy as np
    from PIL import Image
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "shared", "peers"))
    try:
        import bench_peers
        rng = np.random.default_rng(7)
        rgba = bench_peers._one_image(rng, SIZE, SIZE)
        rgb = np.ascontiguousarray(rgba[..., :3])
    except ImportError:  # shared/ missing: smooth gradients and noise
        rng = np.random.default_rng(7)
        yy, xx = np.mgrid[0:SIZE, 0:SIZE].astype(np.float32) / SIZE
        rgb = np.stack([0.5 + 0.4 * np.sin(6 * xx + 2 * yy), yy, 0.5 + 0.3 * np.cos(5 * xx * yy)], -1)
        rgb += rng.normal(0, 0.012, rgb.shape).astype(np.float32)
        rgb = np.clip(np.floor(rgb * 255 + 0.5), 0, 255).astype(np.uint8)
    Image.fromarray(rgb).save(path, "JPEG", quality=90, subsampling=2)


def run_vips(src, dst):
    import pyvips
    im = pyvips.Image.new_from_file(src, access="sequential")
    im = im.crop(100, 100, im.width - 200, im.height - 200)
    im = im.reduce(1.0 / 0.9, 1.0 / 0.9, kernel="linear")
    mask = pyvips.Image.new_from_array(SHARPEN, scale=8)
    im = im.conv(mask, precision="integer")
    im.write_to_file(dst, Q=90)


def run_opencv(src, dst):
    import cv2
    import numpy as np
    im = cv2.imread(src, cv2.IMREAD_COLOR)
    h, w = im.shape[:2]
    im = im[100:h - 100, 100:w - 100]
    im = cv2.resize(im, (int(round((w - 200) * 0.9)), int(round((h - 200) * 0.9))), interpolation=cv2.INTER_LINEAR)
    k = np.array(SHARPEN, np.float32) / 8
    im = cv2.filter2D(im, -1, k, borderType=cv2.BORDER_REPLICATE)
    cv2.imwrite(dst, im, [cv2.IMWRITE_JPEG_QUALITY, 90])


def run_pillow(src, dst):
    from PIL import Image, ImageFilter
    im = Image.open(src)
    w, h = im.size
    im = im.crop((100, 100, w - 100, h - 100))
    im = im.resize((int(round((w - 200) * 0.9)), int(round((h - 200) * 0.9))), Image.BILINEAR)
    im = im.filter(ImageFilter.Kernel((3, 3), [v for row in SHARPEN for v in row], scale=8))
    im.save(dst, "JPEG", quality=90)


RUNNERS = dict(vips=run_vips, opencv=run_opencv, pillow=run_pillow)


def vm_hwm_mb():
    """Peak resident set of this process image (VmHWM; unlike ru_maxrss it starts afresh at exec)."""
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def child(peer, src, dst):
    t0 = time.perf_counter()
    RUNNERS[peer](src, dst)
    ms = (time.perf_counter() - t0) * 1e3
    peak = vm_hwm_mb()
    print(json.dumps(dict(task="vips", peer=peer, ms=round(ms, 1), peak_rss_mb=round(peak, 1))))


def timed_child(cmd, env=None):
    """Runs cmd; returns (wall seconds, ru_maxrss MiB of the child, its stdout). ru_maxrss also
    counts the forked copy of this driver before exec, so the child's own VmHWM (printed in its
    JSON line) is the figure reported."""
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, env=env)
    out = p.stdout.read()
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode != 0:
        raise RuntimeError(f"{cmd[0]} failed with status {p.returncode}")
    return wall, ru.ru_maxrss / 1024, out.decode()


def versions():
    v = {}
    try:
        import pyvips
        v["vips"] = pyvips.version_string() if hasattr(pyvips, "version_string") else \
            f"{pyvips.version(0)}.{pyvips.version(1)}.{pyvips.version(2)}"
    except Exception:
        pass
    try:
        import cv2
        v["opencv"] = cv2.__version__
    except Exception:
        pass
    try:
        import PIL
        v["pillow"] = PIL.__version__
    except Exception:
        pass
    return v


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--run", nargs=3, metavar=("PEER", "IN", "OUT"), help="child: run one peer once")
    ap.add_argument("--pixelflow", help="path of the pixelflow-bench executable")
    ap.add_argument("--out", default=".build-compare", help="folder for the input and output images")
    ap.add_argument("--repeat", type=int, default=3, help="runs per implementation (default 3)")
    ap.add_argument("--peers", default="vips,opencv,pillow")
    ap.add_argument("--json", help="write the results here")
    ap.add_argument("--make", metavar="PATH", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.run:
        child(*args.run)
        return
    if args.make:
        make_image(args.make)
        return
    os.makedirs(args.out, exist_ok=True)
    src = os.path.join(args.out, "task-5000.jpg")
    if not os.path.exists(src):
        print(f"making {src}", file=sys.stderr)
        # In a child process: the driver stays small, so its forked copies do not inflate ru_maxrss.
        subprocess.run([sys.executable, os.path.abspath(__file__), "--make", src], check=True)
    env = dict(os.environ)
    for k in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE"):
        env.pop(k, None)
    impls = []
    if args.pixelflow:
        impls.append(("pixelflow", lambda dst: [args.pixelflow, "--task", "vips", "--input", src, "--output", dst], None))
    for peer in [p for p in args.peers.split(",") if p]:
        impls.append((peer, lambda dst, peer=peer: [sys.executable, os.path.abspath(__file__), "--run", peer, src, dst], env))
    results = []
    for name, cmd, e in impls:
        dst = os.path.join(args.out, f"task-out-{name}.jpg")
        walls, peaks, inner = [], [], []
        for _ in range(args.repeat):
            wall, peak, out = timed_child(cmd(dst), e)
            walls.append(wall * 1e3)
            try:
                rec = json.loads(out.strip().splitlines()[-1])
                inner.append(rec["ms"])
                peaks.append(rec["peak_rss_mb"])
            except Exception:
                peaks.append(peak)
        from PIL import Image
        size = Image.open(dst).size
        r = dict(peer=name, wall_ms_median=round(statistics.median(walls), 1), wall_ms_min=round(min(walls), 1),
                 task_ms_median=round(statistics.median(inner), 1) if inner else None,
                 task_ms_min=round(min(inner), 1) if inner else None,
                 peak_rss_mb=round(max(peaks), 1), out_size=list(size), runs=len(walls),
                 output_bytes=os.path.getsize(dst))
        results.append(r)
        print(f"{name:10s} wall {r['wall_ms_median']:8.1f} ms (min {r['wall_ms_min']:.1f}), task {r['task_ms_median']} ms, "
              f"peak RSS {r['peak_rss_mb']:.1f} MiB, output {size[0]}x{size[1]}", file=sys.stderr)
    report = dict(task="vips-bench: 5000x5000 RGB JPEG, crop 100 px per edge, shrink 10% bilinear, "
                       "sharpen 3x3 (-1.., 16 / 8), save JPEG q90",
                  input=os.path.basename(src), input_bytes=os.path.getsize(src), versions=versions(), results=results)
    if args.json:
        json.dump(report, open(args.json, "w"), indent=1)


if __name__ == "__main__":
    main()
