// Per-pixel kernels of the color adjustment and color effect families beyond the
// foundation's (Filters/ColorAdjustmentFilters+Curves.swift, +Balance.swift,
// ColorEffectFilters.swift, ColorCubeFilter.swift). Row functions on unpremultiplied
// `SIMD4<Float>` pixels in place, unless a name says premultiplied; no state across pixels.
//
// Tolerances against a plain scalar reference are stated beside each kernel; 0 means the
// same float operations in the same order.

import CSIMD

// MARK: Polynomials

/// `out = c0 + c1 x + c2 x^2 + c3 x^3` per channel, alpha included; `c[k]` holds the degree-k
/// coefficient of red, green, blue and alpha (`CIColorPolynomial`). Horner's rule.
/// Tolerance: 0 against the same Horner evaluation; 2e-6 relative against the sum of powers.
func colorPolynomialRow(
    _ p: UnsafeMutablePointer<SIMD4<Float>>, count: Int,
    _ c0: SIMD4<Float>, _ c1: SIMD4<Float>, _ c2: SIMD4<Float>, _ c3: SIMD4<Float>
) {
    for i in 0..<count {
        let x = p[i]
        p[i] = ((c3 * x + c2) * x + c1) * x + c0
    }
}

/// Core Image's cross polynomial: each output color channel is
/// `k0 r + k1 g + k2 b + k3 r^2 + k4 g^2 + k5 b^2 + k6 rg + k7 gb + k8 br + k9`, alpha unchanged;
/// `k[j]` holds the coefficient `j` of red, green and blue outputs (`CIColorCrossPolynomial`).
/// Tolerance: 0 against the same sum in this order.
func colorCrossPolynomialRow(_ p: UnsafeMutablePointer<SIMD4<Float>>, count: Int, _ k: [SIMD4<Float>]) {
    let k0 = k[0], k1 = k[1], k2 = k[2], k3 = k[3], k4 = k[4], k5 = k[5], k6 = k[6], k7 = k[7], k8 = k[8], k9 = k[9]
    for i in 0..<count {
        let v = p[i]
        let r = v.x, g = v.y, b = v.z
        var o = k0 * r + k1 * g + k2 * b
        o += k3 * (r * r) + k4 * (g * g) + k5 * (b * b)
        o += k6 * (r * g) + k7 * (g * b) + k8 * (b * r) + k9
        o.w = v.w
        p[i] = o
    }
}

// MARK: Tables

/// A 1D lookup table sampled at `count` evenly spaced inputs from `lower` to `upper`, read
/// with linear interpolation; inputs outside the range take the end values or, when
/// `extrapolate`, continue along the end slopes.
struct LookupTable1D: Sendable {
    let values: [Float]
    let lower: Float
    let upper: Float
    let lowerSlope: Float
    let upperSlope: Float
    let extrapolate: Bool

    /// Samples `f` at `count` points (`count >= 2`), in Double.
    init(
        count: Int, lower: Double, upper: Double, extrapolate: Bool, lowerSlope: Double, upperSlope: Double,
        _ f: (Double) -> Double
    ) {
        let step = (upper - lower) / Double(count - 1)
        values = (0..<count).map { Float(f(lower + Double($0) * step)) }
        self.lower = Float(lower)
        self.upper = Float(upper)
        self.lowerSlope = Float(lowerSlope)
        self.upperSlope = Float(upperSlope)
        self.extrapolate = extrapolate
    }
}

/// Applies `table` to the red, green and blue channels, alpha unchanged (`CIToneCurve`).
/// Tolerance: 1e-6 against the interpolated table computed in Double; the table itself
/// differs from the curve by at most h^2/8 * max|f''| for a step h.
func lookupTableRGBRow(_ p: UnsafeMutablePointer<SIMD4<Float>>, count: Int, table t: LookupTable1D) {
    let n = t.values.count
    let scale = Float(n - 1) / (t.upper - t.lower)
    let lo = SIMD4<Float>(repeating: t.lower), hi = SIMD4<Float>(repeating: t.upper)
    let last = SIMD4<Float>(repeating: Float(n - 2))
    t.values.withUnsafeBufferPointer { table in
        for i in 0..<count {
            let v = p[i]
            var c = v
            c.replace(with: lo, where: c .< lo)
            c.replace(with: hi, where: c .> hi)
            c.replace(with: lo, where: .!(c .== c))  // NaN -> lower end
            let s = (c - lo) * scale
            var k = pf_floor4(s)
            k.replace(with: last, where: k .> last)
            k.replace(with: SIMD4<Float>(), where: .!(k .>= SIMD4<Float>()))  // NaN (a degenerate scale) -> first entry
            let f = s - k
            let idx = pf_trunc_to_int4(k)
            var o = SIMD4<Float>.zero
            for ch in 0..<3 {
                let j = Int(idx[ch])
                let a = table[j], b = table[j + 1]
                o[ch] = a + (b - a) * f[ch]
            }
            if t.extrapolate {
                let below = v .< lo, above = v .> hi
                o.replace(with: SIMD4(repeating: table[0]) + (v - lo) * t.lowerSlope, where: below)
                o.replace(with: SIMD4(repeating: table[n - 1]) + (v - hi) * t.upperSlope, where: above)
            }
            o.w = v.w
            p[i] = o
        }
    }
}

