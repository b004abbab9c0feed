import CCodecShims

/// JPEG through libjpeg-turbo (via the `CCodecShims` C target, which keeps libjpeg's longjmp
/// in C and treats a premature end of data as an error).
///
/// Decoding gives `gray8` for grayscale files and `rgba8` (alpha 255) for YCbCr and RGB
/// files; CMYK and YCCK files come back as raw ink values (Adobe APP14's inversion undone)
/// for `_ColorConversion`, which uses their ICC profile. The metadata holds the EXIF block
/// (APP1 "Exif"), the XMP packet (APP1 in Adobe's namespace) and the ICC profile (the APP2
/// ICC_PROFILE segments joined).
///
/// - Complexity: O(pixels). Progressive files keep their coefficients in memory
///   (2 bytes per sample) while decoding.
enum _JPEGCodec {
    /// The stored pixels and metadata: EXIF (and its orientation), XMP, the ICC profile
    /// from the APP2 segments; CMYK files come back as raw ink values (`isCMYK`).
    static func decodeStored(_ bytes: [UInt8], name: String, options: DecodeOptions) throws -> _DecodedImage {
        try options._checkImageIndex(count: 1, file: name)
        return try read(bytes, name: name, options: options, pixels: true)
    }

    /// What the header says: size, components, color model and metadata; no pixels decoded.
    static func inspect(_ bytes: [UInt8], name: String, options: DecodeOptions) throws -> ImageFileInfo {
        var header = pf_jpeg_header()
        let d = try read(bytes, name: name, options: options, pixels: false, headerOut: &header)
        let model: String
        switch Int(header.color) {
        case PF_JPEG_COLOR_GRAY: model = "gray"
        case PF_JPEG_COLOR_CMYK: model = "cmyk"
        default: model = header.components == 3 ? "ycbcr" : "rgb"
        }
        return ImageFileInfo(
            format: .jpeg, width: Int(header.width), height: Int(header.height),
            bitsPerSample: 8, colorModel: model, hasAlpha: false, metadata: d.metadata)
    }

    static func decode(_ bytes: [UInt8], name: String, options: DecodeOptions) throws -> PixelBuffer {
        try _ImageCodecs.finishForBuffer(
            try read(bytes, name: name, options: options, pixels: true), name: name,
            options: options)
    }

    static func read(_ bytes: [UInt8], name: String, options: DecodeOptions, pixels: Bool) throws -> _DecodedImage {
        var header = pf_jpeg_header()
        return try read(bytes, name: name, options: options, pixels: pixels, headerOut: &header)
    }

    /// The header and metadata, and the stored pixels when `pixels` (else a 1x1 placeholder).
    static func read(
        _ bytes: [UInt8], name: String, options: DecodeOptions, pixels: Bool,
        headerOut: inout pf_jpeg_header
    ) throws -> _DecodedImage {
        // Check the frame size before libjpeg reads the tables and scans after it.
        if let (width, height) = frameSize(bytes), width > 0, height > 0 {
            try options._checkDimensions(width: width, height: height, file: name)
        }
        return try bytes.withUnsafeBufferPointer { input -> _DecodedImage in
            guard
                let decoder = pf_jpeg_decoder_create(
                    input.baseAddress, input.count,
                    Int32(clamping: options.maximumJPEGScans))
            else {
                throw PixelFlowError.decodingFailed(file: name, reason: "out of memory")
            }
            defer { pf_jpeg_decoder_destroy(decoder) }
            return try read(decoder: decoder, name: name, options: options, pixels: pixels, headerOut: &headerOut)
        }
    }

    /// The header and metadata of the JPEG in the open `file`, read with `pread` (no pixels:
    /// a 1x1 placeholder), as `read(_:name:options:pixels: false)` gives them for its bytes.
    static func header(_ file: _OpenFile, options: DecodeOptions) throws -> _DecodedImage {
        let input = _JPEGInput(file: file)
        if let (width, height) = try input.frameSize(), width > 0, height > 0 {
            try options._checkDimensions(width: width, height: height, file: file.name)
        }
        guard let decoder = input.makeDecoder(maximumScans: options.maximumJPEGScans) else {
            throw PixelFlowError.decodingFailed(file: file.name, reason: "out of memory")
        }
        defer { pf_jpeg_decoder_destroy(decoder) }
        var header = pf_jpeg_header()
        return try withExtendedLifetime(input) {
            try read(decoder: decoder, name: file.name, options: options, pixels: false, headerOut: &header)
        }
    }

