/// Parses the data codewords of a QR code into segments and text (ISO/IEC 18004 §7.4).
///
/// Every read is bounds-checked: malformed data throws, it never traps.
enum QRDataStream {
    struct Content {
        var segments: [QRSegment] = []
        var message: String?
        var structuredAppend: QRStructuredAppendInfo?
    }

    static func _fail(_ reason: String) -> PixelFlowError { .decodingFailed(file: "QR code", reason: reason) }

    static func parse(_ data: [UInt8], version: QRVersion) throws -> Content {
        var reader = QRBitReader(data)
        var content = Content()
        var text = QRTextAssembler()
        var gs1 = false

        func read(_ bits: Int, _ what: String) throws -> Int {
            guard let v = reader.read(bits) else { throw _fail("the data ends inside \(what)") }
            return v
        }

        while reader.remaining >= 4 {
            let indicator = reader.read(4)!
            if indicator == 0 { break }  // terminator
            guard let mode = QRSegment.Mode(rawValue: indicator) else {
                throw _fail("unknown mode indicator \(String(indicator, radix: 2))")
            }
            let countBits = mode.characterCountBits(version: version)
            let count = countBits > 0 ? try read(countBits, "a character count") : 0
            let segment: QRSegment
            switch mode {
            case .numeric:
                var digits: [UInt8] = []
                digits.reserveCapacity(count)
                var left = count
                while left > 0 {
                    let n = min(3, left)
                    let v = try read(3 * n + 1, "numeric data")
                    guard v < [1, 10, 100, 1000][n] else { throw _fail("numeric group \(v) has more than \(n) digits") }
                    var group = [UInt8](repeating: 0, count: n)
                    var rest = v
                    for k in stride(from: n - 1, through: 0, by: -1) {
                        group[k] = UInt8(48 + rest % 10)
                        rest /= 10
                    }
                    digits += group
                    left -= n
                }
                segment = .numeric(asciiDigits: digits)
                text.append(ascii: digits)
            case .alphanumeric:
                var chars: [UInt8] = []
                chars.reserveCapacity(count)
                var left = count
                while left > 0 {
                    if left >= 2 {
                        let v = try read(11, "alphanumeric data")
                        guard v < 45 * 45 else { throw _fail("alphanumeric pair value \(v) is out of range") }
                        chars += [QRSegment.alphanumericCharacters[v / 45], QRSegment.alphanumericCharacters[v % 45]]
                        left -= 2
                    } else {
                        let v = try read(6, "alphanumeric data")
                        guard v < 45 else { throw _fail("alphanumeric value \(v) is out of range") }
                        chars.append(QRSegment.alphanumericCharacters[v])
                        left -= 1
                    }
                }
                segment = .alphanumeric(ascii: chars)
                text.append(ascii: gs1 ? _gs1Alphanumeric(chars) : chars)
            case .byte:
                guard reader.remaining >= 8 * count else { throw _fail("a byte segment of \(count) bytes runs past the data") }
                var bytes: [UInt8] = []
                bytes.reserveCapacity(count)
                for _ in 0..<count { bytes.append(UInt8(reader.read(8)!)) }
                segment = .bytes(bytes)
                text.append(bytes: bytes)
            case .kanji:
                guard reader.remaining >= 13 * count else {
                    throw _fail("a kanji segment of \(count) characters runs past the data")
                }
                var codes: [UInt16] = []
                codes.reserveCapacity(count)
                for _ in 0..<count {
                    let v = reader.read(13)!
                    guard v % 0xC0 <= 0xBC else { throw _fail("kanji value \(v) is not a Shift JIS code") }
                    let offset = (v / 0xC0) << 8 | (v % 0xC0)
                    let code = offset + 0x8140 <= 0x9FFC ? offset + 0x8140 : offset + 0xC140
                    guard code <= 0xEBBF else { throw _fail("kanji value \(v) is out of range") }
                    codes.append(UInt16(code))
                }
                segment = .kanji(codes: codes)
                text.append(shiftJIS: segment.payload)
            case .eci:
                let first = try read(8, "an ECI designator")
                let designator: Int
                if first & 0x80 == 0 {
                    designator = first
                } else if first & 0xC0 == 0x80 {
                    designator = (first & 0x3F) << 8 | (try read(8, "an ECI designator"))
                } else if first & 0xE0 == 0xC0 {
                    designator = (first & 0x1F) << 16 | (try read(16, "an ECI designator"))
                } else {
                    throw _fail("malformed ECI designator")
                }
                guard designator <= 999_999 else { throw _fail("ECI designator \(designator) is out of range") }
                segment = try QRSegment.eci(designator)
                text.setECI(designator)
            case .structuredAppend:
                let index = try read(4, "a structured-append header")
                let total = try read(4, "a structured-append header") + 1
                let parity = UInt8(try read(8, "a structured-append header"))
                guard index < total else { throw _fail("structured append position \(index + 1) of \(total)") }
                segment = try QRSegment.structuredAppend(index: index, total: total, parity: parity)
                content.structuredAppend = QRStructuredAppendInfo(index: index, total: total, parity: parity)
            case .fnc1First:
                segment = .fnc1First
                gs1 = true
            case .fnc1Second:
                let indicator = UInt8(try read(8, "an FNC1 application indicator"))
                segment = .fnc1Second(applicationIndicator: indicator)
            }
            content.segments.append(segment)
        }
        content.message = text.finish()
        return content
    }

    /// In GS1 mode (FNC1 first), alphanumeric `%` stands for the GS separator (0x1D) and `%%`
    /// for a literal `%` (ISO/IEC 18004 §7.4.8.2).
    static func _gs1Alphanumeric(_ chars: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        var i = 0
        while i < chars.count {
            if chars[i] == UInt8(ascii: "%") {
                if i + 1 < chars.count, chars[i + 1] == UInt8(ascii: "%") {
                    out.append(UInt8(ascii: "%"))
                    i += 2
                    continue
                }
                out.append(0x1D)
            } else {
                out.append(chars[i])
            }
            i += 1
        }
        return out
    }
}
