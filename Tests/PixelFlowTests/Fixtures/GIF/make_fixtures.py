#!/usr/bin/env python3
"""Makes the GIF fixtures of GIFCodecTests with Pillow 13 (run from this folder).

Pillow's GIF encoder writes every image's LZW data; this script assembles animations from
those images itself (Pillow's animated writer crops frames to what changed, so it cannot
place a frame at a chosen rectangle) with chosen Graphic Control Extensions, offsets, color
maps and application extensions. Expected canvases are computed here from the indices
written, with browser compositing (canvas starts transparent; disposal 2 clears to
transparent; 3 restores; frames clipped to the screen), and compared with Pillow's own
reading (Image.seek + convert("RGBA")) wherever Pillow composites the same way; the README
says which file was checked against Pillow.
"""
import io
import struct

from PIL import Image, ImageCms

W, H = 20, 16


def palette(seed, count=256):
    """A deterministic palette: entry 0 is reserved (used as transparent), others varied."""
    out = []
    for i in range(count):
        out += [(i * 37 + seed * 11) % 256, (i * 91 + seed * 53) % 256, (i * 23 + 60 + seed * 7) % 256]
    return out


def indices(w, h, seed, transparent_every=0):
    """Deterministic indices 1...15 (0 where (x + y) % transparent_every == 0)."""
    out = []
    for y in range(h):
        for x in range(w):
            v = 1 + (x * 3 + y * 5 + seed * 7) % 15
            if transparent_every and (x + 2 * y + seed) % transparent_every == 0:
                v = 0
            out.append(v)
    return out


def lzw_data(w, h, idx, interlace=False):
    """The LZW part (minimum code size byte, sub-blocks, terminator) that Pillow writes."""
    im = Image.new("P", (w, h))
    im.putpalette(palette(0))
    im.putdata(idx)
    buf = io.BytesIO()
    im.save(buf, "GIF", optimize=False, interlace=interlace)
    data = buf.getvalue()
    pos = 13
    flags = data[10]
    if flags & 0x80:
        pos += 3 << ((flags & 7) + 1)
    while True:
        c = data[pos]
        if c == 0x21:
            pos += 2
            while data[pos]:
                pos += data[pos] + 1
            pos += 1
        elif c == 0x2C:
            f = data[pos + 9]
            pos += 10
            if f & 0x80:
                pos += 3 << ((f & 7) + 1)
            start = pos
            pos += 1
            while data[pos]:
                pos += data[pos] + 1
            return data[start:pos + 1]
        else:
            raise ValueError("unexpected block %r" % c)


def sub_blocks(payload):
    out = b""
    for i in range(0, len(payload), 255):
        chunk = payload[i:i + 255]
        out += bytes([len(chunk)]) + chunk
    return out + b"\x00"


def application(identifier, payload):
    return b"\x21\xff\x0b" + identifier + sub_blocks(payload)


def xmp_extension(packet):
    trailer = bytes([1] + list(range(255, -1, -1)))
    return b"\x21\xff\x0bXMP DataXMP" + packet + trailer + b"\x00"


def gif(frames, global_map=None, width=W, height=H, loop=None, extensions=b""):
    """frames: dicts with rect, idx, disposal, delay, transparent, local_map, interlace."""
    out = b"GIF89a" + struct.pack("<HH", width, height)
    out += bytes([0xF7 if global_map else 0x00, 0, 0])
    if global_map:
        out += bytes(global_map)
    if loop is not None:
        out += application(b"NETSCAPE2.0", b"\x01" + struct.pack("<H", loop))
    out += extensions
    for f in frames:
        if f.get("control", True):
            t = f.get("transparent")
            packed = (f.get("disposal", 0) << 2) | (1 if t is not None else 0)
            out += b"\x21\xf9\x04" + bytes([packed]) + struct.pack("<H", f.get("delay", 0))
            out += bytes([t or 0, 0])
        x, y, w, h = f["rect"]
        local = f.get("local_map")
        flags = (0x87 if local else 0) | (0x40 if f.get("interlace") else 0)
        out += b"\x2c" + struct.pack("<HHHH", x, y, w, h) + bytes([flags])
        if local:
            out += bytes(local)
        out += f["lzw"] if "lzw" in f else lzw_data(w, h, f["idx"], f.get("interlace", False))
    return out + b"\x3b"


