// Vectorizable exp2, log2 and pow for `SIMD4<Float>`, using only float arithmetic and bit
// casts (libm's powf is a scalar call per lane: about 20 ns per pixel here).
//
// log2: x = m * 2^e with m in [sqrt(1/2), sqrt(2)), log2(m) = 2/ln(2) * atanh(t) with
// t = (m - 1)/(m + 1), |t| <= 0.1716, summed to t^9. exp2: 2^y = 2^n * 2^f with n the nearest
// integer and |f| <= 1/2, 2^f by its Taylor series to degree 7. Relative error of pow
// against Double pow is below 2e-6 while |p * log2(x)| <= 40 (the tests check it); beyond, it
// grows with the float rounding of p * log2(x) (about 6e-6 at 100). Results below 2^-126
// flush to 0 and above 2^128 become infinity.

/// 1.5 * 2^23: adding it to a float of magnitude below 2^22 rounds to an integer, which then
/// sits in the low mantissa bits.
let _roundMagic: Float = 12_582_912
let _roundMagicBits: Int32 = 0x4B40_0000

@inline(__always)
func _bits(_ v: SIMD4<Float>) -> SIMD4<Int32> { unsafeBitCast(v, to: SIMD4<Int32>.self) }
@inline(__always)
func _float(_ v: SIMD4<Int32>) -> SIMD4<Float> { unsafeBitCast(v, to: SIMD4<Float>.self) }

/// Integer lanes (|v| < 2^22) to floats, exactly.
@inline(__always)
func _floatFromSmallInt(_ v: SIMD4<Int32>) -> SIMD4<Float> {
    _float(v &+ _roundMagicBits) - _roundMagic
}

/// `log2(x)` for positive normal lanes.
@inline(__always)
func fastLog2(_ x: SIMD4<Float>) -> SIMD4<Float> {
    let b = _bits(x)
    var e = (b &>> 23) &- 127
    var m = _float((b & 0x007F_FFFF) | 0x3F80_0000)  // [1, 2)
    let big = m .> 1.41421356
    m.replace(with: m * 0.5, where: big)
    e.replace(with: e &+ 1, where: big)
    let t = (m - 1) / (m + 1)
    let t2 = t * t
    // 2/ln 2 * (t + t^3/3 + t^5/5 + t^7/7 + t^9/9)
    var p = t2 * (1.0 / 9) + (1.0 / 7)
    p = p * t2 + (1.0 / 5)
    p = p * t2 + (1.0 / 3)
    p = p * t2 + 1
    return p * t * 2.8853900817779268 + _floatFromSmallInt(e)
}

/// `2^y`, saturating outside [-126, 127].
@inline(__always)
func fastExp2(_ y0: SIMD4<Float>) -> SIMD4<Float> {
    var y = y0
    y.replace(with: -126, where: y .< -126)
    y.replace(with: 127, where: y .> 127)
    let shifted = y + _roundMagic
    let n = _bits(shifted) &- _roundMagicBits
    let f = (y - (shifted - _roundMagic)) * 0.6931471805599453  // f * ln 2, |.| <= 0.347
    var p = f * (1.0 / 5040) + (1.0 / 720)
    p = p * f + (1.0 / 120)
    p = p * f + (1.0 / 24)
    p = p * f + (1.0 / 6)
    p = p * f + 0.5
    p = p * f + 1
    p = p * f + 1
    var r = p * _float((n &+ 127) &<< 23)
    r.replace(with: 0, where: y0 .< -126)
    r.replace(with: .infinity, where: y0 .> 128)
    return r
}

/// `sign(x) * |x|^p` per lane (Core Image's gamma, defined for negatives); 0 for x = 0 and p > 0.
@inline(__always)
func fastSignedPow(_ x: SIMD4<Float>, _ p: Float) -> SIMD4<Float> {
    let a = _abs4(x)
    var r = fastExp2(fastLog2(a) * p)
    r.replace(with: 0, where: a .< 1.1754944e-38)
    r.replace(with: x, where: .!(x .== x))  // NaN stays NaN
    r.replace(with: -r, where: x .< 0)
    return r
}

@inline(__always)
func _abs4(_ v: SIMD4<Float>) -> SIMD4<Float> { _float(_bits(v) & 0x7FFF_FFFF) }
