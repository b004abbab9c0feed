import CSIMD

/// Interprets a `Pipeline`: computes any rect of a node into a tile, pulling the regions of
/// interest of its inputs as the node's `Step` says (in place, converted rows, computed into
/// arena scratch, a stage's buffer). Every decision was taken by lowering: the tile loop
/// walks no graph and allocates nothing but arena memory. Chains of color nodes run fused:
/// each row chunk goes through every kernel while it is in the L1 cache.
///
/// `@unchecked Sendable`: after `init` the evaluator is read-only (its stage buffers
/// are written before any tile runs and only read afterwards).
final class Evaluator: @unchecked Sendable {
    /// Whether the working space is linear light (color management on).
    let linear: Bool
    /// The stage buffers computed so far, by node identity.
    var stageBuffers: [ObjectIdentifier: StageBuffer] = [:]
    /// Pixels processed per step of a fused chain.
    static let chunk = 256
    /// The node whose tiles are written straight into the destination buffer, if any: its
    /// output is not read again during the render, so it may be stored non-temporally.
    var nonTemporalRoot: Node?
    /// Whether a source at `nonTemporalRoot` (the render is a plain conversion) is stored
    /// non-temporally too: set for renders that move `RenderContext.nonTemporalConversionBytes`
    /// or more (`RenderContext.streamsConversion`).
    var streamsSourceConversion = false
    /// The rows of each streamed source of the render, by node identity. Bound before any tile
    /// that reads the source runs; a strip write moves the windows between strips.
    var windows: [ObjectIdentifier: RowWindow] = [:]

    /// The pipeline's steps, by node identity.
    let steps: [ObjectIdentifier: Step]

    init(linear: Bool, pipeline: Pipeline) {
        self.linear = linear
        steps = pipeline.steps
    }

    /// The step of `node` (lowering makes one for every node of the graph).
    @inline(__always)
    func step(_ node: Node) -> Step { steps[ObjectIdentifier(node)]! }

    /// Fills `out` with `node`'s pixels over `out.rect`, premultiplied.
    func evaluate(_ node: Node, into out: Tile, arena: Arena) {
        evaluate(node, into: out, arena: arena, straight: false)
    }

    /// Fills `out` with `node`'s pixels; with `straight`, a color chain at the top leaves its
    /// result unpremultiplied (saving a premultiply and the divide that would undo it), and the
    /// caller must treat the tile as straight when this returns true.
    @discardableResult
    func evaluate(_ node: Node, into out: Tile, arena: Arena, straight: Bool) -> Bool {
        let valid = node.extent.isInfinite ? out.rect : out.rect.intersection(IntRect(covering: node.extent))
        if valid.isEmpty { out.clear(); return straight }
        if valid != out.rect { out.clear(outside: valid) }
        let inner = valid != out.rect ? out.view(valid) : out
        if straight, stageBuffers[ObjectIdentifier(node)] == nil {
            switch node.op {
            case .color, .colorMatrix:
                evaluateColorChain(node, into: inner, arena: arena, premultiplyResult: false)
                return true
            default: break
            }
        }
        evaluateValid(node, into: inner, arena: arena)
        return false
    }

