import XCTest
@testable import PixelFlow
@testable import PixelFlowKernels
@testable import PixelFlowGraph
@testable import PixelFlowEngine

final class TileTests: XCTestCase {
    let buffer = WarpTestSupport.source()
    var image: Image { Image(buffer) }

    func apply(_ name: String, _ values: [String: FilterValue]) throws -> Image {
        var v: [String: FilterValue?] = ["inputImage": .image(image)]
        for (k, x) in values { v[k] = x }
        return try FilterRegistry.apply(name, v)
    }

    /// Renders `out` over `rect` (stored values, rgbaF32).
    func render(_ out: Image, _ rect: Rect) throws -> PixelBuffer { try renderRaw(out, rect: rect) }

    func testTilesAreInfiniteAndRenderAnywhere() throws {
        let other = Image(WarpTestSupport.source(seed: 5))
        for d in FilterDescriptor.tileFilters {
            let out = try d.apply(WarpTestSupport.smallValues(d, image, other: other))
            XCTAssertTrue(out.extent.isInfinite || ["CIKaleidoscope", "CIOpTile"].contains(d.name), "\(d.name) is infinite")
            if !out.extent.isInfinite { continue }
            let far = try render(out, Rect(x: 100_000, y: -70_000, width: 9, height: 7))
            var opaque = 0
            for y in 0..<7 { for x in 0..<9 where far[x, y].w > 0.99 { opaque += 1 } }
            XCTAssertGreaterThan(opaque, 30, "\(d.name) far from the origin")
        }
    }

    func testTranslatedTileRepeatsWithItsPeriod() throws {
        let out = try apply(
            "CIFourfoldTranslatedTile", ["inputCenter": .vector([30, 22]), "inputWidth": .number(16), "inputAngle": .number(0)])
        let b = try render(out, Rect(x: 0, y: 0, width: 80, height: 60))
        for (x, y) in [(3, 4), (10, 20), (25, 7)] {
            XCTAssertLessThan(abs(b[x, y] - b[x + 16, y]).max(), 1e-6)
            XCTAssertLessThan(abs(b[x, y] - b[x, y + 16]).max(), 1e-6)
            XCTAssertLessThan(abs(b[x, y] - b[x + 32, y + 16]).max(), 1e-6)
        }
        // The tile about the center is the source itself.
        XCTAssertEqual(b[30, 22], buffer[30, 22])
    }

    func testReflectedTilesMirrorAtTheEdges() throws {
        let out = try apply(
            "CIFourfoldReflectedTile", ["inputCenter": .vector([32, 24]), "inputWidth": .number(20), "inputAngle": .number(0)])
        let b = try render(out, Rect(x: 0, y: 0, width: 80, height: 60))
        // Mirror lines at x = 22 and x = 42: pixel 42 + k mirrors 41 - k.
        for k in 0..<5 { XCTAssertLessThan(abs(b[42 + k, 24] - b[41 - k, 24]).max(), 1e-6) }
        // Period 40 (two mirrors).
        XCTAssertLessThan(abs(b[5, 24] - b[45, 24]).max(), 1e-6)
    }

