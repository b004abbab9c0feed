/// A Netpbm decoder that delivers rows top to bottom on demand, for streaming renders.
///
/// It reads the header in `init` (checking the size against `DecodeOptions` and that a
/// binary file holds every sample) and converts rows with `_PNMRowReader`, the row function
/// of `_PNMCodec.decode`, so the pixels equal a full decode's. Binary rows (P4 to P7) sit at
/// fixed offsets of the file's bytes; ASCII rows (P1 to P3) are parsed as they come, and a
/// bad sample throws from the `readRows` call that meets it.
///
/// It keeps a reference to the file's bytes (the encoded file stays in memory; the decoded
/// image does not).
///
/// `@unchecked Sendable`: its reader's position changes with each row. A streaming render
/// hands it to one codec thread at a time and waits for that thread before using it again.
final class _PNMRowDecoder: _RowDecoder, @unchecked Sendable {
    let name: String
    var width: Int { reader.header.width }
    var height: Int { reader.header.height }
    /// `gray8`, `rgba8` or `rgba16`, as `_PNMHeader.format`.
    var format: PixelFormat { reader.header.format }
    private var reader: _PNMRowReader

    /// A decoder before the first row of the file in `bytes`, whose header `header` is
    /// (`_PNMCodec.readHeader(bytes, ...)`, which checked the limits).
    init(bytes: [UInt8], header: _PNMHeader, name: String) {
        self.name = name
        reader = _PNMRowReader(bytes: bytes, header: header, name: name)
    }

    /// A decoder before the first row of the binary file `file`, whose header is `header`.
    init(file: _OpenFile, header: _PNMHeader) {
        name = file.name
        reader = _PNMRowReader(file: file, header: header)
    }

    /// Converts the next `count` rows, row `i` into `rows(i)` (`width * format.bytesPerPixel`
    /// bytes).
    ///
    /// - Throws: `decodingFailed` for a bad or missing sample of an ASCII file (the decoder is
    ///   then unusable).
    /// - Complexity: O(width) per row.
    func readRows(count: Int, into rows: (Int) -> UnsafeMutableRawPointer) throws {
        precondition(count >= 0 && reader.nextRow + count <= height, "rows past the end of the image")
        for i in 0..<count { try reader.readRow(into: rows(i)) }
    }
}

extension StreamedSource {
    /// Reads the header of the Netpbm file in `bytes` (checking limits and that a binary file
    /// holds every sample; decoding nothing).
    ///
    /// - Throws: the header errors of `_PNMCodec.readHeader`.
    convenience init(pnm bytes: [UInt8], name: String, options: DecodeOptions) throws {
        let header = try _PNMCodec.readHeader(bytes, name: name, options: options)
        self.init(
            name: name, width: header.width, height: header.height, format: header.format,
            isOpaque: header.isOpaque, kind: "PNM", heldBytes: bytes.count
        ) {
            _PNMRowDecoder(bytes: bytes, header: header, name: name)
        }
    }

    /// A source over the binary Netpbm file `file` whose header is `header`, reading each
    /// row from the file as it is decoded.
    convenience init(pnm file: _OpenFile, header: _PNMHeader) {
        self.init(
            name: file.name, width: header.width, height: header.height, format: header.format,
            isOpaque: header.isOpaque, kind: "PNM", heldBytes: 0
        ) {
            _PNMRowDecoder(file: file, header: header)
        }
    }
}

/// A Netpbm encoder that takes rows top to bottom and writes them to a file descriptor as it
/// goes, with the bytes of `_PNMCodec.encode` of the whole buffer.
///
/// `_PNMCodec.encode` writes P5 for `gray8`, and for `rgba8` and `rgba16` P6 when every alpha
/// is the maximum and P7 `RGB_ALPHA` otherwise: a choice made from every pixel, which rows
/// arriving one strip at a time cannot know in advance. This encoder assumes P6 and writes
/// three samples a pixel until a row holds an alpha below the maximum; it then widens what it
/// wrote in place (each written row read back and rewritten as four samples with alpha at the
/// maximum, last row first, so no row is overwritten before it is read, then the P7 header
/// written over the P6 one) and writes four samples a pixel from there on. The file is thus
/// P6 exactly when every alpha is the maximum, as `encode` decides, and its bytes are
/// `encode`'s. The descriptor must be open for reading too (`_AtomicFile`'s is).
///
/// - Complexity: O(width) per row, and a scratch of at most about 1 MiB of encoded rows. An
///   image whose first non-opaque row is row `k` is written once and its first `k` rows
///   (`k * width * 3` samples) read and written once more; an opaque one, or one with alpha
///   from the first row, is written once.
///
/// `@unchecked Sendable`: used by one thread at a time, like `_JPEGRowEncoder`.
final class _PNMRowEncoder: _RowEncoder, @unchecked Sendable {
    let name: String
    let width: Int
    let height: Int
    /// `gray8`, `rgba8` or `rgba16`.
    let format: PixelFormat
    private(set) var rowsWritten = 0
    /// Samples a pixel in the file so far: 1 (P5), 3 (P6, until a row with alpha) or 4 (P7).
    private(set) var channels: Int
    private let fileDescriptor: Int32
    private var headerSize: Int
    private var rowBytes: Int
    /// Encoded rows waiting to be written: `pending` rows of `rowBytes` bytes.
    private var scratch: [UInt8] = []
    private var pending = 0

