import CSIMD
import XCTest

@testable import PixelFlow
@testable import PixelFlowKernels
@testable import PixelFlowGraph
@testable import PixelFlowEngine

/// The byte form of resampling (bilinear scales and Lanczos-3 on bytes with fixed-point taps):
/// within 1 unit of the float path and of a scalar reference on every pixel and channel, the
/// same bytes for every schedule, and refused where premultiplication or linear light would
/// change the result.
final class ByteResampleTests: XCTestCase {
    func bytes(
        _ width: Int, _ height: Int, format: PixelFormat = .rgba8, alpha: AlphaMode = .premultiplied,
        opaque: Bool = false, seed: UInt64 = 1
    ) -> PixelBuffer {
        TestImages.randomBytes(width, height, format: format, alpha: alpha, opaque: opaque, seed: seed)
    }

    /// The resamplings tested, of `img` (extent `w` x `h`).
    func resamplings(_ img: Image, _ w: Int, _ h: Int) throws -> [(String, Image, Rect)] {
        let full = { (i: Image) in i.extent }
        var out: [(String, Image, Rect)] = []
        for (sx, sy) in [(0.5, 0.5), (0.37, 0.61), (1.7, 1.3), (0.25, 2.0)] {
            let i = try img.transformed(by: AffineTransform(scaleX: sx, y: sy))
            out.append(("bilinear \(sx)x\(sy)", i, IntRect(covering: full(i)).rect))
        }
        let shifted = try img.transformed(
            by: AffineTransform(scaleX: 0.5, y: 0.75).concatenating(AffineTransform(translationX: 3.3, y: -1.6)))
        out.append(("bilinear shifted", shifted, IntRect(covering: shifted.extent).rect))
        for s in [0.5, 0.3, 1.5] {
            let i = try img.lanczosScaled(scale: s)
            out.append(("lanczos \(s)", i, i.extent))
        }
        // The peer ops' edges: clamped, cropped 6 px outside, Lanczos to half.
        let peer = try img.clampedToExtent().cropped(to: Rect(x: -6, y: -6, width: w + 12, height: h + 12)).lanczosScaled(
            scale: 0.5)
        out.append(("lanczos clamped", peer, peer.extent))
        // A render rect partly outside the output (transparent there).
        let half = try img.transformed(by: AffineTransform(scaleX: 0.5, y: 0.5))
        out.append(("bilinear outside", half, Rect(x: -3, y: -2, width: Double(w / 2 + 5), height: Double(h / 2 + 4))))
        return out
    }

    /// Byte path against float path (at most 1 apart, `expectBytePath`), and the byte path's
    /// output the same for threads 1, 2, 3 and several tile sizes.
    func check(
        _ src: PixelBuffer, dest: PixelBuffer, expectBytePath: Bool = true,
        colorManagement: RenderContext.ColorManagement = .none, file: StaticString = #filePath, line: UInt = #line
    ) throws {
        for (name, image, rect) in try resamplings(Image(src), src.width, src.height) where rect.width >= 1 && rect.height >= 1 {
            // A Lanczos scale to the same size is an identity: the optimizer removes it.
            let isIdentity = name.hasPrefix("lanczos") && image.extent == Image(src).extent
            var floatOptions = RenderContext.Options(threadCount: 1, colorManagement: colorManagement)
            floatOptions.usesBytePath = false
            let expected = try TestImages.render(image, rect, like: dest, floatOptions)
            var first: PixelBuffer?
            for threads in [1, 2, 3] {
                for (tw, th) in [(256, 64), (37, 13), (7, 1)] {
                    let options = RenderContext.Options(
                        threadCount: threads, tileWidth: tw, tileHeight: th, colorManagement: colorManagement)
                    var probe = dest
                    if probe.width != Int(rect.width) || probe.height != Int(rect.height) {
                        probe = try PixelBuffer(
                            width: Int(rect.width), height: Int(rect.height), format: dest.format,
                            colorEncoding: dest.colorEncoding, alphaMode: dest.alphaMode)
                    }
                    let explained = try RenderContext(options: options).explain(image, rect: rect, into: probe)
                    let last = explained.split(separator: "\n").last.map(String.init) ?? ""
                    XCTAssertEqual(
                        last.hasPrefix("byte path: on"), expectBytePath && !isIdentity,
                        "\(name) \(src.width)x\(src.height): \(last)",
                        file: file, line: line)
                    let out = try TestImages.render(image, rect, like: dest, options)
                    let d = TestImages.maxDifference(out, expected)
                    XCTAssertLessThanOrEqual(
                        d, 1, "\(name) \(src.width)x\(src.height) \(src.format) \(src.alphaMode): \(d) from the float path",
                        file: file, line: line)
                    if let first {
                        XCTAssertTrue(
                            out == first, "\(name): threads \(threads), tiles \(tw)x\(th) differ", file: file, line: line)
                    } else {
                        first = out
                    }
                }
            }
        }
    }

