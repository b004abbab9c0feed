import CCodecShims

/// TIFF through libtiff (via the `CCodecShims` C target, which gives every handle its own
/// error handlers and reads from and writes to memory).
///
/// Reading gives, for each page (directory):
/// - `gray8` for gray of at most 8 bits without alpha (1, 2 and 4 bits expanded, MinIsWhite
///   inverted); `rgba8` for gray with alpha, RGB(A) and palette images of at most 8 bits
///   (colormap scaled to 8 bits); `rgba16` for every 9 to 16-bit gray or RGB(A) page;
/// - C, M, Y, K (`isCMYK`) in `rgba8` or `rgba16` for Photometric Separated with InkSet CMYK;
/// - straight alpha: associated alpha is un-premultiplied, unassociated kept as is;
/// - YCbCr without JPEG compression, CIE L*a*b*, LogLuv and other 8-bit layouts that
///   libtiff's RGBA interface reads, as `rgba8`.
/// Strips and tiles, both planar configurations and every compression of the system libtiff
/// (none, LZW, Deflate, PackBits, JPEG, CCITT, ...) with their predictors are read.
/// Floating-point samples and samples over 16 bits throw `unsupportedFormat`.
///
/// Metadata: the ICC profile (tag 34675), XMP (tag 700) and Orientation (tag 274, whose
/// values 1...8 are EXIF's). TIFF keeps EXIF in a sub-IFD rather than as a block, so
/// `metadata.exif` stays `nil` and the encoder writes no EXIF.
///
/// Writing gives one page: 8-bit gray for `gray8`, 16-bit for `rgba16`, 8-bit otherwise;
/// RGB when every alpha is the maximum, else RGBA with unassociated alpha (ExtraSamples 2);
/// strips of about 64 KiB compressed as `EncodeOptions.tiffCompression` says.
///
/// - Complexity: O(pixels); one scanline or one tile of scratch.
enum _TIFFCodec {
    /// What the shim says about one page, with its metadata blocks copied.
    struct Page {
        var width: Int
        var height: Int
        var bitsPerSample: Int
        var colorModel: String
        var hasAlpha: Bool
        var output: Int32
        var isCMYK: Bool
        var supported: Bool
        var reason: String
        var tileWidth: Int
        var tileHeight: Int
        var metadata: ImageMetadata
    }

    static func inspect(_ bytes: [UInt8], name: String, options: DecodeOptions) throws -> ImageFileInfo {
        try withDecoder(bytes, name: name, options: options) { decoder in
            let count = try pageCount(decoder, name: name, options: options)
            let page = try pageInfo(decoder, index: 0, name: name)
            try options._checkDimensions(width: page.width, height: page.height, file: name)
            return ImageFileInfo(
                format: .tiff, width: page.width, height: page.height, imageCount: count,
                bitsPerSample: page.bitsPerSample, colorModel: page.colorModel,
                hasAlpha: page.hasAlpha, isAnimated: false, metadata: page.metadata)
        }
    }

    static func decode(_ bytes: [UInt8], name: String, options: DecodeOptions) throws -> _DecodedImage {
        try withDecoder(bytes, name: name, options: options) { decoder in
            let count = try pageCount(decoder, name: name, options: options)
            try options._checkImageIndex(count: count, file: name)
            let page = try pageInfo(decoder, index: options.imageIndex, name: name)
            try check(page, name: name, options: options)
            return try readPixels(decoder, page: page, name: name)
        }
    }

    /// Every page (duration 0), after checking that all of them fit `maximumPixelCount`
    /// together.
    static func decodeFrames(_ bytes: [UInt8], name: String, options: DecodeOptions) throws -> [_DecodedFrame] {
        try withDecoder(bytes, name: name, options: options) { decoder in
            let count = try pageCount(decoder, name: name, options: options)
            var total = 0
            var sizes = Set<[Int]>()
            for index in 0..<count {
                let page = try pageInfo(decoder, index: index, name: name)
                try check(page, name: name, options: options)
                total += page.width * page.height  // each is at most maximumPixelCount: no overflow
                sizes.insert([page.width, page.height])
                if total > options.maximumPixelCount {
                    if sizes.count == 1 {
                        try options._checkFramesTotal(count: count, width: page.width, height: page.height, file: name)
                    }
                    throw PixelFlowError.limitExceeded(
                        what: "\(name): pixels of all \(count) pages",
                        value: total, limit: options.maximumPixelCount)
                }
            }
            return try (0..<count).map { index in
                let page = try pageInfo(decoder, index: index, name: name)
                return _DecodedFrame(image: try readPixels(decoder, page: page, name: name), duration: 0)
            }
        }
    }

