#!/usr/bin/env python3
"""Reference values for PixelFlow's photo effects (CIPhotoEffectChrome ... Transfer), from the
curves published in Docs/ColorLooks.md, computed with numpy and scipy (not with PixelFlow).

Each look works on sRGB-encoded, unpremultiplied red, green and blue:
  1. a saturation matrix about Rec. 709 luma, rgb' = s * rgb + (1 - s) * dot(w, rgb) with
     w = (0.2126, 0.7152, 0.0722) (s = 0 gives gray: Mono, Noir, Tonal);
  2. a curve per channel: the natural cubic spline (scipy CubicSpline, bc_type="natural")
     through the outputs at inputs 0, 0.25, 0.5, 0.75 and 1. Inputs outside 0...1 hold the end
     values, or, with inputExtrapolate, continue along the spline's end slopes.
Alpha is unchanged.

Writes Tests/PixelFlowTests/Fixtures/Filters/photo_effects.json: a list of sRGB-encoded input
colors (some outside 0...1) and, for each effect and extrapolate flag, the output colors.

Run: pip install numpy scipy && python3 scripts/make_photo_effect_fixtures.py
"""
import json
import os

import numpy as np
from scipy.interpolate import CubicSpline

LUMA = np.array([0.2126, 0.7152, 0.0722])
XS = [0.0, 0.25, 0.5, 0.75, 1.0]

# name: (saturation, red curve, green curve, blue curve); keep in step with Docs/ColorLooks.md.
LOOKS = {
    "Chrome": (1.2, [0.0, 0.22, 0.5, 0.8, 1.0], [0.0, 0.22, 0.5, 0.8, 1.0], [0.0, 0.22, 0.5, 0.8, 1.0]),
    "Fade": (0.75, [0.12, 0.31, 0.53, 0.75, 0.94], [0.12, 0.31, 0.53, 0.75, 0.94], [0.15, 0.33, 0.53, 0.74, 0.92]),
    "Instant": (0.9, [0.06, 0.3, 0.56, 0.8, 0.98], [0.05, 0.27, 0.52, 0.76, 0.95], [0.1, 0.26, 0.46, 0.68, 0.88]),
    "Mono": (0.0, XS, XS, XS),
    "Noir": (0.0, [0.0, 0.15, 0.5, 0.86, 1.0], [0.0, 0.15, 0.5, 0.86, 1.0], [0.0, 0.15, 0.5, 0.86, 1.0]),
    "Process": (1.0, [0.04, 0.2, 0.48, 0.78, 0.96], [0.02, 0.25, 0.53, 0.8, 1.0], [0.15, 0.32, 0.5, 0.66, 0.82]),
    "Tonal": (0.0, [0.05, 0.28, 0.52, 0.76, 0.97], [0.05, 0.28, 0.52, 0.76, 0.97], [0.05, 0.28, 0.52, 0.76, 0.97]),
    "Transfer": (1.1, [0.02, 0.28, 0.56, 0.82, 1.0], [0.01, 0.25, 0.51, 0.77, 0.97], [0.05, 0.2, 0.42, 0.66, 0.88]),
}


def curve(ys, x, extrapolate):
    s = CubicSpline(XS, ys, bc_type="natural")
    if not extrapolate:
        return s(np.clip(x, 0.0, 1.0))
    d = s.derivative()
    out = s(np.clip(x, 0.0, 1.0))
    out = np.where(x < 0, ys[0] + x * d(0.0), out)
    out = np.where(x > 1, ys[-1] + (x - 1) * d(1.0), out)
    return out


def apply(look, rgb, extrapolate):
    sat, *curves = LOOKS[look]
    gray = rgb @ LUMA
    mixed = sat * rgb + (1 - sat) * gray[:, None]
    return np.stack([curve(curves[c], mixed[:, c], extrapolate) for c in range(3)], axis=1)


def main():
    rng = np.random.default_rng(22)
    colors = [[0, 0, 0], [1, 1, 1], [0.5, 0.5, 0.5], [1, 0, 0], [0, 1, 0], [0, 0, 1], [0.9, 0.6, 0.2],
              [-0.2, 0.4, 1.3], [1.25, 1.1, -0.05]]
    colors += rng.uniform(0, 1, (23, 3)).round(4).tolist()
    rgb = np.array(colors, dtype=np.float64)
    for name, (sat, *curves) in LOOKS.items():
        grid = np.linspace(0, 1, 1001)
        for ys in curves:
            v = CubicSpline(XS, ys, bc_type="natural")(grid)
            assert np.all(np.diff(v) > 0), f"{name}: curve {ys} is not increasing"
            assert v.min() >= 0 and v.max() <= 1, f"{name}: curve {ys} leaves 0...1"
    cases = []
    for name in LOOKS:
        for extrapolate in (False, True):
            out = apply(name, rgb, extrapolate)
            cases.append(dict(name=name, extrapolate=extrapolate, colors=out.round(7).tolist()))
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    path = os.path.join(root, "Tests/PixelFlowTests/Fixtures/Filters/photo_effects.json")
    with open(path, "w") as f:
        json.dump(dict(inputs=colors, cases=cases), f, indent=None, separators=(",", ":"))
        f.write("\n")
    print(f"wrote {path}: {len(colors)} colors, {len(cases)} cases")


if __name__ == "__main__":
    main()
