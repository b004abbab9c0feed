import CSIMD

/// The byte path: renders an 8-bit morphology or median filter of an 8-bit source straight
/// from bytes to bytes, with exact 8-bit kernels, when that gives the same bytes as the float
/// path would; or a resampling warp with fixed-point taps, within 1 unit of the float path
/// (`ByteForm`, ByteForms.swift, which also states the resampling forms' conditions). What
/// follows is about the stencil form.
///
/// The float path decodes every pixel to a `SIMD4<Float>` working value (premultiplied, linear
/// light unless color management is off), filters, and encodes back. For an order statistic
/// (a minimum, maximum or median per channel) that round trip can be skipped: if decoding is
/// strictly increasing per channel and encoding gives back every byte, then the order
/// statistic of the decoded values is the decoded order statistic of the bytes, and encoding
/// it returns that byte. `BytePlan` recognizes such renders and runs them tile by tile on the
/// `Scheduler`, reading the source in place (interior tiles) or through a small gathered copy
/// (tiles that reach the borders).
///
/// A render takes the byte path when all of these hold (otherwise the float path runs as
/// before, and `explain(_:rect:into:)` says why):
/// - the graph (after the optimizer) is a stencil with a `ByteStencil` (morphology maximum and
///   minimum, disc or rectangle; median of any radius), under any number of crops, over any
///   number of crops and `clampedToExtent()` clamps of one `rgba8` or `gray8` source;
/// - the destination buffer has the source's format;
/// - for every byte value, the float path's decode is strictly increasing and decodes 0 to 0
///   (the transparent pixels outside an extent), and its encode gives the byte back (checked
///   once per format and color-management setting by running the float path's own row
///   conversions on all 256 values, `ByteRoundTrip`); for medians of radius 3 and more, whose
///   float kernel quantizes to 256 levels, also that the quantized level of a decoded byte is
///   that byte, which holds only without sRGB decoding (color management off);
/// - premultiplication changes nothing: for `rgba8`, source and destination are both tagged
///   `.premultiplied`, or every alpha byte the render reads is 255 (scanned). With opaque
///   pixels and transparent black outside, an output whose alpha is 0 also has color 0 for
///   these filters (for the maximum, the whole window is outside; for the minimum and the
///   median, at least as many channel values are 0 as alpha values), so the float path's
///   unpremultiply has nothing to change;
/// - the context optimizes (`options.optimizes`) and allows it (`options.usesBytePath`).
///
/// The result is bit-identical to the float path's and, like it, independent of the thread
/// count and tile size (the kernels are exact). `Tests/PixelFlowTests/Execution/BytePlanTests.swift`
/// compares the two paths.
struct BytePlan {
    /// The kernel form to run on bytes (a stencil, or a resample: see ByteForms.swift).
    let form: ByteForm
    /// For a resample, its fixed-point taps for the render (made by `make`).
    var taps: ByteResampleTaps?
    /// For a resample, its 16-bit prepass (a box shrink, premultiplication), if it has one
    /// (ByteForms+Shrink.swift).
    var shrink: ByteShrink?
    /// For a box shrink of a whole source, its factor when it runs as exact byte means
    /// (`exactBoxFactor`, set by `make`).
    var exactBox: Int?
    /// For a separable blur, which rows and columns run the folded kernels (ByteForms+Blur.swift).
    var blur: ByteBlur?
    /// The stencil's halo (none for a resample, which reads through its taps).
    var halo: (x: Int, y: Int) {
        if case let .stencil(s) = form { return s.halo }
        if case let .convolution(c) = form { return c.halo }
        return (0, 0)
    }
    /// The node's name, for `explain()`.
    let name: String
    /// The 8-bit source, in memory or streamed.
    let source: ByteSource
    /// Output pixels outside this rect are transparent (the extents of the stencil and of the
    /// crops above it); nil when unbounded.
    let valid: IntRect?
    /// How a coordinate of the stencil's input maps to a source coordinate (nil: transparent),
    /// per axis, in order from the stencil's input down to the source.
    let xSteps: [AxisStep], ySteps: [AxisStep]

    /// One node between the stencil and the source, on one axis.
    enum AxisStep {
        /// Transparent outside `lower ..< upper` (a node's extent).
        case restrict(lower: Int, upper: Int)
        /// Clamped into `lower ... upper` (`clampedToExtent()`).
        case clamp(lower: Int, upper: Int)
    }

