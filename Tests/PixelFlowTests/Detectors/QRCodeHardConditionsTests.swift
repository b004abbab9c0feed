import Foundation
import XCTest
@testable import PixelFlow
@testable import PixelFlowKernels
@testable import PixelFlowGraph
@testable import PixelFlowEngine

/// Codes in hard light and contrast (issue #24): image fixtures made by
/// scripts/make_qr_hard_fixtures.py (segno symbols drawn through a perspective camera), each
/// of which the detector before the fitted grid, the steeper finder triples and the
/// low-contrast pass could not read; and the least-squares homography behind the fitted grid.
final class QRCodeHardConditionsTests: XCTestCase {
    func testHardFixtures() throws {
        let dir = URL(fileURLWithPath: packageRoot).appendingPathComponent("Tests/PixelFlowTests/Fixtures/QR/hard")
        let manifest = try String(contentsOf: dir.appendingPathComponent("manifest.tsv"), encoding: .utf8)
        var checked: [String] = []
        for line in manifest.split(separator: "\n") where !line.hasPrefix("#") {
            let parts = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard parts.count >= 3 else { continue }
            let buffer = try PixelBuffer(contentsOfFile: dir.appendingPathComponent(parts[0]).path)
            let found = try QRCodeDetector().features(in: buffer)
            XCTAssertEqual(found.map(\.message), [parts[1]], "\(parts[0]) (\(parts[2]))")
            checked.append(parts[0])
        }
        XCTAssertEqual(
            checked,
            [
                "low_contrast.png", "inverted_tilted.png", "uneven_low_contrast.png", "tilted_version10.png",
                "steep_version9.png", "steep_version15.png",
            ])
    }

    /// A finder pattern foreshortened to 0.45 of its width and turned 30 degrees (drawn pixel by
    /// pixel from its module-space definition): the edge fit finds its four outer corners within
    /// a pixel, given only the axes between finder centres 12 degrees off.
    func testForeshortenedFinderCorners() throws {
        let ms = 6.0, squeeze = 0.45, angle = 30.0 * Double.pi / 180
        let c = Point(x: 40, y: 40)
        // Module space (origin at the finder's centre) to pixels: squeeze x, then rotate.
        func forward(_ mx: Double, _ my: Double) -> Point {
            let x = mx * ms * squeeze, y = my * ms
            return Point(x: c.x + x * cos(angle) - y * sin(angle), y: c.y + x * sin(angle) + y * cos(angle))
        }
        let w = 80
        var bits = [UInt8](repeating: 0, count: w * w)
        for py in 0..<w {
            for px in 0..<w {
                let dx = Double(px) + 0.5 - c.x, dy = Double(py) + 0.5 - c.y
                let x = dx * cos(angle) + dy * sin(angle), y = -dx * sin(angle) + dy * cos(angle)
                let mx = x / (ms * squeeze), my = y / ms
                let ring = Swift.max(Swift.abs(mx), Swift.abs(my))
                bits[py * w + px] = ring < 1.5 || (ring >= 2.5 && ring < 3.5) ? 1 : 0
            }
        }
        let image = QRBinaryImage(width: w, height: w, bits: bits)
        let off = 12.0 * Double.pi / 180
        let ux = Point(x: cos(angle + off), y: sin(angle + off)), uy = Point(x: -sin(angle + off), y: cos(angle + off))
        let sides = try XCTUnwrap(
            QRFinderGeometry(image: image).sides(center: c, moduleSize: ms * (1 + squeeze) / 2, ux: ux, uy: uy))
        let found = [
            sides.top.intersection(sides.left), sides.top.intersection(sides.right),
            sides.bottom.intersection(sides.right), sides.bottom.intersection(sides.left),
        ]
        let want = [forward(-3.5, -3.5), forward(3.5, -3.5), forward(3.5, 3.5), forward(-3.5, 3.5)]
        for (f, t) in zip(found, want) {
            let p = try XCTUnwrap(f)
            XCTAssertLessThan(((p.x - t.x) * (p.x - t.x) + (p.y - t.y) * (p.y - t.y)).squareRoot(), 1.0, "\(p) vs \(t)")
        }
    }

