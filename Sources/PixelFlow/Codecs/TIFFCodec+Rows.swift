import CCodecShims

/// The first page of a TIFF, delivered top to bottom one band at a time for streaming
/// renders: a band is one strip (of every plane, for separate planes) or one row of tiles.
///
/// The shim decodes each band with the code the full decode (`_TIFFCodec.decode`) runs band
/// after band: the same libtiff calls in the same order and the same per-row conversion
/// (bit depths, MinIsWhite, palette, alpha, un-premultiplying), so the rows equal a full
/// decode's byte for byte (CMYK pages: their ink values, which `StreamedSource.converted(_:)`
/// converts). Pages the full decode reads through libtiff's RGBA interface
/// (YCbCr without JPEG compression, CIE L*a*b*, LogLuv, ...) and pages whose
/// bands are taller than `maximumBandRows` or need more than `maximumBandBytes` (one strip
/// holding the whole image, say) are not streamed: `init` returns `nil`.
///
/// `@unchecked Sendable`: it owns a libtiff handle that is not thread-safe. A streaming render
/// hands it to one codec thread at a time and waits for that thread before using it again.
///
/// - Complexity: holds a reference to the file's bytes (shared by every decoder of a
///   `StreamedSource`), one strip or tile of scratch and one band of output rows.
final class _TIFFRowDecoder: @unchecked Sendable {
    /// A file's bytes that libtiff reads, shared by a streamed source and its decoders: one
    /// immutable copy in memory, so the file is held once whatever the caller does with its
    /// own array, or an open file read with `pread` as strips and tiles are needed.
    ///
    /// `@unchecked Sendable`: the bytes are written once in `init` and only read afterwards.
    final class Bytes: @unchecked Sendable {
        private let buffer: UnsafeMutableBufferPointer<UInt8>?
        private let file: _OpenFile?
        init(_ bytes: [UInt8]) {
            let copy = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: Swift.max(1, bytes.count))
            _ = copy.initialize(from: bytes)
            buffer = copy
            file = nil
            count = bytes.count
        }
        init(file: _OpenFile) {
            buffer = nil
            self.file = file
            count = file.size
        }
        let count: Int
        /// The bytes held in memory: 0 when they are read from the open file.
        var heldBytes: Int { buffer == nil ? 0 : count }
        deinit { buffer?.deallocate() }

        /// Opens a libtiff decoder over these bytes (`pf_tiff_decoder_open` or `_open_fd`);
        /// its owner keeps this object alive until the decoder is destroyed.
        func open(maximumAllocation: Int64, _ decoder: inout OpaquePointer?, _ message: inout [CChar]) -> Int32 {
            if let file {
                return pf_tiff_decoder_open_fd(
                    file.fileDescriptor, UInt64(file.size), maximumAllocation, &decoder,
                    &message)
            }
            return pf_tiff_decoder_open(buffer!.baseAddress, count, maximumAllocation, &decoder, &message)
        }
    }

    /// The tallest band streamed.
    static let maximumBandRows = 4096
    /// The most bytes of band and scratch buffers streamed.
    static let maximumBandBytes = 256 << 20

    let name: String
    let width: Int
    let height: Int
    /// `.gray8`, `.rgba8` or `.rgba16`, as the full decode gives.
    let format: PixelFormat
    /// True when the page has no alpha channel.
    let isOpaque: Bool
    private(set) var nextRow = 0
    private let bytes: Bytes
    private let decoder: OpaquePointer
    private var message = [CChar](repeating: 0, count: Int(PF_MESSAGE_CAPACITY))

    /// Reads the header of page 0 of the TIFF in `bytes` (checking it against `options`
    /// before anything sized by it is allocated) and prepares to decode its bands, or returns
    /// `nil` when the page cannot be streamed.
    ///
    /// - Throws: as `_TIFFCodec.decode` does for the header: `limitExceeded`,
    ///   `unsupportedFormat`, `decodingFailed`.
    init?(bytes: Bytes, name: String, options: DecodeOptions) throws {
        var message = [CChar](repeating: 0, count: Int(PF_MESSAGE_CAPACITY))
        var opened: OpaquePointer?
        let status = bytes.open(maximumAllocation: _TIFFCodec.maximumAllocation(options), &opened, &message)
        guard status == PF_OK, let decoder = opened else {
            throw PixelFlowError.decodingFailed(file: name, reason: "TIFF: " + _Codec.message(message))
        }
        let page: _TIFFCodec.Page
        do {
            let count = try _TIFFCodec.pageCount(decoder, name: name, options: options)
            try options._checkImageIndex(count: count, file: name)
            page = try _TIFFCodec.pageInfo(decoder, index: 0, name: name)
            try _TIFFCodec.check(page, name: name, options: options)
            var streamable: Int32 = 0
            let begun = pf_tiff_rows_begin(
                decoder, UInt32(Self.maximumBandRows), UInt64(Self.maximumBandBytes),
                &streamable, &message)
            guard begun == PF_OK else {
                throw PixelFlowError.decodingFailed(file: name, reason: "TIFF: " + _Codec.message(message))
            }
            guard streamable != 0 else {
                pf_tiff_decoder_destroy(decoder)
                return nil
            }
        } catch {
            pf_tiff_decoder_destroy(decoder)
            throw error
        }
        self.name = name
        self.bytes = bytes
        self.decoder = decoder
        width = page.width
        height = page.height
        format = _TIFFCodec.pixelFormat(of: page)
        isOpaque = !page.hasAlpha
    }

    deinit { pf_tiff_decoder_destroy(decoder) }

    /// Decodes the next `count` rows, row `i` into `rows(i)` (`width * format.bytesPerPixel`
    /// bytes).
    ///
    /// - Throws: `decodingFailed` for a corrupt or truncated strip or tile (the decoder is then
    ///   unusable).
    func readRows(count: Int, into rows: (Int) -> UnsafeMutableRawPointer) throws {
        precondition(count >= 0 && nextRow + count <= height, "rows past the end of the image")
        try _Codec.readRowBatches(count: count, into: rows) { pointers, n in
            guard pf_tiff_rows_read(decoder, pointers, UInt32(n), &message) == PF_OK else {
                throw PixelFlowError.decodingFailed(file: name, reason: "TIFF: " + _Codec.message(message))
            }
            nextRow += n
        }
    }
}

