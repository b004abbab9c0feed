#!/usr/bin/env python3
"""Builds PixelFlow's face evaluation set (scripts/eval_faces.py) from public-domain photographs
that PyPI packages ship, with a fixed seed, and writes its ground truth.

    python3 scripts/make_face_set.py [--out .build/face-set] [--write-manifest]

Sources (Tests/PixelFlowTests/Fixtures/FaceSet/sources.md has their provenance and licences):
scikit-image's astronaut (NASA, public domain), camera (the cameraman, public domain) and its
textures and scenes (CC0 / public domain), and matplotlib's grace_hopper.jpg (US Navy,
public domain), extracted from the matplotlib wheel that `pip download` fetches.

The machine this project runs on reaches only package registries, so no photo collection can
be downloaded: the set is made of those three real faces (a smiling woman, a man in three-
quarter view behind a camera, an older woman with glasses and a cap), pasted with soft
elliptical masks at many sizes and positions into real scenes and textures, flipped, turned in
the image plane, squeezed horizontally (a crude stand-in for a turned head), partly covered,
given drawn glasses, darkened, blurred, noised and JPEG-compressed; plus negatives (textures,
a cat, a horse, a rocket, coins, text...). Every face's box is known from the transform applied
to its source box, which was checked by eye on the source photo (the mean of dlib's HOG box
and OpenCV's alt2 box, both shown on the photo; the cameraman's drawn by hand).

Writes the images (PNG, some JPEG) to --out, and with --write-manifest the ground truth
Tests/PixelFlowTests/Fixtures/FaceSet/faces.json: per image its file name, size, category,
SHA-256 and face boxes [x, y, w, h] in pixels (top-left origin). eval_faces.py checks the
hashes and says so when a different Pillow or numpy made different pixels.
"""
import argparse, hashlib, io, json, math, os, random, zipfile, subprocess, sys, tempfile
import numpy as np
from PIL import Image, ImageDraw, ImageFilter
import skimage.data as data

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
MANIFEST = os.path.join(ROOT, "Tests", "PixelFlowTests", "Fixtures", "FaceSet", "faces.json")
MATPLOTLIB = "matplotlib==3.11.2"


def hopper_photo():
    """grace_hopper.jpg from the matplotlib wheel (pip download; cached in .build)."""
    cache = os.path.join(ROOT, ".build", "face-sources", "grace_hopper.jpg")
    if not os.path.exists(cache):
        os.makedirs(os.path.dirname(cache), exist_ok=True)
        with tempfile.TemporaryDirectory() as tmp:
            subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "-q", "-d", tmp,
                            "--only-binary=:all:", MATPLOTLIB], check=True)
            wheel = [f for f in os.listdir(tmp) if f.endswith(".whl")][0]
            with zipfile.ZipFile(os.path.join(tmp, wheel)) as z:
                open(cache, "wb").write(z.read("matplotlib/mpl-data/sample_data/grace_hopper.jpg"))
    return Image.open(cache).convert("RGB")


# A source face: the photo, the face box [x, y, w, h] and the head ellipse (cx, cy, rx, ry)
# cut out with a soft edge, and the eye centres (for drawn glasses).
class Source:
    def __init__(self, name, image, box, ellipse, eyes):
        self.name, self.image, self.box, self.ellipse, self.eyes = name, image, box, ellipse, eyes


def sources():
    astro = Image.fromarray(data.astronaut())
    hopper = hopper_photo()
    # Boxes: mean of dlib (up 0) and OpenCV alt2 boxes on the photo, checked by eye.
    return [
        Source("astronaut", astro, (178.0, 74.5, 92.5, 92.5), (222, 118, 78, 100), [(205, 112), (246, 112)]),
        Source("hopper", hopper, (153.0, 118.0, 227.5, 227.5), (262, 235, 150, 195), [(230, 200), (330, 200)]),
    ]


