/// Thrown by a row encoder made `assumingOpaque` (it writes no alpha channel, as the
/// in-memory encoder does for a buffer whose every alpha is the maximum) when a row has an
/// alpha below the maximum, before anything of that row is written: the caller writes the
/// file again with an encoder that keeps alpha (see `RenderContext.write(_:toFile:...)`).
struct _RowEncoderAlphaFound: Error {}

extension _JPEGRowDecoder: _RowDecoder {}
extension _JPEGRowEncoder: _RowEncoder {}
extension _PNGRowDecoder: _RowDecoder {}
extension _PNGRowEncoder: _RowEncoder {}
extension _TIFFRowDecoder: _RowDecoder {}
extension _TIFFRowEncoder: _RowEncoder {}

/// How `Image(encoded:)` reads a file: as a streamed source, or decoded whole when it is
/// opened, with the reason `explain()` gives.
enum _StreamDecision {
    /// The source, and the orientation the file declares (applied or not, as
    /// `DecodeOptions.applyOrientation` says; `.up` for formats that declare none).
    case streamed(StreamedSource, declared: EXIFOrientation)
    case decodedWhole(reason: String)
}

extension _ImageCodecs {
    /// A streamed source over the file in `bytes` when its format can be read row by row,
    /// else the reason it is decoded whole. Reads the header only.
    ///
    /// The source's rows are those of the full decode: a color profile or CMYK is converted
    /// row by row (`StreamedSource.converted(_:)`), the EXIF orientation is applied in the
    /// stream (`StreamedSource.oriented(_:)`).
    static func streamDecision(
        _ bytes: [UInt8], format: ImageFileFormat, name: String,
        options: DecodeOptions
    ) throws -> _StreamDecision {
        guard options.imageIndex == 0 else { return .decodedWhole(reason: "a page or frame other than the first") }
        switch format {
        case .jpeg:
            let header = try _JPEGCodec.read(bytes, name: name, options: options, pixels: false)
            if let why = wholeDecodeReason(header, options: options) { return .decodedWhole(reason: why) }
            let source = try StreamedSource(jpeg: bytes, name: name, options: options, rawCMYK: header.isCMYK)
            return .streamed(
                try finished(source, header: header, name: name, options: options),
                declared: header.metadata.orientation)
        case .pnm:
            // No profile, orientation or CMYK in PNM and BMP: their rows are always plain.
            return .streamed(try StreamedSource(pnm: bytes, name: name, options: options), declared: .up)
        case .bmp:
            return .streamed(try StreamedSource(bmp: bytes, name: name, options: options), declared: .up)
        case .png:
            let (header, info) = try _PNGCodec.readHeader(bytes, name: name, options: options)
            guard info.interlaced == 0 else {
                return .decodedWhole(reason: "an interlaced (Adam7) PNG has complete rows only after its last pass")
            }
            if let why = wholeDecodeReason(header, options: options) { return .decodedWhole(reason: why) }
            return .streamed(
                try finished(
                    StreamedSource(png: bytes, name: name, options: options), header: header,
                    name: name, options: options), declared: header.metadata.orientation)
        case .tiff:
            let header = try _TIFFCodec.header(bytes, name: name, options: options)
            if let why = wholeDecodeReason(header, options: options) { return .decodedWhole(reason: why) }
            guard let source = try StreamedSource(tiff: bytes, name: name, options: options) else {
                return .decodedWhole(
                    reason: "libtiff reads this TIFF's layout (its compression, planes or "
                        + "subsampling) only as a whole image here")
            }
            return .streamed(
                try finished(source, header: header, name: name, options: options),
                declared: header.metadata.orientation)
        case .webp:
            return .decodedWhole(reason: "libwebp decodes into a buffer of the whole image (its incremental decoder too)")
        case .gif:
            return .decodedWhole(reason: "GIF frames are composited on a canvas of the whole image")
        case .heif, .avif:
            return .decodedWhole(reason: "libheif decodes whole images (and tile grids) at once")
        }
    }

    /// The streamed source of `streamDecision`, or nil when the file is decoded whole.
    static func streamedSource(
        _ bytes: [UInt8], format: ImageFileFormat, name: String,
        options: DecodeOptions
    ) throws -> StreamedSource? {
        if case let .streamed(source, _) = try streamDecision(bytes, format: format, name: name, options: options) {
            return source
        }
        return nil
    }

