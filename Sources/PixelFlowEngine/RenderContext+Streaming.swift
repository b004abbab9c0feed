import Dispatch
import Synchronization

extension RenderContext {
    /// Renders `rect` of the graph `root` (color-managed, as rendered) into a file strip by
    /// strip, through a row encoder (JPEG, PNG; see `_ImageCodecs.rowEncoder`) that `open`
    /// makes once the plan is checked, before anything is decoded; `commit` ends the file
    /// after the last row (PixelFlow's `writeInStrips(_:rect:path:makeEncoder:)` opens and
    /// commits an atomic file). Each strip of
    /// `options.stripHeight` rows is computed tile by tile on all workers, then compressed
    /// while the next strips render, so only three strips of output exist at once. Streamed
    /// sources (`Image(contentsOfFile:options:streaming:)`) decode the rows of the next strips
    /// while the current one renders, into a window that drops rows no later strip needs.
    ///
    /// The codec work (compressing finished strips, decoding the rows of the next strips)
    /// runs on two codec threads (serial dispatch queues) while the `threadCount` workers
    /// render a strip's tiles, so libjpeg's sequential time overlaps the parallel rendering.
    /// The pipeline is bounded: three output strips (one rendering, two waiting for the
    /// encoder) and a decoder at most two strips ahead, so a codec thread that is descheduled
    /// for a while does not stall every strip. (Running the codec jobs as items of the
    /// strips' parallel loop instead, on `threadCount` threads in all, measured slower on a
    /// shared 2-core machine: a process with fewer runnable threads gets a smaller share of
    /// contended cores.)
    /// The file's bytes equal those of rendering the whole rect and encoding it
    /// (`makeBuffer` then `PixelBuffer.write(toFile:format:quality:options:)`).
    ///
    /// A graph with a stage (a large blur, a reduction) decodes its
    /// streamed sources fully first; so does one whose strips read rows far apart (a
    /// rotation by 90 degrees needs a whole column per strip), since the window then grows
    /// to the image's height.
    package func writeInStrips(
        _ root: Node, rect: IntRect, open: () throws -> any _RowEncoder, commit: () throws -> Void
    ) throws {
        let control = RenderControl.current
        if control?.isCancelled == true { throw PixelFlowError.cancelled }
        let plan = RenderPlan(root: root, rect: rect, options: options)
        let evaluator = Evaluator(linear: options.colorManagement == .linear, pipeline: plan.lower())
        try plan.checkRegionSizes()
        // Open the output first: a bad quality or size fails before anything is decoded.
        let encoder = try open()
        let rowFormat = encoder.format
        let schedule = StripSchedule(plan: plan, stripHeight: stripHeight(rowBytes: rect.width * rowFormat.bytesPerPixel))
        let windows = try schedule.sources.map { try RowWindow(source: $0.source, capacity: $0.capacity) }
        for (s, w) in zip(schedule.sources, windows) { evaluator.windows[ObjectIdentifier(s.node)] = w }
        // The byte path: one plan per strip, reading the windows' bytes in place.
        let bytePlans = try? plan.stripBytePlans(schedule: schedule, rowFormat: rowFormat, windows: windows).get()
        control?.setTotal(
            bytePlans != nil
                ? schedule.strips.count
                : plan.stageNodes.reduce(schedule.tileCount(options)) {
                    $0 + (plan.region(of: $1).map(plan.workUnits) ?? 0)
                })
        let bands = schedule.sources.map(\.rowsBefore)
        @Sendable func decode(strip k: Int) throws {
            for (w, rows) in zip(windows, bands) { try w.decode(upTo: rows[Swift.min(k, rows.count - 1)]) }
        }
        try decode(strip: 0)
        if bytePlans == nil { try plan.computeStages(with: evaluator) }

        let target = TileTarget(format: rowFormat, colorEncoding: .sRGB, alphaMode: .straight, linear: evaluator.linear)
        let strips = schedule.strips
        let maxHeight = strips.map(\.height).max() ?? 0
        // A bounded pipeline: up to `depth` strips wait for the encoder, and the decoder runs
        // up to `StripSchedule.lookahead` strips ahead, so a codec thread that is descheduled
        // for a while does not stall the strips at once.
        let depth = StripSchedule.outputBuffers
        let buffers = try (0..<Swift.min(depth, strips.count)).map { _ in
            try _StripBuffer(width: rect.width, rows: maxHeight, format: rowFormat)
        }
        // Byte plans run under a control without progress (one unit per strip is reported
        // here) that still stops their parallel loops once cancelled.
        let byteControl = bytePlans.map { _ in RenderControl(token: control?.token, progress: nil) }
        let arenas = ArenaPool(count: options.threadCount)
        let decodeQueue = DispatchQueue(label: "PixelFlow.streaming.decode")
        let encodeQueue = DispatchQueue(label: "PixelFlow.streaming.encode")
        let all = DispatchGroup()
        // Codec jobs hold the encoder and the file descriptor: nothing returns before they end.
        defer { all.wait() }
        let decoded = strips.map { _ in DispatchGroup() }
        let encoded = buffers.map { _ in DispatchGroup() }
        let failure = _FirstError()
        func queueDecode(_ k: Int) {
            guard k < strips.count, !windows.isEmpty else { return }
            decoded[k].enter()
            decodeQueue.async(group: all) {
                if failure.error == nil {
                    do { try decode(strip: k) } catch { failure.record(error) }
                }
                decoded[k].leave()
            }
        }
        for k in 1...StripSchedule.lookahead { queueDecode(k) }
        for k in strips.indices {
            decoded[k].wait()
            // The buffer's previous strip must be compressed before it is overwritten.
            encoded[k % buffers.count].wait()
            if let error = failure.error { throw error }
            if control?.isCancelled == true { throw PixelFlowError.cancelled }
            // Rows of strip k + lookahead land in window slots no tile of strip k reads (the
            // window's capacity guarantees it).
            queueDecode(k + StripSchedule.lookahead)
            let out = buffers[k % buffers.count]
            if let bytePlans {
                RenderControl.with(byteControl) { bytePlans[k].run(rect: strips[k], into: &out.pixels, options: options) }
                control?.advance(1)
            } else {
                renderTiles(
                    plan.root, rect: strips[k], evaluator: evaluator, target: target,
                    into: SharedPixels(base: out.base, bytesPerRow: out.bytesPerRow), arenas: arenas)
            }
            if control?.isCancelled == true { throw PixelFlowError.cancelled }
            let rows = strips[k].height
            encoded[k % buffers.count].enter()
            encodeQueue.async(group: all) {
                if failure.error == nil {
                    do { try encoder.write(rows: out.base, bytesPerRow: out.bytesPerRow, count: rows) } catch {
                        failure.record(error)
                    }
                }
                encoded[k % buffers.count].leave()
            }
        }
        all.wait()
        if let error = failure.error { throw error }
        try encoder.finish()
        if control?.isCancelled == true { throw PixelFlowError.cancelled }
        try commit()
    }
}

