import Foundation
import XCTest
@testable import PixelFlow
@testable import PixelFlowKernels
@testable import PixelFlowGraph
@testable import PixelFlowEngine

/// A segno-made symbol from Tests/PixelFlowTests/Fixtures/QR (see scripts/make_qr_fixtures.py).
struct QRFixture {
    let name: String
    let header: [String: String]
    let matrix: QRBitMatrix

    var messageBytes: [UInt8] {
        let hex = Array(header["message_hex"]!.utf8)
        return stride(from: 0, to: hex.count, by: 2).map { UInt8(String(decoding: hex[$0..<$0 + 2], as: UTF8.self), radix: 16)! }
    }
    var text: String { header["text"]! }
    var version: Int { Int(header["version"]!)! }
    var level: QRErrorCorrectionLevel { QRErrorCorrectionLevel(letter: header["level"]!)! }
    var mask: Int { Int(header["mask"]!)! }
    var maskForced: Bool { header["mask_forced"] == "1" }
    var mode: String { header["mode"]! }
    var encoding: String { header["encoding"]! }
    var eci: Bool { header["eci"] == "1" }

    /// The `# key: value` header lines and the other (module) lines of a fixture file.
    static func parse(_ text: String) -> (header: [String: String], rows: [String]) {
        var header: [String: String] = [:]
        var rows: [String] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
            if line.hasPrefix("# ") {
                let body = line.dropFirst(2)
                if let colon = body.firstIndex(of: ":") {
                    header[String(body[..<colon])] = String(body[body.index(after: colon)...].dropFirst())
                }
            } else {
                rows.append(String(line))
            }
        }
        return (header, rows)
    }

    static func all() throws -> [QRFixture] {
        let dir = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/QR")
        let names = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasSuffix(".txt") }.sorted()
        return try names.map { name in
            let text = try String(contentsOf: dir.appendingPathComponent(name), encoding: .utf8)
            let (header, rows) = parse(text)
            guard let m = QRBitMatrix(rows: rows) else {
                throw PixelFlowError.mismatch("fixture \(name) is not a square 0/1 matrix")
            }
            return QRFixture(name: name, header: header, matrix: m)
        }
    }
}

final class QRCodeCodecTests: XCTestCase {
    // MARK: Galois field and Reed-Solomon

    func testGaloisFieldTables() {
        XCTAssertEqual(GaloisField256.exp(0), 1)
        XCTAssertEqual(GaloisField256.exp(8), 0x1D)
        XCTAssertEqual(GaloisField256.exp(255), 1)
        XCTAssertEqual(GaloisField256.multiply(0x02, 0x80), 0x1D)
        var seen = Set<UInt8>()
        for i in 0..<255 { seen.insert(GaloisField256.exp(i)) }
        XCTAssertEqual(seen.count, 255, "alpha must generate every non-zero element")
        for a in 1...255 {
            let x = UInt8(a)
            XCTAssertEqual(GaloisField256.multiply(x, GaloisField256.inverse(x)), 1)
            XCTAssertEqual(GaloisField256.divide(GaloisField256.multiply(x, 0x53), 0x53), x)
        }
    }

    /// ISO/IEC 18004 Annex I: "01234567" as version 1-M.
    static let annexData: [UInt8] = [
        0x10, 0x20, 0x0C, 0x56, 0x61, 0x80, 0xEC, 0x11,
        0xEC, 0x11, 0xEC, 0x11, 0xEC, 0x11, 0xEC, 0x11,
    ]
    static let annexParity: [UInt8] = [0xA5, 0x24, 0xD4, 0xC1, 0xED, 0x36, 0xC7, 0x87, 0x2C, 0x55]

    func testReedSolomonAnnexExample() throws {
        XCTAssertEqual(ReedSolomon(parityCount: 10).parity(for: Self.annexData), Self.annexParity)
        let symbol = try QRCodeEncoder(correctionLevel: .medium, version: QRVersion(1)).encode("01234567")
        XCTAssertEqual(symbol.segments.map(\.mode), [.numeric])
        XCTAssertEqual(symbol.dataCodewords, Self.annexData)
    }

