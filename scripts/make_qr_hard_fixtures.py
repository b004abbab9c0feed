#!/usr/bin/env python3
"""Small image fixtures for the hard QR conditions of issue #24, one per condition, drawn with the
hard set's own functions (scripts/make_qr_hard_set.py: segno symbols, 4x supersampled
perspective camera) from a fixed seed:

    python3 scripts/make_qr_hard_fixtures.py Tests/PixelFlowTests/Fixtures/QR/hard

Writes the PNGs and manifest.tsv (file, message, what). QRCodeHardConditionsTests reads each
and must find its message; each one was checked to fail with the detector as it was before
the grid fit, the steeper triples and the low-contrast pass (commit 20fd7f7), and to pass after;
the two steep ones (52-56 degrees of tilt) to fail before the per-corner finder edges, the
orientation by angle and the alignment-grid fit (branch qr2), and to pass after.

Needs: pip install segno opencv-python-headless numpy pillow
"""
import os
import sys

import numpy as np
from PIL import Image

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_qr_hard_set import backdrop, camera_corners, draw_code, lighting, symbol_plane  # noqa: E402

# name, seed, message, level, version, module px, tilt degrees, contrast, light level, inverted, light
FIXTURES = [
    ("low_contrast.png", 1, "low contrast 20 levels", "M", 3, 4.0, 8.0, 20.0, 170.0, False, None),
    ("inverted_tilted.png", 1, "light on dark, tilted", "M", 5, 4.0, 35.0, 150.0, 200.0, True, None),
    ("uneven_low_contrast.png", 1, "gradient over 30 levels", "Q", 4, 5.0, 2.0, 30.0, 200.0, False, "gradient"),
    ("tilted_version10.png", 1, "TILT 35 DEGREES", "M", 10, 4.0, 35.0, 190.0, 230.0, False, None),
    # Read since the per-corner finder edges, orientation by angle and alignment-grid fit (qr2).
    ("steep_version9.png", 1, "TILT 56 DEGREES, VERSION 9", "L", 9, 4.5, 56.0, 190.0, 220.0, False, None),
    ("steep_version15.png", 1, "TILT 52 DEGREES, VERSION 15, SEVERAL ALIGNMENT PATTERNS", "Q", 15, 4.0, 52.0, 200.0,
     225.0, False, None),
]


def make(folder, name, seed, message, level, version, module, tilt, contrast, light, inverted, kind):
    rng = np.random.default_rng(2400 + seed)
    dark, n = symbol_plane(message, level, version)
    side = n * module
    w = h = int(side * 1.6)
    img = backdrop(rng, w, h)
    corners = camera_corners(rng, w / 2, h / 2, side, float(rng.uniform(0, 360)), tilt, float(rng.uniform(0, 180)))
    levels = (light - contrast, light)
    if inverted:
        levels = (light, light - contrast)
    draw_code(img, dark, n, corners, levels)
    if kind:
        img = lighting(rng, img, kind)
    img = img + rng.normal(0, 1.5, img.shape).astype(np.float32)
    Image.fromarray(np.clip(img + 0.5, 0, 255).astype(np.uint8)).save(os.path.join(folder, name))


def main(folder):
    os.makedirs(folder, exist_ok=True)
    rows = ["# file\tmessage\twhat (made by scripts/make_qr_hard_fixtures.py)"]
    for (name, seed, message, level, version, module, tilt, contrast, light, inverted, kind) in FIXTURES:
        make(folder, name, seed, message, level, version, module, tilt, contrast, light, inverted, kind)
        rows.append(f"{name}\t{message}\tversion {version}-{level}, {module} px modules, tilt {tilt}, "
                    f"contrast {contrast}{', inverted' if inverted else ''}{', ' + kind if kind else ''}")
    with open(os.path.join(folder, "manifest.tsv"), "w") as f:
        f.write("\n".join(rows) + "\n")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "Tests/PixelFlowTests/Fixtures/QR/hard")
