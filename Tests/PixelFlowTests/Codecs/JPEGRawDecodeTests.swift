import CCodecShims
import CSIMD
import Foundation
import XCTest
@testable import PixelFlow

/// JPEG decoding on several threads (`_JPEGRawPipeline`: libjpeg-turbo's raw planes, then
/// PixelFlow's upsampling and color kernel `pf_jpeg_ycc_to_rgba8_row`).
///
/// Oracles: the kernel against a plain scalar transcription of libjpeg-turbo's fancy
/// upsampling and fixed-point color conversion written here, and every decoded file against
/// the one-thread decode (`threadCount = 1`: libjpeg-turbo's own `jpeg_read_scanlines`, which
/// shares no code with the pipeline), byte for byte: files written by PixelFlow's encoder at
/// test time (every subsampling it writes, sides 1...33 for the edge MCUs, qualities,
/// restart markers, progressive) and by Pillow and OpenCV (Fixtures/JPEGRaw, made by
/// scripts/make_jpeg_raw_fixtures.py; OpenCV's 4:4:0 and 4:1:1 among them).
final class JPEGRawDecodeTests: XCTestCase {
    private typealias S = CodecTestSupport

    // MARK: - The kernel against a scalar reference

    private static func clamp(_ v: Int) -> UInt8 { UInt8(Swift.max(0, Swift.min(255, v))) }

    /// libjpeg-turbo's jdcolor.c conversion, computed directly (not from its tables).
    private static func rgb(_ y: UInt8, _ cb: UInt8, _ cr: UInt8) -> [UInt8] {
        let b = Int(cb) - 128, r = Int(cr) - 128
        return [
            clamp(Int(y) + ((91881 * r + 32768) >> 16)),
            clamp(Int(y) + ((-22554 * b - 46802 * r + 32768) >> 16)),
            clamp(Int(y) + ((116130 * b + 32768) >> 16)), 255,
        ]
    }

    /// One output row's upsampled chroma, sample by sample, as jdsample.c's h2v1, h1v2 and
    /// h2v2 fancy upsamplers give it.
    private static func upsampled(
        near: [UInt8], far: [UInt8], halfWidth: Bool, halfHeight: Bool, farBelow: Bool, width: Int
    ) -> [UInt8] {
        let n = near.count
        var vertical = [Int](repeating: 0, count: n)  // 3 near + far, or 4 near when not halved
        for i in 0..<n { vertical[i] = halfHeight ? 3 * Int(near[i]) + Int(far[i]) : 4 * Int(near[i]) }
        var out = [UInt8](repeating: 0, count: width)
        for x in 0..<width {
            if !halfWidth {
                out[x] = halfHeight ? UInt8((vertical[x] + (farBelow ? 2 : 1)) >> 2) : near[x]
                continue
            }
            let i = x / 2
            if !halfHeight {
                let c = Int(near[i])
                if x == 0 || x == 2 * n - 1 { out[x] = near[i]; continue }
                out[x] = x % 2 == 0 ? UInt8((3 * c + Int(near[i - 1]) + 1) >> 2) : UInt8((3 * c + Int(near[i + 1]) + 2) >> 2)
            } else {
                let s = vertical[i]
                if x == 0 { out[x] = UInt8((4 * s + 8) >> 4); continue }
                if x == 2 * n - 1 { out[x] = UInt8((4 * s + 7) >> 4); continue }
                out[x] = x % 2 == 0 ? UInt8((3 * s + vertical[i - 1] + 8) >> 4) : UInt8((3 * s + vertical[i + 1] + 7) >> 4)
            }
        }
        return out
    }