    func testReedSolomonCorrectsUpToCapacityAndDetectsBeyond() {
        var rng = SeededRandom(seed: 18004)
        var detected = 0, beyondTrials = 0
        for parity in [2, 7, 10, 13, 16, 17, 22, 26, 28, 30] {
            let rs = ReedSolomon(parityCount: parity)
            for trial in 0..<40 {
                let dataCount = 1 + Int(rng.next() % UInt64(min(200, 255 - parity)))
                let data = (0..<dataCount).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
                let block = data + rs.parity(for: data)
                var intact = block
                XCTAssertEqual(rs.correct(&intact), 0)
                // Up to capacity: always repaired.
                let errors = trial == 0 ? parity / 2 : Int(rng.next() % UInt64(parity / 2 + 1))
                var damaged = block
                let positions = Self.distinctPositions(errors, in: block.count, &rng)
                for p in positions { damaged[p] ^= UInt8(1 + rng.next() % 255) }
                XCTAssertEqual(rs.correct(&damaged), errors, "parity \(parity), \(errors) errors")
                XCTAssertEqual(damaged, block)
                // One more than capacity: never silently "repaired" to the original, usually detected.
                let over = parity / 2 + 1
                guard over <= block.count else { continue }
                var broken = block
                for p in Self.distinctPositions(over, in: block.count, &rng) { broken[p] ^= UInt8(1 + rng.next() % 255) }
                let before = broken
                beyondTrials += 1
                if let c = rs.correct(&broken) {
                    XCTAssertNotEqual(broken, block, "beyond capacity cannot restore the original")
                    XCTAssertLessThanOrEqual(c, parity / 2)
                } else {
                    detected += 1
                    XCTAssertEqual(broken, before, "a failed correction leaves the block unchanged")
                }
            }
        }
        XCTAssertGreaterThan(Double(detected) / Double(beyondTrials), 0.8)
    }

    func testReedSolomonRespectsMaximumErrors() {
        let rs = ReedSolomon(parityCount: 7)
        let data: [UInt8] = Array(0..<19)
        var block = data + rs.parity(for: data)
        block[0] ^= 1
        block[5] ^= 2
        block[9] ^= 3
        var copy = block
        XCTAssertEqual(rs.correct(&copy), 3)
        XCTAssertNil(rs.correct(&block, maximumErrors: 2), "version 1-L keeps p = 3 codewords for detection")
    }

    static func distinctPositions(_ count: Int, in n: Int, _ rng: inout SeededRandom) -> [Int] {
        var set = Set<Int>()
        while set.count < count { set.insert(Int(rng.next() % UInt64(n))) }
        return set.sorted()
    }

    // MARK: Tables and BCH codes

    func testVersionTables() {
        for v in QRVersion.all {
            // Alignment centres: 6, then evenly spaced (even steps) ending at size - 7.
            let c = v.alignmentPatternCenters
            if v.number == 1 {
                XCTAssertEqual(c, [])
            } else {
                XCTAssertEqual(c.count, v.number / 7 + 2)
                XCTAssertEqual(c.first, 6)
                XCTAssertEqual(c.last, v.size - 7)
                let steps = zip(c.dropFirst(2), c.dropFirst()).map { $0 - $1 }
                XCTAssertEqual(Set(steps).count, steps.isEmpty ? 0 : 1, "version \(v)")
                if let s = steps.first { XCTAssertEqual(s % 2, 0) }
            }
            // The layout's data modules agree with the closed formula.
            let layout = QRSymbolLayout(version: v)
            XCTAssertEqual(layout.dataPositions().count, v.dataModuleCount, "version \(v)")
            XCTAssertEqual(Set(layout.dataPositions()).count, v.dataModuleCount)
            for level in QRErrorCorrectionLevel.allCases {
                let b = v.blocks(for: level)
                XCTAssertEqual(b.dataCodewords + b.blockCount * b.ecCodewordsPerBlock, v.totalCodewords)
                XCTAssertLessThan(b.longBlockCount, b.blockCount)
            }
        }
        XCTAssertEqual(QRVersion(1)!.totalCodewords, 26)
        XCTAssertEqual(QRVersion(40)!.totalCodewords, 3706)
        XCTAssertEqual(QRVersion(1)!.blocks(for: .low).dataCodewords, 19)
        XCTAssertEqual(QRVersion(40)!.blocks(for: .low).dataCodewords, 2956)
        XCTAssertEqual(QRVersion(40)!.blocks(for: .high).dataCodewords, 1276)
        XCTAssertEqual(QRVersion(5)!.blocks(for: .quartile).longBlockCount, 2)
        XCTAssertEqual(QRVersion(1)!.blocks(for: .low).correctableErrorsPerBlock, 2)
        XCTAssertNil(QRVersion(0))
        XCTAssertNil(QRVersion(41))
        XCTAssertEqual(QRVersion(size: 177)?.number, 40)
        XCTAssertNil(QRVersion(size: 22))
    }

