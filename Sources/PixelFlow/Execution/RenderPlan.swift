/// What one render will do: the nodes in dependency order, the region each must produce,
/// and the nodes whose output is computed in advance into a buffer (stage boundaries).
final class RenderPlan {
    let root: Node
    let rect: IntRect
    /// Nodes with every input before its consumers (sources first).
    let order: [Node]
    /// The rect each node must produce, the union over all its consumers.
    let regions: [ObjectIdentifier: IntRect]
    /// Nodes computed as whole-region passes before the tiles run, inputs first.
    let materializedNodes: [Node]

    init(root: Node, rect: IntRect) {
        self.root = root
        self.rect = rect
        // Iterative post-order, so deep graphs do not exhaust the stack.
        var order: [Node] = []
        var seen = Set<ObjectIdentifier>()
        var stack: [(Node, Int)] = [(root, 0)]
        seen.insert(ObjectIdentifier(root))
        while let (n, i) = stack.popLast() {
            if i < n.inputs.count {
                stack.append((n, i + 1))
                let c = n.inputs[i]
                if seen.insert(ObjectIdentifier(c)).inserted { stack.append((c, 0)) }
            } else {
                order.append(n)
            }
        }
        self.order = order
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
        self.regions = regions
        materializedNodes = order.filter { n in
            guard regions[ObjectIdentifier(n)] != nil else { return false }
            if case let .stencil(.gaussian(sigma)) = n.op { return GaussianPlan.mode(sigma: sigma) != .tileLocal }
            return false
        }
    }

    /// The rect of input `k` that `node` reads to produce `rect`.
    static func inputRegion(of node: Node, input k: Int, for rect: IntRect) -> IntRect {
        switch node.op {
        case .source, .generator: return .empty
        case .color, .colorMatrix, .blend, .crop: return rect
        case let .warp(w): return Evaluator.warpROI(w, for: rect, input: node.inputs[k])
        case let .stencil(s): return Evaluator.stencilROI(s, for: rect)
        }
    }

    /// The region `node` must produce, clipped to its extent.
    func region(of node: Node) -> IntRect? {
        guard let r = regions[ObjectIdentifier(node)] else { return nil }
        let c = node.extent.isInfinite ? r : r.intersection(IntRect(covering: node.extent))
        return c.isEmpty ? nil : c
    }

    /// Computes every materialized node, inputs first, into `evaluator.materialized`.
    func materialize(with evaluator: Evaluator, options: RenderContext.Options) {
        for n in materializedNodes {
            guard let region = region(of: n) else { continue }
            if case let .stencil(.gaussian(sigma)) = n.op {
                evaluator.materialized[ObjectIdentifier(n)] =
                    GaussianPass.run(sigma: sigma, input: n.inputs[0], region: region, evaluator: evaluator, options: options)
            }
        }
    }

    /// Renders `node` over `rect` into a new buffer, tile by tile on all workers.
    static func renderToBuffer(_ node: Node, rect: IntRect, evaluator: Evaluator, options: RenderContext.Options) -> Materialized {
        let m = Materialized(rect: rect)
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
