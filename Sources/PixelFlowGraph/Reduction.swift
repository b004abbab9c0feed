/// A reduction: a region of each input -> a small output image (1x1 averages, N x 1
/// histograms). Always a stage boundary: the inputs' regions are rendered into buffers
/// first, then `compute` runs over them.
struct Reduction: Sendable {
    var name: String
    /// True when `name` fully determines the computation (see `GeneratorKernel`).
    var sharesByName: Bool = true
    /// The rect of each input that the reduction reads (finite; may be empty).
    var regions: [IntRect]
    var outputWidth: Int
    var outputHeight: Int
    /// Writes `outputWidth * outputHeight` premultiplied working-space pixels, row by row.
    /// Implementations must give the same result for every `threads` value (sum in a fixed
    /// order, e.g. with `Reduction.bandedSums`).
    var compute: @Sendable (_ inputs: [Tile], _ threads: Int, _ out: UnsafeMutablePointer<SIMD4<Float>>) -> Void

    /// The output's extent: `outputWidth` x `outputHeight` at the origin.
    var outputRect: IntRect { IntRect(x: 0, y: 0, width: outputWidth, height: outputHeight) }
}
