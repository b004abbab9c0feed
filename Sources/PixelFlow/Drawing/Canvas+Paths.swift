// Filling and stroking `Path`s: curves flattened to within 0.01 pixel after the transform,
// strokes outlined per subpath (dashes first), all through the canvas's coverage rasterizer.

extension Canvas {
    /// Fills every subpath of `path` (each closed implicitly) with `color` under `rule`, as
    /// `CGContext.fillPath(using:)`, with the current transform, alpha, blend mode and clip.
    public mutating func fill(_ path: Path, rule: FillRule = .nonZero, color: Color) {
        let contours = path.flattened(tolerance: tolerance).map(\.points).filter { $0.count >= 3 }
        _fill(contours.map(mapped), rule: rule, color: color)
    }

    /// Strokes the outline of every subpath of `path` with `style` (width, caps, joins, miter
    /// limit, dashes), as `CGContext.strokePath()`. Closed subpaths join their last point to
    /// the first; dashes are laid along each subpath from its start, offset by the phase.
    /// A width or miter limit that is not finite and positive draws nothing.
    public mutating func stroke(_ path: Path, style: StrokeStyle = StrokeStyle(), color: Color) {
        guard style.width.isFinite, style.width > 0, style.miterLimit.isFinite else { return }
        var contours: [[Point]] = []
        for sub in path.flattened(tolerance: tolerance) {
            for piece in style.dashed(sub.points, closed: sub.closed) {
                contours += _Flatten.stroke(
                    piece.points, closed: piece.closed, width: style.width, cap: style.cap, join: style.join,
                    miterLimit: style.miterLimit, tolerance: tolerance)
            }
        }
        _fill(contours.map(mapped), rule: .nonZero, color: color)
    }

    /// Fills `path` with `fillColor` under `rule`, as `CGContext.fillPath(using:)`.
    public mutating func fill(_ path: Path, rule: FillRule = .nonZero) {
        fill(path, rule: rule, color: fillColor)
    }

    /// Strokes `path` with `strokeColor` and `lineStyle`, as `CGContext.strokePath()`.
    public mutating func stroke(_ path: Path) {
        stroke(path, style: lineStyle, color: strokeColor)
    }
}
