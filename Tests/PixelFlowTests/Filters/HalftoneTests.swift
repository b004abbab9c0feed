import XCTest
@testable import PixelFlow

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
            var v: [String: FilterValue?] = ["inputImage": .image(Image(buffer)), "inputCenter": .vector([c.0, c.1]),
                                             "inputWidth": .number(w), "inputSharpness": .number(sharp)]
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

    func testCMYKOfWhiteAndBlack() throws {
        var b = try PixelBuffer(width: 8, height: 4, format: .rgbaF32, colorEncoding: .sRGB, alphaMode: .straight)
        for y in 0..<4 { for x in 0..<8 { b[x, y] = x < 4 ? SIMD4(1, 1, 1, 1) : SIMD4(0, 0, 0, 1) } }
        let out = try renderRaw(try FilterRegistry.apply("CICMYKHalftone", ["inputImage": .image(Image(b)), "inputSharpness": .number(1)]))
        // White: no ink can exceed a threshold >= 0 by enough to print... every ink is 0 -> paper.
        for x in 0..<4 { XCTAssertGreaterThan(out[x, 1].x, 0.99) }
        // Black: K = 1 everywhere above threshold < 1 almost everywhere -> dark.
        var dark = 0
        for x in 4..<8 { for y in 0..<4 where out[x, y].x < 0.01 { dark += 1 } }
        XCTAssertGreaterThan(dark, 12)
    }

    func testHalftonesRunAsOneFusedPass() throws {
        let out = try FilterRegistry.apply("CIDotScreen", ["inputImage": .image(Image(buffer))])
        let plan = RenderPlan(root: out.node, rect: IntRect(x: 0, y: 0, width: 64, height: 48), options: .init())
        XCTAssertEqual(plan.materializedNodes.count, 0)
        XCTAssertThrowsError(try FilterRegistry.apply("CILineScreen", ["inputImage": .image(Image(buffer)), "inputWidth": .number(0)]))
    }
}
