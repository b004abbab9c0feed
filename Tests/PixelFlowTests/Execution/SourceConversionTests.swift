import CSIMD
import XCTest
@testable import PixelFlow
@testable import PixelFlowKernels
@testable import PixelFlowGraph
@testable import PixelFlowEngine

/// Rendering a source as it is into a buffer of another format converts each row in one pass
/// (`RenderContext.sourceConversion`): 8-bit RGBA to gray8 (`pf_rgba8_to_gray8_row_run`) and
/// premultiplied float RGBA to 8-bit (`pf_store_rgba8_row_run`). Tolerance 0: the bytes must be
/// those of the float path they replace, loading the row to working values (`loadRowRGBA`, then
/// `premultiplyRow` for straight alpha) and storing it (`storeRowRGBA`), which
/// KernelReferenceTests checks against the luma formula and `_quantize8`.
final class SourceConversionTests: XCTestCase {
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
                    storeRowRGBA(
                        r.baseAddress!, count: count, format: .gray8, into: o.baseAddress!, encodeSRGB: false,
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
        for (alpha, encoding, management) in [
            (AlphaMode.premultiplied, ColorEncoding.linear, RenderContext.ColorManagement.linear),
            (.straight, .linear, .linear), (.straight, .sRGB, .none),
            (.premultiplied, .sRGB, .linear),
        ] {
            let src = try source(width: 203, height: 37, alpha: alpha, encoding: encoding)
            let decodes = management == .linear && encoding == .sRGB
            XCTAssertEqual(
                decodes,
                RenderContext.sourceConversion(
                    Image(src).node,
                    target: .init(format: .gray8, colorEncoding: .linear, alphaMode: .straight, linear: management == .linear),
                    linear: management == .linear) == nil)
            for (rect, threads, tile) in [
                (Rect(x: 0, y: 0, width: 203, height: 37), 1, 256),
                (Rect(x: 5, y: 3, width: 150, height: 20), 2, 16),
                (Rect(x: 190, y: 30, width: 13, height: 7), 3, 8),
            ] {
                // The byte path's grayscale form (ByteColorTests) is within 1 unit; this checks the
                // conversion of the float path, which is exact.
                var options = RenderContext.Options(
                    threadCount: threads, tileWidth: tile, tileHeight: tile, colorManagement: management)
                options.usesBytePath = false
                var out = try PixelBuffer(
                    width: Int(rect.width), height: Int(rect.height), format: .gray8,
                    colorEncoding: .linear, alphaMode: .straight)
                try RenderContext(options: options).render(Image(src), rect: rect, to: &out)
                var bytes = out
                options.usesBytePath = true
                try RenderContext(options: options).render(Image(src), rect: rect, to: &bytes)
                bytes.withUnsafeBytes { b in
                    out.withUnsafeBytes { f in
                        XCTAssertLessThanOrEqual(zip(b, f).map { abs(Int($0) - Int($1)) }.max() ?? 0, 1)
                    }
                }
                // Expected: the float path, row by row (sRGB-decoding sources keep it in the render).
                for y in 0..<Int(rect.height) {
                    let expected: [UInt8] = src.withUnsafeBytes { raw in
                        let row =
                            raw.baseAddress!.assumingMemoryBound(to: UInt8.self)
                            + (Int(rect.y) + y) * src.bytesPerRow + Int(rect.x) * 4
                        return floatPath(row, count: Int(rect.width), straight: alpha == .straight, decode: decodes)
                    }
                    let got = out.withUnsafeBytes { raw in
                        Array(
                            UnsafeBufferPointer(
                                start: raw.baseAddress!.assumingMemoryBound(to: UInt8.self) + y * out.bytesPerRow,
                                count: Int(rect.width)))
                    }
                    XCTAssertEqual(got, expected, "\(alpha) \(encoding) \(management) rect \(rect) row \(y)")
                }
            }
        }
    }

