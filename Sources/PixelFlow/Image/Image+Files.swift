extension Image {
    /// An image of the pixels of a PNG, JPEG, PNM or BMP file (format sniffed from the bytes),
    /// with its EXIF orientation applied unless `options` says otherwise.
    ///
    /// - Throws: `PixelFlowError` naming the file for unreadable, corrupt or oversized files.
    public init(contentsOfFile path: String, options: DecodeOptions = .default) throws {
        self.init(try PixelBuffer(contentsOfFile: path, options: options))
    }
}

extension RenderContext {
    /// Renders `rect` of `image` (default: its extent) and writes it to `path` atomically: a
    /// failed render or encode leaves any existing file untouched.
    ///
    /// - Parameters:
    ///   - format: the file format; by default chosen from the path's extension (PNG if none).
    ///   - quality: JPEG quality, 1...100.
    ///   - pixelFormat: `.rgba8` (default) or `.rgba16` for 16-bit PNG and PNM output.
    ///   - cancellation: cancels the render from another thread, as in `makeBuffer`; it then
    ///     throws `PixelFlowError.cancelled` and the file is not touched. It is checked once
    ///     more before encoding; a cancel that arrives during encoding lets the write finish.
    ///   - progress: the render's progress, as in `makeBuffer` (encoding is not counted).
    public func write(_ image: Image, toFile path: String, rect: Rect? = nil, format: ImageFileFormat? = nil,
                      quality: Int = 90, pixelFormat: PixelFormat = .rgba8,
                      cancellation: CancellationToken? = nil, progress: (@Sendable (Double) -> Void)? = nil) throws {
        let buffer = try makeBuffer(image, rect: rect, format: pixelFormat, cancellation: cancellation, progress: progress)
        if cancellation?.isCancelled == true { throw PixelFlowError.cancelled }
        try buffer.write(toFile: path, format: format, quality: quality)
    }
}
