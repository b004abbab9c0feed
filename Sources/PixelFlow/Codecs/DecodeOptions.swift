/// Limits and choices for decoding image files.
///
/// Every decoder reads the image size from the file's header and checks it against these
/// limits before it allocates anything sized by it, so a small hostile file cannot make
/// PixelFlow allocate gigabytes.
///
/// ```swift
/// var options = DecodeOptions.default
/// options.maximumPixelCount = 4096 * 4096
/// let buffer = try PixelBuffer(contentsOfFile: "upload.jpg", options: options)
/// ```
public struct DecodeOptions: Sendable, Equatable {
    /// The widest image accepted, in pixels. Default 65_535.
    public var maximumWidth: Int
    /// The tallest image accepted, in pixels. Default 65_535.
    public var maximumHeight: Int
    /// The most pixels (width x height) accepted. Default 100_000_000 (400 MB as `rgba8`,
    /// 800 MB as `rgba16`).
    public var maximumPixelCount: Int
    /// The largest file read, in bytes; checked before reading. Default 1 GiB.
    public var maximumFileSize: Int
    /// The most scans a progressive JPEG may have before decoding stops with
    /// `limitExceeded`. Default 1000 (real files have about 10).
    public var maximumJPEGScans: Int
    /// The most chunks other than image data (IDAT) a PNG may have before decoding stops with
    /// `limitExceeded`. Default 1000 (real files have a handful). PixelFlow skips text and
    /// other unused chunks without inflating them; the limit stops files made of thousands of
    /// them, which would otherwise each cost a checksum.
    public var maximumPNGAncillaryChunks: Int
    /// Whether the file's orientation (EXIF tag 0x0112, TIFF Orientation, HEIF irot/imir) is
    /// applied, so that the buffer is upright. Default `true`.
    public var applyOrientation: Bool
    /// Which image of a file holding several to decode: the page of a multi-page TIFF, the
    /// frame of an animated GIF or WebP (composited over the frames before it), the top-level
    /// image of a HEIF. Default 0, the first (HEIF: 0 is the primary image).
    public var imageIndex: Int
    /// The most pages, frames or images a file may hold before decoding stops with
    /// `limitExceeded`, checked as they are counted. Default 10_000.
    public var maximumImageCount: Int
    /// Whether pixels are converted out of the file's color space (its ICC profile, or
    /// PNG's cICP, cHRM and gAMA, or HEIF's nclx): into sRGB for a `PixelBuffer`, into the
    /// working space for an `Image`. Default `true`; `false` keeps the values as stored.
    /// CMYK is always converted to RGB (through the profile when there is one and this is
    /// true, else with the naive formula).
    public var appliesColorProfile: Bool

    /// Threads a JPEG decode may use: at least 1 (less throws `invalidParameter`); `nil`, the
    /// default, means every active processor. With 2 or more, libjpeg-turbo's entropy
    /// decoding and inverse DCT run on one thread while the others upsample the chroma and
    /// convert YCbCr to RGB in bands of MCU rows, with the same bytes as a decode on one thread.
    public var threadCount: Int? = nil

    /// Creates options; every parameter defaults to the value of `DecodeOptions.default`.
    public init(
        maximumWidth: Int = 65_535, maximumHeight: Int = 65_535,
        maximumPixelCount: Int = 100_000_000, maximumFileSize: Int = 1 << 30,
        maximumJPEGScans: Int = 1000, maximumPNGAncillaryChunks: Int = 1000,
        applyOrientation: Bool = true, imageIndex: Int = 0, maximumImageCount: Int = 10_000,
        appliesColorProfile: Bool = true
    ) {
        self.maximumWidth = maximumWidth
        self.maximumHeight = maximumHeight
        self.maximumPixelCount = maximumPixelCount
        self.maximumFileSize = maximumFileSize
        self.maximumJPEGScans = maximumJPEGScans
        self.maximumPNGAncillaryChunks = maximumPNGAncillaryChunks
        self.applyOrientation = applyOrientation
        self.imageIndex = imageIndex
        self.maximumImageCount = maximumImageCount
        self.appliesColorProfile = appliesColorProfile
    }

    /// The default limits: 65_535 x 65_535 pixels at most, 100_000_000 pixels, 1 GiB files,
    /// 1000 JPEG scans, 1000 PNG chunks besides the image data, 10_000 pages or frames;
    /// orientation and color profile applied; the first image.
    public static let `default` = DecodeOptions()

    /// Throws unless `width` x `height` is a positive size within the limits.
    ///
    /// - Throws: `decodingFailed` for a zero or negative side, `limitExceeded` naming `file`
    ///   and the side or pixel count that is too large.
    func _checkDimensions(width: Int, height: Int, file: String) throws {
        guard width > 0, height > 0 else {
            throw PixelFlowError.decodingFailed(
                file: file,
                reason: "the header declares an empty image (\(width)x\(height))")
        }
        if width > maximumWidth {
            throw PixelFlowError.limitExceeded(what: "\(file): image width", value: width, limit: maximumWidth)
        }
        if height > maximumHeight {
            throw PixelFlowError.limitExceeded(what: "\(file): image height", value: height, limit: maximumHeight)
        }
        let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
        if overflow || pixels > maximumPixelCount {
            throw PixelFlowError.limitExceeded(
                what: "\(file): pixel count (\(width)x\(height))",
                value: overflow ? Int.max : pixels, limit: maximumPixelCount)
        }
    }

    /// The threads a decode of `file` uses: `threadCount`, or every active processor.
    ///
    /// - Throws: `invalidParameter` when `threadCount` is less than 1.
    func _decodeThreads(file: String) throws -> Int {
        guard let threadCount else { return Swift.max(1, RenderContext.activeProcessorCount) }
        guard threadCount >= 1 else {
            throw PixelFlowError.invalidParameter(
                filter: "decoder of \(file)", key: "threadCount", reason: "must be at least 1, got \(threadCount)")
        }
        return threadCount
    }

    /// Throws `limitExceeded` when a file holds more than `maximumImageCount` images.
    func _checkImageCount(_ count: Int, file: String) throws {
        if count > maximumImageCount {
            throw PixelFlowError.limitExceeded(what: "\(file): pages or frames", value: count, limit: maximumImageCount)
        }
    }

    /// Throws `invalidParameter` unless `imageIndex` is in `0..<count`.
    func _checkImageIndex(count: Int, file: String) throws {
        guard imageIndex >= 0, imageIndex < count else {
            throw PixelFlowError.invalidParameter(
                filter: "decoder of \(file)", key: "imageIndex",
                reason: "must be in 0..<\(count) (the file holds \(count) image\(count == 1 ? "" : "s")), got \(imageIndex)")
        }
    }

    /// Throws `limitExceeded` when `count` frames of `width` x `height` pixels (the frames API
    /// keeps every frame) would hold more than `maximumPixelCount` pixels in all.
    func _checkFramesTotal(count: Int, width: Int, height: Int, file: String) throws {
        guard let total = _Codec.product(count, width, height), total <= maximumPixelCount else {
            throw PixelFlowError.limitExceeded(
                what: "\(file): pixels of all \(count) frames (\(width)x\(height) each)",
                value: _Codec.product(count, width, height) ?? Int.max,
                limit: maximumPixelCount)
        }
    }
}
