#!/usr/bin/env python3
"""Makes the color-management fixtures of ColorManagementTests (run from this folder).

Everything here is independent of lcms2 and of PixelFlow:
- display_p3.icc: an ICC v2.1 Display P3 profile written byte by byte from the published
  primaries (SMPTE EG 432-1, D65 white) adapted to D50 with the Bradford matrix, and the
  sRGB curve (IEC 61966-2-1) sampled in a 1024-entry curv table.
- p3_patches.jpg / p3_patches.png: 8 patches of 16x16 in Display P3 values, saved by Pillow
  with that profile embedded (JPEG at quality 100 with 4:4:4 chroma).
- p3_expected.json: per patch, the stored values Pillow decodes at its center, the linear
  sRGB values they mean (unclipped: P3 reaches outside sRGB) and the 8-bit sRGB values
  (clipped, rounded), computed from the formulas with numpy.
- cmyk.icc: an ICC v2 output (prtr) CMYK profile with an A2B0 lut16 (7 grid points) to Lab,
  from a simple ink model with dot gain (ink^0.85, inks multiply, a warm black), written
  byte by byte.
- cmyk_patches.jpg / cmyk_patches.tif: 8 CMYK patches (Pillow: JPEG with Adobe inverted
  CMYK, as Photoshop writes; TIFF uncompressed), each with cmyk.icc embedded.
- cmyk_expected.json: per patch, Pillow's ImageCms conversion (littleCMS inside Pillow,
  perceptual intent) of the stored CMYK values to 8-bit sRGB.
"""
import io, json, struct
import numpy as np
from PIL import Image, ImageCms

# ---- ICC writing helpers -----------------------------------------------------------------

def s15(v):
    return struct.pack(">i", int(round(v * 65536)))

def xyz_tag(x, y, z):
    return b"XYZ " + b"\0" * 4 + s15(x) + s15(y) + s15(z)

def desc_tag(text):
    t = text.encode("ascii") + b"\0"
    return (b"desc" + b"\0" * 4 + struct.pack(">I", len(t)) + t + b"\0" * 4 + b"\0" * 4
            + b"\0" * 2 + b"\0" + b"\0" * 67)

def text_tag(text):
    return b"text" + b"\0" * 4 + text.encode("ascii") + b"\0"

def curv_tag(values):
    return b"curv" + b"\0" * 4 + struct.pack(">I", len(values)) + b"".join(
        struct.pack(">H", int(round(v * 65535))) for v in values)

def pad4(b):
    return b + b"\0" * ((4 - len(b) % 4) % 4)

def profile(device_class, space, pcs, tags):
    """tags: list of (signature, bytes); identical bytes are stored once."""
    count = len(tags)
    offset = 128 + 4 + 12 * count
    table, data, seen = b"", b"", {}
    for sig, body in tags:
        if body in seen:
            off = seen[body]
        else:
            off = offset + len(data)
            seen[body] = off
            data += pad4(body)
        table += sig.encode("ascii") + struct.pack(">II", off, len(body))
    size = offset + len(data)
    header = struct.pack(">I", size) + b"none" + bytes([2, 0x10, 0, 0]) + device_class + space + pcs
    header += struct.pack(">HHHHHH", 2026, 1, 1, 0, 0, 0) + b"acsp" + b"\0" * 4 + b"\0" * 4
    header += b"\0" * 4 + b"\0" * 4 + b"\0" * 8 + struct.pack(">I", 0)  # flags, device, attributes, intent
    header += s15(0.9642) + s15(1.0) + s15(0.8249) + b"\0" * 4 + b"\0" * 16 + b"\0" * 28
    assert len(header) == 128, len(header)
    return header + struct.pack(">I", count) + table + data

# ---- colorimetry ---------------------------------------------------------------------------

def xy_to_xyz(x, y):
    return np.array([x / y, 1.0, (1 - x - y) / y])

