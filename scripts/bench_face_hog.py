#!/usr/bin/env python3
"""CPU time of one HOG face detection (`.high`, one thread): PixelFlow builds against dlib's
`get_frontal_face_detector()(img, 1)` (single-threaded), in alternating rounds, and whether
the builds find the same boxes on every image of a folder.

    python3 scripts/bench_face_hog.py BIN [BIN ...] [--image .build/face-set/group_01.png]
                                      [--rounds 3] [--runs 21] [--compare .build/face-set]

CPU time, not wall time, because the machine is shared: for a PixelFlow build, the children's
user + system time of `pixelflow detect faces IMAGE --threads 1 --timing RUNS` minus that of
`--timing 1` (start-up, decoding and the first run cancel out), over RUNS - 1 detections; for
dlib, `time.process_time()` around RUNS detections in this process (dlib's detector uses one
thread). Each round measures every build and dlib in turn. Prints per round and the medians,
and the ratios PixelFlow / dlib. With --compare, runs each build once on every image of the
folder and reports the images where the boxes or scores (to 0.001) differ between builds.
Needs dlib, numpy and Pillow (e.g. /tmp/facesvenv/bin/python).
"""
import argparse, glob, json, os, resource, statistics, subprocess, sys, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def child_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run(binary, image, runs):
    cmd = [binary, "detect", "faces", image, "--json", "--no-landmarks", "--threads", "1", "--timing", str(runs)]
    before = child_cpu()
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit("%s failed: %s" % (" ".join(cmd), r.stderr))
    return child_cpu() - before, json.loads(r.stdout)["features"]


def pixelflow_ms(binary, image, runs):
    many, _ = run(binary, image, runs)
    one, _ = run(binary, image, 1)
    return (many - one) * 1e3 / (runs - 1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binaries", nargs="+")
    ap.add_argument("--image", default=os.path.join(ROOT, ".build", "face-set", "group_01.png"))
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--runs", type=int, default=21)
    ap.add_argument("--compare", help="folder of images to compare the builds' boxes on")
    a = ap.parse_args()
    import dlib
    import numpy as np
    from PIL import Image
    detector = dlib.get_frontal_face_detector()
    img = np.asarray(Image.open(a.image).convert("RGB"))
    detector(img, 1)

    def dlib_ms():
        t0 = time.process_time()
        for _ in range(a.runs - 1):
            detector(img, 1)
        return (time.process_time() - t0) * 1e3 / (a.runs - 1)

    names = a.binaries + ["dlib %s" % dlib.__version__]
    times = {n: [] for n in names}
    for r in range(a.rounds):
        row = []
        for b in a.binaries:
            times[b].append(pixelflow_ms(b, a.image, a.runs))
            row.append(times[b][-1])
        times[names[-1]].append(dlib_ms())
        row.append(times[names[-1]][-1])
        print("round %d: %s; load %.1f" % (r + 1, ", ".join("%.1f" % v for v in row), os.getloadavg()[0]), flush=True)
    d = statistics.median(times[names[-1]])
    print("CPU ms per detection (median of %d rounds, %d runs each), %s:" % (a.rounds, a.runs, os.path.basename(a.image)))
    for n in names:
        ratios = [p / q for p, q in zip(times[n], times[names[-1]])]
        print("  %-60s %7.1f ms  / dlib: %.3f (per round %s)" % (
            n, statistics.median(times[n]), statistics.median(times[n]) / d, ", ".join("%.3f" % x for x in ratios)))
    if a.compare:
        images = sorted(glob.glob(os.path.join(a.compare, "*.png")) + glob.glob(os.path.join(a.compare, "*.jpg")))
        differ = 0
        for path in images:
            found = []
            for b in a.binaries:
                found.append([(f["bounds"], round(f["confidence"], 3)) for f in run(b, path, 1)[1]])
            if any(f != found[0] for f in found[1:]):
                differ += 1
                print("  differs: %s: %s" % (os.path.basename(path), found))
        print("boxes and scores compared on %d images: %d differ" % (len(images), differ))


if __name__ == "__main__":
    main()
