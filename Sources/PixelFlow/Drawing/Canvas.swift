#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Draws anti-aliased shapes and images into a `PixelBuffer`, as a Core Graphics context
/// does: lines, rectangles, rounded rectangles, ellipses, polygons and `Path`s of Bézier
/// curves and arcs, filled (non-zero or even-odd) or stroked (`StrokeStyle`: caps, joins,
/// miter limit, dashes); images drawn into rects; a global `alpha`, 28 `blendMode`s, clipping
/// to rects and paths, and `saveState()` / `restoreState()` of all of these.
///
/// ```swift
/// var canvas = try Canvas(width: 320, height: 240)          // a transparent layer
/// canvas.fillRect(Rect(x: 10.5, y: 20.25, width: 100, height: 60), color: .white)
/// canvas.strokeLine(from: Point(x: 0, y: 0), to: Point(x: 319, y: 239), width: 3,
///                   cap: .round, color: Color(red: 1, green: 0, blue: 0, alpha: 0.5))
/// let annotated = canvas.composited(over: photo)             // an Image, still lazy
/// ```
///
/// **Coverage.** Every shape is turned into closed polygons (curves flattened to within
/// 0.01 pixel, strokes into quads, joins and caps) and rasterized with the exact area of the
/// polygon inside each pixel (`_ScanlineRasterizer`), then clipped to the buffer. Pieces of
/// one stroke that overlap inside a single pixel (the inner side of a join) may be slightly
/// overestimated there; everything else is exact up to rounding.
///
/// **Color.** Compositing happens in linear light, premultiplied, in `Float`, as in the
/// render pipeline: the touched pixels are decoded from the buffer's format and encoding,
/// blended with the source by the blend mode (source-over by default), weighed by the
/// coverage (times the clip), and encoded back. `Color` is
/// sRGB-encoded and straight (as everywhere in PixelFlow). Pixels a shape does not touch are
/// left bit for bit as they were.
///
/// **Coordinates.** Image coordinates: origin at the top-left, y down; pixel `(x, y)` covers
/// `[x, x+1) x [y, y+1)`, so a pixel center is at `(x + 0.5, y + 0.5)`. `transform` maps
/// drawing coordinates to buffer coordinates (stroke widths are transformed with the shape).
///
/// **Invalid input.** A shape with a NaN or infinite coordinate, size, radius or width, or an
/// invalid color, draws nothing (it does not throw or trap). Degenerate shapes (empty rects,
/// zero radii, polygons with fewer than three points, zero-length butt lines) draw nothing.
///
/// - Complexity: per shape, O(perimeter in pixels + bounding-box area clipped to the buffer),
///   with one row of scratch pixels and (box width + 2) x box height scratch doubles.
public struct Canvas: Sendable {
    /// The pixels drawn so far.
    public internal(set) var buffer: PixelBuffer
    /// Maps drawing coordinates to buffer pixel coordinates; identity by default.
    public var transform: AffineTransform = .identity
    /// The global alpha, 0...1, multiplying everything drawn (`CGContext.setAlpha`); 1 by
    /// default. Values outside are clamped; NaN draws nothing.
    public var alpha: Double = 1
    /// How drawn pixels combine with those already there; `.normal` (source-over) by default.
    public var blendMode: BlendMode = .normal
    /// The color `fill(_:rule:)` uses (`CGContext.setFillColor`); opaque black by default.
    public var fillColor: Color = Color(red: 0, green: 0, blue: 0)
    /// The color `stroke(_:)` uses (`CGContext.setStrokeColor`); opaque black by default.
    public var strokeColor: Color = Color(red: 0, green: 0, blue: 0)
    /// The line settings `stroke(_:)` uses (`setLineWidth`, `setLineCap`, `setLineJoin`,
    /// `setMiterLimit`, `setLineDash`); Core Graphics' defaults.
    public var lineStyle = StrokeStyle()
    /// The states `saveState()` pushed.
    var _savedStates: [GraphicsState] = []
    /// The clip as a coverage per buffer pixel (row-major), nil when nothing is clipped.
    var _clip: [Float]?

    /// A canvas that draws into `buffer` (any format; gray formats store the luma).
    public init(buffer: PixelBuffer) {
        self.buffer = buffer
    }

