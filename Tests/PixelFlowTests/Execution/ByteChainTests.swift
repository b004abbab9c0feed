import CSIMD
import Foundation
import XCTest

@testable import PixelFlow
@testable import PixelFlowEngine
@testable import PixelFlowGraph
@testable import PixelFlowKernels

/// The chained byte form (a convolution of a bilinear scale or Lanczos-3 warp, the resample's
/// output kept in 16 bits with 6 fractional bits: ByteForms+Chain.swift): both kernels against
/// scalar references (exact, every loop), renders against the float path (within 1 unit on every
/// pixel and channel) over the graphs of libvips' benchmark task (crop, clamp, scale, crop,
/// clamp, convolution, crop) and unclamped ones, the same bytes for every schedule, streamed
/// JPEG strip writes equal to the in-memory render, and the refusals.
final class ByteChainTests: TemporaryDirectoryTestCase {
    static let sharpen = [-1.0, -1, -1, -1, 16, -1, -1, -1, -1].map { $0 / 8 }
    static let emboss = [-2.0, -1, 0, -1, 1, 1, 0, 1, 2]
    /// Renders that ran the chain, and emboss-over-Lanczos renders refused by the bound (`check`).
    var chained = 0, refused = 0

    // MARK: Kernels

    /// The definition of pf_i16_resample_h_to16_run (CSIMDBytesChain.h), written out.
    func horizontalReference(
        _ src: [Int16], bpp: Int, starts: [Int32], counts: [Int32], weights: [Int16], maxTaps: Int, width: Int
    ) -> [Int16] {
        var out = [Int16](repeating: 0, count: width * bpp)
        for i in 0..<width {
            for c in 0..<bpp {
                var acc = 1 << 13
                for k in 0..<Int(counts[i]) {
                    acc += Int(src[(Int(starts[i]) + k) * bpp + c]) * Int(weights[i * maxTaps + k])
                }
                // Floor division by 2^14, then saturation.
                let v = Int((Double(acc) / 16384).rounded(.down))
                out[i * bpp + c] = Int16(Swift.min(32767, Swift.max(-32768, v)))
            }
        }
        return out
    }

    func testHorizontalKernelMatchesScalarReference() {
        var rng = SeededRandom(seed: 81)
        for bpp in [1, 4] {
            for maxTaps in [1, 2, 3, 4, 5, 7, 8, 13] {
                for width in [0, 1, 2, 3, 4, 5, 8, 9, 17, 40] {
                    let inputs = width * 2 + maxTaps + 3
                    // Values as large as the 16-bit intermediate holds; saturation is reached too.
                    // One pixel more: the kernel may read pixel `start + 1` of a tap with weight 0.
                    let src = (0..<(inputs + 1) * bpp).map { _ in Int16(truncatingIfNeeded: Int(rng.next() % 65536) - 32768) }
                    var starts = [Int32](), counts = [Int32](),
                        weights = [Int16](repeating: 0, count: Swift.max(1, width) * maxTaps)
                    for i in 0..<width {
                        let n = Int(rng.next() % UInt64(maxTaps + 1))
                        counts.append(Int32(n))
                        starts.append(Int32(rng.next() % UInt64(inputs - Swift.max(n, 1) + 1)))
                        for k in 0..<n { weights[i * maxTaps + k] = Int16(Int(rng.next() % 32768) - 12000) }
                    }
                    let expected = horizontalReference(
                        src, bpp: bpp, starts: starts, counts: counts, weights: weights, maxTaps: maxTaps, width: width)
                    for variant in [0, 1, 2, 3] {
                        var out = [Int16](repeating: 7, count: Swift.max(1, width * bpp))
                        src.withUnsafeBufferPointer { s in
                            starts.withUnsafeBufferPointer { st in
                                counts.withUnsafeBufferPointer { ct in
                                    weights.withUnsafeBufferPointer { w in
                                        pf_i16_resample_h_to16_variant(
                                            s.baseAddress!, bpp, st.baseAddress, ct.baseAddress, w.baseAddress!, maxTaps, width,
                                            &out, Int32(variant))
                                    }
                                }
                            }
                        }
                        XCTAssertEqual(
                            Array(out.prefix(width * bpp)), expected,
                            "bpp \(bpp), \(maxTaps) taps, width \(width), variant \(variant)")
                    }
                }
            }
        }
    }