    /// The source coordinate that input coordinate `v` reads, or nil for transparent.
    static func map(_ v: Int, _ steps: [AxisStep]) -> Int? {
        var v = v
        for s in steps {
            switch s {
            case let .restrict(lo, hi): if v < lo || v >= hi { return nil }
            case let .clamp(lo, hi): v = Swift.min(Swift.max(v, lo), hi)
            }
        }
        return v
    }

    /// Whether the steps leave every coordinate of `range` unchanged.
    static func isIdentity(_ range: Range<Int>, _ steps: [AxisStep]) -> Bool {
        steps.allSatisfy { s in
            switch s {
            case let .restrict(lo, hi): return range.lowerBound >= lo && range.upperBound <= hi
            case let .clamp(lo, hi): return range.lowerBound >= lo && range.upperBound - 1 <= hi
            }
        }
    }

    /// Recognizes the graph shape the byte path runs (see the type's comment), or says why not.
    static func recognize(_ root: Node, streamed: [ObjectIdentifier: ByteSource] = [:]) -> Result<BytePlan, Refusal> {
        var valid: IntRect?
        func restrict(_ n: Node) {
            guard !n.extent.isInfinite else { return }
            let e = IntRect(covering: n.extent)
            valid = valid.map { $0.intersection(e) } ?? e
        }
        // Read from the node kinds' descriptions: crops are identity windows that are
        // transparent outside, clamps windows that repeat their edges.
        var n = root
        while n.op.kind.identityWindow(n) != nil, !n.op.kind.repeatsEdgesOutsideWindow { restrict(n); n = n.inputs[0] }
        let form: ByteForm
        var below = n.inputs.first
        if let match = n.op.kind.byteUnsharp(n) {
            switch ByteUnsharp.make(match.mask) {
            case let .success(u): form = .unsharp(u)
            case let .failure(r): return .failure(r)
            }
            below = match.input
            if let w = match.window {
                let e = IntRect(covering: w)
                valid = valid.map { $0.intersection(e) } ?? e
            }
        } else if let stencil = n.op.kind.byteForm, n.inputs.count == 1 {
            form = .stencil(stencil)
        } else if let resample = n.op.kind.byteResample(n), n.inputs.count == 1 {
            form = .resample(resample)
        } else if let convolution = ByteConvolution(n) {
            form = .convolution(convolution)
        } else {
            return .failure(
                Refusal(
                    "the output is not a morphology or median stencil, a convolution, a Gaussian or box blur, an unsharp mask or a scale or Lanczos warp with an 8-bit form"
                ))
        }
        restrict(n)
        if case .resample = form, let shrunk = recognizeShrunk(n, form: form, valid: valid, streamed: streamed) {
            return .success(shrunk)
        }
        var xs: [AxisStep] = [], ys: [AxisStep] = []
        guard var m = below else { return .failure(Refusal("the \(n.op.kindName) has no input")) }
        while true {
            if !m.extent.isInfinite {
                let e = IntRect(covering: m.extent)
                xs.append(.restrict(lower: e.x, upper: e.maxX))
                ys.append(.restrict(lower: e.y, upper: e.maxY))
            }
            let kind = m.op.kind
            if let window = kind.identityWindow(m), !(kind.repeatsEdgesOutsideWindow && window.isEmpty) {
                if kind.repeatsEdgesOutsideWindow {
                    xs.append(.clamp(lower: window.x, upper: window.maxX - 1))
                    ys.append(.clamp(lower: window.y, upper: window.maxY - 1))
                }
                m = m.inputs[0]
                continue
            }
            if let source = ByteSource.of(m, streamed: streamed) {
                return .success(BytePlan(form: form, name: n.op.label, source: source, valid: valid, xSteps: xs, ySteps: ys))
            }
            return .failure(
                Refusal(
                    "the \(n.op.kindName)'s input is not an rgba8 or gray8 source under crops and clamps (found \(m.op.kindName))"
                ))
        }
    }

    /// Why a render does not take the byte path.
    struct Refusal: Error, CustomStringConvertible {
        let description: String
        init(_ d: String) { description = d }
    }

