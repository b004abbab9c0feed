#!/usr/bin/env python3
"""PixelFlow-made Code 128 symbols and what an independent decoder (zxing-cpp) reads from them.

For each case the script asks the `pixelflow` command-line tool for a barcode
(`pixelflow generate 'CICode128BarcodeGenerator inputMessage=hex:.. inputQuietSpace=Q
inputBarcodeHeight=H' OUT.png`), checks its layout (size, white margin, identical bar rows),
decodes it with zxing-cpp (PyPI `zxing-cpp`, the C++ port of ZXing) after scaling it 3 times
(and padding the margin to the 10 modules readers expect when the case asks for less), and
asks zxing-cpp's own encoder for the same message to compare lengths.

Writes Tests/PixelFlowTests/Fixtures/Barcodes/code128.json: a list of cases with
message_hex, quiet, height (what pixelflow was asked for), width (the image's), modules (the
bar row without margins: 1 bar, 0 space), zxing_hex (the bytes zxing-cpp decoded; empty when it
found nothing) and zxing_modules (the width of zxing-cpp's own symbol for the message).

Code128FixtureTests re-generates every case and expects the identical image layout and
modules, so zxing-cpp's verdict applies to the current generator; it also expects zxing-cpp's
bytes to be the message and our symbol to be no wider than zxing-cpp's.

Run: swift build --product pixelflow && pip install zxing-cpp pillow numpy \\
     && python3 scripts/make_code128_fixtures.py
"""
import os
import random
import sys
import tempfile

import numpy as np
import zxingcpp

from barcode_fixtures import ROOT, dark_rows, fixture_path, generate, load_gray, require_tool, write_fixture

OUT = fixture_path("code128.json")


def messages():
    rng = random.Random(128)
    fixed = [
        b"PixelFlow", b"0", b"12", b"123", b"1234", b"12345", b"123456", b"1234567890",
        b"A1234B", b"AB12345678CD", b"abc1234def", b"1234abc", b"abc1234", b"x12y3456z",
        b"HELLO WORLD", b"hello world", bytes(range(32, 127)), b"\x7f", b"DEL\x7fEND",
        b"\t", b"\x00ABC", b"abc\tdef", b"a\tb\tc", b"A\x01B\x02C", b"\r\n", b"\x00",
        b"ABC\x1bdef", b"lower\x03UPPER\x04", b"0123456789" * 3, b"9" * 31,
        b"`{|}~", b" ", b"~~~~", b"GS1-like 0101234567890128",
    ]
    printable = bytes(range(32, 127))
    for _ in range(6):
        fixed.append(bytes(rng.choice(printable) for _ in range(rng.randint(20, 80))))
    for _ in range(6):
        fixed.append(bytes(rng.randint(0, 127) for _ in range(rng.randint(5, 40))))
    for _ in range(4):
        # Digit runs of every length between text.
        parts = []
        for _ in range(rng.randint(2, 5)):
            parts.append(bytes(rng.choice(b"abcXYZ-") for _ in range(rng.randint(1, 3))))
            parts.append(bytes(rng.choice(b"0123456789") for _ in range(rng.randint(1, 9))))
        fixed.append(b"".join(parts))
    return fixed


def cases():
    out = []
    for i, m in enumerate(messages()):
        quiet, height = [(7, 32), (10, 32), (0, 5), (1, 1), (20, 100), (3, 12)][i % 6]
        out.append((m, quiet, height))
    return out


def main():
    require_tool()
    results = []
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        for n, (message, quiet, height) in enumerate(cases()):
            path = os.path.join(tmp, f"{n}.png")
            run = generate("CICode128BarcodeGenerator", message,
                           {"inputQuietSpace": quiet, "inputBarcodeHeight": height}, path)
            if run.returncode:
                sys.exit(f"case {n}: {run.stderr.strip()}")
            img = load_gray(path)
            h, w = img.shape
            assert h == height + 2 * quiet, (n, h)
            band = img[quiet:quiet + height, quiet:w - quiet]
            assert (band == band[0]).all(), f"case {n}: bar rows differ"
            margin = img.copy()
            margin[quiet:quiet + height, quiet:w - quiet] = 255
            assert (margin == 255).all(), f"case {n}: margin not white"
            modules = dark_rows(band[:1])[0]
            # Decode at 3x with a margin of at least 10 modules.
            pad = max(0, 10 - quiet)
            padded = np.pad(img, pad, constant_values=255)
            big = np.repeat(np.repeat(padded, 3, axis=0), 3, axis=1)
            big = np.repeat(big, max(1, 30 // big.shape[0] + 1), axis=0)  # 1-pixel-high bars
            found = zxingcpp.read_barcodes(big, formats=zxingcpp.BarcodeFormat.Code128)
            decoded = found[0].bytes if found else b""
            theirs = zxingcpp.create_barcode(message.decode("latin-1"), zxingcpp.BarcodeFormat.Code128)
            their_modules = np.asarray(theirs.to_image(scale=1, add_quiet_zones=False)).shape[1]
            if decoded != message:
                failures += 1
                print(f"case {n}: zxing-cpp read {decoded!r}, expected {message!r}", file=sys.stderr)
            if len(modules) > their_modules:
                print(f"case {n}: {len(modules)} modules, zxing-cpp's encoder {their_modules}", file=sys.stderr)
            results.append({
                "message_hex": message.hex(), "quiet": quiet, "height": height, "width": w,
                "modules": modules, "zxing_hex": decoded.hex(), "zxing_modules": their_modules,
            })
    write_fixture(OUT, "scripts/make_code128_fixtures.py", results,
                  zxingcpp.__version__ if hasattr(zxingcpp, "__version__") else "3.x")
    print(f"{len(results)} cases, {failures} not read back, written to {os.path.relpath(OUT, ROOT)}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
