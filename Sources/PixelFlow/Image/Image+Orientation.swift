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

extension Image {
    /// The orientation an image file declared (its EXIF or TIFF Orientation tag, HEIF's irot
    /// and imir boxes) and whether `Image(contentsOfFile:)` applied it, as
    /// `Image.fileOrientation` keeps it: what Core Image code reads from
    /// `CIImage.properties[kCGImagePropertyOrientation]`.
    ///
    /// PixelFlow turns files upright when it reads them (`DecodeOptions.applyOrientation`,
    /// on by default), where `CIImage(contentsOf:)` keeps the stored pixels. Ported code that
    /// orients by hand turns the image by `remaining`, which is `.up` once applied:
    ///
    /// ```swift
    /// var options = DecodeOptions.default
    /// options.applyOrientation = false                    // the stored pixels, as Core Image reads them
    /// let stored = try Image(contentsOfFile: "photo.jpg", options: options)
    /// let upright = try stored.oriented(stored.fileOrientation?.remaining ?? .up)
    /// ```
    public struct FileOrientation: Sendable, Hashable, CustomStringConvertible {
        /// What the file says; `.up` when it says nothing (and for PNM and BMP, which cannot).
        public var declared: EXIFOrientation
        /// True when the pixels were turned upright as `declared` says when the file was read.
        public var isApplied: Bool

        /// What a file declared and whether it was applied on reading.
        public init(declared: EXIFOrientation, isApplied: Bool) {
            self.declared = declared
            self.isApplied = isApplied
        }

        /// The turn still needed to make the image upright: `.up` when `isApplied`, else
        /// `declared`.
        public var remaining: EXIFOrientation { isApplied ? .up : declared }

        public var description: String {
            "orientation \(declared.rawValue) (\(declared))" + (isApplied ? ", applied" : ", not applied")
        }
    }

    /// The image turned upright as EXIF orientation `value` (1 to 8) says: Core Image's
    /// `oriented(forExifOrientation:)`, the same as `oriented(_:)`.
    ///
    /// - Throws: `invalidParameter` for a value outside 1...8; `invalidExtent` for an infinite
    ///   extent.
    public func oriented(forExifOrientation value: Int32) throws -> Image {
        guard let orientation = EXIFOrientation(rawValue: Int(value)) else {
            throw PixelFlowError.invalidParameter(
                filter: "oriented", key: "forExifOrientation",
                reason: "must be an EXIF orientation from 1 to 8, got \(value)")
        }
        return try oriented(orientation)
    }
}
