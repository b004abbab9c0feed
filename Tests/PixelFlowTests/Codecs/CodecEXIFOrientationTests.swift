import XCTest
@testable import PixelFlow
@testable import PixelFlowKernels
@testable import PixelFlowGraph
@testable import PixelFlowEngine

/// EXIF orientation parsing (both byte orders) and the eight transforms.
final class CodecEXIFOrientationTests: XCTestCase {
    typealias S = CodecTestSupport

    /// An APP1 payload with IFD0 holding `entries` (tag, type, value) in the given byte order.
    static func payload(bigEndian: Bool, entries: [(Int, Int, Int)]) -> [UInt8] {
        func u16(_ v: Int) -> [UInt8] {
            bigEndian ? [UInt8(v >> 8 & 255), UInt8(v & 255)] : [UInt8(v & 255), UInt8(v >> 8 & 255)]
        }
        func u32(_ v: Int) -> [UInt8] { bigEndian ? u16(v >> 16) + u16(v & 0xFFFF) : u16(v & 0xFFFF) + u16(v >> 16) }
        var b: [UInt8] = Array("Exif".utf8) + [0, 0] + (bigEndian ? [0x4D, 0x4D] : [0x49, 0x49]) + u16(42) + u32(8)
        b += u16(entries.count)
        for (tag, type, value) in entries { b += u16(tag) + u16(type) + u32(1) + u16(value) + [0, 0] }
        return b + u32(0)
    }

    func testParsesBothByteOrders() {
        for bigEndian in [false, true] {
            for o in EXIFOrientation.allCases {
                let p = Self.payload(bigEndian: bigEndian, entries: [(0x010F, 2, 0), (0x0112, 3, o.rawValue), (0x8769, 4, 0)])
                XCTAssertEqual(EXIFOrientation(exifPayload: p[...]), o)
            }
            XCTAssertNil(EXIFOrientation(exifPayload: Self.payload(bigEndian: bigEndian, entries: [(0x0112, 3, 9)])[...]))
            XCTAssertNil(EXIFOrientation(exifPayload: Self.payload(bigEndian: bigEndian, entries: [(0x0112, 7, 6)])[...]))
            XCTAssertNil(EXIFOrientation(exifPayload: Self.payload(bigEndian: bigEndian, entries: [(0x0110, 3, 6)])[...]))
        }
        let truncated = Self.payload(bigEndian: false, entries: [(0x0112, 3, 6)])
        for n in 0..<truncated.count { _ = EXIFOrientation(exifPayload: truncated[..<n]) }
    }

    /// Where stored pixel (x, y) of a w x h image lands once upright.
    static func destination(_ o: EXIFOrientation, _ x: Int, _ y: Int, _ w: Int, _ h: Int) -> (Int, Int) {
        switch o {
        case .up: return (x, y)
        case .upMirrored: return (w - 1 - x, y)
        case .down: return (w - 1 - x, h - 1 - y)
        case .downMirrored: return (x, h - 1 - y)
        case .leftMirrored: return (y, x)
        case .right: return (h - 1 - y, x)
        case .rightMirrored: return (h - 1 - y, w - 1 - x)
        case .left: return (y, w - 1 - x)
        }
    }

    func testEveryOrientationMovesEveryPixelWhereTheSpecSays() {
        for stored in [
            S.rgba8(width: 5, height: 3, alpha: true), S.gray8(width: 4, height: 7),
            S.rgba16(width: 3, height: 2, alpha: true), S.rgba8(width: 5, height: 3, alpha: true).converted(to: .rgbaF32),
        ] {
            for o in EXIFOrientation.allCases {
                let upright = stored.applyingOrientation(o)
                XCTAssertEqual(
                    [upright.width, upright.height],
                    o.swapsDimensions ? [stored.height, stored.width] : [stored.width, stored.height])
                XCTAssertEqual(upright.format, stored.format)
                for y in 0..<stored.height {
                    for x in 0..<stored.width {
                        let (u, v) = Self.destination(o, x, y, stored.width, stored.height)
                        XCTAssertEqual(upright[u, v], stored[x, y], "\(o) \(stored.format) (\(x), \(y))")
                    }
                }
            }
        }
    }

    func testOrientationIsAppliedToDecodedJPEG() throws {
        // Insert an APP1 with orientation 8 (rotate counterclockwise) after SOI.
        let stored = S.smooth(width: 24, height: 16)
        let jpeg = try stored.encoded(as: .jpeg, quality: 95)
        let exif = Self.payload(bigEndian: true, entries: [(0x0112, 3, 8)])
        let app1: [UInt8] = [0xFF, 0xE1, UInt8((exif.count + 2) >> 8), UInt8((exif.count + 2) & 255)] + exif
        let tagged = Array(jpeg[0..<2]) + app1 + Array(jpeg[2...])
        let upright = try PixelBuffer(encoded: tagged)
        XCTAssertEqual([upright.width, upright.height], [16, 24])
        let plain = try PixelBuffer(encoded: jpeg)
        XCTAssertEqual(upright, plain.applyingOrientation(.left))
    }
}
