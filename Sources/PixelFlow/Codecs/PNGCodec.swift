import CCodecShims

/// PNG through libpng (via the `CCodecShims` C target, which keeps libpng's longjmp in C).
///
/// Decoding gives `gray8` for gray images of at most 8 bits without transparency, `rgba16`
/// for every 16-bit image, and `rgba8` for the rest (palette and tRNS expanded, alpha 255
/// where the file has none). Adam7-interlaced files are deinterlaced in place.
///
/// - Complexity: O(pixels). Decoding needs no scratch beyond libpng's row buffers; encoding
///   about 1 MiB per thread (a chunk's filtered rows, zlib's state, its output), and the
///   compressed chunks waiting to be written in order.
enum _PNGCodec {
    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    static func decode(_ bytes: [UInt8], name: String, options: DecodeOptions) throws -> PixelBuffer {
        var icc: [UInt8]?
        return try decode(bytes, name: name, options: options, pixels: true, icc: &icc).buffer
    }

    /// The header, the iCCP profile (through libpng) and, when `pixels`, the stored pixels
    /// (else a 1x1 placeholder buffer).
    static func decode(
        _ bytes: [UInt8], name: String, options: DecodeOptions, pixels: Bool,
        icc iccOut: inout [UInt8]?
    ) throws -> (buffer: PixelBuffer, header: pf_png_header) {
        // IHDR must be the first chunk: check its size before libpng reads anything after it,
        // so a huge declared size is reported as such even when the rest is garbage.
        if bytes.count >= 24, bytes[12..<16].elementsEqual("IHDR".utf8) {
            let width = bytes._be32(16), height = bytes._be32(20)
            if width > 0, height > 0 {
                try options._checkDimensions(width: width, height: height, file: name)
            }
        }
        try checkChunkCount(bytes, name: name, limit: options.maximumPNGAncillaryChunks)
        return try bytes.withUnsafeBufferPointer { input -> (buffer: PixelBuffer, header: pf_png_header) in
            guard let decoder = pf_png_decoder_create(input.baseAddress, input.count) else {
                throw PixelFlowError.decodingFailed(file: name, reason: "out of memory")
            }
            defer { pf_png_decoder_destroy(decoder) }
            var message = [CChar](repeating: 0, count: Int(PF_MESSAGE_CAPACITY))
            var header = pf_png_header()
            guard pf_png_read_header(decoder, &header, &message) == PF_OK else {
                throw PixelFlowError.decodingFailed(file: name, reason: "PNG: " + _Codec.message(message))
            }
            let width = Int(header.width), height = Int(header.height)
            try options._checkDimensions(width: width, height: height, file: name)
            var icc: UnsafeMutablePointer<UInt8>?
            var iccSize = 0
            if pf_png_copy_icc(decoder, &icc, &iccSize) == PF_OK, let icc, iccSize > 0 {
                iccOut = Array(UnsafeBufferPointer(start: icc, count: iccSize))
            }
            pf_free(icc)

            let (format, output) = outputLayout(header)
            guard pixels else { return (try _Codec.makeDecodedBuffer(width: 1, height: 1, format: format), header) }
            var buffer = try _Codec.makeDecodedBuffer(width: width, height: height, format: format)
            let stride = buffer.bytesPerRow
            let status = buffer.withUnsafeMutableBytes { pixels in
                pf_png_read_pixels(
                    decoder, output, pixels.baseAddress!.assumingMemoryBound(to: UInt8.self),
                    stride, &message)
            }
            guard status == PF_OK else {
                throw PixelFlowError.decodingFailed(file: name, reason: "PNG: " + _Codec.message(message))
            }
            return (buffer, header)
        }
    }

