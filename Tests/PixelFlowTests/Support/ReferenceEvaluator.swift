import Foundation
import XCTest
@testable import PixelFlow
@testable import PixelFlowKernels
@testable import PixelFlowGraph
@testable import PixelFlowEngine

/// The tests' oracle: a small scalar interpreter of the node graph, independent of the engine.
///
/// It computes each node over the rect it is asked for into a plain buffer, one pixel at a
/// time: no tiles, no fast paths, no reads in place, no optimizer, and none of `Scheduler`,
/// `Evaluator`, `RenderPlan` or `GaussianPass`. What it shares with the engine is only what
/// defines each node kind: a color kernel's `apply` on one pixel, a matrix's numbers, a blend's
/// `apply`, a generator's `fill` of one pixel, a warp's mapping (the sampler math is written out
/// here), the Gaussian's taps and box radii (`GaussianPlan`), the Lanczos window
/// (`LanczosWeights.window` and `lanczos3`), and custom stencils and reductions, which are
/// called once on one tile covering the whole region (their input computed here, with the
/// halo, transparent outside the input's extent).
///
/// The semantics it follows (Docs/Architecture.md, "Testing: the oracle"):
/// - pixels between nodes are premultiplied, in the working space: linear light with
///   `colorManagement: .linear` (sources decoded from sRGB: 8-bit through the 256-entry table,
///   others with `SRGB.toLinear`), the stored values with `.none`;
/// - every node is transparent outside `IntRect(covering: extent)` (a crop is nothing else);
/// - color kernels and matrices see unpremultiplied pixels (alpha 0 or below: all zero) and
///   their result is premultiplied again, node by node (the engine fuses a chain and
///   premultiplies once, which rounds differently);
/// - warps map the output pixel center `(x + 0.5, y + 0.5)` to a source position; nearest
///   takes the pixel containing it, bilinear the four around it (`position - 0.5`), with
///   transparent pixels outside the input's extent; clamps repeat the edge pixels;
/// - stencils see their input transparent outside its extent.
///
/// Only the default working and output color spaces (linear sRGB, sRGB) are modelled.
final class ReferenceEvaluator {
    /// Whether the working space is linear light.
    let linear: Bool
    private var memo: [MemoKey: ReferenceImage] = [:]

    private struct MemoKey: Hashable {
        let node: ObjectIdentifier
        let x: Int, y: Int, width: Int, height: Int
    }

    init(colorManagement: RenderContext.ColorManagement = .linear) {
        linear = colorManagement == .linear
    }

    // MARK: Rendering

    /// Renders `rect` of `image` (default: its extent) into an rgbaF32 buffer with the given
    /// encoding and alpha mode (defaults: linear, premultiplied), as `RenderContext.makeBuffer`
    /// with `format: .rgbaF32` would.
    static func render(
        _ image: Image, rect: Rect? = nil, colorManagement: RenderContext.ColorManagement = .linear,
        colorEncoding: ColorEncoding = .linear, alphaMode: AlphaMode = .premultiplied
    ) throws -> PixelBuffer {
        let r = IntRect(covering: rect ?? image.extent)
        let evaluator = ReferenceEvaluator(colorManagement: colorManagement)
        let pixels = evaluator.evaluate(image.node, over: r)
        var out = try PixelBuffer(
            width: r.width, height: r.height, format: .rgbaF32, colorEncoding: colorEncoding, alphaMode: alphaMode)
        let encode = evaluator.linear && colorEncoding == .sRGB
        for y in r.y..<r.maxY {
            for x in r.x..<r.maxX {
                var v = pixels[x, y]
                if alphaMode == .straight { v = unpremultiplied(v) }
                if encode { v = SIMD4(SRGB.fromLinear(v.x), SRGB.fromLinear(v.y), SRGB.fromLinear(v.z), v.w) }
                out[x - r.x, y - r.y] = v
            }
        }
        return out
    }

    /// `node`'s premultiplied working-space pixels over `r` (transparent outside its extent).
    func evaluate(_ node: Node, over r: IntRect) -> ReferenceImage {
        let key = MemoKey(node: ObjectIdentifier(node), x: r.x, y: r.y, width: r.width, height: r.height)
        if let m = memo[key] { return m }
        let out = ReferenceImage(r)
        let valid = node.extent.isInfinite ? r : r.intersection(IntRect(covering: node.extent))
        if !valid.isEmpty { compute(node, over: valid, into: out) }
        memo[key] = out
        return out
    }

