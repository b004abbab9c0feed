import Foundation
import XCTest

@testable import PixelFlow
@testable import PixelFlowKernels
@testable import PixelFlowGraph
@testable import PixelFlowEngine

/// `CICode128BarcodeGenerator`: the standard's structure and check character, bad input, and
/// symbols that an independent decoder read back (Tests/PixelFlowTests/Fixtures/Barcodes,
/// made by scripts/make_code128_fixtures.py with zxing-cpp).
final class Code128Tests: XCTestCase {
    func testPatternTableHasTheStandardsShape() {
        let p = Code128Encoder.patterns
        XCTAssertEqual(p.count, 107)
        for (v, widths) in p.enumerated() {
            // 11 modules (13 for the stop), widths 1-4, an even number of bar modules.
            XCTAssertEqual(widths.reduce(0) { $0 + Int($1) }, v == 106 ? 13 : 11, "value \(v)")
            XCTAssertTrue(widths.allSatisfy { (1...4).contains($0) }, "value \(v)")
            let bars = stride(from: 0, to: widths.count, by: 2).reduce(0) { $0 + Int(widths[$1]) }
            XCTAssertEqual(bars % 2, 0, "value \(v): bar modules \(bars)")
        }
        XCTAssertEqual(Set(p.map { $0.map(String.init).joined() }).count, 107, "patterns must differ")
    }

    func testCheckCharacterIsTheWeightedSumModulo103() throws {
        // The standard's worked form: start B, P J J 1 2 3 C, check (104 + 48 + 2*42 + 3*42
        // + 4*17 + 5*18 + 6*19 + 7*35) mod 103 = 879 mod 103 = 55.
        XCTAssertEqual(
            try Code128Encoder.symbols(for: Array("PJJ123C".utf8)), [104, 48, 42, 42, 17, 18, 19, 35, 55])
        // Digits only: code set C, two digits a character.
        XCTAssertEqual(try Code128Encoder.symbols(for: Array("123456".utf8)), [105, 12, 34, 56, (105 + 12 + 68 + 168) % 103])
        // No data: start B and its check.
        XCTAssertEqual(try Code128Encoder.symbols(for: []), [104, 1])
        // A control character: code set A (TAB is 9 + 64 = 73 there).
        XCTAssertEqual(try Code128Encoder.symbols(for: [9]), [103, 73, (103 + 73) % 103])
    }

    func testShortestEncodingSwitchesOnlyWhenItPays() throws {
        func count(_ s: String) throws -> Int { try Code128Encoder.symbols(for: Array(s.utf8)).count }
        // Start, data characters, check.
        XCTAssertEqual(try count("abc"), 5)
        XCTAssertEqual(try count("1234"), 4)  // C: 12 34
        XCTAssertEqual(try count("12345"), 6)  // one switch and one digit in B
        XCTAssertEqual(try count("abc1234def"), 12)  // B abc, C 12 34, B def: 3 + 1 + 2 + 1 + 3
        XCTAssertEqual(try count("abc123def"), 11)  // a run of 3 digits stays in B
        // One lower-case letter among control characters: a shift, not two switches.
        let mixed = try Code128Encoder.symbols(for: [9, UInt8(ascii: "a"), 9])
        XCTAssertEqual(mixed, [103, 73, 98, 65, 73, (103 + 73 + 2 * 98 + 3 * 65 + 4 * 73) % 103])
    }

    func testBadInputThrows() {
        for message in [[200], Array("Grüße".utf8)] as [[UInt8]] {
            XCTAssertThrowsError(
                try FilterRegistry.apply("CICode128BarcodeGenerator", ["inputMessage": .data(message)]))
        }
        for (key, value) in [
            ("inputQuietSpace", -1.0), ("inputQuietSpace", 101), ("inputQuietSpace", .nan), ("inputBarcodeHeight", 0),
            ("inputBarcodeHeight", 501), ("inputBarcodeHeight", .infinity),
        ] {
            XCTAssertThrowsError(
                try FilterRegistry.apply(
                    "CICode128BarcodeGenerator", ["inputMessage": .data([65]), key: .number(value)]), "\(key)=\(value)")
        }
    }

    func testDefaultsAndExtent() throws {
        // "PixelFlow": start + 9 + check = 11 characters, 121 + 13 modules, 7 pixels around.
        let image = try Image.code128Barcode(message: "PixelFlow")
        XCTAssertEqual(image.extent, Rect(x: 0, y: 0, width: 134 + 14, height: 32 + 14))
    }

    struct Fixture: Decodable {
        struct Case: Decodable {
            var message_hex: String
            var quiet: Int
            var height: Int
            var width: Int
            var modules: String
            var zxing_hex: String
            var zxing_modules: Int
        }
        var cases: [Case]
    }

    func testSymbolsThatZXingReadBack() throws {
        let fixture = try barcodeFixture("code128.json", as: Fixture.self)
        XCTAssertGreaterThanOrEqual(fixture.cases.count, 40)
        for (n, c) in fixture.cases.enumerated() {
            // zxing-cpp read the message back, from a symbol no wider than its own encoder's.
            XCTAssertEqual(c.zxing_hex, c.message_hex, "case \(n)")
            XCTAssertLessThanOrEqual(c.modules.count, c.zxing_modules, "case \(n)")
            // The generator still makes that symbol.
            let message = bytes(hex: c.message_hex)
            let image = try FilterRegistry.apply(
                "CICode128BarcodeGenerator",
                [
                    "inputMessage": .data(message), "inputQuietSpace": .number(Double(c.quiet)),
                    "inputBarcodeHeight": .number(Double(c.height)),
                ])
            let buffer = try RenderContext().makeBuffer(image)
            XCTAssertEqual(buffer.width, c.width, "case \(n)")
            XCTAssertEqual(buffer.height, c.height + 2 * c.quiet, "case \(n)")
            var row = ""
            for x in c.quiet..<(buffer.width - c.quiet) {
                row += buffer[x, c.quiet].x < 0.5 ? "1" : "0"
            }
            XCTAssertEqual(row, c.modules, "case \(n)")
        }
    }
}
