import XCTest
@testable import PixelFlow
@testable import PixelFlowKernels
@testable import PixelFlowGraph
@testable import PixelFlowEngine

/// The vectorized C row kernels (CSIMD.h) and the fast paths built on them, against the
/// Swift code they replace. Tolerance 0 everywhere: each fast path performs the same
/// floating-point operations in the same order.
final class StencilFastPathTests: XCTestCase {
    // MARK: 8-bit conversions

    /// Floats near every rounding boundary of the 8-bit quantizer, and special values.
    func quantizerProbes() -> [Float] {
        var v: [Float] = [
            0, -0, 1, -1, 0.5, 2, 255, 1e30, -1e30, .infinity, -.infinity, .nan,
            -.nan, .leastNonzeroMagnitude, -.leastNonzeroMagnitude, .greatestFiniteMagnitude,
            Float(bitPattern: 0x7FC0_0001), Float(bitPattern: 0xFFC0_0000),
        ]
        for k in -1...257 {
            // v * 255 + 0.5 crosses k at v = (k - 0.5) / 255.
            var lo = (Float(k) - 0.5) / 255, hi = lo
            for _ in 0..<80 {
                v.append(lo); v.append(hi)
                lo = lo.nextDown; hi = hi.nextUp
            }
        }
        return v
    }

    func testStoreRGBA8MatchesQuantize8() {
        let probes = quantizerProbes()
        // Pixels of four lanes taken from the probes with different shifts; lengths that are
        // not multiples of the 4-pixel step.
        for count in [1, 3, 4, 7, probes.count / 4] {
            for shift in 0..<4 {
                var src = [SIMD4<Float>]()
                for i in 0..<count {
                    let j = 4 * i + shift
                    src.append(
                        SIMD4(
                            probes[j % probes.count], probes[(j + 1) % probes.count],
                            probes[(j + 2) % probes.count], probes[(j + 3) % probes.count]))
                }
                var out = [SIMD4<UInt8>](repeating: SIMD4(repeating: 7), count: count + 1)
                var scratch = [SIMD4<Float>](repeating: .zero, count: count)
                src.withUnsafeBufferPointer { s in
                    out.withUnsafeMutableBytes { d in
                        scratch.withUnsafeMutableBufferPointer { sc in
                            storeRowRGBA(
                                s.baseAddress!, count: count, format: .rgba8, into: d.baseAddress!,
                                encodeSRGB: false, scratch: sc.baseAddress!)
                        }
                    }
                }
                for i in 0..<count {
                    XCTAssertEqual(out[i], PixelBuffer._quantize8(src[i]), "\(src[i])")
                }
                XCTAssertEqual(out[count], SIMD4(repeating: 7), "wrote past the end")
            }
        }
    }

    func testLoadRGBA8MatchesScalarConversion() {
        let bytes: [SIMD4<UInt8>] = (0..<256).map { (i: Int) -> SIMD4<UInt8> in
            let a = UInt8(i), b = UInt8(255 - i), c = UInt8((i * 7) & 255)
            return SIMD4<UInt8>(a, b, c, a)
        }
        for count in [1, 2, 5, 256] {
            var out = [SIMD4<Float>](repeating: .zero, count: count)
            bytes.withUnsafeBytes { s in
                out.withUnsafeMutableBufferPointer {
                    loadRowRGBA(s.baseAddress!, format: .rgba8, count: count, into: $0.baseAddress!, decodeSRGB: false)
                }
            }
            for i in 0..<count {
                let v = bytes[i]
                XCTAssertEqual(out[i], SIMD4(Float(v.x), Float(v.y), Float(v.z), Float(v.w)) * (1 / 255))
            }
        }
    }

    // MARK: 3x3 correlation

