/// How `Image.thumbnail(width:height:contentMode:)` fits an image to its box, as UIKit's and
/// Core Image's content modes do.
public enum ThumbnailContentMode: String, Sendable, CaseIterable {
    /// Scales uniformly to fit inside the box (aspect fit): one side equals the box's, the
    /// other is at most the box's. The output has the scaled size, not the box's.
    case fit
    /// Scales uniformly to cover the box (aspect fill), then crops the overflow evenly on
    /// both sides (center crop): the output is the box.
    case fill
    /// Scales each axis to the box (the aspect ratio may change): the output is the box.
    case stretch
}

extension Image {
    /// A thumbnail of the image that fits a box, made as libvips' `thumbnail` makes it: an
    /// integer box shrink (the mean of k x k blocks, `k = floor(reduction / 2)`) while at
    /// least a 4x reduction remains, then antialiased Lanczos-3 for the rest (between 2x and
    /// 4x, or any enlargement). The output's extent is at the origin.
    ///
    /// ```swift
    /// let thumb = try photo.thumbnail(width: 400)                                   // 400 wide
    /// let square = try photo.thumbnail(width: 200, height: 200, contentMode: .fill)  // 200x200
    /// ```
    ///
    /// Against one Lanczos-3 pass over the whole image (`lanczosScaled`) the result differs by
    /// at most a few 8-bit levels on photographs (the box weighs each k x k block evenly where
    /// the wide Lanczos kernel weighs it by position); `ThumbnailTests` measures and bounds it
    /// (Docs/Architecture.md gives the figures). Rendered from `rgba8` or `gray8` into the same
    /// format with color management off, lowering runs both steps on bytes (`explain()` names
    /// the byte form).
    ///
    /// - Parameters:
    ///   - width: the box's width in pixels, 1...2^24.
    ///   - height: the box's height in pixels, 1...2^24; nil for no limit (every mode then
    ///     scales to `width` keeping the aspect ratio).
    ///   - contentMode: `.fit` (default), `.fill` or `.stretch`.
    /// - Throws: `invalidParameter` for a size out of range; `invalidExtent` for an infinite
    ///   or empty image.
    /// - Complexity: per output pixel about k^2 reads for the box plus 12 x 12 taps for the
    ///   Lanczos (each separable); scratch of one shrunk row band.
    public func thumbnail(width: Int, height: Int? = nil, contentMode: ThumbnailContentMode = .fit) throws -> Image {
        let e = extent
        guard !e.isInfinite, !e.isEmpty else {
            throw PixelFlowError.invalidExtent("thumbnail(width:height:contentMode:) needs a finite, non-empty extent")
        }
        return try Image._thumbnail(self, span: (e.width, e.height), width: width, height: height, contentMode: contentMode)
    }

    /// A thumbnail of the image file at `path`, as `thumbnail(width:height:contentMode:)` of
    /// the upright image, read so that large reductions skip most of the decoding: a JPEG is
    /// decoded 2, 4 or 8 times smaller by libjpeg-turbo's DCT scaling when that leaves at
    /// least a 2x reduction (libvips' shrink-on-load), and its EXIF orientation is applied to
    /// the small result. Other formats are streamed and turned upright first.
    ///
    /// ```swift
    /// let thumb = try Image.thumbnail(contentsOf: "photo.jpg", width: 320, height: 320)
    /// try RenderContext().write(thumb, toFile: "thumb.jpg", quality: 85)
    /// ```
    ///
    /// - Parameters:
    ///   - path: the file to read.
    ///   - width: the box's width in pixels, 1...2^24, for the image as displayed (after its
    ///     orientation).
    ///   - height: the box's height in pixels, 1...2^24; nil for no limit.
    ///   - contentMode: `.fit` (default), `.fill` or `.stretch`, as the instance method.
    ///   - options: size limits; `applyOrientation` false keeps the stored orientation.
    ///   - shrinksOnLoad: false decodes every pixel (the exact box and Lanczos of the file).
    /// - Throws: `PixelFlowError` naming the file for unreadable, corrupt or oversized files,
    ///   and as the instance method for the box.
    public static func thumbnail(
        contentsOf path: String, width: Int, height: Int? = nil, contentMode: ThumbnailContentMode = .fit,
        options: DecodeOptions = .default, shrinksOnLoad: Bool = true
    ) throws -> Image {
        var decode = options
        decode.applyOrientation = false
        let stored = try Image(contentsOfFile: path, options: decode, streaming: true)
        return try _thumbnail(
            stored: stored, name: path, width: width, height: height, contentMode: contentMode, options: options,
            shrinksOnLoad: shrinksOnLoad)
    }

    /// A thumbnail of an image file's bytes, as `thumbnail(contentsOf:width:height:contentMode:options:shrinksOnLoad:)`.
    public static func thumbnail(
        encoded bytes: [UInt8], name: String = "<memory>", width: Int, height: Int? = nil,
        contentMode: ThumbnailContentMode = .fit, options: DecodeOptions = .default, shrinksOnLoad: Bool = true
    ) throws -> Image {
        var decode = options
        decode.applyOrientation = false
        let stored = try Image(encoded: bytes, name: name, options: decode, streaming: true)
        return try _thumbnail(
            stored: stored, name: name, width: width, height: height, contentMode: contentMode, options: options,
            shrinksOnLoad: shrinksOnLoad)
    }

