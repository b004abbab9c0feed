import CCodecShims

/// A file's bytes copied once into memory that never moves, for C libraries that read them
/// through a pointer for as long as a decoder lives; shared by every decoder of a streamed
/// source. `@unchecked Sendable`: never written after `init`.
final class _FileBytes: @unchecked Sendable {
    let buffer: UnsafeBufferPointer<UInt8>

    init(_ bytes: [UInt8]) {
        let copy = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: Swift.max(1, bytes.count))
        _ = copy.initialize(from: bytes)
        buffer = UnsafeBufferPointer(start: copy.baseAddress, count: bytes.count)
    }

    deinit { UnsafeMutableRawPointer(mutating: buffer.baseAddress!).deallocate() }
}

/// Where a JPEG's decoders read it: a copy of its bytes in memory (`Image(encoded:)`), or
/// the open file, read with `pread` 64 KiB at a time as libjpeg asks
/// (`pf_jpeg_decoder_create_fd`), so that a streamed source opened from a path holds none of
/// the file. Shared by every decoder of a streamed source. `@unchecked Sendable`: both
/// kinds are never written after `init` (and `pread` moves no shared offset).
final class _JPEGInput: @unchecked Sendable {
    private let bytes: _FileBytes?
    private let file: _OpenFile?

    init(_ bytes: _FileBytes) {
        self.bytes = bytes
        file = nil
    }

    init(file: _OpenFile) {
        bytes = nil
        self.file = file
    }

    /// Bytes of the file held in memory: its size, or 0 when it is read from the open file.
    var heldBytes: Int { bytes?.buffer.count ?? 0 }

    /// The frame size in the first SOF segment, from the bytes or the file's first 256 KiB
    /// (nil when there is none there: the size is then checked after libjpeg reads the header).
    func frameSize() throws -> (width: Int, height: Int)? {
        if let bytes { return _JPEGCodec.frameSize(bytes.buffer) }
        return _JPEGCodec.frameSize(try file!.read(at: 0, count: 256 << 10))
    }

    /// A new libjpeg decoder over this input, or nil when out of memory; the caller keeps
    /// this object alive until it destroys the decoder.
    func makeDecoder(maximumScans: Int) -> OpaquePointer? {
        if let file {
            return pf_jpeg_decoder_create_fd(file.fileDescriptor, UInt64(file.size), Int32(clamping: maximumScans))
        }
        return pf_jpeg_decoder_create(bytes!.buffer.baseAddress, bytes!.buffer.count, Int32(clamping: maximumScans))
    }
}

/// A JPEG decoder that delivers rows top to bottom on demand, for streaming renders.
///
/// It reads the header in `init` (checking the declared size against `DecodeOptions` before
/// anything sized by it is allocated) and then decodes `readRows(into:count:)` rows at a
/// time with exactly the settings of `_JPEGCodec.decode` (same libjpeg calls: default DCT
/// method, fancy upsampling, output `JCS_EXT_RGBA` or gray; or, for YCbCr files with
/// `DecodeOptions.threadCount` of 2 or more, the same `_JPEGRawPipeline` on the caller's
/// thread and `threads - 1` more), so the pixels equal a full decode's. Corrupt or truncated
/// data throws from whichever call meets it.
///
/// With a `shrinkFactor` of 2, 4 or 8 it decodes at that fraction of the size with
/// libjpeg's DCT scaling (`pf_jpeg_set_scale`): `ceil(stored / shrinkFactor)` on each side,
/// row `y` standing for stored rows `shrinkFactor * y ..< shrinkFactor * (y + 1)`. These
/// rows approximate a box average of the full decode (see `ShrinkSourcesOnLoad`).
///
/// `@unchecked Sendable`: it owns a libjpeg object that is not thread-safe. A streaming render
/// hands it to one codec thread at a time and waits for that thread before using it again,
/// so no two threads touch it at once.
final class _JPEGRowDecoder: @unchecked Sendable {
    let name: String
    let width: Int
    let height: Int
    /// `.rgba8` (alpha 255) or `.gray8`.
    let format: PixelFormat
    /// The EXIF orientation, `.up` when there is none.
    let orientation: EXIFOrientation
    /// 1 (full size), 2, 4 or 8: the stored size divided by this, rounded up, is decoded.
    let shrinkFactor: Int
    /// Rows decoded so far.
    private(set) var nextRow = 0
    /// The file (its bytes or the open file), read by libjpeg until `deinit`; shared by every
    /// decoder of a streamed source.
    private let input: _JPEGInput
    private let options: DecodeOptions
    private let decoder: OpaquePointer
    /// Set when the rows are decoded on `threads` threads (`_JPEGRawPipeline`): YCbCr files
    /// at full size with 2 or more threads.
    private let pipeline: _JPEGRawPipeline?
    private let threads: Int
    private var message = [CChar](repeating: 0, count: Int(PF_MESSAGE_CAPACITY))

