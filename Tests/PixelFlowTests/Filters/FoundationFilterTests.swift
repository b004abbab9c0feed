import XCTest
@testable import PixelFlow
@testable import PixelFlowKernels
@testable import PixelFlowGraph
@testable import PixelFlowEngine

/// The foundation's filters rendered end to end and compared with plain formulas written
/// here, on stored values (`colorManagement: .none`) of seeded random images.
final class FoundationFilterTests: XCTestCase {
    let w = 37, h = 23
    lazy var opaque = TestImages.random(
        width: w, height: h, format: .rgbaF32, seed: 11, opaque: true,
        colorEncoding: .sRGB, alphaMode: .straight)
    lazy var translucent = TestImages.random(
        width: w, height: h, format: .rgbaF32, seed: 12, opaque: false,
        colorEncoding: .sRGB, alphaMode: .straight)

    /// Checks a per-pixel filter against `ref` on straight values.
    func checkPointFilter(
        _ make: (Image) throws -> Image, tolerance: Float = 2e-6, input: PixelBuffer? = nil,
        _ ref: (SIMD4<Float>) -> SIMD4<Float>, file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let src = input ?? opaque
        let out = try renderRaw(try make(Image(src)))
        for y in 0..<h {
            for x in 0..<w {
                let e = ref(src[x, y]), g = out[x, y]
                if e.w < 1e-3 { continue }  // colors of nearly transparent pixels carry no precision
                XCTAssertLessThanOrEqual(abs(e - g).max(), tolerance, "(\(x), \(y)) \(g) vs \(e)", file: file, line: line)
            }
        }
    }

    func testColorMatrixFilter() throws {
        try checkPointFilter({ try $0.colorMatrix(r: SIMD4(0.393, 0.769, 0.189, 0), bias: SIMD4(0.05, 0.02, -0.03, 0)) }) { v in
            SIMD4(0.393 * v.x + 0.769 * v.y + 0.189 * v.z + 0.05, v.y + 0.02, v.z - 0.03, v.w)
        }
    }

    func testExposure() throws {
        try checkPointFilter({ try $0.exposureAdjusted(ev: 0.5) }) { v in
            let s = Float(pow(2.0, 0.5))
            return SIMD4(v.x * s, v.y * s, v.z * s, v.w)
        }
    }

    func testColorControlsMatchesCoreImageDefinition() throws {
        try checkPointFilter({ try $0.colorControls(saturation: 1.2, brightness: 0.1, contrast: 1.1) }, tolerance: 1e-5) { v in
            let l = 0.2126 * v.x + 0.7152 * v.y + 0.0722 * v.z
            func ch(_ c: Float) -> Float { ((l + 1.2 * (c - l)) + 0.1 - 0.5) * 1.1 + 0.5 }
            return SIMD4(ch(v.x), ch(v.y), ch(v.z), v.w)
        }
    }

    func testGammaInvertSepiaGrayscale() throws {
        try checkPointFilter({ try $0.gammaAdjusted(power: 0.75) }, tolerance: 1e-6) { v in
            SIMD4(powf(v.x, 0.75), powf(v.y, 0.75), powf(v.z, 0.75), v.w)
        }
        try checkPointFilter({ try $0.colorInverted() }) { v in SIMD4(1 - v.x, 1 - v.y, 1 - v.z, v.w) }
        try checkPointFilter({ try $0.sepiaTone(intensity: 1) }, tolerance: 1e-5) { v in
            SIMD4(
                0.393 * v.x + 0.769 * v.y + 0.189 * v.z, 0.349 * v.x + 0.686 * v.y + 0.168 * v.z,
                0.272 * v.x + 0.534 * v.y + 0.131 * v.z, v.w)
        }
        try checkPointFilter({ try $0.grayscale() }) { v in
            let l = 0.2126 * v.x + 0.7152 * v.y + 0.0722 * v.z
            return SIMD4(l, l, l, v.w)
        }
    }

    func testColorFiltersOnTranslucentPixelsWorkOnUnpremultipliedValues() throws {
        try checkPointFilter({ try $0.colorInverted() }, tolerance: 2e-4, input: translucent) { v in
            SIMD4(1 - v.x, 1 - v.y, 1 - v.z, v.w)
        }
    }