    private func compute(_ node: Node, over r: IntRect, into out: ReferenceImage) {
        switch node.op {
        case let .source(b):
            b.withUnsafeBytes { raw in
                for y in r.y..<r.maxY {
                    for x in r.x..<r.maxX {
                        let p = storedPixel(
                            raw.baseAddress! + y * b.bytesPerRow + x * b.format.bytesPerPixel, b.format,
                            decode: linear && b.colorEncoding == .sRGB)
                        out[x, y] = b.alphaMode == .straight && b.format.hasAlpha ? premultiplied(p) : p
                    }
                }
            }
        case let .streamedSource(s):
            // A streamed file decodes to sRGB-encoded, straight-alpha rows, as a full decode would.
            guard let window = try? s.decodeFully() else {
                XCTFail("reference: cannot decode \(s)")
                return
            }
            for y in r.y..<r.maxY {
                for x in r.x..<r.maxX {
                    out[x, y] = premultiplied(
                        storedPixel(window.row(y) + x * window.format.bytesPerPixel, window.format, decode: linear))
                }
            }
        case let .generator(g):
            var p = SIMD4<Float>.zero
            for y in r.y..<r.maxY {
                for x in r.x..<r.maxX {
                    g.fill(x, y, 1, &p, linear)
                    out[x, y] = p
                }
            }
        case let .color(k):
            let input = evaluate(node.inputs[0], over: r)
            var p = SIMD4<Float>.zero
            for y in r.y..<r.maxY {
                for x in r.x..<r.maxX {
                    p = unpremultiplied(input[x, y])
                    if let f = k.applyInSpace { f(&p, 1, linear) } else { k.apply(&p, 1) }
                    out[x, y] = premultiplied(p)
                }
            }
        case let .colorMatrix(m):
            let input = evaluate(node.inputs[0], over: r)
            for y in r.y..<r.maxY {
                for x in r.x..<r.maxX { out[x, y] = premultiplied(m.apply(unpremultiplied(input[x, y]))) }
            }
        case let .blend(k):
            let fg = evaluate(node.inputs[0], over: r), bg = evaluate(node.inputs[1], over: r)
            var f = SIMD4<Float>.zero, d = SIMD4<Float>.zero
            for y in r.y..<r.maxY {
                for x in r.x..<r.maxX {
                    f = fg[x, y]
                    d = bg[x, y]
                    k.apply(&f, &d, 1)
                    out[x, y] = d
                }
            }
        case .crop:
            // The crop is the node's extent, which `evaluate` already applied.
            let input = evaluate(node.inputs[0], over: r)
            for y in r.y..<r.maxY { for x in r.x..<r.maxX { out[x, y] = input[x, y] } }
        case let .warp(w):
            warp(w, node.inputs[0], over: r, into: out)
        case let .stencil(s):
            stencil(s, node.inputs, over: r, into: out)
        case let .reduction(red):
            let tiles = zip(node.inputs, red.regions).map { input, region in
                region.isEmpty ? ReferenceImage(IntRect(x: 0, y: 0, width: 0, height: 0)) : evaluate(input, over: region)
            }
            let result = ReferenceImage(red.outputRect)
            withExtendedLifetime(tiles) { red.compute(tiles.map(\.tile), 1, result.pointer) }
            for y in r.y..<r.maxY { for x in r.x..<r.maxX { out[x, y] = result[x, y] } }
        }
    }

    // MARK: Warps

    /// The integer rect covering `rect` grown by one pixel, inside `input`'s extent: the pixels
    /// a sampler may read around positions in `rect`.
    private func sampled(_ rect: Rect, _ input: Node) -> IntRect {
        guard rect.x.isFinite, rect.y.isFinite, rect.width.isFinite, rect.height.isFinite, !rect.isEmpty else { return .empty }
        let grown = IntRect(covering: rect.insetBy(dx: -1, dy: -1))
        return input.extent.isInfinite ? grown : grown.intersection(IntRect(covering: input.extent))
    }

