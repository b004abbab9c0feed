#!/usr/bin/env python3
"""Writes the WebP fixtures of WebPCodecTests with Pillow 13 (its own bundled libwebp),
an encoder independent of PixelFlow's, and the pixels Pillow decodes from each as PNG.

Run from this folder: python3 make_fixtures.py
"""
import io
import math
import struct

from PIL import Image, ImageCms, features

assert features.check("webp"), "Pillow without WebP"


def pattern(width, height, alpha=False):
    """R = 17x, G = 29y, B = xy (mod 256); alpha, when asked, = 8x + 5y (mod 256)."""
    im = Image.new("RGBA" if alpha else "RGB", (width, height))
    px = im.load()
    for y in range(height):
        for x in range(width):
            rgb = ((17 * x) & 255, (29 * y) & 255, (x * y) & 255)
            px[x, y] = rgb + (((8 * x + 5 * y) & 255),) if alpha else rgb
    return im


def smooth(width, height):
    """A gradient that lossy WebP keeps within a few levels."""
    im = Image.new("RGB", (width, height))
    px = im.load()
    for y in range(height):
        for x in range(width):
            px[x, y] = (40 + 160 * x // (width - 1), 60 + 120 * y // (height - 1),
                        int(128 + 60 * math.sin(x / 9) * math.cos(y / 7)))
    return im


def expected(name):
    """Pillow's decoding of `name`, as RGBA, saved beside it as PNG."""
    with Image.open(name) as im:
        im.convert("RGBA").save(name.replace(".webp", ".png"))


# Still images.
smooth(64, 48).save("lossy.webp", quality=80, method=4)
expected("lossy.webp")

pattern(40, 30).save("lossless.webp", lossless=True, quality=100, method=4)
expected("lossless.webp")

# exact=True keeps the RGB of fully transparent pixels, so every value is known.
pattern(40, 30, alpha=True).save("lossless-alpha.webp", lossless=True, quality=100, exact=True)
expected("lossless-alpha.webp")

lossy_alpha = smooth(64, 48).convert("RGBA")
lossy_alpha.putalpha(pattern(64, 48, alpha=True).getchannel("A"))
lossy_alpha.save("lossy-alpha.webp", quality=80, alpha_quality=100)
expected("lossy-alpha.webp")

# An animation of 4 frames with different durations. After the first, each frame changes
# only a rectangle, so the encoder writes partial frames (ANMF with offsets); frame 2 makes
# a hole of transparency, so blending and disposal matter.
base = Image.new("RGBA", (48, 32), (30, 60, 90, 255))
frames = [base.copy()]
f = base.copy(); f.paste((200, 40, 40, 255), (4, 4, 20, 16)); frames.append(f)
f = f.copy(); f.paste((0, 0, 0, 0), (24, 10, 40, 26)); frames.append(f)
f = f.copy(); f.paste((40, 220, 90, 128), (10, 20, 30, 30)); frames.append(f)
durations = [100, 250, 40, 400]
frames[0].save("animated.webp", save_all=True, append_images=frames[1:], duration=durations,
               loop=0, lossless=True, exact=True)
with Image.open("animated.webp") as im:
    assert im.n_frames == 4, im.n_frames
    for i in range(im.n_frames):
        im.seek(i)
        im.load()
        assert im.info["duration"] == durations[i], (i, im.info["duration"])
        im.convert("RGBA").save(f"animated-{i}.png")

# ICC profile, EXIF with orientation 6 (rotate 90 degrees clockwise to view) and XMP.
profile = ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB")).tobytes()
with open("profile.icc", "wb") as out:
    out.write(profile)
exif = Image.Exif()
exif[0x0112] = 6
exif[0x010F] = "PixelFlow fixture"
exif_bytes = exif.tobytes()
xmp = (b'<?xpacket begin="" id="W5M0MpCehiHzreSzNTczkc9d"?>'
       b'<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">'
       b'<rdf:Description xmlns:dc="http://purl.org/dc/elements/1.1/" dc:format="image/webp"/>'
       b'</rdf:RDF></x:xmpmeta><?xpacket end="w"?>')
with open("metadata.xmp", "wb") as out:
    out.write(xmp)
pattern(24, 16).save("metadata.webp", lossless=True, icc_profile=profile, exif=exif_bytes, xmp=xmp)
expected("metadata.webp")


def chunks(data):
    """The (fourcc, payload) chunks of a RIFF WEBP file."""
    offset, out = 12, []
    while offset + 8 <= len(data):
        fourcc, size = data[offset:offset + 4], struct.unpack("<I", data[offset + 4:offset + 8])[0]
        out.append((fourcc, data[offset + 8:offset + 8 + size]))
        offset += 8 + size + (size & 1)
    return out


def riff(chunk_list):
    body = b"".join(c + struct.pack("<I", len(p)) + p + (b"\0" if len(p) & 1 else b"")
                    for c, p in chunk_list)
    return b"RIFF" + struct.pack("<I", 4 + len(body)) + b"WEBP" + body


with open("metadata.webp", "rb") as src:
    parts = chunks(src.read())
with open("exif.tiff", "wb") as out:
    out.write([p for c, p in parts if c == b"EXIF"][0])
# Some writers keep JPEG's "Exif\0\0" before the TIFF structure: the same file with it.
prefixed = [(c, b"Exif\0\0" + p if c == b"EXIF" and not p.startswith(b"Exif") else p) for c, p in parts]
with open("exif-prefix.webp", "wb") as out:
    out.write(riff(prefixed))
