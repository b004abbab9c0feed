// Per-pixel color kernels on rows of unpremultiplied `SIMD4<Float>` pixels, in place.

/// `p[i] = M * p[i] + bias` for `count` pixels.
/// Tolerance against a scalar reference: 0 (same operations in the same order).
func colorMatrixRow(_ p: UnsafeMutablePointer<SIMD4<Float>>, count: Int, matrix m: ColorMatrix) {
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
/// Uses `fastSignedPow`: tolerance against a scalar reference 2e-6 relative.
func gammaRow(_ p: UnsafeMutablePointer<SIMD4<Float>>, count: Int, power: Float) {
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

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