    /// Reads the header of the JPEG in `bytes` and prepares to decode rows.
    ///
    /// - Parameter shrinkFactor: 1, 2, 4 or 8; the stored size is checked against `options`.
    /// - Throws: `limitExceeded` for a size beyond `options`, `decodingFailed` for corrupt
    ///   data, `unsupportedFormat` for color spaces PixelFlow does not convert.
    convenience init(
        bytes: [UInt8], name: String, options: DecodeOptions, shrinkFactor: Int = 1,
        rawCMYK: Bool = false
    ) throws {
        try self.init(
            input: _JPEGInput(_FileBytes(bytes)), name: name, options: options,
            shrinkFactor: shrinkFactor, rawCMYK: rawCMYK)
    }

    /// Reads the header of the JPEG in `input` and prepares to decode rows.
    ///
    /// - Parameter rawCMYK: a CMYK file's rows are its ink values (as `_JPEGCodec.decodeStored`
    ///   gives them, for `_RowConversion`) instead of RGBA converted by `(1 - C)(1 - K)`.
    init(input: _JPEGInput, name: String, options: DecodeOptions, shrinkFactor: Int = 1, rawCMYK: Bool = false) throws {
        precondition([1, 2, 4, 8].contains(shrinkFactor), "JPEG shrink factors are 1, 2, 4 and 8")
        if let (w, h) = try input.frameSize(), w > 0, h > 0 {
            try options._checkDimensions(width: w, height: h, file: name)
        }
        self.name = name
        self.options = options
        self.shrinkFactor = shrinkFactor
        guard let decoder = input.makeDecoder(maximumScans: options.maximumJPEGScans) else {
            throw PixelFlowError.decodingFailed(file: name, reason: "out of memory")
        }
        self.input = input
        self.decoder = decoder
        var header = pf_jpeg_header()
        var exif = [UInt8](repeating: 0, count: Int(PF_JPEG_EXIF_CAPACITY))
        var message = [CChar](repeating: 0, count: Int(PF_MESSAGE_CAPACITY))
        let status = exif.withUnsafeMutableBufferPointer { pf_jpeg_read_header(decoder, &header, $0.baseAddress, &message) }
        guard status == PF_OK else {
            pf_jpeg_decoder_destroy(decoder)
            throw _JPEGCodec.error(status, message, name: name, options: options)
        }
        width = (Int(header.width) + shrinkFactor - 1) / shrinkFactor
        height = (Int(header.height) + shrinkFactor - 1) / shrinkFactor
        do {
            try options._checkDimensions(width: Int(header.width), height: Int(header.height), file: name)
            format = try _JPEGCodec.decodedFormat(header, name: name)
            pf_jpeg_set_scale(decoder, Int32(shrinkFactor))
            pf_jpeg_set_raw_cmyk(decoder, rawCMYK ? 1 : 0)
            threads = try options._decodeThreads(file: name)
            if threads > 1, pf_jpeg_raw_supported(decoder) != 0 {
                pipeline = try _JPEGRawPipeline(decoder: decoder, name: name, options: options, threads: threads)
            } else {
                pipeline = nil
                let start = pf_jpeg_start_rows(decoder, &message)
                guard start == PF_OK else { throw _JPEGCodec.error(start, message, name: name, options: options) }
            }
        } catch {
            pf_jpeg_decoder_destroy(decoder)
            throw error
        }
        if header.exif_size > 0, let o = EXIFOrientation(exifPayload: exif[..<Int(header.exif_size)]) {
            orientation = o
        } else {
            orientation = .up
        }
    }

