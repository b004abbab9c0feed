/// An image file whose headers have been read: its format, size, number of pages or frames
/// and metadata, with its pixels decoded only when asked (like ImageIO's `CGImageSource`).
///
/// ```swift
/// let file = try ImageFile(contentsOfFile: "animation.gif")
/// print(file.info.imageCount, file.metadata.iccProfile != nil)
/// let first = try file.decode()                 // upright, sRGB
/// for frame in try file.frames() { print(frame.duration) }
/// ```
public struct ImageFile: Sendable {
    /// How errors name the file: its path, or the name given with the bytes.
    public let name: String
    /// The limits and choices used to read it.
    public let options: DecodeOptions
    /// What the headers say.
    public let info: ImageFileInfo
    let bytes: [UInt8]

    /// The file's format.
    public var format: ImageFileFormat { info.format }
    /// The file's color profile, EXIF, XMP and orientation.
    public var metadata: ImageMetadata { info.metadata }

    /// Reads the file at `path` and its headers.
    ///
    /// - Throws: `io` when it cannot be read; `limitExceeded` for a file, image or page count
    ///   over the limits; `unsupportedFormat` or `decodingFailed` for bytes in no supported
    ///   format or corrupt headers.
    public init(contentsOfFile path: String, options: DecodeOptions = .default) throws {
        let bytes = try _FileIO.readAll(path: path, limit: options.maximumFileSize)
        try self.init(encoded: bytes, name: path, options: options)
    }

    /// Reads the headers of the image file in `bytes`.
    public init(encoded bytes: [UInt8], name: String = "<memory>", options: DecodeOptions = .default) throws {
        let format = try _ImageCodecs.format(of: bytes, name: name, options: options)
        self.name = name
        self.options = options
        self.bytes = bytes
        self.info = try _ImageCodecs.inspect(bytes, format: format, name: name, options: options)
    }

    /// Decodes image `index` (a TIFF page, an animation frame, a HEIF top-level image;
    /// default `options.imageIndex`): upright and in sRGB as `options` say, like
    /// `PixelBuffer(encoded:name:options:)`.
    ///
    /// - Throws: `invalidParameter` for an index outside `0..<info.imageCount`; decoding errors.
    public func decode(imageAt index: Int? = nil) throws -> PixelBuffer {
        var o = options
        if let index { o.imageIndex = index }
        let stored = try _ImageCodecs.decodeStored(bytes, format: format, name: name, options: o)
        return try _ImageCodecs.finishForBuffer(stored, name: name, options: o)
    }

    /// Every frame of an animated GIF or WebP (each the whole canvas after compositing, with
    /// its duration), every page of a TIFF, every top-level image of a HEIF; one frame for
    /// the other formats. Each is upright and in sRGB as `options` say.
    ///
    /// - Throws: `limitExceeded` when the frames would hold more than
    ///   `options.maximumPixelCount` pixels in all, or there are more than
    ///   `options.maximumImageCount`; decoding errors.
    /// - Complexity: O(frames x canvas pixels); every frame is kept.
    public func frames() throws -> [ImageFrame] {
        try _ImageCodecs.decodeStoredFrames(bytes, format: format, name: name, options: options).map {
            ImageFrame(
                buffer: try _ImageCodecs.finishForBuffer($0.image, name: name, options: options),
                duration: $0.duration)
        }
    }
}
