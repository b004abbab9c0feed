import XCTest
@testable import PixelFlow
@testable import PixelFlowKernels
@testable import PixelFlowGraph
@testable import PixelFlowEngine

final class PerspectiveFilterTests: XCTestCase {
    let quad = [Point(x: 40.3, y: 30.7), Point(x: 250.2, y: 52.1), Point(x: 230.6, y: 200.4), Point(x: 60.1, y: 185.9)]
    let colors = [Color.red, Color.green, Color.blue, Color(white: 1)]

    /// A quad split into four colored quadrants (mapped through the quad's homography, so the
    /// quadrants are exact quads too) over a gray background.
    func drawnQuad() -> PixelBuffer {
        var c = Canvas(buffer: try! PixelBuffer(width: 300, height: 240, format: .rgba8))
        c.clear(to: Color(white: 0.3))
        let h = Homography(from: [Point(x: 0, y: 0), Point(x: 1, y: 0), Point(x: 1, y: 1), Point(x: 0, y: 1)], to: quad)!
        for (k, color) in colors.enumerated() {
            let x0 = Double(k % 2) * 0.5, y0 = Double(k / 2) * 0.5
            let q = [Point(x: x0, y: y0), Point(x: x0 + 0.5, y: y0), Point(x: x0 + 0.5, y: y0 + 0.5), Point(x: x0, y: y0 + 0.5)]
            c.fillPolygon(q.map { h.apply(to: $0)! }, color: color)
        }
        return c.buffer
    }

    func testCorrectionGivesBackTheRectangle() throws {
        let out = try RenderContext().makeBuffer(
            Image(drawnQuad()).perspectiveCorrected(
                topLeft: quad[0], topRight: quad[1], bottomRight: quad[2], bottomLeft: quad[3]))
        // Size from the longer opposite sides.
        XCTAssertEqual(out.width, Int(max(hypot(209.9, 21.4), hypot(170.5, 14.5)).rounded()))
        XCTAssertEqual(out.height, Int(max(hypot(19.8, 155.2), hypot(19.6, 148.3)).rounded()))
        for (k, color) in colors.enumerated() {
            for (fx, fy) in [(0.1, 0.1), (0.4, 0.4), (0.25, 0.3)] {
                let x = Int((Double(k % 2) * 0.5 + fx) * Double(out.width)),
                    y = Int((Double(k / 2) * 0.5 + fy) * Double(out.height))
                let v = out[x, y]
                XCTAssertEqual(Double(v.x), color.red, accuracy: 0.02, "quadrant \(k) at \(x),\(y): \(v)")
                XCTAssertEqual(Double(v.y), color.green, accuracy: 0.02, "quadrant \(k) at \(x),\(y): \(v)")
                XCTAssertEqual(Double(v.z), color.blue, accuracy: 0.02, "quadrant \(k) at \(x),\(y): \(v)")
            }
        }
    }

    func testTransformThenCorrectIsAboutIdentity() throws {
        let src = TestImages.smooth(width: 64, height: 48)
        let q = [Point(x: 10.5, y: 8.2), Point(x: 90.3, y: 20.6), Point(x: 84.1, y: 70.9), Point(x: 6.8, y: 60.2)]
        let warped = try Image(src).perspectiveTransformed(topLeft: q[0], topRight: q[1], bottomRight: q[2], bottomLeft: q[3])
        XCTAssertEqual(warped.extent.maxX, 90.3, accuracy: 1e-9); XCTAssertEqual(warped.extent.minY, 8.2, accuracy: 1e-9)
        let back = try warped.perspectiveCorrected(topLeft: q[0], topRight: q[1], bottomRight: q[2], bottomLeft: q[3])
        let out = try RenderContext().makeBuffer(back, format: .rgbaF32)
        let ref = src.converted(to: .rgbaF32)
        // Compare with the source at the matching (scaled) position, away from the border.
        var total: Float = 0, n = 0
        for y in 2..<(out.height - 2) {
            for x in 2..<(out.width - 2) {
                let sx = Int((Double(x) + 0.5) * 64 / Double(out.width)), sy = Int((Double(y) + 0.5) * 48 / Double(out.height))
                total += abs(out[x, y] - ref[sx, sy]).max()
                n += 1
            }
        }
        XCTAssertLessThan(total / Float(n), 0.03)
    }