def composite(frames, global_map, width=W, height=H):
    """Browser compositing; returns a list of RGBA byte strings, one per frame."""
    canvas = bytearray(width * height * 4)
    shown = []
    previous = None  # (disposal, rect, saved)
    for f in frames:
        if previous:
            disposal, (x0, y0, x1, y1), saved = previous
            for y in range(y0, y1):
                for x in range(x0, x1):
                    o = (y * width + x) * 4
                    canvas[o:o + 4] = b"\0\0\0\0" if disposal == 2 else saved[o:o + 4]
        x, y, w, h = f["rect"]
        x0, y0, x1, y1 = min(x, width), min(y, height), min(x + w, width), min(y + h, height)
        d = f.get("disposal", 0)
        previous = (d, (x0, y0, x1, y1), bytes(canvas)) if d in (2, 3) else None
        colors = f.get("local_map") or global_map
        for yy in range(y0, y1):
            for xx in range(x0, x1):
                v = f["idx"][(yy - y) * w + (xx - x)]
                if v == f.get("transparent"):
                    continue
                o = (yy * width + xx) * 4
                canvas[o:o + 4] = bytes(colors[3 * v:3 * v + 3]) + b"\xff"
        shown.append(bytes(canvas))
    return shown


def save_png(name, rgba, width=W, height=H):
    Image.frombytes("RGBA", (width, height), rgba).save(name)


def pillow_frames(name):
    im = Image.open(name)
    out = []
    for i in range(im.n_frames):
        im.seek(i)
        out.append(im.convert("RGBA"))
    return out


def same(a, b):
    """Equal RGBA, transparent pixels compared by alpha only (Pillow keeps their color)."""
    pa, pb = a.tobytes(), b.tobytes()
    if len(pa) != len(pb):
        return False
    return all(pa[i + 3] == 0 and pb[i + 3] == 0 or pa[i:i + 4] == pb[i:i + 4] for i in range(0, len(pa), 4))


def write_animation(name, frames, global_map, check_pillow, pillow_differs=(), shown_map=None, **kw):
    """Writes the file and its expected canvases; asserts that Pillow reads every frame the
    same except those in `pillow_differs` (where Pillow's compositing is not a browser's)."""
    data = gif(frames, global_map, **kw)
    open(name, "wb").write(data)
    width, height = kw.get("width", W), kw.get("height", H)
    expected = composite(frames, shown_map or global_map, width, height)
    base = name[:-4]
    for i, rgba in enumerate(expected):
        save_png("%s-%d.png" % (base, i), rgba, width, height)
    if check_pillow:
        theirs = pillow_frames(name)
        assert len(theirs) == len(expected), name
        differs = tuple(i for i, rgba in enumerate(expected)
                        if not same(Image.frombytes("RGBA", (width, height), rgba), theirs[i]))
        assert differs == tuple(pillow_differs), "%s: Pillow differs at frames %r" % (name, differs)
    print(name, len(data), "bytes,", len(expected), "frames;",
          ("Pillow agrees except at frames %r" % (tuple(pillow_differs),)) if check_pillow else "not checked by Pillow")


