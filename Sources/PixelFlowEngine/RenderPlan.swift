/// What one render will do: the optimized graph, the region each node must produce, and
/// the stages (nodes computed into buffers of their own). `lower(into:)` makes its Pipeline.
final class RenderPlan {
    /// The graph as the image built it.
    let original: Node
    /// The graph after the optimizer (the same as `original` when optimization is off).
    let root: Node
    let rect: IntRect
    let options: RenderContext.Options
    /// A line per optimizer pass that changed something.
    let optimizerLog: [String]
    /// Nodes with every input before its consumers (sources first).
    let order: [Node]
    /// The rect each node must produce, the union over all its consumers.
    let regions: [ObjectIdentifier: IntRect]
    /// Nodes computed as whole-region passes before the output tiles run, inputs first.
    let stageNodes: [Node]
    /// Why each stage node is a stage.
    let reasons: [ObjectIdentifier: StageReason]

    /// Recursion depth after which a stage boundary is forced, so that evaluating a tile never
    /// nests deeper than this however deep the graph is.
    static let maximumStageDepth = 192
    /// A node read by two or more consumers is computed once into a buffer when its stage
    /// costs at least this much per pixel (a point operation costs 1); cheaper ones are
    /// recomputed per tile.
    static let sharedCostThreshold = 4

    init(root image: Node, rect: IntRect, options: RenderContext.Options) {
        original = image
        self.rect = rect
        self.options = options
        if options.optimizes {
            (root, optimizerLog) = Optimizer.optimize(image, shrinksOnLoad: options.shrinksOnLoad)
        } else {
            root = image
            optimizerLog = []
        }
        let order = GraphWalk.postOrder(root)
        self.order = order
        let regions = RenderPlan.regions(order: order, root: root, rect: rect)
        self.regions = regions
        (stageNodes, reasons) = RenderPlan.chooseStages(
            order: order, root: root, regions: regions,
            optimizes: options.optimizes)
    }

    /// The rect each node of `order` (post-order from `root`) must produce for `root` to
    /// produce `rect`: the union of what its consumers read (not clipped to its extent).
    ///
    /// - Complexity: O(nodes + edges).
    static func regions(order: [Node], root: Node, rect: IntRect) -> [ObjectIdentifier: IntRect] {
        var regions: [ObjectIdentifier: IntRect] = [ObjectIdentifier(root): rect]
        for n in order.reversed() {
            guard let r0 = regions[ObjectIdentifier(n)] else { continue }
            let r = n.extent.isInfinite ? r0 : r0.intersection(IntRect(covering: n.extent))
            if r.isEmpty { continue }
            for (k, input) in n.inputs.enumerated() {
                let need = RenderPlan.inputRegion(of: n, input: k, for: r)
                if need.isEmpty { continue }
                let id = ObjectIdentifier(input)
                regions[id] = regions[id].map { $0.union(need) } ?? need
            }
        }
        return regions
    }

    /// Decides which nodes are computed into buffers.
    static func chooseStages(
        order: [Node], root: Node, regions: [ObjectIdentifier: IntRect],
        optimizes: Bool
    ) -> ([Node], [ObjectIdentifier: StageReason]) {
        let consumers = GraphWalk.consumerCounts(order)
        var chosen: [Node] = []
        var reasons: [ObjectIdentifier: StageReason] = [:]
        var cost: [ObjectIdentifier: Int] = [:]
        var depth: [ObjectIdentifier: Int] = [:]
        // Further inputs that a two-input stencil reads whole in every tile.
        var readWhole: [ObjectIdentifier: String] = [:]
        for n in order {
            if case let .stencil(.custom(k)) = n.op, k.readsExtraInputsWhole {
                for input in n.inputs.dropFirst() { readWhole[ObjectIdentifier(input)] = k.name }
            }
        }
        for n in order {
            let id = ObjectIdentifier(n)
            let kind = n.op.kind
            let live = n.inputs.filter { reasons[ObjectIdentifier($0)] == nil }
            let c = kind.cost + live.reduce(0) { $0 + cost[ObjectIdentifier($1), default: 0] }
            let d = 1 + (live.map { depth[ObjectIdentifier($0), default: 0] }.max() ?? 0)
            var reason: StageReason?
            if regions[id] == nil {
                reason = nil
            } else if let required = kind.stageRequirement {
                reason = required
            } else if let reader = readWhole[id] {
                reason = .readWhole(by: reader)
            } else if n !== root {
                if !optimizes, !kind.isStored {
                    reason = .optimizationOff
                } else if consumers[id, default: 0] >= 2, c >= sharedCostThreshold, !kind.isStored {
                    reason = .shared(uses: consumers[id]!, cost: c)
                } else if d >= maximumStageDepth {
                    reason = .depth(d)
                }
            }
            if let reason {
                chosen.append(n)
                reasons[id] = reason
                cost[id] = 1
                depth[id] = 1
            } else {
                cost[id] = c
                depth[id] = d
            }
        }
        return (chosen, reasons)
    }

