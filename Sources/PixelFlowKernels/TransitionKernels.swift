// Geometry of the transitions: pure functions of a pixel center (x, y) that say how much of
// each image shows there and where to sample it. TransitionFilters.swift turns them into mask
// generators and warps and combines the images with blend kernels.
//
// Conventions: positions in image coordinates, origin top-left, y down; an angle is measured
// counterclockwise on screen (Core Image's convention), so its direction is (cos a, -sin a).
// Every transition is exact at its ends: at time 0 every pixel center inside the effect's rect
// has weight 0 for the target and samples the image at its own position, at time 1 the reverse,
// so the output equals the image (resp. the target) there bit for bit.

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The range of `x * dx + y * dy` over the corners of `r`.
package func projectedRange(_ r: Rect, _ dx: Double, _ dy: Double) -> (lo: Double, hi: Double) {
    let xs = [r.x, r.x + r.width], ys = [r.y, r.y + r.height]
    var lo = Double.infinity, hi = -Double.infinity
    for x in xs { for y in ys { let s = x * dx + y * dy; lo = Swift.min(lo, s); hi = Swift.max(hi, s) } }
    return (lo, hi)
}

/// `r` swept along `(dx, dy) * [0, length]`: the bounding box of all its translates.
package func sweptRect(_ r: Rect, _ dx: Double, _ dy: Double, _ length: Double) -> Rect {
    if r.isInfinite || r.isEmpty { return r }
    let ox = dx * length, oy = dy * length
    return Rect(
        minX: r.x + Swift.min(0, ox), minY: r.y + Swift.min(0, oy),
        maxX: r.x + r.width + Swift.max(0, ox), maxY: r.y + r.height + Swift.max(0, oy))
}

/// A band of `width` pixels moving along a direction across `extent` (swipe, copy machine).
/// With `s = x dx + y dy` and the band's leading edge `L = lo + time * (hi - lo + width)`,
/// `position = (L - s) / width` is below 0 ahead of the band (the image), in 0...1 inside it,
/// above 1 behind it (the target).
package struct SweepBand: Sendable {
    package var dx: Double, dy: Double
    package var lead: Double
    package var width: Double

    package init(extent: Rect, angle: Double, width: Double, time: Double) {
        dx = cos(angle); dy = -sin(angle)
        let (lo, hi) = projectedRange(extent, dx, dy)
        self.width = width
        lead = lo + time * (hi - lo + width)
    }

    @inline(__always) package func position(_ x: Double, _ y: Double) -> Double { (lead - (x * dx + y * dy)) / width }

    /// The target's weight: `clamp(position, 0, 1)`, a cross-fade across the band.
    @inlinable @inline(__always) package func targetWeight(_ x: Double, _ y: Double) -> Double { _unit(position(x, y)) }

    /// The pixel's coverage by the band `[L - width, L)` along the direction.
    @inlinable @inline(__always) package func bandCoverage(_ x: Double, _ y: Double) -> Double {
        let d = lead - (x * dx + y * dy)
        return _unit(Swift.min(d, width - d) + 0.5) * (width >= 1 ? 1 : width)
    }
}

/// Bars sliding out along a direction, each delayed by its own offset (bars swipe). Bars are
/// `width` pixels across, perpendicular to the direction; bar k moves by
/// `max(0, time * (length + offset) - offset * frac(k * 0.618...))` (golden-ratio stagger), so all
/// have left a page of `length` pixels along the direction at time 1.
package struct BarsSweep: Sendable {
    package var dx: Double, dy: Double
    package var width: Double
    package var offset: Double
    package var travel: Double
    package var page: Rect

    package init(page: Rect, angle: Double, width: Double, offset: Double, time: Double) {
        dx = cos(angle); dy = -sin(angle)
        let (lo, hi) = projectedRange(page, dx, dy)
        self.width = width
        self.offset = offset
        self.page = page
        travel = time * ((hi - lo) + offset)
    }

    @inline(__always) package func shift(_ x: Double, _ y: Double) -> Double {
        let k = ((x * -dy + y * dx) / width).rounded(.down)
        let g = k * 0.6180339887498949
        return Swift.max(0, travel - offset * (g - g.rounded(.down)))
    }

    /// Where the image shown at `(x, y)` comes from.
    @inline(__always) package func source(_ x: Double, _ y: Double) -> Point {
        let s = shift(x, y)
        return Point(x: x - dx * s, y: y - dy * s)
    }

    /// How much of the moved image covers the pixel (its source's coverage by the page).
    @inline(__always) package func coverage(_ x: Double, _ y: Double) -> Double {
        let p = source(x, y)
        return rectCoverage(p.x, p.y, page)
    }
}

