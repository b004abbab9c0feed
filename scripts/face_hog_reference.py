#!/usr/bin/env python3
"""A plain numpy implementation of the HOG face detector PixelFlow runs at `.high` accuracy
(FaceHOGDetector.swift), written from the algorithm's description (Felzenszwalb et al. 2010,
as dlib's fhog and scan_fhog_pyramid apply it), and checked here against dlib itself.

    python3 scripts/face_hog_reference.py check [IMAGES...]   # boxes vs dlib (default: the face set)
    python3 scripts/face_hog_reference.py fixtures            # writes the HOG test fixture

`fixtures` writes Tests/PixelFlowTests/Fixtures/FaceHOG/hog_fixtures.json, for FaceHOGTests:
- a small RGB image (a 64x56 crop of scikit-image's astronaut, public domain, stored in the
  JSON), its 31 HOG feature planes computed here, and dlib's pyramid_down(6) of it (the layer
  resampling);
- dlib's own faces, dlib.get_frontal_face_detector().run(img, 1, 0) (boxes and scores), on
  the face fixtures of Tests/PixelFlowTests/Fixtures/Faces.
`check` runs this detector and dlib's on each image and compares the boxes.
"""
import json, math, os, struct, sys
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
MODEL = os.path.join(ROOT, "Sources", "PixelFlow", "Detectors", "Face", "Resources", "HOG", "frontal_face.hog")
DIRECTIONS = np.array([[1.0, 0.0], [0.9397, 0.3420], [0.7660, 0.6428], [0.500, 0.8660], [0.1736, 0.9848],
                       [-0.1736, 0.9848], [-0.5000, 0.8660], [-0.7660, 0.6428], [-0.9397, 0.3420]], np.float32)


def load_model():
    data = open(MODEL, "rb").read()
    assert data[:8] == b"PFHOG\x02\x00\x00"
    cell, rows, cols, planes, count, ww, wh, minw, minh, rate = struct.unpack_from("<10i", data, 8)
    iou, covered = struct.unpack_from("<2d", data, 48)
    thresholds = struct.unpack_from("<%dd" % count, data, 64)
    off = 64 + 8 * count
    w = np.frombuffer(data, "<f4", count * planes * rows * cols, off).reshape(count, planes, rows, cols)
    return dict(cell=cell, rows=rows, cols=cols, count=count, minw=minw, minh=minh, rate=rate, iou=iou,
                covered=covered, thresholds=thresholds, filters=w)


def fhog(img, cell=8):
    """31 x hog_rows x hog_cols features of an RGB uint8 image (no filter padding)."""
    h, w = img.shape[:2]
    cr, cc = int(h / cell + 0.5), int(w / cell + 0.5)
    if cr < 3 or cc < 3:
        return np.zeros((31, 0, 0), np.float32)
    vr, vc = min(cr * cell, h) - 1, min(cc * cell, w) - 1
    I = img.astype(np.int32)
    ys, xs = np.arange(1, vr), np.arange(1, vc)
    Y, X = np.meshgrid(ys, xs, indexing="ij")
    gx = I[Y, X + 1] - I[Y, X - 1]       # (n, m, 3)
    gy = I[Y + 1, X] - I[Y - 1, X]
    ln = gx * gx + gy * gy
    # The channel with the longest gradient; on a tie the later channel wins.
    best = np.where(ln[..., 0] > ln[..., 1], 0, 1)
    lb = np.take_along_axis(ln, best[..., None], 2)[..., 0]
    best = np.where(lb > ln[..., 2], best, 2)
    gxb = np.take_along_axis(gx, best[..., None], 2)[..., 0].astype(np.float32)
    gyb = np.take_along_axis(gy, best[..., None], 2)[..., 0].astype(np.float32)
    v = np.sqrt(np.take_along_axis(ln, best[..., None], 2)[..., 0].astype(np.float32))
    bestdot = np.zeros_like(v); besto = np.zeros(v.shape, np.int32)
    for o in range(9):
        dot = gxb * DIRECTIONS[o, 0] + gyb * DIRECTIONS[o, 1]
        m = dot > bestdot; bestdot = np.where(m, dot, bestdot); besto = np.where(m, o, besto)
        m = -dot > bestdot; bestdot = np.where(m, -dot, bestdot); besto = np.where(m, o + 9, besto)
    xp = (X.astype(np.float32) + np.float32(0.5)) / np.float32(cell) + np.float32(0.5)
    ixp = xp.astype(np.int32)
    vx0 = xp - ixp; vx1 = np.float32(1) - vx0
    yp = (Y.astype(np.float32) + np.float32(0.5)) / np.float32(cell) - np.float32(0.5)
    iyp = np.floor(yp).astype(np.int32)
    vy0 = yp - iyp; vy1 = np.float32(1) - vy0
    hist = np.zeros((cr + 2, cc + 2, 18), np.float32)
    vx1v, vx0v = vx1 * v, vx0 * v
    for dy, dx, wgt in ((1, 0, vy1 * vx1v), (2, 0, vy0 * vx1v), (1, 1, vy1 * vx0v), (2, 1, vy0 * vx0v)):
        np.add.at(hist, (iyp + dy, ixp + dx, besto), wgt.astype(np.float32))
    inner = hist[1:cr + 1, 1:cc + 1]
    norm = ((inner[..., :9] + inner[..., 9:]) ** 2).sum(-1).astype(np.float32)
    hr, hc = cr - 2, cc - 2
    out = np.zeros((31, hr, hc), np.float32)
    eps = np.float32(0.0001)
    for y in range(hr):
        for x in range(hc):
            z = np.array([norm[y + 1:y + 3, x + 1:x + 3].sum(), norm[y:y + 2, x + 1:x + 3].sum(),
                          norm[y + 1:y + 3, x:x + 2].sum(), norm[y:y + 2, x:x + 2].sum()], np.float32)
            nn = np.float32(0.2) * np.sqrt(z + eps)
            n = np.float32(0.1) / nn
            hcell = hist[y + 2, x + 2]
            t = np.zeros(4, np.float32)
            for o in range(18):
                hh = np.minimum(hcell[o], nn) * n
                out[o, y, x] = hh.sum(); t += hh
            for o in range(9):
                hh = np.minimum(hcell[o] + hcell[o + 9], nn) * n
                out[18 + o, y, x] = hh.sum()
            out[27:31, y, x] = t * np.float32(2 * 0.2357)
    return out


