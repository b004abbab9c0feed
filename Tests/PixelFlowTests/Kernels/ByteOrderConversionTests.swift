import CSIMD
import XCTest

@testable import PixelFlow
@testable import PixelFlowKernels
@testable import PixelFlowGraph
@testable import PixelFlowEngine

/// The 4 x 8-bit row kernels in every byte order (`pf_load_4x8_row`, `pf_store_4x8_row` and
/// their sRGB forms, inline and dispatched, through `loadRowRGBA` / `storeRowRGBA`) against a
/// scalar reference written here from the formats' documented byte positions. Tolerance 0:
/// the same bits and bytes.
final class ByteOrderConversionTests: XCTestCase {
    /// The memory byte of R, G, B and A in each format (Core Video's layouts).
    static let positions: [PixelFormat: [Int]] = [.rgba8: [0, 1, 2, 3], .bgra8: [2, 1, 0, 3], .argb8: [1, 2, 3, 0]]
    static let orders: [PixelFormat: Int32] = [
        .rgba8: Int32(PF_ORDER_RGBA), .bgra8: Int32(PF_ORDER_BGRA), .argb8: Int32(PF_ORDER_ARGB),
    ]

    /// `clamp(floor(v * 255 + 0.5), 0, 255)`, two roundings, NaN as 0.
    static func quantize(_ v: Float) -> UInt8 {
        let s = v * 255 + 0.5
        guard s >= 0 else { return 0 }
        return s > 255 ? 255 : UInt8(s.rounded(.down))
    }

    /// Rows that reach every byte value and the awkward floats (NaN, infinities, -0, exact
    /// halves, out of range), in lengths that exercise the 8-pixel blocks and their tails.
    func rows(_ n: Int, seed: UInt64) -> (bytes: [UInt8], floats: [SIMD4<Float>]) {
        var r = SeededRandom(seed: seed)
        var bytes = (0..<(4 * n)).map { _ in UInt8(truncatingIfNeeded: r.next()) }
        for i in 0..<Swift.min(4 * n, 256) { bytes[i] = UInt8(i) }
        var floats = (0..<n).map { _ in SIMD4<Float>(r.unit() * 1.4 - 0.2, r.unit(), r.unit(), r.unit() * 1.2 - 0.1) }
        let special: [SIMD4<Float>] = [
            SIMD4(.nan, .infinity, -.infinity, -0.0), SIMD4(0.5 / 255, 1.5 / 255, 254.5 / 255, 1),
            SIMD4(1, 0, 0.25, 0.5), SIMD4(0.0031308, 0.04045, 2, -1),
        ]
        for (i, s) in special.enumerated() where i < n { floats[n - 1 - i] = s }
        return (bytes, floats)
    }

    func testLoadsMatchTheScalarReference() {
        for n in [1, 7, 8, 9, 31, 301] {
            let (bytes, _) = rows(n, seed: UInt64(n))
            for (format, pos) in Self.positions {
                for decode in [false, true] {
                    let expected = (0..<n).map { i -> SIMD4<Float> in
                        let b = pos.map { bytes[4 * i + $0] }
                        let a = Float(b[3]) * (1 / 255)
                        if decode {
                            return SIMD4(SRGB.decodeTable[Int(b[0])], SRGB.decodeTable[Int(b[1])], SRGB.decodeTable[Int(b[2])], a)
                        }
                        return SIMD4(Float(b[0]) * (1 / 255), Float(b[1]) * (1 / 255), Float(b[2]) * (1 / 255), a)
                    }
                    var viaEngine = [SIMD4<Float>](repeating: SIMD4(repeating: 7), count: n)
                    bytes.withUnsafeBytes {
                        loadRowRGBA($0.baseAddress!, format: format, count: n, into: &viaEngine, decodeSRGB: decode)
                    }
                    var inline = [SIMD4<Float>](repeating: SIMD4(repeating: 7), count: n)
                    let order = Self.orders[format]!
                    if decode {
                        SRGB.decodeTable.withUnsafeBufferPointer {
                            pf_load_4x8_srgb_row(bytes, &inline, n, $0.baseAddress, order)
                        }
                    } else {
                        pf_load_4x8_row(bytes, &inline, n, order)
                    }
                    XCTAssertEqual(bits(viaEngine), bits(expected), "\(format) n=\(n) decode=\(decode)")
                    XCTAssertEqual(bits(inline), bits(expected), "\(format) n=\(n) decode=\(decode) inline")
                }
            }
        }
    }

    func testStoresMatchTheScalarReference() {
        for n in [1, 7, 8, 9, 31, 301] {
            let (_, floats) = rows(n, seed: 100 + UInt64(n))
            for (format, pos) in Self.positions {
                for encode in [false, true] {
                    var expected = [UInt8](repeating: 0, count: 4 * n)
                    for i in 0..<n {
                        let v = floats[i]
                        let codes =
                            encode
                            ? [SRGB.encode8(v.x), SRGB.encode8(v.y), SRGB.encode8(v.z), Self.quantize(v.w)]
                            : [Self.quantize(v.x), Self.quantize(v.y), Self.quantize(v.z), Self.quantize(v.w)]
                        for c in 0..<4 { expected[4 * i + pos[c]] = codes[c] }
                    }
                    var viaEngine = [UInt8](repeating: 99, count: 4 * n)
                    var scratch = [SIMD4<Float>](repeating: .zero, count: n)
                    floats.withUnsafeBufferPointer { s in
                        viaEngine.withUnsafeMutableBytes {
                            storeRowRGBA(
                                s.baseAddress!, count: n, format: format, into: $0.baseAddress!, encodeSRGB: encode,
                                scratch: &scratch)
                        }
                    }
                    var inline = [UInt8](repeating: 99, count: 4 * n)
                    let order = Self.orders[format]!
                    if encode {
                        SRGB.thresholds.withUnsafeBufferPointer { t in
                            SRGB.bucketStart.withUnsafeBufferPointer { b in
                                pf_store_4x8_srgb_row(floats, &inline, n, t.baseAddress, b.baseAddress, order)
                            }
                        }
                    } else {
                        pf_store_4x8_row(floats, &inline, n, order)
                    }
                    XCTAssertEqual(viaEngine, expected, "\(format) n=\(n) encode=\(encode)")
                    XCTAssertEqual(inline, expected, "\(format) n=\(n) encode=\(encode) inline")
                }
            }
        }
    }

    /// Every byte value through load then store, in each order and both encodings, comes back.
    func testEveryByteRoundTrips() {
        let n = 256
        let bytes = (0..<(4 * n)).map { UInt8(truncatingIfNeeded: $0 / 4 + 37 * ($0 % 4)) }
        for format in Self.positions.keys {
            for sRGB in [false, true] {
                var floats = [SIMD4<Float>](repeating: .zero, count: n), scratch = floats
                var back = [UInt8](repeating: 0, count: 4 * n)
                bytes.withUnsafeBytes { loadRowRGBA($0.baseAddress!, format: format, count: n, into: &floats, decodeSRGB: sRGB) }
                back.withUnsafeMutableBytes {
                    storeRowRGBA(floats, count: n, format: format, into: $0.baseAddress!, encodeSRGB: sRGB, scratch: &scratch)
                }
                XCTAssertEqual(back, bytes, "\(format) sRGB=\(sRGB)")
            }
        }
    }

    func bits(_ v: [SIMD4<Float>]) -> [UInt32] {
        v.flatMap { [$0.x.bitPattern, $0.y.bitPattern, $0.z.bitPattern, $0.w.bitPattern] }
    }
}