    deinit { pf_jpeg_decoder_destroy(decoder) }

    /// Bytes per pixel of the decoded rows.
    var bytesPerPixel: Int { format.bytesPerPixel }

    /// Decodes the next `count` rows, row `i` into `rows(i)` (`width * bytesPerPixel` bytes).
    ///
    /// - Throws: `decodingFailed` for corrupt or truncated data (the decoder is then unusable).
    func readRows(count: Int, into rows: (Int) -> UnsafeMutableRawPointer) throws {
        precondition(count >= 0 && nextRow + count <= height, "rows past the end of the image")
        if let pipeline {
            let first = nextRow
            let pointers = _RowPointers((0..<count).map { rows($0).assumingMemoryBound(to: UInt8.self) })
            try pipeline.run(rows: first..<first + count, threads: threads) { pointers.rows[$0 - first] }
            nextRow += count
            return
        }
        try _Codec.readRowBatches(count: count, into: rows) { pointers, n in
            let status = pf_jpeg_read_rows(decoder, pointers, UInt32(n), &message)
            guard status == PF_OK else { throw _JPEGCodec.error(status, message, name: name, options: options) }
            nextRow += n
        }
    }
}

/// Row pointers handed to the workers of one `_JPEGRawPipeline.run`.
///
/// `@unchecked Sendable`: raw pointers, each row written by one worker while the caller waits.
private struct _RowPointers: @unchecked Sendable {
    let rows: [UnsafeMutablePointer<UInt8>]
    init(_ rows: [UnsafeMutablePointer<UInt8>]) { self.rows = rows }
}

/// A JPEG encoder that takes rows top to bottom and writes them to a file descriptor as it
/// goes, with the settings of `_JPEGCodec.encode` (so the bytes are the same).
///
/// When `_JPEGCodec.encode` compresses in bands (`_JPEGBandEncoder`), rows are copied into a
/// staging buffer of `max(2, threads)` bands; when it is full, its bands are compressed in
/// parallel and written in order, so memory stays near `max(2, threads)` bands of about
/// 256 K pixels. Otherwise (and for the bands' file on one thread, with a restart marker after
/// every row of MCUs: the same bytes) one libjpeg compression takes the rows as they come.
///
/// `@unchecked Sendable`: like `_JPEGRowDecoder`, used by one thread at a time.
final class _JPEGRowEncoder: @unchecked Sendable {
    let name: String
    let width: Int
    let height: Int
    /// `.rgba8` (alpha ignored) or `.gray8`.
    let format: PixelFormat
    private(set) var rowsWritten = 0
    /// The one libjpeg compression, when not in bands.
    private let encoder: OpaquePointer?
    /// The bands, and the rows staged for them.
    private let bands: _JPEGBandEncoder?
    private let staging: _RowStaging?
    private var message = [CChar](repeating: 0, count: Int(PF_MESSAGE_CAPACITY))

