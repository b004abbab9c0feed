/// A BMP decoder that delivers rows top to bottom on demand, for streaming renders.
///
/// It converts rows with `_BMPCodec.convertRow`, the row function of `_BMPCodec.decode`, so
/// the pixels equal a full decode's. The file's bytes stay in memory, so every stored row is
/// at a known offset (`_BMPHeader.offset(ofRow:)`): a bottom-up file, which stores the last
/// row first, streams from the top at no extra cost, as a top-down one does. RLE files are
/// not read at all (`_BMPCodec.readHeader` throws `unsupportedFormat`, as a full decode does).
///
/// `@unchecked Sendable`: its position changes with each row. A streaming render hands it to
/// one codec thread at a time and waits for that thread before using it again.
final class _BMPRowDecoder: _RowDecoder, @unchecked Sendable {
    let name: String
    let header: _BMPHeader
    var width: Int { header.width }
    var height: Int { header.height }
    /// `gray8` (gray palette) or `rgba8`.
    var format: PixelFormat { header.format }
    /// Rows converted so far.
    private(set) var nextRow = 0
    /// The file's bytes (a reference to the array, not a copy), or none when rows are read
    /// from `file`.
    private let bytes: [UInt8]
    private let file: _OpenFile?

    /// A decoder before the first row of the file in `bytes`, whose header `header` is
    /// (`_BMPCodec.readHeader(bytes, ...)`, which checked the limits and that every row is
    /// within the file).
    init(bytes: [UInt8], header: _BMPHeader, name: String) {
        self.name = name
        self.header = header
        self.bytes = bytes
        file = nil
    }

    /// A decoder reading each stored row from `file` (`header` from `_BMPCodec.readHeader`
    /// with that file) with one positional read, at its place in the file.
    init(file: _OpenFile, header: _BMPHeader) {
        name = file.name
        self.header = header
        bytes = []
        self.file = file
    }

    /// Converts the next `count` rows, row `i` into `rows(i)` (`width * format.bytesPerPixel`
    /// bytes). From bytes in memory it never throws (the header read checked every row is
    /// there); from an open file it throws `decodingFailed` when a row is no longer there.
    ///
    /// - Complexity: O(width) per row.
    func readRows(count: Int, into rows: (Int) -> UnsafeMutableRawPointer) throws {
        precondition(count >= 0 && nextRow + count <= height, "rows past the end of the image")
        if let file {
            let stored = (header.width * header.bitCount + 7) / 8
            for i in 0..<count {
                let row = try file.read(at: header.offset(ofRow: nextRow + i), count: stored)
                guard row.count == stored else {
                    throw PixelFlowError.decodingFailed(file: name, reason: "BMP: the file is truncated in row \(nextRow + i)")
                }
                row.withUnsafeBufferPointer { _BMPCodec.convertRow(of: header, stored: $0.baseAddress!, into: rows(i)) }
            }
        } else {
            bytes.withUnsafeBufferPointer { file in
                for i in 0..<count { _BMPCodec.convertRow(nextRow + i, of: header, from: file.baseAddress!, into: rows(i)) }
            }
        }
        nextRow += count
    }
}

extension StreamedSource {
    /// Reads the header of the BMP file in `bytes` (checking limits and that every row is in
    /// the file; for 32-bit BI_RGB also whether any fourth byte is not 0). Decodes nothing.
    ///
    /// - Throws: the errors of `_BMPCodec.readHeader`.
    convenience init(bmp bytes: [UInt8], name: String, options: DecodeOptions) throws {
        let header = try _BMPCodec.readHeader(bytes, name: name, options: options)
        self.init(
            name: name, width: header.width, height: header.height, format: header.format,
            isOpaque: header.isOpaque, kind: "BMP", heldBytes: bytes.count
        ) {
            _BMPRowDecoder(bytes: bytes, header: header, name: name)
        }
    }

