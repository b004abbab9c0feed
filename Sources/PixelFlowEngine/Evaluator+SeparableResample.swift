extension Evaluator {
    /// Evaluates a separable resample warp, a Lanczos warp (`Warp.lanczos`) or a box shrink
    /// (`Warp.boxShrink`, each output averaging the `factor` inputs of its block on each axis,
    /// in order), into `out` with `lanczosResample`: a horizontal pass, then a vertical one.
    /// The taps come from the node's step when lowering prepared them for its region, else
    /// `makeTables` makes them here for the output columns and rows (outside the region
    /// lowering prepared: not reached by renders).
    ///
    /// A stored input is read where it is, like a scale's: the passes read their region
    /// row by row.
    func evaluateSeparableResample(
        node: Node, input: Node, output o: IntRect, roi: IntRect, into out: Tile, arena: Arena,
        makeTables: (_ columns: Range<Int>, _ rows: Range<Int>, _ inputExtent: IntRect) -> (x: LanczosTable, y: LanczosTable)
    ) {
        let step = step(node)
        let tables = step.lanczos
        withInput(input, stored: step.stored[0], roi, arena: arena) { src in
            let e = IntRect(covering: input.extent)
            let xs = out.rect.x - o.x..<out.rect.maxX - o.x, ys = out.rect.y - o.y..<out.rect.maxY - o.y
            let (wx, wy): (LanczosTable, LanczosTable)
            if let t = tables, t.x.covers(xs), t.y.covers(ys) {
                (wx, wy) = (t.x, t.y)
            } else {
                (wx, wy) = makeTables(xs, ys, e)
            }
            lanczosResample(src, wx: wx, wy: wy, outputOrigin: (o.x, o.y), inputOrigin: (e.x, e.y), into: out, arena: arena)
        }
    }
}
