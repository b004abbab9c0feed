/// Whole-region Gaussian blur passes over their input (a stage of its own): exact separable taps, or a
/// cascade of box filters for large sigma (see `GaussianPlan`).
///
/// Work is split by whole rows (horizontal pass) and whole column blocks (vertical pass),
/// and every row or column block is computed from the start of the region, so the result does not
/// depend on thread count or tile size.
///
/// Only the part of the input inside its extent is computed into a buffer; the rest is known to be
/// transparent and is supplied as zeros row by row, so a huge radius on a small image costs
/// memory in proportion to the image and the output, not to the blur's reach squared.
enum GaussianPass {
    static let columnBlock = 64
    static let rowBlock = 16

    /// The blur of `input` over `region`; written into `destination` (which must cover
    /// `region` exactly) instead of a new buffer when given.
    static func run(
        sigma: Double, step: Step, region: IntRect, evaluator: Evaluator,
        options: RenderContext.Options, into destination: Tile? = nil
    ) -> StageBuffer {
        let input = step.node.inputs[0]
        let inRect = GaussianPlan.inputRect(sigma: sigma, for: region)
        let valid = input.extent.isInfinite ? inRect : inRect.intersection(IntRect(covering: input.extent))
        // An input whose pixels are already stored (a source or a stage buffer,
        // behind crops and clamps) is read row by row: in place when it holds working values,
        // else each row converted into scratch, as are a row's clamped or transparent ends.
        // Other inputs are computed into a buffer first.
        // Sources and stages behind crops and clamps (not streamed sources, whose rows a render
        // into a buffer has decoded whole: those are rendered into a buffer first).
        let stored =
            Evaluator.storage(below: input) { evaluator.step($0).stage != nil } != nil
        let pixels = step.stored[0]
        let a =
            valid.isEmpty || stored ? nil : RenderPlan.renderToBuffer(input, rect: valid, evaluator: evaluator, options: options)
        let b = StageBuffer(rect: IntRect(x: region.x, y: inRect.y, width: region.width, height: inRect.height))
        precondition(destination == nil || destination!.rect == region, "destination must cover the region exactly")
        let out = destination.map(StageBuffer.init(wrapping:)) ?? StageBuffer(rect: region)
        let threads = options.threadCount
        /// Row `y` of the input over `inRect`'s columns, with zeros outside the computed part;
        /// nil when the whole row is transparent.
        @Sendable func paddedRow(_ y: Int, _ temp: UnsafeMutablePointer<SIMD4<Float>>) -> UnsafeMutablePointer<SIMD4<Float>>? {
            guard let a, y >= valid.y, y < valid.maxY else { return nil }
            if valid.x == inRect.x && valid.width == inRect.width { return a.tile.row(y) }
            temp.update(repeating: .zero, count: inRect.width)
            (temp + (valid.x - inRect.x)).update(from: a.tile.row(y), count: valid.width)
            return temp
        }
        /// Calls `body` with row `y` of the input over `inRect`'s columns (as `paddedRow`),
        /// read in place when the input is stored.
        @Sendable func withRow(
            _ y: Int, _ temp: UnsafeMutablePointer<SIMD4<Float>>, _ arena: Arena,
            _ body: (UnsafeMutablePointer<SIMD4<Float>>?) -> Void
        ) {
            guard stored else { body(paddedRow(y, temp)); return }
            guard !valid.isEmpty, y >= valid.y, y < valid.maxY else { body(nil); return }
            let row = IntRect(x: inRect.x, y: y, width: inRect.width, height: 1)
            evaluator.withPixelsInPlace(pixels, row) { inPlace in
                if let inPlace { body(inPlace.base); return }
                evaluator.evaluate(input, into: Tile(base: temp, stride: inRect.width, rect: row), arena: arena)
                body(temp)
            }
        }
        switch GaussianPlan.mode(sigma: sigma) {
        case .tileLocal, .exact:
            let taps = step.taps
            let r = taps.count / 2
            let rowBlocks = (inRect.height + rowBlock - 1) / rowBlock
            Scheduler.run(count: rowBlocks, threads: threads) { i, arena in
                let temp = arena.allocate(inRect.width, of: SIMD4<Float>.self)
                taps.withUnsafeBufferPointer { t in
                    let y0 = inRect.y + i * rowBlock
                    for y in y0..<Swift.min(y0 + rowBlock, inRect.maxY) {
                        withRow(y, temp, arena) { row in
                            guard let row else {
                                b.tile.row(y).update(repeating: .zero, count: region.width)
                                return
                            }
                            correlateRowHorizontal(
                                UnsafePointer(row + (region.x - r - inRect.x)), taps: t,
                                count: region.width, into: b.tile.row(y))
                        }
                    }
                }
            }
            let outBlocks = (region.height + rowBlock - 1) / rowBlock
            Scheduler.run(count: outBlocks, threads: threads) { i, arena in
                let rows = arena.allocate(taps.count + rowBlock - 1, of: UnsafePointer<SIMD4<Float>>.self)
                let dsts = arena.allocate(rowBlock, of: UnsafeMutablePointer<SIMD4<Float>>.self)
                taps.withUnsafeBufferPointer { t in
                    // The block's output rows together, each input row read once for all of them.
                    let y0 = region.y + i * rowBlock, n = Swift.min(rowBlock, region.maxY - y0)
                    for k in 0..<(taps.count + n - 1) { rows[k] = UnsafePointer(b.tile.row(y0 - r + k)) }
                    for j in 0..<n { dsts[j] = out.tile.row(y0 + j) }
                    correlateRowsVertical(rows, taps: t, count: region.width, into: dsts, outputs: n)
                }
            }
        case let .boxes(radii):
            let block = GaussianPlan.boxBlock
            let hx = GaussianPlan.boxPassRanges(final: region.x..<region.maxX, radii: radii)
            let vy = GaussianPlan.boxPassRanges(final: region.y..<region.maxY, radii: radii)
            precondition(hx.input.lowerBound == inRect.x && vy.input.lowerBound == inRect.y)
            let rowBlocks = (inRect.height + rowBlock - 1) / rowBlock
            Scheduler.run(count: rowBlocks, threads: threads) { i, arena in
                var s = arena.allocate(inRect.width, of: SIMD4<Float>.self)
                var d = arena.allocate(inRect.width, of: SIMD4<Float>.self)
                let temp = arena.allocate(inRect.width, of: SIMD4<Float>.self)
                let y0 = inRect.y + i * rowBlock
                for y in y0..<Swift.min(y0 + rowBlock, inRect.maxY) {
                    var defined = false
                    withRow(y, temp, arena) { row in
                        if let row { s.update(from: row, count: inRect.width); defined = true }
                    }
                    guard defined else {
                        b.tile.row(y).update(repeating: .zero, count: region.width)
                        continue
                    }
                    var start = inRect.x
                    for (k, r) in radii.enumerated() {
                        let o = hx.outputs[k]
                        boxRowRestarting(
                            s, srcStart: start, outStart: o.lowerBound, count: o.count, radius: r,
                            block: block, scale: 1 / Float(2 * r + 1), into: d)
                        swap(&s, &d)
                        start = o.lowerBound
                    }
                    b.tile.row(y).update(from: s + (region.x - start), count: region.width)
                }
            }
            let blocks = (region.width + columnBlock - 1) / columnBlock
            Scheduler.run(count: blocks, threads: threads) { i, arena in
                let x0 = region.x + i * columnBlock
                let sw = Swift.min(columnBlock, region.maxX - x0)
                var s = arena.allocate(sw * inRect.height, of: SIMD4<Float>.self)
                var d = arena.allocate(sw * inRect.height, of: SIMD4<Float>.self)
                let acc = arena.allocate(sw, of: SIMD4<Float>.self)
                for y in 0..<inRect.height { (s + y * sw).update(from: b.tile.pointer(x: x0, y: inRect.y + y), count: sw) }
                var start = inRect.y
                for (k, r) in radii.enumerated() {
                    let o = vy.outputs[k]
                    boxColumnsRestarting(
                        s, width: sw, srcStart: start, outStart: o.lowerBound, count: o.count, radius: r,
                        block: block, scale: 1 / Float(2 * r + 1), into: d, accumulator: acc)
                    swap(&s, &d)
                    start = o.lowerBound
                }
                for y in 0..<region.height {
                    out.tile.pointer(x: x0, y: region.y + y).update(from: s + (region.y + y - start) * sw, count: sw)
                }
            }
        }
        return out
    }
}
