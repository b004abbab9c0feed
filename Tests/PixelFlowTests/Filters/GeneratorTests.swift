import XCTest
@testable import PixelFlow
@testable import PixelFlowKernels
@testable import PixelFlowGraph
@testable import PixelFlowEngine

/// Renders `image` over `rect` as premultiplied rgbaF32 with stored values (no color management),
/// so generator output can be compared with plain formulas.
private func renderPremultiplied(_ image: Image, _ rect: Rect, context: RenderContext = rawContext) throws -> PixelBuffer {
    try context.makeBuffer(image, rect: rect, format: .rgbaF32, colorEncoding: .sRGB, alphaMode: .premultiplied)
}

/// The pattern and shape generators (GeneratorFilters+Shapes.swift) and the light generators
/// (GeneratorFilters+Light.swift) compared with scalar references of their formulas, written
/// here independently of the kernels, at every pixel of small renders. Tolerances: 1e-6 for
/// shapes and patterns (Double math rounded to Float once), 2e-5 for the light generators
/// (libm sin/exp/atan2 in both); areas within the stated fraction.
final class GeneratorTests: XCTestCase {
    let c0 = Color(red: 0.9, green: 0.2, blue: 0.1, alpha: 1)
    let c1 = Color(red: 0.1, green: 0.3, blue: 0.8, alpha: 0.5)

    func premul(_ c: Color) -> SIMD4<Float> { c.simd * SIMD4(c.simd.w, c.simd.w, c.simd.w, 1) }

    func assertMatches(
        _ image: Image, _ rect: Rect, tolerance: Float, file: StaticString = #filePath, line: UInt = #line,
        _ ref: (Double, Double) -> SIMD4<Float>
    ) throws {
        let b = try renderPremultiplied(image, rect)
        for y in 0..<b.height {
            for x in 0..<b.width {
                let px = rect.x + Double(x) + 0.5, py = rect.y + Double(y) + 0.5
                let e = ref(px, py), g = b[x, y]
                XCTAssertLessThanOrEqual(abs(e - g).max(), tolerance, "(\(px), \(py)): \(g) vs \(e)", file: file, line: line)
            }
        }
    }

    // MARK: Checkerboard and stripes

    /// The soft square wave, from its definition.
    func wave(_ p: Double, _ origin: Double, _ w: Double, _ sharpness: Double) -> Double {
        if w <= 0 { return 0 }
        let ramp = max(1, (1 - sharpness) * w)
        let u = (p - origin) / w
        let cell = floor(u)
        let edge = min(u - cell, 1 - (u - cell)) * w
        let m = min(1, 2 * edge / ramp)
        return Int(cell) % 2 == 0 ? m : -m
    }

    func testCheckerboardMatchesItsFormulaAndPutsColor0RightBelowTheCenter() throws {
        for (w, s) in [(8.0, 1.0), (10.0, 0.5), (5.5, 0.0), (0.5, 1.0)] {
            let image = try Image.checkerboard(center: Point(x: 3.25, y: -2), color0: c0, color1: c1, width: w, sharpness: s)
            XCTAssertTrue(image.extent.isInfinite)
            try assertMatches(image, Rect(x: -20, y: -13, width: 41, height: 29), tolerance: 1e-6) { x, y in
                let t = 0.5 - 0.5 * wave(x, 3.25, w, s) * wave(y, -2, w, s)
                return premul(c0) + (premul(c1) - premul(c0)) * Float(t)
            }
        }
        let b = try renderPremultiplied(
            try Image.checkerboard(center: Point(x: 100, y: 100), color0: c0, color1: c1, width: 10),
            Rect(x: 100, y: 100, width: 20, height: 20))
        XCTAssertLessThanOrEqual(abs(b[4, 4] - premul(c0)).max(), 1e-7, "the square right of and below the center is color0")
        XCTAssertLessThanOrEqual(abs(b[14, 4] - premul(c1)).max(), 1e-7)
        XCTAssertLessThanOrEqual(abs(b[14, 14] - premul(c0)).max(), 1e-7)
        // Width 0: the average of the colors everywhere.
        let flat = try renderPremultiplied(
            try Image.checkerboard(color0: c0, color1: c1, width: 0), Rect(x: 0, y: 0, width: 3, height: 3))
        XCTAssertLessThanOrEqual(abs(flat[1, 1] - (premul(c0) + premul(c1)) * 0.5).max(), 1e-7)
    }

    func testStripesMatchTheirFormula() throws {
        let image = try Image.stripes(center: Point(x: 7, y: 50), color0: c0, color1: c1, width: 6, sharpness: 0.3)
        try assertMatches(image, Rect(x: -9, y: 1000, width: 40, height: 3), tolerance: 1e-6) { x, _ in
            premul(c0) + (premul(c1) - premul(c0)) * Float(0.5 - 0.5 * wave(x, 7, 6, 0.3))
        }
    }