/// Holes growing in a brick pattern of cells `2 radius` wide (mod transition), rotated by
/// `angle` about the center and shrunk away from it by `1 + distance / compression`; a hole's
/// radius is `time * (radius sqrt 2 + 1)`, so at time 1 the holes cover every cell.
package struct ModHoles: Sendable {
    package var cx: Double, cy: Double
    package var cosA: Double, sinA: Double
    package var radius: Double
    package var compression: Double
    package var hole: Double

    package init(center: Point, angle: Double, radius: Double, compression: Double, time: Double) {
        cx = center.x; cy = center.y
        cosA = cos(angle); sinA = sin(angle)
        self.radius = radius
        self.compression = compression
        hole = time * (radius * 2.0.squareRoot() + 1)
    }

    /// The target's weight: `clamp(hole - distance to the cell's center, 0, 1)`.
    @inlinable @inline(__always) package func targetWeight(_ x: Double, _ y: Double) -> Double {
        let qx = x - cx, qy = y - cy
        var u = qx * cosA - qy * sinA, v = qx * sinA + qy * cosA
        let k = 1 + (u * u + v * v).squareRoot() / compression
        u *= k; v *= k
        let cell = 2 * radius
        let row = (v / cell).rounded(.down)
        if row.truncatingRemainder(dividingBy: 2) != 0 { u += radius }
        let lu = u - ((u / cell).rounded(.down) + 0.5) * cell
        let lv = v - (row + 0.5) * cell
        return _unit(hole - (lu * lu + lv * lv).squareRoot())
    }
}

/// A circular wave growing from the center (ripple transition): its front is at
/// `R = time * (maxDistance + width + 1) - 0.5`; inside it the target shows, and in the ring
/// `R - width < d < R` the target is displaced radially by `scale * sin(pi u)`, `u = (R - d) / width`.
package struct RippleWave: Sendable {
    package var cx: Double, cy: Double
    package var front: Double
    package var width: Double
    package var scale: Double

    package init(center: Point, extent: Rect, width: Double, scale: Double, time: Double) {
        cx = center.x; cy = center.y
        var far = 0.0
        for x in [extent.x, extent.x + extent.width] {
            for y in [extent.y, extent.y + extent.height] {
                far = Swift.max(far, ((x - cx) * (x - cx) + (y - cy) * (y - cy)).squareRoot())
            }
        }
        self.width = width
        self.scale = scale
        front = time * (far + width + 1) - 0.5
    }

    @inline(__always) package func distance(_ x: Double, _ y: Double) -> Double {
        ((x - cx) * (x - cx) + (y - cy) * (y - cy)).squareRoot()
    }

    /// The target's weight: the anti-aliased disc `clamp(R - d + 0.5, 0, 1)`.
    @inlinable @inline(__always) package func targetWeight(_ x: Double, _ y: Double) -> Double {
        _unit(front - distance(x, y) + 0.5)
    }

    /// The ring parameter `u` in 0...1, or nil outside the ring.
    @inline(__always) package func ring(_ x: Double, _ y: Double) -> Double? {
        let u = (front - distance(x, y)) / width
        return u >= 0 && u <= 1 ? u : nil
    }

    /// Where the target shown at `(x, y)` is sampled.
    @inline(__always) package func source(_ x: Double, _ y: Double) -> Point {
        guard let u = ring(x, y) else { return Point(x: x, y: y) }
        let d = distance(x, y)
        guard d > 0 else { return Point(x: x, y: y) }
        let a = scale * sin(.pi * u) / d
        return Point(x: x - (x - cx) * a, y: y - (y - cy) * a)
    }
}

