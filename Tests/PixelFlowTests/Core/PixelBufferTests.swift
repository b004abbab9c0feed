import XCTest
@testable import PixelFlow
@testable import PixelFlowKernels
@testable import PixelFlowGraph
@testable import PixelFlowCore
@testable import PixelFlowEngine

final class PixelBufferTests: XCTestCase {
    func testInvalidDimensionsThrow() {
        for (w, h) in [(0, 10), (10, 0), (-1, 5), (Int.max, 2), (1 << 20, 1 << 20)] {
            XCTAssertThrowsError(try PixelBuffer(width: w, height: h, format: .rgba8)) { e in
                guard case PixelFlowError.invalidDimensions = e else { return XCTFail("\(e)") }
            }
        }
    }

    func testDefaultsAndSubscript() throws {
        var b = try PixelBuffer(width: 3, height: 2, format: .rgba8)
        XCTAssertEqual(b.colorEncoding, .sRGB)
        XCTAssertEqual(b.alphaMode, .straight)
        XCTAssertEqual(b[2, 1], .zero)
        b[2, 1] = SIMD4(1, 0.5, 0, 1)
        XCTAssertEqual(b[2, 1], SIMD4(1, 128.0 / 255, 0, 1))
        let f = try PixelBuffer(width: 1, height: 1, format: .rgbaF32)
        XCTAssertEqual(f.colorEncoding, .linear)
        XCTAssertEqual(f.alphaMode, .premultiplied)
    }

    func testCopyOnWrite() throws {
        var a = try PixelBuffer(width: 2, height: 2, format: .rgbaF32)
        let b = a
        a[0, 0] = SIMD4(1, 1, 1, 1)
        XCTAssertEqual(b[0, 0], .zero)
        XCTAssertEqual(a[0, 0], SIMD4(1, 1, 1, 1))
    }

    /// Buffers of 4 MiB and more are mapped on their own (huge pages on Linux): zero when
    /// made, written and copied like small ones, and their memory returned (many allocated in
    /// turn). Below the threshold, the allocator; either way 64-byte aligned.
    func testLargeBuffersAreMappedZeroedAndCopyOnWrite() throws {
        let threshold = LargeAllocation.hugePageThreshold
        for (width, height) in [(1024, 1024), (1023, 1025), (1000, 1000), (4096, 1)] {
            var b = try PixelBuffer(width: width, height: height, format: .rgba8)
            let bytes = b.bytesPerRow * height
            let pointer = b.withUnsafeBytes { Int(bitPattern: $0.baseAddress!) }
            XCTAssertEqual(pointer % 64, 0)
            #if os(Linux)
                XCTAssertEqual(pointer % (2 << 20) == 0, bytes >= threshold, "\(width)x\(height): \(bytes) bytes")
            #endif
            XCTAssertTrue(b.withUnsafeBytes { $0.allSatisfy { $0 == 0 } }, "\(width)x\(height) not zero")
            let copy = b
            b[width - 1, height - 1] = SIMD4(1, 0.5, 0, 1)
            XCTAssertEqual(copy[width - 1, height - 1], .zero)
            XCTAssertEqual(b[width - 1, height - 1], SIMD4(1, 128.0 / 255, 0, 1))
            XCTAssertEqual(b.converted(to: .rgbaF32).converted(to: .rgba8), b)
        }
        // 64 buffers of 16 MiB in turn, each filled with garbage: 1 GiB if every mapping were
        // kept. A freed mapping is reused (the same address), and a buffer made from it is zero.
        var addresses = Set<Int>()
        for i in 0..<64 {
            var b = try PixelBuffer(width: 2048, height: 2048, format: .rgba8, alphaMode: .premultiplied)
            XCTAssertTrue(b.withUnsafeBytes { $0.allSatisfy { $0 == 0 } }, "buffer \(i) not zero")
            b.withUnsafeMutableBytes { $0.initializeMemory(as: UInt8.self, repeating: 0xA5) }
            addresses.insert(b.withUnsafeBytes { Int(bitPattern: $0.baseAddress!) })
        }
        #if os(Linux)
            XCTAssertEqual(addresses.count, 1, "freed mappings reused")
            XCTAssertLessThanOrEqual(LargeAllocation.cachedBytes, LargeAllocation.cachedMappingLimit * (16 << 20))
            // A request no cached mapping fits (64 MiB) unmaps them first.
            _ = try PixelBuffer(width: 4096, height: 4096, format: .rgba8)
            XCTAssertLessThanOrEqual(LargeAllocation.cachedBytes, 64 << 20)
            LargeAllocation.releaseCachedMappings()
            XCTAssertEqual(LargeAllocation.cachedBytes, 0)
        #endif
    }

