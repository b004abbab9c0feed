extension Evaluator {
    /// Evaluates a box shrink (`Warp.boxShrink`) into `out` with the separable resampler of
    /// Lanczos warps (`lanczosResample`) and box taps (each output averages the `factor`
    /// inputs of its block on each axis, in order): the taps come from the node's step when
    /// lowering prepared them for its region, else are made here.
    func evaluateSeparableResample(_ w: Warp, node: Node, input: Node, roi: IntRect, into out: Tile, arena: Arena) {
        guard case let .boxShrink(k, o) = w else { return }
        let step = step(node)
        let stored = step.stored[0], tables = step.lanczos
        withPixelsInPlace(stored, roi) { inPlace in
            let src: Tile
            if let inPlace {
                src = inPlace
            } else {
                src = arena.tile(roi)
                evaluate(input, into: src, arena: arena)
            }
            let e = IntRect(covering: input.extent)
            let xs = out.rect.x - o.x..<out.rect.maxX - o.x, ys = out.rect.y - o.y..<out.rect.maxY - o.y
            if let t = tables, t.x.covers(xs), t.y.covers(ys) {
                lanczosResample(src, wx: t.x, wy: t.y, outputOrigin: (o.x, o.y), inputOrigin: (e.x, e.y), into: out, arena: arena)
                return
            }
            let wx = LanczosTable(LanczosWeights(box: k, outputRange: xs, inputSize: e.width), first: xs.lowerBound)
            let wy = LanczosTable(LanczosWeights(box: k, outputRange: ys, inputSize: e.height), first: ys.lowerBound)
            lanczosResample(src, wx: wx, wy: wy, outputOrigin: (o.x, o.y), inputOrigin: (e.x, e.y), into: out, arena: arena)
        }
    }
}
