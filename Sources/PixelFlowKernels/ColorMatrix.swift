/// An affine color map `out = M * in + bias` on unpremultiplied RGBA, where `M` is 4x4.
///
/// Stored by columns so that applying it is four multiply-adds of `SIMD4<Float>`.
/// Consecutive matrices fold into one with `concatenating(_:)`.
public struct ColorMatrix: Hashable, Sendable, CustomStringConvertible {
    /// Column `j` holds the weights of input channel `j` in each output channel.
    public var columns: (SIMD4<Float>, SIMD4<Float>, SIMD4<Float>, SIMD4<Float>)
    /// The offset added to each output channel after the matrix, in RGBA order (CIColorMatrix's
    /// `inputBiasVector`).
    public var bias: SIMD4<Float>

    /// Builds a matrix from its rows (`rows[i]` dotted with the input gives output channel
    /// `i`), as CIColorMatrix's `inputRVector`...`inputAVector` are.
    public init(
        rows r: SIMD4<Float>, _ g: SIMD4<Float>, _ b: SIMD4<Float>, _ a: SIMD4<Float>,
        bias: SIMD4<Float> = .zero
    ) {
        columns = (
            SIMD4(r.x, g.x, b.x, a.x), SIMD4(r.y, g.y, b.y, a.y),
            SIMD4(r.z, g.z, b.z, a.z), SIMD4(r.w, g.w, b.w, a.w)
        )
        self.bias = bias
    }

    /// The matrix that leaves every colour unchanged: `M = I`, `bias = 0`.
    public static let identity = ColorMatrix(
        rows: SIMD4(1, 0, 0, 0), SIMD4(0, 1, 0, 0),
        SIMD4(0, 0, 1, 0), SIMD4(0, 0, 0, 1))

    /// Row `i` of the matrix.
    public func row(_ i: Int) -> SIMD4<Float> {
        SIMD4(columns.0[i], columns.1[i], columns.2[i], columns.3[i])
    }

    /// Whether this is exactly ``ColorMatrix/identity``.
    public var isIdentity: Bool { self == .identity }
    /// True when alpha out equals alpha in.
    public var preservesAlpha: Bool { row(3) == SIMD4(0, 0, 0, 1) && bias.w == 0 }

    /// Applies the matrix to one pixel.
    @inline(__always)
    public func apply(_ v: SIMD4<Float>) -> SIMD4<Float> {
        columns.0 * v.x + columns.1 * v.y + columns.2 * v.z + columns.3 * v.w + bias
    }

    /// The same map on premultiplied colors, when there is one: for a matrix that keeps alpha
    /// and does not read it into the colors, `(M u + b) * a = M c + b * a`, so the bias moves
    /// into the alpha column. Nil otherwise.
    package var premultipliedForm: ColorMatrix? {
        guard preservesAlpha, columns.3.x == 0, columns.3.y == 0, columns.3.z == 0 else { return nil }
        var p = self
        p.columns.3 = SIMD4(bias.x, bias.y, bias.z, 1)
        p.bias = .zero
        return p
    }

    /// The matrix that applies `self` first and then `next`.
    public func concatenating(_ next: ColorMatrix) -> ColorMatrix {
        var c = ColorMatrix.identity
        c.columns = (
            next.apply(columns.0) - next.bias, next.apply(columns.1) - next.bias,
            next.apply(columns.2) - next.bias, next.apply(columns.3) - next.bias
        )
        c.bias = next.apply(bias)
        return c
    }

    public static func == (l: ColorMatrix, r: ColorMatrix) -> Bool {
        l.columns.0 == r.columns.0 && l.columns.1 == r.columns.1 && l.columns.2 == r.columns.2
            && l.columns.3 == r.columns.3 && l.bias == r.bias
    }
    public func hash(into h: inout Hasher) {
        for i in 0..<4 { h.combine(row(i)) }
        h.combine(bias)
    }

    public var description: String {
        (0..<4).map { i in "[" + (0..<4).map { String(format3(row(i)[$0])) }.joined(separator: " ") + " | \(format3(bias[i]))]" }
            .joined(separator: " ")
    }
}

package func format3(_ v: Float) -> String {
    let r = (Double(v) * 1000).rounded() / 1000
    return r == r.rounded() ? String(Int(r)) : String(r)
}
