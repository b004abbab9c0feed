#!/usr/bin/env python3
"""PixelFlow-made PDF417 symbols and what an independent decoder (zxing-cpp) reads from them.

For each case of a sweep (message kinds and lengths, data columns, rows, correction levels
0-8, compaction modes, compact style) the script asks the `pixelflow` command-line tool for a
barcode (`pixelflow generate 'CIPDF417BarcodeGenerator inputMessage=hex:.. key=value ..'
OUT.png`), checks its layout (2-pixel white margin, rows of 3 identical pixel rows, the start
pattern on every row), decodes it with zxing-cpp (PyPI `zxing-cpp`, the C++ port of ZXing)
after scaling it 3 times and padding the margin, and records the module matrix.

Writes Tests/PixelFlowTests/Fixtures/Barcodes/pdf417.json: a list of cases with message_hex,
options (the keys given to pixelflow), rows and width (in modules), modules_fnv (FNV-1a 64 of
the module rows, "1" for a bar, "0" for a space, each row ending in "\\n", as hex) and
zxing_hex (the bytes zxing-cpp decoded; empty when it found nothing).

PDF417Tests re-generates every case and expects the identical module matrix, so zxing-cpp's
verdict applies to the current generator; it also expects zxing-cpp's bytes to be the message.

Run: swift build --product pixelflow && pip install zxing-cpp pillow numpy \\
     && python3 scripts/make_pdf417_fixtures.py
"""
import os
import random
import sys
import tempfile

import zxingcpp

from barcode_fixtures import (ROOT, dark_rows, fixture_path, generate, load_gray, read_back, require_tool,
                              rows_fnv, write_fixture)

OUT = fixture_path("pdf417.json")
MARGIN, ROW = 2, 3


def messages(rng):
    digits = lambda n: "".join(rng.choice("0123456789") for _ in range(n)).encode()
    out = [
        b"", b"PixelFlow", b"Hello, World!", b"0", b"12", b"1234567890123", b"12345678901234567890",
        digits(44), digits(45), digits(88), digits(300), b"ABCDEFGHIJKLMNOPQRSTUVWXYZ abcdefghijklmnopqrstuvwxyz",
        b"MiXeD CaSe wItH 123 and !@#$%", b";<>@[\\]_`~!\r\t,:\n-.$/\"|*()?{}'", b"a;b;c", b"A!B!C!!D",
        b"line one\nline two\r\n\tindented", b"Invoice 2026-11-28 total 000123456789012345 EUR",
        "Grüße, 東京 ✓".encode(), bytes(range(256)), b"\x00\x01\x02\x03\x04\x05", b"\xff" * 12, b"\xfe" * 7,
        b"abc" + bytes([200, 201]) + b"def" + digits(20) + b"xyz", b"http://example.com/path?q=1&r=2",
    ]
    text = bytes(range(32, 127)) + b"\t\n\r"
    for _ in range(6):
        out.append(bytes(rng.choice(text) for _ in range(rng.randint(10, 200))))
    for _ in range(4):
        out.append(bytes(rng.randint(0, 255) for _ in range(rng.randint(1, 120))))
    for _ in range(4):
        parts = []
        for _ in range(rng.randint(2, 6)):
            parts.append(bytes(rng.choice(b"abcXYZ -.") for _ in range(rng.randint(1, 8))))
            parts.append(digits(rng.randint(1, 30)))
            if rng.random() < 0.3:
                parts.append(bytes([rng.randint(128, 255)]))
        out.append(b"".join(parts))
    return out


def cases():
    rng = random.Random(417)
    out = []
    for i, m in enumerate(messages(rng)):
        opts = {"inputCorrectionLevel": i % 9}
        if i % 4 == 1:
            opts["inputDataColumns"] = [1, 2, 5, 12, 30][i % 5]
        if i % 5 == 2:
            opts["inputRows"] = [3, 20, 90][i % 3]
        if i % 6 == 3:
            opts["inputCompactStyle"] = 1
        if i % 7 == 4:
            opts["inputAlwaysSpecifyCompaction"] = 1
        if i % 8 == 5:
            opts["inputPreferredAspectRatio"] = 1
        out.append((m, opts))
    # Forced compaction modes.
    for m, mode in [(b"0123456789" * 5, 1), (b"TEXT only, mostly", 2), (b"bytes", 3), (b"123456", 3), (b"", 1)]:
        out.append((m, {"inputCompactionMode": mode}))
    # Every level on one message, and the size limits.
    for level in range(9):
        out.append((b"PDF417 level sweep", {"inputCorrectionLevel": level, "inputCompactStyle": level % 2}))
    out.append((b"width limited", {"inputMaxWidth": 120}))
    out.append((b"height limited" * 4, {"inputMaxHeight": 30}))
    out.append((b"min width", {"inputMinWidth": 400}))
    return out


def main():
    require_tool()
    results, failures = [], 0
    with tempfile.TemporaryDirectory() as tmp:
        for n, (message, opts) in enumerate(cases()):
            path = os.path.join(tmp, f"{n}.png")
            while generate("CIPDF417BarcodeGenerator", message, opts, path).returncode:
                # A fixed size too small for the level: the next lower level (recorded),
                # Then, at level 0, without the fixed columns.
                if opts.get("inputCorrectionLevel", 2) > 0:
                    opts["inputCorrectionLevel"] = opts.get("inputCorrectionLevel", 2) - 1
                elif "inputDataColumns" in opts:
                    del opts["inputDataColumns"]
                else:
                    sys.exit(f"case {n}: {opts} cannot be generated")
            img = load_gray(path)
            h, w = img.shape
            inner = img[MARGIN:h - MARGIN, MARGIN:w - MARGIN]
            assert (h - 2 * MARGIN) % ROW == 0, (n, h)
            frame = img.copy()
            frame[MARGIN:h - MARGIN, MARGIN:w - MARGIN] = 255
            assert (frame == 255).all(), f"case {n}: margin not white"
            rows = (h - 2 * MARGIN) // ROW
            lines = []
            for r in range(rows):
                band = inner[r * ROW:(r + 1) * ROW]
                assert (band == band[0]).all(), f"case {n}: row {r} not uniform"
                line = dark_rows(band[:1])[0]
                assert line.startswith("11111111010101000"), f"case {n}: row {r} lacks the start pattern"
                lines.append(line)
            decoded = read_back(img, zxingcpp.BarcodeFormat.PDF417, margin=10, scale=3)
            if decoded != message:
                failures += 1
                print(f"case {n} {opts}: zxing-cpp read {decoded[:40]!r}, expected {message[:40]!r}", file=sys.stderr)
            results.append({
                "message_hex": message.hex(), "options": opts, "rows": rows, "width": w - 2 * MARGIN,
                "modules_fnv": rows_fnv(lines), "zxing_hex": decoded.hex(),
            })
    write_fixture(OUT, "scripts/make_pdf417_fixtures.py", results)
    print(f"{len(results)} cases, {failures} not read back, written to {os.path.relpath(OUT, ROOT)}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
