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

    init(_ a: Double, _ b: Double, _ c: Double, _ d: Double, _ e: Double, _ f: Double,
         _ g: Double, _ h: Double, _ i: Double) {
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
            t = QRPerspectiveTransform(x1 - x0 + g * x1, x3 - x0 + h * x3, x0,
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
              let d = QRPerspectiveTransform.squareToQuad(destination) else { return nil }
        let r = d.concatenating(s.adjugate)
        guard r.isFinite else { return nil }
        self = r
    }

    var isFinite: Bool { array.allSatisfy(\.isFinite) }

    /// The adjugate: the inverse up to scale, which a homography ignores.
    var adjugate: QRPerspectiveTransform {
        let (a, b, c, d, e, f, g, h, i) = m
        return QRPerspectiveTransform(e * i - f * h, c * h - b * i, b * f - c * e,
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
}