    /// The rect of input `k` that `node` reads to produce `rect`.
    static func inputRegion(of node: Node, input k: Int, for rect: IntRect) -> IntRect {
        node.op.kind.inputRegion(k, of: node, for: rect)
    }

    /// The region `node` must produce, clipped to its extent.
    func region(of node: Node) -> IntRect? {
        guard let r = regions[ObjectIdentifier(node)] else { return nil }
        let c = node.extent.isInfinite ? r : r.intersection(IntRect(covering: node.extent))
        return c.isEmpty ? nil : c
    }

    /// Throws `limitExceeded` when a node must be computed over more pixels than
    /// `options.maximumRenderPixelCount`, or a reduction reads or makes more. A stage buffer
    /// holds its node's whole region and a tile's scratch part of it, so no allocation of a
    /// render exceeds the limit (times the 16 bytes of a working pixel).
    ///
    /// - Complexity: O(nodes).
    func checkRegionSizes() throws {
        func check(_ n: Node, _ width: Int, _ height: Int, _ what: String) throws {
            let (area, overflow) = width.multipliedReportingOverflow(by: height)
            if overflow || area > options.maximumRenderPixelCount {
                throw PixelFlowError.limitExceeded(
                    what: "pixels of \(n) \(what) \(width)x\(height), needed for a \(rect.width)x\(rect.height) render",
                    value: overflow ? Int.max : area, limit: options.maximumRenderPixelCount)
            }
        }
        for n in order {
            guard let r = region(of: n) else { continue }
            try check(n, r.width, r.height, "over")
            // A reduction computes its whole output from its whole input regions, whatever
            // part of it the render reads.
            if case let .reduction(reduction) = n.op {
                try check(n, reduction.outputWidth, reduction.outputHeight, "computing its output of")
                for input in reduction.regions { try check(n, input.width, input.height, "reading") }
            }
        }
    }

    /// Computes every stage, inputs first, into `evaluator.stageBuffers`.
    /// Computes the stages in order. `output`, from `stageWritingOutput()`, is written
    /// straight into the destination's pixels.
    func computeStages(with evaluator: Evaluator, output: (node: Node, tile: Tile)? = nil) throws {
        let control = RenderControl.current
        for n in stageNodes {
            if control?.isCancelled == true { throw PixelFlowError.cancelled }
            guard let region = region(of: n) else { continue }
            let m = computeStage(n, region: region, evaluator: evaluator, into: output?.node === n ? output?.tile : nil)
            if control?.isCancelled == true { throw PixelFlowError.cancelled }
            evaluator.stageBuffers[ObjectIdentifier(n)] = m
            control?.advance(workUnits(of: region))
        }
    }

    /// Computes stage `n` over `region` by its kind: a reduction over its inputs' regions,
    /// whole-region passes or kernels over their inputs, anything else tile by tile.
    private func computeStage(_ n: Node, region: IntRect, evaluator: Evaluator, into destination: Tile?) -> StageBuffer {
        if case let .reduction(r) = n.op {
            return RenderPlan.reduce(r, inputs: n.inputs, evaluator: evaluator, options: options)
        }
        guard case let .stencil(s) = n.op else {
            return RenderPlan.renderToBuffer(n, rect: region, evaluator: evaluator, options: options)
        }
        switch s.traits.form {
        case let .wholeRegionPasses(sigma, _):
            return GaussianPass.run(
                sigma: sigma, step: evaluator.step(n), region: region, evaluator: evaluator, options: options,
                into: destination)
        case let .closure(k) where k.isWholeRegion:
            let inputs = n.inputs.indices.map { j in
                RenderPlan.renderToBuffer(
                    n.inputs[j], rect: k.inputRegion(j, for: region), evaluator: evaluator, options: options)
            }
            let m = StageBuffer(rect: region)
            withExtendedLifetime(inputs) {
                inputs.map(\.tile).withUnsafeBufferPointer {
                    k.run(StencilInputs(base: $0.baseAddress!, count: $0.count), m.tile, options.threadCount, Arena())
                }
            }
            return m
        default:
            return RenderPlan.renderToBuffer(n, rect: region, evaluator: evaluator, options: options)
        }
    }

