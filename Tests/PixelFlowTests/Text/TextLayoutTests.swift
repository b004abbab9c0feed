import CFreeType
import XCTest

@testable import PixelFlow

/// Text layout against glyph metrics read straight from the font with FreeType (advances,
/// the legacy `kern` table, ascender and descender), never against another renderer's pixels;
/// shaping checked by what it must change (joining forms, right-to-left order, conjuncts);
/// fallback by the font it picks.
final class TextLayoutTests: XCTestCase {
    /// DejaVu Sans, which scripts/setup.sh installs (fonts-dejavu-core).
    static func dejaVu(size: Double) throws -> Font {
        let font = try Font(name: "DejaVu Sans", size: size)
        guard font.familyName == "DejaVu Sans", font.styleName == "Book" else {
            throw XCTSkip("DejaVu Sans is not installed (run scripts/setup.sh); fontconfig gave \(font)")
        }
        return font
    }

    /// The font's file opened by FreeType in the test, apart from the engine.
    final class RawFace {
        var library: FT_Library?
        var face: FT_Face?

        init(_ path: String, index: Int = 0) throws {
            XCTAssertEqual(FT_Init_FreeType(&library), 0)
            guard FT_New_Face(library, path, FT_Long(index), &face) == 0 else { throw XCTSkip("FreeType cannot open \(path)") }
        }

        deinit {
            FT_Done_Face(face)
            FT_Done_FreeType(library)
        }

        var unitsPerEm: Double { Double(face!.pointee.units_per_EM) }
        func glyph(_ c: Unicode.Scalar) -> UInt32 { UInt32(FT_Get_Char_Index(face, FT_ULong(c.value))) }

        /// The advance in font units, from hmtx.
        func advance(_ g: UInt32) -> Double {
            var a: FT_Fixed = 0
            XCTAssertEqual(FT_Get_Advance(face, g, FT_Int32(FT_LOAD_NO_SCALE), &a), 0)
            return Double(a)
        }

        /// The `kern` table's pair value in font units (0 without a table or pair).
        func kerning(_ l: UInt32, _ r: UInt32) -> Double {
            var v = FT_Vector()
            guard FT_Get_Kerning(face, l, r, FT_UInt(FT_KERNING_UNSCALED.rawValue), &v) == 0 else { return 0 }
            return Double(v.x)
        }

        /// The signed area of glyph `g`'s outline in font units squared, exactly: straight
        /// segments by the shoelace formula, quadratic ones by (P0 x P2 + 2 P0 x C + 2 C x P2) / 6,
        /// decoded from the outline's points and on/off tags (implied on-curve points between two
        /// off-curve ones), not through FT_Outline_Decompose.
        func outlineArea(_ g: UInt32) -> Double {
            XCTAssertEqual(FT_Load_Glyph(face, g, FT_Int32(FT_LOAD_NO_SCALE | FT_LOAD_NO_HINTING)), 0)
            let o = face!.pointee.glyph.pointee.outline
            func cross(_ a: (Double, Double), _ b: (Double, Double)) -> Double { a.0 * b.1 - a.1 * b.0 }
            var area = 0.0
            var start = 0
            for c in 0..<Int(o.n_contours) {
                let end = Int(o.contours[c])
                let n = end - start + 1
                let pts = (0..<n).map { (Double(o.points[start + $0].x), Double(o.points[start + $0].y)) }
                let on = (0..<n).map { o.tags[start + $0] & 1 == 1 }
                XCTAssertTrue((0..<n).allSatisfy { o.tags[start + $0] & 3 != 2 }, "a quadratic (TrueType) outline")
                // Insert the implied on-curve point between two off-curve ones, start at an
                // on-curve point, and walk around.
                var seq: [((Double, Double), Bool)] = []
                for i in 0..<n {
                    seq.append((pts[i], on[i]))
                    let j = (i + 1) % n
                    if !on[i] && !on[j] { seq.append((((pts[i].0 + pts[j].0) / 2, (pts[i].1 + pts[j].1) / 2), true)) }
                }
                let s0 = seq.firstIndex { $0.1 }!
                seq = Array(seq[s0...] + seq[..<s0])
                var current = seq[0].0
                var control: (Double, Double)?
                for k in 1...seq.count {
                    let (p, isOn) = seq[k % seq.count]
                    guard isOn else {
                        control = p
                        continue
                    }
                    if let c = control {
                        area += (cross(current, p) + 2 * cross(current, c) + 2 * cross(c, p)) / 6
                    } else {
                        area += cross(current, p) / 2
                    }
                    current = p
                    control = nil
                }
                start = end + 1
            }
            return area
        }
    }

