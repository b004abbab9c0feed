import Foundation
import XCTest

@testable import PixelFlow
@testable import PixelFlowKernels
@testable import PixelFlowGraph
@testable import PixelFlowEngine

/// The lowered `Pipeline`: what a render decides once, asserted on the typed value (not on
/// `explain()`'s text, not on tiling arithmetic), and the tile loop that only carries it out
/// (no graph walk, no allocation that grows with the tile count).
final class PipelineTests: XCTestCase {
    /// Premultiplied linear floats: the working representation, readable in place.
    let stored = TestImages.random(width: 300, height: 200, seed: 7, colorEncoding: .linear, alphaMode: .premultiplied)
    let bytes = TestImages.random(width: 300, height: 200, format: .rgba8, seed: 8)

    func lower(_ image: Image, into buffer: PixelBuffer? = nil, _ options: RenderContext.Options = .init()) -> Pipeline {
        RenderPlan(root: image.node, rect: IntRect(covering: image.extent), options: options).lower(into: buffer)
    }

    func testClampedBlurOfAStoredSourceReadsInPlaceWithAnEdgeSplit() throws {
        let image = try Image(stored).clampedToExtent().gaussianBlurred(radius: 2).cropped(to: stored.bounds)
        let p = lower(image)
        XCTAssertEqual(p.stages.count, 1)
        let blur = try XCTUnwrap(p.output.nodes.first { if case .stencil = $0.op { return true } else { return false } })
        let step = try XCTUnwrap(p.step(blur))
        XCTAssertEqual(step.form, .separableTaps(count: 13))
        XCTAssertEqual(step.inputs, [.inPlace(stage: nil)], "the clamp over a float source is read where it is")
        XCTAssertEqual(step.edgeSplit, IntRect(x: 0, y: 0, width: 300, height: 200), "tiles at the edges split")
        // The same blur of an 8-bit source converts its rows instead, and has nothing to split.
        let converted = lower(try Image(bytes).clampedToExtent().gaussianBlurred(radius: 2).cropped(to: bytes.bounds))
        let step8 = try XCTUnwrap(converted.step(converted.output.nodes.first { $0.op.kindName == "stencil" }!))
        XCTAssertEqual(step8.inputs, [.convertedRows])
        XCTAssertNil(step8.edgeSplit)
    }

    func testFusedColorChainRunsAsOnePointProgramOverItsSource() throws {
        let image = try Image(bytes).colorInverted().colorControls(saturation: 1.2, brightness: 0.1, contrast: 1.1)
            .gammaAdjusted(power: 0.75).sepiaTone(intensity: 1).exposureAdjusted(ev: 0.5)
        let p = lower(image)
        XCTAssertEqual(p.stages.count, 1)
        if case .bands = p.output.placement {
        } else {
            XCTFail("pointwise plans run in full-width bands: \(p.output.placement)")
        }
        let top = try XCTUnwrap(p.step(p.output.node))
        guard case let .pointProgram(steps, premultiplied) = top.form else {
            return XCTFail("\(top.form)")
        }
        XCTAssertFalse(premultiplied)
        XCTAssertEqual(steps, 3, "matrices folded around the gamma step")
        XCTAssertEqual(steps, top.chain?.ops.count)
        XCTAssertEqual(top.inputs, [.computed], "the chain's own input is the next color node")
        guard case .buffer? = top.chain?.fusedSource else { return XCTFail("the chain reads its source chunk by chunk") }
        XCTAssertEqual(p.output.nodes.first?.op.kindName, "source")
    }

    func testBlendOfTwoSourcesReadsBothInPlace() throws {
        let other = TestImages.random(width: 300, height: 200, seed: 9, colorEncoding: .linear, alphaMode: .premultiplied)
        let image = Image(stored).composited(over: Image(other))
        let step = try XCTUnwrap(lower(image).step(image.node))
        guard case .builtinBlend = step.form else { return XCTFail("\(step.form)") }
        XCTAssertEqual(step.inputs, [.inPlace(stage: nil), .inPlace(stage: nil)])
        XCTAssertTrue(step.plainSources.allSatisfy { $0 != nil }, "two sources: the row-by-row path is ready too")
    }

    func testWholeRegionGaussianIsWrittenIntoTheDestination() throws {
        let image = try Image(stored).gaussianBlurred(radius: 6)
        let rect = Rect(x: 0, y: 0, width: 300, height: 200)
        let root = image.cropped(to: rect)
        let f32 = try PixelBuffer(
            width: 300, height: 200, format: .rgbaF32, colorEncoding: .linear, alphaMode: .premultiplied)
        let p = RenderPlan(root: root.node, rect: IntRect(covering: rect), options: .init()).lower(into: f32)
        XCTAssertEqual(p.stages.count, 1, "no output tiles")
        XCTAssertEqual(p.output.placement, .intoDestination)
        guard case .wholeRegion? = p.output.reason else { return XCTFail("\(String(describing: p.output.reason))") }
        XCTAssertEqual(p.step(p.output.node)?.inputs, [.inPlace(stage: nil)])
        // Into an 8-bit buffer the stage has a buffer and output tiles copy it.
        let u8 = RenderPlan(root: root.node, rect: IntRect(covering: rect), options: .init()).lower(into: bytes)
        XCTAssertEqual(u8.stages.count, 2)
        XCTAssertEqual(u8.stages[0].placement, .wholeRegion)
        XCTAssertEqual(u8.output.reads, [1])
    }