    func testChainEqualsStepByStep() throws {
        let chain = try Image(opaque).colorInverted().colorControls(saturation: 1.2, brightness: 0.1, contrast: 1.1)
            .gammaAdjusted(power: 0.75).sepiaTone().exposureAdjusted(ev: 0.5)
        var step = opaque
        for f: (Image) throws -> Image in [
            { try $0.colorInverted() }, { try $0.colorControls(saturation: 1.2, brightness: 0.1, contrast: 1.1) },
            { try $0.gammaAdjusted(power: 0.75) }, { try $0.sepiaTone() }, { try $0.exposureAdjusted(ev: 0.5) },
        ] {
            step = try renderRaw(try f(Image(step)))
        }
        XCTAssertLessThan(maxDifference(try renderRaw(chain), step), 1e-5)
    }

    func testCompositing() throws {
        let fg = translucent, bg = opaque
        let over = try renderRaw(Image(fg).composited(over: Image(bg)))
        let atop = try renderRaw(try Image(fg).composited(atop: Image(bg)))
        let mixed = try renderRaw(try Image(fg).mixed(with: Image(bg), amount: 0.25))
        for y in 0..<h {
            for x in 0..<w {
                let f = fg[x, y], b = bg[x, y]
                let fp = f * SIMD4(f.w, f.w, f.w, 1), bp = b * SIMD4(b.w, b.w, b.w, 1)
                var o = fp + bp * (1 - f.w)
                o = SIMD4(o.x / o.w, o.y / o.w, o.z / o.w, o.w)
                XCTAssertLessThan(abs(over[x, y] - o).max(), 1e-5)
                var a = fp * b.w + bp * (1 - f.w); a.w = b.w
                a = SIMD4(a.x / a.w, a.y / a.w, a.z / a.w, a.w)
                XCTAssertLessThan(abs(atop[x, y] - a).max(), 1e-5)
                var m = bp * 0.75 + fp * 0.25
                m = SIMD4(m.x / m.w, m.y / m.w, m.z / m.w, m.w)
                XCTAssertLessThan(abs(mixed[x, y] - m).max(), 1e-5)
            }
        }
    }

    func testCompositingDifferentExtentsUsesTheUnion() throws {
        let small = try PixelBuffer(width: 4, height: 4, format: .rgba8)
        let big = Image(opaque).cropped(to: Rect(x: 10, y: 10, width: 8, height: 8))
        let over = Image(small).composited(over: big)
        XCTAssertEqual(over.extent, Rect(x: 0, y: 0, width: 18, height: 18))
        let px = try renderRaw(over)
        XCTAssertEqual(px[5, 5], .zero)  // outside both
        XCTAssertEqual(px[12, 12], opaque[12, 12])  // background only
    }

    func testConstantColorAndInfiniteExtent() throws {
        let red = try Image.constantColor(Color(red: 1, green: 0, blue: 0, alpha: 0.5))
        XCTAssertTrue(red.extent.isInfinite)
        XCTAssertThrowsError(try rawContext.makeBuffer(red)) { e in
            guard case PixelFlowError.invalidExtent = e else { return XCTFail("\(e)") }
        }
        let px = try renderRaw(red, rect: Rect(x: -1000, y: 5000, width: 3, height: 2))
        XCTAssertEqual(px[2, 1], SIMD4(1, 0, 0, 0.5))
        // With color management the generator's sRGB color comes back unchanged in rgba8.
        let rgba = try RenderContext().makeBuffer(
            try Image.constantColor(Color(red: 0.2, green: 0.6, blue: 1)),
            rect: Rect(x: 0, y: 0, width: 1, height: 1))
        XCTAssertEqual(rgba[0, 0], SIMD4(51, 153, 255, 255) / 255)
    }