/// The strips of a streaming render and, for each streamed source it reads, how many rows
/// must be decoded before each strip and how many the window must hold.
///
/// Rows of strip `k` come from the region of interest of the strip (`RenderPlan.regions`
/// from the strip's rect). While strip `k` renders, the decoder fills rows up to what strip
/// `k + lookahead` needs, so the window holds every row from the lowest row strip `k` reads
/// to the highest row decoded by then: `capacity = max over k of (rowsBefore[k + lookahead]
/// - lowest row of strip k)`. Strips going down the image monotonically keep this about one strip's
/// region of interest tall; a graph that reads far-apart rows gets a window as tall as the
/// image (a full decode), which is still correct.
struct StripSchedule {
    struct Source {
        let node: Node
        let source: StreamedSource
        /// Rows held by the window.
        let capacity: Int
        /// `rowsBefore[k]`: rows decoded before strip `k` renders.
        let rowsBefore: [Int]
    }

    let strips: [IntRect]
    let sources: [Source]
    /// Strips the decoder may run ahead of the strip being rendered.
    static let lookahead = 2
    /// Output strips in flight: the one rendering and those waiting for the encoder.
    static let outputBuffers = 3

    init(plan: RenderPlan, stripHeight: Int) {
        let rect = plan.rect
        let h = Swift.max(1, stripHeight)
        strips = stride(from: rect.y, to: rect.maxY, by: h).map {
            IntRect(x: rect.x, y: $0, width: rect.width, height: Swift.min(h, rect.maxY - $0))
        }
        let streamed: [(Node, StreamedSource)] = plan.order.compactMap { n in
            guard plan.region(of: n) != nil, case let .streamedSource(s) = n.op else { return nil }
            return (n, s)
        }
        guard !streamed.isEmpty else { sources = []; return }
        // A stage reads its whole region at once, before any strip.
        if !plan.stageNodes.isEmpty {
            sources = streamed.map { Source(node: $0.0, source: $0.1, capacity: $0.1.height, rowsBefore: [$0.1.height]) }
            return
        }
        var needs: [[Range<Int>?]] = Array(repeating: [], count: streamed.count)
        for strip in strips {
            let regions = RenderPlan.regions(order: plan.order, root: plan.root, rect: strip)
            for (i, (n, s)) in streamed.enumerated() {
                let r = regions[ObjectIdentifier(n)].map { $0.intersection(s.bounds) }
                needs[i].append(r.flatMap { $0.isEmpty ? nil : $0.y..<$0.maxY })
            }
        }
        sources = zip(streamed, needs).map { pair, need in
            var rowsBefore: [Int] = []
            var high = 0
            for r in need {
                high = Swift.max(high, r?.upperBound ?? 0)
                rowsBefore.append(high)
            }
            var capacity = 1
            for (k, r) in need.enumerated() {
                guard let r else { continue }
                let decodedWhileRendering = rowsBefore[Swift.min(k + StripSchedule.lookahead, rowsBefore.count - 1)]
                capacity = Swift.max(capacity, decodedWhileRendering - r.lowerBound)
            }
            return Source(node: pair.0, source: pair.1, capacity: Swift.min(capacity, pair.1.height), rowsBefore: rowsBefore)
        }
    }

