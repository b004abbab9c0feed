import Foundation
import XCTest
@testable import PixelFlow
@testable import PixelFlowKernels
@testable import PixelFlowGraph
@testable import PixelFlowEngine

/// Symbols PixelFlow made and an independent decoder (zxing-cpp) read back, from
/// Tests/PixelFlowTests/Fixtures/QR/zxing (see scripts/make_qr_zxing_fixtures.py).
///
/// Each fixture holds the matrix `pixelflow qr encode` wrote and what zxing-cpp decoded from
/// it. Re-encoding the same message, level and version must give the identical matrix, so
/// zxing-cpp's verdict still applies to the generator as it is now; zxing-cpp's text, version
/// and level must be the ones asked for; and our own detector must read the same symbol.
final class QRZXingCrossTests: XCTestCase {
    struct Case {
        let name: String
        let header: [String: String]
        let matrix: QRBitMatrix

        func bytes(_ key: String) -> [UInt8] {
            let hex = Array(header[key, default: ""].utf8)
            return stride(from: 0, to: hex.count - 1, by: 2).map {
                UInt8(String(decoding: hex[$0..<$0 + 2], as: UTF8.self), radix: 16)!
            }
        }
        var message: [UInt8] { bytes("message_hex") }
        var version: Int { Int(header["version"]!)! }
        var level: String { header["level"]! }
    }

    static func cases() throws -> [Case] {
        let dir = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/QR/zxing")
        let names = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasSuffix(".txt") }.sorted()
        return try names.map { name in
            let text = try String(contentsOf: dir.appendingPathComponent(name), encoding: .utf8)
            let (header, rows) = QRFixture.parse(text)
            let size = rows.count
            // Hex digits, 4 modules each, high bit first.
            let bits = rows.map { row in
                row.flatMap { digit -> [Character] in
                    let v = Int(String(digit), radix: 16)!
                    return (0..<4).map { (v >> (3 - $0)) & 1 == 1 ? "1" : "0" }
                }.prefix(size)
            }.map { String($0) }
            guard let m = QRBitMatrix(rows: bits) else {
                throw PixelFlowError.mismatch("fixture \(name) is not a square matrix")
            }
            return Case(name: name, header: header, matrix: m)
        }
    }

    func testFixturesCoverEveryVersionAndLevel() throws {
        let all = try Self.cases()
        XCTAssertEqual(Set(all.map(\.version)), Set(1...40))
        XCTAssertEqual(Set(all.map(\.level)), ["L", "M", "Q", "H"])
        XCTAssertEqual(Set(all.map { $0.header["mode"]! }), ["numeric", "alphanumeric", "byte", "utf8", "kanji", "mixed"])
    }

    /// zxing-cpp decoded every symbol to the message, version and level it was made with.
    func testZXingReadWhatWeWrote() throws {
        for c in try Self.cases() {
            XCTAssertEqual(c.bytes("zxing_text_hex"), c.message, "\(c.name): zxing-cpp's text")
            XCTAssertEqual(c.header["zxing_version"], String(c.version), "\(c.name): zxing-cpp's version")
            XCTAssertEqual(c.header["zxing_level"], c.level, "\(c.name): zxing-cpp's level")
        }
    }

    /// The generator still writes, module for module, the symbols zxing-cpp read.
    func testGeneratorStillMakesTheSymbolsZXingRead() throws {
        for c in try Self.cases() {
            let level = QRErrorCorrectionLevel(letter: c.level)!
            let symbol = try QRCodeEncoder(correctionLevel: level, version: QRVersion(c.version)).encode(bytes: c.message)
            XCTAssertEqual(symbol.matrix, c.matrix, "\(c.name): the generator's matrix changed since zxing-cpp checked it")
            XCTAssertEqual(String(symbol.mask), c.header["zxing_mask"], "\(c.name): mask")
        }
    }

    /// Our detector reads the same symbols from pixels (3 pixels per module).
    func testDetectorReadsTheSameSymbols() throws {
        for c in try Self.cases() where c.version % 3 == 1 || c.version == 40 {
            let scale = 3, quiet = 4
            let side = (c.matrix.size + 2 * quiet) * scale
            var buffer = try PixelBuffer(width: side, height: side, format: .gray8)
            for y in 0..<side {
                for x in 0..<side {
                    let mx = x / scale - quiet, my = y / scale - quiet
                    let dark = mx >= 0 && my >= 0 && mx < c.matrix.size && my < c.matrix.size && c.matrix[mx, my]
                    buffer[x, y] = dark ? SIMD4<Float>(0, 0, 0, 1) : SIMD4<Float>(1, 1, 1, 1)
                }
            }
            let found = try QRCodeDetector().features(in: buffer)
            XCTAssertEqual(found.count, 1, c.name)
            XCTAssertEqual(found.first?.bytes, c.message, c.name)
            XCTAssertEqual(found.first?.version.number, c.version, c.name)
        }
    }
}
