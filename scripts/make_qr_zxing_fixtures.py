#!/usr/bin/env python3
"""PixelFlow-made QR symbols and what an independent decoder (zxing-cpp) reads from them.

For each case the script asks the `pixelflow` command-line tool for a symbol
(`pixelflow qr encode TEXT OUT --level L --version V --scale 1`: one pixel per module and a
4-module quiet zone), decodes it with zxing-cpp (PyPI `zxing-cpp`, the C++ port of ZXing) after
scaling it up 4 times, and writes Tests/PixelFlowTests/Fixtures/QR/zxing/NN.txt: `# key: value`
headers, then the module rows without quiet zone, each as hexadecimal digits: 4 modules a
digit, the first module in the digit's high bit, 1 dark, the last digit padded with 0 bits.

Headers: message_hex (the UTF-8 bytes given to pixelflow), mode (what the message is made of),
version and level (what pixelflow was asked for), zxing_text_hex (the UTF-8 bytes of the text
zxing-cpp decoded, empty when it found nothing), zxing_version, zxing_level, zxing_mask.

QRZXingCrossTests re-encodes every case with the same message, level and version and expects
the identical matrix, so zxing-cpp's verdict applies to the current generator, and expects
zxing-cpp's text, version and level to be the ones asked for.

The messages fill each symbol to 85-100% of its capacity in the case's mode; the cases cover
versions 1 to 40 (each once, the levels in turn) and every level at versions 1, 7, 20 and 40,
in numeric, alphanumeric, byte (ASCII and multi-byte UTF-8), kanji and mixed messages.

Run: swift build --product pixelflow && pip install zxing-cpp pillow numpy \
     && python3 scripts/make_qr_zxing_fixtures.py
"""
import os
import subprocess
import sys
import tempfile

import numpy as np
import zxingcpp
from PIL import Image

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "Tests/PixelFlowTests/Fixtures/QR/zxing")
LEVELS = "LMQH"


def pixelflow_binary():
    path = subprocess.run(["swift", "build", "--show-bin-path"], cwd=ROOT, check=True,
                          capture_output=True, text=True).stdout.strip()
    binary = os.path.join(path, "pixelflow")
    if not os.path.exists(binary):
        sys.exit("build pixelflow first: swift build --product pixelflow")
    return binary


def alphabet(mode, i):
    """The i-th character of a deterministic message in `mode`."""
    if mode == "numeric":
        return "0123456789"[(i * 7 + 3) % 10]
    if mode == "alphanumeric":
        table = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ $%*+-./:"
        return table[(i * 11 + 5) % len(table)]
    if mode == "byte":
        return "The quick brown fox jumps over the lazy dog; "[i % 45]
    if mode == "utf8":
        return "Grüße, café, naïve — ünïcödé ✓ "[i % 31]
    if mode == "kanji":
        return "漢字日本語点茗電気東京大阪"[i % 13]
    if mode == "mixed":
        return ("ORDER 12345678901234 漢字 ABC-999 "[i % 32])
    raise ValueError(mode)


def message(mode, length):
    return "".join(alphabet(mode, i) for i in range(length))


def encode(binary, text, level, version, path):
    result = subprocess.run([binary, "qr", "encode", text, path, "--level", level,
                             "--version", str(version), "--scale", "1"],
                            capture_output=True, text=True)
    return result.returncode == 0


def longest_fitting(binary, mode, level, version, path):
    """The longest message in `mode` that fits `version` at `level` (binary search)."""
    lo, hi = 1, 8000
    if not encode(binary, message(mode, lo), level, version, path):
        return 0
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if encode(binary, message(mode, mid), level, version, path):
            lo = mid
        else:
            hi = mid - 1
    return lo


def modules(path, version):
    pixels = np.array(Image.open(path).convert("L"))
    size = 17 + 4 * version
    assert pixels.shape == (size + 8, size + 8), (pixels.shape, size)
    return (pixels[4:4 + size, 4:4 + size] < 128).astype(np.uint8)


def zxing_read(matrix):
    quiet = np.pad(matrix, 4)
    image = np.where(np.kron(quiet, np.ones((4, 4), dtype=np.uint8)) == 1, 0, 255).astype(np.uint8)
    found = zxingcpp.read_barcodes(image, formats=zxingcpp.BarcodeFormat.QRCode)
    return found[0] if found else None


def cases():
    modes = ["numeric", "alphanumeric", "byte", "utf8", "kanji", "mixed"]
    out = []
    for version in range(1, 41):
        out.append((modes[version % len(modes)], LEVELS[version % 4], version))
    for version in (1, 7, 20, 40):
        for level in LEVELS:
            out.append((modes[(version + LEVELS.index(level)) % len(modes)], level, version))
    return out


def main():
    binary = pixelflow_binary()
    os.makedirs(OUT, exist_ok=True)
    for name in os.listdir(OUT):
        if name.endswith(".txt"):
            os.remove(os.path.join(OUT, name))
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "code.png")
        for index, (mode, level, version) in enumerate(cases()):
            longest = longest_fitting(binary, mode, level, version, path)
            if longest == 0:
                sys.exit(f"no {mode} message fits version {version}-{level}")
            # 85-100% of the capacity, varied so that not every symbol is full.
            length = max(1, longest - (index * 7919) % max(1, longest * 15 // 100 + 1))
            text = message(mode, length)
            if not encode(binary, text, level, version, path):
                sys.exit(f"pixelflow failed on case {index}")
            matrix = modules(path, version)
            read = zxing_read(matrix)
            headers = {
                "message_hex": text.encode("utf-8").hex(),
                "mode": mode,
                "version": version,
                "level": level,
                "zxing_text_hex": read.text.encode("utf-8").hex() if read else "",
                "zxing_version": read.extra.get("Version", "") if read else "",
                "zxing_level": read.ec_level if read else "",
                "zxing_mask": read.extra.get("DataMask", "") if read else "",
            }
            ok = read is not None and read.text == text
            print(f"{index:02d} {mode:12s} {version}-{level} {len(text):5d} chars: "
                  f"{'ok' if ok else 'MISMATCH'}")
            with open(os.path.join(OUT, f"{index:02d}.txt"), "w") as f:
                for key, value in headers.items():
                    f.write(f"# {key}: {value}\n")
                for row in matrix:
                    bits = list(row) + [0] * (-len(row) % 4)
                    f.write("".join("%x" % (bits[i] * 8 + bits[i + 1] * 4 + bits[i + 2] * 2 + bits[i + 3])
                                    for i in range(0, len(bits), 4)) + "\n")


if __name__ == "__main__":
    main()
