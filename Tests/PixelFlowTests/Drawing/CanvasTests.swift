import Foundation
import XCTest
@testable import PixelFlow
@testable import PixelFlowKernels
@testable import PixelFlowGraph
@testable import PixelFlowEngine

/// Canvas coverage against a reference computed here by supersampling each pixel on a
/// 16 x 16 grid with an exact inside test; tolerance 0.03 of coverage (the grid itself is
/// off by up to about 1/32 on a straight edge).
final class CanvasTests: XCTestCase {
    static let samples = 16

    /// A transparent float layer; drawing opaque white leaves alpha = coverage.
    func layer(_ w: Int = 40, _ h: Int = 32) -> Canvas { try! Canvas(width: w, height: h) }

    /// The supersampled coverage of `inside` for every pixel.
    func reference(_ w: Int, _ h: Int, _ inside: (Double, Double) -> Bool) -> [Double] {
        var out = [Double](repeating: 0, count: w * h)
        let n = Self.samples
        for y in 0..<h {
            for x in 0..<w {
                var c = 0
                for sy in 0..<n {
                    for sx in 0..<n
                    where inside(Double(x) + (Double(sx) + 0.5) / Double(n), Double(y) + (Double(sy) + 0.5) / Double(n)) {
                        c += 1
                    }
                }
                out[y * w + x] = Double(c) / Double(n * n)
            }
        }
        return out
    }

    func assertCoverage(
        _ canvas: Canvas, _ inside: (Double, Double) -> Bool, tolerance: Double = 0.03,
        file: StaticString = #filePath, line: UInt = #line
    ) {
        let b = canvas.buffer
        let ref = reference(b.width, b.height, inside)
        var worst = 0.0, at = (0, 0)
        for y in 0..<b.height {
            for x in 0..<b.width {
                let d = abs(Double(b[x, y].w) - ref[y * b.width + x])
                if d > worst { worst = d; at = (x, y) }
            }
        }
        XCTAssertLessThanOrEqual(
            worst, tolerance, "worst pixel \(at): \(b[at.0, at.1].w) vs \(ref[at.1 * b.width + at.0])",
            file: file, line: line)
    }

    func totalCoverage(_ c: Canvas) -> Double {
        var s = 0.0
        for y in 0..<c.buffer.height { for x in 0..<c.buffer.width { s += Double(c.buffer[x, y].w) } }
        return s
    }

    static func segmentDistance(_ px: Double, _ py: Double, _ a: Point, _ b: Point) -> (
        t: Double, along: Double, perp: Double, dist: Double
    ) {
        let dx = b.x - a.x, dy = b.y - a.y, l = (dx * dx + dy * dy).squareRoot()
        let ux = dx / l, uy = dy / l
        let along = (px - a.x) * ux + (py - a.y) * uy
        let perp = -(px - a.x) * uy + (py - a.y) * ux
        let t = min(max(along, 0), l)
        let cx = a.x + ux * t, cy = a.y + uy * t
        return (t, along, perp, ((px - cx) * (px - cx) + (py - cy) * (py - cy)).squareRoot())
    }

    static func winding(_ x: Double, _ y: Double, _ poly: [Point]) -> Int {
        var w = 0
        for i in 0..<poly.count {
            let a = poly[i], b = poly[(i + 1) % poly.count]
            if (a.y <= y) != (b.y <= y) {
                let xi = a.x + (y - a.y) / (b.y - a.y) * (b.x - a.x)
                if xi > x { w += a.y < b.y ? 1 : -1 }
            }
        }
        return w
    }

    // MARK: Coverage against the reference

    func testRectAtFractionalPosition() {
        var c = layer()
        let r = Rect(x: 3.3, y: 4.71, width: 20.45, height: 13.2)
        c.fillRect(r, color: .white)
        assertCoverage(c) { x, y in x >= r.minX && x < r.maxX && y >= r.minY && y < r.maxY }
    }

