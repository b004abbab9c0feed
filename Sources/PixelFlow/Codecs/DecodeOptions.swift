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
    /// Whether a JPEG's EXIF orientation (tag 0x0112) is applied, so that the buffer is
    /// upright. Default `true`.
    public var applyOrientation: Bool

    /// Creates options; every parameter defaults to the value of `DecodeOptions.default`.
    public init(maximumWidth: Int = 65_535, maximumHeight: Int = 65_535,
                maximumPixelCount: Int = 100_000_000, maximumFileSize: Int = 1 << 30,
                maximumJPEGScans: Int = 1000, maximumPNGAncillaryChunks: Int = 1000,
                applyOrientation: Bool = true) {
        self.maximumWidth = maximumWidth
        self.maximumHeight = maximumHeight
        self.maximumPixelCount = maximumPixelCount
        self.maximumFileSize = maximumFileSize
        self.maximumJPEGScans = maximumJPEGScans
        self.maximumPNGAncillaryChunks = maximumPNGAncillaryChunks
        self.applyOrientation = applyOrientation
    }

    /// The default limits: 65_535 x 65_535 pixels at most, 100_000_000 pixels, 1 GiB files,
    /// 1000 JPEG scans, 1000 PNG chunks besides the image data; EXIF orientation applied.
    public static let `default` = DecodeOptions()

    /// Throws unless `width` x `height` is a positive size within the limits.
    ///
    /// - Throws: `decodingFailed` for a zero or negative side, `limitExceeded` naming `file`
    ///   and the side or pixel count that is too large.
    func _checkDimensions(width: Int, height: Int, file: String) throws {
        guard width > 0, height > 0 else {
            throw PixelFlowError.decodingFailed(file: file,
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
            throw PixelFlowError.limitExceeded(what: "\(file): pixel count (\(width)x\(height))",
                                               value: overflow ? Int.max : pixels, limit: maximumPixelCount)
        }
    }
}
