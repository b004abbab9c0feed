/// A geometric operation that maps each output position to an input position.
package enum Warp: Sendable, CustomStringConvertible {
    /// `transform` maps input coordinates to output coordinates.
    case affine(AffineTransform, Sampling)
    /// Antialiased Lanczos-3 resampling of the input extent onto `output`. `inputSpan`, when
    /// set, is the width and height of input (from the extent's origin) that maps onto
    /// `output` instead of the extent's whole pixels; taps still read every pixel of the
    /// extent. `ShrinkSourcesOnLoad` sets it: a file shrunk k times covers `size / k`, which
    /// ends inside its last pixel when the size is not a multiple of k.
    case lanczos(output: IntRect, inputSpan: Size? = nil)
    /// An integer box shrink: output pixel (i, j) of `output` is the mean of the input pixels
    /// `[x + k i, x + k i + k) x [y + k j, y + k j + k)` (relative to the input extent's
    /// origin (x, y)) that lie inside the extent; `output` is `ceil(size / k)` pixels, so the
    /// last column and row average the pixels that are left.
    case boxShrink(factor: Int, output: IntRect)
    /// Repeats the edge pixels of `extent` to infinity.
    case clamp(extent: IntRect)
    /// A position mapping given as a closure (built-in distortions and user warps).
    case custom(WarpKernel)

    package var description: String {
        switch self {
        case let .affine(t, s): return "affine \(t) \(s.rawValue)"
        case let .lanczos(o, span?): return "lanczos3 to \(o.width)x\(o.height) from \(span.width)x\(span.height)"
        case let .lanczos(o, nil): return "lanczos3 to \(o.width)x\(o.height)"
        case let .boxShrink(k, o): return "box shrink 1/\(k) to \(o.width)x\(o.height)"
        case let .clamp(e): return "clamp to \(e)"
        case let .custom(k): return "\(k.name) \(k.sampling.rawValue)"
        }
    }
}

/// A warp given by a function from output positions to input positions.
package struct WarpKernel: Sendable {
    package var name: String
    /// True when `name` fully determines the mapping (see `GeneratorKernel`).
    package var sharesByName: Bool = true
    package var sampling: Sampling
    /// The input rect that outputs in a rect read (before the sampler's margin).
    package var regionOfInterest: @Sendable (Rect) -> Rect
    /// Maps the output pixel center `(x, y)` to the input position to sample.
    package var map: @Sendable (_ x: Double, _ y: Double) -> Point

    /// The memberwise initializer, for the layers above.
    package init(
        name: String, sharesByName: Bool = true, sampling: Sampling, regionOfInterest: @escaping @Sendable (Rect) -> Rect,
        map: @escaping @Sendable (_ x: Double, _ y: Double) -> Point
    ) {
        self.name = name
        self.sharesByName = sharesByName
        self.sampling = sampling
        self.regionOfInterest = regionOfInterest
        self.map = map
    }
}
