import XCTest
@testable import PixelFlow
@testable import PixelFlowKernels
@testable import PixelFlowGraph
@testable import PixelFlowEngine

/// A schedule (threads, tile size) never changes the pixels, and the pixels are the
/// reference evaluator's (Support/ReferenceEvaluator.swift) within its tolerance.
final class DeterminismTests: XCTestCase {
    func graph(_ b: PixelBuffer) throws -> [(String, Image)] {
        let img = Image(b)
        let other = try Image(TestImages.random(width: b.width, height: b.height, format: .rgba8, seed: 99))
            .transformed(by: AffineTransform(translationX: 5, y: 3))
        return [
            (
                "point chain",
                try img.colorInverted().colorControls(saturation: 1.3, brightness: 0.05, contrast: 1.2)
                    .gammaAdjusted(power: 0.8).sepiaTone(intensity: 0.6).exposureAdjusted(ev: 0.3)
            ),
            ("blend", try img.composited(atop: other).mixed(with: Image.constantColor(.blue), amount: 0.4).cropped(to: b.bounds)),
            (
                "warp",
                try img.transformed(by: AffineTransform(rotationAngle: 0.3).translatedBy(x: 10, y: -4)).cropped(to: b.bounds)
            ),
            ("lanczos", try img.lanczosScaled(scale: 0.45, aspectRatio: 1.1)),
            ("blur small", try img.gaussianBlurred(radius: 2)),
            ("blur exact", try img.gaussianBlurred(radius: 7).cropped(to: b.bounds)),
            ("blur boxes", try img.clampedToExtent().gaussianBlurred(radius: 30).cropped(to: b.bounds)),
            ("conv", try img.convolved3x3(weights: [0, -1, 0, -1, 5, -1, 0, -1, 0]).composited(over: other)),
        ]
    }

    func testOutputIsIdenticalForEveryThreadCountAndTileSize() throws {
        // 83x61 is a multiple of none of the tile sizes.
        let b = TestImages.random(width: 83, height: 61, format: .rgba8, seed: 5)
        for (name, image) in try graph(b) {
            let reference = try RenderContext(threadCount: 1, tileWidth: 1 << 20, tileHeight: 1 << 20).makeBuffer(
                image, format: .rgbaF32)
            let oracle = try ReferenceEvaluator.render(image)
            let d = relativeDifference(reference, oracle)
            XCTAssertLessThanOrEqual(
                d.value, ReferenceTolerance.forGraph(image.node), "\(name): differs from the reference at (\(d.x), \(d.y))")
            for threads in [1, 2, 3, 8] {
                for (tw, th) in [(16, 16), (64, 64), (37, 13), (83, 61)] {
                    let ctx = RenderContext(threadCount: threads, tileWidth: tw, tileHeight: th)
                    let out = try ctx.makeBuffer(image, format: .rgbaF32)
                    XCTAssertTrue(out == reference, "\(name): threads \(threads) tile \(tw)x\(th) differs")
                }
            }
        }
    }

    func testSubRectEqualsCropOfFullRender() throws {
        let b = TestImages.random(width: 90, height: 70, format: .rgba8, seed: 8)
        for (name, image) in try graph(b) {
            let full = try RenderContext().makeBuffer(image, rect: b.bounds, format: .rgbaF32)
            let sub = try RenderContext().makeBuffer(image, rect: Rect(x: 31, y: 17, width: 40, height: 29), format: .rgbaF32)
            // The reference computes the sub-rect on its own too (regions of interest from it).
            let oracle = try ReferenceEvaluator.render(image, rect: Rect(x: 31, y: 17, width: 40, height: 29))
            XCTAssertLessThanOrEqual(relativeDifference(sub, oracle).value, ReferenceTolerance.forGraph(image.node), name)
            var same = true
            for y in 0..<29 { for x in 0..<40 where sub[x, y] != full[x + 31, y + 17] { same = false } }
            XCTAssertTrue(same, name)
        }
    }
}
