// Scalar helpers for position warps: regions of interest of radial distortions, periodic
// folds used by the tile filters, and the filter kernels of the separable resamplers.
// Everything here is a pure function of its arguments, evaluated per pixel (never
// incrementally), so warps built on it do not depend on the schedule.

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

// MARK: Regions of interest

/// The bounding box of the disc of `radius` about `center`.
@inlinable @inline(__always)
package func _discBox(_ center: Point, _ radius: Double) -> Rect {
    Rect(x: center.x - radius, y: center.y - radius, width: 2 * radius, height: 2 * radius)
}

/// The smallest and largest distance from `p` to the points of `r` (finite, non-empty).
package func _distanceRange(from p: Point, to r: Rect) -> (min: Double, max: Double) {
    let dx = Swift.max(r.minX - p.x, 0, p.x - r.maxX), dy = Swift.max(r.minY - p.y, 0, p.y - r.maxY)
    let fx = Swift.max(Swift.abs(p.x - r.minX), Swift.abs(p.x - r.maxX))
    let fy = Swift.max(Swift.abs(p.y - r.minY), Swift.abs(p.y - r.maxY))
    return ((dx * dx + dy * dy).squareRoot(), (fx * fx + fy * fy).squareRoot())
}

/// The region of interest of a warp that is the identity outside the disc of `radius` about
/// `center` and reads within `reach` of the center inside it: `rect` when `rect` misses the
/// disc, else `rect` united with the box of the disc of `reach`, intersected with `rect`
/// grown by `maxShift` (the largest distance any pixel moves) when that is smaller.
package func _radialROI(_ rect: Rect, center: Point, radius: Double, reach: Double, maxShift: Double) -> Rect {
    if rect.isEmpty || rect.isInfinite { return rect }
    if _distanceRange(from: center, to: rect).min >= radius { return rect }
    let a = rect.union(_discBox(center, reach))
    let b = rect.insetBy(dx: -maxShift, dy: -maxShift)
    return a.width * a.height <= b.width * b.height ? a : b
}

/// The largest value of `f` over `[0, 1]`, sampled at 2049 points, plus 1% and 1e-9 of
/// slack: a safe bound for the smooth radial profiles of the distortions.
package func _sampledMaximum(_ f: (Double) -> Double) -> Double {
    var m = -Double.infinity
    for i in 0...2048 { m = Swift.max(m, f(Double(i) / 2048)) }
    return m * 1.01 + 1e-9
}

/// The box of the points `points`.
package func _boundingBox(_ points: [Point]) -> Rect {
    Rect(
        minX: points.map(\.x).min()!, minY: points.map(\.y).min()!,
        maxX: points.map(\.x).max()!, maxY: points.map(\.y).max()!)
}

/// The box of the parallelogram `origin + a * e1 + b * e2` for a, b in `[lo, hi]`.
func _parallelogramBox(origin o: Point, _ e1: Point, _ e2: Point, lo: Double, hi: Double) -> Rect {
    var pts: [Point] = []
    for a in [lo, hi] {
        for b in [lo, hi] { pts.append(Point(x: o.x + a * e1.x + b * e2.x, y: o.y + a * e1.y + b * e2.y)) }
    }
    return _boundingBox(pts)
}

// MARK: Periodic folds

/// `x` modulo `m` in `[0, m)`.
@inlinable @inline(__always)
package func _mod(_ x: Double, _ m: Double) -> Double {
    let r = x - m * (x / m).rounded(.down)
    return r >= m ? 0 : r
}

/// Wraps `a` into `[-0.5, 0.5)` by whole periods (translation).
@inlinable @inline(__always)
package func _wrapCentered(_ a: Double) -> Double { a - (a + 0.5).rounded(.down) }

/// Folds `a` into `[-0.5, 0.5]` by mirroring at the half-integers (a triangle wave).
@inlinable @inline(__always)
package func _reflectCentered(_ a: Double) -> Double {
    let u = _mod(a + 0.5, 2)
    return u < 1 ? u - 0.5 : 1.5 - u
}

/// A frame on the plane: `origin`, and the axes of a lattice cell rotated by `angle`
/// (radians) and scaled by `width` pixels, with `acute` the angle between the axes.
package struct _LatticeFrame: Sendable {
    package var origin: Point
    package var e1: Point
    package var e2: Point
    private var inv: (Double, Double, Double, Double)

    package init(origin: Point, angle: Double, width: Double, acute: Double = Double.pi / 2) {
        self.origin = origin
        e1 = Point(x: width * cos(angle), y: width * sin(angle))
        e2 = Point(x: width * cos(angle + acute), y: width * sin(angle + acute))
        let det = e1.x * e2.y - e2.x * e1.y
        inv = (e2.y / det, -e2.x / det, -e1.y / det, e1.x / det)
    }

    /// Lattice coordinates of the image point `p`.
    @inline(__always)
    package func local(_ p: Point) -> (Double, Double) {
        let dx = p.x - origin.x, dy = p.y - origin.y
        return (inv.0 * dx + inv.1 * dy, inv.2 * dx + inv.3 * dy)
    }

    /// The image point with lattice coordinates `(a, b)`.
    @inline(__always)
    package func image(_ a: Double, _ b: Double) -> Point {
        Point(x: origin.x + a * e1.x + b * e2.x, y: origin.y + a * e1.y + b * e2.y)
    }

    /// The box of the cell `[lo, hi]^2` in image coordinates.
    package func box(lo: Double, hi: Double) -> Rect { _parallelogramBox(origin: origin, e1, e2, lo: lo, hi: hi) }

    /// True when the axes are not degenerate.
    package var isValid: Bool { inv.0.isFinite && inv.1.isFinite && inv.2.isFinite && inv.3.isFinite }
}

