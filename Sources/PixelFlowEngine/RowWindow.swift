/// The decoded rows of a `StreamedSource` that a render may currently read, in a ring of
/// `capacity` rows: row `y` lives in slot `y % capacity`, so decoding row `y` overwrites row
/// `y - capacity`. A streaming render chooses `capacity` so that the rows it decodes ahead
/// never land on rows the current strip reads (see `StripSchedule`).
///
/// `@unchecked Sendable`: tiles on many threads read rows through `row(_:)` while at most one
/// codec thread decodes further rows with `decode(upTo:)` into slots no tile of the current
/// strip reads; the render waits for that thread before the next strip starts.
final class RowWindow: @unchecked Sendable {
    let source: StreamedSource
    let capacity: Int
    let bytesPerRow: Int
    let format: PixelFormat
    /// Whether every alpha value is the maximum (the source's file has no alpha).
    var isOpaque: Bool { source.isOpaque }
    /// `.sRGB`, or `.linear` for rows converted into linear sRGB floats.
    var colorEncoding: ColorEncoding { source.colorEncoding }
    /// True when the rows have straight alpha (false for converted, premultiplied floats).
    var isStraight: Bool { source.alphaMode == .straight }
    /// Rows `0..<decodedRows` have been decoded (the last `capacity` of them are held).
    private(set) var decodedRows = 0
    private let storage: UnsafeMutableRawPointer
    private var decoder: (any _RowDecoder)?

    /// Allocates `capacity` rows and opens a decoder.
    init(source: StreamedSource, capacity: Int) throws {
        self.source = source
        self.capacity = Swift.max(1, Swift.min(capacity, source.height))
        format = source.format
        bytesPerRow = (source.width * source.format.bytesPerPixel + 15) & ~15
        decoder = try source.makeDecoder()
        storage = .allocate(byteCount: self.capacity * bytesPerRow, alignment: 64)
    }

    deinit { storage.deallocate() }

    /// The first byte of row `y`, which must be among the last `capacity` decoded rows.
    @inline(__always) func row(_ y: Int) -> UnsafeRawPointer {
        UnsafeRawPointer(storage + (y % capacity) * bytesPerRow)
    }

    /// The first byte of the ring: row `y` is `bytesPerRow * (y % capacity)` bytes further.
    var base: UnsafeRawPointer { UnsafeRawPointer(storage) }

    /// Decodes rows until `decodedRows >= min(rows, height)`.
    ///
    /// - Throws: `decodingFailed` for corrupt or truncated data; the window is then unusable.
    func decode(upTo rows: Int) throws {
        let target = Swift.min(rows, source.height)
        guard target > decodedRows, let decoder else { return }
        // At most `capacity` rows a call: rows of one call land in distinct slots, since a
        // decoder may write them in any order on several threads (the JPEG raw pipeline). A
        // longer run (a render that starts below row 0's window) overwrites its first rows
        // in a later call.
        while decodedRows < target {
            let first = decodedRows, count = Swift.min(capacity, target - first)
            try decoder.readRows(count: count) { i in storage + ((first + i) % capacity) * bytesPerRow }
            decodedRows = first + count
        }
        if target == source.height { self.decoder = nil }  // frees the library's state early
    }
}

extension StreamedSource {
    /// A window over every row, fully decoded: what a render that needs random access uses.
    func decodeFully() throws -> RowWindow {
        let window = try RowWindow(source: self, capacity: height)
        try window.decode(upTo: height)
        return window
    }
}
