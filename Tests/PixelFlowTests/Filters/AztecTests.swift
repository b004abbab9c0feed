import Foundation
import XCTest

@testable import PixelFlow
@testable import PixelFlowEngine

/// `CIAztecCodeGenerator`: the character modes read back by a decoder written here from the
/// standard's table, bit stuffing, Reed-Solomon check words against syndromes computed with
/// bitwise field arithmetic, the symbol's geometry, bad input, and symbols that an independent
/// decoder read back (Tests/PixelFlowTests/Fixtures/Barcodes/aztec.json, made by
/// scripts/make_aztec_fixtures.py with zxing-cpp).
final class AztecTests: XCTestCase {
    // MARK: A decoder of the character modes (ISO/IEC 24778, Table 2)

    enum Entry: Equatable {
        case chars([UInt8])
        case latch(Int)
        case shift(Int)
        case binaryShift
        case flag
    }

    /// The standard's table, mode by mode (0 upper, 1 lower, 2 mixed, 3 punctuation, 4 digit).
    static let table: [[Entry]] = {
        func c(_ s: String) -> Entry { .chars(Array(s.utf8)) }
        let upper =
            [Entry.shift(3), c(" ")] + "ABCDEFGHIJKLMNOPQRSTUVWXYZ".map { c(String($0)) }
            + [.latch(1), .latch(2), .latch(4), .binaryShift]
        let lower =
            [Entry.shift(3), c(" ")] + "abcdefghijklmnopqrstuvwxyz".map { c(String($0)) }
            + [.shift(0), .latch(2), .latch(4), .binaryShift]
        var mixed = [Entry.shift(3), c(" ")] + (1...13).map { Entry.chars([UInt8($0)]) }
        mixed += (27...31).map { Entry.chars([UInt8($0)]) }
        mixed += ["@", "\\", "^", "_", "`", "|", "~"].map(c) + [.chars([127]), .latch(1), .latch(0), .latch(3), .binaryShift]
        let punct =
            [Entry.flag, .chars([13]), .chars([13, 10]), c(". "), c(", "), c(": ")]
            + "!\"#$%&'()*+,-./:;<=>?[]{}".map { c(String($0)) } + [.latch(0)]
        let digit = [Entry.shift(3), c(" ")] + "0123456789".map { c(String($0)) } + [c(","), c("."), .latch(0), .shift(0)]
        return [upper, lower, mixed, punct, digit]
    }()

    func decode(_ bits: [Bool]) -> [UInt8]? {
        var i = 0
        func read(_ n: Int) -> Int? {
            guard i + n <= bits.count else { return nil }
            var v = 0
            for _ in 0..<n {
                v = v << 1 | (bits[i] ? 1 : 0)
                i += 1
            }
            return v
        }
        var out: [UInt8] = []
        var mode = 0
        var shifted: Int?
        while i < bits.count {
            let current = shifted ?? mode
            shifted = nil
            guard let code = read(current == 4 ? 4 : 5) else { return nil }
            switch Self.table[current][code] {
            case .chars(let c): out += c
            case .latch(let m): mode = m
            case .shift(let m): shifted = m
            case .flag: return nil
            case .binaryShift:
                guard var n = read(5) else { return nil }
                if n == 0 {
                    guard let long = read(11) else { return nil }
                    n = long + 31
                }
                for _ in 0..<n {
                    guard let b = read(8) else { return nil }
                    out.append(UInt8(b))
                }
            }
        }
        return out
    }

    func testCharacterModesReadBackWithTheStandardsTable() {
        var rng = SeededRandom(seed: 24)
        var messages: [[UInt8]] = [
            [], Array("PixelFlow".utf8), Array("Hello, World! 123.45, ok: yes".utf8), Array("aBcD 09 ,. @\\^_`|~".utf8),
            [0, 1, 2, 13, 10, 27, 127, 128, 255], Array("\r\n. , : ".utf8), Array(repeating: 0xEE, count: 40),
            Array(repeating: 0x41, count: 3000),
        ]
        for n in [1, 2, 5, 17, 64, 300, 2100] {
            messages.append((0..<n).map { _ in UInt8.random(in: 0...255, using: &rng) })
            messages.append((0..<n).map { _ in UInt8.random(in: 32...126, using: &rng) })
            messages.append((0..<n).map { _ in Array("0123456789 .,abcXYZ".utf8).randomElement(using: &rng)! })
        }
        for m in messages {
            let bits = AztecEncoder.bits(for: m)
            XCTAssertEqual(decode(bits), m, "\(m.prefix(20)) (\(m.count) bytes)")
            // Never longer than every byte in binary shifts.
            let chunks = (m.count + 2077) / 2078
            XCTAssertLessThanOrEqual(bits.count, 8 * m.count + chunks * 21, "\(m.count) bytes")
        }
        // The text modes pay: 5 bits a letter, 4 a digit.
        XCTAssertEqual(AztecEncoder.bits(for: Array("ABC".utf8)).count, 15)
        XCTAssertEqual(AztecEncoder.bits(for: Array("12345".utf8)).count, 5 + 5 * 4)
    }