    // MARK: Rectangles

    func roundedDistance(_ x: Double, _ y: Double, _ r: Rect, _ radius: Double) -> Double {
        let hx = r.width / 2, hy = r.height / 2, rr = min(radius, hx, hy)
        let qx = abs(x - r.x - hx) - (hx - rr), qy = abs(y - r.y - hy) - (hy - rr)
        return hypot(max(qx, 0), max(qy, 0)) + min(max(qx, qy), 0) - rr
    }

    func testRoundedRectangleCoverageAndArea() throws {
        let r = Rect(x: 3, y: 4, width: 40, height: 30), radius = 9.0
        let image = try Image.roundedRectangle(r, radius: radius, color: c0)
        XCTAssertEqual(image.extent, r)
        try assertMatches(image, r, tolerance: 1e-6) { x, y in
            premul(c0) * Float(min(1, max(0, 0.5 - roundedDistance(x, y, r, radius))))
        }
        let b = try renderPremultiplied(image, r)
        var area = 0.0
        for y in 0..<b.height { for x in 0..<b.width { area += Double(b[x, y].w) } }
        let exact = 40 * 30 - (4 - Double.pi) * radius * radius
        XCTAssertEqual(area, exact, accuracy: exact * 0.002, "covered area")
    }

    func testRoundedRectangleStrokeIsTheBandInsideTheEdge() throws {
        let r = Rect(x: 0, y: 0, width: 50, height: 36), radius = 12.0, w = 4.5
        let image = try Image.roundedRectangleStroke(r, radius: radius, color: c0, width: w)
        try assertMatches(image, r, tolerance: 1e-6) { x, y in
            let d = roundedDistance(x, y, r, radius)
            return premul(c0) * Float(min(1, max(0, 0.5 - d)) - min(1, max(0, 0.5 - d - w)))
        }
        let b = try renderPremultiplied(image, r)
        var area = 0.0
        for y in 0..<b.height { for x in 0..<b.width { area += Double(b[x, y].w) } }
        let inner = (50 - 2 * w) * (36 - 2 * w) - (4 - Double.pi) * (radius - w) * (radius - w)
        let outer = 50 * 36 - (4 - Double.pi) * radius * radius
        XCTAssertEqual(area, outer - inner, accuracy: (outer - inner) * 0.01)
        XCTAssertEqual(b[25, 18], .zero, "the inside is empty")
    }

    func testBlurredRectangleIsTheErfProductAndConservesItsArea() throws {
        let r = Rect(x: 10, y: 12, width: 30, height: 20), sigma = 3.0
        let image = try Image.blurredRectangle(r, sigma: sigma, color: c0)
        XCTAssertEqual(image.extent, r.insetBy(dx: -12, dy: -12))
        func profile(_ p: Double, _ lo: Double, _ hi: Double) -> Double {
            0.5 * (erf((hi - p) / (sigma * 2.0.squareRoot())) - erf((lo - p) / (sigma * 2.0.squareRoot())))
        }
        try assertMatches(image, image.extent, tolerance: 1e-6) { x, y in
            premul(c0) * Float(profile(x, 10, 40) * profile(y, 12, 32))
        }
        let b = try renderPremultiplied(image, image.extent)
        var area = 0.0
        for y in 0..<b.height { for x in 0..<b.width { area += Double(b[x, y].w) } }
        XCTAssertEqual(area, 600, accuracy: 0.6)
        // Sigma 0: exact pixel coverage of the rect.
        let sharp = try renderPremultiplied(
            try Image.blurredRectangle(Rect(x: 1.25, y: 1, width: 2.5, height: 2), sigma: 0, color: .white),
            Rect(x: 0, y: 0, width: 5, height: 4))
        XCTAssertEqual(sharp[1, 1].w, 0.75, accuracy: 1e-6)
        XCTAssertEqual(sharp[2, 1].w, 1, accuracy: 1e-6)
        XCTAssertEqual(sharp[3, 2].w, 0.75, accuracy: 1e-6)
        XCTAssertEqual(sharp[2, 3].w, 0, accuracy: 1e-6)
    }

    // MARK: Mesh

