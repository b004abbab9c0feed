/// A neighbourhood operation: what it computes. How the engine runs it (its halo, whether it
/// reads its input in place, its stage, its kernel form) is its description,
/// `Stencil.traits` (Graph/Kinds/StencilKind.swift), which lowering reads instead of matching
/// on these cases.
package enum Stencil: Sendable, CustomStringConvertible {
    /// Correlation with a `width` x `height` kernel (row-major, top row first) plus `bias`;
    /// `rgbOnly` leaves alpha as the center pixel's.
    case convolution(width: Int, height: Int, weights: [Float], bias: Float, rgbOnly: Bool)
    /// Gaussian blur of standard deviation `sigma` pixels, transparent outside the extent.
    case gaussian(sigma: Double)
    /// A neighbourhood operation given as code (median, morphology, edge detectors, ...).
    case custom(StencilKernel)

    package var description: String {
        switch self {
        case let .convolution(w, h, _, bias, rgb): return "convolution \(w)x\(h) bias \(bias)\(rgb ? " rgb" : "")"
        case let .gaussian(s): return "gaussian sigma \(s)"
        case let .custom(k): return k.name + (k.isWholeRegion ? " (whole region)" : "")
        }
    }
}

/// Something a custom stencil kernel can do beyond computing a tile of its output from a tile
/// of its one input. A kernel lists the capabilities it has; lowering reads them (see
/// `StencilTraits`), and nothing else in the engine asks what a kernel is.
package enum StencilCapability: Sendable {
    /// The kernel only reads its input tile, so the tile may be a view of pixels where they
    /// are stored (a source buffer, a stage buffer) instead of a copy. Kernels that use the
    /// input tile as scratch space do not have it.
    case readsInputInPlace
    /// The kernel runs once over the whole region a render needs, as a stage of its own, before
    /// the tiles that read it (running sums, sliding histograms, passes over whole rows). It
    /// must restart any running state at fixed absolute positions (see `boxRowRestarting`) or
    /// use exact arithmetic, so that the result does not depend on the region.
    case wholeRegion
    /// A further input (node inputs 1, 2, ... in order; see `ExtraInput`).
    case extraInput(ExtraInput)
    /// The same computation as an exact 8-bit kernel (morphology, median): a render then may
    /// take the byte path (`BytePlan`). Must match the float kernel on every pixel whose values
    /// decode from bytes.
    case byteForm(ByteStencil)
    /// The same computation as a separable blur with these taps on both axes (a box mean):
    /// a render then may run it on bytes with fixed-point taps (`ByteResample.separable`),
    /// within 1 unit of the float kernel.
    case separableTaps([Float])
    /// The kernel is an unsharp mask (its byte form: `NodeKind.byteUnsharp`, UnsharpMask.swift).
    case unsharpMask(UnsharpMask)
}

/// A further input of a stencil kernel: `region` maps an output rect to the rect of that input
/// the kernel reads. With `readWhole`, every tile reads all of it (a repeated texture, a
/// shading sphere): lowering computes it once, as a stage, and tiles read that stage in place.
package struct ExtraInput: Sendable {
    /// The rect of the input that outputs in a rect read. Rules other than `custom` are data,
    /// so the tile loop computes them without calling a closure.
    package enum Region: Sendable {
        /// The output rect grown by `x` and `y` pixels on each side (0: where the output is).
        case output(grownBy: (x: Int, y: Int) = (0, 0))
        /// The same rect whatever the output (the whole of a texture).
        case fixed(IntRect)
        /// Any function of the output rect.
        case custom(@Sendable (IntRect) -> IntRect)

        /// The rect for outputs in `rect`.
        package func callAsFunction(_ rect: IntRect) -> IntRect {
            switch self {
            case let .output(g): return rect.outset(g.x, g.y)
            case let .fixed(r): return r
            case let .custom(f): return f(rect)
            }
        }
    }

    package let region: Region
    package let readWhole: Bool
}