    func testReductionIsAStageComputedOverItsWholeRegion() throws {
        let image = try Image(stored).exposureAdjusted(ev: 0.3).areaAverage(in: Rect(x: 10, y: 10, width: 100, height: 50))
        let p = lower(image)
        XCTAssertEqual(p.stages.count, 2)
        XCTAssertEqual(p.stages[0].reason, .reduction)
        XCTAssertEqual(p.stages[0].placement, .wholeRegion)
        if case .reduction = p.step(p.stages[0].node)?.form {} else { XCTFail("reduction form") }
        XCTAssertEqual(p.output.reads, [1])
        XCTAssertTrue(p.stages[0].nodes.contains { $0.op.kindName == "colorMatrix" }, "its input is computed in its passes")
    }

    func testByteRenderTakesTheBytePath() throws {
        let opaque = TestImages.random(width: 64, height: 48, format: .rgba8, seed: 4, opaque: true)
        let image = try Image(opaque).clampedToExtent().morphologyMaximum(radius: 2).cropped(to: opaque.bounds)
        var out = try PixelBuffer(width: 64, height: 48, format: .rgba8)
        out.alphaMode = opaque.alphaMode
        guard case .success? = lower(image, into: out).bytePath else { return XCTFail("byte path") }
        guard case .failure? = lower(image, into: try PixelBuffer(width: 64, height: 48, format: .rgbaF32)).bytePath else {
            return XCTFail("no byte path into floats")
        }
        XCTAssertNil(lower(image).bytePath, "no destination, no byte-path decision")
    }

    /// Graphs that exercise every kind of step: a fused chain, a blend, a clamped blur with
    /// edge splits, a multi-input stencil, a rotation, a whole-region blur, a Lanczos scale.
    func graphs() throws -> [(String, Image)] {
        let a = Image(stored), b = Image(bytes)
        let chain = try b.sepiaTone(intensity: 0.5).colorInverted().gammaAdjusted(power: 0.75)
        let blend = chain.composited(over: a)
        let blurred = try a.clampedToExtent().gaussianBlurred(radius: 2).cropped(to: stored.bounds)
        let displaced = try a.displacementDistorted(by: b, scale: 6).cropped(to: stored.bounds)
        let rotated = try a.transformed(by: AffineTransform(rotationAngle: 0.2)).cropped(to: stored.bounds)
        let big = try b.clampedToExtent().gaussianBlurred(radius: 8).cropped(to: stored.bounds)
        let median = try b.clampedToExtent().median(radius: 2).cropped(to: stored.bounds)
        return [
            ("chain", chain), ("blend", blend), ("blur", blurred), ("displacement", displaced), ("rotation", rotated),
            ("big blur", big), ("lanczos", try a.lanczosScaled(scale: 0.9)), ("median", median),
            ("all", try rotated.composited(over: big).composited(over: displaced).composited(over: blurred)),
        ]
    }

    func mixedGraph() throws -> Image { try graphs().last!.1 }

    func testTheTileLoopWalksNoGraph() throws {
        let image = try mixedGraph()
        func walks(tile: Int) throws -> Int {
            let context = RenderContext(threadCount: 2, tileWidth: tile, tileHeight: tile)
            let before = GraphWalk.walks.load(ordering: .relaxed)
            _ = try context.makeBuffer(image, rect: image.extent, format: .rgba8)
            return GraphWalk.walks.load(ordering: .relaxed) - before
        }
        let many = try walks(tile: 16), few = try walks(tile: 128)
        XCTAssertGreaterThan(few, 0, "lowering walks the graph")
        XCTAssertEqual(many, few, "walks must not depend on the tile count (16x16 tiles: \(many), 128x128: \(few))")
    }

    /// Needs the malloc counter of scripts/count_allocations.sh (an LD_PRELOAD shim that
    /// exports `pf_malloc_count`); skipped otherwise.
    func testTheTileLoopAllocatesNoMoreWithMoreTiles() throws {
        guard let symbol = dlsym(dlopen(nil, RTLD_NOW), "pf_malloc_count") else {
            throw XCTSkip("run scripts/count_allocations.sh to count allocations")
        }
        typealias Count = @convention(c) () -> Int
        let count = unsafeBitCast(symbol, to: Count.self)
        func allocations(_ image: Image, tile: Int) throws -> Int {
            let context = RenderContext(threadCount: 1, tileWidth: tile, tileHeight: tile)
            _ = try context.makeBuffer(image, rect: image.extent, format: .rgba8)  // warm caches
            let before = count()
            _ = try context.makeBuffer(image, rect: image.extent, format: .rgba8)
            return count() - before
        }
        for (name, image) in try graphs() {
            let many = try allocations(image, tile: 16), few = try allocations(image, tile: 128)
            print("\(name): allocations per render: \(many) with 16x16 tiles, \(few) with 128x128 tiles")
            // Arena chunks could differ by one or two with the tile size; a per-tile allocation would
            // add hundreds (about 300 more tiles of 16x16 in the output and each stage).
            XCTAssertLessThanOrEqual(many, few + 2, name)
        }
    }
}
