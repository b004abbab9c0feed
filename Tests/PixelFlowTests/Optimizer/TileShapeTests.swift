import XCTest
@testable import PixelFlow
@testable import PixelFlowKernels
@testable import PixelFlowGraph
@testable import PixelFlowEngine

/// The shape of the output tiles (`RenderPlan.outputGrid`): full-width bands where every
/// output row reads its input rows from left to right (pointwise chains; and scales without
/// rotation and stencils over pixels read in place), the context's tiles elsewhere.
final class TileShapeTests: XCTestCase {
    let w = 2000, h = 600
    lazy var f32 = TestImages.random(width: w, height: h, seed: 2, colorEncoding: .linear, alphaMode: .premultiplied)
    lazy var u8 = TestImages.random(width: w, height: h, format: .rgba8, seed: 3)

    func grid(_ img: Image) -> (width: Int, height: Int, text: String) {
        let p = RenderPlan(root: img.node, rect: IntRect(covering: img.extent), options: .init())
        let g = p.outputGrid()
        return (g.tileWidth, g.tileHeight, p.explain())
    }

    func testShapes() throws {
        let bounds = f32.bounds
        let cases: [(String, Image, Int, Int)] = [
            // 256 x 64 pixels a tile: 8 rows of 2000.
            ("pointwise", try Image(u8).colorInverted(), w, 8),
            // Stencils over a float source read in place: at least 16 rows, and 4 times the reach.
            (
                "3x3 in place",
                try Image(f32).clampedToExtent().convolved3x3(weights: [0, -1, 0, -1, 5, -1, 0, -1, 0]).cropped(to: bounds), w, 16
            ),
            // Reach 12 (radius 5 and a block of 8): 48 rows, at most 4 tiles' pixels.
            ("box in place", try Image(f32).clampedToExtent().boxBlurred(radius: 5).cropped(to: bounds), 4 * 256 * 64 / 48, 48),
            // A 3x3 stencil over a converted source: the halo rows are few.
            (
                "3x3 converted",
                try Image(u8).clampedToExtent().convolved3x3(weights: [0, -1, 0, -1, 5, -1, 0, -1, 0]).cropped(to: bounds), w, 16
            ),
            // A wider reach over a converted source would convert its halo rows for every strip.
            ("gaussian converted", try Image(u8).clampedToExtent().gaussianBlurred(radius: 2).cropped(to: bounds), 256, 64),
            ("half size in place", try Image(f32).transformed(by: AffineTransform(scaleX: 0.5, y: 0.5)), w / 2, 16),
            // 8-bit rows are converted two at a time, which must stay in the L1 cache.
            ("half size converted", try Image(u8).transformed(by: AffineTransform(scaleX: 0.5, y: 0.5)), 256, 64),
            ("rotation", try Image(f32).transformed(by: AffineTransform(rotationAngle: 0.3)), 256, 64),
        ]
        for (name, image, tw, th) in cases {
            let g = grid(image)
            XCTAssertEqual(g.width, tw, "\(name)\n\(g.text)")
            XCTAssertEqual(g.height, th, "\(name)\n\(g.text)")
            XCTAssertEqual(g.text.contains("full-width bands"), tw != 256, "\(name)\n\(g.text)")
        }
    }

    func testStripsGiveTheBitsOfSquareTiles() throws {
        let small = TestImages.random(width: 700, height: 90, seed: 9, colorEncoding: .linear, alphaMode: .premultiplied)
        let b = small.bounds
        let graphs = [
            try Image(small).clampedToExtent().convolved3x3(weights: [1, 2, 1, 0, 0, 0, -1, -2, -1]).cropped(to: b),
            try Image(small).clampedToExtent().boxBlurred(radius: 5).cropped(to: b),
            try Image(small).clampedToExtent().gaussianBlurred(radius: 2).colorInverted().cropped(to: b),
            try Image(small).transformed(by: AffineTransform(scaleX: 0.5, y: 0.37)),
        ]
        for (i, g) in graphs.enumerated() {
            let strips = try RenderContext(threadCount: 2).makeBuffer(g, format: .rgbaF32)
            let squares = try RenderContext(threadCount: 2, tileWidth: 32, tileHeight: 32).makeBuffer(g, format: .rgbaF32)
            XCTAssertTrue(strips == squares, "graph \(i)")
            XCTAssertTrue(grid(g).text.contains("full-width bands"), "graph \(i)")
        }
    }
}