    /// Like `evaluate`, for a rect inside the node's extent.
    private func evaluateValid(_ node: Node, into out: Tile, arena: Arena) {
        if let m = stageBuffers[ObjectIdentifier(node)] {
            m.copy(into: out)
            return
        }
        switch node.op {
        case let .source(buffer):
            loadSource(buffer, into: out, nonTemporal: streamsSourceConversion && node === nonTemporalRoot)
        case .streamedSource:
            guard let window = windows[ObjectIdentifier(node)] else {
                assertionFailure("streamed source evaluated without a window")
                out.clear()
                return
            }
            for y in out.rect.y..<out.rect.maxY {
                loadWindowRow(window, x: out.rect.x, y: y, count: out.rect.width, into: out.row(y), premultiply: true)
            }
        case let .generator(g):
            for y in out.rect.y..<out.rect.maxY { g.fill(out.rect.x, y, out.rect.width, out.row(y), linear) }
        case .color, .colorMatrix:
            evaluateColorChain(node, into: out, arena: arena)
        case let .blend(k):
            let step = step(node)
            if let blend = k.builtin, blendInPlace(blend, step, into: out) { return }
            if let bg = step.plainSources[1], let fg = step.plainSources[0],
                IntRect(covering: node.inputs[1].extent).contains(out.rect),
                IntRect(covering: node.inputs[0].extent).contains(out.rect)
            {
                blendRows(k, background: bg, foreground: fg, nonTemporal: node === nonTemporalRoot, into: out, arena: arena)
                return
            }
            evaluate(node.inputs[1], into: out, arena: arena)
            let fg = arena.tile(out.rect)
            evaluate(node.inputs[0], into: fg, arena: arena)
            for y in out.rect.y..<out.rect.maxY { k.apply(fg.row(y), out.row(y), out.rect.width) }
        case .crop:
            evaluate(node.inputs[0], into: out, arena: arena)
        case let .warp(w):
            evaluateWarp(w, node, into: out, arena: arena)
        case let .stencil(s):
            evaluateStencil(s, step(node), into: out, arena: arena)
        case .reduction:
            // The planner always computes reductions in advance; nothing reaches here.
            assertionFailure("reduction evaluated per tile")
            out.clear()
        }
    }

    // MARK: Sources

    private func loadSource(_ buffer: PixelBuffer, into out: Tile, nonTemporal: Bool) {
        if nonTemporal, buffer.format == .rgba8, !(linear && buffer.colorEncoding == .sRGB),
            buffer.alphaMode == .premultiplied
        {
            // The whole render is this conversion: stores that skip the cache, with the same
            // values as loadRowRGBA's.
            buffer.withUnsafeBytes { raw in
                for y in out.rect.y..<out.rect.maxY {
                    let src = raw.baseAddress! + y * buffer.bytesPerRow + out.rect.x * 4
                    pf_load_rgba8_row_stream_run(src.assumingMemoryBound(to: UInt8.self), out.row(y), out.rect.width)
                }
            }
            pf_store_fence()
            return
        }
        for y in out.rect.y..<out.rect.maxY {
            loadSourceRow(buffer, x: out.rect.x, y: y, count: out.rect.width, into: out.row(y), premultiply: true)
        }
    }

    /// Loads `count` pixels of row `y` of a source buffer into working values.
    @inline(__always)
    private func loadSourceRow(
        _ buffer: PixelBuffer, x: Int, y: Int, count: Int,
        into dst: UnsafeMutablePointer<SIMD4<Float>>, premultiply: Bool
    ) {
        let decode = linear && buffer.colorEncoding == .sRGB
        buffer.withUnsafeBytes { raw in
            let src = raw.baseAddress! + y * buffer.bytesPerRow + x * buffer.format.bytesPerPixel
            loadRowRGBA(src, format: buffer.format, count: count, into: dst, decodeSRGB: decode)
        }
        if premultiply && buffer.alphaMode == .straight && buffer.format.hasAlpha { premultiplyRow(dst, count: count) }
    }

    /// Loads `count` pixels of row `y` of a streamed source; the same conversion as
    /// `loadSourceRow` for the buffer a full decode would give (sRGB-encoded with straight
    /// alpha, or linear premultiplied floats for a converted color profile).
    @inline(__always)
    private func loadWindowRow(
        _ window: RowWindow, x: Int, y: Int, count: Int,
        into dst: UnsafeMutablePointer<SIMD4<Float>>, premultiply: Bool
    ) {
        loadRowRGBA(
            window.row(y) + x * window.format.bytesPerPixel, format: window.format, count: count,
            into: dst, decodeSRGB: linear && window.colorEncoding == .sRGB)
        // Decoded JPEG rows are opaque (alpha 255 loads as exactly 1): premultiplying would
        // multiply by 1, so it is skipped.
        if premultiply && window.isStraight && window.format.hasAlpha && !window.isOpaque {
            premultiplyRow(dst, count: count)
        }
    }

    /// A source a color chain reads chunk by chunk.
    private enum FusedSource {
        case buffer(PixelBuffer)
        case window(RowWindow)

        var isStraight: Bool {
            switch self {
            case let .buffer(b): return b.alphaMode == .straight || !b.format.hasAlpha
            case let .window(w): return w.isStraight || !w.format.hasAlpha
            }
        }

