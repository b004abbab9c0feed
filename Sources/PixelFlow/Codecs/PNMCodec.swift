/// Reads the tokens of a Netpbm header: decimal integers and `#` comments to the end of
/// the line, separated by whitespace.
struct _PNMParser {
    let bytes: [UInt8]
    var index: Int
    let file: String

    static func isWhitespace(_ b: UInt8) -> Bool { b == 0x20 || (0x09...0x0D).contains(b) }
    static func isDigit(_ b: UInt8) -> Bool { (0x30...0x39).contains(b) }

    var atEnd: Bool { index >= bytes.count }

    mutating func skipWhitespaceAndComments() {
        while index < bytes.count {
            let b = bytes[index]
            if _PNMParser.isWhitespace(b) {
                index += 1
            } else if b == UInt8(ascii: "#") {
                while index < bytes.count, bytes[index] != 0x0A, bytes[index] != 0x0D { index += 1 }
            } else {
                return
            }
        }
    }

    /// The next non-negative decimal integer, at most `Int32.max`.
    mutating func integer(_ what: String) throws -> Int {
        skipWhitespaceAndComments()
        guard index < bytes.count else { throw failure("the file is truncated before the \(what)") }
        guard _PNMParser.isDigit(bytes[index]) else { throw failure("expected the \(what), found byte \(bytes[index])") }
        var value = 0
        while index < bytes.count, _PNMParser.isDigit(bytes[index]) {
            value = value * 10 + Int(bytes[index] - 0x30)
            guard value <= Int(Int32.max) else { throw failure("the \(what) is too large") }
            index += 1
        }
        return value
    }

    /// The next run of non-whitespace bytes (after skipping whitespace and comments).
    mutating func word() -> String {
        skipWhitespaceAndComments()
        let start = index
        while index < bytes.count, !_PNMParser.isWhitespace(bytes[index]) { index += 1 }
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }

    /// The rest of the current line, trimmed, and the index moved past its end.
    mutating func restOfLine() -> String {
        while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x09 { index += 1 }
        let start = index
        while index < bytes.count, bytes[index] != 0x0A { index += 1 }
        var end = index
        while end > start, _PNMParser.isWhitespace(bytes[end - 1]) { end -= 1 }
        if index < bytes.count { index += 1 }
        return String(decoding: bytes[start..<end], as: UTF8.self)
    }

    func failure(_ reason: String) -> PixelFlowError {
        .decodingFailed(file: file, reason: "PNM: " + reason)
    }
}

/// The header of a Netpbm file, as `_PNMCodec.readHeader` finds it: enough to convert any
/// row (binary rows sit at fixed offsets; ASCII rows are parsed in order).
struct _PNMHeader: Sendable {
    /// The digit after `P`: 1...3 ASCII, 4...7 binary.
    let kind: Int
    let width: Int
    let height: Int
    /// Samples per pixel: 1 (gray), 2 (gray, alpha), 3 (RGB) or 4 (RGB, alpha).
    let depth: Int
    let maxval: Int
    /// Index of the first byte after the header.
    let dataOffset: Int

    /// Two-byte big-endian samples.
    var isWide: Bool { maxval > 255 }
    /// What the rows decode to: `rgba16` when maxval > 255, `gray8` for one channel,
    /// `rgba8` otherwise.
    var format: PixelFormat { isWide ? .rgba16 : (depth == 1 ? .gray8 : .rgba8) }
    /// False when the file has an alpha channel (PAM with DEPTH 2 or 4), even if every
    /// alpha sample is maxval.
    var isOpaque: Bool { depth == 1 || depth == 3 }
    /// Bytes of one row of samples in a binary file (P4 packs 8 pixels a byte).
    var binaryRowBytes: Int { kind == 4 ? (width + 7) / 8 : width * depth * (isWide ? 2 : 1) }
}

