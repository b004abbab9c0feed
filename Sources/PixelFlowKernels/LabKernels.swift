// Color-space kernels: the sRGB transfer curves and CIELAB (Filters/ColorSpaceFilters.swift).
// Row functions on unpremultiplied `SIMD4<Float>` pixels in place; alpha is never changed.
//
// CIELAB follows CIE 15:2004: linear RGB with the sRGB / Rec. 709 primaries and D65 white
// (IEC 61966-2-1) to XYZ, then
//
//     L* = 116 f(Y/Yn) - 16,  a* = 500 (f(X/Xn) - f(Y/Yn)),  b* = 200 (f(Y/Yn) - f(Z/Zn))
//     f(t) = t^(1/3) for t > (6/29)^3, else t / (3 (6/29)^2) + 4/29
//
// with the D65 white (Xn, Yn, Zn) = (0.95047, 1, 1.08883). Colour differences: CIE94
// (CIE 116-1995, graphic-arts weights) and CIEDE2000 (CIE 142-2001), the latter as written
// out by G. Sharma, W. Wu and E. N. Dalal, "The CIEDE2000 color-difference formula:
// implementation notes, supplementary test data, and mathematical observations", Color
// Research & Application 30(1), 2005.

import CSIMD

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

// MARK: sRGB transfer curves

/// The sRGB encoding (`SRGB.fromLinear`) of each color channel, odd-symmetric for negatives
/// (`CILinearToSRGBToneCurve`). Tolerance: 3e-6 relative against `SRGB.fromLinear`
/// (the power goes through `fastSignedPow`).
package func linearToSRGBRow(_ p: UnsafeMutablePointer<SIMD4<Float>>, count: Int) {
    for i in 0..<count {
        let v = p[i]
        let a = _abs4(v)
        var r = fastSignedPow(a, 1 / 2.4) * 1.055 - 0.055
        r.replace(with: a * 12.92, where: a .<= 0.0031308)
        r.replace(with: -r, where: v .< 0)
        r.w = v.w
        p[i] = r
    }
}

/// The sRGB decoding (`SRGB.toLinear`) of each color channel, odd-symmetric for negatives
/// (`CISRGBToneCurveToLinear`). Tolerance: 3e-6 relative against `SRGB.toLinear`.
package func sRGBToLinearRow(_ p: UnsafeMutablePointer<SIMD4<Float>>, count: Int) {
    for i in 0..<count {
        let v = p[i]
        let a = _abs4(v)
        var r = fastSignedPow((a + 0.055) * (1 / 1.055), 2.4)
        r.replace(with: a * (1 / 12.92), where: a .<= 0.04045)
        r.replace(with: -r, where: v .< 0)
        r.w = v.w
        p[i] = r
    }
}

// MARK: CIELAB

/// Linear sRGB (D65) to XYZ, IEC 61966-2-1, by columns.
package let _rgbToXYZ: (SIMD4<Float>, SIMD4<Float>, SIMD4<Float>) = (
    SIMD4(0.4124564, 0.2126729, 0.0193339, 0), SIMD4(0.3575761, 0.7151522, 0.1191920, 0),
    SIMD4(0.1804375, 0.0721750, 0.9503041, 0)
)

/// The inverse of `_rgbToXYZ`, by columns, computed once in Double.
let _xyzToRGB: (SIMD4<Float>, SIMD4<Float>, SIMD4<Float>) = {
    let m: [[Double]] = [
        [0.4124564, 0.3575761, 0.1804375], [0.2126729, 0.7151522, 0.0721750],
        [0.0193339, 0.1191920, 0.9503041],
    ]
    let inv = invert3x3(m)
    func col(_ j: Int) -> SIMD4<Float> { SIMD4(Float(inv[0][j]), Float(inv[1][j]), Float(inv[2][j]), 0) }
    return (col(0), col(1), col(2))
}()

/// The D65 reference white of CIELAB, Y = 1.
let _labWhite = SIMD4<Float>(0.95047, 1, 1.08883, 1)

/// The inverse of a 3x3 matrix (rows), by cofactors.
package func invert3x3(_ m: [[Double]]) -> [[Double]] {
    let a = m[0][0], b = m[0][1], c = m[0][2], d = m[1][0], e = m[1][1], f = m[1][2], g = m[2][0], h = m[2][1], k = m[2][2]
    let A = e * k - f * h, B = -(d * k - f * g), C = d * h - e * g
    let det = a * A + b * B + c * C
    return [
        [A / det, -(b * k - c * h) / det, (b * f - c * e) / det],
        [B / det, (a * k - c * g) / det, -(a * f - c * d) / det],
        [C / det, -(a * h - b * g) / det, (a * e - b * d) / det],
    ]
}

