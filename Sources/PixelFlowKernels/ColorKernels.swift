// Per-pixel color kernels on rows of unpremultiplied `SIMD4<Float>` pixels, in place.

/// `p[i] = M * p[i] + bias` for `count` pixels.
/// Tolerance against a scalar reference: 0 (same operations in the same order).
package func colorMatrixRow(_ p: UnsafeMutablePointer<SIMD4<Float>>, count: Int, matrix m: ColorMatrix) {
    let (c0, c1, c2, c3) = m.columns
    let b = m.bias
    var i = 0
    while i < count {
        let v = p[i]
        p[i] = c0 * v.x + c1 * v.y + c2 * v.z + c3 * v.w + b
        i &+= 1
    }
}

/// `rgb = sign(rgb) * |rgb|^power`, alpha unchanged (Core Image's gamma, defined for negatives).
///
/// Powers that are multiples of 1/4 up to 16 in magnitude (0.25, 0.5, 0.75, 1.5, 2.2 is not)
/// use square roots and multiplies (a few ulp); others use `fastSignedPow`.
/// Tolerance against a scalar reference: 2e-6 relative.
package func gammaRow(_ p: UnsafeMutablePointer<SIMD4<Float>>, count: Int, power: Float) {
    let quarters = power * 4
    if quarters == quarters.rounded(), abs(power) <= 16, power != 0 {
        let n = Int(abs(quarters))
        // In C (CSIMD): sign and alpha go back in with bit operations, which Swift's lane
        // assignment and `replace(with:where:)` did not keep as vector instructions.
        pf_gamma_quarters(p, count, Int32(n / 4), Int32(n % 4), power < 0 ? 1 : 0)
        return
    }
    for i in 0..<count {
        let v = p[i]
        var r = fastSignedPow(v, power)
        r.w = v.w
        p[i] = r
    }
}

@inline(__always)
func signedPow(_ x: Float, _ p: Float) -> Float {
    x >= 0 ? powf(x, p) : -powf(-x, p)
}

/// Sets every pixel to `(l, l, l, a)` with `l` the Rec. 709 luma of the pixel.
func lumaRow(_ p: UnsafeMutablePointer<SIMD4<Float>>, count: Int) {
    for i in 0..<count {
        let v = p[i]
        let l = 0.2126 * v.x + 0.7152 * v.y + 0.0722 * v.z
        p[i] = SIMD4(l, l, l, v.w)
    }
}

import CSIMD

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif
