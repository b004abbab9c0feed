import Foundation
import XCTest

@testable import PixelFlow
@testable import PixelFlowKernels
@testable import PixelFlowGraph
@testable import PixelFlowEngine

/// `CIPDF417BarcodeGenerator`: the standard's codeword patterns, compaction and Reed-Solomon
/// examples, bad input, and symbols that an independent decoder read back
/// (Tests/PixelFlowTests/Fixtures/Barcodes, made by scripts/make_pdf417_fixtures.py with
/// zxing-cpp).
final class PDF417Tests: XCTestCase {
    /// Element widths (bar, space, ...) of a 17-module pattern.
    func widths(_ pattern: UInt32) -> [Int] {
        var out: [Int] = []
        var last: UInt32 = 2
        for b in stride(from: 16, through: 0, by: -1) {
            let bit = pattern >> UInt32(b) & 1
            if bit == last { out[out.count - 1] += 1 } else { out.append(1) }
            last = bit
        }
        return out
    }

    func testPatternsHaveTheStandardsShape() {
        let p = PDF417Encoder.patterns
        XCTAssertEqual(p.count, 3)
        for (cluster, table) in p.enumerated() {
            XCTAssertEqual(table.count, 929)
            XCTAssertEqual(Set(table).count, 929, "cluster \(3 * cluster): patterns must differ")
            for (v, pattern) in table.enumerated() {
                // Four bars and four spaces of 1-6 modules, starting with a bar; the cluster
                // number is (b1 - b2 + b3 - b4 + 9) mod 9 over the bar widths.
                XCTAssertEqual(pattern >> 16, 1, "value \(v)")
                let w = widths(pattern)
                XCTAssertEqual(w.count, 8, "cluster \(3 * cluster) value \(v)")
                XCTAssertTrue(w.allSatisfy { (1...6).contains($0) }, "value \(v)")
                XCTAssertEqual((w[0] - w[2] + w[4] - w[6] + 9) % 9, 3 * cluster, "value \(v)")
            }
        }
    }

    func testCompactionExamplesFromTheStandard() throws {
        // Text: "PDF417" is P D F (alpha), latch to mixed, 4 1 7, pad 29.
        XCTAssertEqual(PDF417Encoder.textCodewords(Array("PDF417".utf8)[...]), [453, 178, 121, 239])
        // Numeric: "000213298174000" is 1000213298174000 in base 900.
        XCTAssertEqual(PDF417Encoder.numericCodewords(Array("000213298174000".utf8)[...]), [1, 624, 434, 632, 282, 200])
        // Byte: 6 bytes as a 48-bit number in base 900 (5 digits), the rest one a codeword.
        let bytes: [UInt8] = [0xFF, 0x00, 0x80, 0x41, 0x7F, 0x01, 0x09]
        var v = bytes[0..<6].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        var digits: [Int] = []
        for _ in 0..<5 {
            digits.insert(Int(v % 900), at: 0)
            v /= 900
        }
        XCTAssertEqual(PDF417Encoder.byteCodewords(bytes[...]), digits + [9])
        // Sub-mode changes: lower case (ll 27), a one-character shift to alpha (as 27), and
        // a one-character shift to punctuation (ps 29).
        XCTAssertEqual(PDF417Encoder.textCodewords(Array("aB".utf8)[...]), [30 * 27 + 0, 30 * 27 + 1])
        XCTAssertEqual(PDF417Encoder.textCodewords(Array("A@".utf8)[...]), [30 * 0 + 29, 30 * 3 + 29])
    }

    func testCheckCodewordsMatchTheStandardsExampleAndASyndromeReference() {
        // ISO/IEC 15438's example: length 5 and "PDF417" at level 1.
        XCTAssertEqual(PDF417Encoder.checkCodewords(for: [5, 453, 178, 121, 239], count: 4), [452, 327, 657, 619])
        // Independent of the division: the whole codeword polynomial vanishes at 3^1...3^k.
        var rng = SystemRandomNumberGenerator()
        for level in 0...8 {
            let k = 2 << level
            let data = (0..<(40 + level)).map { _ in Int.random(in: 0..<929, using: &rng) }
            let all = data + PDF417Encoder.checkCodewords(for: data, count: k)
            var root = 1
            for i in 1...k {
                root = root * 3 % 929
                let value = all.reduce(0) { ($0 * root + $1) % 929 }
                XCTAssertEqual(value, 0, "level \(level): syndrome \(i)")
            }
        }
    }