/// CIELAB's `f`: cube root above (6/29)^3, the linear segment below (and for negatives).
@inline(__always)
func _labF(_ t: SIMD4<Float>) -> SIMD4<Float> {
    let delta3: Float = 216.0 / 24389.0  // (6/29)^3
    var safe = t
    safe.replace(with: 1, where: .!(t .> delta3))  // keep fastLog2 on positive normals
    var r = fastExp2(fastLog2(safe) * (1.0 / 3.0))
    r.replace(with: t * (841.0 / 108.0) + (4.0 / 29.0), where: .!(t .> delta3))
    return r
}

/// The inverse of `_labF`.
@inline(__always)
func _labFInverse(_ f: SIMD4<Float>) -> SIMD4<Float> {
    let delta: Float = 6.0 / 29.0
    var r = f * f * f
    r.replace(with: (f - 4.0 / 29.0) * (108.0 / 841.0), where: .!(f .> delta))
    return r
}

/// CIELAB `(L*, a*, b*, alpha)` of a linear sRGB pixel. Tolerance: 1e-4 absolute in L*, a*,
/// b* against the formula in Double (the cube root goes through fastExp2/fastLog2).
@inline(__always)
package func rgbToLab(_ v: SIMD4<Float>) -> SIMD4<Float> {
    let xyz = _rgbToXYZ.0 * v.x + _rgbToXYZ.1 * v.y + _rgbToXYZ.2 * v.z
    let f = _labF(xyz / _labWhite)
    return SIMD4(116 * f.y - 16, 500 * (f.x - f.y), 200 * (f.y - f.z), v.w)
}

/// Linear sRGB of a CIELAB pixel `(L*, a*, b*, alpha)`.
@inline(__always)
package func labToRGB(_ v: SIMD4<Float>) -> SIMD4<Float> {
    let fy = (v.x + 16) * (1.0 / 116.0)
    let f = SIMD4<Float>(fy + v.y * (1.0 / 500.0), fy, fy - v.z * (1.0 / 200.0), 0)
    let xyz = _labFInverse(f) * _labWhite
    var rgb = _xyzToRGB.0 * xyz.x + _xyzToRGB.1 * xyz.y + _xyzToRGB.2 * xyz.z
    rgb.w = v.w
    return rgb
}

/// Scale and offset of Core Image's normalized Lab: `L / 100`, `(a + 128) / 256`,
/// `(b + 128) / 256`, all in 0...1 for colors in gamut.
let _labNormalizeScale = SIMD4<Float>(1.0 / 100, 1.0 / 256, 1.0 / 256, 1)
let _labNormalizeOffset = SIMD4<Float>(0, 0.5, 0.5, 0)

/// Linear sRGB to CIELAB in the color lanes (`CIConvertRGBtoLab`), optionally normalized.
/// Tolerance: 1e-4 absolute (unnormalized) against the formula in Double.
package func rgbToLabRow(_ p: UnsafeMutablePointer<SIMD4<Float>>, count: Int, normalize: Bool) {
    for i in 0..<count {
        var lab = rgbToLab(p[i])
        if normalize { lab = lab * _labNormalizeScale + _labNormalizeOffset }
        p[i] = lab
    }
}

/// CIELAB in the color lanes to linear sRGB (`CIConvertLabToRGB`), optionally from normalized
/// values. Tolerance: 1e-5 absolute against the formula in Double.
package func labToRGBRow(_ p: UnsafeMutablePointer<SIMD4<Float>>, count: Int, normalize: Bool) {
    for i in 0..<count {
        var v = p[i]
        if normalize { v = (v - _labNormalizeOffset) / _labNormalizeScale }
        p[i] = labToRGB(v)
    }
}

// MARK: Colour differences

/// CIE94 colour difference (graphic arts: kL = kC = kH = 1, K1 = 0.045, K2 = 0.015) of
/// `lab2` from the reference `lab1`.
@inlinable @inline(__always)
package func deltaE94(_ lab1: SIMD4<Float>, _ lab2: SIMD4<Float>) -> Float {
    let dL = lab1.x - lab2.x
    let c1 = (lab1.y * lab1.y + lab1.z * lab1.z).squareRoot()
    let c2 = (lab2.y * lab2.y + lab2.z * lab2.z).squareRoot()
    let dC = c1 - c2
    let da = lab1.y - lab2.y, db = lab1.z - lab2.z
    let dH2 = Swift.max(0, da * da + db * db - dC * dC)
    let sC = 1 + 0.045 * c1, sH = 1 + 0.015 * c1
    let q = dC / sC
    return (dL * dL + q * q + dH2 / (sH * sH)).squareRoot()
}