/// A neighbourhood operation written as a function of input tiles.
///
/// `run(inputs, output, threads, arena)` fills `output` (all of `output.rect`) from
/// `inputs[0]`, which covers `output.rect` grown by the halo on every side, and from each
/// further input `k`, which covers its `extraInput` region; all are transparent outside
/// their image's extent. Each output pixel must be computed the same way wherever a tile or
/// region starts, so that results do not depend on the schedule.
package struct StencilKernel: Sendable {
    /// A body over the primary input only, or over every input.
    package enum Body: Sendable {
        case oneInput(@Sendable (_ input: Tile, _ output: Tile, _ threads: Int, _ arena: Arena) -> Void)
        case inputs(@Sendable (_ inputs: StencilInputs, _ output: Tile, _ threads: Int, _ arena: Arena) -> Void)
    }

    package var name: String
    /// True when `name` fully determines the computation (see `GeneratorKernel`).
    package var sharesByName: Bool = true
    package var haloX: Int
    package var haloY: Int
    /// Rough cost per output pixel in point operations (the planner's estimate).
    package var cost: Int = 4
    /// What the kernel can do besides a tile of one input (see `StencilCapability`).
    package var capabilities: [StencilCapability] = []
    package var body: Body

    package init(
        name: String, sharesByName: Bool = true, haloX: Int, haloY: Int, cost: Int = 4,
        capabilities: [StencilCapability] = [],
        _ apply: @escaping @Sendable (_ input: Tile, _ output: Tile, _ threads: Int, _ arena: Arena) -> Void
    ) {
        self.name = name
        self.sharesByName = sharesByName
        self.haloX = haloX
        self.haloY = haloY
        self.cost = cost
        self.capabilities = capabilities
        body = .oneInput(apply)
    }

    /// A stencil over several images: input 0 is read over the output grown by the halo, input
    /// `k` over `extraInputRegions[k - 1]` of the output rect. The same schedule rules hold: every
    /// output pixel must be computed the same way whatever tile or region it falls in.
    /// `readWhole`: every tile reads the further inputs whole (see `StencilCapability`).
    package static func reading(
        _ extraInputRegions: [ExtraInput.Region], name: String, haloX: Int, haloY: Int,
        wholeRegion: Bool = false, cost: Int = 4, readWhole: Bool = false,
        _ body: @escaping @Sendable (_ inputs: StencilInputs, _ output: Tile, _ threads: Int, _ arena: Arena) -> Void
    ) -> StencilKernel {
        var k = StencilKernel(
            name: name, haloX: haloX, haloY: haloY, cost: cost,
            capabilities: extraInputRegions.map { .extraInput(ExtraInput(region: $0, readWhole: readWhole)) }
                + (wholeRegion ? [.wholeRegion] : [])
        ) { _, output, _, _ in output.clear() }
        k.body = .inputs(body)
        return k
    }

    /// Runs the kernel: `inputs[0]` covers the output grown by the halo, `inputs[k]` the
    /// region of further input `k`. The tiles may live in an arena (no array per tile).
    package func run(_ inputs: StencilInputs, _ output: Tile, _ threads: Int, _ arena: Arena) {
        switch body {
        case let .oneInput(f): f(inputs[0], output, threads, arena)
        case let .inputs(f): f(inputs, output, threads, arena)
        }
    }

    /// Runs a kernel on its primary input alone.
    package func run(_ input: Tile, _ output: Tile, _ threads: Int, _ arena: Arena) {
        switch body {
        case let .oneInput(f): f(input, output, threads, arena)
        case let .inputs(f):
            withUnsafePointer(to: input) { f(StencilInputs(base: $0, count: 1), output, threads, arena) }
        }
    }

    /// The regions of the further inputs, in order.
    package var extraInputRegions: [ExtraInput.Region] {
        capabilities.compactMap { if case let .extraInput(e) = $0 { return e.region } else { return nil } }
    }
    /// How many further inputs the kernel reads (no allocation: asked per tile).
    var extraInputCount: Int {
        var n = 0
        for c in capabilities { if case .extraInput = c { n += 1 } }
        return n
    }
    /// Whether every tile reads the further inputs whole.
    package var readsExtraInputsWhole: Bool {
        for c in capabilities { if case let .extraInput(e) = c, e.readWhole { return true } }
        return false
    }
    /// Whether the kernel is a stage computed over its whole region.
    package var isWholeRegion: Bool {
        for c in capabilities { if case .wholeRegion = c { return true } }
        return false
    }
    /// Whether the input tile may be a view of stored pixels.
    package var readsInputInPlace: Bool {
        guard extraInputCount == 0 else { return false }
        for c in capabilities { if case .readsInputInPlace = c { return true } }
        return false
    }
    /// The exact 8-bit form, if any.
    package var byteForm: ByteStencil? {
        for c in capabilities { if case let .byteForm(b) = c { return b } }
        return nil
    }

    /// The separable taps of its byte blur form, if any.
    package var separableTaps: [Float]? {
        for c in capabilities { if case let .separableTaps(t) = c { return t } }
        return nil
    }

    /// The rect of further input `k` (1, 2, ...) that outputs in `rect` read.
    private func extraInputRegion(_ k: Int, for rect: IntRect) -> IntRect {
        var j = 0
        for c in capabilities {
            guard case let .extraInput(e) = c else { continue }
            j += 1
            if j == k { return e.region(rect) }
        }
        return .empty
    }

    /// The rect of input `k` (0: the primary) that outputs in `rect` read.
    package func inputRegion(_ k: Int, for rect: IntRect) -> IntRect {
        k == 0 ? rect.outset(haloX, haloY) : extraInputRegion(k, for: rect)
    }
}

/// The input tiles of a stencil kernel, in input order, as a read-only list that may live in
/// an arena (no array per tile).
///
/// `@unchecked Sendable`: the list and the tiles are only read while the kernel runs; a kernel
/// that splits its output into pieces on several threads shares them read-only, and the memory
/// outlives the call.
package struct StencilInputs: @unchecked Sendable {
    package let base: UnsafePointer<Tile>
    package let count: Int

    package init(base: UnsafePointer<Tile>, count: Int) {
        self.base = base
        self.count = count
    }

    package subscript(i: Int) -> Tile { base[i] }
}