    /// The plan for rendering `rect` of `root` into `buffer` with `options`, or why the float
    /// path must run. Scans the source's alpha when that is one of the conditions.
    ///
    /// Streamed sources are read through `windows` (a strip write's, see
    /// `RenderContext.writeInStrips`): their alpha is not scanned (it is not decoded yet), so
    /// a streamed source counts as opaque only when its file has no alpha.
    ///
    /// - Complexity: O(nodes) plus, for straight-alpha `rgba8`, a pass over the source pixels
    ///   the render reads (about 16 bytes per operation).
    static func make(
        root: Node, rect: IntRect, options: RenderContext.Options,
        buffer: PixelBuffer, streamed: [ObjectIdentifier: ByteSource] = [:]
    ) -> Result<BytePlan, Refusal> {
        guard options.usesBytePath else { return .failure(Refusal("off in the context's options (usesBytePath)")) }
        guard options.optimizes else { return .failure(Refusal("optimization is off")) }
        if let color = makeColor(root: root, rect: rect, options: options, buffer: buffer, streamed: streamed) { return color }
        var plan: BytePlan
        switch recognize(root, streamed: streamed) {
        case let .success(p): plan = p
        case let .failure(r): return .failure(r)
        }
        let src = plan.source
        guard buffer.format == src.format else {
            return .failure(Refusal("the destination is \(buffer.format), the source \(src.format)"))
        }
        if case let .convolution(convolution) = plan.form {
            return plan.makeConvolution(convolution, rect: rect, options: options, buffer: buffer)
        }
        if case let .unsharp(unsharp) = plan.form {
            return plan.makeUnsharp(unsharp, rect: rect, options: options, buffer: buffer)
        }
        let linear = options.colorManagement == .linear
        let decode = linear && src.colorEncoding == .sRGB, encode = linear && buffer.colorEncoding == .sRGB
        let key = ByteRoundTrip.Key(format: src.format, decode: decode, encode: encode)
        guard ByteRoundTrip.isExact(key) else {
            return .failure(
                Refusal(
                    "decoding and encoding do not round-trip every byte (\(decode ? "sRGB" : "no") decode, \(encode ? "sRGB" : "no") encode)"
                ))
        }
        if case let .resample(resample) = plan.form {
            return plan.makeResample(resample, rect: rect, options: options, buffer: buffer).flatMap { $0.makeBlur(resample) }
        }
        if case let .stencil(.median(r)) = plan.form, r >= 3, !ByteRoundTrip.quantizesExactly(key) {
            return .failure(
                Refusal(
                    "the float median of radius \(r) works on 256 quantized levels of the working values, which differ from the bytes (color management on)"
                ))
        }
        if src.format.hasAlpha, !(src.alphaMode == .premultiplied && buffer.alphaMode == .premultiplied),
            !plan.sourceIsOpaque(for: rect)
        {
            return .failure(Refusal("straight alpha with pixels that are not opaque: premultiplying would change the values"))
        }
        return .success(plan)
    }

    /// The source rect (per axis, the range of source coordinates) that the render of `rect`
    /// reads, or nil when it reads no source pixel.
    func sourceRegion(for rect: IntRect) -> IntRect? {
        let out = valid.map { rect.intersection($0) } ?? rect
        if out.isEmpty { return nil }
        if let taps { return taps.sourceRegion }
        let h = halo
        func span(_ range: Range<Int>, _ steps: [AxisStep]) -> ClosedRange<Int>? {
            var lo = Int.max, hi = Int.min
            for v in range { if let s = BytePlan.map(v, steps) { lo = Swift.min(lo, s); hi = Swift.max(hi, s) } }
            return lo <= hi ? lo...hi : nil
        }
        guard let xs = span(out.x - h.x..<out.maxX + h.x, xSteps), let ys = span(out.y - h.y..<out.maxY + h.y, ySteps) else {
            return nil
        }
        return IntRect(x: xs.lowerBound, y: ys.lowerBound, width: xs.count, height: ys.count)
    }

    /// Whether every alpha byte that a render of `rect` reads is 255.
    func sourceIsOpaque(for rect: IntRect) -> Bool {
        guard let r = sourceRegion(for: rect) else { return true }
        return sourceIsOpaque(in: r)
    }