/// A one-page TIFF written to a file descriptor strip by strip as rows arrive, with the
/// bytes `_TIFFCodec.encode` gives for the whole buffer.
///
/// The in-memory encoder writes RGB when every alpha is the maximum, else RGBA; rows
/// arriving one strip at a time cannot tell in advance. So RGBA rows are written as RGB while
/// every alpha so far is the maximum, and each such row also goes, uncompressed, to a spill
/// file (made in the destination's folder and unlinked at once, so it vanishes with the
/// encoder). At the first alpha below the maximum the RGB file is dropped and the rows so far
/// are written again as RGBA from the spill file (their alpha was the maximum). An opaque
/// image costs one extra sequential write of its RGB samples to disk (page cache, not process
/// memory); an image with alpha costs that up to its first translucent row, plus reading
/// those rows back once.
///
/// `@unchecked Sendable`: like `_TIFFRowDecoder`, used by one thread at a time.
///
/// - Complexity: holds one strip of compressed output (libtiff's buffer) and a scanline.
final class _TIFFRowEncoder: @unchecked Sendable {
    let name: String
    let width: Int
    let height: Int
    /// `.rgba8`, `.rgba16` or `.gray8`.
    let format: PixelFormat
    private(set) var rowsWritten = 0
    private let encoder: OpaquePointer
    private var message = [CChar](repeating: 0, count: Int(PF_MESSAGE_CAPACITY))

    /// - Throws: `invalidParameter` for JPEG compression of `rgba16` (as the in-memory
    ///   encoder), `encodingFailed` for an empty image or another format, `io` when the spill
    ///   file cannot be made.
    init(
        fileDescriptor: Int32, width: Int, height: Int, format: PixelFormat, quality: Int,
        options: EncodeOptions, name: String, metadata: _EmbeddedMetadata = .none
    ) throws {
        let input: Int32
        switch format {
        case .gray8: input = Int32(PF_TIFF_INPUT_GRAY8)
        case .rgba8: input = Int32(PF_TIFF_INPUT_RGBA8)
        case .rgba16: input = Int32(PF_TIFF_INPUT_RGBA16)
        default:
            throw PixelFlowError.encodingFailed(file: name, reason: "TIFF rows must be gray8, rgba8 or rgba16, not \(format)")
        }
        let compression = try _TIFFCodec.compressionCode(options, format: format)
        guard width > 0, height > 0, width <= Int(UInt32.max), height <= Int(UInt32.max) else {
            throw PixelFlowError.encodingFailed(file: name, reason: "TIFF: \(width)x\(height) is not a TIFF's size")
        }
        self.name = name
        self.width = width
        self.height = height
        self.format = format
        var message = [CChar](repeating: 0, count: Int(PF_MESSAGE_CAPACITY))
        var made: OpaquePointer?
        let icc = metadata.iccProfile ?? [], xmp = metadata.xmp ?? []
        let status = icc.withUnsafeBufferPointer { icc in
            xmp.withUnsafeBufferPointer { xmp in
                pf_tiff_encoder_create(
                    fileDescriptor, UInt32(width), UInt32(height), input, compression,
                    Int32(quality), icc.baseAddress, icc.count, xmp.baseAddress, xmp.count,
                    Self.folder(of: name), &made, &message)
            }
        }
        guard status == PF_OK, let encoder = made else {
            throw Self.error(status, message, name: name)
        }
        self.encoder = encoder
    }

    deinit { pf_tiff_encoder_destroy(encoder) }

    /// Compresses the next `count` rows, `bytesPerRow` apart from `pixels`.
    ///
    /// - Throws: `encodingFailed`, or `io` when writing the file or the spill file fails.
    func write(rows pixels: UnsafeRawPointer, bytesPerRow: Int, count: Int) throws {
        precondition(count >= 0 && rowsWritten + count <= height, "rows past the end of the image")
        let status = pf_tiff_encoder_write_rows(
            encoder, pixels.assumingMemoryBound(to: UInt8.self), bytesPerRow,
            UInt32(count), &message)
        guard status == PF_OK else { throw Self.error(status, message, name: name) }
        rowsWritten += count
    }

    /// Writes the directory once every row was written.
    func finish() throws {
        let status = pf_tiff_encoder_finish(encoder, &message)
        guard status == PF_OK else { throw Self.error(status, message, name: name) }
    }

    /// The folder of the file `path` names, where the spill file goes.
    static func folder(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    private static func error(_ status: Int32, _ message: [CChar], name: String) -> PixelFlowError {
        if status == PF_IO_ERROR { return .io(file: name, reason: _Codec.message(message)) }
        return .encodingFailed(file: name, reason: "TIFF: " + _Codec.message(message))
    }
}
