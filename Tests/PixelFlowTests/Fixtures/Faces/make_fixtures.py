#!/usr/bin/env python3
"""Regenerates the face-detector fixtures in this folder: small PNG crops of scikit-image's
public-domain photographs and, for each, what OpenCV's CascadeClassifier.detectMultiScale
finds with the Debian opencv-data cascades (expected.json).

Needs: scikit-image, Pillow, numpy, and an OpenCV *4.x* Python module (opencv-python-headless<5:
the 5.x wheels no longer have cv2.CascadeClassifier), plus the Debian package opencv-data
(/usr/share/opencv4). For example:

    python3 -m venv --system-site-packages /tmp/cv4 && /tmp/cv4/bin/pip install 'opencv-python-headless<5'
    /tmp/cv4/bin/python Tests/PixelFlowTests/Fixtures/Faces/make_fixtures.py

Images are read back with cv2.imread (BGR) and converted with cvtColor(BGR2GRAY), exactly what
detectMultiScale does with a color image, so the Swift tests can feed the same PNGs.
"""
import json, os, sys
import numpy as np
from PIL import Image
import skimage.data as data
import cv2

HERE = os.path.dirname(os.path.abspath(__file__))
CASCADES = os.environ.get("PIXELFLOW_CASCADE_DIR", "/usr/share/opencv4")
if not hasattr(cv2, "CascadeClassifier"):
    sys.exit("this cv2 (%s) has no CascadeClassifier; use opencv-python-headless<5" % cv2.__version__)

def save(name, rgb):
    Image.fromarray(np.ascontiguousarray(rgb)).save(os.path.join(HERE, name), optimize=True)

def resize(rgb, w, h):
    return np.asarray(Image.fromarray(rgb).resize((w, h), Image.LANCZOS))

astro = data.astronaut()                       # 512x512 RGB, NASA, public domain
camera = data.camera()                         # 512x512 gray, public domain (MIT's cameraman)
brick = data.brick()                           # 512x512 gray texture, CC0
grass = data.grass()                           # 512x512 gray texture, CC0
coffee = data.coffee()                         # 400x600 RGB, CC0

images = {}
# 1. The astronaut's head and shoulders, downscaled by 2: one face about 48 px wide.
images["astronaut.png"] = resize(astro, 256, 256)[0:200, 40:240]
# 2. A group: four copies of the astronaut's head at different sizes, one mirrored, one darker,
#    pasted on the brick texture.
bg = np.stack([brick[:230, :340]] * 3, axis=-1).astype(np.float32) * 0.6 + 60
head = astro[20:260, 120:340]                  # 240x220 around the face
for (x, y, s, flip, gain) in [(10, 20, 0.45, False, 1.0), (120, 10, 0.6, True, 1.0),
                              (250, 60, 0.4, False, 0.7), (60, 150, 0.3, False, 1.15)]:
    h, w = int(head.shape[0] * s), int(head.shape[1] * s)
    patch = resize(head, w, h).astype(np.float32) * gain
    if flip:
        patch = patch[:, ::-1]
    hh, ww = min(h, 230 - y), min(w, 340 - x)
    bg[y:y + hh, x:x + ww] = patch[:hh, :ww]
images["group.png"] = np.clip(bg, 0, 255).astype(np.uint8)
# 3. The cameraman, downscaled to 256x256 (gray saved as RGB).
images["camera.png"] = np.stack([resize(camera, 256, 256)] * 3, axis=-1)
# 4. Textures and a still life without faces.
images["grass.png"] = np.stack([grass[:160, :200]] * 3, axis=-1)
images["coffee.png"] = resize(coffee, 240, 160)

for name, rgb in images.items():
    save(name, rgb)

