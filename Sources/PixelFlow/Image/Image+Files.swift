extension Image {
    /// An image of the pixels of an image file (any format of `ImageFileFormat`, sniffed from
    /// the bytes), upright (its orientation applied) and color-managed unless `options` says
    /// otherwise.
    ///
    /// Pixels in a color space other than sRGB (an embedded ICC profile such as Display P3 or
    /// Adobe RGB, PNG's cICP or gAMA/cHRM, CMYK with a profile) are converted here by lcms2
    /// into linear sRGB floats (`rgbaF32`, unbounded, so colors outside sRGB keep their
    /// values and a P3 working or output space gets them back); sRGB files keep their 8 or
    /// 16-bit pixels and the fast paths that read them. `DecodeOptions.imageIndex` picks the
    /// page or frame of a multi-image file.
    ///
    /// By default (`streaming: true`) a file that can be read row by row is not decoded here:
    /// its header is read and checked against `options`, and each render decodes the rows it
    /// needs. `RenderContext.write(_:toFile:...)` to a format with a row encoder then decodes
    /// rows on a codec thread while the strips above them render and keeps only a window of
    /// rows about one strip tall, so neither the input nor the output is ever whole in memory;
    /// every other render decodes the file fully first (a render that needs random access,
    /// such as a 90 degree rotation, costs a full decode either way). `explain(_:)` says which
    /// sources stream and the window's height. Files read row by row: JPEG, non-interlaced PNG,
    /// TIFF (most layouts), PNM and BMP (`_ImageCodecs.streamedSource`); their colors are
    /// converted row by row as they are decoded (a profile other than sRGB, PNG gAMA/cHRM/cICP
    /// naming another space, CMYK), with the values of a full decode, and the EXIF orientation
    /// is applied in the stream (3 to 8 through an unlinked temporary file in `$TMPDIR`). Other
    /// formats and interlaced PNGs are decoded fully here, as with `streaming: false`.
    ///
    /// ```swift
    /// let photo = try Image(contentsOfFile: "big.jpg")                  // header only
    /// let small = try photo.transformed(by: AffineTransform(scaleX: 0.5, y: 0.5)).cropped(to: ...)
    /// try RenderContext().write(small, toFile: "small.jpg", quality: 90)  // a few strips in memory
    /// ```
    ///
    /// - Parameters:
    ///   - path: the file to read.
    ///   - options: size limits (checked before any pixel is allocated) and orientation.
    ///   - streaming: decode lazily, row by row, at render time when the format allows
    ///     (default `true`); `false` decodes here. A streamed JPEG, PNG, TIFF, binary PNM or
    ///     BMP keeps the file open and reads it as rows are decoded (other streamed files keep
    ///     their bytes in memory); corrupt data in a streamed file throws from the render.
    /// - Throws: `PixelFlowError` naming the file for unreadable, corrupt or oversized files.
    public init(contentsOfFile path: String, options: DecodeOptions = .default, streaming: Bool = true) throws {
        // A JPEG, PNG, TIFF, binary PNM or BMP is read from the open file as its rows are
        // decoded, never whole in memory; other files are read here.
        if streaming, let file = try _OpenFile(path: path, limit: options.maximumFileSize),
            let (source, declared) = try _ImageCodecs.streamedSource(file: file, options: options)
        {
            self.init(
                node: Node(
                    .streamedSource(source), inputs: [],
                    extent: Rect(x: 0, y: 0, width: Double(source.width), height: Double(source.height))),
                fileOrientation: FileOrientation(declared: declared, isApplied: options.applyOrientation))
            return
        }
        let bytes = try _FileIO.readAll(path: path, limit: options.maximumFileSize)
        try self.init(encoded: bytes, name: path, options: options, streaming: streaming)
    }

    /// An image of the pixels of an image file's bytes, as `init(contentsOfFile:options:streaming:)`.
    public init(
        encoded bytes: [UInt8], name: String = "<memory>", options: DecodeOptions = .default,
        streaming: Bool = true
    ) throws {
        let format = try _ImageCodecs.format(of: bytes, name: name, options: options)
        let reason: String
        if streaming {
            switch try _ImageCodecs.streamDecision(bytes, format: format, name: name, options: options) {
            case let .streamed(source, declared):
                self.init(
                    node: Node(
                        .streamedSource(source), inputs: [],
                        extent: Rect(x: 0, y: 0, width: Double(source.width), height: Double(source.height))),
                    fileOrientation: FileOrientation(declared: declared, isApplied: options.applyOrientation))
                return
            case let .decodedWhole(why):
                reason = why
            }
        } else {
            reason = "streaming: false"
        }
        let stored = try _ImageCodecs.decodeStored(bytes, format: format, name: name, options: options)
        let buffer: PixelBuffer
        if var linear = try _ColorConversion.toLinearWorking(
            stored, name: name,
            applyProfile: options.appliesColorProfile)
        {
            if options.applyOrientation, stored.metadata.orientation != .up {
                linear = linear.applyingOrientation(stored.metadata.orientation)
            }
            buffer = linear
        } else {
            buffer = try _ImageCodecs.finishForBuffer(stored, name: name, options: options)
        }
        self.init(
            node: Node(
                .source(buffer), inputs: [], extent: buffer.bounds,
                origin: "\(format.rawValue.uppercased()) file \(name): decoded whole when opened "
                    + "(\(reason))"),
            fileOrientation: FileOrientation(
                declared: stored.metadata.orientation,
                isApplied: options.applyOrientation))
    }
}

