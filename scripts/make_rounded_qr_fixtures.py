#!/usr/bin/env python3
"""PixelFlow's rounded QR codes and what an independent decoder (zxing-cpp) reads from them.

For each case of a sweep (messages of 1 to 400 bytes, the four correction levels, scales 2
to 12, rounded markers 0-2, round or square data modules, centre spaces up to 9 modules at
level H) the script asks the `pixelflow` tool for `CIRoundedQRCodeGenerator` images
(`pixelflow generate 'CIRoundedQRCodeGenerator inputMessage=hex:.. key=value ..' OUT.png`)
and decodes each with zxing-cpp (PyPI `zxing-cpp`, the C++ port of ZXing) as it is.

Writes Tests/PixelFlowTests/Fixtures/Barcodes/rounded_qr.json: a list of cases with
message_hex, options, side (pixels), dark_fnv (FNV-1a 64 of the image thresholded at half
gray, "1" dark, "0" light, each row ending in "\\n", as hex) and zxing_hex (the bytes zxing-cpp
decoded; empty when it found nothing). RoundedQRCodeTests re-generates every case and expects
the same thresholded image, so zxing-cpp's verdict applies to the current generator.

Run: swift build --product pixelflow && pip install zxing-cpp pillow numpy \\
     && python3 scripts/make_rounded_qr_fixtures.py
"""
import os
import random
import sys
import tempfile

import zxingcpp

from barcode_fixtures import (ROOT, dark_rows, fixture_path, generate, load_gray, read_back, require_tool,
                              rows_fnv, write_fixture)

OUT = fixture_path("rounded_qr.json")


def cases():
    rng = random.Random(18004)
    text = bytes(range(32, 127))
    out = []
    messages = [b"PixelFlow", b"https://example.com/rounded", b"0123456789" * 4, "Grüße ✓".encode()]
    messages += [bytes(rng.choice(text) for _ in range(n)) for n in [1, 20, 60, 150, 400]]
    levels = "LMQH"
    for i, m in enumerate(messages):
        for markers in range(3):
            opts = {"inputCorrectionLevel": levels[(i + markers) % 4], "inputRoundedMarkers": markers,
                    "inputScale": [2, 3, 4, 6, 12][(i + markers) % 5]}
            if (i + markers) % 4 == 3:
                opts["inputRoundedData"] = 0
            out.append((m, opts))
    for space in [3, 5, 7, 9]:
        out.append((b"https://example.com/logo-in-the-middle", {"inputCorrectionLevel": "H", "inputRoundedMarkers": 2,
                                                             "inputScale": 5, "inputCenterSpaceSize": space}))
    return out


def main():
    require_tool()
    results, failures = [], 0
    with tempfile.TemporaryDirectory() as tmp:
        for n, (message, opts) in enumerate(cases()):
            path = os.path.join(tmp, f"{n}.png")
            run = generate("CIRoundedQRCodeGenerator", message, opts, path)
            if run.returncode:
                sys.exit(f"case {n}: {opts}: {run.stderr.strip()}")
            img = load_gray(path)
            decoded = read_back(img, zxingcpp.BarcodeFormat.QRCode)
            if decoded != message:
                failures += 1
                print(f"case {n} {opts}: zxing-cpp read {decoded[:40]!r}, expected {message[:40]!r}", file=sys.stderr)
            results.append({"message_hex": message.hex(), "options": opts, "side": img.shape[0],
                            "dark_fnv": rows_fnv(dark_rows(img)), "zxing_hex": decoded.hex()})
    write_fixture(OUT, "scripts/make_rounded_qr_fixtures.py", results)
    print(f"{len(results)} cases, {failures} not read back, written to {os.path.relpath(OUT, ROOT)}")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
