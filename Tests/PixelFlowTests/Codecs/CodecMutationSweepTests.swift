import Foundation
import XCTest
@testable import PixelFlow
@testable import PixelFlowKernels
@testable import PixelFlowGraph
@testable import PixelFlowEngine

/// Random mutations of small files of every format: each must decode or throw. Expensive,
/// so it runs only when `PIXELFLOW_CODEC_SWEEP` is set to a number of mutations per file,
/// ideally under the address sanitizer in a release build:
///
///     PIXELFLOW_CODEC_SWEEP=20000 swift test -c release -Xswiftc -enable-testing \
///         --sanitize=address --filter CodecMutationSweep
final class CodecMutationSweepTests: XCTestCase {
    typealias S = CodecTestSupport

    func testRandomMutationsThrowOrDecode() throws {
        guard let text = ProcessInfo.processInfo.environment["PIXELFLOW_CODEC_SWEEP"], let rounds = Int(text) else {
            throw XCTSkip("set PIXELFLOW_CODEC_SWEEP=N to run N mutations per file")
        }
        let image = S.rgba8(width: 12, height: 9, alpha: true)
        let files: [[UInt8]] = [
            try image.encoded(as: .png), try image.encoded(as: .png, options: EncodeOptions(interlaced: true)),
            try S.rgba16(width: 5, height: 4, alpha: true).encoded(as: .png),
            try image.encoded(as: .jpeg), try image.encoded(as: .jpeg, options: EncodeOptions(progressive: true)),
            try S.fixtureBytes("orientation6.jpg"), try S.fixtureBytes("cmyk.jpg"), try S.fixtureBytes("palette_trns.png"),
            try image.encoded(as: .bmp), try S.fixtureBytes("palette8.bmp"), try image.encoded(as: .pnm),
            try S.fixtureBytes("rgb16.ppm"), Array("P3\n2 2\n255\n1 2 3 4 5 6 7 8 9 10 11 12\n".utf8),
        ]
        var rng = SeededRandom(seed: 2024)
        var options = DecodeOptions.default
        options.maximumPixelCount = 1 << 20  // mutated sizes stay small
        for file in files {
            for _ in 0..<rounds {
                var bytes = file
                for _ in 0...(Int(rng.next() % 4)) {
                    let i = Int(rng.next() % UInt64(bytes.count))
                    switch rng.next() % 4 {
                    case 0: bytes[i] ^= UInt8(truncatingIfNeeded: 1 << (rng.next() % 8))
                    case 1: bytes[i] = UInt8(truncatingIfNeeded: rng.next())
                    case 2: bytes.removeSubrange(i..<min(bytes.count, i + Int(rng.next() % 16)))
                    default: bytes.insert(contentsOf: [0xFF, 0x00, 0x7F, 0x80][...(Int(rng.next() % 4))], at: i)
                    }
                    if bytes.isEmpty { bytes = [0] }
                }
                _ = try? PixelBuffer(encoded: bytes, name: "mutant", options: options)
            }
        }
    }

    /// Every codec seed file, the test fixtures in Fixtures/Codecs and the `seed-*` and
    /// `regression-*` files of the decoder corpora in Fuzz/corpus (png, jpeg, pnm, bmp), cut
    /// at every byte offset and with every byte flipped (XOR 0xFF, and XOR 0x01 for the low
    /// bit): each must decode or throw a `PixelFlowError`. Runs with `PIXELFLOW_CODEC_SWEEP` set (to any number); under
    /// `--sanitize=address` it also checks that no failure path leaks.
    func testEverySeedFileTruncatedAndFlipped() throws {
        guard ProcessInfo.processInfo.environment["PIXELFLOW_CODEC_SWEEP"] != nil else {
            throw XCTSkip("set PIXELFLOW_CODEC_SWEEP=1 to cut and flip every codec seed file")
        }
        let files = try Self.seedFiles()
        XCTAssertGreaterThan(files.count, 40, "the fixtures and the fuzz corpora were found")
        var options = DecodeOptions.default
        options.maximumPixelCount = 1 << 22  // flipped sizes stay small
        var decodes = 0
        for (path, bytes) in files {
            for n in 0..<bytes.count {
                Self.decodeOrThrow(Array(bytes[..<n]), path, options)
            }
            for i in 0..<bytes.count {
                for mask: UInt8 in [0xFF, 0x01] {
                    var flipped = bytes
                    flipped[i] ^= mask
                    Self.decodeOrThrow(flipped, path, options)
                }
            }
            decodes += 3 * bytes.count
        }
        print("codec sweep: \(files.count) files, \(decodes) decodes")
    }

    static func decodeOrThrow(
        _ bytes: [UInt8], _ path: String, _ options: DecodeOptions,
        file: StaticString = #filePath, line: UInt = #line
    ) {
        do {
            _ = try PixelBuffer(encoded: bytes, name: path, options: options)
        } catch is PixelFlowError {
        } catch {
            XCTFail("\(path): \(error) is not a PixelFlowError", file: file, line: line)
        }
    }

    /// The codec fixtures and the seeds and regression inputs of the decoder fuzz corpora
    /// (not the inputs a fuzzer added, which replaying the corpora covers), by path.
    static func seedFiles() throws -> [(String, [UInt8])] {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        let folders = ["Tests/PixelFlowTests/Fixtures/Codecs"] + ["png", "jpeg", "pnm", "bmp"].map { "Fuzz/corpus/" + $0 }
        var files: [(String, [UInt8])] = []
        for folder in folders {
            let url = root.appendingPathComponent(folder)
            for name in try FileManager.default.contentsOfDirectory(atPath: url.path).sorted()
            where !name.hasSuffix(".md") && !name.hasPrefix(".")
                && (!folder.hasPrefix("Fuzz") || name.hasPrefix("seed-") || name.hasPrefix("regression-"))
            {
                files.append((folder + "/" + name, [UInt8](try Data(contentsOf: url.appendingPathComponent(name)))))
            }
        }
        return files
    }
}