    /// Writes the header (P5, or P6 until a row says otherwise).
    ///
    /// - Throws: `encodingFailed` for a format other than `gray8`, `rgba8`, `rgba16`, an empty
    ///   size or one whose bytes overflow, `io` when writing fails.
    init(fileDescriptor: Int32, width: Int, height: Int, format: PixelFormat, name: String) throws {
        guard format == .gray8 || format == .rgba8 || format == .rgba16 else {
            throw PixelFlowError.encodingFailed(file: name, reason: "PNM rows must be gray8, rgba8 or rgba16, not \(format)")
        }
        guard width > 0, height > 0 else {
            throw PixelFlowError.encodingFailed(file: name, reason: "PNM: \(width)x\(height) is an empty image")
        }
        self.name = name
        self.width = width
        self.height = height
        self.format = format
        self.fileDescriptor = fileDescriptor
        channels = format == .gray8 ? 1 : 3
        (headerSize, rowBytes) = (0, 0)
        try writeHeader()
    }

    /// Encodes and writes the next `count` rows, `bytesPerRow` apart from `rows`.
    ///
    /// - Throws: `io` when writing (or reading back while widening) fails, `encodingFailed`
    ///   when P7 rows of this size overflow.
    func write(rows: UnsafeRawPointer, bytesPerRow: Int, count: Int) throws {
        precondition(count >= 0 && rowsWritten + pending + count <= height, "rows past the end of the image")
        for i in 0..<count {
            let row = rows + i * bytesPerRow
            if channels == 3 && !_PNMRowEncoder.isOpaque(row, width: width, format: format) {
                try flush()
                try widen()
            }
            if pending * rowBytes == scratch.count { try flush() }
            scratch.withUnsafeMutableBufferPointer { s in
                _PNMCodec.storeRow(
                    row, width: width, format: format, channels: channels,
                    to: s.baseAddress! + pending * rowBytes)
            }
            pending += 1
        }
        try flush()
    }

    /// Checks that every row was written (the file is complete after each `write`).
    func finish() throws {
        guard rowsWritten == height else {
            throw PixelFlowError.encodingFailed(file: name, reason: "PNM: \(rowsWritten) of \(height) rows were written")
        }
    }

    /// Every alpha of the row is the maximum.
    static func isOpaque(_ row: UnsafeRawPointer, width: Int, format: PixelFormat) -> Bool {
        switch format {
        case .rgba8:
            let p = row.assumingMemoryBound(to: UInt8.self)
            for x in 0..<width where p[x &* 4 &+ 3] != 255 { return false }
        case .rgba16:
            let p = row.assumingMemoryBound(to: UInt16.self)
            for x in 0..<width where p[x &* 4 &+ 3] != 65535 { return false }
        default:
            break
        }
        return true
    }

    /// Writes the header for `channels` and sizes the scratch for its rows.
    private func writeHeader() throws {
        let header = _PNMCodec.fileHeader(width: width, height: height, channels: channels, format: format)
        let bytes = _PNMCodec.fileRowBytes(width: width, channels: channels, format: format)
        guard let size = _Codec.product(bytes, height), size <= Int.max - header.count else {
            throw PixelFlowError.encodingFailed(file: name, reason: "PNM: the image is too large")
        }
        try header.withUnsafeBytes {
            try _FileIO.writeAll($0.baseAddress!, count: header.count, to: fileDescriptor, at: 0, name: name)
        }
        headerSize = header.count
        rowBytes = bytes
        scratch = [UInt8](repeating: 0, count: Swift.max(1, Swift.min(height, (1 << 20) / bytes)) * bytes)
    }

    /// Writes the pending rows after those written.
    private func flush() throws {
        guard pending > 0 else { return }
        try scratch.withUnsafeBytes {
            try _FileIO.writeAll(
                $0.baseAddress!, count: pending * rowBytes, to: fileDescriptor,
                at: headerSize + rowsWritten * rowBytes, name: name)
        }
        rowsWritten += pending
        pending = 0
    }

    /// Turns the P6 file written so far into P7: rows widened to four samples (alpha at the
    /// maximum), last row first, then the P7 header. Each row's new place starts at or after
    /// its old one and after the end of every earlier row, so no row is overwritten unread.
    private func widen() throws {
        let oldHeader = headerSize, oldBytes = rowBytes
        channels = 4
        let header = _PNMCodec.fileHeader(width: width, height: height, channels: 4, format: format)
        let newBytes = _PNMCodec.fileRowBytes(width: width, channels: 4, format: format)
        guard let size = _Codec.product(newBytes, height), size <= Int.max - header.count else {
            throw PixelFlowError.encodingFailed(file: name, reason: "PNM: the image is too large")
        }
        let sample = format == .rgba16 ? 2 : 1
        var old = [UInt8](repeating: 0, count: oldBytes)
        var new = [UInt8](repeating: 0xFF, count: newBytes)  // alpha stays at the maximum
        for y in stride(from: rowsWritten - 1, through: 0, by: -1) {
            try old.withUnsafeMutableBytes {
                try _FileIO.readAll(
                    into: $0.baseAddress!, count: oldBytes, from: fileDescriptor,
                    at: oldHeader + y * oldBytes, name: name)
            }
            for x in 0..<width {
                for b in 0..<(3 * sample) { new[4 * sample * x + b] = old[3 * sample * x + b] }
            }
            try new.withUnsafeBytes {
                try _FileIO.writeAll(
                    $0.baseAddress!, count: newBytes, to: fileDescriptor, at: header.count + y * newBytes,
                    name: name)
            }
        }
        try writeHeader()
    }
}