/// Netpbm images in Swift: PBM (P1, P4), PGM (P2, P5), PPM (P3, P6) and PAM (P7).
///
/// Decoding gives `gray8` for one channel with maxval <= 255, `rgba16` when maxval > 255
/// (samples are big-endian and scaled to 0...65535), and `rgba8` otherwise; samples are
/// scaled from 0...maxval to the full range, values above maxval clamp. PAM accepts DEPTH 1
/// to 4 with the TUPLTYPEs GRAYSCALE, BLACKANDWHITE, GRAYSCALE_ALPHA, BLACKANDWHITE_ALPHA,
/// RGB and RGB_ALPHA (or none: the depth decides). Encoding writes P5 for `gray8`, P6 for
/// opaque RGB and P7 `RGB_ALPHA` otherwise, with maxval 65535 for `rgba16`.
///
/// The whole-file decoder and encoder and the row ones (`_PNMRowDecoder`, `_PNMRowEncoder`)
/// share the header code and the per-row conversions (`_PNMRowReader`, `storeRow`), so their
/// pixels and bytes are the same.
///
/// Specification: netpbm.sourceforge.net/doc/pnm.html and pam.html.
///
/// - Complexity: O(pixels), a row of scratch samples.
enum _PNMCodec {
    static func decode(_ bytes: [UInt8], name: String, options: DecodeOptions) throws -> PixelBuffer {
        let header = try readHeader(bytes, name: name, options: options)
        var buffer = try _Codec.makeDecodedBuffer(width: header.width, height: header.height, format: header.format)
        var reader = _PNMRowReader(bytes: bytes, header: header, name: name)
        let stride = buffer.bytesPerRow
        try buffer.withUnsafeMutableBytes { raw in
            for y in 0..<header.height { try reader.readRow(into: raw.baseAddress! + y * stride) }
        }
        return buffer
    }

    /// Reads the header of the Netpbm file in `bytes` and checks the size against `options`
    /// and the bytes that follow (a binary file must hold every sample; an ASCII one at
    /// least a byte a sample).
    ///
    /// - Throws: `unsupportedFormat` for a file that is not Netpbm or a PAM tuple type not
    ///   read, `limitExceeded` for a size beyond `options`, `decodingFailed` for a bad or
    ///   truncated header or too few sample bytes.
    ///
    /// With `fileSize`, `bytes` is the start of a file of that many bytes (its header must be
    /// in it) and the sample bytes are counted against the file.
    static func readHeader(
        _ bytes: [UInt8], name: String, options: DecodeOptions,
        fileSize: Int? = nil
    ) throws -> _PNMHeader {
        guard bytes.count >= 3, bytes[0] == UInt8(ascii: "P"), (0x31...0x37).contains(bytes[1]) else {
            throw PixelFlowError.unsupportedFormat(file: name, reason: "not a Netpbm file")
        }
        let kind = Int(bytes[1] - 0x30)
        var parser = _PNMParser(bytes: bytes, index: 2, file: name)
        let width: Int, height: Int, maxval: Int, depth: Int
        if kind == 7 {
            (width, height, depth, maxval) = try readPAMHeader(&parser, name: name)
        } else {
            width = try parser.integer("width")
            height = try parser.integer("height")
            maxval = (kind == 1 || kind == 4) ? 1 : try parser.integer("maxval")
            depth = (kind == 3 || kind == 6) ? 3 : 1
            if kind >= 4 {
                // Exactly one whitespace byte separates the header from binary samples.
                guard !parser.atEnd, _PNMParser.isWhitespace(bytes[parser.index]) else {
                    throw parser.failure("the file is truncated after the header")
                }
                parser.index += 1
            }
        }
        guard (1...65535).contains(maxval) else { throw parser.failure("maxval \(maxval) is outside 1...65535") }
        try options._checkDimensions(width: width, height: height, file: name)

        let wide = maxval > 255
        let available = (fileSize ?? bytes.count) - parser.index
        let needed: Int?
        switch kind {
        case 1, 2, 3: needed = _Codec.product(width, height, depth)  // at least a byte a sample
        case 4: needed = _Codec.product((width + 7) / 8, height)
        default: needed = _Codec.product(width, height, depth, wide ? 2 : 1)
        }
        guard let needed, needed <= available else {
            throw parser.failure(
                "the file is truncated: \(width)x\(height) with \(depth) channel(s) needs "
                    + "\(needed.map(String.init) ?? "too many") bytes of samples, \(available) follow")
        }
        return _PNMHeader(
            kind: kind, width: width, height: height, depth: depth, maxval: maxval,
            dataOffset: parser.index)
    }

