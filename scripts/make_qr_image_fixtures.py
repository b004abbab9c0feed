#!/usr/bin/env python3
"""QR code images made by segno and degraded with Pillow, for PixelFlow's QR detector tests.

Writes Tests/PixelFlowTests/Fixtures/QR/images/*.png|jpg and manifest.tsv (file name, a tab,
the message with newlines written as \\n). Each image is a segno symbol (an encoder
independent of PixelFlow's) rendered with Pillow, then rotated, blurred, recompressed as JPEG
at quality 50, put in perspective, or lit unevenly, on a larger grey canvas. The tests detect
and decode every image and expect its message.

Run: pip install segno pillow && python3 scripts/make_qr_image_fixtures.py
Made with segno 1.6.6 and Pillow 11/13; the images are deterministic for given versions.
"""
import io
import os

import segno
from PIL import Image, ImageFilter

OUT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                   "Tests/PixelFlowTests/Fixtures/QR/images")


def symbol(message, error, scale, version=None, border=4):
    qr = segno.make(message, error=error, version=version, micro=False, boost_error=False)
    buf = io.BytesIO()
    qr.save(buf, kind="png", scale=scale, border=border)
    buf.seek(0)
    return Image.open(buf).convert("L")


def on_canvas(img, size, fill=200):
    canvas = Image.new("L", (size, size), fill)
    canvas.paste(img, ((size - img.width) // 2, (size - img.height) // 2))
    return canvas


def perspective(img, k):
    w, h = img.size
    # Pillow's PERSPECTIVE data maps output (x, y) to input; coefficients from 4 point pairs.
    src = [(0, 0), (w, 0), (w, h), (0, h)]
    dst = [(k * w, 0.05 * h), (w * (1 - 0.03), k * h), (w, h * (1 - 0.02)), (0.02 * w, h)]
    import numpy as np  # noqa: only for this solve
    rows, rhs = [], []
    for (x, y), (u, v) in zip(dst, src):
        rows.append([x, y, 1, 0, 0, 0, -u * x, -u * y]); rhs.append(u)
        rows.append([0, 0, 0, x, y, 1, -v * x, -v * y]); rhs.append(v)
    coeffs = np.linalg.solve(np.array(rows, float), np.array(rhs, float))
    return img.transform((w, h), Image.PERSPECTIVE, tuple(coeffs), Image.BICUBIC, fillcolor=200)


def main():
    os.makedirs(OUT, exist_ok=True)
    cases = []

    img = symbol("https://segno.readthedocs.io", "m", 4)
    img = on_canvas(img, 240).rotate(17, resample=Image.BICUBIC, fillcolor=200)
    cases.append(("rotated17_M.png", img, "https://segno.readthedocs.io", None))

    img = symbol("BLURRED 12345", "q", 5)
    img = on_canvas(img, 200).filter(ImageFilter.GaussianBlur(1.2))
    cases.append(("blurred_Q.png", img, "BLURRED 12345", None))

    msg = "JPEG quality 50, version 5, level H"
    img = symbol(msg, "h", 4, version=5)
    img = on_canvas(img, 220).rotate(-8, resample=Image.BILINEAR, fillcolor=200)
    cases.append(("jpeg50_5H.jpg", img, msg, 50))

    msg = "Perspective\nsecond line"
    img = symbol(msg, "m", 4, version=3)
    img = perspective(on_canvas(img, 220), 0.1)
    cases.append(("perspective_3M.png", img, msg, None))

    msg = "Version 7 with version information, level L, segno " + "x" * 60
    img = symbol(msg, "l", 3, version=7)
    img = on_canvas(img, 200).rotate(90)
    cases.append(("version7_L_rot90.png", img, msg, None))

    img = symbol("light on dark", "m", 4)
    img = on_canvas(img, 180, fill=255).point(lambda v: 255 - v)
    cases.append(("inverted_M.png", img, "light on dark", None))

    lines = ["# file\tmessage (newlines as \\n); made by scripts/make_qr_image_fixtures.py with segno %s" % segno.__version__]
    for name, img, message, quality in cases:
        path = os.path.join(OUT, name)
        if quality:
            img.save(path, quality=quality)
        else:
            img.save(path, optimize=True)
        lines.append("%s\t%s" % (name, message.replace("\n", "\\n")))
    with open(os.path.join(OUT, "manifest.tsv"), "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
