import Foundation
import XCTest
@testable import PixelFlow
@testable import PixelFlowKernels
@testable import PixelFlowGraph
@testable import PixelFlowEngine

/// HEIF (HEVC) and AVIF (AV1) through libheif: fixtures written by independent encoders
/// (pillow-heif 1.8, Pillow 13 with libavif; Fixtures/HEIF/make_fixtures.py), round trips,
/// metadata, several top-level images, orientation, and bad input.
///
/// Encoding is slow (x265, aom): images here are at most 64x48.
final class HEIFCodecTests: XCTestCase {
    // MARK: - Helpers

    static func fixturePath(_ name: String) -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/HEIF/\(name)").path
    }

    static func fixture(_ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: fixturePath(name))))
    }

    /// Stored values: no color conversion, so the comparison does not depend on color management.
    static let stored = DecodeOptions(appliesColorProfile: false)

    /// The expected pixels (a PNG of the independent decoder's output) as `rgba8` or `rgba16`.
    /// (Read with the PNG codec itself: the skeleton's `ImageFileFormat.sniff` compares the
    /// first 64 bytes with PNG's 8-byte signature and so never recognizes a PNG.)
    static func expected(_ name: String) throws -> PixelBuffer {
        let b = try _PNGCodec.decode(try fixture(name), name: name, options: stored)
        return b.format == .gray8 ? b.converted(to: .rgba8) : b
    }

    /// The largest channel difference of `a` and `b` (same size and format).
    func difference(_ a: PixelBuffer, _ b: PixelBuffer, file: StaticString = #filePath, line: UInt = #line) -> Int {
        XCTAssertEqual(a.width, b.width, "width", file: file, line: line)
        XCTAssertEqual(a.height, b.height, "height", file: file, line: line)
        XCTAssertEqual(a.format, b.format, "format", file: file, line: line)
        guard a.width == b.width, a.height == b.height, a.format == b.format else { return Int.max }
        return CodecTestSupport.maximumDifference(a, b)
    }

    /// A smooth test image with flat blocks (what lossy codecs keep within a few levels).
    static func smooth(width: Int = 64, height: Int = 48, alpha: Bool = false) -> PixelBuffer {
        var b = CodecTestSupport.smooth(width: width, height: height)
        if alpha {
            b.withUnsafeMutableRows { y, row in
                let p = row.assumingMemoryBound(to: UInt8.self)
                for x in 0..<width { p[4 * x + 3] = x < width / 2 ? UInt8(255 * x / (width / 2)) : (y < height / 2 ? 255 : 0) }
            }
        }
        return b
    }

    // MARK: - Fixtures from independent encoders

    /// libheif 1.15 (libde265, dav1d) and the independent decoders give the same values but
    /// for YCbCr-to-RGB rounding: measured at most 1 level on every fixture (0 for gray and
    /// the 10-bit file); 2 allowed.
    static let decoderTolerance = 2

    func testFixturesMatchIndependentDecoders() throws {
        for name in ["rgb8.heic", "rgb8.avif", "alpha.avif", "rotated.heic", "meta.heic", "gray.heic"] {
            let decoded = try PixelBuffer(contentsOfFile: Self.fixturePath(name), options: Self.stored)
            XCTAssertEqual(decoded.format, .rgba8, name)
            let d = difference(decoded, try Self.expected(name + ".png"))
            XCTAssertLessThanOrEqual(d, Self.decoderTolerance, name)
        }
    }

    func testTenBitFileDecodesToScaledRGBA16() throws {
        let file = try ImageFile(contentsOfFile: Self.fixturePath("deep10.heic"), options: Self.stored)
        XCTAssertEqual(file.info.bitsPerSample, 10)
        let decoded = try file.decode()
        XCTAssertEqual(decoded.format, .rgba16)
        // Measured 0; allowed: 1 level of 10 bits (64 in 16-bit units).
        XCTAssertLessThanOrEqual(difference(decoded, try Self.expected("deep10.heic.png")), 65535 / 1023 + 1)
    }

    func testInspectReportsTheHeaders() throws {
        let cases: [(String, ImageFileFormat, Int, Int, Bool)] = [
            ("rgb8.heic", .heif, 64, 48, false), ("rgb8.avif", .avif, 64, 48, false),
            ("alpha.avif", .avif, 64, 48, true), ("rotated.heic", .heif, 64, 48, false),
            ("gray.heic", .heif, 64, 48, false), ("oriented5.avif", .avif, 64, 48, false),
        ]
        for (name, format, width, height, alpha) in cases {
            let info = try ImageFile(contentsOfFile: Self.fixturePath(name)).info
            XCTAssertEqual(info.format, format, name)
            XCTAssertEqual(info.width, width, name)
            XCTAssertEqual(info.height, height, name)
            XCTAssertEqual(info.imageCount, 1, name)
            XCTAssertEqual(info.bitsPerSample, 8, name)
            XCTAssertEqual(info.hasAlpha, alpha, name)
            XCTAssertEqual(info.colorModel, "ycbcr", name)
            XCTAssertFalse(info.isAnimated, name)
        }
        // pillow-heif writes an nclx box: sRGB primaries and transfer, BT.601 matrix.
        let cicp = try ImageFile(contentsOfFile: Self.fixturePath("rgb8.heic")).metadata.cicp
        XCTAssertEqual(cicp?.colorPrimaries, 1)
        XCTAssertEqual(cicp?.transferCharacteristics, 13)
    }

    func testIrotIsAppliedByLibheifOrIgnoredWhenAsked() throws {
        let path = Self.fixturePath("rotated.heic")
        let upright = try PixelBuffer(contentsOfFile: path, options: Self.stored)
        XCTAssertEqual([upright.width, upright.height], [48, 64])
        let info = try ImageFile(contentsOfFile: path).info
        XCTAssertEqual([info.width, info.height], [64, 48])
        XCTAssertEqual(info.metadata.orientation, .right)

        var asStored = Self.stored
        asStored.applyOrientation = false
        let file = try ImageFile(contentsOfFile: path, options: asStored)
        XCTAssertEqual(file.metadata.orientation, .right)
        let coded = try file.decode()
        XCTAssertEqual([coded.width, coded.height], [64, 48])
        // EXIF 6 (irot 270 anticlockwise): stored (x, y) shows at (47 - y, x).
        var worst = 0
        for y in 0..<48 {
            for x in 0..<64 {
                for (u, v) in zip(CodecTestSupport.pixel(coded, x, y), CodecTestSupport.pixel(upright, 47 - y, x)) {
                    worst = max(worst, abs(u - v))
                }
            }
        }
        XCTAssertEqual(worst, 0)
    }

    /// Pillow's AVIF encoder wrote the pattern (source.png) with irot/imir equal to EXIF 2,
    /// 5 and 8: upright pixels match Pillow's upright decode, stored ones the pattern.
    func testIrotAndImirGiveTheEXIFOrientation() throws {
        let source = try Self.expected("source.png")
        var asStored = Self.stored
        asStored.applyOrientation = false
        for (value, orientation) in [(2, EXIFOrientation.upMirrored), (5, .leftMirrored), (8, .left)] {
            let path = Self.fixturePath("oriented\(value).avif")
            XCTAssertEqual(try ImageFile(contentsOfFile: path).metadata.orientation, orientation)
            let upright = try PixelBuffer(contentsOfFile: path, options: Self.stored)
            XCTAssertLessThanOrEqual(
                difference(upright, try Self.expected("oriented\(value).avif.png")),
                Self.decoderTolerance, "\(value)")
            let stored = try PixelBuffer(contentsOfFile: path, options: asStored)
            // Lossy at quality 90: measured at most 6 levels from the pattern.
            XCTAssertLessThanOrEqual(difference(stored, source), 12, "\(value)")
        }
    }

    func testOrientationOfTransformSequences() {
        XCTAssertEqual(_HEIFCodec.orientation(applying: []), .up)
        XCTAssertEqual(_HEIFCodec.orientation(applying: [(1, nil)]), .left)
        XCTAssertEqual(_HEIFCodec.orientation(applying: [(2, nil)]), .down)
        XCTAssertEqual(_HEIFCodec.orientation(applying: [(3, nil)]), .right)
        XCTAssertEqual(_HEIFCodec.orientation(applying: [(0, 1)]), .upMirrored)
        XCTAssertEqual(_HEIFCodec.orientation(applying: [(0, 0)]), .downMirrored)
        for o in EXIFOrientation.allCases {
            XCTAssertEqual(_HEIFCodec.inverse(of: _HEIFCodec.inverse(of: o)), o)
        }
    }

    func testMetadataBlocksAreReturnedAsStored() throws {
        let metadata = try ImageFile(contentsOfFile: Self.fixturePath("meta.heic")).metadata
        XCTAssertEqual(metadata.iccProfile, try Self.fixture("profile.icc"))
        XCTAssertEqual(metadata.xmp, try Self.fixture("meta.xmp"))
        let exif = try XCTUnwrap(metadata.exif)
        XCTAssertTrue(exif.starts(with: Array("II*\0".utf8)) || exif.starts(with: Array("MM\0*".utf8)))
        XCTAssertNotNil(String(decoding: exif, as: UTF8.self).range(of: "PixelFlow"))
        // The EXIF orientation of rotated.heic is not applied again on top of irot.
        let rotated = try PixelBuffer(contentsOfFile: Self.fixturePath("rotated.heic"), options: Self.stored)
        XCTAssertEqual([rotated.width, rotated.height], [48, 64])
    }

    func testExifItemOffsetIsSkipped() {
        XCTAssertEqual(
            _HEIFCodec.tiffStructure(inExifItem: [0, 0, 0, 6] + Array("Exif\0\0MM\0*".utf8)),
            Array("MM\0*".utf8))
        XCTAssertEqual(_HEIFCodec.tiffStructure(inExifItem: [0, 0, 0, 0] + Array("II*\0".utf8)), Array("II*\0".utf8))
        XCTAssertNil(_HEIFCodec.tiffStructure(inExifItem: [0, 0, 0, 9, 1]))
        XCTAssertNil(_HEIFCodec.tiffStructure(inExifItem: [0xFF, 0xFF, 0xFF, 0xFF, 1]))
        XCTAssertNil(_HEIFCodec.tiffStructure(inExifItem: [0, 0]))
    }

    func testPrimaryImageComesFirstThenTheOthersInIDOrder() throws {
        let file = try ImageFile(contentsOfFile: Self.fixturePath("multi.heic"), options: Self.stored)
        XCTAssertEqual(file.info.imageCount, 3)
        XCTAssertEqual([file.info.width, file.info.height], [32, 24])
        // multi.heic.N.png are the images in ID order; the primary is the second.
        let order = [1, 0, 2]
        for (index, idOrder) in order.enumerated() {
            let b = try file.decode(imageAt: index)
            XCTAssertLessThanOrEqual(difference(b, try Self.expected("multi.heic.\(idOrder).png")), Self.decoderTolerance)
        }
        let frames = try file.frames()
        XCTAssertEqual(frames.map { [$0.buffer.width, $0.buffer.height] }, [[32, 24], [64, 48], [16, 8]])
        XCTAssertEqual(frames.map(\.duration), [0, 0, 0])

        CodecTestSupport.assertThrows(.invalidParameter) { try file.decode(imageAt: 3) }
        CodecTestSupport.assertThrows(.invalidParameter) { try file.decode(imageAt: -1) }
        CodecTestSupport.assertThrows(.limitExceeded) {
            try ImageFile(contentsOfFile: Self.fixturePath("multi.heic"), options: DecodeOptions(maximumImageCount: 2))
        }
        // The frames API bounds the pixels of all images together.
        let tight = DecodeOptions(maximumPixelCount: 64 * 48)
        CodecTestSupport.assertThrows(.limitExceeded) {
            try ImageFile(contentsOfFile: Self.fixturePath("multi.heic"), options: tight).frames()
        }
    }

    // MARK: - Round trips

    func testLossyRoundTripsStayClose() throws {
        for format in [ImageFileFormat.heif, .avif] {
            for alpha in [false, true] {
                let source = Self.smooth(alpha: alpha)
                let bytes = try source.encoded(as: format, quality: 90)
                XCTAssertEqual(ImageFileFormat.sniff(bytes), format)
                let info = try ImageFile(encoded: bytes).info
                XCTAssertEqual(info.hasAlpha, alpha, "\(format)")
                let back = try PixelBuffer(encoded: bytes, options: Self.stored)
                XCTAssertEqual(back.format, .rgba8)
                // Measured at quality 90: at most 8 levels for both, with and without alpha.
                XCTAssertLessThanOrEqual(difference(back, source), 12, "\(format) alpha \(alpha)")
            }
        }
    }

    func testLosslessRoundTripIsExact() throws {
        for format in [ImageFileFormat.heif, .avif] {
            let source = CodecTestSupport.rgba8(width: 32, height: 24, alpha: false)
            let bytes = try source.encoded(as: format, options: EncodeOptions(lossless: true))
            XCTAssertEqual(try ImageFile(encoded: bytes).metadata.cicp?.matrixCoefficients, 0, "\(format)")
            XCTAssertEqual(try ImageFile(encoded: bytes).info.colorModel, "rgb", "\(format)")
            let back = try PixelBuffer(encoded: bytes, options: Self.stored)
            XCTAssertEqual(difference(back, source), 0, "\(format)")
        }
    }

    /// HEIF keeps 10 bits; AVIF is written at 8 (libheif 1.15 with aom 3.6 cannot write
    /// 10-bit AV1: aom aborts on the profile libheif asks for).
    func testSixteenBitsAreWrittenAtTenBitsInHEIFAndEightInAVIF() throws {
        for alpha in [false, true] {
            let source = CodecTestSupport.rgba16(width: 32, height: 24, alpha: alpha)
            let bytes = try source.encoded(as: .heif, options: EncodeOptions(lossless: true))
            let file = try ImageFile(encoded: bytes, options: Self.stored)
            XCTAssertEqual(file.info.bitsPerSample, 10)
            XCTAssertEqual(file.info.hasAlpha, alpha)
            let back = try file.decode()
            XCTAssertEqual(back.format, .rgba16)
            // Lossless at 10 bits: only the 16-to-10-bit rounding, at most half a 10-bit step.
            XCTAssertLessThanOrEqual(difference(back, source), 33, "alpha \(alpha)")

            let avif = try source.encoded(as: .avif, options: EncodeOptions(lossless: true))
            XCTAssertEqual(try ImageFile(encoded: avif).info.bitsPerSample, 8)
            let back8 = try PixelBuffer(encoded: avif, options: Self.stored)
            XCTAssertEqual(difference(back8, source.converted(to: .rgba8)), 0, "alpha \(alpha)")
        }
    }

    func testTinyImagesEncodeAtEveryEffort() throws {
        for format in [ImageFileFormat.heif, .avif] {
            for (w, h) in [(1, 1), (7, 5)] {
                for effort in [0, 4, 9] {
                    let tiny = CodecTestSupport.rgba8(width: w, height: h, alpha: false)
                    let bytes = try tiny.encoded(as: format, quality: 60, options: EncodeOptions(effort: effort))
                    let back = try PixelBuffer(encoded: bytes, options: Self.stored)
                    XCTAssertEqual([back.width, back.height], [w, h], "\(format) effort \(effort)")
                }
            }
        }
    }

    func testGrayIsWrittenMonochromeAndReadAsEqualChannels() throws {
        let source = CodecTestSupport.gray8(width: 32, height: 24)
        for format in [ImageFileFormat.heif, .avif] {
            let bytes = try source.encoded(as: format, options: EncodeOptions(lossless: true))
            let back = try PixelBuffer(encoded: bytes, options: Self.stored)
            XCTAssertEqual(back.format, .rgba8)
            var worst = 0
            for y in 0..<24 {
                for x in 0..<32 {
                    let p = CodecTestSupport.pixel(back, x, y), g = CodecTestSupport.pixel(source, x, y)[0]
                    worst = max(worst, abs(p[0] - g), abs(p[1] - g), abs(p[2] - g))
                }
            }
            XCTAssertEqual(worst, 0, "\(format)")
        }
    }

    func testMetadataRoundTrips() throws {
        let icc = try Self.fixture("profile.icc"), xmp = try Self.fixture("meta.xmp")
        let exif = try XCTUnwrap(try ImageFile(contentsOfFile: Self.fixturePath("meta.heic")).metadata.exif)
        let options = EncodeOptions(metadata: ImageMetadata(exif: exif, xmp: xmp), keptMetadata: .all)
        for format in [ImageFileFormat.heif, .avif] {
            let bytes = try _ImageCodecs.encode(
                Self.smooth(width: 16, height: 16), as: format, quality: 80,
                options: options, name: "t", profile: icc)
            let metadata = try ImageFile(encoded: bytes).metadata
            XCTAssertEqual(metadata.iccProfile, icc, "\(format)")
            XCTAssertEqual(metadata.xmp, xmp, "\(format)")
            XCTAssertEqual(metadata.exif, EXIFOrientation.resettingOrientation(in: exif), "\(format)")
        }
        // By default only sRGB's profile; nothing at all with colorProfile .none.
        let plain = try ImageFile(encoded: try Self.smooth(width: 16, height: 16).encoded(as: .avif)).metadata
        XCTAssertEqual(plain.iccProfile, ColorSpace.sRGB.iccProfile)
        let none = try ImageFile(
            encoded: try Self.smooth(width: 16, height: 16).encoded(
                as: .avif, options: EncodeOptions(colorProfile: .none))
        ).metadata
        XCTAssertNil(none.iccProfile)
        XCTAssertNil(plain.exif)
        XCTAssertNil(plain.xmp)
    }

    func testEffortChangesTheEncoderNotTheValidity() throws {
        let source = Self.smooth(width: 32, height: 24)
        for format in [ImageFileFormat.heif, .avif] {
            for effort in [0, 9] {
                let bytes = try source.encoded(as: format, quality: 70, options: EncodeOptions(effort: effort))
                // Measured at quality 70: 10 (HEIF, both efforts), 14 and 10 (AVIF, effort 0 and 9).
                XCTAssertLessThanOrEqual(difference(try PixelBuffer(encoded: bytes, options: Self.stored), source), 20)
            }
            CodecTestSupport.assertThrows(.invalidParameter) {
                try source.encoded(as: format, options: EncodeOptions(effort: 10))
            }
            CodecTestSupport.assertThrows(.invalidParameter) { try source.encoded(as: format, quality: 0) }
        }
    }

    // MARK: - Bad input

    func testTruncatedAndCorruptFilesThrow() throws {
        for name in ["rgb8.heic", "rgb8.avif", "alpha.avif", "multi.heic"] {
            let bytes = try Self.fixture(name)
            for length in [1, 12, 24, 40, 100, bytes.count / 3, bytes.count / 2, bytes.count - 200, bytes.count - 1] {
                do {
                    _ = try PixelBuffer(encoded: Array(bytes.prefix(length)), name: "cut-\(name)")
                    XCTFail("\(name) cut at \(length) decoded")
                } catch let error as PixelFlowError {
                    XCTAssertTrue("\(error)".contains("cut-\(name)"), "\(error)")
                }
            }
            // Flipped bytes in the middle: either an error naming the file or some pixels.
            var rng = SeededRandom(seed: 7)
            for _ in 0..<20 {
                var corrupt = bytes
                for _ in 0..<4 { corrupt[Int(rng.next() % UInt64(corrupt.count - 32)) + 32] ^= 0xFF }
                do {
                    _ = try ImageFile(encoded: corrupt, name: "bad-\(name)").frames()
                } catch let error as PixelFlowError {
                    XCTAssertTrue("\(error)".contains("bad-\(name)"), "\(error)")
                }
            }
        }
    }

    /// Overwrites the width and height of every ispe box.
    static func declaringSize(_ bytes: [UInt8], width: UInt32, height: UInt32) -> [UInt8] {
        var out = bytes
        var i = 4
        while i + 16 <= out.count {
            if out[i..<(i + 4)].elementsEqual("ispe".utf8) {
                for k in 0..<4 {
                    out[i + 8 + k] = UInt8(truncatingIfNeeded: width >> (24 - 8 * UInt32(k)))
                    out[i + 12 + k] = UInt8(truncatingIfNeeded: height >> (24 - 8 * UInt32(k)))
                }
            }
            i += 1
        }
        return out
    }

    func testHugeDeclaredSizeIsRefusedBeforeDecoding() throws {
        // rgb8.avif has no clap box (pillow-heif's HEIC files crop a padded 64x64 image).
        let bytes = try Self.fixture("rgb8.avif")
        for (w, h) in [(UInt32(100_000), UInt32(48)), (64, 1_000_000), (0xFFFF_FFFF, 0xFFFF_FFFF), (60_000, 60_000)] {
            let huge = Self.declaringSize(bytes, width: w, height: h)
            let error = CodecTestSupport.assertThrows(.limitExceeded) { try PixelBuffer(encoded: huge, name: "huge.heic") }
            XCTAssertTrue("\(String(describing: error))".contains("huge.heic"))
            CodecTestSupport.assertThrows(.limitExceeded) { try ImageFile(encoded: huge, name: "huge.heic") }
        }
        // rgb8.heic is coded 64x64 and cropped by clap to 64x48: the ispe size counts too,
        // since libheif decodes all of it before cropping.
        let clapped = Self.declaringSize(try Self.fixture("rgb8.heic"), width: 20_000, height: 20_000)
        let clapError = CodecTestSupport.assertThrows(.limitExceeded) { try PixelBuffer(encoded: clapped, name: "clap.heic") }
        XCTAssertTrue("\(String(describing: clapError))".contains("pixel count"), "\(String(describing: clapError))")
        CodecTestSupport.assertThrows(.limitExceeded) {
            try PixelBuffer(encoded: bytes, options: DecodeOptions(maximumWidth: 63))
        }
        CodecTestSupport.assertThrows(.limitExceeded) {
            try PixelBuffer(encoded: bytes, options: DecodeOptions(maximumPixelCount: 64 * 48 - 1))
        }
        XCTAssertNoThrow(
            try PixelBuffer(
                encoded: bytes,
                options: DecodeOptions(
                    maximumWidth: 64, maximumHeight: 48,
                    maximumPixelCount: 64 * 48)))
    }

    func testImageIndexOutOfRangeThrows() throws {
        let bytes = try Self.fixture("rgb8.avif")
        CodecTestSupport.assertThrows(.invalidParameter) {
            try PixelBuffer(encoded: bytes, options: DecodeOptions(imageIndex: 1))
        }
        CodecTestSupport.assertThrows(.invalidParameter) { try ImageFile(encoded: bytes, options: DecodeOptions(imageIndex: 1)) }
    }
}
