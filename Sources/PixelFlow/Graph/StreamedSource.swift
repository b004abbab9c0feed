/// The pixels of an image file, decoded row by row while a render needs them, rather than
/// all at once before it starts: the source of `Image(contentsOfFile:options:streaming:)`.
///
/// A source node holding one of these never owns pixels. Each render binds it to a
/// `RowWindow`: a streaming render (`RenderContext.write(_:toFile:...)` to a format with a
/// row encoder) keeps only the rows its current strips read; every other render decodes the
/// file fully into a window of the image's height before its tiles start (the random-access
/// fallback).
///
/// Immutable, so `Sendable`; each render makes its own decoder.
final class StreamedSource: Sendable, CustomStringConvertible {
    /// How errors name the input, usually its path.
    let name: String
    let width: Int
    let height: Int
    /// `.rgba8`, `.rgba16` or `.gray8`, sRGB-encoded with straight alpha; or, for a file whose
    /// color profile is converted in the stream (`converted(_:)`), `.rgbaF32` in linear sRGB,
    /// premultiplied: what a full decode of the file gives.
    let format: PixelFormat
    /// `.sRGB`, or `.linear` for rows converted into linear sRGB floats.
    let colorEncoding: ColorEncoding
    /// `.straight`, or `.premultiplied` for rows converted into linear sRGB floats.
    let alphaMode: AlphaMode
    /// True when every alpha is the maximum (the file has no alpha channel or transparency).
    let isOpaque: Bool
    /// The file format's name, for `description` and `explain()`.
    let kind: String
    /// 1 for the file's own size; 2, 4 or 8 for a source that decodes the file that many
    /// times smaller on each side (`shrunk(by:)`): its pixel (x, y) stands for the file's
    /// pixels `[k x, k x + k) x [k y, k y + k)`, padded past the file's right and bottom edges.
    let shrinkFactor: Int
    /// Bytes of the file this source keeps in memory for its decoders: the file's size when
    /// they decode from a copy, 0 when they read the open file as they go.
    let heldBytes: Int
    /// Makes a decoder positioned before the first row (`makeDecoder()`); wrapped by
    /// `oriented(_:)` and `converted(_:)`.
    let factory: @Sendable () throws -> any _RowDecoder
    private let makeShrunk: (@Sendable (Int) -> StreamedSource)?

    /// A source whose decoders `factory` makes, each positioned before the first row;
    /// `makeShrunk`, when the format can decode smaller, makes the source of `shrunk(by:)`.
    init(
        name: String, width: Int, height: Int, format: PixelFormat, colorEncoding: ColorEncoding = .sRGB,
        alphaMode: AlphaMode = .straight, isOpaque: Bool, kind: String,
        heldBytes: Int, shrinkFactor: Int = 1, makeShrunk: (@Sendable (Int) -> StreamedSource)? = nil,
        factory: @escaping @Sendable () throws -> any _RowDecoder
    ) {
        self.name = name
        self.width = width
        self.height = height
        self.format = format
        self.colorEncoding = colorEncoding
        self.alphaMode = alphaMode
        self.isOpaque = isOpaque
        self.kind = kind
        self.heldBytes = heldBytes
        self.shrinkFactor = shrinkFactor
        self.makeShrunk = makeShrunk
        self.factory = factory
    }

    /// Reads the header of the JPEG in `bytes` (checking limits and decoding nothing else).
    ///
    /// - Parameter rawCMYK: a CMYK file's rows are its ink values, for `converted(_:)`.
    convenience init(jpeg bytes: [UInt8], name: String, options: DecodeOptions, rawCMYK: Bool = false) throws {
        // One copy of the file, shared by every decoder this source makes: the caller's array
        // can go once the image is made.
        try self.init(jpeg: _JPEGInput(_FileBytes(bytes)), name: name, options: options, rawCMYK: rawCMYK)
    }

