import XCTest
@testable import PixelFlow
@testable import PixelFlowKernels
@testable import PixelFlowGraph
@testable import PixelFlowEngine

/// Edge tiles of a stencil over a clamped float source (`Evaluator.edgeSplit`): the part of
/// the tile whose input region lies inside the source reads the source where it is stored, and
/// only the strips along the edges copy their clamped region. Every schedule (tile size and
/// thread count, so every way of splitting) must give the same bits, and those bits must match
/// the reference evaluator (Support/ReferenceEvaluator.swift), which reads nothing in place,
/// within its tolerance for the graph's node kinds.
final class StencilEdgeTests: XCTestCase {
    func stencils() -> [(String, (Image) throws -> Image)] {
        [
            ("convolution 3x3", { try $0.convolved3x3(weights: [-1, 0, 1, -2, 0, 2, -1, 0, 1]) }),
            ("gaussian 2", { try $0.gaussianBlurred(radius: 2) }),
            ("gaussian 9", { try $0.gaussianBlurred(radius: 9) }),
            ("box 5", { try $0.boxBlurred(radius: 5) }),
            ("disc 4", { try $0.discBlurred(radius: 4) }),
            ("rectangle maximum 5x3", { try $0.morphologyRectangleMaximum(width: 5, height: 3) }),
            ("disc maximum 3", { try $0.morphologyMaximum(radius: 3) }),
            ("gradient 2", { try $0.morphologyGradient(radius: 2) }),
            ("median 1", { try $0.median(radius: 1) }),
            ("median 2", { try $0.median(radius: 2) }),
        ]
    }

    static let schedules = [(1, 256, 64), (2, 16, 16), (3, 37, 13)]

    /// Asserts that `graph(source)`, rendered with each schedule (threads, tile width, tile
    /// height), gives the same bits every time, within tolerance of the reference evaluator.
    func assertSameBitsMatchingTheReference(
        _ source: Image, _ message: String, schedules: [(Int, Int, Int)] = schedules,
        _ graph: (Image) throws -> Image
    ) throws {
        let image = try graph(source)
        let reference = try ReferenceEvaluator.render(image)
        let tolerance = ReferenceTolerance.forGraph(image.node)
        var first: PixelBuffer?
        for (threads, tw, th) in schedules {
            let out = try RenderContext(threadCount: threads, tileWidth: tw, tileHeight: th).makeBuffer(image, format: .rgbaF32)
            let d = relativeDifference(out, reference)
            XCTAssertLessThanOrEqual(
                d.value, tolerance,
                "\(message): threads \(threads) tile \(tw)x\(th) differs from the reference at (\(d.x), \(d.y))")
            if let first {
                XCTAssertTrue(out == first, "\(message): threads \(threads) tile \(tw)x\(th) differs from the first schedule")
            } else {
                first = out
            }
        }
    }

    func testEdgeTilesReadTheInnerPartInPlaceWithTheSameBits() throws {
        let w = 83, h = 61
        let b = TestImages.random(width: w, height: h, seed: 11, colorEncoding: .linear, alphaMode: .premultiplied)
        // The whole source, and a part of it (the clamp then repeats pixels inside the buffer).
        let regions = [Rect(x: 0, y: 0, width: Double(w), height: Double(h)), Rect(x: 7, y: 5, width: 50, height: 41)]
        for region in regions {
            for (name, stencil) in stencils() {
                try assertSameBitsMatchingTheReference(
                    Image(b), "\(name) over \(region)", schedules: Self.schedules + [(1, 1 << 20, 1 << 20)]
                ) {
                    try stencil($0.cropped(to: region).clampedToExtent()).cropped(to: region)
                }
            }
        }
    }

    /// Whole-region Gaussian passes (`GaussianPass`) read a source row by row (in place, or
    /// converting each row) instead of rendering it into a buffer first: the reference's values, with
    /// clamped edges, transparent edges and a part of the source, exact taps and box cascades.
    func testWholeRegionBlursReadStoredRowsWithTheSameBits() throws {
        let w = 97, h = 53
        try checkWholeRegionBlurs(
            TestImages.random(width: w, height: h, seed: 12, colorEncoding: .linear, alphaMode: .premultiplied))
        try checkWholeRegionBlurs(TestImages.random(width: w, height: h, format: .rgba8, seed: 13, colorEncoding: .sRGB))
    }

