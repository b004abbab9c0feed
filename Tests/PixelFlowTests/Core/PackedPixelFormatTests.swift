import XCTest

@testable import PixelFlow
@testable import PixelFlowKernels
@testable import PixelFlowGraph
@testable import PixelFlowCore
@testable import PixelFlowEngine

/// `bgra8` and `argb8`: their byte layouts, packed 32-bit access, the float subscript and
/// conversions to and from every other format. References are written from the formats'
/// documented byte orders (Core Video's 32BGRA and 32ARGB), not from the library's code.
final class PackedPixelFormatTests: XCTestCase {
    /// The memory bytes of a pixel with channels (R, G, B, A) = (0x11, 0x22, 0x33, 0x44).
    static let bytes: [PixelFormat: [UInt8]] = [
        .rgba8: [0x11, 0x22, 0x33, 0x44], .bgra8: [0x33, 0x22, 0x11, 0x44], .argb8: [0x44, 0x11, 0x22, 0x33],
    ]

    /// A `format` buffer of random bytes, with the bytes it holds, row by row without padding.
    func randomBuffer(_ format: PixelFormat, width: Int = 37, height: Int = 5, seed: UInt64 = 3) -> (PixelBuffer, [UInt8]) {
        var r = SeededRandom(seed: seed)
        var b = try! PixelBuffer(width: width, height: height, format: format)
        var all: [UInt8] = []
        b.withUnsafeMutableRows { _, row in
            for i in 0..<(4 * width) {
                let v = UInt8(truncatingIfNeeded: r.next())
                row.storeBytes(of: v, toByteOffset: i, as: UInt8.self)
                all.append(v)
            }
        }
        return (b, all)
    }

    /// `rgba` bytes (R, G, B, A per pixel) reordered into `format`'s memory order.
    func reorder(_ rgba: [UInt8], to format: PixelFormat) -> [UInt8] {
        let position: [Int] = format == .bgra8 ? [2, 1, 0, 3] : format == .argb8 ? [1, 2, 3, 0] : [0, 1, 2, 3]
        var out = rgba
        for i in stride(from: 0, to: rgba.count, by: 4) {
            for c in 0..<4 { out[i + position[c]] = rgba[i + c] }
        }
        return out
    }

    func storedBytes(_ b: PixelBuffer) -> [UInt8] {
        var out: [UInt8] = []
        b.withUnsafeRows { _, row in out += UnsafeRawBufferPointer(start: row, count: 4 * b.width) }
        return out
    }

    func testFormatProperties() {
        for f in [PixelFormat.bgra8, .argb8] {
            XCTAssertEqual(f.bytesPerPixel, 4)
            XCTAssertEqual(f.channelCount, 4)
            XCTAssertTrue(f.hasAlpha)
            XCTAssertFalse(f.isFloat)
            XCTAssertTrue(f.isPacked32)
            XCTAssertEqual(PixelFormat(rawValue: f.rawValue), f)
        }
        XCTAssertTrue(PixelFormat.rgba8.isPacked32)
        for f in [PixelFormat.rgba16, .rgbaF32, .gray8, .grayF32] { XCTAssertNil(f.packedLayout) }
        let b = try! PixelBuffer(width: 2, height: 2, format: .bgra8)
        XCTAssertEqual(b.colorEncoding, .sRGB)
        XCTAssertEqual(b.alphaMode, .straight)
    }

    /// The packed values of Core Video's formats on a little-endian reading: BGRA is
    /// 0xAARRGGBB, ARGB 0xBBGGRRAA, RGBA 0xAABBGGRR.
    func testPackedValuesAndComponentAccessors() throws {
        let expected: [PixelFormat: UInt32] = [.rgba8: 0x4433_2211, .bgra8: 0x4411_2233, .argb8: 0x3322_1144]
        for (format, packed) in expected {
            var b = try PixelBuffer(width: 3, height: 2, format: format)
            b.withUnsafeMutableRows { y, row in
                if y == 1 {
                    for (i, v) in Self.bytes[format]!.enumerated() { row.storeBytes(of: v, toByteOffset: 8 + i, as: UInt8.self) }
                }
            }
            XCTAssertEqual(b[packed: 2, 1], packed, "\(format)")
            let layout = try XCTUnwrap(format.packedLayout)
            XCTAssertEqual(layout.format, format)
            XCTAssertEqual(
                [layout.red(packed), layout.green(packed), layout.blue(packed), layout.alpha(packed)], [0x11, 0x22, 0x33, 0x44])
            XCTAssertEqual(layout.pack(red: 0x11, green: 0x22, blue: 0x33, alpha: 0x44), packed)
            XCTAssertEqual(layout.components(packed), SIMD4(0x11, 0x22, 0x33, 0x44))
            XCTAssertEqual(layout.pack(SIMD4(0x11, 0x22, 0x33, 0x44)), packed)
            for other in expected.keys {
                XCTAssertEqual(layout.convert(packed, to: other.packedLayout!), expected[other], "\(format) -> \(other)")
            }
            // Writing through the subscript stores the bytes in memory order.
            b[packed: 0, 0] = packed
            XCTAssertEqual(Array(storedBytes(b).prefix(4)), Self.bytes[format])
            // The float subscript reads RGBA whatever the order, and writes the same bytes.
            XCTAssertEqual(b[0, 0], SIMD4(0x11, 0x22, 0x33, 0x44) / 255)
            b[1, 0] = SIMD4(0x11, 0x22, 0x33, 0x44) / 255
            XCTAssertEqual(b[packed: 1, 0], packed)
            // Whole rows as words: on this little-endian machine each word is the packed value.
            b.withUnsafePackedPixels { words, perRow in
                XCTAssertGreaterThanOrEqual(perRow, 3)
                XCTAssertEqual(UInt32(littleEndian: words[perRow + 2]), packed)
            }
            b.withUnsafeMutablePackedPixels { words, perRow in words[perRow] = packed.littleEndian }
            XCTAssertEqual(b[0, 1], SIMD4(0x11, 0x22, 0x33, 0x44) / 255)
        }
    }