def resize_bilinear(img, rows, cols):
    """Corner-aligned bilinear resampling of uint8 RGB, weights in float, values truncated."""
    h, w = img.shape[:2]
    xs = (w - 1) / max(cols - 1, 1); ys = (h - 1) / max(rows - 1, 1)
    y = np.arange(rows) * ys; x = np.arange(cols) * xs
    top = np.floor(y).astype(int); bot = np.minimum(top + 1, h - 1); fy = (y - top).astype(np.float32)
    left = np.floor(x).astype(int); right = np.minimum(left + 1, w - 1); fx = (x - left).astype(np.float32)
    I = img.astype(np.float32)
    tl = I[top][:, left]; tr = I[top][:, right]; bl = I[bot][:, left]; br = I[bot][:, right]
    fy = fy[:, None, None]; fx = fx[None, :, None]
    v = (1 - fy) * (1 - fx) * tl + (1 - fy) * fx * tr + fy * (1 - fx) * bl + fy * fx * br
    return np.clip(v, 0, 255).astype(np.uint8)


def rnd(v):
    return int(math.floor(v + 0.5))


def detect(img, model, upsample=1):
    m = model
    if upsample:
        h, w = img.shape[:2]
        img = resize_bilinear(img, rnd((h - 1 + 0.75) * 2) + 1, rnd((w - 1 + 1.25) * 2) + 1)
    N = m["rate"]
    # levels
    l, t, r, b = 0, 0, img.shape[1] - 1, img.shape[0] - 1
    levels = 0
    while True:
        l, t, r, b = [rnd((v - 0.3) * (N - 1) / N) for v in (l, t, r, b)]
        levels += 1
        if not (r - l + 1 >= m["minw"] and b - t + 1 >= m["minh"] and levels < 1000):
            break
    dets = []
    level_img = img
    R, C = m["rows"], m["cols"]
    for lev in range(levels):
        if lev > 0:
            hh, ww = level_img.shape[:2]
            level_img = resize_bilinear(level_img, ((N - 1) * hh) // N, ((N - 1) * ww) // N)
        F = fhog(level_img, m["cell"])
        hr, hc = F.shape[1:]
        if hr == 0:
            continue
        P = np.zeros((31, hr + R - 1, hc + C - 1), np.float32)
        P[:, (R - 1) // 2:(R - 1) // 2 + hr, (C - 1) // 2:(C - 1) // 2 + hc] = F
        for k in range(m["count"]):
            f = m["filters"][k]
            sal = np.zeros((hr, hc), np.float32)
            for i in range(R):
                for j in range(C):
                    sal += np.einsum("p,pyx->yx", f[:, i, j], P[:, i:i + hr, j:j + hc])
            for (yy, xx) in zip(*np.nonzero(sal >= m["thresholds"][k])):
                # The window's cells in the padded feature image are rows yy...yy+R-1 and
                # columns xx...xx+C-1 (dlib's centered_rect about the filter centre); each
                # corner cell maps to the centre of its cell in the level's pixels.
                def to_image(px, py):
                    px = (px + 1 - (C - 1) // 2) * m["cell"] + 1; py = (py + 1 - (R - 1) // 2) * m["cell"] + 1
                    return px + (m["cell"] // 2 if px >= 0 else -(m["cell"] // 2)), py + (m["cell"] // 2 if py >= 0 else -(m["cell"] // 2))
                x0, y0 = to_image(xx, yy)
                x1, y1 = to_image(xx + C - 1, yy + R - 1)
                box = [x0, y0, x1, y1]
                for _ in range(lev):
                    box = [v * N / (N - 1) + 0.3 for v in box]
                box = [rnd(v) for v in box]
                dets.append((float(sal[yy, xx]) - m["thresholds"][k], box))
    dets.sort(key=lambda d: -d[0])
    kept = []
    for s, bx in dets:
        if any(overlap(bx, o, m["iou"], m["covered"]) for _, o in kept):
            continue
        kept.append((s, bx))
    if upsample:
        kept = [(s, [rnd(bx[0] / 2 - 1.25), rnd(bx[1] / 2 - 0.75), rnd(bx[2] / 2 - 1.25), rnd(bx[3] / 2 - 0.75)]) for s, bx in kept]
    return kept


def area(b):
    return max(0, b[2] - b[0] + 1) * max(0, b[3] - b[1] + 1)


def overlap(a, b, iou, covered):
    inter = area([max(a[0], b[0]), max(a[1], b[1]), min(a[2], b[2]), min(a[3], b[3])])
    if inter == 0:
        return False
    outer = area([min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3])])
    return inter / outer > iou or inter / area(a) > covered or inter / area(b) > covered


def main():
    mode = sys.argv[1] if len(sys.argv) > 1 else "check"
    from PIL import Image
    if mode == "fixtures":
        return fixtures()
    if mode == "check":
        import dlib
        model = load_model()
        det = dlib.get_frontal_face_detector()
        paths = sys.argv[2:] or sorted(os.path.join(ROOT, ".build", "face-set", f) for f in os.listdir(os.path.join(ROOT, ".build", "face-set")) if not f.endswith(".json"))
        for p in paths:
            img = np.asarray(Image.open(p).convert("RGB"))
            mine = detect(img, model, 1)
            rects, scores, idx = det.run(img, 1, 0)
            theirs = [([r.left(), r.top(), r.right(), r.bottom()], s) for r, s in zip(rects, scores)]
            print(os.path.basename(p), "mine", [(round(s, 3), b) for s, b in mine], "dlib", [(round(s, 3), b) for b, s in theirs])


def fixtures():
    import dlib, skimage.data
    from PIL import Image
    crop = np.ascontiguousarray(skimage.data.astronaut()[70:126, 180:244])
    feats = fhog(crop)
    down = dlib.pyramid_down(6)(crop)
    det = dlib.get_frontal_face_detector()
    faces = {}
    folder = os.path.join(ROOT, "Tests", "PixelFlowTests", "Fixtures", "Faces")
    for name in ["astronaut.png", "group.png", "camera.png", "coffee.png", "grass.png"]:
        img = np.asarray(Image.open(os.path.join(folder, name)).convert("RGB"))
        rects, scores, idx = det.run(img, 1, 0)
        faces[name] = [{"box": [r.left(), r.top(), r.right(), r.bottom()], "score": round(s, 6), "filter": int(i)}
                       for r, s, i in zip(rects, scores, idx)]
    out = {
        "made_by": "scripts/face_hog_reference.py fixtures (numpy HOG; dlib %s for the resampling and the faces)" % dlib.__version__,
        "image": {"width": crop.shape[1], "height": crop.shape[0], "rgb": crop.reshape(-1).tolist()},
        "features": {"rows": feats.shape[1], "columns": feats.shape[2], "planes": [[round(float(v), 7) for v in p.reshape(-1)] for p in feats]},
        "pyramid_down": {"width": down.shape[1], "height": down.shape[0], "rgb": down.reshape(-1).tolist()},
        "dlib_faces": faces,
    }
    dest = os.path.join(ROOT, "Tests", "PixelFlowTests", "Fixtures", "FaceHOG")
    os.makedirs(dest, exist_ok=True)
    json.dump(out, open(os.path.join(dest, "hog_fixtures.json"), "w"), separators=(",", ":"))
    print("features %dx%d, pyramid_down %dx%d, faces %s" % (feats.shape[1], feats.shape[2], down.shape[1], down.shape[0],
                                                            {k: len(v) for k, v in faces.items()}))


if __name__ == "__main__":
    main()