        /// Whether straight pixels may keep a color under alpha 0 (or below): pixels that are
        /// transparent black by definition (premultiplied, they are zero), so a chain must zero
        /// them before its kernels see them; a kernel that raises alpha would show the color.
        var mayHideColor: Bool {
            switch self {
            case let .buffer(b): return b.alphaMode == .straight && b.format.hasAlpha
            case let .window(w): return w.format.hasAlpha && !w.isOpaque
            }
        }
    }

    @inline(__always)
    private func loadFusedRow(
        _ source: FusedSource, x: Int, y: Int, count: Int,
        into dst: UnsafeMutablePointer<SIMD4<Float>>, premultiply: Bool
    ) {
        switch source {
        case let .buffer(b): loadSourceRow(b, x: x, y: y, count: count, into: dst, premultiply: premultiply)
        case let .window(w): loadWindowRow(w, x: x, y: y, count: count, into: dst, premultiply: premultiply)
        }
    }

    // MARK: Blends

    /// A blend of two sources, chunk by chunk: both chunks are loaded into the L1 cache,
    /// combined, and (for the root of a render into its destination) stored non-temporally,
    /// so the blend reads each input and writes its output once. The same loads and kernel
    /// as the tile-by-tile path, so the same pixels.
    private func blendRows(
        _ k: BlendKernel, background: PixelBuffer, foreground: PixelBuffer, nonTemporal: Bool,
        into out: Tile, arena: Arena
    ) {
        let fg = arena.allocate(Evaluator.chunk, of: SIMD4<Float>.self)
        forEachChunk(of: out, nonTemporal: nonTemporal, arena: arena) { d, x, y, c in
            loadSourceRow(background, x: out.rect.x + x, y: y, count: c, into: d, premultiply: true)
            loadSourceRow(foreground, x: out.rect.x + x, y: y, count: c, into: fg, premultiply: true)
            k.apply(UnsafePointer(fg), d, c)
        }
    }

    /// A built-in blend whose two inputs already hold the tile's pixels where they are
    /// (`withPixelsInPlace`: premultiplied float sources, stage buffers): the
    /// kernel reads their rows and writes the output row, with no copies, non-temporally at
    /// the root of a render. False, having done nothing, when an input must be computed.
    private func blendInPlace(_ blend: BuiltinBlend, _ step: Step, into out: Tile) -> Bool {
        let nonTemporal = step.node === nonTemporalRoot
        return withPixelsInPlace(step.stored[1], out.rect) { bg in
            guard let bg else { return false }
            return withPixelsInPlace(step.stored[0], out.rect) { fg in
                guard let fg else { return false }
                for y in out.rect.y..<out.rect.maxY {
                    blend.apply(fg.row(y), bg.row(y), into: out.row(y), count: out.rect.width, nonTemporal: nonTemporal)
                }
                if nonTemporal { pf_store_fence() }
                return true
            }
        }
    }

    /// Calls `body(chunk, x, y, count)` over `out` row by row, in chunks of at most
    /// `Evaluator.chunk` pixels starting at tile column `x`. With `nonTemporal`, `chunk` is a
    /// scratch chunk that stays in L1 and is then stored into the row non-temporally (fenced at
    /// the end), so the destination's cache lines are never fetched; else it is the row itself.
    @inline(__always)
    private func forEachChunk(
        of out: Tile, nonTemporal: Bool, arena: Arena,
        _ body: (_ chunk: UnsafeMutablePointer<SIMD4<Float>>, _ x: Int, _ y: Int, _ count: Int) -> Void
    ) {
        let w = out.rect.width
        let scratch: UnsafeMutablePointer<SIMD4<Float>>? = nonTemporal ? arena.allocate(Evaluator.chunk) : nil
        for y in out.rect.y..<out.rect.maxY {
            let row = out.row(y)
            var x = 0
            while x < w {
                let c = Swift.min(Evaluator.chunk, w - x)
                body(scratch ?? row + x, x, y, c)
                if let s = scratch { pf_stream_copy4(row + x, s, c) }
                x += c
            }
        }
        if nonTemporal { pf_store_fence() }
    }