    /// Copy-on-write holds for packed writes.
    func testPackedWritesDoNotLeakIntoCopies() throws {
        var a = try PixelBuffer(width: 2, height: 1, format: .bgra8)
        let copy = a
        a[packed: 0, 0] = 0xFFFF_FFFF
        a.withUnsafeMutablePackedPixels { w, _ in w[1] = 0x0102_0304 }
        XCTAssertEqual(copy[packed: 0, 0], 0)
        XCTAssertEqual(copy[packed: 1, 0], 0)
        XCTAssertEqual(a[packed: 1, 0], UInt32(littleEndian: 0x0102_0304))
    }

    /// Between the 4 x 8-bit formats a conversion moves bytes and nothing else.
    func testConversionsBetweenByteOrdersReorderBytesExactly() {
        for from in [PixelFormat.rgba8, .bgra8, .argb8] {
            let (b, stored) = randomBuffer(from)
            let rgba = reorderToRGBA(stored, from: from)
            for to in [PixelFormat.rgba8, .bgra8, .argb8] {
                for mode in [AlphaMode.straight, .premultiplied] {
                    var src = b
                    src.alphaMode = mode
                    let c = src.converted(to: to)
                    XCTAssertEqual(c.format, to)
                    XCTAssertEqual(c.alphaMode, mode)
                    XCTAssertEqual(storedBytes(c), reorder(rgba, to: to), "\(from) -> \(to) \(mode)")
                }
            }
        }
    }

    /// Through every format that holds 8-bit RGBA exactly and back: the same bytes; and the
    /// same floats as the rgba8 buffer holding the same pixels, in every encoding and alpha mode.
    func testRoundTripsThroughEveryFormat() {
        for from in [PixelFormat.bgra8, .argb8] {
            let (b, stored) = randomBuffer(from, seed: 11)
            let rgbaTwin = reorderToRGBA(stored, from: from)
            var twin = try! PixelBuffer(width: b.width, height: b.height, format: .rgba8)
            twin.withUnsafeMutableRows { y, row in
                for i in 0..<(4 * b.width) { row.storeBytes(of: rgbaTwin[y * 4 * b.width + i], toByteOffset: i, as: UInt8.self) }
            }
            for via in PixelFormat.allCases {
                for encoding in [ColorEncoding.sRGB, .linear] {
                    for mode in [AlphaMode.straight, .premultiplied] {
                        let there = b.converted(to: via, colorEncoding: encoding, alphaMode: mode)
                        XCTAssertEqual(
                            there, twin.converted(to: via, colorEncoding: encoding, alphaMode: mode), "\(from) -> \(via)")
                        // Formats that hold every 8-bit sRGB RGBA value exactly (8-bit linear
                        // merges dark codes; premultiplying loses the color under alpha 0).
                        let exact = via.isFloat || via == .rgba16 || (via.isPacked32 && encoding == .sRGB)
                        guard mode == .straight, via.hasAlpha, exact else { continue }
                        let back = there.converted(to: from, colorEncoding: .sRGB, alphaMode: .straight)
                        XCTAssertEqual(storedBytes(back), stored, "\(from) -> \(via) \(encoding) \(mode) -> \(from)")
                    }
                }
            }
            // And every byte order into and out of gray: the gray of the RGBA twin.
            XCTAssertEqual(b.converted(to: .gray8), twin.converted(to: .gray8))
            let gray = twin.converted(to: .gray8)
            XCTAssertEqual(gray.converted(to: from), gray.converted(to: .rgba8).converted(to: from))
        }
    }

    func reorderToRGBA(_ stored: [UInt8], from format: PixelFormat) -> [UInt8] {
        let position: [Int] = format == .bgra8 ? [2, 1, 0, 3] : format == .argb8 ? [1, 2, 3, 0] : [0, 1, 2, 3]
        var out = stored
        for i in stride(from: 0, to: stored.count, by: 4) {
            for c in 0..<4 { out[i + c] = stored[i + position[c]] }
        }
        return out
    }
}
