import CCodecShims
import CSIMD

/// The bytes of a PNG file, shared by the decoders of one streamed source: either a copy in
/// memory (libpng's read callback keeps reading it between calls, so it must not move) or an
/// open file read with `pread` as rows are decoded, so the file is never all in memory.
///
/// `@unchecked Sendable`: the bytes are written once in `init` and only read afterwards.
final class _PNGFileBytes: @unchecked Sendable {
    private let bytes: UnsafeMutableBufferPointer<UInt8>?
    private let file: _OpenFile?

    init(_ source: [UInt8]) {
        let copy = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: Swift.max(1, source.count))
        _ = copy.initialize(from: source)
        bytes = UnsafeMutableBufferPointer(start: copy.baseAddress, count: source.count)
        file = nil
    }

    init(file: _OpenFile) {
        bytes = nil
        self.file = file
    }

    deinit { bytes?.deallocate() }

    /// The bytes held in memory: 0 when they are read from the open file.
    var heldBytes: Int { bytes?.count ?? 0 }

    /// A libpng decoder over these bytes (nil when out of memory); it reads them until it is
    /// destroyed, so its owner keeps this object alive.
    func makeDecoder() -> OpaquePointer? {
        if let file { return pf_png_decoder_create_fd(file.fileDescriptor, UInt64(file.size)) }
        return pf_png_decoder_create(bytes!.baseAddress, bytes!.count)
    }
}

/// A PNG decoder that delivers rows top to bottom on demand, for streaming renders.
///
/// It reads the header in `init` (checking the size against `DecodeOptions`) and then decodes
/// rows with libpng's `png_read_row`, with exactly the transformations of `_PNGCodec.decode`
/// (the shims share one function that sets them), so the rows equal a full decode's:
/// `gray8` for gray of at most 8 bits without tRNS, `rgba16` for 16 bits, else `rgba8`.
/// Adam7-interlaced files cannot be read this way (a row is only complete after the last
/// pass): `init` throws for them, and `_ImageCodecs.streamedSource` decodes them fully.
/// Corrupt or truncated data throws from whichever call meets it.
///
/// `@unchecked Sendable`: it owns a libpng object that is not thread-safe. A streaming render
/// hands it to one codec thread at a time and waits for that thread before using it again.
final class _PNGRowDecoder: @unchecked Sendable {
    let name: String
    let width: Int
    let height: Int
    let format: PixelFormat
    /// True when the file has neither an alpha channel nor tRNS (every alpha is the maximum).
    let isOpaque: Bool
    /// Rows decoded so far.
    private(set) var nextRow = 0
    /// Kept alive while libpng reads from it.
    private let file: _PNGFileBytes
    private let decoder: OpaquePointer
    private var message = [CChar](repeating: 0, count: Int(PF_MESSAGE_CAPACITY))

    /// Reads the header of the PNG in `file` and prepares to decode rows. The chunk count
    /// limit is checked by `_PNGCodec.readHeader`, which `StreamedSource(png:...)` runs first.
    ///
    /// - Throws: `limitExceeded` for a size beyond `options`, `decodingFailed` for corrupt
    ///   data or an interlaced file.
    init(file: _PNGFileBytes, name: String, options: DecodeOptions) throws {
        guard let decoder = file.makeDecoder() else {
            throw PixelFlowError.decodingFailed(file: name, reason: "out of memory")
        }
        self.name = name
        self.file = file
        self.decoder = decoder
        var header = pf_png_header()
        var message = [CChar](repeating: 0, count: Int(PF_MESSAGE_CAPACITY))
        do {
            guard pf_png_read_header(decoder, &header, &message) == PF_OK else {
                throw PixelFlowError.decodingFailed(file: name, reason: "PNG: " + _Codec.message(message))
            }
            try options._checkDimensions(width: Int(header.width), height: Int(header.height), file: name)
            let layout = _PNGCodec.outputLayout(header)
            guard pf_png_start_rows(decoder, layout.output, &message) == PF_OK else {
                throw PixelFlowError.decodingFailed(file: name, reason: "PNG: " + _Codec.message(message))
            }
            format = layout.format
        } catch {
            pf_png_decoder_destroy(decoder)
            throw error
        }
        width = Int(header.width)
        height = Int(header.height)
        isOpaque = _PNGCodec.isOpaque(header)
    }

