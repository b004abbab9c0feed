import CSIMD
#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Renders images: the counterpart of Core Image's `CIContext`.
///
/// ```swift
/// let context = RenderContext()
/// let photo = try Image(contentsOfFile: "in.jpg")
/// let result = try photo.sepiaTone(intensity: 0.8).gaussianBlurred(radius: 4)
/// try context.write(result, toFile: "out.png")
/// ```
///
/// A render cuts the requested rect into tiles and runs them on up to `threadCount` workers
/// with `DispatchQueue.concurrentPerform`. The output is bit-identical whatever the thread
/// count and tile size. A context holds only immutable options, so one context may be used
/// from many threads at once.
public struct RenderContext: Sendable {
    /// How the context treats color.
    public enum ColorManagement: String, Sendable {
        /// Filters work on linear-light, premultiplied values (Core Image's default).
        case linear
        /// Filters work on the stored, encoded values (Core Image's NSNull working space).
        case none
    }

    /// Settings of a context. A schedule (threads, tile size) never changes the pixels.
    public struct Options: Sendable {
        /// Workers used by a render (default: the number of active processors).
        public var threadCount: Int
        /// Width of a tile in pixels.
        public var tileWidth: Int
        /// Height of a tile in pixels.
        public var tileHeight: Int
        /// Whether filters work on linear light (`.linear`, default) or on the stored values
        /// (`.none`: no conversion anywhere, `workingColorSpace` and `outputColorSpace` unused).
        public var colorManagement: ColorManagement
        /// The space filters compute in, with `.linear` color management: linear sRGB by
        /// default (values unbounded, so wider colors survive); `.linearDisplayP3`,
        /// `.linearRec2020` or any linear space made from chromaticities. Sources are converted
        /// into it and results out of it by one 3x3 matrix each, which the optimizer folds
        /// into neighbouring color matrices (Core Image's `kCIContextWorkingColorSpace`).
        public var workingColorSpace: ColorSpace
        /// Bytes shared with the other renders of every context holding the same budget
        /// (default `nil`: no limit). A render waits until its estimated memory fits; see
        /// `MemoryBudget`.
        public var memoryBudget: MemoryBudget?
        /// The space of rendered pixels and written files (Core Image's
        /// `kCIContextOutputColorSpace`): sRGB by default. Encoded destinations (8 and 16-bit
        /// buffers, files) hold its encoded values; linear float destinations hold linear
        /// values with its primaries. Files get its ICC profile unless
        /// `EncodeOptions.colorProfile` is `.none`.
        public var outputColorSpace: ColorSpace
        /// The most pixels one render may produce, and the most any node of its graph may be
        /// computed over (default 100 megapixels). Stage buffers and a tile's scratch are
        /// sized by these regions, which can be far larger than the output: a blur of an
        /// infinite image scaled down a thousand times needs a million input pixels per
        /// output pixel. Checked, with overflow, before anything is allocated.
        public var maximumRenderPixelCount: Int
        /// Whether the optimizer rewrites the graph and fuses nodes into stages (default on).
        /// Off, every node is computed in its own full pass, as a naive engine would: for
        /// tests and for measuring what the optimizer gains.
        public var optimizes: Bool
        /// The most rows of output per strip when `write(_:toFile:...)` streams (default 128):
        /// the output held in memory is three strips, and streamed sources keep about three
        /// strips' regions of interest of decoded rows (the decoder runs ahead). Wide images
        /// get fewer rows, so that a strip holds at most `maximumStripBytes`. A schedule
        /// setting: it never changes the pixels or the file's bytes.
        public var stripHeight: Int
        /// The most bytes of output one strip holds (default 2 MiB, at least 8 rows): keeps a
        /// streaming render's memory from growing with the image's width.
        public var maximumStripBytes: Int = 2 << 20
        /// Whether a morphology or median filter, a bilinear scale without rotation, or a Lanczos
        /// scale of an 8-bit image rendered into a buffer of the same format may run on bytes
        /// with 8-bit kernels (a byte form), when that gives the float path's bytes: exactly for
        /// morphology and medians, within 1 unit for the fixed-point resampling (default on; see
        /// `explain(_:rect:into:)` and Docs/Architecture.md, "The byte path"). Off, the float
        /// path always runs: for tests and measurements.
        public var usesBytePath: Bool
        /// Whether a streamed JPEG that is first scaled down 4x or more (Lanczos, a bilinear
        /// affine scale, a thumbnail) is decoded 2, 4 or 8 times smaller with libjpeg's DCT
        /// scaling (default on; see `ShrinkSourcesOnLoad`): much faster and lighter, and
        /// within a few 8-bit levels of the full-resolution result. Off, renders give the
        /// exact full-resolution pixels. Needs `optimizes`.
        public var shrinksOnLoad: Bool
        /// Whether a whole-region blur that is the whole output is computed straight into a
        /// premultiplied float destination, with no output tiles (default on). Off: for tests
        /// comparing it with the tile path.
        var writesLastStageInPlace = true

