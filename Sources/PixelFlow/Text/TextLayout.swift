// Laying out text: lines, font fallback per character, shaping by HarfBuzz, positions. The
// result is plain data (glyph ids and positions) that drawing and measuring read.

import CFreeType
import CHarfBuzz

/// Text shaped and positioned, ready to measure or draw, as Core Text's `CTLine` (several
/// lines when the text holds line breaks): each character is given a font (the style's, or a
/// fallback fontconfig finds when that font lacks it), each stretch of one font is shaped by
/// HarfBuzz (kerning, ligatures, Arabic joining and right-to-left order, Indic conjuncts), and
/// the glyphs are placed along baselines.
///
/// ```swift
/// let font = try Font(name: "DejaVu Sans", size: 40)
/// let line = TextLayout("AVATAR", font: font)
/// print(line.advance, line.ascent, line.descent)     // typographic size, in pixels
/// canvas.drawText(line, at: Point(x: 10, y: 10 + line.ascent))
/// ```
///
/// **Coordinates.** Pixels, y down, with the origin at the left end of the first line's
/// baseline: glyphs above the baseline have negative y. `typographicBounds` is
/// `(0, -ascent, advance, height)`.
///
/// **Lines.** `\n`, `\r\n`, `\r` and U+2028 start a new line; lines are aligned left, each
/// baseline `descent + leading` of the line above plus `ascent` of its own below the previous.
///
/// **Direction.** HarfBuzz orders the glyphs of each shaped stretch (right to left for Arabic
/// or Hebrew). Stretches of a line are placed left to right in reading order, or right to left
/// when the line's first strong character is right-to-left; there is no full Unicode
/// bidirectional algorithm (numbers inside right-to-left text, nested embeddings), and no
/// vertical text. Docs/Text.md lists what is supported.
///
/// - Complexity: O(n) in the number of characters, plus one fontconfig query per character
///   a font lacks (cached per font and character).
public struct TextLayout: Sendable {
    /// One placed glyph.
    public struct Glyph: Sendable, Hashable {
        /// The glyph's id in its font (not a Unicode value).
        public let id: Int
        /// The index, in Unicode scalars of the whole text, of the first character this glyph
        /// comes from (HarfBuzz's cluster): glyphs of a ligature or conjunct share it.
        public let cluster: Int
        /// The glyph's origin on its baseline, in layout coordinates (pixels, y down).
        public let position: Point
        /// How far the pen moved after this glyph, in pixels (with kerning and extra spacing).
        public let advance: Double
        /// The font the glyph comes from: the style's, or the fallback chosen for its character.
        public let font: Font
        /// The fill color of its style.
        public let color: Color
    }

    /// The glyphs in visual order, line by line.
    public let glyphs: [Glyph]
    /// The width of the widest line, in pixels: the sum of its glyphs' advances.
    public let advance: Double
    /// Above the first baseline, in pixels: the largest ascent of the fonts on the first line.
    public let ascent: Double
    /// Below the last baseline, in pixels: the largest descent of the fonts on the last line.
    public let descent: Double
    /// The baselines' y, one per line, the first at 0.
    public let baselines: [Double]

    /// The height from the top of the first line to the bottom of the last: `ascent +
    /// descent` for one line.
    public var height: Double { ascent + (baselines.last ?? 0) + descent }

    /// The rectangle the lines take, as Core Text's typographic bounds: `(0, -ascent,
    /// advance, height)` in layout coordinates.
    public var typographicBounds: Rect { Rect(x: 0, y: -ascent, width: advance, height: height) }

    /// True when there are no glyphs.
    public var isEmpty: Bool { glyphs.isEmpty }

    /// `string` in `font` and `color`.
    public init(_ string: String, font: Font, color: Color = .white) {
        self.init(StyledText(string, style: TextStyle(font: font, color: color)))
    }

    /// Styled text laid out; empty text gives no glyphs, zero advance and zero height.
    public init(_ text: StyledText) {
        let r = _TextShaper.layout(text)
        glyphs = r.glyphs
        advance = r.advance
        ascent = r.ascent
        descent = r.descent
        baselines = r.baselines
    }

    /// The outlines of all glyphs as one path, in layout coordinates moved by `origin` (as
    /// `CTFontCreatePathForGlyph` for every glyph), filled non-zero. Outlines are the font's
    /// own, unhinted, scaled to the size.
    public func path(at origin: Point = .zero) -> Path {
        var path = Path()
        for g in glyphs { path.addPath(outline(of: g, at: origin)) }
        return path
    }

