import PixelFlow

/// A 5 x 7 pixel font for the gallery's labels, drawn with `Canvas` as one square per lit
/// font pixel: capitals, digits and a few signs (lower-case letters are drawn as capitals,
/// anything else as `?`). The glyphs are `TinyGlyphs` (PixelFlow, `package`), which the
/// examples' `TinyFont` draws too.
enum GalleryFont {
    /// Glyph width and height in font pixels; characters advance by `width + 1`.
    static let width = TinyGlyphs.width, height = TinyGlyphs.height

    /// The width in pixels of `text` at `scale`.
    static func measure(_ text: String, scale: Int = 1) -> Int { max(0, text.count * (width + 1) - 1) * scale }

    /// `text` cut to at most `maximumWidth` pixels at `scale`, ending in `..` when cut.
    static func fitted(_ text: String, maximumWidth: Int, scale: Int = 1) -> String {
        if measure(text, scale: scale) <= maximumWidth { return text }
        let characters = max(0, (maximumWidth / scale + 1) / (width + 1) - 2)
        return String(text.prefix(characters)) + ".."
    }

    /// Draws `text` with its top-left corner at `(x, y)`, each font pixel `scale` pixels wide.
    static func draw(_ text: String, x: Int, y: Int, scale: Int = 1, color: Color, on canvas: inout Canvas) {
        TinyGlyphs.draw(text, x: Double(x), y: Double(y), scale: Double(scale), color: color, on: &canvas)
    }
}
