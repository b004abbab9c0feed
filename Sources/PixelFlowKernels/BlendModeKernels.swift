// Blend-mode and component-wise compositing kernels on rows of premultiplied RGBA float
// pixels (`SIMD4<Float>`): `fg` is the foreground (source), `dst` holds the background
// (backdrop) on entry and the result on exit. Pure per-pixel math: no state across pixels.
//
// Blend modes follow the general formula of W3C Compositing and Blending Level 1, section
// 9.1.4 ("Blending and compositing"), rewritten for premultiplied colors:
//
//     co = cs * (1 - ab) + cb * (1 - as) + as * ab * B(Cb, Cs)      ao = as + ab - as * ab
//
// where cs, cb are premultiplied and Cs = cs / as, Cb = cb / ab the straight colors. For the
// modes whose B is a product, a sum or a min/max of the two colors, `as * ab * B` is written
// directly on premultiplied values (no division): `as * ab * Cb * Cs = cb * cs`,
// `as * ab * min(Cb, Cs) = min(cb * as, cs * ab)`, and so on. Where a pixel is transparent
// (alpha 0) its straight color is taken as 0; its weight `as * ab` is 0 then, so the choice
// does not show in the result.
//
// Tolerance against a scalar reference on straight values: 1e-6 absolute for colors in
// [0, 1] (the premultiplied rewrites reorder a few products); relative 1e-6 for Divide,
// whose quotient is unbounded. Results are not clamped unless the mode's formula clamps.

// MARK: Shared helpers

/// `a` where `a <= b`, else `b`, lane by lane (a compare and a select; NaN in `b` is ignored).
@inline(__always)
func _lanewiseMin(_ a: SIMD4<Float>, _ b: SIMD4<Float>) -> SIMD4<Float> {
    var r = a
    r.replace(with: b, where: b .< a)
    return r
}

/// `a` where `a >= b`, else `b`, lane by lane.
@inline(__always)
func _lanewiseMax(_ a: SIMD4<Float>, _ b: SIMD4<Float>) -> SIMD4<Float> {
    var r = a
    r.replace(with: b, where: b .> a)
    return r
}

/// The straight color of a premultiplied pixel, 0 where its alpha is not positive; the alpha
/// lane of the result is meaningless.
@inline(__always)
func _straightColor(_ p: SIMD4<Float>) -> SIMD4<Float> {
    let a = SIMD4<Float>(repeating: p.w)
    var c = p / a
    c.replace(with: 0, where: a .<= 0)
    return c
}

/// The W3C general formula given `m = as * ab * B(Cb, Cs)` in its color lanes:
/// `f * (1 - ab) + b * (1 - as) + m`, with the alpha lane of `m` set to `as * ab` so that
/// the result's alpha is `as + ab - as * ab`.
@inline(__always)
func _composeBlend(_ f: SIMD4<Float>, _ b: SIMD4<Float>, _ m: SIMD4<Float>) -> SIMD4<Float> {
    var m = m
    m.w = f.w * b.w
    return f * (1 - b.w) + b * (1 - f.w) + m
}

/// Applies a blend function `B(Cb, Cs)` of straight colors to a row: unpremultiplies both
/// pixels, evaluates `B` and composites with the general formula.
@inline(__always)
func _straightBlendRow(
    _ fg: UnsafePointer<SIMD4<Float>>, _ dst: UnsafeMutablePointer<SIMD4<Float>>, count: Int,
    _ blend: (_ cb: SIMD4<Float>, _ cs: SIMD4<Float>) -> SIMD4<Float>
) {
    for i in 0..<count {
        let f = fg[i], b = dst[i]
        let mixed = blend(_straightColor(b), _straightColor(f))
        dst[i] = _composeBlend(f, b, mixed * (f.w * b.w))
    }
}

// MARK: Component-wise compositing (Core Image's componentAdd, componentMax, ...)

/// Addition compositing: `fg + dst` on all four channels, unclamped (`CIAdditionCompositing`).
package func additionCompositeRow(_ fg: UnsafePointer<SIMD4<Float>>, _ dst: UnsafeMutablePointer<SIMD4<Float>>, count: Int) {
    for i in 0..<count { dst[i] = fg[i] + dst[i] }
}