    func testCrop() throws {
        let c = Image(opaque).cropped(to: Rect(x: 5, y: 3, width: 10, height: 7))
        XCTAssertEqual(c.extent, Rect(x: 5, y: 3, width: 10, height: 7))
        let px = try renderRaw(c)
        XCTAssertEqual(px.width, 10)
        XCTAssertEqual(px[0, 0], opaque[5, 3])
        XCTAssertEqual(px[9, 6], opaque[14, 9])
        // A crop entirely outside gives an empty extent: rendering it is a clear error, and
        // rendering it in an explicit rect gives transparent pixels.
        let outside = Image(opaque).cropped(to: Rect(x: 100, y: 100, width: 5, height: 5))
        XCTAssertTrue(outside.extent.isEmpty)
        XCTAssertThrowsError(try rawContext.makeBuffer(outside))
        XCTAssertEqual(try renderRaw(outside, rect: Rect(x: 0, y: 0, width: 2, height: 2))[1, 1], .zero)
    }

    /// Scalar bilinear sampling with pixel centers at half-integers and zero outside.
    func bilinearReference(_ src: PixelBuffer, _ sx: Double, _ sy: Double) -> SIMD4<Float> {
        let fx = sx - 0.5, fy = sy - 0.5
        let x0 = Int(floor(fx)), y0 = Int(floor(fy))
        let tx = Float(fx - floor(fx)), ty = Float(fy - floor(fy))
        func at(_ x: Int, _ y: Int) -> SIMD4<Float> {
            guard x >= 0, y >= 0, x < src.width, y < src.height else { return .zero }
            let v = src[x, y]
            return v * SIMD4(v.w, v.w, v.w, 1)
        }
        let top = at(x0, y0) + (at(x0 + 1, y0) - at(x0, y0)) * tx
        let bottom = at(x0, y0 + 1) + (at(x0 + 1, y0 + 1) - at(x0, y0 + 1)) * tx
        return top + (bottom - top) * ty
    }

    func testAffineTransformBilinear() throws {
        let t = AffineTransform(translationX: -Double(w) / 2, y: -Double(h) / 2)
            .concatenating(AffineTransform(rotationAngle: 15 * .pi / 180))
            .concatenating(AffineTransform(scaleX: 1.3, y: 0.9))
            .concatenating(AffineTransform(translationX: Double(w) / 2, y: Double(h) / 2))
        let out = try renderRaw(try Image(opaque).transformed(by: t), rect: Rect(x: 0, y: 0, width: w, height: h))
        let inv = t.inverted()!
        for y in 0..<h {
            for x in 0..<w {
                let p = inv.apply(to: Point(x: Double(x) + 0.5, y: Double(y) + 0.5))
                var e = bilinearReference(opaque, p.x, p.y)
                if e.w > 0 { e = SIMD4(e.x / e.w, e.y / e.w, e.z / e.w, e.w) }
                XCTAssertLessThan(abs(out[x, y] - e).max(), 1e-5, "(\(x), \(y))")
            }
        }
        // Integer translations move pixels exactly.
        let moved = try renderRaw(try Image(opaque).transformed(by: AffineTransform(translationX: 3, y: -2)))
        XCTAssertEqual(moved.width, w)
        XCTAssertEqual(moved[5, 5], opaque[5, 5])
        XCTAssertEqual(moved.width, w)
        XCTAssertEqual(
            try Image(opaque).transformed(by: AffineTransform(translationX: 3, y: -2)).extent,
            Rect(x: 3, y: -2, width: w, height: h))
    }

    func testConvolution3x3() throws {
        let k: [Double] = [-2, -1, 0, -1, 1, 1, 0, 1, 2]
        let out = try renderRaw(try Image(opaque).convolved3x3(weights: k, bias: 0.1), rect: Image(opaque).extent)
        for y in 0..<h {
            for x in 0..<w {
                var acc = SIMD4<Float>(repeating: 0.1)
                for j in 0..<3 {
                    for i in 0..<3 {
                        let sx = x + i - 1, sy = y + j - 1
                        if sx >= 0, sy >= 0, sx < w, sy < h { acc += opaque[sx, sy] * Float(k[j * 3 + i]) }
                    }
                }
                // Straight output: colors divided by the (convolved) alpha.
                let g = out[x, y]
                let e = acc.w > 0 ? SIMD4(acc.x / acc.w, acc.y / acc.w, acc.z / acc.w, acc.w) : .zero
                if acc.w > 0.05 && acc.w <= 1 { XCTAssertLessThan(abs(g - e).max(), 1e-4, "(\(x), \(y))") }
            }
        }
    }

