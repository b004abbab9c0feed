import Foundation
import XCTest
@testable import PixelFlow
@testable import PixelFlowKernels
@testable import PixelFlowGraph
@testable import PixelFlowEngine

/// The GIF codec: fixtures written with Pillow 13 (Fixtures/GIF/make_fixtures.py), round
/// trips through the encoder, the animation writer, and hostile input.
final class GIFCodecTests: XCTestCase {
    private typealias S = CodecTestSupport

    static func fixturePath(_ name: String) -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/GIF/\(name)").path
    }

    static func fixture(_ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: fixturePath(name))))
    }

    /// Asserts equal RGBA; pixels transparent in both are equal whatever their color.
    private func assertSameRGBA(
        _ a: PixelBuffer, _ b: PixelBuffer, _ what: String,
        file: StaticString = #filePath, line: UInt = #line
    ) {
        XCTAssertEqual(a.width, b.width, what, file: file, line: line)
        XCTAssertEqual(a.height, b.height, what, file: file, line: line)
        guard a.width == b.width, a.height == b.height, a.format == .rgba8, b.format == .rgba8 else {
            XCTFail("\(what): \(a.format) vs \(b.format)", file: file, line: line)
            return
        }
        var bad = 0, first = ""
        for y in 0..<a.height {
            for x in 0..<a.width {
                let p = S.pixel(a, x, y), q = S.pixel(b, x, y)
                if p[3] == 0 && q[3] == 0 { continue }
                if p != q {
                    if bad == 0 { first = "(\(x), \(y)): \(p) vs \(q)" }
                    bad += 1
                }
            }
        }
        XCTAssertEqual(bad, 0, "\(what): \(bad) pixels differ, first \(first)", file: file, line: line)
    }

    /// Checks every frame of an animated fixture against its expected PNGs, and
    /// `decode(imageAt:)` against `frames()`.
    private func checkAnimation(_ name: String, frames count: Int, durations: [Double]? = nil) throws {
        let file = try ImageFile(contentsOfFile: Self.fixturePath(name + ".gif"))
        XCTAssertEqual(file.info.imageCount, count, name)
        XCTAssertEqual(file.info.isAnimated, count > 1, name)
        XCTAssertEqual(file.info.colorModel, "palette")
        XCTAssertEqual(file.info.bitsPerSample, 8)
        let frames = try file.frames()
        XCTAssertEqual(frames.count, count, name)
        for (i, frame) in frames.enumerated() {
            let expected = try PixelBuffer(contentsOfFile: Self.fixturePath("\(name)-\(i).png"))
            assertSameRGBA(frame.buffer, expected, "\(name) frame \(i)")
            assertSameRGBA(try file.decode(imageAt: i), expected, "\(name) decode(imageAt: \(i))")
        }
        if let durations { XCTAssertEqual(frames.map(\.duration), durations, name) }
    }

    // MARK: Fixtures

    func testStillAndTransparentStillMatchPillow() throws {
        let still = try PixelBuffer(contentsOfFile: Self.fixturePath("still.gif"))
        assertSameRGBA(still, try PixelBuffer(contentsOfFile: Self.fixturePath("still.png")), "still")
        let info = try ImageFile(contentsOfFile: Self.fixturePath("still.gif")).info
        XCTAssertEqual(
            info,
            ImageFileInfo(
                format: .gif, width: 20, height: 16, imageCount: 1, bitsPerSample: 8,
                colorModel: "palette", hasAlpha: false, isAnimated: false))
        let transparent = try PixelBuffer(contentsOfFile: Self.fixturePath("transparent.gif"))
        assertSameRGBA(transparent, try PixelBuffer(contentsOfFile: Self.fixturePath("transparent.png")), "transparent")
        XCTAssertTrue(try ImageFile(contentsOfFile: Self.fixturePath("transparent.gif")).info.hasAlpha)
        XCTAssertFalse(_Codec.isOpaque(transparent))
    }

    func testEveryDisposalMethodTransparencyOffsetsAndDelays() throws {
        try checkAnimation("animated-disposal", frames: 5, durations: [0.1, 0.2, 0.3, 0, 0.07])
        XCTAssertTrue(try ImageFile(contentsOfFile: Self.fixturePath("animated-disposal.gif")).info.hasAlpha)
    }

    func testLocalColorMapInterlacingClippingAndMissingMaps() throws {
        try checkAnimation("local-color-map", frames: 3)
        try checkAnimation("interlaced", frames: 2)
        try checkAnimation("clipped", frames: 3)
        try checkAnimation("no-color-map", frames: 1)
        try checkAnimation("zero-size-frame", frames: 3, durations: [0.1, 0.5, 0.1])
    }

    func testICCProfileAndXMPAreReadExactly() throws {
        let file = try ImageFile(contentsOfFile: Self.fixturePath("icc-xmp.gif"))
        XCTAssertEqual(file.metadata.iccProfile, try Self.fixture("profile.icc"))
        XCTAssertEqual(file.metadata.xmp, try Self.fixture("packet.xmp"))
        var raw = DecodeOptions.default
        raw.appliesColorProfile = false
        let pixels = try PixelBuffer(contentsOfFile: Self.fixturePath("icc-xmp.gif"), options: raw)
        assertSameRGBA(pixels, try PixelBuffer(contentsOfFile: Self.fixturePath("still.png")), "icc-xmp")
    }

    // MARK: Round trips

    /// An image of `colors` distinct colors (and alpha 0 where `transparent`).
    private func paletteImage(width: Int, height: Int, colors: Int, transparent: Bool, seed: UInt64) -> PixelBuffer {
        var rng = SeededRandom(seed: seed)
        let table = (0..<colors).map { _ in (0..<3).map { _ in UInt8(truncatingIfNeeded: rng.next()) } }
        var b = try! PixelBuffer(width: width, height: height, format: .rgba8)
        b.withUnsafeMutableRows { _, row in
            let p = row.assumingMemoryBound(to: UInt8.self)
            for x in 0..<width {
                let c = table[Int(rng.next() % UInt64(colors))]
                p[4 * x] = c[0]; p[4 * x + 1] = c[1]; p[4 * x + 2] = c[2]; p[4 * x + 3] = 255
                if transparent && rng.next() % 5 == 0 { p[4 * x] = 0; p[4 * x + 1] = 0; p[4 * x + 2] = 0; p[4 * x + 3] = 0 }
            }
        }
        return b
    }

    func testImagesOfAtMost256ColorsRoundTripExactly() throws {
        for quantizer in EncodeOptions.GIFQuantizer.allCases {
            for dithering in [false, true] {
                let options = EncodeOptions(gifQuantizer: quantizer, dithering: dithering)
                let opaque = paletteImage(width: 37, height: 23, colors: 256, transparent: false, seed: 4)
                let back = try PixelBuffer(encoded: try opaque.encoded(as: .gif, options: options))
                XCTAssertEqual(S.maximumDifference(back, opaque), 0, "\(quantizer) \(dithering)")
                let clear = paletteImage(width: 31, height: 17, colors: 255, transparent: true, seed: 5)
                let bytes = try clear.encoded(as: .gif, options: options)
                assertSameRGBA(try PixelBuffer(encoded: bytes), clear, "transparent \(quantizer)")
                XCTAssertTrue(try ImageFile(encoded: bytes).info.hasAlpha)
            }
        }
        // gray8 (256 grays at most) and rgba16 of 8-bit values come back as rgba8.
        let gray = S.gray8(width: 40, height: 9)
        let grayBack = try PixelBuffer(encoded: try gray.encoded(as: .gif))
        XCTAssertEqual(grayBack.format, .rgba8)
        for y in 0..<9 {
            for x in 0..<40 {
                let v = S.pixel(gray, x, y)[0]
                XCTAssertEqual(S.pixel(grayBack, x, y), [v, v, v, 255])
            }
        }
        let eight = paletteImage(width: 19, height: 11, colors: 200, transparent: true, seed: 6)
        let sixteen = eight.converted(to: .rgba16, colorEncoding: .sRGB, alphaMode: .straight)
        assertSameRGBA(try PixelBuffer(encoded: try sixteen.encoded(as: .gif)), eight, "rgba16")
    }

    func testManyColorsStayCloseAndEveryOptionIsHonored() throws {
        let image = S.smooth(width: 64, height: 48)
        for quantizer in EncodeOptions.GIFQuantizer.allCases {
            for count in [2, 16, 256] {
                let options = EncodeOptions(gifQuantizer: quantizer, dithering: false, maximumColorCount: count)
                let bytes = try image.encoded(as: .gif, options: options)
                let back = try PixelBuffer(encoded: bytes)
                var colors = Set<[Int]>()
                var squared = 0
                for y in 0..<48 {
                    for x in 0..<64 {
                        let p = S.pixel(back, x, y), q = S.pixel(image, x, y)
                        colors.insert(p)
                        for c in 0..<3 { squared += (p[c] - q[c]) * (p[c] - q[c]) }
                    }
                }
                XCTAssertLessThanOrEqual(colors.count, count, "\(quantizer) \(count)")
                // The color table's size field: 2^(n+1) >= count, the smallest such power.
                let tableSize = 2 << Int(bytes[10] & 7)
                XCTAssertLessThan(tableSize / 2, max(count, 2), "\(quantizer) \(count)")
                let mse = Double(squared) / Double(64 * 48 * 3)
                // Measured 11 and 12 (256 colors), 177 and 247 (16 colors).
                if count == 256 { XCTAssertLessThan(mse, 16, "\(quantizer)") }
                if count == 16 { XCTAssertLessThan(mse, 300, "\(quantizer)") }
            }
        }
    }

    func testEncoderOutputIsStable() throws {
        // A GIF PixelFlow wrote, committed: the encoder must keep writing the same bytes, and
        // make_fixtures.py checked that Pillow reads it as pixelflow-smooth.png, which is what
        // PixelFlow's decoder reads. PIXELFLOW_WRITE_GIF_FIXTURES=1 rewrites both.
        let image = S.smooth(width: 48, height: 32)
        let bytes = try image.encoded(as: .gif)
        XCTAssertEqual(try image.encoded(as: .gif), bytes)
        if ProcessInfo.processInfo.environment["PIXELFLOW_WRITE_GIF_FIXTURES"] == "1" {
            try Data(bytes).write(to: URL(fileURLWithPath: Self.fixturePath("pixelflow-smooth.gif")))
            try PixelBuffer(encoded: bytes).write(toFile: Self.fixturePath("pixelflow-smooth.png"), format: .png)
        }
        XCTAssertEqual(bytes, try Self.fixture("pixelflow-smooth.gif"))
        assertSameRGBA(
            try PixelBuffer(encoded: bytes),
            try PixelBuffer(contentsOfFile: Self.fixturePath("pixelflow-smooth.png")), "pixelflow-smooth")
        XCTAssertEqual(Array(bytes.prefix(6)), Array("GIF89a".utf8))
    }

    func testMetadataIsWritten() throws {
        let icc = try Self.fixture("profile.icc"), xmp = try Self.fixture("packet.xmp")
        let metadata = _EmbeddedMetadata(iccProfile: icc, exif: nil, xmp: xmp)
        let image = paletteImage(width: 8, height: 8, colors: 7, transparent: false, seed: 8)
        let bytes = try _GIFCodec.encode(image, quality: 90, name: "m.gif", options: .default, metadata: metadata)
        let file = try ImageFile(encoded: bytes)
        XCTAssertEqual(file.metadata.iccProfile, icc)
        XCTAssertEqual(file.metadata.xmp, xmp)
        let nul = _EmbeddedMetadata(iccProfile: nil, exif: nil, xmp: [60, 0, 62])
        S.assertThrows(.encodingFailed) {
            try _GIFCodec.encode(image, quality: 90, name: "m.gif", options: .default, metadata: nul)
        }
    }

    func testAnimationWriterRoundTrips() throws {
        let frames = (0..<3).map { i in
            ImageFrame(
                buffer: paletteImage(
                    width: 21, height: 13, colors: 100 + 50 * i, transparent: i == 1,
                    seed: UInt64(10 + i)),
                duration: [0.1, 0.25, 0][i])
        }
        let bytes = try _GIFCodec.encodeAnimation(frames, loopCount: 0)
        let file = try ImageFile(encoded: bytes)
        XCTAssertEqual(file.info.imageCount, 3)
        XCTAssertTrue(file.info.isAnimated)
        let back = try file.frames()
        XCTAssertEqual(back.map(\.duration), [0.1, 0.25, 0])
        for i in 0..<3 { assertSameRGBA(back[i].buffer, frames[i].buffer, "frame \(i)") }
        S.assertThrows(.invalidParameter) { try _GIFCodec.encodeAnimation([]) }
        S.assertThrows(.invalidParameter) {
            try _GIFCodec.encodeAnimation([
                frames[0], ImageFrame(buffer: S.rgba8(width: 3, height: 3, alpha: false), duration: 0),
            ])
        }
    }

    func testEncoderRejectsWhatGIFCannotHold() throws {
        let wide = try PixelBuffer(width: 65536, height: 1, format: .rgba8)
        S.assertThrows(.encodingFailed) { try wide.encoded(as: .gif) }
        let image = S.rgba8(width: 4, height: 4, alpha: false)
        S.assertThrows(.invalidParameter) { try image.encoded(as: .gif, options: EncodeOptions(maximumColorCount: 1)) }
        S.assertThrows(.invalidParameter) { try image.encoded(as: .gif, options: EncodeOptions(maximumColorCount: 257)) }
    }

    func testDecodingAndEncodingOnSeveralThreadsGiveTheSameResults() throws {
        // The shim has no global state and the quantizer runs on one thread: frames decoded
        // and files encoded at once on several threads equal those made alone.
        let bytes = try Self.fixture("animated-disposal.gif")
        let frames = try ImageFile(encoded: bytes).frames().map(\.buffer)
        let image = S.smooth(width: 48, height: 32)
        let expected = try Self.fixture("pixelflow-smooth.gif")
        /// Counts the threads that saw a difference; the lock guards `count`.
        final class Tally: @unchecked Sendable {
            let lock = NSLock()
            var count = 0
            func add() { lock.lock(); count += 1; lock.unlock() }
        }
        let mismatches = Tally()
        DispatchQueue.concurrentPerform(iterations: 8) { i in
            let same: Bool
            if i % 2 == 0 {
                same = (try? ImageFile(encoded: bytes).frames().map(\.buffer)) == frames
            } else {
                same = (try? image.encoded(as: .gif)) == expected
            }
            if !same { mismatches.add() }
        }
        XCTAssertEqual(mismatches.count, 0)
        XCTAssertFalse(try ImageFile(contentsOfFile: Self.fixturePath("local-color-map.gif")).info.hasAlpha)
    }

    // MARK: Bad input

    func testTruncatedAndCorruptFilesThrowNamingTheFile() throws {
        let bytes = try Self.fixture("animated-disposal.gif")
        for length in [1, 6, 10, 12, 13, 100, 500, 800, 1000, bytes.count - 2] {
            let cut = Array(bytes.prefix(length))
            do {
                _ = try ImageFile(encoded: cut, name: "cut.gif").frames()
                XCTFail("length \(length) decoded")
            } catch let error as PixelFlowError {
                XCTAssertTrue("\(error)".contains("cut.gif"), "\(error)")
            }
        }
        // Without its trailer the file still holds all its frames.
        XCTAssertEqual(try ImageFile(encoded: Array(bytes.dropLast())).frames().count, 5)
        // Flipped bytes: decoded or a PixelFlowError, never a crash.
        var rng = SeededRandom(seed: 77)
        for _ in 0..<300 {
            var bad = bytes
            for _ in 0..<3 { bad[Int(rng.next() % UInt64(bad.count - 6)) + 6] ^= UInt8(truncatingIfNeeded: rng.next() | 1) }
            do { _ = try ImageFile(encoded: bad, name: "bad.gif").frames() } catch is PixelFlowError {}
        }
        S.assertThrows(.decodingFailed) { try PixelBuffer(encoded: Array("GIF89a".utf8) + [1, 0, 1, 0, 0, 0, 0, 0x3B]) }
    }

    func testHugeScreenIsRefusedBeforeAllocation() throws {
        var bytes = try Self.fixture("still.gif")
        bytes[6] = 0xFF; bytes[7] = 0xFF; bytes[8] = 0xFF; bytes[9] = 0xFF
        S.assertThrows(.limitExceeded) { try PixelBuffer(encoded: bytes) }
        S.assertThrows(.limitExceeded) { try ImageFile(encoded: bytes) }
        var small = DecodeOptions.default
        small.maximumWidth = 19
        S.assertThrows(.limitExceeded) { try ImageFile(encoded: try Self.fixture("still.gif"), options: small) }
    }

    func testFrameCountsAndIndicesAreChecked() throws {
        let bytes = try Self.fixture("animated-disposal.gif")
        var four = DecodeOptions.default
        four.maximumImageCount = 4
        S.assertThrows(.limitExceeded) { try ImageFile(encoded: bytes, options: four) }
        let file = try ImageFile(encoded: bytes)
        S.assertThrows(.invalidParameter) { try file.decode(imageAt: 5) }
        S.assertThrows(.invalidParameter) { try file.decode(imageAt: -1) }
        var tight = DecodeOptions.default
        tight.maximumPixelCount = 20 * 16 * 4
        let limited = try ImageFile(encoded: bytes, options: tight)
        XCTAssertNoThrow(try limited.decode(imageAt: 4))
        S.assertThrows(.limitExceeded) { try limited.frames() }

        // 100,000 frames of one pixel (15 bytes each): stopped at the limit, not at the end.
        var many = Array(bytes.prefix(13 + 768))
        let frame: [UInt8] = [0x2C, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0x02, 0x02, 0x44, 0x01, 0x00]
        many.reserveCapacity(many.count + frame.count * 100_000 + 1)
        for _ in 0..<100_000 { many += frame }
        many.append(0x3B)
        let error = S.assertThrows(.limitExceeded) { try ImageFile(encoded: many, name: "many.gif") }
        if case let .limitExceeded(_, value, limit)? = error {
            XCTAssertEqual(value, 10_001)
            XCTAssertEqual(limit, 10_000)
        }
        var roomy = DecodeOptions.default
        roomy.maximumImageCount = 100_000
        XCTAssertEqual(try ImageFile(encoded: many, options: roomy).info.imageCount, 100_000)
    }
}