    /// - Throws: `invalidParameter` for a quality outside 1...100, `encodingFailed` for a side
    ///   beyond 65_535 or a format other than `rgba8` and `gray8`.
    init(
        fileDescriptor: Int32, width: Int, height: Int, format: PixelFormat, quality: Int,
        options: EncodeOptions, name: String, metadata: _EmbeddedMetadata = .none
    ) throws {
        try _Codec.checkQuality(quality, format: .jpeg)
        guard width > 0, height > 0, width <= 65_535, height <= 65_535 else {
            throw PixelFlowError.encodingFailed(
                file: name,
                reason: "JPEG: \(width)x\(height) is not within the format's 1x1...65535x65535")
        }
        guard format == .rgba8 || format == .gray8 else {
            throw PixelFlowError.encodingFailed(file: name, reason: "JPEG rows must be rgba8 or gray8, not \(format)")
        }
        self.name = name
        self.width = width
        self.height = height
        self.format = format
        let banded = _JPEGBandEncoder(
            width: width, height: height, format: format, quality: quality, options: options,
            metadata: metadata, name: name,
            sink: { try _FileIO.writeAll($0, to: fileDescriptor, name: name) })
        if let bands = banded, bands.threads > 1 {
            self.bands = bands
            encoder = nil
            staging = _RowStaging(
                rowBytes: width * format.bytesPerPixel,
                capacity: Swift.min(height, Swift.max(2, bands.threads) * bands.bandRows))
            return
        }
        bands = nil
        staging = nil
        var message = [CChar](repeating: 0, count: Int(PF_MESSAGE_CAPACITY))
        let made = metadata.withBlocks { blocks in
            pf_jpeg_encoder_create(
                fileDescriptor, UInt32(width), UInt32(height), format == .gray8 ? 1 : 4,
                Int32(quality), Int32(_JPEGCodec.subsampling(options.chromaSubsampling)),
                options.progressive ? 1 : 0, banded != nil ? 1 : 0, blocks, &message)
        }
        guard let encoder = made else {
            throw PixelFlowError.encodingFailed(file: name, reason: "JPEG: " + _Codec.message(message))
        }
        self.encoder = encoder
    }

    deinit {
        if let encoder { pf_jpeg_encoder_destroy(encoder) }
    }

    /// Compresses the next `count` rows, `bytesPerRow` apart from `pixels`.
    ///
    /// - Throws: `encodingFailed`, or `io` when writing to the file fails.
    func write(rows pixels: UnsafeRawPointer, bytesPerRow: Int, count: Int) throws {
        precondition(count >= 0 && rowsWritten + count <= height, "rows past the end of the image")
        guard let bands, let staging else {
            let status = pf_jpeg_encoder_write_rows(
                encoder, pixels.assumingMemoryBound(to: UInt8.self), bytesPerRow,
                UInt32(count), &message)
            try check(status)
            rowsWritten += count
            return
        }
        try staging.append(pixels, bytesPerRow: bytesPerRow, count: count) { try compressCompleteBands(bands, staging) }
        rowsWritten = staging.rowsWritten
    }

    /// Writes the end of the file once every row was written.
    func finish() throws {
        guard let bands, let staging else {
            try check(pf_jpeg_encoder_finish(encoder, &message))
            return
        }
        try staging.requireAllRows(of: height, name: name, format: "JPEG")
        try compressCompleteBands(bands, staging)
    }

    /// Compresses every band whose rows are all staged, then keeps the rows staged past them.
    private func compressCompleteBands(_ bands: _JPEGBandEncoder, _ staging: _RowStaging) throws {
        let first = bands.bandsWritten
        let end = staging.completePieces(from: first, of: bands.bandCount, rowsPerPiece: bands.bandRows, height: height)
        guard end > first else { return }
        try bands.compress(bands: end - first, rows: staging.rows)
        staging.keep(from: Swift.min(end * bands.bandRows, height))
    }

    private func check(_ status: Int32) throws {
        if status == PF_OK { return }
        if status == PF_IO_ERROR { throw PixelFlowError.io(file: name, reason: _Codec.message(message)) }
        throw PixelFlowError.encodingFailed(file: name, reason: "JPEG: " + _Codec.message(message))
    }
}
