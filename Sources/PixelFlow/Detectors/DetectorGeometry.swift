#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A straight line through `point` with unit `direction`: what the detectors fit to edge
/// points and intersect to find corners.
struct FittedLine: Sendable, Hashable {
    var point: Point
    var direction: Point

    /// The total-least-squares line of `points` (the principal axis of their scatter), or nil
    /// for fewer than 2 points.
    init?(fitting points: [Point]) {
        guard points.count >= 2 else { return nil }
        let n = Double(points.count)
        let mx = points.reduce(0) { $0 + $1.x } / n, my = points.reduce(0) { $0 + $1.y } / n
        var sxx = 0.0, sxy = 0.0, syy = 0.0
        for p in points {
            let dx = p.x - mx, dy = p.y - my
            sxx += dx * dx
            sxy += dx * dy
            syy += dy * dy
        }
        let angle = 0.5 * atan2(2 * sxy, sxx - syy)
        point = Point(x: mx, y: my)
        direction = Point(x: cos(angle), y: sin(angle))
    }

    init(point: Point, direction: Point) {
        self.point = point
        self.direction = direction
    }

    /// The distance of `p` from the line.
    func distance(to p: Point) -> Double {
        Swift.abs(-(p.x - point.x) * direction.y + (p.y - point.y) * direction.x)
    }

    /// Where the two lines cross; nil for (nearly) parallel lines.
    func intersection(_ o: FittedLine) -> Point? {
        let den = direction.x * o.direction.y - direction.y * o.direction.x
        guard Swift.abs(den) > 1e-6 else { return nil }
        let dx = o.point.x - point.x, dy = o.point.y - point.y
        let t = (dx * o.direction.y - dy * o.direction.x) / den
        return Point(x: point.x + direction.x * t, y: point.y + direction.y * t)
    }
}
