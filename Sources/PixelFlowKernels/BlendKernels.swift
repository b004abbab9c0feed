import CSIMD

// Blend kernels on rows of premultiplied pixels.

/// The Porter-Duff and mix blends that run as one C row kernel (`pf_blend_row_run`, two
/// pixels per AVX2 vector). The evaluator runs them straight from their inputs' rows when
/// both are stored as premultiplied floats, so a blend of two buffers reads each once and
/// writes its output once.
package enum BuiltinBlend: Sendable, Equatable {
    /// Porter-Duff source-over: `fg + bg * (1 - fg.a)`.
    case sourceOver
    /// Porter-Duff source-atop: `rgb = fg.rgb * bg.a + bg.rgb * (1 - fg.a)`, `a = bg.a`.
    case sourceAtop
    /// Linear mix: `bg * (1 - amount) + fg * amount` on all four channels.
    case mix(amount: Float)

    /// `dst[i] = fg[i] (blend) bg[i]` for `count` pixels; `dst` may be `fg` or `bg`. With
    /// `nonTemporal`, stores are non-temporal (`dst` 16-byte aligned; fence before reading).
    /// Tolerance against the scalar formulas: 0 (the same operations in the same order).
    @inline(__always)
    package func apply(
        _ fg: UnsafePointer<SIMD4<Float>>, _ bg: UnsafePointer<SIMD4<Float>>,
        into dst: UnsafeMutablePointer<SIMD4<Float>>, count: Int, nonTemporal: Bool = false
    ) {
        let (op, amount): (Int32, Float)
        switch self {
        case .sourceOver: (op, amount) = (Int32(PF_BLEND_SOURCE_OVER), 0)
        case .sourceAtop: (op, amount) = (Int32(PF_BLEND_SOURCE_ATOP), 0)
        case let .mix(t): (op, amount) = (Int32(PF_BLEND_MIX), t)
        }
        pf_blend_row_run(op, fg, bg, dst, count, amount, nonTemporal ? 1 : 0)
    }
}
