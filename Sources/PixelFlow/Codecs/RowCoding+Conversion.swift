import Dispatch

/// What `Image(encoded:)` does to a file's stored pixels before they are an image's: CMYK to
/// RGB, the color profile into linear sRGB floats. A streamed source does it row by row
/// (`_ConvertedRowDecoder`) with the code the full decode runs on the whole buffer, so its
/// rows are the same values, bit for bit.
enum _RowConversion: Sendable, CustomStringConvertible {
    /// CMYK ink values to RGB, `R = (1 - C)(1 - K)` (`_ColorConversion.naiveCMYKToRGBRow`),
    /// for CMYK without a usable profile or with profiles not applied: the rows keep their
    /// layout (`rgba8` or `rgba16`, sRGB), alpha becomes the maximum.
    case naiveCMYK
    /// The file's color space (an ICC profile, PNG's cICP or gAMA/cHRM, a CMYK profile) into
    /// linear sRGB (`_ColorConversion.linearWorkingConversion`: PixelFlow's tables and matrix
    /// for matrix/TRC profiles, lcms2 for others): the rows become `rgbaF32`, linear,
    /// premultiplied.
    case toLinearSRGB(_LinearConversion, space: String, isCMYK: Bool)

    /// The conversion a full decode applies to the rows of the file whose header is `header`
    /// (with `options.appliesColorProfile`), or `nil` when its rows are used as stored.
    ///
    /// - Throws: `decodingFailed` when lcms2 cannot make the transform (the full decode would
    ///   throw the same).
    static func of(_ header: _DecodedImage, name: String, options: DecodeOptions) throws -> _RowConversion? {
        if let conversion = try _ColorConversion.linearWorkingConversion(
            for: header, name: name, applyProfile: options.appliesColorProfile)
        {
            let space = _ColorConversion.sourceSpace(of: header)?.name ?? "?"
            return .toLinearSRGB(conversion, space: space, isCMYK: header.isCMYK)
        }
        return header.isCMYK ? .naiveCMYK : nil
    }

    /// True when the rows become linear sRGB floats.
    var producesLinearFloats: Bool {
        if case .toLinearSRGB = self { return true }
        return false
    }

    /// True when the stored rows are CMYK: the converted rows are opaque.
    var isCMYK: Bool {
        switch self {
        case .naiveCMYK: return true
        case let .toLinearSRGB(_, _, isCMYK): return isCMYK
        }
    }

    var description: String {
        switch self {
        case .naiveCMYK: return "CMYK converted to RGB in the stream"
        case let .toLinearSRGB(conversion, space, isCMYK):
            return (isCMYK ? "CMYK" : "its color profile") + " (\(space)) converted to linear sRGB in the stream"
                + " (\(conversion.engine))"
        }
    }
}

/// A decoder whose rows are those of `base` converted as `_RowConversion` says.
///
/// For `toLinearSRGB` it decodes up to `chunkRows` stored rows per worker at a time into its
/// own scratch rows, then converts each into the caller's row with
/// `_LinearConversion.convertRow`: the arithmetic of `_ColorConversion.toLinearWorking`, one
/// row at a time. The rows of a chunk are converted by `workers` threads (`concurrentPerform`,
/// rows dealt round-robin) while the library's decoder waits: lcms2's float pipeline is slow
/// (about 10 megapixels a second per core for 8-bit RGB to floats), and PixelFlow's own
/// matrix/TRC path, though many times faster, still writes 16 bytes a pixel. Both convert
/// pixel by pixel (the lcms2 transform is made with `cmsFLAGS_NOCACHE` and keeps no state
/// between pixels), so the result does not depend on how rows are grouped or which thread
/// converts them.
///
/// `@unchecked Sendable`: like every `_RowDecoder`, used by one thread at a time (its
/// conversion workers touch disjoint rows and are joined before `readRows` returns). The
/// conversion is shared with other decoders and the full decode (immutable tables, or an
/// lcms2 transform made with `cmsFLAGS_NOCACHE`: either may run on several threads at once).
final class _ConvertedRowDecoder: _RowDecoder, @unchecked Sendable {
    /// Stored rows decoded per conversion pass and worker.
    static let chunkRows = 16
    /// The fewest pixels in a chunk worth handing to several threads.
    static let parallelPixels = 1 << 16

