/// Turns decoded segments into text: consecutive byte, numeric and alphanumeric data under
/// one ECI are decoded together in that ECI's character set; kanji is Shift JIS.
struct QRTextAssembler {
    /// A character set named by an ECI designator (AIM ECI assignments).
    enum Charset: Hashable {
        /// No ECI seen: the standard's default is ISO-8859-1, but generators write UTF-8 and
        /// Shift JIS without an ECI too, so the bytes choose (`guessCharset`).
        case guess
        case latin1, utf8, shiftJIS, utf16BE, ascii
        case unsupported(Int)

        init(eci: Int) {
            switch eci {
            case 1, 3: self = .latin1
            case 20: self = .shiftJIS
            case 25: self = .utf16BE
            case 26: self = .utf8
            case 27, 170: self = .ascii
            default: self = .unsupported(eci)
            }
        }
    }

    private var pieces: [(charset: Charset, bytes: [UInt8])] = []
    private var current = Charset.guess

    mutating func setECI(_ designator: Int) { current = Charset(eci: designator) }

    mutating func append(ascii: [UInt8]) { _append(ascii, current) }
    mutating func append(bytes: [UInt8]) { _append(bytes, current) }
    mutating func append(shiftJIS: [UInt8]) { _append(shiftJIS, .shiftJIS) }

    private mutating func _append(_ bytes: [UInt8], _ charset: Charset) {
        if let last = pieces.last, last.charset == charset {
            pieces[pieces.count - 1].bytes += bytes
        } else {
            pieces.append((charset, bytes))
        }
    }

    /// The text, or nil when a piece cannot be decoded.
    func finish() -> String? {
        var out = ""
        for p in pieces {
            guard let s = QRTextAssembler.decode(p.bytes, p.charset) else { return nil }
            out += s
        }
        return out
    }

    static func decode(_ bytes: [UInt8], _ charset: Charset) -> String? {
        switch charset {
        case .guess: return utf8(bytes) ?? (guessesShiftJIS(bytes) ? ShiftJIS.decode(bytes) : nil) ?? latin1(bytes)
        case .latin1: return latin1(bytes)
        case .utf8: return utf8(bytes)
        case .shiftJIS: return ShiftJIS.decode(bytes)
        case .ascii: return bytes.allSatisfy { $0 < 0x80 } ? latin1(bytes) : nil
        case .utf16BE:
            guard bytes.count % 2 == 0 else { return nil }
            let units = stride(from: 0, to: bytes.count, by: 2).map { UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]) }
            var s = String.UnicodeScalarView()
            for r in Unicode.UTF16.decode(units) {
                guard let scalar = r else { return nil }
                s.append(scalar)
            }
            return String(s)
        case .unsupported: return nil
        }
    }

    /// Whether bytes without an ECI that are not valid UTF-8 are better read as Shift JIS
    /// than as ISO-8859-1, as ZXing's readers guess: Shift JIS when the bytes are valid Shift
    /// JIS and either use 0x80...0x9F (C1 controls, never text in ISO-8859-1) or are at least
    /// 10% ISO-8859-1 symbols rarely seen in text (0xA0...0xBF, 0xD7, 0xF7), which Shift JIS
    /// trail bytes and half-width katakana produce.
    static func guessesShiftJIS(_ bytes: [UInt8]) -> Bool {
        guard bytes.contains(where: { $0 >= 0x80 }), ShiftJIS.decode(bytes) != nil else { return false }
        if bytes.contains(where: { (0x80...0x9F).contains($0) }) { return true }
        let rare = bytes.filter { (0xA0...0xBF).contains($0) || $0 == 0xD7 || $0 == 0xF7 }.count
        return rare * 10 >= bytes.count
    }

    /// Strict UTF-8: nil on any invalid sequence.
    static func utf8(_ bytes: [UInt8]) -> String? {
        var s = String.UnicodeScalarView()
        var it = bytes.makeIterator()
        var decoder = UTF8()
        while true {
            switch decoder.decode(&it) {
            case let .scalarValue(v): s.append(v)
            case .emptyInput: return String(s)
            case .error: return nil
            }
        }
    }

    static func latin1(_ bytes: [UInt8]) -> String {
        var s = String.UnicodeScalarView()
        for b in bytes { s.append(Unicode.Scalar(b)) }
        return String(s)
    }
}

extension Unicode.UTF16 {
    /// The scalars of `units`, nil for an unpaired surrogate.
    static func decode(_ units: [UInt16]) -> [Unicode.Scalar?] {
        var out: [Unicode.Scalar?] = []
        var it = units.makeIterator()
        var d = Unicode.UTF16()
        while true {
            switch d.decode(&it) {
            case let .scalarValue(v): out.append(v)
            case .emptyInput: return out
            case .error: out.append(nil)
            }
        }
    }
}