    /// Float rows with the values that test the quantizer's rounding and clamping, through the
    /// dispatched store (AVX2 where the machine has it) and the baseline build inlined here, in
    /// the three byte orders.
    func testRGBA8StoreMatchesTheScalarQuantizer() {
        var rng = SeededRandom(seed: 11)
        var values: [Float] = [0, -0, 1, -1, 0.5, .nan, .infinity, -.infinity, 1e-30, 255.5 / 255, 2, .greatestFiniteMagnitude]
        for c in 0..<256 {
            let mid = (Float(c) - 0.5) / 255
            values += [mid, mid.nextDown, mid.nextUp, Float(c) / 255]
        }
        for _ in 0..<2000 { values.append(rng.unit() * 1.4 - 0.2) }
        while values.count % 4 != 0 { values.append(0.25) }
        let pixels = stride(from: 0, to: values.count, by: 4).map {
            SIMD4(values[$0], values[$0 + 1], values[$0 + 2], values[$0 + 3])
        }
        for count in [1, 7, 8, 9, 16, 17, pixels.count] {
            var run = [UInt8](repeating: 0xAB, count: 4 * count + 1), inline = run
            pixels.withUnsafeBufferPointer { p in
                run.withUnsafeMutableBufferPointer { pf_store_rgba8_row_run(p.baseAddress!, $0.baseAddress!, count) }
                inline.withUnsafeMutableBufferPointer { pf_store_rgba8_row(p.baseAddress!, $0.baseAddress!, count) }
            }
            for i in 0..<count {
                let q = PixelBuffer._quantize8(pixels[i])
                for ch in 0..<4 where run[4 * i + ch] != q[ch] || inline[4 * i + ch] != q[ch] {
                    XCTFail(
                        "n=\(count) pixel \(i) channel \(ch) (\(pixels[i][ch])): \(run[4 * i + ch]), \(inline[4 * i + ch]), expected \(q[ch])"
                    )
                    return
                }
            }
            XCTAssertEqual(run[4 * count], 0xAB, "wrote past the row")
            // The other byte orders: the same quantized channels at the order's positions.
            for (order, positions) in [(Int32(PF_ORDER_BGRA), [2, 1, 0, 3]), (Int32(PF_ORDER_ARGB), [1, 2, 3, 0])] {
                var ordered = [UInt8](repeating: 0xAB, count: 4 * count + 1)
                pixels.withUnsafeBufferPointer { p in
                    ordered.withUnsafeMutableBufferPointer { pf_store_4x8_row_run(p.baseAddress!, $0.baseAddress!, count, order) }
                }
                for i in 0..<count {
                    let q = PixelBuffer._quantize8(pixels[i])
                    for ch in 0..<4 where ordered[4 * i + positions[ch]] != q[ch] {
                        XCTFail(
                            "order \(order) n=\(count) pixel \(i) channel \(ch): \(ordered[4 * i + positions[ch]]) != \(q[ch])")
                        return
                    }
                }
                XCTAssertEqual(ordered[4 * count], 0xAB, "order \(order) wrote past the row")
            }
        }
    }