    // MARK: Color chains

    private func evaluateColorChain(_ node: Node, into out: Tile, arena: Arena, premultiplyResult: Bool = true) {
        let chain = step(node).chain!
        let ops = chain.ops, n = chain.input
        // A chain over a source reads the source chunk by chunk, so each chunk goes from
        // memory through every kernel while it is in the L1 cache; a straight-alpha source
        // skips the premultiply/unpremultiply round trip.
        var fusedSource: FusedSource?
        if let ref = chain.fusedSource, IntRect(covering: n.extent).contains(out.rect) {
            switch ref {
            case let .buffer(b): fusedSource = .buffer(b)
            case let .window(id): if let w = windows[id] { fusedSource = .window(w) }
            }
        }
        if fusedSource == nil { evaluate(n, into: out, arena: arena) }
        let sourceIsStraight = fusedSource?.isStraight ?? false
        // Colors a straight source stores under alpha 0 are zeroed first when the chain could
        // make them show (most chains keep alpha 0 at 0, and premultiplying then hides them).
        let zeroesHidden = sourceIsStraight && fusedSource?.mayHideColor == true && chain.mayRaiseZeroAlpha
        // A single alpha-preserving matrix with no alpha column runs on premultiplied values
        // directly: (M u + b) * a = M c + b * a, so the bias becomes the alpha column and the
        // unpremultiply (a divide) and premultiply disappear.
        // It runs as a one-step point program (channel by channel, 32-byte loads and stores);
        // float sources already in the working representation are read in place and, at the
        // root, stored non-temporally into a destination nobody reads during the render.
        if premultiplyResult, !sourceIsStraight, let program = chain.premultipliedProgram {
            runPointProgram(
                program, fusedSource: fusedSource, sourceIsStraight: false, nonTemporal: node === nonTemporalRoot,
                into: out, arena: arena, premultiplyResult: true, asIs: true)
            return
        }
        // Chains of matrices and point steps run as a planar program, straight from a float
        // source when there is one.
        if let program = chain.program {
            runPointProgram(
                program, fusedSource: fusedSource, sourceIsStraight: sourceIsStraight, zeroesHidden: zeroesHidden,
                nonTemporal: node === nonTemporalRoot, into: out, arena: arena, premultiplyResult: premultiplyResult)
            return
        }
        // The root of a render into its destination: each chunk is computed in a scratch
        // chunk that stays in L1 and then stored non-temporally, so the destination's cache
        // lines are never fetched (a fused chain then moves as many bytes as a copy).
        forEachChunk(of: out, nonTemporal: node === nonTemporalRoot && fusedSource != nil, arena: arena) { p, x, y, c in
            if let s = fusedSource {
                loadFusedRow(s, x: out.rect.x + x, y: y, count: c, into: p, premultiply: false)
                if !sourceIsStraight {
                    unpremultiplyRow(p, count: c)
                } else if zeroesHidden {
                    zeroTransparentRow(p, count: c)
                }
            } else {
                unpremultiplyRow(p, count: c)
            }
            for op in ops {
                switch op {
                case let .color(k):
                    if let f = k.applyInSpace { f(p, c, linear) } else { k.apply(p, c) }
                case let .colorMatrix(m): colorMatrixRow(p, count: c, matrix: m)
                default: break
                }
            }
            if premultiplyResult {
                premultiplyRow(p, count: c)
            } else {
                // As premultiplying and unpremultiplying would: no color without alpha.
                zeroTransparentRow(p, count: c)
            }
        }
    }

    /// Whether a chain of `ops` can give a pixel of alpha 0 an alpha above 0, and so show a
    /// color that a straight source stores under alpha 0: a matrix whose alpha row reads a
    /// color or has a bias, or a color kernel other than a point step (which works on rgb).
    static func mayRaiseZeroAlpha(_ ops: [Op]) -> Bool {
        ops.contains { op in
            switch op {
            case let .colorMatrix(m):
                return m.columns.0.w != 0 || m.columns.1.w != 0 || m.columns.2.w != 0 || m.bias.w != 0
            case let .color(k):
                return k.pointStep == nil
            default:
                return true
            }
        }
    }