/// Maximum compositing: the per-channel maximum of the premultiplied pixels (`CIMaximumCompositing`).
package func maximumCompositeRow(_ fg: UnsafePointer<SIMD4<Float>>, _ dst: UnsafeMutablePointer<SIMD4<Float>>, count: Int) {
    for i in 0..<count { dst[i] = _lanewiseMax(dst[i], fg[i]) }
}

/// Minimum compositing: the per-channel minimum of the premultiplied pixels (`CIMinimumCompositing`).
package func minimumCompositeRow(_ fg: UnsafePointer<SIMD4<Float>>, _ dst: UnsafeMutablePointer<SIMD4<Float>>, count: Int) {
    for i in 0..<count { dst[i] = _lanewiseMin(dst[i], fg[i]) }
}

/// Multiply compositing: `fg * dst` on all four channels (`CIMultiplyCompositing`).
package func multiplyCompositeRow(_ fg: UnsafePointer<SIMD4<Float>>, _ dst: UnsafeMutablePointer<SIMD4<Float>>, count: Int) {
    for i in 0..<count { dst[i] = fg[i] * dst[i] }
}

// MARK: Porter-Duff

/// Porter-Duff source-in: `fg * dst.a` (`CISourceInCompositing`).
package func sourceInRow(_ fg: UnsafePointer<SIMD4<Float>>, _ dst: UnsafeMutablePointer<SIMD4<Float>>, count: Int) {
    for i in 0..<count { dst[i] = fg[i] * dst[i].w }
}

/// Porter-Duff source-out: `fg * (1 - dst.a)` (`CISourceOutCompositing`).
package func sourceOutRow(_ fg: UnsafePointer<SIMD4<Float>>, _ dst: UnsafeMutablePointer<SIMD4<Float>>, count: Int) {
    for i in 0..<count { dst[i] = fg[i] * (1 - dst[i].w) }
}

// MARK: Separable blend modes on premultiplied values (no division)

/// Multiply: `B = Cb * Cs`, so `as * ab * B = cb * cs`.
package func multiplyBlendRow(_ fg: UnsafePointer<SIMD4<Float>>, _ dst: UnsafeMutablePointer<SIMD4<Float>>, count: Int) {
    for i in 0..<count {
        let f = fg[i], b = dst[i]
        dst[i] = _composeBlend(f, b, f * b)
    }
}

/// Screen: `B = Cb + Cs - Cb * Cs`, so `as * ab * B = cb * as + cs * ab - cb * cs`.
package func screenBlendRow(_ fg: UnsafePointer<SIMD4<Float>>, _ dst: UnsafeMutablePointer<SIMD4<Float>>, count: Int) {
    for i in 0..<count {
        let f = fg[i], b = dst[i]
        dst[i] = _composeBlend(f, b, b * f.w + f * b.w - f * b)
    }
}

/// Darken: `B = min(Cb, Cs)`, so `as * ab * B = min(cb * as, cs * ab)`.
package func darkenBlendRow(_ fg: UnsafePointer<SIMD4<Float>>, _ dst: UnsafeMutablePointer<SIMD4<Float>>, count: Int) {
    for i in 0..<count {
        let f = fg[i], b = dst[i]
        dst[i] = _composeBlend(f, b, _lanewiseMin(b * f.w, f * b.w))
    }
}

/// Lighten: `B = max(Cb, Cs)`, so `as * ab * B = max(cb * as, cs * ab)`.
package func lightenBlendRow(_ fg: UnsafePointer<SIMD4<Float>>, _ dst: UnsafeMutablePointer<SIMD4<Float>>, count: Int) {
    for i in 0..<count {
        let f = fg[i], b = dst[i]
        dst[i] = _composeBlend(f, b, _lanewiseMax(b * f.w, f * b.w))
    }
}

/// Difference: `B = |Cb - Cs|`, so `as * ab * B = |cb * as - cs * ab|`.
package func differenceBlendRow(_ fg: UnsafePointer<SIMD4<Float>>, _ dst: UnsafeMutablePointer<SIMD4<Float>>, count: Int) {
    for i in 0..<count {
        let f = fg[i], b = dst[i]
        let d = b * f.w - f * b.w
        var m = d
        m.replace(with: -d, where: d .< 0)
        dst[i] = _composeBlend(f, b, m)
    }
}