    func testPremultipliedRGBA8WithinOneOfFloatPath() throws {
        for (i, (w, h)) in [(45, 37), (1, 1), (2, 3), (17, 5), (33, 64), (3, 1)].enumerated() {
            let src = bytes(w, h, seed: UInt64(10 + i))
            let dest = try PixelBuffer(width: 1, height: 1, format: .rgba8, alphaMode: .premultiplied)
            try check(src, dest: dest)
        }
    }

    func testOpaqueStraightRGBA8() throws {
        let src = bytes(29, 23, alpha: .straight, opaque: true, seed: 4)
        // Premultiplied destination: always on.
        try check(src, dest: try PixelBuffer(width: 1, height: 1, format: .rgba8, alphaMode: .premultiplied))
        // Straight destination: on where no tap reads outside the source (Lanczos).
        for (name, image, rect) in try resamplings(Image(src), 29, 23) where name.hasPrefix("lanczos") {
            let dest = try PixelBuffer(width: Int(rect.width), height: Int(rect.height), format: .rgba8, alphaMode: .straight)
            let explained = try RenderContext(colorManagement: .none).explain(image, rect: rect, into: dest)
            XCTAssertTrue(explained.contains("byte path: on"), "\(name): \(explained)")
            var floatOptions = RenderContext.Options(colorManagement: .none)
            floatOptions.usesBytePath = false
            let a = try TestImages.render(image, rect, like: dest, floatOptions)
            let b = try TestImages.render(image, rect, like: dest, RenderContext.Options(colorManagement: .none))
            XCTAssertLessThanOrEqual(TestImages.maxDifference(a, b), 1, name)
        }
        // A bilinear scale reads transparent pixels past the edges: the 16-bit prepass
        // unpremultiplies on store (ByteShrinkTests checks its values).
        let half = try Image(src).transformed(by: AffineTransform(scaleX: 0.5, y: 0.5))
        let dest = try PixelBuffer(width: 15, height: 12, format: .rgba8, alphaMode: .straight)
        let why = try RenderContext(colorManagement: .none).explain(
            half, rect: Rect(x: 0, y: 0, width: 15, height: 12), into: dest)
        XCTAssertTrue(why.contains("unpremultiplied on store"), why)
    }

    func testGray8() throws {
        for (i, (w, h)) in [(31, 19), (1, 2), (16, 16)].enumerated() {
            let src = bytes(w, h, format: .gray8, seed: UInt64(40 + i))
            try check(src, dest: try PixelBuffer(width: 1, height: 1, format: .gray8))
        }
    }

    func testRefusedWhereTheFloatPathWorksDifferently() throws {
        // Straight alpha that is not opaque: premultiplied in the 16-bit prepass (ByteShrinkTests).
        let straight = bytes(20, 10, alpha: .straight, seed: 5)
        let i = try Image(straight).lanczosScaled(scale: 0.5)
        let dest = try PixelBuffer(width: 10, height: 5, format: .rgba8, alphaMode: .premultiplied)
        let why = try RenderContext(colorManagement: .none).explain(i, rect: i.extent, into: dest)
        XCTAssertTrue(why.contains("byte path: on") && why.contains("premultiplied in 16 bits"), why)
        // Linear light with sRGB bytes: stays in float.
        let pm = bytes(20, 10, seed: 6)
        let j = try Image(pm).lanczosScaled(scale: 0.5)
        let why2 = try RenderContext(colorManagement: .linear).explain(j, rect: j.extent, into: dest)
        XCTAssertTrue(why2.contains("byte path: off: resampling in linear light"), why2)
        // Forced off by the options.
        var off = RenderContext.Options(colorManagement: .none)
        off.usesBytePath = false
        let why3 = try RenderContext(options: off).explain(j, rect: j.extent, into: dest)
        XCTAssertTrue(why3.contains("byte path: off: off in the context's options"), why3)
        // Rotations run as the affine byte warp where AVX2 is present (ByteWarpTests).
        let r = try Image(pm).transformed(by: AffineTransform(rotationAngle: 0.3))
        let why4 = try RenderContext(colorManagement: .none).explain(r, rect: Rect(x: 0, y: 0, width: 10, height: 5), into: dest)
        XCTAssertTrue(
            why4.contains(pf_csimd_uses_avx2() != 0 ? "byte path: on" : "byte path: off: an affine warp without AVX2"), why4)
    }