    /// The rest of `evaluateColorChain` for a chain that is a `PointProgram`: `out` holds the
    /// chain's premultiplied input unless `fusedSource` is given.
    /// `asIs`: the program works on premultiplied pixels as they are (matrices in their
    /// premultiplied form), so nothing is unpremultiplied before or finished after.
    private func runPointProgram(
        _ program: PointProgram, fusedSource: FusedSource?, sourceIsStraight: Bool,
        zeroesHidden: Bool = false, nonTemporal: Bool,
        into out: Tile, arena: Arena, premultiplyResult: Bool, asIs: Bool = false
    ) {
        let w = out.rect.width
        // A float source whose values are used as stored is read in place; others are loaded
        // into the destination row (or a scratch chunk when storing non-temporally).
        // Straight pixels whose hidden colors must be zeroed are loaded, not read in place.
        let direct: PixelBuffer?
        if case let .buffer(b) = fusedSource, b.format == .rgbaF32, !(linear && b.colorEncoding == .sRGB), !zeroesHidden {
            direct = b
        } else {
            direct = nil
        }
        let scratch: UnsafeMutablePointer<SIMD4<Float>>? =
            nonTemporal && fusedSource != nil && direct == nil
            ? arena.allocate(PointProgram.maxCount) : nil
        let unpremultiply = !(fusedSource != nil && sourceIsStraight)
        let storesNonTemporally = nonTemporal && fusedSource != nil
        // Loaded input goes chunk by chunk, each chunk through the program while it is in the
        // L1 cache; input read in place goes a row per call (fewer pipeline fills and drains).
        let span = direct != nil || fusedSource == nil ? w : PointProgram.maxCount
        func body(_ raw: UnsafeRawBufferPointer?) {
            for y in out.rect.y..<out.rect.maxY {
                let row = out.row(y)
                var x = 0
                while x < w {
                    let c = Swift.min(span, w - x)
                    let src: UnsafePointer<SIMD4<Float>>
                    if let b = direct, let raw {
                        src = UnsafePointer(
                            (raw.baseAddress! + y * b.bytesPerRow).assumingMemoryBound(to: SIMD4<Float>.self)
                                + out.rect.x + x)
                    } else if let s = fusedSource {
                        let p = scratch ?? row + x
                        loadFusedRow(s, x: out.rect.x + x, y: y, count: c, into: p, premultiply: false)
                        if zeroesHidden { zeroTransparentRow(p, count: c) }
                        src = UnsafePointer(p)
                    } else {
                        src = UnsafePointer(row + x)
                    }
                    if asIs {
                        program.runAsIs(src, row + x, count: c, nonTemporal: storesNonTemporally)
                    } else {
                        program.run(
                            src, row + x, count: c, unpremultiplyInput: unpremultiply,
                            premultiplyOutput: premultiplyResult, nonTemporal: storesNonTemporally)
                    }
                    x += c
                }
            }
        }
        if let b = direct { b.withUnsafeBytes { body($0) } } else { body(nil) }
        if storesNonTemporally { pf_store_fence() }
    }

    // MARK: Warps