/// Exclusion: `B = Cb + Cs - 2 * Cb * Cs`, so `as * ab * B = cb * as + cs * ab - 2 * cb * cs`.
package func exclusionBlendRow(_ fg: UnsafePointer<SIMD4<Float>>, _ dst: UnsafeMutablePointer<SIMD4<Float>>, count: Int) {
    for i in 0..<count {
        let f = fg[i], b = dst[i]
        let p = f * b
        dst[i] = _composeBlend(f, b, b * f.w + f * b.w - (p + p))
    }
}

/// Linear dodge: `B = Cb + Cs`, unclamped, so `as * ab * B = cb * as + cs * ab`.
package func linearDodgeBlendRow(_ fg: UnsafePointer<SIMD4<Float>>, _ dst: UnsafeMutablePointer<SIMD4<Float>>, count: Int) {
    for i in 0..<count {
        let f = fg[i], b = dst[i]
        dst[i] = _composeBlend(f, b, b * f.w + f * b.w)
    }
}

/// Linear burn: `B = Cb + Cs - 1`, unclamped, so `as * ab * B = cb * as + cs * ab - as * ab`.
package func linearBurnBlendRow(_ fg: UnsafePointer<SIMD4<Float>>, _ dst: UnsafeMutablePointer<SIMD4<Float>>, count: Int) {
    for i in 0..<count {
        let f = fg[i], b = dst[i]
        dst[i] = _composeBlend(f, b, b * f.w + f * b.w - f.w * b.w)
    }
}

/// Linear light: `B = Cb + 2 * Cs - 1`, unclamped, so `as * ab * B = cb * as + 2 * cs * ab - as * ab`.
package func linearLightBlendRow(_ fg: UnsafePointer<SIMD4<Float>>, _ dst: UnsafeMutablePointer<SIMD4<Float>>, count: Int) {
    for i in 0..<count {
        let f = fg[i], b = dst[i]
        let s = f * b.w
        dst[i] = _composeBlend(f, b, b * f.w + (s + s) - f.w * b.w)
    }
}

/// Subtract: `B = max(Cb - Cs, 0)`, so `as * ab * B = max(cb * as - cs * ab, 0)`.
package func subtractBlendRow(_ fg: UnsafePointer<SIMD4<Float>>, _ dst: UnsafeMutablePointer<SIMD4<Float>>, count: Int) {
    for i in 0..<count {
        let f = fg[i], b = dst[i]
        var m = b * f.w - f * b.w
        m.replace(with: 0, where: m .< 0)
        dst[i] = _composeBlend(f, b, m)
    }
}

/// Pin light: `B = Cs <= 0.5 ? min(Cb, 2 * Cs) : max(Cb, 2 * Cs - 1)`; on premultiplied values
/// `Cs <= 0.5` is `cs <= as / 2`, and `as * ab * B` is `min(cb * as, 2 * cs * ab)` or
/// `max(cb * as, 2 * cs * ab - as * ab)`.
package func pinLightBlendRow(_ fg: UnsafePointer<SIMD4<Float>>, _ dst: UnsafeMutablePointer<SIMD4<Float>>, count: Int) {
    for i in 0..<count {
        let f = fg[i], b = dst[i]
        let bs = b * f.w, s = f * b.w
        let s2 = s + s
        let dark = _lanewiseMin(bs, s2)
        var m = _lanewiseMax(bs, s2 - f.w * b.w)
        m.replace(with: dark, where: f .<= f.w * 0.5)
        dst[i] = _composeBlend(f, b, m)
    }
}

/// Divide: `B = Cb / Cs`, and 1 where `Cs = 0`; unclamped. On premultiplied values
/// `as * ab * Cb / Cs = cb * as * as / cs`, and `as * ab` where `cs = 0`.
package func divideBlendRow(_ fg: UnsafePointer<SIMD4<Float>>, _ dst: UnsafeMutablePointer<SIMD4<Float>>, count: Int) {
    for i in 0..<count {
        let f = fg[i], b = dst[i]
        var m = (b * f.w) * f.w / f
        m.replace(with: SIMD4(repeating: f.w * b.w), where: f .== 0)
        dst[i] = _composeBlend(f, b, m)
    }
}