    private func warp(_ w: Warp, _ input: Node, over r: IntRect, into out: ReferenceImage) {
        switch w {
        case let .affine(t, sampling):
            guard let inv = t.inverted() else { return }
            let src = evaluateOrEmpty(input, sampled(inv.apply(to: r.rect), input))
            for y in r.y..<r.maxY {
                let cy = Double(y) + 0.5
                for x in r.x..<r.maxX {
                    let cx = Double(x) + 0.5
                    // x' = a x + c y + tx, y' = b x + d y + ty, summed as the kernels do.
                    let sx = inv.a * cx + (inv.c * cy + inv.tx), sy = inv.b * cx + (inv.d * cy + inv.ty)
                    out[x, y] = sample(src, sx, sy, sampling)
                }
            }
        case let .custom(k):
            let src = evaluateOrEmpty(input, sampled(k.regionOfInterest(r.rect), input))
            for y in r.y..<r.maxY {
                for x in r.x..<r.maxX {
                    let p = k.map(Double(x) + 0.5, Double(y) + 0.5)
                    out[x, y] = sample(src, p.x, p.y, k.sampling)
                }
            }
        case let .clamp(e):
            guard !e.isEmpty else { return }
            func clampX(_ x: Int) -> Int { Swift.min(Swift.max(x, e.x), e.maxX - 1) }
            func clampY(_ y: Int) -> Int { Swift.min(Swift.max(y, e.y), e.maxY - 1) }
            let x0 = clampX(r.x), x1 = clampX(r.maxX - 1), y0 = clampY(r.y), y1 = clampY(r.maxY - 1)
            let src = evaluate(input, over: IntRect(x: x0, y: y0, width: x1 - x0 + 1, height: y1 - y0 + 1))
            for y in r.y..<r.maxY { for x in r.x..<r.maxX { out[x, y] = src[clampX(x), clampY(y)] } }
        case let .lanczos(o, span):
            // Antialiased Lanczos-3 (the window of `LanczosWeights`), summed in Double per output
            // pixel: weights normalized to sum to 1, taps stopping at the input's edges.
            let e = IntRect(covering: input.extent)
            func taps(_ out: Int, _ inputSize: Int, _ outputSize: Int, _ span: Double?) -> (start: Int, weights: [Double]) {
                let w = LanczosWeights.window(out, inputSize: inputSize, outputSize: outputSize, span: span)
                var ws = (0..<w.count).map { k in LanczosWeights.lanczos3((Double(k + w.start) - w.center + 0.5) / w.scale) }
                let total = ws.reduce(0, +)
                if total != 0 { ws = ws.map { $0 / total } }
                return (w.start, ws)
            }
            let columns = (r.x..<r.maxX).map { taps($0 - o.x, e.width, o.width, span?.width) }
            let rows = (r.y..<r.maxY).map { taps($0 - o.y, e.height, o.height, span?.height) }
            let xs = columns.map { $0.start }.min()!, xe = columns.map { $0.start + $0.weights.count }.max()!
            let ys = rows.map { $0.start }.min()!, ye = rows.map { $0.start + $0.weights.count }.max()!
            let src = evaluateOrEmpty(input, IntRect(x: e.x + xs, y: e.y + ys, width: xe - xs, height: ye - ys))
            for (j, row) in rows.enumerated() {
                for (i, column) in columns.enumerated() {
                    var acc = SIMD4<Double>.zero
                    for (ky, wy) in row.weights.enumerated() {
                        for (kx, wx) in column.weights.enumerated() {
                            acc += SIMD4<Double>(src[e.x + column.start + kx, e.y + row.start + ky]) * (wy * wx)
                        }
                    }
                    out[r.x + i, r.y + j] = SIMD4<Float>(acc)
                }
            }
        case let .boxShrink(k, o):
            // The mean of each k x k block inside the input extent, summed in Double.
            let e = IntRect(covering: input.extent)
            let x0 = e.x + k * (r.x - o.x), x1 = Swift.min(e.maxX, e.x + k * (r.maxX - o.x))
            let y0 = e.y + k * (r.y - o.y), y1 = Swift.min(e.maxY, e.y + k * (r.maxY - o.y))
            guard x1 > x0, y1 > y0 else { return }
            let src = evaluate(input, over: IntRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0))
            for y in r.y..<r.maxY {
                for x in r.x..<r.maxX {
                    let bx = e.x + k * (x - o.x), by = e.y + k * (y - o.y)
                    var acc = SIMD4<Double>.zero, n = 0.0
                    for sy in by..<Swift.min(by + k, e.maxY) {
                        for sx in bx..<Swift.min(bx + k, e.maxX) { acc += SIMD4<Double>(src[sx, sy]); n += 1 }
                    }
                    if n > 0 { out[x, y] = SIMD4<Float>(acc / n) }
                }
            }
        }
    }

    private func evaluateOrEmpty(_ node: Node, _ r: IntRect) -> ReferenceImage {
        r.isEmpty ? ReferenceImage(.empty) : evaluate(node, over: r)
    }

    /// The sampler: `(sx, sy)` is a source position (pixel centers at half integers).
    private func sample(_ src: ReferenceImage, _ sx: Double, _ sy: Double, _ sampling: Sampling) -> SIMD4<Float> {
        guard sx.isFinite, sy.isFinite, Swift.abs(sx) < 1e9, Swift.abs(sy) < 1e9 else { return .zero }
        switch sampling {
        case .nearest:
            return src[Int(sx.rounded(.down)), Int(sy.rounded(.down))]
        case .bilinear:
            let fx = sx - 0.5, fy = sy - 0.5
            let flx = fx.rounded(.down), fly = fy.rounded(.down)
            let ix = Int(flx), iy = Int(fly)
            let wx = Float(fx - flx), wy = Float(fy - fly)
            let top = src[ix, iy] + (src[ix + 1, iy] - src[ix, iy]) * wx
            let bottom = src[ix, iy + 1] + (src[ix + 1, iy + 1] - src[ix, iy + 1]) * wx
            return top + (bottom - top) * wy
        }
    }

    // MARK: Stencils

    private func stencil(_ s: Stencil, _ inputs: [Node], over r: IntRect, into out: ReferenceImage) {
        switch s {
        case let .convolution(kw, kh, weights, bias, rgbOnly):
            let src = evaluate(inputs[0], over: r.outset(kw / 2, kh / 2))
            for y in r.y..<r.maxY {
                for x in r.x..<r.maxX {
                    var acc = SIMD4<Double>.zero
                    for j in 0..<kh {
                        for i in 0..<kw {
                            acc += SIMD4<Double>(src[x - kw / 2 + i, y - kh / 2 + j]) * Double(weights[j * kw + i])
                        }
                    }
                    var v = SIMD4<Float>(acc) + SIMD4(bias, bias, bias, rgbOnly ? 0 : bias)
                    if rgbOnly { v.w = src[x, y].w }
                    out[x, y] = v
                }
            }
        case let .gaussian(sigma):
            let passes: [[Double]]
            switch GaussianPlan.mode(sigma: sigma) {
            case .tileLocal, .exact:
                passes = [GaussianPlan.exactTaps(sigma: sigma).map(Double.init)]
            case let .boxes(radii):
                // Box filters of width 2r + 1, in cascade (the variance of the Gaussian).
                passes = radii.map { [Double](repeating: 1 / Double(2 * $0 + 1), count: 2 * $0 + 1) }
            }
            let result = separable(inputs[0], over: r, passes: passes)
            for y in r.y..<r.maxY { for x in r.x..<r.maxX { out[x, y] = result[x, y] } }
        case let .custom(k):
            let primary = copy(evaluate(inputs[0], over: r.outset(k.haloX, k.haloY)))
            let arena = Arena()
            var tiles = [primary]
            for j in 1..<inputs.count {
                let region = k.inputRegion(j, for: r)
                tiles.append(
                    region.isEmpty
                        ? ReferenceImage(IntRect(x: r.x, y: r.y, width: 0, height: 0))
                        : copy(evaluate(inputs[j], over: region)))
            }
            withExtendedLifetime(tiles) {
                tiles.map(\.tile).withUnsafeBufferPointer {
                    k.run(StencilInputs(base: $0.baseAddress!, count: $0.count), out.tile.view(r), 1, arena)
                }
            }
        }
    }

    /// Correlates `input` with each of `passes` (centered, odd lengths) along x, then with each
    /// along y, in Double, over `r`; the input is transparent outside its extent. Channel by
    /// channel on flat arrays (debug builds run scalar Double loops far faster than SIMD ones).
    private func separable(_ input: Node, over r: IntRect, passes: [[Double]]) -> ReferenceImage {
        let reach = passes.reduce(0) { $0 + $1.count / 2 }
        let src = evaluate(input, over: r.outset(reach, reach))
        let result = ReferenceImage(r)
        for c in 0..<4 {
            var width = src.rect.width, height = src.rect.height
            var plane = [Double](repeating: 0, count: width * height)
            for y in 0..<height { for x in 0..<width { plane[y * width + x] = Double(src[src.rect.x + x, src.rect.y + y][c]) } }
            // Horizontal passes, each output `i` summing taps over inputs `i ..< i + count`.
            for taps in passes {
                let next = width - (taps.count - 1)
                var out = [Double](repeating: 0, count: next * height)
                plane.withUnsafeBufferPointer { p in
                    for y in 0..<height {
                        for x in 0..<next {
                            var acc = 0.0
                            for k in 0..<taps.count { acc += taps[k] * p[y * width + x + k] }
                            out[y * next + x] = acc
                        }
                    }
                }
                plane = out
                width = next
            }
            // Vertical passes.
            for taps in passes {
                let next = height - (taps.count - 1)
                var out = [Double](repeating: 0, count: width * next)
                plane.withUnsafeBufferPointer { p in
                    for y in 0..<next {
                        for x in 0..<width {
                            var acc = 0.0
                            for k in 0..<taps.count { acc += taps[k] * p[(y + k) * width + x] }
                            out[y * width + x] = acc
                        }
                    }
                }
                plane = out
                height = next
            }
            precondition(width == r.width && height == r.height)
            for y in 0..<height {
                for x in 0..<width {
                    var v = result[r.x + x, r.y + y]
                    v[c] = Float(plane[y * width + x])
                    result[r.x + x, r.y + y] = v
                }
            }
        }
        return result
    }

    /// A private copy (kernels may use their input tile as scratch).
    private func copy(_ image: ReferenceImage) -> ReferenceImage {
        let c = ReferenceImage(image.rect)
        c.pointer.update(from: image.pointer, count: Swift.max(0, image.rect.area))
        return c
    }
}