    func testAdvanceAndHeightAreTheFontMetrics() throws {
        let font = try Self.dejaVu(size: 40)
        let raw = try RawFace(font.filePath)
        let text = "Hello, Wolf"
        let layout = TextLayout(text, font: font)
        let ids = text.unicodeScalars.map(raw.glyph)
        XCTAssertEqual(layout.glyphs.map { UInt32($0.id) }, ids, "Latin text maps one glyph per character")
        var units = ids.map(raw.advance).reduce(0, +)
        for i in 1..<ids.count { units += raw.kerning(ids[i - 1], ids[i]) }
        let k = 40 / raw.unitsPerEm
        XCTAssertEqual(layout.advance, units * k, accuracy: 1e-9)
        XCTAssertEqual(layout.ascent, Double(raw.face!.pointee.ascender) * k, accuracy: 1e-9)
        XCTAssertEqual(layout.descent, -Double(raw.face!.pointee.descender) * k, accuracy: 1e-9)
        XCTAssertEqual(layout.height, layout.ascent + layout.descent)
        XCTAssertEqual(layout.typographicBounds, Rect(x: 0, y: -layout.ascent, width: layout.advance, height: layout.height))
        // Pen positions are the running sum of the advances.
        var pen = 0.0
        for g in layout.glyphs {
            XCTAssertEqual(g.position.x, pen, accuracy: 1e-9)
            XCTAssertEqual(g.position.y, 0)
            pen += g.advance
        }
        // Ink: "H" starts near the left edge, "l" rises above "o", nothing goes below the descent.
        let ink = layout.inkBounds
        XCTAssertGreaterThan(ink.width, 0.8 * layout.advance)
        XCTAssertLessThan(ink.maxY, layout.descent)
        XCTAssertGreaterThan(-ink.y, 0.6 * layout.ascent)
    }

    func testKerningTightensAV() throws {
        let font = try Self.dejaVu(size: 100)
        let raw = try RawFace(font.filePath)
        let av = TextLayout("AV", font: font).advance
        let a = TextLayout("A", font: font).advance, v = TextLayout("V", font: font).advance
        XCTAssertLessThan(av, a + v - 1, "the font's kerning pulls V under A")
        let pair = raw.kerning(raw.glyph("A"), raw.glyph("V"))
        if pair != 0 { XCTAssertEqual(av, a + v + pair * 100 / raw.unitsPerEm, accuracy: 1e-9) }
        // Extra kerning (NSAttributedString's kern) adds after every glyph.
        let spaced = TextLayout(StyledText("AVA", style: TextStyle(font: font, kerning: 3)))
        XCTAssertEqual(spaced.advance, TextLayout("AVA", font: font).advance + 9, accuracy: 1e-9)
    }

    func testArabicIsJoinedAndRightToLeft() throws {
        let font = try Self.dejaVu(size: 40)
        let text = "سلام"
        XCTAssertTrue(text.unicodeScalars.allSatisfy { font.hasGlyph(for: $0) }, "DejaVu Sans has the Arabic letters")
        let layout = TextLayout(text, font: font)
        let raw = try RawFace(font.filePath)
        let nominal = text.unicodeScalars.map(raw.glyph)
        let shaped = layout.glyphs.map { UInt32($0.id) }
        XCTAssertTrue(layout.glyphs.allSatisfy { $0.font.filePath == font.filePath }, "no fallback needed")
        // Joining forms (initial seen, medial lam or lam-alef, final meem) replace the nominal
        // glyphs; none of the shaped glyphs is an isolated form except where the word allows.
        XCTAssertNotEqual(Set(shaped), Set(nominal))
        XCTAssertFalse(shaped.contains(nominal[0]), "seen takes its initial form")
        // Visual order: right to left, so clusters decrease along x.
        let clusters = layout.glyphs.map(\.cluster)
        XCTAssertEqual(clusters, clusters.sorted(by: >))
        XCTAssertEqual(clusters.first, 3)
        XCTAssertEqual(clusters.last, 0)
        let xs = layout.glyphs.map(\.position.x)
        XCTAssertEqual(xs, xs.sorted())
    }

