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
import json
import os
import random
import subprocess
import sys
import tempfile

import numpy as np
import zxingcpp
from PIL import Image

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOOL = os.path.join(ROOT, ".build", "debug", "pixelflow")
OUT = os.path.join(ROOT, "Tests", "PixelFlowTests", "Fixtures", "Barcodes", "rounded_qr.json")


def fnv1a64(text):
    h = 0xCBF29CE484222325
    for b in text.encode():
        h = ((h ^ b) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return f"{h:016x}"


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
    if not os.path.exists(TOOL):
        sys.exit("build the tool first: swift build --product pixelflow")
    results, failures = [], 0
    with tempfile.TemporaryDirectory() as tmp:
        for n, (message, opts) in enumerate(cases()):
            path = os.path.join(tmp, f"{n}.png")
            spec = "CIRoundedQRCodeGenerator inputMessage=hex:" + message.hex() + "".join(
                f" {k}={v}" for k, v in opts.items())
            run = subprocess.run([TOOL, "generate", spec, path], capture_output=True, text=True)
            if run.returncode:
                sys.exit(f"case {n}: {spec[:120]}: {run.stderr.strip()}")
            img = np.asarray(Image.open(path).convert("L"))
            found = zxingcpp.read_barcodes(img, formats=zxingcpp.BarcodeFormat.QRCode)
            decoded = found[0].bytes if found else b""
            if decoded != message:
                failures += 1
                print(f"case {n} {opts}: zxing-cpp read {decoded[:40]!r}, expected {message[:40]!r}", file=sys.stderr)
            lines = ["".join("1" if v < 128 else "0" for v in row) for row in img]
            results.append({"message_hex": message.hex(), "options": opts, "side": img.shape[0],
                            "dark_fnv": fnv1a64("".join(l + "\n" for l in lines)), "zxing_hex": decoded.hex()})
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w") as f:
        json.dump({"generator": "scripts/make_rounded_qr_fixtures.py", "zxing_cpp": "3.1.1", "cases": results}, f, indent=1)
        f.write("\n")
    print(f"{len(results)} cases, {failures} not read back, written to {os.path.relpath(OUT, ROOT)}")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
