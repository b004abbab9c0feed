#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// How the ends of an open stroke look.
public enum LineCap: String, Sendable, CaseIterable {
    /// The stroke ends exactly at the end point.
    case butt
    /// A half disc of the stroke's width is added at each end.
    case round
    /// The stroke extends half its width beyond each end.
    case square
}

/// How two segments of a stroke meet.
public enum LineJoin: String, Sendable, CaseIterable {
    /// The outer edges are extended until they meet, unless that point is farther than
    /// `miterLimit` half-widths from the vertex; then the join is beveled.
    case miter
    /// A circular arc around the vertex.
    case round
    /// The outer corners are joined by a straight line.
    case bevel
}

/// Curves flattened to polygons, and strokes turned into fillable contours.
///
/// Arcs are split into chords whose distance to the true curve (the sagitta
/// `r (1 - cos(step / 2))`) stays under the tolerance, 0.01 pixel by default, ten times
/// below the 0.1 pixel the canvas promises. Full ellipses are scaled outwards by the
/// factor that gives the polygon the ellipse's exact area.
enum _Flatten {
    /// The default largest distance between a flattened curve and the true one, in pixels.
    static let tolerance = 0.01

    /// Chords needed for an arc of `radius` sweeping `sweep` radians.
    static func segments(radius: Double, sweep: Double, tolerance: Double) -> Int {
        guard radius > tolerance, sweep > 0 else { return 1 }
        let step = 2 * acos(1 - tolerance / radius)
        let n = (abs(sweep) / step).rounded(.up)
        return Int(Swift.min(Swift.max(n, 1), 16384))
    }

    /// Points on an arc, both ends included; `sweep` may be negative.
    static func arc(center c: Point, radius r: Double, start: Double, sweep: Double, tolerance: Double) -> [Point] {
        let n = segments(radius: r, sweep: abs(sweep), tolerance: tolerance)
        var pts: [Point] = []
        pts.reserveCapacity(n + 1)
        for i in 0...n {
            let t = start + sweep * Double(i) / Double(n)
            pts.append(Point(x: c.x + r * cos(t), y: c.y + r * sin(t)))
        }
        return pts
    }

    /// A closed ellipse with the given radii, clockwise on screen (y down), with the exact
    /// area `pi rx ry`.
    static func ellipse(center c: Point, rx: Double, ry: Double, tolerance: Double) -> [Point] {
        let n = Swift.max(8, segments(radius: Swift.max(rx, ry), sweep: 2 * Double.pi, tolerance: tolerance))
        let step = 2 * Double.pi / Double(n)
        // A regular n-gon inscribed in the unit circle has area (n/2) sin(step); scale it up
        // to area pi.
        let k = (step / sin(step)).squareRoot()
        return (0..<n).map { i in
            let t = step * Double(i)
            return Point(x: c.x + k * rx * cos(t), y: c.y + k * ry * sin(t))
        }
    }

    /// A rounded rectangle; radii are clamped to half the sides.
    static func roundedRect(_ r: Rect, radius: Double, tolerance: Double) -> [Point] {
        let rad = Swift.max(0, Swift.min(radius, r.width / 2, r.height / 2))
        if rad <= 0 {
            return [
                Point(x: r.minX, y: r.minY), Point(x: r.maxX, y: r.minY),
                Point(x: r.maxX, y: r.maxY), Point(x: r.minX, y: r.maxY),
            ]
        }
        let h = Double.pi / 2
        var pts: [Point] = []
        pts += arc(center: Point(x: r.maxX - rad, y: r.minY + rad), radius: rad, start: -h, sweep: h, tolerance: tolerance)
        pts += arc(center: Point(x: r.maxX - rad, y: r.maxY - rad), radius: rad, start: 0, sweep: h, tolerance: tolerance)
        pts += arc(center: Point(x: r.minX + rad, y: r.maxY - rad), radius: rad, start: h, sweep: h, tolerance: tolerance)
        pts += arc(center: Point(x: r.minX + rad, y: r.minY + rad), radius: rad, start: 2 * h, sweep: h, tolerance: tolerance)
        return pts
    }

    /// Twice the signed area (positive for clockwise on screen, y down).
    static func signedArea2(_ c: [Point]) -> Double {
        var s = 0.0
        for i in 0..<c.count {
            let a = c[i], b = c[(i + 1) % c.count]
            s += a.x * b.y - b.x * a.y
        }
        return s
    }

    /// `c` oriented clockwise on screen (positive signed area).
    static func oriented(_ c: [Point], positive: Bool = true) -> [Point] {
        (signedArea2(c) >= 0) == positive ? c : c.reversed()
    }

