// Crops and extents in Core Image's coordinates (`CoordinateConvention.coreImage`).

extension Image {
    /// The image restricted to `rect` given in `coordinates`: `cropped(to:)` after converting
    /// the rect to top-left coordinates. Under `.coreImage`, `rect` is Core Image's (origin at
    /// the bottom-left, y up) for an image `imageHeight` high, by default this image's extent
    /// `maxY` (its height when the extent starts at y = 0).
    ///
    /// ```swift
    /// // Core Image: image.cropped(to: CGRect(x: 10, y: 20, width: 100, height: 50))
    /// let corner = try image.cropped(to: Rect(x: 10, y: 20, width: 100, height: 50), coordinates: .coreImage)
    /// // in a 320 x 240 image: the top-left rect (10, 170, 100, 50), 20 pixels above the bottom edge
    /// ```
    ///
    /// - Throws: `PixelFlowError.invalidParameter` under `.coreImage` when the extent is
    ///   infinite and no `imageHeight` is given, or `imageHeight` is not finite.
    public func cropped(to rect: Rect, coordinates: CoordinateConvention, imageHeight: Double? = nil) throws -> Image {
        guard coordinates == .coreImage else { return cropped(to: rect) }
        return cropped(to: coordinates.convert(rect, imageHeight: try _frameHeight(imageHeight, for: "cropped(to:)")))
    }

    /// The extent in `coordinates`: under `.coreImage`, Core Image's rect for an image
    /// `imageHeight` high, by default the extent's own `maxY`, so an image whose extent starts
    /// at y = 0 has the same extent in both conventions. Pass the height of the image a crop
    /// was made from to get the crop's place in it, as Core Image reports it:
    ///
    /// ```swift
    /// let corner = try photo.cropped(to: Rect(x: 10, y: 20, width: 100, height: 50), coordinates: .coreImage)
    /// let ciExtent = corner.extent(coordinates: .coreImage, imageHeight: photo.extent.height)  // (10, 20, 100, 50)
    /// ```
    ///
    /// An infinite extent is the same in both.
    public func extent(coordinates: CoordinateConvention, imageHeight: Double? = nil) -> Rect {
        let e = extent
        return coordinates.convert(e, imageHeight: imageHeight ?? e.maxY)
    }

    /// `height`, or this image's extent `maxY`, as the height Core Image coordinates are
    /// measured in; throws when neither is finite.
    func _frameHeight(_ height: Double?, for call: String) throws -> Double {
        if let height {
            guard height.isFinite else {
                throw PixelFlowError.invalidParameter(filter: call, key: "imageHeight", reason: "must be finite, got \(height)")
            }
            return height
        }
        guard extent.maxY.isFinite else {
            throw PixelFlowError.invalidParameter(
                filter: call, key: "imageHeight",
                reason:
                    "is needed: Core Image coordinates are measured from the image's bottom edge and this image's "
                    + "extent is infinite")
        }
        return extent.maxY
    }
}
