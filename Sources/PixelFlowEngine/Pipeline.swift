import CSIMD

/// What one render runs, decided once before any pixel is computed: its stages in order, and
/// for every node a stage computes, a `Step` that holds every decision the tiles carry out
/// (kernel form, where each input's pixels come from, the edge-split rule, the fused color
/// chain). Made by `RenderPlan.lower(into:)` from the optimized graph, the render rect and the
/// destination; `Evaluator` interprets it; `explain()` prints it; tests assert on it.
struct Pipeline {
    /// The render rect.
    let rect: IntRect
    /// The stages, inputs first; the last one makes the output.
    let stages: [Stage]
    /// How each node that a stage computes runs, by node identity.
    let steps: [ObjectIdentifier: Step]
    /// For a render into a buffer: the byte path, or why it does not run.
    let bytePath: Result<BytePlan, BytePlan.Refusal>?

    /// A stage: one node computed over a region, with the nodes fused into it.
    struct Stage {
        /// 1-based, in the order stages run.
        let number: Int
        /// The stage's own node (the render's root for the output stage).
        let node: Node
        /// The rect the stage computes.
        let region: IntRect
        /// Why the node is a stage; nil for the output stage.
        let reason: StageReason?
        let placement: Placement
        /// The nodes the stage's tiles compute, the stage's node last (each once; stages it
        /// reads are not included).
        let nodes: [Node]
        /// The earlier stages whose buffers this stage reads.
        let reads: [Int]
    }

    /// How a stage's work is cut.
    enum Placement: Equatable {
        /// Tiles of a grid (`width` x `height`, `count` of them).
        case tiles(width: Int, height: Int, count: Int)
        /// Full-width bands (`height` rows each), for stages whose rows read input rows from
        /// left to right.
        case bands(width: Int, height: Int, count: Int)
        /// Passes or a kernel over the whole region at once (whole-region kernels, reductions).
        case wholeRegion
        /// Whole-region passes written straight into the destination: no output tiles run.
        case intoDestination
    }

    /// The step of `node`, if a stage computes it.
    func step(_ node: Node) -> Step? { steps[ObjectIdentifier(node)] }

    /// The output stage.
    var output: Stage { stages[stages.count - 1] }
}

/// How a node's kernel runs (`Step.form`).
enum KernelForm: Equatable {
    /// Rows of a source or a streamed source, converted into working values.
    case load
    /// A generator's row function.
    case generator
    /// A fused color chain as a planar point program (`PointProgram`): `steps` kernels;
    /// `premultiplied`: one matrix on premultiplied values as they are.
    case pointProgram(steps: Int, premultiplied: Bool)
    /// A fused color chain whose kernels run one after the other on chunks of pixels.
    case interleavedChain(steps: Int)
    /// A built-in C blend row kernel (`BuiltinBlend`).
    case builtinBlend(String)
    /// A blend kernel written as code.
    case blendClosure(String)
    /// A warp's sampler (affine, scale, Lanczos, clamp, custom).
    case sampler(String)
    /// A 2-D correlation.
    case correlation2D(width: Int, height: Int)
    /// Separable taps inside tiles.
    case separableTaps(count: Int)
    /// Separable passes over a whole region (exact taps or a box cascade).
    case wholeRegionPasses(String)
    /// A stencil kernel written as code.
    case closure(String)
    /// A crop (the input, transparent outside a rect).
    case crop
    /// A reduction over whole regions.
    case reduction(String)
}

/// Where a step's input pixels come from (`Step.inputs`).
enum InputStorage: Equatable {
    /// Computed by this stage (into the tile, or into arena scratch over the region of interest).
    case computed
    /// Read where they are stored, as a view: a source buffer holding working values, or stage
    /// `stage`'s buffer (through crops and clamps that are the identity there).
    case inPlace(stage: Int?)
    /// Rows of a source (behind crops and clamps) converted into working values as they are
    /// read.
    case convertedRows
    /// Copied from stage `stage`'s buffer.
    case stageBuffer(stage: Int)
    /// Not read by this render (an empty region of interest).
    case unused
}