    /// The outline of one glyph, placed at its position plus `origin`.
    public func outline(of glyph: Glyph, at origin: Point = .zero) -> Path {
        let contours = _FontEngine.withFaces { s in
            (try? _FontEngine.face(glyph.font.key, in: &s))?.outline(of: UInt32(glyph.id)) ?? []
        }
        let k = glyph.font.scale
        let ox = origin.x + glyph.position.x, oy = origin.y + glyph.position.y
        func map(_ p: Point) -> Point { Point(x: ox + p.x * k, y: oy - p.y * k) }
        var path = Path()
        for c in contours {
            path.move(to: map(c.start))
            for s in c.segments {
                switch s {
                case .line(let p): path.addLine(to: map(p))
                case .quad(let c, let p): path.addQuadCurve(to: map(p), control: map(c))
                case .cubic(let c1, let c2, let p): path.addCurve(to: map(p), control1: map(c1), control2: map(c2))
                }
            }
            path.closeSubpath()
        }
        return path
    }

    /// The bounds of the ink (the glyph outlines, curves flattened to within 0.01 pixel), in
    /// layout coordinates; `Rect.empty` when no glyph has an outline.
    public var inkBounds: Rect {
        var minX = Double.infinity, minY = Double.infinity, maxX = -Double.infinity, maxY = -Double.infinity
        for sub in path().flattened(tolerance: 0.01) {
            for p in sub.points {
                minX = Swift.min(minX, p.x); maxX = Swift.max(maxX, p.x)
                minY = Swift.min(minY, p.y); maxY = Swift.max(maxY, p.y)
            }
        }
        guard minX <= maxX, minY <= maxY else { return .empty }
        return Rect(x: minX, y: minY, width: maxX - minX, height: maxY - minY)
    }
}

/// The shaping engine behind `TextLayout`.
enum _TextShaper {
    struct Result {
        var glyphs: [TextLayout.Glyph] = []
        var advance = 0.0, ascent = 0.0, descent = 0.0
        var baselines: [Double] = []
    }

    /// A stretch of one style and one face.
    struct Item {
        var style: Int
        var face: _FontFace
        var range: Range<Int>  // indices into the line's scalars
    }

    static func layout(_ text: StyledText) -> Result {
        var result = Result()
        guard !text.isEmpty else { return result }
        // The scalars with their style index, split into lines.
        var lines: [[(scalar: Unicode.Scalar, style: Int, index: Int)]] = [[]]
        var lineStyles: [Int] = [0]
        var index = 0
        var previousCR = false
        for (s, run) in text.runs.enumerated() {
            for u in run.text.unicodeScalars {
                defer { index += 1 }
                if u == "\n" && previousCR {
                    previousCR = false
                    continue
                }
                previousCR = u == "\r"
                if u == "\n" || u == "\r" || u == "\u{2028}" {
                    lines.append([])
                    lineStyles.append(s)
                    continue
                }
                if lines[lines.count - 1].isEmpty { lineStyles[lines.count - 1] = s }
                lines[lines.count - 1].append((u, s, index))
            }
        }
        let styles = text.runs.map(\.style)
        _FontEngine.withFaces { s in
            var baseline = 0.0
            var previousDescentAndLeading = 0.0
            for (n, line) in lines.enumerated() {
                var lineAscent = 0.0, lineDescent = 0.0, lineLeading = 0.0
                func account(_ font: Font) {
                    lineAscent = Swift.max(lineAscent, font.ascent)
                    lineDescent = Swift.max(lineDescent, font.descent)
                    lineLeading = Swift.max(lineLeading, font.lineHeight - font.ascent - font.descent)
                }
                account(styles[lineStyles[n]].font)
                let items = itemize(line.map(\.scalar), styles: line.map(\.style), styleList: styles, in: &s)
                let scalars = line.map(\.scalar.value)
                var ordered = items
                if firstStrongIsRightToLeft(line.map(\.scalar)) { ordered.reverse() }
                if n > 0 { baseline += previousDescentAndLeading }
                var pieces: [TextLayout.Glyph] = []
                var pen = 0.0
                for item in ordered {
                    let style = styles[item.style]
                    let font = Font(face: item.face, size: style.font.size)
                    account(font)
                    let shaped = shape(scalars, range: item.range, face: item.face)
                    let k = font.scale
                    for g in shaped {
                        let advance = Double(g.xAdvance) * k + (g.xAdvance != 0 ? style.kerning : 0)
                        pieces.append(
                            TextLayout.Glyph(
                                id: Int(g.id), cluster: line[g.cluster].index,
                                position: Point(x: pen + Double(g.xOffset) * k, y: -Double(g.yOffset) * k),
                                advance: advance, font: font, color: style.color))
                        pen += advance
                    }
                }
                if n > 0 { baseline += lineAscent }
                for g in pieces {
                    result.glyphs.append(
                        TextLayout.Glyph(
                            id: g.id, cluster: g.cluster, position: Point(x: g.position.x, y: g.position.y + baseline),
                            advance: g.advance, font: g.font, color: g.color))
                }
                if n == 0 { result.ascent = lineAscent }
                result.baselines.append(baseline)
                result.advance = Swift.max(result.advance, pen)
                result.descent = lineDescent
                previousDescentAndLeading = lineDescent + lineLeading
            }
        }
        return result
    }