    /// Reads a PAM header after `P7` up to and including the line `ENDHDR`.
    private static func readPAMHeader(_ parser: inout _PNMParser, name: String) throws
        -> (width: Int, height: Int, depth: Int, maxval: Int)
    {
        var width: Int?, height: Int?, depth: Int?, maxval: Int?
        var tupleType = ""
        while true {
            parser.skipWhitespaceAndComments()
            guard !parser.atEnd else { throw parser.failure("the PAM header has no ENDHDR") }
            let keyword = parser.word()
            switch keyword {
            case "WIDTH": width = try parser.integer("width")
            case "HEIGHT": height = try parser.integer("height")
            case "DEPTH": depth = try parser.integer("depth")
            case "MAXVAL": maxval = try parser.integer("maxval")
            case "TUPLTYPE":
                let t = parser.restOfLine()
                tupleType = tupleType.isEmpty ? t : tupleType + " " + t
            case "ENDHDR":
                _ = parser.restOfLine()
                guard let width, let height, let depth, let maxval else {
                    throw parser.failure("the PAM header lacks WIDTH, HEIGHT, DEPTH or MAXVAL")
                }
                let expected: Int?
                switch tupleType {
                case "": expected = nil
                case "GRAYSCALE", "BLACKANDWHITE": expected = 1
                case "GRAYSCALE_ALPHA", "BLACKANDWHITE_ALPHA": expected = 2
                case "RGB": expected = 3
                case "RGB_ALPHA": expected = 4
                default:
                    throw PixelFlowError.unsupportedFormat(file: name, reason: "PAM TUPLTYPE \(tupleType)")
                }
                guard (1...4).contains(depth) else {
                    throw PixelFlowError.unsupportedFormat(file: name, reason: "PAM with DEPTH \(depth) (1...4 are read)")
                }
                if let expected, expected != depth {
                    throw parser.failure("TUPLTYPE \(tupleType) needs DEPTH \(expected), the header says \(depth)")
                }
                return (width, height, depth, maxval)
            default:
                throw parser.failure("unknown PAM header keyword '\(keyword.prefix(32))'")
            }
        }
    }

    static func encode(_ source: PixelBuffer, name: String) throws -> [UInt8] {
        let buffer = _Codec.encodable(source)
        let w = buffer.width, h = buffer.height
        let channels = buffer.format == .gray8 ? 1 : (_Codec.isOpaque(buffer) ? 3 : 4)
        let header = fileHeader(width: w, height: h, channels: channels, format: buffer.format)
        let rowBytes = fileRowBytes(width: w, channels: channels, format: buffer.format)
        guard let size = _Codec.product(rowBytes, h), size <= Int.max - header.count else {
            throw PixelFlowError.encodingFailed(file: name, reason: "PNM: the image is too large")
        }
        var out = [UInt8](repeating: 0, count: header.count + size)
        out.withUnsafeMutableBufferPointer { o in
            _ = UnsafeMutableBufferPointer(rebasing: o[..<header.count]).initialize(from: header)
            buffer.withUnsafeRows { y, row in
                storeRow(
                    row, width: w, format: buffer.format, channels: channels,
                    to: o.baseAddress! + header.count + y * rowBytes)
            }
        }
        return out
    }

    /// The header `encode` writes: P5 for one channel, P6 for three, P7 `RGB_ALPHA` for four,
    /// maxval 65535 for `rgba16` and 255 otherwise.
    static func fileHeader(width: Int, height: Int, channels: Int, format: PixelFormat) -> [UInt8] {
        let maxval = format == .rgba16 ? 65535 : 255
        var out: [UInt8] = []
        switch channels {
        case 1: out._appendASCII("P5\n\(width) \(height)\n255\n")
        case 3: out._appendASCII("P6\n\(width) \(height)\n\(maxval)\n")
        default:
            out._appendASCII("P7\nWIDTH \(width)\nHEIGHT \(height)\nDEPTH 4\nMAXVAL \(maxval)\nTUPLTYPE RGB_ALPHA\nENDHDR\n")
        }
        return out
    }

