import CSIMD

/// The kernel forms that run on bytes (the byte path, `BytePlan`): an 8-bit source rendered
/// into an 8-bit destination of its format without converting a pixel to floats. Lowering
/// chooses one per render when the node below the output's crops declares it and the render
/// meets its conditions (`BytePlan.make`); `explain()` names it.
enum ByteForm: CustomStringConvertible {
    /// An exact order statistic (morphology, median): bit-identical to the float path.
    case stencil(ByteStencil)
    /// Separable resampling with fixed-point weights (bilinear scales, Lanczos-3): within 1
    /// unit of the float path on every pixel and channel.
    case resample(ByteResample)
    /// A color matrix or grayscale as an affine map of the bytes with fixed-point weights
    /// (ByteColor.swift): within 1 unit of the float path on every pixel and channel.
    case color(ByteColor)
    /// A warp sampled on bytes (ByteForms+Warp.swift): the 2x2 box of a half-size bilinear
    /// scale (within 1 unit) or an affine warp with fixed-point bilinear sampling (within 1 unit).
    case warp(ByteWarp)
    /// A 2-D convolution with fixed-point weights (ByteForms+Convolution.swift): within 1 unit
    /// of the float path on every pixel and channel.
    case convolution(ByteConvolution)
    /// An unsharp mask or luma sharpen with a 16-bit Gaussian and a fixed-point combine
    /// (ByteForms+Unsharp.swift): within 1 unit of the float path on every pixel and channel.
    case unsharp(ByteUnsharp)

    var description: String {
        switch self {
        case let .warp(w): return "\(w)"
        case let .stencil(s): return "\(s), exact"
        case let .resample(r): return "\(r), fixed-point taps"
        case let .color(c): return "\(c)"
        case let .convolution(c): return "\(c)"
        case let .unsharp(u): return "\(u)"
        }
    }
}

/// The taps of a byte resample for one render, both axes, in source coordinates.
struct ByteResampleTaps {
    let x: ByteAxisTaps, y: ByteAxisTaps

    /// The taps of `resample` for the outputs of `rect`, through the crops and clamps of `plan`
    /// (outputs outside `plan.valid` read nothing).
    init(_ resample: ByteResample, plan: BytePlan, rect: IntRect) {
        let valid = plan.valid
        let xs = plan.xSteps, ys = plan.ySteps
        x = ByteAxisTaps(
            outputs: rect.x..<rect.maxX,
            taps: resample.axisTaps(rect.x..<rect.maxX, horizontal: true) { o in valid.map { o >= $0.x && o < $0.maxX } ?? true },
            map: { BytePlan.map($0, xs) })
        y = ByteAxisTaps(
            outputs: rect.y..<rect.maxY,
            taps: resample.axisTaps(rect.y..<rect.maxY, horizontal: false) { o in valid.map { o >= $0.y && o < $0.maxY } ?? true
            },
            map: { BytePlan.map($0, ys) })
    }

    /// The source rect read, nil when none.
    var sourceRegion: IntRect? {
        guard let sx = x.span, let sy = y.span else { return nil }
        return IntRect(x: sx.lowerBound, y: sy.lowerBound, width: sx.count, height: sy.count)
    }
}

extension BytePlan {
    /// Output rows per band of a byte resample: the context's tile height, at most 32. Never
    /// changes the pixels.
    static func resampleBandHeight(_ options: RenderContext.Options) -> Int {
        Swift.max(1, Swift.min(options.tileHeight, 32))
    }

    /// Bands of `rows` output rows of at most `resampleBandHeight` rows, their count a multiple
    /// of the thread count when there are at least as many bands as threads, so that every
    /// worker gets as many (540 rows on 2 threads: 18 bands of 30 rows, not 17 of 32, one
    /// worker doing 9 while the other does 8). Never changes the pixels.
    static func balancedBands(rows: Int, _ options: RenderContext.Options) -> (height: Int, count: Int) {
        let most = resampleBandHeight(options)
        guard rows > 0 else { return (most, 0) }
        var count = (rows + most - 1) / most
        let threads = Swift.max(1, options.threadCount)
        if count >= threads { count = (count + threads - 1) / threads * threads }
        let height = (rows + count - 1) / count
        return (height, (rows + height - 1) / height)
    }

