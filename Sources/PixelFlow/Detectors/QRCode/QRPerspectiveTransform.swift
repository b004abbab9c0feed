/// A plane projective transform (homography): `(x, y) -> ((a x + b y + c) / w, (d x + e y + f) / w)`
/// with `w = g x + h y + i`, as a row-major 3 x 3 matrix acting on `[x, y, 1]`.
///
/// Made from four point correspondences by composing two unit-square maps (Heckbert, "Fundamentals
/// of Texture Mapping and Image Warping", 1989, §2.2.3): the square to the destination quad,
/// after the inverse (adjugate) of the square to the source quad. No linear solve.
///
/// ```swift
/// let t = QRPerspectiveTransform(from: [p0, p1, p2, p3], to: [q0, q1, q2, q3])
/// t?.apply(p2)       // ≈ q2
/// ```
struct QRPerspectiveTransform: Sendable, Hashable {
    var m: (Double, Double, Double, Double, Double, Double, Double, Double, Double)

    static func == (l: Self, r: Self) -> Bool { l.array == r.array }
    func hash(into h: inout Hasher) { h.combine(array) }
    var array: [Double] { [m.0, m.1, m.2, m.3, m.4, m.5, m.6, m.7, m.8] }

    init(
        _ a: Double, _ b: Double, _ c: Double, _ d: Double, _ e: Double, _ f: Double,
        _ g: Double, _ h: Double, _ i: Double
    ) {
        m = (a, b, c, d, e, f, g, h, i)
    }

    /// The map of the unit square's corners (0,0), (1,0), (1,1), (0,1) onto `q[0...3]`; nil for
    /// a degenerate quad.
    static func squareToQuad(_ q: [Point]) -> QRPerspectiveTransform? {
        let (x0, y0, x1, y1, x2, y2, x3, y3) = (q[0].x, q[0].y, q[1].x, q[1].y, q[2].x, q[2].y, q[3].x, q[3].y)
        let sx = x0 - x1 + x2 - x3, sy = y0 - y1 + y2 - y3
        let t: QRPerspectiveTransform
        if Swift.abs(sx) < 1e-12 && Swift.abs(sy) < 1e-12 {
            t = QRPerspectiveTransform(x1 - x0, x2 - x1, x0, y1 - y0, y2 - y1, y0, 0, 0, 1)
        } else {
            let dx1 = x1 - x2, dx2 = x3 - x2, dy1 = y1 - y2, dy2 = y3 - y2
            let den = dx1 * dy2 - dx2 * dy1
            guard Swift.abs(den) > 1e-12 else { return nil }
            let g = (sx * dy2 - dx2 * sy) / den, h = (dx1 * sy - sx * dy1) / den
            t = QRPerspectiveTransform(
                x1 - x0 + g * x1, x3 - x0 + h * x3, x0,
                y1 - y0 + g * y1, y3 - y0 + h * y3, y0, g, h, 1)
        }
        // A quad with three collinear corners has no inverse.
        let (a, b, c, d, e, f, g, h, i) = t.m
        let det = a * (e * i - f * h) - b * (d * i - f * g) + c * (d * h - e * g)
        let scale = Swift.max(Swift.abs(a) + Swift.abs(b), Swift.abs(d) + Swift.abs(e), 1e-300)
        guard t.isFinite, Swift.abs(det) > 1e-9 * scale * scale else { return nil }
        return t
    }

    /// The transform taking `source[k]` to `destination[k]` for k = 0...3 (both quads in
    /// order around their boundary); nil when either is degenerate.
    init?(from source: [Point], to destination: [Point]) {
        guard source.count == 4, destination.count == 4,
            let s = QRPerspectiveTransform.squareToQuad(source),
            let d = QRPerspectiveTransform.squareToQuad(destination)
        else { return nil }
        let r = d.concatenating(s.adjugate)
        guard r.isFinite else { return nil }
        self = r
    }

    var isFinite: Bool { array.allSatisfy(\.isFinite) }

    /// The adjugate: the inverse up to scale, which a homography ignores.
    var adjugate: QRPerspectiveTransform {
        let (a, b, c, d, e, f, g, h, i) = m
        return QRPerspectiveTransform(
            e * i - f * h, c * h - b * i, b * f - c * e,
            f * g - d * i, a * i - c * g, c * d - a * f,
            d * h - e * g, b * g - a * h, a * e - b * d)
    }

    /// `self * t`: apply `t` first.
    func concatenating(_ t: QRPerspectiveTransform) -> QRPerspectiveTransform {
        let l = array, r = t.array
        var o = [Double](repeating: 0, count: 9)
        for row in 0..<3 {
            for col in 0..<3 {
                o[row * 3 + col] = l[row * 3] * r[col] + l[row * 3 + 1] * r[3 + col] + l[row * 3 + 2] * r[6 + col]
            }
        }
        return QRPerspectiveTransform(o[0], o[1], o[2], o[3], o[4], o[5], o[6], o[7], o[8])
    }