    func testFormatAndVersionInformation() {
        XCTAssertEqual(QRFormatInformation.formatBits(level: .medium, mask: 0), 0x5412)
        XCTAssertEqual(QRFormatInformation.formatBits(level: .low, mask: 0), 0x77C4)
        XCTAssertEqual(QRFormatInformation.formatBits(level: .high, mask: 7), 0x083B)
        XCTAssertEqual(QRFormatInformation.versionBits(7), 0x07C94)
        XCTAssertEqual(QRFormatInformation.versionBits(40), 0x28C69)
        // Every pair of codewords differs in at least 7 (format) and 8 (version) bits.
        let formats = QRFormatInformation.allFormats.map(\.bits)
        for (i, a) in formats.enumerated() {
            for b in formats[(i + 1)...] { XCTAssertGreaterThanOrEqual((a ^ b).nonzeroBitCount, 7) }
        }
        for v in 7...40 {
            for w in (v + 1)...max(v + 1, 40) where w <= 40 {
                XCTAssertGreaterThanOrEqual(
                    (QRFormatInformation.versionBits(v) ^ QRFormatInformation.versionBits(w)).nonzeroBitCount, 8)
            }
        }
        // Nearest-codeword decoding up to 3 bit errors.
        let bits = QRFormatInformation.formatBits(level: .quartile, mask: 5)
        let decoded = QRFormatInformation.decodeFormat([bits ^ 0b100_0000_0100_0001, 0])
        XCTAssertEqual(decoded?.level, .quartile)
        XCTAssertEqual(decoded?.mask, 5)
        XCTAssertEqual(
            QRFormatInformation.decodeVersion([QRFormatInformation.versionBits(23) ^ 0b101_0000_0000_0001])?.version, 23)
    }

    // MARK: Round trips

    /// Every version, level and mask, with module damage within the correction capacity.
    func testRoundTripEveryVersionLevelAndMask() throws {
        var rng = SeededRandom(seed: 40)
        let decoder = QRCodeDecoder()
        for v in QRVersion.all {
            for level in QRErrorCorrectionLevel.allCases {
                for mask in 0..<8 {
                    let capacity = (v.dataCapacityBits(for: level) - 4 - QRSegment.Mode.byte.characterCountBits(version: v)) / 8
                    let length = 1 + Int(rng.next() % UInt64(min(capacity - 1, 40)))
                    let message = String("\(v.number)\(level.letter)\(mask) PixelFlow round trip ÿ \(rng.next())".prefix(length))
                    let symbol = try QRCodeEncoder(correctionLevel: level, version: v, mask: mask).encode(message)
                    XCTAssertEqual(symbol.mask, mask)
                    var matrix = symbol.matrix
                    let damaged = Self.damage(&matrix, version: v, level: level, rng: &rng)
                    let d = try decoder.decode(matrix)
                    XCTAssertEqual(d.message, message)
                    XCTAssertEqual(d.version, v)
                    XCTAssertEqual(d.correctionLevel, level)
                    XCTAssertEqual(d.mask, mask)
                    XCTAssertEqual(d.correctedErrors, damaged, "v\(v) \(level) mask \(mask)")
                    XCTAssertFalse(d.isMirrored)
                }
            }
        }
    }