    /// Whether every alpha byte of the source in `r` (inside it) is 255.
    func sourceIsOpaque(in r: IntRect) -> Bool {
        guard source.format.hasAlpha, !r.isEmpty, !source.isKnownOpaque else { return true }
        // A streamed source's rows are not decoded when the plan is made.
        guard !source.isStreamed else { return false }
        return source.withRows { src in
            for y in r.y..<r.maxY where pf_rgba8_all_opaque(src.pixels(r.x, y, bpp: 4), r.width) == 0 { return false }
            return true
        }
    }

    /// The tile size used: the context's, grown so that a tile's halo costs at most half its
    /// area again for large windows (a 401 x 401 window on 256 x 64 tiles would read 16 times
    /// the output). Tiles never change the pixels.
    func tileSize(_ options: RenderContext.Options) -> (width: Int, height: Int) {
        let h = halo
        return (Swift.max(options.tileWidth, 4 * h.x), Swift.max(options.tileHeight, 4 * h.y))
    }

    /// Renders `rect` into `buffer` (of the source's format, `rect`'s size), tiles on all
    /// threads. Reports one progress unit per tile; stops taking tiles once cancelled.
    func run(rect: IntRect, into buffer: inout PixelBuffer, options: RenderContext.Options) {
        if case let .color(color) = form {
            runColor(color, rect: rect, into: &buffer, options: options)
            return
        }
        if case let .warp(warp) = form {
            runWarp(warp, rect: rect, into: &buffer, options: options)
            return
        }
        if case let .convolution(convolution) = form {
            runConvolution(convolution, rect: rect, into: &buffer, options: options)
            return
        }
        if case let .unsharp(unsharp) = form {
            runUnsharp(unsharp, rect: rect, into: &buffer, options: options)
            return
        }
        guard case let .stencil(stencil) = form else {
            if let shrink {
                runShrunkResample(taps!, shrink: shrink, rect: rect, into: &buffer, options: options)
                return
            }
            if let k = exactBox {
                runBoxBytes(k, rect: rect, into: &buffer, options: options)
                return
            }
            runResample(taps!, rect: rect, into: &buffer, options: options)
            return
        }
        runTiles(rect: rect, into: &buffer, options: options) { input, output, stride, width, height, bpp, arena in
            byteStencilTile(
                stencil, input: input, output: output, outputStride: stride, width: width, height: height,
                bpp: bpp, arena: arena)
        }
    }

    /// The tile loop of the windowed forms (stencils, convolutions): renders `rect` into
    /// `buffer` in tiles of `tileSize` on all threads, transparent outside `valid`; per tile,
    /// `kernel` gets the input rows over the tile's valid part outset by `halo` (one pointer per
    /// row, at the window's left end: `inputRows`), the output at its top left, the output's
    /// row stride in bytes, the part's width and height, the bytes per pixel and the worker's
    /// arena. Reports one progress unit per tile; stops taking tiles once cancelled.
    func runTiles(
        rect: IntRect, into buffer: inout PixelBuffer, options: RenderContext.Options,
        kernel:
            @escaping @Sendable (
                _ input: UnsafePointer<UnsafePointer<UInt8>?>, _ output: UnsafeMutablePointer<UInt8>, _ outputStride: Int,
                _ width: Int, _ height: Int, _ bpp: Int, _ arena: Arena
            ) -> Void
    ) {
        let control = RenderControl.current
        let size = tileSize(options)
        let grid = TileGrid(rect: rect, tileWidth: size.width, tileHeight: size.height)
        control?.setTotal(grid.count)
        let bpp = source.format.bytesPerPixel
        let halo = self.halo
        let plan = self
        source.withRows { src in
            let dstBytesPerRow = buffer.bytesPerRow
            buffer.withUnsafeMutableBytes { raw in
                let dst = SharedPixels(base: raw.baseAddress!, bytesPerRow: dstBytesPerRow)
                Scheduler.run(count: grid.count, threads: options.threadCount) { i, arena in
                    let t = grid[i]
                    let inner = plan.valid.map { t.intersection($0) } ?? t
                    func out(_ x: Int, _ y: Int) -> UnsafeMutablePointer<UInt8> {
                        (dst.base + (y - rect.y) * dst.bytesPerRow + (x - rect.x) * bpp).assumingMemoryBound(to: UInt8.self)
                    }
                    // Transparent outside the valid rect.
                    for y in t.y..<t.maxY {
                        if inner.isEmpty || y < inner.y || y >= inner.maxY {
                            out(t.x, y).update(repeating: 0, count: t.width * bpp)
                        } else {
                            out(t.x, y).update(repeating: 0, count: (inner.x - t.x) * bpp)
                            out(inner.maxX, y).update(repeating: 0, count: (t.maxX - inner.maxX) * bpp)
                        }
                    }
                    if !inner.isEmpty {
                        let roi = inner.outset(halo.x, halo.y)
                        let input = plan.inputRows(roi, src, bpp: bpp, arena: arena)
                        kernel(input, out(inner.x, inner.y), dst.bytesPerRow, inner.width, inner.height, bpp, arena)
                    }
                    control?.advance(1)
                }
            }
        }
    }