    func testMeshDrawsAntialiasedSegments() throws {
        let segments = [(Point(x: 5, y: 10.5), Point(x: 25, y: 10.5)), (Point(x: 3, y: 3), Point(x: 20, y: 30))]
        let image = try Image.mesh(segments, width: 1.5, color: c0)
        func dist(_ x: Double, _ y: Double, _ a: Point, _ b: Point) -> Double {
            let dx = b.x - a.x, dy = b.y - a.y
            let t = min(1, max(0, ((x - a.x) * dx + (y - a.y) * dy) / (dx * dx + dy * dy)))
            return hypot(x - a.x - t * dx, y - a.y - t * dy)
        }
        try assertMatches(image, Rect(x: 0, y: 0, width: 30, height: 33), tolerance: 1e-6) { x, y in
            var c = 0.0
            for (a, b) in segments { c = max(c, min(1.5, min(1, max(0, 1.25 - dist(x, y, a, b))))) }
            return premul(c0) * Float(c)
        }
        let b = try renderPremultiplied(image, Rect(x: 0, y: 0, width: 30, height: 30))
        XCTAssertEqual(b[15, 10], premul(c0))
        XCTAssertEqual(b[15, 11].w, 0.25, accuracy: 1e-6)
        XCTAssertThrowsError(try FilterRegistry.apply("CIMeshGenerator", ["inputMesh": .vector([0, 0, 1, 1, 2])])) { error in
            guard case let PixelFlowError.invalidParameter(_, key, _) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(key, "inputMesh")
        }
        XCTAssertTrue(try Image.mesh([]).extent.isEmpty)
    }

    // MARK: Random

    func hash(_ v: UInt32) -> UInt32 {
        var x = v
        x ^= x >> 16; x = x &* 0x7FEB_352D; x ^= x >> 15; x = x &* 0x846C_A68B; x ^= x >> 16
        return x
    }

    func testRandomIsAHashOfThePositionInAnyRect() throws {
        let image = try Image.random()
        XCTAssertTrue(image.extent.isInfinite)
        try assertMatches(image, Rect(x: -1_000_003, y: 77, width: 19, height: 11), tolerance: 0) { x, y in
            let ix = Int(x - 0.5), iy = Int(y - 0.5)
            let seed = hash(UInt32(truncatingIfNeeded: ix) ^ hash(UInt32(truncatingIfNeeded: iy) &+ 0x9E37_79B9))
            var v = SIMD4<Float>.zero
            for k in 0..<4 { v[k] = Float(hash(seed &+ UInt32(k) &* 0x9E37_79B9) >> 8) / 16_777_216 }
            return v * SIMD4(v.w, v.w, v.w, 1)
        }
        // A sub-rect renders the same values as the larger render it is part of.
        let big = try renderPremultiplied(image, Rect(x: 0, y: 0, width: 64, height: 64))
        let part = try renderPremultiplied(image, Rect(x: 13, y: 21, width: 9, height: 5))
        for y in 0..<5 { for x in 0..<9 { XCTAssertEqual(part[x, y], big[x + 13, y + 21]) } }
        // Uniform: the mean of the straight values is 1/2, the variance 1/12.
        let s = try RenderContext(colorManagement: .none).makeBuffer(
            image, rect: Rect(x: 0, y: 0, width: 64, height: 64), format: .rgbaF32,
            colorEncoding: .sRGB, alphaMode: .straight)
        var sum = SIMD4<Double>.zero, sq = SIMD4<Double>.zero
        for y in 0..<64 {
            for x in 0..<64 {
                let p = s[x, y]
                let d = SIMD4<Double>(Double(p.x), Double(p.y), Double(p.z), Double(p.w))
                sum += d; sq += d * d
            }
        }
        for k in 0..<4 {
            let mean = sum[k] / 4096
            XCTAssertEqual(mean, 0.5, accuracy: 0.02, "channel \(k)")
            XCTAssertEqual(sq[k] / 4096 - mean * mean, 1.0 / 12, accuracy: 0.01, "channel \(k)")
        }
    }

    // MARK: Light

    func testLenticularHaloMatchesItsFormula() throws {
        let color = Color(red: 1, green: 0.9, blue: 0.8)
        let (cx, cy, R, W, o, st, sc, t) = (20.0, 15.0, 9.0, 8.0, 0.5, 0.7, 1.5, 0.25)
        let image = try Image.lenticularHalo(
            center: Point(x: cx, y: cy), color: color, haloRadius: R, haloWidth: W, haloOverlap: o,
            striationStrength: st, striationContrast: sc, time: t)
        try assertMatches(image, Rect(x: 0, y: 0, width: 40, height: 30), tolerance: 2e-5) { x, y in
            let d = hypot(x - cx, y - cy), a = atan2(y - cy, x - cx)
            let p = 0.5 + 0.25 * (sin(37 * a + 2 * .pi * t) + sin(23 * a - 4 * .pi * t + 1.3))
            let s = max(0, 1 + st * (2 * min(1, max(0, 0.5 + (p - 0.5) * sc)) - 1))
            var out = SIMD4<Float>.zero
            var peak = 0.0
            for k in 0..<3 {
                let u = (d - (R + Double(1 - k) * W * (1 - o) / 2)) / (W / 2)
                let ring = abs(u) < 1 ? (1 - u * u) * (1 - u * u) : 0
                out[k] = color.simd[k] * Float(ring * s)
                peak = max(peak, ring * s)
            }
            out.w = Float(min(1, peak))
            return out
        }
    }