    /// Messages that exactly fill their symbol.
    func testRoundTripAtCapacity() throws {
        var rng = SeededRandom(seed: 7)
        for (number, level) in [
            (1, QRErrorCorrectionLevel.low), (2, .high), (9, .quartile), (10, .medium),
            (26, .low), (27, .high), (40, .low), (40, .high),
        ] {
            let v = QRVersion(number)!
            let capacity = v.dataCapacityBits(for: level)
            // Byte mode: header 4 + count bits, then 8 bits a byte.
            let byteCount = (capacity - 4 - QRSegment.Mode.byte.characterCountBits(version: v)) / 8
            let bytes = (0..<byteCount).map { _ in UInt8(truncatingIfNeeded: rng.next() | 0x80) }
            let symbol = try QRCodeEncoder(correctionLevel: level).encode(segments: [.bytes(bytes)])
            XCTAssertEqual(symbol.version, v, "\(byteCount) bytes fill \(number)-\(level)")
            var matrix = symbol.matrix
            let damaged = Self.damage(&matrix, version: v, level: level, rng: &rng)
            let d = try QRCodeDecoder().decode(matrix)
            XCTAssertEqual(d.bytes, bytes)
            XCTAssertEqual(d.correctedErrors, damaged)
            XCTAssertThrowsError(try QRCodeEncoder(correctionLevel: level, version: v).encode(segments: [.bytes(bytes + [0])]))
            // Numeric mode at capacity.
            let digitBits = capacity - 4 - QRSegment.Mode.numeric.characterCountBits(version: v)
            var digitCount = digitBits / 10 * 3
            if digitBits % 10 >= 7 { digitCount += 2 } else if digitBits % 10 >= 4 { digitCount += 1 }
            let digits = String((0..<digitCount).map { _ in Character(String(rng.next() % 10)) })
            let numeric = try QRCodeEncoder(correctionLevel: level).encode(digits)
            XCTAssertEqual(numeric.version, v)
            XCTAssertEqual(try QRCodeDecoder().decode(numeric.matrix).message, digits)
        }
    }

    /// Damages the data of `matrix` within the correction capacity: in each block, up to its
    /// correctable number of codewords get 1-8 module flips; also flips up to 3 bits of one
    /// format-information copy and of one version-information copy. Returns the number of
    /// damaged codewords.
    static func damage(
        _ matrix: inout QRBitMatrix, version v: QRVersion, level: QRErrorCorrectionLevel,
        rng: inout SeededRandom
    ) -> Int {
        let n = v.size
        let blocks = v.blocks(for: level)
        // Which block each interleaved codeword belongs to, derived from the interleaving rule.
        var blockOf: [Int] = []
        for i in 0...blocks.shortBlockDataCodewords {
            for b in 0..<blocks.blockCount where i < blocks.dataCodewords(inBlock: b) { blockOf.append(b) }
        }
        for _ in 0..<blocks.ecCodewordsPerBlock { blockOf += Array(0..<blocks.blockCount) }
        let positions = QRSymbolLayout(version: v).dataPositions()
        var chosen = Set<Int>()
        var perBlock = [Int](repeating: 0, count: blocks.blockCount)
        let budget = (0..<blocks.blockCount).map { _ in Int(rng.next() % UInt64(blocks.correctableErrorsPerBlock + 1)) }
        for _ in 0..<(4 * blockOf.count) {
            let c = Int(rng.next() % UInt64(blockOf.count))
            if chosen.contains(c) || perBlock[blockOf[c]] >= budget[blockOf[c]] { continue }
            chosen.insert(c)
            perBlock[blockOf[c]] += 1
            let flips = rng.next() & 0xFF | 1
            for bit in 0..<8 where flips >> UInt64(bit) & 1 == 1 { matrix.modules[positions[c * 8 + bit]].toggle() }
        }
        let copy = Int(rng.next() % 2)
        for (x, y) in QRSymbolLayout.formatPositions(size: n, copy: copy).shuffled(using: &rng).prefix(Int(rng.next() % 4)) {
            matrix[x, y].toggle()
        }
        if v.number >= 7 {
            for (x, y) in QRSymbolLayout.versionPositions(size: n, copy: copy).shuffled(using: &rng).prefix(Int(rng.next() % 4)) {
                matrix[x, y].toggle()
            }
        }
        return chosen.count
    }

    func testAutomaticMaskAndVersion() throws {
        let symbol = try QRCodeEncoder(correctionLevel: .high).encode("https://example.com")
        XCTAssertEqual(symbol.version.number, 3)
        let scores = (0..<8).map { m -> Int in
            let s = try! QRCodeEncoder(correctionLevel: .high, version: symbol.version, mask: m).encode("https://example.com")
            return QRMask.penalty(s.matrix.modules, size: s.size)
        }
        XCTAssertEqual(symbol.mask, scores.firstIndex(of: scores.min()!))
        XCTAssertEqual(try QRCodeDecoder().decode(symbol.matrix).message, "https://example.com")
        var encoder = QRCodeEncoder()
        encoder.minimumVersion = QRVersion(5)!
        XCTAssertEqual(try encoder.encode("A").version.number, 5)
    }

