#!/usr/bin/env python3
"""Reference values for PixelFlow's Gaussian blur and Lanczos scale, made by OpenCV and Pillow.

Writes Tests/PixelFlowTests/Fixtures/Filters/references.json: a small deterministic RGBA float
image and, for each case, the output of an independent library on it:

- gaussian_*: cv2.GaussianBlur with ksize 2*ceil(3 sigma)+1 (the peer benchmark's rule),
  BORDER_CONSTANT (transparent surroundings, as CIGaussianBlur) or BORDER_REPLICATE
  (PixelFlow's clampedToExtent()).
- lanczos_*: Pillow's Image.resize(..., LANCZOS) in mode "F", one channel at a time
  (antialiased Lanczos-3, as CILanczosScaleTransform).

Run: pip install opencv-python-headless pillow numpy && python3 scripts/make_filter_fixtures.py
"""
import json
import math
import os

import cv2
import numpy as np
from PIL import Image

W, H = 24, 18
rng = np.random.default_rng(2026)
yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
img = np.zeros((H, W, 4), np.float32)
img[..., 0] = 0.5 + 0.5 * np.sin(xx / 3.0)
img[..., 1] = (xx + yy) / (W + H)
img[..., 2] = ((xx > 8) & (xx < 16) & (yy > 5) & (yy < 12)).astype(np.float32)
img[..., :3] += rng.normal(0, 0.05, (H, W, 3)).astype(np.float32)
img[..., :3] = np.clip(img[..., :3], 0, 1)
img[..., 3] = 1.0

cases = []
for sigma in (2.0, 5.0):
    r = math.ceil(3 * sigma)
    for border, name in ((cv2.BORDER_CONSTANT, "transparent"), (cv2.BORDER_REPLICATE, "clamp")):
        out = cv2.GaussianBlur(img, (2 * r + 1, 2 * r + 1), sigmaX=sigma, sigmaY=sigma, borderType=border)
        cases.append(dict(name=f"gaussian_s{sigma:g}_{name}", kind="gaussian", sigma=sigma, border=name,
                          width=W, height=H, pixels=out.reshape(-1).tolist()))

for scale in (0.5, 0.3, 1.5):
    ow, oh = max(1, round(W * scale)), max(1, round(H * scale))
    chans = [np.asarray(Image.fromarray(np.ascontiguousarray(img[..., c])).resize((ow, oh), Image.LANCZOS), np.float32)
             for c in range(4)]
    out = np.stack(chans, axis=-1)
    cases.append(dict(name=f"lanczos_{scale:g}", kind="lanczos", scale=scale, width=ow, height=oh,
                      pixels=out.reshape(-1).tolist()))

doc = dict(generator="scripts/make_filter_fixtures.py", opencv=cv2.__version__, pillow=Image.__version__,
           numpy=np.__version__, input=dict(width=W, height=H, pixels=img.reshape(-1).tolist()), cases=cases)
path = os.path.join(os.path.dirname(__file__), "..", "Tests", "PixelFlowTests", "Fixtures", "Filters", "references.json")
with open(path, "w") as f:
    json.dump(doc, f, separators=(",", ":"))
print("wrote", os.path.normpath(path), os.path.getsize(path), "bytes")