    func testCorrelate3x3MatchesScalarLoop() {
        var rng = SeededRandom(seed: 31)
        func row(_ n: Int) -> [SIMD4<Float>] {
            (0..<n).map { _ in SIMD4(rng.unit(), rng.unit(), rng.unit(), rng.unit()) * 4 - 2 }
        }
        for count in [0, 1, 2, 3, 4, 5, 9, 16, 17] {
            let rows = (0..<3).map { _ in row(count + 2) }
            let weights: [Float] = (0..<9).map { _ in rng.unit() * 2 - 1 }
            for (bias, rgbOnly) in [(Float(0), false), (0.25, false), (-0.5, true), (-0.0, false)] {
                var out = [SIMD4<Float>](repeating: .zero, count: count)
                let ptrs = rows.map { r -> UnsafeMutablePointer<SIMD4<Float>> in
                    let p = UnsafeMutablePointer<SIMD4<Float>>.allocate(capacity: r.count)
                    p.initialize(from: r, count: r.count)
                    return p
                }
                defer { ptrs.forEach { $0.deallocate() } }
                let cptrs = ptrs.map { UnsafePointer($0) }
                cptrs.withUnsafeBufferPointer { rp in
                    weights.withUnsafeBufferPointer { w in
                        out.withUnsafeMutableBufferPointer {
                            correlate2D(
                                rp.baseAddress!, kw: 3, kh: 3, weights: w, bias: bias, rgbOnly: rgbOnly,
                                count: count, into: $0.baseAddress!)
                        }
                    }
                }
                let b = rgbOnly ? SIMD4<Float>(bias, bias, bias, 0) : SIMD4<Float>(repeating: bias)
                for x in 0..<count {
                    var acc = SIMD4<Float>.zero
                    for j in 0..<3 { for i in 0..<3 { acc = acc + rows[j][x + i] * weights[j * 3 + i] } }
                    acc = acc + b
                    if rgbOnly { acc.w = rows[1][x + 1].w }
                    // Bit patterns, so that a zero's sign counts too.
                    XCTAssertEqual(out[x].x.bitPattern, acc.x.bitPattern, "count \(count) x \(x)")
                    XCTAssertEqual(out[x].y.bitPattern, acc.y.bitPattern)
                    XCTAssertEqual(out[x].z.bitPattern, acc.z.bitPattern)
                    XCTAssertEqual(out[x].w.bitPattern, acc.w.bitPattern)
                }
            }
        }
    }

    // MARK: Separable scale warps

    /// `affineWarpRow` (the generic per-pixel path) over a tile holding the whole source.
    func genericWarp(_ working: PixelBuffer, _ t: PixelFlow.AffineTransform, rect: IntRect) -> [SIMD4<Float>] {
        var w = working
        var out = [SIMD4<Float>](repeating: .zero, count: rect.width * rect.height)
        let inv = t.inverted()!
        w.withUnsafeMutableBytes { raw in
            let tile = Tile(
                base: raw.baseAddress!.assumingMemoryBound(to: SIMD4<Float>.self), stride: working.bytesPerRow / 16,
                rect: IntRect(x: 0, y: 0, width: working.width, height: working.height))
            out.withUnsafeMutableBufferPointer { o in
                for y in 0..<rect.height {
                    affineWarpRow(
                        tile, inverse: inv, sampling: .bilinear, x0: rect.x, y: rect.y + y, count: rect.width,
                        into: o.baseAddress! + y * rect.width)
                }
            }
        }
        return out
    }

    func transforms() -> [(String, PixelFlow.AffineTransform)] {
        [
            ("half", PixelFlow.AffineTransform(scaleX: 0.5, y: 0.5)),
            ("double", PixelFlow.AffineTransform(scaleX: 2, y: 2)),
            (
                "uneven",
                PixelFlow.AffineTransform(scaleX: 0.37, y: 1.6).concatenating(
                    PixelFlow.AffineTransform(translationX: 3.25, y: -2.5))
            ),
            (
                "flip",
                PixelFlow.AffineTransform(scaleX: -1, y: 0.75).concatenating(PixelFlow.AffineTransform(translationX: 40, y: 0.3))
            ),
            ("shift", PixelFlow.AffineTransform(translationX: 0.3, y: -0.6)),
            (
                "half, shifted",
                PixelFlow.AffineTransform(scaleX: 0.5, y: 0.5).concatenating(PixelFlow.AffineTransform(translationX: 1, y: 3))
            ),
        ]
    }

    func testScaleWarpMatchesGenericPath() throws {
        let sources: [(String, PixelBuffer)] = [
            ("f32 premultiplied", TestImages.random(width: 37, height: 29, format: .rgbaF32, seed: 3, alphaMode: .premultiplied)),
            ("rgba8 straight", TestImages.random(width: 37, height: 29, format: .rgba8, seed: 4)),
            ("f32 straight", TestImages.random(width: 37, height: 29, format: .rgbaF32, seed: 5, alphaMode: .straight)),
            // Even sizes: whole rows of 2x2 blocks, averaged straight from the bytes.
            ("rgba8 premultiplied", TestImages.random(width: 38, height: 30, format: .rgba8, seed: 6, alphaMode: .premultiplied)),
        ]
        for cm in [RenderContext.ColorManagement.none, .linear] {
            for (sname, b) in sources {
                let base = RenderContext(threadCount: 1, colorManagement: cm)
                // The input as a source (read in place or converted two rows at a time) and
                // behind a point operation (computed into a tile).
                let inputs: [(String, Image)] = [("source", Image(b)), ("tile", try Image(b).colorInverted())]
                for (iname, input) in inputs {
                    let working = try base.makeBuffer(
                        input, format: .rgbaF32, colorEncoding: cm == .linear ? .linear : .sRGB,
                        alphaMode: .premultiplied)
                    for (tname, t) in transforms() {
                        // A rect reaching past the warped image on every side (edges, transparent outside).
                        let extent = IntRect(covering: try input.transformed(by: t).extent)
                        let rect = extent.outset(3, 2)
                        // The generic rows; the engine clears what lies outside the warp's extent.
                        var expected = genericWarp(working, t, rect: rect)
                        for y in 0..<rect.height {
                            for x in 0..<rect.width
                            where !extent.contains(IntRect(x: rect.x + x, y: rect.y + y, width: 1, height: 1)) {
                                expected[y * rect.width + x] = .zero
                            }
                        }
                        for (threads, tw, th) in [(1, 16, 16), (2, 64, 64), (3, 256, 64), (1, 7, 5)] {
                            let ctx = RenderContext(threadCount: threads, tileWidth: tw, tileHeight: th, colorManagement: cm)
                            let out = try ctx.makeBuffer(
                                try input.transformed(by: t), rect: rect.rect, format: .rgbaF32,
                                colorEncoding: cm == .linear ? .linear : .sRGB, alphaMode: .premultiplied)
                            var first: String?
                            for y in 0..<rect.height {
                                for x in 0..<rect.width where first == nil && out[x, y] != expected[y * rect.width + x] {
                                    first = "(\(rect.x + x), \(rect.y + y)): \(out[x, y]) != \(expected[y * rect.width + x])"
                                }
                            }
                            XCTAssertNil(first, "\(cm) \(sname) \(tname) \(iname) threads \(threads) tile \(tw)x\(th) in \(rect)")
                        }
                    }
                }
            }
        }
    }

