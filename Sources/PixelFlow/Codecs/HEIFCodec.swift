import CCodecShims

/// HEIF (`.heic`, HEVC-coded) and AVIF (AV1-coded) through libheif (via the `CCodecShims`
/// C target). One codec serves both: the container is the same, and libheif picks the
/// decoder from the file; `encode` takes the format to write.
///
/// Decoding gives `rgba8` for 8-bit images and `rgba16` for deeper ones (10 and 12 bits,
/// scaled to 0...65535 by `v * 65535 / (2^bits - 1)`, rounded); alpha 255 (65535) where the
/// file has none. Gray (monochrome) images also come back as `rgba8` with equal channels:
/// libheif 1.15 does not say an image is monochrome before decoding it.
///
/// Images: `imageIndex` 0 is the primary image (the one a viewer shows); index `i > 0` is
/// the `i`-th of the other top-level images in item-ID order. Thumbnails, grid tiles, depth
/// and auxiliary images are not counted.
///
/// Orientation: HEIF stores it in the irot (rotation) and imir (mirror) boxes, which
/// libheif applies (with clap, the crop) while decoding; libheif 1.15 does not report them,
/// so `orientation(ofItem:in:)` reads them from the boxes. `inspect` reports the stored
/// size (before irot) and that orientation. With `DecodeOptions.applyOrientation` true the
/// decoded pixels are libheif's upright ones and the decoded metadata says `.up` (nothing
/// left to turn); with it false they are turned back to the stored orientation (still
/// cropped) and the metadata carries the file's orientation. An orientation tag inside the
/// EXIF block is never used: the irot and imir boxes are authoritative, as the HEIF
/// specification says and as Apple's ImageIO does.
///
/// Metadata: the ICC profile (colr `prof` or `rICC`), the nclx colr box as `cicp`, the
/// first Exif item (without its 4-byte offset header) and the first XMP item.
///
/// - Complexity: O(pixels); libheif keeps the decoded image (its planes, then interleaved
///   RGB) while the shim copies it into the buffer, about 2x the output in scratch.
enum _HEIFCodec {
    static func inspect(_ bytes: [UInt8], name: String, options: DecodeOptions) throws -> ImageFileInfo {
        try withImage(bytes, name: name, options: options) { decoder, header, count in
            var metadata = try readMetadata(decoder, header, name: name, options: options)
            metadata.orientation = orientation(ofItem: header.item_id, in: bytes)
            // The header gives the upright size; the stored one is before the quarter turns.
            let swapped = metadata.orientation.rawValue >= 5
            return ImageFileInfo(
                format: ImageFileFormat.sniff(bytes) ?? .heif,
                width: Int(swapped ? header.height : header.width),
                height: Int(swapped ? header.width : header.height), imageCount: count,
                bitsPerSample: Int(max(header.bits_per_sample, 1)),
                colorModel: header.has_nclx != 0 && header.matrix_coefficients == 0 ? "rgb" : "ycbcr",
                hasAlpha: header.has_alpha != 0, metadata: metadata)
        }
    }

    static func decode(_ bytes: [UInt8], name: String, options: DecodeOptions) throws -> _DecodedImage {
        try withImage(bytes, name: name, options: options) { decoder, header, _ in
            try readImage(decoder, header, name: name, options: options, bytes: bytes)
        }
    }

    /// Every top-level image, the primary first, each with duration 0.
    static func decodeFrames(_ bytes: [UInt8], name: String, options: DecodeOptions) throws -> [_DecodedFrame] {
        try withDecoder(bytes, name: name, options: options) { decoder, count in
            var frames: [_DecodedFrame] = []
            var pixelsSoFar = 0
            for index in 0..<count {
                let header = try select(decoder, index: index, name: name, options: options, bytes: bytes)
                // Every frame is kept: bound the pixels of all of them, as they are counted.
                let (sum, overflow) = pixelsSoFar.addingReportingOverflow(Int(header.width) * Int(header.height))
                if overflow || sum > options.maximumPixelCount {
                    throw PixelFlowError.limitExceeded(
                        what: "\(name): pixels of the first \(index + 1) images",
                        value: overflow ? Int.max : sum, limit: options.maximumPixelCount)
                }
                pixelsSoFar = sum
                frames.append(
                    _DecodedFrame(
                        image: try readImage(decoder, header, name: name, options: options, bytes: bytes),
                        duration: 0))
            }
            return frames
        }
    }

    // MARK: - Decoding steps