    /// Direct 2D Gaussian in Double with transparent surroundings.
    func gaussianReference(_ src: PixelBuffer, sigma: Double, x: Int, y: Int) -> SIMD4<Double> {
        let r = Int((3 * sigma).rounded(.up))
        let k = (-r...r).map { exp(-Double($0 * $0) / (2 * sigma * sigma)) }
        let s = k.reduce(0, +)
        var acc = SIMD4<Double>.zero
        for j in -r...r {
            for i in -r...r {
                let sx = x + i, sy = y + j
                guard sx >= 0, sy >= 0, sx < src.width, sy < src.height else { continue }
                let v = src[sx, sy]
                acc += SIMD4<Double>(Double(v.x), Double(v.y), Double(v.z), Double(v.w)) * (k[i + r] * k[j + r] / (s * s))
            }
        }
        return acc
    }

    func testGaussianBlurExactModes() throws {
        for sigma in [1.5, 6.0] {  // tile-local and whole-pass exact
            let img = try Image(opaque).gaussianBlurred(radius: sigma)
            let r = GaussianPlan.exactRadius(sigma: sigma)
            XCTAssertEqual(img.extent, Rect(x: -r, y: -r, width: w + 2 * r, height: h + 2 * r))
            let out = try rawContext.makeBuffer(
                img, rect: Image(opaque).extent, format: .rgbaF32,
                colorEncoding: .sRGB, alphaMode: .premultiplied)
            for (x, y) in [(0, 0), (5, 7), (18, 11), (36, 22), (20, 0)] {
                let e = gaussianReference(opaque, sigma: sigma, x: x, y: y)
                let g = out[x, y]
                for c in 0..<4 { XCTAssertEqual(Double(g[c]), e[c], accuracy: 2e-6, "sigma \(sigma) (\(x), \(y))") }
            }
        }
    }

    func testLargeGaussianBoxCascadeIsCloseToExact() throws {
        // A step edge and a bright square on a 300x200 image, sigma 20 (box cascade) against
        // the exact separable blur: tolerance 0.012 of full scale (box cascades deviate most near edges).
        var b = try PixelBuffer(width: 300, height: 200, format: .rgbaF32, colorEncoding: .sRGB, alphaMode: .straight)
        for y in 0..<200 {
            for x in 0..<300 { b[x, y] = (x < 150) != (y > 120 && x > 200 && x < 260) ? SIMD4(1, 0.5, 0, 1) : SIMD4(0, 0, 1, 1) }
        }
        let sigma = 20.0
        XCTAssertNotEqual(GaussianPlan.mode(sigma: sigma), .exact)
        let boxed = try rawContext.makeBuffer(
            try Image(b).clampedToExtent().gaussianBlurred(radius: sigma),
            rect: b.bounds, format: .rgbaF32, colorEncoding: .sRGB, alphaMode: .premultiplied)
        // Exact reference: separable taps in Double over the clamped image.
        let taps = (-60...60).map { exp(-Double($0 * $0) / (2 * sigma * sigma)) }
        let s = taps.reduce(0, +)
        func clampedAt(_ x: Int, _ y: Int) -> SIMD4<Double> {
            let v = b[min(max(x, 0), 299), min(max(y, 0), 199)]
            return SIMD4(Double(v.x), Double(v.y), Double(v.z), Double(v.w))
        }
        var maxErr = 0.0
        for (x, y) in [(150, 100), (140, 60), (205, 125), (258, 150), (0, 0), (299, 199), (230, 140)] {
            var acc = SIMD4<Double>.zero
            for j in -60...60 {
                var row = SIMD4<Double>.zero
                for i in -60...60 { row += clampedAt(x + i, y + j) * (taps[i + 60] / s) }
                acc += row * (taps[j + 60] / s)
            }
            let g = boxed[x, y]
            for c in 0..<4 { maxErr = max(maxErr, abs(Double(g[c]) - acc[c])) }
        }
        XCTAssertLessThan(maxErr, 0.012)
    }

