#!/usr/bin/env python3
"""The hard QR evaluation set of issue #24: codes in hard light and contrast, made at run time.

    python3 scripts/make_qr_hard_set.py FOLDER          # writes FOLDER/*.png|jpg and FOLDER/manifest.json

`scripts/bench_qr.py --hard` makes this set in a scratch folder and runs PixelFlow and zxing-cpp on
it; the images are never committed. Everything comes from one seeded generator (SEED), so the
set is the same on every run with the same numpy, OpenCV, Pillow and segno versions.

Every code is written by segno (an independent encoder), drawn at 4x supersampling through a
perspective camera and area-averaged down, so edges are anti-aliased as a camera sees them.
Each positive image belongs to one category, named after the hard condition it stresses;
the other conditions are drawn mildly around it:

| category      | stress |
|---------------|--------|
| low_contrast  | 15-40 gray levels between dark and light modules |
| uneven_light  | a strong gradient, a hard-edged shadow across the code, or a glare spot |
| inverted      | light modules on a dark quiet zone |
| perspective   | 30-60 degrees of tilt under a close camera |
| blur          | Gaussian blur, sigma 0.25-0.6 module |
| small_modules | 1.5-2.5 pixels a module |
| large_modules | 7-12 pixels a module |
| high_version  | versions 21-40 |
| jpeg          | JPEG quality 20-40 |
| multi         | 2-4 codes in one image |
| mixed         | all of the above drawn at random, each with probability 1/3 |

and `negative` images hold code-like textures and no code: checkerboards, text-like strokes,
1D barcodes, tiles, random module grids (some with three finder-pattern look-alikes and no
valid format information). A decode in a negative image, or any message not in an image's
list, is a false decode.

Manifest entries: {"file", "message" (the first code's, "" for negatives), "messages" (all),
"set": "hard", "category", and per code: version, level, module, tilt, contrast}.

Needs: pip install segno opencv-python-headless numpy pillow
"""
import json
import math
import os
import string
import sys

import cv2
import numpy as np
import segno
from PIL import Image

SEED = 2424
SUPERSAMPLE = 4
CATEGORIES = ["low_contrast", "uneven_light", "inverted", "perspective", "blur", "small_modules",
              "large_modules", "high_version", "jpeg", "multi", "mixed"]
PER_CATEGORY = 28          # 11 x 28 = 308 positive images
NEGATIVES = 40
ALPHABET = string.ascii_letters + string.digits + " -_.:/?=&#"


def backdrop(rng, w, h):
    """A photo-like gray backdrop: smooth shading, blobs, lines, texture."""
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    img = 120 + 50 * np.sin(xx / rng.uniform(50, 250) + rng.uniform(0, 6)) * np.cos(yy / rng.uniform(50, 250))
    img += rng.uniform(-40, 40)
    for _ in range(int(rng.integers(4, 14))):
        cv2.circle(img, (int(rng.integers(0, w)), int(rng.integers(0, h))), int(rng.integers(8, 100)),
                   float(rng.integers(0, 255)), -1)
    for _ in range(int(rng.integers(3, 10))):
        cv2.line(img, (int(rng.integers(0, w)), int(rng.integers(0, h))),
                 (int(rng.integers(0, w)), int(rng.integers(0, h))), float(rng.integers(0, 255)),
                 int(rng.integers(1, 4)))
    img = cv2.GaussianBlur(img, (0, 0), 1.0)
    img += rng.normal(0, 3, img.shape)
    return np.clip(img, 0, 255).astype(np.float32)


def message_for(rng, index, version, level):
    """A message that makes segno choose exactly `version` at `level` (byte or mixed mode)."""
    prefix = f"#{index} "
    lo, hi = 0, 3000
    best = None
    # Longest random tail that still fits the version; then a random share of it, at least
    # one more than the previous version's capacity so the version is the one wanted.
    tail = "".join(ALPHABET[int(k)] for k in rng.integers(0, len(ALPHABET), 3000))
    while lo <= hi:
        mid = (lo + hi) // 2
        try:
            segno.make(prefix + tail[:mid], error=level, version=version, micro=False, boost_error=False, mask=0)
            best = mid
            lo = mid + 1
        except Exception:
            hi = mid - 1
    if best is None:
        return None
    floor = 0
    if version > 1:
        lo, hi = 0, best
        while lo <= hi:
            mid = (lo + hi) // 2
            try:
                segno.make(prefix + tail[:mid], error=level, version=version - 1, micro=False, boost_error=False, mask=0)
                floor = mid + 1
                lo = mid + 1
            except Exception:
                hi = mid - 1
    n = int(rng.integers(floor, best + 1))
    msg = prefix + tail[:n]
    qr = segno.make(msg, error=level, micro=False, boost_error=False, mask=0)
    return msg if qr.version == version else None


