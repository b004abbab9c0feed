import XCTest
@testable import PixelFlow
@testable import PixelFlowKernels
@testable import PixelFlowGraph
@testable import PixelFlowEngine

/// Encode then decode, for every format and pixel layout it stores losslessly.
final class CodecRoundTripTests: XCTestCase {
    typealias S = CodecTestSupport

    private func roundTrip(
        _ b: PixelBuffer, _ format: ImageFileFormat, options: EncodeOptions = .default,
        file: StaticString = #filePath, line: UInt = #line
    ) throws -> (PixelBuffer, [UInt8]) {
        let bytes = try b.encoded(as: format, options: options)
        XCTAssertEqual(ImageFileFormat.sniff(bytes), format, file: file, line: line)
        let decoded = try PixelBuffer(encoded: bytes, name: "round-trip.\(format)")
        XCTAssertEqual(decoded.colorEncoding, .sRGB, file: file, line: line)
        XCTAssertEqual(decoded.alphaMode, .straight, file: file, line: line)
        return (decoded, bytes)
    }

    // MARK: PNG

    func testPNGRoundTripsRGBA8WithAlpha() throws {
        let b = S.rgba8(width: 37, height: 23, alpha: true)
        let (d, bytes) = try roundTrip(b, .png)
        XCTAssertEqual(d, b)
        XCTAssertEqual(bytes[25], 6, "color type RGBA")
    }

    func testPNGWritesOpaqueRGBA8AsRGB() throws {
        let b = S.rgba8(width: 20, height: 9, alpha: false)
        let (d, bytes) = try roundTrip(b, .png)
        XCTAssertEqual(d, b)
        XCTAssertEqual(bytes[24], 8, "bit depth")
        XCTAssertEqual(bytes[25], 2, "color type RGB")
    }

    func testPNGRoundTripsGray8() throws {
        let b = S.gray8(width: 31, height: 17)
        let (d, bytes) = try roundTrip(b, .png)
        XCTAssertEqual(d, b)
        XCTAssertEqual(bytes[25], 0, "color type gray")
    }

    func testPNGRoundTripsRGBA16() throws {
        for alpha in [true, false] {
            let b = S.rgba16(width: 19, height: 11, alpha: alpha)
            let (d, bytes) = try roundTrip(b, .png)
            XCTAssertEqual(d, b)
            XCTAssertEqual(bytes[24], 16, "bit depth")
            XCTAssertEqual(bytes[25], alpha ? 6 : 2)
        }
    }

    func testPNGInterlacedRoundTripsEveryLayout() throws {
        let options = EncodeOptions(interlaced: true)
        for b in [
            S.rgba8(width: 33, height: 21, alpha: true), S.rgba8(width: 5, height: 3, alpha: false),
            S.gray8(width: 17, height: 9), S.rgba16(width: 13, height: 15, alpha: true),
            S.rgba16(width: 6, height: 10, alpha: false),
            S.rgba8(width: 1, height: 1, alpha: true),
        ] {
            let (d, bytes) = try roundTrip(b, .png, options: options)
            XCTAssertEqual(bytes[28], 1, "interlace method Adam7")
            XCTAssertEqual(d, b, "\(b.format) \(b.width)x\(b.height)")
        }
    }

    func testPNGCompressionLevels() throws {
        let b = S.smooth(width: 64, height: 64)
        let fast = try b.encoded(as: .png, options: EncodeOptions(compressionLevel: 0))
        let small = try b.encoded(as: .png, options: EncodeOptions(compressionLevel: 9))
        XCTAssertLessThan(small.count, fast.count)
        XCTAssertEqual(try PixelBuffer(encoded: fast), b)
        XCTAssertEqual(try PixelBuffer(encoded: small), b)
        S.assertThrows(.invalidParameter) { try b.encoded(as: .png, options: EncodeOptions(compressionLevel: 10)) }
    }

    func testEncodingConvertsFloatAndPremultipliedBuffers() throws {
        let straight = S.rgba8(width: 16, height: 8, alpha: true)
        let premultiplied = straight.premultiplied()
        let decoded = try PixelBuffer(encoded: premultiplied.encoded(as: .png))
        XCTAssertEqual(decoded, premultiplied.unpremultiplied())

        let float = straight.converted(to: .rgbaF32)  // linear, premultiplied
        XCTAssertEqual(
            try PixelBuffer(encoded: float.encoded(as: .png)),
            float.converted(to: .rgba8, colorEncoding: .sRGB, alphaMode: .straight))

        let grayFloat = S.gray8(width: 9, height: 4).converted(to: .grayF32)
        let grayDecoded = try PixelBuffer(encoded: grayFloat.encoded(as: .png))
        XCTAssertEqual(grayDecoded.format, .gray8)
        XCTAssertEqual(grayDecoded, grayFloat.converted(to: .gray8, colorEncoding: .sRGB))
    }

    // MARK: PNM

    func testPNMRoundTripsEveryLayout() throws {
        let cases: [(PixelBuffer, String)] = [
            (S.gray8(width: 13, height: 7), "P5"),
            (S.rgba8(width: 13, height: 7, alpha: false), "P6"),
            (S.rgba8(width: 13, height: 7, alpha: true), "P7"),
            (S.rgba16(width: 13, height: 7, alpha: false), "P6"),
            (S.rgba16(width: 13, height: 7, alpha: true), "P7"),
        ]
        for (b, magic) in cases {
            let (d, bytes) = try roundTrip(b, .pnm)
            XCTAssertEqual(String(decoding: bytes.prefix(2), as: UTF8.self), magic, "\(b.format)")
            XCTAssertEqual(d, b, "\(b.format) as \(magic)")
        }
    }

