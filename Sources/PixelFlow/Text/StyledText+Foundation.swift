import Foundation

extension StyledText {
    /// The attribute names read from an `NSAttributedString`: the raw values of Apple's
    /// `NSAttributedString.Key.font`, `.foregroundColor` and `.kern`, which Foundation on Linux
    /// does not declare (it has no `NSFont` or `UIColor`).
    public enum AttributeName {
        /// `"NSFont"`: a PixelFlow ``Font``.
        public static let font = NSAttributedString.Key("NSFont")
        /// `"NSColor"`: a PixelFlow ``Color``.
        public static let foregroundColor = NSAttributedString.Key("NSColor")
        /// `"NSKern"`: extra spacing in pixels, a number.
        public static let kern = NSAttributedString.Key("NSKern")
    }

    /// The runs of an `NSAttributedString`, as `CIAttributedTextImageGenerator` reads it:
    /// each range's ``AttributeName/font`` (a `Font`), ``AttributeName/foregroundColor`` (a
    /// `Color`) and ``AttributeName/kern`` (a number) replace those of `defaultStyle`; other
    /// attributes, and values of other types, are ignored.
    ///
    /// ```swift
    /// let s = NSMutableAttributedString(string: "Hello")
    /// s.addAttribute(StyledText.AttributeName.foregroundColor, value: Color.red, range: NSRange(location: 0, length: 1))
    /// let text = StyledText(s, defaultStyle: TextStyle(font: try Font(size: 24), color: .white))
    /// ```
    public init(_ attributed: NSAttributedString, defaultStyle: TextStyle) {
        self.init()
        let string = attributed.string
        var pieces: [(String, TextStyle)] = []
        attributed.enumerateAttributes(in: NSRange(location: 0, length: attributed.length)) { attributes, range, _ in
            guard let r = Range(range, in: string) else { return }
            var style = defaultStyle
            if let f = attributes[AttributeName.font] as? Font { style.font = f }
            if let c = attributes[AttributeName.foregroundColor] as? Color { style.color = c }
            if let k = attributes[AttributeName.kern] as? Double {
                style.kerning = k
            } else if let k = attributes[AttributeName.kern] as? Int {
                style.kerning = Double(k)
            }
            pieces.append((String(string[r]), style))
        }
        for (text, style) in pieces { append(text, style: style) }
    }
}
