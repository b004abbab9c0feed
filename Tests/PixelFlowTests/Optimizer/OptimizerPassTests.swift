import XCTest
@testable import PixelFlow
@testable import PixelFlowKernels
@testable import PixelFlowGraph
@testable import PixelFlowEngine

/// Each pass alone: the graph before, the graph after, and rendered pixels equal to the
/// unoptimized graph within the stated tolerance.
final class OptimizerPassTests: XCTestCase {
    let buffer = TestImages.random(width: 41, height: 29, format: .rgba8, seed: 21)
    lazy var image = Image(buffer)

    func kinds(_ n: Node) -> [String] { GraphWalk.postOrder(n).map(\.op.kindName) }

    /// Renders with and without optimization and compares (rgbaF32, stored values).
    func assertSameRender(_ img: Image, tolerance: Float, rect: Rect? = nil, file: StaticString = #filePath, line: UInt = #line)
        throws
    {
        let on = try RenderContext(colorManagement: .none).makeBuffer(img, rect: rect, format: .rgbaF32, colorEncoding: .sRGB)
        let off = try RenderContext(colorManagement: .none, optimizes: false).makeBuffer(
            img, rect: rect, format: .rgbaF32, colorEncoding: .sRGB)
        XCTAssertLessThanOrEqual(maxDifference(on, off), tolerance, file: file, line: line)
    }

    func testRemoveIdentities() throws {
        let n = Node(.colorMatrix(.identity), inputs: [image.node], extent: image.extent)
        let c = Node(.crop(Rect(x: -5, y: -5, width: 100, height: 100)), inputs: [n], extent: image.extent)
        let w = Node(.warp(.affine(.identity, .bilinear)), inputs: [c], extent: image.extent)
        let (out, changes) = RemoveIdentities.run(w)
        XCTAssertEqual(changes, 3)
        XCTAssertTrue(out === image.node)
        // A crop smaller than the extent stays.
        let (kept, none) = RemoveIdentities.run(image.cropped(to: Rect(x: 1, y: 1, width: 5, height: 5)).node)
        XCTAssertEqual(none, 0)
        XCTAssertEqual(kinds(kept), ["source", "crop"])
        try assertSameRender(Image(node: w), tolerance: 0)
    }

    func testFoldColorMatrices() throws {
        let chain = try image.colorInverted().colorControls(saturation: 1.2, brightness: 0.1, contrast: 1.1)
            .gammaAdjusted(power: 0.75).sepiaTone().exposureAdjusted(ev: 0.5)
        XCTAssertEqual(kinds(chain.node), ["source", "colorMatrix", "colorMatrix", "color", "colorMatrix", "colorMatrix"])
        let (out, changes) = FoldColorMatrices.run(chain.node)
        XCTAssertEqual(changes, 2)
        XCTAssertEqual(kinds(out), ["source", "colorMatrix", "color", "colorMatrix"])
        // The folded matrix equals the product.
        guard case let .colorMatrix(m) = out.op else { return XCTFail() }
        let expected = ColorMatrix.sepia(intensity: 1).concatenating(.exposure(ev: 0.5))
        for i in 0..<4 { XCTAssertLessThan(abs(m.row(i) - expected.row(i)).max(), 1e-6) }
        try assertSameRender(chain, tolerance: 2e-6)
        // Exposure up and down folds to the identity, which is then removed.
        let roundTrip = try image.exposureAdjusted(ev: 1).exposureAdjusted(ev: -1)
        let (opt, _) = Optimizer.optimize(roundTrip.node)
        XCTAssertTrue(opt === image.node)
    }

    func testFoldAffineWarps() throws {
        let c = Double(buffer.width) / 2, d = Double(buffer.height) / 2
        let rotated = try image.transformed(
            by: AffineTransform(translationX: -c, y: -d).rotated(by: 0)
                .concatenating(AffineTransform(rotationAngle: 0.4)).concatenating(AffineTransform(translationX: c, y: d)))
        let scaled = try rotated.transformed(by: AffineTransform(scaleX: 0.7, y: 0.7))
        let moved = try scaled.transformed(by: AffineTransform(translationX: 3.5, y: -2))
        let (out, changes) = FoldAffineWarps.run(moved.node)
        XCTAssertEqual(changes, 2)
        XCTAssertEqual(kinds(out), ["source", "warp"])
        // One resampling with the composite transform equals rendering that transform directly.
        guard case let .warp(.affine(t, _)) = out.op else { return XCTFail() }
        let direct = try image.transformed(by: t)
        let a = try renderRaw(Image(node: out), rect: Rect(x: 0, y: 0, width: 41, height: 29))
        let b = try renderRaw(direct, rect: Rect(x: 0, y: 0, width: 41, height: 29))
        XCTAssertEqual(maxDifference(a, b), 0)
    }

    func testMergeAndPushCrops() throws {
        let img = try image.exposureAdjusted(ev: 0.3).cropped(to: Rect(x: 2, y: 2, width: 30, height: 20))
            .cropped(to: Rect(x: 10, y: 0, width: 100, height: 10))
        let (out, changes) = MergeCrops.run(img.node)
        XCTAssertGreaterThan(changes, 0)
        XCTAssertEqual(kinds(out), ["source", "crop", "colorMatrix"])
        XCTAssertEqual(out.extent, Rect(x: 10, y: 2, width: 22, height: 8))
        if case let .crop(r) = out.inputs[0].op { XCTAssertEqual(r, Rect(x: 10, y: 2, width: 22, height: 8)) } else { XCTFail() }
        try assertSameRender(img, tolerance: 1e-6)
        // Through a blend: both inputs get the crop.
        let blended = Image(buffer).composited(over: try image.gammaAdjusted(power: 2)).cropped(
            to: Rect(x: 3, y: 4, width: 5, height: 6))
        let (b, _) = MergeCrops.run(blended.node)
        XCTAssertEqual(b.op.kindName, "blend")
        XCTAssertEqual(b.inputs.map { $0.op.kindName }, ["crop", "color"])
        try assertSameRender(blended, tolerance: 1e-6)
    }

    func testShareCommonSubgraphs() throws {
        // Two separately built but identical branches become one node.
        let a = try image.gaussianBlurred(radius: 1.5).exposureAdjusted(ev: 0.2)
        let b = try image.gaussianBlurred(radius: 1.5).exposureAdjusted(ev: 0.2)
        let both = a.composited(over: b)
        XCTAssertEqual(GraphWalk.postOrder(both.node).count, 6)
        let (out, changes) = ShareCommonSubgraphs.run(both.node)
        XCTAssertEqual(changes, 2)
        XCTAssertEqual(GraphWalk.postOrder(out).count, 4)
        XCTAssertTrue(out.inputs[0] === out.inputs[1])
        try assertSameRender(both, tolerance: 0)
        // Closures are never merged by name.
        let k1 = image.applyingColorKernel(named: "k") { $0 * 0.5 }
        let k2 = image.applyingColorKernel(named: "k") { $0 * 0.25 }
        let (o2, c2) = ShareCommonSubgraphs.run(k1.composited(over: k2).node)
        XCTAssertEqual(c2, 0)
        XCTAssertFalse(o2.inputs[0] === o2.inputs[1])
    }

    func testOptimizedAndUnoptimizedAgreeOnMixedGraphs() throws {
        let g = try image.colorInverted().exposureAdjusted(ev: -0.4)
            .transformed(by: AffineTransform(rotationAngle: 0.2)).transformed(by: AffineTransform(translationX: 4, y: 1))
            .gaussianBlurred(radius: 5).convolved3x3(weights: [0, -1, 0, -1, 5, -1, 0, -1, 0])
            .mixed(with: try image.lanczosScaled(scale: 0.8).sepiaTone(), amount: 0.3)
        // Affine folding changes the resampling (one instead of two), so compare loosely there
        // and exactly on the same graph without warps.
        try assertSameRender(g, tolerance: 0.2, rect: Rect(x: 0, y: 0, width: 41, height: 29))
        let noWarp = try image.colorInverted().exposureAdjusted(ev: -0.4).gaussianBlurred(radius: 5)
            .convolved3x3(weights: [0, -1, 0, -1, 5, -1, 0, -1, 0]).mixed(
                with: try image.lanczosScaled(scale: 0.8).sepiaTone(), amount: 0.3)
        try assertSameRender(noWarp, tolerance: 2e-5, rect: Rect(x: 0, y: 0, width: 41, height: 29))
    }

    func testDeepChainsDoNotOverflowTheStack() throws {
        // 10,000 nodes: point operations, crops and blends alternate.
        var img = Image(TestImages.random(width: 8, height: 6, format: .rgba8, seed: 3))
        for i in 0..<10_000 {
            switch i % 4 {
            case 0: img = try img.exposureAdjusted(ev: 0.0001)
            case 1: img = try img.gammaAdjusted(power: 1.0001)
            case 2: img = img.cropped(to: Rect(x: 0, y: 0, width: 8, height: 6))
            default: img = try img.mixed(with: Image(color: .red), amount: 0.0001)
            }
        }
        XCTAssertEqual(GraphWalk.depth(img.node), 10_001)
        let (opt, _) = Optimizer.optimize(img.node)
        XCTAssertGreaterThan(GraphWalk.depth(opt), 1000)
        let plan = RenderPlan(root: img.node, rect: IntRect(x: 0, y: 0, width: 8, height: 6), options: .init())
        XCTAssertGreaterThan(plan.stageNodes.count, 10)  // forced stage boundaries
        let out = try RenderContext().makeBuffer(img.cropped(to: Rect(x: 0, y: 0, width: 8, height: 6)), format: .rgbaF32)
        XCTAssertFalse(out[3, 3].x.isNaN)
        let unopt = try RenderContext(optimizes: false).makeBuffer(
            img.cropped(to: Rect(x: 0, y: 0, width: 8, height: 6)), format: .rgbaF32)
        XCTAssertLessThan(maxDifference(out, unopt), 1e-3)
    }
}