        /// Options with every setting given (`init(threadCount:...)`, in PixelFlow, gives the
        /// defaults: the built-in color spaces are made there).
        package init(
            resolvedThreadCount threadCount: Int, tileWidth: Int, tileHeight: Int, colorManagement: ColorManagement,
            maximumRenderPixelCount: Int, optimizes: Bool, stripHeight: Int, usesBytePath: Bool,
            workingColorSpace: ColorSpace, outputColorSpace: ColorSpace, shrinksOnLoad: Bool
        ) {
            self.threadCount = threadCount
            self.workingColorSpace = workingColorSpace
            self.outputColorSpace = outputColorSpace
            self.tileWidth = tileWidth
            self.tileHeight = tileHeight
            self.colorManagement = colorManagement
            self.maximumRenderPixelCount = maximumRenderPixelCount
            self.optimizes = optimizes
            self.stripHeight = stripHeight
            self.usesBytePath = usesBytePath
            self.shrinksOnLoad = shrinksOnLoad
        }
    }

    /// The settings renders with this context use: threads, tile size, colour management, limits.
    public var options: Options

    /// A context with `options` (`init(options:)`, in PixelFlow, defaults them).
    package init(resolvedOptions options: Options) { self.options = options }

    /// Number of processors available to this process: the online processors, fewer when
    /// the process's CPU affinity (`taskset`, a Slurm allocation) or its control group's CPU
    /// quota (a Kubernetes or Docker CPU limit, rounded up) allows fewer. The default thread
    /// count of a context.
    public static var activeProcessorCount: Int { ProcessorCount.available }

    /// Rows per strip of a streaming render whose output rows are `rowBytes` long:
    /// `stripHeight`, fewer when that would hold more than `maximumStripBytes` (at least 8,
    /// and never more than `stripHeight`).
    package func stripHeight(rowBytes: Int) -> Int {
        let byBytes = Swift.max(8, options.maximumStripBytes / Swift.max(1, rowBytes))
        return Swift.max(1, Swift.min(options.stripHeight, byBytes))
    }

    package func validate() throws {
        guard options.threadCount >= 1 else {
            throw PixelFlowError.invalidParameter(
                filter: "RenderContext", key: "threadCount", reason: "must be at least 1, got \(options.threadCount)")
        }
        guard options.stripHeight >= 1 else {
            throw PixelFlowError.invalidParameter(
                filter: "RenderContext", key: "stripHeight", reason: "must be at least 1, got \(options.stripHeight)")
        }
        guard options.tileWidth >= 1, options.tileHeight >= 1 else {
            throw PixelFlowError.invalidParameter(
                filter: "RenderContext", key: "tileSize",
                reason: "must be at least 1x1, got \(options.tileWidth)x\(options.tileHeight)")
        }
    }

    /// Renders `rect` of the graph `root` (the color-managed graph of the render, see
    /// `_colorManagedRoot`) into `buffer` under `control`.
    package func render(_ root: Node, rect: IntRect, into buffer: inout PixelBuffer, control: RenderControl? = nil) throws {
        try RenderControl.with(control) { try renderControlled(root, rect: rect, into: &buffer) }
        if control?.isCancelled == true { throw PixelFlowError.cancelled }
    }

