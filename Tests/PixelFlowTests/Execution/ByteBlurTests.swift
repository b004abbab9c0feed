import CSIMD
import XCTest

@testable import PixelFlow
@testable import PixelFlowEngine
@testable import PixelFlowGraph
@testable import PixelFlowKernels

/// The byte form of Gaussian and box blurs (separable fixed-point taps, symmetric taps folded):
/// the folded kernels against a scalar reference (exact), renders against the float path
/// (within 1 unit; straight colors within `1 + 64 / alpha` below alpha 64, as the 16-bit
/// prepass states), the same bytes for every schedule, and the refusals.
final class ByteBlurTests: XCTestCase {
    // MARK: Kernels

    /// Symmetric weights w[0 ... 2r] >= 0 summing to at most 2^14 (a quantized Gaussian, or
    /// random ones).
    func weights(radius r: Int, random: Bool, rng: inout SeededRandom) -> [Int16] {
        var half = (0...r).map { k -> Double in
            random ? Double(rng.next() % 1000) : exp(-Double((r - k) * (r - k)) / (2 * Double(Swift.max(r, 1)) / 3))
        }
        let total = 2 * half.reduce(0, +) - half[r]
        half = half.map { $0 / Swift.max(total, 1e-9) * 16384 * 0.999 }
        let h = half.map { Int16($0.rounded(.down)) }
        return h + h.dropLast().reversed()
    }

    func testFoldedVerticalKernelMatchesScalarSum() {
        var rng = SeededRandom(seed: 41)
        for r in [0, 1, 2, 3, 6, 13, 30] {
            for n in [1, 7, 8, 15, 16, 31, 32, 33, 63, 64, 100] {
                let w = weights(radius: r, random: n % 2 == 0, rng: &rng)
                let rows = (0...2 * r).map { _ in (0..<n).map { _ in UInt8(truncatingIfNeeded: rng.next() >> 24) } }
                // The definition: all 2r + 1 taps, rounded half up after / 2^8.
                var expected = [Int16](repeating: 0, count: n)
                for i in 0..<n {
                    var acc = 128
                    for k in 0...2 * r { acc += Int(rows[k][i]) * Int(w[k]) }
                    expected[i] = Int16(acc >> 8)
                }
                for variant in [0, 1, 2, 3] {
                    var out = [Int16](repeating: -1, count: n)
                    let pointers = rows.map { UnsafeMutablePointer<UInt8>.allocate(capacity: $0.count) }
                    defer { pointers.forEach { $0.deallocate() } }
                    for (p, row) in zip(pointers, rows) { p.update(from: row, count: row.count) }
                    let list: [UnsafePointer<UInt8>?] = pointers.map { UnsafePointer($0) }
                    let half = Array(w[0...r])
                    pf_u8_blur_v_to16_variant(list, half, r, n, &out, Int32(variant))
                    XCTAssertEqual(out, expected, "radius \(r), \(n) values, variant \(variant)")
                }
            }
        }
    }

    func testFoldedHorizontalKernelMatchesScalarSum() {
        var rng = SeededRandom(seed: 42)
        for bpp in [1, 4] {
            for r in [0, 1, 2, 6, 13, 30] {
                for width in [1, 2, 3, 4, 5, 8, 9, 17, 45] {
                    let w = weights(radius: r, random: width % 2 == 1, rng: &rng)
                    // 16-bit values up to 255.5 * 64, as the vertical pass writes.
                    let src = (0..<(width + 2 * r) * bpp).map { _ in Int16(rng.next() % 16353) }
                    var expected = [UInt8](repeating: 0, count: width * bpp)
                    for j in 0..<width * bpp {
                        var acc = 1 << 19
                        for k in 0...2 * r { acc += Int(src[j + k * bpp]) * Int(w[k]) }
                        expected[j] = UInt8(Swift.min(255, acc >> 20))
                    }
                    for variant in [0, 1, 2, 3] {
                        var out = [UInt8](repeating: 7, count: width * bpp)
                        pf_u8_blur_h_from16_variant(src, bpp, Array(w[0...r]), r, width, &out, Int32(variant))
                        XCTAssertEqual(out, expected, "bpp \(bpp), radius \(r), width \(width), variant \(variant)")
                    }
                }
            }
        }
    }

    // MARK: Renders

    func render(_ image: Image, _ rect: Rect, format: PixelFormat, alpha: AlphaMode, _ options: RenderContext.Options)
        throws -> PixelBuffer
    {
        var out = try PixelBuffer(width: Int(rect.width), height: Int(rect.height), format: format, alphaMode: alpha)
        try RenderContext(options: options).render(image, rect: rect, to: &out)
        return out
    }