    func testMirroredSymbolDecodes() throws {
        let symbol = try QRCodeEncoder(correctionLevel: .quartile).encode("mirror, mirror on the wall")
        let d = try QRCodeDecoder().decode(symbol.matrix.transposed())
        XCTAssertEqual(d.message, "mirror, mirror on the wall")
        XCTAssertTrue(d.isMirrored)
        // A flipped symbol, once the caller rotates it upright, is the transpose.
        let flipped = symbol.matrix.mirrored().rotatedClockwise().rotatedClockwise().rotatedClockwise()
        XCTAssertEqual(flipped, symbol.matrix.transposed())
        var strict = QRCodeDecoder()
        strict.triesMirrored = false
        XCTAssertThrowsError(try strict.decode(symbol.matrix.transposed()))
    }

    // MARK: Modes and segmentation

    func testEachMode() throws {
        let cases: [(QRSegment, String)] = [
            (try .numeric("0123456789012"), "0123456789012"),
            (try .alphanumeric("AC-42 $%*+-./:"), "AC-42 $%*+-./:"),
            (.bytes(Array("bytes \u{1F600}".utf8)), "bytes \u{1F600}"),
            (try .kanji("漢字テスト、点茗"), "漢字テスト、点茗"),
            (try .kanji(shiftJIS: [0x93, 0x5F, 0xE4, 0xAA]), "点茗"),
        ]
        for (segment, text) in cases {
            let symbol = try QRCodeEncoder().encode(segments: [segment])
            let d = try QRCodeDecoder().decode(symbol.matrix)
            XCTAssertEqual(d.message, text)
            XCTAssertEqual(d.segments, [segment])
        }
        XCTAssertEqual(try QRSegment.kanji("点茗").payload, [0x93, 0x5F, 0xE4, 0xAA], "ISO/IEC 18004 §7.4.6 examples")
        XCTAssertThrowsError(try QRSegment.numeric("12a"))
        XCTAssertThrowsError(try QRSegment.alphanumeric("abc"))
        XCTAssertThrowsError(try QRSegment.kanji("A"))
        XCTAssertThrowsError(try QRSegment.kanji(shiftJIS: [0x41, 0x41]))
    }

    func testMixedSegmentation() throws {
        let v1 = QRVersion(1)!
        let segments = QRSegment.optimalSegments(for: "ABC1234567890abc", version: v1)
        XCTAssertEqual(segments.map(\.mode), [.alphanumeric, .numeric, .byte])
        XCTAssertEqual(QRSegment.optimalSegments(for: "0123456789", version: v1).map(\.mode), [.numeric])
        XCTAssertEqual(QRSegment.optimalSegments(for: "a1b", version: v1).map(\.mode), [.byte], "short runs stay in byte mode")
        XCTAssertEqual(QRSegment.optimalSegments(for: "日本語のテキスト and text", version: v1).map(\.mode), [.kanji, .byte])
        XCTAssertEqual(QRSegment.optimalSegments(for: "日本語", version: v1, allowKanji: false).map(\.mode), [.byte])
        let message = "Order 12345678901234567890 for ÉMILE, 東京都 HQ: TOTAL 9999.00 EUR"
        let symbol = try QRCodeEncoder(correctionLevel: .medium).encode(message)
        XCTAssertGreaterThan(Set(symbol.segments.map(\.mode)).count, 2)
        XCTAssertEqual(try QRCodeDecoder().decode(symbol.matrix).message, message)
    }

    /// The dynamic program matches an exhaustive search over every mode assignment.
    func testSegmentationIsOptimal() {
        var rng = SeededRandom(seed: 3)
        let alphabet: [String] = ["0", "7", "A", "Z", " ", "a", "é", "漢", "テ", "\u{1F600}"]
        for v in [QRVersion(1)!, QRVersion(10)!, QRVersion(27)!] {
            for _ in 0..<150 {
                let length = 1 + Int(rng.next() % 7)
                let text = (0..<length).map { _ in alphabet[Int(rng.next() % UInt64(alphabet.count))] }.joined()
                let dp = QRSegment.bitLength(of: QRSegment.optimalSegments(for: text, version: v), version: v)!
                XCTAssertEqual(dp, Self.bruteForceBits(Array(text.unicodeScalars), version: v), "'\(text)' v\(v)")
            }
        }
    }

