/// Whole-region Gaussian blur passes over a materialized input: exact separable taps, or a
/// cascade of box filters for large sigma (see `GaussianPlan`).
///
/// Work is split by whole rows (horizontal pass) and whole column strips (vertical pass),
/// and every row or strip is computed from the start of the region, so the result does not
/// depend on thread count or tile size.
enum GaussianPass {
    static let stripWidth = 64
    static let rowBlock = 16

    static func run(sigma: Double, input: Node, region: IntRect, evaluator: Evaluator,
                    options: RenderContext.Options) -> Materialized {
        let h = GaussianPlan.kernelRadius(sigma: sigma)
        let inRect = region.outset(h, h)
        let a = RenderPlan.renderToBuffer(input, rect: inRect, evaluator: evaluator, options: options)
        let b = Materialized(rect: IntRect(x: region.x, y: inRect.y, width: region.width, height: inRect.height))
        let out = Materialized(rect: region)
        let threads = options.threadCount
        switch GaussianPlan.mode(sigma: sigma) {
        case .tileLocal, .exact:
            let taps = GaussianPlan.exactTaps(sigma: sigma)
            let r = taps.count / 2
            let rowBlocks = (inRect.height + rowBlock - 1) / rowBlock
            Scheduler.run(count: rowBlocks, threads: threads) { i, _ in
                taps.withUnsafeBufferPointer { t in
                    let y0 = inRect.y + i * rowBlock
                    for y in y0..<Swift.min(y0 + rowBlock, inRect.maxY) {
                        correlateRowHorizontal(UnsafePointer(a.tile.pointer(x: region.x - r, y: y)), taps: t,
                                               count: region.width, into: b.tile.row(y))
                    }
                }
            }
            let outBlocks = (region.height + rowBlock - 1) / rowBlock
            Scheduler.run(count: outBlocks, threads: threads) { i, arena in
                let rows = arena.allocate(taps.count, of: UnsafePointer<SIMD4<Float>>.self)
                taps.withUnsafeBufferPointer { t in
                    let y0 = region.y + i * rowBlock
                    for y in y0..<Swift.min(y0 + rowBlock, region.maxY) {
                        for k in 0..<taps.count { rows[k] = UnsafePointer(b.tile.row(y - r + k)) }
                        correlateRowsVertical(rows, taps: t, count: region.width, into: out.tile.row(y))
                    }
                }
            }
        case let .boxes(radii):
            let rowBlocks = (inRect.height + rowBlock - 1) / rowBlock
            Scheduler.run(count: rowBlocks, threads: threads) { i, arena in
                let t0 = arena.allocate(inRect.width, of: SIMD4<Float>.self)
                let t1 = arena.allocate(inRect.width, of: SIMD4<Float>.self)
                let y0 = inRect.y + i * rowBlock
                for y in y0..<Swift.min(y0 + rowBlock, inRect.maxY) {
                    t0.update(from: a.tile.row(y), count: inRect.width)
                    var width = inRect.width
                    var (s, d) = (t0, t1)
                    for r in radii {
                        width -= 2 * r
                        boxRowHorizontal(s, radius: r, count: width, scale: 1 / Float(2 * r + 1), into: d)
                        swap(&s, &d)
                    }
                    b.tile.row(y).update(from: s, count: region.width)
                }
            }
            let strips = (region.width + stripWidth - 1) / stripWidth
            Scheduler.run(count: strips, threads: threads) { i, arena in
                let x0 = region.x + i * stripWidth
                let sw = Swift.min(stripWidth, region.maxX - x0)
                var s = arena.allocate(sw * inRect.height, of: SIMD4<Float>.self)
                var d = arena.allocate(sw * inRect.height, of: SIMD4<Float>.self)
                for y in 0..<inRect.height { (s + y * sw).update(from: b.tile.pointer(x: x0, y: inRect.y + y), count: sw) }
                var height = inRect.height
                for r in radii {
                    height -= 2 * r
                    boxColumns(s, width: sw, radius: r, outputRows: height, scale: 1 / Float(2 * r + 1), into: d)
                    swap(&s, &d)
                }
                for y in 0..<region.height { out.tile.pointer(x: x0, y: region.y + y).update(from: s + y * sw, count: sw) }
            }
        }
        return out
    }
}

/// Vertical box means over a strip of `width` columns (rows `width` apart): output row `y` is
/// the mean of input rows `y ... y + 2r`. Fixed-point running sums, exact (see `boxFixedScale`).
func boxColumns(_ src: UnsafePointer<SIMD4<Float>>, width: Int, radius r: Int, outputRows: Int, scale: Float,
                into dst: UnsafeMutablePointer<SIMD4<Float>>) {
    let acc = UnsafeMutablePointer<SIMD4<Int64>>.allocate(capacity: width)
    defer { acc.deallocate() }
    acc.update(repeating: .zero, count: width)
    let out = SIMD4<Double>(repeating: Double(scale) / Double(boxFixedScale))
    for k in 0...(2 * r) {
        let row = src + k * width
        for x in 0..<width { acc[x] &+= toFixed(row[x]) }
    }
    for x in 0..<width { dst[x] = SIMD4<Float>(SIMD4<Double>(acc[x]) * out) }
    if outputRows > 1 {
        for y in 1..<outputRows {
            let add = src + (y + 2 * r) * width, sub = src + (y - 1) * width
            let d = dst + y * width
            for x in 0..<width {
                acc[x] &+= toFixed(add[x]) &- toFixed(sub[x])
                d[x] = SIMD4<Float>(SIMD4<Double>(acc[x]) * out)
            }
        }
    }
}