    /// The decoded layout of a file with `header` and the libpng output (`PF_PNG_OUTPUT_*`)
    /// that gives it: `rgba16` for 16 bits, `gray8` for gray without tRNS, else `rgba8`.
    static func outputLayout(_ header: pf_png_header) -> (format: PixelFormat, output: Int32) {
        if header.bit_depth == 16 { return (.rgba16, Int32(PF_PNG_OUTPUT_RGBA16)) }
        if header.color_type == 0 && header.has_transparency == 0 { return (.gray8, Int32(PF_PNG_OUTPUT_GRAY8)) }
        return (.rgba8, Int32(PF_PNG_OUTPUT_RGBA8))
    }

    /// True when a file with `header` decodes with every alpha at the maximum: its color type
    /// has no alpha channel and it has no tRNS chunk.
    static func isOpaque(_ header: pf_png_header) -> Bool {
        header.color_type & 4 == 0 && header.has_transparency == 0
    }

    /// The header and metadata of `bytes` (limits checked, no pixels decoded), as
    /// `decodeStored` would return them but with a 1x1 placeholder buffer of the decoded
    /// layout: what `_ImageCodecs.conversion` reads.
    static func readHeader(_ bytes: [UInt8], name: String, options: DecodeOptions) throws
        -> (image: _DecodedImage, header: pf_png_header)
    {
        var icc: [UInt8]?
        let (buffer, header) = try decode(bytes, name: name, options: options, pixels: false, icc: &icc)
        var metadata = metadataChunks(bytes)
        metadata.iccProfile = icc
        return (_DecodedImage(buffer: buffer, metadata: metadata), header)
    }

    /// The metadata chunks before the image data, read from the raw chunk stream: sRGB, gAMA,
    /// cHRM, cICP, eXIf and the XMP iTXt chunk (uncompressed; a compressed one is skipped).
    /// Malformed chunks are ignored here (libpng judges the file).
    static func metadataChunks(_ bytes: [UInt8]) -> ImageMetadata {
        var m = ImageMetadata()
        var offset = 8
        while offset + 12 <= bytes.count {
            let length = bytes._be32(offset)
            let type = String(decoding: bytes[(offset + 4)..<(offset + 8)], as: UTF8.self)
            let start = offset + 8
            guard length <= bytes.count - start else { break }
            let data = bytes[start..<(start + length)]
            switch type {
            case "IDAT", "IEND": return m
            case "sRGB": m.declaresSRGB = true
            case "gAMA" where length == 4:
                let g = Double(bytes._be32(start)) / 100_000
                if g > 0 { m.gamma = g }
            case "cHRM" where length == 32:
                let v = (0..<8).map { Double(bytes._be32(start + 4 * $0)) / 100_000 }
                m.chromaticities = Chromaticities(
                    whiteX: v[0], whiteY: v[1], redX: v[2], redY: v[3],
                    greenX: v[4], greenY: v[5], blueX: v[6], blueY: v[7])
            case "cICP" where length == 4:
                m.cicp = CICP(
                    colorPrimaries: Int(data[start]), transferCharacteristics: Int(data[start + 1]),
                    matrixCoefficients: Int(data[start + 2]), fullRange: data[start + 3] != 0)
            case "eXIf" where length >= 8:
                let block = Array(data)
                m.exif = block
                m.orientation = EXIFOrientation(exif: block) ?? .up
            case "iTXt":
                let key = Array("XML:com.adobe.xmp".utf8) + [0]
                if data.starts(with: key), length >= key.count + 2, data[start + key.count] == 0 {
                    // compression flag 0, method, then language and translated keyword, NUL-terminated.
                    var i = start + key.count + 2
                    var nuls = 0
                    while i < start + length, nuls < 2 {
                        if bytes[i] == 0 { nuls += 1 }
                        i += 1
                    }
                    if nuls == 2 { m.xmp = Array(bytes[i..<(start + length)]) }
                }
            default: break
            }
            offset = start + length + 4
        }
        return m
    }

