#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

extension StreamedSource {
    /// Whether `oriented(_:)` applies `orientation` in the stream: every EXIF orientation.
    /// (A format or option that cannot would make `_ImageCodecs.wholeDecodeReason` decode the
    /// file whole when opened.)
    static func orientsInStream(_ orientation: EXIFOrientation) -> Bool { true }

    /// This source turned upright as EXIF orientation `orientation` says (one of
    /// `orientsInStream`), with the rows of decoding the file whole and applying the
    /// orientation:
    ///
    /// - 1: the source itself;
    /// - 2 (mirrored left to right): each row reversed as it is decoded (`_MirroredRowDecoder`);
    /// - 3 (turned 180 degrees) and 4 (flipped top to bottom): the first read decodes the file
    ///   once, top down, into an unlinked temporary file, and rows are then read from it
    ///   bottom up, reversed for 3 (`_FlippedRowDecoder`): memory stays a few rows whatever
    ///   the image's size, at the cost of writing and reading its stored rows once on disk;
    /// - 5 to 8 (transposed, turned 90 degrees either way, transversed): each upright row is a
    ///   column of the file, so the first read spools the file into a temporary file in bands
    ///   of columns, and each band is read back whole and its columns become rows
    ///   (`_TransposedRowDecoder`); the source's width and height are the file's swapped.
    ///
    /// A turned source does not shrink on load (a shrunk row's padding would move to its left
    /// or top).
    func oriented(_ orientation: EXIFOrientation) -> StreamedSource {
        precondition(Self.orientsInStream(orientation), "only mirrors and flips are applied in the stream")
        if orientation == .up { return self }
        let base = factory
        let kind: String
        let make: @Sendable () throws -> any _RowDecoder
        switch orientation {
        case .upMirrored:
            kind = self.kind + " mirrored by its EXIF orientation"
            make = { _MirroredRowDecoder(base: try base()) }
        case .down:
            kind = self.kind + " turned 180 degrees by its EXIF orientation (rows spooled to a temporary file)"
            make = { [name] in _FlippedRowDecoder(base: try base(), mirrored: true, name: name) }
        case .downMirrored:
            kind = self.kind + " flipped top to bottom by its EXIF orientation (rows spooled to a temporary file)"
            make = { [name] in _FlippedRowDecoder(base: try base(), mirrored: false, name: name) }
        default:
            kind = self.kind + " turned by its EXIF orientation \(orientation.rawValue) (columns spooled to a temporary file)"
            make = { [name] in _TransposedRowDecoder(base: try base(), orientation: orientation, name: name) }
        }
        let (w, h) = orientation.swapsDimensions ? (height, width) : (width, height)
        return StreamedSource(
            name: name, width: w, height: h, format: format, colorEncoding: colorEncoding,
            alphaMode: alphaMode, isOpaque: isOpaque, kind: kind, heldBytes: heldBytes, factory: make)
    }
}

/// A decoder whose rows are those of `base` reversed left to right (EXIF orientation 2).
final class _MirroredRowDecoder: _RowDecoder, @unchecked Sendable {
    private let base: any _RowDecoder
    var width: Int { base.width }
    var height: Int { base.height }
    var format: PixelFormat { base.format }

    init(base: any _RowDecoder) { self.base = base }

    func readRows(count: Int, into rows: (Int) -> UnsafeMutableRawPointer) throws {
        try base.readRows(count: count, into: rows)
        for i in 0..<count { Self.reverse(rows(i), count: width, bytesPerPixel: format.bytesPerPixel) }
    }

    /// Reverses the `count` pixels of a row in place: whole pixels move, so the result is exact.
    static func reverse(_ row: UnsafeMutableRawPointer, count: Int, bytesPerPixel: Int) {
        switch bytesPerPixel {
        case 1: reverse(row.assumingMemoryBound(to: UInt8.self), count: count)
        case 4: reverse(row.assumingMemoryBound(to: UInt32.self), count: count)
        case 8: reverse(row.assumingMemoryBound(to: UInt64.self), count: count)
        case 16: reverse(row.assumingMemoryBound(to: SIMD2<UInt64>.self), count: count)
        default: preconditionFailure("rows of \(bytesPerPixel) bytes per pixel are not streamed")
        }
    }