    // MARK: BMP

    func testBMPRoundTrips() throws {
        let opaque = S.rgba8(width: 13, height: 7, alpha: false)
        let (d24, b24) = try roundTrip(opaque, .bmp)
        XCTAssertEqual(b24[28], 24, "bits per pixel")
        XCTAssertEqual(d24, opaque)

        let translucent = S.rgba8(width: 13, height: 7, alpha: true)
        let (d32, b32) = try roundTrip(translucent, .bmp)
        XCTAssertEqual(b32[28], 32)
        XCTAssertEqual(b32[14], 108, "BITMAPV4HEADER")
        XCTAssertEqual(d32, translucent)

        let gray = S.gray8(width: 13, height: 7)
        let (d8, b8) = try roundTrip(gray, .bmp)
        XCTAssertEqual(b8[28], 8)
        XCTAssertEqual(d8, gray)

        let wide = S.rgba16(width: 5, height: 3, alpha: true)
        XCTAssertEqual(try roundTrip(wide, .bmp).0, wide.converted(to: .rgba8))
    }

    // MARK: JPEG

    func testJPEGIsCloseToTheOriginalOnASmoothImage() throws {
        let b = S.smooth(width: 64, height: 48)
        let (d, bytes) = try roundTrip(b, .jpeg)
        XCTAssertEqual(d.format, .rgba8)
        XCTAssertEqual(bytes.prefix(3), [0xFF, 0xD8, 0xFF])
        XCTAssertLessThanOrEqual(S.maximumDifference(d, b), 12)
        var total = 0
        for y in 0..<b.height {
            for x in 0..<b.width { total += zip(S.pixel(b, x, y), S.pixel(d, x, y)).map { abs($0 - $1) }.reduce(0, +) }
        }
        XCTAssertLessThan(Double(total) / Double(b.width * b.height * 4), 2.0, "mean error per channel")
    }

    func testJPEGQualityChangesSize() throws {
        let b = S.smooth(width: 64, height: 64)
        let low = try b.encoded(as: .jpeg, quality: 10)
        let high = try b.encoded(as: .jpeg, quality: 98)
        XCTAssertLessThan(low.count, high.count)
        let lowDecoded = try PixelBuffer(encoded: low), highDecoded = try PixelBuffer(encoded: high)
        XCTAssertLessThan(S.maximumDifference(highDecoded, b), S.maximumDifference(lowDecoded, b))
    }

    func testJPEGQualityOutOfRangeThrows() {
        let b = S.smooth(width: 8, height: 8)
        for q in [0, 101, -5] {
            S.assertThrows(.invalidParameter) { try b.encoded(as: .jpeg, quality: q) }
        }
    }

    func testJPEGGrayRoundTrip() throws {
        let b = S.smooth(width: 40, height: 30).converted(to: .gray8)
        let (d, bytes) = try roundTrip(b, .jpeg)
        XCTAssertEqual(d.format, .gray8)
        XCTAssertLessThanOrEqual(S.maximumDifference(d, b), 8)
        XCTAssertLessThan(bytes.count, try S.smooth(width: 40, height: 30).encoded(as: .jpeg).count)
    }

    func testJPEGProgressiveAndSubsamplingOptions() throws {
        let b = S.smooth(width: 50, height: 34)
        let progressive = try b.encoded(as: .jpeg, options: EncodeOptions(progressive: true))
        XCTAssertNotNil(Self.marker(0xC2, in: progressive), "SOF2")
        XCTAssertLessThanOrEqual(S.maximumDifference(try PixelBuffer(encoded: progressive), b), 12)
        for subsampling in EncodeOptions.ChromaSubsampling.allCases {
            let bytes = try b.encoded(as: .jpeg, options: EncodeOptions(chromaSubsampling: subsampling))
            let sof = try XCTUnwrap(Self.marker(0xC0, in: bytes))
            let lumaFactors = bytes[sof + 11]  // H and V of component 1
            let expected: UInt8 = subsampling == .yuv420 ? 0x22 : subsampling == .yuv422 ? 0x21 : 0x11
            XCTAssertEqual(lumaFactors, expected, subsampling.rawValue)
            XCTAssertLessThanOrEqual(S.maximumDifference(try PixelBuffer(encoded: bytes), b), 12)
        }
    }

    func testJPEGDropsAlphaAndAcceptsRGBA16() throws {
        var b = S.smooth(width: 16, height: 16)
        b.withUnsafeMutableRows { _, row in
            let p = row.assumingMemoryBound(to: UInt8.self)
            for x in 0..<16 { p[4 * x + 3] = 7 }
        }
        let d = try PixelBuffer(encoded: b.encoded(as: .jpeg))
        XCTAssertEqual(S.pixel(d, 3, 3)[3], 255)
        let wide = S.smooth(width: 16, height: 16).converted(to: .rgba16)
        XCTAssertEqual(try PixelBuffer(encoded: wide.encoded(as: .jpeg)).format, .rgba8)
    }

    /// The offset of the first `FF marker` pair in a JPEG, if any.
    static func marker(_ marker: UInt8, in bytes: [UInt8]) -> Int? {
        (0..<(bytes.count - 1)).first { bytes[$0] == 0xFF && bytes[$0 + 1] == marker }
    }
}
