/// Distances inward from the four edges of a rect, in pixels: UIKit's `UIEdgeInsets`, with
/// PixelFlow's top-left origin (`top` is measured down from the top edge).
///
/// ```swift
/// let caps = EdgeInsets(top: 12, left: 10, bottom: 12, right: 10)
/// let button = try background.resizableImage(capInsets: caps, targetSize: Size(width: 240, height: 44),
///                                            resizingMode: .stretch)
/// ```
public struct EdgeInsets: Sendable, Hashable, CustomStringConvertible {
    /// The distance down from the top edge, in pixels.
    public var top: Double
    /// The distance in from the left edge, in pixels.
    public var left: Double
    /// The distance up from the bottom edge, in pixels.
    public var bottom: Double
    /// The distance in from the right edge, in pixels.
    public var right: Double

    /// Insets of the given distances from each edge, in pixels.
    public init(top: Double, left: Double, bottom: Double, right: Double) {
        self.top = top
        self.left = left
        self.bottom = bottom
        self.right = right
    }

    /// The same inset on every side.
    public init(all inset: Double) { self.init(top: inset, left: inset, bottom: inset, right: inset) }

    /// No inset.
    public static let zero = EdgeInsets(top: 0, left: 0, bottom: 0, right: 0)

    /// True when every inset is a finite number.
    public var isFinite: Bool { top.isFinite && left.isFinite && bottom.isFinite && right.isFinite }

    public var description: String { "EdgeInsets(top: \(top), left: \(left), bottom: \(bottom), right: \(right))" }
}

extension Rect {
    /// The rect shrunk by `insets` on each side (grown for negative insets); an empty rect
    /// when the insets overlap.
    public func inset(by insets: EdgeInsets) -> Rect {
        let w = width - insets.left - insets.right, h = height - insets.top - insets.bottom
        guard w >= 0, h >= 0 else { return .empty }
        return Rect(x: x + insets.left, y: y + insets.top, width: w, height: h)
    }
}
