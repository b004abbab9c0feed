#!/usr/bin/env python3
"""Reference values for PixelFlow's median, morphology and box filters, made by OpenCV.

Writes Tests/PixelFlowTests/Fixtures/Blur/opencv.json: a small deterministic RGBA 8-bit image
(random values, alpha included) and, for each case, OpenCV's output on it. Every case uses
replicated borders (BORDER_REPLICATE), which PixelFlow matches with
`clampedToExtent() ... cropped(to:)`; PixelFlow renders with color management off and the
input tagged premultiplied, so it works on the stored values, channel by channel, like OpenCV.

- median_k: cv2.medianBlur(img, k) for k = 3, 5 (u8, exact; 5 is the peer benchmark's median5).
- median7_gray: cv2.medianBlur on each channel with k = 7 (PixelFlow's histogram median, exact
  on 8-bit values).
- dilate_WxH / erode_WxH: cv2.dilate / cv2.erode with a W x H rectangle (u8, exact).
- box_r: cv2.blur(img / 255 as float32, (2r+1, 2r+1)) (float, compared within 1e-5).

Run: pip install opencv-python-headless numpy && python3 scripts/make_blur_fixtures.py
"""
import json
import os

import cv2
import numpy as np

W, H = 19, 14
rng = np.random.default_rng(4242)
img = rng.integers(0, 256, (H, W, 4), dtype=np.uint8)
# A few flat patches and edges, so the filters see structure as well as noise.
img[4:9, 5:12, :3] = 200
img[10:15, 14:20, 1] = 30

cases = []
for k in (3, 5):
    cases.append(dict(name=f"median_{k}", kind="median", radius=k // 2,
                      output=cv2.medianBlur(img, k).flatten().tolist()))
m7 = np.stack([cv2.medianBlur(np.ascontiguousarray(img[..., c]), 7) for c in range(4)], axis=-1)
cases.append(dict(name="median7", kind="median", radius=3, output=m7.flatten().tolist()))
for (w, h) in ((5, 5), (7, 3), (1, 9), (11, 11)):
    kernel = cv2.getStructuringElement(cv2.MORPH_RECT, (w, h))
    d = cv2.dilate(img, kernel, borderType=cv2.BORDER_REPLICATE)
    e = cv2.erode(img, kernel, borderType=cv2.BORDER_REPLICATE)
    cases.append(dict(name=f"dilate_{w}x{h}", kind="dilate", width=w, height=h, output=d.flatten().tolist()))
    cases.append(dict(name=f"erode_{w}x{h}", kind="erode", width=w, height=h, output=e.flatten().tolist()))
f = img.astype(np.float32) / 255
for r in (1, 5, 9):
    b = cv2.blur(f, (2 * r + 1, 2 * r + 1), borderType=cv2.BORDER_REPLICATE)
    cases.append(dict(name=f"box_{r}", kind="box", radius=r, output=[round(float(v), 7) for v in b.flatten()]))

out = dict(
    generator="scripts/make_blur_fixtures.py", opencv=cv2.__version__,
    width=W, height=H, input=img.flatten().tolist(), cases=cases)
path = os.path.join(os.path.dirname(__file__), "..", "Tests", "PixelFlowTests", "Fixtures", "Blur", "opencv.json")
os.makedirs(os.path.dirname(path), exist_ok=True)
with open(path, "w") as fh:
    json.dump(out, fh, separators=(",", ":"))
print("wrote", os.path.normpath(path), len(cases), "cases")
