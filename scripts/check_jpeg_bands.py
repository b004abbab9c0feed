#!/usr/bin/env python3
"""Decodes JPEG files written in parallel bands (restart markers, the default for large
baseline images) with Pillow and OpenCV, and checks that each decoder gives exactly the pixels
of the same image written without restart markers (`--no-restart-markers`): the check of
strict third-party decoders beside JPEGBandTests.

    python3 scripts/check_jpeg_bands.py [--pixelflow .build/debug/pixelflow] [--out DIR]

Exit status 0 when every file decodes identically in both decoders, 1 otherwise.
"""
import argparse
import os
import subprocess
import sys
import tempfile

import cv2
import numpy as np
from PIL import Image


def photo(width, height, seed):
    """Smooth shading plus noise, as photographs look to a JPEG encoder."""
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:height, 0:width].astype(np.float64)
    u, v = x / width, y / height
    base = np.stack([0.5 + 0.4 * np.sin(9 * u + 3 * v), v, 0.5 + 0.3 * np.cos(7 * u * v)], axis=-1)
    noisy = base + rng.uniform(-0.04, 0.04, base.shape)
    return (np.clip(noisy, 0, 1) * 255).astype(np.uint8)


def has_restarts(path):
    """True when the file has a DRI segment before its first scan."""
    data = open(path, "rb").read()
    i = 2
    while i + 4 <= len(data) and data[i] == 0xFF:
        marker, length = data[i + 1], data[i + 2] << 8 | data[i + 3]
        if marker == 0xDD:
            return True
        if marker == 0xDA:
            return False
        i += 2 + length
    return False


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pixelflow", default=".build/debug/pixelflow")
    parser.add_argument("--out", default=None, help="where the files go (default: a temporary folder)")
    args = parser.parse_args()
    out = args.out or tempfile.mkdtemp(prefix="jpeg-bands-")
    os.makedirs(out, exist_ok=True)
    failures = 0
    for width, height, quality in [(1920, 1080, 90), (4321, 1237, 75), (333, 2900, 95), (5000, 150, 50)]:
        name = f"{width}x{height}-q{quality}"
        source = os.path.join(out, name + ".png")
        Image.fromarray(photo(width, height, width + height)).save(source)
        files = {}
        for kind, extra in [("bands", []), ("serial", ["--no-restart-markers"])]:
            files[kind] = os.path.join(out, f"{name}-{kind}.jpg")
            subprocess.run(
                [args.pixelflow, "apply", source, files[kind], "--quality", str(quality), "--overwrite"] + extra,
                check=True)
        if not has_restarts(files["bands"]) or has_restarts(files["serial"]):
            print(f"{name}: expected restart markers only in the banded file")
            failures += 1
        for decoder, read in [
            ("Pillow", lambda p: np.asarray(Image.open(p).convert("RGB"))),
            ("OpenCV", lambda p: cv2.imread(p, cv2.IMREAD_COLOR)),
        ]:
            banded, serial = read(files["bands"]), read(files["serial"])
            same = banded is not None and serial is not None and banded.shape == serial.shape and np.array_equal(banded, serial)
            sizes = os.path.getsize(files["bands"]), os.path.getsize(files["serial"])
            print(f"{name} {decoder}: {'identical' if same else 'DIFFERENT'} pixels; "
                  f"{sizes[0]} bytes with restarts, {sizes[1]} without (+{100 * (sizes[0] / sizes[1] - 1):.2f}%)")
            failures += 0 if same else 1
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