    func testLinesWithEveryCap() {
        let a = Point(x: 5.2, y: 6.7), b = Point(x: 33.9, y: 22.35), w = 4.3
        for cap in LineCap.allCases {
            var c = layer()
            c.strokeLine(from: a, to: b, width: w, cap: cap, color: .white)
            let l = CanvasTests.segmentDistance(b.x, b.y, a, b).along
            assertCoverage(c) { x, y in
                let s = CanvasTests.segmentDistance(x, y, a, b)
                switch cap {
                case .butt: return s.along >= 0 && s.along <= l && abs(s.perp) <= w / 2
                case .square: return s.along >= -w / 2 && s.along <= l + w / 2 && abs(s.perp) <= w / 2
                case .round: return s.dist <= w / 2
                }
            }
        }
    }

    func testThinLine() {
        var c = layer()
        let a = Point(x: 2.5, y: 30.1), b = Point(x: 37.2, y: 1.9)
        c.strokeLine(from: a, to: b, width: 0.7, color: .white)
        let l = CanvasTests.segmentDistance(b.x, b.y, a, b).along
        assertCoverage(c) { x, y in
            let s = CanvasTests.segmentDistance(x, y, a, b)
            return s.along >= 0 && s.along <= l && abs(s.perp) <= 0.35
        }
    }

    func testEllipseAndCircle() {
        var c = layer()
        let e = Rect(x: 4.4, y: 3.15, width: 29.7, height: 21.9)
        c.fillEllipse(in: e, color: .white)
        assertCoverage(c) { x, y in
            let u = (x - e.midX) / (e.width / 2), v = (y - e.midY) / (e.height / 2)
            return u * u + v * v <= 1
        }
    }

    func testCircleAreaIsPiRSquared() {
        for r in [3.3, 11.7, 14.05] {
            var c = layer()
            c.fillCircle(center: Point(x: 19.37, y: 15.81), radius: r, color: .white)
            XCTAssertEqual(totalCoverage(c), Double.pi * r * r, accuracy: 0.005 * Double.pi * r * r, "radius \(r)")
        }
    }

    func testRoundedRect() {
        var c = layer()
        let r = Rect(x: 2.6, y: 3.4, width: 33.1, height: 24.3), rad = 6.2
        c.fillRoundedRect(r, cornerRadius: rad, color: .white)
        assertCoverage(c) { x, y in
            guard x >= r.minX, x <= r.maxX, y >= r.minY, y <= r.maxY else { return false }
            let cx = min(max(x, r.minX + rad), r.maxX - rad), cy = min(max(y, r.minY + rad), r.maxY - rad)
            return (x - cx) * (x - cx) + (y - cy) * (y - cy) <= rad * rad
        }
    }

    func testStrokedRectAndCircle() {
        var c = layer()
        let r = Rect(x: 6.3, y: 5.8, width: 24.4, height: 17.1), w = 3.1
        c.strokeRect(r, width: w, color: .white)
        let o = r.insetBy(dx: -w / 2, dy: -w / 2), i = r.insetBy(dx: w / 2, dy: w / 2)
        assertCoverage(c) { x, y in
            let inO = x >= o.minX && x < o.maxX && y >= o.minY && y < o.maxY
            let inI = x >= i.minX && x < i.maxX && y >= i.minY && y < i.maxY
            return inO && !inI
        }
        var d = layer()
        let center = Point(x: 20.2, y: 16.6), rad = 10.3
        d.strokeCircle(center: center, radius: rad, width: w, color: .white)
        assertCoverage(d) { x, y in
            abs(((x - center.x) * (x - center.x) + (y - center.y) * (y - center.y)).squareRoot() - rad) <= w / 2
        }
    }

