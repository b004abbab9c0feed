/// The one place that sends bytes to the codec of their format, and turns what a decoder
/// returns (stored pixels plus metadata) into what callers get: CMYK converted, the color
/// profile applied, the orientation applied.
enum _ImageCodecs {
    /// The format of `bytes`, or `unsupportedFormat` naming the first bytes.
    static func format(of bytes: [UInt8], name: String, options: DecodeOptions) throws -> ImageFileFormat {
        guard !bytes.isEmpty else { throw PixelFlowError.decodingFailed(file: name, reason: "the file is empty") }
        guard bytes.count <= options.maximumFileSize else {
            throw PixelFlowError.limitExceeded(
                what: "\(name): file size in bytes", value: bytes.count,
                limit: options.maximumFileSize)
        }
        guard let format = ImageFileFormat.sniff(bytes) else {
            let head = bytes.prefix(8).map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined(separator: " ")
            throw PixelFlowError.unsupportedFormat(
                file: name,
                reason: "not a PNG, JPEG, WebP, TIFF, GIF, HEIF, AVIF, PNM or BMP file (it starts with \(head))")
        }
        return format
    }

    /// The stored pixels and metadata of image `options.imageIndex`.
    static func decodeStored(
        _ bytes: [UInt8], format: ImageFileFormat, name: String,
        options: DecodeOptions
    ) throws -> _DecodedImage {
        switch format {
        case .png: return try _PNGCodec.decodeStored(bytes, name: name, options: options)
        case .jpeg: return try _JPEGCodec.decodeStored(bytes, name: name, options: options)
        case .pnm:
            try options._checkImageIndex(count: 1, file: name)
            return _DecodedImage(buffer: try _PNMCodec.decode(bytes, name: name, options: options), metadata: ImageMetadata())
        case .bmp:
            try options._checkImageIndex(count: 1, file: name)
            return _DecodedImage(buffer: try _BMPCodec.decode(bytes, name: name, options: options), metadata: ImageMetadata())
        case .webp: return try _WebPCodec.decode(bytes, name: name, options: options)
        case .tiff: return try _TIFFCodec.decode(bytes, name: name, options: options)
        case .gif: return try _GIFCodec.decode(bytes, name: name, options: options)
        case .heif, .avif: return try _HEIFCodec.decode(bytes, name: name, options: options)
        }
    }

    /// Every frame (GIF, WebP), page (TIFF) or top-level image (HEIF) as stored; one for the
    /// other formats.
    static func decodeStoredFrames(
        _ bytes: [UInt8], format: ImageFileFormat, name: String,
        options: DecodeOptions
    ) throws -> [_DecodedFrame] {
        switch format {
        case .webp: return try _WebPCodec.decodeFrames(bytes, name: name, options: options)
        case .tiff: return try _TIFFCodec.decodeFrames(bytes, name: name, options: options)
        case .gif: return try _GIFCodec.decodeFrames(bytes, name: name, options: options)
        case .heif, .avif: return try _HEIFCodec.decodeFrames(bytes, name: name, options: options)
        case .png, .jpeg, .pnm, .bmp:
            var first = options
            first.imageIndex = 0
            return [_DecodedFrame(image: try decodeStored(bytes, format: format, name: name, options: first), duration: 0)]
        }
    }

    /// What the headers of `bytes` say, without decoding pixels.
    static func inspect(
        _ bytes: [UInt8], format: ImageFileFormat, name: String,
        options: DecodeOptions
    ) throws -> ImageFileInfo {
        switch format {
        case .png: return try _PNGCodec.inspect(bytes, name: name, options: options)
        case .jpeg: return try _JPEGCodec.inspect(bytes, name: name, options: options)
        case .pnm, .bmp:
            var first = options
            first.imageIndex = 0
            let b = try decodeStored(bytes, format: format, name: name, options: first).buffer
            return ImageFileInfo(
                format: format, width: b.width, height: b.height,
                bitsPerSample: b.format == .rgba16 ? 16 : 8,
                colorModel: b.format == .gray8 ? "gray" : "rgb",
                hasAlpha: b.format.hasAlpha && !_Codec.isOpaque(b))
        case .webp: return try _WebPCodec.inspect(bytes, name: name, options: options)
        case .tiff: return try _TIFFCodec.inspect(bytes, name: name, options: options)
        case .gif: return try _GIFCodec.inspect(bytes, name: name, options: options)
        case .heif, .avif: return try _HEIFCodec.inspect(bytes, name: name, options: options)
        }
    }