    /// The blurs tested on `src`: Gaussians (tile-local and whole-region sigmas, 61 taps) and box
    /// means, of the clamped source cropped back (the peer ops) and of the source alone (the
    /// extent grows, transparent outside).
    func cases(_ src: PixelBuffer, wide: Bool) throws -> [(String, Image, Rect)] {
        let img = Image(src)
        let clamped = img.clampedToExtent()
        var out: [(String, Image, Rect)] = []
        for sigma in wide ? [0.8, 2, 4.5, 10] : [2, 4.5] {
            out.append(
                ("gaussian \(sigma) clamped", try clamped.gaussianBlurred(radius: sigma).cropped(to: img.extent), img.extent))
        }
        let g = try img.gaussianBlurred(radius: 1.5)
        out.append(("gaussian 1.5", g, g.extent))
        for r in wide ? [1.0, 5] : [2.0] {
            out.append(("box \(r) clamped", try clamped.boxBlurred(radius: r).cropped(to: img.extent), img.extent))
        }
        let b = try img.boxBlurred(radius: 3)
        out.append(("box 3", b, b.extent))
        return out
    }

    /// Every case of `src` into `alpha`: byte path on (explain), within the bound of the float
    /// path; with `schedules`, the same bytes for threads 1...3 and four tile sizes.
    func check(
        _ src: PixelBuffer, alpha: AlphaMode, schedules: Bool, wide: Bool = true, file: StaticString = #filePath,
        line: UInt = #line
    ) throws {
        for (name, image, rect) in try cases(src, wide: wide) {
            let label = "\(name) of \(src.width)x\(src.height) \(src.format) \(src.alphaMode) into \(alpha)"
            let (expected, explained) = try TestImages.floatPathAndExplain(image, rect: rect, format: src.format, alpha: alpha)
            XCTAssertTrue(explained.contains("byte path: on"), "\(label): \(explained)", file: file, line: line)
            XCTAssertTrue(explained.contains("separable blur"), "\(label): \(explained)", file: file, line: line)
            let strict = alpha == .premultiplied || src.alphaMode == .premultiplied || src.format == .gray8
            try TestImages.checkSchedules(
                image, rect: rect, format: src.format, alpha: alpha, expected: expected, schedules: schedules, strict: strict,
                label: label, file: file, line: line)
        }
    }

    func testEveryWidthUpTo45AgainstFloatPath() throws {
        for w in 1...45 {
            let h = 1 + (w * 7) % 12
            let premultiplied = TestImages.randomBytes(w, h, alpha: .premultiplied, seed: UInt64(300 + w))
            try check(premultiplied, alpha: .premultiplied, schedules: w % 11 == 0, wide: w % 4 == 0)
            let opaque = TestImages.randomBytes(w, h, alpha: .straight, opaque: true, seed: UInt64(400 + w))
            try check(opaque, alpha: .straight, schedules: w % 11 == 0, wide: w % 4 == 1)
            let straight = TestImages.randomBytes(w, h, alpha: .straight, seed: UInt64(500 + w))
            try check(straight, alpha: .straight, schedules: w % 11 == 0, wide: w % 4 == 2)
            let gray = TestImages.randomBytes(w, h, format: .gray8, seed: UInt64(600 + w))
            try check(gray, alpha: .straight, schedules: w % 11 == 0, wide: w % 4 == 3)
        }
    }

    func testLargerImagesAllSchedulesAndAlignments() throws {
        for (w, h, alpha, opaque) in [
            (131, 67, AlphaMode.premultiplied, false), (96, 70, .straight, true), (77, 40, .straight, false),
        ] {
            let src = TestImages.randomBytes(w, h, alpha: alpha, opaque: opaque, seed: UInt64(w * h))
            try check(src, alpha: alpha, schedules: true)
            // A render rect that starts inside and crosses the edge (other alignments).
            let image = try Image(src).clampedToExtent().gaussianBlurred(radius: 2)
            let rect = Rect(x: 13, y: 5, width: Double(w - 10), height: Double(h - 9))
            var floatOptions = RenderContext.Options(colorManagement: .none)
            floatOptions.usesBytePath = false
            let expected = try render(image, rect, format: .rgba8, alpha: alpha, floatOptions)
            let out = try render(image, rect, format: .rgba8, alpha: alpha, RenderContext.Options(colorManagement: .none))
            XCTAssertTrue(TestImages.compareBytes(out, expected).withinBound, "offset rect \(w)x\(h)")
        }
        let gray = TestImages.randomBytes(203, 51, format: .gray8, seed: 9)
        try check(gray, alpha: .straight, schedules: true)
    }