    /// Opens `bytes`, checks the image count, and runs `body` with the decoder and the count.
    private static func withDecoder<R>(
        _ bytes: [UInt8], name: String, options: DecodeOptions,
        _ body: (OpaquePointer, Int) throws -> R
    ) throws -> R {
        try bytes.withUnsafeBufferPointer { input in
            guard let decoder = pf_heif_decoder_create() else {
                throw PixelFlowError.decodingFailed(file: name, reason: "out of memory")
            }
            defer { pf_heif_decoder_destroy(decoder) }
            var message = [CChar](repeating: 0, count: Int(PF_MESSAGE_CAPACITY))
            var count: Int32 = 0
            // libheif refuses larger sides while parsing; one more than the limit so that an
            // image exactly at it passes, and larger ones get PixelFlow's own limitExceeded.
            let side = Int32(clamping: max(options.maximumWidth, options.maximumHeight) + 1)
            let status = pf_heif_open(decoder, input.baseAddress, input.count, side, &count, &message)
            guard status == PF_OK else { throw error(status, message, name: name, options: options, bytes: bytes) }
            try options._checkImageCount(Int(count), file: name)
            return try body(decoder, Int(count))
        }
    }

    /// Opens `bytes` and selects image `options.imageIndex`.
    private static func withImage<R>(
        _ bytes: [UInt8], name: String, options: DecodeOptions,
        _ body: (OpaquePointer, pf_heif_header, Int) throws -> R
    ) throws -> R {
        try withDecoder(bytes, name: name, options: options) { decoder, count in
            try options._checkImageIndex(count: count, file: name)
            let header = try select(decoder, index: options.imageIndex, name: name, options: options, bytes: bytes)
            return try body(decoder, header, count)
        }
    }

    /// Selects image `index` and checks its size, and the coded size a clap box crops it
    /// from, against the limits.
    private static func select(
        _ decoder: OpaquePointer, index: Int, name: String, options: DecodeOptions,
        bytes: [UInt8]
    ) throws -> pf_heif_header {
        var message = [CChar](repeating: 0, count: Int(PF_MESSAGE_CAPACITY))
        var header = pf_heif_header()
        let status = pf_heif_select_image(decoder, Int32(index), &header, &message)
        guard status == PF_OK else { throw error(status, message, name: name, options: options, bytes: bytes) }
        try options._checkDimensions(width: Int(header.width), height: Int(header.height), file: name)
        if header.coded_width > 0, header.coded_height > 0 {
            // libheif decodes the whole coded image before cropping it: a tiny clap over a
            // huge ispe must not get through. (irot may swap the sides.)
            let (w, h) = (Int(header.coded_width), Int(header.coded_height))
            let swapped = (header.width > header.height) != (w > h)
            try options._checkDimensions(width: swapped ? h : w, height: swapped ? w : h, file: name)
        }
        return header
    }

    /// The selected image's ICC profile, nclx, EXIF and XMP.
    private static func readMetadata(
        _ decoder: OpaquePointer, _ header: pf_heif_header, name: String,
        options: DecodeOptions
    ) throws -> ImageMetadata {
        var icc = [UInt8](repeating: 0, count: header.icc_size)
        var exif = [UInt8](repeating: 0, count: header.exif_size)
        var xmp = [UInt8](repeating: 0, count: header.xmp_size)
        var message = [CChar](repeating: 0, count: Int(PF_MESSAGE_CAPACITY))
        let status = icc.withUnsafeMutableBufferPointer { i in
            exif.withUnsafeMutableBufferPointer { e in
                xmp.withUnsafeMutableBufferPointer { x in
                    pf_heif_read_metadata(decoder, i.baseAddress, e.baseAddress, x.baseAddress, &message)
                }
            }
        }
        guard status == PF_OK else { throw error(status, message, name: name, options: options, bytes: []) }
        var metadata = ImageMetadata()
        if !icc.isEmpty { metadata.iccProfile = icc }
        metadata.exif = tiffStructure(inExifItem: exif)
        if !xmp.isEmpty { metadata.xmp = xmp }
        if header.has_nclx != 0 {
            metadata.cicp = CICP(
                colorPrimaries: Int(header.color_primaries),
                transferCharacteristics: Int(header.transfer_characteristics),
                matrixCoefficients: Int(header.matrix_coefficients), fullRange: header.full_range != 0)
        }
        // Never the EXIF block's orientation: the callers set it from irot and imir.
        metadata.orientation = .up
        return metadata
    }