    private let base: any _RowDecoder
    private let conversion: _RowConversion
    let format: PixelFormat
    var width: Int { base.width }
    var height: Int { base.height }
    /// Threads converting a chunk: the machine's processors, as a render's default.
    private let workers: Int
    /// `chunkRows * workers` stored rows, for `toLinearSRGB`; nil for `naiveCMYK` (in place).
    private let scratch: UnsafeMutableRawPointer?
    private let storedRowBytes: Int

    init(base: any _RowDecoder, conversion: _RowConversion) {
        self.base = base
        self.conversion = conversion
        storedRowBytes = (base.width * base.format.bytesPerPixel + 15) & ~15
        workers = Swift.min(RenderContext.activeProcessorCount, 16)
        if conversion.producesLinearFloats {
            format = .rgbaF32
            scratch = .allocate(byteCount: Self.chunkRows * workers * storedRowBytes, alignment: 64)
        } else {
            format = base.format
            scratch = nil
        }
    }

    deinit { scratch?.deallocate() }

    func readRows(count: Int, into rows: (Int) -> UnsafeMutableRawPointer) throws {
        let w = width
        switch conversion {
        case .naiveCMYK:
            try base.readRows(count: count, into: rows)
            let sixteen = base.format == .rgba16
            for i in 0..<count { _ColorConversion.naiveCMYKToRGBRow(rows(i), count: w, sixteenBits: sixteen) }
        case let .toLinearSRGB(conversion, _, _):
            let scratch = scratch!, stride = storedRowBytes
            var done = 0
            while done < count {
                let n = Swift.min(Self.chunkRows * workers, count - done)
                try base.readRows(count: n) { i in scratch + i * stride }
                let chunk = _ConversionChunk(
                    stored: scratch, stride: stride,
                    rows: (0..<n).map { rows(done + $0) }, width: w)
                let k = n * w >= Self.parallelPixels ? Swift.min(workers, n) : 1
                if k == 1 {
                    for i in 0..<n { chunk.convert(i, conversion) }
                } else {
                    DispatchQueue.concurrentPerform(iterations: k) { j in
                        for i in Swift.stride(from: j, to: n, by: k) { chunk.convert(i, conversion) }
                    }
                }
                done += n
            }
        }
    }
}

/// One chunk of stored rows and the caller's rows they convert into, for the conversion
/// workers of `_ConvertedRowDecoder`. `@unchecked Sendable`: each worker reads and writes only
/// the rows dealt to it (distinct `i`), and the decoder waits for every worker
/// (`concurrentPerform` returns when all are done) before it touches the rows again.
private struct _ConversionChunk: @unchecked Sendable {
    let stored: UnsafeMutableRawPointer
    let stride: Int
    let rows: [UnsafeMutableRawPointer]
    let width: Int

    /// Converts stored row `i` into `rows[i]` as `_ColorConversion.toLinearWorking` converts
    /// every row (`_LinearConversion.convertRow`).
    func convert(_ i: Int, _ conversion: _LinearConversion) {
        conversion.convertRow(
            stored + i * stride, into: rows[i].assumingMemoryBound(to: SIMD4<Float>.self),
            count: width)
    }
}

extension StreamedSource {
    /// This source with its rows converted as `conversion` says (the source itself when it is
    /// nil): a file with a color profile or in CMYK streamed with the values of its full decode.
    /// Converting works pixel by pixel, so a source that shrinks on load still does (the
    /// smaller rows are converted).
    func converted(_ conversion: _RowConversion?) -> StreamedSource {
        guard let conversion else { return self }
        let base = factory
        let floats = conversion.producesLinearFloats
        let smaller: (@Sendable (Int) -> StreamedSource)? =
            shrinkFactors.isEmpty
            ? nil
            : { @Sendable [self] k in
                self.shrunk(by: k)!.converted(conversion)
            }
        return StreamedSource(
            name: name, width: width, height: height, format: floats ? .rgbaF32 : format,
            colorEncoding: floats ? .linear : colorEncoding,
            alphaMode: floats ? .premultiplied : alphaMode,
            isOpaque: conversion.isCMYK || isOpaque, kind: kind + ", \(conversion)",
            heldBytes: heldBytes, shrinkFactor: shrinkFactor, makeShrunk: smaller
        ) {
            _ConvertedRowDecoder(base: try base(), conversion: conversion)
        }
    }
}
