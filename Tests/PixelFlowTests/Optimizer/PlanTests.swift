import XCTest
@testable import PixelFlow
@testable import PixelFlowKernels
@testable import PixelFlowGraph
@testable import PixelFlowEngine

/// Assertions on the plan itself: stages, fused nodes, materialized buffers.
final class PlanTests: XCTestCase {
    let buffer = TestImages.random(width: 64, height: 48, format: .rgba8, seed: 4)

    func plan(_ img: Image, optimizes: Bool = true, rect: Rect? = nil) -> RenderPlan {
        RenderPlan(root: img.node, rect: IntRect(covering: rect ?? img.extent), options: .init(optimizes: optimizes))
    }

    func testFiveOpChainIsOneStageWithFoldedMatrices() throws {
        let chain = try Image(buffer).colorInverted().colorControls(saturation: 1.2, brightness: 0.1, contrast: 1.1)
            .gammaAdjusted(power: 0.75).sepiaTone().exposureAdjusted(ev: 0.5)
        let p = plan(chain)
        XCTAssertEqual(p.stageNodes.count, 0)
        XCTAssertEqual(p.order.map(\.op.kindName), ["source", "colorMatrix", "color", "colorMatrix"], p.explain())
        let text = p.explain()
        XCTAssertTrue(text.contains("fold color matrices: 2"), text)
        XCTAssertTrue(text.contains("optimizer: 6 node(s) -> 4"), text)
        XCTAssertTrue(text.contains("stage 1: output tiles"), text)
        XCTAssertTrue(text.contains("stage buffers: 0"), text)
        // Optimization off: one full pass per node.
        let off = plan(chain, optimizes: false)
        XCTAssertEqual(off.stageNodes.count, 4)  // every node but the source and the output
        XCTAssertTrue(off.explain().contains("optimization off: one pass per node"))
    }

    func testLargeBlurIsAStageAndCropLimitsItsRegion() throws {
        let blurred = try Image(buffer).clampedToExtent().gaussianBlurred(radius: 20)
        let small = blurred.cropped(to: Rect(x: 10, y: 10, width: 8, height: 8))
        let p = plan(small)
        XCTAssertEqual(p.stageNodes.count, 1)
        let region = p.region(of: p.stageNodes[0])!
        XCTAssertEqual(region, IntRect(x: 10, y: 10, width: 8, height: 8))
        let text = p.explain()
        XCTAssertTrue(text.contains("buffer 8x8 rgbaF32"), text)
        XCTAssertTrue(text.contains("box passes"), text)
    }

    func testSharedExpensiveNodeIsMaterializedOnce() throws {
        let blurred = try Image(buffer).gaussianBlurred(radius: 2).lanczosScaled(scale: 0.9)
        let twice = try blurred.sepiaTone().composited(atop: try blurred.colorInverted())
        let p = plan(twice)
        XCTAssertEqual(p.stageNodes.count, 1)
        XCTAssertEqual(p.stageNodes[0].op.kindName, "warp")
        XCTAssertTrue(p.explain().contains("used 2 times"))
        // A cheap shared node is recomputed per tile instead.
        let cheap = try Image(buffer).exposureAdjusted(ev: 1)
        XCTAssertEqual(plan(try cheap.sepiaTone().composited(over: cheap.colorInverted())).stageNodes.count, 0)
    }

    func testExplainThroughTheContext() throws {
        let img = try Image(buffer).transformed(by: AffineTransform(scaleX: 2, y: 2)).transformed(
            by: AffineTransform(rotationAngle: 0.1))
        let text = try RenderContext(threadCount: 2).explain(img)
        XCTAssertTrue(text.contains("fold affine warps: 1"), text)
        XCTAssertTrue(text.contains("2 thread(s)"), text)
        XCTAssertThrowsError(try RenderContext().explain(Image(color: .red)))
    }
}
