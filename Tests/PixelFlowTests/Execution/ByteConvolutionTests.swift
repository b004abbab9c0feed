import CSIMD
import XCTest

@testable import PixelFlow
@testable import PixelFlowEngine
@testable import PixelFlowGraph
@testable import PixelFlowKernels

/// The byte form of 2-D convolutions (fixed-point weights, `pf_u8_convolve_row_run`): the kernel
/// against a scalar reference (exact, every loop), the fixed-point weights against their stated
/// error bound, renders against the float path (within 1 unit on every pixel and channel, 0 for
/// kernels the fixed point holds exactly and whose float sum is exact), the same bytes for every
/// schedule, and the refusals.
final class ByteConvolutionTests: XCTestCase {
    // MARK: Kernel

    /// The definition of CSIMDBytesConvolve.h, written out.
    func reference(
        rows: [[UInt8]], kw: Int, kh: Int, bpp: Int, weights: [Int16], bias: [Int32], shift: Int, keepAlpha: Bool,
        width: Int
    ) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: width * bpp)
        for i in 0..<width * bpp {
            let c = bpp == 4 ? i % 4 : 0
            if keepAlpha && bpp == 4 && c == 3 {
                out[i] = rows[kh / 2][i + (kw / 2) * bpp]
                continue
            }
            var acc = Int(bias[c])
            for j in 0..<kh {
                for k in 0..<kw { acc += Int(weights[j * kw + k]) * Int(rows[j][i + k * bpp]) }
            }
            // Floor division by 2^shift, then clamp.
            let v = Int((Double(acc) / Double(1 << shift)).rounded(.down))
            out[i] = UInt8(Swift.min(255, Swift.max(0, v)))
        }
        return out
    }

    func testKernelMatchesScalarReference() {
        var rng = SeededRandom(seed: 77)
        let shapes = [(3, 3), (5, 5), (7, 7), (9, 1), (1, 9), (9, 9), (1, 1)]
        for (kw, kh) in shapes {
            for bpp in [1, 4] {
                for width in [1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 33, 45, 100] {
                    let n = kw * kh
                    let shift = 8 + Int(rng.next() % 7)
                    // Weights up to 2^15 - 1 in magnitude, as many taps as fit the 32-bit sums.
                    let limit = Swift.min(32767, Int(Int32.max / 2) / (255 * n))
                    let weights = (0..<n).map { _ in Int16(Int(rng.next() % UInt64(2 * limit + 1)) - limit) }
                    let bias = (0..<4).map { _ in Int32(Int(rng.next() % 2_000_001) - 1_000_000) }
                    let rows = (0..<kh).map { _ in
                        (0..<(width + kw - 1) * bpp).map { _ in UInt8(truncatingIfNeeded: rng.next() >> 24) }
                    }
                    var pairs: [Int32] = []
                    for p in stride(from: 0, to: n, by: 2) {
                        let lo = UInt32(UInt16(bitPattern: weights[p]))
                        let hi = p + 1 < n ? UInt32(UInt16(bitPattern: weights[p + 1])) : 0
                        pairs.append(Int32(bitPattern: lo | hi << 16))
                    }
                    for keep in [false, true] {
                        let expected = reference(
                            rows: rows, kw: kw, kh: kh, bpp: bpp, weights: weights, bias: bias, shift: shift, keepAlpha: keep,
                            width: width)
                        let pointers = rows.map { UnsafeMutablePointer<UInt8>.allocate(capacity: $0.count) }
                        defer { pointers.forEach { $0.deallocate() } }
                        for (p, row) in zip(pointers, rows) { p.update(from: row, count: row.count) }
                        let list: [UnsafePointer<UInt8>?] = pointers.map { UnsafePointer($0) }
                        for variant in [0, 1, 2, 3] {
                            var out = [UInt8](repeating: 7, count: width * bpp)
                            pf_u8_convolve_row_variant(
                                list, kw, kh, bpp, pairs, bias, shift, keep ? 1 : 0, width, &out, Int32(variant))
                            XCTAssertEqual(
                                out, expected, "\(kw)x\(kh), bpp \(bpp), width \(width), keep \(keep), variant \(variant)")
                        }
                    }
                }
            }
        }
    }

    // MARK: Fixed point

    func testFixedPointWeightsAndBound() throws {
        let sharpen: [Float] = [-1, -1, -1, -1, 16, -1, -1, -1, -1].map { $0 / 8 }
        let f = try XCTUnwrap(ByteConvolution.fixedPoint(weights: sharpen, bias: 0, keepsAlpha: false))
        XCTAssertEqual(f.shift, 13)
        XCTAssertEqual(f.weights, [-1024, -1024, -1024, -1024, 16384, -1024, -1024, -1024, -1024])
        XCTAssertEqual(f.biases, [4096, 4096, 4096, 4096])
        XCTAssertLessThan(f.errorBound, 1e-3)
        // The bound is the quantization error: recompute it from the weights in double.
        var rng = SeededRandom(seed: 3)
        for n in [9, 25, 49] {
            let w = (0..<n).map { _ in Float(rng.unit() * 2 - 0.9) / Float(n) * 4 }
            let bias = rng.unit() - 0.5
            let g = try XCTUnwrap(ByteConvolution.fixedPoint(weights: w, bias: bias, keepsAlpha: true))
            let scale = Double(1 << g.shift)
            var err = 0.0
            for k in 0..<n { err += 255 * abs(Double(g.weights[k]) / scale - Double(w[k])) }
            err += abs((Double(g.biases[0]) - scale / 2) / scale - 255 * Double(bias))
            XCTAssertGreaterThanOrEqual(g.errorBound, err)
            XCTAssertLessThan(g.errorBound, err + 0.01)
            XCTAssertEqual(g.biases[3], Int32(1 << (g.shift - 1)), "the RGB variant adds no bias to alpha")
        }
        // A weight too large for a fractional bit: no fixed point.
        XCTAssertNil(ByteConvolution.fixedPoint(weights: [0, 0, 0, 0, 40000, 0, 0, 0, 0], bias: 0, keepsAlpha: false))
    }

    // MARK: Renders

    static let sharpen: [Double] = [-1, -1, -1, -1, 16, -1, -1, -1, -1].map { $0 / 8 }

    /// The convolutions tested on `src` (name, image, rect, whether the bytes must equal the
    /// float path's exactly). `straightSafe`: only those whose opaque windows keep alpha 1 (sum
    /// of weights and bias 1, or the RGB variants), over a clamped source, so a straight
    /// destination keeps the byte path.
    func cases(_ src: PixelBuffer, wide: Bool, straightSafe: Bool) throws -> [(String, Image, Rect, Bool)] {
        let img = Image(src)
        let clamped = img.clampedToExtent()
        var rng = SeededRandom(seed: UInt64(src.width * 31 + src.height))
        func random(_ n: Int, sum: Double?) -> [Double] {
            var w = (0..<n).map { _ in Double(rng.unit()) * 2 - 0.7 }
            if let sum { let s = w.reduce(0, +); w = w.map { $0 / s * sum } }
            return w
        }
        var out: [(String, Image, Rect, Bool)] = []
        out.append(
            ("sharpen clamped", try clamped.convolved3x3(weights: Self.sharpen).cropped(to: img.extent), img.extent, false))
        // A shift by one pixel: exact in both paths.
        var shift = [Double](repeating: 0, count: 9)
        shift[3] = 1
        out.append(("shift clamped", try clamped.convolved3x3(weights: shift).cropped(to: img.extent), img.extent, true))
        out.append(
            (
                "rgb 3x3 bias",
                try clamped.convolved(size: 3, weights: random(9, sum: nil), bias: 0.2, rgbOnly: true)
                    .cropped(to: img.extent), img.extent, false
            ))
        if wide {
            out.append(
                (
                    "5x5 clamped", try clamped.convolved(size: 5, weights: random(25, sum: 1)).cropped(to: img.extent),
                    img.extent, false
                ))
            out.append(
                (
                    "rgb 7x7 bias",
                    try clamped.convolved(size: 7, weights: random(49, sum: nil), bias: -0.1, rgbOnly: true)
                        .cropped(to: img.extent), img.extent, false
                ))
            out.append(
                ("9 horizontal", try clamped.convolved9(weights: random(9, sum: 1)).cropped(to: img.extent), img.extent, false))
            out.append(
                (
                    "rgb 9 vertical",
                    try clamped.convolved9(weights: random(9, sum: nil), vertical: true, bias: 0.05, rgbOnly: true)
                        .cropped(to: img.extent), img.extent, false
                ))
        }
        guard !straightSafe else { return out }
        // Unclamped: transparent outside, the extent grows by the halo; weights not summing to 1.
        let emboss = try img.convolved3x3(weights: [-2, -1, 0, -1, 1, 1, 0, 1, 2], bias: 0.5)
        out.append(("emboss bias unclamped", emboss, emboss.extent, false))
        if wide {
            let w7 = try img.convolved(size: 7, weights: random(49, sum: 1.3), bias: -0.2)
            out.append(("7x7 unclamped", w7, w7.extent, false))
            let v9 = try img.convolved9(weights: random(9, sum: 0.8), vertical: true)
            out.append(("9 vertical unclamped", v9, v9.extent, false))
        }
        return out
    }

    /// Every case of `src` into `alpha`: byte path on (explain), within 1 unit of the float
    /// path (0 for the exact cases); with `schedules`, the same bytes for threads 1...3 and four
    /// tile sizes.
    func check(
        _ src: PixelBuffer, alpha: AlphaMode, schedules: Bool, wide: Bool = true, file: StaticString = #filePath,
        line: UInt = #line
    ) throws {
        let straightSafe = src.format == .rgba8 && alpha == .straight
        for (name, image, rect, exact) in try cases(src, wide: wide, straightSafe: straightSafe) {
            let label = "\(name) of \(src.width)x\(src.height) \(src.format) \(src.alphaMode) into \(alpha)"
            let (expected, explained) = try TestImages.floatPathAndExplain(image, rect: rect, format: src.format, alpha: alpha)
            XCTAssertTrue(explained.contains("byte path: on"), "\(label): \(explained)", file: file, line: line)
            XCTAssertTrue(explained.contains("convolution"), "\(label): \(explained)", file: file, line: line)
            try TestImages.checkSchedules(
                image, rect: rect, format: src.format, alpha: alpha, expected: expected, schedules: schedules, strict: true,
                label: label, file: file, line: line)
            if exact {
                var out = try PixelBuffer(width: Int(rect.width), height: Int(rect.height), format: src.format, alphaMode: alpha)
                try RenderContext(colorManagement: .none).render(image, rect: rect, to: &out)
                XCTAssertTrue(out == expected, "\(label): not exact", file: file, line: line)
            }
        }
    }

    func testEveryWidthUpTo45AgainstFloatPath() throws {
        for w in 1...45 {
            let h = 1 + (w * 7) % 12
            let premultiplied = TestImages.randomBytes(w, h, alpha: .premultiplied, seed: UInt64(700 + w))
            try check(premultiplied, alpha: .premultiplied, schedules: w % 11 == 0, wide: w % 4 == 0)
            let opaque = TestImages.randomBytes(w, h, alpha: .straight, opaque: true, seed: UInt64(800 + w))
            try check(opaque, alpha: .straight, schedules: w % 11 == 0, wide: w % 4 == 1)
            try check(opaque, alpha: .premultiplied, schedules: false, wide: w % 4 == 2)
            let gray = TestImages.randomBytes(w, h, format: .gray8, seed: UInt64(900 + w))
            try check(gray, alpha: .straight, schedules: w % 11 == 0, wide: w % 4 == 3)
        }
    }

    func testLargerImagesAllSchedulesAndOffsets() throws {
        for (w, h, alpha, opaque) in [
            (131, 67, AlphaMode.premultiplied, false), (96, 70, .straight, true), (203, 41, .premultiplied, true),
        ] {
            let src = TestImages.randomBytes(w, h, alpha: alpha, opaque: opaque, seed: UInt64(w * h))
            try check(src, alpha: alpha, schedules: true)
            // A render rect that starts inside and crosses the edge (other alignments).
            let image = try Image(src).clampedToExtent().convolved3x3(weights: Self.sharpen)
            let rect = Rect(x: 13, y: 5, width: Double(w - 10), height: Double(h - 9))
            let (expected, explained) = try TestImages.floatPathAndExplain(image, rect: rect, format: .rgba8, alpha: alpha)
            XCTAssertTrue(explained.contains("byte path: on"), explained)
            try TestImages.checkSchedules(
                image, rect: rect, format: .rgba8, alpha: alpha, expected: expected, schedules: true, strict: true,
                label: "offset rect \(w)x\(h)", file: #filePath, line: #line)
        }
        let gray = TestImages.randomBytes(203, 51, format: .gray8, seed: 9)
        try check(gray, alpha: .straight, schedules: true)
    }

    func testExplainAndRefusals() throws {
        let src = TestImages.randomBytes(60, 40, alpha: .premultiplied, seed: 5)
        let img = Image(src)
        let probe = try PixelBuffer(width: 60, height: 40, format: .rgba8, alphaMode: .premultiplied)
        let sharpened = try img.clampedToExtent().convolved3x3(weights: Self.sharpen).cropped(to: img.extent)
        let on = try RenderContext(colorManagement: .none).explain(sharpened, rect: img.extent, into: probe)
        XCTAssertTrue(on.contains("byte path: on"), on)
        XCTAssertTrue(on.contains("3x3 convolution, fixed-point weights"), on)
        var options = RenderContext.Options(colorManagement: .none)
        options.usesBytePath = false
        XCTAssertTrue(
            try RenderContext(options: options).explain(sharpened, rect: img.extent, into: probe).contains("byte path: off"))
        // Linear light stays in float.
        let srgb = try PixelBuffer(width: 60, height: 40, format: .rgba8, colorEncoding: .sRGB, alphaMode: .premultiplied)
        let linear = try RenderContext().explain(Image(srgb).convolved3x3(weights: Self.sharpen), rect: img.extent, into: srgb)
        XCTAssertTrue(linear.contains("byte path: off: convolving in linear light"), linear)
        // Straight translucent pixels stay in float.
        let straight = TestImages.randomBytes(60, 40, alpha: .straight, seed: 6)
        let sprobe = try PixelBuffer(width: 60, height: 40, format: .rgba8, alphaMode: .straight)
        let s = try RenderContext(colorManagement: .none).explain(
            Image(straight).clampedToExtent().convolved3x3(weights: Self.sharpen).cropped(to: img.extent), rect: img.extent,
            into: sprobe)
        XCTAssertTrue(s.contains("byte path: off: straight alpha"), s)
        // Opaque into straight: weights summing to 2 would be unpremultiplied; edges reading
        // transparent pixels too.
        let opaque = TestImages.randomBytes(60, 40, alpha: .straight, opaque: true, seed: 7)
        let twice = try Image(opaque).clampedToExtent().convolved3x3(weights: Self.sharpen.map { $0 * 2 })
            .cropped(to: img.extent)
        let t = try RenderContext(colorManagement: .none).explain(twice, rect: img.extent, into: sprobe)
        XCTAssertTrue(t.contains("sum to 2"), t)
        let edges = try Image(opaque).convolved3x3(weights: Self.sharpen)
        let e = try RenderContext(colorManagement: .none).explain(edges, rect: img.extent, into: sprobe)
        XCTAssertTrue(e.contains("read transparent pixels"), e)
        // Weights whose quantization error reaches half a unit: float.
        let coarse = try img.clampedToExtent().convolved3x3(weights: [0, 0, 0, 0, 1000.3, 0, 0, 0, -999.3])
            .cropped(to: img.extent)
        let c = try RenderContext(colorManagement: .none).explain(coarse, rect: img.extent, into: probe)
        XCTAssertTrue(c.contains("byte path: off: the fixed-point weights"), c)
    }
}