    /// The stage whose buffer would be the whole output, which can then be computed straight
    /// into the destination with no output tiles: a stage whose passes can write into a
    /// destination (`StencilTraits.writesIntoDestination`: whole-region blurs) at the root,
    /// or under a crop that keeps all of the render rect, whose region is the render rect.
    func stageWritingOutput() -> Node? {
        var n = root
        if case .crop = n.op, IntRect(covering: n.extent).contains(rect) { n = n.inputs[0] }
        guard case let .stencil(s) = n.op, s.traits.writesIntoDestination,
            stageNodes.contains(where: { $0 === n }), region(of: n) == rect
        else { return nil }
        return n
    }

    /// `stageWritingOutput()` when a render into `buffer` computes it in the buffer: premultiplied
    /// floats in the working encoding (tiles would be stored as they are), rows the kernels can
    /// write, and `Options.writesLastStageInPlace` on.
    func stageWritingOutput(into buffer: PixelBuffer) -> Node? {
        let target = RenderContext.TileTarget(buffer: buffer, linear: options.colorManagement == .linear)
        guard options.writesLastStageInPlace, target.direct, !target.unpremultiply, buffer.bytesPerRow % 16 == 0 else {
            return nil
        }
        return stageWritingOutput()
    }

    /// Progress units of a stage: its region's tile count.
    func workUnits(of region: IntRect) -> Int {
        TileGrid(rect: region, tileWidth: options.tileWidth, tileHeight: options.tileHeight).count
    }

    /// Progress units of the whole render: every stage's plus the output tiles.
    var totalWorkUnits: Int {
        stageNodes.reduce(outputGrid().count) { $0 + (region(of: $1).map(workUnits) ?? 0) }
    }

    /// How the output tiles read memory, from the nodes they compute (down to sources and
    /// stage buffers).
    enum Access {
        /// Every node works pixel by pixel (sources, generators, color and blend kernels,
        /// crops): any tiling gives the same pixels and each output row reads input rows.
        case pointwise
        /// Besides those, only scales without rotation, clamps and stencils reaching at most
        /// `haloY` rows: each output row still reads a few input rows, from left to right.
        case rows(haloY: Int)
        /// Rotations, general warps, wide stencils, reductions.
        case other
    }

    /// The memory access of the output tiles' nodes (see `Access`).
    var access: Access {
        GraphWalk.count()
        let stages = Set(stageNodes.map(ObjectIdentifier.init))
        // Output tiles of a render whose root is a stage copy its buffer.
        if stages.contains(ObjectIdentifier(root)) { return .pointwise }
        var stack = [root]
        var seen = Set<ObjectIdentifier>()
        var halo = -1
        while let n = stack.popLast() {
            guard seen.insert(ObjectIdentifier(n)).inserted else { continue }
            if n !== root, stages.contains(ObjectIdentifier(n)) { continue }
            switch n.op.kind.rowOrder {
            case .pointwise:
                break
            case let .rows(haloY, needsStoredInput):
                guard haloY <= RenderPlan.bandHaloLimit else { return .other }
                if needsStoredInput, !readsInPlace(n.inputs[0], stages: stages) { return .other }
                halo = Swift.max(halo, haloY)
            case .unordered:
                return .other
            }
            stack.append(contentsOf: n.inputs)
        }
        return halo < 0 ? .pointwise : .rows(haloY: halo)
    }

    /// True when the output tiles read `node`'s pixels where they are stored (see
    /// `Evaluator.withPixelsInPlace`): a stage or a float source in the working
    /// representation, behind crops and clamps.
    private func readsInPlace(_ node: Node, stages: Set<ObjectIdentifier>) -> Bool {
        guard let (stored, _) = Evaluator.storage(below: node, isStage: { stages.contains(ObjectIdentifier($0)) }) else {
            return false
        }
        if case let .source(b) = stored.op, !stages.contains(ObjectIdentifier(stored)) {
            return Evaluator.isStoredAsWorked(b, linear: options.colorManagement == .linear)
        }
        return true
    }