def head_patch(src, scale, flip=False, squeeze=1.0, angle=0.0):
    """The source head scaled so that its face box is `scale` times the source's, as an RGBA
    patch with a feathered elliptical alpha; returns (patch, face box in patch coordinates)."""
    cx, cy, rx, ry = src.ellipse
    x0, y0, x1, y1 = cx - rx, cy - ry, cx + rx, cy + ry
    crop = src.image.crop((x0, y0, x1, y1)).convert("RGBA")
    w, h = crop.size
    mask = Image.new("L", (w, h), 0)
    ImageDraw.Draw(mask).ellipse([4, 4, w - 5, h - 5], fill=255)
    mask = mask.filter(ImageFilter.GaussianBlur(max(2, w / 40)))
    crop.putalpha(mask)
    bx, by, bw, bh = src.box
    bx -= x0; by -= y0
    if flip:
        crop = crop.transpose(Image.FLIP_LEFT_RIGHT)
        bx = w - bx - bw
    sx, sy = scale * squeeze, scale
    nw, nh = max(1, round(w * sx)), max(1, round(h * sy))
    crop = crop.resize((nw, nh), Image.LANCZOS)
    box = [bx * nw / w, by * nh / h, bw * nw / w, bh * nh / h]
    if angle:
        # Turn about the face centre; the box keeps its size around the turned centre.
        fx, fy = box[0] + box[2] / 2, box[1] + box[3] / 2
        big = crop.rotate(angle, resample=Image.BICUBIC, expand=True)
        t = math.radians(angle)
        ox, oy = fx - nw / 2, fy - nh / 2
        rx_, ry_ = ox * math.cos(t) + oy * math.sin(t), -ox * math.sin(t) + oy * math.cos(t)
        nfx, nfy = big.size[0] / 2 + rx_, big.size[1] / 2 + ry_
        box = [nfx - box[2] / 2, nfy - box[3] / 2, box[2], box[3]]
        crop = big
    return crop, box


def background(name, w, h, rng):
    pick = {
        "brick": lambda: np.stack([data.brick()] * 3, -1),
        "grass": lambda: np.stack([data.grass()] * 3, -1),
        "gravel": lambda: np.stack([data.gravel()] * 3, -1),
        "coffee": data.coffee, "rocket": data.rocket, "hubble": data.hubble_deep_field,
        "chelsea": data.chelsea, "horse": lambda: np.stack([(data.horse() * 255).astype(np.uint8)] * 3, -1),
        "motorcycle": data.motorcycle_left if hasattr(data, "motorcycle_left") else data.coffee,
        "coins": lambda: np.stack([data.coins()] * 3, -1), "page": lambda: np.stack([data.page()] * 3, -1),
        "moon": lambda: np.stack([data.moon()] * 3, -1), "color": data.colorwheel if hasattr(data, "colorwheel") else data.coffee,
        "text": lambda: np.stack([data.text()] * 3, -1),
    }[name]
    img = Image.fromarray(np.ascontiguousarray(pick()[..., :3])).convert("RGB")
    # Cover w x h: scale up as needed, then crop at a random place.
    s = max(w / img.size[0], h / img.size[1])
    if s > 1:
        img = img.resize((math.ceil(img.size[0] * s), math.ceil(img.size[1] * s)), Image.BICUBIC)
    x = rng.randint(0, img.size[0] - w)
    y = rng.randint(0, img.size[1] - h)
    return img.crop((x, y, x + w, y + h))


def paste_faces(canvas, heads, rng, boxes):
    """Pastes (patch, box) pairs at random places where the faces do not overlap; returns the
    indices of the heads placed (a head that finds no free place is left out)."""
    W, H = canvas.size
    placed = []
    for index, (patch, box) in enumerate(heads):
        for _ in range(200):
            x = rng.randint(-int(box[0]), max(-int(box[0]), W - int(box[0] + box[2])))
            y = rng.randint(-int(box[1]), max(-int(box[1]), H - int(box[1] + box[3])))
            b = [x + box[0], y + box[1], box[2], box[3]]
            if b[0] < 0 or b[1] < 0 or b[0] + b[2] > W or b[1] + b[3] > H:
                continue
            if all(not overlaps(b, o, margin=0.25) for o in boxes):
                canvas.alpha_composite(patch, (x, y)) if canvas.mode == "RGBA" else canvas.paste(patch, (x, y), patch)
                boxes.append(b)
                placed.append(index)
                break
    return placed


def overlaps(a, b, margin):
    ax0, ay0, ax1, ay1 = a[0] - a[2] * margin, a[1] - a[3] * margin, a[0] + a[2] * (1 + margin), a[1] + a[3] * (1 + margin)
    return not (ax1 <= b[0] or b[0] + b[2] <= ax0 or ay1 <= b[1] or b[1] + b[3] <= ay0)


def draw_glasses(img, src, face_box):
    """Dark round glasses over the eyes of a pasted (unflipped, unturned) astronaut face."""
    d = ImageDraw.Draw(img)
    fx, fy, fw, fh = face_box
    sx0, sy0, sw, sh = src.box
    r = 0.16 * fw
    for ex, ey in src.eyes:
        cx = fx + (ex - sx0) / sw * fw
        cy = fy + (ey - sy0) / sh * fh
        d.ellipse([cx - r, cy - r * 0.8, cx + r, cy + r * 0.8], outline=(20, 20, 20), width=max(2, int(fw / 30)))
    lx = fx + (src.eyes[0][0] - sx0) / sw * fw + r
    rx = fx + (src.eyes[1][0] - sx0) / sw * fw - r
    cy = fy + (src.eyes[0][1] - sy0) / sh * fh
    d.line([lx, cy, rx, cy], fill=(20, 20, 20), width=max(2, int(fw / 30)))