    /// A transparent layer of `width` x `height` pixels, `rgbaF32` in the working space
    /// (linear, premultiplied), to draw on and composite over an image with `composited(over:)`.
    ///
    /// - Throws: `PixelFlowError.invalidDimensions` for a non-positive or too large size.
    public init(width: Int, height: Int) throws {
        buffer = try PixelBuffer(width: width, height: height, format: .rgbaF32)
    }

    /// The drawing as an image, with its top-left corner at the origin.
    public var image: Image { Image(buffer) }

    /// The drawing placed over `background` (source-over); nothing is rendered until asked.
    public func composited(over background: Image) -> Image {
        image.composited(over: background)
    }

    // MARK: Filling

    /// Fills closed polygons (each contour is closed implicitly) with `color` under `rule`.
    /// Contours with fewer than three points add nothing.
    public mutating func fill(_ contours: [[Point]], rule: FillRule = .nonZero, color: Color) {
        _fill(contours.filter { $0.count >= 3 }.map(mapped), rule: rule, color: color)
    }

    /// Fills one closed polygon.
    public mutating func fillPolygon(_ points: [Point], rule: FillRule = .nonZero, color: Color) {
        fill([points], rule: rule, color: color)
    }

    /// Fills a rectangle; its edges may be anywhere, coverage at fractional edges is exact.
    public mutating func fillRect(_ rect: Rect, color: Color) {
        guard _valid(rect) else { return }
        fill([_Flatten.roundedRect(rect, radius: 0, tolerance: tolerance)], color: color)
    }

    /// Fills a rectangle with circular corners of `cornerRadius` (clamped to half the sides).
    public mutating func fillRoundedRect(_ rect: Rect, cornerRadius: Double, color: Color) {
        guard _valid(rect), cornerRadius.isFinite else { return }
        fill([_Flatten.roundedRect(rect, radius: cornerRadius, tolerance: tolerance)], color: color)
    }

    /// Fills the ellipse inscribed in `rect`.
    public mutating func fillEllipse(in rect: Rect, color: Color) {
        guard _valid(rect) else { return }
        fill(
            [
                _Flatten.ellipse(
                    center: Point(x: rect.midX, y: rect.midY), rx: rect.width / 2,
                    ry: rect.height / 2, tolerance: tolerance)
            ], color: color)
    }

    /// Fills a disc.
    public mutating func fillCircle(center: Point, radius: Double, color: Color) {
        guard radius.isFinite, radius > 0 else { return }
        fillEllipse(in: Rect(x: center.x - radius, y: center.y - radius, width: 2 * radius, height: 2 * radius), color: color)
    }

    // MARK: Stroking

    /// Strokes the segment from `start` to `end` with a line `width` pixels wide. A
    /// zero-length line draws a disc (round cap), a square (square cap) or nothing (butt).
    public mutating func strokeLine(from start: Point, to end: Point, width: Double, cap: LineCap = .butt, color: Color) {
        strokePolyline([start, end], width: width, cap: cap, color: color)
    }

    /// Strokes the segments joining `points` in order; `closed` joins the last to the first.
    ///
    /// - Parameters:
    ///   - miterLimit: for `.miter` joins, the longest miter in half-widths before
    ///   - points: the polyline's vertices, in pixels.
    ///   - closed: whether to join the last point back to the first.
    ///   - width: the stroke width, in pixels.
    ///   - cap: the shape of open ends (default `.butt`).
    ///   - join: the shape of corners (default `.miter`).
    ///   - color: the stroke colour.
    ///     the join is beveled instead (10 by default, like Core Graphics).
    public mutating func strokePolyline(
        _ points: [Point], closed: Bool = false, width: Double,
        cap: LineCap = .butt, join: LineJoin = .miter,
        miterLimit: Double = 10, color: Color
    ) {
        guard width.isFinite, width > 0, miterLimit.isFinite,
            points.allSatisfy({ $0.x.isFinite && $0.y.isFinite })
        else { return }
        let contours = _Flatten.stroke(
            points, closed: closed, width: width, cap: cap, join: join,
            miterLimit: miterLimit, tolerance: tolerance)
        _fill(contours.map(mapped), rule: .nonZero, color: color)
    }

    /// Strokes the outline of a closed polygon.
    public mutating func strokePolygon(
        _ points: [Point], width: Double, join: LineJoin = .miter,
        miterLimit: Double = 10, color: Color
    ) {
        strokePolyline(points, closed: true, width: width, join: join, miterLimit: miterLimit, color: color)
    }