def main():
    g = palette(1)
    # Every disposal method, transparency, partial frames at offsets, different delays.
    disposal_frames = [
        dict(rect=(0, 0, W, H), idx=indices(W, H, 0), disposal=1, delay=10),
        dict(rect=(4, 3, 8, 6), idx=indices(8, 6, 1, 3), disposal=2, delay=20, transparent=0),
        dict(rect=(10, 6, 8, 8), idx=indices(8, 8, 2, 4), disposal=3, delay=30, transparent=0),
        dict(rect=(2, 8, 6, 6), idx=indices(6, 6, 3), disposal=0, delay=0),
        dict(rect=(12, 1, 5, 5), idx=indices(5, 5, 4, 2), disposal=1, delay=7, transparent=0),
    ]
    # Pillow fills a disposal-2 rectangle with the background color when the first frame
    # has no transparency; browsers clear it to transparent: frames 2 and 3 differ there.
    write_animation("animated-disposal.gif", disposal_frames, g, True, pillow_differs=(2, 3, 4), loop=0)

    # A local color map on the second frame; the third uses the global one again.
    local = palette(9)
    write_animation("local-color-map.gif", [
        dict(rect=(0, 0, W, H), idx=indices(W, H, 5), disposal=1, delay=4),
        dict(rect=(3, 2, 10, 9), idx=indices(10, 9, 6), disposal=1, delay=4, local_map=local),
        dict(rect=(8, 8, 6, 5), idx=indices(6, 5, 7), disposal=1, delay=4),
    ], g, True)

    # Interlaced frames (Pillow interlaces only images of at least 16 x 16): a full one and a
    # partial one of 19 rows, so that every pass ends on a different row.
    write_animation("interlaced.gif", [
        dict(rect=(0, 0, 24, 20), idx=indices(24, 20, 8), interlace=True, disposal=1, delay=10),
        dict(rect=(5, 1, 16, 19), idx=indices(16, 19, 9, 5), interlace=True, disposal=1, delay=10, transparent=0),
    ], g, True, width=24, height=20)

    # Frames reaching outside the screen are clipped (Pillow grows the canvas instead, so
    # the expected canvases come from composite() alone); the last lies wholly outside.
    write_animation("clipped.gif", [
        dict(rect=(0, 0, W, H), idx=indices(W, H, 10), disposal=1, delay=10),
        dict(rect=(14, 10, 10, 9), idx=indices(10, 9, 11), disposal=1, delay=10),
        dict(rect=(30, 2, 4, 4), idx=indices(4, 4, 12), disposal=1, delay=10),
    ], g, False)

    # No color map at all: index i shows as gray (i, i, i), as Pillow reads it.
    write_animation("no-color-map.gif", [dict(rect=(0, 0, W, H), idx=indices(W, H, 15))], None, True,
                    shown_map=[v for i in range(256) for v in (i, i, i)])

    # A frame of zero size (LZW data: code size 2, one block holding clear and end codes)
    # between two ordinary ones: it draws nothing, counts as a frame and keeps its delay.
    write_animation("zero-size-frame.gif", [
        dict(rect=(0, 0, W, H), idx=indices(W, H, 16), disposal=1, delay=10),
        dict(rect=(3, 3, 0, 0), idx=[], lzw=b"\x02\x01\x2c\x00", disposal=2, delay=50),
        dict(rect=(6, 4, 5, 5), idx=indices(5, 5, 17), disposal=1, delay=10),
    ], g, False)

    # A still image written by Pillow alone (not interlaced), with its expected RGBA.
    still = Image.new("P", (W, H))
    still.putpalette(g)
    still.putdata(indices(W, H, 13))
    still.save("still.gif", interlace=False)
    still_rgba = Image.open("still.gif").convert("RGBA")
    still_rgba.save("still.png")

    # A still with a transparent index, written by Pillow alone.
    t = Image.new("P", (W, H))
    t.putpalette(g)
    t.putdata(indices(W, H, 14, 3))
    t.save("transparent.gif", transparency=0, interlace=False)
    Image.open("transparent.gif").convert("RGBA").save("transparent.png")

    # ICC profile and XMP packet in application extensions (Pillow writes neither: inserted
    # after the global color map).
    icc = ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB")).tobytes()
    open("profile.icc", "wb").write(icc)
    xmp = (b'<?xpacket begin="" id="W5M0MpCehiHzreSzNTczkc9d"?><x:xmpmeta xmlns:x="adobe:ns:meta/">'
           b'<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"/></x:xmpmeta>'
           b'<?xpacket end="w"?>')
    open("packet.xmp", "wb").write(xmp)
    data = open("still.gif", "rb").read()
    flags = data[10]
    head = 13 + ((3 << ((flags & 7) + 1)) if flags & 0x80 else 0)
    data = data[:head] + application(b"ICCRGBG1012", icc) + xmp_extension(xmp) + data[head:]
    open("icc-xmp.gif", "wb").write(data)
    assert Image.open("icc-xmp.gif").convert("RGBA").tobytes() == still_rgba.tobytes()

    # The GIF PixelFlow wrote (GIFCodecTests.testEncoderOutputIsStable): Pillow must read it
    # as PixelFlow's decoder does (pixelflow-smooth.png, written by that test's decoder).
    try:
        ours = Image.open("pixelflow-smooth.gif").convert("RGBA")
        expected = Image.open("pixelflow-smooth.png").convert("RGBA")
        assert ours.tobytes() == expected.tobytes(), "Pillow reads pixelflow-smooth.gif differently"
        print("pixelflow-smooth.gif: Pillow agrees with PixelFlow's decoder")
    except FileNotFoundError:
        print("pixelflow-smooth.gif not written yet")


if __name__ == "__main__":
    main()