extension RenderContext {
    /// Renders `rect` of `image` (default: its extent) and writes it to `path` atomically: a
    /// failed render or encode leaves any existing file untouched.
    ///
    /// A JPEG written from `.rgba8`, and a PNG from `.rgba8` or `.rgba16` without interlacing,
    /// are streamed: the output is rendered in strips of `options.stripHeight` rows, each
    /// compressed while the next renders, and streamed sources
    /// (`Image(contentsOfFile:options:streaming:)`) are decoded as the strips reach them, so
    /// peak memory is a few strips instead of whole images. The bytes are those of rendering
    /// the whole rect and encoding it. Other formats render fully, then encode.
    ///
    /// A PNG is RGB when every alpha of the render is the maximum and RGBA otherwise, as when
    /// encoding a whole buffer. A streamed PNG is written as RGB until a strip has a lower
    /// alpha, and then written again from the start with alpha: an output with transparency
    /// near its top costs little more, one whose first transparent pixel is near the bottom
    /// costs up to two renders (progress then holds still until the second passes the first).
    ///
    /// - Parameters:
    ///   - image: the image to render.
    ///   - path: the file to write; its folder must exist.
    ///   - rect: the region to write, in image pixels; nil writes the extent, which must
    ///     then be finite.
    ///   - format: the file format; by default chosen from the path's extension (PNG if none).
    ///   - quality: JPEG quality, 1...100.
    ///   - pixelFormat: `.rgba8` (default) or `.rgba16` for 16-bit PNG and PNM output.
    ///   - encodeOptions: PNG compression and interlacing, JPEG progressive and subsampling,
    ///     the other formats' options, and which metadata is written: the output color
    ///     space's ICC profile by default (`colorProfile: .none` writes none), EXIF and XMP
    ///     of `encodeOptions.metadata` as `keptMetadata` says. PNG compression and JPEG bands use
    ///     the context's `threadCount` unless `encodeOptions.threadCount` is set; a streamed JPEG
    ///     write whose image reads a streamed source at least as large as the output compresses
    ///     on one thread beside the render (the same bytes: the decoder bounds that pipeline).
    ///   - cancellation: cancels the render from another thread, as in `makeBuffer`; it then
    ///     throws `PixelFlowError.cancelled` and the file is not touched. A full render checks
    ///     it once more before encoding (a cancel during encoding lets the write finish); a
    ///     streamed JPEG or PNG checks it after every strip.
    ///   - progress: the render's progress, as in `makeBuffer` (encoding is not counted).
    /// - Throws: the errors of `makeBuffer` and `PixelBuffer.write(toFile:format:quality:options:)`,
    ///   and decoding errors of streamed sources met during the render.
    /// - Complexity: a streamed JPEG or PNG holds three strips of output, each worker's tile
    ///   scratch, and each streamed source's window of rows (and its file's bytes).
    public func write(
        _ image: Image, toFile path: String, rect: Rect? = nil, format: ImageFileFormat? = nil,
        quality: Int = 90, pixelFormat: PixelFormat = .rgba8, encodeOptions: EncodeOptions = .default,
        cancellation: CancellationToken? = nil, progress: (@Sendable (Double) -> Void)? = nil
    ) throws {
        let givenThreads = encodeOptions.threadCount
        var encodeOptions = encodeOptions._withThreads(options.threadCount)
        let chosen = try ImageFileFormat._forWriting(path, format)
        // The output space's profile (sRGB's by default). Without color management the
        // values are the stored ones, taken as the output space's (sRGB for ordinary files).
        let profile: [UInt8]? = outputProfile(for: pixelFormat)
        if _ImageCodecs.hasRowEncoder(for: chosen, pixelFormat: pixelFormat, options: encodeOptions)
            && !_outputNeedsProfileTransform
        {
            try _Codec.checkQuality(quality, format: chosen)
            try encodeOptions._validate(format: chosen)
            try validate()
            let r = try renderRect(image, rect)
            if chosen == .jpeg, givenThreads == nil, Self.readsStreamedSource(image, ofAtLeast: r.width * r.height) {
                // The render waits on a streamed source's decoder, whose entropy decoding is serial
                // and costs more per pixel than the encoder: one compression on the codec thread
                // keeps up, and its bands would take cores from the render (same bytes).
                encodeOptions.threadCount = 1
            }
            let control = RenderControl(token: cancellation, progress: progress)
            let metadata = _ImageCodecs.embeddedMetadata(encodeOptions, profile: profile)
            let rowBytes = r.width * pixelFormat.bytesPerPixel
            try withMemory(
                estimatedMemory(image, rect: r, destinationBytes: 0, streamingRowBytes: rowBytes),
                cancellation: cancellation
            ) {
                // A PNG is written without alpha while every alpha is the maximum; at the first
                // row where one is not, the file is written again with alpha (what encoding the
                // whole buffer chooses). Progress then holds still until the second pass passes it.
                var assumingOpaque = true
                while true {
                    do {
                        try RenderControl.with(control) {
                            try writeInStrips(image, rect: r, path: path) { fd in
                                guard
                                    let encoder = try _ImageCodecs.rowEncoder(
                                        for: chosen, fileDescriptor: fd, width: r.width, height: r.height,
                                        pixelFormat: pixelFormat, quality: quality, options: encodeOptions,
                                        metadata: metadata, assumingOpaque: assumingOpaque, name: path)
                                else {
                                    preconditionFailure("hasRowEncoder and rowEncoder disagree for \(chosen) \(pixelFormat)")
                                }
                                return encoder
                            }
                        }
                        return
                    } catch is _RowEncoderAlphaFound where assumingOpaque {
                        assumingOpaque = false
                        control.restartCounting()
                    }
                }
            }
            return
        }
        let buffer = try makeBuffer(image, rect: rect, format: pixelFormat, cancellation: cancellation, progress: progress)
        if cancellation?.isCancelled == true { throw PixelFlowError.cancelled }
        let bytes = try _ImageCodecs.encode(
            buffer, as: chosen, quality: quality, options: encodeOptions, name: path,
            profile: profile)
        try AtomicFileWriter.write(bytes, toFile: path)
    }

