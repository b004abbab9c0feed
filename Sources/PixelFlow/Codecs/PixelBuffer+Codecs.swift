/// Reading and writing image files: PNG, JPEG, WebP, TIFF, GIF, HEIF, AVIF, PNM/PAM and BMP.
///
/// ```swift
/// let photo = try PixelBuffer(contentsOfFile: "in.jpg")          // upright, rgba8
/// try photo.write(toFile: "out.png")                              // format from the extension
/// let bytes = try photo.encoded(as: .jpeg, quality: 85)
/// ```
///
/// Decoded buffers are sRGB-encoded with straight alpha: `gray8` for gray files without
/// alpha, `rgba16` for 16-bit PNG and PNM, `rgba8` for everything else (alpha 255 where the
/// file has none). Every decoder checks the declared size against `DecodeOptions` before it
/// allocates, and reports corrupt, truncated or unsupported data as a thrown error naming
/// the file; none prints or stops the process.
extension PixelBuffer {
    /// Decodes the image file at `path`; its format comes from its first bytes.
    ///
    /// - Throws: `io` when the file cannot be read; `limitExceeded` when it is larger than
    ///   `options.maximumFileSize` or its image larger than the limits; `unsupportedFormat`,
    ///   `decodingFailed` as for `init(encoded:name:options:)`.
    public init(contentsOfFile path: String, options: DecodeOptions = .default) throws {
        let bytes = try _FileIO.readAll(path: path, limit: options.maximumFileSize)
        try self.init(encoded: bytes, name: path, options: options)
    }

    /// Decodes an image file read from `fileDescriptor` (standard input is 0) to its end.
    ///
    /// - Parameters:
    ///   - name: how errors name the input.
    ///   - fileDescriptor: an open file descriptor to read to its end; it is not closed.
    ///   - options: size limits (checked before any pixel is allocated) and orientation.
    public init(
        readingFileDescriptor fileDescriptor: Int32, name: String = "<standard input>",
        options: DecodeOptions = .default
    ) throws {
        let bytes = try _FileIO.readAll(fileDescriptor: fileDescriptor, name: name, limit: options.maximumFileSize)
        try self.init(encoded: bytes, name: name, options: options)
    }

    /// Decodes the bytes of an image file; the format comes from its first bytes.
    ///
    /// - Parameters:
    ///   - bytes: a whole image file in one of the formats of `ImageFileFormat`.
    ///   - name: how errors name the input, usually its path.
    ///   - options: size limits and whether to apply a JPEG's EXIF orientation.
    /// - Throws: `decodingFailed` for empty, corrupt or truncated data; `unsupportedFormat`
    ///   for data in no supported format or an unsupported variant (say, RLE BMP);
    ///   `limitExceeded` when the image is larger than the limits, before any allocation.
    /// - Complexity: O(pixels); the buffer, plus libjpeg's coefficients for progressive JPEG.
    public init(encoded bytes: [UInt8], name: String = "<memory>", options: DecodeOptions = .default) throws {
        let format = try _ImageCodecs.format(of: bytes, name: name, options: options)
        let stored = try _ImageCodecs.decodeStored(bytes, format: format, name: name, options: options)
        self = try _ImageCodecs.finishForBuffer(stored, name: name, options: options)
    }

    /// The bytes of an image file holding this buffer.
    ///
    /// `rgba8`, `gray8` and `rgba16` are written as they are where the format allows: PNG
    /// keeps 16 bits and drops an alpha channel that is 255 (65535) everywhere; PNM writes
    /// P5, P6 or P7; JPEG and BMP take 8 bits, JPEG drops alpha. Float buffers and the other
    /// byte orders (`bgra8`, `argb8`) are first converted to `rgba8` (`grayF32` to `gray8`),
    /// so every writer takes every format; linear or premultiplied buffers are converted to
    /// sRGB with straight alpha.
    ///
    /// - Parameters:
    ///   - format: the file format.
    ///   - quality: JPEG quality, 1 (smallest) ... 100 (best); checked for every format.
    ///   - options: PNG compression level and interlacing, JPEG progressive and subsampling.
    /// - Throws: `invalidParameter` for a quality or compression level out of range;
    ///   `encodingFailed` when the library fails or the image is too large for the format.
    public func encoded(as format: ImageFileFormat, quality: Int = 90, options: EncodeOptions = .default) throws -> [UInt8] {
        try _encoded(as: format, quality: quality, options: options, name: "<memory>")
    }

    func _encoded(as format: ImageFileFormat, quality: Int, options: EncodeOptions, name: String) throws -> [UInt8] {
        try _ImageCodecs.encode(
            self, as: format, quality: quality, options: options, name: name,
            profile: _ImageCodecs.defaultProfile(for: self))
    }

    /// Writes this buffer to the file at `path` atomically: the file is encoded in memory,
    /// written to a temporary file in the same folder, flushed and renamed into place, so a
    /// failure (including an encoding error) leaves any existing file untouched.
    ///
    /// - Parameters:
    ///   - path: the file to write; its folder must exist.
    ///   - options: each format's other settings (compression, subsampling, metadata).
    ///   - format: the file format; `nil` chooses it from the path's extension (see
    ///     `ImageFileFormat.init(pathExtension:)`), PNG when there is none.
    ///   - quality: JPEG quality, 1...100.
    /// - Throws: `unsupportedFormat` when `format` is `nil` and the extension names no
    ///   supported format; the errors of `encoded(as:quality:options:)`; `io`.
    public func write(
        toFile path: String, format: ImageFileFormat? = nil, quality: Int = 90,
        options: EncodeOptions = .default
    ) throws {
        let chosen = try ImageFileFormat._forWriting(path, format)
        let bytes = try _encoded(as: chosen, quality: quality, options: options, name: path)
        try AtomicFileWriter.write(bytes, toFile: path)
    }

    /// Writes this buffer encoded as `format` to `fileDescriptor` (standard output is 1).
    ///
    /// - Parameters:
    ///   - name: how errors name the output.
    ///   - fileDescriptor: an open file descriptor to write to; it is not closed.
    ///   - format: the file format.
    ///   - quality: JPEG quality, 1...100 (default 90); also lossy WebP, HEIF and AVIF.
    ///   - options: each format's other settings (compression, subsampling, metadata).
    public func write(
        toFileDescriptor fileDescriptor: Int32, format: ImageFileFormat, quality: Int = 90,
        options: EncodeOptions = .default, name: String = "<standard output>"
    ) throws {
        let bytes = try _encoded(as: format, quality: quality, options: options, name: name)
        try _FileIO.writeAll(bytes, to: fileDescriptor, name: name)
    }
}
