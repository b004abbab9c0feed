#!/usr/bin/env python3
"""Reference values for PixelFlow's CIGuidedFilter, computed with numpy from the paper.

He, Sun and Tang, "Guided Image Filtering" (ECCV 2010; TPAMI 35(6), 2013), Algorithm 1, with a
gray guide I (the Rec. 709 luma of the guide image) and every channel of the input p filtered
alike, in float64:

    mean_I = f(I), mean_p = f(p), corr_I = f(I*I), corr_Ip = f(I*p)
    var_I = corr_I - mean_I^2, cov_Ip = corr_Ip - mean_I*mean_p
    a = cov_Ip / (var_I + eps), b = mean_p - a*mean_I
    q = f(a)*I + f(b)

where f is the mean over a (2r+1)x(2r+1) box. Both images are first extended by 2r pixels that
repeat their edges (numpy.pad mode "edge"), as PixelFlow reads them through clampedToExtent(),
so a and b are also fitted on windows centered up to r past the border (the paper instead
shrinks windows at the border; the two differ only within 2r of it). The box means use
cumulative sums (O(1) per pixel in the radius, as the paper's Algorithm 1 says).

Writes Tests/PixelFlowTests/Fixtures/Filters/guided.json: the input and guide images (RGBA
float, opaque, row-major) and q for each (radius, eps) case.

Run: pip install numpy && python3 scripts/make_guided_filter_fixtures.py
"""
import json
import os

import numpy as np

W, H = 23, 17
yy, xx = np.mgrid[0:H, 0:W].astype(np.float64)
rng = np.random.default_rng(5)

# Guide: two flat regions split by a diagonal edge, with texture; input: a noisy ramp.
guide = np.zeros((H, W, 4))
edge = (xx + 0.6 * yy > 13).astype(np.float64)
guide[..., 0] = 0.2 + 0.6 * edge + 0.05 * np.sin(xx)
guide[..., 1] = 0.3 + 0.5 * edge
guide[..., 2] = 0.7 - 0.4 * edge + 0.05 * np.cos(yy)
guide[..., 3] = 1
p = np.zeros((H, W, 4))
p[..., 0] = xx / W
p[..., 1] = 0.5 * edge + 0.25
p[..., 2] = yy / H
p[..., :3] += rng.normal(0, 0.05, (H, W, 3))
p[..., :3] = np.clip(p[..., :3], 0, 1)
p[..., 3] = 1
guide = guide.astype(np.float32).astype(np.float64)
p = p.astype(np.float32).astype(np.float64)


def box(a, r):
    """Means over the (2r+1)^2 windows that fit inside `a` (the output is 2r smaller on each
    axis), by cumulative sums."""
    n = 2 * r + 1
    c = np.zeros((a.shape[0] + 1, a.shape[1] + 1) + a.shape[2:])
    c[1:, 1:] = a.cumsum(0).cumsum(1)
    s = c[n:, n:] - c[:-n, n:] - c[n:, :-n] + c[:-n, :-n]
    return s / (n * n)


def guided(p, guide, r, eps):
    i = guide[..., 0] * 0.2126 + guide[..., 1] * 0.7152 + guide[..., 2] * 0.0722
    # Both images extended by 2r with their edge pixels: a and b are fitted on windows centered
    # up to r past the border, then averaged over the windows covering each output pixel.
    ip = np.pad(i, 2 * r, mode="edge")
    pp = np.pad(p, ((2 * r, 2 * r), (2 * r, 2 * r), (0, 0)), mode="edge")
    mean_i = box(ip, r)
    corr_i = box(ip * ip, r)
    var_i = corr_i - mean_i ** 2
    mean_p = box(pp, r)
    cov = box(ip[..., None] * pp, r) - mean_i[..., None] * mean_p
    a = cov / (var_i[..., None] + eps)
    b = mean_p - a * mean_i[..., None]
    return box(a, r) * i[..., None] + box(b, r)


cases = []
for r, eps in ((1, 1e-2), (3, 1e-3), (12, 1e-2)):
    q = guided(p, guide, r, eps)
    cases.append(dict(radius=r, epsilon=eps, pixels=q.reshape(-1).tolist()))

doc = dict(generator="scripts/make_guided_filter_fixtures.py", numpy=np.__version__, width=W, height=H,
           input=p.reshape(-1).tolist(), guide=guide.reshape(-1).tolist(), cases=cases)
path = os.path.join(os.path.dirname(__file__), "..", "Tests", "PixelFlowTests", "Fixtures", "Filters", "guided.json")
with open(path, "w") as f:
    json.dump(doc, f, separators=(",", ":"))
print("wrote", os.path.normpath(path), os.path.getsize(path), "bytes")
