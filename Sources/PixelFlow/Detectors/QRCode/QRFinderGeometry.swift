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

    /// The sides of the finder at `center` whose modules are about `moduleSize` pixels, with
    /// the symbol's x axis along unit `ux` and y axis along unit `uy`; nil when a side has too
    /// few clean edge points.
    func sides(center c: Point, moduleSize ms: Double, ux: Point, uy: Point) -> Sides? {
        guard ms.isFinite, ms > 0, c.x.isFinite, c.y.isFinite else { return nil }
        var buckets: [[Point]] = [[], [], [], []]  // top, right, bottom, left
        let step = 0.5
        let limit = 6.5 * ms
        for k in 0..<90 {
            let angle = Double(k) * (Double.pi / 45)
            let dx = cos(angle), dy = sin(angle)
            var t = 0.0
            var lightToDark = 0, darkToLight = 0
            var wasDark = image.isDark(at: c.x, c.y)
            guard wasDark else { return nil }
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
            guard let r = edge, r >= 2.5 * ms, lightToDark == 1 else { continue }
            let p = Point(x: c.x + r * dx, y: c.y + r * dy)
            let a = (p.x - c.x) * ux.x + (p.y - c.y) * ux.y
            let b = (p.x - c.x) * uy.x + (p.y - c.y) * uy.y
            // Skip points within about a module of a corner: they could belong to either side.
            guard Swift.abs(Swift.abs(a) - Swift.abs(b)) > 1.2 * ms else { continue }
            if Swift.abs(a) > Swift.abs(b) {
                buckets[a > 0 ? 1 : 3].append(p)
            } else {
                buckets[b > 0 ? 2 : 0].append(p)
            }
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