    static func bruteForceBits(_ scalars: [Unicode.Scalar], version: QRVersion) -> Int {
        let modes: [QRSegment.Mode] = [.numeric, .alphanumeric, .byte, .kanji]
        func allowed(_ s: Unicode.Scalar, _ m: QRSegment.Mode) -> Bool {
            switch m {
            case .numeric: return s.value >= 48 && s.value <= 57
            case .alphanumeric: return s.value < 128 && QRSegment.alphanumericCode(UInt8(s.value)) != nil
            case .kanji: return ShiftJIS.kanjiCode(for: s) != nil
            default: return true
            }
        }
        var best = Int.max
        var assignment = [Int](repeating: 0, count: scalars.count)
        func rec(_ i: Int) {
            if i == scalars.count {
                var total = 0, start = 0
                while start < scalars.count {
                    var end = start + 1
                    while end < scalars.count, assignment[end] == assignment[start] { end += 1 }
                    let run = scalars[start..<end]
                    let m = modes[assignment[start]]
                    let n = run.count
                    total += 4 + m.characterCountBits(version: version)
                    switch m {
                    case .numeric: total += 10 * (n / 3) + [0, 4, 7][n % 3]
                    case .alphanumeric: total += 11 * (n / 2) + 6 * (n % 2)
                    case .kanji: total += 13 * n
                    default: total += 8 * run.reduce(0) { $0 + UTF8.width($1) }
                    }
                    start = end
                }
                best = min(best, total)
                return
            }
            for (k, m) in modes.enumerated() where allowed(scalars[i], m) {
                assignment[i] = k
                rec(i + 1)
            }
        }
        rec(0)
        return best
    }

    // MARK: ECI, character sets, structured append, FNC1

    func testECIRoundTrip() throws {
        let cases: [([QRSegment], String)] = [
            ([try .eci(26), .utf8("Grüße ✓")], "Grüße ✓"),
            ([try .eci(3), .bytes([0x47, 0x72, 0xFC, 0xDF, 0x65])], "Grüße"),
            ([try .eci(20), .bytes([0x93, 0xFA, 0x96, 0x7B, 0x41, 0xB1])], "日本Aｱ"),
            ([try .eci(25), .bytes([0x00, 0x41, 0x26, 0x3A])], "A☺"),
            ([try .eci(26), .utf8("mixed "), try .eci(3), .bytes([0xE9])], "mixed é"),
            ([try .eci(1000), .utf8("big designator")], ""),
        ]
        for (segments, text) in cases {
            let d = try QRCodeDecoder().decode(try QRCodeEncoder().encode(segments: segments).matrix)
            XCTAssertEqual(d.segments, segments)
            if text.isEmpty {
                XCTAssertNil(d.message, "unsupported character set")
                XCTAssertEqual(d.bytes, Array("big designator".utf8))
            } else {
                XCTAssertEqual(d.message, text)
            }
        }
        XCTAssertEqual(try QRSegment.eci(999_999).data.count, 24)
        XCTAssertThrowsError(try QRSegment.eci(1_000_000))
        // Declaring UTF-8 from the encoder.
        var encoder = QRCodeEncoder()
        encoder.declaresUTF8 = true
        let symbol = try encoder.encode("naïve")
        XCTAssertEqual(symbol.segments.first?.eciDesignator, 26)
        XCTAssertEqual(try QRCodeDecoder().decode(symbol.matrix).message, "naïve")
    }

    func testByteModeCharacterSetWithoutECI() throws {
        let latin = try QRCodeEncoder().encode(segments: [.bytes([0x63, 0x61, 0x66, 0xE9])])
        XCTAssertEqual(try QRCodeDecoder().decode(latin.matrix).message, "café", "not UTF-8: ISO-8859-1")
        let utf8 = try QRCodeEncoder().encode(bytes: Array("café".utf8))
        XCTAssertEqual(try QRCodeDecoder().decode(utf8.matrix).message, "café", "valid UTF-8: UTF-8")
    }