    @inline(__always)
    func apply(_ x: Double, _ y: Double) -> Point {
        let w = m.6 * x + m.7 * y + m.8
        return Point(x: (m.0 * x + m.1 * y + m.2) / w, y: (m.3 * x + m.4 * y + m.5) / w)
    }

    func apply(_ p: Point) -> Point { apply(p.x, p.y) }

    /// The image of one module step along x and along y at module position (x, y): the
    /// local module vectors, which under perspective change across the symbol.
    func moduleVectors(at x: Double, _ y: Double) -> (u: Point, v: Point) {
        let l = apply(x - 0.5, y), r = apply(x + 0.5, y), t = apply(x, y - 0.5), b = apply(x, y + 0.5)
        return (Point(x: r.x - l.x, y: r.y - l.y), Point(x: b.x - t.x, y: b.y - t.y))
    }
}

extension Point {
    /// The distance from the origin.
    var length: Double { (x * x + y * y).squareRoot() }
}

extension QRPerspectiveTransform {
    /// The least-squares transform taking each `source[k]` near `destination[k]`, for four or
    /// more correspondences in general position: the direct linear transform with the last
    /// matrix entry fixed at 1, on coordinates first centred and scaled to unit mean distance
    /// (Hartley, "In Defense of the Eight-Point Algorithm", 1997), solved through its 8 x 8
    /// normal equations. nil when the points are too few or degenerate.
    ///
    /// Used to fit one grid to the twelve outer corners of a symbol's three finder patterns,
    /// which pins its perspective down far better than extrapolating two finder edges.
    ///
    /// - Complexity: O(points).
    init?(fitting source: [Point], to destination: [Point]) {
        guard source.count >= 4, source.count == destination.count else { return nil }
        func normalizer(_ p: [Point]) -> (cx: Double, cy: Double, s: Double)? {
            let n = Double(p.count)
            let cx = p.reduce(0) { $0 + $1.x } / n, cy = p.reduce(0) { $0 + $1.y } / n
            let d = p.reduce(0) { $0 + ((($1.x - cx) * ($1.x - cx) + ($1.y - cy) * ($1.y - cy)).squareRoot()) } / n
            guard d > 1e-9, d.isFinite else { return nil }
            return (cx, cy, 2.0.squareRoot() / d)
        }
        guard let ns = normalizer(source), let nd = normalizer(destination) else { return nil }
        // Normal equations A^T A h = A^T b, rows [x y 1 0 0 0 -xu -yu | u], [0 0 0 x y 1 -xv -yv | v].
        var ata = [Double](repeating: 0, count: 64)
        var atb = [Double](repeating: 0, count: 8)
        func accumulate(_ row: [Double], _ rhs: Double) {
            for i in 0..<8 where row[i] != 0 {
                for j in 0..<8 { ata[i * 8 + j] += row[i] * row[j] }
                atb[i] += row[i] * rhs
            }
        }
        for k in source.indices {
            let x = (source[k].x - ns.cx) * ns.s, y = (source[k].y - ns.cy) * ns.s
            let u = (destination[k].x - nd.cx) * nd.s, v = (destination[k].y - nd.cy) * nd.s
            accumulate([x, y, 1, 0, 0, 0, -x * u, -y * u], u)
            accumulate([0, 0, 0, x, y, 1, -x * v, -y * v], v)
        }
        // Gaussian elimination with partial pivoting.
        for c in 0..<8 {
            var pivot = c
            for r in (c + 1)..<8 where Swift.abs(ata[r * 8 + c]) > Swift.abs(ata[pivot * 8 + c]) { pivot = r }
            guard Swift.abs(ata[pivot * 8 + c]) > 1e-12 else { return nil }
            if pivot != c {
                for j in 0..<8 { ata.swapAt(c * 8 + j, pivot * 8 + j) }
                atb.swapAt(c, pivot)
            }
            for r in (c + 1)..<8 {
                let f = ata[r * 8 + c] / ata[c * 8 + c]
                if f == 0 { continue }
                for j in c..<8 { ata[r * 8 + j] -= f * ata[c * 8 + j] }
                atb[r] -= f * atb[c]
            }
        }
        var h = [Double](repeating: 0, count: 8)
        for r in stride(from: 7, through: 0, by: -1) {
            var sum = atb[r]
            for j in (r + 1)..<8 { sum -= ata[r * 8 + j] * h[j] }
            h[r] = sum / ata[r * 8 + r]
        }
        let normalized = QRPerspectiveTransform(h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7], 1)
        // Undo the normalizations: D^-1 * H * S.
        let s = QRPerspectiveTransform(ns.s, 0, -ns.s * ns.cx, 0, ns.s, -ns.s * ns.cy, 0, 0, 1)
        let dInverse = QRPerspectiveTransform(1 / nd.s, 0, nd.cx, 0, 1 / nd.s, nd.cy, 0, 0, 1)
        let r = dInverse.concatenating(normalized.concatenating(s))
        guard r.isFinite, r.m.8 != 0 else { return nil }
        self = r
    }
}