    func testGaussianRadius100IsAffordable() throws {
        // Cost flat in the radius: a 400x300 blur with radius 100 renders (box cascade).
        let b = TestImages.random(width: 160, height: 120, format: .rgba8, seed: 5, opaque: true)
        let out = try RenderContext().makeBuffer(
            try Image(b).clampedToExtent().gaussianBlurred(radius: 100).cropped(to: b.bounds))
        XCTAssertEqual(out.width, 160)
        // Nearly uniform gray-ish after such a blur of noise.
        let v = out[80, 60]
        XCTAssertLessThan(abs(v.x - v.y), 0.05)
    }

    /// Independent Lanczos-3 (Pillow's definition) in Double on one channel.
    func lanczosReference(_ src: PixelBuffer, outW: Int, outH: Int, x: Int, y: Int) -> SIMD4<Double> {
        func weights(_ o: Int, _ inSize: Int, _ outSize: Int) -> [(Int, Double)] {
            let scale = Double(inSize) / Double(outSize), fs = max(scale, 1), support = 3 * fs
            let center = (Double(o) + 0.5) * scale
            let lo = max(Int(center - support + 0.5), 0), hi = min(Int(center + support + 0.5), inSize)
            var ws: [(Int, Double)] = (lo..<hi).map { i in
                let t = (Double(i) - center + 0.5) / fs
                let v = t == 0 ? 1 : (abs(t) >= 3 ? 0 : sin(.pi * t) / (.pi * t) * sin(.pi * t / 3) / (.pi * t / 3))
                return (i, v)
            }
            let s = ws.reduce(0) { $0 + $1.1 }
            ws = ws.map { ($0.0, $0.1 / s) }
            return ws
        }
        var acc = SIMD4<Double>.zero
        for (sy, wy) in weights(y, src.height, outH) {
            for (sx, wx) in weights(x, src.width, outW) {
                let v = src[sx, sy]
                acc += SIMD4(Double(v.x), Double(v.y), Double(v.z), Double(v.w)) * (wx * wy)
            }
        }
        return acc
    }

    func testLanczosScale() throws {
        for (scale, aspect) in [(0.5, 1.0), (0.37, 1.4), (1.7, 1.0)] {
            let img = try Image(opaque).lanczosScaled(scale: scale, aspectRatio: aspect)
            let ow = Int((Double(w) * scale * aspect).rounded()), oh = Int((Double(h) * scale).rounded())
            XCTAssertEqual(img.extent, Rect(x: 0, y: 0, width: ow, height: oh))
            let out = try rawContext.makeBuffer(img, format: .rgbaF32, colorEncoding: .sRGB, alphaMode: .premultiplied)
            for y in 0..<oh {
                for x in 0..<ow {
                    let e = lanczosReference(opaque, outW: ow, outH: oh, x: x, y: y)
                    for c in 0..<4 { XCTAssertEqual(Double(out[x, y][c]), e[c], accuracy: 2e-5, "scale \(scale) (\(x), \(y))") }
                }
            }
        }
    }

    func testIdentityParametersGiveBackTheInput() throws {
        let img = Image(opaque)
        XCTAssertEqual(try img.gaussianBlurred(radius: 0), img)
        XCTAssertEqual(try img.lanczosScaled(scale: 1), img)
        XCTAssertEqual(try img.gammaAdjusted(power: 1), img)
        XCTAssertEqual(try img.exposureAdjusted(ev: 0), img)
        XCTAssertEqual(try img.colorControls(), img)
        XCTAssertEqual(try img.transformed(by: .identity), img)
        XCTAssertEqual(try img.convolved3x3(), img)
    }