    func testStructuredAppendRoundTrip() throws {
        let message = "One message, three symbols: structured append keeps them together."
        let bytes = Array(message.utf8)
        let parity = QRStructuredAppend.parity(of: bytes)
        let parts = [bytes[0..<20], bytes[20..<45], bytes[45...]]
        var reassembled: [UInt8] = []
        for (i, part) in parts.enumerated() {
            let header = try QRSegment.structuredAppend(index: i, total: 3, parity: parity)
            let symbol = try QRCodeEncoder().encode(segments: [header, .bytes(Array(part))])
            let d = try QRCodeDecoder().decode(symbol.matrix)
            XCTAssertEqual(d.structuredAppend, QRStructuredAppendInfo(index: i, total: 3, parity: parity))
            reassembled += d.bytes
        }
        XCTAssertEqual(reassembled, bytes)
        XCTAssertEqual(QRStructuredAppend.parity(of: reassembled), parity)
        XCTAssertThrowsError(try QRSegment.structuredAppend(index: 3, total: 3, parity: 0))
        XCTAssertThrowsError(try QRSegment.structuredAppend(index: 0, total: 17, parity: 0))
    }

    func testFNC1GS1() throws {
        let segments = [QRSegment.fnc1First, try .numeric("01049123451234591"), try .alphanumeric("97A%10")]
        let d = try QRCodeDecoder().decode(try QRCodeEncoder().encode(segments: segments).matrix)
        XCTAssertEqual(d.message, "0104912345123459197A\u{1D}10")
        XCTAssertEqual(d.segments.first?.mode, .fnc1First)
    }

    // MARK: Failures

    func testTooLongMessageThrows() {
        for (message, level) in [
            (String(repeating: "x", count: 2954), QRErrorCorrectionLevel.low),
            (String(repeating: "7", count: 7090), .low),
            (String(repeating: "x", count: 1274), .high),
        ] {
            XCTAssertThrowsError(try QRCodeEncoder(correctionLevel: level).encode(message)) { error in
                guard case let PixelFlowError.invalidParameter(filter, key, reason)? = error as? PixelFlowError else {
                    return XCTFail("unexpected \(error)")
                }
                XCTAssertEqual(filter, "CIQRCodeGenerator")
                XCTAssertEqual(key, "inputMessage")
                XCTAssertTrue(reason.contains("too long"), reason)
            }
        }
        XCTAssertNoThrow(try QRCodeEncoder(correctionLevel: .low).encode(String(repeating: "x", count: 2953)))
        XCTAssertNoThrow(try QRCodeEncoder(correctionLevel: .low).encode(String(repeating: "7", count: 7089)))
        XCTAssertThrowsError(
            try QRCodeEncoder(correctionLevel: .low, version: QRVersion(1)).encode(String(repeating: "x", count: 18)))
        XCTAssertThrowsError(try QRCodeEncoder(mask: 8).encode("x"))
    }

    /// Random matrices, damaged symbols and random data streams never trap.
    func testGarbageNeverCrashes() throws {
        var rng = SeededRandom(seed: 666)
        let decoder = QRCodeDecoder()
        for size in [0, 1, 20, 22, 178, 200] {
            XCTAssertThrowsError(try decoder.decode(QRBitMatrix(size: size)))
        }
        var decodedRandom = 0
        for _ in 0..<300 {
            let v = QRVersion.all[Int(rng.next() % 40)]
            let m = QRBitMatrix(size: v.size) { _, _ in rng.next() & 1 == 1 }
            if (try? decoder.decode(m)) != nil { decodedRandom += 1 }
        }
        XCTAssertEqual(decodedRandom, 0, "random matrices must not decode")
        // Real symbols with heavy damage: valid format information, hopeless data.
        for _ in 0..<100 {
            let v = QRVersion.all[Int(rng.next() % 12)]
            var m = try QRCodeEncoder(version: v).encode("damaged \(rng.next() % 100)").matrix
            for _ in 0..<(m.modules.count / 3) { m.modules[Int(rng.next() % UInt64(m.modules.count))].toggle() }
            _ = try? decoder.decode(m)
        }
        // Random data codewords with valid error correction exercise the segment parser.
        for i in 0..<3000 {
            let v = QRVersion.all[i % 40]
            let count = v.blocks(for: .low).dataCodewords
            var data = (0..<count).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            if i % 3 == 0 { data[0] = data[0] & 0x0F | 0x40 }  // plausible byte-mode start
            _ = try? QRDataStream.parse(data, version: v)
        }
    }