    private static func reverse<T>(_ p: UnsafeMutablePointer<T>, count: Int) {
        var buffer = UnsafeMutableBufferPointer(start: p, count: count)
        buffer.reverse()
    }
}

/// A decoder whose rows are those of `base` in reverse order (EXIF orientation 4, flipped top
/// to bottom), and also reversed left to right when `mirrored` (orientation 3, turned 180
/// degrees).
///
/// The file's last row comes first, and codecs decode top down, so the first `readRows`
/// decodes every row of `base` once, in chunks of at most `chunkBytes`, and writes them to a
/// temporary file: made with `mkstemp` in `$TMPDIR` (else `/tmp`) and unlinked at once, so it
/// has no name, and the system removes it when the descriptor closes (when this decoder goes,
/// after an error too, or when the process ends however it ends). Rows are then read back
/// with `pread` straight into the caller's rows, last stored row first. libvips spools to a
/// temporary file for random access the same way.
///
/// - Complexity: memory is one chunk of stored rows (at most `chunkBytes`, 2 MiB) and the
///   base decoder's state until the spooling ends; the temporary file holds every stored row
///   (`width * height * format.bytesPerPixel` bytes: 320 MB for an 80-megapixel `rgba8`
///   JPEG), written once and read once, mostly through the page cache.
///
/// `@unchecked Sendable`: like every `_RowDecoder`, used by one thread at a time.
final class _FlippedRowDecoder: _RowDecoder, @unchecked Sendable {
    /// The most bytes of stored rows decoded per write to the temporary file.
    static let chunkBytes = 2 << 20

    let width: Int
    let height: Int
    let format: PixelFormat
    private let mirrored: Bool
    private let name: String
    /// Set until the rows are spooled, then released (with the library's state).
    private var base: (any _RowDecoder)?
    /// The temporary file, -1 before the first read.
    private var spool: Int32 = -1
    private var nextRow = 0

    init(base: any _RowDecoder, mirrored: Bool, name: String) {
        self.base = base
        width = base.width
        height = base.height
        format = base.format
        self.mirrored = mirrored
        self.name = name
    }

    deinit { if spool >= 0 { close(spool) } }

    /// Bytes of one stored row in the temporary file.
    private var rowBytes: Int { width * format.bytesPerPixel }

    func readRows(count: Int, into rows: (Int) -> UnsafeMutableRawPointer) throws {
        precondition(count >= 0 && nextRow + count <= height, "rows past the end of the image")
        if spool < 0 { try spoolRows() }
        for i in 0..<count {
            let row = rows(i)
            try _FileIO.readAll(
                into: row, count: rowBytes, from: spool, at: (height - 1 - nextRow) * rowBytes,
                name: Self.spoolName(name))
            if mirrored { _MirroredRowDecoder.reverse(row, count: width, bytesPerPixel: format.bytesPerPixel) }
            nextRow += 1
        }
    }

    /// Decodes every row of `base` into a new unlinked temporary file.
    private func spoolRows() throws {
        guard let base else {
            throw PixelFlowError.decodingFailed(file: name, reason: "the rows could not be spooled before")
        }
        self.base = nil  // a failure below leaves the decoder unusable, as `_RowDecoder` says
        spool = try Self.makeTemporaryFile(name: name)
        let rowBytes = self.rowBytes
        let chunkRows = Swift.max(1, Swift.min(height, Self.chunkBytes / Swift.max(1, rowBytes)))
        let chunk = UnsafeMutableRawPointer.allocate(byteCount: chunkRows * rowBytes, alignment: 64)
        defer { chunk.deallocate() }
        var y = 0
        while y < height {
            let n = Swift.min(chunkRows, height - y)
            try base.readRows(count: n) { i in chunk + i * rowBytes }
            try _FileIO.writeAll(chunk, count: n * rowBytes, to: spool, at: y * rowBytes, name: Self.spoolName(name))
            y += n
        }
    }