def cover(img, box, rng, part):
    """Covers part of a face with a flat shape (a hand, a scarf, a sign): `mouth`, `eye`, `side`."""
    d = ImageDraw.Draw(img)
    x, y, w, h = box
    color = tuple(int(c) for c in rng.choice([(200, 160, 130), (40, 60, 120), (230, 230, 230), (90, 70, 50)]))
    if part == "mouth":
        d.rectangle([x - 0.05 * w, y + 0.62 * h, x + 1.05 * w, y + 1.05 * h], fill=color)
    elif part == "eye":
        d.ellipse([x + 0.1 * w, y + 0.15 * h, x + 0.5 * w, y + 0.55 * h], fill=color)
    else:
        d.rectangle([x + 0.62 * w, y - 0.05 * h, x + 1.1 * w, y + 1.05 * h], fill=color)


def build(out):
    rng = random.Random(2026)
    srcs = sources()
    astro, hopper = srcs
    camera = Image.fromarray(np.stack([data.camera()] * 3, -1))
    camera_box = [205.0, 125.0, 73.0, 73.0]   # hand-drawn: brow to chin, the camera covers the right eye
    items = []

    def add(name, img, boxes, category, fmt="png", quality=90):
        path = os.path.join(out, name + "." + ("jpg" if fmt == "jpeg" else "png"))
        buf = io.BytesIO()
        if fmt == "jpeg":
            img.convert("RGB").save(buf, "JPEG", quality=quality)
        else:
            img.convert("RGB").save(buf, "PNG")
        raw = buf.getvalue()
        open(path, "wb").write(raw)
        items.append({"file": os.path.basename(path), "width": img.size[0], "height": img.size[1],
                      "category": category, "sha256": hashlib.sha256(raw).hexdigest(),
                      "faces": [[round(v, 1) for v in b] for b in boxes]})

    # 1. The photographs themselves.
    add("photo_astronaut", astro.image, [list(astro.box)], "photo")
    add("photo_hopper", hopper.image, [list(hopper.box)], "photo-glasses")
    add("photo_camera", camera, [camera_box], "profile-occluded")
    # 2. Groups of 2-6 faces, 48-160 px, on scenes and textures.
    scenes = ["brick", "grass", "gravel", "coffee", "rocket", "hubble", "chelsea", "horse", "coins", "page", "moon", "text"]
    for i in range(16):
        W, H = rng.choice([(640, 480), (800, 600), (720, 540), (960, 640)])
        canvas = background(rng.choice(scenes), W, H, rng)
        boxes, heads = [], []
        for _ in range(rng.randint(2, 6)):
            src = rng.choice(srcs)
            size = rng.uniform(48, 160)
            heads.append(head_patch(src, size / src.box[2], flip=rng.random() < 0.5))
        paste_faces(canvas, heads, rng, boxes)
        add("group_%02d" % i, canvas, boxes, "group", fmt="jpeg" if i % 3 == 0 else "png", quality=85)
    # 3. Small faces: 5-9 faces, 24-44 px.
    for i in range(6):
        W, H = 800, 600
        canvas = background(rng.choice(scenes), W, H, rng)
        boxes, heads = [], []
        for _ in range(rng.randint(5, 9)):
            src = rng.choice(srcs)
            heads.append(head_patch(src, rng.uniform(24, 44) / src.box[2], flip=rng.random() < 0.5))
        paste_faces(canvas, heads, rng, boxes)
        add("small_%02d" % i, canvas, boxes, "small")
    # 4. Drawn glasses on the astronaut, beside Grace Hopper's own.
    for i in range(5):
        canvas = background(rng.choice(scenes), 640, 480, rng)
        boxes = []
        heads = [head_patch(astro, rng.uniform(70, 150) / astro.box[2]) for _ in range(rng.randint(1, 2))]
        heads.append(head_patch(hopper, rng.uniform(60, 140) / hopper.box[2], flip=rng.random() < 0.5))
        placed = paste_faces(canvas, heads, rng, boxes)
        for b, index in zip(boxes, placed):
            if index < len(heads) - 1:      # the astronauts; Grace Hopper is last
                draw_glasses(canvas, astro, b)
        add("glasses_%02d" % i, canvas, boxes, "glasses")
    # 5. Occlusion: a shape over the mouth, one eye or one side.
    for i, part in enumerate(["mouth", "eye", "side", "mouth", "eye", "side"]):
        canvas = background(rng.choice(scenes), 640, 480, rng)
        boxes = []
        heads = [head_patch(s, rng.uniform(80, 170) / s.box[2], flip=rng.random() < 0.5)
                 for s in [rng.choice(srcs) for _ in range(rng.randint(1, 3))]]
        paste_faces(canvas, heads, rng, boxes)
        for b in boxes:
            cover(canvas, b, rng, part)
        add("occluded_%02d_%s" % (i, part), canvas, boxes, "occluded")
    # 6. Profiles and turned heads: the cameraman at other sizes, and faces squeezed sideways.
    for i, s in enumerate([0.6, 1.4]):
        W, H = round(512 * s), round(512 * s)
        img = camera.resize((W, H), Image.LANCZOS)
        if i == 1:
            img = img.transpose(Image.FLIP_LEFT_RIGHT)
            b = [W - (camera_box[0] + camera_box[2]) * s, camera_box[1] * s, camera_box[2] * s, camera_box[3] * s]
        else:
            b = [v * s for v in camera_box]
        add("profile_camera_%d" % i, img, [b], "profile-occluded")
    for i in range(4):
        canvas = background(rng.choice(scenes), 640, 480, rng)
        boxes = []
        heads = [head_patch(s, rng.uniform(80, 150) / s.box[2], flip=rng.random() < 0.5, squeeze=rng.uniform(0.65, 0.85))
                 for s in [rng.choice(srcs) for _ in range(rng.randint(1, 3))]]
        paste_faces(canvas, heads, rng, boxes)
        add("turned_%02d" % i, canvas, boxes, "turned")
    # 7. In-plane rotation, 8-20 degrees either way.
    for i in range(4):
        canvas = background(rng.choice(scenes), 640, 480, rng)
        boxes = []
        heads = [head_patch(s, rng.uniform(80, 150) / s.box[2], flip=rng.random() < 0.5,
                            angle=rng.choice([-1, 1]) * rng.uniform(8, 20))
                 for s in [rng.choice(srcs) for _ in range(rng.randint(1, 3))]]
        paste_faces(canvas, heads, rng, boxes)
        add("rotated_%02d" % i, canvas, boxes, "rotated")
    # 8. Hard light and quality: dark, low contrast, side light, blur, noise, JPEG q25.
    for i, kind in enumerate(["dark", "lowcontrast", "sidelight", "blur", "noise", "jpeg"]):
        canvas = background(rng.choice(scenes), 640, 480, rng)
        boxes = []
        heads = [head_patch(s, rng.uniform(60, 150) / s.box[2], flip=rng.random() < 0.5)
                 for s in [rng.choice(srcs) for _ in range(rng.randint(2, 4))]]
        paste_faces(canvas, heads, rng, boxes)
        a = np.asarray(canvas.convert("RGB")).astype(np.float32)
        if kind == "dark":
            a = 255 * (a / 255) ** 2.2 * 0.6
        elif kind == "lowcontrast":
            a = 110 + (a - 128) * 0.3
        elif kind == "sidelight":
            a = a * np.linspace(0.25, 1.2, a.shape[1])[None, :, None]
        elif kind == "noise":
            a = a + np.random.default_rng(7).normal(0, 14, a.shape)
        img = Image.fromarray(np.clip(a, 0, 255).astype(np.uint8))
        if kind == "blur":
            img = img.filter(ImageFilter.GaussianBlur(2.5))
        add("light_%02d_%s" % (i, kind), img, boxes, "light", fmt="jpeg" if kind == "jpeg" else "png", quality=25)
    # 9. Negatives: scenes and textures with no face.
    for i, name in enumerate(["brick", "grass", "gravel", "coffee", "rocket", "hubble", "chelsea", "horse", "coins", "page", "moon", "text"]):
        W, H = rng.choice([(512, 384), (640, 480)])
        add("negative_%02d_%s" % (i, name), background(name, W, H, rng), [], "negative")
    return items


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=os.path.join(ROOT, ".build", "face-set"))
    ap.add_argument("--write-manifest", action="store_true")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    items = build(a.out)
    manifest = {"seed": 2026, "made_by": "scripts/make_face_set.py", "box": "[x, y, w, h], top-left origin, pixels",
                "images": items}
    json.dump(manifest, open(os.path.join(a.out, "faces.json"), "w"), indent=1)
    if a.write_manifest:
        json.dump(manifest, open(MANIFEST, "w"), indent=1)
    faces = sum(len(i["faces"]) for i in items)
    print("%d images (%d without faces), %d faces -> %s" % (len(items), sum(not i["faces"] for i in items), faces, a.out))


if __name__ == "__main__":
    main()
