#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A shape made of subpaths of lines, quadratic and cubic Bézier curves and arcs, as
/// `CGMutablePath` builds them, for `Canvas.fill(_:rule:color:)`,
/// `Canvas.stroke(_:style:color:)` and `Canvas.clip(to:rule:)`.
///
/// ```swift
/// var heart = Path()
/// heart.move(to: Point(x: 50, y: 30))
/// heart.addCurve(to: Point(x: 50, y: 90), control1: Point(x: 90, y: 0), control2: Point(x: 100, y: 60))
/// heart.addCurve(to: Point(x: 50, y: 30), control1: Point(x: 0, y: 60), control2: Point(x: 10, y: 0))
/// heart.closeSubpath()
/// canvas.fill(heart, color: Color(red: 0.9, green: 0.1, blue: 0.2, alpha: 1))
/// ```
///
/// Coordinates are image coordinates (origin top-left, y down). Angles of arcs are in radians
/// from the +x axis toward +y, so increasing angles turn clockwise on screen.
public struct Path: Sendable, Hashable {
    /// One drawing command.
    public enum Element: Sendable, Hashable {
        /// Starts a new subpath at a point.
        case move(Point)
        /// A straight line from the current point.
        case line(Point)
        /// A quadratic Bézier curve from the current point.
        case quadCurve(to: Point, control: Point)
        /// A cubic Bézier curve from the current point.
        case curve(to: Point, control1: Point, control2: Point)
        /// Closes the subpath with a line back to its start.
        case close
    }

    /// The commands in order.
    public private(set) var elements: [Element] = []

    /// An empty path.
    public init() {}

    /// True when the path has no commands.
    public var isEmpty: Bool { elements.isEmpty }

    /// Where the next command starts: the last point drawn to (after `closeSubpath()`, the
    /// subpath's start); nil for an empty path.
    public var currentPoint: Point? {
        var start: Point?
        var current: Point?
        for e in elements {
            switch e {
            case .move(let p):
                start = p
                current = p
            case .line(let p), .quadCurve(let p, _), .curve(let p, _, _): current = p
            case .close: current = start
            }
        }
        return current
    }

    /// Starts a new subpath at `point`.
    public mutating func move(to point: Point) { elements.append(.move(point)) }

    /// Adds a line to `point` (a new subpath starting there when the path is empty).
    public mutating func addLine(to point: Point) {
        elements.append(currentPoint == nil ? .move(point) : .line(point))
    }

    /// Adds a quadratic Bézier curve to `point` with one control point.
    public mutating func addQuadCurve(to point: Point, control: Point) {
        if currentPoint == nil { elements.append(.move(control)) }
        elements.append(.quadCurve(to: point, control: control))
    }

    /// Adds a cubic Bézier curve to `point` with two control points.
    public mutating func addCurve(to point: Point, control1: Point, control2: Point) {
        if currentPoint == nil { elements.append(.move(control1)) }
        elements.append(.curve(to: point, control1: control1, control2: control2))
    }

    /// Closes the current subpath with a line back to its start.
    public mutating func closeSubpath() {
        if !elements.isEmpty, elements.last != .close { elements.append(.close) }
    }

    /// Adds a closed rectangle, clockwise on screen from its top-left corner.
    public mutating func addRect(_ rect: Rect) {
        move(to: Point(x: rect.minX, y: rect.minY))
        elements.append(.line(Point(x: rect.maxX, y: rect.minY)))
        elements.append(.line(Point(x: rect.maxX, y: rect.maxY)))
        elements.append(.line(Point(x: rect.minX, y: rect.maxY)))
        elements.append(.close)
    }

    /// The four-Bézier approximation of a quarter ellipse's control distance (radius 1).
    static let kappa = 4.0 / 3.0 * (2.0.squareRoot() - 1)

    /// Adds a closed ellipse inscribed in `rect`, four cubic Béziers clockwise on screen from
    /// the right end (Core Graphics' construction; the area is within 0.03% of pi rx ry).
    public mutating func addEllipse(in rect: Rect) {
        let rx = rect.width / 2, ry = rect.height / 2, cx = rect.midX, cy = rect.midY
        let kx = rx * Path.kappa, ky = ry * Path.kappa
        move(to: Point(x: cx + rx, y: cy))
        elements.append(
            .curve(to: Point(x: cx, y: cy + ry), control1: Point(x: cx + rx, y: cy + ky), control2: Point(x: cx + kx, y: cy + ry))
        )
        elements.append(
            .curve(to: Point(x: cx - rx, y: cy), control1: Point(x: cx - kx, y: cy + ry), control2: Point(x: cx - rx, y: cy + ky))
        )
        elements.append(
            .curve(to: Point(x: cx, y: cy - ry), control1: Point(x: cx - rx, y: cy - ky), control2: Point(x: cx - kx, y: cy - ry))
        )
        elements.append(
            .curve(to: Point(x: cx + rx, y: cy), control1: Point(x: cx + kx, y: cy - ry), control2: Point(x: cx + rx, y: cy - ky))
        )
        elements.append(.close)
    }