cascades = {
    "haar_default": "haarcascades/haarcascade_frontalface_default.xml",
    "haar_alt2": "haarcascades/haarcascade_frontalface_alt2.xml",
    "lbp": "lbpcascades/lbpcascade_frontalface_improved.xml",
    "lbp_old": "lbpcascades/lbpcascade_frontalface.xml",
}
params = {"scaleFactor": 1.1, "minNeighbors": 3}
expected = {"opencv": cv2.__version__, "params": params, "images": {}}
for name in images:
    bgr = cv2.imread(os.path.join(HERE, name), cv2.IMREAD_COLOR)
    gray = cv2.cvtColor(bgr, cv2.COLOR_BGR2GRAY)
    entry = {"width": int(gray.shape[1]), "height": int(gray.shape[0])}
    for key, rel in cascades.items():
        c = cv2.CascadeClassifier(os.path.join(CASCADES, rel))
        assert not c.empty(), rel
        grouped = c.detectMultiScale(gray, scaleFactor=1.1, minNeighbors=3)
        raw = c.detectMultiScale(gray, scaleFactor=1.1, minNeighbors=0)
        entry[key] = {"cascade": rel,
                      "faces": sorted([list(map(int, r)) for r in grouped]),
                      "raw": sorted([list(map(int, r)) for r in raw])}
    # Eye cascades over the whole image (the eyeglasses and 2-split ones have tilted features).
    for key in ["haarcascade_eye.xml", "haarcascade_eye_tree_eyeglasses.xml", "haarcascade_lefteye_2splits.xml"]:
        c = cv2.CascadeClassifier(os.path.join(CASCADES, "haarcascades", key))
        entry[key] = {"cascade": "haarcascades/" + key,
                      "faces": sorted([list(map(int, r)) for r in c.detectMultiScale(gray, 1.1, 3)]),
                      "raw": sorted([list(map(int, r)) for r in c.detectMultiScale(gray, 1.1, 0)])}
    # A minimum size (OpenCV's minSize) changes the scales tried, hence the grouping.
    c = cv2.CascadeClassifier(os.path.join(CASCADES, cascades["haar_default"]))
    entry["haar_default_min46"] = {"cascade": cascades["haar_default"], "minSize": 46,
                                   "faces": sorted([list(map(int, r)) for r in c.detectMultiScale(gray, 1.1, 3, minSize=(46, 46))]),
                                   "raw": sorted([list(map(int, r)) for r in c.detectMultiScale(gray, 1.1, 0, minSize=(46, 46))])}
    expected["images"][name] = entry

# Eyes inside the astronaut's face: raw windows of the eye cascades (tilted features in the
# eyeglasses and 2-split ones) on the face region, to check the engine window by window.
bgr = cv2.imread(os.path.join(HERE, "astronaut.png"), cv2.IMREAD_COLOR)
gray = cv2.cvtColor(bgr, cv2.COLOR_BGR2GRAY)
face = cv2.CascadeClassifier(os.path.join(CASCADES, cascades["haar_default"])).detectMultiScale(gray, 1.1, 3)
x, y, w, h = map(int, face[0])
roi = np.ascontiguousarray(gray[y:y + h, x:x + w])
eyes = {"face": [x, y, w, h]}
for key in ["haarcascade_eye.xml", "haarcascade_eye_tree_eyeglasses.xml", "haarcascade_lefteye_2splits.xml",
            "haarcascade_righteye_2splits.xml", "haarcascade_smile.xml"]:
    c = cv2.CascadeClassifier(os.path.join(CASCADES, "haarcascades", key))
    eyes[key] = {"raw": sorted([list(map(int, r)) for r in c.detectMultiScale(roi, 1.1, 0)]),
                 "grouped": sorted([list(map(int, r)) for r in c.detectMultiScale(roi, 1.1, 3)])}
expected["regions"] = {"astronaut.png": eyes}

with open(os.path.join(HERE, "expected.json"), "w") as f:
    json.dump(expected, f, indent=1, sort_keys=True)
for name in images:
    e = expected["images"][name]
    print(name, os.path.getsize(os.path.join(HERE, name)), "bytes",
          {k: (len(e[k]["faces"]), len(e[k]["raw"])) for k in cascades})
print("eyes", {k: (len(v["raw"]), len(v["grouped"])) for k, v in eyes.items() if k != "face"})
