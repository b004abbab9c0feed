import XCTest
@testable import PixelFlow
@testable import PixelFlowKernels
@testable import PixelFlowGraph
@testable import PixelFlowEngine

/// The PNM and BMP variants beyond the fixtures, written byte by byte.
final class CodecPNMAndBMPTests: XCTestCase {
    typealias S = CodecTestSupport

    private func decode(_ text: String, _ binary: [UInt8] = []) throws -> PixelBuffer {
        try PixelBuffer(encoded: Array(text.utf8) + binary, name: "test.pnm")
    }

    func testASCIIBitmapGrayAndColor() throws {
        let p1 = try decode("P1\n# bitmap\n3 2\n1 0 1\n010")
        XCTAssertEqual(p1.format, .gray8)
        XCTAssertEqual((0..<6).map { S.pixel(p1, $0 % 3, $0 / 3)[0] }, [0, 255, 0, 255, 0, 255])

        let p2 = try decode("P2 2 2 15\n0 15\n 7 # comment\n 20")
        XCTAssertEqual((0..<4).map { S.pixel(p2, $0 % 2, $0 / 2)[0] }, [0, 255, 119, 255], "scaled, 20 clamps")

        let p3 = try decode("P3\n1 1\n255\n10 20 30\n")
        XCTAssertEqual(S.pixel(p3, 0, 0), [10, 20, 30, 255])
    }

    func testBinaryBitmapRowsArePaddedToBytes() throws {
        // 10 pixels a row: 2 bytes a row. Row 0: 1010 1010 11, row 1: all white.
        let b = try decode("P4\n10 2\n", [0b1010_1010, 0b1100_0000, 0, 0])
        XCTAssertEqual((0..<10).map { S.pixel(b, $0, 0)[0] }, [0, 255, 0, 255, 0, 255, 0, 255, 0, 0])
        XCTAssertEqual((0..<10).map { S.pixel(b, $0, 1)[0] }, Array(repeating: 255, count: 10))
    }

    func testSmallMaxvalScalesToFullRange() throws {
        let b = try decode("P5 4 1 3\n", [0, 1, 2, 3])
        XCTAssertEqual((0..<4).map { S.pixel(b, $0, 0)[0] }, [0, 85, 170, 255])
        let wide = try decode("P5 2 1 1000\n", [0, 0, 0x03, 0xE8])
        XCTAssertEqual(wide.format, .rgba16)
        XCTAssertEqual(S.pixel(wide, 1, 0), [65535, 65535, 65535, 65535])
    }

    func testPAMTupleTypes() throws {
        let gray = try decode("P7\nWIDTH 2\nHEIGHT 1\nDEPTH 1\nMAXVAL 255\nTUPLTYPE GRAYSCALE\nENDHDR\n", [9, 250])
        XCTAssertEqual(gray.format, .gray8)
        XCTAssertEqual(S.pixel(gray, 1, 0), [250])
        let grayAlpha = try decode("P7\nWIDTH 1\nHEIGHT 1\nDEPTH 2\nMAXVAL 255\nTUPLTYPE GRAYSCALE_ALPHA\nENDHDR\n", [9, 100])
        XCTAssertEqual(S.pixel(grayAlpha, 0, 0), [9, 9, 9, 100])
        let rgb16 = try decode("P7\nWIDTH 1\nHEIGHT 1\nDEPTH 3\nMAXVAL 65535\nTUPLTYPE RGB\nENDHDR\n", [1, 2, 3, 4, 5, 6])
        XCTAssertEqual(S.pixel(rgb16, 0, 0), [0x0102, 0x0304, 0x0506, 65535])
        let untyped = try decode("P7\nWIDTH 1\nHEIGHT 1\nDEPTH 4\nMAXVAL 255\nENDHDR\n", [1, 2, 3, 4])
        XCTAssertEqual(S.pixel(untyped, 0, 0), [1, 2, 3, 4])

        S.assertThrows(.decodingFailed) {
            try self.decode("P7\nWIDTH 1\nHEIGHT 1\nDEPTH 3\nMAXVAL 255\nTUPLTYPE RGB_ALPHA\nENDHDR\n", [1, 2, 3, 4])
        }
        S.assertThrows(.unsupportedFormat) {
            try self.decode("P7\nWIDTH 1\nHEIGHT 1\nDEPTH 4\nMAXVAL 255\nTUPLTYPE CMYK\nENDHDR\n", [1, 2, 3, 4])
        }
        S.assertThrows(.unsupportedFormat) {
            try self.decode("P7\nWIDTH 1\nHEIGHT 1\nDEPTH 5\nMAXVAL 255\nENDHDR\n", [1, 2, 3, 4, 5])
        }
        S.assertThrows(.decodingFailed) { try self.decode("P7\nWIDTH 1\nHEIGHT 1\nDEPTH 1\nMAXVAL 255\n", [1]) }
    }