// MARK: Separable blend modes on straight values

/// W3C color-dodge on straight colors: 0 where `Cb <= 0`, else 1 where `Cs >= 1`, else
/// `min(1, Cb / (1 - Cs))`.
@inline(__always)
func _colorDodge(_ cb: SIMD4<Float>, _ cs: SIMD4<Float>) -> SIMD4<Float> {
    var r = cb / (1 - cs)
    r.replace(with: 1, where: r .> 1)
    r.replace(with: 1, where: cs .>= 1)
    r.replace(with: 0, where: cb .<= 0)
    return r
}

/// W3C color-burn on straight colors: 1 where `Cb >= 1`, else 0 where `Cs <= 0`, else
/// `1 - min(1, (1 - Cb) / Cs)`.
@inline(__always)
func _colorBurn(_ cb: SIMD4<Float>, _ cs: SIMD4<Float>) -> SIMD4<Float> {
    var t = (1 - cb) / cs
    t.replace(with: 1, where: t .> 1)
    var r = 1 - t
    r.replace(with: 0, where: cs .<= 0)
    r.replace(with: 1, where: cb .>= 1)
    return r
}

/// W3C hard-light on straight colors: `Cb * 2Cs` where `Cs <= 0.5`, else
/// `Screen(Cb, 2Cs - 1)`.
@inline(__always)
func _hardLight(_ cb: SIMD4<Float>, _ cs: SIMD4<Float>) -> SIMD4<Float> {
    let cs2 = cs + cs
    let s = cs2 - 1
    var r = cb + s - cb * s
    r.replace(with: cb * cs2, where: cs .<= 0.5)
    return r
}

/// Color dodge (W3C `color-dodge`).
package func colorDodgeBlendRow(_ fg: UnsafePointer<SIMD4<Float>>, _ dst: UnsafeMutablePointer<SIMD4<Float>>, count: Int) {
    _straightBlendRow(fg, dst, count: count) { cb, cs in _colorDodge(cb, cs) }
}

/// Color burn (W3C `color-burn`).
package func colorBurnBlendRow(_ fg: UnsafePointer<SIMD4<Float>>, _ dst: UnsafeMutablePointer<SIMD4<Float>>, count: Int) {
    _straightBlendRow(fg, dst, count: count) { cb, cs in _colorBurn(cb, cs) }
}

/// Hard light (W3C `hard-light`).
package func hardLightBlendRow(_ fg: UnsafePointer<SIMD4<Float>>, _ dst: UnsafeMutablePointer<SIMD4<Float>>, count: Int) {
    _straightBlendRow(fg, dst, count: count) { cb, cs in _hardLight(cb, cs) }
}

/// Overlay (W3C `overlay`): `HardLight(Cs, Cb)`, hard light with the roles swapped.
package func overlayBlendRow(_ fg: UnsafePointer<SIMD4<Float>>, _ dst: UnsafeMutablePointer<SIMD4<Float>>, count: Int) {
    _straightBlendRow(fg, dst, count: count) { cb, cs in _hardLight(cs, cb) }
}

/// Soft light (W3C `soft-light`): `Cb - (1 - 2Cs) * Cb * (1 - Cb)` where `Cs <= 0.5`, else
/// `Cb + (2Cs - 1) * (D(Cb) - Cb)` with `D(Cb) = ((16Cb - 12)Cb + 4)Cb` for `Cb <= 0.25`
/// and `sqrt(Cb)` above.
package func softLightBlendRow(_ fg: UnsafePointer<SIMD4<Float>>, _ dst: UnsafeMutablePointer<SIMD4<Float>>, count: Int) {
    _straightBlendRow(fg, dst, count: count) { cb, cs in
        var d = cb.squareRoot()
        d.replace(with: ((16 * cb - 12) * cb + 4) * cb, where: cb .<= 0.25)
        let k = cs + cs - 1
        var r = cb + k * (d - cb)
        r.replace(with: cb + k * cb * (1 - cb), where: cs .<= 0.5)
        return r
    }
}

