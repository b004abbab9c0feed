import Foundation
import XCTest
@testable import PixelFlow
@testable import PixelFlowKernels
@testable import PixelFlowGraph
@testable import PixelFlowEngine

/// Gaussian blur and Lanczos scale against values made by OpenCV and Pillow
/// (scripts/make_filter_fixtures.py).
final class ReferenceFixtureTests: XCTestCase {
    struct Fixture: Decodable {
        struct Buffer: Decodable { let width: Int; let height: Int; let pixels: [Float] }
        struct Case: Decodable {
            let name: String, kind: String, width: Int, height: Int, pixels: [Float]
            let sigma: Double?, border: String?, scale: Double?
        }
        let input: Buffer
        let cases: [Case]
    }

    func load() throws -> Fixture {
        let url = URL(fileURLWithPath: packageRoot + "/Tests/PixelFlowTests/Fixtures/Filters/references.json")
        return try JSONDecoder().decode(Fixture.self, from: Data(contentsOf: url))
    }

    func buffer(_ w: Int, _ h: Int, _ p: [Float]) throws -> PixelBuffer {
        var b = try PixelBuffer(width: w, height: h, format: .rgbaF32, colorEncoding: .sRGB, alphaMode: .premultiplied)
        for y in 0..<h { for x in 0..<w { let i = (y * w + x) * 4; b[x, y] = SIMD4(p[i], p[i + 1], p[i + 2], p[i + 3]) } }
        return b
    }

    func testAgainstOpenCVAndPillow() throws {
        let f = try load()
        let input = Image(try buffer(f.input.width, f.input.height, f.input.pixels))
        XCTAssertEqual(f.cases.count, 7)
        for c in f.cases {
            let image: Image
            switch c.kind {
            case "gaussian":
                let src = c.border == "clamp" ? input.clampedToExtent() : input
                image = try src.gaussianBlurred(radius: c.sigma!)
            default:
                image = try input.lanczosScaled(scale: c.scale!)
            }
            let out = try rawContext.makeBuffer(
                image, rect: Rect(x: 0, y: 0, width: c.width, height: c.height),
                format: .rgbaF32, colorEncoding: .sRGB, alphaMode: .premultiplied)
            let expected = try buffer(c.width, c.height, c.pixels)
            // Tolerances: OpenCV and Pillow accumulate in float (Pillow's weights in double);
            // differences come from summation order only.
            XCTAssertLessThan(maxDifference(out, expected), 2e-5, c.name)
        }
    }
}