    private func renderControlled(_ root: Node, rect: IntRect, into buffer: inout PixelBuffer) throws {
        let control = RenderControl.current
        if control?.isCancelled == true { throw PixelFlowError.cancelled }
        let opts = options
        let plan = RenderPlan(root: root, rect: rect, options: opts)
        try plan.checkRegionSizes()
        let pipeline = plan.lower(into: buffer)
        // Random access: streamed sources are decoded whole before anything reads them.
        var windows: [ObjectIdentifier: RowWindow] = [:]
        func decodeStreamedSources() throws {
            for n in plan.order where plan.region(of: n) != nil {
                if case let .streamedSource(s) = n.op { windows[ObjectIdentifier(n)] = try s.decodeFully() }
            }
        }
        if case let .success(planned)? = pipeline.bytePath {
            var bytePlan: BytePlan? = planned
            if planned.source.isStreamed {
                // Planned without the rows: made again over the decoded windows (the same
                // decisions: a streamed source's alpha is never scanned).
                try decodeStreamedSources()
                let streamed = plan.streamedByteSources(windows: windows)
                bytePlan = try? BytePlan.make(root: plan.root, rect: rect, options: opts, buffer: buffer, streamed: streamed)
                    .get()
            }
            if let bytePlan {
                bytePlan.run(rect: rect, into: &buffer, options: opts)
                return
            }
        }
        let evaluator = Evaluator(linear: options.colorManagement == .linear, pipeline: pipeline)
        control?.setTotal(plan.totalWorkUnits)
        if windows.isEmpty { try decodeStreamedSources() }
        evaluator.windows = windows
        if pipeline.output.placement == .intoDestination {
            let stage = pipeline.output.node
            // The last stage is the output: computed in the destination, no tiles to copy it.
            let bpr = buffer.bytesPerRow
            try buffer.withUnsafeMutableBytes { raw in
                let px = raw.baseAddress!.assumingMemoryBound(to: SIMD4<Float>.self)
                try plan.computeStages(with: evaluator, output: (stage, Tile(base: px, stride: bpr / 16, rect: rect)))
            }
            control?.advance(plan.outputGrid().count)
            return
        }
        try plan.computeStages(with: evaluator)
        let target = TileTarget(buffer: buffer, linear: evaluator.linear)
        if target.direct {
            evaluator.nonTemporalRoot = plan.root
            if case let .source(b) = plan.root.op {
                evaluator.streamsSourceConversion = Self.streamsConversion(rect, from: b.format, to: buffer.format)
            }
        }
        let bpr = buffer.bytesPerRow
        buffer.withUnsafeMutableBytes { raw in
            renderTiles(
                plan.root, rect: rect, grid: plan.outputGrid(), evaluator: evaluator, target: target,
                into: SharedPixels(base: raw.baseAddress!, bytesPerRow: bpr), arenas: nil)
        }
    }

    /// How tiles are stored into a destination of some format.
    struct TileTarget {
        let format: PixelFormat
        /// sRGB-encode linear working values.
        let encode: Bool
        let unpremultiply: Bool
        /// Float RGBA with the working encoding: tiles are computed in place in the destination
        /// (for straight alpha, a color chain at the root leaves its result straight, and other
        /// roots are unpremultiplied in place).
        let direct: Bool

        init(format: PixelFormat, colorEncoding: ColorEncoding, alphaMode: AlphaMode, linear: Bool) {
            self.format = format
            encode = linear && colorEncoding == .sRGB
            unpremultiply = alphaMode == .straight && format.hasAlpha
            direct = format == .rgbaF32 && !encode && (colorEncoding == .linear || !linear)
        }

        init(buffer: PixelBuffer, linear: Bool) {
            self.init(format: buffer.format, colorEncoding: buffer.colorEncoding, alphaMode: buffer.alphaMode, linear: linear)
        }
    }

    /// A source rendered as it is into a buffer of another format, converted row by row in one
    /// pass, without the float tile; each kind does the float path's operations in its order,
    /// so the bytes are the same (SourceConversionTests).
    struct SourceConversion {
        enum Kind {
            /// 8-bit RGBA to gray8 (`pf_rgba8_to_gray8_row_run`), premultiplying straight alpha first.
            case gray(premultiply: Bool)
            /// Premultiplied float RGBA in the working encoding to premultiplied 8-bit RGBA
            /// (`pf_store_rgba8_row_run`).
            case quantize
        }
        let source: PixelBuffer
        let kind: Kind
    }

    /// The conversion that replaces the tiles when `root` is a source read without sRGB
    /// decoding and the target needs no encoding or unpremultiplying, else nil.
    static func sourceConversion(_ root: Node, target: TileTarget, linear: Bool) -> SourceConversion? {
        guard !target.encode, !target.unpremultiply, case let .source(b) = root.op,
            !(linear && b.colorEncoding == .sRGB)
        else { return nil }
        switch (b.format, target.format) {
        case (.rgba8, .gray8): return SourceConversion(source: b, kind: .gray(premultiply: b.alphaMode == .straight))
        case (.rgbaF32, .rgba8) where b.alphaMode == .premultiplied: return SourceConversion(source: b, kind: .quantize)
        default: return nil
        }
    }