    /// Renders `rect` into `buffer` with the fixed-point taps `taps`: full-width bands of
    /// output rows on all threads; per output row, the vertical pass of the source rows it
    /// reads (over the source columns the row's outputs read) into a 16-bit row of arena
    /// scratch, then the horizontal pass into the destination. Vertical first: the horizontal
    /// pass, which costs the most per value, then runs on output rows only.
    ///
    /// - Complexity: per output row, (source columns read) x channels x vertical taps plus
    ///   width x channels x horizontal taps multiply-adds; scratch of one 16-bit row.
    func runResample(_ taps: ByteResampleTaps, rect: IntRect, into buffer: inout PixelBuffer, options: RenderContext.Options) {
        let control = RenderControl.current
        let band = BytePlan.resampleBandHeight(options)
        control?.setTotal((rect.height + band - 1) / band)
        let bpp = source.format.bytesPerPixel
        let width = rect.width
        let xt = taps.x, yt = taps.y
        // The source columns read; the x taps' starts are relative to the first of them.
        let columns = xt.span ?? 0...0
        let midCount = columns.count * bpp
        let blur = self.blur
        source.withRows { src in
            let dstBytesPerRow = buffer.bytesPerRow
            buffer.withUnsafeMutableBytes { raw in
                let dst = SharedPixels(base: raw.baseAddress!, bytesPerRow: dstBytesPerRow)
                xt.withPointers(firstColumn: columns.lowerBound) { xTable in
                    BytePlan.runBands(rect.height, band: band, threads: options.threadCount, control: control) { js, arena in
                        let mid = arena.allocate(Swift.max(1, midCount), of: Int16.self)
                        let rows = arena.allocate(Swift.max(1, yt.maxTaps), of: UnsafePointer<UInt8>?.self)
                        for j in js {
                            let out = (dst.base + j * dst.bytesPerRow).assumingMemoryBound(to: UInt8.self)
                            let count = Int(yt.counts[j])
                            guard count > 0, xt.span != nil else {
                                out.update(repeating: 0, count: width * bpp)
                                continue
                            }
                            let s = Int(yt.starts[j])
                            for k in 0..<count {
                                rows[k] = src.pixels(columns.lowerBound, s + k, bpp: bpp)
                            }
                            yt.weights.withUnsafeBufferPointer { w in
                                if let blur {
                                    blur.vertical(
                                        j, rows: rows, count: count, weights: w.baseAddress! + j * yt.maxTaps, n: midCount,
                                        into: mid)
                                } else {
                                    pf_u8_resample_v_to16_run(rows, w.baseAddress! + j * yt.maxTaps, count, midCount, mid)
                                }
                            }
                            if let blur {
                                blur.horizontal(mid, bpp: bpp, table: xTable, maxTaps: xt.maxTaps, into: out)
                            } else {
                                xTable.horizontal(mid, bpp: bpp, width: width, into: out)
                            }
                        }
                    }
                }
            }
        }
    }

    /// Runs `body` over bands of `band` rows of `0..<height` on `threads` threads: per band,
    /// `body` with the band's rows and the worker's arena, then one step of `control`.
    static func runBands(
        _ height: Int, band: Int, threads: Int, control: RenderControl?, _ body: @Sendable (Range<Int>, Arena) -> Void
    ) {
        Scheduler.run(count: (height + band - 1) / band, threads: threads) { b, arena in
            body(b * band..<Swift.min(height, (b + 1) * band), arena)
            control?.advance(1)
        }
    }
}

/// The x taps of a byte resample, read by every band at once.
///
/// `@unchecked Sendable` because it carries raw pointers: the arrays they point into are only
/// read during the render and outlive the `Scheduler.run` call (held by the
/// `withUnsafeBufferPointer` calls around it).
struct ByteTapPointers: @unchecked Sendable {
    let starts: UnsafePointer<Int32>
    let counts: UnsafePointer<Int32>
    let weights: UnsafePointer<Int16>
    /// Output `i`'s weights start at `weights + i * maxTaps`.
    let maxTaps: Int
    /// `ByteAxisTaps.pairsFrom`, relative to the first column of the 16-bit rows, or nil.
    let pairsFrom: Int?

