import CSIMD
import XCTest

@testable import PixelFlow
@testable import PixelFlowEngine

/// The 16-bit prepass of byte resamples (ByteForms+Shrink.swift): integer box shrinks, the
/// thumbnail's box shrink + Lanczos-3, and resampling straight translucent alpha (premultiplied
/// on the fly, unpremultiplied on store). Against the float path: alpha and premultiplied
/// values within 1 unit; straight colors within 1 unit where the output alpha is at least 64
/// and within 1 + 64 / alpha below (alpha 0: the color is the float path's rounding noise and
/// is not compared). The same bytes for every schedule; kernels against scalar references.
final class ByteShrinkTests: XCTestCase {
    /// Random 8-bit pixels (`TestImages.randomBytes`); alpha "straight", "premultiplied" (color
    /// <= alpha) or "opaque" (255, straight).
    func bytes(_ width: Int, _ height: Int, format: PixelFormat = .rgba8, alpha: String, seed: UInt64) -> PixelBuffer {
        TestImages.randomBytes(
            width, height, format: format, alpha: alpha == "premultiplied" ? .premultiplied : .straight,
            opaque: alpha == "opaque", seed: seed)
    }

    func render(_ image: Image, _ rect: Rect, format: PixelFormat, alpha: AlphaMode, _ options: RenderContext.Options)
        throws -> PixelBuffer
    {
        var out = try PixelBuffer(width: Int(rect.width), height: Int(rect.height), format: format, alphaMode: alpha)
        try RenderContext(options: options).render(image, rect: rect, to: &out)
        return out
    }

    /// The renders tested on `src`: box shrinks, thumbnails (box + Lanczos), Lanczos and
    /// bilinear scales.
    func cases(_ src: PixelBuffer) throws -> [(String, Image, Rect)] {
        let img = Image(src)
        let w = src.width, h = src.height
        var out: [(String, Image, Rect)] = []
        for k in [2, 3] where w >= k && h >= k {
            let o = IntRect(x: 0, y: 0, width: (w + k - 1) / k, height: (h + k - 1) / k)
            let box = Image(node: Node(.warp(.boxShrink(factor: k, output: o)), inputs: [img.node], extent: o.rect))
            out.append(("box 1/\(k)", box, o.rect))
        }
        for tw in [Swift.max(1, w / 5), Swift.max(1, w / 2)] {
            let t = try img.thumbnail(width: tw)
            out.append(("thumbnail \(tw)", t, t.extent))
        }
        if w >= 4, h >= 4 {
            let t = try img.thumbnail(width: Swift.max(1, w / 4), height: Swift.max(1, h / 5), contentMode: .fill)
            out.append(("thumbnail fill", t, t.extent))
        }
        let l = try img.lanczosScaled(scale: 0.4)
        out.append(("lanczos 0.4", l, l.extent))
        let b = try img.transformed(by: AffineTransform(scaleX: 0.5, y: 0.5))
        out.append(("bilinear 0.5", b, IntRect(covering: b.extent).rect))
        return out
    }

