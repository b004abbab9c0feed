import CSIMD
import XCTest

@testable import PixelFlow
@testable import PixelFlowGraph
@testable import PixelFlowEngine
@testable import PixelFlowKernels

/// The byte warps (ByteForms+Warp.swift): the 2x2 box of a bilinear half-size scale and affine
/// warps with fixed-point bilinear sampling. Within 1 unit of the float path on every pixel and
/// channel, the same bytes for every schedule, and each C kernel against a scalar reference.
final class ByteWarpTests: XCTestCase {
    /// Renders `image` over `rect` on the float path and on the byte path with three thread
    /// counts and three tile sizes: checks that `explain()` names `form` (or that the byte path
    /// is off when `form` is nil), that every byte path output is the same, and returns it
    /// with its largest difference from the float path.
    @discardableResult
    func check(
        _ name: String, _ image: Image, _ rect: Rect, like dest: PixelBuffer, form: String?,
        schedules: Bool = true, file: StaticString = #filePath, line: UInt = #line
    ) throws -> (PixelBuffer, Int) {
        var floatOptions = RenderContext.Options(threadCount: 1, colorManagement: .none)
        floatOptions.usesBytePath = false
        let expected = try TestImages.render(image, rect, like: dest, floatOptions)
        var first: PixelBuffer?
        var worst = 0
        let schedules = schedules ? [(1, 256, 64), (2, 37, 13), (3, 7, 1)] : [(2, 256, 64)]
        for (threads, tw, th) in schedules {
            let options = RenderContext.Options(threadCount: threads, tileWidth: tw, tileHeight: th, colorManagement: .none)
            let probe = try PixelBuffer(
                width: Int(rect.width), height: Int(rect.height), format: dest.format,
                colorEncoding: dest.colorEncoding, alphaMode: dest.alphaMode)
            let explained = try RenderContext(options: options).explain(image, rect: rect, into: probe)
            let last = explained.split(separator: "\n").last.map(String.init) ?? ""
            if let form {
                XCTAssertTrue(last.hasPrefix("byte path: on") && last.contains(form), "\(name): \(last)", file: file, line: line)
            } else {
                XCTAssertTrue(last.hasPrefix("byte path: off"), "\(name): \(last)", file: file, line: line)
            }
            let out = try TestImages.render(image, rect, like: dest, options)
            worst = Swift.max(worst, TestImages.maxDifference(out, expected))
            if let first {
                XCTAssertTrue(out == first, "\(name): threads \(threads), tiles \(tw)x\(th) differ", file: file, line: line)
            } else {
                first = out
            }
        }
        XCTAssertLessThanOrEqual(worst, 1, "\(name): \(worst) from the float path", file: file, line: line)
        return (first!, worst)
    }

    // MARK: The 2x2 box

    func testHalfBilinearIsTheExact2x2MeanForEveryWidth() throws {
        let dest = try PixelBuffer(width: 1, height: 1, format: .rgba8, alphaMode: .premultiplied)
        let gray = try PixelBuffer(width: 1, height: 1, format: .gray8)
        for ow in 1...45 {
            for (format, alpha, opaque, d) in [
                (PixelFormat.rgba8, AlphaMode.premultiplied, false, dest), (.rgba8, .straight, true, dest),
                (.gray8, .premultiplied, false, gray),
            ] {
                // Odd source sizes too: the render rect then stays inside the whole blocks.
                let w = 2 * ow + ow % 2, h = 2 * (ow % 7 + 1) + 1
                let src = TestImages.randomBytes(w, h, format: format, alpha: alpha, opaque: opaque, seed: UInt64(ow))
                let half = try Image(src).transformed(by: AffineTransform(scaleX: 0.5, y: 0.5))
                let rect = Rect(x: 0, y: 0, width: Double(ow), height: Double(h / 2))
                let (out, _) = try check(
                    "half \(w)x\(h) \(format) \(alpha)", half, rect, like: d, form: "2x2 box", schedules: ow % 11 == 1)
                XCTAssertEqual(
                    TestImages.maxDifference(out, reference2x2(src, x0: 0, y0: 0, width: ow, height: h / 2)), 0,
                    "\(w)x\(h) \(format)")
            }
        }
    }

