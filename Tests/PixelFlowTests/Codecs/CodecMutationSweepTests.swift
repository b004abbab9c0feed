import Foundation
import XCTest
@testable import PixelFlow

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
        var rng = CodecTestRandom(seed: 2024)
        var options = DecodeOptions.default
        options.maximumPixelCount = 1 << 20                  // mutated sizes stay small
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
}