def symbol_plane(message, level, version):
    qr = segno.make(message, error=level, version=version, micro=False, boost_error=False)
    m = np.array(qr.matrix, dtype=np.uint8)
    n = m.shape[0] + 8
    dark = np.zeros((n, n), np.uint8)
    dark[4:-4, 4:-4] = m
    return dark, n


def camera_corners(rng, cx, cy, side, angle, tilt, axis):
    """Image corners of a square of `side` pixels centred at (cx, cy), turned by `angle` in the
    image plane and tilted by `tilt` degrees about an in-plane axis at `axis` degrees, seen
    by a pinhole camera 1.6 sides away (strong foreshortening at high tilt)."""
    f = 1.6 * side
    t, a, b = math.radians(tilt), math.radians(axis), math.radians(angle)
    pts = []
    for (u, v) in [(-0.5, -0.5), (0.5, -0.5), (0.5, 0.5), (-0.5, 0.5)]:
        x, y = u * side, v * side
        # rotate into the tilt axis frame, tilt about its x axis, rotate back
        xa, ya = x * math.cos(-a) - y * math.sin(-a), x * math.sin(-a) + y * math.cos(-a)
        yt, zt = ya * math.cos(t), ya * math.sin(t)
        xb, yb = xa * math.cos(a) - yt * math.sin(a), xa * math.sin(a) + yt * math.cos(a)
        s = f / (f + zt)
        xb, yb = xb * s, yb * s
        pts.append((cx + xb * math.cos(b) - yb * math.sin(b), cy + xb * math.sin(b) + yb * math.cos(b)))
    return pts


def draw_code(img, dark, n, corners, levels):
    """Draws the module plane (1 = dark) with its quiet zone through the quad `corners`, at 4x
    supersampling, area-averaged: `levels` = (dark value, light value), both floats."""
    h, w = img.shape
    xs = [p[0] for p in corners]
    ys = [p[1] for p in corners]
    x0, y0 = max(int(min(xs)) - 2, 0), max(int(min(ys)) - 2, 0)
    x1, y1 = min(int(max(xs)) + 3, w), min(int(max(ys)) + 3, h)
    if x1 - x0 < 4 or y1 - y0 < 4:
        return False
    s = SUPERSAMPLE
    dst = np.float32([[(x - x0) * s, (y - y0) * s] for (x, y) in corners])
    src = np.float32([[0, 0], [n, 0], [n, n], [0, n]])
    H = cv2.getPerspectiveTransform(src, dst)
    size = ((x1 - x0) * s, (y1 - y0) * s)
    plane = cv2.warpPerspective(dark * 255, H, size, flags=cv2.INTER_NEAREST, borderValue=0).astype(np.float32) / 255
    mask = cv2.warpPerspective(np.full((n, n), 255, np.uint8), H, size, flags=cv2.INTER_NEAREST,
                               borderValue=0).astype(np.float32) / 255
    plane = cv2.resize(plane, (x1 - x0, y1 - y0), interpolation=cv2.INTER_AREA)
    mask = cv2.resize(mask, (x1 - x0, y1 - y0), interpolation=cv2.INTER_AREA)
    d, l = levels
    value = l + (d - l) * plane
    region = img[y0:y1, x0:x1]
    img[y0:y1, x0:x1] = region * (1 - mask) + value * mask
    return True


def lighting(rng, img, kind):
    h, w = img.shape
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    if kind == "gradient":
        a = rng.uniform(0, 2 * math.pi)
        t = ((xx - w / 2) * math.cos(a) + (yy - h / 2) * math.sin(a)) / (0.5 * math.hypot(w, h))
        lo = rng.uniform(0.2, 0.45)
        gain = lo + (1 - lo) * (t + 1) / 2
        return img * gain
    if kind == "shadow":
        # a hard-edged (slightly soft) half-plane shadow through the middle of the image
        a = rng.uniform(0, 2 * math.pi)
        px, py = rng.uniform(0.3, 0.7) * w, rng.uniform(0.3, 0.7) * h
        side = (xx - px) * math.cos(a) + (yy - py) * math.sin(a)
        soft = rng.uniform(0.5, 4)
        depth = rng.uniform(0.35, 0.6)
        gain = 1 - depth / (1 + np.exp(np.clip(-side / soft, -60, 60)))
        return img * gain
    if kind == "glare":
        out = img.copy()
        for _ in range(int(rng.integers(1, 3))):
            gx, gy = rng.uniform(0.25, 0.75) * w, rng.uniform(0.25, 0.75) * h
            r = rng.uniform(0.05, 0.2) * min(w, h)
            amp = rng.uniform(80, 200)
            out += amp * np.exp(-((xx - gx) ** 2 + (yy - gy) ** 2) / (2 * r * r))
        return out
    return img


