#!/usr/bin/env python3
"""Exports the five linear HOG filters of dlib's frontal face detector into PixelFlow's
package resource Sources/PixelFlow/Detectors/Face/Resources/HOG/frontal_face.hog, with dlib's
licence (Boost Software License 1.0) beside it.

    pip install dlib-bin            # dlib's Python module; nothing of dlib is used at run time
    python3 scripts/export_dlib_face_hog.py

dlib.get_frontal_face_detector() is saved with its own serializer (`detector.save`) and the
file is read here: dlib's integers are a length byte (0x80 set for negative numbers) then that
many little-endian bytes; a double is two such integers, a mantissa m and an exponent e, for
m * 2^e; a column matrix is -rows, -1, then its elements. The layout of the detector:
object_detector version 2, scan_fhog_pyramid version 1 (feature extractor, cached features,
cell size, padding, window width and height, maximum pyramid levels, minimum layer width and
height, nuclear norm strength, dimensions), the box-overlap tester (IoU threshold, covered
fraction threshold), then the weight vectors: per filter, 31 feature planes of rows x cols
weights (row-major) and the bias (the detection threshold) last.

The output (little-endian), read by `_FaceHOGModel` (FaceHOGModel.swift):

    bytes 0-7    magic "PFHOG\\x02\\x00\\x00"
    int32 x 10   cell size, filter rows, filter columns, feature planes (31), filter count,
                 window width, window height, minimum layer width, minimum layer height,
                 pyramid rate N (layers shrink by (N-1)/N)
    float64 x 2  box-overlap IoU threshold, covered-fraction threshold
    float64 x F  each filter's threshold (dlib's bias)
    float32 x F*31*rows*cols   the weights, filter by filter, plane by plane, row-major
    then, filter by filter and plane by plane, the filter as separable terms, as dlib applies it
    (its build_fhog_filterbank: the singular value decomposition of the rows x cols weights,
    keeping the singular values s of at least max(1e-4, 0.001 * max s)):
    uint8        the number of terms T
    float32 x T*(rows+cols)    per term, the column filter u * sqrt(s) (rows values) then the
                 row filter v * sqrt(s) (cols values); the plane's filter is the sum over the
                 terms of column x row
"""
import os, struct, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
DEST = os.path.join(HERE, "..", "Sources", "PixelFlow", "Detectors", "Face", "Resources", "HOG")


class Reader:
    def __init__(self, data):
        self.data, self.pos = data, 0

    def int(self):
        head = self.data[self.pos]; self.pos += 1
        size, negative = head & 0x0F, head & 0x80
        value = int.from_bytes(self.data[self.pos:self.pos + size], "little")
        self.pos += size
        return -value if negative else value

    def double(self):
        mantissa, exponent = self.int(), self.int()
        return mantissa * 2.0 ** exponent

    def column(self):
        rows, cols = self.int(), self.int()
        rows, cols = abs(rows), abs(cols)
        assert cols == 1, "expected a column vector, got %d columns" % cols
        return [self.double() for _ in range(rows)]


def read_detector(path):
    r = Reader(open(path, "rb").read())
    assert r.int() == 2, "object_detector version"
    assert r.int() == 1, "scan_fhog_pyramid version"
    # default_fhog_feature_extractor serializes nothing; the cached feature pyramid is empty
    # (dlib::array: max size, size).
    assert r.int() == 0 and r.int() == 0, "cached features"
    d = {}
    d["cell"] = r.int(); d["padding"] = r.int()
    d["window_width"] = r.int(); d["window_height"] = r.int()
    d["max_levels"] = r.int(); d["min_width"] = r.int(); d["min_height"] = r.int()
    d["nuclear_norm"] = r.double(); d["dims"] = r.int()
    d["iou"] = r.double(); d["covered"] = r.double()
    count = r.int()
    d["filters"] = [r.column() for _ in range(count)]
    assert r.pos == len(r.data), "trailing bytes"
    return d


def main():
    import dlib
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "frontal_face.svm")
        detector = dlib.get_frontal_face_detector()
        detector.save(path)
        d = read_detector(path)
    # The filter is the detection window in cells, grown by the padding (dlib's
    # compute_fhog_window_size with image_to_fhog's integer division).
    half_w, half_h = d["window_width"] // 2, d["window_height"] // 2
    def cells(lo, hi):
        return int((hi - 1) / d["cell"]) - 1 - (int((lo - 1) / d["cell"]) - 1) + 1
    cols = cells(-half_w, d["window_width"] - half_w - 1) + 2 * d["padding"]
    rows = cells(-half_h, d["window_height"] - half_h - 1) + 2 * d["padding"]
    assert rows * cols * 31 == d["dims"], (rows, cols, d["dims"])
    assert detector.num_detectors == len(d["filters"])
    out = bytearray(b"PFHOG\x02\x00\x00")
    out += struct.pack("<10i", d["cell"], rows, cols, 31, len(d["filters"]), d["window_width"],
                       d["window_height"], d["min_width"], d["min_height"], 6)
    out += struct.pack("<2d", d["iou"], d["covered"])
    out += struct.pack("<%dd" % len(d["filters"]), *[w[-1] for w in d["filters"]])
    for w in d["filters"]:
        assert len(w) == d["dims"] + 1
        out += struct.pack("<%df" % d["dims"], *w[:-1])
    import numpy as np
    terms = 0
    for w in d["filters"]:
        planes = np.array(w[:-1], dtype=np.float64).reshape(31, rows, cols)
        for f in planes:
            u, sv, vt = np.linalg.svd(f)
            keep = [j for j in range(len(sv)) if sv[j] >= max(1e-4, sv.max() * 0.001)]
            out += struct.pack("<B", len(keep))
            for j in keep:
                out += struct.pack("<%df" % rows, *(u[:, j] * np.sqrt(sv[j])))
                out += struct.pack("<%df" % cols, *(vt[j, :] * np.sqrt(sv[j])))
            terms += len(keep)
    os.makedirs(DEST, exist_ok=True)
    open(os.path.join(DEST, "frontal_face.hog"), "wb").write(out)
    licence = None
    for dist in __import__("importlib.metadata").metadata.distributions():
        if dist.metadata["Name"] and dist.metadata["Name"].lower() in ("dlib-bin", "dlib"):
            for f in dist.files or []:
                if f.name.upper().startswith("LICENSE"):
                    licence = f.read_text()
    if licence is None:
        sys.exit("dlib's LICENSE.txt not found in its distribution")
    with open(os.path.join(DEST, "LICENSE.txt"), "w") as f:
        f.write("frontal_face.hog holds the five linear filters and thresholds of dlib's frontal face\n"
                "detector (dlib.get_frontal_face_detector(), dlib %s, by Davis E. King), exported by\n"
                "scripts/export_dlib_face_hog.py. dlib is distributed under the Boost Software License\n"
                "1.0, quoted from its distribution:\n\n" % dlib.__version__)
        f.write(licence)
    print("cell %d, filters %d of %dx%dx31, window %dx%d, min layer %dx%d, max levels %d, "
          "overlap iou %.4f covered %.4f, thresholds %s, nuclear norm %g, %d separable terms -> %d bytes"
          % (d["cell"], len(d["filters"]), rows, cols, d["window_width"], d["window_height"],
             d["min_width"], d["min_height"], d["max_levels"], d["iou"], d["covered"],
             ", ".join("%.4f" % w[-1] for w in d["filters"]), d["nuclear_norm"], terms, len(out)))


if __name__ == "__main__":
    main()
