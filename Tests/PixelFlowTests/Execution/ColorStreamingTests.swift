import Foundation
import XCTest
@testable import PixelFlow
@testable import PixelFlowKernels
@testable import PixelFlowGraph
@testable import PixelFlowEngine

/// Files with a color profile to apply, and CMYK files, are streamed with their rows
/// converted as the full decode converts them: the same floats (or bytes), bit for bit.
/// Fixtures: Fixtures/Color (make_stream_fixtures.py, make_fixtures.py) and Fixtures/TIFF.
final class ColorStreamingTests: XCTestCase {
    static func colorFixture(_ name: String) -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/Color/\(name)").path
    }

    /// Every converted fixture, with what its rows become.
    static let converted: [(name: String, floats: Bool)] = [
        ("stream_p3.jpg", true), ("stream_p3.png", true), ("stream_p3.tif", true), ("stream_p3_16.tif", true),
        ("stream_cmyk.jpg", true), ("stream_cmyk_plain.jpg", false), ("stream_cmyk16.tif", true),
        ("p3_patches.jpg", true), ("p3_patches.png", true), ("cmyk_patches.jpg", true), ("cmyk_patches.tif", true),
    ]

    /// Byte-for-byte equality of two buffers' pixels (floats compared by their bits).
    func assertSameBits(
        _ a: PixelBuffer, _ b: PixelBuffer, _ label: String, file: StaticString = #filePath,
        line: UInt = #line
    ) {
        XCTAssertEqual(a.width, b.width, label, file: file, line: line)
        XCTAssertEqual(a.height, b.height, label, file: file, line: line)
        XCTAssertEqual(a.format, b.format, label, file: file, line: line)
        guard a.width == b.width, a.height == b.height, a.format == b.format else { return }
        let rowBytes = a.width * a.format.bytesPerPixel
        a.withUnsafeBytes { pa in
            b.withUnsafeBytes { pb in
                for y in 0..<a.height
                where memcmp(
                    pa.baseAddress! + y * a.bytesPerRow,
                    pb.baseAddress! + y * b.bytesPerRow, rowBytes) != 0
                {
                    XCTFail("\(label): row \(y) differs", file: file, line: line)
                    return
                }
            }
        }
    }

    /// The buffer of a source node decoded when opened.
    func decodedBuffer(_ image: Image, _ label: String) throws -> PixelBuffer {
        guard case let .source(buffer) = image.node.op else {
            XCTFail("\(label): not decoded when opened: \(image.node.op)")
            throw PixelFlowError.invalidParameter(filter: "test", key: "image", reason: "not decoded")
        }
        return buffer
    }

    /// The streamed source's rows, all decoded, as a buffer of its format.
    func streamedRows(_ source: StreamedSource) throws -> PixelBuffer {
        let window = try source.decodeFully()
        var out = try PixelBuffer(width: source.width, height: source.height, format: source.format)
        let rowBytes = source.width * source.format.bytesPerPixel
        out.withUnsafeMutableRows { y, row in row.copyMemory(from: window.row(y), byteCount: rowBytes) }
        return out
    }

    func testConvertedRowsAreTheFullDecodesBitForBit() throws {
        for (name, floats) in Self.converted {
            let path = Self.colorFixture(name)
            let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
            let full = try decodedBuffer(try Image(contentsOfFile: path, streaming: false), name)
            for image in [try Image(contentsOfFile: path), try Image(encoded: bytes, name: name)] {
                guard case let .streamedSource(source) = image.node.op else {
                    XCTFail("\(name): not streamed: \(image.node.op)")
                    continue
                }
                XCTAssertEqual(source.format, floats ? .rgbaF32 : .rgba8, name)
                XCTAssertEqual(source.colorEncoding, full.colorEncoding, name)
                XCTAssertEqual(source.alphaMode == .premultiplied, floats, name)
                XCTAssertEqual(full.alphaMode == .premultiplied, floats, name)
                assertSameBits(try streamedRows(source), full, name)
            }
        }
    }

    /// Renders read the converted rows as they read the full decode's buffer: the same
    /// output for chains that load, fuse or resample them, with and without color
    /// management, and the same file bytes written strip by strip through a sliding window.
    func testRendersAndStreamedWritesEqualTheFullDecodes() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pf-colorstream-\(UUID())").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let chains: [(String, (Image) throws -> Image)] = [
            ("plain", { $0 }),
            ("sepia", { try $0.sepiaTone(intensity: 0.8) }),
            ("lanczos", { try $0.lanczosScaled(scale: 0.6) }),
            ("blur", { try $0.gaussianBlurred(radius: 2) }),
            ("over", { try $0.sepiaTone().composited(over: Image(color: Color(red: 0.2, green: 0.5, blue: 0.9, alpha: 1))) }),
        ]
        for (name, _) in Self.converted {
            let path = Self.colorFixture(name)
            let streamed = try Image(contentsOfFile: path), full = try Image(contentsOfFile: path, streaming: false)
            for management in [RenderContext.ColorManagement.linear, .none] {
                var options = RenderContext.Options(threadCount: 2)
                options.colorManagement = management
                options.maximumStripBytes = 67 * 4 * 8  // strips of 8 rows: the window slides
                let context = RenderContext(options: options)
                for (label, chain) in chains {
                    let a = try context.makeBuffer(chain(streamed).cropped(to: streamed.extent), format: .rgbaF32)
                    let b = try context.makeBuffer(chain(full).cropped(to: full.extent), format: .rgbaF32)
                    assertSameBits(a, b, "\(name) \(label) \(management)")
                }
                for format in [ImageFileFormat.jpeg, .png] {
                    let s = dir + "/s." + format.rawValue, f = dir + "/f." + format.rawValue
                    try context.write(streamed.sepiaTone(), toFile: s, format: format)
                    try context.write(full.sepiaTone(), toFile: f, format: format)
                    XCTAssertEqual(
                        try Data(contentsOf: URL(fileURLWithPath: s)),
                        try Data(contentsOf: URL(fileURLWithPath: f)), "\(name) \(format) \(management)")
                }
            }
            let explained = try RenderContext(threadCount: 1).explain(streamed.sepiaTone())
            XCTAssertTrue(
                explained.contains("converted to linear sRGB in the stream")
                    || explained.contains("CMYK converted to RGB in the stream"), explained)
        }
    }

    /// With `appliesColorProfile` off, profiles are ignored and CMYK is converted by
    /// (1 - C)(1 - K): the rows stay 8 or 16-bit, as the full decode gives them.
    func testProfilesNotAppliedStreamStoredOrNaiveCMYKRows() throws {
        var options = DecodeOptions.default
        options.appliesColorProfile = false
        for name in ["stream_p3.jpg", "stream_p3.png", "stream_cmyk.jpg", "stream_cmyk16.tif", "cmyk_patches.tif"] {
            let path = Self.colorFixture(name)
            let full = try decodedBuffer(try Image(contentsOfFile: path, options: options, streaming: false), name)
            guard case let .streamedSource(source) = try Image(contentsOfFile: path, options: options).node.op else {
                XCTFail("\(name) not streamed")
                continue
            }
            XCTAssertNotEqual(source.format, .rgbaF32, name)
            assertSameBits(try streamedRows(source), full, name)
        }
        // And the TIFF fixtures in CMYK, which have no profile.
        for name in ["cmyk8.tif", "cmyk16.tif"] {
            let path = TIFFCodecTests.fixturePath(name)
            let full = try decodedBuffer(try Image(contentsOfFile: path, streaming: false), name)
            guard case let .streamedSource(source) = try Image(contentsOfFile: path).node.op else {
                XCTFail("\(name) not streamed")
                continue
            }
            assertSameBits(try streamedRows(source), full, name)
        }
    }

    /// A JPEG with a profile still shrinks on load: the smaller rows are converted. The
    /// result stays close to the exact path (the bound of ShrinkSourcesOnLoadTests' photos).
    func testAConvertedJPEGShrinksOnLoad() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pf-colorshrink-\(UUID())").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/p3.jpg"
        var writing = RenderContext.Options(threadCount: 2)
        writing.outputColorSpace = .displayP3
        try RenderContext(options: writing).write(
            Image(CodecTestSupport.smooth(width: 640, height: 480)),
            toFile: path, quality: 95)
        let image = try Image(contentsOfFile: path)
        guard case let .streamedSource(source) = image.node.op else { return XCTFail("not streamed") }
        XCTAssertEqual(source.format, .rgbaF32)
        let small = try image.lanczosScaled(scale: 0.1)
        var exact = RenderContext.Options(threadCount: 2)
        exact.shrinksOnLoad = false
        let context = RenderContext(threadCount: 2)
        let explained = try context.explain(small)
        XCTAssertTrue(explained.contains("shrunk 1/4 on load"), explained)
        let a = try context.makeBuffer(small, format: .rgba8)
        let b = try RenderContext(options: exact).makeBuffer(small, format: .rgba8)
        XCTAssertLessThanOrEqual(CodecTestSupport.maximumDifference(a, b), 3)
    }

    /// Rows wide enough that each chunk is converted by several threads (on a machine with
    /// more than one processor) give the full decode's floats too.
    func testWideRowsConvertedOnSeveralThreadsAreTheFullDecodes() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pf-colorwide-\(UUID())").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/wide.jpg"
        var writing = RenderContext.Options(threadCount: 2)
        writing.outputColorSpace = .displayP3
        try RenderContext(options: writing).write(
            Image(CodecTestSupport.rgba8(width: 2111, height: 83, alpha: false)),
            toFile: path, quality: 90)
        XCTAssertGreaterThanOrEqual(2111 * _ConvertedRowDecoder.chunkRows * 2, _ConvertedRowDecoder.parallelPixels)
        guard case let .streamedSource(source) = try Image(contentsOfFile: path).node.op else {
            return XCTFail("not streamed")
        }
        let full = try decodedBuffer(try Image(contentsOfFile: path, streaming: false), "wide")
        assertSameBits(try streamedRows(source), full, "wide")
    }

    /// One source rendered by several renders at once: each has its own decoder, and they
    /// share one lcms2 transform (made with cmsFLAGS_NOCACHE, so safe to run concurrently).
    func testConcurrentRendersOfOneConvertedSourceAgree() throws {
        let image = try Image(contentsOfFile: Self.colorFixture("stream_cmyk16.tif")).sepiaTone()
        let expected = try RenderContext(threadCount: 1).makeBuffer(image, format: .rgbaF32)
        let results = Results(count: 8)
        DispatchQueue.concurrentPerform(iterations: 8) { i in
            results.set(i, try? RenderContext(threadCount: 1 + i % 2).makeBuffer(image, format: .rgbaF32))
        }
        for i in 0..<8 {
            guard let b = results.get(i) else { XCTFail("render \(i) failed"); continue }
            assertSameBits(b, expected, "render \(i)")
        }
    }

    final class Results: @unchecked Sendable {
        private var buffers: [PixelBuffer?]
        private let lock = NSLock()
        init(count: Int) { buffers = Array(repeating: nil, count: count) }
        func set(_ i: Int, _ b: PixelBuffer?) { lock.lock(); buffers[i] = b; lock.unlock() }
        func get(_ i: Int) -> PixelBuffer? { lock.lock(); defer { lock.unlock() }; return buffers[i] }
    }
}