/// Pixels stored somewhere (a source buffer, a stage's buffer), below an input through crops and
/// clamps, that a kernel may read in place over `rect`.
struct StoredPixels {
    /// The source or stage node that holds them.
    let node: Node
    /// Where reading the stored pixels gives the input's own values.
    let rect: IntRect
    /// A source buffer that holds working values; nil for a stage.
    let buffer: PixelBuffer?
}

/// A fused chain of color nodes, with the source it reads and its program, decided once.
struct ColorChain {
    /// The chain's operations, first applied first.
    let ops: [Op]
    /// The node below the chain.
    let input: Node
    /// The source the chain reads chunk by chunk, when the input is one (not a stage).
    let fusedSource: FusedSourceRef?
    /// The chain as a planar program, when every step can be one.
    let program: PointProgram?
    /// For a single alpha-preserving matrix: the program on premultiplied values.
    let premultipliedProgram: PointProgram?
    /// Whether the chain can give alpha 0 an alpha above 0 (see `Evaluator.mayRaiseZeroAlpha`).
    let mayRaiseZeroAlpha: Bool

    /// A source a color chain reads directly.
    enum FusedSourceRef {
        case buffer(PixelBuffer)
        /// A streamed source, whose rows the render binds (`Evaluator.windows`).
        case window(ObjectIdentifier)
    }
}

/// How one node runs in the tiles of a stage; immutable after lowering.
final class Step: @unchecked Sendable {
    let node: Node
    let form: KernelForm
    /// Where the pixels of each input come from, in input order.
    let inputs: [InputStorage]
    /// Per input: the stored pixels it may read in place (nil: none).
    let stored: [StoredPixels?]
    /// Per input: the buffer when the input is a plain source (not a stage), which a blend of
    /// two sources reads row by row where a tile lies inside both.
    let plainSources: [PixelBuffer?]
    /// The edge-split rule of a stencil reading input 0 in place: tiles whose region of
    /// interest leaves this rect are cut into a core read in place and margins that copy.
    let edgeSplit: IntRect?
    /// For color nodes: the chain that starts here.
    let chain: ColorChain?
    /// The stage whose buffer holds this node's output, if it is a stage.
    let stage: Int?
    /// Separable taps of a Gaussian, computed once.
    let taps: [Float]
    /// A stencil's kernel form, decided once.
    let stencilForm: StencilForm?
    /// A multi-input stencil's regions of its further inputs (inputs 1, 2, ...), in order.
    let extraRegions: [ExtraInput.Region]
    /// A Lanczos warp's taps for every output of its region, computed once.
    let lanczos: (x: LanczosTable, y: LanczosTable)?

    init(
        node: Node, form: KernelForm, inputs: [InputStorage], stored: [StoredPixels?], plainSources: [PixelBuffer?],
        edgeSplit: IntRect?, chain: ColorChain?, stage: Int?, taps: [Float], stencilForm: StencilForm?,
        lanczos: (x: LanczosTable, y: LanczosTable)?, extraRegions: [ExtraInput.Region]
    ) {
        self.node = node
        self.form = form
        self.inputs = inputs
        self.stored = stored
        self.plainSources = plainSources
        self.edgeSplit = edgeSplit
        self.chain = chain
        self.stage = stage
        self.taps = taps
        self.stencilForm = stencilForm
        self.lanczos = lanczos
        self.extraRegions = extraRegions
    }
}

// MARK: Lowering

