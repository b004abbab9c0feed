import XCTest
@testable import PixelFlow
@testable import PixelFlowKernels
@testable import PixelFlowGraph
@testable import PixelFlowEngine

/// Custom stencil kernels, tile-local and whole-region, agree with a plain loop and with
/// each other whatever the schedule.
final class StencilKernelTests: XCTestCase {
    /// A 3x3 maximum (dilation), written once, used both ways.
    func dilate(whole: Bool) -> StencilKernel {
        StencilKernel(name: "dilate3 \(whole)", haloX: 1, haloY: 1, capabilities: whole ? [.wholeRegion] : []) {
            input, output, _, _ in
            for y in output.rect.y..<output.rect.maxY {
                for x in output.rect.x..<output.rect.maxX {
                    var m = SIMD4<Float>(repeating: -.infinity)
                    for j in -1...1 { for i in -1...1 { m = pointwiseMax(m, input.pointer(x: x + i, y: y + j).pointee) } }
                    output.pointer(x: x, y: y).pointee = m
                }
            }
        }
    }

    func testTileLocalAndWholeRegionAgreeWithALoop() throws {
        let b = TestImages.random(
            width: 31, height: 19, format: .rgbaF32, seed: 5, colorEncoding: .sRGB, alphaMode: .premultiplied)
        let src = Image(b)
        var results: [PixelBuffer] = []
        for whole in [false, true] {
            let img = src.applyingStencil(.custom(dilate(whole: whole)))
            XCTAssertEqual(img.extent, Rect(x: -1, y: -1, width: 33, height: 21))
            for (threads, tw, th) in [(1, 1000, 1000), (3, 7, 5), (2, 16, 16)] {
                let out = try RenderContext(threadCount: threads, tileWidth: tw, tileHeight: th, colorManagement: .none)
                    .makeBuffer(img, rect: b.bounds, format: .rgbaF32, colorEncoding: .sRGB, alphaMode: .premultiplied)
                results.append(out)
            }
            let plan = RenderPlan(
                root: img.cropped(to: b.bounds).node, rect: IntRect(x: 0, y: 0, width: 31, height: 19), options: .init())
            XCTAssertEqual(plan.stageNodes.count, whole ? 1 : 0)
        }
        for r in results.dropFirst() { XCTAssertTrue(r == results[0]) }
        for (x, y) in [(0, 0), (10, 7), (30, 18)] {
            var m = SIMD4<Float>(repeating: 0)  // transparent outside the image
            for j in -1...1 {
                for i in -1...1 {
                    let sx = x + i, sy = y + j
                    let v = sx >= 0 && sy >= 0 && sx < 31 && sy < 19 ? b[sx, sy] : .zero
                    m = pointwiseMax(m, v)
                }
            }
            XCTAssertEqual(results[0][x, y], m)
        }
    }
}
