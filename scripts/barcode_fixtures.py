"""What the barcode fixture scripts share: the `pixelflow` tool, its `generate` command,
zxing-cpp reading a symbol back, and the fixture file.

Used by make_aztec_fixtures.py, make_code128_fixtures.py, make_pdf417_fixtures.py and
make_rounded_qr_fixtures.py; each of those says what it sweeps and what it records.
"""
import json
import os
import subprocess
import sys

import numpy as np
import zxingcpp
from PIL import Image

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOOL = os.path.join(ROOT, ".build", "debug", "pixelflow")


def require_tool():
    """Exits with a hint when the debug `pixelflow` tool has not been built."""
    if not os.path.exists(TOOL):
        sys.exit("build the tool first: swift build --product pixelflow")


def fixture_path(name):
    """Tests/PixelFlowTests/Fixtures/Barcodes/NAME."""
    return os.path.join(ROOT, "Tests", "PixelFlowTests", "Fixtures", "Barcodes", name)


def spec(filter_name, message, opts):
    """The `pixelflow generate` recipe: the message as hex, then each option as key=value."""
    return f"{filter_name} inputMessage=hex:{message.hex()}" + "".join(f" {k}={v}" for k, v in opts.items())


def generate(filter_name, message, opts, path):
    """Runs `pixelflow generate`; returns the finished process (the caller checks returncode)."""
    return subprocess.run([TOOL, "generate", spec(filter_name, message, opts), path], capture_output=True, text=True)


def load_gray(path):
    """The image at path as an array of 8-bit gray values."""
    return np.asarray(Image.open(path).convert("L"))


def dark_rows(img):
    """Each row of img as a string, "1" for a value below half gray, "0" otherwise."""
    return ["".join("1" if v < 128 else "0" for v in row) for row in img]


def fnv1a64(text):
    """FNV-1a 64 of the UTF-8 bytes of text, as 16 hex digits."""
    h = 0xCBF29CE484222325
    for b in text.encode():
        h = ((h ^ b) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return f"{h:016x}"


def rows_fnv(rows):
    """fnv1a64 of the rows, each ending in a newline."""
    return fnv1a64("".join(row + "\n" for row in rows))


def read_back(img, barcode_format, margin=0, scale=1):
    """The bytes zxing-cpp reads from img after padding `margin` white pixels and scaling by
    `scale` (empty when it finds nothing)."""
    if margin:
        img = np.pad(img, margin, constant_values=255)
    if scale > 1:
        img = np.repeat(np.repeat(img, scale, axis=0), scale, axis=1)
    found = zxingcpp.read_barcodes(img, formats=barcode_format)
    return found[0].bytes if found else b""


def write_fixture(path, script, results, zxing_version="3.1.1"):
    """Writes {"generator", "zxing_cpp", "cases"} as the tests read it."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        json.dump({"generator": script, "zxing_cpp": zxing_version, "cases": results}, f, indent=1)
        f.write("\n")
