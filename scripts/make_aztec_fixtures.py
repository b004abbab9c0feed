#!/usr/bin/env python3
"""PixelFlow-made Aztec symbols and what an independent decoder (zxing-cpp) reads from them.

For each case of a sweep (message kinds and lengths from empty to about 1900 bytes: upper and
lower case, digits, punctuation, control characters, bytes outside every character mode;
correction levels 5-95; forced layer counts; compact, full-range and automatic style) the
script asks the `pixelflow` command-line tool for a symbol (`pixelflow generate
'CIAztecCodeGenerator inputMessage=hex:.. key=value ..' OUT.png`), checks that it is square
with one pixel per module, decodes it with zxing-cpp (PyPI `zxing-cpp`, the C++ port of ZXing)
after padding a quiet zone and scaling it 3 times, and records the module matrix. For the
cases at 33% correction (zxing-cpp's writer's default) it also records the size of
zxing-cpp's own symbol for the same message.

Writes Tests/PixelFlowTests/Fixtures/Barcodes/aztec.json: a list of cases with message_hex,
options (the keys given to pixelflow), size (modules a side), modules_fnv (FNV-1a 64 of the
module rows, "1" dark, "0" light, each row ending in "\\n", as hex), zxing_hex (the bytes
zxing-cpp decoded; empty when it found nothing) and zxing_writer_size (or null).

AztecTests re-generates every case and expects the identical module matrix, so zxing-cpp's
verdict applies to the current generator; it also expects zxing-cpp's bytes to be the message.

Run: swift build --product pixelflow && pip install zxing-cpp pillow numpy \\
     && python3 scripts/make_aztec_fixtures.py
"""
import os
import random
import sys
import tempfile

import numpy as np
import zxingcpp

from barcode_fixtures import (ROOT, dark_rows, fixture_path, generate, load_gray, read_back, require_tool,
                              rows_fnv, write_fixture)

OUT = fixture_path("aztec.json")


def messages(rng):
    digits = lambda n: "".join(rng.choice("0123456789") for _ in range(n)).encode()
    out = [
        b"", b"A", b"PixelFlow", b"Hello, World!", b"0123456789", digits(60), b"lower case only here",
        b"UPPER then lower Then MiXeD", b"a.b,c:d;e!f?g", b"Price: $12.50 (20% off) #7 & more",
        b"@\\^_`|~\x7f", b"line one\nline two\r\n\ttab", b"x\x00y\x0ez\x1a", "Grüße, 東京 ✓".encode(),
        bytes(range(256)), b"\xff" * 40, b"http://example.com/path?q=1&r=2", b"M1DOE/JOHN            E1234567 ABCDEFGH",
        b"12 34 56 78, 90.12", b"aB" * 30, digits(5) + b"abc" + digits(5) + b"XYZ" + bytes([200, 1]) + b"end",
    ]
    text = bytes(range(32, 127)) + b"\t\n\r"
    for n in [20, 80, 200, 600]:
        out.append(bytes(rng.choice(text) for _ in range(n)))
    for n in [1, 31, 32, 100, 400]:
        out.append(bytes(rng.randint(0, 255) for _ in range(n)))
    out.append(bytes(rng.randint(0, 255) for _ in range(1800)))
    out.append(bytes(rng.choice(b"ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 ") for _ in range(1500)))
    return out


def cases():
    rng = random.Random(24778)
    out = []
    levels = [5, 23, 33, 50, 95]
    for i, m in enumerate(messages(rng)):
        out.append((m, {"inputCorrectionLevel": levels[i % len(levels)]}))
        if i % 3 == 0:
            out.append((m, {"inputCompactStyle": 0}))
        if i % 4 == 1 and len(m) < 40:
            out.append((m, {"inputCompactStyle": 1, "inputCorrectionLevel": 50}))
    for m in [b"PixelFlow", b"Hello, World!", b"0123456789" * 3, b"Aztec code generator check"]:
        out.append((m, {"inputCorrectionLevel": 33}))
    # Forced layers: compact 1-4, full 1-32 (every grid-line count).
    for layers in range(1, 5):
        out.append((b"layers " + str(layers).encode(), {"inputLayers": layers, "inputCompactStyle": 1}))
    for layers in [1, 2, 3, 4, 5, 8, 9, 12, 15, 20, 22, 23, 27, 32]:
        out.append((b"full " + str(layers).encode(), {"inputLayers": layers, "inputCompactStyle": 0}))
    return out


def main():
    require_tool()
    results, failures, larger = [], 0, 0
    with tempfile.TemporaryDirectory() as tmp:
        for n, (message, opts) in enumerate(cases()):
            path = os.path.join(tmp, f"{n}.png")
            run = generate("CIAztecCodeGenerator", message, opts, path)
            if run.returncode:
                sys.exit(f"case {n}: {opts}: {run.stderr.strip()}")
            img = load_gray(path)
            h, w = img.shape
            assert h == w, (n, h, w)
            decoded = read_back(img, zxingcpp.BarcodeFormat.Aztec, margin=4, scale=3)
            if decoded != message:
                failures += 1
                print(f"case {n} {opts}: zxing-cpp read {decoded[:40]!r}, expected {message[:40]!r}", file=sys.stderr)
            writer = None
            if opts == {"inputCorrectionLevel": 33} and message:
                try:
                    b = zxingcpp.create_barcode(message.decode("latin-1"), zxingcpp.BarcodeFormat.Aztec)
                    writer = np.asarray(b.to_image(scale=1, add_quiet_zones=False)).shape[0]
                    if w > writer:
                        larger += 1
                        print(f"case {n}: {w} modules, zxing-cpp's writer {writer}", file=sys.stderr)
                except Exception as e:  # noqa: BLE001 - report and go on
                    print(f"case {n}: zxing-cpp's writer failed: {e}", file=sys.stderr)
            results.append({
                "message_hex": message.hex(), "options": opts, "size": w,
                "modules_fnv": rows_fnv(dark_rows(img)), "zxing_hex": decoded.hex(),
                "zxing_writer_size": writer,
            })
    write_fixture(OUT, "scripts/make_aztec_fixtures.py", results)
    print(f"{len(results)} cases, {failures} not read back, {larger} larger than zxing-cpp's writer, "
          f"written to {os.path.relpath(OUT, ROOT)}")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
