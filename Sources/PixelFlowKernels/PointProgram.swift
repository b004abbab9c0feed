import CSIMD

/// A color step that a planar point program can run (see `PointProgram`).
package enum PointStep: Sendable, Hashable {
    /// `rgb = sign(rgb) * |rgb|^(whole + rest / 4)`, or its reciprocal when `inverted`; the
    /// powers `gammaRow` computes with square roots.
    case gammaQuarters(whole: Int32, rest: Int32, inverted: Bool)

    /// The step for `gammaRow(power:)` when it uses square roots, else nil.
    package static func gamma(power: Float) -> PointStep? {
        let quarters = power * 4
        guard quarters == quarters.rounded(), abs(power) <= 16, power != 0 else { return nil }
        let n = Int32(abs(quarters))
        return .gammaQuarters(whole: n / 4, rest: n % 4, inverted: power < 0)
    }
}

/// A fused chain of color matrices and point steps, run by `pf_point_program` on blocks of 8
/// pixels split into R, G, B and A vectors: every channel's arithmetic happens once per pixel
/// instead of once per vector lane, and each pixel is loaded and stored once for the chain.
/// Bit-identical to running `colorMatrixRow`, `gammaRow`, `unpremultiplyRow`,
/// `premultiplyRow` and `zeroTransparentRow` in turn (on finite values; a matrix that keeps
/// alpha does not compute it, so an infinite color does not turn alpha into NaN).
package struct PointProgram {
    private var steps: [pf_point_step]

    /// The program that runs `steps` in order (see `init?(_ ops:)` in Graph/, which builds
    /// them from color nodes).
    package init(steps: [pf_point_step]) {
        self.steps = steps
    }

    /// The steps, for tests.
    var stepsForTesting: [pf_point_step] { steps }

    /// Pixels per `run` call in the evaluator for input it loads first: a chunk that stays in
    /// the L1 cache (input read in place goes a row per call).
    package static let maxCount = Int(PF_PROGRAM_MAX)

    /// Runs the program over `count` pixels from `src` into `dst` (which may be `src`).
    /// `unpremultiplyInput`: the input is premultiplied; `premultiplyOutput`: premultiply the
    /// result, else zero the pixels whose alpha is not above 0; `nonTemporal`: store
    /// non-temporally (`dst` 16-byte aligned; call `pf_store_fence` before others read it).
    package func run(
        _ src: UnsafePointer<SIMD4<Float>>, _ dst: UnsafeMutablePointer<SIMD4<Float>>, count: Int,
        unpremultiplyInput: Bool, premultiplyOutput: Bool, nonTemporal: Bool
    ) {
        var flags: Int32 = premultiplyOutput ? Int32(PF_PROGRAM_PREMULTIPLY_OUTPUT) : Int32(PF_PROGRAM_ZERO_TRANSPARENT)
        if unpremultiplyInput { flags |= Int32(PF_PROGRAM_UNPREMULTIPLY_INPUT) }
        if nonTemporal { flags |= Int32(PF_PROGRAM_STREAM) }
        steps.withUnsafeBufferPointer { s in
            pf_point_program_run(src, dst, count, s.baseAddress, Int32(s.count), flags)
        }
    }

    /// Runs the steps alone over `count` pixels, with no unpremultiplying before and no
    /// premultiplying or zeroing after: for matrices in their premultiplied form
    /// (`ColorMatrix.premultipliedForm`), which work on premultiplied pixels directly.
    /// Bit-identical to `colorMatrixRow` on each matrix in turn (finite values).
    package func runAsIs(
        _ src: UnsafePointer<SIMD4<Float>>, _ dst: UnsafeMutablePointer<SIMD4<Float>>, count: Int, nonTemporal: Bool
    ) {
        let flags: Int32 = nonTemporal ? Int32(PF_PROGRAM_STREAM) : 0
        steps.withUnsafeBufferPointer { s in
            pf_point_program_run(src, dst, count, s.baseAddress, Int32(s.count), flags)
        }
    }
}