    private static func spoolName(_ name: String) -> String { "\(name) (temporary file of its flipped rows)" }

    /// The folder of temporary files: `$TMPDIR` when set and not empty, else `/tmp`.
    static var temporaryFolder: String {
        if let value = getenv("TMPDIR") {
            let folder = String(cString: value)
            if !folder.isEmpty { return folder }
        }
        return "/tmp"
    }

    /// A new file in `temporaryFolder`, already unlinked, open for reading and writing.
    ///
    /// - Throws: `io` when it cannot be made.
    static func makeTemporaryFile(name: String) throws -> Int32 {
        var folder = temporaryFolder
        while folder.count > 1 && folder.hasSuffix("/") { folder.removeLast() }
        var template = Array("\(folder == "/" ? "" : folder)/.pixelflow-rows.XXXXXX".utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else {
            throw PixelFlowError.io(
                file: name,
                reason: "cannot create a temporary file in \(folder) for its flipped rows: "
                    + _FileIO.errorText())
        }
        template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        return fd
    }
}

/// A decoder whose rows are the columns of `base`, for EXIF orientations 5 to 8: output row
/// `v` is stored column `v` (5, 6) or `width - 1 - v` (7, 8), read top down (5, 8) or bottom
/// up (6, 7), as `PixelBuffer.applyingOrientation` reads them.
///
/// The first `readRows` decodes every stored row once, `chunkBytes` at a time, and writes the
/// chunk to an unlinked temporary file (`_FlippedRowDecoder.makeTemporaryFile`: `$TMPDIR`,
/// else `/tmp`) in bands of `band` columns: band `b` holds, for every stored row `y`, the
/// `band` pixels of columns `b * band ..< b * band + band`, so a chunk is one write per band
/// and a band is one read. Rows are then served band by band: the band holding the next
/// output row's column is read whole into memory and each of its columns gathered into a row.
/// `band` is chosen so a band holds about `bandBytes` (2 MiB), at most 64 columns.
///
/// - Complexity: memory is one chunk of stored rows while spooling and one band after
///   (about 2 MiB each, with the library's state until the spooling ends), whatever the image's
///   size; the temporary file holds every stored pixel (padded to whole bands), written once
///   and read once.
///
/// `@unchecked Sendable`: like every `_RowDecoder`, used by one thread at a time.
final class _TransposedRowDecoder: _RowDecoder, @unchecked Sendable {
    static let chunkBytes = 2 << 20
    static let bandBytes = 2 << 20

    /// The output's size: the stored height and width.
    let width: Int
    let height: Int
    let format: PixelFormat
    private let orientation: EXIFOrientation
    private let name: String
    private let storedWidth: Int
    private let storedHeight: Int
    /// Columns per band.
    private let band: Int
    private var base: (any _RowDecoder)?
    private var spool: Int32 = -1
    private var nextRow = 0
    /// The band in `bandBuffer`, -1 for none.
    private var loadedBand = -1
    private var bandBuffer: UnsafeMutableRawPointer?

    init(base: any _RowDecoder, orientation: EXIFOrientation, name: String) {
        precondition(orientation.swapsDimensions, "only transposing orientations")
        self.base = base
        storedWidth = base.width
        storedHeight = base.height
        width = base.height
        height = base.width
        format = base.format
        self.orientation = orientation
        self.name = name
        let columnBytes = Swift.max(1, base.height * base.format.bytesPerPixel)
        band = Swift.max(1, Swift.min(64, Self.bandBytes / columnBytes, base.width))
    }

    deinit {
        if spool >= 0 { close(spool) }
        bandBuffer?.deallocate()
    }

    private var bandCount: Int { (storedWidth + band - 1) / band }
    /// Bytes of one band in the temporary file: every stored row's `band` pixels.
    private var bandFileBytes: Int { storedHeight * band * format.bytesPerPixel }

