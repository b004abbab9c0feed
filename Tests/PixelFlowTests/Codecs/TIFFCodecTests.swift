import Foundation
import XCTest
@testable import PixelFlow
@testable import PixelFlowKernels
@testable import PixelFlowGraph
@testable import PixelFlowEngine

/// The TIFF codec: fixtures written by tifffile and Pillow (Fixtures/TIFF/make_fixtures.py),
/// round trips through every layout and compression the encoder writes, metadata, pages,
/// and hostile input.
final class TIFFCodecTests: XCTestCase {
    // MARK: - Fixtures

    static func fixturePath(_ name: String) -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/TIFF/\(name)").path
    }

    static func fixture(_ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: fixturePath(name))))
    }

    /// The rows of `buffer` without padding, 16-bit values little-endian (the layout of the
    /// fixtures' `.raw` files).
    static func packed(_ buffer: PixelBuffer) -> [UInt8] {
        var out: [UInt8] = []
        let rowBytes = buffer.width * buffer.format.bytesPerPixel
        buffer.withUnsafeRows { _, row in
            let p = row.assumingMemoryBound(to: UInt8.self)
            if buffer.format == .rgba16 {
                let q = row.assumingMemoryBound(to: UInt16.self)
                for i in 0..<(rowBytes / 2) { out._appendLE16(Int(q[i])) }
            } else {
                out.append(contentsOf: UnsafeBufferPointer(start: p, count: rowBytes))
            }
        }
        return out
    }

    /// Decodes fixture `name` as stored and compares it with `name.raw` (or `expected.raw`).
    func assertFixture(
        _ name: String, format: PixelFormat, width: Int = 33, height: Int = 21,
        tolerance: Int = 0, cmyk: Bool = false, expected: String? = nil,
        options: DecodeOptions = .default, file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let decoded = try _TIFFCodec.decode(try Self.fixture("\(name).tif"), name: name, options: options)
        XCTAssertEqual(decoded.buffer.format, format, name, file: file, line: line)
        XCTAssertEqual(decoded.buffer.width, width, name, file: file, line: line)
        XCTAssertEqual(decoded.buffer.height, height, name, file: file, line: line)
        XCTAssertEqual(decoded.isCMYK, cmyk, name, file: file, line: line)
        let want = try Self.fixture("\(expected ?? name).raw")
        let got = Self.packed(decoded.buffer)
        XCTAssertEqual(got.count, want.count, name, file: file, line: line)
        guard got.count == want.count else { return }
        var worst = 0
        if format == .rgba16 {
            for i in stride(from: 0, to: got.count, by: 2) {
                worst = max(worst, abs(got._le16(i) - want._le16(i)))
            }
        } else {
            for i in 0..<got.count { worst = max(worst, abs(Int(got[i]) - Int(want[i]))) }
        }
        XCTAssertLessThanOrEqual(worst, tolerance, "\(name): largest difference", file: file, line: line)
    }

    func testGrayAndRGBFixtures() throws {
        try assertFixture("gray8", format: .gray8)
        try assertFixture("gray16", format: .rgba16)
        try assertFixture("gray_alpha8", format: .rgba8)
        try assertFixture("gray_alpha16", format: .rgba16)
        try assertFixture("rgb8", format: .rgba8)
        try assertFixture("rgb16", format: .rgba16)
        try assertFixture("rgba8", format: .rgba8)
        try assertFixture("rgba16", format: .rgba16)
        try assertFixture("rgb16_bigendian", format: .rgba16)
        try assertFixture("gray_alpha8_bigendian", format: .rgba8)
    }

    func testCompressionsStripsTilesAndPlanes() throws {
        try assertFixture("rgb8_lzw", format: .rgba8)
        try assertFixture("rgb8_deflate", format: .rgba8)
        try assertFixture("rgb8_packbits", format: .rgba8)
        try assertFixture("rgb8_tiled", format: .rgba8)
        try assertFixture("rgba8_planar", format: .rgba8)
        try assertFixture("rgb16_tiled_planar", format: .rgba16)
    }

    func testAssociatedAlphaIsUnpremultiplied() throws {
        try assertFixture("rgba8_associated", format: .rgba8)
    }

    func testLowBitDepthsAndMinIsWhite() throws {
        try assertFixture("bilevel", format: .gray8)
        try assertFixture("bilevel_miniswhite", format: .gray8)
        try assertFixture("gray2", format: .gray8)
        try assertFixture("gray4", format: .gray8)
        try assertFixture("gray8_miniswhite", format: .gray8)
    }

    func testPalettes() throws {
        try assertFixture("palette2", format: .rgba8)
        try assertFixture("palette4", format: .rgba8)
        try assertFixture("palette8", format: .rgba8)
        try assertFixture("palette_pillow", format: .rgba8)
    }

    func testCMYKComesBackRaw() throws {
        try assertFixture("cmyk8", format: .rgba8, cmyk: true)
        try assertFixture("cmyk16", format: .rgba16, cmyk: true)
        // The public API converts it to RGB.
        let rgb = try PixelBuffer(encoded: try Self.fixture("cmyk8.tif"))
        XCTAssertEqual(rgb.format, .rgba8)
        XCTAssertEqual(rgb.width, 33)
    }

    /// JPEG: the expected pixels are Pillow's decode (the same libjpeg, so close to exact).
    func testJPEGCompressedFixtures() throws {
        try assertFixture("rgb8_jpeg", format: .rgba8, tolerance: 2)
        try assertFixture("gray8_jpeg", format: .gray8, tolerance: 2)
        try assertFixture("rgb8_jpeg_ycbcr", format: .rgba8, tolerance: 2)
    }

    /// YCbCr without JPEG goes through libtiff's RGBA interface; Pillow uses the same one.
    func testUncompressedYCbCrThroughRGBAInterface() throws {
        try assertFixture("ycbcr_uncompressed", format: .rgba8, tolerance: 2)
        try assertFixture("ycbcr_orientation3", format: .rgba8, tolerance: 2, expected: "ycbcr_uncompressed")
        XCTAssertEqual(try ImageFile(contentsOfFile: Self.fixturePath("ycbcr_orientation3.tif")).metadata.orientation, .down)
    }

    func testInspect() throws {
        func info(_ name: String) throws -> ImageFileInfo { try ImageFile(contentsOfFile: Self.fixturePath(name)).info }
        let gray = try info("gray8.tif")
        XCTAssertEqual([gray.width, gray.height, gray.bitsPerSample, gray.imageCount], [33, 21, 8, 1])
        XCTAssertEqual(gray.format, .tiff)
        XCTAssertEqual(gray.colorModel, "gray")
        XCTAssertFalse(gray.hasAlpha)
        let rgba16 = try info("rgba16.tif")
        XCTAssertEqual(rgba16.colorModel, "rgb")
        XCTAssertEqual(rgba16.bitsPerSample, 16)
        XCTAssertTrue(rgba16.hasAlpha)
        XCTAssertEqual(try info("palette4.tif").colorModel, "palette")
        XCTAssertEqual(try info("palette4.tif").bitsPerSample, 4)
        XCTAssertEqual(try info("cmyk8.tif").colorModel, "cmyk")
        XCTAssertEqual(try info("rgb8_jpeg_ycbcr.tif").colorModel, "ycbcr")
        XCTAssertEqual(try info("bilevel.tif").bitsPerSample, 1)
        let pages = try info("multipage.tif")
        XCTAssertEqual([pages.imageCount, pages.width, pages.height], [3, 20, 10])
        XCTAssertFalse(pages.isAnimated)
    }

    // MARK: - Metadata

    func testICCProfileXMPAndOrientation() throws {
        let profile = try Self.fixture("profile.icc"), xmp = try Self.fixture("metadata.xmp")
        let file = try ImageFile(contentsOfFile: Self.fixturePath("metadata.tif"))
        XCTAssertEqual(file.metadata.iccProfile, profile)
        XCTAssertEqual(file.metadata.xmp, xmp)
        XCTAssertEqual(file.metadata.orientation, .right)
        XCTAssertNil(file.metadata.exif)
        try assertFixture("metadata", format: .rgba8, width: 12, height: 8)
        // Orientation 6 applied by the dispatcher: 12 x 8 as stored, 8 x 12 upright.
        let upright = try file.decode()
        XCTAssertEqual([upright.width, upright.height], [8, 12])
        var asStored = DecodeOptions.default
        asStored.applyOrientation = false
        let stored = try PixelBuffer(encoded: try Self.fixture("metadata.tif"), options: asStored)
        XCTAssertEqual([stored.width, stored.height], [12, 8])
    }

    // MARK: - Pages

    func testPages() throws {
        let file = try ImageFile(contentsOfFile: Self.fixturePath("multipage.tif"))
        let frames = try file.frames()
        XCTAssertEqual(frames.map { [$0.buffer.width, $0.buffer.height] }, [[20, 10], [16, 16], [8, 12]])
        XCTAssertEqual(frames.map(\.duration), [0, 0, 0])
        var options = DecodeOptions.default
        for (index, (format, width, height)) in [(PixelFormat.gray8, 20, 10), (.rgba8, 16, 16), (.rgba8, 8, 12)].enumerated() {
            options.imageIndex = index
            try assertFixture(
                "multipage", format: format, width: width, height: height,
                expected: "multipage.\(index)", options: options)
        }
        XCTAssertEqual(try file.decode(imageAt: 2).width, 8)
        let error = CodecTestSupport.assertThrows(.invalidParameter) { try file.decode(imageAt: 3) }
        XCTAssertTrue("\(String(describing: error))".contains("imageIndex"))
        CodecTestSupport.assertThrows(.invalidParameter) { try file.decode(imageAt: -1) }
    }

    func testPageLimits() throws {
        let bytes = try Self.fixture("multipage.tif")
        var options = DecodeOptions.default
        options.maximumImageCount = 2
        CodecTestSupport.assertThrows(.limitExceeded) { try ImageFile(encoded: bytes, name: "pages.tif", options: options) }
        CodecTestSupport.assertThrows(.limitExceeded) { try PixelBuffer(encoded: bytes, options: options) }
        // 200 + 256 + 96 pixels: each page fits 300, all three do not.
        options = DecodeOptions.default
        options.maximumPixelCount = 300
        let file = try ImageFile(encoded: bytes, name: "pages.tif", options: options)
        XCTAssertEqual(try file.decode(imageAt: 1).width, 16)
        let error = CodecTestSupport.assertThrows(.limitExceeded) { try file.frames() }
        XCTAssertTrue("\(String(describing: error))".contains("pages.tif"))
    }

    /// 100_000 pages stop at the limit, fast.
    func testManyPagesStopAtTheLimit() throws {
        let bytes = Self.makeTIFF(width: 1, height: 1, pages: 100_000)
        var options = DecodeOptions.default
        options.maximumImageCount = 50
        CodecTestSupport.assertThrows(.limitExceeded) { try ImageFile(encoded: bytes, name: "many.tif", options: options) }
        CodecTestSupport.assertThrows(.limitExceeded) { try PixelBuffer(encoded: bytes, name: "many.tif") }
    }

    /// A directory whose next-IFD offset points at itself neither hangs nor crashes.
    func testDirectoryLoopEnds() throws {
        let bytes = Self.makeTIFF(width: 2, height: 2, pages: 1, loop: true)
        do {
            let file = try ImageFile(encoded: bytes, name: "loop.tif")
            XCTAssertLessThanOrEqual(file.info.imageCount, 2)
            _ = try file.frames()
        } catch let error as PixelFlowError {
            XCTAssertTrue("\(error)".contains("loop.tif"))
        }
    }

    // MARK: - Round trips

    func testLosslessRoundTrips() throws {
        let sources: [(String, PixelBuffer)] = [
            ("gray8", CodecTestSupport.gray8(width: 37, height: 23)),
            ("rgb8", CodecTestSupport.rgba8(width: 37, height: 23, alpha: false)),
            ("rgba8", CodecTestSupport.rgba8(width: 37, height: 23, alpha: true)),
            ("rgb16", CodecTestSupport.rgba16(width: 37, height: 23, alpha: false)),
            ("rgba16", CodecTestSupport.rgba16(width: 37, height: 23, alpha: true)),
        ]
        for compression in [EncodeOptions.TIFFCompression.none, .lzw, .deflate, .packBits] {
            for (label, source) in sources {
                let bytes = try source.encoded(as: .tiff, options: EncodeOptions(tiffCompression: compression))
                let back = try PixelBuffer(encoded: bytes)
                XCTAssertEqual(back.format, source.format, "\(label) \(compression)")
                XCTAssertEqual(Self.packed(back), Self.packed(source), "\(label) \(compression)")
                let info = try ImageFile(encoded: bytes).info
                XCTAssertEqual(info.hasAlpha, label.hasPrefix("rgba"), "\(label) \(compression)")
                XCTAssertEqual(info.bitsPerSample, label.hasSuffix("16") ? 16 : 8)
            }
        }
    }

    /// A tall image spans several strips of about 64 KiB.
    func testManyStrips() throws {
        let source = CodecTestSupport.rgba8(width: 300, height: 200, alpha: true)
        for compression in [EncodeOptions.TIFFCompression.none, .lzw] {
            let bytes = try source.encoded(as: .tiff, options: EncodeOptions(tiffCompression: compression))
            XCTAssertEqual(Self.packed(try PixelBuffer(encoded: bytes)), Self.packed(source))
        }
    }

    /// JPEG at quality 90 keeps a smooth gradient within a few levels.
    func testJPEGRoundTrip() throws {
        let smooth = CodecTestSupport.smooth(width: 64, height: 48)
        let bytes = try smooth.encoded(as: .tiff, quality: 90, options: EncodeOptions(tiffCompression: .jpeg))
        XCTAssertEqual(try ImageFile(encoded: bytes).info.colorModel, "ycbcr")
        let back = try PixelBuffer(encoded: bytes)
        XCTAssertLessThanOrEqual(CodecTestSupport.maximumDifference(back, smooth), 12)
        let gray = smooth.converted(to: .gray8)
        let grayBack = try PixelBuffer(
            encoded: try gray.encoded(
                as: .tiff, quality: 90,
                options: EncodeOptions(tiffCompression: .jpeg)))
        XCTAssertLessThanOrEqual(CodecTestSupport.maximumDifference(grayBack, gray), 8)
        let withAlpha = CodecTestSupport.rgba8(width: 16, height: 16, alpha: true)
        let alphaBack = try PixelBuffer(encoded: try withAlpha.encoded(as: .tiff, options: EncodeOptions(tiffCompression: .jpeg)))
        XCTAssertEqual(alphaBack.width, 16)
        CodecTestSupport.assertThrows(.invalidParameter) {
            try CodecTestSupport.rgba16(width: 8, height: 8, alpha: false)
                .encoded(as: .tiff, options: EncodeOptions(tiffCompression: .jpeg))
        }
    }

    func testMetadataRoundTrip() throws {
        let profile = try Self.fixture("profile.icc"), xmp = try Self.fixture("metadata.xmp")
        let source = CodecTestSupport.rgba8(width: 9, height: 7, alpha: false)
        let bytes = try _TIFFCodec.encode(
            source, quality: 90, name: "m.tif", options: .default,
            metadata: _EmbeddedMetadata(iccProfile: profile, exif: nil, xmp: xmp))
        let file = try ImageFile(encoded: bytes)
        XCTAssertEqual(file.metadata.iccProfile, profile)
        XCTAssertEqual(file.metadata.xmp, xmp)
        XCTAssertEqual(file.metadata.orientation, .up)
        // Through the public API: XMP kept when asked, the sRGB profile written by default.
        var options = EncodeOptions.default
        options.metadata = ImageMetadata(xmp: xmp)
        options.keptMetadata = .xmp
        let public_ = try ImageFile(encoded: try source.encoded(as: .tiff, options: options))
        XCTAssertEqual(public_.metadata.xmp, xmp)
        let none = try ImageFile(encoded: try source.encoded(as: .tiff, options: EncodeOptions(colorProfile: .none)))
        XCTAssertNil(none.metadata.iccProfile)
        XCTAssertNil(none.metadata.xmp)
    }

    /// Decodes on several threads at once give the same pixels (the shim keeps no global
    /// state; each libtiff handle has its own error handlers).
    func testConcurrentDecodesAgree() throws {
        let names = ["rgb8_lzw", "rgb8_tiled", "rgb8_jpeg_ycbcr", "palette4", "ycbcr_uncompressed", "rgba16"]
        let files = try names.map { try Self.fixture("\($0).tif") }
        let reference = try files.map { Self.packed(try PixelBuffer(encoded: $0)) }
        let results = Results()
        DispatchQueue.concurrentPerform(iterations: 24) { i in
            // A corrupt file among them makes error handlers run concurrently too.
            var bad = files[i % files.count]
            bad[bad.count / 2] ^= 0x5A
            _ = try? PixelBuffer(encoded: bad)
            results.set(i, (try? Self.packed(PixelBuffer(encoded: files[i % files.count]))) ?? [])
        }
        for i in 0..<24 { XCTAssertEqual(results.get(i), reference[i % files.count], names[i % files.count]) }
    }

    /// Pixels collected from several threads; the lock makes the shared dictionary safe,
    /// hence `@unchecked Sendable`.
    final class Results: @unchecked Sendable {
        private let lock = NSLock()
        private var values: [Int: [UInt8]] = [:]
        func set(_ i: Int, _ value: [UInt8]) { lock.withLock { values[i] = value } }
        func get(_ i: Int) -> [UInt8]? { lock.withLock { values[i] } }
    }

    // MARK: - Bad input

    func testTruncatedFilesThrow() throws {
        for name in ["rgb8_lzw", "rgb8_tiled", "rgb8_jpeg_ycbcr", "multipage", "palette4", "gray16"] {
            let bytes = try Self.fixture("\(name).tif")
            for length in [4, 8, 9, 20, bytes.count / 3, bytes.count / 2, bytes.count - 200, bytes.count - 1] where length > 0 {
                do {
                    _ = try PixelBuffer(encoded: Array(bytes.prefix(length)), name: "cut.tif")
                    // Only the last bytes may be metadata the pixels do not need.
                    XCTAssertGreaterThan(length, bytes.count - 300, "\(name) cut at \(length) decoded")
                } catch let error as PixelFlowError {
                    XCTAssertTrue("\(error)".contains("cut.tif"), "\(error)")
                }
            }
        }
    }

    /// Every byte of the header and first directory overwritten, one at a time: each decode
    /// returns or throws a PixelFlowError.
    func testCorruptedBytesNeverCrash() throws {
        for name in ["rgb8_lzw", "rgb8_tiled", "palette8", "rgb8_jpeg_ycbcr"] {
            let bytes = try Self.fixture("\(name).tif")
            var rng = SeededRandom(seed: 7)
            for _ in 0..<300 {
                var bad = bytes
                let i = Int(rng.next() % UInt64(bytes.count))
                bad[i] = UInt8(truncatingIfNeeded: rng.next())
                do {
                    let file = try ImageFile(encoded: bad, name: "bad.tif")
                    _ = try file.frames()
                } catch let error as PixelFlowError {
                    XCTAssertTrue("\(error)".contains("bad.tif"), "\(error)")
                }
            }
        }
    }

    func testHugeHeaderThrowsLimitExceeded() throws {
        let bytes = Self.makeTIFF(width: 1_000_000, height: 1_000_000, pages: 1)
        CodecTestSupport.assertThrows(.limitExceeded) { try PixelBuffer(encoded: bytes, name: "huge.tif") }
        CodecTestSupport.assertThrows(.limitExceeded) { try ImageFile(encoded: bytes, name: "huge.tif") }
        var options = DecodeOptions.default
        options.maximumPixelCount = 100
        CodecTestSupport.assertThrows(.limitExceeded) {
            try PixelBuffer(encoded: Self.makeTIFF(width: 20, height: 20, pages: 1), options: options)
        }
    }

    /// Tiles larger than the limits allow are refused before a tile buffer is allocated.
    func testHugeTileThrowsLimitExceeded() throws {
        var options = DecodeOptions.default
        options.maximumPixelCount = 1000
        let bytes = Self.makeTIFF(width: 16, height: 16, pages: 1, tile: 4096)
        let error = CodecTestSupport.assertThrows(.limitExceeded) {
            try PixelBuffer(encoded: bytes, name: "tile.tif", options: options)
        }
        XCTAssertTrue("\(String(describing: error))".contains("tile"))
    }

    func testFloatingPointIsUnsupported() throws {
        var bytes = Self.makeTIFF(width: 2, height: 2, pages: 1, bitsPerSample: 32, sampleFormat: 3)
        bytes += [UInt8](repeating: 0, count: 16)
        let error = CodecTestSupport.assertThrows(.unsupportedFormat) { try PixelBuffer(encoded: bytes, name: "f.tif") }
        XCTAssertTrue("\(String(describing: error))".contains("floating-point"))
    }

    // MARK: - A small TIFF writer for hostile files

    /// A little-endian TIFF of `pages` 8-bit gray directories (or `bitsPerSample` with
    /// `sampleFormat`) that all share one strip (or tile, `tile` pixels square) of zeros;
    /// with `loop`, the last directory's next offset points at the first.
    static func makeTIFF(
        width: Int, height: Int, pages: Int, tile: Int? = nil, loop: Bool = false,
        bitsPerSample: Int = 8, sampleFormat: Int = 1
    ) -> [UInt8] {
        var out: [UInt8] = Array("II".utf8) + [42, 0]
        out._appendLE32(8)
        let dataOffset = 8
        let entries: [(tag: Int, type: Int, value: Int)] = {
            var e: [(Int, Int, Int)] = [(256, 4, width), (257, 4, height), (258, 3, bitsPerSample), (259, 3, 1), (262, 3, 1)]
            if let tile {
                e += [(277, 3, 1), (322, 4, tile), (323, 4, tile), (324, 4, dataOffset), (325, 4, 16)]
            } else {
                e += [(273, 4, dataOffset), (277, 3, 1), (278, 4, height), (279, 4, 16)]
            }
            e.append((339, 3, sampleFormat))
            return e.sorted { $0.0 < $1.0 }
        }()
        let ifdSize = 2 + 12 * entries.count + 4
        // The 16 bytes of "data" are the header and the start of the first directory: the
        // pixels do not matter, only that the offsets are inside the file.
        for page in 0..<pages {
            let start = out.count
            out._appendLE16(entries.count)
            for entry in entries {
                out._appendLE16(entry.tag)
                out._appendLE16(entry.type)
                out._appendLE32(1)
                if entry.type == 3 { out._appendLE16(entry.value); out._appendLE16(0) } else { out._appendLE32(entry.value) }
            }
            let next = page + 1 < pages ? start + ifdSize : (loop ? 8 : 0)
            out._appendLE32(next)
        }
        return out
    }
}
