import CSIMD
import XCTest

@testable import PixelFlow
@testable import PixelFlowEngine
@testable import PixelFlowGraph
@testable import PixelFlowKernels

/// The byte form of unsharp masks and luma sharpening (`ByteUnsharp`): the new kernels against
/// scalar references written here (exact), renders against the float path (within 1 unit on
/// every pixel and channel), the same bytes for every schedule, explain() and the refusals.
final class ByteUnsharpTests: XCTestCase {
    // MARK: Kernels

    func testHorizontalFoldedKernelTo16MatchesScalarSum() {
        var rng = SeededRandom(seed: 71)
        for bpp in [1, 4] {
            for r in [0, 1, 2, 6, 13, 36] {
                for width in [1, 2, 3, 4, 5, 8, 9, 16, 17, 33, 45, 70] {
                    // Symmetric weights >= 0 summing to at most 2^14.
                    var half = (0...r).map { _ in Double(rng.next() % 1000) + 1 }
                    let total = 2 * half.reduce(0, +) - half[r]
                    half = half.map { ($0 / total * 16384).rounded(.down) }
                    let h = half.map { Int16($0) }
                    let w = h + h.dropLast().reversed()
                    let src = (0..<(width + 2 * r) * bpp).map { _ in Int16(rng.next() % 16321) }
                    var expected = [Int16](repeating: 0, count: width * bpp)
                    for j in 0..<width * bpp {
                        var acc = 1 << 12
                        for k in 0...2 * r { acc += Int(src[j + k * bpp]) * Int(w[k]) }
                        expected[j] = Int16(acc >> 13)
                    }
                    for variant in [0, 1, 2, 3, 4] {
                        var out = [Int16](repeating: -1, count: width * bpp)
                        pf_i16_blur_h_to16_variant(src, bpp, h, r, width, &out, Int32(variant))
                        XCTAssertEqual(out, expected, "bpp \(bpp), radius \(r), width \(width), variant \(variant)")
                    }
                }
            }
        }
    }

    func testHorizontalTapsKernelTo16MatchesScalarSum() {
        var rng = SeededRandom(seed: 72)
        for bpp in [1, 4] {
            for width in [1, 3, 16, 33] {
                let maxTaps = 7
                let inputs = width + maxTaps
                let src = (0..<inputs * bpp).map { _ in Int16(rng.next() % 16321) }
                var starts = [Int32](), counts = [Int32](), weights = [Int16](repeating: 0, count: width * maxTaps)
                for i in 0..<width {
                    let c = Int(rng.next() % UInt64(maxTaps + 1))
                    starts.append(Int32(rng.next() % UInt64(inputs - c + 1)))
                    counts.append(Int32(c))
                    for k in 0..<c { weights[i * maxTaps + k] = Int16(rng.next() % 2341) }
                }
                var expected = [Int16](repeating: 0, count: width * bpp)
                for i in 0..<width {
                    for ch in 0..<bpp {
                        guard counts[i] > 0 else { continue }
                        var acc = 1 << 12
                        for k in 0..<Int(counts[i]) {
                            acc += Int(src[(Int(starts[i]) + k) * bpp + ch]) * Int(weights[i * maxTaps + k])
                        }
                        expected[i * bpp + ch] = Int16(Swift.min(32767, acc >> 13))
                    }
                }
                var out = [Int16](repeating: -1, count: width * bpp)
                pf_i16_resample_h_to_blur_run(src, bpp, starts, counts, weights, maxTaps, width, &out)
                XCTAssertEqual(out, expected, "bpp \(bpp), width \(width)")
            }
        }
    }

