/// A reduction: a region of each input -> a small output image (1x1 averages, N x 1
/// histograms). Always a stage boundary: the inputs' regions are rendered into buffers
/// first, then `compute` runs over them.
package struct Reduction: Sendable {
    package var name: String
    /// True when `name` fully determines the computation (see `GeneratorKernel`).
    package var sharesByName: Bool = true
    /// The rect of each input that the reduction reads (finite; may be empty).
    package var regions: [IntRect]
    package var outputWidth: Int
    package var outputHeight: Int
    /// Writes `outputWidth * outputHeight` premultiplied working-space pixels, row by row.
    /// Implementations must give the same result for every `threads` value (sum in a fixed
    /// order, e.g. with `Reduction.bandedSums`).
    package var compute: @Sendable (_ inputs: [Tile], _ threads: Int, _ out: UnsafeMutablePointer<SIMD4<Float>>) -> Void

    /// The memberwise initializer, for the layers above.
    package init(
        name: String, sharesByName: Bool = true, regions: [IntRect], outputWidth: Int, outputHeight: Int,
        compute: @escaping @Sendable (_ inputs: [Tile], _ threads: Int, _ out: UnsafeMutablePointer<SIMD4<Float>>) -> Void
    ) {
        self.name = name
        self.sharesByName = sharesByName
        self.regions = regions
        self.outputWidth = outputWidth
        self.outputHeight = outputHeight
        self.compute = compute
    }

    /// The output's extent: `outputWidth` x `outputHeight` at the origin.
    package var outputRect: IntRect { IntRect(x: 0, y: 0, width: outputWidth, height: outputHeight) }
}