    func testKernelMatchesScalarReference() {
        var rng = SeededRandom(seed: 20)
        func plane(_ n: Int) -> [UInt8] { (0..<n).map { _ in UInt8(truncatingIfNeeded: rng.next()) } }
        for (halfWidth, halfHeight) in [(false, false), (true, false), (false, true), (true, true)] {
            for width in Array(1...80) + [127, 128, 129, 255, 1001] {
                let n = halfWidth ? (width + 1) / 2 : width
                if halfWidth && n < 3 { continue }
                for farBelow in [false, true] {
                    let y = plane(width), cb = plane(n), cbFar = plane(n), cr = plane(n), crFar = plane(n)
                    var scratch = [UInt8](repeating: 0, count: 4 * (width + 4))
                    var out = [UInt8](repeating: 0, count: 4 * width)
                    pf_jpeg_ycc_to_rgba8_row(
                        y, cb, cbFar, cr, crFar, width, n, halfWidth ? 1 : 0, halfHeight ? 1 : 0, farBelow ? 1 : 0,
                        &scratch, &out)
                    let ub = Self.upsampled(
                        near: cb, far: cbFar, halfWidth: halfWidth, halfHeight: halfHeight, farBelow: farBelow,
                        width: width)
                    let ur = Self.upsampled(
                        near: cr, far: crFar, halfWidth: halfWidth, halfHeight: halfHeight, farBelow: farBelow,
                        width: width)
                    let expected = (0..<width).flatMap { Self.rgb(y[$0], ub[$0], ur[$0]) }
                    XCTAssertEqual(out, expected, "width \(width) h2 \(halfWidth) v2 \(halfHeight) below \(farBelow)")
                }
            }
        }
    }

    /// Extreme chroma: every Cb, Cr pair with Y at 0, 128 and 255 (the clamps and rounding).
    func testKernelColorTableExhaustive() {
        let count = 256 * 256
        for luma in [UInt8(0), 128, 255] {
            let y = [UInt8](repeating: luma, count: count)
            let cb = (0..<count).map { UInt8($0 & 255) }, cr = (0..<count).map { UInt8($0 >> 8) }
            var scratch = [UInt8](repeating: 0, count: 4 * (count + 4))
            var out = [UInt8](repeating: 0, count: 4 * count)
            pf_jpeg_ycc_to_rgba8_row(y, cb, cb, cr, cr, count, count, 0, 0, 0, &scratch, &out)
            for i in 0..<count where Array(out[4 * i..<4 * i + 4]) != Self.rgb(luma, cb[i], cr[i]) {
                XCTFail("Y \(luma) Cb \(cb[i]) Cr \(cr[i])")
                return
            }
        }
    }

    // MARK: - Files against libjpeg-turbo's own decode

    /// Smooth shading plus noise, as photographs look to a JPEG encoder.
    private func photo(width: Int, height: Int, seed: UInt64) -> PixelBuffer {
        var rng = SeededRandom(seed: seed)
        var b = try! PixelBuffer(width: width, height: height, format: .rgba8)
        b.withUnsafeMutableRows { y, row in
            let p = row.assumingMemoryBound(to: UInt8.self)
            for x in 0..<width {
                let u = Double(x) / Double(max(1, width)), v = Double(y) / Double(max(1, height))
                let base = [0.5 + 0.45 * sin(11 * u + 5 * v), v, 0.5 + 0.45 * cos(9 * u * v + 2 * u)]
                for c in 0..<3 {
                    let n = (Double(rng.next() % 1000) / 1000 - 0.5) * 0.3
                    p[4 * x + c] = UInt8(max(0, min(255, (base[c] + n) * 255)))
                }
                p[4 * x + 3] = 255
            }
        }
        return b
    }

    /// The pixels of `b`, row after row (no row padding).
    private static func pixels(_ b: PixelBuffer) -> [UInt8] {
        var out: [UInt8] = []
        let rowBytes = b.width * b.format.bytesPerPixel
        b.withUnsafeRows { _, row in out += UnsafeRawBufferPointer(start: row, count: rowBytes) }
        return out
    }

    private func decode(_ bytes: [UInt8], threads: Int) throws -> PixelBuffer {
        var options = DecodeOptions.default
        options.threadCount = threads
        return try PixelBuffer(encoded: bytes, options: options)
    }

    /// Whether the multi-thread decode of `bytes` takes the raw route.
    private func usesRawRoute(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBufferPointer { input -> Bool in
            guard let decoder = pf_jpeg_decoder_create(input.baseAddress, input.count, 1000) else { return false }
            defer { pf_jpeg_decoder_destroy(decoder) }
            var header = pf_jpeg_header()
            var message = [CChar](repeating: 0, count: Int(PF_MESSAGE_CAPACITY))
            guard pf_jpeg_read_header(decoder, &header, nil, &message) == PF_OK else { return false }
            return pf_jpeg_raw_supported(decoder) != 0
        }
    }

