#!/usr/bin/env python3
"""Reference values for PixelFlow's CIBicubicScaleTransform, made by Pillow.

Writes Tests/PixelFlowTests/Fixtures/Scale/pillow_bicubic.json: a small deterministic RGB 8-bit
image (random values with a few flat patches and edges) and Pillow's BICUBIC resize of it to
several sizes (shrinking, enlarging, and both at once). Pillow's bicubic is Keys' cubic with
a = -0.5, that is Mitchell-Netravali B = 0, C = 0.5; like PixelFlow it widens the support by
the shrink factor, stops taps at the edges and normalizes the weights. Each channel is
resized as a 32-bit float image (mode "F"): Pillow's 8-bit path rounds and clips between its
horizontal and vertical passes, which on a noisy image moves enlarged pixels by up to 19
levels, while the float path is the plain separable sum PixelFlow computes. Outputs are in
levels (0-255), rounded to 1e-4; PixelFlow is compared within 1e-3 levels of float error.

Run: pip install Pillow && python3 scripts/make_scale_fixtures.py
"""
import json
import os
import random

from PIL import Image

W, H = 23, 17
rng = random.Random(777)
pixels = [[rng.randrange(256) for _ in range(3)] for _ in range(W * H)]
for y in range(4, 10):
    for x in range(6, 15):
        pixels[y * W + x] = [220, 40, 90]

channels = []
for c in range(3):
    band = Image.new("F", (W, H))
    band.putdata([float(p[c]) for p in pixels])
    channels.append(band)

cases = []
for (w, h) in [(11, 8), (5, 4), (37, 29), (46, 9)]:
    bands = [list(b.resize((w, h), Image.Resampling.BICUBIC).get_flattened_data()) for b in channels]
    out = [[round(bands[c][i], 4) for c in range(3)] for i in range(w * h)]
    cases.append({"width": w, "height": h, "pixels": out})

path = os.path.join(os.path.dirname(__file__), "..", "Tests", "PixelFlowTests", "Fixtures", "Scale", "pillow_bicubic.json")
with open(path, "w") as f:
    json.dump({"width": W, "height": H, "pixels": pixels, "cases": cases}, f, separators=(",", ":"))
print("wrote", os.path.normpath(path))