    // MARK: Stuffing and check words

    func testStuffedWordsAreNeverAllZerosOrAllOnesAndUnstuffBack() {
        var rng = SeededRandom(seed: 6)
        for size in [6, 8, 10, 12] {
            for n in [0, 1, 5, 6, 7, 40, 333] {
                var bits = (0..<n).map { _ in Bool.random(using: &rng) }
                if n == 40 { bits = Array(repeating: true, count: 40) }
                if n == 333 { bits = Array(repeating: false, count: 333) }
                let words = AztecEncoder.stuffed(bits, size: size)
                var back: [Bool] = []
                for w in words {
                    XCTAssertNotEqual(w, 0, "size \(size)")
                    XCTAssertNotEqual(w, (1 << size) - 1, "size \(size)")
                    var part = (0..<size).map { (w >> (size - 1 - $0)) & 1 == 1 }
                    let head = part.prefix(size - 1)
                    // A stuffed word: its first size-1 bits are equal and the last differs.
                    if head.allSatisfy({ $0 == head.first }) && part.last != head.first { part.removeLast() }
                    back += part
                }
                XCTAssertGreaterThanOrEqual(back.count, bits.count)
                XCTAssertEqual(Array(back.prefix(bits.count)), bits, "size \(size), \(n) bits")
                XCTAssertTrue(back.dropFirst(bits.count).allSatisfy { $0 }, "padding is ones")
            }
        }
    }

    /// `a * b` in GF(2^m) by shifts and XOR, reducing by `poly`.
    func multiply(_ a: Int, _ b: Int, poly: Int, bits: Int) -> Int {
        var a = a, b = b, r = 0
        while b != 0 {
            if b & 1 == 1 { r ^= a }
            b >>= 1
            a <<= 1
            if a >> bits & 1 == 1 { a ^= poly }
        }
        return r
    }

    func testCheckWordsMakeTheSyndromesZero() {
        let polys = [4: 0x13, 6: 0x43, 8: 0x12D, 10: 0x409, 12: 0x1069]
        var rng = SeededRandom(seed: 11)
        for (bits, poly) in polys.sorted(by: { $0.key < $1.key }) {
            for (dataCount, checkCount) in [(2, 5), (4, 6), (10, 7), (30, 20)] where dataCount + checkCount < 1 << bits {
                let data = (0..<dataCount).map { _ in Int.random(in: 0..<(1 << bits), using: &rng) }
                let codeword = data + AztecEncoder.checkWords(data, count: checkCount, bits: bits)
                var alpha = 1
                for root in 1...checkCount {
                    alpha = multiply(alpha, 2, poly: poly, bits: bits)
                    // Horner: c(alpha^root), highest coefficient first.
                    var value = 0
                    for c in codeword { value = multiply(value, alpha, poly: poly, bits: bits) ^ c }
                    XCTAssertEqual(value, 0, "GF(2^\(bits)) root alpha^\(root)")
                }
            }
        }
    }

    // MARK: Geometry and input

    func modules(_ image: Image) throws -> (size: Int, dark: (Int, Int) -> Bool) {
        let b = try RenderContext().makeBuffer(image)
        XCTAssertEqual(b.width, b.height)
        return (b.width, { b[$0, $1].x < 0.5 })
    }