    /// The horizontal pass of one output row of `width` pixels from `mid` (16-bit values of the
    /// source columns the starts are relative to) into `out`: the 2x box's pairs kernel when
    /// `pairsFrom` is set, else the resampling kernel with these taps.
    func horizontal(_ mid: UnsafePointer<Int16>, bpp: Int, width: Int, into out: UnsafeMutablePointer<UInt8>) {
        if let p = pairsFrom {
            pf_u8_resample_h_from16_pairs_run(mid + p * bpp, bpp, width, out)
        } else {
            pf_u8_resample_h_from16_run(mid, bpp, starts, counts, weights, maxTaps, width, out)
        }
    }
}

extension ByteAxisTaps {
    /// Calls `body` with pointers to these taps, the starts and `pairsFrom` made relative to
    /// source column `firstColumn` (the first value of the 16-bit rows the horizontal pass
    /// reads). The pointers are valid only inside `body`.
    func withPointers<R>(firstColumn: Int, _ body: (ByteTapPointers) -> R) -> R {
        let relative = starts.map { $0 - Int32(firstColumn) }
        return relative.withUnsafeBufferPointer { s in
            counts.withUnsafeBufferPointer { c in
                weights.withUnsafeBufferPointer { w in
                    body(
                        ByteTapPointers(
                            starts: s.baseAddress!, counts: c.baseAddress!, weights: w.baseAddress!, maxTaps: maxTaps,
                            pairsFrom: pairsFrom.map { $0 - firstColumn }))
                }
            }
        }
    }
}

extension BytePlan {
    /// The plan of a byte resample for rendering `rect` into `buffer`, with its taps, or why
    /// the float path must run (see `BytePlan.make`, which has checked the formats):
    /// - no sRGB decoding or encoding: in linear light the float path resamples linear values,
    ///   which a weighted sum of the encoded bytes does not give (that case stays in float);
    /// - premultiplication changes nothing: the source is tagged premultiplied or every alpha
    ///   byte the taps read is 255 (scanned), and the destination is tagged premultiplied or
    ///   every output alpha is 255 (an opaque source and no tap on a transparent pixel), so
    ///   the float path's unpremultiply has nothing to change either.
    ///
    /// - Complexity: O(outputs x taps) for the taps, plus the alpha scan of straight sources.
    func makeResample(
        _ resample: ByteResample, rect: IntRect, options: RenderContext.Options, buffer: PixelBuffer
    ) -> Result<BytePlan, Refusal> {
        if let refusal = linearLightRefusal("resampling", options: options, buffer: buffer) { return .failure(refusal) }
        if let warp = makeWarp(resample, rect: rect, options: options, buffer: buffer) { return warp }
        var plan = self
        let taps = ByteResampleTaps(resample, plan: self, rect: rect)
        plan.taps = taps
        if shrink != nil { return .success(plan.shrinking(into: buffer)) }
        if source.format.hasAlpha, source.alphaMode == .straight || buffer.alphaMode == .straight {
            let opaque = plan.sourceIsOpaque(for: rect)
            // Premultiplying or unpremultiplying would change the values: the 16-bit prepass.
            if source.alphaMode == .straight, !opaque { return .success(plan.shrinking(into: buffer)) }
            if buffer.alphaMode == .straight, !(opaque && !taps.x.dropsTaps && !taps.y.dropsTaps) {
                return .success(plan.shrinking(into: buffer))
            }
        }
        plan.exactBox = plan.exactBoxFactor(rect: rect)
        return .success(plan)
    }

    /// Why a weighted sum of the encoded bytes cannot run, when rendering into `buffer` decodes
    /// or encodes sRGB (color management `.linear` with an sRGB source or destination): the
    /// float path then weighs linear values. Nil when the bytes are the values the float path
    /// weighs. `action` names the operation in the message ("resampling", "convolving").
    func linearLightRefusal(_ action: String, options: RenderContext.Options, buffer: PixelBuffer) -> Refusal? {
        guard options.colorManagement == .linear, source.colorEncoding == .sRGB || buffer.colorEncoding == .sRGB else {
            return nil
        }
        return Refusal(
            "\(action) in linear light: the float path weighs linear values, not the sRGB-encoded bytes (stays in float)")
    }
}
