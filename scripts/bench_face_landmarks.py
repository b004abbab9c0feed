#!/usr/bin/env python3
"""Cost per face of the landmark stage of `pixelflow detect faces` (eyes, mouth, smile, closed
eyes) at `.high` accuracy, on the face set, single-threaded: the time with landmarks minus the
time with --no-landmarks, summed over the images and divided by the faces found.

    python3 scripts/make_face_set.py
    swift build -c release --product pixelflow --scratch-path .build-bench
    python3 scripts/bench_face_landmarks.py [--pixelflow .build-bench/release/pixelflow]
                                            [--baseline OTHER/pixelflow] [--rounds 3] [--runs 5]

With --baseline (for example a release build of main), both binaries are timed in alternating
rounds, image by image, and the difference per face is the cost of what the branch adds.
Each time is `--timing RUNS`: the median of RUNS detections after a first one, models loaded
and the image decoded outside the timing.
"""
import argparse, json, os, statistics, subprocess

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def timed(binary, path, runs, landmarks):
    args = [binary, "detect", "faces", path, "--json", "--threads", "1", "--timing", str(runs)]
    if not landmarks:
        args.append("--no-landmarks")
    r = subprocess.run(args, capture_output=True, text=True, check=True)
    ms = float(r.stderr.strip().split("time_ms=")[-1])
    return ms, len(json.loads(r.stdout)["features"])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pixelflow", default=os.path.join(ROOT, ".build-bench", "release", "pixelflow"))
    ap.add_argument("--baseline")
    ap.add_argument("--set", default=os.path.join(ROOT, ".build", "face-set"))
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--images", default="group_", help="file name prefix of the images timed")
    args = ap.parse_args()
    images = sorted(f for f in os.listdir(args.set) if f.startswith(args.images) and f.endswith((".png", ".jpg")))
    binaries = [("branch", args.pixelflow)] + ([("baseline", args.baseline)] if args.baseline else [])
    per_face = {name: [] for name, _ in binaries}
    for rnd in range(args.rounds):
        order = binaries if rnd % 2 == 0 else binaries[::-1]
        totals = {name: [0.0, 0.0, 0] for name, _ in binaries}
        for image in images:
            path = os.path.join(args.set, image)
            for name, binary in order:
                with_landmarks, faces = timed(binary, path, args.runs, True)
                without, _ = timed(binary, path, args.runs, False)
                totals[name][0] += with_landmarks
                totals[name][1] += without
                totals[name][2] += faces
        for name, (w, wo, faces) in totals.items():
            per_face[name].append((w - wo) / max(faces, 1))
            print("round %d %-8s %d images, %d faces: %.1f ms with landmarks, %.1f without, %.3f ms per face"
                  % (rnd + 1, name, len(images), faces, w, wo, (w - wo) / max(faces, 1)))
    for name in per_face:
        print("%-8s landmark stage per face: median of rounds %.3f ms" % (name, statistics.median(per_face[name])))
    if args.baseline:
        diffs = [a - b for a, b in zip(per_face["branch"], per_face["baseline"])]
        print("branch - baseline per face: %s ms (median %.3f)" % (", ".join("%.3f" % d for d in diffs),
                                                                 statistics.median(diffs)))


if __name__ == "__main__":
    main()
