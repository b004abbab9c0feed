/// A point in image coordinates: origin at the top-left, y grows downwards.
public struct Point: Hashable, Sendable, CustomStringConvertible {
    /// The horizontal coordinate, in pixels from the left edge.
    public var x: Double
    /// The vertical coordinate, in pixels from the top edge.
    public var y: Double
    /// A point at `(x, y)`, in pixels.
    public init(x: Double, y: Double) { self.x = x; self.y = y }
    /// The origin, `(0, 0)`: the top-left corner of an image.
    public static let zero = Point(x: 0, y: 0)
    public var description: String { "(\(x), \(y))" }
}

/// A width and a height.
public struct Size: Hashable, Sendable {
    /// The horizontal extent, in pixels.
    public var width: Double
    /// The vertical extent, in pixels.
    public var height: Double
    /// A size of `width` x `height` pixels.
    public init(width: Double, height: Double) { self.width = width; self.height = height }
}

/// An axis-aligned rectangle in image coordinates, possibly infinite.
///
/// Extents of generators and of clamped images are infinite (`Rect.infinite`); empty
/// rects have a zero or negative size. Pixel `(x, y)` covers `[x, x+1) x [y, y+1)`.
public struct Rect: Hashable, Sendable, CustomStringConvertible {
    /// The left edge, in pixels; `-infinity` for an infinite rect.
    public var x: Double
    /// The top edge, in pixels; `-infinity` for an infinite rect.
    public var y: Double
    /// The width, in pixels; zero or negative for an empty rect, `infinity` for an infinite one.
    public var width: Double
    /// The height, in pixels; zero or negative for an empty rect, `infinity` for an infinite one.
    public var height: Double

    /// A rect with its top-left corner at `(x, y)` and the given size, in pixels.
    public init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x; self.y = y; self.width = width; self.height = height
    }
    /// A rect with integer edges, such as a pixel grid's: its top-left corner at `(x, y)`,
    /// `width` x `height` pixels.
    public init(x: Int, y: Int, width: Int, height: Int) {
        self.init(x: Double(x), y: Double(y), width: Double(width), height: Double(height))
    }

    /// The rect that covers the whole plane.
    public static let infinite = Rect(x: -.infinity, y: -.infinity, width: .infinity, height: .infinity)
    /// The empty rect.
    public static let empty = Rect(x: 0, y: 0, width: 0, height: 0)

    /// The left edge, `x`.
    public var minX: Double { x }
    /// The top edge, `y`.
    public var minY: Double { y }
    /// The right edge, `x + width` (exclusive); `infinity` for an infinite rect.
    public var maxX: Double { isInfinite ? .infinity : x + width }
    /// The bottom edge, `y + height` (exclusive); `infinity` for an infinite rect.
    public var maxY: Double { isInfinite ? .infinity : y + height }
    /// The horizontal centre, `x + width / 2`.
    public var midX: Double { x + width / 2 }
    /// The vertical centre, `y + height / 2`.
    public var midY: Double { y + height / 2 }
    /// Whether any edge or size is not finite, as for ``Rect/infinite`` and the extents of
    /// generators and clamped images.
    public var isInfinite: Bool { !x.isFinite || !y.isFinite || !width.isFinite || !height.isFinite }
    /// Whether the rect covers no area: its width or height is zero, negative or NaN.
    public var isEmpty: Bool { !(width > 0) || !(height > 0) }

    /// Builds a rect from its edges; infinite edges give an infinite rect on that axis.
    public init(minX: Double, minY: Double, maxX: Double, maxY: Double) {
        if minX == -.infinity || maxX == .infinity || minY == -.infinity || maxY == .infinity {
            if minX == -.infinity && maxX == .infinity && minY == -.infinity && maxY == .infinity {
                self = .infinite
                return
            }
        }
        self.init(x: minX, y: minY, width: maxX - minX, height: maxY - minY)
    }

    /// The overlap of two rects; empty when they do not meet.
    public func intersection(_ other: Rect) -> Rect {
        if isInfinite { return other }
        if other.isInfinite { return self }
        let x0 = Swift.max(minX, other.minX), y0 = Swift.max(minY, other.minY)
        let x1 = Swift.min(maxX, other.maxX), y1 = Swift.min(maxY, other.maxY)
        if x1 <= x0 || y1 <= y0 { return .empty }
        return Rect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }

    /// The smallest rect containing both; an empty rect adds nothing.
    public func union(_ other: Rect) -> Rect {
        if isEmpty { return other }
        if other.isEmpty { return self }
        if isInfinite || other.isInfinite { return .infinite }
        let x0 = Swift.min(minX, other.minX), y0 = Swift.min(minY, other.minY)
        let x1 = Swift.max(maxX, other.maxX), y1 = Swift.max(maxY, other.maxY)
        return Rect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }

    /// Grows (or, for negative values, shrinks) the rect on every side.
    public func insetBy(dx: Double, dy: Double) -> Rect {
        if isInfinite { return self }
        return Rect(x: x + dx, y: y + dy, width: width - 2 * dx, height: height - 2 * dy)
    }

    /// The smallest rect with integer edges that contains this one.
    public var integral: Rect {
        if isInfinite || isEmpty { return self }
        let x0 = (minX + 1e-9).rounded(.down), y0 = (minY + 1e-9).rounded(.down)
        let x1 = (maxX - 1e-9).rounded(.up), y1 = (maxY - 1e-9).rounded(.up)
        return Rect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }

    /// Whether `p` lies inside the rect, its left and top edges included and its right and
    /// bottom edges excluded (pixel `(x, y)` covers `[x, x+1) x [y, y+1)`).
    public func contains(_ p: Point) -> Bool {
        p.x >= minX && p.x < maxX && p.y >= minY && p.y < maxY
    }

    public var description: String {
        isInfinite ? "infinite" : "[\(x), \(y), \(width) x \(height)]"
    }
}

