import Foundation
import XCTest

@testable import PixelFlow
@testable import PixelFlowEngine

/// Paths, strokes with dashes, and clipping, against analytic areas: a parabolic segment
/// (2/3 of its box), the area under a cubic Bézier with evenly spaced x controls (L (a + b) / 4),
/// circles from arcs (pi r^2), dashed lines (width x the dashes' length) and clip rects.
final class CanvasPathTests: XCTestCase {
    /// The painted area of an opaque white drawing on a transparent float canvas: the sum of
    /// the alphas.
    func area(_ canvas: Canvas) -> Double {
        var sum = 0.0
        for y in 0..<canvas.buffer.height { for x in 0..<canvas.buffer.width { sum += Double(canvas.buffer[x, y].w) } }
        return sum
    }

    func testQuadraticSegmentIsTwoThirdsOfItsBox() throws {
        var c = try Canvas(width: 100, height: 60)
        var p = Path()
        p.move(to: Point(x: 10.25, y: 50))
        // Control 2h above the chord: the parabola rises h = 30 at the middle.
        p.addQuadCurve(to: Point(x: 90.25, y: 50), control: Point(x: 50.25, y: -10))
        p.closeSubpath()
        c.fill(p, color: .white)
        // Flattening to within 0.01 pixel loses at most about 2/3 x 0.01 x the curve's length.
        XCTAssertEqual(area(c), 2.0 / 3.0 * 80 * 30, accuracy: 0.8)
    }

    func testAreaUnderACubicAndEvenOdd() throws {
        var c = try Canvas(width: 130, height: 80)
        var p = Path()
        let l = 90.0
        p.move(to: Point(x: 20, y: 70))
        // x controls at thirds, y controls 60 and 30 above the baseline: area L (60 + 30) / 4.
        p.addCurve(to: Point(x: 20 + l, y: 70), control1: Point(x: 20 + l / 3, y: 10), control2: Point(x: 20 + 2 * l / 3, y: 40))
        p.closeSubpath()
        c.fill(p, color: .white)
        XCTAssertEqual(area(c), l * 90 / 4, accuracy: 0.8)

        // Two nested squares in the same direction: non-zero fills both, even-odd leaves a hole.
        var squares = Path()
        squares.addRect(Rect(x: 10, y: 10, width: 40, height: 40))
        squares.addRect(Rect(x: 20, y: 20, width: 20, height: 20))
        var nonZero = try Canvas(width: 60, height: 60)
        nonZero.fill(squares, rule: .nonZero, color: .white)
        XCTAssertEqual(area(nonZero), 1600, accuracy: 1e-6)
        var evenOdd = try Canvas(width: 60, height: 60)
        evenOdd.fill(squares, rule: .evenOdd, color: .white)
        XCTAssertEqual(area(evenOdd), 1200, accuracy: 1e-6)
        XCTAssertEqual(evenOdd.buffer[30, 30].w, 0)
    }

    func testArcsEllipsesAndRoundedRects() throws {
        var c = try Canvas(width: 80, height: 80)
        var circle = Path()
        circle.addArc(center: Point(x: 40, y: 40), radius: 30, startAngle: 0, endAngle: 2 * .pi, clockwise: true)
        circle.closeSubpath()
        c.fill(circle, color: .white)
        // Cubic arcs of a quarter turn deviate from the circle by 2.7e-4 r at most.
        XCTAssertEqual(area(c), Double.pi * 900, accuracy: 2 * Double.pi * 30 * 30 * 3e-4)

        // A half disc: clockwise on screen from 0 to pi is the lower half (y down).
        var half = try Canvas(width: 80, height: 80)
        var lower = Path()
        lower.addArc(center: Point(x: 40, y: 40), radius: 20, startAngle: 0, endAngle: .pi, clockwise: true)
        lower.closeSubpath()
        half.fill(lower, color: .white)
        XCTAssertEqual(area(half), Double.pi * 200, accuracy: 0.5)
        XCTAssertEqual(half.buffer[40, 50].w, 1)
        XCTAssertEqual(half.buffer[40, 30].w, 0)

        var e = try Canvas(width: 80, height: 60)
        var ellipse = Path()
        ellipse.addEllipse(in: Rect(x: 10, y: 10, width: 60, height: 40))
        e.fill(ellipse, color: .white)
        XCTAssertEqual(area(e), Double.pi * 30 * 20, accuracy: Double.pi * 600 * 3e-4 + 0.2)

        var r = try Canvas(width: 80, height: 60)
        var rounded = Path()
        rounded.addRoundedRect(in: Rect(x: 10, y: 10, width: 60, height: 40), cornerWidth: 8, cornerHeight: 8)
        r.fill(rounded, color: .white)
        XCTAssertEqual(area(r), 60 * 40 - (4 - Double.pi) * 64, accuracy: 0.3)
    }