    /// Splits a line into stretches of one style and one face. A character takes the face of
    /// the stretch before it when that face has it and it is a mark, a format character,
    /// white space or punctuation, or when that face is the style's own; otherwise the style's
    /// face when it has the character, else the fallback fontconfig finds (else the style's
    /// face, which draws its `.notdef` glyph).
    static func itemize(
        _ scalars: [Unicode.Scalar], styles: [Int], styleList: [TextStyle], in s: inout _FontEngineState
    ) -> [Item] {
        var items: [Item] = []
        var primaries: [Int: _FontFace] = [:]
        for (i, u) in scalars.enumerated() {
            let st = styles[i]
            let primary: _FontFace
            if let p = primaries[st] {
                primary = p
            } else if let p = try? _FontEngine.face(styleList[st].font.key, in: &s) {
                primaries[st] = p
                primary = p
            } else {
                continue
            }
            var face = primary
            if let last = items.last, last.style == st, last.face !== primary, last.face.glyph(for: u) != nil,
                inheritsFace(u)
            {
                face = last.face
            } else if primary.glyph(for: u) == nil, !isIgnorable(u),
                let fallback = _FontEngine.fallback(for: u, from: primary, in: &s)
            {
                face = fallback
            }
            if let last = items.last, last.style == st, last.face === face, last.range.upperBound == i {
                items[items.count - 1].range = last.range.lowerBound..<(i + 1)
            } else {
                items.append(Item(style: st, face: face, range: i..<(i + 1)))
            }
        }
        return items
    }

    /// Marks, joiners and other format characters, white space and punctuation: characters
    /// that stay in the face of the text around them.
    static func inheritsFace(_ u: Unicode.Scalar) -> Bool {
        switch u.properties.generalCategory {
        case .nonspacingMark, .spacingMark, .enclosingMark, .format, .spaceSeparator, .connectorPunctuation,
            .dashPunctuation, .openPunctuation, .closePunctuation, .initialPunctuation, .finalPunctuation,
            .otherPunctuation:
            return true
        default:
            return u == " " || u == "\t"
        }
    }

    /// Characters no font needs to have (joiners, variation selectors): never a reason to look
    /// for a fallback.
    static func isIgnorable(_ u: Unicode.Scalar) -> Bool {
        u.properties.isDefaultIgnorableCodePoint
    }

    /// Whether the first character with a strong direction reads right to left (Hebrew,
    /// Arabic, Syriac, Thaana, N'Ko and their presentation forms, and the historic
    /// right-to-left blocks).
    static func firstStrongIsRightToLeft(_ scalars: [Unicode.Scalar]) -> Bool {
        for u in scalars {
            let v = u.value
            if (0x0590...0x08FF).contains(v) || (0xFB1D...0xFDFF).contains(v) || (0xFE70...0xFEFF).contains(v)
                || (0x10800...0x10FFF).contains(v) || (0x1E800...0x1EFFF).contains(v)
            {
                return true
            }
            if u.properties.isAlphabetic { return false }
        }
        return false
    }

    struct Shaped {
        var id: UInt32
        var cluster: Int
        var xAdvance: Int32, xOffset: Int32, yOffset: Int32
    }

    /// HarfBuzz's glyphs for `scalars[range]`, with the rest of the line as context (Arabic
    /// joining across a change of style), direction, script and language guessed from the
    /// text; positions in font units.
    static func shape(_ scalars: [UInt32], range: Range<Int>, face: _FontFace) -> [Shaped] {
        guard let buffer = hb_buffer_create() else { return [] }
        defer { hb_buffer_destroy(buffer) }
        scalars.withUnsafeBufferPointer { p in
            hb_buffer_add_utf32(buffer, p.baseAddress, Int32(p.count), UInt32(range.lowerBound), Int32(range.count))
        }
        hb_buffer_guess_segment_properties(buffer)
        hb_shape(face.hbFont, buffer, nil, 0)
        var count: UInt32 = 0
        guard let infos = hb_buffer_get_glyph_infos(buffer, &count),
            let positions = hb_buffer_get_glyph_positions(buffer, &count)
        else { return [] }
        var out: [Shaped] = []
        out.reserveCapacity(Int(count))
        for i in 0..<Int(count) {
            out.append(
                Shaped(
                    id: infos[i].codepoint, cluster: Int(infos[i].cluster), xAdvance: positions[i].x_advance,
                    xOffset: positions[i].x_offset, yOffset: positions[i].y_offset))
        }
        return out
    }
}