/// A 2D affine transform mapping `(x, y)` to `(a x + c y + tx, b x + d y + ty)`, as
/// CGAffineTransform does.
public struct AffineTransform: Hashable, Sendable, CustomStringConvertible {
    /// The x scale term: the factor from x to x'.
    public var a: Double
    /// The shear term from x to y'.
    public var b: Double
    /// The shear term from y to x'.
    public var c: Double
    /// The y scale term: the factor from y to y'.
    public var d: Double
    /// The translation added to x', in pixels.
    public var tx: Double
    /// The translation added to y', in pixels.
    public var ty: Double

    /// A transform from its six terms: `(x, y)` maps to `(a x + c y + tx, b x + d y + ty)`.
    public init(a: Double, b: Double, c: Double, d: Double, tx: Double, ty: Double) {
        self.a = a; self.b = b; self.c = c; self.d = d; self.tx = tx; self.ty = ty
    }

    /// The transform that leaves every point where it is.
    public static let identity = AffineTransform(a: 1, b: 0, c: 0, d: 1, tx: 0, ty: 0)

    /// A translation by `tx` pixels to the right and `ty` pixels down.
    public init(translationX tx: Double, y ty: Double) { self.init(a: 1, b: 0, c: 0, d: 1, tx: tx, ty: ty) }
    /// A scale about the origin by `sx` horizontally and `sy` vertically (negative values flip).
    public init(scaleX sx: Double, y sy: Double) { self.init(a: sx, b: 0, c: 0, d: sy, tx: 0, ty: 0) }
    /// A rotation by `angle` radians; with y pointing down, positive angles turn clockwise on screen.
    public init(rotationAngle angle: Double) {
        let c = cos(angle), s = sin(angle)
        self.init(a: c, b: s, c: -s, d: c, tx: 0, ty: 0)
    }

    /// Whether this is exactly ``AffineTransform/identity``.
    public var isIdentity: Bool { self == .identity }
    /// `a d - b c`: the factor by which the transform scales areas; zero for a singular
    /// transform, negative when it flips.
    public var determinant: Double { a * d - b * c }

    /// `self` followed by `t`: applying the result equals applying `self` then `t`.
    public func concatenating(_ t: AffineTransform) -> AffineTransform {
        AffineTransform(
            a: a * t.a + b * t.c, b: a * t.b + b * t.d,
            c: c * t.a + d * t.c, d: c * t.b + d * t.d,
            tx: tx * t.a + ty * t.c + t.tx, ty: tx * t.b + ty * t.d + t.ty)
    }
    /// A translation by `(x, y)` pixels followed by `self`, as CGAffineTransform's
    /// `translatedBy(x:y:)`.
    public func translatedBy(x: Double, y: Double) -> AffineTransform {
        AffineTransform(translationX: x, y: y).concatenating(self)
    }
    /// A scale by `x` and `y` about the origin followed by `self`, as CGAffineTransform's
    /// `scaledBy(x:y:)`.
    public func scaledBy(x: Double, y: Double) -> AffineTransform {
        AffineTransform(scaleX: x, y: y).concatenating(self)
    }
    /// A rotation by `angle` radians (clockwise on screen, since y points down) followed by
    /// `self`, as CGAffineTransform's `rotated(by:)`.
    public func rotated(by angle: Double) -> AffineTransform {
        AffineTransform(rotationAngle: angle).concatenating(self)
    }

