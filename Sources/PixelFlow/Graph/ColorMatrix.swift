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
    var premultipliedForm: ColorMatrix? {
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

func format3(_ v: Float) -> String {
    let r = (Double(v) * 1000).rounded() / 1000
    return r == r.rounded() ? String(Int(r)) : String(r)
}

/// How a warp reads between pixels.
public enum Sampling: String, Sendable, CaseIterable {
    /// The nearest pixel.
    case nearest
    /// Linear interpolation of the four nearest pixels.
    case bilinear
}

/// A geometric operation that maps each output position to an input position.
enum Warp: Sendable, CustomStringConvertible {
    /// `transform` maps input coordinates to output coordinates.
    case affine(AffineTransform, Sampling)
    /// Antialiased Lanczos-3 resampling of the input extent onto `output`. `inputSpan`, when
    /// set, is the width and height of input (from the extent's origin) that maps onto
    /// `output` instead of the extent's whole pixels; taps still read every pixel of the
    /// extent. `ShrinkSourcesOnLoad` sets it: a file shrunk k times covers `size / k`, which
    /// ends inside its last pixel when the size is not a multiple of k.
    case lanczos(output: IntRect, inputSpan: Size? = nil)
    /// Repeats the edge pixels of `extent` to infinity.
    case clamp(extent: IntRect)
    /// A position mapping given as a closure (built-in distortions and user warps).
    case custom(WarpKernel)

    var description: String {
        switch self {
        case let .affine(t, s): return "affine \(t) \(s.rawValue)"
        case let .lanczos(o, span?): return "lanczos3 to \(o.width)x\(o.height) from \(span.width)x\(span.height)"
        case let .lanczos(o, nil): return "lanczos3 to \(o.width)x\(o.height)"
        case let .clamp(e): return "clamp to \(e)"
        case let .custom(k): return "\(k.name) \(k.sampling.rawValue)"
        }
    }
}

/// A neighbourhood operation.
enum Stencil: Sendable, CustomStringConvertible {
    /// Correlation with a `width` x `height` kernel (row-major, top row first) plus `bias`;
    /// `rgbOnly` leaves alpha as the center pixel's.
    case convolution(width: Int, height: Int, weights: [Float], bias: Float, rgbOnly: Bool)
    /// Gaussian blur of standard deviation `sigma` pixels, transparent outside the extent.
    case gaussian(sigma: Double)
    /// A neighbourhood operation given as code (median, morphology, edge detectors, ...).
    case custom(StencilKernel)

    var description: String {
        switch self {
        case let .convolution(w, h, _, bias, rgb): return "convolution \(w)x\(h) bias \(bias)\(rgb ? " rgb" : "")"
        case let .gaussian(s): return "gaussian sigma \(s)"
        case let .custom(k): return k.name + (k.wholeRegion ? " (whole region)" : "")
        }
    }

    /// How far the stencil reaches on each side, in pixels.
    var halo: (x: Int, y: Int) {
        switch self {
        case let .convolution(w, h, _, _, _): return (w / 2, h / 2)
        case let .custom(k): return (k.haloX, k.haloY)
        case let .gaussian(s):
            let r = GaussianPlan.kernelRadius(sigma: s)
            return (r, r)
        }
    }
}

/// A warp given by a function from output positions to input positions.
struct WarpKernel: Sendable {
    var name: String
    /// True when `name` fully determines the mapping (see `GeneratorKernel`).
    var sharesByName: Bool = true
    var sampling: Sampling
    /// The input rect that outputs in a rect read (before the sampler's margin).
    var regionOfInterest: @Sendable (Rect) -> Rect
    /// Maps the output pixel center `(x, y)` to the input position to sample.
    var map: @Sendable (_ x: Double, _ y: Double) -> Point
}

/// A neighbourhood operation written as a function of an input tile.
///
/// `apply(input, output, threads, arena)` fills `output` (all of `output.rect`) from `input`,
/// which covers `output.rect` grown by the halo on every side, transparent outside the input
/// image's extent. Each output pixel must be computed the same way wherever a tile or region
/// starts, so that results do not depend on the schedule: tile-local kernels get any tiling;
/// `wholeRegion` kernels (running sums, sliding histograms, separable passes over whole rows)
/// run once over the region a render needs, and must restart any running state at fixed
/// absolute positions (see `boxRowRestarting`) or use exact arithmetic.
struct StencilKernel: Sendable {
    var name: String
    /// True when `name` fully determines the computation (see `GeneratorKernel`).
    var sharesByName: Bool = true
    var haloX: Int
    var haloY: Int
    /// Computed once over its whole region before the output tiles (a stage boundary).
    var wholeRegion: Bool = false
    /// Rough cost per output pixel in point operations (the planner's estimate).
    var cost: Int = 4
    /// The further inputs of a kernel that reads several images (node inputs 1, 2, ...: a
    /// displacement map, a guide, a shading image): for an output rect, the rect of each input
    /// the kernel reads. Empty for single-input kernels.
    var extraInputRegions: [@Sendable (IntRect) -> IntRect] = []
    /// True when every tile reads the further inputs whole (a repeated texture, a shading
    /// sphere): the planner then computes them once into buffers, which tiles read in place.
    var materializesExtraInputs: Bool = false
    /// For kernels with further inputs, called instead of `apply`: `inputs[0]` covers the output
    /// grown by the halo, `inputs[k]` covers `extraInputRegions[k - 1](output.rect)`; both are
    /// transparent outside their image's extent.
    var applyToInputs: (@Sendable (_ inputs: [Tile], _ output: Tile, _ threads: Int, _ arena: Arena) -> Void)? = nil
    /// The same computation as an exact 8-bit kernel, if the stencil has one (morphology,
    /// median): the render then may take the byte path (`BytePlan`). Must match `apply` on
    /// every pixel whose values decode from bytes.
    var bytes: ByteStencil? = nil
    /// True when `apply` only reads its input tile: the render may then pass a view of the
    /// pixels where they are stored (a source buffer, a buffer computed in advance) instead
    /// of a copy. Kernels that use the input tile as scratch space leave it false.
    var readsInputInPlace: Bool = false
    var apply: @Sendable (_ input: Tile, _ output: Tile, _ threads: Int, _ arena: Arena) -> Void
}

extension StencilKernel {
    /// A stencil over several images: input 0 is read over the output grown by the halo, input
    /// `k` over `extraInputRegions[k - 1](output rect)`. The same schedule rules hold: every
    /// output pixel must be computed the same way whatever tile or region it falls in.
    static func reading(
        _ extraInputRegions: [@Sendable (IntRect) -> IntRect], name: String, haloX: Int, haloY: Int,
        wholeRegion: Bool = false, cost: Int = 4, materializesExtraInputs: Bool = false,
        _ body: @escaping @Sendable (_ inputs: [Tile], _ output: Tile, _ threads: Int, _ arena: Arena) -> Void
    ) -> StencilKernel {
        StencilKernel(
            name: name, haloX: haloX, haloY: haloY, wholeRegion: wholeRegion, cost: cost,
            extraInputRegions: extraInputRegions, materializesExtraInputs: materializesExtraInputs,
            applyToInputs: body
        ) { _, output, _, _ in
            // The evaluator calls `applyToInputs` for kernels with further inputs; a kernel is
            // never run with its primary input alone.
            assertionFailure("multi-input stencil run with one input")
            output.clear()
        }
    }

    /// The rect of input `k` (0: the primary) that outputs in `rect` read.
    func inputRegion(_ k: Int, for rect: IntRect) -> IntRect {
        k == 0 ? rect.outset(haloX, haloY) : extraInputRegions[k - 1](rect)
    }
}