    func testDevanagariFormsAConjunctInAFallbackFont() throws {
        let font = try Self.dejaVu(size: 40)
        let text = "क्षि"  // ka, virama, ssa, vowel sign i
        XCTAssertFalse(font.hasGlyph(for: "क"), "DejaVu Sans has no Devanagari: the text needs a fallback")
        let layout = TextLayout(text, font: font)
        guard let used = layout.glyphs.first?.font, used.hasGlyph(for: "क") else {
            throw XCTSkip("no Devanagari font is installed (scripts/setup.sh installs one)")
        }
        XCTAssertTrue(layout.glyphs.allSatisfy { $0.font == used }, "marks stay in the font of their base")
        XCTAssertNotEqual(used.filePath, font.filePath)
        XCTAssertLessThan(layout.glyphs.count, 4, "k.ssa is one conjunct glyph: \(layout.glyphs.map(\.id))")
        // The conjunct replaces ka, virama and ssa: none of their nominal glyphs is drawn.
        let raw = try RawFace(used.filePath, index: used.faceIndex)
        let shaped = layout.glyphs.map { UInt32($0.id) }
        for c in ["क", "्", "ष"] as [Unicode.Scalar] {
            XCTAssertFalse(shaped.contains(raw.glyph(c)), "\(c) is part of the conjunct: \(shaped)")
        }
        // One syllable: HarfBuzz gives every glyph its first character as cluster.
        XCTAssertEqual(Set(layout.glyphs.map(\.cluster)), [0])
        XCTAssertGreaterThan(layout.advance, 0)
    }

    func testCJKFallsBackToACJKFont() throws {
        let font = try Self.dejaVu(size: 40)
        let text = "世界"
        XCTAssertFalse(font.hasGlyph(for: "世"))
        let layout = TextLayout("A" + text, font: font)
        XCTAssertEqual(layout.glyphs.count, 3)
        XCTAssertEqual(layout.glyphs[0].font, font)
        let cjk = layout.glyphs[1].font
        guard cjk.hasGlyph(for: "世") else { throw XCTSkip("no CJK font is installed (scripts/setup.sh installs one)") }
        XCTAssertEqual(layout.glyphs[2].font, cjk)
        XCTAssertNotEqual(cjk.filePath, font.filePath)
        // Ideographs are about one em wide and have ink.
        XCTAssertEqual(layout.glyphs[1].advance, 40, accuracy: 4)
        XCTAssertFalse(layout.outline(of: layout.glyphs[1]).isEmpty)
        var canvas = try Canvas(width: 140, height: 60)
        canvas.drawText(layout, at: Point(x: 0, y: 45))
        XCTAssertGreaterThan(Self.coverage(canvas, x: 30..<140), 100)
    }

    func testLinesStackByTheLineHeight() throws {
        let font = try Self.dejaVu(size: 20)
        let raw = try RawFace(font.filePath)
        let layout = TextLayout("one\ntwo\r\nthree", font: font)
        XCTAssertEqual(layout.baselines.count, 3)
        let lineHeight = Double(raw.face!.pointee.height) * 20 / raw.unitsPerEm
        XCTAssertEqual(layout.baselines[1], lineHeight, accuracy: 1e-9)
        XCTAssertEqual(layout.baselines[2], 2 * lineHeight, accuracy: 1e-9)
        XCTAssertEqual(layout.height, layout.ascent + 2 * lineHeight + layout.descent, accuracy: 1e-9)
        XCTAssertEqual(layout.advance, TextLayout("three", font: font).advance, accuracy: 1e-9)
        XCTAssertEqual(layout.glyphs.count, 11)
        XCTAssertEqual(layout.glyphs.last?.cluster, 13, "clusters count the line breaks")
    }

