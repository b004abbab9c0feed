import XCTest
@testable import PixelFlow
@testable import PixelFlowKernels
@testable import PixelFlowGraph
@testable import PixelFlowEngine

/// The gradient generators (GradientFilters.swift) against scalar references of their
/// formulas at every pixel of renders placed anywhere on their infinite extents, with stored
/// values (tolerance 1e-6: Double math rounded to Float once), and the linear-light mixing with
/// color management on.
final class GradientTests: XCTestCase {
    let c0 = Color(red: 0.9, green: 0.6, blue: 0.1, alpha: 1)
    let c1 = Color(red: 0.2, green: 0.3, blue: 0.7, alpha: 0.4)

    func premul(_ c: Color) -> SIMD4<Float> { c.simd * SIMD4(c.simd.w, c.simd.w, c.simd.w, 1) }

    func assertGradient(
        _ image: Image, _ rect: Rect, file: StaticString = #filePath, line: UInt = #line,
        _ t: (Double, Double) -> Double
    ) throws {
        XCTAssertTrue(image.extent.isInfinite, file: file, line: line)
        let b = try rawContext.makeBuffer(image, rect: rect, format: .rgbaF32, colorEncoding: .sRGB, alphaMode: .premultiplied)
        for y in 0..<b.height {
            for x in 0..<b.width {
                let px = rect.x + Double(x) + 0.5, py = rect.y + Double(y) + 0.5
                let e = premul(c0) + (premul(c1) - premul(c0)) * Float(t(px, py))
                XCTAssertLessThanOrEqual(
                    abs(b[x, y] - e).max(), 1e-6, "(\(px), \(py)) \(b[x, y]) vs \(e)", file: file, line: line)
            }
        }
    }

    func linearT(_ x: Double, _ y: Double, _ p0: Point, _ p1: Point) -> Double {
        let dx = p1.x - p0.x, dy = p1.y - p0.y
        return min(1, max(0, ((x - p0.x) * dx + (y - p0.y) * dy) / (dx * dx + dy * dy)))
    }

    func testLinearGradient() throws {
        let p0 = Point(x: 4, y: 30), p1 = Point(x: 40, y: 2)
        let image = try Image.linearGradient(from: p0, to: p1, color0: c0, color1: c1)
        try assertGradient(image, Rect(x: -5, y: -3, width: 55, height: 40)) { x, y in linearT(x, y, p0, p1) }
        try assertGradient(image, Rect(x: 10_000, y: -7_000, width: 3, height: 2)) { _, _ in 1 }
        // Coincident points: color0 everywhere.
        try assertGradient(
            try Image.linearGradient(from: p0, to: p0, color0: c0, color1: c1), Rect(x: 0, y: 0, width: 4, height: 4)
        ) { _, _ in 0 }
    }

    func testSmoothLinearGradientUsesSmoothstep() throws {
        let p0 = Point(x: 0, y: 0), p1 = Point(x: 30, y: 10)
        let image = try Image.smoothLinearGradient(from: p0, to: p1, color0: c0, color1: c1)
        try assertGradient(image, Rect(x: -4, y: -4, width: 40, height: 20)) { x, y in
            let t = linearT(x, y, p0, p1)
            return t * t * (3 - 2 * t)
        }
    }

    func testRadialGradient() throws {
        let c = Point(x: 12.3, y: 9.9)
        let image = try Image.radialGradient(center: c, radius0: 3, radius1: 14, color0: c0, color1: c1)
        try assertGradient(image, Rect(x: -2, y: -2, width: 30, height: 26)) { x, y in
            min(1, max(0, (hypot(x - c.x, y - c.y) - 3) / 11))
        }
        // Reversed radii run the other way; equal radii give an anti-aliased disc.
        try assertGradient(
            try Image.radialGradient(center: c, radius0: 14, radius1: 3, color0: c0, color1: c1),
            Rect(x: 0, y: 0, width: 25, height: 20)
        ) { x, y in
            min(1, max(0, (hypot(x - c.x, y - c.y) - 14) / -11))
        }
        try assertGradient(
            try Image.radialGradient(center: c, radius0: 6, radius1: 6, color0: c0, color1: c1),
            Rect(x: 0, y: 0, width: 25, height: 20)
        ) { x, y in
            min(1, max(0, hypot(x - c.x, y - c.y) - 6 + 0.5))
        }
    }