    /// Adds a closed rounded rectangle with corners of `cornerWidth` x `cornerHeight` radii
    /// (each clamped to half the side), quarter ellipses drawn as cubic Béziers.
    public mutating func addRoundedRect(in rect: Rect, cornerWidth: Double, cornerHeight: Double) {
        let rx = Swift.max(0, Swift.min(cornerWidth, rect.width / 2)), ry = Swift.max(0, Swift.min(cornerHeight, rect.height / 2))
        let kx = rx * (1 - Path.kappa), ky = ry * (1 - Path.kappa)
        let l = rect.minX, r = rect.maxX, t = rect.minY, b = rect.maxY
        move(to: Point(x: l + rx, y: t))
        elements.append(.line(Point(x: r - rx, y: t)))
        elements.append(.curve(to: Point(x: r, y: t + ry), control1: Point(x: r - kx, y: t), control2: Point(x: r, y: t + ky)))
        elements.append(.line(Point(x: r, y: b - ry)))
        elements.append(.curve(to: Point(x: r - rx, y: b), control1: Point(x: r, y: b - ky), control2: Point(x: r - kx, y: b)))
        elements.append(.line(Point(x: l + rx, y: b)))
        elements.append(.curve(to: Point(x: l, y: b - ry), control1: Point(x: l + kx, y: b), control2: Point(x: l, y: b - ky)))
        elements.append(.line(Point(x: l, y: t + ry)))
        elements.append(.curve(to: Point(x: l + rx, y: t), control1: Point(x: l, y: t + ky), control2: Point(x: l + kx, y: t)))
        elements.append(.close)
    }

    /// Adds an arc of a circle from `startAngle` to `endAngle`, preceded by a line from the
    /// current point to its start (or starting a subpath there), as `CGMutablePath.addArc`.
    /// `clockwise` (on screen, y down) sweeps toward increasing angles; the sweep is at most
    /// one turn. Drawn as cubic Béziers of at most a quarter turn each.
    public mutating func addArc(center: Point, radius: Double, startAngle: Double, endAngle: Double, clockwise: Bool) {
        guard radius.isFinite, startAngle.isFinite, endAngle.isFinite else { return }
        let turn = 2 * Double.pi
        var sweep = endAngle - startAngle
        if clockwise {
            sweep = sweep.truncatingRemainder(dividingBy: turn)
            if sweep < 0 { sweep += turn }
            if sweep == 0 && endAngle != startAngle { sweep = turn }
        } else {
            sweep = sweep.truncatingRemainder(dividingBy: turn)
            if sweep > 0 { sweep -= turn }
            if sweep == 0 && endAngle != startAngle { sweep = -turn }
        }
        func at(_ a: Double) -> Point { Point(x: center.x + radius * cos(a), y: center.y + radius * sin(a)) }
        let start = at(startAngle)
        if currentPoint == nil { move(to: start) } else { elements.append(.line(start)) }
        let pieces = Swift.max(1, Int((abs(sweep) / (Double.pi / 2)).rounded(.up)))
        let step = sweep / Double(pieces)
        // Control distance of a circular arc of angle `step`: 4/3 tan(step/4) r.
        let k = 4.0 / 3.0 * tan(step / 4) * radius
        for i in 0..<pieces {
            let a0 = startAngle + step * Double(i), a1 = a0 + step
            let p0 = at(a0), p1 = at(a1)
            elements.append(
                .curve(
                    to: p1, control1: Point(x: p0.x - k * sin(a0), y: p0.y + k * cos(a0)),
                    control2: Point(x: p1.x + k * sin(a1), y: p1.y - k * cos(a1))))
        }
    }

    /// Adds every subpath of `other`.
    public mutating func addPath(_ other: Path) { elements += other.elements }