    /// Every case of `src` into `format` with `alpha`: byte path on (explain), within the bound
    /// of the float path; with `schedules`, the same bytes for threads 1...3 and three tile sizes.
    func check(_ src: PixelBuffer, alpha: AlphaMode, schedules: Bool, file: StaticString = #filePath, line: UInt = #line)
        throws
    {
        for (name, image, rect) in try cases(src) where rect.width >= 1 && rect.height >= 1 {
            let label = "\(name) of \(src.width)x\(src.height) \(src.format) \(src.alphaMode) into \(alpha)"
            let (expected, explained) = try TestImages.floatPathAndExplain(image, rect: rect, format: src.format, alpha: alpha)
            let isIdentity = image.extent == Image(src).extent && !name.hasPrefix("box")
            if !isIdentity {
                XCTAssertTrue(explained.contains("byte path: on"), "\(label): \(explained)", file: file, line: line)
            }
            try TestImages.checkSchedules(
                image, rect: rect, format: src.format, alpha: alpha, expected: expected, schedules: schedules, label: label,
                file: file, line: line)
        }
    }

    func testEverySizeUpTo45AgainstFloatPath() throws {
        for w in 1...45 {
            let h = (w * 7) % 45 + 1
            for (i, alpha) in ["straight", "premultiplied", "opaque"].enumerated() {
                let src = bytes(w, h, alpha: alpha, seed: UInt64(100 * w + i))
                for dest in [AlphaMode.straight, .premultiplied] {
                    try check(src, alpha: dest, schedules: w % 11 == 0)
                }
            }
            try check(bytes(w, h, format: .gray8, alpha: "opaque", seed: UInt64(7 * w)), alpha: .straight, schedules: w % 11 == 0)
        }
    }

    func testLargerImagesAndAllSchedules() throws {
        for (w, h, alpha) in [(97, 61, "straight"), (130, 45, "opaque"), (64, 64, "premultiplied")] {
            let src = bytes(w, h, alpha: alpha, seed: UInt64(w * h))
            try check(src, alpha: .straight, schedules: true)
            try check(src, alpha: .premultiplied, schedules: true)
        }
    }

    func testExplainNamesTheFormAndOptionsForceFloat() throws {
        let src = bytes(40, 30, alpha: "straight", seed: 3)
        let t = try Image(src).thumbnail(width: 8)
        let dest = try PixelBuffer(width: 8, height: 6, format: .rgba8, alphaMode: .straight)
        let on = try RenderContext(colorManagement: .none).explain(t, rect: t.extent, into: dest)
        XCTAssertTrue(on.contains("byte path: on"), on)
        XCTAssertTrue(on.contains("after a 1/2 box shrink, premultiplied in 16 bits, unpremultiplied on store"), on)
        var off = RenderContext.Options(colorManagement: .none)
        off.usesBytePath = false
        let why = try RenderContext(options: off).explain(t, rect: t.extent, into: dest)
        XCTAssertTrue(why.contains("byte path: off"), why)
        // Linear light stays in float.
        let linear = try RenderContext(colorManagement: .linear).explain(t, rect: t.extent, into: dest)
        XCTAssertTrue(linear.contains("byte path: off: resampling in linear light"), linear)
    }

    /// A box shrink alone of a premultiplied or opaque source runs as exact means: the bytes
    /// are the rounded (half up) means of the source bytes, 0 units from a scalar reference.
    func testBoxShrinkAloneIsExactMeans() throws {
        for (w, h, k, format, alpha) in [
            (45, 31, 2, PixelFormat.rgba8, "premultiplied"), (37, 20, 3, .rgba8, "opaque"), (33, 17, 4, .gray8, "opaque"),
            (5, 5, 7, .rgba8, "premultiplied"),
        ] {
            let src = bytes(w, h, format: format, alpha: alpha, seed: UInt64(w + k))
            let o = IntRect(x: 0, y: 0, width: (w + k - 1) / k, height: (h + k - 1) / k)
            let box = Image(node: Node(.warp(.boxShrink(factor: k, output: o)), inputs: [Image(src).node], extent: o.rect))
            let explained = try RenderContext(colorManagement: .none).explain(
                box, rect: o.rect,
                into: try PixelBuffer(width: o.width, height: o.height, format: format, alphaMode: src.alphaMode))
            XCTAssertTrue(explained.contains("exact means"), explained)
            for threads in [1, 3] {
                let out = try render(
                    box, o.rect, format: format, alpha: src.alphaMode,
                    RenderContext.Options(threadCount: threads, tileHeight: 3, colorManagement: .none))
                let bpp = format.bytesPerPixel
                var worst = 0
                out.withUnsafeBytes { po in
                    src.withUnsafeBytes { ps in
                        for y in 0..<o.height {
                            for x in 0..<o.width {
                                for c in 0..<bpp {
                                    var sum = 0, n = 0
                                    for sy in k * y..<Swift.min(h, k * y + k) {
                                        for sx in k * x..<Swift.min(w, k * x + k) {
                                            sum += Int(ps[sy * src.bytesPerRow + sx * bpp + c]); n += 1
                                        }
                                    }
                                    worst = Swift.max(
                                        worst, Swift.abs(Int(po[y * out.bytesPerRow + x * bpp + c]) - (sum + n / 2) / n))
                                }
                            }
                        }
                    }
                }
                XCTAssertEqual(worst, 0, "\(w)x\(h) 1/\(k) \(format)")
            }
        }
    }

    // MARK: Kernels against scalar references

    func testBoxShrinkKernelAgainstScalarMeans() {
        var rng = SeededRandom(seed: 9)
        for bpp in [1, 4] {
            for k in [1, 2, 3, 4, 7] {
                for inWidth in [1, 2, 5, 16, 17, 33] {
                    for rowCount in Set([1, k]) {
                        let rows = (0..<rowCount).map { _ in
                            (0..<inWidth * bpp).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
                        }
                        let outWidth = (inWidth + k - 1) / k
                        for mode in 0...2 where mode != 2 || bpp == 4 {
                            var scratch = [UInt32](repeating: 0, count: inWidth * bpp)
                            var out8 = [UInt8](repeating: 0, count: outWidth * bpp)
                            var out16 = [Int16](repeating: 0, count: outWidth * bpp)
                            let pointers = rows.map { $0.withUnsafeBufferPointer { UnsafePointer<UInt8>?($0.baseAddress!) } }
                            withExtendedLifetime(rows) {
                                pointers.withUnsafeBufferPointer { p in
                                    if mode == 0 {
                                        pf_u8_box_shrink_run(
                                            p.baseAddress!, rowCount, bpp, inWidth, k, outWidth, 0, &scratch, &out8)
                                    } else {
                                        pf_u8_box_shrink_run(
                                            p.baseAddress!, rowCount, bpp, inWidth, k, outWidth, Int32(mode), &scratch, &out16)
                                    }
                                }
                            }
                            for i in 0..<outWidth {
                                let cols = i * k..<Swift.min(inWidth, i * k + k)
                                let n = cols.count * rowCount
                                for c in 0..<bpp {
                                    // Premultiplied (mode 2): c * a / 255 * 64, alpha a * 64, exactly.
                                    var sum = 0, exact = 0.0
                                    for r in rows {
                                        for x in cols {
                                            let v = Int(r[x * bpp + c])
                                            sum += v
                                            let a = Double(r[x * bpp + 3 % bpp])
                                            exact +=
                                                mode == 2 ? (c == 3 ? Double(v) * 64 : Double(v) * a / 255 * 64) : Double(v) * 64
                                        }
                                    }
                                    if mode == 0 {
                                        XCTAssertEqual(
                                            Int(out8[i * bpp + c]), (sum + n / 2) / n, "k \(k) bpp \(bpp) w \(inWidth) i \(i)")
                                    } else {
                                        // Within one 64th of the exact mean, plus rounding.
                                        let d = Swift.abs(Double(out16[i * bpp + c]) - exact / Double(n))
                                        XCTAssertLessThanOrEqual(d, 1.5, "mode \(mode) k \(k) bpp \(bpp) i \(i) c \(c)")
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    func testSixteenBitVerticalPassAgainstScalarSums() {
        var rng = SeededRandom(seed: 11)
        for taps in 1...13 {
            for n in [1, 7, 8, 15, 16, 17, 40] {
                let rows = (0..<taps).map { _ in (0..<n).map { _ in Int16(truncatingIfNeeded: rng.next() % 20000) - 2000 } }
                let weights = (0..<taps).map { _ in Int16(truncatingIfNeeded: Int(rng.next() % 12000) - 3000) }
                var out = [Int16](repeating: 0, count: n)
                let pointers = rows.map { $0.withUnsafeBufferPointer { UnsafePointer<Int16>?($0.baseAddress!) } }
                withExtendedLifetime(rows) {
                    pointers.withUnsafeBufferPointer { p in pf_i16_resample_v_run(p.baseAddress!, weights, taps, n, &out) }
                }
                for i in 0..<n {
                    var acc = 1 << 13
                    for k in 0..<taps { acc += Int(rows[k][i]) * Int(weights[k]) }
                    XCTAssertEqual(Int(out[i]), Swift.min(32767, Swift.max(-32768, acc >> 14)), "taps \(taps) n \(n) i \(i)")
                }
            }
        }
    }

    func testUnpremultiplyingHorizontalPassAgainstScalarReference() {
        var rng = SeededRandom(seed: 12)
        let pixels = 30, width = 12, maxTaps = 5
        // Premultiplied 16-bit pixels (color <= alpha), some transparent.
        var src = [Int16](repeating: 0, count: pixels * 4)
        for p in 0..<pixels {
            let a = rng.next() % 5 == 0 ? 0 : Int(rng.next() % 16321)
            src[p * 4 + 3] = Int16(a)
            for c in 0..<3 { src[p * 4 + c] = Int16(a == 0 ? 0 : Int(rng.next() % UInt64(a + 1))) }
        }
        var starts = [Int32](), counts = [Int32](), weights = [Int16](repeating: 0, count: width * maxTaps)
        for i in 0..<width {
            let n = 1 + Int(rng.next() % UInt64(maxTaps))
            starts.append(Int32(rng.next() % UInt64(pixels - n)))
            counts.append(Int32(n))
            for k in 0..<n { weights[i * maxTaps + k] = Int16(Int(rng.next() % 14000) - 2000) }
        }
        var out = [UInt8](repeating: 0, count: width * 4)
        pf_u8_resample_h_from16_unpremultiply_run(src, starts, counts, weights, maxTaps, width, &out)
        for i in 0..<width {
            var acc = [Int](repeating: 0, count: 4)
            for k in 0..<Int(counts[i]) {
                for c in 0..<4 { acc[c] += Int(src[(Int(starts[i]) + k) * 4 + c]) * Int(weights[i * maxTaps + k]) }
            }
            if acc[3] <= 0 {
                XCTAssertEqual(Array(out[i * 4..<i * 4 + 4]), [0, 0, 0, 0])
                continue
            }
            XCTAssertEqual(Int(out[i * 4 + 3]), Swift.min(255, (acc[3] + (1 << 19)) >> 20), "alpha \(i)")
            for c in 0..<3 {
                let v = Swift.min(255, Swift.max(0, Int((255 * Double(acc[c]) / Double(acc[3]) + 0.5).rounded(.down))))
                XCTAssertLessThanOrEqual(Swift.abs(Int(out[i * 4 + c]) - v), 1, "color \(i) \(c)")
            }
        }
    }
}