/// Linear interpolation in `table` (at least 2 entries) at `t` in [0, 1] (clamped; NaN reads
/// entry 0).
@inline(__always)
func _gradientSample(_ table: UnsafeBufferPointer<SIMD4<Float>>, _ t: Float) -> SIMD4<Float> {
    let n = table.count
    var s = t * Float(n - 1)
    if !(s > 0) { s = 0 }
    if s > Float(n - 1) { s = Float(n - 1) }
    var j = Int(s)
    if j > n - 2 { j = n - 2 }
    let f = s - Float(j)
    let a = table[j], b = table[j + 1]
    return a + (b - a) * f
}

/// Maps each pixel through a gradient indexed by its Rec. 709 luminance, clamped to [0, 1]:
/// `out = gradient(l)` with alpha `gradient(l).a * in.a`. With `premultipliedTable` the
/// table holds premultiplied colors (interpolated as such, then unpremultiplied); with
/// `encodeIndex` the luminance is sRGB-encoded first (a perceptual index for palettes laid
/// out by eye). Used by `CIColorMap`, `CIFalseColor`, `CIThermal` and `CIXRay`.
/// Tolerance: 1e-6 against the same formula in Double.
func gradientMapRow(
    _ p: UnsafeMutablePointer<SIMD4<Float>>, count: Int, table: [SIMD4<Float>],
    premultipliedTable: Bool, encodeIndex: Bool
) {
    table.withUnsafeBufferPointer { t in
        for i in 0..<count {
            let v = p[i]
            var l = 0.2126 * v.x + 0.7152 * v.y + 0.0722 * v.z
            if encodeIndex { l = SRGB.fromLinear(l) }
            var g = _gradientSample(t, l)
            if premultipliedTable {
                let a = g.w
                g = a > 0 ? g / a : .zero
                g.w = a
            }
            g.w *= v.w
            p[i] = g
        }
    }
}

// MARK: Clamps, thresholds, reciprocals

/// `min(max(x, lower), upper)` on all four channels (`CIColorClamp`). NaN stays NaN.
/// Tolerance: 0.
func colorClampRow(_ p: UnsafeMutablePointer<SIMD4<Float>>, count: Int, lower: SIMD4<Float>, upper: SIMD4<Float>) {
    for i in 0..<count {
        var v = p[i]
        v.replace(with: lower, where: v .< lower)
        v.replace(with: upper, where: v .> upper)
        p[i] = v
    }
}

/// Color channels become 1 where greater than `threshold`, else 0; alpha unchanged
/// (`CIColorThreshold`). Tolerance: 0.
func colorThresholdRow(_ p: UnsafeMutablePointer<SIMD4<Float>>, count: Int, threshold: Float) {
    let t = SIMD4<Float>(repeating: threshold)
    for i in 0..<count {
        let v = p[i]
        var o = SIMD4<Float>.zero
        o.replace(with: 1, where: v .> t)
        o.w = v.w
        p[i] = o
    }
}

/// `rgb = 1 / max(rgb, 1e-6)`, alpha unchanged: depth to disparity and back
/// (`CIDepthToDisparity`, `CIDisparityToDepth`), finite for zero and negative inputs.
/// Tolerance: 0 (one correctly rounded division).
func reciprocalRGBRow(_ p: UnsafeMutablePointer<SIMD4<Float>>, count: Int) {
    let floor = SIMD4<Float>(repeating: 1e-6)
    for i in 0..<count {
        let v = p[i]
        var d = v
        d.replace(with: floor, where: .!(d .>= floor))
        var o = 1 / d
        o.w = v.w
        p[i] = o
    }
}

