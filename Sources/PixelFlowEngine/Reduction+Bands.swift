// The parallel folds that reductions use to sum their input in a fixed order.

extension Reduction {
    /// Folds bands of `bandRows` rows of `tile` in parallel, each into a state of `stateSize`
    /// doubles starting at `initial`, then combines the bands in order with `combine(total,
    /// band)`: the same result for any thread count.
    package static func bandedFold(
        _ tile: Tile, threads: Int, stateSize: Int, initial: Double, bandRows: Int = 16,
        _ accumulate: @Sendable (_ state: UnsafeMutablePointer<Double>, _ row: UnsafePointer<SIMD4<Float>>, _ y: Int) -> Void,
        combine: (_ total: UnsafeMutablePointer<Double>, _ band: UnsafePointer<Double>) -> Void
    ) -> [Double] {
        var total = [Double](repeating: initial, count: stateSize)
        let r = tile.rect
        if r.isEmpty { return total }
        let bands = (r.height + bandRows - 1) / bandRows
        let partial = UnsafeMutablePointer<Double>.allocate(capacity: bands * stateSize)
        defer { partial.deallocate() }
        partial.initialize(repeating: initial, count: bands * stateSize)
        let shared = SharedPixels(base: UnsafeMutableRawPointer(partial), bytesPerRow: stateSize * 8)
        let t = tile
        Scheduler.run(count: bands, threads: threads) { b, _ in
            let state = (shared.base + b * shared.bytesPerRow).assumingMemoryBound(to: Double.self)
            let y0 = r.y + b * bandRows
            for y in y0..<Swift.min(y0 + bandRows, r.maxY) { accumulate(state, UnsafePointer(t.row(y)), y) }
        }
        total.withUnsafeMutableBufferPointer { tp in
            for b in 0..<bands { combine(tp.baseAddress!, partial + b * stateSize) }
        }
        return total
    }

    /// Sums `stateSize` doubles per band of `bandRows` rows of `tile`, bands in parallel,
    /// then adds the bands in order: the same result for any thread count.
    /// `accumulate(state, row, y)` adds one row (`tile.rect.width` pixels) into `state`.
    package static func bandedSums(
        _ tile: Tile, threads: Int, stateSize: Int, bandRows: Int = 16,
        _ accumulate: @Sendable (_ state: UnsafeMutablePointer<Double>, _ row: UnsafePointer<SIMD4<Float>>, _ y: Int) -> Void
    ) -> [Double] {
        let r = tile.rect
        if r.isEmpty { return [Double](repeating: 0, count: stateSize) }
        let bands = (r.height + bandRows - 1) / bandRows
        let partial = UnsafeMutablePointer<Double>.allocate(capacity: bands * stateSize)
        defer { partial.deallocate() }
        partial.initialize(repeating: 0, count: bands * stateSize)
        let shared = SharedPixels(base: UnsafeMutableRawPointer(partial), bytesPerRow: stateSize * 8)
        let t = tile
        Scheduler.run(count: bands, threads: threads) { b, _ in
            let state = (shared.base + b * shared.bytesPerRow).assumingMemoryBound(to: Double.self)
            let y0 = r.y + b * bandRows
            for y in y0..<Swift.min(y0 + bandRows, r.maxY) { accumulate(state, UnsafePointer(t.row(y)), y) }
        }
        var total = [Double](repeating: 0, count: stateSize)
        for b in 0..<bands { for i in 0..<stateSize { total[i] += partial[b * stateSize + i] } }
        return total
    }
}
