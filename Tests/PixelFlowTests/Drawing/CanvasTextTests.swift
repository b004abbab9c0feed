import XCTest

@testable import PixelFlow

/// Text on a `Canvas` goes through the path rasterizer, so the canvas state applies to it as to
/// any shape: the transform scales the area, alpha halves it, a clip keeps what is inside, a
/// blend mode erases with it. Areas are compared with the same text drawn plainly.
final class CanvasTextTests: XCTestCase {
    func testTransformAlphaClipAndBlendApplyToText() throws {
        let font = try TextLayoutTests.dejaVu(size: 30)
        let layout = TextLayout("Text 8", font: font)
        var plain = try Canvas(width: 200, height: 100)
        plain.drawText(layout, at: Point(x: 5, y: 40))
        let area = TextLayoutTests.coverage(plain)
        XCTAssertGreaterThan(area, 300)

        // Scaled by 2 about the origin: four times the area (same glyphs at twice the size).
        var scaled = try Canvas(width: 400, height: 200)
        scaled.transform = AffineTransform(scaleX: 2, y: 2)
        scaled.drawText(layout, at: Point(x: 5, y: 40))
        XCTAssertEqual(TextLayoutTests.coverage(scaled), 4 * area, accuracy: 0.002 * 4 * area)
        // And the same as the font at twice the size drawn without a transform.
        var big = try Canvas(width: 400, height: 200)
        big.drawText("Text 8", at: Point(x: 10, y: 80), font: try font.withSize(60), color: .white)
        XCTAssertEqual(TextLayoutTests.coverage(big), TextLayoutTests.coverage(scaled), accuracy: 1e-6 * area)

        // Global alpha.
        var half = try Canvas(width: 200, height: 100)
        half.alpha = 0.5
        half.drawText(layout, at: Point(x: 5, y: 40))
        XCTAssertEqual(TextLayoutTests.coverage(half), area / 2, accuracy: 1e-3 * area)

        // A pixel-aligned clip keeps exactly the pixels inside it.
        var clipped = try Canvas(width: 200, height: 100)
        clipped.clip(to: Rect(x: 0, y: 0, width: 50, height: 100))
        clipped.drawText(layout, at: Point(x: 5, y: 40))
        XCTAssertEqual(TextLayoutTests.coverage(clipped), TextLayoutTests.coverage(plain, x: 0..<50), accuracy: 1e-6 * area)
        XCTAssertEqual(TextLayoutTests.coverage(clipped, x: 50..<200), 0)

        // Destination-out: the text erases what is under it.
        var erased = try Canvas(width: 200, height: 100)
        erased.fillRect(Rect(x: 0, y: 0, width: 200, height: 100), color: .white)
        erased.blendMode = .destinationOut
        erased.drawText(layout, at: Point(x: 5, y: 40))
        XCTAssertEqual(TextLayoutTests.coverage(erased), 20000 - area, accuracy: 1e-3 * area)
    }

    func testOverlappingGlyphsAreCoveredOnce() throws {
        let font = try TextLayoutTests.dejaVu(size: 40)
        // Negative extra kerning pushes the glyphs into each other; filled together under
        // non-zero, the overlap is not drawn twice: a translucent color stays at its alpha.
        let layout = TextLayout(
            StyledText("OO", style: TextStyle(font: font, color: Color(red: 1, green: 1, blue: 1, alpha: 0.5), kerning: -15)))
        var canvas = try Canvas(width: 100, height: 60)
        canvas.drawText(layout, at: Point(x: 2, y: 45))
        var maxAlpha: Float = 0
        for y in 0..<60 { for x in 0..<100 { maxAlpha = max(maxAlpha, canvas.buffer[x, y].w) } }
        XCTAssertEqual(maxAlpha, 0.5, accuracy: 1e-5)
    }
}
