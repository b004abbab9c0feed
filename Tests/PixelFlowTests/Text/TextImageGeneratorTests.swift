import Foundation
import XCTest

@testable import PixelFlow

/// `CITextImageGenerator` and `CIAttributedTextImageGenerator`: extents from the font's own
/// metrics (read by FreeType in the test), coverage that scales with the area, colors of
/// styled runs, and bad input.
final class TextImageGeneratorTests: XCTestCase {
    func render(_ image: Image) throws -> PixelBuffer {
        try RenderContext().makeBuffer(image, format: .rgbaF32)
    }

    func coverage(_ b: PixelBuffer) -> Double {
        var sum = 0.0
        for y in 0..<b.height { for x in 0..<b.width { sum += Double(b[x, y].w) } }
        return sum
    }

    func testExtentIsTheTypographicBoundsPlusPaddingTimesScale() throws {
        let font = try TextLayoutTests.dejaVu(size: 40)
        let raw = try TextLayoutTests.RawFace(font.filePath)
        let text = "Hello"
        let ids = text.unicodeScalars.map(raw.glyph)
        var units = ids.map(raw.advance).reduce(0, +)
        for i in 1..<ids.count { units += raw.kerning(ids[i - 1], ids[i]) }
        let k = 40 / raw.unitsPerEm
        let advance = units * k
        let height = (Double(raw.face!.pointee.ascender) - Double(raw.face!.pointee.descender)) * k
        for scale in [1.0, 2, 3.5] {
            for padding in [0.0, 5] {
                let image = try Image.text(text, fontName: font.filePath, fontSize: 40, scaleFactor: scale, padding: padding)
                XCTAssertEqual(image.extent.x, 0)
                XCTAssertEqual(image.extent.y, 0)
                XCTAssertEqual(image.extent.width, ((advance + 2 * padding) * scale).rounded(.up), "scale \(scale)")
                XCTAssertEqual(image.extent.height, ((height + 2 * padding) * scale).rounded(.up), "scale \(scale)")
            }
        }
        // The same through the registry, by name and by family.
        let byName = try FilterRegistry.apply(
            "CITextImageGenerator",
            ["inputText": .string(text), "inputFontName": .string("DejaVu Sans"), "inputFontSize": .number(40)])
        XCTAssertEqual(byName.extent.width, advance.rounded(.up))
    }

    func testScaleTwoDoublesTheExtentAndQuadruplesTheInk() throws {
        let font = try TextLayoutTests.dejaVu(size: 30)
        let one = try Image.text("Scale me", fontName: font.filePath, fontSize: 30)
        let two = try Image.text("Scale me", fontName: font.filePath, fontSize: 30, scaleFactor: 2)
        XCTAssertEqual(two.extent.width, 2 * one.extent.width, accuracy: 1)
        XCTAssertEqual(two.extent.height, 2 * one.extent.height, accuracy: 1)
        let a1 = coverage(try render(one)), a2 = coverage(try render(two))
        XCTAssertGreaterThan(a1, 100)
        // Both are exact areas up to flattening (0.01 pixel at each scale).
        XCTAssertEqual(a2, 4 * a1, accuracy: 0.01 * a2)
        // White text: premultiplied color equals alpha in every channel.
        let b = try render(two)
        for y in 0..<b.height {
            for x in 0..<b.width {
                let p = b[x, y]
                XCTAssertEqual(p.x, p.w, accuracy: 1e-6)
                XCTAssertEqual(p.z, p.w, accuracy: 1e-6)
            }
        }
    }

    func testStyledRunsKeepTheirColorsAndFonts() throws {
        let font = try TextLayoutTests.dejaVu(size: 40)
        let bold = try Font(name: "DejaVuSans-Bold", size: 40)
        var text = StyledText("II", style: TextStyle(font: font, color: .red))
        text.append("II", style: TextStyle(font: bold, color: .blue))
        XCTAssertEqual(text.runs.count, 2)
        XCTAssertEqual(text.string, "IIII")
        let image = try Image.attributedText(text, scaleFactor: 1, padding: 2)
        let layout = TextLayout(text)
        XCTAssertEqual(image.extent.width, (layout.advance + 4).rounded(.up))
        XCTAssertEqual(layout.glyphs.map(\.font), [font, font, bold, bold])
        let b = try render(image)
        let split = Int(2 + TextLayout("II", font: font).advance)
        var red = 0.0, blue = 0.0, wrong = 0.0
        for y in 0..<b.height {
            for x in 0..<b.width {
                let p = b[x, y]
                if x < split { red += Double(p.x); wrong += Double(p.z) } else { blue += Double(p.z); wrong += Double(p.x) }
                XCTAssertEqual(p.y, 0)
            }
        }
        XCTAssertGreaterThan(red, 50)
        XCTAssertGreaterThan(blue, 50)
        XCTAssertEqual(wrong, 0)
    }

