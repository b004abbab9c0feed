#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import PixelFlow

/// The entry points of the fuzz targets: each takes the bytes libFuzzer (or a corpus file)
/// gives and calls PixelFlow's public API with them.
///
/// An entry point returns normally when PixelFlow decodes, renders or throws a
/// `PixelFlowError` (or, for the command-line parser, a `CLIError`); anything else is a bug
/// and stops the process: a crash, a sanitizer report, a thrown error of another type
/// (`preconditionFailure`), or a broken promise such as a lossless round trip that changes a
/// pixel. The `fuzz-*` executables call `run(_:)` from `LLVMFuzzerTestOneInput`; `fuzz-replay`
/// calls it for each file of a corpus in an ordinary build.
public enum FuzzTarget: String, CaseIterable, Sendable {
    /// `PixelBuffer(encoded:)` on PNG bytes (the signature is prepended when missing).
    case png
    /// `PixelBuffer(encoded:)` on JPEG bytes (`FF D8 FF` prepended when missing).
    case jpeg
    /// `PixelBuffer(encoded:)` on PNM/PAM bytes (`P6 ` prepended when not a PNM header).
    case pnm
    /// `PixelBuffer(encoded:)` on BMP bytes (`BM` prepended when missing).
    case bmp
    /// `PixelBuffer(encoded:)` and `ImageFile(encoded:).frames()` on WebP bytes (wrapped in a
    /// RIFF WEBP header when they are not a WebP file).
    case webp
    /// `PixelBuffer(encoded:)` and `ImageFile(encoded:).frames()` on GIF bytes (`GIF89a`
    /// prepended when they do not start with `GIF87a` or `GIF89a`).
    case gif
    /// A buffer built from the bytes, encoded in every format and decoded again; lossless
    /// formats must give the same pixels back.
    case roundtrip
    /// `QRCodeDecoder.decode` on a bit matrix read from the bytes.
    case qrMatrix = "qr-matrix"
    /// `QRCodeDetector.features(in:)` on a small gray image read from the bytes.
    case qrPixels = "qr-pixels"
    /// Up to 8 registry filters with parameters read from the bytes (NaN, infinities, huge,
    /// negative, wrong value classes) on a small image, rendered on a small rect.
    case filterGraph = "filter-graph"
    /// The command line's `--filter` parser (`FilterStep`) on up to 8 lines of text, each
    /// validated, applied to a small image and rendered.
    case cliFilter = "cli-filter"
    /// `PixelBuffer(encoded:)` and `ImageFile.frames()` on TIFF bytes (`II*\0` prepended
    /// when missing).
    case tiff
    /// `CascadeClassifier(xmlData:)`, the OpenCV cascade XML parser of the face detector;
    /// a cascade that loads is also run over a small gray image.
    case cascadeXML = "cascade-xml"
    /// `PixelBuffer(encoded:)` and `ImageFile(encoded:).frames()` on HEIF or AVIF bytes
    /// (libheif), as given.
    case heif

    /// Runs the entry point on `bytes`.
    public func run(_ bytes: [UInt8]) {
        switch self {
        case .png: DecoderTargets.decode(bytes, magic: DecoderTargets.pngSignature)
        case .jpeg: DecoderTargets.decode(bytes, magic: [0xFF, 0xD8, 0xFF])
        case .pnm: DecoderTargets.decodePNM(bytes)
        case .bmp: DecoderTargets.decode(bytes, magic: Array("BM".utf8))
        case .webp: WebPTarget.run(bytes)
        case .gif: DecoderTargets.decodeGIF(bytes)
        case .roundtrip: RoundTripTarget.run(bytes)
        case .qrMatrix: QRTargets.decodeMatrix(bytes)
        case .qrPixels: QRTargets.detect(bytes)
        case .filterGraph: FilterGraphTarget.run(bytes)
        case .cliFilter: CLIFilterTarget.run(bytes)
        case .cascadeXML: CascadeXMLTarget.run(bytes)
        case .tiff: TIFFTarget.run(bytes)
        case .heif: HEIFTarget.run(bytes)
        }
    }
}

/// Stops the process unless `error` is a `PixelFlowError`, the one error type PixelFlow
/// promises to throw.
func expectPixelFlowError(_ error: any Error, _ what: @autoclosure () -> String) {
    if error is PixelFlowError { return }
    preconditionFailure("\(what()): unexpected error type \(type(of: error)): \(error)")
}

/// Prints `message` when `PIXELFLOW_FUZZ_TRACE` is set: what a replayed input did.
func trace(_ message: @autoclosure () -> String) {
    if tracing { print(message()) }
}

private let tracing = getenv("PIXELFLOW_FUZZ_TRACE") != nil

/// Reads numbers from fuzz bytes; past the end it reads zeros.
struct ByteReader {
    let bytes: [UInt8]
    var offset = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var isAtEnd: Bool { offset >= bytes.count }
    var remaining: ArraySlice<UInt8> { offset < bytes.count ? bytes[offset...] : [] }

    mutating func byte() -> UInt8 {
        defer { offset += 1 }
        return offset < bytes.count ? bytes[offset] : 0
    }

    mutating func uint16() -> UInt16 { UInt16(byte()) | UInt16(byte()) << 8 }

    mutating func uint64() -> UInt64 {
        var v: UInt64 = 0
        for i in 0..<8 { v |= UInt64(byte()) << (8 * UInt64(i)) }
        return v
    }

    /// The next `count` bytes (fewer at the end).
    mutating func take(_ count: Int) -> [UInt8] {
        let start = min(offset, bytes.count), end = min(bytes.count, start + count)
        offset += count
        return Array(bytes[start..<end])
    }
}