    /// Walks the chunk headers (length and type; nothing is read or checked inside a chunk)
    /// and throws `limitExceeded` when more than `limit` chunks other than IDAT come before
    /// IEND or the end of the bytes.
    ///
    /// - Complexity: O(chunks).
    static func checkChunkCount(_ bytes: [UInt8], name: String, limit: Int) throws {
        var offset = 8, count = 0
        while offset + 8 <= bytes.count {
            let length = bytes._be32(offset)
            let type = bytes[(offset + 4)..<(offset + 8)]
            if type.elementsEqual("IEND".utf8) { return }
            if !type.elementsEqual("IDAT".utf8) {
                count += 1
                if count > limit {
                    throw PixelFlowError.limitExceeded(
                        what: "\(name): PNG chunks besides image data", value: count,
                        limit: limit)
                }
            }
            // length < 2^32 and the file is under 2^63 bytes: no overflow.
            offset += 12 + length
        }
    }

    /// The bytes of `file` from its start through the length and type of its first IDAT
    /// chunk: all that `readHeader` reads. Walks every chunk header to IEND with positional
    /// reads and throws `limitExceeded` as `checkChunkCount` does over the whole file. Nil
    /// when there is no IDAT chunk (the caller reads the whole file, and the full decoder
    /// reports what is wrong).
    ///
    /// - Complexity: O(chunks) reads of 8 bytes, plus the bytes before the image data.
    static func headerPrefix(_ file: _OpenFile, options: DecodeOptions) throws -> [UInt8]? {
        var offset = 8, count = 0
        var prefixEnd: Int?
        while offset + 8 <= file.size {
            let head = try file.read(at: offset, count: 8)
            guard head.count == 8 else { break }
            let length = head._be32(0)
            let type = head[4..<8]
            if type.elementsEqual("IEND".utf8) { break }
            if type.elementsEqual("IDAT".utf8) {
                if prefixEnd == nil { prefixEnd = offset + 8 }
            } else {
                count += 1
                if count > options.maximumPNGAncillaryChunks {
                    throw PixelFlowError.limitExceeded(
                        what: "\(file.name): PNG chunks besides image data", value: count,
                        limit: options.maximumPNGAncillaryChunks)
                }
            }
            offset += 12 + length
        }
        guard let prefixEnd else { return nil }
        return try file.read(at: 0, count: prefixEnd)
    }

    /// The stored pixels and metadata (iCCP, sRGB, gAMA, cHRM, cICP, eXIf, XMP).
    static func decodeStored(_ bytes: [UInt8], name: String, options: DecodeOptions) throws -> _DecodedImage {
        try options._checkImageIndex(count: 1, file: name)
        var icc: [UInt8]?
        let buffer = try decode(bytes, name: name, options: options, pixels: true, icc: &icc).buffer
        var metadata = metadataChunks(bytes)
        metadata.iccProfile = icc
        return _DecodedImage(buffer: buffer, metadata: metadata)
    }

    /// What the header and the chunks before the image data say; no pixels decoded.
    static func inspect(_ bytes: [UInt8], name: String, options: DecodeOptions) throws -> ImageFileInfo {
        var icc: [UInt8]?
        let header = try decode(bytes, name: name, options: options, pixels: false, icc: &icc).header
        var metadata = metadataChunks(bytes)
        metadata.iccProfile = icc
        let model: String
        switch header.color_type {
        case 0, 4: model = "gray"
        case 3: model = "palette"
        default: model = "rgb"
        }
        return ImageFileInfo(
            format: .png, width: Int(header.width), height: Int(header.height),
            bitsPerSample: Int(header.bit_depth), colorModel: model,
            hasAlpha: header.color_type == 4 || header.color_type == 6 || header.has_transparency != 0,
            metadata: metadata)
    }

