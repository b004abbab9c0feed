import XCTest
@testable import PixelFlow
@testable import PixelFlowKernels
@testable import PixelFlowGraph
@testable import PixelFlowEngine

final class CustomKernelTests: XCTestCase {
    let buffer = TestImages.random(
        width: 33, height: 21, format: .rgbaF32, seed: 9, opaque: true, colorEncoding: .sRGB, alphaMode: .straight)

    func testColorKernelsFuseWithBuiltIns() throws {
        let img = try Image(buffer).applyingColorKernel(named: "swap") { SIMD4($0.z, $0.y, $0.x, $0.w) }.exposureAdjusted(ev: 1)
        let out = try renderRaw(img)
        let v = buffer[5, 6]
        XCTAssertLessThan(abs(out[5, 6] - SIMD4(v.z * 2, v.y * 2, v.x * 2, 1)).max(), 1e-6)
        let p = RenderPlan(root: img.node, rect: IntRect(x: 0, y: 0, width: 33, height: 21), options: .init())
        XCTAssertEqual(p.stageNodes.count, 0)
        let rows = Image(buffer).applyingColorRowKernel(named: "half") { px in
            for i in px.indices { px[i] *= SIMD4(0.5, 0.5, 0.5, 1) }
        }
        XCTAssertEqual(try renderRaw(rows)[1, 1], buffer[1, 1] * SIMD4(0.5, 0.5, 0.5, 1))
    }

    func testBlendKernel() throws {
        let other = TestImages.random(
            width: 33, height: 21, format: .rgbaF32, seed: 10, opaque: true, colorEncoding: .sRGB, alphaMode: .straight)
        let img = Image(buffer).blended(with: Image(other), named: "max") { f, b in
            SIMD4(max(f.x, b.x), max(f.y, b.y), max(f.z, b.z), 1)
        }
        let out = try renderRaw(img)
        // Every channel of every pixel: both inputs are opaque, so premultiplying is exact.
        XCTAssertEqual(out.width, buffer.width)
        XCTAssertEqual(out.height, buffer.height)
        for y in 0..<buffer.height {
            for x in 0..<buffer.width {
                let f = buffer[x, y], b = other[x, y]
                XCTAssertEqual(out[x, y], SIMD4(max(f.x, b.x), max(f.y, b.y), max(f.z, b.z), 1), "(\(x), \(y))")
            }
        }
        try assertMatchesReference(img, context: rawContext, colorEncoding: .sRGB, alphaMode: .straight, "max blend")
    }

    func testWarpKernelUsesItsRegionOfInterest() throws {
        // A horizontal flip about the image's center, with its exact region of interest.
        let w = Double(buffer.width)
        let flipped = Image(buffer).warped(
            named: "flip", sampling: .nearest,
            regionOfInterest: { r in Rect(x: w - r.maxX, y: r.y, width: r.width, height: r.height) }
        ) { x, y in
            Point(x: w - x, y: y)
        }
        let out = try renderRaw(flipped)
        XCTAssertEqual(out[0, 3], buffer[32, 3])
        XCTAssertEqual(out[10, 7], buffer[22, 7])
        // Sub-rect renders agree with the full render (the ROI is honoured per tile).
        let tiled = try RenderContext(tileWidth: 7, tileHeight: 5, colorManagement: .none)
            .makeBuffer(flipped, format: .rgbaF32, colorEncoding: .sRGB, alphaMode: .straight)
        XCTAssertEqual(maxDifference(tiled, out), 0)
    }
}
