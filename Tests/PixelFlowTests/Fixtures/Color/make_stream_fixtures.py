#!/usr/bin/env python3
"""Makes the fixtures of ColorStreamingTests (run from this folder, after make_fixtures.py,
whose display_p3.icc and cmyk.icc it embeds): small noisy images whose rows a streamed
source must convert exactly as a full decode does. Seeded (numpy default_rng(27)), odd sizes
(67x45, not a multiple of a JPEG block or a TIFF strip), Pillow and tifffile only:

- stream_p3.jpg:   RGB, Display P3 profile, quality 90, 4:2:0 chroma.
- stream_p3.png:   RGBA (alpha varies, some pixels transparent), Display P3 profile.
- stream_p3.tif:   RGB, Display P3 profile, deflate, 8 rows per strip (tifffile).
- stream_p3_16.tif: RGB 16-bit, Display P3 profile, deflate, 5 rows per strip (tifffile).
- stream_cmyk.jpg: CMYK (Pillow writes Adobe's inverted CMYK), cmyk.icc embedded.
- stream_cmyk_plain.jpg: the same CMYK pixels without a profile ((1-C)(1-K) conversion).
- stream_cmyk16.tif: CMYK 16-bit, cmyk.icc embedded, 7 rows per strip (tifffile).
"""
import io
import numpy as np
import tifffile
from PIL import Image

W, H = 67, 45
rng = np.random.default_rng(27)


def noisy(channels, maximum):
    yy, xx = np.mgrid[0:H, 0:W].astype(np.float64)
    base = [0.5 + 0.45 * np.sin(0.2 * xx + 0.1 * yy), yy / H, 0.5 + 0.4 * np.cos(0.15 * xx * 0.3 + 0.2 * yy),
            xx / W]
    img = np.stack(base[:channels], -1) + rng.normal(0, 0.08, (H, W, channels))
    return np.clip(np.round(img * maximum), 0, maximum)


def main():
    p3 = open("display_p3.icc", "rb").read()
    cmyk = open("cmyk.icc", "rb").read()
    rgb = noisy(3, 255).astype(np.uint8)
    Image.fromarray(rgb).save("stream_p3.jpg", quality=90, subsampling=2, icc_profile=p3)
    rgba = noisy(4, 255).astype(np.uint8)
    rgba[::7, ::5, 3] = 0
    Image.fromarray(rgba, "RGBA").save("stream_p3.png", icc_profile=p3)
    tifffile.imwrite("stream_p3.tif", rgb, photometric="rgb", compression="zlib", rowsperstrip=8,
                     iccprofile=p3)
    tifffile.imwrite("stream_p3_16.tif", noisy(3, 65535).astype(np.uint16), photometric="rgb",
                     compression="zlib", rowsperstrip=5, iccprofile=p3)
    ink = noisy(4, 255).astype(np.uint8)
    Image.fromarray(ink, "CMYK").save("stream_cmyk.jpg", quality=90, icc_profile=cmyk)
    Image.fromarray(ink, "CMYK").save("stream_cmyk_plain.jpg", quality=90)
    tifffile.imwrite("stream_cmyk16.tif", noisy(4, 65535).astype(np.uint16), photometric="separated",
                     rowsperstrip=7, iccprofile=cmyk)


if __name__ == "__main__":
    main()