extension RenderPlan {
    /// Lowers the plan into a `Pipeline` for a render into `destination` (nil: the tiles of an
    /// encoded destination, as `explain(_:rect:)` and streaming writes have): every decision
    /// the tiles would otherwise take per tile, taken once.
    ///
    /// - Complexity: O(nodes + edges) plus, per input, a walk down its crops and clamps.
    func lower(into destination: PixelBuffer? = nil) -> Pipeline {
        let linear = options.colorManagement == .linear
        let stageNumber = Dictionary(
            uniqueKeysWithValues: stageNodes.enumerated().map { (ObjectIdentifier($1), $0 + 1) })
        let isStage = { (n: Node) in stageNumber[ObjectIdentifier(n)] != nil }
        let bytePath = destination.map {
            BytePlan.make(root: root, rect: rect, options: options, buffer: $0, streamed: streamedByteSources(windows: [:]))
        }
        // The float path's Lanczos tables are only made when it runs (they cost about 8% of a
        // byte half-size Lanczos render).
        var byteRender = false
        if case .success? = bytePath { byteRender = true }
        var steps: [ObjectIdentifier: Step] = [:]
        for n in order {
            steps[ObjectIdentifier(n)] = makeStep(
                n, stageNumber: stageNumber, isStage: isStage, linear: linear, lanczosTables: !byteRender)
        }
        let intoDestination = destination.flatMap { stageWritingOutput(into: $0) }
        var stages: [Pipeline.Stage] = []
        for (i, n) in stageNodes.enumerated() {
            let region = self.region(of: n) ?? .empty
            let whole: Bool
            switch n.op.kind.stageRequirement {
            case .some(.reduction), .some(.wholeRegion): whole = true
            default: whole = false
            }
            let placement: Pipeline.Placement =
                n === intoDestination
                ? .intoDestination
                : whole
                    ? .wholeRegion
                    : Pipeline.Placement.tiles(
                        TileGrid(rect: region, tileWidth: options.tileWidth, tileHeight: options.tileHeight))
            let (nodes, reads) = stageContents(n, isStage: isStage, stageNumber: stageNumber, whole: whole)
            stages.append(
                Pipeline.Stage(
                    number: i + 1, node: n, region: region, reason: reasons[ObjectIdentifier(n)], placement: placement,
                    nodes: nodes, reads: reads))
        }
        if intoDestination == nil {
            let grid = outputGrid()
            let placement: Pipeline.Placement =
                grid.tileWidth != options.tileWidth
                ? .bands(width: grid.tileWidth, height: grid.tileHeight, count: grid.count)
                : .tiles(grid)
            let isRootStage = isStage(root)
            let (nodes, reads) =
                isRootStage
                ? ([], [stageNumber[ObjectIdentifier(root)]!])
                : stageContents(root, isStage: isStage, stageNumber: stageNumber, whole: false)
            stages.append(
                Pipeline.Stage(
                    number: stageNodes.count + 1, node: root, region: rect, reason: nil, placement: placement,
                    nodes: nodes, reads: reads))
        }
        return Pipeline(rect: rect, stages: stages, steps: steps, bytePath: bytePath)
    }

    /// The nodes stage `top` computes in its tiles (each once, inputs first) and the stages it
    /// reads. A whole-region stage computes its inputs in tiles of its own passes, so they are
    /// listed too.
    private func stageContents(
        _ top: Node, isStage: (Node) -> Bool, stageNumber: [ObjectIdentifier: Int], whole: Bool
    ) -> ([Node], [Int]) {
        GraphWalk.count()
        var nodes: [Node] = []
        var reads: [Int] = []
        var seen = Set<ObjectIdentifier>()
        var stack: [(Node, Bool)] = [(top, false)]
        while let (n, expanded) = stack.popLast() {
            if expanded { nodes.append(n); continue }
            guard seen.insert(ObjectIdentifier(n)).inserted else { continue }
            if n !== top, isStage(n) {
                reads.append(stageNumber[ObjectIdentifier(n)]!)
                continue
            }
            stack.append((n, true))
            for input in n.inputs.reversed() where region(of: input) != nil { stack.append((input, false)) }
        }
        return (nodes, reads.sorted())
    }