/// Vivid light: `ColorBurn(Cb, 2Cs)` where `Cs <= 0.5`, else `ColorDodge(Cb, 2Cs - 1)`, with
/// the W3C definitions of burn and dodge.
package func vividLightBlendRow(_ fg: UnsafePointer<SIMD4<Float>>, _ dst: UnsafeMutablePointer<SIMD4<Float>>, count: Int) {
    _straightBlendRow(fg, dst, count: count) { cb, cs in
        let cs2 = cs + cs
        var r = _colorDodge(cb, cs2 - 1)
        r.replace(with: _colorBurn(cb, cs2), where: cs .<= 0.5)
        return r
    }
}

// MARK: Non-separable blend modes (W3C section 10.2)

/// `Lum(C) = 0.3 R + 0.59 G + 0.11 B`.
@inline(__always)
func _blendLuminosity(_ c: SIMD4<Float>) -> Float { 0.3 * c.x + 0.59 * c.y + 0.11 * c.z }

/// W3C `SetLum(C, l)`: shifts `C` to luminosity `l`, then `ClipColor` brings it back toward
/// `[0, 1]` keeping its luminosity. Denominators are guarded: a gray `C` is returned as is.
@inline(__always)
func _setLuminosity(_ c: SIMD4<Float>, _ l: Float) -> SIMD4<Float> {
    var c = c + (l - _blendLuminosity(c))
    let lum = _blendLuminosity(c)
    let n = min(c.x, min(c.y, c.z)), x = max(c.x, max(c.y, c.z))
    if n < 0, lum > n { c = lum + (c - lum) * (lum / (lum - n)) }
    if x > 1, x > lum { c = lum + (c - lum) * ((1 - lum) / (x - lum)) }
    return c
}

/// W3C `SetSat(C, s)`: the largest channel becomes `s`, the smallest 0 and the middle one
/// scales proportionally; a gray `C` becomes black.
@inline(__always)
func _setSaturation(_ c: SIMD4<Float>, _ s: Float) -> SIMD4<Float> {
    let n = min(c.x, min(c.y, c.z)), x = max(c.x, max(c.y, c.z))
    guard x > n else { return .zero }
    return (c - n) * (s / (x - n))
}

/// `Sat(C) = max(C) - min(C)` over the color channels.
@inline(__always)
func _blendSaturation(_ c: SIMD4<Float>) -> Float {
    max(c.x, max(c.y, c.z)) - min(c.x, min(c.y, c.z))
}

/// Hue: `SetLum(SetSat(Cs, Sat(Cb)), Lum(Cb))`.
package func hueBlendRow(_ fg: UnsafePointer<SIMD4<Float>>, _ dst: UnsafeMutablePointer<SIMD4<Float>>, count: Int) {
    _straightBlendRow(fg, dst, count: count) { cb, cs in
        _setLuminosity(_setSaturation(cs, _blendSaturation(cb)), _blendLuminosity(cb))
    }
}

/// Saturation: `SetLum(SetSat(Cb, Sat(Cs)), Lum(Cb))`.
package func saturationBlendRow(_ fg: UnsafePointer<SIMD4<Float>>, _ dst: UnsafeMutablePointer<SIMD4<Float>>, count: Int) {
    _straightBlendRow(fg, dst, count: count) { cb, cs in
        _setLuminosity(_setSaturation(cb, _blendSaturation(cs)), _blendLuminosity(cb))
    }
}

/// Color: `SetLum(Cs, Lum(Cb))`.
package func colorBlendRow(_ fg: UnsafePointer<SIMD4<Float>>, _ dst: UnsafeMutablePointer<SIMD4<Float>>, count: Int) {
    _straightBlendRow(fg, dst, count: count) { cb, cs in _setLuminosity(cs, _blendLuminosity(cb)) }
}

/// Luminosity: `SetLum(Cb, Lum(Cs))`.
package func luminosityBlendRow(_ fg: UnsafePointer<SIMD4<Float>>, _ dst: UnsafeMutablePointer<SIMD4<Float>>, count: Int) {
    _straightBlendRow(fg, dst, count: count) { cb, cs in _setLuminosity(cb, _blendLuminosity(cs)) }
}