    func testPolygonFillRules() {
        // Two nested squares wound the same way: the inner one is a hole for even-odd only.
        let outer = [Point(x: 3.3, y: 2.6), Point(x: 36.1, y: 2.6), Point(x: 36.1, y: 29.7), Point(x: 3.3, y: 29.7)]
        let inner = [Point(x: 12.45, y: 9.8), Point(x: 27.7, y: 11.2), Point(x: 25.9, y: 22.35), Point(x: 11.1, y: 20.6)]
        for rule in FillRule.allCases {
            var c = layer()
            c.fill([outer, inner], rule: rule, color: .white)
            assertCoverage(c) { x, y in
                let w = CanvasTests.winding(x, y, outer) + CanvasTests.winding(x, y, inner)
                return rule == .nonZero ? w != 0 : w % 2 != 0
            }
        }
        // A pentagram: its center winds twice (inside for non-zero, outside for even-odd).
        // Pixels holding a self-intersection are approximate (see `_ScanlineRasterizer`);
        // the others must match.
        let star = (0..<5).map { k -> Point in
            let t = -Double.pi / 2 + Double(k) * 4 * Double.pi / 5
            return Point(x: 20.3 + 14.2 * cos(t), y: 16.1 + 14.2 * sin(t))
        }
        let crossings = (0..<5).map { k -> Point in
            let t = -Double.pi / 2 + Double.pi / 5 + Double(k) * 2 * Double.pi / 5
            let r = 14.2 * cos(2 * Double.pi / 5) / cos(Double.pi / 5)
            return Point(x: 20.3 + r * cos(t), y: 16.1 + r * sin(t))
        }
        for rule in FillRule.allCases {
            var c = layer()
            c.fillPolygon(star, rule: rule, color: .white)
            let ref = reference(40, 32) { x, y in
                let w = CanvasTests.winding(x, y, star)
                return rule == .nonZero ? w != 0 : w % 2 != 0
            }
            for y in 0..<32 {
                for x in 0..<40
                where !crossings.contains(where: { abs($0.x - Double(x) - 0.5) < 1.2 && abs($0.y - Double(y) - 0.5) < 1.2 }) {
                    XCTAssertEqual(Double(c.buffer[x, y].w), ref[y * 40 + x], accuracy: 0.03, "\(rule) \(x),\(y)")
                }
            }
            XCTAssertEqual(c.buffer[20, 16].w, rule == .nonZero ? 1 : 0, "\(rule)")
        }
    }

    func testPolylineJoinsStayCloseToReference() {
        let pts = [Point(x: 4.2, y: 26.1), Point(x: 14.7, y: 6.3), Point(x: 24.1, y: 25.2), Point(x: 35.6, y: 8.8)]
        var c = layer()
        c.strokePolyline(pts, width: 3.2, cap: .round, join: .round, color: .white)
        // Overlapping pieces at the inner side of a join may add a little inside single pixels.
        assertCoverage(
            c,
            { x, y in
                (0..<3).contains { CanvasTests.segmentDistance(x, y, pts[$0], pts[$0 + 1]).dist <= 1.6 }
            }, tolerance: 0.12)
        for y in 0..<c.buffer.height { for x in 0..<c.buffer.width { XCTAssertLessThanOrEqual(c.buffer[x, y].w, 1) } }
        for join in LineJoin.allCases {
            var d = layer()
            d.strokePolygon(pts, width: 2, join: join, color: .white)
            XCTAssertEqual(d.buffer[14, 7].w, 1, accuracy: 1e-6, "\(join)")
        }
    }

    // MARK: Clipping and degenerate input

    func testClippingAtTheEdgesMatchesTheReference() {
        var c = layer()
        c.fillCircle(center: Point(x: -3.3, y: 29.4), radius: 12.6, color: .white)
        c.fillRect(Rect(x: 30.2, y: -5.1, width: 40, height: 9.7), color: .white)
        assertCoverage(c) { x, y in
            let dx = x + 3.3, dy = y - 29.4
            return dx * dx + dy * dy <= 12.6 * 12.6 || (x >= 30.2 && y < 4.6)
        }
    }

    func testShapesOutsideOrHugeDoNotCrash() {
        var c = layer()
        c.fillCircle(center: Point(x: -100, y: -100), radius: 20, color: .white)
        c.fillRect(Rect(x: 1e12, y: 5, width: 10, height: 10), color: .white)
        XCTAssertEqual(totalCoverage(c), 0)
        c.strokeLine(from: Point(x: -1e9, y: -1e9), to: Point(x: 1e9, y: 1e9), width: 2, color: .white)
        XCTAssertEqual(c.buffer[10, 10].w, 1, accuracy: 1e-6)
        XCTAssertEqual(c.buffer[30, 10].w, 0)
        c.fillPolygon([Point(x: -1e300, y: 0), Point(x: 1e300, y: 1), Point(x: 0, y: 1e300)], color: .white)
    }