    // MARK: Byte data without ECI

    /// Byte data without an ECI: UTF-8 when valid, Shift JIS when the bytes say so (as segno
    /// writes "α β γ" and ZXing reads it), ISO-8859-1 otherwise.
    func testByteDataWithoutECIGuessesTheCharset() {
        func text(_ bytes: [UInt8]) -> String? {
            var a = QRTextAssembler()
            a.append(bytes: bytes)
            return a.finish()
        }
        XCTAssertEqual(text(Array("Grüße ✓".utf8)), "Grüße ✓")
        XCTAssertEqual(text([0x83, 0xBF, 0x20, 0x83, 0xC0, 0x20, 0x83, 0xC1]), "α β γ")
        XCTAssertEqual(text([0x93, 0xFA, 0x96, 0x7B]), "日本")
        XCTAssertEqual(text([0x47, 0x72, 0xFC, 0xDF, 0x65]), "Grüße", "not Shift JIS (0xFC is no lead byte): ISO-8859-1")
        XCTAssertEqual(text([0x63, 0x61, 0x66, 0xE9]), "café", "a lone 0xE9 is not Shift JIS: ISO-8859-1")
        XCTAssertEqual(text([0xB1, 0xB2, 0xB3]), "ｱｲｳ", "half-width katakana, all rare in ISO-8859-1: Shift JIS")
        XCTAssertEqual(
            text([0x41, 0x42, 0x43, 0x44, 0x45, 0x46, 0x47, 0x48, 0x49, 0x4A, 0x4B, 0xE0, 0x4A]), "ABCDEFGHIJKàJ",
            "valid Shift JIS by accident but nothing rare in ISO-8859-1: ISO-8859-1")
    }

    // MARK: Independent encoder (segno)

    func testDecodesSegnoFixtures() throws {
        let fixtures = try QRFixture.all()
        XCTAssertGreaterThanOrEqual(fixtures.count, 12)
        var structuredParts: [Int: [UInt8]] = [:]
        for f in fixtures {
            let d = try QRCodeDecoder().decode(f.matrix)
            XCTAssertEqual(d.version.number, f.version, f.name)
            XCTAssertEqual(d.correctionLevel, f.level, f.name)
            XCTAssertEqual(d.mask, f.mask, f.name)
            XCTAssertEqual(d.correctedErrors, 0, f.name)
            if let index = f.header["sa_index"].flatMap({ Int($0) }) {
                XCTAssertEqual(d.structuredAppend?.index, index, f.name)
                XCTAssertEqual(d.structuredAppend?.total, Int(f.header["sa_total"]!), f.name)
                XCTAssertEqual(d.structuredAppend.map { Int($0.parity) }, Int(f.header["sa_parity"]!), f.name)
                structuredParts[index] = d.bytes
            } else {
                XCTAssertEqual(d.message, f.text, f.name)
                XCTAssertEqual(d.segments.first?.mode == .eci, f.eci, f.name)
            }
        }
        let joined = structuredParts.keys.sorted().flatMap { structuredParts[$0]! }
        XCTAssertEqual(
            String(decoding: joined, as: UTF8.self),
            "Structured append splits one message over several symbols. 0123456789")
    }
}

extension QRCodeCodecTests {
    func testInformationForDetectors() throws {
        XCTAssertNil(QRVersion(6)!.versionInformation)
        XCTAssertEqual(QRVersion(7)!.versionInformation, 0x07C94)
        XCTAssertEqual(QRVersion(versionInformation: 0x07C94 ^ 0b1000_0000_0100_0000_01)?.number, 7)
        XCTAssertNil(QRVersion(versionInformation: 0x07C94 ^ 0b1111))
        let symbol = try QRCodeEncoder(correctionLevel: .quartile, mask: 6).encode("format")
        var m = symbol.matrix
        let f = try XCTUnwrap(QRCodeDecoder.formatInformation(of: m))
        XCTAssertEqual(f.correctionLevel, .quartile)
        XCTAssertEqual(f.mask, 6)
        XCTAssertEqual(f.bitErrors, 0)
        m[8, 0].toggle()
        XCTAssertEqual(QRCodeDecoder.formatInformation(of: m)?.bitErrors, 0, "the other copy is intact")
        XCTAssertNil(QRCodeDecoder.formatInformation(of: QRBitMatrix(size: 22)))
    }
}