def rgb_to_xyz(prim, white):
    m = np.stack([xy_to_xyz(*p) for p in prim], axis=1)
    s = np.linalg.solve(m, xy_to_xyz(*white))
    return m * s

BRADFORD = np.array([[0.8951, 0.2664, -0.1614], [-0.7502, 1.7135, 0.0367], [0.0389, -0.0685, 1.0296]])

def adapt(src_white_xyz, dst_white_xyz):
    a, b = BRADFORD @ src_white_xyz, BRADFORD @ dst_white_xyz
    return np.linalg.inv(BRADFORD) @ np.diag(b / a) @ BRADFORD

D65 = (0.3127, 0.3290)
D50_XYZ = np.array([0.9642, 1.0, 0.8249])
P3 = [(0.680, 0.320), (0.265, 0.690), (0.150, 0.060)]
SRGB = [(0.64, 0.33), (0.30, 0.60), (0.15, 0.06)]

def srgb_decode(v):
    v = np.asarray(v, dtype=np.float64)
    return np.where(v <= 0.04045, v / 12.92, ((v + 0.055) / 1.055) ** 2.4)

def srgb_encode(v):
    v = np.asarray(v, dtype=np.float64)
    return np.where(v <= 0.0031308, v * 12.92, 1.055 * np.abs(v) ** (1 / 2.4) - 0.055)

# ---- Display P3 ---------------------------------------------------------------------------

def display_p3_profile():
    m = adapt(xy_to_xyz(*D65), D50_XYZ) @ rgb_to_xyz(P3, D65)
    curve = curv_tag(list(srgb_decode(np.arange(1024) / 1023.0)))
    return profile(b"mntr", b"RGB ", b"XYZ ", [
        ("desc", desc_tag("Display P3 (fixture)")), ("cprt", text_tag("No copyright, use freely")),
        ("wtpt", xyz_tag(*D50_XYZ)), ("rXYZ", xyz_tag(*m[:, 0])), ("gXYZ", xyz_tag(*m[:, 1])),
        ("bXYZ", xyz_tag(*m[:, 2])), ("rTRC", curve), ("gTRC", curve), ("bTRC", curve)])

P3_PATCHES = [(255, 0, 0), (0, 255, 0), (0, 0, 255), (128, 128, 128), (200, 60, 40), (30, 180, 220),
              (255, 255, 255), (90, 40, 160)]

def make_p3():
    icc = display_p3_profile()
    open("display_p3.icc", "wb").write(icc)
    img = Image.new("RGB", (16 * len(P3_PATCHES), 16))
    for i, c in enumerate(P3_PATCHES):
        img.paste(c, (16 * i, 0, 16 * i + 16, 16))
    img.save("p3_patches.jpg", quality=100, subsampling=0, icc_profile=icc)
    img.save("p3_patches.png", icc_profile=icc)
    # Linear P3 -> linear sRGB: both D65, so no adaptation.
    m = np.linalg.inv(rgb_to_xyz(SRGB, D65)) @ rgb_to_xyz(P3, D65)
    expected = {"matrix_p3_to_srgb": m.tolist(), "patches": {}}
    for name in ["p3_patches.jpg", "p3_patches.png"]:
        stored = np.asarray(Image.open(name).convert("RGB"))
        rows = []
        for i in range(len(P3_PATCHES)):
            v = stored[8, 16 * i + 8].astype(np.float64)
            lin = m @ srgb_decode(v / 255.0)
            enc = np.clip(np.round(srgb_encode(np.clip(lin, 0, 1)) * 255), 0, 255)
            rows.append({"x": 16 * i + 8, "y": 8, "stored": v.astype(int).tolist(),
                         "linear_srgb": lin.tolist(), "srgb8": enc.astype(int).tolist()})
        expected["patches"][name] = rows
    json.dump(expected, open("p3_expected.json", "w"), indent=1)

# ---- CMYK -----------------------------------------------------------------------------------