    func testWithExtentMapsTheGivenRect() throws {
        let src = TestImages.smooth(width: 64, height: 48)
        let q = [Point(x: 100, y: 50), Point(x: 164, y: 50), Point(x: 164, y: 98), Point(x: 100, y: 98)]
        let moved = try Image(src).perspectiveTransformed(
            topLeft: q[0], topRight: q[1], bottomRight: q[2], bottomLeft: q[3],
            extent: Rect(x: 0, y: 0, width: 64, height: 48))
        XCTAssertEqual(moved.extent, Rect(x: 100, y: 50, width: 64, height: 48))
        let out = try RenderContext().makeBuffer(moved)
        XCTAssertEqual(out, src)
    }

    func testDegenerateQuadsThrow() {
        let image = Image(TestImages.smooth(width: 32, height: 32))
        let bad: [(String, [Point])] = [
            ("collinear", [Point(x: 0, y: 0), Point(x: 10, y: 0), Point(x: 20, y: 0), Point(x: 5, y: 10)]),
            ("bow tie", [Point(x: 0, y: 0), Point(x: 10, y: 10), Point(x: 10, y: 0), Point(x: 0, y: 10)]),
            ("concave", [Point(x: 0, y: 0), Point(x: 10, y: 0), Point(x: 3, y: 3), Point(x: 0, y: 10)]),
            ("repeated", [Point(x: 0, y: 0), Point(x: 0, y: 0), Point(x: 10, y: 10), Point(x: 0, y: 10)]),
        ]
        for (name, q) in bad {
            for transform in [false, true] {
                XCTAssertThrowsError(
                    try transform
                        ? image.perspectiveTransformed(topLeft: q[0], topRight: q[1], bottomRight: q[2], bottomLeft: q[3])
                        : image.perspectiveCorrected(topLeft: q[0], topRight: q[1], bottomRight: q[2], bottomLeft: q[3]), name
                ) { e in
                    guard case PixelFlowError.invalidParameter = e else { return XCTFail("\(name): \(e)") }
                }
            }
        }
        XCTAssertThrowsError(
            try FilterRegistry.apply(
                "CIPerspectiveCorrection",
                [
                    "inputImage": .image(image), "inputTopLeft": .vector([0, 0]), "inputTopRight": .vector([1, 1]),
                    "inputBottomRight": .vector([2, 2]), "inputBottomLeft": .vector([0, 5]),
                ]))
    }

    func testUncroppedCorrectionKeepsTheWholeImage() throws {
        let image = Image(drawnQuad())
        let out = try image.perspectiveCorrected(
            topLeft: quad[0], topRight: quad[1], bottomRight: quad[2], bottomLeft: quad[3], crop: false)
        XCTAssertTrue(out.extent.minX < 0 && out.extent.minY < 0)
        let cropped = try image.perspectiveCorrected(
            topLeft: quad[0], topRight: quad[1], bottomRight: quad[2], bottomLeft: quad[3])
        let a = try RenderContext().makeBuffer(out, rect: cropped.extent), b = try RenderContext().makeBuffer(cropped)
        XCTAssertEqual(a, b)
    }

    func testHomographyMapsCorners() {
        let h = Homography(from: quad, to: [Point(x: 0, y: 0), Point(x: 1, y: 0), Point(x: 1, y: 1), Point(x: 0, y: 1)])!
        let expected = [Point(x: 0, y: 0), Point(x: 1, y: 0), Point(x: 1, y: 1), Point(x: 0, y: 1)]
        for (p, e) in zip(quad, expected) {
            let m = h.apply(to: p)!
            XCTAssertEqual(m.x, e.x, accuracy: 1e-9); XCTAssertEqual(m.y, e.y, accuracy: 1e-9)
        }
        let inv = h.inverted()!
        let back = inv.apply(to: Point(x: 0.5, y: 0.5))!
        let fwd = h.apply(to: back)!
        XCTAssertEqual(fwd.x, 0.5, accuracy: 1e-9)
    }
}