    func testCombineKernelsMatchScalarFormula() {
        var rng = SeededRandom(seed: 73)
        for n in [1, 3, 4, 15, 16, 17, 31, 32, 33, 64, 100, 257] {
            let src = (0..<4 * n).map { _ in UInt8(truncatingIfNeeded: rng.next() >> 30) }
            let blur = (0..<4 * n).map { _ in Int16(rng.next() % 32641) }
            for (k, q) in [(Int16(16384), 15), (Int16(1), 15), (Int16(32767), 15), (Int16(20480), 11), (Int16(0), 15)] {
                var expected = [UInt8](repeating: 0, count: 4 * n)
                for i in 0..<4 * n {
                    let d = Int(src[i]) * 128 - Int(blur[i])
                    let t = (Int(k) * d + (1 << (q + 6))) >> (q + 7)
                    expected[i] = UInt8(Swift.min(255, Swift.max(0, Int(src[i]) + t)))
                }
                for variant in [0, 1, 3] {
                    var out = [UInt8](repeating: 7, count: 4 * n)
                    pf_u8_unsharp_variant(src, blur, 4 * n, k, q, &out, Int32(variant))
                    XCTAssertEqual(out, expected, "unsharp: \(n) values, k \(k), q \(q), variant \(variant)")
                }
            }
            for (w, q) in [
                ([Int16(697), 2343, 237], 15), ([Int16(870), 29294, 2957], 12), ([Int16(32767), 0, 32767], 15),
                ([Int16(30000), 30000, 5000], 3),
            ] {
                var expected = [UInt8](repeating: 0, count: 4 * n)
                for p in 0..<n {
                    var l = 0
                    for c in 0..<3 { l += Int(w[c]) * (Int(src[4 * p + c]) * 128 - Int(blur[4 * p + c])) }
                    let t = (l + (1 << (q + 6))) >> (q + 7)
                    for c in 0..<3 { expected[4 * p + c] = UInt8(Swift.min(255, Swift.max(0, Int(src[4 * p + c]) + t))) }
                    expected[4 * p + 3] = src[4 * p + 3]
                }
                for variant in [0, 1, 2, 3] {
                    var out = [UInt8](repeating: 7, count: 4 * n)
                    pf_u8_sharpen_luma_rgba_variant(src, blur, n, w, q, &out, Int32(variant))
                    XCTAssertEqual(out, expected, "luma: \(n) pixels, weights \(w), variant \(variant)")
                }
            }
        }
    }

    // MARK: Renders

    /// The sharpened images tested on `src`: the unsharp mask and the luma sharpen of the clamped
    /// source cropped back (the peer op) and of the source alone (transparent outside).
    func cases(_ src: PixelBuffer, sigmas: [Double], intensities: [Double]) throws -> [(String, Image, Rect)] {
        let img = Image(src)
        let clamped = img.clampedToExtent()
        var out: [(String, Image, Rect)] = []
        for sigma in sigmas {
            for k in intensities {
                out.append(
                    (
                        "unsharp sigma \(sigma) k \(k) clamped",
                        try clamped.unsharpMasked(radius: sigma, intensity: k).cropped(to: img.extent), img.extent
                    ))
                out.append(("unsharp sigma \(sigma) k \(k)", try img.unsharpMasked(radius: sigma, intensity: k), img.extent))
                out.append(
                    (
                        "luma sigma \(sigma) k \(k) clamped",
                        try clamped.sharpenedLuminance(sharpness: k, radius: sigma).cropped(to: img.extent), img.extent
                    ))
                out.append(
                    ("luma sigma \(sigma) k \(k)", try img.sharpenedLuminance(sharpness: k, radius: sigma), img.extent))
            }
        }
        return out
    }