    func testBadParametersThrowNamingTheKey() {
        let img = Image(opaque)
        func expectKey(_ key: String, _ body: () throws -> Image, file: StaticString = #filePath, line: UInt = #line) {
            XCTAssertThrowsError(try body(), file: file, line: line) { e in
                guard case let PixelFlowError.invalidParameter(_, k, reason) = e else {
                    return XCTFail("\(e)", file: file, line: line)
                }
                XCTAssertEqual(k, key, file: file, line: line)
                XCTAssertFalse(reason.isEmpty, file: file, line: line)
            }
        }
        expectKey("inputIntensity") { try img.sepiaTone(intensity: .nan) }
        expectKey("inputIntensity") { try img.sepiaTone(intensity: 2) }
        expectKey("inputEV") { try img.exposureAdjusted(ev: .infinity) }
        expectKey("inputRadius") { try img.gaussianBlurred(radius: -1) }
        expectKey("inputRadius") { try img.gaussianBlurred(radius: 1e9) }
        expectKey("inputScale") { try img.lanczosScaled(scale: 0) }
        expectKey("inputScale") { try img.lanczosScaled(scale: -2) }
        expectKey("inputPower") { try img.gammaAdjusted(power: .nan) }
        expectKey("inputWeights") { try img.convolved3x3(weights: [1, 2, 3]) }
        expectKey("inputWeights") { try img.convolved3x3(weights: [1, 2, 3, 4, .nan, 6, 7, 8, 9]) }
        expectKey("inputTransform") { try img.transformed(by: AffineTransform(a: 1, b: 2, c: 2, d: 4, tx: 0, ty: 0)) }
        expectKey("inputTransform") { try img.transformed(by: AffineTransform(a: .nan, b: 0, c: 0, d: 1, tx: 0, ty: 0)) }
        expectKey("inputBackgroundImage") { try FilterRegistry.apply("CISourceOverCompositing", ["inputImage": .image(img)]) }
        expectKey("inputIntensity") {
            try FilterRegistry.apply("SepiaTone", ["inputImage": .image(img), "inputIntensity": .string("x")])
        }
        expectKey("inputBogus") {
            try FilterRegistry.apply("CISepiaTone", ["inputImage": .image(img), "inputBogus": .number(1)])
        }
        XCTAssertThrowsError(try FilterRegistry.apply("CINoSuchFilter", [:])) { e in
            XCTAssertEqual(e as? PixelFlowError, .unknownFilter("CINoSuchFilter"))
        }
    }

    func testRenderLimitsAndEmptyRects() throws {
        let img = Image(opaque)
        XCTAssertThrowsError(try rawContext.makeBuffer(img, rect: Rect(x: 0, y: 0, width: 0, height: 5)))
        XCTAssertThrowsError(try rawContext.makeBuffer(img, rect: Rect(x: .nan, y: 0, width: 5, height: 5)))
        var opts = RenderContext.Options()
        opts.maximumRenderPixelCount = 100
        XCTAssertThrowsError(try RenderContext(options: opts).makeBuffer(img)) { e in
            guard case PixelFlowError.limitExceeded = e else { return XCTFail("\(e)") }
        }
        XCTAssertThrowsError(try RenderContext(threadCount: 0).makeBuffer(img))
        XCTAssertThrowsError(try RenderContext(tileWidth: 0).makeBuffer(img))
    }

    func testRegistryKnowsTheFoundationFilters() {
        for name in [
            "CIColorMatrix", "CIExposureAdjust", "CIColorControls", "CIGammaAdjust", "CIColorInvert", "CISepiaTone",
            "PFGrayscale", "CISourceOverCompositing", "CISourceAtopCompositing", "CIMix", "CIConstantColorGenerator",
            "CICrop", "CIAffineTransform", "CILanczosScaleTransform", "CIGaussianBlur", "CIConvolution3X3",
        ] {
            XCTAssertNotNil(FilterRegistry.descriptor(named: name), name)
        }
        XCTAssertNotNil(FilterRegistry.descriptor(named: "SepiaTone"))
        let blurs = FilterRegistry.filterNames(inCategories: [.blur])
        XCTAssertTrue(blurs.contains("CIGaussianBlur"))
        XCTAssertFalse(blurs.contains("CISepiaTone"))
        XCTAssertTrue(FilterRegistry.filterNames(inCategories: [.colorEffect, .builtIn]).contains("CISepiaTone"))
        XCTAssertEqual(FilterRegistry.descriptor(named: "CISepiaTone")?.input("inputIntensity")?.defaultValue, .number(1))
    }
}