// MARK: Pixels

/// A premultiply: color times alpha, alpha kept.
func premultiplied(_ v: SIMD4<Float>) -> SIMD4<Float> { SIMD4(v.x * v.w, v.y * v.w, v.z * v.w, v.w) }

/// The inverse of `premultiplied`; a pixel whose alpha is not above 0 becomes all zero.
func unpremultiplied(_ v: SIMD4<Float>) -> SIMD4<Float> {
    guard v.w > 0 else { return .zero }
    return SIMD4(v.x / v.w, v.y / v.w, v.z / v.w, v.w)
}

/// A stored pixel as floats in 0...1 (float formats as stored), with the color channels
/// decoded from sRGB to linear light when `decode`: 8-bit values through the 256-entry table,
/// others with `SRGB.toLinear`. Gray formats read as (g, g, g, 1).
func storedPixel(_ p: UnsafeRawPointer, _ format: PixelFormat, decode: Bool) -> SIMD4<Float> {
    func byte(_ i: Int) -> Float {
        let b = p.load(fromByteOffset: i, as: UInt8.self)
        return decode ? SRGB.decodeTable[Int(b)] : Float(b) / 255
    }
    func channel(_ v: Float) -> Float { decode ? SRGB.toLinear(v) : v }
    switch format {
    case .rgba8:
        return SIMD4(byte(0), byte(1), byte(2), Float(p.load(fromByteOffset: 3, as: UInt8.self)) / 255)
    case .bgra8:  // bytes B, G, R, A
        return SIMD4(byte(2), byte(1), byte(0), Float(p.load(fromByteOffset: 3, as: UInt8.self)) / 255)
    case .argb8:  // bytes A, R, G, B
        return SIMD4(byte(1), byte(2), byte(3), Float(p.load(fromByteOffset: 0, as: UInt8.self)) / 255)
    case .rgba16:
        let v = (0..<4).map { Float(p.loadUnaligned(fromByteOffset: 2 * $0, as: UInt16.self)) / 65535 }
        return SIMD4(channel(v[0]), channel(v[1]), channel(v[2]), v[3])
    case .rgbaF32:
        let v = p.loadUnaligned(as: SIMD4<Float>.self)
        return SIMD4(channel(v.x), channel(v.y), channel(v.z), v.w)
    case .gray8:
        let g = byte(0)
        return SIMD4(g, g, g, 1)
    case .grayF32:
        let g = channel(p.loadUnaligned(as: Float.self))
        return SIMD4(g, g, g, 1)
    }
}