    private func makeStep(
        _ n: Node, stageNumber: [ObjectIdentifier: Int], isStage: @escaping (Node) -> Bool, linear: Bool,
        lanczosTables makesTables: Bool
    ) -> Step {
        let kind = n.op.kind
        var inputs: [InputStorage] = []
        var stored: [StoredPixels?] = []
        var plain: [PixelBuffer?] = []
        for (k, input) in n.inputs.enumerated() {
            let pixels = storedPixels(below: input, isStage: isStage, linear: linear)
            stored.append(pixels)
            if case let .source(b) = input.op, !isStage(input) {
                plain.append(b)
            } else {
                plain.append(nil)
            }
            if region(of: input) == nil {
                inputs.append(.unused)
            } else if kind.readsInPlace(input: k), let pixels {
                inputs.append(.inPlace(stage: pixels.buffer == nil ? stageNumber[ObjectIdentifier(pixels.node)] : nil))
            } else if let s = stageNumber[ObjectIdentifier(input)] {
                inputs.append(.stageBuffer(stage: s))
            } else if RenderPlan.isStored(behind: input, isStage: isStage) {
                // A source, a streamed source or a stage behind crops and clamps: rows read and
                // converted.
                inputs.append(.convertedRows)
            } else {
                inputs.append(.computed)
            }
        }
        var edgeSplit: IntRect?
        if case let .stencil(s) = n.op, s.traits.readsInputInPlace, let p = stored[0], let r = region(of: n) {
            let roi = s.inputRegion(0, for: r)
            if !p.rect.contains(roi) { edgeSplit = p.rect }
        }
        let chain = colorChain(n, isStage: isStage)
        var taps: [Float] = []
        var stencilForm: StencilForm?
        var extraRegions: [ExtraInput.Region] = []
        if case let .stencil(.custom(k)) = n.op { extraRegions = k.extraInputRegions }
        if case let .stencil(s) = n.op {
            stencilForm = s.traits.form
            switch s.traits.form {
            case let .separableTaps(sigma), let .wholeRegionPasses(sigma, _): taps = GaussianPlan.exactTaps(sigma: sigma)
            default: break
            }
        }
        return Step(
            node: n, form: kernelForm(n, chain: chain), inputs: inputs, stored: stored, plainSources: plain,
            edgeSplit: edgeSplit, chain: chain, stage: stageNumber[ObjectIdentifier(n)], taps: taps,
            stencilForm: stencilForm, lanczos: makesTables ? lanczosTables(n) : nil, extraRegions: extraRegions)
    }

    /// Whether `node` is, through crops and clamps, a node whose pixels are stored (a source, a
    /// streamed source) or a stage: reading it costs a row read or conversion, no computing.
    static func isStored(behind node: Node, isStage: (Node) -> Bool) -> Bool {
        GraphWalk.count()
        var n = node
        while true {
            if isStage(n) || n.op.kind.isStored { return true }
            guard n.op.kind.identityWindow(n) != nil else { return false }
            n = n.inputs[0]
        }
    }

    /// The Lanczos taps of every output of `n`'s region, when `n` is a Lanczos warp.
    private func lanczosTables(_ n: Node) -> (x: LanczosTable, y: LanczosTable)? {
        guard case let .warp(w) = n.op, let r = region(of: n) else { return nil }
        let e = IntRect(covering: n.inputs[0].extent)
        if case let .boxShrink(k, o) = w {
            return (
                LanczosTable(LanczosWeights(box: k, outputRange: r.x - o.x..<r.maxX - o.x, inputSize: e.width), first: r.x - o.x),
                LanczosTable(LanczosWeights(box: k, outputRange: r.y - o.y..<r.maxY - o.y, inputSize: e.height), first: r.y - o.y)
            )
        }
        guard case let .lanczos(o, span) = w else { return nil }
        return (
            LanczosTable(
                outputRange: r.x - o.x..<r.maxX - o.x, inputSize: e.width, outputSize: o.width, span: span?.width),
            LanczosTable(
                outputRange: r.y - o.y..<r.maxY - o.y, inputSize: e.height, outputSize: o.height, span: span?.height)
        )
    }

