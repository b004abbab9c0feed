/// One segment of a QR code's data: a mode indicator, a character count where the mode has
/// one, and the data bits (ISO/IEC 18004 §7.4). Also the header segments that carry no
/// characters: ECI designators, structured append and FNC1.
///
/// ```swift
/// let segments = [try QRSegment.alphanumeric("PRICE: "), try QRSegment.numeric("1299")]
/// let symbol = try QRCodeEncoder(correctionLevel: .quartile).encode(segments: segments)
/// ```
///
/// Use `QRSegment.optimalSegments(for:version:)` to let PixelFlow choose the modes.
public struct QRSegment: Sendable, Hashable, CustomStringConvertible {
    /// How a segment's data is encoded.
    public enum Mode: Int, Sendable, Hashable, CaseIterable, CustomStringConvertible {
        /// Digits 0-9, three per 10 bits.
        case numeric = 0b0001
        /// Digits, A-Z, space and `$%*+-./:`, two per 11 bits.
        case alphanumeric = 0b0010
        /// Bytes, 8 bits each; their character set is ISO-8859-1 unless an ECI says otherwise
        /// (UTF-8 in practice).
        case byte = 0b0100
        /// JIS X 0208 characters (Shift JIS double-byte codes), 13 bits each.
        case kanji = 0b1000
        /// An Extended Channel Interpretation: the character set of the byte data after it.
        case eci = 0b0111
        /// Structured append: this symbol is one of up to 16 that together hold a message.
        case structuredAppend = 0b0011
        /// FNC1 in the first position: the data follows the GS1 Application Identifier rules.
        case fnc1First = 0b0101
        /// FNC1 in the second position: data formatted for an application identified by an
        /// AIM-assigned indicator.
        case fnc1Second = 0b1001

        /// The 4-bit mode indicator.
        public var indicator: Int { rawValue }

        /// Bits of the character count indicator in `version` (ISO/IEC 18004 Table 3); 0 for
        /// modes without a count.
        public func characterCountBits(version: QRVersion) -> Int {
            let group = version.number <= 9 ? 0 : (version.number <= 26 ? 1 : 2)
            switch self {
            case .numeric: return [10, 12, 14][group]
            case .alphanumeric: return [9, 11, 13][group]
            case .byte: return [8, 16, 16][group]
            case .kanji: return [8, 10, 12][group]
            default: return 0
            }
        }

        public var description: String {
            switch self {
            case .numeric: return "numeric"
            case .alphanumeric: return "alphanumeric"
            case .byte: return "byte"
            case .kanji: return "kanji"
            case .eci: return "ECI"
            case .structuredAppend: return "structured append"
            case .fnc1First: return "FNC1 (first position)"
            case .fnc1Second: return "FNC1 (second position)"
            }
        }
    }

    /// The segment's mode: how its payload is encoded.
    public let mode: Mode
    /// Characters (numeric, alphanumeric, kanji) or bytes (byte mode); the designator of an
    /// ECI segment; 0 for the other modes.
    public let characterCount: Int
    /// The bits after the mode indicator and character count.
    public let data: QRBitBuffer
    /// What the segment holds, as bytes: ASCII for numeric and alphanumeric, the bytes of
    /// byte mode, the Shift JIS codes of kanji mode; empty for the header modes.
    public let payload: [UInt8]

    init(mode: Mode, characterCount: Int, data: QRBitBuffer, payload: [UInt8]) {
        self.mode = mode
        self.characterCount = characterCount
        self.data = data
        self.payload = payload
    }

    /// The 45 characters of alphanumeric mode, in code order.
    static let alphanumericCharacters: [UInt8] = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ $%*+-./:".utf8)