    func check(
        _ src: PixelBuffer, alpha: AlphaMode, sigmas: [Double], intensities: [Double], schedules: Bool,
        file: StaticString = #filePath, line: UInt = #line
    ) throws {
        for (name, image, rect) in try cases(src, sigmas: sigmas, intensities: intensities) {
            let label = "\(name) of \(src.width)x\(src.height) \(src.format) \(src.alphaMode) into \(alpha)"
            let (expected, explained) = try TestImages.floatPathAndExplain(image, rect: rect, format: src.format, alpha: alpha)
            // Into a straight destination, an unclamped mask reads transparent pixels at the
            // edges: stays in float (explain says why).
            let edges = alpha == .straight && src.format == .rgba8 && !name.contains("clamped")
            if edges {
                XCTAssertTrue(explained.contains("byte path: off"), "\(label): \(explained)", file: file, line: line)
                continue
            }
            if explained.contains("units from the exact formula") {
                // Refused by the error bound (k 2.5 at sigma 10: 0.52 units): the float path runs.
                XCTAssertTrue(name.contains("sigma 10.0 k 2.5"), "\(label): \(explained)", file: file, line: line)
                continue
            }
            XCTAssertTrue(explained.contains("byte path: on"), "\(label): \(explained)", file: file, line: line)
            XCTAssertTrue(explained.contains("16-bit Gaussian"), "\(label): \(explained)", file: file, line: line)
            try TestImages.checkSchedules(
                image, rect: rect, format: src.format, alpha: alpha, expected: expected, schedules: schedules, strict: true,
                label: label, file: file, line: line)
        }
    }

    func testEveryWidthUpTo40AgainstFloatPath() throws {
        let sigmaSets: [[Double]] = [[0.5, 2.5], [1, 5], [3, 10]]
        let kSets: [[Double]] = [[0.5, 2.5], [1, 2.5], [0.5, 1, 2.5]]
        for w in 1...40 {
            let h = 1 + (w * 7) % 13
            let sigmas = sigmaSets[w % 3], ks = kSets[w % 3]
            let premultiplied = TestImages.randomBytes(w, h, alpha: .premultiplied, seed: UInt64(700 + w))
            try check(premultiplied, alpha: .premultiplied, sigmas: sigmas, intensities: ks, schedules: w % 13 == 0)
            let opaque = TestImages.randomBytes(w, h, alpha: .straight, opaque: true, seed: UInt64(800 + w))
            try check(
                opaque, alpha: w % 2 == 0 ? .straight : .premultiplied, sigmas: sigmas, intensities: ks, schedules: w % 13 == 1)
            let gray = TestImages.randomBytes(w, h, format: .gray8, seed: UInt64(900 + w))
            try check(gray, alpha: .straight, sigmas: sigmas, intensities: ks, schedules: w % 13 == 2)
        }
    }

