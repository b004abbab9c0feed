/// How a run of text looks: its font (face and size), fill color and extra spacing, the
/// attributes of an `NSAttributedString` that `CIAttributedTextImageGenerator` reads
/// (`.font`, `.foregroundColor`, `.kern`).
///
/// ```swift
/// let title = TextStyle(font: try Font(name: "DejaVuSans-Bold", size: 32), color: .white)
/// ```
public struct TextStyle: Sendable, Hashable {
    /// The font and size.
    public var font: Font
    /// The fill color of the glyphs (sRGB, straight alpha); black by default, as an
    /// `NSAttributedString` without a foreground color.
    public var color: Color
    /// Extra space added after every glyph that has an advance, in pixels at the font's size
    /// (`NSAttributedString.Key.kern`); 0 by default, negative tightens. It adds to the
    /// font's own kerning, which HarfBuzz always applies.
    public var kerning: Double

    /// A style with `font`, `color` and extra `kerning`.
    public init(font: Font, color: Color = .black, kerning: Double = 0) {
        self.font = font
        self.color = color
        self.kerning = kerning
    }
}

/// Text in runs of styles, as an `NSAttributedString` with font, color and kern attributes:
/// the input of `CIAttributedTextImageGenerator` and `TextLayout`.
///
/// ```swift
/// let regular = try Font(name: "DejaVu Sans", size: 24), bold = try Font(name: "DejaVu Sans:bold", size: 24)
/// var text = StyledText("Pixel", style: TextStyle(font: regular, color: .white))
/// text.append("Flow", style: TextStyle(font: bold, color: Color(red: 1, green: 0.6, blue: 0)))
/// let image = try Image.attributedText(text, scaleFactor: 2)
/// ```
public struct StyledText: Sendable, Hashable, CustomStringConvertible {
    /// A stretch of text in one style.
    public struct Run: Sendable, Hashable {
        /// The characters of the run.
        public var text: String
        /// How they look.
        public var style: TextStyle

        /// A run of `text` in `style`.
        public init(_ text: String, style: TextStyle) {
            self.text = text
            self.style = style
        }
    }

    /// The runs in reading order; empty runs are kept out.
    public private(set) var runs: [Run] = []

    /// Empty text.
    public init() {}

    /// `text` in one style.
    public init(_ text: String, style: TextStyle) {
        append(text, style: style)
    }

    /// Runs in order (empty ones are dropped).
    public init(runs: [Run]) {
        for r in runs { append(r.text, style: r.style) }
    }

    /// Adds `text` in `style` at the end; it joins the last run when the style is the same.
    public mutating func append(_ text: String, style: TextStyle) {
        guard !text.isEmpty else { return }
        if let last = runs.last, last.style == style {
            runs[runs.count - 1].text += text
        } else {
            runs.append(Run(text, style: style))
        }
    }

    /// Adds every run of `other` at the end.
    public mutating func append(_ other: StyledText) {
        for r in other.runs { append(r.text, style: r.style) }
    }

    /// `a` followed by `b`.
    public static func + (a: StyledText, b: StyledText) -> StyledText {
        var out = a
        out.append(b)
        return out
    }

    /// The characters without styles.
    public var string: String { runs.map(\.text).joined() }

    /// True when there are no characters.
    public var isEmpty: Bool { runs.isEmpty }

    /// The characters, as `string`.
    public var description: String { string }
}