    private func evaluateWarp(_ w: Warp, _ node: Node, into out: Tile, arena: Arena) {
        let input = node.inputs[0]
        if case let .clamp(e) = w, e.contains(out.rect) {
            // The identity inside the extent: no copy.
            evaluate(input, into: out, arena: arena)
            return
        }
        let roi = w.region(for: out.rect, input: input)
        if roi.isEmpty { out.clear(); return }
        if case let .affine(t, .bilinear) = w, let inv = t.inverted(), Evaluator.isSeparableScale(inv) {
            evaluateScaleWarp(inv, input, roi: roi, into: out, arena: arena)
            return
        }
        if case let .boxShrink(k, o) = w {
            evaluateSeparableResample(node: node, input: input, output: o, roi: roi, into: out, arena: arena) { xs, ys, e in
                (
                    LanczosTable(LanczosWeights(box: k, outputRange: xs, inputSize: e.width), first: xs.lowerBound),
                    LanczosTable(LanczosWeights(box: k, outputRange: ys, inputSize: e.height), first: ys.lowerBound)
                )
            }
            return
        }
        if case let .lanczos(o, span) = w {
            evaluateSeparableResample(node: node, input: input, output: o, roi: roi, into: out, arena: arena) { xs, ys, e in
                (
                    LanczosTable(outputRange: xs, inputSize: e.width, outputSize: o.width, span: span?.width),
                    LanczosTable(outputRange: ys, inputSize: e.height, outputSize: o.height, span: span?.height)
                )
            }
            return
        }
        // A stage input is sampled in place: warps only read their source, and a warp
        // whose region of interest is large whatever the tile (a kaleidoscope reads its whole
        // triangle) would otherwise copy that region once per tile.
        // A source is copied into the region first even when stored as premultiplied floats:
        // a rotation reads its rows along a slant, which ran 1.3x slower from the buffer in
        // memory than from the copy in the cache (rotate15_f32, 1920x1080).
        let src: Tile
        if let m = stageBuffers[ObjectIdentifier(input)], m.tile.rect.contains(roi) {
            src = m.tile.view(roi)
        } else {
            src = arena.tile(roi)
            evaluate(input, into: src, arena: arena)
        }
        switch w {
        case let .affine(t, sampling):
            let inv = t.inverted()!
            for y in out.rect.y..<out.rect.maxY {
                affineWarpRow(
                    src, inverse: inv, sampling: sampling, x0: out.rect.x, y: y,
                    count: out.rect.width, into: out.row(y))
            }
        case .lanczos, .boxShrink:
            preconditionFailure("Lanczos warps and box shrinks return above")
        case let .custom(k):
            for y in out.rect.y..<out.rect.maxY {
                customWarpRow(
                    src, sampling: k.sampling, map: k.map, x0: out.rect.x, y: y, count: out.rect.width, into: out.row(y))
            }
        case let .clamp(e):
            // Per row: the first column of the extent repeated, the columns inside it copied,
            // the last column repeated.
            let x0 = out.rect.x, x1 = out.rect.maxX
            let l = Swift.min(Swift.max(e.x, x0), x1), r = Swift.max(Swift.min(e.maxX, x1), l)
            for y in out.rect.y..<out.rect.maxY {
                let sy = Swift.min(Swift.max(y, e.y), e.maxY - 1)
                let srow = src.row(sy)
                let drow = out.row(y)
                if l > x0 { drow.update(repeating: srow[e.x - roi.x], count: l - x0) }
                if r > l { (drow + (l - x0)).update(from: srow + (l - roi.x), count: r - l) }
                if x1 > r { (drow + (r - x0)).update(repeating: srow[e.maxX - 1 - roi.x], count: x1 - r) }
            }
        }
    }

    // MARK: Stencils

    private func evaluateStencil(_ s: Stencil, _ step: Step, into out: Tile, arena: Arena) {
        // Edge tiles of a clamped source: the inner part reads in place, strips copy.
        if let inner = step.edgeSplit {
            let parts = arena.allocate(5, of: IntRect.self)
            let count = Evaluator.edgeSplit(s, inner: inner, out.rect, into: parts)
            if count > 0 {
                for i in 0..<count { evaluateStencilPart(s, step, into: out.view(parts[i]), arena: arena) }
                return
            }
        }
        evaluateStencilPart(s, step, into: out, arena: arena)
    }

    private func evaluateStencilPart(_ s: Stencil, _ step: Step, into out: Tile, arena: Arena) {
        let input = step.node.inputs[0]
        let roi = s.inputRegion(0, for: out.rect)
        if case .inPlace = step.inputs[0] {
            // These only read their input: they may read it where it is already stored.
            withInput(input, stored: step.stored[0], roi, arena: arena) { src in
                applyStencil(s, step, src, into: out, arena: arena)
            }
            return
        }
        let src = arena.tile(roi)
        evaluate(input, into: src, arena: arena)
        applyStencil(s, step, src, into: out, arena: arena)
    }