    func testStrokesAndDashes() throws {
        // A solid horizontal line 95 long, 4 wide, butt caps.
        var line = Path()
        line.move(to: Point(x: 10, y: 20))
        line.addLine(to: Point(x: 105, y: 20))
        var solid = try Canvas(width: 120, height: 40)
        solid.stroke(line, style: StrokeStyle(width: 4), color: .white)
        XCTAssertEqual(area(solid), 380, accuracy: 1e-6)
        // Dashes 6 on, 4 off: nine full dashes and one cut to 5 (59 long).
        var dashed = try Canvas(width: 120, height: 40)
        dashed.stroke(line, style: StrokeStyle(width: 4, dash: [6, 4]), color: .white)
        XCTAssertEqual(area(dashed), 4 * 59, accuracy: 1e-6)
        XCTAssertEqual(dashed.buffer[12, 20].w, 1)
        XCTAssertEqual(dashed.buffer[18, 20].w, 0)
        // Phase 3: the first dash is 3 long, then nine full ones from 7 to 93 (57 long).
        var phased = try Canvas(width: 120, height: 40)
        phased.stroke(line, style: StrokeStyle(width: 4, dash: [6, 4], dashPhase: 3), color: .white)
        XCTAssertEqual(area(phased), 4 * 57, accuracy: 1e-6)
        // Square caps add half a width at each end of each dash.
        var capped = try Canvas(width: 130, height: 40)
        capped.stroke(line, style: StrokeStyle(width: 2, cap: .square, dash: [6, 14]), color: .white)
        XCTAssertEqual(area(capped), 5 * 2 * (6 + 2), accuracy: 1e-6)

        // A closed square path stroked with miter joins: the ring between two squares.
        var square = Path()
        square.addRect(Rect(x: 20, y: 20, width: 40, height: 40))
        var ring = try Canvas(width: 80, height: 80)
        ring.stroke(square, style: StrokeStyle(width: 6, join: .miter), color: .white)
        XCTAssertEqual(area(ring), 46 * 46 - 34 * 34, accuracy: 1e-3)
    }

    func testClipToRectAndPathAndRestore() throws {
        var c = try Canvas(width: 60, height: 50)
        c.saveState()
        c.clip(to: Rect(x: 10.5, y: 10, width: 20, height: 15.25))
        c.fillRect(Rect(x: 0, y: 0, width: 60, height: 50), color: .white)
        XCTAssertEqual(area(c), 20 * 15.25, accuracy: 1e-4)
        XCTAssertEqual(c.buffer[10, 12].w, 0.5, accuracy: 1e-6)
        XCTAssertEqual(c.buffer[5, 5].w, 0)
        // A second clip intersects with the first.
        var disc = Path()
        disc.addEllipse(in: Rect(x: 5, y: 5, width: 20, height: 20))
        c.clip(to: disc)
        c.clear()
        c.fillRect(Rect(x: 0, y: 0, width: 60, height: 50), color: .white)
        XCTAssertEqual(c.buffer[40, 40].w, 0)
        XCTAssertEqual(c.buffer[20, 20].w, 1)
        XCTAssertEqual(c.buffer[8, 8].w, 0)
        c.restoreState()
        c.fillRect(Rect(x: 40, y: 30, width: 10, height: 10), color: .white)
        XCTAssertEqual(c.buffer[45, 35].w, 1)
        // Clipping drawn images too.
        var d = try Canvas(width: 20, height: 20)
        d.clip(to: Rect(x: 0, y: 0, width: 10, height: 20))
        var picture = try PixelBuffer(width: 2, height: 2, format: .rgbaF32)
        for y in 0..<2 { for x in 0..<2 { picture[x, y] = SIMD4(1, 1, 1, 1) } }
        try d.draw(picture, in: Rect(x: 0, y: 0, width: 20, height: 20))
        XCTAssertEqual(area(d), 200, accuracy: 1e-4)
        // An empty path clips everything away.
        var e = try Canvas(width: 10, height: 10)
        e.clip(to: Path())
        e.fillRect(Rect(x: 0, y: 0, width: 10, height: 10), color: .white)
        XCTAssertEqual(area(e), 0)
    }

    func testPathBookkeepingAndBadInput() throws {
        var p = Path()
        XCTAssertNil(p.currentPoint)
        p.addLine(to: Point(x: 3, y: 4))
        XCTAssertEqual(p.elements, [.move(Point(x: 3, y: 4))])
        p.addLine(to: Point(x: 5, y: 4))
        p.closeSubpath()
        p.closeSubpath()
        XCTAssertEqual(p.elements.count, 3)
        XCTAssertEqual(p.currentPoint, Point(x: 3, y: 4))
        // NaN coordinates, widths and dash lengths draw nothing (or a solid line), never trap.
        var c = try Canvas(width: 10, height: 10)
        var bad = Path()
        bad.move(to: Point(x: .nan, y: 1))
        bad.addLine(to: Point(x: 5, y: 5))
        bad.addLine(to: Point(x: 1, y: 8))
        c.fill(bad, color: .white)
        c.stroke(bad, style: StrokeStyle(width: .infinity), color: .white)
        XCTAssertEqual(area(c), 0)
        var line = Path()
        line.move(to: Point(x: 0, y: 5))
        line.addLine(to: Point(x: 10, y: 5))
        c.stroke(line, style: StrokeStyle(width: 2, dash: [.nan, 1]), color: .white)
        XCTAssertEqual(area(c), 20, accuracy: 1e-6)
        bad = Path()
        bad.addArc(center: Point(x: 5, y: 5), radius: .nan, startAngle: 0, endAngle: 1, clockwise: true)
        XCTAssertTrue(bad.isEmpty)
    }
}