/// Working pixels over a rect, row by row; reading outside the rect gives transparent black.
final class ReferenceImage {
    let rect: IntRect
    let pointer: UnsafeMutablePointer<SIMD4<Float>>

    init(_ rect: IntRect) {
        self.rect = rect
        let n = Swift.max(1, rect.area)
        pointer = .allocate(capacity: n)
        pointer.initialize(repeating: .zero, count: n)
    }
    deinit { pointer.deallocate() }

    subscript(x: Int, y: Int) -> SIMD4<Float> {
        get {
            guard x >= rect.x, x < rect.maxX, y >= rect.y, y < rect.maxY else { return .zero }
            return pointer[(y - rect.y) * rect.width + (x - rect.x)]
        }
        set {
            precondition(x >= rect.x && x < rect.maxX && y >= rect.y && y < rect.maxY, "(\(x), \(y)) outside \(rect)")
            pointer[(y - rect.y) * rect.width + (x - rect.x)] = newValue
        }
    }

    /// The pixels as a tile, for kernels that take one (valid while `self` lives).
    var tile: Tile { Tile(base: pointer, stride: Swift.max(1, rect.width), rect: rect) }
}

// MARK: Comparing with the engine

/// How far an engine render may be from the reference, by node kind (the largest over the
/// graph's nodes), relative to max(1, |reference|). Pure per-pixel arithmetic differs only by
/// the order of float operations; see each value.
enum ReferenceTolerance {
    /// Sources, generators, crops, clamps, blends, warps, custom stencils and reductions (the
    /// same closures on the same pixels), color kernels and matrices (the engine fuses a chain:
    /// one unpremultiply, a reciprocal instead of a divide, folded matrices), convolutions and
    /// exact Gaussians (float sums in tap order against Double), Lanczos (two float passes).
    static let arithmetic: Float = 1e-5
    /// Gaussian box cascades (sigma above `GaussianPlan.exactLimit`): float running sums over
    /// up to `GaussianPlan.boxBlock` + 2r pixels, against Double.
    static let boxCascade: Float = 1e-4