    func testBadPNMHeaders() {
        S.assertThrows(.decodingFailed) { try self.decode("P5 2 1 0\n", [0, 0]) }  // maxval 0
        S.assertThrows(.decodingFailed) { try self.decode("P5 2 1 70000\n", [0, 0, 0, 0]) }
        S.assertThrows(.decodingFailed) { try self.decode("P5 0 1 255\n", [0]) }
        S.assertThrows(.decodingFailed) { try self.decode("P6 2 x 255\n", [0]) }
        S.assertThrows(.decodingFailed) { try self.decode("P5 99999999999 1 255\n", [0]) }
        S.assertThrows(.decodingFailed) { try self.decode("P2 2 1 255\n1") }  // one sample missing
        S.assertThrows(.decodingFailed) { try self.decode("P1 2 1\n1 2") }
    }

    // MARK: BMP

    /// A BMP with a 40-byte header; `extra` goes between the header and the pixels.
    static func bmp(
        width: Int, height: Int, bitCount: Int, compression: Int = 0,
        extra: [UInt8] = [], pixels: [UInt8], colorsUsed: Int = 0
    ) -> [UInt8] {
        var b: [UInt8] = []
        let headerSize = 40, offset = 14 + headerSize + extra.count
        b._appendASCII("BM"); b._appendLE32(offset + pixels.count); b._appendLE32(0); b._appendLE32(offset)
        b._appendLE32(headerSize); b._appendLE32(width); b._appendLE32(height); b._appendLE16(1); b._appendLE16(bitCount)
        b._appendLE32(compression); b._appendLE32(pixels.count); b._appendLE32(0); b._appendLE32(0)
        b._appendLE32(colorsUsed); b._appendLE32(0)
        return b + extra + pixels
    }

    func testBMPBitfieldsWithUnusualMasks() throws {
        // Masks: R in the low byte, G next, B next, A in the top byte (RGBA order in memory).
        var masks: [UInt8] = []
        for m in [0x0000_00FF, 0x0000_FF00, 0x00FF_0000, 0xFF00_0000] { masks._appendLE32(m) }
        let bytes = Self.bmp(
            width: 2, height: -1, bitCount: 32, compression: 6, extra: masks,
            pixels: [10, 20, 30, 40, 50, 60, 70, 80])
        let b = try PixelBuffer(encoded: bytes)
        XCTAssertEqual(S.pixel(b, 0, 0), [10, 20, 30, 40])
        XCTAssertEqual(S.pixel(b, 1, 0), [50, 60, 70, 80])

        // 10-bit channels without alpha (a 2:10:10:10 layout).
        var masks10: [UInt8] = []
        for m in [0x3FF0_0000, 0x000F_FC00, 0x0000_03FF] { masks10._appendLE32(m) }
        var px: [UInt8] = []
        px._appendLE32(1023 << 20 | 0 << 10 | 511)
        let ten = try PixelBuffer(
            encoded: Self.bmp(width: 1, height: 1, bitCount: 32, compression: 3, extra: masks10, pixels: px))
        XCTAssertEqual(S.pixel(ten, 0, 0), [255, 0, 127, 255])
    }

    func testBMPLowBitPalettes() throws {
        // 4-bit, 3 pixels: indices 1, 0, 1; palette black and orange.
        let palette: [UInt8] = [0, 0, 0, 0, 0, 128, 255, 0]
        let b = try PixelBuffer(
            encoded: Self.bmp(
                width: 3, height: 1, bitCount: 4, extra: palette,
                pixels: [0x10, 0x10, 0, 0], colorsUsed: 2))
        XCTAssertEqual(b.format, .rgba8)
        XCTAssertEqual((0..<3).map { S.pixel(b, $0, 0) }, [[255, 128, 0, 255], [0, 0, 0, 255], [255, 128, 0, 255]])
        // 1-bit with a black and white palette decodes as gray.
        let mono = try PixelBuffer(
            encoded: Self.bmp(
                width: 9, height: 1, bitCount: 1, extra: [0, 0, 0, 0, 255, 255, 255, 0],
                pixels: [0b1000_0001, 0b1000_0000, 0, 0], colorsUsed: 2))
        XCTAssertEqual(mono.format, .gray8)
        XCTAssertEqual((0..<9).map { S.pixel(mono, $0, 0)[0] }, [255, 0, 0, 0, 0, 0, 0, 255, 255])
    }

    func testBMP32BitWithZeroAlphaIsOpaque() throws {
        let b = try PixelBuffer(encoded: Self.bmp(width: 1, height: 1, bitCount: 32, pixels: [3, 2, 1, 0]))
        XCTAssertEqual(S.pixel(b, 0, 0), [1, 2, 3, 255])
    }

    func testUnsupportedBMPVariantsAreNamed() throws {
        for (bits, compression, words) in [(8, 1, "RLE8"), (4, 2, "RLE4"), (16, 0, "16 bits"), (24, 4, "JPEG")] {
            let bytes = Self.bmp(
                width: 4, height: 4, bitCount: bits, compression: compression, pixels: Array(repeating: 0, count: 64))
            let error = S.assertThrows(.unsupportedFormat) { try PixelBuffer(encoded: bytes, name: "x.bmp") }
            XCTAssertTrue("\(error.map { "\($0)" } ?? "")".contains(words), "\(String(describing: error))")
        }
        var core = Array("BM".utf8) + Array(repeating: UInt8(0), count: 30)
        core[14] = 12  // OS/2 BITMAPCOREHEADER
        S.assertThrows(.unsupportedFormat) { try PixelBuffer(encoded: core) }
    }
}