    /// Strokes a rectangle's outline, centered on its edges (mitered corners).
    public mutating func strokeRect(_ rect: Rect, width: Double, color: Color) {
        strokeRoundedRect(rect, cornerRadius: 0, width: width, color: color)
    }

    /// Strokes a rounded rectangle's outline, centered on its edges: the region between the
    /// rounded rectangle grown by half the width (corner radius + width/2) and the one shrunk
    /// by it (corner radius - width/2, square when negative).
    public mutating func strokeRoundedRect(_ rect: Rect, cornerRadius: Double, width: Double, color: Color) {
        guard _valid(rect, allowEmpty: true), cornerRadius.isFinite, width.isFinite, width > 0 else { return }
        let h = width / 2, r = Swift.max(0, Swift.min(cornerRadius, rect.width / 2, rect.height / 2))
        let outer = rect.insetBy(dx: -h, dy: -h)
        var contours = [_Flatten.oriented(_Flatten.roundedRect(outer, radius: r > 0 ? r + h : 0, tolerance: tolerance))]
        let inner = rect.insetBy(dx: h, dy: h)
        if inner.width > 0, inner.height > 0 {
            contours.append(_Flatten.oriented(_Flatten.roundedRect(inner, radius: r - h, tolerance: tolerance), positive: false))
        }
        fill(contours, rule: .nonZero, color: color)
    }

    /// Strokes the outline of the ellipse inscribed in `rect`, centered on it: the region
    /// between its offset curves at +-width/2 (exact while width/2 is below the smallest
    /// radius of curvature, min(rx, ry)^2 / max(rx, ry)).
    public mutating func strokeEllipse(in rect: Rect, width: Double, color: Color) {
        guard _valid(rect, allowEmpty: true), width.isFinite, width > 0 else { return }
        let h = width / 2, rx = rect.width / 2, ry = rect.height / 2
        let c = Point(x: rect.midX, y: rect.midY)
        if rx <= 0 || ry <= 0 {
            // A flat ellipse is a line traced back and forth.
            strokeLine(
                from: Point(x: rect.minX, y: rect.minY), to: Point(x: rect.maxX, y: rect.maxY), width: width, cap: .round,
                color: color)
            return
        }
        if h >= Swift.min(rx, ry) {
            fillEllipse(in: rect.insetBy(dx: -h, dy: -h), color: color)
            return
        }
        // Offset curves along the ellipse's normals.
        let n = Swift.max(16, _Flatten.segments(radius: Swift.max(rx, ry) + h, sweep: 2 * Double.pi, tolerance: tolerance))
        var outer: [Point] = [], inner: [Point] = []
        for i in 0..<n {
            let t = 2 * Double.pi * Double(i) / Double(n)
            let px = rx * cos(t), py = ry * sin(t)
            var nx = ry * cos(t), ny = rx * sin(t)
            let l = (nx * nx + ny * ny).squareRoot()
            nx /= l; ny /= l
            outer.append(Point(x: c.x + px + nx * h, y: c.y + py + ny * h))
            inner.append(Point(x: c.x + px - nx * h, y: c.y + py - ny * h))
        }
        fill([_Flatten.oriented(outer), _Flatten.oriented(inner, positive: false)], rule: .nonZero, color: color)
    }

    /// Strokes a circle of `radius` around `center`.
    public mutating func strokeCircle(center: Point, radius: Double, width: Double, color: Color) {
        guard radius.isFinite, radius >= 0 else { return }
        strokeEllipse(
            in: Rect(x: center.x - radius, y: center.y - radius, width: 2 * radius, height: 2 * radius),
            width: width, color: color)
    }

    /// Replaces every pixel with `color` (no compositing).
    public mutating func clear(to color: Color = .clear) {
        guard color.isFinite else { return }
        let w = buffer.width
        let row = UnsafeMutablePointer<SIMD4<Float>>.allocate(capacity: 2 * w)
        defer { row.deallocate() }
        row.update(repeating: color.working(linear: true), count: w)
        _fromWorking(row, w)
        let fmt = buffer.format, decodes = _storeEncodes
        buffer.withUnsafeMutableRows { _, p in
            storeRowRGBA(row, count: w, format: fmt, into: p, encodeSRGB: decodes, scratch: row + w)
        }
    }
}
