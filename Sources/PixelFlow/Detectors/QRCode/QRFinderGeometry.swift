#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The outer square of a finder pattern as four straight edges, and from three of them the
/// four corners of the whole symbol, perspective included.
///
/// A perspective transform maps straight lines to straight lines, so the symbol's right edge
/// continues the top-right finder's right edge and its bottom edge continues the bottom-left
/// finder's bottom edge; they meet at the bottom-right corner even when the symbol is seen at
/// an angle. (Three finder centres alone only give an affine grid, which drifts by modules at
/// the far corner under perspective, and version 1 symbols have no alignment pattern to
/// correct it.)
///
/// Edge points come from rays cast from the finder's centre every 4 degrees: the second
/// dark-to-light transition along a ray is on the outer edge. Points are sorted to the four
/// sides by the symbol's axes, those near the corners are dropped, and a line is fitted to
/// each side by total least squares.
struct QRFinderGeometry {
    /// The four sides of one finder's outer square, in the symbol's orientation.
    struct Sides {
        var top: FittedLine, right: FittedLine, bottom: FittedLine, left: FittedLine
    }

    let image: QRBinaryImage
    /// Edge points of finders already traced in this image, or nil to trace each time.
    var cache: QRFinderEdgeCache? = nil

    /// The sides of the finder at `center` whose modules are about `moduleSize` pixels, with
    /// the symbol's x axis roughly along unit `ux` and y axis roughly along unit `uy`; nil when
    /// a side has too few clean edge points.
    ///
    /// The edge points are not sorted to the sides by the axes alone: under strong perspective
    /// a finder is foreshortened along one axis (a module 0.4-0.6 times as wide as it is high)
    /// and its sides turn away from the axes between the finder centres. The square's own four
    /// corners come first, as the edge points farthest along the four diagonals (right for any
    /// axis error under 45 degrees), and each point then goes to the side it lies along,
    /// away from the corners.
    func sides(center c: Point, moduleSize ms: Double, ux: Point, uy: Point) -> Sides? {
        guard ms.isFinite, ms > 0, c.x.isFinite, c.y.isFinite else { return nil }
        let key = QRFinderEdgeCache.Key(x: c.x, y: c.y, moduleSize: ms)
        let points: [Point]
        if let cached = cache?.points[key] {
            points = cached
        } else {
            points = edgePoints(center: c, moduleSize: ms)
            cache?.points[key] = points
        }
        return sides(center: c, moduleSize: ms, points: points, ux: ux, uy: uy)
    }

    /// Points on the outer edge of the finder at `center`: along 90 rays, 4 degrees apart,
    /// the second dark-to-light transition, when the ray crosses exactly one light-to-dark
    /// one before it and is at least 1.5 modules long. They do not depend on the symbol's axes,
    /// so `cache` keeps them for the other triples and orientations the finder is tried in.
    func edgePoints(center c: Point, moduleSize ms: Double) -> [Point] {
        guard image.isDark(at: c.x, c.y) else { return [] }
        let step = 0.5
        // A stretched axis can make the half diagonal 1.6 times 4.95 average modules; a
        // compressed one can bring an edge to 0.45 times 3.5.
        let limit = 8 * ms
        var points: [Point] = []
        points.reserveCapacity(90)
        for k in 0..<90 {
            let (dx, dy) = QRFinderGeometry._rays[k]
            var t = 0.0
            var lightToDark = 0, darkToLight = 0
            var wasDark = true
            var edge: Double?
            while t < limit {
                t += step
                let dark = image.isDark(at: c.x + t * dx, c.y + t * dy)
                if dark != wasDark {
                    if dark { lightToDark += 1 } else { darkToLight += 1 }
                    if darkToLight == 2 {
                        edge = t - step / 2
                        break
                    }
                    wasDark = dark
                }
            }
            guard let r = edge, r >= 1.5 * ms, lightToDark == 1 else { continue }
            points.append(Point(x: c.x + r * dx, y: c.y + r * dy))
        }
        return points
    }

    /// Unit vectors of the 90 rays, 4 degrees apart.
    static let _rays: [(Double, Double)] = (0..<90).map { k in
        let angle = Double(k) * (Double.pi / 45)
        return (cos(angle), sin(angle))
    }