    func testDegenerateAndNaNShapesDrawNothing() {
        var c = layer()
        c.strokeLine(from: Point(x: 10, y: 10), to: Point(x: 10, y: 10), width: 3, color: .white)
        c.fillPolygon([], color: .white)
        c.fillPolygon([Point(x: 1, y: 1), Point(x: 20, y: 20)], color: .white)
        c.fillPolygon([Point(x: 1, y: 1), Point(x: 10, y: 10), Point(x: 20, y: 20)], color: .white)
        c.fillRect(Rect(x: 5, y: 5, width: 0, height: 10), color: .white)
        c.fillCircle(center: Point(x: .nan, y: 5), radius: 4, color: .white)
        c.fillPolygon([Point(x: 1, y: 1), Point(x: .nan, y: 10), Point(x: 20, y: 2)], color: .white)
        c.strokeLine(from: Point(x: 1, y: 1), to: Point(x: 20, y: 20), width: .infinity, color: .white)
        c.fillRect(Rect(x: 5, y: 5, width: 10, height: 10), color: Color(red: .nan, green: 0, blue: 0))
        XCTAssertEqual(totalCoverage(c), 0)
        // A zero-length line with round caps is a disc.
        c.strokeLine(from: Point(x: 20, y: 16), to: Point(x: 20, y: 16), width: 8, cap: .round, color: .white)
        XCTAssertEqual(totalCoverage(c), Double.pi * 16, accuracy: 0.01 * Double.pi * 16)
    }

    // MARK: Compositing and formats

    func testSourceOverInLinearLightOnAnSRGBBuffer() {
        var b = try! PixelBuffer(width: 8, height: 8, format: .rgba8)
        var c = Canvas(buffer: b)
        c.clear(to: .white)
        c.fillRect(Rect(x: 0, y: 0, width: 4, height: 8), color: Color(red: 1, green: 0, blue: 0, alpha: 0.5))
        b = c.buffer
        // Half red over white in linear light: green = blue = 0.5 linear = 188 encoded.
        XCTAssertEqual(b[1, 1] * 255, SIMD4(255, 188, 188, 255))
        XCTAssertEqual(b[6, 1] * 255, SIMD4(255, 255, 255, 255))
    }

    func testUntouchedPixelsKeepTheirBytes() {
        for format in [PixelFormat.rgba8, .rgba16, .rgbaF32, .gray8] {
            let original = TestImages.random(width: 24, height: 20, format: format, seed: 7)
            var c = Canvas(buffer: original)
            c.fillCircle(center: Point(x: 12.3, y: 10.4), radius: 4.2, color: Color(red: 0.2, green: 0.9, blue: 0.4, alpha: 0.8))
            for y in 0..<20 {
                for x in 0..<24 where abs(Double(x) + 0.5 - 12.3) > 5.5 || abs(Double(y) + 0.5 - 10.4) > 5.5 {
                    XCTAssertEqual(c.buffer[x, y], original[x, y], "\(format) \(x),\(y)")
                }
            }
            XCTAssertNotEqual(c.buffer[12, 10], original[12, 10], "\(format)")
        }
    }

    func testLayerCompositesOverAnImage() throws {
        var c = try Canvas(width: 16, height: 16)
        c.fillRect(Rect(x: 0, y: 0, width: 8, height: 16), color: .black)
        let out = try RenderContext().makeBuffer(c.composited(over: Image(color: .white).cropped(to: c.buffer.bounds)))
        XCTAssertEqual(out[2, 2], SIMD4(0, 0, 0, 1))
        XCTAssertEqual(out[12, 2], SIMD4(1, 1, 1, 1))
    }

    func testTransformMapsShapes() {
        var c = layer()
        c.transform = AffineTransform(scaleX: 2, y: 2).concatenating(AffineTransform(translationX: 1.5, y: 0.25))
        c.fillRect(Rect(x: 2, y: 3, width: 5, height: 4), color: .white)
        assertCoverage(c) { x, y in x >= 5.5 && x < 15.5 && y >= 6.25 && y < 14.25 }
    }
}
