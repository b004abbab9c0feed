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

/// Netpbm images in Swift: PBM (P1, P4), PGM (P2, P5), PPM (P3, P6) and PAM (P7).
///
/// Decoding gives `gray8` for one channel with maxval <= 255, `rgba16` when maxval > 255
/// (samples are big-endian and scaled to 0...65535), and `rgba8` otherwise; samples are
/// scaled from 0...maxval to the full range, values above maxval clamp. PAM accepts DEPTH 1
/// to 4 with the TUPLTYPEs GRAYSCALE, BLACKANDWHITE, GRAYSCALE_ALPHA, BLACKANDWHITE_ALPHA,
/// RGB and RGB_ALPHA (or none: the depth decides). Encoding writes P5 for `gray8`, P6 for
/// opaque RGB and P7 `RGB_ALPHA` otherwise, with maxval 65535 for `rgba16`.
///
/// Specification: netpbm.sourceforge.net/doc/pnm.html and pam.html.
///
/// - Complexity: O(pixels), a row of scratch samples.
enum _PNMCodec {
    static func decode(_ bytes: [UInt8], name: String, options: DecodeOptions) throws -> PixelBuffer {
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
        let available = bytes.count - parser.index
        let needed: Int?
        switch kind {
        case 1, 2, 3: needed = _Codec.product(width, height, depth)   // at least a byte a sample
        case 4: needed = _Codec.product((width + 7) / 8, height)
        default: needed = _Codec.product(width, height, depth, wide ? 2 : 1)
        }
        guard let needed, needed <= available else {
            throw parser.failure("the file is truncated: \(width)x\(height) with \(depth) channel(s) needs "
                + "\(needed.map(String.init) ?? "too many") bytes of samples, \(available) follow")
        }

        let format: PixelFormat = wide ? .rgba16 : (depth == 1 ? .gray8 : .rgba8)
        var buffer = try _Codec.makeDecodedBuffer(width: width, height: height, format: format)
        let rowSamples = width * depth
        var samples = [Int](repeating: 0, count: rowSamples)
        let scale8: [UInt8] = wide ? [] : (0...maxval).map { UInt8(($0 * 255 + maxval / 2) / maxval) }
        let binaryRowBytes = kind == 4 ? (width + 7) / 8 : rowSamples * (wide ? 2 : 1)
        var offset = parser.index
        for y in 0..<height {
            // One row of raw samples, clamped to maxval.
            switch kind {
            case 1:
                for s in 0..<rowSamples {
                    parser.skipWhitespaceAndComments()
                    guard !parser.atEnd else { throw parser.failure("the file is truncated in row \(y)") }
                    let b = bytes[parser.index]
                    guard b == 0x30 || b == 0x31 else { throw parser.failure("expected 0 or 1 in row \(y), found byte \(b)") }
                    samples[s] = b == 0x31 ? 0 : 1     // PBM: 1 is black
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
                if wide {
                    for s in 0..<rowSamples { samples[s] = min(bytes._be16(offset + 2 * s), maxval) }
                } else {
                    for s in 0..<rowSamples { samples[s] = min(Int(bytes[offset + s]), maxval) }
                }
            }
            offset += binaryRowBytes
            store(samples, depth: depth, maxval: maxval, scale8: scale8, into: &buffer, row: y)
        }
        return buffer
    }

    /// Scales a row of samples (`depth` per pixel) into row `y` of `buffer`.
    private static func store(_ samples: [Int], depth: Int, maxval: Int, scale8: [UInt8],
                              into buffer: inout PixelBuffer, row y: Int) {
        let width = buffer.width, stride = buffer.bytesPerRow, format = buffer.format
        buffer.withUnsafeMutableBytes { raw in
            let row = raw.baseAddress! + y * stride
            if format == .rgba16 {
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
            } else if format == .gray8 {
                let p = row.assumingMemoryBound(to: UInt8.self)
                for x in 0..<width { p[x] = scale8[samples[x]] }
            } else {
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

    /// Reads a PAM header after `P7` up to and including the line `ENDHDR`.
    private static func readPAMHeader(_ parser: inout _PNMParser, name: String) throws
        -> (width: Int, height: Int, depth: Int, maxval: Int) {
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
        var out: [UInt8] = []
        let wide = buffer.format == .rgba16
        let maxval = wide ? 65535 : 255
        let channels: Int
        if buffer.format == .gray8 {
            channels = 1
            out._appendASCII("P5\n\(w) \(h)\n255\n")
        } else if _Codec.isOpaque(buffer) {
            channels = 3
            out._appendASCII("P6\n\(w) \(h)\n\(maxval)\n")
        } else {
            channels = 4
            out._appendASCII("P7\nWIDTH \(w)\nHEIGHT \(h)\nDEPTH 4\nMAXVAL \(maxval)\nTUPLTYPE RGB_ALPHA\nENDHDR\n")
        }
        guard let size = _Codec.product(w, h, channels, wide ? 2 : 1) else {
            throw PixelFlowError.encodingFailed(file: name, reason: "PNM: the image is too large")
        }
        out.reserveCapacity(out.count + size)
        buffer.withUnsafeRows { _, row in
            switch (buffer.format, channels) {
            case (.gray8, _):
                out.append(contentsOf: UnsafeBufferPointer(start: row.assumingMemoryBound(to: UInt8.self), count: w))
            case (.rgba16, _):
                let p = row.assumingMemoryBound(to: UInt16.self)
                for x in 0..<w {
                    for c in 0..<channels {
                        let v = p[4 * x + c]
                        out.append(UInt8(v >> 8)); out.append(UInt8(v & 0xFF))
                    }
                }
            default:
                let p = row.assumingMemoryBound(to: UInt8.self)
                if channels == 4 {
                    out.append(contentsOf: UnsafeBufferPointer(start: p, count: 4 * w))
                } else {
                    for x in 0..<w { out.append(p[4 * x]); out.append(p[4 * x + 1]); out.append(p[4 * x + 2]) }
                }
            }
        }
        return out
    }
}