    deinit { pf_png_decoder_destroy(decoder) }

    /// Decodes the next `count` rows, row `i` into `rows(i)` (`width * format.bytesPerPixel`
    /// bytes).
    ///
    /// - Throws: `decodingFailed` for corrupt or truncated data (the decoder is then unusable).
    func readRows(count: Int, into rows: (Int) -> UnsafeMutableRawPointer) throws {
        precondition(count >= 0 && nextRow + count <= height, "rows past the end of the image")
        try _Codec.readRowBatches(count: count, into: rows) { pointers, n in
            guard pf_png_read_rows(decoder, pointers, UInt32(n), &message) == PF_OK else {
                throw PixelFlowError.decodingFailed(file: name, reason: "PNG: " + _Codec.message(message))
            }
            nextRow += n
        }
    }
}

extension StreamedSource {
    /// Reads the header of the non-interlaced PNG in `bytes` (checking limits and decoding
    /// nothing else). The bytes are copied once and shared by every decoder of the source.
    ///
    /// - Throws: `limitExceeded`, or `decodingFailed` for corrupt data or an Adam7 file.
    convenience init(png bytes: [UInt8], name: String, options: DecodeOptions) throws {
        _ = try _PNGCodec.readHeader(bytes, name: name, options: options)
        try self.init(png: _PNGFileBytes(bytes), name: name, options: options)
    }

    /// A source over the PNG in `file`, whose header the caller has checked with
    /// `_PNGCodec.readHeader` (limits, chunk count).
    convenience init(png file: _PNGFileBytes, name: String, options: DecodeOptions) throws {
        let decoder = try _PNGRowDecoder(file: file, name: name, options: options)
        let (width, height, format) = (decoder.width, decoder.height, decoder.format)
        self.init(
            name: name, width: width, height: height, format: format,
            isOpaque: decoder.isOpaque, kind: "PNG", heldBytes: file.heldBytes
        ) {
            let d = try _PNGRowDecoder(file: file, name: name, options: options)
            guard d.width == width, d.height == height, d.format == format else {
                throw PixelFlowError.decodingFailed(file: name, reason: "PNG: the header changed between reads")
            }
            return d
        }
    }
}

/// A PNG encoder that takes rows top to bottom and writes them to a file descriptor as it
/// goes, with the settings of `_PNGCodec.encode` (compression level, filters, the metadata
/// chunks and the sRGB chunk before the image data), so the bytes are the same.
///
/// Rows are copied into a staging buffer of `max(2, threads)` chunks of
/// `_PNGImageDataEncoder` plus the rows above them that the chunks' filters and dictionaries
/// read; when it is full, its chunks are compressed in parallel and written in order, and
/// only those rows above are kept. So memory stays near `max(2, threads)` times 256 KiB of
/// rows, and the chunks (cut by the width alone, not by the strips written) are those of
/// the whole-buffer encoder.
///
/// `_PNGCodec.encode` writes RGB when every alpha of the buffer is the maximum and RGBA
/// otherwise, which a stream only knows at its end. So this encoder is made either
/// `assumingOpaque` (RGB, the alpha of each row checked before it is compressed: the first
/// row with a lower alpha throws `_RowEncoderAlphaFound`, and the caller writes the file
/// again with `assumingOpaque` false) or not (RGBA). The file written is then exactly the
/// one `_PNGCodec.encode` makes from the whole buffer. `gray8` rows have no alpha.
///
/// `@unchecked Sendable`: like `_PNGRowDecoder`, used by one thread at a time.
final class _PNGRowEncoder: @unchecked Sendable {
    let name: String
    let width: Int
    let height: Int
    /// `.rgba8`, `.rgba16` or `.gray8`.
    let format: PixelFormat
    /// True when rows are written as RGB, dropping an alpha that must be the maximum.
    let dropsAlpha: Bool
    private let data: _PNGImageDataEncoder
    /// The rows the next chunks read.
    private let staging: _RowStaging

