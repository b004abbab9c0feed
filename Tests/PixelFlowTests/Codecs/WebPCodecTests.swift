import Foundation
import XCTest
@testable import PixelFlow
@testable import PixelFlowKernels
@testable import PixelFlowGraph
@testable import PixelFlowEngine

/// The WebP codec: fixtures written by Pillow 13 (its bundled libwebp 1.6, see
/// Fixtures/WebP/README.md), round trips through PixelFlow's encoder, metadata, animations
/// and hostile input.
final class WebPCodecTests: XCTestCase {
    typealias S = CodecTestSupport

    /// Lossy fixtures decode within this many levels of Pillow's decoding: both decoders are
    /// libwebp, but 1.2.4 (Debian) and 1.6 (Pillow) may round a level differently.
    static let lossyFixtureTolerance = 2

    static func path(_ name: String) -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/WebP/\(name)").path
    }

    static func bytes(_ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: path(name))))
    }

    /// Pillow's decoding of a fixture, saved as RGBA PNG.
    static func expected(_ name: String) throws -> PixelBuffer {
        try PixelBuffer(contentsOfFile: path(name))
    }

    /// Stored pixels, as the file holds them: no orientation, no color conversion.
    static let stored = DecodeOptions(applyOrientation: false, appliesColorProfile: false)

    /// `buffer` converted to `rgba8`, for comparing with decoded WebP.
    static func asRGBA8(_ buffer: PixelBuffer) -> PixelBuffer {
        buffer.format == .rgba8 ? buffer : buffer.converted(to: .rgba8, colorEncoding: .sRGB, alphaMode: .straight)
    }

    /// Asserts that `body` throws a `PixelFlowError` of kind `kind` whose message names `name`.
    static func assertThrowsNaming(
        _ kind: S.ErrorKind, _ name: String, file: StaticString = #filePath,
        line: UInt = #line, _ body: () throws -> Void
    ) {
        let error = S.assertThrows(kind, file: file, line: line, body)
        if let error {
            XCTAssertTrue(
                String(describing: error).contains(name), "\(error) does not name \(name)",
                file: file, line: line)
        }
    }

    // MARK: Fixtures

    func testLosslessFixturesDecodeExactly() throws {
        for name in ["lossless", "lossless-alpha"] {
            let decoded = try PixelBuffer(encoded: try Self.bytes("\(name).webp"), name: name)
            XCTAssertEqual(decoded.format, .rgba8)
            XCTAssertEqual(S.maximumDifference(decoded, try Self.expected("\(name).png")), 0, name)
        }
        // The pattern of make_fixtures.py, checked at a few pixels without Pillow's help.
        let alpha = try PixelBuffer(encoded: try Self.bytes("lossless-alpha.webp"))
        for (x, y) in [(0, 0), (39, 0), (7, 13), (39, 29)] {
            XCTAssertEqual(S.pixel(alpha, x, y), S.fixturePattern(x, y).map(Int.init) + [(8 * x + 5 * y) & 255])
        }
    }

    func testLossyFixturesDecodeWithinTolerance() throws {
        for name in ["lossy", "lossy-alpha"] {
            let decoded = try PixelBuffer(encoded: try Self.bytes("\(name).webp"), name: name)
            let expected = try Self.expected("\(name).png")
            XCTAssertEqual(decoded.width, 64)
            XCTAssertEqual(decoded.height, 48)
            XCTAssertLessThanOrEqual(S.maximumDifference(decoded, expected), Self.lossyFixtureTolerance, name)
        }
        // lossy-alpha.webp keeps its alpha plane losslessly (alpha_quality=100).
        let decoded = try PixelBuffer(encoded: try Self.bytes("lossy-alpha.webp"))
        for (x, y) in [(0, 0), (63, 0), (20, 31), (63, 47)] {
            XCTAssertEqual(S.pixel(decoded, x, y)[3], (8 * x + 5 * y) & 255)
        }
    }

    func testInspect() throws {
        let lossless = try ImageFile(contentsOfFile: Self.path("lossless.webp")).info
        XCTAssertEqual(
            lossless,
            ImageFileInfo(
                format: .webp, width: 40, height: 30, imageCount: 1, bitsPerSample: 8,
                colorModel: "rgb", hasAlpha: false, isAnimated: false))
        XCTAssertTrue(try ImageFile(contentsOfFile: Self.path("lossless-alpha.webp")).info.hasAlpha)
        XCTAssertTrue(try ImageFile(contentsOfFile: Self.path("lossy-alpha.webp")).info.hasAlpha)
        XCTAssertFalse(try ImageFile(contentsOfFile: Self.path("lossy.webp")).info.hasAlpha)
        let animated = try ImageFile(contentsOfFile: Self.path("animated.webp")).info
        XCTAssertEqual(animated.width, 48)
        XCTAssertEqual(animated.height, 32)
        XCTAssertEqual(animated.imageCount, 4)
        XCTAssertTrue(animated.isAnimated)
        XCTAssertTrue(animated.hasAlpha)
        XCTAssertEqual(animated.bitsPerSample, 8)
        XCTAssertEqual(animated.colorModel, "rgb")
    }

    // MARK: Animations

    /// animated.webp: 4 frames (100, 250, 40, 400 ms); frames 1-3 are sub-rectangles, frame 1
    /// blended, frames 2 and 3 not, frame 2 punching a transparent hole.
    func testAnimatedFramesMatchPillowsCompositing() throws {
        let file = try ImageFile(contentsOfFile: Self.path("animated.webp"))
        let frames = try file.frames()
        XCTAssertEqual(frames.map(\.duration), [0.1, 0.25, 0.04, 0.4])
        for (index, frame) in frames.enumerated() {
            XCTAssertEqual(S.maximumDifference(frame.buffer, try Self.expected("animated-\(index).png")), 0, "frame \(index)")
        }
        // decode(imageAt:) and DecodeOptions.imageIndex give the same composited canvas.
        XCTAssertEqual(S.maximumDifference(try file.decode(imageAt: 2), try Self.expected("animated-2.png")), 0)
        var options = DecodeOptions.default
        options.imageIndex = 3
        let third = try PixelBuffer(encoded: try Self.bytes("animated.webp"), options: options)
        XCTAssertEqual(S.maximumDifference(third, try Self.expected("animated-3.png")), 0)
        XCTAssertEqual(S.maximumDifference(try file.decode(), try Self.expected("animated-0.png")), 0)
    }

    func testImageIndexOutOfRange() throws {
        let animated = try ImageFile(contentsOfFile: Self.path("animated.webp"))
        Self.assertThrowsNaming(.invalidParameter, "animated.webp") { _ = try animated.decode(imageAt: 4) }
        Self.assertThrowsNaming(.invalidParameter, "animated.webp") { _ = try animated.decode(imageAt: -1) }
        let still = try ImageFile(contentsOfFile: Self.path("lossless.webp"))
        Self.assertThrowsNaming(.invalidParameter, "lossless.webp") { _ = try still.decode(imageAt: 1) }
        XCTAssertEqual(try still.frames().count, 1)
        XCTAssertEqual(try still.frames()[0].duration, 0)
    }

    func testFrameLimits() throws {
        let bytes = try Self.bytes("animated.webp")
        var options = DecodeOptions.default
        options.maximumImageCount = 3
        Self.assertThrowsNaming(.limitExceeded, "anim") { _ = try ImageFile(encoded: bytes, name: "anim", options: options) }
        Self.assertThrowsNaming(.limitExceeded, "anim") { _ = try PixelBuffer(encoded: bytes, name: "anim", options: options) }
        // Every frame is a whole canvas: 4 x 48 x 32 pixels in all.
        options = .default
        options.maximumPixelCount = 3 * 48 * 32
        let file = try ImageFile(encoded: bytes, name: "anim", options: options)
        XCTAssertNoThrow(try file.decode(imageAt: 3))
        Self.assertThrowsNaming(.limitExceeded, "anim") { _ = try file.frames() }
        options.maximumPixelCount = 4 * 48 * 32
        XCTAssertEqual(try ImageFile(encoded: bytes, name: "anim", options: options).frames().count, 4)
    }

    /// 100,000 ANMF chunks (the first of animated.webp repeated, then garbage): the count
    /// stops at the limit before libwebp parses anything.
    func testHundredThousandFramesStopEarly() throws {
        let animated = try Self.bytes("animated.webp")
        let chunks = Self.chunks(animated)
        let head = chunks.filter { ["VP8X", "ANIM"].contains($0.type) }
        let frame = chunks.first { $0.type == "ANMF" }!
        var body: [UInt8] = []
        for c in head { body += Self.chunk(c.type, c.payload) }
        let frameBytes = Self.chunk(frame.type, frame.payload)
        body.reserveCapacity(body.count + 100_000 * frameBytes.count)
        for _ in 0..<100_000 { body += frameBytes }
        body += Array(repeating: 0xEE, count: 64)
        let file = Self.riff(body)
        Self.assertThrowsNaming(.limitExceeded, "many.webp") { _ = try PixelBuffer(encoded: file, name: "many.webp") }
        Self.assertThrowsNaming(.limitExceeded, "many.webp") { _ = try ImageFile(encoded: file, name: "many.webp") }
    }

    // MARK: Metadata

    func testMetadataChunks() throws {
        let profile = try Self.bytes("profile.icc")
        let exif = try Self.bytes("exif.tiff")
        let xmp = try Self.bytes("metadata.xmp")
        for name in ["metadata.webp", "exif-prefix.webp"] {
            let file = try ImageFile(contentsOfFile: Self.path(name))
            XCTAssertEqual(file.metadata.iccProfile, profile, name)
            XCTAssertEqual(file.metadata.exif, exif, name)
            XCTAssertEqual(file.metadata.xmp, xmp, name)
            XCTAssertEqual(file.metadata.orientation, .right, name)
            XCTAssertEqual(Array(exif.prefix(4)), [0x4D, 0x4D, 0, 0x2A])
        }
        // Stored: 24x16 as Pillow decodes it; upright: turned 90 degrees clockwise.
        let bytes = try Self.bytes("metadata.webp")
        let stored = try PixelBuffer(encoded: bytes, options: Self.stored)
        XCTAssertEqual(S.maximumDifference(stored, try Self.expected("metadata.png")), 0)
        let upright = try PixelBuffer(encoded: bytes)
        XCTAssertEqual([upright.width, upright.height], [16, 24])
        XCTAssertEqual(S.maximumDifference(upright, stored.applyingOrientation(.right)), 0)
    }

    func testMetadataIsWrittenAndReadBack() throws {
        let profile = try Self.bytes("profile.icc")
        let exif = try Self.bytes("exif.tiff")
        let xmp = try Self.bytes("metadata.xmp")
        let options = EncodeOptions(lossless: true, metadata: ImageMetadata(exif: exif, xmp: xmp), keptMetadata: .all)
        let image = S.rgba8(width: 9, height: 7, alpha: true)
        let bytes = try _ImageCodecs.encode(
            image, as: .webp, quality: 90, options: options, name: "m.webp",
            profile: profile)
        let file = try ImageFile(encoded: bytes)
        XCTAssertEqual(file.metadata.iccProfile, profile)
        XCTAssertEqual(file.metadata.exif, EXIFOrientation.resettingOrientation(in: exif))
        XCTAssertEqual(file.metadata.orientation, .up)
        XCTAssertEqual(file.metadata.xmp, xmp)
        XCTAssertTrue(file.info.hasAlpha)
        XCTAssertEqual(S.maximumDifference(try file.decode(), image), 0)
        // Without metadata the file is a plain VP8L file, without a VP8X header.
        let plain = try image.encoded(as: .webp, options: EncodeOptions(lossless: true, colorProfile: .none))
        XCTAssertEqual(Array(plain[12..<16]), Array("VP8L".utf8))
        XCTAssertEqual(try ImageFile(encoded: plain).metadata, ImageMetadata())
    }

    // MARK: Round trips

    func testLosslessRoundTripsAreExact() throws {
        let lossless = EncodeOptions(lossless: true)
        let cases: [(label: String, image: PixelBuffer, opaque: Bool)] = [
            ("rgba8 opaque", S.rgba8(width: 33, height: 17, alpha: false), true),
            ("rgba8 alpha", S.rgba8(width: 33, height: 17, alpha: true), false),
            ("gray8", S.gray8(width: 21, height: 9), true),
            ("rgba16 alpha", S.rgba16(width: 12, height: 11, alpha: true), false),
            ("rgba16 opaque", S.rgba16(width: 12, height: 11, alpha: false), true),
        ]
        for (label, image, opaque) in cases {
            for effort in [0, 4, 9] {
                var options = lossless
                options.effort = effort
                let bytes = try image.encoded(as: .webp, quality: 75, options: options)
                let decoded = try PixelBuffer(encoded: bytes)
                XCTAssertEqual(decoded.format, .rgba8)
                // Exact for 8-bit input, including the RGB under alpha 0; 16-bit input is
                // written as its 8-bit conversion.
                XCTAssertEqual(S.maximumDifference(decoded, Self.asRGBA8(image)), 0, "\(label) effort \(effort)")
                XCTAssertEqual(try ImageFile(encoded: bytes).info.hasAlpha, !opaque, label)
            }
        }
    }

    func testLossyRoundTripsStayClose() throws {
        let smooth = S.smooth(width: 64, height: 48)
        // Without a profile the file is a simple lossy one ("VP8 "); with sRGB's, an extended one.
        let bytes = try smooth.encoded(as: .webp, quality: 90, options: EncodeOptions(colorProfile: .none))
        XCTAssertEqual(Array(bytes[12..<16]), Array("VP8 ".utf8))
        let withProfile = try smooth.encoded(as: .webp, quality: 90)
        XCTAssertEqual(Array(withProfile[12..<16]), Array("VP8X".utf8))
        XCTAssertEqual(try ImageFile(encoded: withProfile).metadata.iccProfile, ColorSpace.sRGB.iccProfile)
        let decoded = try PixelBuffer(encoded: bytes)
        // Measured 9 with libwebp 1.2.4 at quality 90 (4:2:0 chroma of a smooth gradient).
        XCTAssertLessThanOrEqual(S.maximumDifference(decoded, smooth), 12)
        XCTAssertFalse(try ImageFile(encoded: bytes).info.hasAlpha)

        // Alpha in a lossy file is compressed losslessly: exact where the color is not.
        var withAlpha = smooth
        withAlpha.withUnsafeMutableRows { y, row in
            let p = row.assumingMemoryBound(to: UInt8.self)
            for x in 0..<64 { p[4 * x + 3] = UInt8((8 * x + 5 * y) & 255) }
        }
        let alphaBytes = try withAlpha.encoded(as: .webp, quality: 90)
        let alphaDecoded = try PixelBuffer(encoded: alphaBytes)
        XCTAssertTrue(try ImageFile(encoded: alphaBytes).info.hasAlpha)
        for y in 0..<48 {
            for x in 0..<64 { XCTAssertEqual(S.pixel(alphaDecoded, x, y)[3], (8 * x + 5 * y) & 255) }
        }
        // Lower quality, smaller file.
        let small = try smooth.encoded(as: .webp, quality: 10, options: EncodeOptions(colorProfile: .none))
        XCTAssertLessThan(small.count, bytes.count)
        // Gray and 16-bit input take the same path as rgba8.
        let gray = S.gray8(width: 16, height: 16)
        XCTAssertEqual(try PixelBuffer(encoded: try gray.encoded(as: .webp, quality: 80)).format, .rgba8)
    }

    func testEncoderLimitsAndParameters() throws {
        let wide = try PixelBuffer(width: 16384, height: 1, format: .rgba8)
        let error = S.assertThrows(.encodingFailed) { try wide.encoded(as: .webp) }
        XCTAssertTrue(String(describing: error).contains("16383"))
        let tall = try PixelBuffer(width: 1, height: 16384, format: .gray8)
        S.assertThrows(.encodingFailed) { try tall.encoded(as: .webp, options: EncodeOptions(lossless: true)) }
        let edge = try PixelBuffer(width: 16383, height: 1, format: .rgba8)
        XCTAssertEqual(try PixelBuffer(encoded: try edge.encoded(as: .webp)).width, 16383)
        let image = S.rgba8(width: 4, height: 4, alpha: false)
        S.assertThrows(.invalidParameter) { try image.encoded(as: .webp, options: EncodeOptions(effort: 10)) }
        S.assertThrows(.invalidParameter) { try image.encoded(as: .webp, quality: 0) }
    }

    func testAnimationEncoderRoundTrip() throws {
        var frames: [ImageFrame] = []
        let base = S.rgba8(width: 30, height: 20, alpha: true, seed: 9)
        for (index, duration) in [0.08, 0.5, 0.02].enumerated() {
            var canvas = base
            // Each frame changes a different block, some of it transparent.
            canvas.withUnsafeMutableRows { y, row in
                guard (5 * index)..<(5 * index + 6) ~= y else { return }
                let p = row.assumingMemoryBound(to: UInt8.self)
                for x in (8 * index)..<(8 * index + 10) {
                    p[4 * x] = 250; p[4 * x + 1] = UInt8(40 * index); p[4 * x + 2] = 10
                    p[4 * x + 3] = index == 1 ? 0 : 200
                }
            }
            frames.append(ImageFrame(buffer: canvas, duration: duration))
        }
        let bytes = try _WebPCodec.encodeAnimation(
            frames, quality: 100, name: "a.webp",
            options: EncodeOptions(lossless: true))
        let file = try ImageFile(encoded: bytes)
        XCTAssertTrue(file.info.isAnimated)
        XCTAssertEqual(file.info.imageCount, 3)
        let decoded = try file.frames()
        XCTAssertEqual(decoded.map(\.duration), frames.map(\.duration))
        for (index, frame) in decoded.enumerated() {
            // libwebp may change the RGB of fully transparent pixels between frames; compare
            // them as transparent.
            XCTAssertEqual(Self.maximumVisibleDifference(frame.buffer, frames[index].buffer), 0, "frame \(index)")
        }
        S.assertThrows(.invalidParameter) {
            try _WebPCodec.encodeAnimation([], quality: 90, name: "a.webp", options: .default)
        }
        S.assertThrows(.invalidParameter) {
            try _WebPCodec.encodeAnimation(
                [frames[0], ImageFrame(buffer: S.rgba8(width: 3, height: 3, alpha: false), duration: 1)],
                quality: 90, name: "a.webp", options: .default)
        }
    }

    /// The largest channel difference, counting pixels with alpha 0 in both as equal.
    static func maximumVisibleDifference(_ a: PixelBuffer, _ b: PixelBuffer) -> Int {
        var worst = 0
        for y in 0..<a.height {
            for x in 0..<a.width {
                let p = S.pixel(a, x, y), q = S.pixel(b, x, y)
                if p[3] == 0 && q[3] == 0 { continue }
                for (u, v) in zip(p, q) { worst = max(worst, abs(u - v)) }
            }
        }
        return worst
    }

    func testConcurrentDecodes() throws {
        let bytes = try Self.bytes("animated.webp")
        let expected = try Self.expected("animated-3.png")
        let failures = LockedCounter()
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            guard let frames = try? ImageFile(encoded: bytes).frames(),
                S.maximumDifference(frames[3].buffer, expected) == 0
            else { failures.increment(); return }
        }
        XCTAssertEqual(failures.value, 0)
    }

    // MARK: Bad input

    func testTruncatedFilesThrow() throws {
        for name in ["lossy.webp", "lossless-alpha.webp", "animated.webp", "metadata.webp"] {
            let bytes = try Self.bytes(name)
            var lengths = Set([1, 4, 11, 12, 16, 20, 30, 40, bytes.count / 2, bytes.count - 1])
            lengths.formUnion(stride(from: 0, to: bytes.count, by: max(1, bytes.count / 25)))
            for length in lengths.sorted() where length < bytes.count {
                let cut = Array(bytes.prefix(length))
                do {
                    _ = try PixelBuffer(encoded: cut, name: name)
                    XCTFail("\(name) cut at \(length) decoded")
                } catch let error as PixelFlowError {
                    XCTAssertTrue(String(describing: error).contains(name), "\(error)")
                }
                XCTAssertThrowsError(try ImageFile(encoded: cut, name: name).frames())
            }
        }
    }

    func testCorruptBytesNeverCrash() throws {
        for name in ["lossy.webp", "lossless-alpha.webp", "animated.webp", "metadata.webp"] {
            let bytes = try Self.bytes(name)
            var rng = SeededRandom(seed: 7)
            for _ in 0..<150 {
                var corrupt = bytes
                for _ in 0..<Int.random(in: 1...4, using: &rng) {
                    let at = Int.random(in: 12..<bytes.count, using: &rng)
                    corrupt[at] = UInt8.random(in: 0...255, using: &rng)
                }
                // Decoding may succeed (a changed bit of entropy-coded data is still data);
                // any failure is a PixelFlowError naming the file.
                do {
                    _ = try ImageFile(encoded: corrupt, name: name).frames()
                    _ = try PixelBuffer(encoded: corrupt, name: name)
                } catch let error as PixelFlowError {
                    XCTAssertTrue(String(describing: error).contains(name), "\(error)")
                }
            }
        }
    }

    func testHugeDeclaredSizesThrowLimitExceeded() throws {
        // VP8X canvas of 16384 x 16384 (268 M pixels), the rest garbage.
        var vp8x: [UInt8] = [0x10, 0, 0, 0]
        vp8x._appendLE24(16383); vp8x._appendLE24(16383)
        let canvas = Self.riff(Self.chunk("VP8X", vp8x) + Array(repeating: 0xAB, count: 40))
        Self.assertThrowsNaming(.limitExceeded, "canvas.webp") { _ = try PixelBuffer(encoded: canvas, name: "canvas.webp") }
        Self.assertThrowsNaming(.limitExceeded, "canvas.webp") { _ = try ImageFile(encoded: canvas, name: "canvas.webp") }

        // A simple lossless file whose VP8L header declares 16384 x 16384, then garbage.
        let bits = UInt32(16383) | UInt32(16383) << 14 | 1 << 28
        let vp8l: [UInt8] = [0x2F, UInt8(bits & 255), UInt8(bits >> 8 & 255), UInt8(bits >> 16 & 255), UInt8(bits >> 24)]
        let simple = Self.riff(Self.chunk("VP8L", vp8l + Array(repeating: 0x55, count: 64)))
        Self.assertThrowsNaming(.limitExceeded, "simple.webp") { _ = try PixelBuffer(encoded: simple, name: "simple.webp") }

        // Side limits of DecodeOptions on a valid file.
        var options = DecodeOptions.default
        options.maximumWidth = 39
        Self.assertThrowsNaming(.limitExceeded, "lossless.webp") {
            _ = try PixelBuffer(encoded: try Self.bytes("lossless.webp"), name: "lossless.webp", options: options)
        }
    }

    func testMalformedContainersThrowDecodingFailed() throws {
        let bytes = try Self.bytes("lossless.webp")
        // RIFF size larger than the file.
        var longer = bytes
        longer[4] = 0xFF
        Self.assertThrowsNaming(.decodingFailed, "x.webp") { _ = try PixelBuffer(encoded: longer, name: "x.webp") }
        // A chunk size running past the RIFF end.
        var chunkTooLong = bytes
        chunkTooLong[16] = 0xF0
        Self.assertThrowsNaming(.decodingFailed, "x.webp") { _ = try PixelBuffer(encoded: chunkTooLong, name: "x.webp") }
        // An empty container, and one with an unknown chunk only.
        Self.assertThrowsNaming(.decodingFailed, "x.webp") { _ = try PixelBuffer(encoded: Self.riff([]), name: "x.webp") }
        let unknown = Self.riff(Self.chunk("ABCD", [1, 2, 3]))
        Self.assertThrowsNaming(.decodingFailed, "x.webp") { _ = try ImageFile(encoded: unknown, name: "x.webp") }
    }

    // MARK: RIFF helpers

    static func chunk(_ type: String, _ payload: [UInt8]) -> [UInt8] {
        var out = Array(type.utf8)
        out._appendLE32(payload.count)
        out += payload
        if payload.count % 2 == 1 { out.append(0) }
        return out
    }

    static func riff(_ body: [UInt8]) -> [UInt8] {
        var out = Array("RIFF".utf8)
        out._appendLE32(4 + body.count)
        return out + Array("WEBP".utf8) + body
    }

    static func chunks(_ file: [UInt8]) -> [(type: String, payload: [UInt8])] {
        var out: [(String, [UInt8])] = []
        var offset = 12
        while offset + 8 <= file.count {
            let size = file._le32(offset + 4)
            out.append(
                (
                    String(decoding: file[offset..<(offset + 4)], as: UTF8.self),
                    Array(file[(offset + 8)..<min(file.count, offset + 8 + size)])
                ))
            offset += 8 + size + (size & 1)
        }
        return out
    }
}

/// A counter shared by concurrent test iterations.
private final class LockedCounter: @unchecked Sendable {
    // Every access holds `lock`.
    private let lock = NSLock()
    private var count = 0
    func increment() { lock.lock(); count += 1; lock.unlock() }
    var value: Int { lock.lock(); defer { lock.unlock() }; return count }
}

extension [UInt8] {
    fileprivate mutating func _appendLE24(_ v: Int) {
        append(UInt8(truncatingIfNeeded: v)); append(UInt8(truncatingIfNeeded: v >> 8))
        append(UInt8(truncatingIfNeeded: v >> 16))
    }
}