    /// Below `node`, through crops and clamps, pixels that are stored as the render works on
    /// them: a stage's buffer, or a float source in the working representation.
    private func storedPixels(below node: Node, isStage: (Node) -> Bool, linear: Bool) -> StoredPixels? {
        guard let (s, r) = Evaluator.storage(below: node, isStage: isStage), !r.isEmpty else { return nil }
        if isStage(s) {
            guard let region = region(of: s) else { return nil }
            let inner = r.intersection(region)
            return inner.isEmpty ? nil : StoredPixels(node: s, rect: inner, buffer: nil)
        }
        guard case let .source(b) = s.op, Evaluator.isStoredAsWorked(b, linear: linear) else { return nil }
        return StoredPixels(node: s, rect: r, buffer: b)
    }

    /// The fused color chain that starts at `top`, if `top` is a color node.
    private func colorChain(_ top: Node, isStage: (Node) -> Bool) -> ColorChain? {
        GraphWalk.count()
        var ops: [Op] = []
        var n = top
        chain: while true {
            switch n.op {
            case .color, .colorMatrix:
                ops.append(n.op)
                n = n.inputs[0]
                if isStage(n) { break chain }
            default:
                break chain
            }
        }
        guard !ops.isEmpty else { return nil }
        ops.reverse()
        var fused: ColorChain.FusedSourceRef?
        if !isStage(n) {
            if case let .source(b) = n.op {
                fused = .buffer(b)
            } else if case .streamedSource = n.op {
                fused = .window(ObjectIdentifier(n))
            }
        }
        var premultiplied: PointProgram?
        if ops.count == 1, case let .colorMatrix(m) = ops[0], let pm = m.premultipliedForm {
            premultiplied = PointProgram([.colorMatrix(pm)])
        }
        return ColorChain(
            ops: ops, input: n, fusedSource: fused, program: PointProgram(ops), premultipliedProgram: premultiplied,
            mayRaiseZeroAlpha: Evaluator.mayRaiseZeroAlpha(ops))
    }

    private func kernelForm(_ n: Node, chain: ColorChain?) -> KernelForm {
        switch n.op {
        case .source, .streamedSource: return .load
        case .generator: return .generator
        case .color, .colorMatrix:
            let c = chain!
            if c.premultipliedProgram != nil { return .pointProgram(steps: 1, premultiplied: true) }
            if c.program != nil { return .pointProgram(steps: c.ops.count, premultiplied: false) }
            return .interleavedChain(steps: c.ops.count)
        case let .blend(k): return k.builtin != nil ? .builtinBlend(k.name) : .blendClosure(k.name)
        case let .warp(w):
            switch w {
            case .affine: return .sampler(w.separableScaleInverse != nil ? "scale" : "affine")
            case .lanczos: return .sampler("lanczos3")
            case .boxShrink: return .sampler("box shrink")
            case .clamp: return .sampler("clamp")
            case let .custom(k): return .sampler(k.name)
            }
        case let .stencil(s):
            switch s.traits.form {
            case let .correlation2D(w, h, _, _, _): return .correlation2D(width: w, height: h)
            case let .separableTaps(sigma): return .separableTaps(count: 2 * GaussianPlan.exactRadius(sigma: sigma) + 1)
            case .wholeRegionPasses: return .wholeRegionPasses(s.formNote ?? "")
            case let .closure(k): return .closure(k.name)
            }
        case .crop: return .crop
        case let .reduction(r): return .reduction(r.name)
        }
    }
}

extension Pipeline.Placement {
    /// Tiles of `grid`.
    static func tiles(_ grid: TileGrid) -> Pipeline.Placement {
        .tiles(width: grid.tileWidth, height: grid.tileHeight, count: grid.count)
    }
}