    /// `read` over a decoder made and destroyed by the caller, before its header is read.
    private static func read(
        decoder: OpaquePointer, name: String, options: DecodeOptions, pixels: Bool,
        headerOut: inout pf_jpeg_header
    ) throws -> _DecodedImage {
        var exif = [UInt8](repeating: 0, count: Int(PF_JPEG_EXIF_CAPACITY))
        var header = pf_jpeg_header()
        var metadata = ImageMetadata()
        var isCMYK = false
        let buffer = try { () throws -> PixelBuffer in
            var message = [CChar](repeating: 0, count: Int(PF_MESSAGE_CAPACITY))
            let headerStatus = exif.withUnsafeMutableBufferPointer {
                pf_jpeg_read_header(decoder, &header, $0.baseAddress, &message)
            }
            guard headerStatus == PF_OK else { throw error(headerStatus, message, name: name, options: options) }
            let width = Int(header.width), height = Int(header.height)
            try options._checkDimensions(width: width, height: height, file: name)
            var icc: UnsafeMutablePointer<UInt8>?, xmp: UnsafeMutablePointer<UInt8>?
            var iccSize = 0, xmpSize = 0
            pf_jpeg_copy_metadata(decoder, &icc, &iccSize, &xmp, &xmpSize)
            defer { pf_free(icc); pf_free(xmp) }
            if let icc, iccSize > 0 { metadata.iccProfile = Array(UnsafeBufferPointer(start: icc, count: iccSize)) }
            if let xmp, xmpSize > 0 { metadata.xmp = Array(UnsafeBufferPointer(start: xmp, count: xmpSize)) }
            let format = try decodedFormat(header, name: name)
            isCMYK = Int(header.color) == PF_JPEG_COLOR_CMYK
            guard pixels else { return try _Codec.makeDecodedBuffer(width: 1, height: 1, format: format) }
            pf_jpeg_set_raw_cmyk(decoder, isCMYK ? 1 : 0)
            var buffer = try _Codec.makeDecodedBuffer(width: width, height: height, format: format)
            let stride = buffer.bytesPerRow
            let threads = try options._decodeThreads(file: name)
            if threads > 1, pf_jpeg_raw_supported(decoder) != 0 {
                let pipeline = try _JPEGRawPipeline(decoder: decoder, name: name, options: options, threads: threads)
                try buffer.withUnsafeMutableBytes { pixels in
                    let base = _EncoderRows(base: UnsafeRawPointer(pixels.baseAddress!), stride: stride, firstRow: 0)
                    try pipeline.run(rows: 0..<height, threads: threads) { UnsafeMutablePointer(mutating: base.row($0)) }
                }
                return buffer
            }
            let status = buffer.withUnsafeMutableBytes { pixels in
                pf_jpeg_read_pixels(decoder, pixels.baseAddress!.assumingMemoryBound(to: UInt8.self), stride, &message)
            }
            guard status == PF_OK else { throw error(status, message, name: name, options: options) }
            return buffer
        }()
        headerOut = header
        if header.exif_size > 6 {
            let block = Array(exif[6..<Int(header.exif_size)])
            metadata.exif = block
            metadata.orientation = EXIFOrientation(exif: block) ?? .up
        }
        return _DecodedImage(buffer: buffer, metadata: metadata, isCMYK: isCMYK)
    }

    /// The pixel format a JPEG with `header` decodes into (gray stays gray; RGB, YCbCr and
    /// CMYK become rgba8), or a thrown error for color spaces PixelFlow does not convert.
    static func decodedFormat(_ header: pf_jpeg_header, name: String) throws -> PixelFormat {
        switch Int(header.color) {
        case PF_JPEG_COLOR_GRAY: return .gray8
        case PF_JPEG_COLOR_RGB, PF_JPEG_COLOR_CMYK: return .rgba8
        default:
            throw PixelFlowError.unsupportedFormat(
                file: name,
                reason: "JPEG with \(header.components) components in a color space PixelFlow does not convert")
        }
    }

    static func error(_ status: Int32, _ message: [CChar], name: String, options: DecodeOptions) -> PixelFlowError {
        if status == PF_TOO_MANY_SCANS {
            return .limitExceeded(
                what: "\(name): progressive JPEG scans", value: options.maximumJPEGScans + 1,
                limit: options.maximumJPEGScans)
        }
        return .decodingFailed(file: name, reason: "JPEG: " + _Codec.message(message))
    }