    func testHalfBilinearOffsetsCropsAndRefusals() throws {
        let src = TestImages.randomBytes(40, 30, seed: 3)
        let dest = try PixelBuffer(width: 1, height: 1, format: .rgba8, alphaMode: .premultiplied)
        // An integer translation after the scale: blocks start at odd source columns.
        let shifted = try Image(src).transformed(
            by: AffineTransform(scaleX: 0.5, y: 0.5).concatenating(AffineTransform(translationX: -0.5, y: -1)))
        let (out, _) = try check("shifted", shifted, Rect(x: 0, y: 0, width: 19, height: 13), like: dest, form: "2x2 box")
        XCTAssertEqual(TestImages.maxDifference(out, reference2x2(src, x0: 1, y0: 2, width: 19, height: 13)), 0)
        // A sub-rect of the output, and a crop below the warp that the blocks stay inside.
        let half = try Image(src).transformed(by: AffineTransform(scaleX: 0.5, y: 0.5))
        let (sub, _) = try check("sub-rect", half, Rect(x: 3, y: 2, width: 11, height: 7), like: dest, form: "2x2 box")
        XCTAssertEqual(TestImages.maxDifference(sub, reference2x2(src, x0: 6, y0: 4, width: 11, height: 7)), 0)
        let cropped = try Image(src).cropped(to: Rect(x: 4, y: 2, width: 30, height: 20)).transformed(
            by: AffineTransform(scaleX: 0.5, y: 0.5))
        try check("cropped inside", cropped, Rect(x: 2, y: 1, width: 15, height: 10), like: dest, form: "2x2 box")
        // Blocks that reach past the crop or the source: the separable taps run them.
        try check("past the crop", cropped, Rect(x: 0, y: 0, width: 18, height: 12), like: dest, form: "fixed-point taps")
        try check("past the source", half, Rect(x: -1, y: 0, width: 21, height: 15), like: dest, form: "fixed-point taps")
        // Straight translucent alpha: the float path premultiplies first (the 16-bit prepass).
        let straight = TestImages.randomBytes(40, 30, alpha: .straight, seed: 4)
        try check(
            "straight", try Image(straight).transformed(by: AffineTransform(scaleX: 0.5, y: 0.5)),
            Rect(x: 0, y: 0, width: 20, height: 15), like: dest, form: "premultiplied in 16 bits")
    }