    /// The same over `input`: a copy of the bytes, or the open file read as rows are decoded.
    convenience init(jpeg input: _JPEGInput, name: String, options: DecodeOptions, rawCMYK: Bool = false) throws {
        let decoder = try _JPEGRowDecoder(input: input, name: name, options: options, rawCMYK: rawCMYK)
        let (w, h, format) = (decoder.width, decoder.height, decoder.format)
        let held = input.heldBytes
        self.init(
            name: name, width: w, height: h, format: format, isOpaque: true, kind: "JPEG", heldBytes: held,
            makeShrunk: { k in
                StreamedSource(
                    name: name, width: (w + k - 1) / k, height: (h + k - 1) / k, format: format,
                    isOpaque: true, kind: "JPEG", heldBytes: held, shrinkFactor: k
                ) {
                    let d = try _JPEGRowDecoder(
                        input: input, name: name, options: options, shrinkFactor: k,
                        rawCMYK: rawCMYK)
                    guard d.width == (w + k - 1) / k, d.height == (h + k - 1) / k, d.format == format else {
                        throw PixelFlowError.decodingFailed(file: name, reason: "JPEG: the header changed between reads")
                    }
                    return d
                }
            }
        ) {
            // A file rewritten in place since it was opened may declare another size.
            let d = try _JPEGRowDecoder(input: input, name: name, options: options, rawCMYK: rawCMYK)
            guard d.width == w, d.height == h, d.format == format else {
                throw PixelFlowError.decodingFailed(file: name, reason: "JPEG: the header changed between reads")
            }
            return d
        }
    }

    /// Reads the header of the TIFF in `bytes`, or `nil` when its first page cannot be
    /// streamed (see `_TIFFRowDecoder`).
    /// The source holds one copy of the bytes, shared by its decoders.
    convenience init?(tiff data: [UInt8], name: String, options: DecodeOptions) throws {
        try self.init(tiff: _TIFFRowDecoder.Bytes(data), name: name, options: options)
    }

    /// The same over `bytes`, which may read an open file.
    convenience init?(tiff bytes: _TIFFRowDecoder.Bytes, name: String, options: DecodeOptions) throws {
        guard let decoder = try _TIFFRowDecoder(bytes: bytes, name: name, options: options) else { return nil }
        self.init(
            name: name, width: decoder.width, height: decoder.height, format: decoder.format,
            isOpaque: decoder.isOpaque, kind: "TIFF", heldBytes: bytes.heldBytes
        ) {
            guard let decoder = try _TIFFRowDecoder(bytes: bytes, name: name, options: options) else {
                throw PixelFlowError.decodingFailed(file: name, reason: "TIFF: the page can no longer be streamed")
            }
            return decoder
        }
    }

    var description: String {
        "\(width)x\(height) \(format) streamed \(kind)" + (shrinkFactor > 1 ? " shrunk 1/\(shrinkFactor) on load" : "")
    }

    /// The factors `shrunk(by:)` accepts: 2, 4 and 8 for a JPEG at its own size (libjpeg's
    /// DCT scaling), none otherwise.
    var shrinkFactors: [Int] { makeShrunk == nil ? [] : [2, 4, 8] }

    /// The same file decoded `factor` times smaller on each side, `ceil(width / factor)` x
    /// `ceil(height / factor)`, or nil when `factor` is not among `shrinkFactors`. Reads
    /// nothing now; its renders decode only the smaller rows (each 8x8 block of the file
    /// becomes a (8 / factor)-pixel square computed from its low-frequency coefficients).
    func shrunk(by factor: Int) -> StreamedSource? {
        guard shrinkFactors.contains(factor), let makeShrunk else { return nil }
        return makeShrunk(factor)
    }

    /// The image's rect, at the origin.
    var bounds: IntRect { IntRect(x: 0, y: 0, width: width, height: height) }

    /// A decoder positioned before the first row.
    func makeDecoder() throws -> any _RowDecoder { try factory() }

    /// A window over every row, fully decoded: what a render that needs random access uses.
    func decodeFully() throws -> RowWindow {
        let window = try RowWindow(source: self, capacity: height)
        try window.decode(upTo: height)
        return window
    }
}

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

    /// Decodes rows until `decodedRows >= min(rows, height)`.
    ///
    /// - Throws: `decodingFailed` for corrupt or truncated data; the window is then unusable.
    func decode(upTo rows: Int) throws {
        let target = Swift.min(rows, source.height)
        guard target > decodedRows, let decoder else { return }
        let first = decodedRows
        try decoder.readRows(count: target - first) { i in storage + ((first + i) % capacity) * bytesPerRow }
        decodedRows = target
        if target == source.height { self.decoder = nil }  // frees the library's state early
    }
}