    // MARK: Against scalar references, independent of the engine

    /// The Lanczos-3 kernel, as Pillow defines it.
    func lanczos3(_ x: Double) -> Double {
        if x == 0 { return 1 }
        if Swift.abs(x) >= 3 { return 0 }
        let p = Double.pi * x
        return sin(p) / p * sin(p / 3) / (p / 3)
    }

    /// Pillow's antialiased Lanczos-3 weights of output `o` along an axis of `n` inputs onto `m`.
    func lanczosTaps(_ o: Int, _ n: Int, _ m: Int) -> [(Int, Double)] {
        let scale = Double(n) / Double(m), fs = Swift.max(1, scale), support = 3 * fs
        let center = (Double(o) + 0.5) * scale
        let lo = Swift.max(0, Int(center - support + 0.5)), hi = Swift.min(n, Int(center + support + 0.5))
        var t = (lo..<hi).map { ($0, lanczos3((Double($0) - center + 0.5) / fs)) }
        let total = t.reduce(0) { $0 + $1.1 }
        t = t.map { ($0.0, $0.1 / total) }
        return t
    }

    func testLanczosAndHalfBilinearAgainstScalarReference() throws {
        for (w, h, seed) in [(40, 30, 7), (13, 9, 8), (64, 3, 9)] {
            let src = bytes(w, h, seed: UInt64(seed))
            let ctx = RenderContext(colorManagement: .none)
            let dest = try PixelBuffer(width: 1, height: 1, format: .rgba8, alphaMode: .premultiplied)
            // Lanczos to 0.4.
            let img = try Image(src).lanczosScaled(scale: 0.4)
            let ow = Int(img.extent.width), oh = Int(img.extent.height)
            XCTAssertTrue(try ctx.explain(img, rect: img.extent, into: dest).contains("byte path: on"))
            let out = try TestImages.render(img, img.extent, like: dest, ctx.options)
            var worst = 0.0
            src.withUnsafeBytes { s in
                out.withUnsafeBytes { o in
                    for y in 0..<oh {
                        let ty = lanczosTaps(y, h, oh)
                        for x in 0..<ow {
                            let tx = lanczosTaps(x, w, ow)
                            for c in 0..<4 {
                                var acc = 0.0
                                for (sy, wy) in ty {
                                    for (sx, wx) in tx { acc += wx * wy * Double(s[sy * src.bytesPerRow + sx * 4 + c]) }
                                }
                                let ref = Swift.min(255, Swift.max(0, acc))
                                worst = Swift.max(worst, Swift.abs(Double(o[y * out.bytesPerRow + x * 4 + c]) - ref))
                            }
                        }
                    }
                }
            }
            // Within 1 unit of the rounded exact value: less than 1.5 from the exact value.
            XCTAssertLessThan(worst, 1.5, "lanczos \(w)x\(h)")
            // Bilinear half of an even-sized image: the 2x2 mean.
            let half = try Image(src).transformed(by: AffineTransform(scaleX: 0.5, y: 0.5))
            let hr = Rect(x: 0, y: 0, width: Double(w / 2), height: Double(h / 2))
            let hout = try TestImages.render(half, hr, like: dest, ctx.options)
            var hworst = 0.0
            src.withUnsafeBytes { s in
                hout.withUnsafeBytes { o in
                    for y in 0..<h / 2 {
                        for x in 0..<w / 2 {
                            for c in 0..<4 {
                                var acc = 0.0
                                for (dx, dy) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
                                    acc += Double(s[(2 * y + dy) * src.bytesPerRow + (2 * x + dx) * 4 + c])
                                }
                                hworst = Swift.max(hworst, Swift.abs(Double(o[y * hout.bytesPerRow + x * 4 + c]) - acc / 4))
                            }
                        }
                    }
                }
            }
            XCTAssertLessThanOrEqual(hworst, 0.5, "half \(w)x\(h)")
        }
    }

    /// The C row kernels against a scalar sum in Double, with random taps and weights.
    func testRowKernelsAgainstScalarSums() {
        var rng = SeededRandom(seed: 77)
        for bpp in [1, 4] {
            for width in [1, 2, 3, 7, 16, 17, 33] {
                // Vertical: `taps` rows of bytes into 16-bit values.
                let n = width * bpp
                for taps in [0, 1, 2, 5, 12] {
                    let rows = (0..<taps).map { _ in (0..<n).map { _ in UInt8(truncatingIfNeeded: rng.next() >> 11) } }
                    let w = (0..<taps).map { _ in Int16(Int(rng.next() % 9000) - 2000) }
                    var out = [Int16](repeating: 1, count: n)
                    rows.withPointers { p in pf_u8_resample_v_to16_run(p, w, taps, n, &out) }
                    for i in 0..<n {
                        var acc = 0.0
                        for k in 0..<taps { acc += Double(rows[k][i]) * Double(w[k]) }
                        let ref = Swift.min(32767, Swift.max(-32768, acc / 256))
                        XCTAssertLessThanOrEqual(Swift.abs(Double(out[i]) - ref), 0.5, "v taps \(taps) n \(n)")
                    }
                }
                // Horizontal: 16-bit values into bytes.
                let srcWidth = 2 * width + 12
                let src = (0..<srcWidth * bpp).map { _ in Int16(Int(rng.next() % 20000) - 2000) }
                let maxTaps = 12
                var starts: [Int32] = [], counts: [Int32] = [], weights = [Int16](repeating: 0, count: width * maxTaps)
                for i in 0..<width {
                    let c = Int(rng.next() % UInt64(maxTaps + 1))
                    starts.append(Int32(rng.next() % UInt64(srcWidth - c + 1)))
                    counts.append(Int32(c))
                    for k in 0..<c { weights[i * maxTaps + k] = Int16(Int(rng.next() % 9000) - 1000) }
                }
                var bytes = [UInt8](repeating: 1, count: width * bpp)
                pf_u8_resample_h_from16_run(src, bpp, starts, counts, weights, maxTaps, width, &bytes)
                for i in 0..<width {
                    for c in 0..<bpp {
                        var acc = 0.0
                        for k in 0..<Int(counts[i]) {
                            acc += Double(weights[i * maxTaps + k]) * Double(src[(Int(starts[i]) + k) * bpp + c])
                        }
                        let ref = Swift.min(255, Swift.max(0, acc / Double(1 << 20)))
                        XCTAssertLessThanOrEqual(Swift.abs(Double(bytes[i * bpp + c]) - ref), 0.5, "h bpp \(bpp) width \(width)")
                    }
                }
                // The 2x box form equals the general kernel with weights 1/2, 1/2.
                let small = src.map { Int16(Swift.abs(Int($0)) % 16321) }
                var pairs = [UInt8](repeating: 0, count: width * bpp), general = pairs
                let halfWeights = [Int16](repeating: 8192, count: 2 * width)
                let pairStarts = (0..<width).map { Int32(2 * $0) }, two = [Int32](repeating: 2, count: width)
                pf_u8_resample_h_from16_pairs_run(small, bpp, width, &pairs)
                pf_u8_resample_h_from16_run(small, bpp, pairStarts, two, halfWeights, 2, width, &general)
                XCTAssertEqual(pairs, general, "pairs bpp \(bpp) width \(width)")
            }
        }
    }
}

extension Array where Element == [UInt8] {
    /// Calls `body` with a pointer to one pointer per row.
    fileprivate func withPointers<R>(_ body: (UnsafePointer<UnsafePointer<UInt8>?>) -> R) -> R {
        let copies = map { row -> UnsafeMutablePointer<UInt8> in
            let p = UnsafeMutablePointer<UInt8>.allocate(capacity: Swift.max(1, row.count))
            p.initialize(from: row, count: row.count)
            return p
        }
        defer { copies.forEach { $0.deallocate() } }
        let pointers: [UnsafePointer<UInt8>?] = copies.map { UnsafePointer($0) }
        return pointers.withUnsafeBufferPointer { body($0.baseAddress ?? UnsafePointer(bitPattern: 8)!) }
    }
}
