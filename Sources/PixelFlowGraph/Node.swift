/// A node of the image graph: an operation, its inputs and its domain of definition.
///
/// Nodes are immutable and shared; an `Image` is a handle on one. Graphs are acyclic by
/// construction because a node's inputs exist before it does.
package final class Node: Sendable, CustomStringConvertible {
    package let op: Op
    package let inputs: [Node]
    /// Where the output can be non-transparent (Core Image's extent); possibly infinite.
    package let extent: Rect
    /// For a source made from a file: how it was read, for `explain()` (for instance why a
    /// file was decoded whole when opened rather than streamed). Nil otherwise.
    package let origin: String?

    package init(_ op: Op, inputs: [Node], extent: Rect, origin: String? = nil) {
        self.op = op
        self.inputs = inputs
        self.extent = extent
        self.origin = origin
    }

    package var description: String { "\(op.kindName)(\(op.label))" }
}

/// What a node does. The cases follow DESIGN.md's node kinds.
package enum Op: Sendable {
    /// Pixels from a buffer, placed with its top-left at the origin.
    case source(PixelBuffer)
    /// Pixels of a file decoded row by row as a render needs them (see `StreamedSource`),
    /// placed with its top-left at the origin.
    case streamedSource(StreamedSource)
    /// Position -> color, evaluated at pixel centers.
    case generator(GeneratorKernel)
    /// Pixel -> pixel on unpremultiplied values.
    case color(ColorKernel)
    /// A 4x4 matrix and a bias on unpremultiplied values (`out = M * in + bias`).
    case colorMatrix(ColorMatrix)
    /// (foreground, background) -> pixel on premultiplied values. Input 0 is the foreground.
    case blend(BlendKernel)
    /// Destination position -> source position, with a sampler.
    case warp(Warp)
    /// Neighbourhood -> pixel.
    case stencil(Stencil)
    /// Restricts the input to a rect (transparent outside).
    case crop(Rect)
    /// Regions of the inputs -> a small image (averages, histograms).
    case reduction(Reduction)
}

/// A row function that fills `count` pixels of row `y` starting at column `x` with the
/// generator's color, premultiplied, in the working space of `linear`.
package struct GeneratorKernel: Sendable {
    package var name: String
    /// Whether every pixel has the same color (lets the planner skip per-pixel work).
    package var constant: SIMD4<Float>?
    /// True when `name` fully determines what the kernel computes (built-in kernels put all
    /// their parameters in the name), so equal names may share one node.
    package var sharesByName: Bool = true
    package var fill:
        @Sendable (_ x: Int, _ y: Int, _ count: Int, _ out: UnsafeMutablePointer<SIMD4<Float>>, _ linear: Bool) -> Void

    /// The memberwise initializer, for the layers above.
    package init(
        name: String, constant: SIMD4<Float>? = nil, sharesByName: Bool = true,
        fill:
            @escaping @Sendable (_ x: Int, _ y: Int, _ count: Int, _ out: UnsafeMutablePointer<SIMD4<Float>>, _ linear: Bool) ->
            Void
    ) {
        self.name = name
        self.constant = constant
        self.sharesByName = sharesByName
        self.fill = fill
    }
}

/// A color kernel on rows of unpremultiplied pixels, in place.
package struct ColorKernel: Sendable {
    package var name: String
    /// True when `name` fully determines what the kernel computes (see `GeneratorKernel`).
    package var sharesByName: Bool = true
    package var apply: @Sendable (_ pixels: UnsafeMutablePointer<SIMD4<Float>>, _ count: Int) -> Void
    /// For kernels whose constants depend on the working space (colors given sRGB-encoded,
    /// tables read from images): called instead of `apply`, with whether the working space
    /// is linear light (color management on) or the stored values.
    package var applyInSpace: (@Sendable (_ pixels: UnsafeMutablePointer<SIMD4<Float>>, _ count: Int, _ linear: Bool) -> Void)? =
        nil
    /// The same computation as a step of a planar point program, when it has one: fused
    /// chains made only of such steps and color matrices run channel by channel (see
    /// `PointProgram`). Must give exactly `apply`'s results.
    package var pointStep: PointStep? = nil

    /// The memberwise initializer, for the layers above.
    package init(
        name: String, sharesByName: Bool = true,
        apply: @escaping @Sendable (_ pixels: UnsafeMutablePointer<SIMD4<Float>>, _ count: Int) -> Void,
        applyInSpace: (@Sendable (_ pixels: UnsafeMutablePointer<SIMD4<Float>>, _ count: Int, _ linear: Bool) -> Void)? = nil,
        pointStep: PointStep? = nil
    ) {
        self.name = name
        self.sharesByName = sharesByName
        self.apply = apply
        self.applyInSpace = applyInSpace
        self.pointStep = pointStep
    }
}

/// A blend kernel: combines foreground `fg` into `dst`, which holds the background on entry.
package struct BlendKernel: Sendable {
    package enum ExtentRule: Sendable { case union, background, foreground, intersection }
    package var name: String
    package var extentRule: ExtentRule
    /// True when `name` fully determines what the kernel computes (see `GeneratorKernel`).
    package var sharesByName: Bool = true
    /// The same computation as a built-in row kernel, when it is one: the evaluator then
    /// reads both inputs where they are stored. Must give exactly `apply`'s results.
    package var builtin: BuiltinBlend? = nil
    /// The same computation on premultiplied bytes, when it is one integer formula per channel
    /// (the byte path's blend form). Defaults to the built-in's; must match `apply`'s math.
    package var byteFormula: ByteBlendFormula? = nil
    /// When the kernel combines a Gaussian of the background (its foreground) with the
    /// background as an unsharp mask: its parameters (the byte form, UnsharpMask.swift).
    package var unsharpMask: UnsharpMask? = nil
    package var apply:
        @Sendable (_ fg: UnsafePointer<SIMD4<Float>>, _ dst: UnsafeMutablePointer<SIMD4<Float>>, _ count: Int) -> Void

    /// The memberwise initializer, for the layers above.
    package init(
        name: String, extentRule: ExtentRule, sharesByName: Bool = true, builtin: BuiltinBlend? = nil,
        byteFormula: ByteBlendFormula? = nil,
        apply:
            @escaping @Sendable (_ fg: UnsafePointer<SIMD4<Float>>, _ dst: UnsafeMutablePointer<SIMD4<Float>>, _ count: Int) ->
            Void
    ) {
        self.name = name
        self.extentRule = extentRule
        self.sharesByName = sharesByName
        self.builtin = builtin
        self.byteFormula = byteFormula ?? builtin?.byteFormula
        self.apply = apply
    }
}