    func testQuantizationRoundsHalfUpAndClamps() throws {
        var b = try PixelBuffer(width: 4, height: 1, format: .rgba8)
        b[0, 0] = SIMD4(-1, 2, .nan, 0.5 / 255)
        XCTAssertEqual(b[0, 0], SIMD4(0, 1, 0, 1.0 / 255))
    }

    /// Every 8-bit value survives decode to linear and encode back, through the table and
    /// through a full buffer conversion.
    func testSRGBRoundTripsEvery8BitValue() throws {
        for v in 0..<256 {
            XCTAssertEqual(SRGB.encode8(SRGB.decodeTable[v]), UInt8(v), "value \(v)")
            let viaFormula = SRGB.toLinear(Float(v) / 255)
            XCTAssertEqual(SRGB.decodeTable[v], viaFormula, accuracy: 1e-6)
        }
        var b = try PixelBuffer(width: 256, height: 1, format: .rgba8)
        for v in 0..<256 { b[v, 0] = SIMD4(Float(v) / 255, Float(255 - v) / 255, Float(v) / 255, 1) }
        let linear = b.converted(to: .rgbaF32, colorEncoding: .linear, alphaMode: .straight)
        XCTAssertEqual(linear[255, 0].x, 1)
        let back = linear.converted(to: .rgba8, colorEncoding: .sRGB, alphaMode: .straight)
        XCTAssertEqual(back, b)
        // And through a render with color management on.
        let rendered = try RenderContext().makeBuffer(Image(b))
        XCTAssertEqual(rendered, b)
    }

    func testEncoderPicksNearestCode() {
        // Between two codes, the encoder must choose the nearer one in the encoded domain.
        var rng = SeededRandom(seed: 7)
        for _ in 0..<20000 {
            let v = rng.unit()
            let expected = UInt8(min(255, max(0, (SRGB.fromLinear(v) * 255).rounded())))
            let got = SRGB.encode8(v)
            XCTAssertLessThanOrEqual(abs(Int(got) - Int(expected)), 1)
            if got != expected {
                // Only allowed when v is within float rounding of a decision threshold.
                let mid = (Float(min(got, expected)) + 0.5) / 255
                XCTAssertEqual(SRGB.fromLinear(v), mid, accuracy: 1e-5)
            }
        }
    }

    func testFormatConversionsRoundTrip() throws {
        let src = TestImages.random(width: 17, height: 5, format: .rgba8, seed: 3)
        for f in [PixelFormat.rgba16, .rgbaF32] {
            let there = src.converted(to: f, colorEncoding: .sRGB, alphaMode: .straight)
            let back = there.converted(to: .rgba8)
            XCTAssertEqual(back, src, "via \(f)")
        }
        let g = src.converted(to: .gray8)
        let expected = 0.2126 * src[4, 2].x + 0.7152 * src[4, 2].y + 0.0722 * src[4, 2].z
        XCTAssertEqual(g[4, 2].x, (expected * 255).rounded() / 255, accuracy: 1.0 / 255)
        let gf = g.converted(to: .grayF32)
        XCTAssertEqual(gf.converted(to: .gray8), g)
    }

    func testPremultiplyAndUnpremultiply() throws {
        var b = try PixelBuffer(width: 2, height: 1, format: .rgbaF32, colorEncoding: .sRGB, alphaMode: .straight)
        b[0, 0] = SIMD4(0.8, 0.4, 0.2, 0.5)
        b[1, 0] = SIMD4(0.8, 0.4, 0.2, 0)
        let p = b.premultiplied()
        XCTAssertEqual(p[0, 0], SIMD4(0.4, 0.2, 0.1, 0.5))
        XCTAssertEqual(p[1, 0], .zero)
        XCTAssertEqual(p.unpremultiplied()[0, 0], SIMD4(0.8, 0.4, 0.2, 0.5))
    }
}