    /// (a + b + c + d + 2) >> 2 of the blocks at (2x + x0, 2y + y0).
    func reference2x2(_ src: PixelBuffer, x0: Int, y0: Int, width: Int, height: Int) -> PixelBuffer {
        var out = try! PixelBuffer(width: width, height: height, format: src.format, alphaMode: src.alphaMode)
        let bpp = src.format.bytesPerPixel, outBytesPerRow = out.bytesPerRow
        src.withUnsafeBytes { s in
            out.withUnsafeMutableBytes { o in
                for y in 0..<height {
                    for x in 0..<width {
                        for c in 0..<bpp {
                            var sum = 2
                            for (dx, dy) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
                                sum += Int(s[(2 * y + y0 + dy) * src.bytesPerRow + (2 * x + x0 + dx) * bpp + c])
                            }
                            o[y * outBytesPerRow + x * bpp + c] = UInt8(sum >> 2)
                        }
                    }
                }
            }
        }
        return out
    }

    // MARK: Affine warps

    /// Rotations about the center (as the peer op), a shear, a rotation with scale, a flip.
    func transforms(_ w: Int, _ h: Int) -> [(String, PixelFlow.AffineTransform)] {
        let cx = Double(w) / 2, cy = Double(h) / 2
        func about(_ t: PixelFlow.AffineTransform) -> PixelFlow.AffineTransform {
            AffineTransform(translationX: -cx, y: -cy).concatenating(t).concatenating(AffineTransform(translationX: cx, y: cy))
        }
        return [
            ("rotate 15", about(AffineTransform(rotationAngle: 15 * .pi / 180))),
            ("rotate -37", about(AffineTransform(rotationAngle: -37 * .pi / 180))),
            ("rotate 90", about(AffineTransform(rotationAngle: .pi / 2))),
            ("shear", AffineTransform(a: 1, b: 0.2, c: -0.35, d: 1, tx: 1.3, ty: -0.7)),
            ("rotate scale", about(AffineTransform(rotationAngle: 0.4).concatenating(AffineTransform(scaleX: 0.6, y: 1.7)))),
        ]
    }

    func testAffineWithinOneOfFloatPathForEveryWidth() throws {
        try XCTSkipUnless(pf_csimd_uses_avx2() != 0, "the affine byte form needs AVX2")
        let dest = try PixelBuffer(width: 1, height: 1, format: .rgba8, alphaMode: .premultiplied)
        var worstExact = 0.0
        for w in Array(1...45) + [64, 131] {
            let h = w % 9 + 2
            for (k, (alpha, opaque)) in [(AlphaMode.premultiplied, false), (.straight, true)].enumerated() {
                let src = TestImages.randomBytes(w, h, alpha: alpha, opaque: opaque, seed: UInt64(100 + 2 * w + k))
                for (i, (name, t)) in transforms(w, h).enumerated() where (w + i + k) % 3 == 0 || w > 40 {
                    let image = try Image(src).transformed(by: t)
                    // The output's extent and a rect past it on every side (transparent there).
                    let e = IntRect(covering: image.extent)
                    for rect in [e, e.outset(3, 2)] where !rect.isEmpty {
                        let (out, _) = try check(
                            "\(name) \(w)x\(h) \(alpha)", image, rect.rect, like: dest, form: "affine bilinear",
                            schedules: w % 8 == 0)
                        worstExact = Swift.max(worstExact, distanceFromExact(out, src, t.inverted()!, rect, extent: e))
                    }
                }
            }
        }
        // Each byte is the exact bilinear value rounded, within the kernel's bound of 0.032.
        XCTAssertLessThanOrEqual(worstExact, 0.5 + 0.032, "worst distance from the exact value")
    }

    func testAffineCropsAndRefusals() throws {
        try XCTSkipUnless(pf_csimd_uses_avx2() != 0, "the affine byte form needs AVX2")
        let src = TestImages.randomBytes(50, 40, seed: 9)
        let dest = try PixelBuffer(width: 1, height: 1, format: .rgba8, alphaMode: .premultiplied)
        let t = transforms(50, 40)[0].1
        // A crop below the warp: taps outside it are transparent; a crop above it.
        let below = try Image(src).cropped(to: Rect(x: 7, y: 5, width: 30, height: 21)).transformed(by: t)
        try check("crop below", below, IntRect(covering: below.extent).outset(2, 2).rect, like: dest, form: "affine bilinear")
        let above = try Image(src).transformed(by: t).cropped(to: Rect(x: 10, y: 3, width: 25, height: 30))
        try check("crop above", above, Rect(x: 0, y: 0, width: 50, height: 40), like: dest, form: "affine bilinear")
        // Where the float path works differently, or the byte kernel does not apply: off.
        let straight = TestImages.randomBytes(50, 40, alpha: .straight, seed: 10)
        try check(
            "straight translucent", try Image(straight).transformed(by: t), Rect(x: 0, y: 0, width: 50, height: 40),
            like: dest, form: nil)
        let straightDest = try PixelBuffer(width: 1, height: 1, format: .rgba8, alphaMode: .straight)
        try check(
            "into straight", try Image(src).transformed(by: t), Rect(x: 0, y: 0, width: 50, height: 40),
            like: straightDest, form: nil)
        let gray = TestImages.randomBytes(50, 40, format: .gray8, seed: 11)
        try check(
            "gray8", try Image(gray).transformed(by: t), Rect(x: 0, y: 0, width: 50, height: 40),
            like: try PixelBuffer(width: 1, height: 1, format: .gray8), form: nil)
        let clamped = try Image(src).clampedToExtent().transformed(by: t).cropped(to: Rect(x: 0, y: 0, width: 50, height: 40))
        try check("clamped", clamped, Rect(x: 0, y: 0, width: 50, height: 40), like: dest, form: nil)
        let nearest = try Image(src).transformed(by: t, sampling: .nearest)
        try check("nearest", nearest, Rect(x: 0, y: 0, width: 50, height: 40), like: dest, form: nil)
    }

    /// The largest distance of a byte of `out` (the render of `rect`) from the exact bilinear
    /// value of `src`'s bytes, in double, at the float path's positions; 0 outside the warp's
    /// extent `extent` (which the samples of an enlarging warp overhang by up to half a pixel
    /// times the scale).
    func distanceFromExact(
        _ out: PixelBuffer, _ src: PixelBuffer, _ inv: PixelFlow.AffineTransform, _ rect: IntRect, extent: IntRect
    ) -> Double {
        var worst = 0.0
        src.withUnsafeBytes { s in
            out.withUnsafeBytes { o in
                for j in 0..<rect.height {
                    for i in 0..<rect.width {
                        let cx = Double(rect.x + i) + 0.5, cy = Double(rect.y + j) + 0.5
                        let fx = inv.a * cx + inv.c * cy + inv.tx - 0.5, fy = inv.b * cx + inv.d * cy + inv.ty - 0.5
                        let inside = extent.contains(IntRect(x: rect.x + i, y: rect.y + j, width: 1, height: 1))
                        let v = inside ? bilinear(s, src, fx, fy) : [0, 0, 0, 0]
                        for c in 0..<4 {
                            worst = Swift.max(worst, Swift.abs(Double(o[j * out.bytesPerRow + i * 4 + c]) - v[c]))
                        }
                    }
                }
            }
        }
        return worst
    }

    /// Bilinear value of the bytes at (fx, fy) (pixel-center coordinates minus 0.5), 0 outside.
    func bilinear(_ s: UnsafeRawBufferPointer, _ src: PixelBuffer, _ fx: Double, _ fy: Double) -> [Double] {
        let x0 = Int(fx.rounded(.down)), y0 = Int(fy.rounded(.down))
        let wx = fx - Double(x0), wy = fy - Double(y0)
        func p(_ x: Int, _ y: Int, _ c: Int) -> Double {
            x < 0 || y < 0 || x >= src.width || y >= src.height ? 0 : Double(s[y * src.bytesPerRow + x * 4 + c])
        }
        return (0..<4).map { c in
            let top = p(x0, y0, c) * (1 - wx) + p(x0 + 1, y0, c) * wx
            let bottom = p(x0, y0 + 1, c) * (1 - wx) + p(x0 + 1, y0 + 1, c) * wx
            return top * (1 - wy) + bottom * wy
        }
    }

    // MARK: The C kernels against scalar references

    func testBox2x2KernelAgainstScalarMeans() {
        var rng = SeededRandom(seed: 21)
        for bpp in [1, 4] {
            for width in 1...70 {
                for offset in [0, 1, 3] {
                    let n = 2 * width * bpp + offset
                    let r0 = (0..<n).map { _ in UInt8(truncatingIfNeeded: rng.next() >> 7) }
                    let r1 = (0..<n).map { _ in UInt8(truncatingIfNeeded: rng.next() >> 7) }
                    var run = [UInt8](repeating: 7, count: width * bpp), portable = run
                    r0.withUnsafeBufferPointer { a in
                        r1.withUnsafeBufferPointer { b in
                            pf_u8_box2x2_run(a.baseAddress! + offset, b.baseAddress! + offset, bpp, width, &run)
                            pf_u8_box2x2_portable(a.baseAddress! + offset, b.baseAddress! + offset, bpp, width, &portable)
                        }
                    }
                    for i in 0..<width {
                        for c in 0..<bpp {
                            let a = offset + 2 * i * bpp + c, b = a + bpp
                            let mean = (Double(r0[a]) + Double(r0[b]) + Double(r1[a]) + Double(r1[b])) / 4
                            XCTAssertEqual(Double(run[i * bpp + c]), (mean + 0.5).rounded(.down), "bpp \(bpp) width \(width)")
                        }
                    }
                    XCTAssertEqual(run, portable, "bpp \(bpp) width \(width)")
                }
            }
        }
    }

    /// The affine kernel (AVX2 and portable) against the header's integer formula written
    /// out per pixel, and against the exact bilinear value in double: random rects, positions
    /// that start and end outside, steps in every direction.
    func testAffineKernelAgainstScalarReference() {
        var rng = SeededRandom(seed: 33)
        var worst = 0.0
        for trial in 0..<300 {
            let w = Int(rng.next() % 40) + 1, h = Int(rng.next() % 30) + 1
            let bpr = w * 4 + Int(rng.next() % 3) * 4
            let src = (0..<bpr * h).map { _ in UInt8(truncatingIfNeeded: rng.next() >> 9) }
            let count = Int(rng.next() % 50)
            func unit() -> Double { Double(rng.next() % 1_000_000) / 1_000_000 }
            let f0 = (Double(w + 4) * unit() - 2, Double(h + 4) * unit() - 2)
            let step = (unit() * 2.4 - 1.2, unit() * 2.4 - 1.2)
            let one = 4_294_967_296.0
            let fx = Int64((f0.0 * one).rounded()), fy = Int64((f0.1 * one).rounded())
            let dx = Int64((step.0 * one).rounded()), dy = Int64((step.1 * one).rounded())
            var run = [UInt8](repeating: 9, count: count * 4), portable = run
            src.withUnsafeBufferPointer { s in
                pf_u8_affine_bilinear_rgba_run(s.baseAddress!, bpr, w, h, fx, fy, dx, dy, count, &run)
                pf_u8_affine_bilinear_rgba_portable(s.baseAddress!, bpr, w, h, fx, fy, dx, dy, count, &portable)
            }
            XCTAssertEqual(run, portable, "trial \(trial)")
            func tap(_ x: Int, _ y: Int, _ c: Int) -> Int {
                x < 0 || y < 0 || x >= w || y >= h ? 0 : Int(src[y * bpr + x * 4 + c])
            }
            func m(_ a: Int, _ w: Int) -> Int { (a * w + (1 << 14)) >> 15 }
            for i in 0..<count {
                let px = Int(Int32(truncatingIfNeeded: (fx + Int64(i) * dx) >> 16))
                let py = Int(Int32(truncatingIfNeeded: (fy + Int64(i) * dy) >> 16))
                let ix = px >> 16, iy = py >> 16, wx = (px & 0xFFFF) >> 1, wy = (py & 0xFFFF) >> 1
                let exactX = (Double(fx) + Double(i) * Double(dx)) / one, exactY = (Double(fy) + Double(i) * Double(dy)) / one
                let ex = Int(exactX.rounded(.down)), ey = Int(exactY.rounded(.down))
                let ux = exactX - Double(ex), uy = exactY - Double(ey)
                for c in 0..<4 {
                    let a = tap(ix, iy, c) << 7, b = tap(ix + 1, iy, c) << 7
                    let e = tap(ix, iy + 1, c) << 7, f = tap(ix + 1, iy + 1, c) << 7
                    let top = a + m(b - a, wx), bottom = e + m(f - e, wx)
                    let v = top + m(bottom - top, wy)
                    XCTAssertEqual(Int(run[i * 4 + c]), (v + 64) >> 7, "trial \(trial) pixel \(i)")
                    let exact =
                        (Double(tap(ex, ey, c)) * (1 - ux) + Double(tap(ex + 1, ey, c)) * ux) * (1 - uy)
                        + (Double(tap(ex, ey + 1, c)) * (1 - ux) + Double(tap(ex + 1, ey + 1, c)) * ux) * uy
                    worst = Swift.max(worst, Swift.abs(Double(run[i * 4 + c]) - exact))
                }
            }
        }
        XCTAssertLessThanOrEqual(worst, 0.5 + 0.032, "worst distance from the exact bilinear value")
    }
}