    /// The stencil's input over `roi` as one pointer per row (at column `roi.x`). When the
    /// crops and clamps leave the columns of `roi` unchanged, rows point into the source (a
    /// clamped row repeats a pointer, a transparent row points at zeros): no copy. Otherwise
    /// (tiles at the left and right borders) each row is gathered into arena scratch, by runs
    /// of consecutive source columns found once per tile.
    private func inputRows(_ roi: IntRect, _ src: SharedSourceBytes, bpp: Int, arena: Arena) -> UnsafePointer<
        UnsafePointer<UInt8>?
    > {
        let rows = arena.allocate(roi.height, of: UnsafePointer<UInt8>?.self)
        let length = roi.width * bpp
        var zeros: UnsafePointer<UInt8>?
        func zeroRow() -> UnsafePointer<UInt8> {
            if let zeros { return zeros }
            let z = arena.allocate(length, of: UInt8.self)
            z.update(repeating: 0, count: length)
            zeros = UnsafePointer(z)
            return UnsafePointer(z)
        }
        func sourceRow(_ sy: Int) -> UnsafePointer<UInt8> { src.pixels(0, sy, bpp: bpp) }
        if BytePlan.isIdentity(roi.x..<roi.maxX, xSteps), roi.x >= 0, roi.maxX <= src.width {
            for j in 0..<roi.height {
                rows[j] = BytePlan.map(roi.y + j, ySteps).map { sourceRow($0) + roi.x * bpp } ?? zeroRow()
            }
            return UnsafePointer(rows)
        }
        // Runs (destination column, source column or -1 for transparent, length).
        func column(_ i: Int) -> Int { BytePlan.map(roi.x + i, xSteps) ?? -1 }
        var runs: [(at: Int, from: Int, count: Int)] = []
        var i = 0
        while i < roi.width {
            let sx = column(i)
            var k = 1
            while i + k < roi.width {
                let next = column(i + k)
                if sx < 0 ? next >= 0 : next != sx + k { break }
                k += 1
            }
            runs.append((i, sx, k))
            i += k
        }
        let copy = arena.allocate(length * roi.height, of: UInt8.self)
        for j in 0..<roi.height {
            guard let sy = BytePlan.map(roi.y + j, ySteps) else { rows[j] = zeroRow(); continue }
            let s = sourceRow(sy), d = copy + j * length
            for r in runs {
                if r.from < 0 {
                    (d + r.at * bpp).update(repeating: 0, count: r.count * bpp)
                } else {
                    (d + r.at * bpp).update(from: s + r.from * bpp, count: r.count * bpp)
                }
            }
            rows[j] = UnsafePointer(d)
        }
        return UnsafePointer(rows)
    }

    /// One line for `explain()`.
    var summary: String {
        "\(source.format) \(name) (\(exactBox.map { "box shrink 1/\($0), exact means" } ?? "\(form)")\(shrink.map { ", \($0)" } ?? "")\(blur.map { ", \($0)" } ?? "")) from a \(source.width)x\(source.height) \(source.format) \(source.alphaMode) source"
    }
}