    /// Encodes `gray8` as 8-bit gray, `rgba8` and `rgba16` as RGB when every alpha is the
    /// maximum and as RGBA otherwise, at their own bit depth. Other buffers go through
    /// `_Codec.encodable` first. A non-interlaced file's image data is filtered and
    /// compressed in parallel chunks (`_PNGImageDataEncoder`), the same bytes for every
    /// `options.threadCount`; `_PNGRowEncoder` writes the same bytes row by row. Adam7 files
    /// go through libpng row by row (`encodeWithLibpng`).
    static func encode(
        _ source: PixelBuffer, name: String, options: EncodeOptions,
        metadata: _EmbeddedMetadata = .none
    ) throws -> [UInt8] {
        try checkCompressionLevel(options)
        let buffer = _Codec.encodable(source)
        let input = inputLayout(buffer.format, opaque: _Codec.isOpaque(buffer))
        if options.interlaced {
            return try encodeWithLibpng(buffer, input: input, name: name, options: options, metadata: metadata)
        }
        let writer = try _PNGImageDataEncoder(
            fileDescriptor: -1, width: buffer.width, height: buffer.height,
            input: input, options: options, metadata: metadata, name: name)
        try buffer.withUnsafeBytes { pixels in
            try writer.compress(
                chunks: writer.chunkCount,
                rows: _EncoderRows(base: pixels.baseAddress!, stride: buffer.bytesPerRow, firstRow: 0))
        }
        try writer.finish()
        return writer.takeOutput()
    }

    /// The file libpng writes from `buffer`'s rows in the `input` layout, with its own filters
    /// and one zlib stream: how Adam7 files are written (and, in tests, the size the parallel
    /// encoder is compared with).
    static func encodeWithLibpng(
        _ buffer: PixelBuffer, input: Int32, name: String, options: EncodeOptions,
        metadata: _EmbeddedMetadata
    ) throws -> [UInt8] {
        var message = [CChar](repeating: 0, count: Int(PF_MESSAGE_CAPACITY))
        var output: UnsafeMutablePointer<UInt8>?
        var size = 0
        let srgbChunk = writesSRGBChunk(metadata)
        let status = metadata.withBlocks { blocks in
            buffer.withUnsafeBytes { pixels in
                pf_png_encode(
                    pixels.baseAddress!.assumingMemoryBound(to: UInt8.self), buffer.bytesPerRow,
                    UInt32(buffer.width), UInt32(buffer.height), input, options.interlaced ? 1 : 0,
                    Int32(options.compressionLevel), blocks, srgbChunk ? 1 : 0, &output, &size, &message)
            }
        }
        defer { pf_free(output) }
        guard status == PF_OK, let output else {
            throw PixelFlowError.encodingFailed(file: name, reason: "PNG: " + _Codec.message(message))
        }
        return Array(UnsafeBufferPointer(start: output, count: size))
    }

    /// The libpng input (`PF_PNG_INPUT_*`) for rows of `format`: RGB when `opaque` (every
    /// alpha the maximum, so dropping it loses nothing), RGBA otherwise, at the format's depth.
    static func inputLayout(_ format: PixelFormat, opaque: Bool) -> Int32 {
        switch format {
        case .gray8: return Int32(PF_PNG_INPUT_GRAY8)
        case .rgba8: return Int32(opaque ? PF_PNG_INPUT_RGBA8_AS_RGB : PF_PNG_INPUT_RGBA8)
        case .rgba16: return Int32(opaque ? PF_PNG_INPUT_RGBA16_AS_RGB : PF_PNG_INPUT_RGBA16)
        case .rgbaF32, .grayF32, .bgra8, .argb8: preconditionFailure("PNG rows are rgba8, rgba16 or gray8")
        }
    }

    /// Whether `metadata`'s profile is sRGB's own, written as the 13-byte sRGB chunk instead.
    static func writesSRGBChunk(_ metadata: _EmbeddedMetadata) -> Bool {
        metadata.iccProfile == ColorSpace.sRGB.iccProfile || metadata.iccProfile == ColorSpace.sRGBGray.iccProfile
    }

    /// Throws `invalidParameter` unless the compression level is zlib's 0...9.
    static func checkCompressionLevel(_ options: EncodeOptions) throws {
        guard (0...9).contains(options.compressionLevel) else {
            throw PixelFlowError.invalidParameter(
                filter: "png encoder", key: "compressionLevel",
                reason: "must be in 0...9, got \(options.compressionLevel)")
        }
    }
}