/// Reduces `(x, y)` (units of the hexagonal lattice spacing, axes `(1, 0)` and
/// `(1/2, sqrt(3)/2)`) to the hexagon of the nearest lattice point, centered on 0.
package func _hexReduce(_ x: Double, _ y: Double) -> (Double, Double) {
    let s3 = 3.0.squareRoot()
    let b = y * 2 / s3, a = x - b / 2
    let fa = a.rounded(.down), fb = b.rounded(.down)
    let ra = a - fa, rb = b - fb
    var best = (0.0, 0.0), bestD = Double.infinity
    for (i, j) in [(0.0, 0.0), (1.0, 0.0), (0.0, 1.0), (1.0, 1.0)] {
        let px = (ra - i) + (rb - j) / 2, py = (rb - j) * s3 / 2
        let d = px * px + py * py
        if d < bestD { bestD = d; best = (px, py) }
    }
    return best
}

/// Folds the polar angle of `(x, y)` into `[0, wedge)` by rotations (`mirror == false`) or
/// into `[0, wedge / 2]` by mirrors at every multiple of `wedge / 2` (`mirror == true`).
@inlinable @inline(__always)
package func _foldAngle(_ x: Double, _ y: Double, wedge: Double, mirror: Bool) -> (Double, Double) {
    let r = (x * x + y * y).squareRoot()
    if r == 0 { return (0, 0) }
    var t = _mod(atan2(y, x), wedge)
    if mirror, t > wedge / 2 { t = wedge - t }
    return (r * cos(t), r * sin(t))
}

/// Folds a point into the equilateral triangle (0, 0), (1, 0), (1/2, sqrt(3)/2) by the
/// reflections in its sides (the kaleidoscope group *333, p3m1).
package func _foldIntoTriangle(_ x0: Double, _ y0: Double) -> (Double, Double) {
    let s3 = 3.0.squareRoot()
    // Its translations are the lattice of (3/2, sqrt(3)/2) and (0, sqrt(3)).
    let a = x0 / 1.5
    let b = (y0 - a * s3 / 2) / s3
    var x = (a - a.rounded(.down)) * 1.5
    var y = (a - a.rounded(.down)) * s3 / 2 + (b - b.rounded(.down)) * s3
    for _ in 0..<24 {
        if y < 0 {
            y = -y
        } else if s3 * x - y < 0 {
            // Mirror in the line through the origin at 60 degrees.
            let nx = x * -0.5 + y * s3 / 2, ny = x * s3 / 2 + y * 0.5
            x = nx; y = ny
        } else if s3 * (1 - x) - y < 0 {
            // Mirror in the line through (1, 0) at 120 degrees.
            let ux = x - 1
            let nx = ux * -0.5 - y * s3 / 2, ny = -ux * s3 / 2 + y * 0.5
            x = nx + 1; y = ny
        } else {
            break
        }
    }
    return (x, y)
}

// MARK: Resampling filters

/// A separable reconstruction filter: its kernel and its support (half-width, in input
/// pixels at scale 1).
package struct _ResampleFilter: Sendable {
    package var name: String
    package var support: Double
    package var kernel: @Sendable (Double) -> Double

    /// The Mitchell-Netravali cubic with parameters `b` and `c` (B=0, C=0.5 is Keys' and
    /// Pillow's bicubic, a = -0.5; B=1/3, C=1/3 is Mitchell's recommendation).
    /// D. Mitchell, A. Netravali, "Reconstruction Filters in Computer Graphics", SIGGRAPH 1988.
    package static func cubic(b: Double, c: Double) -> _ResampleFilter {
        _ResampleFilter(name: "cubic B=\(b) C=\(c)", support: 2) { x in
            let t = Swift.abs(x)
            if t < 1 {
                return ((12 - 9 * b - 6 * c) * t * t * t + (-18 + 12 * b + 6 * c) * t * t + (6 - 2 * b)) / 6
            }
            if t < 2 {
                return ((-b - 6 * c) * t * t * t + (6 * b + 30 * c) * t * t + (-12 * b - 48 * c) * t + (8 * b + 24 * c)) / 6
            }
            return 0
        }
    }

    /// The box filter: with a widened support it averages the input area each output covers.
    package static let box = _ResampleFilter(name: "box", support: 0.5) { x in (x >= -0.5 && x < 0.5) ? 1 : 0 }

    /// The taps of output `o` (Pillow's convention: the support widens by the downscale
    /// factor, taps stop at the input's edges, the weights are normalized to sum to 1):
    /// the first input index and the weights.
    package func taps(_ o: Int, inputSize: Int, outputSize: Int) -> (start: Int, weights: [Float]) {
        let scale = Double(inputSize) / Double(outputSize)
        let fs = Swift.max(scale, 1)
        let support = self.support * fs
        let center = (Double(o) + 0.5) * scale
        let lo = Swift.max(Int(center - support + 0.5), 0)
        let hi = Swift.min(Int(center + support + 0.5), inputSize)
        var ws = [Double](repeating: 0, count: Swift.max(0, hi - lo))
        var total = 0.0
        for k in 0..<ws.count {
            ws[k] = kernel((Double(k + lo) - center + 0.5) / fs)
            total += ws[k]
        }
        return (lo, ws.map { Float(total != 0 ? $0 / total : $0) })
    }
}
