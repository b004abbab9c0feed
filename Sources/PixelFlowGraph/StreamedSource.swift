/// A decoder that delivers a file's rows top to bottom on demand: what a `StreamedSource`
/// reads, so that a render holds a window of rows instead of the whole image.
///
/// Its rows equal, byte for byte, the stored pixels of decoding the whole file
/// (`_ImageCodecs.decodeStored`); a `StreamedSource` then wraps it to apply what a full decode
/// does next (`converted(_:)`: CMYK, the color profile; `oriented(_:)`: a mirror or a flip).
///
/// Implementations own a library object that is not thread-safe; a render hands a decoder to
/// one codec thread at a time and waits for it before using it again.
package protocol _RowDecoder: AnyObject, Sendable {
    var width: Int { get }
    var height: Int { get }
    /// `gray8`, `rgba8` or `rgba16`, sRGB-tagged with straight alpha.
    var format: PixelFormat { get }
    /// Decodes the next `count` rows, row `i` into `rows(i)` (`width * format.bytesPerPixel`
    /// bytes). Throws `decodingFailed` for corrupt or truncated data; the decoder is then
    /// unusable.
    func readRows(count: Int, into rows: (Int) -> UnsafeMutableRawPointer) throws
}

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
package final class StreamedSource: Sendable, CustomStringConvertible {
    /// How errors name the input, usually its path.
    package let name: String
    package let width: Int
    package let height: Int
    /// `.rgba8`, `.rgba16` or `.gray8`, sRGB-encoded with straight alpha; or, for a file whose
    /// color profile is converted in the stream (`converted(_:)`), `.rgbaF32` in linear sRGB,
    /// premultiplied: what a full decode of the file gives.
    package let format: PixelFormat
    /// `.sRGB`, or `.linear` for rows converted into linear sRGB floats.
    package let colorEncoding: ColorEncoding
    /// `.straight`, or `.premultiplied` for rows converted into linear sRGB floats.
    package let alphaMode: AlphaMode
    /// True when every alpha is the maximum (the file has no alpha channel or transparency).
    package let isOpaque: Bool
    /// The file format's name, for `description` and `explain()`.
    package let kind: String
    /// 1 for the file's own size; 2, 4 or 8 for a source that decodes the file that many
    /// times smaller on each side (`shrunk(by:)`): its pixel (x, y) stands for the file's
    /// pixels `[k x, k x + k) x [k y, k y + k)`, padded past the file's right and bottom edges.
    package let shrinkFactor: Int
    /// Bytes of the file this source keeps in memory for its decoders: the file's size when
    /// they decode from a copy, 0 when they read the open file as they go.
    package let heldBytes: Int
    /// Makes a decoder positioned before the first row (`makeDecoder()`); wrapped by
    /// `oriented(_:)` and `converted(_:)`.
    package let factory: @Sendable () throws -> any _RowDecoder
    private let makeShrunk: (@Sendable (Int) -> StreamedSource)?

    /// A source whose decoders `factory` makes, each positioned before the first row;
    /// `makeShrunk`, when the format can decode smaller, makes the source of `shrunk(by:)`.
    package init(
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

    package var description: String {
        "\(width)x\(height) \(format) streamed \(kind)" + (shrinkFactor > 1 ? " shrunk 1/\(shrinkFactor) on load" : "")
    }

    /// The factors `shrunk(by:)` accepts: 2, 4 and 8 for a JPEG at its own size (libjpeg's
    /// DCT scaling), none otherwise.
    package var shrinkFactors: [Int] { makeShrunk == nil ? [] : [2, 4, 8] }

    /// The same file decoded `factor` times smaller on each side, `ceil(width / factor)` x
    /// `ceil(height / factor)`, or nil when `factor` is not among `shrinkFactors`. Reads
    /// nothing now; its renders decode only the smaller rows (each 8x8 block of the file
    /// becomes a (8 / factor)-pixel square computed from its low-frequency coefficients).
    package func shrunk(by factor: Int) -> StreamedSource? {
        guard shrinkFactors.contains(factor), let makeShrunk else { return nil }
        return makeShrunk(factor)
    }

    /// The image's rect, at the origin.
    package var bounds: IntRect { IntRect(x: 0, y: 0, width: width, height: height) }

    /// A decoder positioned before the first row.
    package func makeDecoder() throws -> any _RowDecoder { try factory() }
}