/// A page rolling up around a cylinder of `radius` (page curl transitions), after the classic
/// cylinder model: the page is flat behind the fold line `s = a` (`s` the position along the
/// direction), wraps half around the cylinder above `a < s < a + radius`, and lies flat again,
/// back side up, on top of itself. The fold line moves from the page's far edge at time 0
/// (`a = hi`) to beyond its near edge at time 1 (`a = lo - radius - margin`, the margin leaving
/// room for a shadow cast past the cylinder).
package struct PageCurl: Sendable {
    package var dx: Double, dy: Double
    package var axis: Double
    package var radius: Double
    package var page: Rect
    /// How far (in pixels) the page's content can move from where it started.
    package var reach: Double

    package init(page: Rect, angle: Double, radius: Double, time: Double, margin: Double = 0) {
        dx = cos(angle); dy = -sin(angle)
        let (lo, hi) = projectedRange(page, dx, dy)
        self.radius = radius
        self.page = page
        axis = hi - time * (hi - lo + radius + margin)
        reach = (hi - lo) + Double.pi * radius + 2 * (radius + margin) + 2
    }

    /// What shows at a pixel: where the front and back faces are sampled, their weights
    /// (back over front over target; the three add up to 1), and on the cylinder the sine of
    /// its surface angle (positive for the front face, negative for the back), else nil.
    package struct Sample {
        package var front: Point
        package var back: Point
        package var weights: SIMD3<Double>  // back, front, target
        package var slope: Double?
    }

    @inline(__always) package func sample(_ x: Double, _ y: Double) -> Sample {
        let s = x * dx + y * dy
        let dist = s - axis
        let p = Point(x: x, y: y)
        if dist > radius { return Sample(front: p, back: p, weights: SIMD3(0, 0, 1), slope: nil) }
        let front: Point, back: Point
        var theta: Double? = nil
        if dist > 0 {
            let t = asin(Swift.min(1, dist / radius))
            theta = t
            let f = axis + radius * t - s, b = axis + radius * (Double.pi - t) - s
            front = Point(x: x + dx * f, y: y + dy * f)
            back = Point(x: x + dx * b, y: y + dy * b)
        } else {
            front = p
            let b = 2 * (axis - s) + Double.pi * radius
            back = Point(x: x + dx * b, y: y + dy * b)
        }
        let cb = rectCoverage(back.x, back.y, page), cf = rectCoverage(front.x, front.y, page)
        var slope: Double? = nil
        if let t = theta { slope = cb > 0 ? -sin(t) : sin(t) }
        return Sample(front: front, back: back, weights: SIMD3(cb, (1 - cb) * cf, (1 - cb) * (1 - cf)), slope: slope)
    }
}

/// The image folding up like an accordion toward its bottom edge (accordion fold): at `time`
/// it occupies the bottom `h = bottomHeight + (H - bottomHeight)(1 - time)` pixels of its rect,
/// compressed linearly (flat panels seen from the front), in `folds` panels whose tilt
/// `acos(h / H)` darkens even panels by `amount sin(tilt)` and odd ones by half that.
package struct AccordionFold: Sendable {
    package var page: Rect
    package var height: Double
    package var folds: Double
    package var amount: Double
    package var top: Double { page.y + page.height - height }

    package init(page: Rect, bottomHeight: Double, folds: Double, amount: Double, time: Double) {
        let h0 = Swift.min(bottomHeight, page.height)
        self.page = page
        height = h0 + (page.height - h0) * (1 - time)
        self.folds = folds
        self.amount = amount
    }

    /// Where the image shown at `(x, y)` comes from (a point outside the page where none does).
    @inline(__always) package func source(_ x: Double, _ y: Double) -> Point {
        guard height > 0 else { return Point(x: x, y: page.y - 2) }
        return Point(x: x, y: page.y + (y - top) * (page.height / height))
    }

    /// How much of the folded image covers the pixel.
    @inline(__always) package func coverage(_ x: Double, _ y: Double) -> Double {
        guard height > 0 else { return 0 }
        return rectCoverage(x, y, Rect(x: page.x, y: top, width: page.width, height: height))
    }

    /// The shading factor of the panel at row `y` (1 when unfolded).
    @inlinable @inline(__always) package func shade(_ y: Double) -> Double {
        guard height > 0, page.height > 0 else { return 1 }
        let c = Swift.min(1, height / page.height)
        let tilt = (1 - c * c).squareRoot()
        let k = ((y - top) / (height / folds)).rounded(.down)
        let even = k.truncatingRemainder(dividingBy: 2) == 0
        return 1 - amount * tilt * (even ? 1 : 0.5)
    }
}