/// The bytes of a source buffer, read by many tiles at once: `height` rows, or the ring of a
/// streamed source's window (`ring` rows, row `y` in slot `y % ring`).
///
/// `@unchecked Sendable` because it carries a raw pointer: the buffer is only read during the
/// render, and its storage outlives the `Scheduler.run` call (it is held by the render's
/// `withUnsafeBytes`, or by the window).
package struct SharedSourceBytes: @unchecked Sendable {
    package let base: UnsafeRawPointer
    package let bytesPerRow: Int
    package let width: Int, height: Int
    /// Rows held: `height` for a buffer, the window's capacity for a streamed source.
    package let ring: Int
    package init(base: UnsafeRawPointer, bytesPerRow: Int, width: Int, height: Int, ring: Int? = nil) {
        self.base = base
        self.bytesPerRow = bytesPerRow
        self.width = width
        self.height = height
        self.ring = Swift.max(1, ring ?? height)
    }

    /// The first byte of row `y` (0 <= y < height; in a window, one of the rows it holds).
    @inline(__always) package func row(_ y: Int) -> UnsafeRawPointer {
        base + (ring >= height ? y : y % ring) * bytesPerRow
    }

    /// The bytes of row `y` from column `x`, `bpp` bytes a pixel.
    @inline(__always) func pixels(_ x: Int, _ y: Int, bpp: Int) -> UnsafePointer<UInt8> {
        (row(y) + x * bpp).assumingMemoryBound(to: UInt8.self)
    }
}

/// Whether the float path's per-channel conversions of 8-bit values round-trip exactly: found
/// once per setting by running `loadRowRGBA`, `storeRowRGBA` and `quantizeLevelsRow` on all
/// 256 values, so the byte path follows whatever those conversions do.
enum ByteRoundTrip {
    struct Key: Hashable, Sendable {
        var format: PixelFormat
        var decode: Bool
        var encode: Bool
    }

    /// Decoding is strictly increasing per channel, decodes 0 to 0, and encoding gives every
    /// byte back.
    static func isExact(_ key: Key) -> Bool { results[key]?.exact ?? false }

    /// Also, quantizing the decoded value to 256 levels (the float median's histogram) gives the
    /// byte, and the level stored as `level / 255` encodes to it.
    static func quantizesExactly(_ key: Key) -> Bool { results[key]?.quantized ?? false }

    private static let results: [Key: (exact: Bool, quantized: Bool)] = {
        var r: [Key: (exact: Bool, quantized: Bool)] = [:]
        for format in [PixelFormat.rgba8, .gray8] {
            for decode in [false, true] {
                for encode in [false, true] {
                    r[Key(format: format, decode: decode, encode: encode)] = check(format, decode: decode, encode: encode)
                }
            }
        }
        return r
    }()

    private static func check(_ format: PixelFormat, decode: Bool, encode: Bool) -> (exact: Bool, quantized: Bool) {
        let bpp = format.bytesPerPixel
        let channels = format == .gray8 ? 3 : 4  // gray loads as (g, g, g, 1)
        var bytes = [UInt8](repeating: 0, count: 256 * bpp)
        for v in 0..<256 { for c in 0..<bpp { bytes[v * bpp + c] = UInt8(v) } }
        var values = [SIMD4<Float>](repeating: .zero, count: 256)
        var back = [UInt8](repeating: 0, count: 256 * bpp)
        var scratch = [SIMD4<Float>](repeating: .zero, count: 256)
        var levels = [SIMD4<UInt8>](repeating: .zero, count: 256)
        bytes.withUnsafeBytes { loadRowRGBA($0.baseAddress!, format: format, count: 256, into: &values, decodeSRGB: decode) }
        values.withUnsafeBufferPointer { v in
            back.withUnsafeMutableBytes {
                storeRowRGBA(
                    v.baseAddress!, count: 256, format: format, into: $0.baseAddress!,
                    encodeSRGB: encode, scratch: &scratch)
            }
        }
        var exact = back == bytes
        for c in 0..<channels {
            if values[0][c] != 0 || values[0][c].sign == .minus { exact = false }
            for v in 1..<256 where !(values[v][c] > values[v - 1][c]) { exact = false }
        }
        guard exact else { return (false, false) }
        quantizeLevelsRow(values, count: 256, into: &levels)
        var quantized = true
        for v in 0..<256 { for c in 0..<channels where levels[v][c] != UInt8(v) { quantized = false } }
        let stored = (0..<256).map { SIMD4<Float>(repeating: Float($0)) * (1 / 255) }
        stored.withUnsafeBufferPointer { v in
            back.withUnsafeMutableBytes {
                storeRowRGBA(
                    v.baseAddress!, count: 256, format: format, into: $0.baseAddress!,
                    encodeSRGB: encode, scratch: &scratch)
            }
        }
        if back != bytes { quantized = false }
        return (true, quantized)
    }
}