    /// Writes everything before the image data to `fileDescriptor`.
    ///
    /// - Throws: `invalidParameter` for a compression level outside 0...9, `encodingFailed`
    ///   for interlacing, a size libpng refuses or a format other than `rgba8`, `rgba16` and
    ///   `gray8`; `io` when writing fails.
    init(
        fileDescriptor: Int32, width: Int, height: Int, format: PixelFormat, assumingOpaque: Bool,
        options: EncodeOptions, name: String, metadata: _EmbeddedMetadata = .none
    ) throws {
        try _PNGCodec.checkCompressionLevel(options)
        guard !options.interlaced else {
            throw PixelFlowError.encodingFailed(file: name, reason: "PNG: interlaced output is not written row by row")
        }
        guard format == .rgba8 || format == .rgba16 || format == .gray8 else {
            throw PixelFlowError.encodingFailed(file: name, reason: "PNG rows must be rgba8, rgba16 or gray8, not \(format)")
        }
        guard width > 0, height > 0, width <= Int(Int32.max), height <= Int(Int32.max) else {
            throw PixelFlowError.encodingFailed(file: name, reason: "PNG: \(width)x\(height) is not a valid size")
        }
        self.name = name
        self.width = width
        self.height = height
        self.format = format
        dropsAlpha = assumingOpaque && format.hasAlpha
        let data = try _PNGImageDataEncoder(
            fileDescriptor: fileDescriptor, width: width, height: height,
            input: _PNGCodec.inputLayout(format, opaque: assumingOpaque), options: options, metadata: metadata,
            name: name)
        self.data = data
        staging = _RowStaging(
            rowBytes: width * format.bytesPerPixel,
            capacity: Swift.min(height, data.historyRows + Swift.max(2, data.threads) * data.rowsPerChunk))
    }

    /// Takes the next `count` rows, `bytesPerRow` apart from `pixels`, compressing the staged
    /// chunks whenever the staging buffer fills.
    ///
    /// - Throws: `_RowEncoderAlphaFound` (nothing of these rows used) when `dropsAlpha`
    ///   and an alpha is below the maximum; `encodingFailed`, or `io` when writing fails.
    func write(rows pixels: UnsafeRawPointer, bytesPerRow: Int, count: Int) throws {
        precondition(count >= 0 && staging.rowsWritten + count <= height, "rows past the end of the image")
        if dropsAlpha {
            for y in 0..<count where !Self.isOpaque(pixels + y * bytesPerRow, width: width, format: format) {
                throw _RowEncoderAlphaFound()
            }
        }
        try staging.append(pixels, bytesPerRow: bytesPerRow, count: count) { try compressCompleteChunks() }
    }

    /// Writes the last chunks and the end of the file once every row was written.
    func finish() throws {
        try staging.requireAllRows(of: height, name: name, format: "PNG")
        try compressCompleteChunks()
        try data.finish()
    }

    /// Compresses every chunk whose rows are all staged, then keeps only the rows the next
    /// chunk reads above its first row (and any rows of it already staged).
    private func compressCompleteChunks() throws {
        let first = data.chunksWritten
        let end = staging.completePieces(
            from: first, of: data.chunkCount, rowsPerPiece: data.rowsPerChunk, height: height)
        guard end > first else { return }
        try data.compress(chunks: end - first, rows: staging.rows)
        let nextStart = end * data.rowsPerChunk
        staging.keep(from: Swift.max(staging.firstRow, nextStart - Swift.min(nextStart, data.historyRows)))
    }

    /// Whether every alpha of a row of `width` pixels is the maximum (the test of
    /// `_Codec.isOpaque`, one row at a time).
    private static func isOpaque(_ row: UnsafeRawPointer, width: Int, format: PixelFormat) -> Bool {
        switch format {
        case .rgba8:
            return pf_rgba8_all_opaque(row.assumingMemoryBound(to: UInt8.self), width) != 0
        case .rgba16:
            let p = row.assumingMemoryBound(to: UInt16.self)
            var all: UInt16 = .max
            for x in 0..<width { all &= p[4 &* x &+ 3] }
            return all == .max
        default:
            return true
        }
    }
}