/// `rgb = floor(rgb * steps + 0.5) / steps` with `steps = levels - 1`: each channel snapped
/// to one of `levels` evenly spaced values in [0, 1]; alpha unchanged (`CIColorPosterize`).
/// Tolerance: 0.
func posterizeRow(_ p: UnsafeMutablePointer<SIMD4<Float>>, count: Int, levels: Float) {
    let steps = levels - 1
    for i in 0..<count {
        let v = p[i]
        var o = pf_floor4(v * steps + 0.5) / steps
        o.w = v.w
        p[i] = o
    }
}

/// `(m, m, m, a)` with `m` the largest (`largest`) or smallest color channel
/// (`CIMaximumComponent`, `CIMinimumComponent`). Tolerance: 0.
func componentExtremeRow(_ p: UnsafeMutablePointer<SIMD4<Float>>, count: Int, largest: Bool) {
    for i in 0..<count {
        let v = p[i]
        let m = largest ? Swift.max(v.x, Swift.max(v.y, v.z)) : Swift.min(v.x, Swift.min(v.y, v.z))
        p[i] = SIMD4(m, m, m, v.w)
    }
}

/// White with alpha `clamp(luma(rgb) * a, 0, 1)`: the luminance of the premultiplied color
/// becomes coverage (`CIMaskToAlpha`). Tolerance: 0.
func maskToAlphaRow(_ p: UnsafeMutablePointer<SIMD4<Float>>, count: Int) {
    for i in 0..<count {
        let v = p[i]
        var a = (0.2126 * v.x + 0.7152 * v.y + 0.0722 * v.z) * v.w
        if !(a > 0) { a = 0 }
        if a > 1 { a = 1 }
        p[i] = SIMD4(1, 1, 1, a)
    }
}

/// Vibrance: `out = l + (c - l) * (1 + amount * (1 - s))` with `l` the Rec. 709 luma and
/// `s = max - min` of the color channels clamped to [0, 1], so dull colors gain more
/// saturation than vivid ones; alpha unchanged (`CIVibrance`). Tolerance: 0.
func vibranceRow(_ p: UnsafeMutablePointer<SIMD4<Float>>, count: Int, amount: Float) {
    for i in 0..<count {
        let v = p[i]
        let l = 0.2126 * v.x + 0.7152 * v.y + 0.0722 * v.z
        var s = Swift.max(v.x, Swift.max(v.y, v.z)) - Swift.min(v.x, Swift.min(v.y, v.z))
        if !(s > 0) { s = 0 }
        if s > 1 { s = 1 }
        let k = 1 + amount * (1 - s)
        var o = SIMD4<Float>(repeating: l) + (v - SIMD4(repeating: l)) * k
        o.w = v.w
        p[i] = o
    }
}

// MARK: Palettes

/// Replaces each color by the nearest entry of `palette` (Euclidean distance between
/// `key(color)` and `keys[j]`; the first of equally near entries wins); alpha unchanged
/// (`CIPalettize`). `keys` are the palette colors themselves, or their CIELAB values for a
/// perceptual match. Tolerance: 0 (exact ties aside, the same entry as a scalar search).
/// - Complexity: O(palette size) per pixel.
func palettizeRow(
    _ p: UnsafeMutablePointer<SIMD4<Float>>, count: Int, palette: [SIMD4<Float>], keys: [SIMD4<Float>],
    perceptual: Bool
) {
    palette.withUnsafeBufferPointer { pal in
        keys.withUnsafeBufferPointer { ks in
            for i in 0..<count {
                let v = p[i]
                var key = perceptual ? rgbToLab(v) : v
                key.w = 0
                var best = 0
                var bestDistance = Float.infinity
                for j in 0..<ks.count {
                    let d = ks[j] - key
                    let e = d.x * d.x + d.y * d.y + d.z * d.z
                    if e < bestDistance { bestDistance = e; best = j }
                }
                var o = pal[best]
                o.w = v.w
                p[i] = o
            }
        }
    }
}

// MARK: Blends (premultiplied in, premultiplied out)