    private func applyStencil(_ s: Stencil, _ step: Step, _ src: Tile, into out: Tile, arena: Arena) {
        switch step.stencilForm! {
        case let .correlation2D(kw, kh, weights, bias, rgbOnly):
            let rows = arena.allocate(kh, of: UnsafePointer<SIMD4<Float>>.self)
            weights.withUnsafeBufferPointer { wts in
                for y in out.rect.y..<out.rect.maxY {
                    for j in 0..<kh { rows[j] = UnsafePointer(src.row(y - kh / 2 + j)) }
                    correlate2D(
                        rows, kw: kw, kh: kh, weights: wts, bias: bias, rgbOnly: rgbOnly,
                        count: out.rect.width, into: out.row(y))
                }
            }
        case .separableTaps, .wholeRegionPasses:
            // Whole-region passes are stages; their tiles copy the stage buffer and never reach
            // here, except with a region too small to be one (the same exact taps then).
            separableCorrelate(src, taps: step.taps, into: out, arena: arena)
        case let .closure(k):
            let inputs = step.node.inputs
            guard inputs.count > 1 else {
                k.run(src, out, 1, arena)
                return
            }
            let tiles = arena.allocate(inputs.count, of: Tile.self)
            tiles.initialize(to: src)
            for j in 1..<inputs.count {
                let r = step.extraRegions[j - 1](out.rect)
                // An input that is a stage is read in place (it is only read during tiles).
                if !r.isEmpty, let m = stageBuffers[ObjectIdentifier(inputs[j])], m.tile.rect.contains(r) {
                    (tiles + j).initialize(to: m.tile.view(r))
                    continue
                }
                let t = arena.tile(r.isEmpty ? IntRect(x: out.rect.x, y: out.rect.y, width: 0, height: 0) : r)
                if !r.isEmpty { evaluate(inputs[j], into: t, arena: arena) }
                (tiles + j).initialize(to: t)
            }
            k.run(StencilInputs(base: tiles, count: inputs.count), out, 1, arena)
        }
    }

    /// Horizontal then vertical correlation with the same centered `taps`; `src` covers
    /// `out.rect` grown by the taps' radius on every side.
    private func separableCorrelate(_ src: Tile, taps: [Float], into out: Tile, arena: Arena) {
        let r = taps.count / 2
        let w = out.rect.width
        let mid = arena.tile(IntRect(x: out.rect.x, y: src.rect.y, width: w, height: src.rect.height))
        taps.withUnsafeBufferPointer { t in
            for y in src.rect.y..<src.rect.maxY {
                correlateRowHorizontal(UnsafePointer(src.pointer(x: out.rect.x - r, y: y)), taps: t, count: w, into: mid.row(y))
            }
            let h = out.rect.height
            let rows = arena.allocate(taps.count + h - 1, of: UnsafePointer<SIMD4<Float>>.self)
            let dsts = arena.allocate(h, of: UnsafeMutablePointer<SIMD4<Float>>.self)
            for k in 0..<(taps.count + h - 1) { rows[k] = UnsafePointer(mid.row(out.rect.y - r + k)) }
            for j in 0..<h { dsts[j] = out.row(out.rect.y + j) }
            correlateRowsVertical(rows, taps: t, count: w, into: dsts, outputs: h)
        }
    }
}

/// A stage buffer: a node's output computed over `rect` before the stages that read it.
final class StageBuffer: @unchecked Sendable {
    let tile: Tile
    let storage: UnsafeMutablePointer<SIMD4<Float>>
    /// False when `storage` belongs to someone else (a destination buffer written directly).
    private let owns: Bool

    init(rect: IntRect) {
        storage = .allocate(capacity: Swift.max(1, rect.width * rect.height))
        tile = Tile(base: storage, stride: rect.width, rect: rect)
        owns = true
    }

    /// The pixels of `tile`, owned by the caller, who keeps them alive at least as long.
    init(wrapping tile: Tile) {
        storage = tile.base
        self.tile = tile
        owns = false
    }
    deinit { if owns { storage.deallocate() } }

    /// Copies `out.rect` (transparent where it lies outside the stage buffer's rect).
    func copy(into out: Tile) {
        let inner = out.rect.intersection(tile.rect)
        if inner != out.rect { out.clear(outside: inner) }
        if inner.isEmpty { return }
        for y in inner.y..<inner.maxY {
            out.pointer(x: inner.x, y: y).update(from: tile.pointer(x: inner.x, y: y), count: inner.width)
        }
    }
}
