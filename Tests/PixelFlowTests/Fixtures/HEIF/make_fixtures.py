#!/usr/bin/env python3
"""Writes the HEIF and AVIF fixtures of HEIFCodecTests with encoders independent of
PixelFlow's libheif 1.15: pillow-heif 1.8 (its own libheif 1.23 with x265, for .heic) and
Pillow 13 (libavif 1.4 with aom/dav1d, for .avif). The expected pixels beside each file
come from the same independent decoders (pillow-heif's libde265, Pillow's libavif).

Run from this directory: python3 make_fixtures.py
"""
import io

import numpy as np
import pillow_heif
from PIL import Image, ImageCms, ImageOps

pillow_heif.register_heif_opener()
W, H = 64, 48


def pattern(w=W, h=H, alpha=False):
    """Smooth gradients with a few flat blocks: small files, some edges."""
    y, x = np.mgrid[0:h, 0:w]
    r = (x * 255 // (w - 1)).astype(np.uint8)
    g = (y * 255 // (h - 1)).astype(np.uint8)
    b = ((x + y) * 255 // (w + h - 2)).astype(np.uint8)
    rgb = np.stack([r, g, b], axis=-1)
    rgb[8:20, 8:24] = (220, 40, 40)
    rgb[28:40, 36:56] = (30, 60, 200)
    if not alpha:
        return Image.fromarray(rgb, "RGB")
    a = np.full((h, w), 255, np.uint8)
    a[:, : w // 2] = (x[:, : w // 2] * 255 // (w // 2 - 1)).astype(np.uint8)
    a[24:, 48:] = 0
    return Image.fromarray(np.dstack([rgb, a]), "RGBA")


def decoded(data):
    """The independent decoder's pixels (irot/imir applied, as PixelFlow does by default)."""
    return Image.open(io.BytesIO(data))


def save(name, data, expected):
    with open(name, "wb") as f:
        f.write(data)
    expected.save(name + ".png")
    print(f"{name}: {len(data)} bytes, {expected.size[0]}x{expected.size[1]} {expected.mode}")


def encode(image, fmt, **kwargs):
    out = io.BytesIO()
    image.save(out, format=fmt, **kwargs)
    return out.getvalue()


# 1. 8-bit HEIC (x265, 4:2:0).
data = encode(pattern(), "HEIF", quality=90)
save("rgb8.heic", data, decoded(data).convert("RGB"))

# AVIF fixtures are 4:4:4: libavif (Pillow) upsamples 4:2:0 chroma bilinearly and libheif
# 1.15 by repeating samples, which differ by up to 77 levels at the sharp color edges of
# the pattern; with full-resolution chroma both decoders agree within rounding.

# 2. 8-bit AVIF (aom, 4:4:4).
data = encode(pattern(), "AVIF", quality=90, subsampling="4:4:4")
save("rgb8.avif", data, decoded(data).convert("RGB"))

# 3. AVIF with alpha.
data = encode(pattern(alpha=True), "AVIF", quality=90, subsampling="4:4:4")
save("alpha.avif", data, decoded(data).convert("RGBA"))

# 4. 10-bit HEIC from 16-bit RGB. pillow-heif decodes it to 10-bit values shifted left by 6
#    (mode RGB;16, bit_depth 10); the PNG holds the 10-bit values scaled to 16 bits as
#    PixelFlow does: v * 65535 / 1023, rounded.
y, x = np.mgrid[0:H, 0:W]
deep = np.stack([x * 65535 // (W - 1), y * 65535 // (H - 1), np.full((H, W), 40000)], axis=-1).astype(np.uint16)
heif = pillow_heif.from_bytes(mode="RGB;16", size=(W, H), data=deep.tobytes())
out = io.BytesIO()
heif.save(out, format="HEIF", quality=95)
data = out.getvalue()
back = pillow_heif.open_heif(io.BytesIO(data), convert_hdr_to_8bit=False)
assert back.mode == "RGB;16" and back.info["bit_depth"] == 10, (back.mode, back.info["bit_depth"])
ten = np.frombuffer(bytes(back.data), dtype="<u2").reshape(H, back.stride // 2)[:, : W * 3].reshape(H, W, 3) >> 6
scaled = ((ten.astype(np.uint32) * 65535 + 511) // 1023).astype(np.uint16)
with open("deep10.heic", "wb") as f:
    f.write(data)
# Pillow writes 16-bit RGB PNGs only through a raw encoder: write the file by hand.
import struct, zlib
raw = b"".join(b"\0" + scaled[r].astype(">u2").tobytes() for r in range(H))
def chunk(kind, body):
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", W, H, 16, 2, 0, 0, 0)) \
    + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b"")
with open("deep10.heic.png", "wb") as f:
    f.write(png)
print(f"deep10.heic: {len(data)} bytes, 10-bit")

# 5. HEIC with an irot box: pillow-heif turns the EXIF orientation 6 into irot (rotate
#    270 degrees counter-clockwise = 90 clockwise). Stored 64x48; shown 48x64.
exif = Image.Exif()
exif[0x0112] = 6
data = encode(pattern(), "HEIF", quality=90, exif=exif.tobytes())
assert b"irot" in data
save("rotated.heic", data, decoded(data).convert("RGB"))

# 6. HEIC with an ICC profile (Little CMS's sRGB, also saved as profile.icc), EXIF (Make
#    "PixelFlow", no orientation) and XMP.
icc = ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB")).tobytes()
with open("profile.icc", "wb") as f:
    f.write(icc)
exif = Image.Exif()
exif[0x010F] = "PixelFlow"
xmp = (b'<?xpacket begin="" id="W5M0MpCehiHzreSzNTczkc9d"?><x:xmpmeta xmlns:x="adobe:ns:meta/">'
       b'<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description '
       b'xmlns:dc="http://purl.org/dc/elements/1.1/" dc:format="image/heic"/></rdf:RDF>'
       b'</x:xmpmeta><?xpacket end="w"?>')
with open("meta.xmp", "wb") as f:
    f.write(xmp)
data = encode(pattern(), "HEIF", quality=90, icc_profile=icc, exif=exif.tobytes(), xmp=xmp)
save("meta.heic", data, decoded(data).convert("RGB"))

# 7. Three top-level images of different sizes, the second one primary: ID order is
#    64x48, 32x24, 16x8 and PixelFlow's imageIndex order is 32x24 (primary), 64x48, 16x8.
images = [pattern(), pattern(32, 24), pattern(16, 8)]
heif = pillow_heif.from_pillow(images[0])
for im in images[1:]:
    heif.add_from_pillow(im)
heif.primary_index = 1
out = io.BytesIO()
heif.save(out, format="HEIF", quality=90, primary_index=1)
data = out.getvalue()
with open("multi.heic", "wb") as f:
    f.write(data)
back = pillow_heif.open_heif(io.BytesIO(data))
assert back.primary_index == 1, back.primary_index
for i, im in enumerate(back):
    im.to_pillow().convert("RGB").save(f"multi.heic.{i}.png")
print(f"multi.heic: {len(data)} bytes, sizes {[im.size for im in back]}, primary {back.primary_index}")

# 8. Monochrome HEIC (8-bit gray).
gray = pattern().convert("L")
data = encode(gray, "HEIF", quality=90)
save("gray.heic", data, decoded(data).convert("L"))

# 9. AVIF files with irot/imir: Pillow's AVIF encoder turns the EXIF orientation into
#    irot and imir boxes (2: imir axis 1; 5: irot + imir; 8: irot). The coded pixels are
#    the pattern (source.png, 64x48). Pillow decodes AVIF without turning it and reports
#    irot/imir as an EXIF orientation: the PNGs are its decodes after exif_transpose.
pattern().save("source.png")
for value in (2, 5, 8):
    exif = Image.Exif()
    exif[0x0112] = value
    data = encode(pattern(), "AVIF", quality=90, subsampling="4:4:4", exif=exif.tobytes())
    assert b"irot" in data or b"imir" in data
    im = decoded(data)
    assert im.getexif().get(0x0112) == value
    save(f"oriented{value}.avif", data, ImageOps.exif_transpose(im).convert("RGB"))