    static func encode(
        _ source: PixelBuffer, quality: Int, name: String, options: EncodeOptions,
        metadata: _EmbeddedMetadata
    ) throws -> [UInt8] {
        let buffer = _Codec.encodable(source)
        let opaque = _Codec.isOpaque(buffer)
        let input: Int32
        switch buffer.format {
        case .gray8: input = Int32(PF_TIFF_INPUT_GRAY8)
        case .rgba8: input = Int32(opaque ? PF_TIFF_INPUT_RGBA8_AS_RGB : PF_TIFF_INPUT_RGBA8)
        case .rgba16: input = Int32(opaque ? PF_TIFF_INPUT_RGBA16_AS_RGB : PF_TIFF_INPUT_RGBA16)
        case .rgbaF32, .grayF32, .bgra8, .argb8: preconditionFailure("encodable returns rgba8, rgba16 or gray8")
        }
        let compression = try compressionCode(options, format: buffer.format)
        var message = [CChar](repeating: 0, count: Int(PF_MESSAGE_CAPACITY))
        var output: UnsafeMutablePointer<UInt8>?
        var size = 0
        let icc = metadata.iccProfile ?? [], xmp = metadata.xmp ?? []
        let status = buffer.withUnsafeBytes { pixels in
            icc.withUnsafeBufferPointer { icc in
                xmp.withUnsafeBufferPointer { xmp in
                    pf_tiff_encode(
                        pixels.baseAddress!.assumingMemoryBound(to: UInt8.self), buffer.bytesPerRow,
                        UInt32(buffer.width), UInt32(buffer.height), input, compression,
                        Int32(quality), icc.baseAddress, icc.count, xmp.baseAddress, xmp.count,
                        &output, &size, &message)
                }
            }
        }
        defer { pf_free(output) }
        guard status == PF_OK, let output else {
            throw PixelFlowError.encodingFailed(file: name, reason: "TIFF: " + _Codec.message(message))
        }
        return Array(UnsafeBufferPointer(start: output, count: size))
    }

    /// The shim's code for `options.tiffCompression`, after checking that it takes `format`.
    ///
    /// - Throws: `invalidParameter` for JPEG compression of `rgba16`.
    static func compressionCode(_ options: EncodeOptions, format: PixelFormat) throws -> Int32 {
        if options.tiffCompression == .jpeg && format == .rgba16 {
            throw PixelFlowError.invalidParameter(
                filter: "tiff encoder", key: "tiffCompression",
                reason: "JPEG compression takes 8-bit images; convert the rgba16 buffer to rgba8 or choose another compression")
        }
        switch options.tiffCompression {
        case .none: return Int32(PF_TIFF_COMPRESSION_NONE)
        case .lzw: return Int32(PF_TIFF_COMPRESSION_LZW)
        case .deflate: return Int32(PF_TIFF_COMPRESSION_DEFLATE)
        case .packBits: return Int32(PF_TIFF_COMPRESSION_PACKBITS)
        case .jpeg: return Int32(PF_TIFF_COMPRESSION_JPEG)
        }
    }

    /// The stored metadata of page 0 and its pixel layout, with a 1x1 placeholder buffer
    /// instead of the pixels: what `_ImageCodecs.conversion` looks at before streaming.
    ///
    /// - Throws: as `decode`, for the header and limits only.
    static func header(_ bytes: [UInt8], name: String, options: DecodeOptions) throws -> _DecodedImage {
        try withDecoder(bytes, name: name, options: options) { try header(decoder: $0, name: name, options: options) }
    }

    /// `header(_:name:options:)` of the TIFF in `bytes`, which may read an open file.
    static func header(_ bytes: _TIFFRowDecoder.Bytes, name: String, options: DecodeOptions) throws -> _DecodedImage {
        var message = [CChar](repeating: 0, count: Int(PF_MESSAGE_CAPACITY))
        var decoder: OpaquePointer?
        let status = bytes.open(maximumAllocation: maximumAllocation(options), &decoder, &message)
        guard status == PF_OK, let decoder else {
            throw PixelFlowError.decodingFailed(file: name, reason: "TIFF: " + _Codec.message(message))
        }
        defer { pf_tiff_decoder_destroy(decoder) }
        return try header(decoder: decoder, name: name, options: options)
    }

    private static func header(decoder: OpaquePointer, name: String, options: DecodeOptions) throws -> _DecodedImage {
        let count = try pageCount(decoder, name: name, options: options)
        try options._checkImageIndex(count: count, file: name)
        let page = try pageInfo(decoder, index: options.imageIndex, name: name)
        try check(page, name: name, options: options)
        let buffer = try _Codec.makeDecodedBuffer(width: 1, height: 1, format: pixelFormat(of: page))
        return _DecodedImage(buffer: buffer, metadata: page.metadata, isCMYK: page.isCMYK)
    }

    /// The layout a readable page decodes to.
    static func pixelFormat(of page: Page) -> PixelFormat {
        switch page.output {
        case Int32(PF_TIFF_OUTPUT_GRAY8): return .gray8
        case Int32(PF_TIFF_OUTPUT_RGBA16): return .rgba16
        default: return .rgba8
        }
    }

    // MARK: - Decoding steps

