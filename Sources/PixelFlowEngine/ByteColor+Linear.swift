import CSIMD

/// The tables of the byte color forms in linear light (color management on, sRGB-encoded
/// bytes in and out), and the unpremultiply multipliers.
///
/// A color matrix in linear light applies to decoded values: per output channel the float
/// path computes `encode(sum_j W[k][j] x_j + B[k])` with `x` the decoded colors and
/// `alpha / 255`. The byte form (`pf_u8_linear_matrix_rgba_run`, `_gray_run`,
/// Sources/CSIMD/include/CSIMDBytesBlend.h) reads each color byte through `decode`, the float
/// path's own decode table times `scale` (32640 = 255 * 128, so alpha is exactly `128 a` and
/// every value fits a signed 16-bit lane) rounded to an integer, sums with fixed-point weights
/// (pmaddwd, 32-bit sums), rounds to an integer linear value and clamps it to 0...32640, and
/// encodes it through `encode`, a table of all 32641 values made by the float path's encoder
/// (`SRGB.encode8`). Each step's error is bounded (`errorBound`), and the render stays in float
/// when the bound reaches `errorLimit`.
///
/// An earlier numpy measurement (Docs/Architecture.md) used 16-bit linear values; 15 bits
/// (this scale) keep the products in pmaddwd's signed lanes, and the encode table of every
/// value avoids the 12-bit table's 0.80-unit error near black.
enum ByteLinear {
    /// Linear values are integers in 0...scale.
    static let scale = Int(PF_U8_LINEAR_SCALE)

    /// The steepest slope of the 8-bit sRGB encoding, in byte units per unit of linear value:
    /// 12.92 * 255 (the linear segment near black; the power segment is flatter everywhere).
    static let steepestSlope = 12.92 * 255

    /// Renders whose `errorBound` reaches this stay in float: below it the byte form's value
    /// before rounding is within 0.9 unit of the exact one, and the float path's within about
    /// 0.001 (single-precision sums near black), so the bytes differ by at most 1.
    static let errorLimit = 0.9

    /// The largest difference, in byte units, between the encoded value the kernel rounds and
    /// the exact map, over any source pixel: per output channel, in linear steps, half a step
    /// per decoded color times its weight, the weights' and bias's quantization over the whole
    /// range, and half a step for rounding the sum; times the steepest slope of the encoding.
    static func errorBound(_ color: ByteColor) -> Double {
        let q = Double(1 << color.shift), s = Double(scale)
        var worst = 0.0
        for k in color.rows.indices {
            let r = color.rows[k]
            var steps = 0.5 * (abs(r.x) + abs(r.y) + abs(r.z)) + 0.5
            for j in 0..<4 { steps += s * abs(Double(color.weights[4 * k + j]) / q - r[j]) }
            let exactBias = color.bias[k] * s / 255
            steps += abs(Double(color.fixedBias[k] - Int32(1 << (color.shift - 1))) / q - exactBias)
            worst = Swift.max(worst, steps / s * steepestSlope)
        }
        return worst
    }

    /// The process-wide tables, made once.
    static let tables = Tables()

    /// Read-only tables for the C kernels.
    ///
    /// `@unchecked Sendable` because it carries raw pointers: the tables are written once in
    /// `init`, only read afterwards, and never freed (one `static let`).
    struct Tables: @unchecked Sendable {
        /// 256 entries: `round(SRGB.decodeTable[v] * scale)`.
        let decode: UnsafePointer<Int32>
        /// `scale + 1` entries, `SRGB.encode8(i / scale)`, and 3 bytes of padding (the AVX2
        /// kernel gathers 4 bytes at each index).
        let encode: UnsafePointer<UInt8>
        /// 256 entries: `round(255 * 2^20 / a)`, 0 for a = 0 (`pf_u8_unpremultiply_rgba_run`).
        let multipliers: UnsafePointer<UInt32>

        init() {
            let d = UnsafeMutablePointer<Int32>.allocate(capacity: 256)
            for v in 0..<256 { d[v] = Int32((Double(SRGB.decodeTable[v]) * Double(ByteLinear.scale)).rounded()) }
            let e = UnsafeMutablePointer<UInt8>.allocate(capacity: ByteLinear.scale + 4)
            for i in 0...ByteLinear.scale { e[i] = SRGB.encode8(Float(Double(i) / Double(ByteLinear.scale))) }
            (e + ByteLinear.scale + 1).initialize(repeating: 255, count: 3)
            let m = UnsafeMutablePointer<UInt32>.allocate(capacity: 256)
            m[0] = 0
            for a in 1..<256 { m[a] = UInt32((255 * Double(1 << 20) / Double(a)).rounded()) }
            decode = UnsafePointer(d)
            encode = UnsafePointer(e)
            multipliers = UnsafePointer(m)
        }
    }
}