    func testHalfScaleIsTheTwoByTwoMean() throws {
        let b = TestImages.random(width: 64, height: 48, format: .rgbaF32, seed: 9, alphaMode: .premultiplied)
        let out = try RenderContext(threadCount: 2, colorManagement: .none)
            .makeBuffer(
                try Image(b).transformed(by: PixelFlow.AffineTransform(scaleX: 0.5, y: 0.5)), format: .rgbaF32,
                colorEncoding: .sRGB, alphaMode: .premultiplied)
        XCTAssertEqual(out.width, 32)
        var m: Float = 0
        for y in 0..<24 {
            for x in 0..<32 {
                let mean = (b[2 * x, 2 * y] + b[2 * x + 1, 2 * y] + b[2 * x, 2 * y + 1] + b[2 * x + 1, 2 * y + 1]) * 0.25
                m = max(m, abs(out[x, y] - mean).max())
            }
        }
        XCTAssertLessThanOrEqual(m, 1e-6)
    }

    // MARK: Stencils reading their input in place

    func testConvolutionOfAClampedFloatSourceMatchesALoop() throws {
        let b = TestImages.random(width: 41, height: 27, format: .rgbaF32, seed: 13, alphaMode: .premultiplied)
        let w: [Double] = [-2, -1, 0, -1, 1, 1, 0, 1, 2]
        let image = try Image(b).clampedToExtent().convolved3x3(weights: w).cropped(to: b.bounds)
        for (threads, tw, th) in [(1, 16, 16), (2, 64, 64), (3, 256, 64), (2, 5, 7)] {
            let out = try RenderContext(threadCount: threads, tileWidth: tw, tileHeight: th, colorManagement: .none)
                .makeBuffer(image, format: .rgbaF32, colorEncoding: .sRGB, alphaMode: .premultiplied)
            var first: String?
            for y in 0..<27 {
                for x in 0..<41 {
                    var acc = SIMD4<Float>.zero
                    for j in 0..<3 {
                        for i in 0..<3 {
                            acc = acc + b[min(max(x + i - 1, 0), 40), min(max(y + j - 1, 0), 26)] * Float(w[j * 3 + i])
                        }
                    }
                    if first == nil, out[x, y] != acc { first = "(\(x), \(y)): \(out[x, y]) != \(acc)" }
                }
            }
            XCTAssertNil(first, "threads \(threads) tile \(tw)x\(th)")
        }
    }

    // MARK: Clamp to extent

    func testClampedToExtentMatchesClampedCoordinates() throws {
        let b = TestImages.random(width: 23, height: 17, format: .rgbaF32, seed: 12, alphaMode: .premultiplied)
        let rect = Rect(x: -9, y: -6, width: 45, height: 31)
        for (tw, th) in [(16, 16), (5, 3), (64, 64)] {
            let out = try RenderContext(threadCount: 2, tileWidth: tw, tileHeight: th, colorManagement: .none)
                .makeBuffer(
                    Image(b).clampedToExtent(), rect: rect, format: .rgbaF32, colorEncoding: .sRGB, alphaMode: .premultiplied)
            var same = true
            for y in 0..<31 {
                for x in 0..<45 {
                    let sx = min(max(x - 9, 0), 22), sy = min(max(y - 6, 0), 16)
                    if out[x, y] != b[sx, sy] { same = false }
                }
            }
            XCTAssertTrue(same, "tile \(tw)x\(th)")
        }
    }
}