    /// Whether `image` reads a streamed source (`Image(contentsOfFile:options:streaming:)`) of
    /// at least `pixels` pixels.
    static func readsStreamedSource(_ image: Image, ofAtLeast pixels: Int) -> Bool {
        GraphWalk.postOrder(image.node).contains { n in
            if case let .streamedSource(s) = n.op { return s.width * s.height >= pixels }
            return false
        }
    }

    /// The bytes of an image file holding `rect` of `image` (default: its extent) rendered in
    /// the output color space, as `write(_:toFile:...)` would write them (its profile and
    /// metadata embedded), for standard output, a network response or a database.
    ///
    /// - Throws: the errors of `makeBuffer` and of encoding.
    public func encoded(
        _ image: Image, as format: ImageFileFormat, rect: Rect? = nil, quality: Int = 90,
        pixelFormat: PixelFormat = .rgba8, encodeOptions: EncodeOptions = .default
    ) throws -> [UInt8] {
        let encodeOptions = encodeOptions._withThreads(options.threadCount)
        try _Codec.checkQuality(quality, format: format)
        try encodeOptions._validate(format: format)
        let buffer = try makeBuffer(image, rect: rect, format: pixelFormat)
        return try _ImageCodecs.encode(
            buffer, as: format, quality: quality, options: encodeOptions, name: "<memory>",
            profile: outputProfile(for: pixelFormat))
    }

    /// The ICC profile written with a render into `pixelFormat`: the output space's (its gray
    /// counterpart for gray formats when the output space is sRGB).
    func outputProfile(for pixelFormat: PixelFormat) -> [UInt8] {
        if pixelFormat.channelCount == 1 && options.outputColorSpace.isSRGB { return ColorSpace.sRGBGray.iccProfile }
        return options.outputColorSpace.iccProfile
    }
}