    /// The TIFF structure in a HEIF Exif item: after the 4-byte big-endian offset that
    /// starts the item, skipping that many more bytes (often 6, an `Exif\0\0` prefix); `nil`
    /// for an empty item or an offset past its end.
    static func tiffStructure(inExifItem item: [UInt8]) -> [UInt8]? {
        guard item.count > 4 else { return nil }
        let start = 4 + item._be32(0)
        guard start < item.count else { return nil }
        return Array(item[start...])
    }

    /// Decodes the selected image: `rgba16` when it has more than 8 bits per sample.
    private static func readImage(
        _ decoder: OpaquePointer, _ header: pf_heif_header, name: String,
        options: DecodeOptions, bytes: [UInt8]
    ) throws -> _DecodedImage {
        let metadata = try readMetadata(decoder, header, name: name, options: options)
        let deep = header.bits_per_sample > 8
        var buffer = try _Codec.makeDecodedBuffer(
            width: Int(header.width), height: Int(header.height),
            format: deep ? .rgba16 : .rgba8)
        var message = [CChar](repeating: 0, count: Int(PF_MESSAGE_CAPACITY))
        let stride = buffer.bytesPerRow
        let output = Int32(deep ? PF_HEIF_OUTPUT_RGBA16 : PF_HEIF_OUTPUT_RGBA8)
        let status = buffer.withUnsafeMutableBytes { pixels in
            pf_heif_read_pixels(decoder, output, pixels.baseAddress!.assumingMemoryBound(to: UInt8.self), stride, &message)
        }
        guard status == PF_OK else { throw error(status, message, name: name, options: options, bytes: bytes) }
        if options.applyOrientation { return _DecodedImage(buffer: buffer, metadata: metadata) }
        // libheif turned the pixels upright: turn them back, and say how they are stored.
        var stored = metadata
        stored.orientation = orientation(ofItem: header.item_id, in: bytes)
        if stored.orientation != .up { buffer = buffer.applyingOrientation(inverse(of: stored.orientation)) }
        return _DecodedImage(buffer: buffer, metadata: stored)
    }

    /// The orientation that undoes `orientation`: the quarter turns swap, the rest are their
    /// own inverses.
    static func inverse(of orientation: EXIFOrientation) -> EXIFOrientation {
        switch orientation {
        case .right: return .left
        case .left: return .right
        default: return orientation
        }
    }

    /// The `PixelFlowError` for a shim status: `unsupportedFormat` naming the missing
    /// decoder, `limitExceeded` for libheif's size limit, `decodingFailed` otherwise.
    private static func error(
        _ status: Int32, _ message: [CChar], name: String, options: DecodeOptions,
        bytes: [UInt8]
    ) -> PixelFlowError {
        let format = ImageFileFormat.sniff(bytes)
        let label = format == .avif ? "AVIF" : "HEIF"
        switch status {
        case Int32(PF_HEIF_MISSING_CODEC):
            let needs =
                format == .avif
                ? "an AV1 decoder (libheif built with dav1d or aom)"
                : "an HEVC decoder (libheif built with libde265)"
            return .unsupportedFormat(
                file: name,
                reason: "\(label): this libheif has no decoder for the file's codec; "
                    + "it needs \(needs) (\(_Codec.message(message)))")
        case Int32(PF_HEIF_SIZE_LIMIT):
            let limit = max(options.maximumWidth, options.maximumHeight)
            return .limitExceeded(
                what: "\(name): image width or height (libheif: \(_Codec.message(message)))",
                value: limit + 1, limit: limit)
        case Int32(PF_OUT_OF_MEMORY):
            return .decodingFailed(file: name, reason: "\(label): out of memory (\(_Codec.message(message)))")
        default:
            return .decodingFailed(file: name, reason: "\(label): " + _Codec.message(message))
        }
    }

    // MARK: - Encoding