    /// The file thumbnails' graph from `stored`, read without applying its orientation.
    static func _thumbnail(
        stored: Image, name path: String, width: Int, height: Int?, contentMode: ThumbnailContentMode,
        options: DecodeOptions, shrinksOnLoad: Bool
    ) throws -> Image {
        let orientation = options.applyOrientation ? (stored.fileOrientation?.declared ?? .up) : .up
        let e = stored.extent
        guard !e.isEmpty else { throw PixelFlowError.invalidExtent("\(path): an empty image") }
        let (w, h) = orientation.swapsDimensions ? (height, width) : (width, height)
        // With a box given, an orientation that swaps the axes swaps it too; with no height,
        // the width applies to the displayed image's width, the stored height.
        var input = stored
        var span = (e.width, e.height)
        if shrinksOnLoad, case let .streamedSource(source) = stored.node.op, source.shrinkFactor == 1 {
            let target = Image._thumbnailSize(
                span: orientation.swapsDimensions ? (e.height, e.width) : (e.width, e.height),
                width: width, height: height, contentMode: contentMode)
            let scaled =
                orientation.swapsDimensions
                ? (target.scaledHeight, target.scaledWidth) : (target.scaledWidth, target.scaledHeight)
            let reduction = Swift.min(e.width / Double(scaled.0), e.height / Double(scaled.1))
            if let k = ShrinkSourcesOnLoad.factor(reduction: reduction, among: source.shrinkFactors),
                let shrunk = source.shrunk(by: k)
            {
                input = Image(
                    node: Node(
                        .streamedSource(shrunk), inputs: [],
                        extent: Rect(x: 0, y: 0, width: Double(shrunk.width), height: Double(shrunk.height))))
                span = (e.width / Double(k), e.height / Double(k))
            }
        }
        let thumb: Image
        if orientation.swapsDimensions, height == nil {
            // Fit the displayed width: the stored height.
            let s = Double(width) / e.height
            let sw = Swift.max(1, Int((e.width * s).rounded()))
            thumb = try _thumbnail(input, span: span, width: sw, height: width, contentMode: .stretch)
        } else {
            thumb = try _thumbnail(input, span: span, width: w ?? width, height: h, contentMode: contentMode)
        }
        return try thumb.oriented(orientation)
    }

    /// The output size of a thumbnail of `span` and the size it is scaled to before a crop.
    static func _thumbnailSize(span: (Double, Double), width: Int, height: Int?, contentMode: ThumbnailContentMode) -> (
        width: Int, height: Int, scaledWidth: Int, scaledHeight: Int
    ) {
        func px(_ v: Double) -> Int { Swift.max(1, Int(v.rounded())) }
        guard let height else {
            let s = Double(width) / span.0
            return (width, px(span.1 * s), width, px(span.1 * s))
        }
        switch contentMode {
        case .fit:
            let s = Swift.min(Double(width) / span.0, Double(height) / span.1)
            let w = Swift.min(width, px(span.0 * s)), h = Swift.min(height, px(span.1 * s))
            return (w, h, w, h)
        case .fill:
            let s = Swift.max(Double(width) / span.0, Double(height) / span.1)
            return (width, height, Swift.max(width, px(span.0 * s)), Swift.max(height, px(span.1 * s)))
        case .stretch:
            return (width, height, width, height)
        }
    }

    /// The thumbnail graph of `image`, whose extent's first `span` pixels (the size a file
    /// shrunk on load stands for) map onto the scaled size.
    static func _thumbnail(
        _ image: Image, span: (Double, Double), width: Int, height: Int?, contentMode: ThumbnailContentMode
    ) throws -> Image {
        let limit = 1 << 24
        guard (1...limit).contains(width) else {
            throw PixelFlowError.invalidParameter(filter: "thumbnail", key: "width", reason: "must be 1...\(limit), got \(width)")
        }
        if let height, !(1...limit).contains(height) {
            throw PixelFlowError.invalidParameter(
                filter: "thumbnail", key: "height", reason: "must be 1...\(limit), got \(height)")
        }
        let size = _thumbnailSize(span: span, width: width, height: height, contentMode: contentMode)
        var input = image
        var span = span
        // The box shrink: while at least 4x remains on both axes, k = floor(reduction / 2).
        let reduction = Swift.min(span.0 / Double(size.scaledWidth), span.1 / Double(size.scaledHeight))
        let k = Swift.max(1, Int((reduction / 2).rounded(.down)))
        let e = IntRect(covering: image.extent)
        if k >= 2 {
            let o = IntRect(x: 0, y: 0, width: (e.width + k - 1) / k, height: (e.height + k - 1) / k)
            input = Image(node: Node(.warp(.boxShrink(factor: k, output: o)), inputs: [image.node], extent: o.rect))
            span = (span.0 / Double(k), span.1 / Double(k))
        }
        // Lanczos-3 onto the scaled size, placed so that the box is centered on it (fill).
        let dx = (size.scaledWidth - size.width) / 2, dy = (size.scaledHeight - size.height) / 2
        let out = IntRect(x: -dx, y: -dy, width: size.scaledWidth, height: size.scaledHeight)
        let ie = IntRect(covering: input.extent)
        let exact = span.0 == Double(ie.width) && span.1 == Double(ie.height)
        let inputSpan = exact ? nil : Size(width: span.0, height: span.1)
        var result = input
        if !(exact && ie.width == out.width && ie.height == out.height && ie.x == out.x && ie.y == out.y) {
            // The Lanczos warp reads its input extent from its origin.
            result = Image(node: Node(.warp(.lanczos(output: out, inputSpan: inputSpan)), inputs: [input.node], extent: out.rect))
        }
        if dx != 0 || dy != 0 || result.extent != Rect(x: 0, y: 0, width: Double(size.width), height: Double(size.height)) {
            result = result.cropped(to: Rect(x: 0, y: 0, width: Double(size.width), height: Double(size.height)))
        }
        return result
    }
}
