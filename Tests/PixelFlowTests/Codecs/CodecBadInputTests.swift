import XCTest
@testable import PixelFlow
@testable import PixelFlowKernels
@testable import PixelFlowGraph
@testable import PixelFlowEngine

/// Hostile, corrupt and truncated input: every case throws a named error, none crashes.
final class CodecBadInputTests: XCTestCase {
    typealias S = CodecTestSupport

    /// A PNG chunk with its length and CRC.
    static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out._appendBE32(data.count)
        let body = Array(type.utf8) + data
        out += body
        out._appendBE32(Int(crc32(body)))
        return out
    }

    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var c: UInt32 = 0xFFFF_FFFF
        for b in bytes {
            c ^= UInt32(b)
            for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        }
        return ~c
    }

    static func pngHeader(width: Int, height: Int, bitDepth: UInt8 = 8, colorType: UInt8 = 6) -> [UInt8] {
        var ihdr: [UInt8] = []
        ihdr._appendBE32(width); ihdr._appendBE32(height)
        ihdr += [bitDepth, colorType, 0, 0, 0]
        return _PNGCodec.signature + chunk("IHDR", ihdr)
    }

    // MARK: Sizes beyond the limits

    func testHugePNGHeaderThrowsLimitExceededWithoutAllocating() {
        let bytes = Self.pngHeader(width: 100_000, height: 100_000) + Array(repeating: 0, count: 100)
        let error = S.assertThrows(.limitExceeded) { try PixelBuffer(encoded: bytes, name: "bomb.png") }
        XCTAssertTrue("\(String(describing: error))".contains("bomb.png"))
        // The same with a valid IDAT after the header, and within the side limits.
        let idat = Self.chunk("IDAT", [0x78, 0x9C, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01])
        let wideButValid = Self.pngHeader(width: 20_000, height: 20_000) + idat + Self.chunk("IEND", [])
        S.assertThrows(.limitExceeded) { try PixelBuffer(encoded: wideButValid) }
    }

    func testPNGSideLimits() {
        S.assertThrows(.limitExceeded) { try PixelBuffer(encoded: Self.pngHeader(width: 70_000, height: 1)) }
        S.assertThrows(.limitExceeded) { try PixelBuffer(encoded: Self.pngHeader(width: 1, height: 70_000)) }
        var small = DecodeOptions.default
        small.maximumPixelCount = 100
        let png = try! S.rgba8(width: 11, height: 10, alpha: true).encoded(as: .png)
        S.assertThrows(.limitExceeded) { try PixelBuffer(encoded: png, options: small) }
        small.maximumPixelCount = 110
        XCTAssertNoThrow(try PixelBuffer(encoded: png, options: small))
    }

    func testHugePNMHeaderThrowsLimitExceeded() {
        for header in [
            "P6\n100000 100000\n255\n", "P5 60000 60000 65535\n", "P4\n2000000000 1\n",
            "P7\nWIDTH 100000\nHEIGHT 100000\nDEPTH 4\nMAXVAL 255\nENDHDR\n",
        ] {
            let bytes = Array(header.utf8) + Array(repeating: 7, count: 100)
            S.assertThrows(.limitExceeded) { try PixelBuffer(encoded: bytes) }
        }
    }

    func testHugeBMPHeaderThrowsLimitExceeded() {
        for height in [100_000, -100_000] {
            let bytes = CodecPNMAndBMPTests.bmp(
                width: 100_000, height: height, bitCount: 24, pixels: Array(repeating: 0, count: 100))
            S.assertThrows(.limitExceeded) { try PixelBuffer(encoded: bytes) }
        }
    }

    func testHugeJPEGHeaderThrowsLimitExceeded() throws {
        var bytes = try S.smooth(width: 16, height: 16).encoded(as: .jpeg)
        let sof = try XCTUnwrap(CodecRoundTripTests.marker(0xC0, in: bytes))
        bytes[sof + 5] = 0xEA; bytes[sof + 6] = 0x60  // height 60000
        bytes[sof + 7] = 0xEA; bytes[sof + 8] = 0x60  // width 60000
        S.assertThrows(.limitExceeded) { try PixelBuffer(encoded: bytes) }
        // Only SOI and a frame header, nothing else.
        S.assertThrows(.limitExceeded) { try PixelBuffer(encoded: Array(bytes[0..<(sof + 19)])) }
    }

    func testJPEGScanLimit() throws {
        let progressive = try S.smooth(width: 32, height: 32).encoded(as: .jpeg, options: EncodeOptions(progressive: true))
        var options = DecodeOptions.default
        options.maximumJPEGScans = 2
        S.assertThrows(.limitExceeded) { try PixelBuffer(encoded: progressive, options: options) }
        XCTAssertNoThrow(try PixelBuffer(encoded: progressive))
    }

    func testFileSizeLimit() throws {
        var options = DecodeOptions.default
        options.maximumFileSize = 10
        S.assertThrows(.limitExceeded) { try PixelBuffer(contentsOfFile: S.fixture("rgb24.bmp"), options: options) }
    }

    // MARK: Corrupt and truncated data

    func testTruncatedPNGThrows() throws {
        let png = try S.rgba8(width: 64, height: 64, alpha: true).encoded(as: .png)
        for cut in [png.count / 2, png.count - 20, 40] {
            S.assertThrows(.decodingFailed) { try PixelBuffer(encoded: Array(png[..<cut]), name: "cut.png") }
        }
    }

    func testTruncatedJPEGThrows() throws {
        let image = S.rgba8(width: 64, height: 64, alpha: false)
        for progressive in [false, true] {
            let jpeg = try image.encoded(as: .jpeg, options: EncodeOptions(progressive: progressive))
            S.assertThrows(.decodingFailed) { try PixelBuffer(encoded: Array(jpeg[..<(jpeg.count / 2)]), name: "cut.jpg") }
        }
    }

    func testPNGWithBadCRCThrows() throws {
        let png = try S.rgba8(width: 16, height: 16, alpha: true).encoded(as: .png)
        var badHeader = png
        badHeader[29] ^= 0xFF  // IHDR's CRC
        S.assertThrows(.decodingFailed) { try PixelBuffer(encoded: badHeader) }
        var badData = png
        let iend = png.count - 12
        badData[iend - 1] ^= 0xFF  // the last IDAT's CRC
        S.assertThrows(.decodingFailed) { try PixelBuffer(encoded: badData) }
        var badPixels = png
        badPixels[iend - 10] ^= 0x55  // inside the compressed data
        S.assertThrows(.decodingFailed) { try PixelBuffer(encoded: badPixels) }
    }

    func testGarbageIsUnsupported() {
        var rng = SeededRandom(seed: 42)
        for length in [1, 2, 7, 100, 5000] {
            var bytes = (0..<length).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            bytes[0] = 0x00  // not a magic byte of any format
            S.assertThrows(.unsupportedFormat) { try PixelBuffer(encoded: bytes) }
        }
        // A GIF signature alone is a GIF cut short.
        S.assertThrows(.decodingFailed) { try PixelBuffer(encoded: Array("GIF89a".utf8)) }
    }

    func testEmptyInputThrows() throws {
        S.assertThrows(.decodingFailed) { try PixelBuffer(encoded: []) }
        let folder = try S.temporaryFolder(self)
        let path = folder + "/empty.png"
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data()))
        let error = S.assertThrows(.decodingFailed) { try PixelBuffer(contentsOfFile: path) }
        XCTAssertTrue("\(String(describing: error))".contains("empty.png"))
    }

    func testMissingFileAndFolderThrowIO() throws {
        let folder = try S.temporaryFolder(self)
        S.assertThrows(.io) { try PixelBuffer(contentsOfFile: folder + "/missing.png") }
        S.assertThrows(.io) { try PixelBuffer(contentsOfFile: folder) }
    }

    // MARK: Sweeps

    /// Small files of every format: each prefix and each single-byte corruption must throw
    /// or decode, never crash.
    func testEveryTruncationAndByteFlipThrowsOrDecodes() throws {
        let image = S.rgba8(width: 9, height: 7, alpha: true)
        let files: [(String, [UInt8])] = [
            ("png", try image.encoded(as: .png)),
            ("interlaced png", try image.encoded(as: .png, options: EncodeOptions(interlaced: true))),
            ("jpeg", try image.encoded(as: .jpeg)),
            ("progressive jpeg", try image.encoded(as: .jpeg, options: EncodeOptions(progressive: true))),
            ("exif jpeg", try S.fixtureBytes("orientation6.jpg")),
            ("bmp", try image.encoded(as: .bmp)),
            ("palette bmp", try S.fixtureBytes("palette8.bmp")),
            ("pam", try image.encoded(as: .pnm)),
            ("ppm", try S.fixtureBytes("rgb16.ppm")),
            ("ascii pgm", Array("P2\n# c\n3 2\n255\n1 2 3\n4 5 6\n".utf8)),
        ]
        for (what, bytes) in files {
            var failures = 0
            for n in 0..<bytes.count {
                do { _ = try PixelBuffer(encoded: Array(bytes[..<n]), name: what) } catch { failures += 1 }
            }
            XCTAssertGreaterThan(failures, bytes.count / 2, "\(what): most prefixes are not whole files")
            for i in 0..<bytes.count {
                var flipped = bytes
                flipped[i] ^= 0xFF
                _ = try? PixelBuffer(encoded: flipped, name: what)
            }
            XCTAssertNoThrow(try PixelBuffer(encoded: bytes, name: what), what)
        }
    }

    func testMalformedEXIFIsIgnored() {
        var rng = SeededRandom(seed: 7)
        let header: [UInt8] = Array("Exif".utf8) + [0, 0]
        for length in 0..<64 {
            for _ in 0..<20 {
                let tail = (0..<length).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
                _ = EXIFOrientation(exifPayload: (header + [0x49, 0x49, 42, 0] + tail)[...])
                _ = EXIFOrientation(exifPayload: (header + [0x4D, 0x4D, 0, 42] + tail)[...])
            }
        }
        // An IFD offset pointing past the end, and an entry count larger than the data.
        XCTAssertNil(EXIFOrientation(exifPayload: (header + [0x49, 0x49, 42, 0, 0xFF, 0xFF, 0xFF, 0x7F])[...]))
        XCTAssertNil(EXIFOrientation(exifPayload: (header + [0x49, 0x49, 42, 0, 8, 0, 0, 0, 0xFF, 0xFF, 0x12, 0x01])[...]))
        XCTAssertNil(EXIFOrientation(exifPayload: [][...]))
    }
}

extension [UInt8] {
    mutating func _appendBE32(_ v: Int) {
        append(UInt8(truncatingIfNeeded: v >> 24)); append(UInt8(truncatingIfNeeded: v >> 16))
        append(UInt8(truncatingIfNeeded: v >> 8)); append(UInt8(truncatingIfNeeded: v))
    }
}