    /// Bytes of one encoded row: `channels` samples a pixel, two bytes each for `rgba16`.
    static func fileRowBytes(width: Int, channels: Int, format: PixelFormat) -> Int {
        width * channels * (format == .rgba16 ? 2 : 1)
    }

    /// Writes one row of `width` pixels of `format` (`gray8`, `rgba8`, `rgba16`) as `channels`
    /// samples a pixel (1 for `gray8`; 3 drops alpha; 4 keeps it), 16-bit samples big-endian,
    /// into `out` (`fileRowBytes` bytes).
    static func storeRow(
        _ row: UnsafeRawPointer, width w: Int, format: PixelFormat, channels: Int,
        to out: UnsafeMutablePointer<UInt8>
    ) {
        switch format {
        case .gray8:
            out.update(from: row.assumingMemoryBound(to: UInt8.self), count: w)
        case .rgba16:
            let p = row.assumingMemoryBound(to: UInt16.self)
            var o = 0
            for x in 0..<w {
                for c in 0..<channels {
                    let v = p[4 * x + c]
                    out[o] = UInt8(v >> 8); out[o + 1] = UInt8(v & 0xFF)
                    o += 2
                }
            }
        default:
            let p = row.assumingMemoryBound(to: UInt8.self)
            if channels == 4 {
                out.update(from: p, count: 4 * w)
            } else {
                for x in 0..<w { out[3 * x] = p[4 * x]; out[3 * x + 1] = p[4 * x + 1]; out[3 * x + 2] = p[4 * x + 2] }
            }
        }
    }
}

/// Converts the rows of a Netpbm file to pixels one at a time, top to bottom: the per-row
/// work of `_PNMCodec.decode` and of `_PNMRowDecoder`, so both give the same pixels.
///
/// Binary rows (P4 to P7) are read at `dataOffset + y * binaryRowBytes`; ASCII rows (P1 to
/// P3) are parsed from where the previous row ended. Samples above maxval clamp; samples are
/// scaled from 0...maxval to 0...255 (a table) or 0...65535, rounding to nearest.
///
/// Holds the file's bytes (a reference to the array, not a copy) and one row of samples.
struct _PNMRowReader {
    let header: _PNMHeader
    /// The next row `readRow` converts.
    private(set) var nextRow = 0
    private var parser: _PNMParser
    private var samples: [Int]
    private let scale8: [UInt8]
    /// The open file a binary file's rows are read from, one positional read a row, when the
    /// reader holds no bytes.
    private let file: _OpenFile?

    /// A reader before the first row of the file in `bytes`, whose header is `header`
    /// (`_PNMCodec.readHeader` checked that the binary samples are all there).
    init(bytes: [UInt8], header: _PNMHeader, name: String) {
        self.header = header
        parser = _PNMParser(bytes: bytes, index: header.dataOffset, file: name)
        samples = [Int](repeating: 0, count: header.width * header.depth)
        let maxval = header.maxval
        scale8 = header.isWide ? [] : (0...maxval).map { UInt8(($0 * 255 + maxval / 2) / maxval) }
        file = nil
    }

    /// A reader of the binary (P4 to P7) file `file`, whose header is `header`
    /// (`_PNMCodec.readHeader` with the file's size).
    init(file: _OpenFile, header: _PNMHeader) {
        precondition(header.kind >= 4, "ASCII rows are parsed from bytes in memory")
        self.header = header
        parser = _PNMParser(bytes: [], index: header.dataOffset, file: file.name)
        samples = [Int](repeating: 0, count: header.width * header.depth)
        let maxval = header.maxval
        scale8 = header.isWide ? [] : (0...maxval).map { UInt8(($0 * 255 + maxval / 2) / maxval) }
        self.file = file
    }

