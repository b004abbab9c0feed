import XCTest
@testable import PixelFlow
@testable import PixelFlowKernels
@testable import PixelFlowGraph
@testable import PixelFlowEngine

/// The per-render limit covers every region a render computes, not only its output: a small
/// output can need a huge input region (a 40 x 40 render of an infinite blurred image scaled
/// down 1000 times asked for 26 GB and stopped the process; seen while writing the
/// filter-graph fuzz target, whose corpus keeps the input).
final class RenderLimitTests: XCTestCase {
    let photo = Image(TestImages.random(width: 32, height: 24, format: .rgba8, seed: 8))
    let shrink = AffineTransform(a: 1e-3, b: 0, c: 0, d: 1e-3, tx: 0, ty: 0)
    let small = Rect(x: -8, y: -8, width: 40, height: 40)

    func testDefaultIsOneHundredMegapixels() {
        XCTAssertEqual(RenderContext.Options().maximumRenderPixelCount, 100_000_000)
        XCTAssertEqual(RenderContext().options.maximumRenderPixelCount, 100_000_000)
    }

    func testHugeStageBufferIsRefusedBeforeAllocating() throws {
        let image = try photo.clampedToExtent().gaussianBlurred(radius: 50).transformed(by: shrink)
        assertLimitExceeded(
            try RenderContext(threadCount: 2).makeBuffer(image, rect: small), mentions: "needed for a 40x40 render")
    }

    func testHugeTileScratchIsRefusedBeforeAllocating() throws {
        // No stage buffer here: each tile would evaluate its million-fold input region in scratch.
        let image = try photo.clampedToExtent().transformed(by: shrink)
        assertLimitExceeded(
            try RenderContext(threadCount: 1).makeBuffer(image, rect: small), mentions: "needed for a 40x40 render")
    }

    func testLimitIsPerContextAndCountsIntermediateRegions() throws {
        // A 2x downscale of 64 x 64 reads 64 x 64 (plus filter taps) for a 32 x 32 output.
        let big = Image(TestImages.random(width: 64, height: 64, format: .rgba8, seed: 9))
        let half = try big.transformed(by: AffineTransform(a: 0.5, b: 0, c: 0, d: 0.5, tx: 0, ty: 0))
        var options = RenderContext.Options(threadCount: 1)
        options.maximumRenderPixelCount = 32 * 32
        assertLimitExceeded(try RenderContext(options: options).makeBuffer(half), mentions: "64x64")
        options.maximumRenderPixelCount = 80 * 80
        XCTAssertNoThrow(try RenderContext(options: options).makeBuffer(half))
    }

    /// Found by the filter-graph fuzzer (a timeout): a distance gradient of a 24 x 24 mask
    /// with maximumDistance 1000 computes a 2026 x 2026 field, whatever part the render reads.
    func testReductionOutputCountsAgainstTheLimit() throws {
        let mask = Image(TestImages.random(width: 24, height: 24, format: .rgba8, seed: 10))
        let gradient = try mask.distanceGradientFromRedMask(maximumDistance: 1000)
        var options = RenderContext.Options(threadCount: 1)
        options.maximumRenderPixelCount = 1 << 20
        assertLimitExceeded(try RenderContext(options: options).makeBuffer(gradient, rect: small), mentions: "2026x2026")
        let near = try mask.distanceGradientFromRedMask(maximumDistance: 10)
        XCTAssertNoThrow(try RenderContext(options: options).makeBuffer(near, rect: small))
    }

    func assertLimitExceeded<T>(
        _ body: @autoclosure () throws -> T, mentions text: String,
        file: StaticString = #filePath, line: UInt = #line
    ) {
        XCTAssertThrowsError(try body(), file: file, line: line) { error in
            guard case let PixelFlowError.limitExceeded(what, value, limit) = error else {
                return XCTFail("expected limitExceeded, got \(error)", file: file, line: line)
            }
            XCTAssertGreaterThan(value, limit, file: file, line: line)
            XCTAssertTrue(what.contains(text), "\(what)", file: file, line: line)
        }
    }
}