    func testGaussianGradient() throws {
        let c = Point(x: 50, y: -20)
        let image = try Image.gaussianGradient(center: c, color0: c0, color1: c1, radius: 30)
        try assertGradient(image, Rect(x: 20, y: -50, width: 61, height: 61)) { x, y in
            let s = 10.0
            return 1 - exp(-((x - c.x) * (x - c.x) + (y - c.y) * (y - c.y)) / (2 * s * s))
        }
        try assertGradient(
            try Image.gaussianGradient(center: c, color0: c0, color1: c1, radius: 0), Rect(x: 48, y: -22, width: 4, height: 4)
        ) { _, _ in 1 }
    }

    func testGradientsMixInLinearLightWithColorManagement() throws {
        // Black to white over 100 pixels: the middle is linear 0.5, sRGB 0.735.
        let image = try Image.linearGradient(from: Point(x: 0, y: 0), to: Point(x: 100, y: 0), color0: .black, color1: .white)
        let managed = try RenderContext().makeBuffer(
            image, rect: Rect(x: 49, y: 0, width: 2, height: 1), format: .rgbaF32,
            colorEncoding: .sRGB, alphaMode: .straight)
        XCTAssertEqual(managed[0, 0].x, SRGB.fromLinear(0.495), accuracy: 1e-4)
        XCTAssertEqual(managed[1, 0].x, SRGB.fromLinear(0.505), accuracy: 1e-4)
        let raw = try rawContext.makeBuffer(
            image, rect: Rect(x: 49, y: 0, width: 1, height: 1), format: .rgbaF32,
            colorEncoding: .sRGB, alphaMode: .straight)
        XCTAssertEqual(raw[0, 0].x, 0.495, accuracy: 1e-6)
    }

    func testDistanceGradientIsTheEuclideanDistanceToTheMask() throws {
        // Mask: red above 0.5 at (10, 8) and along row 2 from x = 3 to 6.
        var mask = try PixelBuffer(width: 21, height: 17, format: .rgbaF32, colorEncoding: .sRGB, alphaMode: .straight)
        mask[10, 8] = SIMD4(1, 0, 0, 1)
        for x in 3...6 { mask[x, 2] = SIMD4(0.9, 0, 0, 1) }
        mask[0, 16] = SIMD4(0.5, 1, 1, 1)  // not above 0.5: not in the mask
        let image = try Image(mask).distanceGradientFromRedMask(maximumDistance: 10)
        XCTAssertTrue(image.extent.isInfinite)
        let rect = Rect(x: -15, y: -12, width: 50, height: 40)
        let b = try rawContext.makeBuffer(image, rect: rect, format: .rgbaF32, colorEncoding: .sRGB, alphaMode: .straight)
        var points = [(10, 8)]
        for x in 3...6 { points.append((x, 2)) }
        for y in 0..<b.height {
            for x in 0..<b.width {
                let px = x - 15, py = y - 12
                let d = points.map { hypot(Double(px - $0.0), Double(py - $0.1)) }.min()!
                XCTAssertEqual(b[x, y].x, Float(min(1, d / 10)), accuracy: 1e-6, "(\(px), \(py))")
                XCTAssertEqual(b[x, y].w, 1)
            }
        }
        // Far away: 1.
        let far = try rawContext.makeBuffer(image, rect: Rect(x: 500, y: -300, width: 2, height: 2), format: .rgbaF32)
        XCTAssertEqual(far[0, 0].x, 1)
        XCTAssertThrowsError(try Image(color: .red).distanceGradientFromRedMask()) { error in
            guard case let PixelFlowError.invalidParameter(_, key, _) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(key, "inputImage")
        }
    }

    func testBadParametersThrowNamingTheKey() {
        let cases: [(String, String, FilterValue)] = [
            ("CILinearGradient", "inputPoint0", .vector([1, 2, 3])),
            ("CISmoothLinearGradient", "inputColor1", .color(Color(red: .nan, green: 0, blue: 0))),
            ("CIRadialGradient", "inputRadius0", .number(-1)),
            ("CIGaussianGradient", "inputRadius", .number(.infinity)),
            ("CIDistanceGradientFromRedMask", "inputMaximumDistance", .number(1001)),
        ]
        for (name, key, value) in cases {
            var values: [String: FilterValue?] = [key: value]
            if FilterRegistry.descriptor(named: name)?.input("inputImage") != nil {
                values["inputImage"] = .image(Image(TestImages.random(width: 5, height: 4)))
            }
            XCTAssertThrowsError(try FilterRegistry.apply(name, values), "\(name) \(key)") { error in
                guard case let PixelFlowError.invalidParameter(filter, k, _) = error else { return XCTFail("\(error)") }
                XCTAssertEqual(filter, name)
                XCTAssertEqual(k, key)
            }
        }
    }
}
