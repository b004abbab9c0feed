/// A plane projective transform (homography): `(x, y)` maps to
/// `((m0 x + m1 y + m2) / w, (m3 x + m4 y + m5) / w)` with `w = m6 x + m7 y + m8`.
///
/// ```swift
/// let h = Homography(from: [tl, tr, br, bl], to: [Point(x: 0, y: 0), Point(x: 200, y: 0),
///                                               Point(x: 200, y: 100), Point(x: 0, y: 100)])
/// let p = h?.apply(to: tl)      // (0, 0)
/// ```
///
/// Built from four point pairs with Heckbert's closed-form square-to-quad mapping
/// (P. Heckbert, "Fundamentals of Texture Mapping and Image Warping", 1989, section 2.2.3).
public struct Homography: Hashable, Sendable, CustomStringConvertible {
    /// The 3x3 matrix, row-major.
    public var matrix: [Double]

    /// A homography from its 3x3 matrix, row-major: `[m0, m1, ..., m8]`.
    ///
    /// - Precondition: `matrix` has exactly 9 elements.
    public init(matrix: [Double]) {
        precondition(matrix.count == 9, "a homography has 9 coefficients")
        self.matrix = matrix
    }

    /// The homography that leaves every point where it is.
    public static let identity = Homography(matrix: [1, 0, 0, 0, 1, 0, 0, 0, 1])

    /// The homography sending the unit square's corners (0,0), (1,0), (1,1), (0,1) to `q`.
    package static func _squareToQuad(_ q: [Point]) -> Homography? {
        let x0 = q[0].x, y0 = q[0].y, x1 = q[1].x, y1 = q[1].y
        let x2 = q[2].x, y2 = q[2].y, x3 = q[3].x, y3 = q[3].y
        let sx = x0 - x1 + x2 - x3, sy = y0 - y1 + y2 - y3
        let dx1 = x1 - x2, dx2 = x3 - x2, dy1 = y1 - y2, dy2 = y3 - y2
        let den = dx1 * dy2 - dx2 * dy1
        guard den.isFinite, abs(den) > 1e-12 else { return nil }
        let g = (sx * dy2 - dx2 * sy) / den, h = (dx1 * sy - sx * dy1) / den
        let m = [
            x1 - x0 + g * x1, x3 - x0 + h * x3, x0,
            y1 - y0 + g * y1, y3 - y0 + h * y3, y0,
            g, h, 1,
        ]
        guard m.allSatisfy(\.isFinite) else { return nil }
        return Homography(matrix: m)
    }

    /// The homography mapping each of the four `source` points to the matching `destination`
    /// point, or nil when either quad is degenerate (three collinear points) or not finite.
    public init?(from source: [Point], to destination: [Point]) {
        guard source.count == 4, destination.count == 4,
            let s = Homography._squareToQuad(source), let d = Homography._squareToQuad(destination),
            let si = s.inverted()
        else { return nil }
        self = si.concatenating(d)
        guard matrix.allSatisfy(\.isFinite) else { return nil }
        let cx = source.reduce(0) { $0 + $1.x } / 4, cy = source.reduce(0) { $0 + $1.y } / 4
        self = _inFront(of: Point(x: cx, y: cy))
    }

    /// The same mapping scaled so that `w > 0` at `p` (the side of the horizon `apply` accepts).
    package func _inFront(of p: Point) -> Homography {
        let w = matrix[6] * p.x + matrix[7] * p.y + matrix[8]
        return w < 0 ? Homography(matrix: matrix.map { -$0 }) : self
    }

    /// `self` followed by `t`.
    public func concatenating(_ t: Homography) -> Homography {
        let a = t.matrix, b = matrix
        var m = [Double](repeating: 0, count: 9)
        for r in 0..<3 {
            for c in 0..<3 {
                m[r * 3 + c] = a[r * 3] * b[c] + a[r * 3 + 1] * b[3 + c] + a[r * 3 + 2] * b[6 + c]
            }
        }
        return Homography(matrix: m)
    }

    /// The inverse, or nil when the matrix is singular.
    public func inverted() -> Homography? {
        let m = matrix
        let c0 = m[4] * m[8] - m[5] * m[7], c1 = m[5] * m[6] - m[3] * m[8], c2 = m[3] * m[7] - m[4] * m[6]
        let det = m[0] * c0 + m[1] * c1 + m[2] * c2
        guard det.isFinite, abs(det) > 1e-300 else { return nil }
        let inv = [
            c0, m[2] * m[7] - m[1] * m[8], m[1] * m[5] - m[2] * m[4],
            c1, m[0] * m[8] - m[2] * m[6], m[2] * m[3] - m[0] * m[5],
            c2, m[1] * m[6] - m[0] * m[7], m[0] * m[4] - m[1] * m[3],
        ].map { $0 / det }
        guard inv.allSatisfy(\.isFinite) else { return nil }
        return Homography(matrix: inv)
    }

    /// The mapped point, or nil when `p` lies on or behind the horizon (`w <= 0`, relative
    /// to the sign `w` has at the origin side the matrix was built for).
    public func apply(to p: Point) -> Point? {
        let m = matrix
        let w = m[6] * p.x + m[7] * p.y + m[8]
        guard w > 1e-12 else { return nil }
        return Point(x: (m[0] * p.x + m[1] * p.y + m[2]) / w, y: (m[3] * p.x + m[4] * p.y + m[5]) / w)
    }

    /// The bounding box of the mapped rect, or nil when part of it lies on or behind the
    /// horizon (then its image is unbounded). A convex region stays convex in front of the
    /// horizon, so its four mapped corners bound it.
    public func mappedBounds(of r: Rect) -> Rect? {
        if r.isInfinite { return nil }
        if r.isEmpty { return .empty }
        let c = [
            Point(x: r.minX, y: r.minY), Point(x: r.maxX, y: r.minY),
            Point(x: r.maxX, y: r.maxY), Point(x: r.minX, y: r.maxY),
        ]
        var pts: [Point] = []
        for p in c {
            guard let q = apply(to: p) else { return nil }
            pts.append(q)
        }
        return Rect(minX: pts.map(\.x).min()!, minY: pts.map(\.y).min()!, maxX: pts.map(\.x).max()!, maxY: pts.map(\.y).max()!)
    }

    public var description: String { "Homography(\(matrix))" }
}
