import Foundation
import XCTest
@testable import PixelFlow

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
        XCTAssertEqual(checked, ["low_contrast.png", "inverted_tilted.png", "uneven_low_contrast.png", "tilted_version10.png"])
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
