// RenderContext's entry points that take an `Image`: the context itself, its options and the
// graph renders are in PixelFlowEngine (Docs/Architecture.md, "Layers"); these put the
// context's color spaces into the image's graph (`_colorManagedRoot`) and call them.

extension RenderContext.Options {
    /// Creates options; every parameter has the default stated on its property.
    public init(
        threadCount: Int? = nil, tileWidth: Int = 256, tileHeight: Int = 64,
        colorManagement: RenderContext.ColorManagement = .linear,
        maximumRenderPixelCount: Int = 100_000_000, optimizes: Bool = true, stripHeight: Int = 128,
        usesBytePath: Bool = true, workingColorSpace: ColorSpace = .linearSRGB,
        outputColorSpace: ColorSpace = .sRGB, shrinksOnLoad: Bool = true
    ) {
        self.init(
            resolvedThreadCount: threadCount ?? RenderContext.activeProcessorCount, tileWidth: tileWidth,
            tileHeight: tileHeight, colorManagement: colorManagement, maximumRenderPixelCount: maximumRenderPixelCount,
            optimizes: optimizes, stripHeight: stripHeight, usesBytePath: usesBytePath,
            workingColorSpace: workingColorSpace, outputColorSpace: outputColorSpace, shrinksOnLoad: shrinksOnLoad)
    }
}

extension RenderContext {
    /// A context with the given settings (by default: one thread per active processor, 256x64
    /// tiles, filters working on linear-light values).
    public init(options: Options = Options()) { self.init(resolvedOptions: options) }

    /// Creates a context with the given settings.
    public init(
        threadCount: Int? = nil, tileWidth: Int = 256, tileHeight: Int = 64,
        colorManagement: ColorManagement = .linear, optimizes: Bool = true
    ) {
        self.init(
            options: Options(
                threadCount: threadCount, tileWidth: tileWidth, tileHeight: tileHeight,
                colorManagement: colorManagement, optimizes: optimizes))
    }

    /// The integer rect to render for `image` and an optional `rect`.
    func renderRect(_ image: Image, _ rect: Rect?) throws -> IntRect {
        let r = rect ?? image.extent
        if r.isInfinite {
            throw PixelFlowError.invalidExtent(
                "the image's extent is infinite; pass a finite rect to render (for example image.cropped(to:))")
        }
        guard r.x.isFinite, r.y.isFinite, r.width.isFinite, r.height.isFinite else {
            throw PixelFlowError.invalidExtent("rect \(r) is not finite")
        }
        let ir = IntRect(covering: r)
        if ir.isEmpty { throw PixelFlowError.invalidExtent("nothing to render: the rect \(r) is empty") }
        let (area, overflow) = ir.width.multipliedReportingOverflow(by: ir.height)
        if overflow || area > options.maximumRenderPixelCount {
            throw PixelFlowError.limitExceeded(
                what: "render size in pixels", value: overflow ? Int.max : area,
                limit: options.maximumRenderPixelCount)
        }
        return ir
    }

    /// Renders `rect` of `image` (default: its extent, which must then be finite) into a new
    /// buffer of `format`. Integer formats get sRGB-encoded straight alpha by default, float
    /// formats linear premultiplied values.
    ///
    /// - Throws: `PixelFlowError.invalidExtent` for an infinite extent without a rect or an
    ///   empty rect; `.limitExceeded` above `maximumRenderPixelCount`.
    ///
    /// - Parameters:
    ///   - image: the image to render.
    ///   - rect: the region to render, in image pixels; nil renders the extent, which must
    ///     then be finite.
    ///   - format: the buffer's pixel format (default `.rgba8`).
    ///   - colorEncoding: the buffer's encoding; nil takes the format's default (`.sRGB` for
    ///     the integer formats, see ``PixelBuffer``).
    ///   - alphaMode: premultiplied or straight alpha; nil takes the format's default.
    ///   - cancellation: cancels the render from another thread; it then throws
    ///     `PixelFlowError.cancelled` within about one tile per worker, and no buffer is returned.
    ///   - progress: called with fractions of the work done, increasing, ending with exactly
    ///     one call with 1; calls never overlap but may come from any thread.
    public func makeBuffer(
        _ image: Image, rect: Rect? = nil, format: PixelFormat = .rgba8,
        colorEncoding: ColorEncoding? = nil, alphaMode: AlphaMode? = nil,
        cancellation: CancellationToken? = nil,
        progress: (@Sendable (Double) -> Void)? = nil
    ) throws -> PixelBuffer {
        try validate()
        let r = try renderRect(image, rect)
        let outputBytes = r.width * r.height * format.bytesPerPixel
        return try withMemory(
            estimatedMemory(image, rect: r, destinationBytes: outputBytes, streamingRowBytes: nil),
            cancellation: cancellation
        ) {
            var buffer = try PixelBuffer(
                _width: r.width, height: r.height, format: format,
                colorEncoding: colorEncoding, alphaMode: alphaMode, zeroed: false)
            try render(image, rect: r, into: &buffer, control: RenderControl(token: cancellation, progress: progress))
            return buffer
        }
    }