    /// The stored image made ready for a `PixelBuffer`: CMYK converted to RGB, the color
    /// profile converted to sRGB (when `options.appliesColorProfile`), the orientation applied
    /// (when `options.applyOrientation`).
    static func finishForBuffer(_ decoded: _DecodedImage, name: String, options: DecodeOptions) throws -> PixelBuffer {
        var buffer = try _ColorConversion.toSRGB(decoded, name: name, applyProfile: options.appliesColorProfile)
        if options.applyOrientation, decoded.metadata.orientation != .up {
            buffer = buffer.applyingOrientation(decoded.metadata.orientation)
        }
        return buffer
    }

    /// Encodes `buffer` as `format` with the metadata `options` resolves to.
    static func encode(
        _ buffer: PixelBuffer, as format: ImageFileFormat, quality: Int, options: EncodeOptions,
        name: String, profile: [UInt8]?
    ) throws -> [UInt8] {
        try _Codec.checkQuality(quality, format: format)
        try options._validate(format: format)
        let metadata = embeddedMetadata(options, profile: profile)
        switch format {
        case .png: return try _PNGCodec.encode(buffer, name: name, options: options, metadata: metadata)
        case .jpeg: return try _JPEGCodec.encode(buffer, quality: quality, name: name, options: options, metadata: metadata)
        case .pnm: return try _PNMCodec.encode(buffer, name: name)
        case .bmp: return try _BMPCodec.encode(buffer, name: name)
        case .webp: return try _WebPCodec.encode(buffer, quality: quality, name: name, options: options, metadata: metadata)
        case .tiff: return try _TIFFCodec.encode(buffer, quality: quality, name: name, options: options, metadata: metadata)
        case .gif:
            // GIF is read as sRGB by every decoder; its profile extension is rare, so sRGB's is left out.
            var gif = metadata
            if gif.iccProfile == ColorSpace.sRGB.iccProfile || gif.iccProfile == ColorSpace.sRGBGray.iccProfile {
                gif.iccProfile = nil
            }
            return try _GIFCodec.encode(buffer, quality: quality, name: name, options: options, metadata: gif)
        case .heif, .avif:
            return try _HEIFCodec.encode(
                buffer, format: format, quality: quality, name: name, options: options,
                metadata: metadata)
        }
    }

    /// The profile of a buffer's pixels: PixelFlow's buffers are sRGB (gray ones with the
    /// sRGB curve).
    static func defaultProfile(for buffer: PixelBuffer) -> [UInt8] {
        buffer.format.channelCount == 1 ? ColorSpace.sRGBGray.iccProfile : ColorSpace.sRGB.iccProfile
    }

    /// The blocks to write: `profile` unless `options.colorProfile` is `.none`; EXIF (with its
    /// orientation reset to 1) and XMP from `options.metadata` as `options.keptMetadata` says.
    static func embeddedMetadata(_ options: EncodeOptions, profile: [UInt8]?) -> _EmbeddedMetadata {
        var m = _EmbeddedMetadata()
        if options.colorProfile == .automatic { m.iccProfile = profile }
        if let source = options.metadata {
            if options.keptMetadata.contains(.exif), let exif = source.exif {
                m.exif = EXIFOrientation.resettingOrientation(in: exif)
            }
            if options.keptMetadata.contains(.xmp) { m.xmp = source.xmp }
        }
        return m
    }
}