    /// The width and height in the first SOFn segment, found by walking the marker segments
    /// from SOI; `nil` when there is none before the first scan or the end of the bytes.
    static func frameSize<Bytes: RandomAccessCollection<UInt8>>(_ data: Bytes) -> (width: Int, height: Int)?
    where Bytes.Index == Int {
        let base = data.startIndex, count = data.count
        func byte(_ at: Int) -> UInt8 { data[base + at] }
        func be16(_ at: Int) -> Int { Int(byte(at)) << 8 | Int(byte(at + 1)) }
        var i = 2
        while i + 4 <= count {
            guard byte(i) == 0xFF else { return nil }
            let marker = byte(i + 1)
            if marker == 0xFF { i += 1; continue }  // fill byte
            if marker == 0x01 || (0xD0...0xD7).contains(marker) { i += 2; continue }  // no length
            if marker == 0xDA || marker == 0xD9 { return nil }  // SOS, EOI
            let length = be16(i + 2)
            let isFrame = (0xC0...0xCF).contains(marker) && marker != 0xC4 && marker != 0xC8 && marker != 0xCC
            if isFrame {
                guard length >= 7, i + 9 <= count else { return nil }
                return (width: be16(i + 7), height: be16(i + 5))
            }
            guard length >= 2 else { return nil }
            i += 2 + length
        }
        return nil
    }

    /// The shim's constant for `chroma`.
    static func subsampling(_ chroma: EncodeOptions.ChromaSubsampling) -> Int {
        switch chroma {
        case .yuv420: return PF_JPEG_SUBSAMPLING_420
        case .yuv422: return PF_JPEG_SUBSAMPLING_422
        case .yuv444: return PF_JPEG_SUBSAMPLING_444
        }
    }

    /// Encodes `gray8` as a grayscale JPEG and everything else as YCbCr: `rgba8` with its
    /// alpha dropped (not composited), other formats converted to `rgba8` first. A baseline
    /// image of two bands or more with `restartMarkers` is compressed in parallel bands
    /// (`_JPEGBandEncoder`) on two threads or more, and otherwise by one libjpeg compression
    /// (with the bands' restart markers on one thread: the same bytes).
    ///
    /// - Throws: `invalidParameter` when `quality` is outside 1...100; `encodingFailed`
    ///   when a side exceeds JPEG's 65_535 pixels.
    static func encode(
        _ source: PixelBuffer, quality: Int, name: String, options: EncodeOptions,
        metadata: _EmbeddedMetadata = .none
    ) throws -> [UInt8] {
        try _Codec.checkQuality(quality, format: .jpeg)
        var buffer = _Codec.encodable(source)
        if buffer.format == .rgba16 { buffer = buffer.converted(to: .rgba8) }
        guard buffer.width <= 65_535, buffer.height <= 65_535 else {
            throw PixelFlowError.encodingFailed(
                file: name,
                reason: "JPEG: \(buffer.width)x\(buffer.height) is larger than the format's 65535x65535")
        }
        let written = _JPEGOutput()
        let bands = _JPEGBandEncoder(
            width: buffer.width, height: buffer.height, format: buffer.format == .gray8 ? .gray8 : .rgba8,
            quality: quality, options: options, metadata: metadata, name: name,
            sink: { written.bytes.append(contentsOf: $0) })
        if let bands, bands.threads > 1 {
            try buffer.withUnsafeBytes { pixels in
                try bands.compress(
                    bands: bands.bandCount,
                    rows: _EncoderRows(base: pixels.baseAddress!, stride: buffer.bytesPerRow, firstRow: 0))
            }
            return written.bytes
        }
        // On one thread, the bands' file is written by one compression with a restart marker
        // after every row of MCUs: the same bytes, without the bands' set-ups and copies.
        let restartRows: Int32 = bands != nil ? 1 : 0
        let subsampling = subsampling(options.chromaSubsampling)
        var message = [CChar](repeating: 0, count: Int(PF_MESSAGE_CAPACITY))
        var output: UnsafeMutablePointer<UInt8>?
        var size = 0
        let status = metadata.withBlocks { blocks in
            buffer.withUnsafeBytes { pixels in
                pf_jpeg_encode_restart(
                    pixels.baseAddress!.assumingMemoryBound(to: UInt8.self), buffer.bytesPerRow,
                    UInt32(buffer.width), UInt32(buffer.height), buffer.format == .gray8 ? 1 : 4,
                    Int32(quality), Int32(subsampling), options.progressive ? 1 : 0, restartRows,
                    blocks, &output, &size, &message)
            }
        }
        defer { pf_free(output) }
        guard status == PF_OK, let output else {
            throw PixelFlowError.encodingFailed(file: name, reason: "JPEG: " + _Codec.message(message))
        }
        return Array(UnsafeBufferPointer(start: output, count: size))
    }
}

/// The bytes of a file written to memory by `_JPEGBandEncoder`'s sink.
///
/// `@unchecked Sendable`: the sink is called by one thread at a time, and the owner reads
/// `bytes` only after the encoder returned.
private final class _JPEGOutput: @unchecked Sendable {
    var bytes: [UInt8] = []
}