    /// The subpaths as polylines within `tolerance` of the curves, each with whether it was
    /// closed. Subpaths with a non-finite coordinate are dropped.
    func flattened(tolerance: Double) -> [(points: [Point], closed: Bool)] {
        var out: [(points: [Point], closed: Bool)] = []
        var points: [Point] = []
        func finish(closed: Bool) {
            // A lone point (a move with nothing after it) draws nothing.
            if points.count >= 2, points.allSatisfy({ $0.x.isFinite && $0.y.isFinite }) { out.append((points, closed)) }
            points = []
        }
        for e in elements {
            switch e {
            case .move(let p):
                finish(closed: false)
                points = [p]
            case .line(let p):
                points.append(p)
            case .quadCurve(let p, let c):
                guard let p0 = points.last else { break }
                let d = Point(x: p0.x - 2 * c.x + p.x, y: p0.y - 2 * c.y + p.y)
                // Chord error of n uniform steps: |p0 - 2c + p| / (4 n^2).
                let n = Path.steps((d.x * d.x + d.y * d.y).squareRoot() / (4 * tolerance))
                for i in 1...n {
                    let t = Double(i) / Double(n), u = 1 - t
                    points.append(
                        Point(x: u * u * p0.x + 2 * u * t * c.x + t * t * p.x, y: u * u * p0.y + 2 * u * t * c.y + t * t * p.y))
                }
            case .curve(let p, let c1, let c2):
                guard let p0 = points.last else { break }
                let a = Point(x: p0.x - 2 * c1.x + c2.x, y: p0.y - 2 * c1.y + c2.y)
                let b = Point(x: c1.x - 2 * c2.x + p.x, y: c1.y - 2 * c2.y + p.y)
                let m = Swift.max((a.x * a.x + a.y * a.y).squareRoot(), (b.x * b.x + b.y * b.y).squareRoot())
                // Second derivative at most 6 m: chord error 6 m / (8 n^2).
                let n = Path.steps(3 * m / (4 * tolerance))
                for i in 1...n {
                    let t = Double(i) / Double(n), u = 1 - t
                    let w0 = u * u * u, w1 = 3 * u * u * t, w2 = 3 * u * t * t, w3 = t * t * t
                    points.append(
                        Point(
                            x: w0 * p0.x + w1 * c1.x + w2 * c2.x + w3 * p.x, y: w0 * p0.y + w1 * c1.y + w2 * c2.y + w3 * p.y))
                }
            case .close:
                let start = points.first
                finish(closed: true)
                if let start { points = [start] }
            }
        }
        finish(closed: false)
        return out
    }

    /// Uniform steps for `squared` = (error with one step) / tolerance: ceil(sqrt), 1...16384.
    static func steps(_ squared: Double) -> Int {
        guard squared.isFinite else { return 1 }
        return Int(Swift.min(16384, Swift.max(1, squared.squareRoot().rounded(.up))))
    }
}

/// How `Canvas.stroke(_:style:color:)` draws a path's outline, as Core Graphics' line
/// settings.
public struct StrokeStyle: Sendable, Hashable {
    /// The line width, in drawing units.
    public var width: Double
    /// The shape of open ends.
    public var cap: LineCap
    /// The shape of corners.
    public var join: LineJoin
    /// For `.miter` joins, the longest miter in half-widths before the join is beveled.
    public var miterLimit: Double
    /// Lengths of alternating dashes and gaps along the path; empty for a solid line.
    public var dash: [Double]
    /// How far into the dash pattern the path starts.
    public var dashPhase: Double

    /// A stroke style; the defaults are Core Graphics' (width 1, butt caps, miter joins, limit
    /// 10, solid).
    public init(
        width: Double = 1, cap: LineCap = .butt, join: LineJoin = .miter, miterLimit: Double = 10,
        dash: [Double] = [], dashPhase: Double = 0
    ) {
        self.width = width
        self.cap = cap
        self.join = join
        self.miterLimit = miterLimit
        self.dash = dash
        self.dashPhase = dashPhase
    }

    /// The pieces of `polyline` that the dash pattern keeps, as open polylines (the whole
    /// polyline when the pattern is empty, has a negative or non-finite length, or sums to 0).
    func dashed(_ polyline: [Point], closed: Bool) -> [(points: [Point], closed: Bool)] {
        let total = dash.reduce(0, +)
        guard !dash.isEmpty, dash.allSatisfy({ $0.isFinite && $0 >= 0 }), total > 0, dashPhase.isFinite else {
            return [(polyline, closed)]
        }
        var pts = polyline
        if closed, let first = pts.first { pts.append(first) }
        // Where in the pattern the path starts.
        var phase = dashPhase.truncatingRemainder(dividingBy: total)
        if phase < 0 { phase += total }
        var index = 0
        while phase >= dash[index] {
            phase -= dash[index]
            index = (index + 1) % dash.count
        }
        var left = dash[index] - phase
        var on = index % 2 == 0
        var pieces: [(points: [Point], closed: Bool)] = []
        var current: [Point] = on && !pts.isEmpty ? [pts[0]] : []
        for i in 1..<Swift.max(1, pts.count) {
            var a = pts[i - 1]
            let b = pts[i]
            var segment = ((b.x - a.x) * (b.x - a.x) + (b.y - a.y) * (b.y - a.y)).squareRoot()
            while segment > left {
                let t = left / segment
                let cut = Point(x: a.x + (b.x - a.x) * t, y: a.y + (b.y - a.y) * t)
                if on {
                    current.append(cut)
                    pieces.append((current, false))
                    current = []
                } else {
                    current = [cut]
                }
                on.toggle()
                segment -= left
                a = cut
                index = (index + 1) % dash.count
                left = dash[index]
            }
            left -= segment
            if on { current.append(b) }
        }
        if on, current.count >= 2 { pieces.append((current, false)) }
        return pieces
    }
}