def xyz_to_lab(xyz, white=D50_XYZ):
    t = xyz / white
    f = np.where(t > (6 / 29) ** 3, np.cbrt(t), t / (3 * (6 / 29) ** 2) + 4 / 29)
    return np.array([116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])])

def cmyk_model(c, m, y, k):
    """Linear sRGB of an ink mix: dot gain ink^0.85, inks multiply, black slightly warm."""
    c, m, y, k = (np.asarray(v) ** 0.85 for v in (c, m, y, k))
    r = (1 - c) * (1 - 0.97 * k)
    g = (1 - m) * (1 - 0.98 * k)
    b = (1 - y) * (1 - 0.96 * k)
    return srgb_decode(np.array([r, g, b]))

def cmyk_profile():
    grid = 7
    to_xyz = adapt(xy_to_xyz(*D65), D50_XYZ) @ rgb_to_xyz(SRGB, D65)
    clut = b""
    for ci in range(grid):
        for mi in range(grid):
            for yi in range(grid):
                for ki in range(grid):
                    v = [i / (grid - 1) for i in (ci, mi, yi, ki)]
                    lab = xyz_to_lab(to_xyz @ cmyk_model(*v))
                    L = min(max(lab[0], 0), 100) * 652.8        # v2 Lab16: L 0..100 -> 0..0xFF00
                    a = (min(max(lab[1], -128), 127.99) + 128) * 256
                    b = (min(max(lab[2], -128), 127.99) + 128) * 256
                    clut += struct.pack(">HHH", int(round(L)), int(round(a)), int(round(b)))
    entries = 2
    lut = b"mft2" + b"\0" * 4 + bytes([4, 3, grid, 0])
    lut += b"".join(s15(v) for v in (1, 0, 0, 0, 1, 0, 0, 0, 1))
    lut += struct.pack(">HH", entries, entries)
    lut += struct.pack(">HH", 0, 65535) * 4 + clut + struct.pack(">HH", 0, 65535) * 3
    return profile(b"prtr", b"CMYK", b"Lab ", [
        ("desc", desc_tag("Simple CMYK (fixture)")), ("cprt", text_tag("No copyright, use freely")),
        ("wtpt", xyz_tag(*D50_XYZ)), ("A2B0", lut)])

CMYK_PATCHES = [(0, 0, 0, 0), (255, 0, 0, 0), (0, 255, 0, 0), (0, 0, 255, 0), (0, 0, 0, 255),
                (60, 120, 200, 30), (200, 40, 10, 90), (128, 128, 128, 128)]

def make_cmyk():
    icc = cmyk_profile()
    open("cmyk.icc", "wb").write(icc)
    img = Image.new("CMYK", (16 * len(CMYK_PATCHES), 16))
    for i, c in enumerate(CMYK_PATCHES):
        img.paste(c, (16 * i, 0, 16 * i + 16, 16))
    img.save("cmyk_patches.jpg", quality=100, icc_profile=icc)
    img.save("cmyk_patches.tif", icc_profile=icc)
    source = ImageCms.ImageCmsProfile(io.BytesIO(icc))
    srgb = ImageCms.createProfile("sRGB")
    expected = {}
    for name in ["cmyk_patches.jpg", "cmyk_patches.tif"]:
        stored = Image.open(name)
        stored.load()
        rgb = ImageCms.profileToProfile(stored, source, srgb, renderingIntent=ImageCms.Intent.PERCEPTUAL,
                                        outputMode="RGB")
        a, s = np.asarray(rgb), np.asarray(stored)
        expected[name] = [{"x": 16 * i + 8, "y": 8, "stored_cmyk": s[8, 16 * i + 8].astype(int).tolist(),
                           "srgb8": a[8, 16 * i + 8].astype(int).tolist()} for i in range(len(CMYK_PATCHES))]
    json.dump(expected, open("cmyk_expected.json", "w"), indent=1)

if __name__ == "__main__":
    make_p3()
    make_cmyk()