    /// The four sides through the edge `points` of the finder at `c`.
    func sides(center c: Point, moduleSize ms: Double, points: [Point], ux: Point, uy: Point) -> Sides? {
        guard points.count >= 16 else { return nil }
        // Corners: top-left, top-right, bottom-right, bottom-left (farthest along each diagonal).
        let diagonals = [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)]
        var corners: [Point] = []
        for (sx, sy) in diagonals {
            let d = Point(x: sx * ux.x + sy * uy.x, y: sx * ux.y + sy * uy.y)
            var best = points[0]
            var bestDot = -Double.infinity
            for p in points {
                let dot = (p.x - c.x) * d.x + (p.y - c.y) * d.y
                if dot > bestDot {
                    bestDot = dot
                    best = p
                }
            }
            corners.append(best)
        }
        // Each point on the side (corner k to corner k + 1) it is nearest to, within its middle
        // 70% and 1.5 pixels plus a fifth of a module of the chord.
        var buckets: [[Point]] = [[], [], [], []]  // top, right, bottom, left
        let reach = 1.5 + 0.2 * ms
        for p in points {
            var side = -1
            var nearest = reach
            for k in 0..<4 {
                let a = corners[k], b = corners[(k + 1) % 4]
                let ex = b.x - a.x, ey = b.y - a.y
                let length2 = ex * ex + ey * ey
                guard length2 > 1 else { continue }
                let t = ((p.x - a.x) * ex + (p.y - a.y) * ey) / length2
                guard t > 0.15, t < 0.85 else { continue }
                let distance = Swift.abs((p.x - a.x) * ey - (p.y - a.y) * ex) / length2.squareRoot()
                if distance < nearest {
                    nearest = distance
                    side = k
                }
            }
            if side >= 0 { buckets[side].append(p) }
        }
        guard let top = fit(buckets[0]), let right = fit(buckets[1]),
            let bottom = fit(buckets[2]), let left = fit(buckets[3])
        else { return nil }
        return Sides(top: top, right: right, bottom: bottom, left: left)
    }

    /// The total-least-squares line of `points`; nil for fewer than 4 points or when they
    /// stray from it by more than 1.5 pixels (root mean square).
    func fit(_ points: [Point]) -> FittedLine? {
        guard points.count >= 4, let line = FittedLine(fitting: points) else { return nil }
        let meanSquare = points.reduce(0) { $0 + line.distance(to: $1) * line.distance(to: $1) } / Double(points.count)
        return meanSquare <= 1.5 * 1.5 ? line : nil
    }

    /// The outer squares of the three finders (each as its top-left, top-right, bottom-right
    /// and bottom-left corner in the symbol's orientation) and the symbol's outer corners
    /// (top-left, top-right, bottom-right, bottom-left) from them; nil when an edge cannot be
    /// found or a quad is not convex.
    func finderSquares(tl: QRFinderPattern, tr: QRFinderPattern, bl: QRFinderPattern)
        -> (squares: [[Point]], corners: [Point])?
    {
        let dTop = tl.distance(to: tr), dLeft = tl.distance(to: bl)
        guard dTop > 0, dLeft > 0 else { return nil }
        let ux = Point(x: (tr.x - tl.x) / dTop, y: (tr.y - tl.y) / dTop)
        let uy = Point(x: (bl.x - tl.x) / dLeft, y: (bl.y - tl.y) / dLeft)
        var squares: [[Point]] = []
        var all: [Sides] = []
        for f in [tl, tr, bl] {
            guard let s = sides(center: f.point, moduleSize: f.moduleSize, ux: ux, uy: uy),
                let a = s.top.intersection(s.left), let b = s.top.intersection(s.right),
                let c = s.bottom.intersection(s.right), let d = s.bottom.intersection(s.left)
            else { return nil }
            let q = [a, b, c, d]
            guard q.allSatisfy({ $0.x.isFinite && $0.y.isFinite }), QRFinderGeometry.isConvex(q) else { return nil }
            squares.append(q)
            all.append(s)
        }
        guard let bottomRight = all[1].right.intersection(all[2].bottom) else { return nil }
        let q = [squares[0][0], squares[1][1], bottomRight, squares[2][3]]
        guard q.allSatisfy({ $0.x.isFinite && $0.y.isFinite }), QRFinderGeometry.isConvex(q) else { return nil }
        return (squares, q)
    }

    /// The symbol's outer corners (top-left, top-right, bottom-right, bottom-left) from the
    /// three finders' edges; nil when an edge cannot be found or the corners are not a
    /// convex quad.
    func symbolCorners(tl: QRFinderPattern, tr: QRFinderPattern, bl: QRFinderPattern) -> [Point]? {
        finderSquares(tl: tl, tr: tr, bl: bl)?.corners
    }

    /// The grid of an n x n symbol (module space to image) fitted by least squares to the
    /// twelve outer corners of its finder `squares` (from `finderSquares`).
    static func fittedGrid(squares: [[Point]], size n: Int) -> QRPerspectiveTransform? {
        let nn = Double(n)
        var source: [Point] = []
        for (ox, oy) in [(0.0, 0.0), (nn - 7, 0.0), (0.0, nn - 7)] {
            source += [Point(x: ox, y: oy), Point(x: ox + 7, y: oy), Point(x: ox + 7, y: oy + 7), Point(x: ox, y: oy + 7)]
        }
        return QRPerspectiveTransform(fitting: source, to: squares.flatMap { $0 })
    }

    /// Whether the quad turns the same way at every corner.
    static func isConvex(_ q: [Point]) -> Bool {
        var sign = 0.0
        for i in 0..<4 {
            let a = q[i], b = q[(i + 1) % 4], c = q[(i + 2) % 4]
            let cross = (b.x - a.x) * (c.y - b.y) - (b.y - a.y) * (c.x - b.x)
            guard cross != 0 else { return false }
            if sign == 0 { sign = cross } else if (sign > 0) != (cross > 0) { return false }
        }
        return true
    }
}

/// Finder edge points by finder, for one search over one binary image: a finder is tried in
/// many triples and orientations, and its edge points are the same each time.
///
/// A reference type so that the (value-type) grid reader can fill it while reading; used
/// by one search on one thread only, never shared.
final class QRFinderEdgeCache {
    struct Key: Hashable {
        var x: Double, y: Double, moduleSize: Double
    }
    var points: [Key: [Point]] = [:]
}