    /// Progress units of the strips: their tiles.
    func tileCount(_ options: RenderContext.Options) -> Int {
        strips.reduce(0) { $0 + TileGrid(rect: $1, tileWidth: options.tileWidth, tileHeight: options.tileHeight).count }
    }
}

/// One strip of output rows (`rgba8`, `rgba16` or `gray8`, sRGB, straight alpha): a
/// `PixelBuffer` that byte plans render into, also written through `base` by float tiles and
/// read by the encoder.
///
/// `@unchecked Sendable`: tiles write disjoint parts of it during a strip's render, and the
/// encoder thread reads it only while no tile writes it (the render cycles through three strip
/// buffers and waits for the encoder to finish with one before rendering into it again).
/// `pixels` is never copied (its storage stays uniquely referenced), so `base` stays valid.
final class _StripBuffer: @unchecked Sendable {
    var pixels: PixelBuffer
    let base: UnsafeMutableRawPointer
    let bytesPerRow: Int
    init(width: Int, rows: Int, format: PixelFormat) throws {
        pixels = try PixelBuffer(
            _width: Swift.max(1, width), height: Swift.max(1, rows), format: format, colorEncoding: .sRGB,
            alphaMode: .straight, zeroed: false)
        base = pixels._storage.bytes
        bytesPerRow = pixels.bytesPerRow
    }
}

/// The first error thrown by the codec threads of a streaming render.
final class _FirstError: Sendable {
    private let value = Locked<(any Error)?>(nil)
    func record(_ error: any Error) { value.withLock { if $0 == nil { $0 = error } } }
    var error: (any Error)? { value.withLock { $0 } }
}
