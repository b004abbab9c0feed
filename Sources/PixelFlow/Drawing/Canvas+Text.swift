// Drawing text: glyph outlines from FreeType, shaped and placed by `TextLayout`, filled by the
// same coverage rasterizer as every path (so the transform, clip, alpha and blend mode apply
// to text as to any shape).

extension Canvas {
    /// Draws `layout` with its first baseline starting at `origin` (drawing coordinates), as
    /// `CTLineDraw` at the text position: the glyph outlines of each color are filled
    /// together (non-zero), so glyphs that touch or overlap (joined Arabic letters) are
    /// covered once, with the current transform, alpha, blend mode and clip.
    ///
    /// - Complexity: O(outline length in pixels + covered area) per color, as `fill(_:rule:color:)`.
    public mutating func drawText(_ layout: TextLayout, at origin: Point) {
        guard origin.x.isFinite, origin.y.isFinite else { return }
        var colors: [Color] = []
        var paths: [Color: Path] = [:]
        for g in layout.glyphs {
            if paths[g.color] == nil {
                colors.append(g.color)
                paths[g.color] = Path()
            }
            paths[g.color]!.addPath(layout.outline(of: g, at: origin))
        }
        for c in colors { fill(paths[c]!, rule: .nonZero, color: c) }
    }

    /// Draws `string` in `font` and `color` with its first baseline starting at `origin`, as
    /// `CGContext.showText` at the text position (for `NSString.draw(at:)`'s top-left corner,
    /// add `font.ascent` to y).
    public mutating func drawText(_ string: String, at origin: Point, font: Font, color: Color) {
        drawText(TextLayout(string, font: font, color: color), at: origin)
    }

    /// Draws styled text with its first baseline starting at `origin`.
    public mutating func drawText(_ text: StyledText, at origin: Point) {
        drawText(TextLayout(text), at: origin)
    }
}