    /// Converts row `nextRow` into `row` (`width * format.bytesPerPixel` bytes).
    ///
    /// - Throws: `decodingFailed` for a bad or missing sample in an ASCII file.
    mutating func readRow(into row: UnsafeMutableRawPointer) throws {
        let y = nextRow
        precondition(y < header.height, "rows past the end of the image")
        let width = header.width, maxval = header.maxval, rowSamples = width * header.depth
        var bytes = parser.bytes
        var offset = header.dataOffset + y * header.binaryRowBytes
        if let file {
            bytes = try file.read(at: offset, count: header.binaryRowBytes)
            guard bytes.count == header.binaryRowBytes else { throw parser.failure("the file is truncated in row \(y)") }
            offset = 0
        }
        // One row of raw samples, clamped to maxval.
        switch header.kind {
        case 1:
            for s in 0..<rowSamples {
                parser.skipWhitespaceAndComments()
                guard !parser.atEnd else { throw parser.failure("the file is truncated in row \(y)") }
                let b = bytes[parser.index]
                guard b == 0x30 || b == 0x31 else { throw parser.failure("expected 0 or 1 in row \(y), found byte \(b)") }
                samples[s] = b == 0x31 ? 0 : 1  // PBM: 1 is black
                parser.index += 1
            }
        case 2, 3:
            for s in 0..<rowSamples { samples[s] = min(try parser.integer("sample in row \(y)"), maxval) }
        case 4:
            for x in 0..<width {
                let bit = (bytes[offset + (x >> 3)] >> (7 - UInt8(x & 7))) & 1
                samples[x] = 1 - Int(bit)
            }
        default:
            if header.isWide {
                for s in 0..<rowSamples { samples[s] = min(bytes._be16(offset + 2 * s), maxval) }
            } else {
                for s in 0..<rowSamples { samples[s] = min(Int(bytes[offset + s]), maxval) }
            }
        }
        store(into: row)
        nextRow += 1
    }

    /// Scales the row of samples (`depth` per pixel) into `row`.
    private func store(into row: UnsafeMutableRawPointer) {
        let width = header.width, depth = header.depth, maxval = header.maxval
        let samples = self.samples, scale8 = self.scale8
        switch header.format {
        case .rgba16:
            let p = row.assumingMemoryBound(to: UInt16.self)
            func s16(_ v: Int) -> UInt16 { UInt16(maxval == 65535 ? v : (v * 65535 + maxval / 2) / maxval) }
            for x in 0..<width {
                let s = x * depth
                let rgba: (Int, Int, Int, UInt16)
                switch depth {
                case 1: rgba = (s, s, s, 65535)
                case 2: rgba = (s, s, s, s16(samples[s + 1]))
                case 3: rgba = (s, s + 1, s + 2, 65535)
                default: rgba = (s, s + 1, s + 2, s16(samples[s + 3]))
                }
                p[4 * x] = s16(samples[rgba.0]); p[4 * x + 1] = s16(samples[rgba.1])
                p[4 * x + 2] = s16(samples[rgba.2]); p[4 * x + 3] = rgba.3
            }
        case .gray8:
            let p = row.assumingMemoryBound(to: UInt8.self)
            for x in 0..<width { p[x] = scale8[samples[x]] }
        default:
            let p = row.assumingMemoryBound(to: UInt8.self)
            for x in 0..<width {
                let s = x * depth
                switch depth {
                case 2:
                    let g = scale8[samples[s]]
                    p[4 * x] = g; p[4 * x + 1] = g; p[4 * x + 2] = g; p[4 * x + 3] = scale8[samples[s + 1]]
                case 3:
                    p[4 * x] = scale8[samples[s]]; p[4 * x + 1] = scale8[samples[s + 1]]
                    p[4 * x + 2] = scale8[samples[s + 2]]; p[4 * x + 3] = 255
                default:
                    p[4 * x] = scale8[samples[s]]; p[4 * x + 1] = scale8[samples[s + 1]]
                    p[4 * x + 2] = scale8[samples[s + 2]]; p[4 * x + 3] = scale8[samples[s + 3]]
                }
            }
        }
    }
}