/// `|fg - bg|` on straight colors, alpha `fg.a * bg.a`, premultiplied
/// (`CIColorAbsoluteDifference`). Tolerance: 1e-6 (unpremultiplying costs an ulp).
func absoluteDifferenceRow(_ fg: UnsafePointer<SIMD4<Float>>, _ dst: UnsafeMutablePointer<SIMD4<Float>>, count: Int) {
    for i in 0..<count {
        let f = fg[i], b = dst[i]
        let a = f.w * b.w
        var d = _straightColor(f) - _straightColor(b)
        d.replace(with: -d, where: d .< 0)
        d = d * a
        d.w = a
        dst[i] = d
    }
}

/// Multiplies the color lanes of `dst` by the first lane of `fg` (a factor image), alpha
/// unchanged: premultiplied colors scale like straight ones (`CIVignette`,
/// `CIVignetteEffect`). Tolerance: 0.
func scaleColorByFactorRow(_ fg: UnsafePointer<SIMD4<Float>>, _ dst: UnsafeMutablePointer<SIMD4<Float>>, count: Int) {
    for i in 0..<count {
        let f = fg[i].x, b = dst[i]
        dst[i] = SIMD4(b.x * f, b.y * f, b.z * f, b.w)
    }
}

/// Adds `intensity * noise * alpha` to the premultiplied color lanes of `dst` (noise from
/// `fg`, in [-0.5, 0.5)), alpha unchanged (`CIDither`). Tolerance: 0.
func addScaledNoiseRow(
    _ fg: UnsafePointer<SIMD4<Float>>, _ dst: UnsafeMutablePointer<SIMD4<Float>>, count: Int,
    intensity: Float
) {
    for i in 0..<count {
        let b = dst[i]
        var n = fg[i] * (intensity * b.w)
        n.w = 0
        dst[i] = b + n
    }
}

// MARK: Position-dependent generators

/// A 32-bit integer hash with good avalanche (C. Wellons, "lowbias32", 2018).
@inline(__always)
func _hash32(_ v: UInt32) -> UInt32 {
    var x = v
    x ^= x >> 16
    x = x &* 0x7FEB_352D
    x ^= x >> 15
    x = x &* 0x846C_A68B
    x ^= x >> 16
    return x
}

/// Noise in [-0.5, 0.5) for the three color lanes of pixel `(x, y)`, a pure function of the
/// position (so tiles and threads never change it); alpha lane 1.
@inline(__always)
func ditherNoise(x: Int, y: Int) -> SIMD4<Float> {
    let h0 = _hash32(UInt32(truncatingIfNeeded: x) ^ _hash32(UInt32(truncatingIfNeeded: y) &+ 0x9E37_79B9))
    let h1 = _hash32(h0 &+ 0x632B_E5AB)
    let h2 = _hash32(h1 &+ 0x85EB_CA77)
    let scale: Float = 1.0 / 16_777_216
    return SIMD4(Float(h0 >> 8) * scale - 0.5, Float(h1 >> 8) * scale - 0.5, Float(h2 >> 8) * scale - 0.5, 1)
}

/// Fills `count` pixels of row `y` from column `x` with noise (`ditherNoise`).
func ditherNoiseFill(x: Int, y: Int, count: Int, out: UnsafeMutablePointer<SIMD4<Float>>) {
    for i in 0..<count { out[i] = ditherNoise(x: x + i, y: y) }
}

/// `(t^2 (3 - 2t))` of `t` clamped to [0, 1]: Hermite smoothstep.
@inline(__always)
func _smoothstep01(_ t: Double) -> Double {
    let c = t < 0 ? 0 : (t > 1 ? 1 : t)
    return c * c * (3 - 2 * c)
}

/// The darkening factor of `CIVignette` at pixel center `(px, py)`:
/// `max(0, 1 - intensity * min(d^2 / radius^2, 1e6))`, `d` the distance to `center` over
/// `halfDiagonal`.
@inline(__always)
func vignetteFactor(
    px: Double, py: Double, center: Point, halfDiagonal: Double, radius: Double,
    intensity: Double
) -> Float {
    let dx = (px - center.x) / halfDiagonal, dy = (py - center.y) / halfDiagonal
    var v2 = (dx * dx + dy * dy) / (radius * radius)
    if !(v2 < 1e6) { v2 = 1e6 }
    return Float(Swift.max(0, 1 - intensity * v2))
}

