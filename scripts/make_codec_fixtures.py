#!/usr/bin/env python3
"""Makes the small codec fixtures in Tests/PixelFlowTests/Fixtures/Codecs.

Run from the repository root:  python3 scripts/make_codec_fixtures.py
Needs Pillow and numpy (pip install pillow numpy). The lossless fixtures use the pattern
below, which Tests/PixelFlowTests/Codecs/CodecFixtureTests.swift recomputes:

    R = (17 * x) & 255,  G = (29 * y) & 255,  B = (x * y) & 255
"""
import os
import struct

import numpy as np
from PIL import Image

OUT = os.path.join(os.path.dirname(__file__), "..", "Tests", "PixelFlowTests", "Fixtures", "Codecs")
os.makedirs(OUT, exist_ok=True)


def path(name):
    return os.path.join(OUT, name)


def pattern(w, h):
    y, x = np.mgrid[0:h, 0:w]
    return np.stack([(17 * x) & 255, (29 * y) & 255, (x * y) & 255], axis=-1).astype(np.uint8)


def smooth(w, h):
    """A smooth gradient: JPEG keeps it within a few levels."""
    y, x = np.mgrid[0:h, 0:w]
    r = 40 + 160 * x / (w - 1)
    g = 60 + 120 * y / (h - 1)
    b = 128 + 60 * np.sin(x / 9.0) * np.cos(y / 7.0)
    return np.stack([r, g, b], axis=-1).round().astype(np.uint8)


# PNG, palette with tRNS: 4 colors, index 3 fully transparent and index 2 half transparent.
# Pixel (x, y) has index (x // 4 + y // 3) % 4.
w, h = 16, 12
y, x = np.mgrid[0:h, 0:w]
indices = ((x // 4 + y // 3) % 4).astype(np.uint8)
im = Image.frombytes("P", (w, h), indices.tobytes())
im.putpalette([255, 0, 0, 0, 255, 0, 0, 0, 255, 255, 255, 0])
im.save(path("palette_trns.png"), transparency=bytes([255, 255, 128, 0]))

# PNG, 16-bit gray: value (x * 4096 + y * 257) & 65535.
w, h = 16, 8
y, x = np.mgrid[0:h, 0:w]
gray16 = ((x * 4096 + y * 257) & 65535).astype(np.uint16)
Image.fromarray(gray16).save(path("gray16.png"))

# PNG, 8-bit gray + alpha: L = pattern R, A = pattern G.
rgb = pattern(16, 8)
Image.fromarray(np.dstack([rgb[..., 0], rgb[..., 1]])).save(path("gray_alpha.png"))

# PNG, 1-bit gray (white where pattern R > 128) and 8-bit gray with tRNS (gray 0 is transparent).
Image.fromarray(pattern(16, 8)[..., 0] > 128).save(path("gray1.png"))
Image.fromarray(pattern(16, 8)[..., 0]).save(path("gray_trns.png"), transparency=0)

# JPEG: progressive RGB, grayscale, CMYK (Pillow writes Adobe APP14, inverted).
Image.fromarray(smooth(48, 32)).save(path("progressive.jpg"), quality=92, progressive=True)
Image.fromarray(smooth(48, 32)[..., 1]).save(path("gray.jpg"), quality=92)
cmyk = Image.new("CMYK", (24, 16), (0, 255, 255, 0))          # pure red ink mix
for xx in range(12, 24):
    for yy in range(16):
        cmyk.putpixel((xx, yy), (0, 0, 0, 128))                # 50% black
cmyk.save(path("cmyk.jpg"), quality=95)

# JPEG with EXIF orientation 6 (rotate 90 degrees clockwise to view). Stored 40 wide and 24
# tall, gray, with a red 8x8 square at the stored top-left corner; upright, it is 24 x 40
# and the square is at the top-right corner.
stored = np.full((24, 40, 3), 128, np.uint8)
stored[0:8, 0:8] = (255, 0, 0)
exif = Image.Exif()
exif[0x0112] = 6
Image.fromarray(stored).save(path("orientation6.jpg"), quality=95, exif=exif.tobytes())

# BMP: 24-bit and 32-bit bottom-up (Pillow), 8-bit palette (Pillow), 24-bit top-down (by hand).
Image.fromarray(pattern(13, 7)).save(path("rgb24.bmp"))
rgba = np.dstack([pattern(13, 7), (np.arange(13 * 7).reshape(7, 13) * 3 % 256).astype(np.uint8)])
Image.fromarray(rgba).save(path("rgba32.bmp"))
quantized = Image.fromarray(pattern(13, 7)).quantize(colors=16, method=Image.Quantize.MEDIANCUT)
quantized.save(path("palette8.bmp"))
quantized.convert("RGB").save(path("palette8_expected.png"))   # the same pixels, losslessly


def bmp_top_down(pixels):
    h, w, _ = pixels.shape
    stride = (w * 3 + 3) // 4 * 4
    rows = b"".join(pixels[y, :, ::-1].tobytes() + b"\0" * (stride - w * 3) for y in range(h))
    info = struct.pack("<IiiHHIIiiII", 40, w, -h, 1, 24, 0, len(rows), 2835, 2835, 0, 0)
    head = b"BM" + struct.pack("<IHHI", 14 + 40 + len(rows), 0, 0, 54)
    return head + info + rows


with open(path("rgb24_topdown.bmp"), "wb") as f:
    f.write(bmp_top_down(pattern(13, 7)))

# PNM: P5 with a comment, P6 with maxval 65535 (by hand), P7 RGB_ALPHA (by hand).
p = pattern(9, 5)
with open(path("gray_comment.pgm"), "wb") as f:
    f.write(b"P5\n# made by make_codec_fixtures.py\n9 5\n# maxval next\n255\n" + p[..., 0].tobytes())
with open(path("rgb16.ppm"), "wb") as f:
    f.write(b"P6\n9 5\n65535\n" + (p.astype(">u2") * 257).tobytes())
with open(path("rgba.pam"), "wb") as f:
    a = ((np.arange(45).reshape(5, 9) * 5) & 255).astype(np.uint8)
    f.write(b"P7\nWIDTH 9\nHEIGHT 5\nDEPTH 4\nMAXVAL 255\nTUPLTYPE RGB_ALPHA\n# a comment\nENDHDR\n"
            + np.dstack([p, a]).tobytes())

for name in sorted(os.listdir(OUT)):
    print(f"{os.path.getsize(path(name)):6d}  {name}")