    func testAutomaticCompactionIsNoLongerThanAnySingleMode() throws {
        for text in ["PixelFlow", "12345678901234567890", "abc 1234567890123456 def", "Grüße 2026", "a;b;c;d;", ""] {
            let message = Array(text.utf8)
            let auto = try PDF417Encoder.dataCodewords(for: message, .automatic, latchFirst: false).count
            for mode in [PDF417Encoder.Compaction.numeric, .text, .byte] {
                guard let n = try? PDF417Encoder.dataCodewords(for: message, mode, latchFirst: false).count else { continue }
                XCTAssertLessThanOrEqual(auto, n, "\(text) against mode \(mode)")
            }
        }
        // 20 digits: latch 902 and 7 codewords, not 10 text codewords.
        XCTAssertEqual(
            try PDF417Encoder.dataCodewords(for: Array("12345678901234567890".utf8), .automatic, latchFirst: false).first, 902)
    }

    func testBadInputThrows() {
        let cases: [[String: FilterValue]] = [
            ["inputCorrectionLevel": .number(9)], ["inputCorrectionLevel": .number(-1)],
            ["inputCorrectionLevel": .number(.nan)], ["inputDataColumns": .number(31)], ["inputRows": .number(2)],
            ["inputRows": .number(91)], ["inputCompactionMode": .number(4)],
            ["inputCompactionMode": .number(1), "inputMessage": .data(Array("12a".utf8))],
            ["inputCompactionMode": .number(2), "inputMessage": .data([200])],
            ["inputMessage": .data([UInt8](repeating: 200, count: 2000))],
            ["inputMessage": .data([UInt8](repeating: 65, count: 900)), "inputCorrectionLevel": .number(8)],
            ["inputMessage": .data([UInt8](repeating: 65, count: 300)), "inputDataColumns": .number(1)],
            ["inputMaxWidth": .number(60)],
        ]
        for values in cases {
            XCTAssertThrowsError(try FilterRegistry.apply("CIPDF417BarcodeGenerator", values), "\(values)")
        }
    }

    func testDefaultsAndExtent() throws {
        // "Hello": 3 text codewords, length descriptor, 8 check codewords at level 2: 12
        // codewords; 1 column of 12 rows (86 x 36 pixels) is nearest the ratio 3 (2 columns
        // of 6 rows: 103 x 18).
        let image = try Image.pdf417Barcode(message: "Hello")
        XCTAssertEqual(image.extent, Rect(x: 0, y: 0, width: 86 + 4, height: 36 + 4))
        // An empty message renders (length descriptor and padding only).
        let empty = try FilterRegistry.apply("CIPDF417BarcodeGenerator", [:])
        XCTAssertFalse(empty.extent.isEmpty)
        // Compact style: 35 + 17 c modules.
        let compact = try Image.pdf417Barcode(message: "Hello", columns: 2, compact: true)
        XCTAssertEqual(compact.extent.width, 35 + 34 + 4)
        // Minimums past the largest symbol give the nearest one: 30 columns of 30 rows (928
        // codewords at most), short of the minimums by 4 + 193 pixels.
        let widest = try FilterRegistry.apply(
            "CIPDF417BarcodeGenerator", ["inputMinWidth": .number(583), "inputMinHeight": .number(283)])
        XCTAssertEqual(widest.extent, Rect(x: 0, y: 0, width: 579 + 4, height: 90 + 4))
    }

    struct Fixture: Decodable {
        struct Case: Decodable {
            var message_hex: String
            var options: [String: Double]
            var rows: Int
            var width: Int
            var modules_fnv: String
            var zxing_hex: String
        }
        var cases: [Case]
    }

    func testSymbolsThatZXingReadBack() throws {
        let fixture = try barcodeFixture("pdf417.json", as: Fixture.self)
        XCTAssertGreaterThanOrEqual(fixture.cases.count, 50)
        for (n, c) in fixture.cases.enumerated() {
            // zxing-cpp read the message back.
            XCTAssertEqual(c.zxing_hex, c.message_hex, "case \(n)")
            // The generator still makes that symbol.
            let message = bytes(hex: c.message_hex)
            var values: [String: FilterValue] = ["inputMessage": .data(message)]
            for (key, value) in c.options { values[key] = .number(value) }
            let buffer = try RenderContext().makeBuffer(try FilterRegistry.apply("CIPDF417BarcodeGenerator", values))
            XCTAssertEqual(buffer.width, c.width + 4, "case \(n)")
            XCTAssertEqual(buffer.height, 3 * c.rows + 4, "case \(n)")
            guard buffer.width == c.width + 4, buffer.height == 3 * c.rows + 4 else { continue }
            var hash: UInt64 = 0xCBF2_9CE4_8422_2325
            func add(_ byte: UInt8) { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01B3 }
            for r in 0..<c.rows {
                for x in 2..<(2 + c.width) { add(buffer[x, 2 + 3 * r].x < 0.5 ? 49 : 48) }
                add(10)
            }
            XCTAssertEqual(String(hash, radix: 16).leftPadded(to: 16), c.modules_fnv, "case \(n)")
        }
    }
}

extension String {
    fileprivate func leftPadded(to n: Int) -> String { String(repeating: "0", count: max(0, n - count)) + self }
}