    /// Encodes `buffer` as `.avif` (AV1) or `.heif` (HEVC) at `quality` 1...100.
    ///
    /// `gray8` is written monochrome and `rgba8` as 8-bit; `rgba16` as 10-bit HEIF (values
    /// scaled by `v * 1023 / 65535`, rounded) but as 8-bit AVIF, since libheif 1.15 asks aom
    /// for an AV1 profile that aom 3.6 refuses with an assert that aborts the process. Alpha
    /// is written only when some pixel is not opaque. Lossy files use 4:2:0 chroma and the
    /// BT.601 matrix (HEIF files without an nclx box, libheif's default for older macOS);
    /// `options.lossless` writes RGB as 4:4:4 with the identity matrix (stored as GBR, with
    /// an nclx box saying so), which round-trips 8-bit RGB and gray exactly with both
    /// encoders, and 16-bit HEIF within the 10-bit rounding. `options.effort` 0...9 sets AV1's speed to `9 - effort` and x265's
    /// preset to the `effort`-th of ultrafast, superfast, veryfast, faster, fast, medium,
    /// slow, slower, veryslow, veryslow (not placebo, which refuses images under 64 pixels). An nclx box (sRGB primaries and transfer, full range)
    /// is always written, and the ICC profile beside it when there is one.
    ///
    /// - Throws: `unsupportedFormat` naming the encoder libheif lacks; `encodingFailed`.
    /// - Complexity: dominated by the encoder; AV1 and HEVC encoders are slow (about a second
    ///   per megapixel at the default effort).
    static func encode(
        _ source: PixelBuffer, format: ImageFileFormat, quality: Int, name: String, options: EncodeOptions,
        metadata: _EmbeddedMetadata
    ) throws -> [UInt8] {
        let isAVIF = format == .avif
        let label = isAVIF ? "AVIF" : "HEIF"
        let codec = Int32(isAVIF ? PF_HEIF_CODEC_AV1 : PF_HEIF_CODEC_HEVC)
        guard pf_heif_have_encoder(codec) != 0 else { throw missingEncoder(isAVIF: isAVIF, name: name, detail: nil) }
        var buffer = _Codec.encodable(source)
        if isAVIF, buffer.format == .rgba16 { buffer = buffer.converted(to: .rgba8) }
        let opaque = _Codec.isOpaque(buffer)
        let input: Int32
        switch buffer.format {
        case .gray8: input = Int32(PF_HEIF_INPUT_GRAY8)
        case .rgba8: input = Int32(opaque ? PF_HEIF_INPUT_RGBA8_AS_RGB : PF_HEIF_INPUT_RGBA8)
        case .rgba16: input = Int32(opaque ? PF_HEIF_INPUT_RGBA16_AS_RGB : PF_HEIF_INPUT_RGBA16)
        case .rgbaF32, .grayF32, .bgra8, .argb8: preconditionFailure("encodable returns rgba8, rgba16 or gray8")
        }
        var message = [CChar](repeating: 0, count: Int(PF_MESSAGE_CAPACITY))
        var output: UnsafeMutablePointer<UInt8>?
        var size = 0
        let icc = metadata.iccProfile ?? [], exif = metadata.exif ?? [], xmp = metadata.xmp ?? []
        let status = buffer.withUnsafeBytes { pixels in
            icc.withUnsafeBufferPointer { i in
                exif.withUnsafeBufferPointer { e in
                    xmp.withUnsafeBufferPointer { x in
                        var settings = pf_heif_encode_settings(
                            codec: codec, quality: Int32(quality), lossless: options.lossless ? 1 : 0,
                            effort: Int32(options.effort), icc: i.baseAddress, icc_size: i.count,
                            exif: e.baseAddress, exif_size: e.count, xmp: x.baseAddress, xmp_size: x.count)
                        return pf_heif_encode(
                            pixels.baseAddress!.assumingMemoryBound(to: UInt8.self), buffer.bytesPerRow,
                            UInt32(buffer.width), UInt32(buffer.height), input, &settings,
                            &output, &size, &message)
                    }
                }
            }
        }
        defer { pf_free(output) }
        if status == PF_HEIF_MISSING_CODEC {
            throw missingEncoder(isAVIF: isAVIF, name: name, detail: _Codec.message(message))
        }
        guard status == PF_OK, let output else {
            throw PixelFlowError.encodingFailed(file: name, reason: "\(label): " + _Codec.message(message))
        }
        return Array(UnsafeBufferPointer(start: output, count: size))
    }

    /// `unsupportedFormat` naming the encoder libheif lacks and the packages that bring it.
    private static func missingEncoder(isAVIF: Bool, name: String, detail: String?) -> PixelFlowError {
        let what =
            isAVIF
            ? "AVIF: this libheif has no AV1 encoder; install libheif built with aom (Debian 12: libheif1; "
                + "newer Debian and Ubuntu: libheif-plugin-aomenc)"
            : "HEIF: this libheif has no HEVC encoder; install libheif built with x265 (Debian 12: libheif1; "
                + "newer Debian and Ubuntu: libheif-plugin-x265)"
        return .unsupportedFormat(file: name, reason: what + (detail.map { " (\($0))" } ?? ""))
    }
}