    func testSizesBullsEyeAndOrientationMarks() throws {
        for layers in 1...4 {
            let m = try modules(try Image.aztecCode(message: "A", layers: layers, compact: true))
            XCTAssertEqual(m.size, 11 + 4 * layers)
            let c = m.size / 2
            // Dark rings at even distances, light at odd ones, within the bull's-eye.
            for d in 0...4 { XCTAssertEqual(m.dark(c + d, c), d % 2 == 0, "compact \(layers) ring \(d)") }
            // Orientation: three dark modules at the top-left corner of the mode ring, none at
            // the bottom-left.
            XCTAssertTrue(m.dark(c - 5, c - 5) && m.dark(c - 4, c - 5) && m.dark(c - 5, c - 4))
            XCTAssertFalse(m.dark(c - 5, c + 5))
            XCTAssertTrue(m.dark(c + 5, c + 4))
        }
        // Full-range: 15 + 4L modules before the reference grid, a grid line every 16 modules.
        for (layers, size) in [(1, 19), (4, 31), (5, 37), (12, 67), (32, 151)] {
            let m = try modules(try Image.aztecCode(message: "full", layers: layers, compact: false))
            XCTAssertEqual(m.size, size, "full \(layers)")
            let c = size / 2
            for d in 0...6 { XCTAssertEqual(m.dark(c + d, c), d % 2 == 0, "full \(layers) ring \(d)") }
            if size > 31 {
                // The grid line 16 modules above the center alternates, dark at even columns
                // from the center.
                for x in stride(from: c % 2, to: size, by: 2) { XCTAssertTrue(m.dark(x, c - 16), "grid x \(x)") }
                for x in stride(from: 1 - c % 2, to: size, by: 2) { XCTAssertFalse(m.dark(x, c - 16), "grid x \(x)") }
            }
        }
        // Automatic: the smallest symbol, compact when it fits.
        XCTAssertEqual(try modules(try Image.aztecCode(message: "PixelFlow")).size, 15)
        XCTAssertEqual(try FilterRegistry.apply("CIAztecCodeGenerator", [:]).extent, Rect(x: 0, y: 0, width: 15, height: 15))
    }

    func testBadInputThrows() {
        let cases: [(String, FilterValue)] = [
            ("inputCorrectionLevel", .number(4)), ("inputCorrectionLevel", .number(96)), ("inputCorrectionLevel", .number(.nan)),
            ("inputLayers", .number(33)), ("inputLayers", .number(-1)), ("inputCompactStyle", .number(2)),
        ]
        for (key, value) in cases {
            XCTAssertThrowsError(try FilterRegistry.apply("CIAztecCodeGenerator", [key: value]), key) {
                guard case let PixelFlowError.invalidParameter(_, k, _) = $0 else { return XCTFail("\($0)") }
                XCTAssertEqual(k, key)
            }
        }
        XCTAssertThrowsError(try Image.aztecCode(message: "x", layers: 5, compact: true))
        XCTAssertThrowsError(try Image.aztecCode(message: String(repeating: "too long ", count: 20), layers: 1))
        let huge = [UInt8](repeating: 0xAB, count: 5000)
        XCTAssertThrowsError(try FilterRegistry.apply("CIAztecCodeGenerator", ["inputMessage": .data(huge)])) {
            guard case let PixelFlowError.invalidParameter(_, k, _) = $0 else { return XCTFail("\($0)") }
            XCTAssertEqual(k, "inputMessage")
        }
    }

    // MARK: Read back by zxing-cpp

    struct Fixture: Decodable {
        struct Case: Decodable {
            var message_hex: String
            var options: [String: Double]
            var size: Int
            var modules_fnv: String
            var zxing_hex: String
            var zxing_writer_size: Int?
        }
        var cases: [Case]
    }

    func testSymbolsThatZXingReadBack() throws {
        let fixture = try barcodeFixture("aztec.json", as: Fixture.self)
        XCTAssertGreaterThanOrEqual(fixture.cases.count, 60)
        var compared = 0
        for (n, c) in fixture.cases.enumerated() {
            XCTAssertEqual(c.zxing_hex, c.message_hex, "case \(n)")
            if let writer = c.zxing_writer_size {
                XCTAssertLessThanOrEqual(c.size, writer, "case \(n): larger than zxing-cpp's own symbol")
                compared += 1
            }
            var values: [String: FilterValue] = ["inputMessage": .data(bytes(hex: c.message_hex))]
            for (key, value) in c.options { values[key] = .number(value) }
            let buffer = try RenderContext().makeBuffer(try FilterRegistry.apply("CIAztecCodeGenerator", values))
            XCTAssertEqual(buffer.width, c.size, "case \(n)")
            guard buffer.width == c.size, buffer.height == c.size else { continue }
            var hash: UInt64 = 0xCBF2_9CE4_8422_2325
            func add(_ byte: UInt8) { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01B3 }
            for y in 0..<c.size {
                for x in 0..<c.size { add(buffer[x, y].x < 0.5 ? 49 : 48) }
                add(10)
            }
            let hex = String(hash, radix: 16)
            XCTAssertEqual(String(repeating: "0", count: 16 - hex.count) + hex, c.modules_fnv, "case \(n)")
        }
        XCTAssertGreaterThanOrEqual(compared, 8)
    }
}