    /// `bytes` decoded on 2 and 3 threads equals the one-thread decode, byte for byte.
    private func checkSameAsOneThread(_ bytes: [UInt8], _ label: String, file: StaticString = #filePath, line: UInt = #line)
        throws
    {
        let one = try decode(bytes, threads: 1)
        for threads in [2, 3] {
            let many = try decode(bytes, threads: threads)
            XCTAssertEqual(many.width, one.width, label, file: file, line: line)
            XCTAssertEqual(many.height, one.height, label, file: file, line: line)
            if Self.pixels(many) != Self.pixels(one) {
                XCTFail("\(label), \(threads) threads: pixels differ from libjpeg-turbo's", file: file, line: line)
                return
            }
        }
    }

    func testEncodedFilesEverySideAndSubsampling() throws {
        let sides = [1, 2, 3, 4, 5, 6, 7, 8, 9, 13, 15, 16, 17, 23, 31, 32, 33]
        var raw = 0
        for chroma in [EncodeOptions.ChromaSubsampling.yuv420, .yuv422, .yuv444] {
            for (k, w) in sides.enumerated() {
                for h in [sides[k % sides.count], sides[(k * 7 + 3) % sides.count], 33, 1] {
                    let b = photo(width: w, height: h, seed: UInt64(w * 100 + h))
                    let bytes = try b.encoded(
                        as: .jpeg, quality: [30, 75, 90, 100][(w + h) % 4],
                        options: EncodeOptions(chromaSubsampling: chroma, threadCount: 1))
                    if usesRawRoute(bytes) { raw += 1 }
                    try checkSameAsOneThread(bytes, "\(chroma) \(w)x\(h)")
                }
            }
        }
        // Only the narrowest halved-chroma images (Cb 1 or 2 samples wide) fall back.
        XCTAssertGreaterThan(raw, 170)
    }

    func testProgressiveAndRestartMarkers() throws {
        for chroma in [EncodeOptions.ChromaSubsampling.yuv420, .yuv422, .yuv444] {
            for (w, h) in [(97, 61), (256, 130), (33, 200)] {
                let b = photo(width: w, height: h, seed: UInt64(w + h))
                var options = EncodeOptions(chromaSubsampling: chroma, threadCount: 2)
                options.restartMarkers = true
                let restart = try b.encoded(as: .jpeg, quality: 85, options: options)
                options.restartMarkers = false
                let plain = try b.encoded(as: .jpeg, quality: 85, options: options)
                options.progressive = true
                let progressive = try b.encoded(as: .jpeg, quality: 85, options: options)
                for (kind, bytes) in [("restart", restart), ("plain", plain), ("progressive", progressive)] {
                    XCTAssertTrue(usesRawRoute(bytes), "\(kind) \(chroma) \(w)x\(h)")
                    try checkSameAsOneThread(bytes, "\(kind) \(chroma) \(w)x\(h)")
                }
            }
        }
    }

    /// A larger image: bands across many iMCU rows, every thread count up to 4.
    func testLargeImageAcrossThreadCounts() throws {
        let b = photo(width: 1001, height: 777, seed: 3)
        for chroma in [EncodeOptions.ChromaSubsampling.yuv420, .yuv444] {
            let bytes = try b.encoded(as: .jpeg, quality: 92, options: EncodeOptions(chromaSubsampling: chroma))
            let one = Self.pixels(try decode(bytes, threads: 1))
            for threads in 2...4 { XCTAssertEqual(Self.pixels(try decode(bytes, threads: threads)), one, "\(chroma) \(threads)") }
        }
    }

    /// The row decoder of streamed sources, asked for rows in uneven chunks (across iMCU
    /// rows, one row at a time, the rest at once): the pixels of the one-thread decode; a
    /// shrink-on-load decoder (DCT scaling, libjpeg's route) still works.
    func testRowDecoderInChunks() throws {
        let b = photo(width: 203, height: 151, seed: 4)
        for chroma in [EncodeOptions.ChromaSubsampling.yuv420, .yuv422, .yuv444] {
            let bytes = try b.encoded(as: .jpeg, quality: 88, options: EncodeOptions(chromaSubsampling: chroma))
            let expected = Self.pixels(try decode(bytes, threads: 1))
            for threads in [1, 2, 3] {
                var options = DecodeOptions.default
                options.threadCount = threads
                let decoder = try _JPEGRowDecoder(bytes: bytes, name: "chunks", options: options)
                var out = [UInt8](repeating: 0, count: 203 * 151 * 4)
                var y = 0
                for chunk in [1, 7, 16, 33, 1, 1, 9, 151] {
                    let n = min(chunk, 151 - y)
                    out.withUnsafeMutableBytes { o in
                        try! decoder.readRows(count: n) { o.baseAddress! + (y + $0) * 203 * 4 }
                    }
                    y += n
                }
                XCTAssertEqual(y, 151)
                XCTAssertEqual(out, expected, "\(chroma) \(threads) threads")
            }
            var options = DecodeOptions.default
            options.threadCount = 2
            let half = try _JPEGRowDecoder(bytes: bytes, name: "half", options: options, shrinkFactor: 2)
            XCTAssertEqual(half.width, 102)
            var rows = [UInt8](repeating: 0, count: 102 * 76 * 4)
            try rows.withUnsafeMutableBytes { o in try half.readRows(count: 76) { o.baseAddress! + $0 * 102 * 4 } }
            XCTAssertGreaterThan(Set(rows).count, 50)
        }
    }

    func testThreadCountBelowOneThrows() throws {
        let bytes = try photo(width: 40, height: 30, seed: 6).encoded(as: .jpeg)
        XCTAssertThrowsError(try decode(bytes, threads: 0)) {
            guard case PixelFlowError.invalidParameter = $0 else { return XCTFail("\($0)") }
        }
        var options = DecodeOptions.default
        options.threadCount = -1
        XCTAssertThrowsError(try _JPEGRowDecoder(bytes: bytes, name: "t", options: options))
    }

    /// A truncated file read by the row decoder throws from `readRows`, on every thread count.
    func testRowDecoderTruncatedThrows() throws {
        let b = photo(width: 120, height: 90, seed: 5)
        let bytes = try b.encoded(as: .jpeg, quality: 90, options: EncodeOptions(chromaSubsampling: .yuv420))
        for threads in [1, 2] {
            var options = DecodeOptions.default
            options.threadCount = threads
            let decoder = try _JPEGRowDecoder(bytes: Array(bytes[..<(bytes.count / 2)]), name: "cut", options: options)
            var out = [UInt8](repeating: 0, count: 120 * 90 * 4)
            XCTAssertThrowsError(
                try out.withUnsafeMutableBytes { o in try decoder.readRows(count: 90) { o.baseAddress! + $0 * 120 * 4 } })
        }
    }

    private func fixtures() throws -> [URL] {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/JPEGRaw")
        return try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "jpg" }.sorted { $0.path < $1.path }
    }

