/// Custom kernels: write color, blend and warp operations as Swift closures over
/// `SIMD4<Float>`. They take part in fusion and in region-of-interest propagation like
/// the built-in kernels.
///
/// ```swift
/// // Swap red and blue, then warm the image; the two fuse into one pass over the pixels.
/// let swapped = image.applyingColorKernel(named: "swap rb") { p in SIMD4(p.z, p.y, p.x, p.w) }
/// let warm = try swapped.exposureAdjusted(ev: 0.2)
/// // A wave: each output pixel reads from a position displaced vertically.
/// let wavy = image.warped(named: "wave", sampling: .bilinear,
///                         regionOfInterest: { $0.insetBy(dx: 0, dy: -8) }) { x, y in
///     Point(x: x, y: y + 8 * sin(x / 20))
/// }
/// ```
///
/// Kernels must be pure functions of their arguments: PixelFlow calls them from many threads,
/// in any order, and relies on them to make output independent of the schedule.
extension Image {
    /// Applies `body` to every pixel. Pixels are given unpremultiplied, in the working space
    /// (linear light unless the context's color management is off); return the same.
    ///
    /// - Complexity: one closure call per pixel; use `applyingColorRowKernel` for loops the
    ///   compiler can vectorize.
    public func applyingColorKernel(named name: String, _ body: @escaping @Sendable (SIMD4<Float>) -> SIMD4<Float>) -> Image {
        applyingColorKernel(
            ColorKernel(name: name, sharesByName: false) { p, n in
                for i in 0..<n { p[i] = body(p[i]) }
            })
    }

    /// Applies `body` to rows of unpremultiplied pixels in place (chunks of up to 256 pixels).
    public func applyingColorRowKernel(
        named name: String,
        _ body: @escaping @Sendable (UnsafeMutableBufferPointer<SIMD4<Float>>) -> Void
    ) -> Image {
        applyingColorKernel(
            ColorKernel(name: name, sharesByName: false) { p, n in
                body(UnsafeMutableBufferPointer(start: p, count: n))
            })
    }

    /// Where a custom blend's output can be non-transparent.
    public enum BlendExtent: Sendable {
        /// The union of both extents (most blend modes).
        case union
        /// The background's extent (atop-like operators).
        case background
        /// The foreground's extent.
        case foreground
        /// Where both are defined (source-in-like operators).
        case intersection
    }

    /// Combines this image (the foreground) with `background` pixel by pixel. `body` gets
    /// premultiplied foreground and background pixels and returns a premultiplied result.
    public func blended(
        with background: Image, named name: String, extent: BlendExtent = .union,
        _ body: @escaping @Sendable (_ foreground: SIMD4<Float>, _ background: SIMD4<Float>) -> SIMD4<Float>
    ) -> Image {
        let rule: BlendKernel.ExtentRule
        switch extent {
        case .union: rule = .union
        case .background: rule = .background
        case .foreground: rule = .foreground
        case .intersection: rule = .intersection
        }
        return blended(
            with: background,
            kernel: BlendKernel(name: name, extentRule: rule, sharesByName: false) { fg, dst, n in
                for i in 0..<n { dst[i] = body(fg[i], dst[i]) }
            })
    }

    /// Warps the image: each output pixel center `(x, y)` takes the input sampled at `map(x, y)`.
    ///
    /// - Parameters:
    ///   - name: names the kernel in `explain()` and errors.
    ///   - sampling: how the input is sampled at the returned positions (default `.bilinear`).
    ///   - map: maps an output position to the input position it reads; it must be pure.
    ///   - extent: the output's extent (default: this image's).
    ///   - regionOfInterest: the input rect that the outputs in a given rect read; it must
    ///     contain every position `map` returns for pixels in that rect (PixelFlow reads only
    ///     that region, and treats the rest as transparent).
    public func warped(
        named name: String, sampling: Sampling = .bilinear, extent: Rect? = nil,
        regionOfInterest: @escaping @Sendable (Rect) -> Rect,
        _ map: @escaping @Sendable (_ x: Double, _ y: Double) -> Point
    ) -> Image {
        let k = WarpKernel(name: name, sharesByName: false, sampling: sampling, regionOfInterest: regionOfInterest, map: map)
        return Image(node: Node(.warp(.custom(k)), inputs: [node], extent: extent ?? self.extent))
    }
}