    func testRotationalTilesAreSymmetric() throws {
        let rotated = try apply(
            "CIFourfoldRotatedTile", ["inputCenter": .vector([32, 24]), "inputWidth": .number(20), "inputAngle": .number(0)])
        // 4-fold center at the tile corner (22, 14): rotating by 90 degrees about it maps the pattern to itself.
        let b = try render(rotated, Rect(x: 0, y: 0, width: 60, height: 60))
        let cx = 22.0, cy = 14.0
        for (dx, dy) in [(3.5, 1.5), (6.5, 9.5), (1.5, 4.5)] {
            let p = (Int(cx + dx - 0.5), Int(cy + dy - 0.5)), q = (Int(cx - dy - 0.5), Int(cy + dx - 0.5))
            XCTAssertLessThan(abs(b[p.0, p.1] - b[q.0, q.1]).max(), 1e-5, "p4 at \(dx), \(dy)")
        }
        let kaleido = try apply(
            "CIKaleidoscope", ["inputCenter": .vector([32.5, 24.5]), "inputCount": .number(4), "inputAngle": .number(0)])
        let k = try render(kaleido, Rect(x: 0, y: 0, width: 64, height: 48))
        // Mirror in the x axis through the center.
        for (x, y) in [(40, 20), (36, 14), (50, 22)] { XCTAssertLessThan(abs(k[x, y] - k[x, 48 - y]).max(), 1e-5) }
        let twelve = try apply(
            "CITwelvefoldReflectedTile",
            ["inputCenter": .vector([32.5, 24.5]), "inputWidth": .number(30), "inputAngle": .number(0)])
        let t = try render(twelve, Rect(x: 0, y: 0, width: 64, height: 48))
        for (x, y) in [(40, 20), (36, 14), (38, 22)] { XCTAssertLessThan(abs(t[x, y] - t[x, 48 - y]).max(), 1e-5) }
    }

    func testTriangleFoldLandsInTheTriangle() {
        let s3 = 3.0.squareRoot()
        var rng = SeededRandom(seed: 3)
        for _ in 0..<500 {
            let x = Double(rng.unit()) * 40 - 20, y = Double(rng.unit()) * 40 - 20
            let (fx, fy) = _foldIntoTriangle(x, y)
            XCTAssertGreaterThanOrEqual(fy, -1e-9)
            XCTAssertGreaterThanOrEqual(s3 * fx - fy, -1e-9)
            XCTAssertGreaterThanOrEqual(s3 * (1 - fx) - fy, -1e-9)
        }
    }

    func testClampRepeatsEdgePixels() throws {
        let out = try apply("CIClamp", ["inputExtent": .vector([8, 6, 40, 30])])
        let b = try render(out, Rect(x: -10, y: -10, width: 80, height: 60))
        XCTAssertEqual(b[0, 0], buffer[8, 6])
        XCTAssertEqual(b[79, 59], buffer[47, 35])
        XCTAssertEqual(b[30, 0], buffer[20, 6])
        let affine = try apply("CIAffineClamp", ["inputTransform": .transform(.identity)])
        let a = try render(affine, Rect(x: -5, y: -5, width: 74, height: 58))
        XCTAssertEqual(a[0, 0], buffer[0, 0])
        XCTAssertEqual(a[20, 20], buffer[15, 15])
    }

    func testAffineTileRepeatsTheExtent() throws {
        let out = try apply("CIAffineTile", ["inputTransform": .transform(.identity)])
        let b = try render(out, Rect(x: 0, y: 0, width: 128, height: 96))
        XCTAssertEqual(b[70, 50], buffer[6, 2])
        XCTAssertEqual(b[127, 95], buffer[63, 47])
        XCTAssertThrowsError(
            try apply("CIAffineTile", ["inputTransform": .transform(AffineTransform(a: 1, b: 2, c: 2, d: 4, tx: 0, ty: 0))]))
        XCTAssertThrowsError(
            try apply("CIAffineClamp", ["inputTransform": .transform(AffineTransform(a: 0, b: 0, c: 0, d: 0, tx: 0, ty: 0))]))
    }

    func testBadTileParametersThrow() {
        XCTAssertThrowsError(try apply("CISixfoldRotatedTile", ["inputWidth": .number(0)]))
        XCTAssertThrowsError(try apply("CIOpTile", ["inputCenter": .vector([.nan, 1])]))
        XCTAssertThrowsError(try apply("CIClamp", ["inputExtent": .vector([0, 0, 0, 5])]))
        XCTAssertThrowsError(
            try apply(
                "CIPerspectiveTile",
                [
                    "inputTopLeft": .vector([0, 0]), "inputTopRight": .vector([10, 0]),
                    "inputBottomRight": .vector([20, 0]), "inputBottomLeft": .vector([0, 10]),
                ]))
    }
}