    /// The inverse, or nil when the transform is singular or not finite.
    public func inverted() -> AffineTransform? {
        let det = determinant
        guard det.isFinite, abs(det) > 1e-12, isFinite else { return nil }
        let ia = d / det, ib = -b / det, ic = -c / det, id = a / det
        return AffineTransform(
            a: ia, b: ib, c: ic, d: id,
            tx: -(tx * ia + ty * ic), ty: -(tx * ib + ty * id))
    }

    /// Whether all six terms are finite numbers.
    public var isFinite: Bool {
        a.isFinite && b.isFinite && c.isFinite && d.isFinite && tx.isFinite && ty.isFinite
    }

    /// The image of `p`: `(a x + c y + tx, b x + d y + ty)`.
    public func apply(to p: Point) -> Point {
        Point(x: a * p.x + c * p.y + tx, y: b * p.x + d * p.y + ty)
    }

    /// The bounding box of the transformed rect.
    public func apply(to r: Rect) -> Rect {
        if r.isInfinite || r.isEmpty { return r }
        let pts = [
            Point(x: r.minX, y: r.minY), Point(x: r.maxX, y: r.minY),
            Point(x: r.minX, y: r.maxY), Point(x: r.maxX, y: r.maxY),
        ].map { apply(to: $0) }
        let xs = pts.map(\.x), ys = pts.map(\.y)
        return Rect(minX: xs.min()!, minY: ys.min()!, maxX: xs.max()!, maxY: ys.max()!)
    }

    public var description: String { "[\(a) \(b) \(c) \(d) \(tx) \(ty)]" }
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Integer pixel rect used by the execution layer.

package struct IntRect: Hashable, Sendable, CustomStringConvertible {
    package var x: Int, y: Int, width: Int, height: Int
    package init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x; self.y = y; self.width = width; self.height = height
    }
    @inlinable package var maxX: Int { x + width }
    @inlinable package var maxY: Int { y + height }
    @inlinable package var isEmpty: Bool { width <= 0 || height <= 0 }
    package var area: Int { isEmpty ? 0 : width * height }
    package static let empty = IntRect(x: 0, y: 0, width: 0, height: 0)

    /// The integer rect covering `r`; infinite rects are clamped to +-2^30.
    package init(covering r: Rect) {
        if r.isEmpty { self = .empty; return }
        let lim = Double(1 << 30)
        let x0 = Swift.max(-lim, (r.minX + 1e-7).rounded(.down))
        let y0 = Swift.max(-lim, (r.minY + 1e-7).rounded(.down))
        let x1 = Swift.min(lim, (r.maxX - 1e-7).rounded(.up))
        let y1 = Swift.min(lim, (r.maxY - 1e-7).rounded(.up))
        if !(x1 > x0) || !(y1 > y0) { self = .empty; return }
        self.init(x: Int(x0), y: Int(y0), width: Int(x1 - x0), height: Int(y1 - y0))
    }
    package var rect: Rect { Rect(x: x, y: y, width: width, height: height) }
    @inlinable package func intersection(_ o: IntRect) -> IntRect {
        let x0 = Swift.max(x, o.x), y0 = Swift.max(y, o.y)
        let x1 = Swift.min(maxX, o.maxX), y1 = Swift.min(maxY, o.maxY)
        if x1 <= x0 || y1 <= y0 { return .empty }
        return IntRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }
    package func union(_ o: IntRect) -> IntRect {
        if isEmpty { return o }
        if o.isEmpty { return self }
        let x0 = Swift.min(x, o.x), y0 = Swift.min(y, o.y)
        let x1 = Swift.max(maxX, o.maxX), y1 = Swift.max(maxY, o.maxY)
        return IntRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }
    package func outset(_ dx: Int, _ dy: Int) -> IntRect {
        IntRect(x: x - dx, y: y - dy, width: width + 2 * dx, height: height + 2 * dy)
    }
    package func contains(_ o: IntRect) -> Bool {
        o.x >= x && o.y >= y && o.maxX <= maxX && o.maxY <= maxY
    }
    package var description: String { "\(x),\(y) \(width)x\(height)" }
}