    /// Opens a decoder over `bytes` for the duration of `body`.
    static func withDecoder<T>(
        _ bytes: [UInt8], name: String, options: DecodeOptions,
        _ body: (OpaquePointer) throws -> T
    ) throws -> T {
        try bytes.withUnsafeBufferPointer { input in
            var message = [CChar](repeating: 0, count: Int(PF_MESSAGE_CAPACITY))
            var decoder: OpaquePointer?
            let status = pf_tiff_decoder_open(
                input.baseAddress, input.count, maximumAllocation(options),
                &decoder, &message)
            guard status == PF_OK, let decoder else {
                throw PixelFlowError.decodingFailed(file: name, reason: "TIFF: " + _Codec.message(message))
            }
            defer { pf_tiff_decoder_destroy(decoder) }
            return try body(decoder)
        }
    }

    /// The largest single allocation libtiff may make: enough for a strip or tile of the
    /// largest image the limits accept at 16 bits and 5 samples, and at least 64 MiB.
    static func maximumAllocation(_ options: DecodeOptions) -> Int64 {
        let bytes = _Codec.product(max(options.maximumPixelCount, 0), 10) ?? Int.max
        return Int64(max(bytes, 64 << 20))
    }

    /// The number of pages, counted up to `maximumImageCount + 1`.
    static func pageCount(_ decoder: OpaquePointer, name: String, options: DecodeOptions) throws -> Int {
        var message = [CChar](repeating: 0, count: Int(PF_MESSAGE_CAPACITY))
        var count: UInt32 = 0
        let limit = UInt32(clamping: max(options.maximumImageCount, 0))
        guard pf_tiff_count_pages(decoder, limit, &count, &message) == PF_OK else {
            throw PixelFlowError.decodingFailed(file: name, reason: "TIFF: " + _Codec.message(message))
        }
        try options._checkImageCount(Int(count), file: name)
        return Int(count)
    }

    /// Makes page `index` current and describes it.
    static func pageInfo(_ decoder: OpaquePointer, index: Int, name: String) throws -> Page {
        var message = [CChar](repeating: 0, count: Int(PF_MESSAGE_CAPACITY))
        var info = pf_tiff_page_info()
        guard pf_tiff_read_page_info(decoder, UInt32(index), &info, &message) == PF_OK else {
            throw PixelFlowError.decodingFailed(file: name, reason: "TIFF: page \(index): " + _Codec.message(message))
        }
        var metadata = ImageMetadata()
        if let icc = info.icc, info.icc_size > 0 {
            metadata.iccProfile = Array(UnsafeBufferPointer(start: icc, count: Int(info.icc_size)))
        }
        if let xmp = info.xmp, info.xmp_size > 0 {
            metadata.xmp = Array(UnsafeBufferPointer(start: xmp, count: Int(info.xmp_size)))
        }
        metadata.orientation = EXIFOrientation(rawValue: Int(info.orientation)) ?? .up
        let models = ["gray", "rgb", "palette", "cmyk", "ycbcr"]
        let model = Int(info.color_model)
        return Page(
            width: Int(info.width), height: Int(info.height), bitsPerSample: Int(info.bits_per_sample),
            colorModel: model < models.count ? models[model] : "other", hasAlpha: info.has_alpha != 0,
            output: Int32(info.output), isCMYK: info.is_cmyk != 0, supported: info.supported != 0,
            reason: info.supported != 0 ? "" : _Codec.message(message),
            tileWidth: Int(info.tile_width), tileHeight: Int(info.tile_height), metadata: metadata)
    }

    /// Throws unless `page` is readable and its size and tiles are within the limits.
    static func check(_ page: Page, name: String, options: DecodeOptions) throws {
        try options._checkDimensions(width: page.width, height: page.height, file: name)
        guard page.supported else {
            throw PixelFlowError.unsupportedFormat(file: name, reason: "TIFF: " + page.reason)
        }
        if page.tileWidth > 0 {
            // A tile is decoded whole: it may not be larger than an image the limits accept.
            do {
                try options._checkDimensions(width: page.tileWidth, height: page.tileHeight, file: name)
            } catch PixelFlowError.limitExceeded(_, let value, let limit) {
                throw PixelFlowError.limitExceeded(
                    what: "\(name): tile size (\(page.tileWidth)x\(page.tileHeight))",
                    value: value, limit: limit)
            }
        }
    }

    /// Decodes the current page, which `check` accepted.
    private static func readPixels(_ decoder: OpaquePointer, page: Page, name: String) throws -> _DecodedImage {
        var buffer = try _Codec.makeDecodedBuffer(width: page.width, height: page.height, format: pixelFormat(of: page))
        var message = [CChar](repeating: 0, count: Int(PF_MESSAGE_CAPACITY))
        let stride = buffer.bytesPerRow
        let status = buffer.withUnsafeMutableBytes { pixels in
            pf_tiff_read_pixels(decoder, pixels.baseAddress!.assumingMemoryBound(to: UInt8.self), stride, &message)
        }
        guard status == PF_OK else {
            throw PixelFlowError.decodingFailed(file: name, reason: "TIFF: " + _Codec.message(message))
        }
        return _DecodedImage(buffer: buffer, metadata: page.metadata, isCMYK: page.isCMYK)
    }
}
