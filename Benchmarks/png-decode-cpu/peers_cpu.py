"""CPU time (time.process_time, all threads) of the peers' png_decode of one PNG, as
../../../shared/peers/bench_peers.py defines it, one thread each: median over RUNS."""
import io
import os
import statistics
import sys
import time

os.environ.setdefault("VIPS_CONCURRENCY", "1")
import cv2  # noqa: E402
import numpy as np  # noqa: E402
import pyvips  # noqa: E402
from PIL import Image  # noqa: E402

cv2.setNumThreads(1)
data = open(sys.argv[1], "rb").read()
runs = int(sys.argv[2])
buf = np.frombuffer(data, np.uint8)


def median_ms(fn):
    times = []
    for _ in range(runs):
        start = time.process_time()
        fn()
        times.append(time.process_time() - start)
    return statistics.median(times) * 1e3


def vips():
    pyvips.Image.new_from_buffer(data, "", access="sequential").write_to_memory()


def pillow():
    Image.open(io.BytesIO(data)).load()


for name, fn in [("opencv", lambda: cv2.imdecode(buf, cv2.IMREAD_UNCHANGED)), ("vips", vips), ("pillow", pillow)]:
    print(f"{name} cpu median {median_ms(fn):.2f} ms")
