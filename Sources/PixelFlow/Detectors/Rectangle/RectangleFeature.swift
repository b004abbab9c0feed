/// A quadrilateral found by `RectangleDetector`, like Core Image's `CIRectangleFeature`,
/// in image coordinates: origin at the top-left, y down, in pixels of the searched image
/// (pixel `(x, y)` covers `[x, x+1) x [y, y+1)`).
public struct RectangleFeature: Hashable, Sendable, CustomStringConvertible {
    /// The quad's top-left corner, in image pixels.
    public var topLeft: Point
    /// The quad's top-right corner, in image pixels.
    public var topRight: Point
    /// The quad's bottom-right corner, in image pixels.
    public var bottomRight: Point
    /// The quad's bottom-left corner, in image pixels.
    public var bottomLeft: Point
    /// How well the sides lie on image edges, in 0...1: the mean over the four sides of their
    /// *edge support*, the fraction of the side's length that lies within 1.5 pixels of an
    /// edge pixel whose gradient crosses the side (see `RectangleDetector`).
    ///
    /// A clean card on a plain background scores 1; a side partly hidden or lost against a
    /// background of the same color lowers it (a third of one side missing gives about 0.9).
    /// The detector reports no quad below 0.7, so its features are in 0.7...1; a feature made
    /// with `init` takes the value given (1 by default). It measures the outline only: the
    /// ranking of quads (`RectangleDetector`) also weighs their area and interior.
    /// `pixelflow detect rectangles --json` prints it as `"confidence"`.
    public var confidence: Double

    /// A quad with the given corners, in image pixels, and `confidence` in 0...1 (1 by default).
    public init(topLeft: Point, topRight: Point, bottomRight: Point, bottomLeft: Point, confidence: Double = 1) {
        self.topLeft = topLeft; self.topRight = topRight
        self.bottomRight = bottomRight; self.bottomLeft = bottomLeft
        self.confidence = confidence
    }

    /// The corners in the order top-left, top-right, bottom-right, bottom-left (the order of
    /// `pixelflow detect --json` and of `CIPerspectiveCorrection`'s inputs).
    public var corners: [Point] { [topLeft, topRight, bottomRight, bottomLeft] }

    /// The smallest axis-aligned rect containing the corners.
    public var bounds: Rect {
        let c = corners
        return Rect(minX: c.map(\.x).min()!, minY: c.map(\.y).min()!, maxX: c.map(\.x).max()!, maxY: c.map(\.y).max()!)
    }

    /// The corners with y flipped for Core Image's bottom-left origin in an image `height`
    /// pixels high (top-left becomes the corner with the larger Core Image y).
    public func coreImageCorners(imageHeight height: Double) -> [Point] {
        corners.map { Point(x: $0.x, y: height - $0.y) }
    }

    public var description: String {
        "RectangleFeature(\(topLeft), \(topRight), \(bottomRight), \(bottomLeft), confidence \(confidence))"
    }
}