    /// The folded kernels give the bytes of the resampling kernels (the same integer sums).
    func testFoldedPlanEqualsResampleKernels() throws {
        for (w, h, sigma) in [(90, 33, 2.0), (150, 80, 10.0), (40, 9, 3.0)] {
            let src = TestImages.randomBytes(w, h, alpha: .premultiplied, seed: UInt64(w))
            let image = try Image(src).clampedToExtent().gaussianBlurred(radius: sigma).cropped(to: Image(src).extent)
            let plan = try assertFoldedBlurEqualsResampling(image, width: w, height: h, "sigma \(sigma)")
            XCTAssertNotNil(plan?.blur, "sigma \(sigma)")
            XCTAssertEqual(plan?.blur?.fullRows.contains(true), h > Int(6 * sigma))
        }
    }

    func testExplainAndRefusals() throws {
        let src = TestImages.randomBytes(60, 40, alpha: .premultiplied, seed: 5)
        let img = Image(src)
        let probe = try PixelBuffer(width: 60, height: 40, format: .rgba8, alphaMode: .premultiplied)
        let blurred = try img.clampedToExtent().gaussianBlurred(radius: 2).cropped(to: img.extent)
        let on = try RenderContext(colorManagement: .none).explain(blurred, rect: img.extent, into: probe)
        XCTAssertTrue(on.contains("byte path: on"), on)
        XCTAssertTrue(on.contains("separable blur (13 taps)"), on)
        XCTAssertTrue(on.contains("symmetric taps folded"), on)
        var options = RenderContext.Options(colorManagement: .none)
        options.usesBytePath = false
        XCTAssertTrue(
            try RenderContext(options: options).explain(blurred, rect: img.extent, into: probe).contains("byte path: off"))
        // Above sigma 12 the float path runs a box cascade: no byte form.
        let wide = try img.clampedToExtent().gaussianBlurred(radius: 15).cropped(to: img.extent)
        XCTAssertTrue(
            try RenderContext(colorManagement: .none).explain(wide, rect: img.extent, into: probe).contains("byte path: off"))
        // Box means of radius 30: the taps' error reaches half a unit (0.38 per axis).
        let box = try img.clampedToExtent().boxBlurred(radius: 30).cropped(to: img.extent)
        let boxExplained = try RenderContext(colorManagement: .none).explain(box, rect: img.extent, into: probe)
        XCTAssertTrue(boxExplained.contains("byte path: off") && boxExplained.contains("fixed-point taps"), boxExplained)
        // In linear light an sRGB source blurs decoded values: stays in float.
        let srgb = TestImages.randomBytes(60, 40, alpha: .premultiplied, seed: 6)
        let linear = try RenderContext(colorManagement: .linear).explain(
            Image(srgb).gaussianBlurred(radius: 2), rect: img.extent, into: probe)
        XCTAssertTrue(linear.contains("byte path: off"), linear)
    }
}

extension XCTestCase {
    /// Renders `image` (a `width` x `height` premultiplied rgba8 byte plan from the origin,
    /// 2 threads, no color management) with its folded blur kernels, then with the blur taken
    /// out of the plan (the resampling kernels), and asserts the same bytes and that a fast
    /// folded run was chosen; returns the plan, or nil (after a failure) when there is none.
    @discardableResult
    func assertFoldedBlurEqualsResampling(
        _ image: Image, width w: Int, height h: Int, _ label: String,
        file: StaticString = #filePath, line: UInt = #line
    ) throws -> BytePlan? {
        let rect = IntRect(x: 0, y: 0, width: w, height: h)
        let options = RenderContext.Options(threadCount: 2, colorManagement: .none)
        var dest = try PixelBuffer(width: w, height: h, format: .rgba8, alphaMode: .premultiplied)
        guard case let .success(plan) = BytePlan.make(root: image.node, rect: rect, options: options, buffer: dest) else {
            XCTFail("no byte plan for \(label)", file: file, line: line)
            return nil
        }
        XCTAssertTrue(plan.blur?.runs.contains { $0.fast } ?? false, label, file: file, line: line)
        plan.run(rect: rect, into: &dest, options: options)
        var plain = plan
        plain.blur = nil
        var other = dest
        plain.run(rect: rect, into: &other, options: options)
        XCTAssertTrue(dest == other, "\(label): folded and resampling kernels differ", file: file, line: line)
        return plan
    }
}
