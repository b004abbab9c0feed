extension Image {
    /// An image of the pixels of a PNG, JPEG, PNM or BMP file (format sniffed from the bytes),
    /// with its EXIF orientation applied unless `options` says otherwise.
    ///
    /// With `streaming`, a JPEG is not decoded here: its header is read and checked against
    /// `options`, and each render decodes the rows it needs. `RenderContext.write(_:toFile:...)`
    /// to a JPEG then decodes rows on a codec thread while the strips above them render and
    /// keeps only a window of rows about one strip tall, so neither the input nor the output
    /// is ever whole in memory; every other render decodes the file fully first (a render that
    /// needs random access, such as a 90 degree rotation, costs a full decode either way).
    /// Other formats, and a JPEG whose EXIF orientation must be applied, are decoded fully
    /// here as without `streaming`.
    ///
    /// ```swift
    /// let photo = try Image(contentsOfFile: "big.jpg", streaming: true)
    /// let small = try photo.transformed(by: AffineTransform(scaleX: 0.5, y: 0.5)).cropped(to: ...)
    /// try RenderContext().write(small, toFile: "small.jpg", quality: 90)
    /// ```
    ///
    /// - Parameters:
    ///   - options: size limits (checked before any pixel is allocated) and orientation.
    ///   - streaming: decode a JPEG lazily, row by row, at render time (default `false`).
    ///     The file's bytes stay in memory; corrupt data then throws from the render.
    /// - Throws: `PixelFlowError` naming the file for unreadable, corrupt or oversized files.
    public init(contentsOfFile path: String, options: DecodeOptions = .default, streaming: Bool = false) throws {
        guard streaming else {
            self.init(try PixelBuffer(contentsOfFile: path, options: options))
            return
        }
        let bytes = try _FileIO.readAll(path: path, limit: options.maximumFileSize)
        if ImageFileFormat.sniff(bytes) == .jpeg {
            let source = try StreamedSource(jpeg: bytes, name: path, options: options)
            if !options.applyOrientation || source.orientation == .up {
                self.init(node: Node(.streamedSource(source), inputs: [],
                                     extent: Rect(x: 0, y: 0, width: Double(source.width), height: Double(source.height))))
                return
            }
        }
        self.init(try PixelBuffer(encoded: bytes, name: path, options: options))
    }
}

extension RenderContext {
    /// Renders `rect` of `image` (default: its extent) and writes it to `path` atomically: a
    /// failed render or encode leaves any existing file untouched.
    ///
    /// A JPEG written from `.rgba8` is streamed: the output is rendered in strips of
    /// `options.stripHeight` rows, each compressed while the next renders, and streamed
    /// sources (`Image(contentsOfFile:options:streaming:)`) are decoded as the strips reach
    /// them, so peak memory is a few strips instead of whole images. The bytes are those of
    /// rendering the whole rect and encoding it. Other formats render fully, then encode.
    ///
    /// - Parameters:
    ///   - format: the file format; by default chosen from the path's extension (PNG if none).
    ///   - quality: JPEG quality, 1...100.
    ///   - pixelFormat: `.rgba8` (default) or `.rgba16` for 16-bit PNG and PNM output.
    ///   - encodeOptions: PNG compression and interlacing, JPEG progressive and subsampling.
    ///   - cancellation: cancels the render from another thread, as in `makeBuffer`; it then
    ///     throws `PixelFlowError.cancelled` and the file is not touched. A full render checks
    ///     it once more before encoding (a cancel during encoding lets the write finish); a
    ///     streamed JPEG checks it after every strip.
    ///   - progress: the render's progress, as in `makeBuffer` (encoding is not counted).
    /// - Throws: the errors of `makeBuffer` and `PixelBuffer.write(toFile:format:quality:options:)`,
    ///   and decoding errors of streamed sources met during the render.
    /// - Complexity: a streamed JPEG holds three strips of `rgba8` output, each worker's tile
    ///   scratch, and each streamed source's window of rows.
    public func write(_ image: Image, toFile path: String, rect: Rect? = nil, format: ImageFileFormat? = nil,
                      quality: Int = 90, pixelFormat: PixelFormat = .rgba8, encodeOptions: EncodeOptions = .default,
                      cancellation: CancellationToken? = nil, progress: (@Sendable (Double) -> Void)? = nil) throws {
        let chosen = try ImageFileFormat._forWriting(path, format)
        if chosen == .jpeg && pixelFormat == .rgba8 {
            try validate()
            let r = try renderRect(image, rect)
            let control = RenderControl(token: cancellation, progress: progress)
            try RenderControl.with(control) {
                try writeJPEGStreaming(image, rect: r, path: path, quality: quality, encodeOptions: encodeOptions)
            }
            return
        }
        let buffer = try makeBuffer(image, rect: rect, format: pixelFormat, cancellation: cancellation, progress: progress)
        if cancellation?.isCancelled == true { throw PixelFlowError.cancelled }
        try buffer.write(toFile: path, format: chosen, quality: quality, options: encodeOptions)
    }
}