    /// The tolerance for a graph: the largest of its nodes'.
    static func forGraph(_ root: Node) -> Float {
        var t = arithmetic
        for n in GraphWalk.postOrder(root) {
            if case let .stencil(.gaussian(sigma)) = n.op, case .boxes = GaussianPlan.mode(sigma: sigma) {
                t = Swift.max(t, boxCascade)
            }
        }
        return t
    }
}

/// The largest difference between `a` and `reference`, relative to max(1, |reference|) per
/// component, with where it is; infinity on a NaN in one but not the other.
func relativeDifference(_ a: PixelBuffer, _ reference: PixelBuffer) -> (value: Float, x: Int, y: Int) {
    precondition(a.width == reference.width && a.height == reference.height)
    var worst: (Float, Int, Int) = (0, 0, 0)
    for y in 0..<a.height {
        for x in 0..<a.width {
            let p = a[x, y], q = reference[x, y]
            for c in 0..<4 {
                if p[c].isNaN && q[c].isNaN { continue }
                if p[c] == q[c] { continue }
                let d = Swift.abs(p[c] - q[c]) / Swift.max(1, Swift.abs(q[c]))
                if !(d <= worst.0) { worst = (d.isNaN ? .infinity : d, x, y) }
            }
        }
    }
    return worst
}

/// Asserts that the engine's rgbaF32 render of `image` over `rect` with `context` is within
/// `tolerance` (default: `ReferenceTolerance.forGraph`) of the reference evaluator's.
func assertMatchesReference(
    _ image: Image, rect: Rect? = nil, context: RenderContext = RenderContext(),
    colorEncoding: ColorEncoding = .linear, alphaMode: AlphaMode = .premultiplied,
    tolerance: Float? = nil, _ message: @autoclosure () -> String = "",
    file: StaticString = #filePath, line: UInt = #line
) throws {
    let engine = try context.makeBuffer(image, rect: rect, format: .rgbaF32, colorEncoding: colorEncoding, alphaMode: alphaMode)
    let reference = try ReferenceEvaluator.render(
        image, rect: rect, colorManagement: context.options.colorManagement,
        colorEncoding: colorEncoding, alphaMode: alphaMode)
    let limit = tolerance ?? ReferenceTolerance.forGraph(image.node)
    let d = relativeDifference(engine, reference)
    XCTAssertLessThanOrEqual(
        d.value, limit,
        "\(message()): engine differs from the reference by \(d.value) at (\(d.x), \(d.y)): "
            + "\(engine[d.x, d.y]) vs \(reference[d.x, d.y])", file: file, line: line)
}