    func testCatalogDefaultsAndLargerImagesAllSchedules() throws {
        for (w, h, alpha, opaque) in [(131, 67, AlphaMode.premultiplied, false), (96, 70, .straight, true)] {
            let src = TestImages.randomBytes(w, h, alpha: alpha, opaque: opaque, seed: UInt64(w * h))
            try check(src, alpha: alpha, sigmas: [1, 2.5, 10], intensities: [0.5, 2.5], schedules: true)
            // The catalog defaults: CIUnsharpMask radius 2.5 intensity 0.5, CISharpenLuminance
            // sharpness 0.4 radius 1.69.
            let img = Image(src)
            for name in ["CIUnsharpMask", "CISharpenLuminance"] {
                let filter = try XCTUnwrap(Filter(named: name))
                try filter.setValue(img, forKey: "inputImage")
                let image = try filter.outputImage()
                let (expected, explained) = try TestImages.floatPathAndExplain(
                    image, rect: img.extent, format: .rgba8, alpha: .premultiplied)
                XCTAssertTrue(explained.contains("byte path: on"), explained)
                try TestImages.checkSchedules(
                    image, rect: img.extent, format: .rgba8, alpha: .premultiplied, expected: expected, schedules: true,
                    strict: true, label: "\(name) defaults", file: #filePath, line: #line)
            }
        }
        let gray = TestImages.randomBytes(203, 51, format: .gray8, seed: 9)
        try check(gray, alpha: .straight, sigmas: [2.5, 5], intensities: [1], schedules: true)
    }

    /// A render rect that starts inside the image and crosses its edge, and one inside it.
    func testOffsetRects() throws {
        let src = TestImages.randomBytes(90, 60, alpha: .premultiplied, seed: 31)
        for sigma in [1.5, 4.0] {
            let image = try Image(src).clampedToExtent().unsharpMasked(radius: sigma, intensity: 1)
            for rect in [Rect(x: 13, y: 5, width: 85, height: 61), Rect(x: 20, y: 10, width: 30, height: 20)] {
                let (expected, explained) = try TestImages.floatPathAndExplain(
                    image, rect: rect, format: .rgba8, alpha: .premultiplied)
                XCTAssertTrue(explained.contains("byte path: on"), explained)
                try TestImages.checkSchedules(
                    image, rect: rect, format: .rgba8, alpha: .premultiplied, expected: expected, schedules: true,
                    strict: true, label: "sigma \(sigma) rect \(rect)", file: #filePath, line: #line)
            }
        }
    }

    /// The two graphs the float path builds (the fused tile-local stencil up to sigma 3, a
    /// Gaussian and a blend above) compute the same thing: at one sigma, both graphs built by
    /// hand take the same byte form, give the same bytes, and each is within 1 unit of its float
    /// render.
    func testFusedStencilAndBlendGraphsAgree() throws {
        let src = TestImages.randomBytes(70, 45, alpha: .premultiplied, seed: 17)
        let img = Image(src)
        for (sigma, lumaOnly) in [(1.0, false), (2.5, true), (3.0, false)] {
            let k: Float = 1.5
            let fused = img.unsharpMasked(sigma: sigma, intensity: k, lumaOnly: lumaOnly)
            var kernel = BlendKernel(name: "test unsharp", extentRule: .union) { fg, dst, n in
                for i in 0..<n {
                    if lumaOnly {
                        let diff = (dst[i] - fg[i]) * rec709Luma
                        let l = k * (diff.x + diff.y + diff.z)
                        dst[i] = dst[i] + SIMD4(l, l, l, 0)
                    } else {
                        dst[i] = dst[i] + (dst[i] - fg[i]) * k
                    }
                }
            }
            kernel.unsharpMask = UnsharpMask(sigma: sigma, intensity: k, lumaOnly: lumaOnly)
            let blended = img.applyingStencil(.gaussian(sigma: sigma)).blended(with: img, kernel: kernel).cropped(
                to: img.extent)
            var outputs: [PixelBuffer] = []
            for image in [fused, blended] {
                let (expected, explained) = try TestImages.floatPathAndExplain(
                    image, rect: img.extent, format: .rgba8, alpha: .premultiplied)
                XCTAssertTrue(explained.contains("byte path: on") && explained.contains("16-bit Gaussian"), explained)
                var out = try PixelBuffer(width: 70, height: 45, format: .rgba8, alphaMode: .premultiplied)
                try RenderContext(colorManagement: .none).render(image, rect: img.extent, to: &out)
                XCTAssertLessThanOrEqual(TestImages.compareBytes(out, expected).max, 1, "sigma \(sigma)")
                outputs.append(out)
            }
            XCTAssertTrue(outputs[0] == outputs[1], "sigma \(sigma): the two graphs' byte forms differ")
        }
    }

    /// The folded passes give the bytes of the resampling kernels (the same integer sums).
    func testFoldedPlanEqualsResampleKernels() throws {
        for (w, h, sigma, luma) in [(90, 33, 2.0, false), (150, 80, 10.0, true), (40, 9, 3.0, false)] {
            let src = TestImages.randomBytes(w, h, alpha: .premultiplied, seed: UInt64(w))
            let img = Image(src)
            let image = try
                (luma
                ? img.clampedToExtent().sharpenedLuminance(sharpness: 1, radius: sigma)
                : img.clampedToExtent().unsharpMasked(radius: sigma, intensity: 1)).cropped(to: img.extent)
            try assertFoldedBlurEqualsResampling(image, width: w, height: h, "sigma \(sigma)")
        }
    }

    /// In linear light with linear-tagged buffers no value is decoded or encoded: the form runs
    /// (color management on, the default), within 1 unit of the float path.
    func testLinearTaggedBuffersInLinearLight() throws {
        let random = TestImages.randomBytes(57, 31, alpha: .premultiplied, seed: 41)
        var src = try PixelBuffer(width: 57, height: 31, format: .rgba8, colorEncoding: .linear, alphaMode: .premultiplied)
        src.withUnsafeMutableBytes { d in random.withUnsafeBytes { d.copyMemory(from: $0) } }
        let img = Image(src)
        for (sigma, luma) in [(2.0, false), (6.0, true)] {
            let image = try
                (luma
                ? img.clampedToExtent().sharpenedLuminance(sharpness: 1, radius: sigma)
                : img.clampedToExtent().unsharpMasked(radius: sigma, intensity: 1)).cropped(to: img.extent)
            var expected = try PixelBuffer(
                width: 57, height: 31, format: .rgba8, colorEncoding: .linear, alphaMode: .premultiplied)
            var floatOptions = RenderContext.Options(colorManagement: .linear)
            floatOptions.usesBytePath = false
            try RenderContext(options: floatOptions).render(image, rect: img.extent, to: &expected)
            var out = expected
            let context = RenderContext(colorManagement: .linear)
            let explained = try context.explain(image, rect: img.extent, into: out)
            XCTAssertTrue(explained.contains("byte path: on") && explained.contains("16-bit Gaussian"), explained)
            try context.render(image, rect: img.extent, to: &out)
            XCTAssertLessThanOrEqual(TestImages.compareBytes(out, expected).max, 1, "sigma \(sigma)")
        }
    }

    /// How many values differ from the float path (by 1 at most, as the other tests check):
    /// a small share, printed for the record.
    func testShareOfValuesOffByOne() throws {
        let src = TestImages.randomBytes(200, 120, alpha: .premultiplied, seed: 23)
        let img = Image(src)
        for (sigma, k) in [(2.0, 1.0), (2.5, 0.5), (10.0, 1.0), (2.0, 8.0)] {
            let image = try img.clampedToExtent().unsharpMasked(radius: sigma, intensity: k).cropped(to: img.extent)
            let (expected, explained) = try TestImages.floatPathAndExplain(
                image, rect: img.extent, format: .rgba8, alpha: .premultiplied)
            XCTAssertTrue(explained.contains("byte path: on"), explained)
            var out = try PixelBuffer(width: 200, height: 120, format: .rgba8, alphaMode: .premultiplied)
            try RenderContext(colorManagement: .none).render(image, rect: img.extent, to: &out)
            var off = 0, worst = 0
            out.withUnsafeBytes { a in
                expected.withUnsafeBytes { b in
                    for i in 0..<a.count where a[i] != b[i] {
                        off += 1
                        worst = Swift.max(worst, Swift.abs(Int(a[i]) - Int(b[i])))
                    }
                }
            }
            let share = Double(off) / Double(200 * 120 * 4)
            print("unsharp sigma \(sigma) k \(k): \(off) values off (\(share * 100)%), at most \(worst)")
            XCTAssertLessThanOrEqual(worst, 1)
            XCTAssertLessThan(share, 0.1, "sigma \(sigma) k \(k)")
        }
    }

    /// Both graphs of the float path (the fused stencil up to sigma 3, the Gaussian and blend
    /// above) give the same byte form; the bound grows with k and sigma.
    func testExplainBoundsAndRefusals() throws {
        let src = TestImages.randomBytes(60, 40, alpha: .premultiplied, seed: 5)
        let img = Image(src)
        let probe = try PixelBuffer(width: 60, height: 40, format: .rgba8, alphaMode: .premultiplied)
        let context = RenderContext(colorManagement: .none)
        for sigma in [2.0, 3.0, 3.5, 12] {
            let explained = try context.explain(try img.unsharpMasked(radius: sigma, intensity: 1), rect: img.extent, into: probe)
            let taps = GaussianPlan.exactTaps(sigma: sigma).count
            XCTAssertTrue(explained.contains("byte path: on"), explained)
            XCTAssertTrue(explained.contains("unsharp mask sigma \(sigma) k 1.0, 16-bit Gaussian (\(taps) taps)"), explained)
        }
        let luma = try context.explain(try img.sharpenedLuminance(sharpness: 2, radius: 4), rect: img.extent, into: probe)
        XCTAssertTrue(luma.contains("luma sharpen sigma 4.0 k 2.0"), luma)
        // The largest k with a byte form, from the bound (not hard-coded): about 8.3 at sigma 2,
        // 2.4 at sigma 10 (the taps' quantization on both axes dominates).
        func limit(_ sigma: Double) throws -> Double {
            var lo = 0.0, hi = 64.0
            for _ in 0..<20 {
                let k = (lo + hi) / 2
                let mask = UnsharpMask(sigma: sigma, intensity: Float(k), lumaOnly: false)
                guard case let .success(u) = ByteUnsharp.make(mask) else { hi = k; continue }
                let image = try img.clampedToExtent().unsharpMasked(radius: sigma, intensity: 1).cropped(to: img.extent)
                guard case let .success(plan) = BytePlan.recognize(image.node) else { return -1 }
                let taps = ByteResampleTaps(
                    .separable(taps: u.taps), plan: plan, rect: IntRect(x: 0, y: 0, width: 60, height: 40))
                if u.errorBound(taps, gray: false) < 0.5 { lo = k } else { hi = k }
            }
            return lo
        }
        let at2 = try limit(2), at10 = try limit(10)
        XCTAssertTrue(at2 > 7 && at2 < 10, "k limit at sigma 2: \(at2)")
        XCTAssertTrue(at10 > 2 && at10 < 3, "k limit at sigma 10: \(at10)")
        // k too large: stays in float, explain gives the bound.
        for (sigma, k) in [(2.0, 10.0), (10.0, 2.5)] {
            XCTAssertGreaterThan(k, sigma == 2 ? at2 : at10)
            let explained = try context.explain(try img.unsharpMasked(radius: sigma, intensity: k), rect: img.extent, into: probe)
            XCTAssertTrue(explained.contains("byte path: off") && explained.contains("half a unit"), explained)
        }
        let strong = try context.explain(try img.unsharpMasked(radius: 10, intensity: 5), rect: img.extent, into: probe)
        XCTAssertTrue(strong.contains("byte path: off") && strong.contains("units from the exact formula"), strong)
        // Above sigma 12 the Gaussian is a box cascade: no byte form.
        let wide = try context.explain(try img.unsharpMasked(radius: 15, intensity: 0.5), rect: img.extent, into: probe)
        XCTAssertTrue(wide.contains("byte path: off") && wide.contains("cascade of boxes"), wide)
        // In linear light an sRGB source sharpens decoded values: stays in float.
        let linear = try RenderContext(colorManagement: .linear).explain(
            try img.unsharpMasked(radius: 2, intensity: 1), rect: img.extent, into: probe)
        XCTAssertTrue(linear.contains("byte path: off") && linear.contains("linear light"), linear)
        // Straight translucent sources stay in float.
        let straight = TestImages.randomBytes(60, 40, alpha: .straight, seed: 6)
        let straightProbe = try PixelBuffer(width: 60, height: 40, format: .rgba8, alphaMode: .straight)
        let s = try context.explain(
            try Image(straight).unsharpMasked(radius: 2, intensity: 1), rect: img.extent, into: straightProbe)
        XCTAssertTrue(s.contains("byte path: off") && s.contains("straight alpha"), s)
        // The float path agrees where the form is refused (nothing silently skipped).
        var out = try PixelBuffer(width: 60, height: 40, format: .rgba8, alphaMode: .straight)
        try context.render(try Image(straight).unsharpMasked(radius: 2, intensity: 1), rect: img.extent, to: &out)
    }
}