    /// Files written by Pillow and OpenCV: the route they take and their pixels.
    func testPillowAndOpenCVFixtures() throws {
        let files = try fixtures()
        XCTAssertGreaterThanOrEqual(files.count, 20)
        var raw: Set<String> = []
        for url in files {
            let bytes = [UInt8](try Data(contentsOf: url))
            let name = url.lastPathComponent
            if usesRawRoute(bytes) { raw.insert(name) }
            try checkSameAsOneThread(bytes, name)
        }
        // 4:4:0 takes the raw route; 4:1:1 and grayscale fall back to libjpeg's.
        XCTAssertTrue(files.contains { raw.contains($0.lastPathComponent) && $0.lastPathComponent.contains("440") })
        XCTAssertTrue(files.contains { !raw.contains($0.lastPathComponent) && $0.lastPathComponent.contains("411") })
        XCTAssertTrue(files.contains { !raw.contains($0.lastPathComponent) && $0.lastPathComponent.contains("gray") })
    }

    // MARK: - Bad input

    /// Truncated and corrupted files throw on every thread count (the raw route included).
    func testTruncatedAndCorruptThrow() throws {
        let b = photo(width: 300, height: 200, seed: 9)
        let bytes = try b.encoded(as: .jpeg, quality: 90, options: EncodeOptions(chromaSubsampling: .yuv420))
        XCTAssertTrue(usesRawRoute(bytes))
        for cut in [bytes.count / 3, bytes.count / 2, bytes.count - 200, bytes.count - 3] {
            for threads in [1, 2, 3] {
                XCTAssertThrowsError(try decode(Array(bytes[..<cut]), threads: threads), "cut \(cut) t \(threads)") {
                    guard case PixelFlowError.decodingFailed = $0 else { return XCTFail("\($0)") }
                }
            }
        }
        // Markers in the middle of the entropy-coded data.
        var corrupt = bytes
        for i in stride(from: bytes.count / 2, to: bytes.count / 2 + 40, by: 2) {
            corrupt[i] = 0xFF
            corrupt[i + 1] = 0xD9
        }
        for threads in [1, 2] { XCTAssertThrowsError(try decode(corrupt, threads: threads)) }
    }
}
