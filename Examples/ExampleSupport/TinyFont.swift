import PixelFlow

/// A 5x7 pixel font for short labels (contact sheets, frame numbers), drawn with `Canvas`
/// as one small square per lit font pixel. Upper-case letters, digits and a few signs;
/// lower-case letters are drawn as capitals and unknown characters as `?`.
///
/// ```swift
/// var canvas = Canvas(buffer: sheet)
/// TinyFont.draw("1 SEPIA TONE", at: Point(x: 8, y: 8), scale: 2, color: .white, on: &canvas)
/// ```
public enum TinyFont {
    /// Glyph width and height in font pixels; characters advance by `width + 1`.
    public static let width = TinyGlyphs.width, height = TinyGlyphs.height

    /// The width in buffer pixels of `text` at `scale`.
    public static func measure(_ text: String, scale: Double = 1) -> Double {
        Double(max(0, text.count * (width + 1) - 1)) * scale
    }

    /// Draws `text` with its top-left corner at `origin`, each font pixel `scale` pixels wide.
    public static func draw(_ text: String, at origin: Point, scale: Double = 1, color: Color, on canvas: inout Canvas) {
        TinyGlyphs.draw(text, x: origin.x, y: origin.y, scale: scale, color: color, on: &canvas)
    }
}