def save(rng, img, folder, name, quality):
    out = np.clip(img + 0.5, 0, 255).astype(np.uint8)
    if quality:
        Image.fromarray(out).save(os.path.join(folder, name + ".jpg"), quality=int(quality))
        return name + ".jpg"
    Image.fromarray(out).save(os.path.join(folder, name + ".png"))
    return name + ".png"


def positive(rng, index, category, folder):
    """One image of `category`; returns its manifest entry or None to draw again."""
    mixed = category == "mixed"
    pick = (lambda c: category == c or (mixed and rng.uniform() < 1 / 3))
    codes = int(rng.integers(2, 5)) if category == "multi" else 1
    specs = []
    for k in range(codes):
        level = "LMQH"[int(rng.integers(0, 4))]
        if pick("high_version"):
            version = int(rng.integers(21, 41))
        else:
            version = int(rng.integers(1, 21)) if rng.uniform() < 0.8 else int(rng.integers(1, 41))
        if pick("small_modules"):
            module = float(rng.uniform(1.5, 2.5))
        elif pick("large_modules"):
            module = float(rng.uniform(7, 12))
        else:
            module = float(rng.uniform(2.5, 7))
        n = 4 * version + 17 + 8
        if n * module > 1100:
            module = 1100 / n
        if n * module > 1100 / max(codes - 0.5, 1):
            version = max(1, int((1100 / max(codes - 0.5, 1) / module - 25) / 4))
            n = 4 * version + 17 + 8
        tilt = float(rng.uniform(30, 60)) if pick("perspective") else float(rng.uniform(0, 20))
        message = message_for(rng, index * 10 + k, version, level)
        if message is None:
            return None
        specs.append((message, level, version, module, n, tilt))
    sides = [s[4] * s[3] for s in specs]
    if codes == 1:
        w = int(max(sides[0] * 1.5 + 40, rng.uniform(480, 1000)))
        h = int(max(sides[0] * 1.5 + 40, w * rng.uniform(0.6, 0.85)))
    else:
        w = int(max(sum(sides) * 1.25 + 40, 800))
        h = int(max(max(sides) * 1.4 + 40, 500))
    img = backdrop(rng, w, h)
    inverted_all = pick("inverted")
    low = pick("low_contrast")
    entry_codes = []
    x_cursor = 20.0
    for (message, level, version, module, n, tilt) in specs:
        side = n * module
        if codes == 1:
            cx = rng.uniform(side * 0.7, w - side * 0.7) if w > side * 1.4 else w / 2
            cy = rng.uniform(side * 0.7, h - side * 0.7) if h > side * 1.4 else h / 2
        else:
            cx = x_cursor + side * 0.6
            cy = rng.uniform(side * 0.7, h - side * 0.7) if h > side * 1.4 else h / 2
            x_cursor += side * 1.25
        angle = float(rng.uniform(0, 360))
        corners = camera_corners(rng, cx, cy, side, angle, tilt, float(rng.uniform(0, 180)))
        contrast = float(rng.uniform(15, 40)) if low else float(rng.uniform(90, 220))
        light = float(rng.uniform(contrast + 10, 250)) if not low else float(rng.uniform(contrast + 30, 230))
        dark_level = light - contrast
        dark, _ = symbol_plane(message, level, version)
        levels = (dark_level, light)
        if inverted_all:
            levels = (light, dark_level)
        if not draw_code(img, dark, n, corners, levels):
            return None
        entry_codes.append({"message": message, "version": version, "level": level, "module": round(module, 2),
                            "tilt": round(tilt, 1), "contrast": round(contrast, 1), "inverted": bool(inverted_all)})
    kinds = []
    if pick("uneven_light"):
        kinds.append(["gradient", "shadow", "glare"][int(rng.integers(0, 3))])
    elif rng.uniform() < 0.25:
        kinds.append("gradient")
    for kind in kinds:
        img = lighting(rng, img, kind)
    module = min(s[3] for s in specs)
    if pick("blur"):
        blur = float(rng.uniform(0.25, 0.6))
    else:
        blur = float(rng.uniform(0, 0.25)) if rng.uniform() < 0.5 else 0.0
    if blur > 0:
        img = cv2.GaussianBlur(img, (0, 0), blur * module)
    noise = float(rng.uniform(0, 2.5 if low else 6))
    img = img + rng.normal(0, noise, img.shape).astype(np.float32)
    if pick("jpeg"):
        quality = int(rng.integers(20, 41))
    else:
        quality = int(rng.integers(50, 91)) if rng.uniform() < 0.5 else 0
    name = save(rng, img, folder, f"{category}_{index:03d}", quality)
    return {"file": name, "message": entry_codes[0]["message"], "messages": [c["message"] for c in entry_codes],
            "set": "hard", "category": category, "codes": entry_codes, "light": kinds, "blur": round(blur, 2),
            "noise": round(noise, 1), "quality": quality}


