import Foundation
import XCTest

@testable import PixelFlow
@testable import PixelFlowEngine

/// `CIRoundedQRCodeGenerator`: every module center shows the symbol's module, the center
/// space is empty, bad input throws, and the images that zxing-cpp read back
/// (Tests/PixelFlowTests/Fixtures/Barcodes/rounded_qr.json, scripts/make_rounded_qr_fixtures.py)
/// are still made pixel for pixel (thresholded at half gray).
final class RoundedQRCodeTests: XCTestCase {
    func testModuleCentersShowTheSymbol() throws {
        let symbol = try QRCodeEncoder(correctionLevel: .high).encode("https://example.com/dots")
        let n = symbol.matrix.size
        for (markers, data, space) in [(0, true, 0), (1, false, 0), (2, true, 5)] {
            let image = try Image.roundedQRCode(
                message: "https://example.com/dots", correctionLevel: .high, scale: 8, roundedMarkers: markers,
                roundedData: data, centerSpace: space)
            let b = try RenderContext().makeBuffer(image)
            XCTAssertEqual(b.width, (n + 8) * 8)
            for y in 0..<n {
                for x in 0..<n {
                    let px = (x + 4) * 8 + 4, py = (y + 4) * 8 + 4
                    let inSpace = space > 0 && abs(x - n / 2) <= space / 2 && abs(y - n / 2) <= space / 2
                    let isFinder = (x < 7 || x >= n - 7) && y < 7 || (x < 7 && y >= n - 7)
                    // Rounded finder patterns (radius 2 modules) leave their four corner modules light.
                    let fx = x < 7 ? x : x - (n - 7), fy = y < 7 ? y : y - (n - 7)
                    let finderCorner = isFinder && (fx == 0 || fx == 6) && (fy == 0 || fy == 6)
                    let expected = symbol.matrix[x, y] && !(inSpace && !isFinder) && !(markers >= 1 && finderCorner)
                    // Rounded alignment patterns (radius 1.5) pass within a pixel of their corner
                    // modules' centers: not sampled.
                    let alignmentCorner =
                        markers == 2 && symbol.version.alignmentPatternCenters.contains { abs(x - $0) == 2 }
                        && symbol.version.alignmentPatternCenters.contains { abs(y - $0) == 2 } && !isFinder
                    if alignmentCorner { continue }
                    XCTAssertEqual(b[px, py].x < 0.5, expected, "markers \(markers) (\(x), \(y))")
                }
            }
            // The quiet zone is background.
            XCTAssertEqual(b[3, 3].x, 1)
            // Round data modules leave the corners of an isolated module light.
            if data {
                let m = symbol.matrix
                func inSpace(_ x: Int, _ y: Int) -> Bool {
                    space > 0 && abs(x - n / 2) <= space / 2 && abs(y - n / 2) <= space / 2
                }
                func isolated(_ x: Int, _ y: Int) -> Bool {
                    let inside = x > 8 && x < n - 9 && y > 8 && y < n - 9
                    return inside && m[x, y] && !m[x - 1, y] && !m[x, y - 1] && !m[x - 1, y - 1] && !inSpace(x, y)
                }
                var corner: (x: Int, y: Int)?
                for y in 0..<n where corner == nil {
                    for x in 0..<n where isolated(x, y) {
                        corner = (x, y)
                        break
                    }
                }
                let found = try XCTUnwrap(corner)
                XCTAssertGreaterThan(b[(found.x + 4) * 8, (found.y + 4) * 8].x, 0.9, "a dot, not a square")
            }
        }
    }

    func testBadInputThrows() {
        let cases: [(String, FilterValue)] = [
            ("inputCorrectionLevel", .string("X")), ("inputScale", .number(0)), ("inputScale", .number(.nan)),
            ("inputRoundedMarkers", .number(3)), ("inputCenterSpaceSize", .number(-1)),
            ("inputColor0", .color(Color(red: .nan, green: 0, blue: 0))),
        ]
        for (key, value) in cases {
            XCTAssertThrowsError(
                try FilterRegistry.apply("CIRoundedQRCodeGenerator", ["inputMessage": .data([65]), key: value]), key
            ) {
                guard case let PixelFlowError.invalidParameter(_, k, _) = $0 else { return XCTFail("\($0)") }
                XCTAssertEqual(k, key)
            }
        }
        let long = [UInt8](repeating: 0x41, count: 4000)
        XCTAssertThrowsError(try FilterRegistry.apply("CIRoundedQRCodeGenerator", ["inputMessage": .data(long)]))
    }

    struct Fixture: Decodable {
        struct Case: Decodable {
            var message_hex: String
            var options: [String: FilterOption]
            var side: Int
            var dark_fnv: String
            var zxing_hex: String
        }
        var cases: [Case]
    }

    /// A number or a string option of the fixture.
    enum FilterOption: Decodable {
        case number(Double)
        case string(String)
        init(from decoder: Decoder) throws {
            let c = try decoder.singleValueContainer()
            if let d = try? c.decode(Double.self) { self = .number(d) } else { self = .string(try c.decode(String.self)) }
        }
        var value: FilterValue {
            switch self {
            case .number(let d): return .number(d)
            case .string(let s): return .string(s)
            }
        }
    }

    func testImagesThatZXingReadBack() throws {
        let fixture = try barcodeFixture("rounded_qr.json", as: Fixture.self)
        XCTAssertGreaterThanOrEqual(fixture.cases.count, 30)
        for (n, c) in fixture.cases.enumerated() {
            XCTAssertEqual(c.zxing_hex, c.message_hex, "case \(n)")
            var values: [String: FilterValue] = ["inputMessage": .data(bytes(hex: c.message_hex))]
            for (key, value) in c.options { values[key] = value.value }
            let b = try RenderContext().makeBuffer(try FilterRegistry.apply("CIRoundedQRCodeGenerator", values))
            XCTAssertEqual(b.width, c.side, "case \(n)")
            guard b.width == c.side else { continue }
            var hash: UInt64 = 0xCBF2_9CE4_8422_2325
            func add(_ byte: UInt8) { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01B3 }
            b.withUnsafeBytes { raw in
                for y in 0..<b.height {
                    for x in 0..<b.width { add(raw[y * b.bytesPerRow + 4 * x] < 128 ? 49 : 48) }
                    add(10)
                }
            }
            let hex = String(hash, radix: 16)
            XCTAssertEqual(String(repeating: "0", count: 16 - hex.count) + hex, c.dark_fnv, "case \(n)")
        }
    }
}