    func checkWholeRegionBlurs(_ b: PixelBuffer) throws {
        let w = b.width, h = b.height
        let part = Rect(x: 9, y: 4, width: 70, height: 40)
        let inputs: [(String, (Image) throws -> Image, Rect)] = [
            ("clamped", { $0.clampedToExtent() }, b.bounds),
            ("transparent edges", { $0 }, Rect(x: -20, y: -20, width: Double(w) + 40, height: Double(h) + 40)),
            ("clamped part", { $0.cropped(to: part).clampedToExtent() }, part),
        ]
        for sigma in [5.0, 20.0] {
            XCTAssertNotEqual(GaussianPlan.mode(sigma: sigma), .tileLocal)
            for (name, input, crop) in inputs {
                try assertSameBitsMatchingTheReference(Image(b), "\(b.format) sigma \(sigma) \(name)") {
                    try input($0).gaussianBlurred(radius: sigma).cropped(to: crop)
                }
            }
        }
    }

    /// Lanczos scales read a stored float input where it is (`Evaluator.evaluateWarp`): the
    /// reference's values, down and up, with clamped and transparent edges.
    func testLanczosReadsStoredInputWithTheSameBits() throws {
        let b = TestImages.random(width: 90, height: 47, seed: 14, colorEncoding: .linear, alphaMode: .premultiplied)
        let margin = Rect(x: -6, y: -6, width: 102, height: 59)
        let inputs: [(String, (Image) throws -> Image)] = [
            ("plain", { $0 }),
            ("clamped", { $0.clampedToExtent().cropped(to: margin) }),
        ]
        for scale in [0.5, 0.37, 1.6] {
            for (name, input) in inputs {
                try assertSameBitsMatchingTheReference(Image(b), "scale \(scale) \(name)") {
                    try input($0).lanczosScaled(scale: scale)
                }
            }
        }
    }

    func testTheSplitCoversTheTileOnceAndOnlyTheCoreReadsInPlace() throws {
        let b = TestImages.random(width: 40, height: 30, seed: 3, colorEncoding: .linear, alphaMode: .premultiplied)
        let source = Image(b).clampedToExtent()
        let stencil = Stencil.convolution(width: 3, height: 5, weights: [Float](repeating: 1, count: 15), bias: 0, rgbOnly: false)
        /// The pipeline's edge-split rule for the stencil over `input`, applied to `rect`.
        func split(_ input: Image, _ rect: IntRect) -> [IntRect]? {
            let node = Node(.stencil(stencil), inputs: [input.node], extent: .infinite)
            let plan = RenderPlan(root: node, rect: rect, options: .init())
            guard let inner = plan.lower().step(node)?.edgeSplit else { return nil }
            var parts = [IntRect](repeating: .empty, count: 5)
            let n = parts.withUnsafeMutableBufferPointer {
                Evaluator.edgeSplit(stencil, inner: inner, rect, into: $0.baseAddress!)
            }
            return n == 0 ? nil : Array(parts[0..<n])
        }
        for rect in [
            IntRect(x: -4, y: -3, width: 20, height: 12), IntRect(x: 30, y: 20, width: 16, height: 16),
            IntRect(x: 0, y: 0, width: 40, height: 30),
        ] {
            let parts = try XCTUnwrap(split(source, rect), "\(rect)")
            let inner = IntRect(x: 0, y: 0, width: 40, height: 30)
            XCTAssertTrue(inner.contains(stencil.inputRegion(0, for: parts[0])), "core of \(rect)")
            for p in parts.dropFirst() {
                XCTAssertFalse(inner.contains(stencil.inputRegion(0, for: p)), "strip \(p) of \(rect)")
            }
            var covered = [Int](repeating: 0, count: rect.area)
            for p in parts {
                XCTAssertTrue(rect.contains(p))
                for y in p.y..<p.maxY { for x in p.x..<p.maxX { covered[(y - rect.y) * rect.width + x - rect.x] += 1 } }
            }
            XCTAssertEqual(Set(covered), [1], "\(rect)")
        }
        // Entirely inside: nothing to split. Entirely outside the source: nothing reads in place.
        XCTAssertNil(split(source, IntRect(x: 5, y: 5, width: 10, height: 10)))
        XCTAssertNil(split(source, IntRect(x: 60, y: 5, width: 10, height: 10)))
        XCTAssertNil(
            split(
                Image(TestImages.random(width: 40, height: 30, format: .rgba8)).clampedToExtent(),
                IntRect(x: -4, y: -3, width: 20, height: 12)))
    }
}
