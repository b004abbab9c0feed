#!/usr/bin/env python3
"""Face detection on PixelFlow's face set: F1 at IoU 0.5 and time per image of
`pixelflow detect faces --json` at both accuracies and with every OpenCV face cascade, against
OpenCV's detectMultiScale with alt2 and dlib's HOG detector, on the same images in one run.

    python3 scripts/make_face_set.py                      # the images, into .build/face-set
    swift build -c release --product pixelflow --scratch-path .build-bench
    python3 scripts/eval_faces.py [--pixelflow .build-bench/release/pixelflow] [--set .build/face-set]
                                  [--threads 2] [--runs 3] [--cascades] [--json OUT]
                                  [--baseline OTHER_PIXELFLOW]

Needs an OpenCV 4.x Python module (opencv-python-headless<5: the 5.x wheels have no
CascadeClassifier) and dlib (PyPI dlib-bin); either missing is reported and skipped.

Ground truth: Tests/PixelFlowTests/Fixtures/FaceSet/faces.json (made by make_face_set.py; the
images' SHA-256 are checked). A detection matches a face when their intersection over union is
at least 0.5, greedily by IoU, each face and each detection once; F1 = 2TP / (2TP + FP + FN)
over the whole set. Time per image: the detector alone on an image already decoded (PixelFlow:
`--timing RUNS`, the median of RUNS runs after a first one; OpenCV and dlib: the same, in this
process, gray conversion included), with THREADS threads for PixelFlow and OpenCV; dlib's
detector is single-threaded. Each image goes through every detector in turn before the next
image, so that a change of the machine's load touches them alike. The table gives the median
over the images of those per-image medians, and the total.
"""
import argparse, hashlib, json, os, statistics, subprocess, sys, time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
TRUTH = os.path.join(ROOT, "Tests", "PixelFlowTests", "Fixtures", "FaceSet", "faces.json")
OPENCV = "/usr/share/opencv4"
CASCADES = [
    "haarcascades/haarcascade_frontalface_default.xml",
    "haarcascades/haarcascade_frontalface_alt.xml",
    "haarcascades/haarcascade_frontalface_alt2.xml",
    "haarcascades/haarcascade_frontalface_alt_tree.xml",
    "lbpcascades/lbpcascade_frontalface.xml",
    "lbpcascades/lbpcascade_frontalface_improved.xml",
    "haarcascades/haarcascade_profileface.xml",
    "lbpcascades/lbpcascade_profileface.xml",
]


def iou(a, b):
    ix = max(0.0, min(a[0] + a[2], b[0] + b[2]) - max(a[0], b[0]))
    iy = max(0.0, min(a[1] + a[3], b[1] + b[3]) - max(a[1], b[1]))
    inter = ix * iy
    union = a[2] * a[3] + b[2] * b[3] - inter
    return inter / union if union > 0 else 0.0


def match(truth, found, threshold=0.5):
    """(true positives, false positives, false negatives, IoUs of the matches)."""
    pairs = sorted(((iou(t, f), i, j) for i, t in enumerate(truth) for j, f in enumerate(found)), reverse=True)
    used_t, used_f, ious = set(), set(), []
    for v, i, j in pairs:
        if v < threshold:
            break
        if i in used_t or j in used_f:
            continue
        used_t.add(i); used_f.add(j); ious.append(v)
    return len(ious), len(found) - len(ious), len(truth) - len(ious), ious


class Tally:
    def __init__(self, name):
        self.name, self.tp, self.fp, self.fn, self.times, self.per_category = name, 0, 0, 0, [], {}
        self.boxes = {}

    def add(self, item, found, ms):
        tp, fp, fn, _ = match(item["faces"], found)
        self.tp += tp; self.fp += fp; self.fn += fn
        self.times.append(ms)
        self.boxes[item["file"]] = found
        c = self.per_category.setdefault(item["category"], [0, 0, 0])
        c[0] += tp; c[1] += fp; c[2] += fn

    def f1(self, tp=None, fp=None, fn=None):
        tp, fp, fn = (self.tp, self.fp, self.fn) if tp is None else (tp, fp, fn)
        return 2 * tp / (2 * tp + fp + fn) if tp + fp + fn else 1.0

    def row(self):
        p = self.tp / (self.tp + self.fp) if self.tp + self.fp else 1.0
        r = self.tp / (self.tp + self.fn) if self.tp + self.fn else 1.0
        return "| %s | %.3f | %.3f | %.3f | %d | %d | %.1f | %.0f |" % (
            self.name, self.f1(), p, r, self.fp, self.fn, statistics.median(self.times), sum(self.times))


def run_pixelflow(binary, path, extra, threads, runs):
    cmd = [binary, "detect", "faces", path, "--json", "--no-landmarks", "--threads", str(threads),
           "--timing", str(runs)] + extra
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit("%s failed: %s" % (" ".join(cmd), r.stderr))
    ms = float([l for l in r.stderr.splitlines() if l.startswith("time_ms=")][-1].split("=")[1])
    faces = [f["bounds"] for f in json.loads(r.stdout)["features"]]
    return faces, ms


