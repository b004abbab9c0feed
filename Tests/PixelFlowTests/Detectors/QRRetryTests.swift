import XCTest

@testable import PixelFlow
@testable import PixelFlowEngine

/// The pieces behind the cheaper retries of `QRCodeDetector` (Docs/QRCode.md, "Retries by cost
/// per code"): the crop the doubled pass runs on (against a copy pixel by pixel), the region
/// the finder candidates give it (against the bounds computed by hand), and the doubled crop
/// against the crop of the doubled plane.
final class QRRetryTests: XCTestCase {
    func testCroppedEqualsAPixelByPixelCopy() {
        var rng = SeededRandom(seed: 11)
        let w = 37, h = 29
        let plane = QRLuminance(width: w, height: h, pixels: (0..<(w * h)).map { _ in UInt8(rng.next() & 0xFF) })
        for (x, y, cw, ch) in [(0, 0, w, h), (0, 0, 1, 1), (5, 3, 21, 22), (16, 7, 21, 22), (36, 28, 1, 1), (0, 10, w, 5)] {
            let crop = plane.cropped(x: x, y: y, width: cw, height: ch)
            XCTAssertEqual(crop.width, cw)
            XCTAssertEqual(crop.height, ch)
            var expected: [UInt8] = []
            for yy in y..<(y + ch) {
                for xx in x..<(x + cw) { expected.append(plane.pixels[yy * w + xx]) }
            }
            XCTAssertEqual(crop.pixels, expected, "(\(x), \(y)) \(cw)x\(ch)")
        }
    }

    /// Away from the crop's border (where `doubled()` clamps at the crop instead of reading the
    /// pixels beyond it), the doubled crop is the crop of the doubled plane, exactly.
    func testDoubledCropIsTheCropOfTheDoubledPlaneInside() {
        var rng = SeededRandom(seed: 12)
        let w = 40, h = 33
        let plane = QRLuminance(width: w, height: h, pixels: (0..<(w * h)).map { _ in UInt8(rng.next() & 0xFF) })
        let whole = plane.doubled()
        let x = 9, y = 6, cw = 23, ch = 21
        let part = plane.cropped(x: x, y: y, width: cw, height: ch).doubled()
        for yy in 1..<(2 * ch - 1) {
            for xx in 1..<(2 * cw - 1) {
                XCTAssertEqual(
                    part.pixels[yy * 2 * cw + xx], whole.pixels[(yy + 2 * y) * 2 * w + xx + 2 * x], "(\(xx), \(yy))")
            }
        }
    }

    func testEvidenceRegionBoundsEveryCandidate() {
        XCTAssertTrue(QRFinderEvidence([]).region == (0, 0, 0, 0))
        XCTAssertEqual(QRFinderEvidence([]).lines, 0)
        let finders = [
            QRFinderPattern(x: 100.5, y: 50.25, moduleSize: 2, count: 2),
            QRFinderPattern(x: 30, y: 200, moduleSize: 4, count: 5),
        ]
        let evidence = QRFinderEvidence(finders)
        XCTAssertEqual(evidence.lines, 5)
        XCTAssertEqual(evidence.smallestModule, 2)
        // Each centre +- (8 modules + 16 px): 100.5 +- 32, 50.25 +- 32; 30 +- 48, 200 +- 48.
        XCTAssertTrue(evidence.region == (-18, 18, 133, 248), "\(evidence.region)")
    }
}
