import CSIMD

/// A blend of two premultiplied 8-bit pixels as one integer formula per channel, alpha
/// included: the byte form of the Porter-Duff operators, the separable blend modes whose
/// premultiplied form needs no division, and the mix.
///
/// With foreground bytes `f` (alpha `fa`) and background bytes `b` (alpha `ba`), channel k is
///
///     x = f_k (fWeight + fByBackgroundAlpha ba) + b_k (bWeight + bByForegroundAlpha fa)
///         + product f_k b_k
///
/// and the output is `round(x / 255)` saturated at 255 (`shift` 0), or
/// `floor((x + 2^(shift - 1)) / 2^shift)` for the mix's constant weights. Run by
/// `pf_u8_blend_rgba_run` (Sources/CSIMD/include/CSIMDBytesBlend.h).
///
/// With `shift` 0 the result equals the float path's byte exactly: its working values are
/// `byte / 255`, so its unclamped result times 255 is the rational `x / 255`, which is never
/// within 1/510 of a rounding tie, far beyond the float arithmetic's error (about 1e-4 unit).
/// The mix rounds its weights to 14 bits (`amount` and `1 - amount`, summing to 2^14): within
/// 1 unit, exact at amounts 0 and 1.
package struct ByteBlendFormula: Sendable, Equatable, CustomStringConvertible {
    /// The constant weight of the foreground, and the sign (-1, 0, 1) of the background's alpha in it.
    package var fWeight: Int16, fByBackgroundAlpha: Int16
    /// The constant weight of the background, and the sign of the foreground's alpha in it.
    package var bWeight: Int16, bByForegroundAlpha: Int16
    /// The sign of the product term `f b`.
    package var product: Int16
    /// 0: divide by 255 (exact); otherwise the fractional bits of constant weights.
    package var shift: Int32
    /// The operator's name, for `explain()`.
    package var name: String

    package var description: String { shift == 0 ? "\(name), exact" : "\(name), \(shift)-bit weights, within 1 unit" }

    /// The coefficients for the C kernel.
    package var coefficients: pf_u8_blend_coefficients {
        pf_u8_blend_coefficients(
            f_weight: fWeight, f_by_b_alpha: fByBackgroundAlpha, b_weight: bWeight, b_by_f_alpha: bByForegroundAlpha,
            product: product, shift: shift)
    }

    /// Porter-Duff source-over: `f + b (1 - fa)`.
    package static let sourceOver = ByteBlendFormula(
        fWeight: 255, fByBackgroundAlpha: 0, bWeight: 255, bByForegroundAlpha: -1, product: 0, shift: 0, name: "source-over")
    /// Porter-Duff source-atop: `f ba + b (1 - fa)` (alpha: `ba`).
    package static let sourceAtop = ByteBlendFormula(
        fWeight: 0, fByBackgroundAlpha: 1, bWeight: 255, bByForegroundAlpha: -1, product: 0, shift: 0, name: "source-atop")
    /// Porter-Duff source-in: `f ba`.
    package static let sourceIn = ByteBlendFormula(
        fWeight: 0, fByBackgroundAlpha: 1, bWeight: 0, bByForegroundAlpha: 0, product: 0, shift: 0, name: "source-in")
    /// Porter-Duff source-out: `f (1 - ba)`.
    package static let sourceOut = ByteBlendFormula(
        fWeight: 255, fByBackgroundAlpha: -1, bWeight: 0, bByForegroundAlpha: 0, product: 0, shift: 0, name: "source-out")
    /// Multiply compositing: `f b` on all four channels.
    package static let componentMultiply = ByteBlendFormula(
        fWeight: 0, fByBackgroundAlpha: 0, bWeight: 0, bByForegroundAlpha: 0, product: 1, shift: 0,
        name: "multiply compositing")
    /// The multiply blend mode: `f (1 - ba) + b (1 - fa) + f b`.
    package static let multiply = ByteBlendFormula(
        fWeight: 255, fByBackgroundAlpha: -1, bWeight: 255, bByForegroundAlpha: -1, product: 1, shift: 0,
        name: "multiply blend")
    /// The screen blend mode: `f + b - f b` (the W3C formula on premultiplied values, simplified).
    package static let screen = ByteBlendFormula(
        fWeight: 255, fByBackgroundAlpha: 0, bWeight: 255, bByForegroundAlpha: 0, product: -1, shift: 0,
        name: "screen blend")

    /// The mix `b (1 - amount) + f amount` with 14-bit weights, or nil when `amount` is not in 0...1.
    package static func mix(_ amount: Float) -> ByteBlendFormula? {
        guard amount >= 0, amount <= 1 else { return nil }
        let wf = Int16((Double(amount) * 16384).rounded())
        return ByteBlendFormula(
            fWeight: wf, fByBackgroundAlpha: 0, bWeight: 16384 - wf, bByForegroundAlpha: 0, product: 0, shift: 14,
            name: "mix \(amount)")
    }
}

extension BuiltinBlend {
    /// The byte form of the blend (`ByteBlendFormula`), nil for a mix outside 0...1.
    package var byteFormula: ByteBlendFormula? {
        switch self {
        case .sourceOver: return .sourceOver
        case .sourceAtop: return .sourceAtop
        case let .mix(t): return .mix(t)
        }
    }
}