    func testStarShineMatchesItsFormulaAndHasAWhiteCore() throws {
        let color = Color(red: 1, green: 0.8, blue: 0.6)
        let (cx, cy, r, scale, angle, opacity, width, eps) = (16.0, 12.0, 4.0, 15.0, 0.6, -2.0, 2.5, -2.0)
        let image = try Image.starShine(
            center: Point(x: cx, y: cy), color: color, radius: r, crossScale: scale, crossAngle: angle,
            crossOpacity: opacity, crossWidth: width, epsilon: eps)
        XCTAssertTrue(image.extent.isInfinite)
        try assertMatches(image, Rect(x: 0, y: 0, width: 32, height: 24), tolerance: 2e-5) { x, y in
            let dx = x - cx, dy = y - cy, d = hypot(dx, dy)
            let ax = cos(angle), ay = -sin(angle)
            let u = dx * ax + dy * ay, v = -dx * ay + dy * ax
            let L = scale * r * pow(2, eps)
            func spike(_ a: Double, _ b: Double) -> Double { exp(-(b / width) * (b / width)) * exp(-abs(a) / L) }
            let core = exp(-2 * (d / r) * (d / r)), shell = 0.5 * exp(-d / r)
            let i = core + shell + pow(2, opacity) * (spike(u, v) + spike(v, u))
            let tint = color.simd + (SIMD4<Float>(repeating: 1) - color.simd) * Float(core)
            var out = tint * Float(i)
            out.w = Float(min(1, i))
            return out
        }
    }

    func testSunbeamsMatchTheirFormula() throws {
        let color = Color(red: 1, green: 0.5, blue: 0)
        let (cx, cy, R, m, st, sc, t) = (20.0, 20.0, 6.0, 3.0, 0.8, 1.375, 0.1)
        let image = try Image.sunbeams(
            center: Point(x: cx, y: cy), color: color, sunRadius: R, maxStriationRadius: m,
            striationStrength: st, striationContrast: sc, time: t)
        XCTAssertEqual(image.extent, Rect(x: 1, y: 1, width: 38, height: 38))
        try assertMatches(image, image.extent, tolerance: 2e-5) { x, y in
            let d = hypot(x - cx, y - cy), a = atan2(y - cy, x - cx)
            let disc = min(1, max(0, R - d + 0.5))
            var f = min(1, max(0, 1 - (d - R) / (R * m - R)))
            f *= f
            let p = 0.5 + 0.25 * (sin(29 * a + 2 * .pi * t) + sin(17 * a - 4 * .pi * t + 1.3))
            let beams = st * min(1, max(0, 0.5 + (p - 0.5) * sc)) * f
            return color.simd * Float(min(1, max(disc, beams)))
        }
    }

    // MARK: Color management and parameters

    func testColorsAreConvertedToTheWorkingSpace() throws {
        // Rendering back to sRGB gives the sRGB color with color management on or off.
        let c = Color(red: 0.25, green: 0.5, blue: 0.75)
        for context in [RenderContext(), rawContext] {
            let b = try context.makeBuffer(
                try Image.roundedRectangle(Rect(x: 0, y: 0, width: 8, height: 8), radius: 2, color: c),
                rect: Rect(x: 0, y: 0, width: 8, height: 8), format: .rgbaF32, colorEncoding: .sRGB,
                alphaMode: .straight)
            XCTAssertLessThanOrEqual(abs(b[4, 4] - c.simd).max(), 1e-5)
        }
    }

    func testBadParametersThrowNamingTheKey() {
        let cases: [(String, String, FilterValue)] = [
            ("CICheckerboardGenerator", "inputSharpness", .number(1.5)),
            ("CIStripesGenerator", "inputWidth", .number(-1)),
            ("CIRoundedRectangleGenerator", "inputExtent", .vector([0, 0, -5, 5])),
            ("CIBlurredRectangleGenerator", "inputSigma", .number(-0.1)),
            ("CILenticularHaloGenerator", "inputTime", .number(2)),
            ("CIStarShineGenerator", "inputCrossOpacity", .number(-9)),
            ("CISunbeamsGenerator", "inputCenter", .vector([1, 2, 3])),
            ("CIMeshGenerator", "inputWidth", .number(.nan)),
        ]
        for (name, key, value) in cases {
            XCTAssertThrowsError(try FilterRegistry.apply(name, [key: value]), "\(name) \(key)") { error in
                guard case let PixelFlowError.invalidParameter(filter, k, _) = error else { return XCTFail("\(error)") }
                XCTAssertEqual(filter, name)
                XCTAssertEqual(k, key)
            }
        }
    }
}