    /// The non-temporal row kernels store what the plain ones store, for every length and
    /// alignment of the destination (the AVX2 kernels stream once it is 32-byte aligned).
    func testStreamingRowKernelsStoreThePlainValues() {
        var rng = SeededRandom(seed: 21)
        let bytes = (0..<4 * 80).map { _ in UInt8(truncatingIfNeeded: rng.next() >> 13) }
        var floats = (0..<4 * 80).map { _ in rng.unit() * 1.4 - 0.2 }
        floats[5] = .nan
        floats[9] = (Float(77) - 0.5) / 255
        let pixels = stride(from: 0, to: floats.count, by: 4).map {
            SIMD4(floats[$0], floats[$0 + 1], floats[$0 + 2], floats[$0 + 3])
        }
        for count in [0, 1, 7, 8, 9, 16, 17, 33, 71] {
            for offset in 0..<8 {
                // Loads: 8-bit source into floats at `offset` pixels past a 64-byte boundary.
                let loaded = UnsafeMutablePointer<SIMD4<Float>>.allocate(capacity: count + 9)
                defer { loaded.deallocate() }
                loaded.initialize(repeating: SIMD4(repeating: -7), count: count + 9)
                bytes.withUnsafeBufferPointer { pf_load_rgba8_row_stream_run($0.baseAddress!, loaded + offset, count) }
                for i in 0..<count {
                    let expected = SIMD4<Float>((0..<4).map { Float(bytes[4 * i + $0]) * (1 / 255) })
                    if loaded[offset + i] != expected {
                        XCTFail("load n=\(count) offset \(offset) pixel \(i): \(loaded[offset + i]) != \(expected)")
                        return
                    }
                }
                XCTAssertEqual(loaded[offset + count], SIMD4(repeating: -7), "load wrote past the row")
                // Stores: floats into bytes at `offset` bytes past a 64-byte boundary.
                let raw = UnsafeMutableRawPointer.allocate(byteCount: 4 * count + 72, alignment: 64)
                defer { raw.deallocate() }
                let stored = raw.assumingMemoryBound(to: UInt8.self)
                stored.initialize(repeating: 0xAB, count: 4 * count + 72)
                pixels.withUnsafeBufferPointer { pf_store_rgba8_row_stream_run($0.baseAddress!, stored + 4 * offset, count) }
                for i in 0..<count {
                    let q = PixelBuffer._quantize8(pixels[i])
                    for ch in 0..<4 where stored[4 * (offset + i) + ch] != q[ch] {
                        XCTFail(
                            "store n=\(count) offset \(offset) pixel \(i) channel \(ch): \(stored[4 * (offset + i) + ch]) != \(q[ch])"
                        )
                        return
                    }
                }
                XCTAssertEqual(stored[4 * (offset + count)], 0xAB, "store wrote past the row")
            }
        }
    }

    /// Conversions large enough to store non-temporally (`nonTemporalConversionBytes`) give the
    /// same bytes as the definition, on 1 and 2 threads: an 8-bit source into floats, and
    /// floats back into 8 bits.
    func testLargeConversionsStoreNonTemporallyWithTheSameValues() throws {
        let width = 1901, height = 1799
        let rect = IntRect(x: 0, y: 0, width: width, height: height)
        XCTAssertTrue(RenderContext.streamsConversion(rect, from: .rgba8, to: .rgbaF32))
        XCTAssertTrue(RenderContext.streamsConversion(rect, from: .rgbaF32, to: .rgba8))
        XCTAssertFalse(
            RenderContext.streamsConversion(IntRect(x: 0, y: 0, width: 1920, height: 1080), from: .rgba8, to: .rgbaF32))
        var bytes = try PixelBuffer(width: width, height: height, format: .rgba8, alphaMode: .premultiplied)
        var rng = SeededRandom(seed: 8)
        bytes.withUnsafeMutableBytes { raw in for i in 0..<raw.count { raw[i] = UInt8(truncatingIfNeeded: rng.next() >> 17) } }
        for threads in [1, 2] {
            let context = RenderContext(threadCount: threads, colorManagement: .none)
            var floats = try PixelBuffer(width: width, height: height, format: .rgbaF32, alphaMode: .premultiplied)
            try context.render(Image(bytes), rect: bytes.bounds, to: &floats)
            var back = try PixelBuffer(width: width, height: height, format: .rgba8, alphaMode: .premultiplied)
            try context.render(Image(floats), rect: floats.bounds, to: &back)
            // v / 255 for every stored value; quantizing it gives the byte back.
            let mismatch: String? = bytes.withUnsafeBytes { b in
                floats.withUnsafeBytes { f -> String? in
                    let fv = f.bindMemory(to: Float.self)
                    for y in 0..<height {
                        for x in 0..<width * 4
                        where fv[y * floats.bytesPerRow / 4 + x] != Float(b[y * bytes.bytesPerRow + x]) * (1 / 255) {
                            return "float (\(x / 4), \(y)) channel \(x % 4)"
                        }
                    }
                    return nil
                }
            }
            XCTAssertNil(mismatch, "\(threads) threads")
            XCTAssertTrue(back == bytes, "\(threads) threads: the 8-bit round trip differs")
        }
    }