final class EndToEndFileTests: XCTestCase {
    func testLoadFilterRenderAndSave() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pf-e2e-\(getpid())").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let src = TestImages.smooth(width: 64, height: 48)
        try src.write(toFile: dir + "/in.png")
        let image = try Image(contentsOfFile: dir + "/in.png")
        XCTAssertEqual(image.extent, Rect(x: 0, y: 0, width: 64, height: 48))
        let chain = try image.sepiaTone(intensity: 0.8).exposureAdjusted(ev: 0.3).colorInverted()
        let context = RenderContext()
        try context.write(chain, toFile: dir + "/out.jpg", quality: 85)
        let back = try PixelBuffer(contentsOfFile: dir + "/out.jpg")
        XCTAssertEqual(back.width, 64)
        let expected = try context.makeBuffer(chain)
        // JPEG at quality 85 on a smooth image: within 10 levels at the center.
        XCTAssertLessThan(abs(back[32, 24] - expected[32, 24]).max(), 10.0 / 255)
        // A failed render (infinite extent) leaves the existing file intact.
        let before = try PixelBuffer(contentsOfFile: dir + "/out.jpg")
        XCTAssertThrowsError(try context.write(Image(color: .red), toFile: dir + "/out.jpg"))
        XCTAssertEqual(try PixelBuffer(contentsOfFile: dir + "/out.jpg"), before)
    }
}

final class HugeRadiusTests: XCTestCase {
    /// The largest radius on a small image costs memory in proportion to the image, not to
    /// the blur's reach squared, and gives what the box cascade defines: every output pixel is
    /// the sum over the input pixels of the cascade's kernel, `k(dx) * k(dy)`, where `k` is the
    /// four boxes of `GaussianPlan.boxRadii` convolved (computed here in Double). Far too wide
    /// for the reference evaluator (it would compute a 6957 x 6945 input region); here the
    /// input is 29 x 17 pixels, so the sum is direct. About (29 * 17) / (2 pi 1000^2) of the
    /// light stays: values near 8e-5, checked to 0.5% of the largest, and never all zero.
    func testMaximumRadiusOnASmallImage() throws {
        let b = TestImages.random(width: 29, height: 17, format: .rgba8, seed: 2, opaque: true)
        let img = try Image(b).gaussianBlurred(radius: 1000)
        let out = try RenderContext().makeBuffer(img, rect: b.bounds, format: .rgbaF32)
        guard case let .boxes(radii) = GaussianPlan.mode(sigma: 1000) else { return XCTFail("sigma 1000 is a box cascade") }
        // The cascade's 1D kernel, centered: boxes of width 2r + 1, each normalized.
        var kernel: [Double] = [1]
        for r in radii {
            let w = 2 * r + 1
            var next = [Double](repeating: 0, count: kernel.count + w - 1)
            for (i, v) in kernel.enumerated() { for j in 0..<w { next[i + j] += v / Double(w) } }
            kernel = next
        }
        let center = kernel.count / 2
        let input = b.converted(to: .rgbaF32, colorEncoding: .linear, alphaMode: .premultiplied)
        var expected = [SIMD4<Double>](repeating: .zero, count: 29 * 17)
        for y in 0..<17 {
            for x in 0..<29 {
                var acc = SIMD4<Double>.zero
                for sy in 0..<17 {
                    for sx in 0..<29 { acc += SIMD4<Double>(input[sx, sy]) * (kernel[center + x - sx] * kernel[center + y - sy]) }
                }
                expected[y * 29 + x] = acc
            }
        }
        let largest = expected.map { $0.max() }.max()!
        XCTAssertGreaterThan(largest, 5e-5)
        XCTAssertLessThan(largest, 1e-3)
        var worst = 0.0
        for y in 0..<17 {
            for x in 0..<29 {
                let d = SIMD4<Double>(out[x, y]) - expected[y * 29 + x]
                worst = max(worst, max(abs(d.x), abs(d.y), abs(d.z), abs(d.w)))
            }
        }
        XCTAssertLessThanOrEqual(worst, 0.005 * largest, "largest expected value \(largest)")
    }
}
