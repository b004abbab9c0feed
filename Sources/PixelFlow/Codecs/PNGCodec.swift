import CCodecShims

/// PNG through libpng (via the `CCodecShims` C target, which keeps libpng's longjmp in C).
///
/// Decoding gives `gray8` for gray images of at most 8 bits without transparency, `rgba16`
/// for every 16-bit image, and `rgba8` for the rest (palette and tRNS expanded, alpha 255
/// where the file has none). Adam7-interlaced files are deinterlaced in place.
///
/// - Complexity: O(pixels); no scratch beyond libpng's row buffers.
enum _PNGCodec {
    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    static func decode(_ bytes: [UInt8], name: String, options: DecodeOptions) throws -> PixelBuffer {
        // IHDR must be the first chunk: check its size before libpng reads anything after it,
        // so a huge declared size is reported as such even when the rest is garbage.
        if bytes.count >= 24, bytes[12..<16].elementsEqual("IHDR".utf8) {
            let width = bytes._be32(16), height = bytes._be32(20)
            if width > 0, height > 0 {
                try options._checkDimensions(width: width, height: height, file: name)
            }
        }
        try checkChunkCount(bytes, name: name, limit: options.maximumPNGAncillaryChunks)
        return try bytes.withUnsafeBufferPointer { input -> PixelBuffer in
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

            let format: PixelFormat
            let output: Int32
            if header.bit_depth == 16 {
                (format, output) = (.rgba16, Int32(PF_PNG_OUTPUT_RGBA16))
            } else if header.color_type == 0 && header.has_transparency == 0 {
                (format, output) = (.gray8, Int32(PF_PNG_OUTPUT_GRAY8))
            } else {
                (format, output) = (.rgba8, Int32(PF_PNG_OUTPUT_RGBA8))
            }
            var buffer = try _Codec.makeDecodedBuffer(width: width, height: height, format: format)
            let stride = buffer.bytesPerRow
            let status = buffer.withUnsafeMutableBytes { pixels in
                pf_png_read_pixels(decoder, output, pixels.baseAddress!.assumingMemoryBound(to: UInt8.self),
                                   stride, &message)
            }
            guard status == PF_OK else {
                throw PixelFlowError.decodingFailed(file: name, reason: "PNG: " + _Codec.message(message))
            }
            return buffer
        }
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
                    throw PixelFlowError.limitExceeded(what: "\(name): PNG chunks besides image data", value: count,
                                                       limit: limit)
                }
            }
            // length < 2^32 and the file is under 2^63 bytes: no overflow.
            offset += 12 + length
        }
    }

    /// Encodes `gray8` as 8-bit gray, `rgba8` and `rgba16` as RGB when every alpha is the
    /// maximum and as RGBA otherwise, at their own bit depth. Other buffers go through
    /// `_Codec.encodable` first.
    /// The stored pixels and metadata (placeholder: metadata is not read yet).
    static func decodeStored(_ bytes: [UInt8], name: String, options: DecodeOptions) throws -> _DecodedImage {
        try options._checkImageIndex(count: 1, file: name)
        return _DecodedImage(buffer: try decode(bytes, name: name, options: options), metadata: ImageMetadata())
    }

    /// What the header says (placeholder: decodes the pixels).
    static func inspect(_ bytes: [UInt8], name: String, options: DecodeOptions) throws -> ImageFileInfo {
        let b = try decode(bytes, name: name, options: options)
        return ImageFileInfo(format: .png, width: b.width, height: b.height, bitsPerSample: b.format == .rgba16 ? 16 : 8,
                             colorModel: b.format == .gray8 ? "gray" : "rgb", hasAlpha: !_Codec.isOpaque(b))
    }

    static func encode(_ source: PixelBuffer, name: String, options: EncodeOptions,
                       metadata: _EmbeddedMetadata) throws -> [UInt8] {
        guard (0...9).contains(options.compressionLevel) else {
            throw PixelFlowError.invalidParameter(filter: "png encoder", key: "compressionLevel",
                                                  reason: "must be in 0...9, got \(options.compressionLevel)")
        }
        let buffer = _Codec.encodable(source)
        let opaque = _Codec.isOpaque(buffer)
        let input: Int32
        switch buffer.format {
        case .gray8: input = Int32(PF_PNG_INPUT_GRAY8)
        case .rgba8: input = Int32(opaque ? PF_PNG_INPUT_RGBA8_AS_RGB : PF_PNG_INPUT_RGBA8)
        case .rgba16: input = Int32(opaque ? PF_PNG_INPUT_RGBA16_AS_RGB : PF_PNG_INPUT_RGBA16)
        case .rgbaF32, .grayF32: preconditionFailure("encodable returns integer formats")
        }
        var message = [CChar](repeating: 0, count: Int(PF_MESSAGE_CAPACITY))
        var output: UnsafeMutablePointer<UInt8>?
        var size = 0
        let status = buffer.withUnsafeBytes { pixels in
            pf_png_encode(pixels.baseAddress!.assumingMemoryBound(to: UInt8.self), buffer.bytesPerRow,
                          UInt32(buffer.width), UInt32(buffer.height), input, options.interlaced ? 1 : 0,
                          Int32(options.compressionLevel), &output, &size, &message)
        }
        defer { pf_free(output) }
        guard status == PF_OK, let output else {
            throw PixelFlowError.encodingFailed(file: name, reason: "PNG: " + _Codec.message(message))
        }
        return Array(UnsafeBufferPointer(start: output, count: size))
    }
}
