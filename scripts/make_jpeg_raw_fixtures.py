#!/usr/bin/env python3
"""Makes the JPEG files of Tests/PixelFlowTests/Fixtures/JPEGRaw, written by Pillow and OpenCV.

Run from the repository root:  python3 scripts/make_jpeg_raw_fixtures.py
Needs Pillow, numpy and opencv-python. JPEGRawDecodeTests decodes every file on 1, 2 and
3 threads and checks that the multi-thread decode (PixelFlow's upsampling and color
conversion of libjpeg-turbo's raw planes) gives libjpeg-turbo's own bytes. The files cover
every chroma subsampling these writers offer (4:4:4, 4:2:2, 4:2:0, OpenCV's 4:4:0 and 4:1:1,
grayscale), odd sides (edge MCUs), qualities, restart markers and progressive scans.
"""
import os

import cv2
import numpy as np
from PIL import Image

OUT = os.path.join(os.path.dirname(__file__), "..", "Tests", "PixelFlowTests", "Fixtures", "JPEGRaw")
os.makedirs(OUT, exist_ok=True)


def path(name):
    return os.path.join(OUT, name)


def photo(w, h, seed):
    """Smooth color shading plus noise: chroma that varies, as in photographs."""
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:h, 0:w]
    u, v = x / max(1, w - 1), y / max(1, h - 1)
    r = 128 + 110 * np.sin(9 * u + 4 * v)
    g = 40 + 180 * v
    b = 128 + 110 * np.cos(7 * u * v + 3 * u)
    rgb = np.stack([r, g, b], axis=-1) + rng.normal(0, 18, (h, w, 3))
    return np.clip(rgb, 0, 255).round().astype(np.uint8)


# Pillow: subsampling 0 = 4:4:4, 1 = 4:2:2, 2 = 4:2:0.
for name, sub in (("444", 0), ("422", 1), ("420", 2)):
    for (w, h, q) in ((33, 17, 95), (18, 31, 60), (101, 45, 85)):
        Image.fromarray(photo(w, h, w * h)).save(path(f"pil_{name}_{w}x{h}_q{q}.jpg"), quality=q, subsampling=sub)
    Image.fromarray(photo(75, 53, 7)).save(path(f"pil_{name}_progressive.jpg"), quality=90, subsampling=sub,
                                           progressive=True)
    Image.fromarray(photo(75, 53, 8)).save(path(f"pil_{name}_restart.jpg"), quality=90, subsampling=sub,
                                           restart_marker_blocks=5)
Image.fromarray(photo(29, 19, 9)[..., 1]).save(path("pil_gray_29x19.jpg"), quality=90)

# OpenCV (its own libjpeg-turbo): 4:4:0 and 4:1:1 besides the usual ones; image in BGR order.
factors = {
    "440": cv2.IMWRITE_JPEG_SAMPLING_FACTOR_440,
    "411": cv2.IMWRITE_JPEG_SAMPLING_FACTOR_411,
    "420": cv2.IMWRITE_JPEG_SAMPLING_FACTOR_420,
    "422": cv2.IMWRITE_JPEG_SAMPLING_FACTOR_422,
    "444": cv2.IMWRITE_JPEG_SAMPLING_FACTOR_444,
}
for name, factor in factors.items():
    for (w, h, q) in ((35, 33, 90), (64, 23, 70)):
        bgr = photo(w, h, w + h)[..., ::-1]
        ok, data = cv2.imencode(".jpg", bgr, [cv2.IMWRITE_JPEG_QUALITY, q, cv2.IMWRITE_JPEG_SAMPLING_FACTOR, factor])
        assert ok
        open(path(f"cv_{name}_{w}x{h}_q{q}.jpg"), "wb").write(data.tobytes())
    ok, data = cv2.imencode(".jpg", photo(50, 41, 5)[..., ::-1],
                            [cv2.IMWRITE_JPEG_QUALITY, 88, cv2.IMWRITE_JPEG_SAMPLING_FACTOR, factor,
                             cv2.IMWRITE_JPEG_RST_INTERVAL, 3, cv2.IMWRITE_JPEG_PROGRESSIVE, 0])
    assert ok
    open(path(f"cv_{name}_restart.jpg"), "wb").write(data.tobytes())
    ok, data = cv2.imencode(".jpg", photo(50, 41, 6)[..., ::-1],
                            [cv2.IMWRITE_JPEG_QUALITY, 88, cv2.IMWRITE_JPEG_SAMPLING_FACTOR, factor,
                             cv2.IMWRITE_JPEG_PROGRESSIVE, 1])
    assert ok
    open(path(f"cv_{name}_progressive.jpg"), "wb").write(data.tobytes())