    /// A source over the BMP file `file` whose header is `header`, reading each row from the
    /// file (bottom-up files from the end backwards) as it is decoded.
    convenience init(bmp file: _OpenFile, header: _BMPHeader) {
        self.init(
            name: file.name, width: header.width, height: header.height, format: header.format,
            isOpaque: header.isOpaque, kind: "BMP", heldBytes: 0
        ) {
            _BMPRowDecoder(file: file, header: header)
        }
    }
}

/// A BMP encoder that takes rows top to bottom and writes each at its final place in the file
/// (`pwrite`), with the bytes of `_BMPCodec.encode` of the whole buffer.
///
/// `_BMPCodec.encode` writes bottom-up files: the file's size is known from the width and
/// height, so the header goes first and row `y` at `dataOffset + (height - 1 - y) * stride`;
/// the file is complete once the last row is written.
///
/// `encode` writes 8 bits with a gray palette for `gray8`, and for `rgba8` 24 bits when every
/// alpha is 255 and 32 bits (BITMAPV4HEADER) otherwise: a choice made from every pixel, which
/// rows arriving one strip at a time cannot know in advance. This encoder assumes 24 bits
/// until a row holds an alpha below 255; it then widens what it wrote in place (each written
/// row read back and rewritten as BGRA with alpha 255, from the end of the file towards its
/// start, so no row is overwritten before it is read, then the 32-bit headers written over the
/// 24-bit ones) and writes 32 bits from there on. The file is thus 24-bit exactly when every
/// alpha is 255, as `encode` decides, and its bytes are `encode`'s. The descriptor must be
/// open for reading too (`_AtomicFile`'s is).
///
/// - Complexity: O(width) per row, and a scratch of at most about 1 MiB of stored rows. An
///   image whose first non-opaque row is row `k` is written once and its first `k` rows read
///   and written once more; an opaque one, or one with alpha from the first row, is written
///   once.
///
/// `@unchecked Sendable`: used by one thread at a time, like `_JPEGRowEncoder`.
final class _BMPRowEncoder: _RowEncoder, @unchecked Sendable {
    let name: String
    let width: Int
    let height: Int
    /// `gray8` or `rgba8`.
    let format: PixelFormat
    private(set) var rowsWritten = 0
    /// Bits per pixel of the file so far: 8, 24 (until a row with alpha) or 32.
    private(set) var bitCount: Int
    private let fileDescriptor: Int32
    private var dataOffset = 0
    private var rowStride = 0
    /// Stored rows waiting to be written: `pending` rows, the latest first (file order).
    private var scratch: [UInt8] = []
    private var pending = 0

    /// Writes the headers (8 bits, or 24 until a row says otherwise).
    ///
    /// - Throws: `encodingFailed` for a format other than `gray8` and `rgba8`, an empty size
    ///   or a file over 4 GiB, `io` when writing fails.
    init(fileDescriptor: Int32, width: Int, height: Int, format: PixelFormat, name: String) throws {
        guard format == .gray8 || format == .rgba8 else {
            throw PixelFlowError.encodingFailed(file: name, reason: "BMP rows must be gray8 or rgba8, not \(format)")
        }
        guard width > 0, height > 0 else {
            throw PixelFlowError.encodingFailed(file: name, reason: "BMP: \(width)x\(height) is an empty image")
        }
        self.name = name
        self.width = width
        self.height = height
        self.format = format
        self.fileDescriptor = fileDescriptor
        bitCount = format == .gray8 ? 8 : 24
        try writeHeader()
    }