    /// `doubled()` against the bilinear formula evaluated directly in floating point, and
    /// `inverted()` against flipping each pixel, on seeded random planes of awkward sizes.
    func testDoubledAndInvertedAgainstReference() {
        var rng = QRTestRandom(seed: 5)
        for (w, h) in [(1, 1), (2, 3), (7, 5), (33, 17)] {
            let pixels = (0..<(w * h)).map { _ in UInt8(rng.int(0...255)) }
            let plane = QRLuminance(width: w, height: h, pixels: pixels)
            let doubled = plane.doubled()
            XCTAssertEqual(doubled.width, 2 * w)
            XCTAssertEqual(doubled.height, 2 * h)
            func tap(_ i: Int, _ count: Int) -> (Int, Int, Double) {
                let s = Swift.max(Double(i) * 0.5 - 0.25, 0)
                let i0 = Swift.min(Int(s), count - 1)
                return (i0, Swift.min(i0 + 1, count - 1), s - Double(i0))
            }
            for y in 0..<(2 * h) {
                let (y0, y1, fy) = tap(y, h)
                for x in 0..<(2 * w) {
                    let (x0, x1, fx) = tap(x, w)
                    func p(_ a: Int, _ b: Int) -> Double { Double(pixels[b * w + a]) }
                    let value = (p(x0, y0) * (1 - fx) + p(x1, y0) * fx) * (1 - fy) + (p(x0, y1) * (1 - fx) + p(x1, y1) * fx) * fy
                    // Weights of 256ths and one rounding: within half a level plus the rounding.
                    XCTAssertEqual(Double(doubled.pixels[y * 2 * w + x]), value, accuracy: 0.51, "(\(x), \(y)) of \(w)x\(h)")
                }
            }
            let bits = pixels.map { $0 & 1 }
            let image = QRBinaryImage(width: w, height: h, bits: bits)
            XCTAssertEqual(image.inverted().bits, bits.map { 1 - $0 })
            XCTAssertTrue(image.inverted().isInverted)
        }
    }

    /// The low-contrast pass is the last one at accuracy high; low accuracy skips it.
    func testLowContrastNeedsAccuracyHigh() throws {
        let dir = URL(fileURLWithPath: packageRoot).appendingPathComponent("Tests/PixelFlowTests/Fixtures/QR/hard")
        let buffer = try PixelBuffer(contentsOfFile: dir.appendingPathComponent("low_contrast.png").path)
        XCTAssertEqual(try QRCodeDetector(options: DetectorOptions(accuracy: .high)).features(in: buffer).count, 1)
        XCTAssertEqual(try QRCodeDetector(options: DetectorOptions(accuracy: .low)).features(in: buffer).count, 0)
    }

    /// A homography written out by hand (reference), sampled at the twelve finder corners of a
    /// version 3 symbol: the fit reproduces it to 1e-6 pixels everywhere on the symbol, stays
    /// within 1.5 pixels out to the far corner with +-0.5 pixel of noise on the points, and refuses collinear points.
    func testLeastSquaresHomography() throws {
        func reference(_ x: Double, _ y: Double) -> Point {
            let w = 0.0012 * x - 0.0008 * y + 1
            return Point(x: (7.5 * x + 1.2 * y + 40) / w, y: (-0.9 * x + 6.1 * y + 25) / w)
        }
        let n = 29.0
        var source: [Point] = []
        for (ox, oy) in [(0.0, 0.0), (n - 7, 0.0), (0.0, n - 7)] {
            source += [Point(x: ox, y: oy), Point(x: ox + 7, y: oy), Point(x: ox + 7, y: oy + 7), Point(x: ox, y: oy + 7)]
        }
        let exact = source.map { reference($0.x, $0.y) }
        let t = try XCTUnwrap(QRPerspectiveTransform(fitting: source, to: exact))
        for y in stride(from: 0.0, through: n, by: 2.9) {
            for x in stride(from: 0.0, through: n, by: 2.9) {
                let got = t.apply(x, y), want = reference(x, y)
                XCTAssertEqual(got.x, want.x, accuracy: 1e-6)
                XCTAssertEqual(got.y, want.y, accuracy: 1e-6)
            }
        }
        var rng = QRTestRandom(seed: 11)
        let noisy = exact.map { Point(x: $0.x + rng.unit() - 0.5, y: $0.y + rng.unit() - 0.5) }
        let fitted = try XCTUnwrap(QRPerspectiveTransform(fitting: source, to: noisy))
        for (x, y) in [(3.5, 3.5), (n - 3.5, 3.5), (3.5, n - 3.5), (n - 6.5, n - 6.5), (n, n)] {
            let got = fitted.apply(x, y), want = reference(x, y)
            XCTAssertLessThan(((got.x - want.x) * (got.x - want.x) + (got.y - want.y) * (got.y - want.y)).squareRoot(), 1.5)
        }
        let line = (0..<6).map { Point(x: Double($0), y: 2 * Double($0)) }
        XCTAssertNil(QRPerspectiveTransform(fitting: line, to: line))
        XCTAssertNil(QRPerspectiveTransform(fitting: Array(source.prefix(3)), to: Array(exact.prefix(3))))
    }
}
