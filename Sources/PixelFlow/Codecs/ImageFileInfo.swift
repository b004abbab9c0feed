/// What an image file's headers say, read without decoding its pixels (like `vipsheader`).
///
/// ```swift
/// let info = try ImageFile(contentsOfFile: "scan.tiff").info
/// print(info.format, info.width, info.height, info.imageCount, info.bitsPerSample)
/// ```
public struct ImageFileInfo: Sendable, Equatable {
    /// The file's format.
    public var format: ImageFileFormat
    /// Width of the first image as stored, before orientation, in pixels.
    public var width: Int
    /// Height of the first image as stored, before orientation, in pixels.
    public var height: Int
    /// Pages of a TIFF, frames of an animated GIF or WebP, top-level images of a HEIF; 1
    /// for the other formats.
    public var imageCount: Int
    /// Bits per stored sample: 1 to 16.
    public var bitsPerSample: Int
    /// The stored color model: `"gray"`, `"rgb"`, `"palette"`, `"cmyk"`, `"ycbcr"`.
    public var colorModel: String
    /// True when the file stores an alpha channel or transparency.
    public var hasAlpha: Bool
    /// True for animated GIF and WebP files (more than one frame meant to be played).
    public var isAnimated: Bool
    /// The color profile, EXIF, XMP and orientation, as far as the headers give them.
    public var metadata: ImageMetadata

    /// Header facts as a decoder reports them; the defaults describe a single 8-bit RGB image
    /// with no alpha and no metadata.
    public init(
        format: ImageFileFormat, width: Int, height: Int, imageCount: Int = 1, bitsPerSample: Int = 8,
        colorModel: String = "rgb", hasAlpha: Bool = false, isAnimated: Bool = false,
        metadata: ImageMetadata = ImageMetadata()
    ) {
        self.format = format
        self.width = width
        self.height = height
        self.imageCount = imageCount
        self.bitsPerSample = bitsPerSample
        self.colorModel = colorModel
        self.hasAlpha = hasAlpha
        self.isAnimated = isAnimated
        self.metadata = metadata
    }
}

/// One frame of an animation (GIF, WebP) or one page of a multi-page file: the whole canvas
/// as it shows at that moment, and how long it shows.
public struct ImageFrame: Sendable {
    /// The canvas after this frame was composited onto what the previous frames left (their
    /// disposal methods applied); for a page, the page.
    public var buffer: PixelBuffer
    /// How long the frame shows, in seconds (0 for pages and still images).
    public var duration: Double

    /// A frame showing `buffer` for `duration` seconds (0 for pages and still images).
    public init(buffer: PixelBuffer, duration: Double) {
        self.buffer = buffer
        self.duration = duration
    }
}