    /// `source`, whose rows are the stored ones of the file with `header`, turned upright and
    /// converted as `Image(encoded:)`'s full decode turns and converts that file (the order
    /// does not change a pixel: the conversion works pixel by pixel; turning first spools
    /// the smaller stored rows).
    static func finished(
        _ source: StreamedSource, header: _DecodedImage, name: String,
        options: DecodeOptions
    ) throws -> StreamedSource {
        source.oriented(orientation(header, options: options))
            .converted(try _RowConversion.of(header, name: name, options: options))
    }

    /// Why the file with `header` is decoded whole when opened rather than streamed, or nil
    /// when it streams: an EXIF orientation (applied, as `options` says) that
    /// `StreamedSource.orientsInStream` cannot apply (today every orientation streams). Color
    /// profiles and CMYK are converted in the stream.
    static func wholeDecodeReason(_ header: _DecodedImage, options: DecodeOptions) -> String? {
        let o = orientation(header, options: options)
        if !StreamedSource.orientsInStream(o) {
            return "EXIF orientation \(o.rawValue) turns it by reading the file's columns as rows"
        }
        return nil
    }

    /// The orientation a decode applies: the file's, unless `applyOrientation` is false.
    static func orientation(_ header: _DecodedImage, options: DecodeOptions) -> EXIFOrientation {
        options.applyOrientation ? header.metadata.orientation : .up
    }

    /// An encoder that writes `format` row by row to `fileDescriptor`, or `nil` when the
    /// format, the row layout or the options have none (the caller renders fully, then encodes).
    ///
    /// With `assumingOpaque`, formats whose in-memory encoder drops an alpha that is the
    /// maximum everywhere (PNG) write no alpha channel and throw `_RowEncoderAlphaFound` at the
    /// first row where it is not; without, they keep alpha. Other formats ignore it.
    static func rowEncoder(
        for format: ImageFileFormat, fileDescriptor: Int32, width: Int, height: Int,
        pixelFormat: PixelFormat, quality: Int, options: EncodeOptions,
        metadata: _EmbeddedMetadata, assumingOpaque: Bool = true,
        name: String
    ) throws -> (any _RowEncoder)? {
        guard hasRowEncoder(for: format, pixelFormat: pixelFormat, options: options) else { return nil }
        switch format {
        case .jpeg:
            return try _JPEGRowEncoder(
                fileDescriptor: fileDescriptor, width: width, height: height, format: .rgba8,
                quality: quality, options: options, name: name, metadata: metadata)
        case .pnm where pixelFormat == .gray8 || pixelFormat == .rgba8 || pixelFormat == .rgba16:
            return try _PNMRowEncoder(
                fileDescriptor: fileDescriptor, width: width, height: height,
                format: pixelFormat, name: name)
        case .bmp where pixelFormat == .gray8 || pixelFormat == .rgba8:
            return try _BMPRowEncoder(
                fileDescriptor: fileDescriptor, width: width, height: height,
                format: pixelFormat, name: name)
        case .png:
            return try _PNGRowEncoder(
                fileDescriptor: fileDescriptor, width: width, height: height,
                format: pixelFormat, assumingOpaque: assumingOpaque, options: options,
                name: name, metadata: metadata)
        case .tiff where pixelFormat == .rgba8 || pixelFormat == .rgba16 || pixelFormat == .gray8:
            return try _TIFFRowEncoder(
                fileDescriptor: fileDescriptor, width: width, height: height,
                format: pixelFormat, quality: quality, options: options, name: name,
                metadata: metadata)
        default:
            return nil
        }
    }

    /// Whether `rowEncoder(for:...)` gives an encoder for these, without making one: JPEG from
    /// `rgba8`; PNG from `rgba8` or `rgba16`, not interlaced (Adam7 passes need every row).
    static func hasRowEncoder(for format: ImageFileFormat, pixelFormat: PixelFormat, options: EncodeOptions) -> Bool {
        switch format {
        case .jpeg: return pixelFormat == .rgba8
        case .pnm: return pixelFormat == .gray8 || pixelFormat == .rgba8 || pixelFormat == .rgba16
        case .bmp: return pixelFormat == .gray8 || pixelFormat == .rgba8
        case .png: return (pixelFormat == .rgba8 || pixelFormat == .rgba16) && !options.interlaced
        case .tiff: return pixelFormat == .rgba8 || pixelFormat == .rgba16 || pixelFormat == .gray8
        default: return false
        }
    }
}