    /// The contours of a stroked polyline, each oriented clockwise, to fill with `.nonZero`.
    ///
    /// Each segment is a quad; joins are wedges (miter, round or bevel) on the outer side of
    /// each vertex; caps are added at open ends. Pieces that share an edge cancel along it
    /// exactly; only pieces overlapping on the inner side of a join overlap inside pixels.
    /// Zero-length segments are dropped; a polyline of one distinct point gives a disc or a
    /// square for round and square caps, and nothing for butt caps.
    static func stroke(
        _ input: [Point], closed: Bool, width: Double, cap: LineCap, join: LineJoin,
        miterLimit: Double, tolerance: Double
    ) -> [[Point]] {
        let hw = width / 2
        guard hw > 0 else { return [] }
        var pts: [Point] = []
        for p in input where pts.last.map({ $0 != p }) ?? true { pts.append(p) }
        if closed, pts.count > 1, pts.first == pts.last { pts.removeLast() }
        if pts.count == 1 {
            let p = pts[0]
            switch cap {
            case .butt: return []
            case .round: return [ellipse(center: p, rx: hw, ry: hw, tolerance: tolerance)]
            case .square:
                return [
                    [
                        Point(x: p.x - hw, y: p.y - hw), Point(x: p.x + hw, y: p.y - hw),
                        Point(x: p.x + hw, y: p.y + hw), Point(x: p.x - hw, y: p.y + hw),
                    ]
                ]
            }
        }
        guard pts.count >= 2 else { return [] }
        let isClosed = closed && pts.count >= 3
        let segmentCount = isClosed ? pts.count : pts.count - 1
        // Unit directions and left normals of every segment.
        var dirs: [Point] = []
        for i in 0..<segmentCount {
            let a = pts[i], b = pts[(i + 1) % pts.count]
            let dx = b.x - a.x, dy = b.y - a.y
            let len = (dx * dx + dy * dy).squareRoot()
            dirs.append(Point(x: dx / len, y: dy / len))
        }
        var out: [[Point]] = []
        for i in 0..<segmentCount {
            var a = pts[i], b = pts[(i + 1) % pts.count]
            let u = dirs[i]
            let n = Point(x: -u.y * hw, y: u.x * hw)
            if !isClosed && cap == .square {
                if i == 0 { a = Point(x: a.x - u.x * hw, y: a.y - u.y * hw) }
                if i == segmentCount - 1 { b = Point(x: b.x + u.x * hw, y: b.y + u.y * hw) }
            }
            var quad = [
                Point(x: a.x + n.x, y: a.y + n.y), Point(x: b.x + n.x, y: b.y + n.y),
                Point(x: b.x - n.x, y: b.y - n.y), Point(x: a.x - n.x, y: a.y - n.y),
            ]
            if !isClosed && cap == .round {
                // Half discs glued to the quad's ends, so that the stroke of one segment is a
                // single simple contour with exact coverage.
                let angle = atan2(u.y, u.x)
                if i == segmentCount - 1 {
                    let arcPts = arc(center: b, radius: hw, start: angle + Double.pi / 2, sweep: -Double.pi, tolerance: tolerance)
                    quad = [quad[0]] + arcPts + [quad[3]]
                }
                if i == 0 {
                    let arcPts = arc(center: a, radius: hw, start: angle - Double.pi / 2, sweep: -Double.pi, tolerance: tolerance)
                    quad = quad + arcPts.dropFirst().dropLast()
                }
            }
            out.append(oriented(quad))
        }
        // Joins.
        let joinRange = isClosed ? 0..<pts.count : 1..<(pts.count - 1)
        for v in joinRange {
            let u1 = dirs[(v - 1 + segmentCount) % segmentCount], u2 = dirs[v % segmentCount]
            let cross = u1.x * u2.y - u1.y * u2.x
            let dot = u1.x * u2.x + u1.y * u2.y
            if abs(cross) < 1e-12 && dot > 0 { continue }
            let p = pts[v]
            // The outer side is opposite to the turn.
            let s: Double = cross > 0 ? -1 : 1
            let o1 = Point(x: -u1.y * s, y: u1.x * s), o2 = Point(x: -u2.y * s, y: u2.x * s)
            let e1 = Point(x: p.x + o1.x * hw, y: p.y + o1.y * hw), e2 = Point(x: p.x + o2.x * hw, y: p.y + o2.y * hw)
            switch join {
            case .bevel:
                out.append(oriented([p, e1, e2]))
            case .miter:
                let mx = o1.x + o2.x, my = o1.y + o2.y
                let ml = (mx * mx + my * my).squareRoot()
                let cosHalf = ml / 2
                if ml > 1e-12, 1 / cosHalf <= miterLimit {
                    let k = hw / cosHalf / ml
                    out.append(oriented([p, e1, Point(x: p.x + mx * k, y: p.y + my * k), e2]))
                } else {
                    out.append(oriented([p, e1, e2]))
                }
            case .round:
                let a1 = atan2(o1.y, o1.x)
                var sweep = atan2(o2.y, o2.x) - a1
                while sweep > Double.pi { sweep -= 2 * Double.pi }
                while sweep < -Double.pi { sweep += 2 * Double.pi }
                out.append(oriented([p] + arc(center: p, radius: hw, start: a1, sweep: sweep, tolerance: tolerance)))
            }
        }
        return out
    }
}