    /// The definition of pf_i16_convolve_row_run (CSIMDBytesChain.h), written out.
    func convolutionReference(
        rows: [[Int16]], kw: Int, kh: Int, bpp: Int, weights: [Int16], bias: [Int32], shift: Int, width: Int
    ) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: width * bpp)
        for i in 0..<width * bpp {
            var acc = Int(bias[bpp == 4 ? i % 4 : 0])
            for j in 0..<kh {
                for k in 0..<kw { acc += Int(weights[j * kw + k]) * Int(rows[j][i + k * bpp]) }
            }
            let v = Int((Double(acc) / Double(1 << shift)).rounded(.down))
            out[i] = UInt8(Swift.min(255, Swift.max(0, v)))
        }
        return out
    }

    func testConvolutionKernelMatchesScalarReference() {
        var rng = SeededRandom(seed: 82)
        for (kw, kh) in [(3, 3), (5, 5), (7, 7), (9, 1), (1, 9), (9, 9), (1, 1), (3, 5)] {
            for bpp in [1, 4] {
                for width in [1, 2, 3, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100, 130] {
                    let n = kw * kh
                    let shift = 12 + Int(rng.next() % 11)
                    // Values of the resample's range (Lanczos overshoot included), weights as
                    // large as keep every sum inside 32 bits.
                    let vmax = 21000
                    let limit = Swift.min(32767, (Int(Int32.max) - 2_000_000) / (vmax * n))
                    let weights = (0..<n).map { _ in Int16(Int(rng.next() % UInt64(2 * limit + 1)) - limit) }
                    let bias = (0..<4).map { _ in Int32(Int(rng.next() % 2_000_001) - 1_000_000) }
                    let rows = (0..<kh).map { _ in
                        (0..<(width + kw - 1) * bpp).map { _ in Int16(Int(rng.next() % UInt64(2 * vmax + 1)) - vmax) }
                    }
                    var pairs: [Int32] = []
                    for p in stride(from: 0, to: n, by: 2) {
                        let lo = UInt32(UInt16(bitPattern: weights[p]))
                        let hi = p + 1 < n ? UInt32(UInt16(bitPattern: weights[p + 1])) : 0
                        pairs.append(Int32(bitPattern: lo | hi << 16))
                    }
                    let expected = convolutionReference(
                        rows: rows, kw: kw, kh: kh, bpp: bpp, weights: weights, bias: bias, shift: shift, width: width)
                    for variant in [0, 1, 2, 3, 6] {
                        var out = [UInt8](repeating: 7, count: width * bpp)
                        let buffers = rows.map { r -> UnsafeMutablePointer<Int16> in
                            let p = UnsafeMutablePointer<Int16>.allocate(capacity: r.count)
                            p.initialize(from: r, count: r.count)
                            return p
                        }
                        defer { buffers.forEach { $0.deallocate() } }
                        let pointers: [UnsafePointer<Int16>?] = buffers.map { UnsafePointer($0) }
                        pointers.withUnsafeBufferPointer { rp in
                            pf_i16_convolve_row_variant(
                                rp.baseAddress!, kw, kh, bpp, pairs, bias, shift, width, &out, Int32(variant))
                        }
                        XCTAssertEqual(out, expected, "\(kw)x\(kh), bpp \(bpp), width \(width), variant \(variant)")
                    }
                }
            }
        }
    }

    /// The convolution's fixed point over 16-bit values: exact weights for the sharpen, and a
    /// shift lowered until `32767 sum |W| + |B|` fits 32 bits for large weights.
    func testFixedPointWeightsShiftAndBound() throws {
        let src = Image(TestImages.randomBytes(12, 12, seed: 3))
        func convolution(_ weights: [Double], bias: Double = 0) throws -> ByteConvolution {
            let node = try src.convolved(size: Int(Double(weights.count).squareRoot()), weights: weights, bias: bias).node
            return try XCTUnwrap(ByteConvolution(node))
        }
        let sharpen = try XCTUnwrap(
            ByteChain.fixed(try convolution(Self.sharpen), limit: 32767, intermediateError: 0, range: 255))
        XCTAssertEqual(sharpen.shift, 13)
        XCTAssertEqual(sharpen.weights, Self.sharpen.map { Int16($0 * 8192) })
        XCTAssertEqual(sharpen.biases, [Int32](repeating: 1 << 18, count: 4))
        XCTAssertLessThan(sharpen.errorBound, 0.01)
        // Intermediate errors scale by sum |w| = 3.
        let scaled = try XCTUnwrap(
            ByteChain.fixed(try convolution(Self.sharpen), limit: 32767, intermediateError: 0.1, range: 255))
        XCTAssertEqual(scaled.errorBound - sharpen.errorBound, 0.3, accuracy: 1e-9)
        for (weights, bias) in [
            ([Double](repeating: 0.04, count: 25), 0.0), ([0.3, 1.9, -0.2, 0.5, 2.5, 0.1, -0.4, 0.2, 0.3], 0.7),
        ] {
            let f = try XCTUnwrap(
                ByteChain.fixed(try convolution(weights, bias: bias), limit: 32767, intermediateError: 0, range: 255))
            let reach = 32767 * f.weights.reduce(0) { $0 + abs(Int($1)) } + f.biases.map { abs(Int($0)) }.max()!
            XCTAssertLessThan(reach, Int(Int32.max), "\(weights)")
            // The largest such shift: one more would overflow or not fit 16-bit weights.
            let up = f.shift + 1
            let q = weights.map { ($0 * Double(1 << up)).rounded() }
            let upReach =
                32767 * q.reduce(0) { $0 + abs($1) } + abs((255 * 64 * bias * Double(1 << up)).rounded()) + Double(1 << (up + 5))
            XCTAssertTrue(up > 16 || upReach >= Double(Int32.max) || q.contains { abs($0) > 32767 }, "\(weights)")
        }
    }

    // MARK: Renders against the float path

    enum Kernel: CaseIterable { case sharpen, emboss, random5x5 }

    /// libvips' task on `src`: crop an inset, (bilinear: clamp, scale, crop to the scaled extent;
    /// Lanczos: `lanczosScaled`), then the convolution: clamped and cropped to the scaled extent,
    /// or (emboss, with a bias) unclamped over its grown extent. The graph and the rect rendered.
    func graph(_ src: Image, scale s: Double, lanczos: Bool, kernel: Kernel) throws -> (Image, Rect) {
        let e = src.extent
        let inset = e.width > 6 && e.height > 6 ? 2.0 : 0
        let crop = Rect(x: inset, y: inset, width: e.width - 2 * inset, height: e.height - 2 * inset)
        let cropped = src.cropped(to: crop)
        let scaled: Image, extent: Rect
        if lanczos {
            scaled = try cropped.lanczosScaled(scale: s)
            extent = scaled.extent.integral
        } else {
            let t = AffineTransform(scaleX: s, y: s)
            extent = t.apply(to: crop).integral
            scaled = try cropped.clampedToExtent().transformed(by: t).cropped(to: extent)
        }
        switch kernel {
        case .sharpen:
            return (try scaled.clampedToExtent().convolved3x3(weights: Self.sharpen).cropped(to: extent), extent)
        case .emboss:
            let embossed = try scaled.convolved3x3(weights: Self.emboss, bias: 0.5)
            return (embossed, embossed.extent)
        case .random5x5:
            var rng = SeededRandom(seed: 5)
            var w = (0..<25).map { _ in Double(rng.unit()) * 2 - 0.7 }
            let sum = w.reduce(0, +)
            w = w.map { $0 / sum }
            return (try scaled.clampedToExtent().convolved(size: 5, weights: w).cropped(to: extent), extent)
        }
    }

    /// Renders every graph of `src` into `alpha` and checks: the chain runs (explain), every byte
    /// within 1 unit of the float path's, and with `schedules` the same bytes for threads 1...3
    /// and four tile sizes. Returns how many bytes differ from the float path.
    @discardableResult
    func check(
        _ src: PixelBuffer, alpha: AlphaMode, scales: [Double], kernels: [Kernel], schedules: Bool,
        file: StaticString = #filePath, line: UInt = #line
    ) throws -> Int {
        var differing = 0
        for s in scales {
            for lanczos in [false, true] {
                for kernel in kernels {
                    // A bias makes the opaque alpha 1.5: only premultiplied destinations keep the bytes.
                    if kernel == .emboss, alpha == .straight, src.format == .rgba8 { continue }
                    let (image, rect) = try graph(Image(src), scale: s, lanczos: lanczos, kernel: kernel)
                    guard rect.width >= 1, rect.height >= 1 else { continue }
                    let label =
                        "\(kernel) of \(lanczos ? "Lanczos" : "bilinear") \(s) of \(src.width)x\(src.height) \(src.format) \(src.alphaMode) into \(alpha)"
                    let (expected, explained) = try TestImages.floatPathAndExplain(
                        image, rect: rect, format: src.format, alpha: alpha)
                    // The emboss's weights sum to 8 in magnitude: over Lanczos taps the bound may
                    // reach half a unit, and then the render stays in float.
                    if kernel == .emboss, lanczos, explained.contains("byte path: off: the chained 3x3 convolution") {
                        refused += 1
                        continue
                    }
                    XCTAssertTrue(explained.contains("byte path: on"), "\(label): \(explained)", file: file, line: line)
                    // A Lanczos warp that keeps the size is optimized away: the single convolution form.
                    if explained.contains("convolution of a") { chained += 1 } else { XCTAssertTrue(lanczos, label) }
                    try TestImages.checkSchedules(
                        image, rect: rect, format: src.format, alpha: alpha, expected: expected, schedules: schedules,
                        strict: true, label: label, file: file, line: line)
                    var out = try PixelBuffer(
                        width: Int(rect.width), height: Int(rect.height), format: src.format, alphaMode: alpha)
                    try RenderContext(colorManagement: .none).render(image, rect: rect, to: &out)
                    differing +=
                        zip(ByteFormTesting.bytes(of: out), ByteFormTesting.bytes(of: expected)).filter { $0 != $1 }.count
                }
            }
        }
        return differing
    }

    func testEveryWidthUpTo40AgainstFloatPath() throws {
        let scales = [0.9, 0.5, 0.73, 1.3]
        var differing = 0
        for w in 1...40 {
            let h = 3 + (w * 7) % 13
            let s = [scales[w % 4]]
            let kernel = [Kernel.allCases[w % 3]]
            let opaque = TestImages.randomBytes(w, h, alpha: .straight, opaque: true, seed: UInt64(100 + w))
            differing += try check(opaque, alpha: .straight, scales: s, kernels: [.sharpen], schedules: w % 13 == 0)
            let premultiplied = TestImages.randomBytes(w, h, alpha: .premultiplied, seed: UInt64(200 + w))
            differing += try check(premultiplied, alpha: .premultiplied, scales: s, kernels: kernel, schedules: w % 13 == 1)
            let gray = TestImages.randomBytes(w, h, format: .gray8, seed: UInt64(300 + w))
            differing += try check(gray, alpha: .straight, scales: [scales[(w + 1) % 4]], kernels: kernel, schedules: w % 13 == 2)
        }
        // The chain ran rather than something exact: some values differ from the float path.
        XCTAssertGreaterThan(differing, 0)
        XCTAssertGreaterThan(chained, 100)
        print("ByteChainTests: \(chained) chained renders, \(refused) emboss-over-Lanczos renders refused by the bound")
    }

    func testLargerImagesEveryScaleKernelAndSchedule() throws {
        let scales = [0.9, 0.5, 0.73, 1.3]
        let opaque = TestImages.randomBytes(157, 93, alpha: .straight, opaque: true, seed: 11)
        try check(opaque, alpha: .straight, scales: scales, kernels: Kernel.allCases, schedules: true)
        try check(opaque, alpha: .premultiplied, scales: [0.9], kernels: Kernel.allCases, schedules: false)
        let premultiplied = TestImages.randomBytes(131, 77, alpha: .premultiplied, seed: 12)
        try check(premultiplied, alpha: .premultiplied, scales: scales, kernels: Kernel.allCases, schedules: true)
        let gray = TestImages.randomBytes(203, 61, format: .gray8, seed: 13)
        try check(gray, alpha: .straight, scales: scales, kernels: Kernel.allCases, schedules: true)
    }

    /// Render rects that reach past the graph's extent (transparent there) or lie wholly
    /// outside it, and ones that start inside: within 1 unit of the float path, every schedule.
    func testRectsPartlyAndWhollyOutside() throws {
        let src = TestImages.randomBytes(61, 47, alpha: .premultiplied, seed: 31)
        for lanczos in [false, true] {
            for kernel in [Kernel.sharpen, .emboss] {
                let (image, extent) = try graph(Image(src), scale: 0.73, lanczos: lanczos, kernel: kernel)
                for rect in [
                    extent.insetBy(dx: -7, dy: -5), Rect(x: extent.maxX + 3, y: 0, width: 9, height: 4),
                    Rect(x: extent.minX + 5, y: extent.minY + 3, width: 11, height: 17),
                ] {
                    let label = "\(kernel) of \(lanczos ? "Lanczos" : "bilinear") over \(rect)"
                    let (expected, explained) = try TestImages.floatPathAndExplain(
                        image, rect: rect, format: .rgba8, alpha: .premultiplied)
                    if explained.contains("byte path: off: the chained") { continue }
                    XCTAssertTrue(explained.contains("byte path: on"), "\(label): \(explained)")
                    try TestImages.checkSchedules(
                        image, rect: rect, format: .rgba8, alpha: .premultiplied, expected: expected, schedules: true,
                        strict: true, label: label, file: #filePath, line: #line)
                }
            }
        }
    }

    // MARK: Strip writes

    /// libvips' task itself from a streamed JPEG: the strips give the in-memory byte render's
    /// bytes whatever the threads, tiles and strip height.
    func testStreamedJPEGStripWriteEqualsTheInMemoryRender() throws {
        var decoded = TestImages.randomBytes(211, 157, alpha: .straight, opaque: true, seed: 21)
        // Smooth it a little so the JPEG stays close to it (any content works).
        decoded.withUnsafeMutableRows { y, row in
            let p = row.assumingMemoryBound(to: UInt8.self)
            for i in 0..<(4 * 211) where i % 4 != 3 { p[i] = UInt8((Int(p[i]) / 4 + (i / 4 + y) % 192)) }
        }
        let jpeg = directory.appendingPathComponent("in.jpg").path
        try decoded.write(toFile: jpeg, format: .jpeg, quality: 92)
        let full = try PixelBuffer(contentsOfFile: jpeg)
        let out = directory.appendingPathComponent("out.png").path
        for lanczos in [false, true] {
            let (streamedGraph, rect) = try graph(
                try Image(contentsOfFile: jpeg, streaming: true), scale: 0.9, lanczos: lanczos, kernel: .sharpen)
            let (fullGraph, _) = try graph(Image(full), scale: 0.9, lanczos: lanczos, kernel: .sharpen)
            var o = RenderContext.Options(threadCount: 2, tileWidth: 64, tileHeight: 32, colorManagement: .none)
            var reference = try PixelBuffer(width: Int(rect.width), height: Int(rect.height), format: .rgba8)
            XCTAssertTrue(
                try RenderContext(options: o).explain(fullGraph, rect: rect, into: reference).contains("convolution of a"))
            try RenderContext(options: o).render(fullGraph, rect: rect, to: &reference)
            o.stripHeight = 16
            let explained = try RenderContext(options: o).explain(streamedGraph, rect: rect)
            XCTAssertTrue(explained.contains("strip write into rgba8 rows runs"), explained)
            XCTAssertTrue(explained.contains("convolution of a"), explained)
            for threads in [1, 2, 3] {
                for (tile, strip) in [((256, 64), 128), ((16, 8), 1), ((48, 16), 7), ((32, 8), 1000)] {
                    var so = RenderContext.Options(
                        threadCount: threads, tileWidth: tile.0, tileHeight: tile.1, colorManagement: .none)
                    so.stripHeight = strip
                    try RenderContext(options: so).write(streamedGraph, toFile: out, rect: rect)
                    let written = try PixelBuffer(contentsOfFile: out)
                    XCTAssertEqual(
                        ByteFormTesting.bytes(of: written), ByteFormTesting.bytes(of: reference),
                        "lanczos \(lanczos), \(threads) thread(s), tiles \(tile), strips of \(strip)")
                }
            }
            // The float path forced: within 1 unit.
            var float = try PixelBuffer(width: Int(rect.width), height: Int(rect.height), format: .rgba8)
            var fo = RenderContext.Options(colorManagement: .none)
            fo.usesBytePath = false
            try RenderContext(options: fo).render(fullGraph, rect: rect, to: &float)
            XCTAssertLessThanOrEqual(
                ByteFormTesting.maxDifference(ByteFormTesting.bytes(of: float), ByteFormTesting.bytes(of: reference)), 1)
        }
    }

    // MARK: Refusals

    func testExplainAndRefusals() throws {
        let src = TestImages.randomBytes(60, 40, alpha: .premultiplied, seed: 5)
        let probe = try PixelBuffer(width: 54, height: 36, format: .rgba8, alphaMode: .premultiplied)
        let (sharpened, rect) = try graph(Image(src), scale: 0.9, lanczos: false, kernel: .sharpen)
        let on = try RenderContext(colorManagement: .none).explain(sharpened, rect: rect, into: probe)
        XCTAssertTrue(
            on.contains(
                "3x3 convolution of a bilinear scale (") && on.contains("fixed-point taps and weights, 16-bit intermediate"), on)
        let (lanczos, lrect) = try graph(Image(src), scale: 0.73, lanczos: true, kernel: .random5x5)
        let l = try RenderContext(colorManagement: .none).explain(lanczos, rect: lrect, into: probe)
        XCTAssertTrue(l.contains("5x5 convolution of a lanczos3 to"), l)
        // Forced float.
        var options = RenderContext.Options(colorManagement: .none)
        options.usesBytePath = false
        let off = try RenderContext(options: options).explain(sharpened, rect: rect, into: probe)
        XCTAssertTrue(off.contains("byte path: off: off in the context's options"), off)
        // Linear light stays in float.
        let srgb = try PixelBuffer(width: 60, height: 40, format: .rgba8, colorEncoding: .sRGB, alphaMode: .premultiplied)
        let (linearGraph, _) = try graph(Image(srgb), scale: 0.9, lanczos: false, kernel: .sharpen)
        let linear = try RenderContext().explain(linearGraph, rect: rect, into: srgb)
        XCTAssertTrue(linear.contains("byte path: off: a convolution of a resample in linear light"), linear)
        // A bound of half a unit or more: weights far from their 16-bit fixed point times the
        // resampled range.
        let scaled = try Image(src).cropped(to: Rect(x: 2, y: 2, width: 56, height: 36)).lanczosScaled(scale: 0.9)
        let coarse = try scaled.clampedToExtent().convolved3x3(weights: [0, 0, 0, 0, 1000.3, 0, 0, 0, -999.3])
            .cropped(to: scaled.extent)
        let c = try RenderContext(colorManagement: .none).explain(coarse, rect: scaled.extent, into: probe)
        XCTAssertTrue(c.contains("byte path: off: the chained 3x3 convolution of the resample is up to"), c)
        // The RGB variant does not chain.
        let rgb = try scaled.clampedToExtent().convolved(size: 3, weights: Self.sharpen, rgbOnly: true).cropped(to: scaled.extent)
        let r = try RenderContext(colorManagement: .none).explain(rgb, rect: scaled.extent, into: probe)
        XCTAssertTrue(r.contains("byte path: off: the RGB variant"), r)
        // Straight translucent pixels: the premultiplying prepass does not chain.
        let straight = TestImages.randomBytes(60, 40, alpha: .straight, seed: 6)
        let sprobe = try PixelBuffer(width: 54, height: 36, format: .rgba8, alphaMode: .straight)
        let (sg, srect) = try graph(Image(straight), scale: 0.9, lanczos: false, kernel: .sharpen)
        let s = try RenderContext(colorManagement: .none).explain(sg, rect: srect, into: sprobe)
        XCTAssertTrue(s.contains("byte path: off: straight alpha"), s)
        // A box shrink does not chain.
        let shrunk = try Image(src).thumbnail(width: 12, height: 8)
        let b = try RenderContext(colorManagement: .none).explain(
            shrunk.clampedToExtent().convolved3x3(weights: Self.sharpen).cropped(to: shrunk.extent), rect: shrunk.extent,
            into: probe)
        XCTAssertTrue(b.contains("byte path: off") && b.contains("does not chain"), b)
    }
}