    /// A premultiplied float source rendered into 8-bit RGBA, against the float path.
    func testRenderFloatIntoRGBA8MatchesTheFloatPath() throws {
        var src = try PixelBuffer(width: 131, height: 21, format: .rgbaF32, colorEncoding: .linear, alphaMode: .premultiplied)
        var rng = SeededRandom(seed: 5)
        src.withUnsafeMutableBytes { raw in
            let f = raw.bindMemory(to: Float.self)
            for i in 0..<f.count { f[i] = rng.unit() * 1.2 - 0.1 }
        }
        for alpha in [AlphaMode.premultiplied, .straight] {
            XCTAssertEqual(
                alpha == .premultiplied,
                RenderContext.sourceConversion(
                    Image(src).node, target: .init(format: .rgba8, colorEncoding: .linear, alphaMode: alpha, linear: true),
                    linear: true) != nil)
            for (rect, threads, tile) in [
                (Rect(x: 0, y: 0, width: 131, height: 21), 2, 64), (Rect(x: 3, y: 2, width: 100, height: 9), 3, 8),
            ] {
                let context = RenderContext(threadCount: threads, tileWidth: tile, tileHeight: tile)
                var out = try PixelBuffer(
                    width: Int(rect.width), height: Int(rect.height), format: .rgba8,
                    colorEncoding: .linear, alphaMode: alpha)
                try context.render(Image(src), rect: rect, to: &out)
                for y in 0..<Int(rect.height) {
                    for x in 0..<Int(rect.width) {
                        var p = src.withUnsafeBytes { raw in
                            raw.baseAddress!.assumingMemoryBound(to: SIMD4<Float>.self)[
                                (Int(rect.y) + y) * src.bytesPerRow / 16 + Int(rect.x) + x]
                        }
                        if alpha == .straight {
                            var row = [p]
                            row.withUnsafeMutableBufferPointer { unpremultiplyRow($0.baseAddress!, count: 1) }
                            p = row[0]
                        }
                        let got = out.withUnsafeBytes { raw in
                            (0..<4).map { raw[y * out.bytesPerRow + 4 * x + $0] }
                        }
                        let q = PixelBuffer._quantize8(p)
                        if got != [q[0], q[1], q[2], q[3]] {
                            XCTFail("\(alpha) rect \(rect) pixel (\(x), \(y)): \(got) != \(q)")
                            return
                        }
                    }
                }
            }
        }
    }

    /// A straight-alpha pixel with alpha 0 is transparent black whatever color it stores: a
    /// color chain reading the source directly must not show that color when a kernel raises
    /// alpha (here an alpha bias of 1). Each form of the chain (a lone matrix: a point program;
    /// a matrix and posterize: kernels chunk by chunk) and each source (rgba8 sRGB, rgbaF32
    /// read in place) gives opaque black there, as the reference does.
    func testColorHiddenUnderZeroAlphaStaysHidden() throws {
        for format in [PixelFormat.rgba8, .rgbaF32] {
            var b = try PixelBuffer(
                width: 37, height: 3, format: format, colorEncoding: format == .rgba8 ? .sRGB : .linear,
                alphaMode: .straight)
            for y in 0..<3 {
                for x in 0..<37 {
                    b[x, y] = x % 2 == 0 ? SIMD4(1, 0.5, 0.25, 0) : SIMD4(0.2, 0.6, 0.4, 1)
                }
            }
            let raised = try Image(b).colorMatrix(bias: SIMD4(0, 0, 0, 1))
            for (name, image) in [("matrix", raised), ("matrix + posterize", try raised.colorPosterized(levels: 6))] {
                let expected = try ReferenceEvaluator.render(image, colorEncoding: .sRGB, alphaMode: .premultiplied)
                for threads in [1, 2] {
                    let out = try RenderContext(threadCount: threads).makeBuffer(
                        image, format: .rgbaF32, colorEncoding: .sRGB,
                        alphaMode: .premultiplied)
                    for y in 0..<3 {
                        for x in 0..<37 {
                            let v = out[x, y], e = expected[x, y], d = v - e
                            XCTAssertLessThan(
                                max(abs(d.x), abs(d.y), abs(d.z), abs(d.w)), 1e-4, "\(format) \(name) (\(x), \(y)): \(v) vs \(e)")
                            if x % 2 == 0 {
                                XCTAssertEqual(v, SIMD4(0, 0, 0, 1), "\(format) \(name): the hidden color shows at \(x)")
                            }
                        }
                    }
                }
            }
        }
    }
}