def negative(rng, index, folder):
    w, h = int(rng.integers(500, 900)), int(rng.integers(400, 700))
    img = backdrop(rng, w, h)
    kind = ["checkerboard", "text", "barcode", "tiles", "modules", "finders"][index % 6]
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    if kind == "checkerboard":
        cell = rng.uniform(3, 25)
        a = rng.uniform(0, math.pi)
        u = (xx * math.cos(a) + yy * math.sin(a)) / cell
        v = (-xx * math.sin(a) + yy * math.cos(a)) / cell
        board = ((np.floor(u) + np.floor(v)) % 2) * rng.uniform(60, 200)
        mask = np.zeros((h, w), np.float32)
        cv2.rectangle(mask, (int(w * 0.1), int(h * 0.1)), (int(w * 0.9), int(h * 0.9)), 1.0, -1)
        img = img * (1 - mask) + (30 + board) * mask
    elif kind == "text":
        page = np.full((h, w), int(rng.uniform(180, 240)), np.uint8)
        y = 30
        while y < h - 10:
            line = "".join(ALPHABET[int(k)] for k in rng.integers(0, len(ALPHABET), 60))
            scale = rng.uniform(0.4, 1.2)
            cv2.putText(page, line, (10, y), int(rng.integers(0, 8)), scale, int(rng.uniform(0, 60)),
                        int(rng.integers(1, 3)))
            y += int(30 * scale + 8)
        img = page.astype(np.float32)
    elif kind == "barcode":
        for _ in range(int(rng.integers(1, 4))):
            bx, by = int(rng.integers(0, w // 2)), int(rng.integers(0, h // 2))
            bh = int(rng.integers(60, 200))
            x = bx
            while x < min(bx + 400, w):
                bw = int(rng.integers(1, 5)) * int(rng.integers(1, 3))
                if rng.uniform() < 0.5:
                    cv2.rectangle(img, (x, by), (x + bw - 1, by + bh), 20.0, -1)
                else:
                    cv2.rectangle(img, (x, by), (x + bw - 1, by + bh), 235.0, -1)
                x += bw
    elif kind == "tiles":
        t = rng.uniform(10, 40)
        g = rng.uniform(1, 4)
        img[:] = 200
        img[((xx % t) < g) | (((yy + (np.floor(xx / t) % 2) * t / 2) % t) < g)] = 40
        img = cv2.GaussianBlur(img, (0, 0), 0.8)
    else:
        # random module grids; "finders" also draws three finder-pattern look-alikes
        size = int(rng.choice([21, 25, 29, 33, 45, 57]))
        m = (rng.uniform(size=(size, size)) < 0.5).astype(np.uint8)
        if kind == "finders":
            for (ox, oy) in [(0, 0), (size - 7, 0), (0, size - 7)]:
                f = np.ones((7, 7), np.uint8)
                f[1:6, 1:6] = 0
                f[2:5, 2:5] = 1
                m[oy:oy + 7, ox:ox + 7] = f
                m[max(oy - 1, 0):oy + 8, ox + 7 if ox == 0 else ox - 1] = 0
                m[oy + 7 if oy == 0 else oy - 1, max(ox - 1, 0):ox + 8] = 0
        n = size + 8
        plane = np.zeros((n, n), np.uint8)
        plane[4:-4, 4:-4] = m
        module = rng.uniform(3, 7)
        side = n * module
        side = min(side, min(w, h) * 0.8)
        corners = camera_corners(rng, w / 2, h / 2, side, rng.uniform(0, 360), rng.uniform(0, 30), rng.uniform(0, 180))
        draw_code(img, plane, n, corners, (rng.uniform(10, 70), rng.uniform(170, 250)))
    img = img + rng.normal(0, 3, img.shape).astype(np.float32)
    quality = int(rng.integers(40, 91)) if rng.uniform() < 0.5 else 0
    name = save(rng, img, folder, f"negative_{index:03d}", quality)
    return {"file": name, "message": "", "messages": [], "set": "hard", "category": "negative", "kind": kind,
            "quality": quality}


def make_hard_set(folder, seed=SEED):
    """Writes the set into `folder` and returns the manifest (also saved as manifest.json)."""
    rng = np.random.default_rng(seed)
    manifest = []
    index = 0
    for category in CATEGORIES:
        made = 0
        while made < PER_CATEGORY:
            index += 1
            entry = positive(rng, index, category, folder)
            if entry is not None:
                manifest.append(entry)
                made += 1
    for k in range(NEGATIVES):
        manifest.append(negative(rng, k, folder))
    with open(os.path.join(folder, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
    return manifest


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    os.makedirs(sys.argv[1], exist_ok=True)
    m = make_hard_set(sys.argv[1])
    print(f"{len(m)} images, {sum(len(e['messages']) for e in m)} codes in {sys.argv[1]}")