    /// True when every node the output tiles compute works pixel by pixel (`Access.pointwise`):
    /// any tiling then gives the same pixels.
    var isPointwise: Bool {
        if case .pointwise = access { return true }
        return false
    }

    /// The tallest stencil reach for which output tiles become full-width bands.
    static let bandHaloLimit = 16
    /// The most pixels of a band of a plan with stencils or scales, in tiles.
    static let bandAreaFactor = 4
    /// The fewest rows of a band of a plan with stencils or scales.
    static let bandMinimumRows = 16

    /// The output tiles. A plan whose output rows read their input rows from left to right
    /// (`Access`) is cut into full-width bands of about the same number of pixels as a
    /// tile (at least `bandMinimumRows` rows when it has stencils or scales): each worker
    /// then reads and writes long runs of memory, which the hardware prefetchers follow (a
    /// 256-pixel-wide tile reads 64 short runs a row apart, and each run starts on a new
    /// page, where the prefetchers stop). Other plans use the context's tile size: a rotation
    /// read along full-width rows would need a far larger region of its input per tile.
    func outputGrid() -> TileGrid {
        if rect.width > options.tileWidth {
            let rows = Swift.max(1, options.tileWidth * options.tileHeight / rect.width)
            switch access {
            case .pointwise:
                return TileGrid(rect: rect, tileWidth: rect.width, tileHeight: rows)
            case let .rows(haloY):
                // At least four times the reach, so that halo rows stay a small part of a
                // band; at most `bandAreaFactor` tiles' pixels, so that a stage's scratch
                // tiles still fit in the caches (a narrower band then, still long runs).
                let height = Swift.max(rows, RenderPlan.bandMinimumRows, 4 * haloY)
                let cap = RenderPlan.bandAreaFactor * options.tileWidth * options.tileHeight
                let width = Swift.min(rect.width, Swift.max(options.tileWidth, cap / height))
                return TileGrid(rect: rect, tileWidth: width, tileHeight: height)
            case .other:
                break
            }
        }
        return TileGrid(rect: rect, tileWidth: options.tileWidth, tileHeight: options.tileHeight)
    }

    /// Renders the inputs' regions and runs a reduction over them.
    static func reduce(_ r: Reduction, inputs: [Node], evaluator: Evaluator, options: RenderContext.Options) -> StageBuffer {
        let buffers = zip(inputs, r.regions).map { node, region in
            renderToBuffer(node, rect: region, evaluator: evaluator, options: options)
        }
        let out = StageBuffer(rect: r.outputRect)
        out.tile.base.initialize(repeating: .zero, count: r.outputWidth * r.outputHeight)
        withExtendedLifetime(buffers) {
            r.compute(buffers.map(\.tile), options.threadCount, out.tile.base)
        }
        return out
    }

    /// Renders `node` over `rect` into a new buffer, tile by tile on all workers.
    static func renderToBuffer(_ node: Node, rect: IntRect, evaluator: Evaluator, options: RenderContext.Options) -> StageBuffer {
        let m = StageBuffer(rect: rect)
        let tiles = TileGrid(rect: rect, tileWidth: options.tileWidth, tileHeight: options.tileHeight)
        let target = m
        Scheduler.run(count: tiles.count, threads: options.threadCount) { i, arena in
            evaluator.evaluate(node, into: target.tile.view(tiles[i]), arena: arena)
        }
        return m
    }
}

/// The tiles that cover a rect, row by row.
struct TileGrid {
    let rect: IntRect
    let tileWidth: Int
    let tileHeight: Int
    let columns: Int
    let rows: Int

    init(rect: IntRect, tileWidth: Int, tileHeight: Int) {
        self.rect = rect
        self.tileWidth = Swift.max(1, tileWidth)
        self.tileHeight = Swift.max(1, tileHeight)
        columns = rect.isEmpty ? 0 : (rect.width + self.tileWidth - 1) / self.tileWidth
        rows = rect.isEmpty ? 0 : (rect.height + self.tileHeight - 1) / self.tileHeight
    }

    var count: Int { columns * rows }

    subscript(i: Int) -> IntRect {
        let cx = i % columns, cy = i / columns
        let x = rect.x + cx * tileWidth, y = rect.y + cy * tileHeight
        return IntRect(x: x, y: y, width: Swift.min(tileWidth, rect.maxX - x), height: Swift.min(tileHeight, rect.maxY - y))
    }
}