    /// Stores and writes the next `count` rows, `bytesPerRow` apart from `rows`.
    ///
    /// - Throws: `io` when writing (or reading back while widening) fails, `encodingFailed`
    ///   when a 32-bit file of this size would exceed 4 GiB.
    func write(rows: UnsafeRawPointer, bytesPerRow: Int, count: Int) throws {
        precondition(count >= 0 && rowsWritten + pending + count <= height, "rows past the end of the image")
        for i in 0..<count {
            let row = rows + i * bytesPerRow
            if bitCount == 24 && !_PNMRowEncoder.isOpaque(row, width: width, format: .rgba8) {
                try flush()
                try widen()
            }
            if pending * rowStride == scratch.count { try flush() }
            // Later rows go before earlier ones: fill the scratch from its end.
            let slot = scratch.count / rowStride - 1 - pending
            scratch.withUnsafeMutableBufferPointer { s in
                _BMPCodec.storeRow(row, width: width, bitCount: bitCount, to: s.baseAddress! + slot * rowStride)
            }
            pending += 1
        }
        try flush()
    }

    /// Checks that every row was written (each `write` puts its rows in their final place).
    func finish() throws {
        guard rowsWritten == height else {
            throw PixelFlowError.encodingFailed(file: name, reason: "BMP: \(rowsWritten) of \(height) rows were written")
        }
    }

    /// Writes the headers for `bitCount` and sizes the scratch for its rows.
    private func writeHeader() throws {
        let header = try _BMPCodec.fileHeader(width: width, height: height, bitCount: bitCount, name: name)
        try header.withUnsafeBytes {
            try _FileIO.writeAll($0.baseAddress!, count: header.count, to: fileDescriptor, at: 0, name: name)
        }
        dataOffset = header.count
        rowStride = _BMPCodec.fileRowStride(width: width, bitCount: bitCount)
        scratch = [UInt8](repeating: 0, count: Swift.max(1, Swift.min(height, (1 << 20) / rowStride)) * rowStride)
    }

    /// The offset of image row `y` in the file: bottom-up, the last row first.
    private func offset(ofRow y: Int) -> Int { dataOffset + (height - 1 - y) * rowStride }

    /// Writes the pending rows (image rows `rowsWritten..<rowsWritten + pending`, stored at
    /// the end of the scratch, latest first) in one piece ending where row `rowsWritten` ends.
    private func flush() throws {
        guard pending > 0 else { return }
        let slots = scratch.count / rowStride
        try scratch.withUnsafeBytes {
            try _FileIO.writeAll(
                $0.baseAddress! + (slots - pending) * rowStride, count: pending * rowStride,
                to: fileDescriptor, at: offset(ofRow: rowsWritten + pending - 1), name: name)
        }
        rowsWritten += pending
        pending = 0
    }

    /// Turns the 24-bit file written so far into a 32-bit one: rows widened to BGRA (alpha
    /// 255), from the end of the file (row 0) towards its start, then the 32-bit headers.
    /// Each row's new place starts at or after its old one and after the end of every row
    /// before it in the file, so no row is overwritten unread.
    private func widen() throws {
        let oldStride = rowStride, oldOffsets = (0..<rowsWritten).map(offset(ofRow:))
        bitCount = 32
        let header = try _BMPCodec.fileHeader(width: width, height: height, bitCount: 32, name: name)
        let newStride = _BMPCodec.fileRowStride(width: width, bitCount: 32)
        var old = [UInt8](repeating: 0, count: oldStride)
        var new = [UInt8](repeating: 0xFF, count: newStride)  // alpha stays 255; no padding at 32 bits
        for y in 0..<rowsWritten {
            try old.withUnsafeMutableBytes {
                try _FileIO.readAll(
                    into: $0.baseAddress!, count: oldStride, from: fileDescriptor, at: oldOffsets[y],
                    name: name)
            }
            for x in 0..<width {
                new[4 * x] = old[3 * x]; new[4 * x + 1] = old[3 * x + 1]; new[4 * x + 2] = old[3 * x + 2]
            }
            try new.withUnsafeBytes {
                try _FileIO.writeAll(
                    $0.baseAddress!, count: newStride, to: fileDescriptor,
                    at: header.count + (height - 1 - y) * newStride, name: name)
            }
        }
        try writeHeader()
    }
}
