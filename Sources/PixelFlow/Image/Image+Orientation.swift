extension Image {
    /// The image turned upright as an EXIF `orientation` says, placed at the origin (Core
    /// Image's `oriented(_:)`): width and height swap for the orientations 5 to 8.
    ///
    /// A whole-pixel flip or quarter turn with nearest sampling, so each pixel is copied
    /// exactly (the pixels of `PixelBuffer.applyingOrientation` for an image at the origin
    /// with whole-pixel bounds). Useful after a scale: turning the small result is cheaper
    /// than turning the file's pixels, and lets a streamed JPEG shrink on load (a source
    /// decoded with `DecodeOptions.applyOrientation` off, see `ShrinkSourcesOnLoad`).
    ///
    /// ```swift
    /// var options = DecodeOptions.default
    /// options.applyOrientation = false
    /// let stored = try Image(contentsOfFile: "photo.jpg", options: options, streaming: true)
    /// let thumb = try stored.lanczosScaled(scale: 0.1).oriented(.right)
    /// ```
    ///
    /// - Throws: `invalidExtent` for an infinite extent.
    /// - Complexity: one read per output pixel, no scratch.
    public func oriented(_ orientation: EXIFOrientation) throws -> Image {
        if orientation == .up { return self }
        let e = extent
        guard !e.isInfinite else {
            throw PixelFlowError.invalidExtent("oriented(_:) needs a finite extent; crop the image first")
        }
        // Stored (x, y), relative to the extent's origin, to upright coordinates.
        let w = e.width, h = e.height
        let t: AffineTransform
        switch orientation {
        case .up: t = .identity
        case .upMirrored: t = AffineTransform(a: -1, b: 0, c: 0, d: 1, tx: w, ty: 0)
        case .down: t = AffineTransform(a: -1, b: 0, c: 0, d: -1, tx: w, ty: h)
        case .downMirrored: t = AffineTransform(a: 1, b: 0, c: 0, d: -1, tx: 0, ty: h)
        case .leftMirrored: t = AffineTransform(a: 0, b: 1, c: 1, d: 0, tx: 0, ty: 0)
        case .right: t = AffineTransform(a: 0, b: 1, c: -1, d: 0, tx: h, ty: 0)
        case .rightMirrored: t = AffineTransform(a: 0, b: -1, c: -1, d: 0, tx: h, ty: w)
        case .left: t = AffineTransform(a: 0, b: -1, c: 1, d: 0, tx: 0, ty: w)
        }
        let toOrigin = AffineTransform(translationX: -e.minX, y: -e.minY)
        return try transformed(by: toOrigin.concatenating(t), sampling: .nearest)
    }
}
