// Detector results in Core Image's coordinates (`CoordinateConvention.coreImage`).

/// A feature located by four named corners (QR codes, rectangles): one place that moves them.
protocol _FourCornered {
    var topLeft: Point { get set }
    var topRight: Point { get set }
    var bottomRight: Point { get set }
    var bottomLeft: Point { get set }
}

extension _FourCornered {
    /// The feature with each corner moved by `move`; each corner keeps its name.
    func withCorners(_ move: (Point) -> Point) -> Self {
        var f = self
        f.topLeft = move(topLeft)
        f.topRight = move(topRight)
        f.bottomRight = move(bottomRight)
        f.bottomLeft = move(bottomLeft)
        return f
    }
}

extension QRCodeFeature: _FourCornered {}
extension RectangleFeature: _FourCornered {}

extension QRCodeFeature: VerticallyFlippable {
    /// The code with its four corners mirrored top to bottom (`topLeft` stays the symbol's
    /// top-left corner, now with Core Image's y); `bounds` follows from the corners.
    public func flippedVertically(imageHeight: Double) -> QRCodeFeature {
        withCorners { $0.flippedVertically(imageHeight: imageHeight) }
    }
}

extension RectangleFeature: VerticallyFlippable {
    /// The quad with its corners mirrored top to bottom; each keeps its name (`topLeft` is
    /// still the corner at the top-left on screen, as in `CIRectangleFeature`).
    public func flippedVertically(imageHeight: Double) -> RectangleFeature {
        withCorners { $0.flippedVertically(imageHeight: imageHeight) }
    }
}

extension FaceFeature: VerticallyFlippable {
    /// The face with its bounds, eye and mouth positions mirrored top to bottom. The flags
    /// and `faceAngle` (defined on screen) are unchanged.
    public func flippedVertically(imageHeight: Double) -> FaceFeature {
        var f = self
        f.bounds = bounds.flippedVertically(imageHeight: imageHeight)
        f.leftEyePosition = leftEyePosition?.flippedVertically(imageHeight: imageHeight)
        f.rightEyePosition = rightEyePosition?.flippedVertically(imageHeight: imageHeight)
        f.mouthPosition = mouthPosition?.flippedVertically(imageHeight: imageHeight)
        return f
    }
}

extension Detector where Feature: VerticallyFlippable {
    /// `features(in:)` with positions in `coordinates`: under `.coreImage`, Core Image's
    /// bottom-left origin for an image `buffer.height` high, as `CIDetector` reports them.
    ///
    /// ```swift
    /// // Core Image: detector.features(in: ciImage).first?.bounds
    /// let bounds = try QRCodeDetector().features(in: pixels, coordinates: .coreImage).first?.bounds
    /// ```
    public func features(in buffer: PixelBuffer, coordinates: CoordinateConvention) throws -> [Feature] {
        try features(in: buffer).map { coordinates.convert($0, imageHeight: Double(buffer.height)) }
    }

    /// `features(in:context:)` with positions in `coordinates`: under `.coreImage`, Core
    /// Image's bottom-left origin for an image as high as `image`'s extent (results are
    /// relative to the extent, whose bottom-left corner is the origin).
    ///
    /// - Throws: what rendering throws (`PixelFlowError.invalidExtent` for an infinite extent).
    public func features(
        in image: Image, coordinates: CoordinateConvention, context: RenderContext = RenderContext()
    ) throws -> [Feature] {
        let found = try features(in: image, context: context)
        let height = Double(IntRect(covering: image.extent).height)  // the rendered buffer's
        return found.map { coordinates.convert($0, imageHeight: height) }
    }
}