    /// Renders that are one conversion of a source (8-bit to float or back) and move at least
    /// this many bytes, source read plus destination written, store their output with
    /// non-temporal stores: the destination's cache lines are then not read before being
    /// written, and at this size they would not stay cached for the next reader anyway. Below
    /// it, plain stores (the same values). 64 MiB: about 3.4 megapixels at 20 bytes a pixel;
    /// measured (Benchmarks/performance-notes.md, "Margins"), streaming gains at 3840x2160 and
    /// loses 1 to 3% at 1920x1080, whose 40 MiB the caches partly keep between renders.
    static let nonTemporalConversionBytes = 64 << 20

    /// Whether a conversion of a `from` source over `rect` into a `to` buffer stores
    /// non-temporally (`nonTemporalConversionBytes`).
    static func streamsConversion(_ rect: IntRect, from: PixelFormat, to: PixelFormat) -> Bool {
        rect.width * rect.height * (from.bytesPerPixel + to.bytesPerPixel) >= nonTemporalConversionBytes
    }

    /// Computes `root` over `rect` tile by tile on all workers into `dst`, whose first byte is
    /// pixel (rect.x, rect.y); each tile advances the current render's progress by one unit.
    func renderTiles(
        _ root: Node, rect: IntRect, grid: TileGrid? = nil, evaluator: Evaluator, target: TileTarget,
        into dst: SharedPixels, arenas: ArenaPool?
    ) {
        let control = RenderControl.current
        let grid = grid ?? TileGrid(rect: rect, tileWidth: options.tileWidth, tileHeight: options.tileHeight)
        let bpp = target.format.bytesPerPixel
        let conversion = Self.sourceConversion(root, target: target, linear: evaluator.linear)
        let streams = conversion.map { Self.streamsConversion(rect, from: $0.source.format, to: target.format) } ?? false
        let rootRect = IntRect(covering: root.extent)
        Scheduler.run(count: grid.count, threads: options.threadCount, arenas: arenas) { item, arena in
            let t = grid[item]
            let lx = t.x - rect.x, ly = t.y - rect.y
            if let c = conversion, rootRect.contains(t) {
                c.source.withUnsafeBytes { raw in
                    for y in 0..<t.height {
                        let s = raw.baseAddress! + (t.y + y) * c.source.bytesPerRow + t.x * c.source.format.bytesPerPixel
                        let d = (dst.base + (ly + y) * dst.bytesPerRow + lx * bpp).assumingMemoryBound(to: UInt8.self)
                        switch c.kind {
                        case let .gray(premultiply):
                            pf_rgba8_to_gray8_row_run(s.assumingMemoryBound(to: UInt8.self), d, t.width, premultiply ? 1 : 0)
                        case .quantize:
                            if streams {
                                pf_store_rgba8_row_stream_run(s.assumingMemoryBound(to: SIMD4<Float>.self), d, t.width)
                            } else {
                                pf_store_rgba8_row_run(s.assumingMemoryBound(to: SIMD4<Float>.self), d, t.width)
                            }
                        }
                    }
                }
                if streams { pf_store_fence() }
            } else if target.direct {
                let base = (dst.base + ly * dst.bytesPerRow + lx * bpp).assumingMemoryBound(to: SIMD4<Float>.self)
                precondition(dst.bytesPerRow % 16 == 0)
                let tile = Tile(base: base, stride: dst.bytesPerRow / 16, rect: t)
                let isStraight = evaluator.evaluate(root, into: tile, arena: arena, straight: target.unpremultiply)
                if target.unpremultiply && !isStraight {
                    for y in t.y..<t.maxY { unpremultiplyRow(tile.row(y), count: t.width) }
                }
            } else {
                let tile = arena.tile(t)
                let isStraight = evaluator.evaluate(root, into: tile, arena: arena, straight: target.unpremultiply)
                let scratch = arena.allocate(t.width, of: SIMD4<Float>.self)
                for y in 0..<t.height {
                    let row = tile.row(t.y + y)
                    if target.unpremultiply && !isStraight { unpremultiplyRow(row, count: t.width) }
                    storeRowRGBA(
                        row, count: t.width, format: target.format,
                        into: dst.base + (ly + y) * dst.bytesPerRow + lx * bpp,
                        encodeSRGB: target.encode, scratch: scratch)
                }
            }
            control?.advance(1)
        }
    }
}