    func readRows(count: Int, into rows: (Int) -> UnsafeMutableRawPointer) throws {
        precondition(count >= 0 && nextRow + count <= height, "rows past the end of the image")
        if spool < 0 { try spoolColumns() }
        let bpp = format.bytesPerPixel, stride = band * bpp, h = storedHeight
        let reversedColumns = orientation == .rightMirrored || orientation == .left
        let bottomUp = orientation == .right || orientation == .rightMirrored
        for i in 0..<count {
            let column = reversedColumns ? storedWidth - 1 - nextRow : nextRow
            let b = column / band
            if b != loadedBand { try loadBand(b) }
            let src = UnsafeRawPointer(bandBuffer!) + (column - b * band) * bpp
            let dst = rows(i)
            switch bpp {
            case 1: Self.gather(UInt8.self, src, stride, dst, h, bottomUp)
            case 4: Self.gather(UInt32.self, src, stride, dst, h, bottomUp)
            case 8: Self.gather(UInt64.self, src, stride, dst, h, bottomUp)
            default: Self.gather(SIMD2<UInt64>.self, src, stride, dst, h, bottomUp)
            }
            nextRow += 1
        }
    }

    /// Output pixel `u` of a row is stored row `u` (or `count - 1 - u` when `bottomUp`) of
    /// the column starting at `src`, `stride` bytes between stored rows.
    private static func gather<P>(
        _: P.Type, _ src: UnsafeRawPointer, _ stride: Int, _ dst: UnsafeMutableRawPointer,
        _ count: Int, _ bottomUp: Bool
    ) {
        let d = dst.assumingMemoryBound(to: P.self)
        for u in 0..<count {
            let y = bottomUp ? count - 1 - u : u
            d[u] = src.loadUnaligned(fromByteOffset: y * stride, as: P.self)
        }
    }

    private func loadBand(_ b: Int) throws {
        if bandBuffer == nil { bandBuffer = .allocate(byteCount: bandFileBytes, alignment: 64) }
        try _FileIO.readAll(
            into: bandBuffer!, count: bandFileBytes, from: spool, at: b * bandFileBytes,
            name: "\(name) (temporary file of its turned columns)")
        loadedBand = b
    }

    /// Decodes every stored row into a new unlinked temporary file, in bands of columns.
    private func spoolColumns() throws {
        guard let base else {
            throw PixelFlowError.decodingFailed(file: name, reason: "the rows could not be spooled before")
        }
        self.base = nil
        spool = try _FlippedRowDecoder.makeTemporaryFile(name: name)
        let bpp = format.bytesPerPixel, rowBytes = storedWidth * bpp, slot = band * bpp
        let chunkRows = Swift.max(1, Swift.min(storedHeight, Self.chunkBytes / Swift.max(1, rowBytes)))
        let chunk = UnsafeMutableRawPointer.allocate(byteCount: chunkRows * rowBytes, alignment: 64)
        defer { chunk.deallocate() }
        // One band's slots for the chunk's rows, padded with zeros past the last column.
        let staging = UnsafeMutableRawPointer.allocate(byteCount: chunkRows * slot, alignment: 64)
        defer { staging.deallocate() }
        let spoolName = "\(name) (temporary file of its turned columns)"
        var y = 0
        while y < storedHeight {
            let n = Swift.min(chunkRows, storedHeight - y)
            try base.readRows(count: n) { i in chunk + i * rowBytes }
            for b in 0..<bandCount {
                let first = b * band, columns = Swift.min(band, storedWidth - first)
                if columns < band { staging.initializeMemory(as: UInt8.self, repeating: 0, count: n * slot) }
                for i in 0..<n {
                    (staging + i * slot).copyMemory(from: chunk + i * rowBytes + first * bpp, byteCount: columns * bpp)
                }
                try _FileIO.writeAll(
                    staging, count: n * slot, to: spool, at: b * bandFileBytes + y * slot,
                    name: spoolName)
            }
            y += n
        }
    }
}
