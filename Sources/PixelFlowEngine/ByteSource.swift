/// The 8-bit pixels a byte plan reads: a source buffer in memory, or the window of decoded
/// rows of a streamed source during a strip write (`RowWindow`). Byte forms read rows through
/// `SharedSourceBytes.row(_:)`, which maps a row to its slot in the window's ring, so the
/// decoded bytes are read where the decoder left them: no copy, no float conversion.
struct ByteSource {
    let format: PixelFormat
    let width: Int, height: Int
    let alphaMode: AlphaMode
    let colorEncoding: ColorEncoding
    let bytesPerRow: Int
    /// Where the pixels are.
    let storage: Storage

    enum Storage {
        case buffer(PixelBuffer)
        /// Rows held in a ring: only those the current strip reads are there (nil when only
        /// planning, for `explain()`).
        case streamed(StreamedSource, RowWindow?)
    }

    init(_ buffer: PixelBuffer) {
        format = buffer.format
        width = buffer.width
        height = buffer.height
        alphaMode = buffer.alphaMode
        colorEncoding = buffer.colorEncoding
        bytesPerRow = buffer.bytesPerRow
        storage = .buffer(buffer)
    }

    /// A streamed source read through `window` (nil: for planning only).
    init(_ source: StreamedSource, window: RowWindow?) {
        format = source.format
        width = source.width
        height = source.height
        alphaMode = source.alphaMode
        colorEncoding = source.colorEncoding
        bytesPerRow = window?.bytesPerRow ?? (source.width * source.format.bytesPerPixel + 15) & ~15
        storage = .streamed(source, window)
    }

    /// The 8-bit (`rgba8`, `gray8`) source that node `n` is: in memory, or one of `streamed`
    /// (a strip write's windows, by node), else nil.
    static func of(_ n: Node, streamed: [ObjectIdentifier: ByteSource]) -> ByteSource? {
        guard let s = any(n, streamed: streamed), s.format == .rgba8 || s.format == .gray8 else { return nil }
        return s
    }

    /// The source that node `n` is, of any format, else nil.
    static func any(_ n: Node, streamed: [ObjectIdentifier: ByteSource]) -> ByteSource? {
        switch n.op {
        case let .source(b): return ByteSource(b)
        case .streamedSource: return streamed[ObjectIdentifier(n)]
        default: return nil
        }
    }

    /// The buffer, when the pixels are in memory.
    var buffer: PixelBuffer? {
        if case let .buffer(b) = storage { return b }
        return nil
    }

    /// True for a streamed source's window, whose rows are not all there at once.
    var isStreamed: Bool { buffer == nil }

    /// Whether every alpha byte is known to be 255 without reading the pixels: no alpha
    /// channel, or a streamed file without alpha.
    var isKnownOpaque: Bool {
        if !format.hasAlpha { return true }
        if case let .streamed(s, _) = storage { return s.isOpaque }
        return false
    }

    /// Calls `body` with the rows, valid during the call.
    func withRows<R>(_ body: (SharedSourceBytes) throws -> R) rethrows -> R {
        switch storage {
        case let .buffer(b):
            return try b.withUnsafeBytes { raw in
                try body(SharedSourceBytes(base: raw.baseAddress!, bytesPerRow: bytesPerRow, width: width, height: height))
            }
        case let .streamed(_, w):
            guard let w else { preconditionFailure("a streamed byte source read without its window") }
            return try body(
                SharedSourceBytes(base: w.base, bytesPerRow: bytesPerRow, width: width, height: height, ring: w.capacity))
        }
    }
}