    func testEmptyTextHasNoGlyphs() throws {
        let layout = TextLayout("", font: try Self.dejaVu(size: 12))
        XCTAssertTrue(layout.isEmpty)
        XCTAssertEqual(layout.advance, 0)
        XCTAssertEqual(layout.height, 0)
        XCTAssertEqual(layout.inkBounds, .empty)
        XCTAssertTrue(TextLayout(StyledText()).isEmpty)
    }

    func testFontNamesAndBadFonts() throws {
        let regular = try Self.dejaVu(size: 12)
        let bold = try Font(name: "DejaVuSans-Bold", size: 12)
        XCTAssertEqual(bold.postScriptName, "DejaVuSans-Bold")
        XCTAssertEqual(try Font(name: "DejaVu Sans:bold", size: 12), bold)
        XCTAssertEqual(try Font(name: "DejaVuSans", size: 12).familyName, "DejaVu Sans")
        XCTAssertEqual(try Font(filePath: regular.filePath, size: 12), regular)
        // Core Image's default name resolves to some installed font (fontconfig's fallback).
        let fallback = try Font(name: Font.defaultName, size: 12)
        XCTAssertFalse(fallback.familyName.isEmpty)
        XCTAssertEqual(try regular.withSize(30).size, 30)

        XCTAssertThrowsError(try Font(name: "/no/such/font.ttf", size: 12)) { e in
            guard case .io(let file, _)? = e as? PixelFlowError else { return XCTFail("\(e)") }
            XCTAssertEqual(file, "/no/such/font.ttf")
        }
        // A file that is not a font.
        let notAFont = FileManager.default.temporaryDirectory.appendingPathComponent("pixelflow-not-a-font.ttf").path
        try Data("not a font".utf8).write(to: URL(fileURLWithPath: notAFont))
        defer { try? FileManager.default.removeItem(atPath: notAFont) }
        XCTAssertThrowsError(try Font(filePath: notAFont, size: 12)) { e in
            guard case .decodingFailed? = e as? PixelFlowError else { return XCTFail("\(e)") }
        }
        for bad in [Double.nan, -1, 0, .infinity, 1e6] {
            XCTAssertThrowsError(try Font(name: "DejaVu Sans", size: bad)) { e in
                guard case .invalidParameter(_, "size", _)? = e as? PixelFlowError else { return XCTFail("\(e)") }
            }
            XCTAssertThrowsError(try regular.withSize(bad))
        }
    }

    /// The sum of alpha over columns `x` of a float canvas.
    static func coverage(_ canvas: Canvas, x: Range<Int>? = nil) -> Double {
        var sum = 0.0
        for y in 0..<canvas.buffer.height {
            for xx in x ?? 0..<canvas.buffer.width where xx < canvas.buffer.width { sum += Double(canvas.buffer[xx, y].w) }
        }
        return sum
    }

    func testCoverageIsTheOutlineArea() throws {
        let font = try Self.dejaVu(size: 120)
        let raw = try RawFace(font.filePath)
        for c in ["o", "g", "8", "A", "@"] as [Unicode.Scalar] {
            let layout = TextLayout(String(c), font: font)
            var canvas = try Canvas(width: 160, height: 160)
            canvas.drawText(layout, at: Point(x: 10.3, y: 120.6))
            let k = 120 / raw.unitsPerEm
            let area = abs(raw.outlineArea(raw.glyph(c))) * k * k
            // Flattening to within 0.01 pixel loses at most about 2/3 x 0.01 x the outline's
            // length (under 1500 pixels for these glyphs at 120 px).
            XCTAssertEqual(Self.coverage(canvas), area, accuracy: 10, "\(c)")
            XCTAssertGreaterThan(area, 1000)
        }
    }
}
