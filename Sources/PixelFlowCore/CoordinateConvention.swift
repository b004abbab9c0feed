/// Where the origin of positions and rects sits, and which way y points: PixelFlow's own
/// top-left convention or Core Image's bottom-left one, for code ported from Core Image.
///
/// PixelFlow measures from the top-left corner of an image, y down, as image files, UIKit
/// and OpenCV do (``topLeft``, the default everywhere). Core Image measures from the
/// bottom-left corner, y up (``coreImage``). Widths, heights and x are the same in both; in an
/// image `H` pixels high, a point `(x, y)` of one is `(x, H - y)` of the other and a rect
/// `(x, y, w, h)` is `(x, H - y - h, w, h)`. The conversion is its own inverse, so
/// `convert(_:imageHeight:)` goes either way.
///
/// The calls that ported code makes take a `coordinates:` argument; under `.coreImage` they
/// read and report Core Image's numbers:
///
/// ```swift
/// let vignette = try photo.applyingFilter(
///     "CIVignetteEffect", parameters: ["inputCenter": [100, 60], "inputRadius": 80], coordinates: .coreImage)
/// let corner = try photo.cropped(to: Rect(x: 10, y: 20, width: 100, height: 50), coordinates: .coreImage)
/// let codes = try QRCodeDetector().features(in: pixels, coordinates: .coreImage)
/// ```
///
/// `H` is the height of the image the numbers refer to: the image a filter is applied to
/// (its extent's `maxY`, which is its height for an image whose extent starts at y = 0, as
/// decoded files, buffers and the filters that keep their input's extent do), the image a
/// crop is made of, the image a detector searches; calls without such an image (generators)
/// take it as `imageHeight:`.
public enum CoordinateConvention: String, Sendable, Hashable, CaseIterable {
    /// Origin at the top-left corner, y down: PixelFlow's, image files', UIKit's, OpenCV's.
    case topLeft
    /// Origin at the bottom-left corner, y up: Core Image's and Core Graphics'.
    case coreImage

    /// `value`, in this convention for an image `imageHeight` high, in PixelFlow's top-left
    /// coordinates; or the other way round (the conversion is its own inverse). `.topLeft`
    /// returns `value` unchanged.
    ///
    /// ```swift
    /// CoordinateConvention.coreImage.convert(Point(x: 10, y: 30), imageHeight: 240)  // (10, 210)
    /// ```
    public func convert<T: VerticallyFlippable>(_ value: T, imageHeight: Double) -> T {
        switch self {
        case .topLeft: return value
        case .coreImage: return value.flippedVertically(imageHeight: imageHeight)
        }
    }
}

/// A position, rect or detector result that can be mirrored top to bottom within an image,
/// which turns top-left coordinates into Core Image's and back (see ``CoordinateConvention``).
public protocol VerticallyFlippable {
    /// This value with every y mirrored in an image `imageHeight` high: a point's y becomes
    /// `imageHeight - y`, a rect's top edge `imageHeight - maxY`. Names that say where a corner
    /// is on screen (`topLeft`) keep saying so.
    func flippedVertically(imageHeight: Double) -> Self
}

extension Point: VerticallyFlippable {
    /// `(x, imageHeight - y)`.
    public func flippedVertically(imageHeight: Double) -> Point { Point(x: x, y: imageHeight - y) }
}

extension Rect: VerticallyFlippable {
    /// `(x, imageHeight - y - height, width, height)`; an infinite rect is unchanged.
    public func flippedVertically(imageHeight: Double) -> Rect {
        guard !isInfinite else { return self }
        return Rect(x: x, y: imageHeight - y - height, width: width, height: height)
    }
}