    /// The alphanumeric code of an ASCII byte, or nil.
    static func alphanumericCode(_ b: UInt8) -> Int? {
        switch b {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return Int(b) - 48
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): return Int(b) - 55
        case UInt8(ascii: " "): return 36
        case UInt8(ascii: "$"): return 37
        case UInt8(ascii: "%"): return 38
        case UInt8(ascii: "*"): return 39
        case UInt8(ascii: "+"): return 40
        case UInt8(ascii: "-"): return 41
        case UInt8(ascii: "."): return 42
        case UInt8(ascii: "/"): return 43
        case UInt8(ascii: ":"): return 44
        default: return nil
        }
    }

    static func _fail(_ reason: String) -> PixelFlowError {
        .invalidParameter(filter: "CIQRCodeGenerator", key: "inputMessage", reason: reason)
    }

    // MARK: Making segments

    /// A numeric segment.
    /// - Throws: `PixelFlowError.invalidParameter` when `digits` has a character other than 0-9.
    public static func numeric(_ digits: String) throws -> QRSegment {
        let bytes = Array(digits.utf8)
        guard bytes.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { throw _fail("has a character other than 0-9 for numeric mode") }
        return numeric(asciiDigits: bytes)
    }

    static func numeric(asciiDigits bytes: [UInt8]) -> QRSegment {
        var bits = QRBitBuffer()
        var i = 0
        while i < bytes.count {
            let n = min(3, bytes.count - i)
            var v = 0
            for k in 0..<n { v = v * 10 + Int(bytes[i + k]) - 48 }
            bits.append(v, length: n * 3 + 1)
            i += n
        }
        return QRSegment(mode: .numeric, characterCount: bytes.count, data: bits, payload: bytes)
    }

    /// An alphanumeric segment.
    /// - Throws: `PixelFlowError.invalidParameter` when `text` has a character outside 0-9,
    ///   A-Z (upper case), space and `$%*+-./:`.
    public static func alphanumeric(_ text: String) throws -> QRSegment {
        let bytes = Array(text.utf8)
        guard bytes.allSatisfy({ alphanumericCode($0) != nil }) else {
            throw _fail("has a character outside 0-9, A-Z, space and $%*+-./: for alphanumeric mode")
        }
        return alphanumeric(ascii: bytes)
    }

    static func alphanumeric(ascii bytes: [UInt8]) -> QRSegment {
        var bits = QRBitBuffer()
        var i = 0
        while i + 1 < bytes.count {
            bits.append(alphanumericCode(bytes[i])! * 45 + alphanumericCode(bytes[i + 1])!, length: 11)
            i += 2
        }
        if i < bytes.count { bits.append(alphanumericCode(bytes[i])!, length: 6) }
        return QRSegment(mode: .alphanumeric, characterCount: bytes.count, data: bits, payload: bytes)
    }

    /// A byte segment holding `bytes` as they are.
    public static func bytes(_ bytes: [UInt8]) -> QRSegment {
        var bits = QRBitBuffer()
        for b in bytes { bits.append(Int(b), length: 8) }
        return QRSegment(mode: .byte, characterCount: bytes.count, data: bits, payload: bytes)
    }

    /// A byte segment holding the UTF-8 encoding of `text`.
    public static func utf8(_ text: String) -> QRSegment { bytes(Array(text.utf8)) }

    /// A kanji segment for `text`, every character of which must be in JIS X 0208 within the
    /// kanji-mode code ranges (Shift JIS 0x8140...0x9FFC and 0xE040...0xEBBF): kanji, kana,
    /// full-width Latin letters and digits, and the JIS symbols.
    /// - Throws: `PixelFlowError.invalidParameter` naming the first character that is not.
    public static func kanji(_ text: String) throws -> QRSegment {
        var codes: [UInt16] = []
        for s in text.unicodeScalars {
            guard let c = ShiftJIS.kanjiCode(for: s) else {
                throw _fail("has '\(s)' (U+\(String(s.value, radix: 16, uppercase: true))), which kanji mode cannot hold")
            }
            codes.append(c)
        }
        return kanji(codes: codes)
    }

    /// A kanji segment from Shift JIS bytes: pairs of bytes in 0x8140...0x9FFC or
    /// 0xE040...0xEBBF.
    /// - Throws: `PixelFlowError.invalidParameter` for an odd count or a pair out of range.
    public static func kanji(shiftJIS bytes: [UInt8]) throws -> QRSegment {
        guard bytes.count % 2 == 0 else { throw _fail("has an odd number of Shift JIS bytes for kanji mode") }
        var codes: [UInt16] = []
        for i in stride(from: 0, to: bytes.count, by: 2) {
            let c = UInt16(bytes[i]) << 8 | UInt16(bytes[i + 1])
            guard _kanjiValue(c) != nil else {
                throw _fail("has the Shift JIS code 0x\(String(c, radix: 16, uppercase: true)), outside kanji mode's ranges")
            }
            codes.append(c)
        }
        return kanji(codes: codes)
    }

    /// The 13-bit value of a Shift JIS code in kanji mode (ISO/IEC 18004 §7.4.6).
    static func _kanjiValue(_ c: UInt16) -> Int? {
        let v: Int
        switch c {
        case 0x8140...0x9FFC: v = Int(c) - 0x8140
        case 0xE040...0xEBBF: v = Int(c) - 0xC140
        default: return nil
        }
        let low = v & 0xFF
        guard low >= 0x00, low <= 0xBC else { return nil }
        return (v >> 8) * 0xC0 + low
    }

    static func kanji(codes: [UInt16]) -> QRSegment {
        var bits = QRBitBuffer()
        var payload: [UInt8] = []
        for c in codes {
            bits.append(_kanjiValue(c)!, length: 13)
            payload += [UInt8(c >> 8), UInt8(c & 0xFF)]
        }
        return QRSegment(mode: .kanji, characterCount: codes.count, data: bits, payload: payload)
    }

    /// An ECI designator: 26 for UTF-8, 3 for ISO-8859-1, 20 for Shift JIS, and so on.
    /// - Throws: `PixelFlowError.invalidParameter` outside 0...999999.
    public static func eci(_ designator: Int) throws -> QRSegment {
        var bits = QRBitBuffer()
        switch designator {
        case 0..<128: bits.append(designator, length: 8)
        case 128..<16384: bits.append(0b10 << 14 | designator, length: 16)
        case 16384...999_999: bits.append(0b110 << 21 | designator, length: 24)
        default: throw _fail("has the ECI designator \(designator), outside 0...999999")
        }
        return QRSegment(mode: .eci, characterCount: designator, data: bits, payload: [])
    }

    /// The ECI assignment number of a segment of mode `.eci`.
    public var eciDesignator: Int? { mode == .eci ? characterCount : nil }

    /// A structured-append header: this symbol is number `index` (0-based) of `total` (2...16),
    /// and `parity` is the XOR of all bytes of the whole message
    /// (`QRStructuredAppend.parity(of:)`). It must be the first segment.
    /// - Throws: `PixelFlowError.invalidParameter` for an index or total out of range.
    public static func structuredAppend(index: Int, total: Int, parity: UInt8) throws -> QRSegment {
        guard (1...16).contains(total), (0..<total).contains(index) else {
            throw _fail("has structured append position \(index) of \(total); the total must be 1...16 and the index 0..<total")
        }
        var bits = QRBitBuffer()
        bits.append(index, length: 4)
        bits.append(total - 1, length: 4)
        bits.append(Int(parity), length: 8)
        return QRSegment(mode: .structuredAppend, characterCount: 0, data: bits, payload: [])
    }

    /// FNC1 in the first position (GS1): alphanumeric `%` then stands for the GS separator.
    public static let fnc1First = QRSegment(mode: .fnc1First, characterCount: 0, data: QRBitBuffer(), payload: [])

    /// FNC1 in the second position with an application indicator (0...255).
    public static func fnc1Second(applicationIndicator: UInt8) -> QRSegment {
        var bits = QRBitBuffer()
        bits.append(Int(applicationIndicator), length: 8)
        return QRSegment(mode: .fnc1Second, characterCount: 0, data: bits, payload: [])
    }

    // MARK: Sizes

    /// Bits the segment takes in `version`, header included; nil when its character count
    /// does not fit the count indicator.
    public func bitLength(version: QRVersion) -> Int? {
        let countBits = mode.characterCountBits(version: version)
        if countBits > 0, characterCount >> countBits != 0 { return nil }
        return 4 + countBits + data.count
    }

    /// Bits all `segments` take in `version`; nil when one does not fit.
    public static func bitLength(of segments: [QRSegment], version: QRVersion) -> Int? {
        var total = 0
        for s in segments {
            guard let n = s.bitLength(version: version) else { return nil }
            total += n
        }
        return total
    }

    /// Appends the segment (mode, count, data) to `buffer` for `version`.
    func write(to buffer: inout QRBitBuffer, version: QRVersion) {
        buffer.append(mode.indicator, length: 4)
        let countBits = mode.characterCountBits(version: version)
        if countBits > 0 { buffer.append(characterCount, length: countBits) }
        buffer.append(contentsOf: data)
    }

    public var description: String {
        switch mode {
        case .numeric, .alphanumeric: return "\(mode)(\"\(String(decoding: payload, as: UTF8.self))\")"
        case .byte: return "byte(\(characterCount) bytes)"
        case .kanji: return "kanji(\(characterCount) characters)"
        case .eci: return "ECI(\(characterCount))"
        default: return "\(mode)"
        }
    }
}

/// Helpers for messages split over several symbols (ISO/IEC 18004 §8).
public enum QRStructuredAppend {
    /// The parity byte of a structured-append message: the XOR of all its bytes.
    public static func parity(of bytes: [UInt8]) -> UInt8 { bytes.reduce(0, ^) }
}
