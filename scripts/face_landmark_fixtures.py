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
face set, and which of the set's source faces each one is (the nearest by dlib's face
recognition network, whose model ships in the same package), and where its mouth is (the
source photo's mouth centre, placed by eye, carried over by the similarity transform between
the source's and the face's dlib points): the ground truth of
FaceLandmarkTests.testAccuracyOnTheFaceSet, run with PIXELFLOW_FACE_SET=.build/face-set.
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


def source_faces(detector, predictor, encoder):
    """The face set's source faces (make_face_set.py: the astronaut, smiling; Grace Hopper
    and the cameraman, not smiling) as dlib face descriptors (dlib's face recognition
    network, from the same package, on each photo's largest face)."""
    import skimage.data
    from make_face_set import hopper_photo
    photos = {"astronaut": skimage.data.astronaut(), "hopper": np.array(hopper_photo()),
              "cameraman": np.stack([skimage.data.camera()] * 3, -1)}
    refs = {}
    for name, img in photos.items():
        faces = sorted(detector(img, 1), key=lambda f: -f.width())
        # make_face_set.py's hand-drawn box of the cameraman when dlib finds no face.
        rect = faces[0] if faces else dlib_rect(205, 125, 277, 197)
        shape = predictor(img, rect)
        refs[name] = np.array(encoder.compute_face_descriptor(img, shape))
        SOURCE_POINTS[name] = np.array([[p.x, p.y] for p in shape.parts()], np.float64)
    return refs


# The mouth's centre (where the lips meet) on the source photos, placed by eye on 3x crops.
SOURCE_MOUTHS = {"astronaut": (223.3, 145.3), "hopper": (273.3, 277.3)}
SOURCE_POINTS = {}


def mouth_truth(source, points, flipped):
    """The source photo's mouth carried to a face by the least-squares similarity transform
    from the source's 5 dlib points to the face's (points mirrored for a flipped face)."""
    if source not in SOURCE_MOUTHS:
        return None
    src = SOURCE_POINTS[source].copy()
    mouth = np.array(SOURCE_MOUTHS[source])
    dst = np.array(points, np.float64)
    if flipped:  # a mirrored face: its eye points swap sides
        src[:, 0] = -src[:, 0]; mouth[0] = -mouth[0]
        src = src[[2, 3, 0, 1, 4]]
    a = np.zeros((10, 4)); rhs = dst.reshape(-1)
    a[0::2] = np.c_[src[:, 0], -src[:, 1], np.ones(5), np.zeros(5)]
    a[1::2] = np.c_[src[:, 1], src[:, 0], np.zeros(5), np.ones(5)]
    c, s, tx, ty = np.linalg.lstsq(a, rhs, rcond=None)[0]
    return [round(c * mouth[0] - s * mouth[1] + tx, 2), round(s * mouth[0] + c * mouth[1] + ty, 2)]


def dlib_rect(l, t, r, b):
    import dlib
    return dlib.rectangle(l, t, r, b)


def which_source(img, rect, predictor, encoder, refs):
    """The source face nearest this face (descriptor distance; dlib calls under 0.6 the same
    person), either way round (faces are pasted flipped too): (name, distance, whether
    it is flipped), name "none" when no source is nearer than 0.6."""
    best = (9.0, "none", False)
    for im, r in ((img, rect), (np.ascontiguousarray(img[:, ::-1]), None)):
        if r is None:
            w = img.shape[1]
            r = dlib_rect(w - 1 - rect.right(), rect.top(), w - 1 - rect.left(), rect.bottom())
        d = np.array(encoder.compute_face_descriptor(im, predictor(im, r)))
        best = min([best] + [(float(np.linalg.norm(d - v)), name, r is not rect) for name, v in refs.items()])
    return (best[1] if best[0] < 0.6 else "none"), best[0], best[2]


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
        encoder = dlib.face_recognition_model_v1(os.path.join(os.path.dirname(model_path()),
                                                              "dlib_face_recognition_resnet_model_v1.dat"))
        references = source_faces(detector, predictor, encoder)
        out, counts = [], {}
        for name in images:
            img = np.array(Image.open(os.path.join(args.set, name)).convert("RGB"))
            for f in detector(img, 1):
                box = [f.left(), f.top(), f.right(), f.bottom()]
                source, score, flipped = which_source(img, f, predictor, encoder, references)
                counts[source] = counts.get(source, 0) + 1
                pts = points(img, f)
                out.append({"file": name, "box": box, "points": pts, "source": source,
                            "source_distance": round(score, 3), "mouth": mouth_truth(source, pts, flipped)})
        path = os.path.join(ROOT, ".build", "face-landmarks-dlib.json")
        json.dump({"faces": out}, open(path, "w"))
        print("%d faces on %d images -> %s; sources %s; largest distance %.3f"
              % (len(out), len(images), path, counts, max(e["source_distance"] for e in out)))
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