/// The factor of `CIVignetteEffect` at pixel center `(px, py)`:
/// `1 - intensity * smoothstep(radius * (1 - falloff), radius, d)`, a hard edge at `radius`
/// when `falloff` is 0.
@inline(__always)
func vignetteEffectFactor(
    px: Double, py: Double, center: Point, radius: Double, intensity: Double,
    falloff: Double
) -> Float {
    let dx = px - center.x, dy = py - center.y
    let d = (dx * dx + dy * dy).squareRoot()
    let inner = radius * (1 - falloff)
    let t: Double
    if radius - inner > 0 {
        t = _smoothstep01((d - inner) / (radius - inner))
    } else {
        t = d > radius ? 1 : 0
    }
    return Float(1 - intensity * t)
}

// MARK: Color cube

/// A validated color cube: `dimension^3` RGBA entries, red varying fastest, then green, then
/// blue (Core Image's layout), premultiplied.
struct ColorCubeTable: Sendable {
    let dimension: Int
    let entries: [SIMD4<Float>]
}

/// Trilinear lookup in `cube` of each pixel's RGB (`CIColorCube`). Coordinates are clamped to
/// [0, 1] unless `extrapolate`, which continues the edge cells linearly. The interpolated
/// entry `e` (premultiplied) gives the straight color `e.rgb / e.a` with alpha `e.a * in.a`.
/// Tolerance: 1e-6 against the same interpolation in Double.
/// - Complexity: 8 table reads and 7 lerps per pixel.
func colorCubeRow(_ p: UnsafeMutablePointer<SIMD4<Float>>, count: Int, cube: ColorCubeTable, extrapolate: Bool) {
    let d = cube.dimension
    let scale = Float(d - 1)
    let maxCell = SIMD4<Float>(repeating: Float(d - 2))
    cube.entries.withUnsafeBufferPointer { e in
        for i in 0..<count {
            let v = p[i]
            var c = v
            c.replace(with: 0, where: .!(c .== c))
            if !extrapolate {
                c.replace(with: 0, where: c .< 0)
                c.replace(with: 1, where: c .> 1)
            }
            let s = c * scale
            var k = pf_floor4(s)
            k.replace(with: 0, where: k .< 0)
            k.replace(with: maxCell, where: k .> maxCell)
            let f = s - k
            let idx = pf_trunc_to_int4(k)
            let base = (Int(idx.z) * d + Int(idx.y)) * d + Int(idx.x)
            let dy = d, dz = d * d
            let c000 = e[base], c100 = e[base + 1], c010 = e[base + dy], c110 = e[base + dy + 1]
            let c001 = e[base + dz], c101 = e[base + dz + 1], c011 = e[base + dz + dy], c111 = e[base + dz + dy + 1]
            let c00 = c000 + (c100 - c000) * f.x, c10 = c010 + (c110 - c010) * f.x
            let c01 = c001 + (c101 - c001) * f.x, c11 = c011 + (c111 - c011) * f.x
            let c0 = c00 + (c10 - c00) * f.y, c1 = c01 + (c11 - c01) * f.y
            var o = c0 + (c1 - c0) * f.z
            let a = o.w
            o = a > 0 ? o / a : .zero
            o.w = a * v.w
            p[i] = o
        }
    }
}

// MARK: Color curves

/// Validated color curves: RGB outputs at evenly spaced inputs (`CIColorCurves`).
struct ColorCurvesTable: Sendable {
    let entries: [SIMD3<Float>]
}

/// Each pixel's red, green and blue through its curve in `curves` (`CIColorCurves`): the
/// input `v` sits at `t = (v - lower) / (upper - lower) * (count - 1)`, clamped to the table,
/// and takes the linear mix of the two entries around it; NaN is taken as `lower`. Alpha is
/// unchanged. Tolerance: 1e-6 against the same interpolation in Double.
/// - Complexity: 6 table reads per pixel.
func colorCurvesRow(
    _ p: UnsafeMutablePointer<SIMD4<Float>>, count: Int, curves: ColorCurvesTable, lower: Float, upper: Float
) {
    let last = curves.entries.count - 1
    let scale = Float(last) / (upper - lower)
    curves.entries.withUnsafeBufferPointer { e in
        for i in 0..<count {
            var v = p[i]
            for c in 0..<3 {
                var t = (v[c] - lower) * scale
                if !(t > 0) { t = 0 }
                if t > Float(last) { t = Float(last) }
                let k = Swift.min(Int(t), Swift.max(last - 1, 0))
                let f = t - Float(k)
                let a = e[k][c]
                v[c] = last == 0 ? a : a + (e[k + 1][c] - a) * f
            }
            p[i] = v
        }
    }
}