    /// Renders `rect` of `image` (default: its extent) into `buffer`, whose size must equal
    /// the rect's. The buffer's format, encoding and alpha mode say how pixels are stored.
    ///
    /// When the render is cancelled (see `makeBuffer`), part of `buffer` may have been written.
    public func render(
        _ image: Image, rect: Rect? = nil, to buffer: inout PixelBuffer,
        cancellation: CancellationToken? = nil, progress: (@Sendable (Double) -> Void)? = nil
    ) throws {
        try validate()
        let r = try renderRect(image, rect)
        guard r.width == buffer.width, r.height == buffer.height else {
            throw PixelFlowError.mismatch(
                "render rect is \(r.width)x\(r.height) but the buffer is \(buffer.width)x\(buffer.height)")
        }
        try withMemory(
            estimatedMemory(image, rect: r, destinationBytes: 0, streamingRowBytes: nil),
            cancellation: cancellation
        ) {
            try render(image, rect: r, into: &buffer, control: RenderControl(token: cancellation, progress: progress))
        }
    }

    /// Renders `rect` of `image` into `buffer` under `control`: through lcms2 for an output
    /// space known only by its profile, else the color-managed graph.
    func render(_ image: Image, rect: IntRect, into buffer: inout PixelBuffer, control: RenderControl? = nil) throws {
        if _outputNeedsProfileTransform && (buffer.format.isPacked32 || buffer.format == .rgba16) && buffer.colorEncoding == .sRGB
        {
            try _renderThroughOutputProfile(image, rect: rect, into: &buffer, control: control)
            return
        }
        try render(
            _colorManagedRoot(image.node, encodedDestination: buffer.colorEncoding == .sRGB), rect: rect, into: &buffer,
            control: control)
    }

    /// The plan a render of `rect` of `image` (default: its extent) would run: the optimized
    /// graph, its stages, fused nodes, folded matrices and transforms, and the buffers that
    /// would be computed with their sizes. Computes no pixels.
    public func explain(_ image: Image, rect: Rect? = nil) throws -> String {
        try validate()
        let r = try renderRect(image, rect)
        return explain(_colorManagedRoot(image.node, encodedDestination: true), rect: r)
    }

    /// Like `explain(_:rect:)`, for a render into `buffer` (its format, encoding and alpha
    /// mode): the last line says whether the byte path runs (`byte path: on: ...`) or why not
    /// (`byte path: off: ...`). Reads the source's alpha when that decides.
    public func explain(_ image: Image, rect: Rect? = nil, into buffer: PixelBuffer) throws -> String {
        try validate()
        let r = try renderRect(image, rect)
        return explain(
            _colorManagedRoot(image.node, encodedDestination: buffer.colorEncoding == .sRGB), rect: r, destination: buffer)
    }

    /// `estimatedMemory` of the render of `image`'s color-managed graph.
    func estimatedMemory(_ image: Image, rect: IntRect, destinationBytes: Int, streamingRowBytes: Int?) -> Int {
        estimatedMemory(
            _colorManagedRoot(image.node, encodedDestination: true), rect: rect, destinationBytes: destinationBytes,
            streamingRowBytes: streamingRowBytes)
    }

    /// Writes `rect` of `image` strip by strip into the file `path`, atomically (`_AtomicFile`:
    /// the file appears whole or not at all), through the encoder `makeEncoder` makes on the
    /// file's descriptor; see the engine's `writeInStrips(_:rect:open:commit:)`.
    func writeInStrips(
        _ image: Image, rect: IntRect, path: String,
        makeEncoder: (_ fileDescriptor: Int32) throws -> any _RowEncoder
    ) throws {
        var file: _AtomicFile?
        try writeInStrips(
            _colorManagedRoot(image.node, encodedDestination: true), rect: rect,
            open: {
                let opened = try _AtomicFile(path: path)
                file = opened
                return try makeEncoder(opened.fileDescriptor)
            },
            commit: { try file?.commit() })
    }
}