    func testEmptyTextGivesAnEmptyImage() throws {
        XCTAssertTrue(try Image.text("").extent.isEmpty)
        XCTAssertTrue(try Image.text("", padding: 10).extent.isEmpty)
        XCTAssertTrue(try Image.attributedText(StyledText(), padding: 3).extent.isEmpty)
        XCTAssertTrue(try FilterRegistry.apply("CITextImageGenerator", ["inputText": .string("")]).extent.isEmpty)
        XCTAssertFalse(try FilterRegistry.apply("CITextImageGenerator", [:]).extent.isEmpty, "the default text")
    }

    func testBadInputThrows() throws {
        func expectInvalid(_ key: String, _ body: () throws -> Image, line: UInt = #line) {
            XCTAssertThrowsError(try body(), line: line) { e in
                guard case .invalidParameter(_, let k, _)? = e as? PixelFlowError else { return XCTFail("\(e)", line: line) }
                XCTAssertEqual(k, key, line: line)
            }
        }
        expectInvalid("inputFontSize") { try Image.text("x", fontSize: .nan) }
        expectInvalid("inputFontSize") { try Image.text("x", fontSize: -4) }
        expectInvalid("inputFontSize") { try Image.text("x", fontSize: 0) }
        expectInvalid("inputScaleFactor") { try Image.text("x", scaleFactor: .nan) }
        expectInvalid("inputScaleFactor") { try Image.text("x", scaleFactor: -1) }
        expectInvalid("inputPadding") { try Image.text("x", padding: .infinity) }
        expectInvalid("inputText") { try FilterRegistry.apply("CIAttributedTextImageGenerator", ["inputText": .number(1)]) }
        XCTAssertThrowsError(try Image.text("x", fontName: "/no/such/font.otf")) { e in
            guard case .io(let file, _)? = e as? PixelFlowError else { return XCTFail("\(e)") }
            XCTAssertEqual(file, "/no/such/font.otf")
        }
        // Too many pixels is an error, not an allocation.
        XCTAssertThrowsError(try Image.text(String(repeating: "W", count: 200), fontSize: 900, scaleFactor: 100)) { e in
            guard case .invalidDimensions? = e as? PixelFlowError else { return XCTFail("\(e)") }
        }
    }
}

extension TextImageGeneratorTests {
    func testNSAttributedStringGivesStyledRuns() throws {
        let font = try TextLayoutTests.dejaVu(size: 20)
        let bold = try Font(name: "DejaVuSans-Bold", size: 20)
        let s = NSMutableAttributedString(string: "héllo wörld")
        s.addAttribute(StyledText.AttributeName.foregroundColor, value: Color.red, range: NSRange(location: 0, length: 5))
        s.addAttribute(StyledText.AttributeName.font, value: bold, range: NSRange(location: 6, length: 5))
        s.addAttribute(StyledText.AttributeName.kern, value: 2.5, range: NSRange(location: 6, length: 5))
        let text = StyledText(s, defaultStyle: TextStyle(font: font, color: .white))
        XCTAssertEqual(text.string, "héllo wörld")
        XCTAssertEqual(text.runs.map(\.text), ["héllo", " ", "wörld"])
        XCTAssertEqual(text.runs.map(\.style.color), [.red, .white, .white])
        XCTAssertEqual(text.runs.map(\.style.font), [font, font, bold])
        XCTAssertEqual(text.runs.map(\.style.kerning), [0, 0, 2.5])
    }
}

extension TextImageGeneratorTests {
    /// Fonts, layout and drawing from many threads at once (one lock guards FreeType,
    /// HarfBuzz and fontconfig): every thread gets the same pixels as one thread alone, for
    /// texts that open fallback fonts on first use.
    func testTextFromManyThreadsIsTheSame() throws {
        let texts = ["Hello AV", "سلام عليكم", "क्षि नमस्ते", "世界 A", "mixed 世 سلام क"]
        let expected = try texts.map { try render(try Image.text($0, fontName: "DejaVu Sans", fontSize: 18, scaleFactor: 1.5)) }
        let results = Locked([PixelBuffer?](repeating: nil, count: 4 * texts.count))
        DispatchQueue.concurrentPerform(iterations: 4 * texts.count) { i in
            let b = try? RenderContext().makeBuffer(
                try Image.text(texts[i % texts.count], fontName: "DejaVu Sans", fontSize: 18, scaleFactor: 1.5),
                format: .rgbaF32)
            results.withLock { $0[i] = b }
        }
        let got = results.withLock { $0 }
        for (i, b) in got.enumerated() { XCTAssertEqual(b, expected[i % texts.count], "text \(i % texts.count)") }
    }
}