def timed(fn, runs):
    out = fn()
    times = []
    for _ in range(runs):
        t0 = time.perf_counter(); out = fn(); times.append((time.perf_counter() - t0) * 1e3)
    return out, statistics.median(times)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pixelflow", default=os.path.join(ROOT, ".build-bench", "release", "pixelflow"))
    ap.add_argument("--set", default=os.path.join(ROOT, ".build", "face-set"))
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--cascades", action="store_true", help="also every OpenCV face cascade in PixelFlow")
    ap.add_argument("--baseline", help="another pixelflow build, run as 'PixelFlow .high (baseline)' to compare")
    ap.add_argument("--only", default="", help="comma-separated detector names to run (default: all)")
    ap.add_argument("--json", help="write every detector's boxes and figures to this file")
    a = ap.parse_args()
    truth = json.load(open(TRUTH))["images"]
    changed = []
    for item in truth:
        path = os.path.join(a.set, item["file"])
        if not os.path.exists(path):
            sys.exit("%s is missing: run python3 scripts/make_face_set.py" % path)
        if hashlib.sha256(open(path, "rb").read()).hexdigest() != item["sha256"]:
            changed.append(item["file"])
    if changed:
        print("note: %d images differ from the manifest's hashes (another Pillow/numpy?): %s" % (len(changed), ", ".join(changed[:5])))

    detectors = [("PixelFlow .low", ["--accuracy", "low"]), ("PixelFlow .high", ["--accuracy", "high"])]
    if a.cascades:
        for c in CASCADES:
            name = os.path.basename(c)[:-4]
            detectors.append(("PixelFlow %s, OpenCV's parameters" % name, ["--accuracy", "high", "--cascade", os.path.join(OPENCV, c)]))
            detectors.append(("PixelFlow %s, .low's parameters" % name, ["--accuracy", "low", "--cascade", os.path.join(OPENCV, c)]))
    only = set(filter(None, a.only.split(",")))
    # Every detector is a function of an image's path giving (boxes, ms). The images are the
    # outer loop, so that all detectors see the machine in the same state for each image
    # (this machine is shared, and its load changes over minutes).
    runners = []
    for name, extra in detectors:
        if only and name not in only:
            continue
        runners.append((name, lambda path, extra=extra: run_pixelflow(a.pixelflow, path, extra, a.threads, a.runs)))
        if a.baseline and name == "PixelFlow .high":
            runners.append(("PixelFlow .high (baseline)",
                            lambda path, extra=extra: run_pixelflow(a.baseline, path, extra, a.threads, a.runs)))
    try:
        import cv2
        if not hasattr(cv2, "CascadeClassifier"):
            raise ImportError("cv2 %s has no CascadeClassifier" % cv2.__version__)
        cv2.setNumThreads(a.threads)
        alt2 = cv2.CascadeClassifier(os.path.join(OPENCV, "haarcascades/haarcascade_frontalface_alt2.xml"))

        def opencv(path):
            img = cv2.imread(path, cv2.IMREAD_COLOR)
            found, ms = timed(lambda: alt2.detectMultiScale(cv2.cvtColor(img, cv2.COLOR_BGR2GRAY), 1.1, 3), a.runs)
            return [list(map(float, r)) for r in found], ms
        runners.append(("OpenCV %s alt2 detectMultiScale(1.1, 3)" % cv2.__version__, opencv))
    except ImportError as e:
        print("OpenCV skipped: %s" % e)
    try:
        import dlib
        import numpy as np
        from PIL import Image
        detector = dlib.get_frontal_face_detector()
        for up in (1, 0):
            def run_dlib(path, up=up):
                img = np.asarray(Image.open(path).convert("RGB"))
                found, ms = timed(lambda: detector(img, up), a.runs)
                return [[r.left(), r.top(), r.width(), r.height()] for r in found], ms
            runners.append(("dlib %s HOG, upsample %d" % (dlib.__version__, up), run_dlib))
    except ImportError as e:
        print("dlib skipped: %s" % e)
    tallies = [Tally(name) for name, _ in runners]
    for item in truth:
        path = os.path.join(a.set, item["file"])
        for t, (_, run) in zip(tallies, runners):
            found, ms = run(path)
            t.add(item, found, ms)

    faces = sum(len(i["faces"]) for i in truth)
    print("%d images (%d without faces), %d faces; IoU >= 0.5; %d threads (dlib: 1); median of %d runs per image"
          % (len(truth), sum(not i["faces"] for i in truth), faces, a.threads, a.runs))
    print("| detector | F1 | precision | recall | false faces | missed | median ms/image | total ms |")
    print("|---|---|---|---|---|---|---|---|")
    for t in tallies:
        print(t.row())
    cats = sorted({i["category"] for i in truth})
    print("\nF1 per category (negatives: false faces)")
    print("| detector | " + " | ".join(cats) + " |")
    print("|---|" + "---|" * len(cats))
    for t in tallies:
        cells = []
        for c in cats:
            tp, fp, fn = t.per_category.get(c, [0, 0, 0])
            cells.append(str(fp) if c == "negative" else "%.2f" % t.f1(tp, fp, fn))
        print("| %s | %s |" % (t.name, " | ".join(cells)))
    # Time ratios to dlib (img, 1), per image, then the median over the images.
    dlib1 = [t for t in tallies if t.name.startswith("dlib") and t.name.endswith("upsample 1")]
    if dlib1:
        print("\nTime / dlib (img, 1): median over the images of the per-image ratio")
        for t in tallies:
            ratios = [x / y for x, y in zip(t.times, dlib1[0].times) if y > 0]
            faster = sum(r < 1 for r in ratios)
            print("  %-45s %.3f (faster on %d of %d images)" % (t.name, statistics.median(ratios), faster, len(ratios)))
    base = [t for t in tallies if t.name == "PixelFlow .high (baseline)"]
    high = [t for t in tallies if t.name == "PixelFlow .high"]
    if base and high:
        differ = sum(base[0].boxes[f] != high[0].boxes[f] for f in high[0].boxes)
        print("PixelFlow .high against the baseline build: boxes differ on %d of %d images" % (differ, len(truth)))
    if a.json:
        json.dump({t.name: {"f1": t.f1(), "tp": t.tp, "fp": t.fp, "fn": t.fn, "ms": t.times, "boxes": t.boxes}
                   for t in tallies}, open(a.json, "w"), indent=1)


if __name__ == "__main__":
    main()
