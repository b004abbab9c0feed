import CSIMD
import XCTest
@testable import PixelFlow

/// Rendering an 8-bit RGBA source into a gray8 buffer converts each row in one pass
/// (`pf_rgba8_to_gray8_row_run`, `RenderContext.grayConversionSource`). Tolerance 0: the bytes
/// must be those of the float path it replaces, loading the row to working values
/// (`loadRowRGBA`, then `premultiplyRow` for straight alpha) and storing it gray
/// (`storeRowRGBA`), which KernelReferenceTests checks against the luma formula.
final class GrayConversionTests: XCTestCase {
    /// The float path for one row of `count` pixels.
    func floatPath(_ src: UnsafePointer<UInt8>, count: Int, straight: Bool, decode: Bool = false) -> [UInt8] {
        var row = [SIMD4<Float>](repeating: .zero, count: count)
        var out = [UInt8](repeating: 0, count: count)
        row.withUnsafeMutableBufferPointer { r in
            loadRowRGBA(UnsafeRawPointer(src), format: .rgba8, count: count, into: r.baseAddress!, decodeSRGB: decode)
            if straight { premultiplyRow(r.baseAddress!, count: count) }
            out.withUnsafeMutableBytes { o in
                var scratch = [SIMD4<Float>](repeating: .zero, count: count)
                scratch.withUnsafeMutableBufferPointer { s in
                    storeRowRGBA(r.baseAddress!, count: count, format: .gray8, into: o.baseAddress!, encodeSRGB: false,
                                 scratch: s.baseAddress!)
                }
            }
        }
        return out
    }

    /// Every value of every channel (with every alpha, for the premultiplied variant) and random
    /// pixels, at row lengths around the 8-pixel vectors, through the dispatched kernel (AVX2
    /// where the machine has it) and the baseline build inlined here.
    func testRowKernelMatchesTheFloatPath() {
        var rng = SeededRandom(seed: 7)
        var bytes: [UInt8] = []
        for v in 0..<256 {
            for a in stride(from: 0, to: 256, by: 15) { bytes += [UInt8(v), UInt8(255 - v), UInt8((v * 7) & 255), UInt8(a)] }
        }
        for _ in 0..<4000 { bytes.append(UInt8(truncatingIfNeeded: rng.next())) }
        let total = bytes.count / 4
        for straight in [false, true] {
            for count in [1, 7, 8, 9, 15, 16, 17, total] {
                bytes.withUnsafeBufferPointer { b in
                    let expected = floatPath(b.baseAddress!, count: count, straight: straight)
                    var run = [UInt8](repeating: 0xAB, count: count + 1), inline = run
                    run.withUnsafeMutableBufferPointer { d in
                        pf_rgba8_to_gray8_row_run(b.baseAddress!, d.baseAddress!, count, straight ? 1 : 0)
                    }
                    inline.withUnsafeMutableBufferPointer { d in
                        pf_rgba8_to_gray8_row(b.baseAddress!, d.baseAddress!, count, straight ? 1 : 0)
                    }
                    XCTAssertEqual(Array(run[..<count]), expected, "dispatched, n=\(count) straight=\(straight)")
                    XCTAssertEqual(Array(inline[..<count]), expected, "baseline, n=\(count) straight=\(straight)")
                    XCTAssertEqual(run[count], 0xAB, "wrote past the row")
                }
            }
        }
    }

    func source(width: Int, height: Int, alpha: AlphaMode, encoding: ColorEncoding) throws -> PixelBuffer {
        var b = try PixelBuffer(width: width, height: height, format: .rgba8, colorEncoding: encoding, alphaMode: alpha)
        var rng = SeededRandom(seed: UInt64(width * 31 + height))
        b.withUnsafeMutableBytes { raw in
            for i in 0..<raw.count { raw[i] = UInt8(truncatingIfNeeded: rng.next()) }
        }
        return b
    }

    /// Whole images and sub-rects, tiles and threads of several sizes, both alpha modes, and
    /// sources that must keep the float path (sRGB decoding under color management).
    func testRenderIntoGrayMatchesTheFloatPath() throws {
        for (alpha, encoding, management) in [(AlphaMode.premultiplied, ColorEncoding.linear, RenderContext.ColorManagement.linear),
                                              (.straight, .linear, .linear), (.straight, .sRGB, .none),
                                              (.premultiplied, .sRGB, .linear)] {
            let src = try source(width: 203, height: 37, alpha: alpha, encoding: encoding)
            let decodes = management == .linear && encoding == .sRGB
            XCTAssertEqual(decodes, RenderContext.grayConversionSource(Image(src).node, target: .init(format: .gray8, colorEncoding: .linear, alphaMode: .straight, linear: management == .linear),
                                                                      linear: management == .linear) == nil)
            for (rect, threads, tile) in [(Rect(x: 0, y: 0, width: 203, height: 37), 1, 256),
                                          (Rect(x: 5, y: 3, width: 150, height: 20), 2, 16),
                                          (Rect(x: 190, y: 30, width: 13, height: 7), 3, 8)] {
                let context = RenderContext(threadCount: threads, tileWidth: tile, tileHeight: tile, colorManagement: management)
                var out = try PixelBuffer(width: Int(rect.width), height: Int(rect.height), format: .gray8,
                                          colorEncoding: .linear, alphaMode: .straight)
                try context.render(Image(src), rect: rect, to: &out)
                // Expected: the float path, row by row (sRGB-decoding sources keep it in the render).
                for y in 0..<Int(rect.height) {
                    let expected: [UInt8] = src.withUnsafeBytes { raw in
                        let row = raw.baseAddress!.assumingMemoryBound(to: UInt8.self)
                            + (Int(rect.y) + y) * src.bytesPerRow + Int(rect.x) * 4
                        return floatPath(row, count: Int(rect.width), straight: alpha == .straight, decode: decodes)
                    }
                    let got = out.withUnsafeBytes { raw in
                        Array(UnsafeBufferPointer(start: raw.baseAddress!.assumingMemoryBound(to: UInt8.self) + y * out.bytesPerRow,
                                                  count: Int(rect.width)))
                    }
                    XCTAssertEqual(got, expected, "\(alpha) \(encoding) \(management) rect \(rect) row \(y)")
                }
            }
        }
    }
}
