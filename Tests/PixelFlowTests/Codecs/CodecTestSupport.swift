import Foundation
import XCTest
@testable import PixelFlow
@testable import PixelFlowKernels
@testable import PixelFlowGraph
@testable import PixelFlowEngine

/// Fixtures, test images and pixel access shared by the codec tests.
enum CodecTestSupport {
    /// The path of a file in `Tests/PixelFlowTests/Fixtures/Codecs`.
    static func fixture(_ name: String) -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/Codecs/\(name)").path
    }

    static func fixtureBytes(_ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: fixture(name))))
    }

    /// The pattern of the lossless fixtures: R = 17x, G = 29y, B = xy (mod 256).
    static func fixturePattern(_ x: Int, _ y: Int) -> [UInt8] {
        [UInt8((17 * x) & 255), UInt8((29 * y) & 255), UInt8((x * y) & 255)]
    }

    /// A deterministic `rgba8` image; alpha varies when `alpha` is true, else 255.
    static func rgba8(width: Int, height: Int, alpha: Bool, seed: UInt64 = 1) -> PixelBuffer {
        var rng = SeededRandom(seed: seed)
        var b = try! PixelBuffer(width: width, height: height, format: .rgba8)
        b.withUnsafeMutableRows { _, row in
            let p = row.assumingMemoryBound(to: UInt8.self)
            for i in 0..<(4 * width) { p[i] = UInt8(truncatingIfNeeded: rng.next()) }
            if !alpha { for x in 0..<width { p[4 * x + 3] = 255 } }
        }
        return b
    }

    static func gray8(width: Int, height: Int, seed: UInt64 = 2) -> PixelBuffer {
        var rng = SeededRandom(seed: seed)
        var b = try! PixelBuffer(width: width, height: height, format: .gray8)
        b.withUnsafeMutableRows { _, row in
            let p = row.assumingMemoryBound(to: UInt8.self)
            for x in 0..<width { p[x] = UInt8(truncatingIfNeeded: rng.next()) }
        }
        return b
    }

    static func rgba16(width: Int, height: Int, alpha: Bool, seed: UInt64 = 3) -> PixelBuffer {
        var rng = SeededRandom(seed: seed)
        var b = try! PixelBuffer(width: width, height: height, format: .rgba16)
        b.withUnsafeMutableRows { _, row in
            let p = row.assumingMemoryBound(to: UInt16.self)
            for i in 0..<(4 * width) { p[i] = UInt16(truncatingIfNeeded: rng.next()) }
            if !alpha { for x in 0..<width { p[4 * x + 3] = 65535 } }
        }
        return b
    }

    /// A smooth color gradient, which JPEG keeps within a few levels.
    static func smooth(width: Int, height: Int) -> PixelBuffer {
        var b = try! PixelBuffer(width: width, height: height, format: .rgba8)
        b.withUnsafeMutableRows { y, row in
            let p = row.assumingMemoryBound(to: UInt8.self)
            for x in 0..<width {
                p[4 * x] = UInt8(40 + 160 * x / max(width - 1, 1))
                p[4 * x + 1] = UInt8(60 + 120 * y / max(height - 1, 1))
                p[4 * x + 2] = UInt8(128 + 60 * sin(Double(x) / 9) * cos(Double(y) / 7))
                p[4 * x + 3] = 255
            }
        }
        return b
    }

    /// The stored channel values of pixel (x, y): 1 or 4 values, as Int.
    static func pixel(_ b: PixelBuffer, _ x: Int, _ y: Int) -> [Int] {
        b.withUnsafeBytes { raw in
            let offset = y * b.bytesPerRow + x * b.format.bytesPerPixel
            switch b.format {
            case .gray8: return [Int(raw[offset])]
            case .rgba8: return (0..<4).map { Int(raw[offset + $0]) }
            case .rgba16: return (0..<4).map { Int(raw.loadUnaligned(fromByteOffset: offset + 2 * $0, as: UInt16.self)) }
            default: return []
            }
        }
    }

    /// The largest difference of any channel of any pixel (same size and format).
    static func maximumDifference(_ a: PixelBuffer, _ b: PixelBuffer) -> Int {
        precondition(a.width == b.width && a.height == b.height && a.format == b.format)
        var worst = 0
        for y in 0..<a.height {
            for x in 0..<a.width {
                for (u, v) in zip(pixel(a, x, y), pixel(b, x, y)) { worst = max(worst, abs(u - v)) }
            }
        }
        return worst
    }

    /// A fresh, empty temporary folder, removed by the test's teardown block.
    static func temporaryFolder(_ test: XCTestCase) throws -> String {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("pixelflow-codec-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        test.addTeardownBlock { try? FileManager.default.removeItem(at: url) }
        return url.path
    }

    /// The kinds of `PixelFlowError` the codec tests expect.
    enum ErrorKind: String { case decodingFailed, unsupportedFormat, limitExceeded, invalidParameter, encodingFailed, io }

    static func kind(of error: PixelFlowError) -> ErrorKind? {
        switch error {
        case .decodingFailed: return .decodingFailed
        case .unsupportedFormat: return .unsupportedFormat
        case .limitExceeded: return .limitExceeded
        case .invalidParameter: return .invalidParameter
        case .encodingFailed: return .encodingFailed
        case .io: return .io
        default: return nil
        }
    }

    /// Asserts that `body` throws a `PixelFlowError` of kind `expected`; returns it.
    @discardableResult
    static func assertThrows<T>(
        _ expected: ErrorKind, file: StaticString = #filePath, line: UInt = #line,
        _ body: () throws -> T
    ) -> PixelFlowError? {
        do {
            _ = try body()
            XCTFail("expected \(expected), nothing was thrown", file: file, line: line)
        } catch let error as PixelFlowError {
            XCTAssertEqual(kind(of: error), expected, "got \(error)", file: file, line: line)
            return error
        } catch {
            XCTFail("expected \(expected), got \(error)", file: file, line: line)
        }
        return nil
    }
}

/// Writes `b` to `encoder` in strips of 1...300 rows (random heights from `seed`), then
/// finishes the file.
func writeInRandomStrips(_ b: PixelBuffer, to encoder: any _RowEncoder, seed: UInt64) throws {
    var rng = SeededRandom(seed: seed)
    var y = 0
    try b.withUnsafeBytes { raw in
        while y < b.height {
            let n = Swift.min(b.height - y, 1 + Int(rng.next() % 300))
            try encoder.write(rows: raw.baseAddress! + y * b.bytesPerRow, bytesPerRow: b.bytesPerRow, count: n)
            y += n
        }
    }
    try encoder.finish()
}