/// CIEDE2000 colour difference of two CIELAB colors (kL = kC = kH = 1), following Sharma,
/// Wu and Dalal (2005), equations (1)-(22), in Float. Tolerance: 1e-4 against their
/// published test data (34 pairs, 4 decimals).
package func deltaE2000(_ lab1: SIMD4<Float>, _ lab2: SIMD4<Float>) -> Float {
    let (L1, a1, b1) = (lab1.x, lab1.y, lab1.z)
    let (L2, a2, b2) = (lab2.x, lab2.y, lab2.z)
    let C1 = (a1 * a1 + b1 * b1).squareRoot(), C2 = (a2 * a2 + b2 * b2).squareRoot()
    let Cbar = (C1 + C2) / 2
    let Cbar7 = powf(Cbar, 7)
    let G = 0.5 * (1 - (Cbar7 / (Cbar7 + 6_103_515_648)).squareRoot())  // 25^7 = 6_103_515_625, rounded to Float
    let a1p = (1 + G) * a1, a2p = (1 + G) * a2
    let C1p = (a1p * a1p + b1 * b1).squareRoot(), C2p = (a2p * a2p + b2 * b2).squareRoot()
    func hue(_ b: Float, _ a: Float) -> Float {
        if b == 0 && a == 0 { return 0 }
        let h = atan2f(b, a) * (180 / .pi)
        return h < 0 ? h + 360 : h
    }
    let h1p = hue(b1, a1p), h2p = hue(b2, a2p)
    let dLp = L2 - L1, dCp = C2p - C1p
    var dhp: Float = 0
    if C1p * C2p != 0 {
        dhp = h2p - h1p
        if dhp > 180 { dhp -= 360 } else if dhp < -180 { dhp += 360 }
    }
    let dHp = 2 * (C1p * C2p).squareRoot() * sinf(dhp * (.pi / 360))
    let Lbarp = (L1 + L2) / 2, Cbarp = (C1p + C2p) / 2
    var hbarp = h1p + h2p
    if C1p * C2p != 0 {
        if abs(h1p - h2p) <= 180 {
            hbarp /= 2
        } else if hbarp < 360 {
            hbarp = (hbarp + 360) / 2
        } else {
            hbarp = (hbarp - 360) / 2
        }
    }
    let rad: Float = .pi / 180
    let T =
        1 - 0.17 * cosf((hbarp - 30) * rad) + 0.24 * cosf(2 * hbarp * rad)
        + 0.32 * cosf((3 * hbarp + 6) * rad) - 0.20 * cosf((4 * hbarp - 63) * rad)
    let dTheta = 30 * expf(-((hbarp - 275) / 25) * ((hbarp - 275) / 25))
    let Cbarp7 = powf(Cbarp, 7)
    let RC = 2 * (Cbarp7 / (Cbarp7 + 6_103_515_648)).squareRoot()  // 25^7 rounded to Float
    let l50 = (Lbarp - 50) * (Lbarp - 50)
    let SL = 1 + 0.015 * l50 / (20 + l50).squareRoot()
    let SC = 1 + 0.045 * Cbarp, SH = 1 + 0.015 * Cbarp * T
    let RT = -sinf(2 * dTheta * rad) * RC
    let tL = dLp / SL, tC = dCp / SC, tH = dHp / SH
    return Swift.max(0, tL * tL + tC * tC + tH * tH + RT * tC * tH).squareRoot()
}

/// Writes `(dE, dE, dE, 1)` premultiplied into `dst`, with `dE` the colour difference of the
/// straight colors of `fg` (the reference) and `dst`, taken as linear sRGB (`CILabDeltaE`
/// with `ciede2000` false, the CIEDE2000 variant otherwise).
package func labDeltaERow(
    _ fg: UnsafePointer<SIMD4<Float>>, _ dst: UnsafeMutablePointer<SIMD4<Float>>, count: Int,
    ciede2000: Bool
) {
    for i in 0..<count {
        let l1 = rgbToLab(_straightColor(fg[i])), l2 = rgbToLab(_straightColor(dst[i]))
        let d = ciede2000 ? deltaE2000(l1, l2) : deltaE94(l1, l2)
        dst[i] = SIMD4(d, d, d, 1)
    }
}
