#!/usr/bin/env python3
"""Times OpenCV's CascadeClassifier.detectMultiScale on one image, for pixelflow-bench's
`faces` section (which runs it as a child process and reports the ratio).

    python3 scripts/bench_faces_opencv.py IMAGE --cascade PATH [--scale 1.1] [--neighbors 3]
                                          [--stride 1] [--runs 7] [--threads N]

Prints one JSON line: {"peer": "opencv", "version": ..., "median_ms": ..., "min_ms": ...,
"faces": [[x, y, w, h], ...]}. The image is read with cv2.imread and converted to gray
before timing (detectMultiScale's own input). Exits 3 when this cv2 has no
CascadeClassifier (the opencv-python 5.x wheels dropped it; use opencv-python-headless<5).
"""
import argparse, json, statistics, sys, time

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("image")
    ap.add_argument("--cascade", required=True)
    ap.add_argument("--scale", type=float, default=1.1)
    ap.add_argument("--neighbors", type=int, default=3)
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--threads", type=int, default=0)
    a = ap.parse_args()
    try:
        import cv2
    except ImportError:
        print(json.dumps({"error": "no cv2"})); sys.exit(3)
    if not hasattr(cv2, "CascadeClassifier"):
        print(json.dumps({"error": "cv2 %s has no CascadeClassifier" % cv2.__version__})); sys.exit(3)
    if a.threads > 0:
        cv2.setNumThreads(a.threads)
    c = cv2.CascadeClassifier(a.cascade)
    if c.empty():
        print(json.dumps({"error": "cannot load " + a.cascade})); sys.exit(2)
    gray = cv2.cvtColor(cv2.imread(a.image, cv2.IMREAD_COLOR), cv2.COLOR_BGR2GRAY)
    faces = c.detectMultiScale(gray, a.scale, a.neighbors)  # warm-up
    times = []
    for _ in range(a.runs):
        t0 = time.perf_counter()
        faces = c.detectMultiScale(gray, a.scale, a.neighbors)
        times.append(time.perf_counter() - t0)
    print(json.dumps({"peer": "opencv", "version": cv2.__version__, "threads": cv2.getNumThreads(),
                      "median_ms": statistics.median(times) * 1e3, "min_ms": min(times) * 1e3,
                      "faces": [list(map(int, r)) for r in faces]}))

if __name__ == "__main__":
    main()
