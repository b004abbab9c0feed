import XCTest
@testable import PixelFlow
@testable import PixelFlowKernels
@testable import PixelFlowGraph
@testable import PixelFlowEngine

final class HalftoneTests: XCTestCase {
    let buffer = WarpTestSupport.source()

    func threshold(_ name: String, u: Double, v: Double, w: Double) -> Float {
        let k = 2 * Double.pi / w
        switch name {
        case "CIDotScreen": return Float(0.5 + 0.25 * (cos(k * u) + cos(k * v)))
        case "CILineScreen": return Float(0.5 + 0.5 * cos(k * v))
        case "CIHatchedScreen": return Float(0.5 + 0.5 * max(cos(k * u), cos(k * v)))
        default: return Float(0.5 + 0.5 * cos(k * (u * u + v * v).squareRoot()))
        }
    }

    func testLumaScreensMatchTheirFormulas() throws {
        let c = (20.0, 13.0), angle = 0.4, w = 7.0, sharp = 0.6
        let k = Float(1 / (1 - sharp))
        for name in ["CIDotScreen", "CILineScreen", "CIHatchedScreen", "CICircularScreen"] {
            var v: [String: FilterValue?] = [
                "inputImage": .image(Image(buffer)), "inputCenter": .vector([c.0, c.1]),
                "inputWidth": .number(w), "inputSharpness": .number(sharp),
            ]
            let angled = name != "CICircularScreen"
            if angled { v["inputAngle"] = .number(angle) }
            let b = try renderRaw(try FilterRegistry.apply(name, v))
            for y in stride(from: 0, to: 48, by: 5) {
                for x in stride(from: 0, to: 64, by: 5) {
                    let dx = Double(x) + 0.5 - c.0, dy = Double(y) + 0.5 - c.1
                    let a = angled ? angle : 0
                    let t = threshold(name, u: cos(a) * dx + sin(a) * dy, v: -sin(a) * dx + cos(a) * dy, w: w)
                    let p = buffer[x, y]
                    let luma = 0.2126 * p.x + 0.7152 * p.y + 0.0722 * p.z
                    let g = min(max(0.5 + (luma - t) * k, 0), 1)
                    XCTAssertLessThan(abs(b[x, y] - SIMD4(g, g, g, 1)).max(), 2e-5, "\(name) at (\(x), \(y))")
                }
            }
        }
    }

    /// CICMYKHalftone at `(x, y)` of straight, stored pixel `p`, from its definition: inks
    /// C, M, Y with gray component replacement and under color removal, each screened by dots
    /// at its own angle (C +15, M +75, Y +0, K +45 degrees), paper where no ink prints.
    func cmyk(
        _ p: SIMD4<Float>, x: Int, y: Int, center c: (Double, Double), angle: Double, width w: Double,
        sharpness: Double, gcr: Float, ucr: Float
    ) -> SIMD4<Float> {
        let k = Float(1 / max(1 - sharpness, 0.001)), deg = Double.pi / 180
        let dx = Double(x) + 0.5 - c.0, dy = Double(y) + 0.5 - c.1
        var t = SIMD4<Float>(repeating: 0)
        for (j, a) in [angle + 15 * deg, angle + 75 * deg, angle, angle + 45 * deg].enumerated() {
            t[j] = threshold("CIDotScreen", u: cos(a) * dx + sin(a) * dy, v: -sin(a) * dx + cos(a) * dy, w: w)
        }
        let cmy = SIMD3<Float>(1 - p.x, 1 - p.y, 1 - p.z)
        let black = gcr * min(cmy.x, cmy.y, cmy.z)
        let ink = SIMD4(cmy.x - ucr * black, cmy.y - ucr * black, cmy.z - ucr * black, black)
        var dots = SIMD4<Float>(repeating: 0.5) + (ink - t) * k
        dots.clamp(lowerBound: SIMD4(repeating: 0), upperBound: SIMD4(repeating: 1))
        let paper = 1 - dots.w
        return SIMD4((1 - dots.x) * paper, (1 - dots.y) * paper, (1 - dots.z) * paper, 1)
    }

    /// Every pixel of every channel against the formula, on a random image with non-default
    /// parameters and on white and black (white prints no ink anywhere; black prints black
    /// wherever the K screen's threshold is below 1).
    func testCMYKMatchesItsFormulaEverywhere() throws {
        var bw = try PixelBuffer(width: 8, height: 4, format: .rgbaF32, colorEncoding: .sRGB, alphaMode: .straight)
        for y in 0..<4 { for x in 0..<8 { bw[x, y] = x < 4 ? SIMD4(1, 1, 1, 1) : SIMD4(0, 0, 0, 1) } }
        let cases: [(String, PixelBuffer, [String: FilterValue?], (Double, Double), Double, Double, Double, Float, Float)] = [
            ("white and black", bw, ["inputSharpness": .number(1)], (150, 150), 0, 6, 1, 1, 0.5),
            (
                "random", buffer,
                [
                    "inputCenter": .vector([20, 13]), "inputAngle": .number(0.3), "inputWidth": .number(7),
                    "inputSharpness": .number(0.6), "inputGCR": .number(0.8), "inputUCR": .number(0.4),
                ],
                (20, 13), 0.3, 7, 0.6, 0.8, 0.4
            ),
        ]
        for (name, b, parameters, c, angle, w, sharpness, gcr, ucr) in cases {
            var values = parameters
            values["inputImage"] = .image(Image(b))
            let out = try renderRaw(try FilterRegistry.apply("CICMYKHalftone", values))
            XCTAssertEqual(out.width, b.width)
            XCTAssertEqual(out.height, b.height)
            var worst: Float = 0
            for y in 0..<b.height {
                for x in 0..<b.width {
                    let e = cmyk(b[x, y], x: x, y: y, center: c, angle: angle, width: w, sharpness: sharpness, gcr: gcr, ucr: ucr)
                    worst = max(worst, abs(out[x, y] - e).max())
                }
            }
            XCTAssertLessThanOrEqual(worst, 2e-5, name)
        }
        // The white half is paper, exactly.
        let out = try renderRaw(
            try FilterRegistry.apply("CICMYKHalftone", ["inputImage": .image(Image(bw)), "inputSharpness": .number(1)]))
        for y in 0..<4 { for x in 0..<4 { XCTAssertEqual(out[x, y], SIMD4(1, 1, 1, 1), "white at (\(x), \(y))") } }
    }

    func testHalftonesRunAsOneFusedPass() throws {
        let out = try FilterRegistry.apply("CIDotScreen", ["inputImage": .image(Image(buffer))])
        let plan = RenderPlan(root: out.node, rect: IntRect(x: 0, y: 0, width: 64, height: 48), options: .init())
        XCTAssertEqual(plan.stageNodes.count, 0)
        XCTAssertThrowsError(
            try FilterRegistry.apply("CILineScreen", ["inputImage": .image(Image(buffer)), "inputWidth": .number(0)]))
    }
}
