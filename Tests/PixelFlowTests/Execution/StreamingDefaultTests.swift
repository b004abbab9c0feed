import Foundation
import XCTest
@testable import PixelFlow
@testable import PixelFlowKernels
@testable import PixelFlowGraph
@testable import PixelFlowEngine

/// Files are read as streamed sources by default, with the same pixels as a full decode, and
/// `explain()` says how they are read.
final class StreamingDefaultTests: XCTestCase {
    func testJPEGIsStreamedByDefaultWithTheSamePixels() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pf-stream-\(UUID())").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/in.jpg"
        try CodecTestSupport.smooth(width: 301, height: 1203).write(toFile: path, quality: 90)
        let streamed = try Image(contentsOfFile: path)
        guard case .streamedSource = streamed.node.op else { return XCTFail("not streamed: \(streamed.node.op)") }
        let full = try Image(contentsOfFile: path, streaming: false)
        guard case .source = full.node.op else { return XCTFail("streaming: false must decode") }
        let context = RenderContext.floatPathOnly(threadCount: 2)  // streamed rows: float
        let chain: (Image) throws -> Image = { try $0.sepiaTone(intensity: 0.5) }
        let a = try context.makeBuffer(chain(streamed)), b = try context.makeBuffer(chain(full))
        XCTAssertEqual(CodecTestSupport.maximumDifference(a, b), 0)
        let plan = try context.explain(chain(streamed))
        XCTAssertTrue(
            plan.contains("streamed source 301x1203 rgba8 streamed JPEG: a streaming write decodes it into a window of"),
            plan)
        // A 90-degree rotation reads whole columns: explain says it is decoded whole.
        let rotated = try streamed.transformed(by: AffineTransform(rotationAngle: .pi / 2))
        XCTAssertTrue(try context.explain(rotated).contains("read in random order: decoded whole"))
        // An orientation to apply streams too (here 6: columns spooled to a temporary file).
        let oriented = try Image(contentsOfFile: CodecTestSupport.fixture("orientation6.jpg"))
        guard case .streamedSource = oriented.node.op else { return XCTFail("an oriented JPEG streams") }
    }

    /// `bytes` of a JPEG with an APP1 EXIF segment saying `orientation` right after its SOI.
    static func withOrientation(_ jpeg: [UInt8], _ orientation: EXIFOrientation) -> [UInt8] {
        let payload = CodecEXIFOrientationTests.payload(bigEndian: false, entries: [(0x0112, 3, orientation.rawValue)])
        let length = payload.count + 2
        return [0xFF, 0xD8, 0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 255)] + payload + jpeg[2...]
    }

    /// Every EXIF orientation is applied in the stream: 2 mirrors rows, 3 and 4 spool rows,
    /// 5 to 8 spool bands of columns; explain() says which. Every orientation gives the pixels of a
    /// full decode, in memory and written to a file.
    func testEveryEXIFOrientationStreamsWithTheFullDecodesPixels() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pf-orient-\(UUID())").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // Odd sizes, a width that is not a multiple of the MCU, several strips.
        let jpeg = try CodecTestSupport.smooth(width: 77, height: 531).encoded(as: .jpeg, quality: 90)
        var options = RenderContext.Options(threadCount: 2)
        options.maximumStripBytes = 77 * 4 * 16  // strips of 16 rows: the window must slide
        options.usesBytePath = false  // streamed rows have no byte form (RenderContext.floatPathOnly)
        let context = RenderContext(options: options)
        for o in EXIFOrientation.allCases {
            let path = dir + "/o\(o.rawValue).jpg"
            try Data(Self.withOrientation(jpeg, o)).write(to: URL(fileURLWithPath: path))
            let streamed = try Image(contentsOfFile: path)
            let full = try Image(contentsOfFile: path, streaming: false)
            XCTAssertEqual(streamed.extent, full.extent, "\(o)")
            // The upright pixels, by the scalar reference of the orientation tests.
            let stored = try PixelBuffer(
                contentsOfFile: path,
                options: {
                    var d = DecodeOptions.default
                    d.applyOrientation = false
                    return d
                }())
            let a = try context.makeBuffer(streamed.sepiaTone(intensity: 0.7), format: .rgba8)
            let b = try context.makeBuffer(full.sepiaTone(intensity: 0.7), format: .rgba8)
            XCTAssertEqual(CodecTestSupport.maximumDifference(a, b), 0, "\(o)")
            let plain = try context.makeBuffer(streamed, format: .rgba8)
            for (x, y) in [(0, 0), (76, 0), (3, 530), (40, 200), (76, 530)] {
                let (u, v) = CodecEXIFOrientationTests.destination(o, x, y, stored.width, stored.height)
                XCTAssertEqual(plain[u, v], stored[x, y], "\(o) (\(x), \(y))")
            }
            let explained = try context.explain(streamed.sepiaTone(intensity: 0.7))
            guard case .streamedSource = streamed.node.op else { return XCTFail("\(o) not streamed") }
            XCTAssertTrue(explained.contains("a streaming write decodes it into a window of"), explained)
            XCTAssertEqual(explained.contains("mirrored by its EXIF orientation"), o == .upMirrored, explained)
            XCTAssertEqual(explained.contains("turned 180 degrees by its EXIF orientation"), o == .down, explained)
            XCTAssertEqual(
                explained.contains("flipped top to bottom by its EXIF orientation"), o == .downMirrored,
                explained)
            XCTAssertEqual(
                explained.contains("turned by its EXIF orientation \(o.rawValue) (columns spooled"),
                o.swapsDimensions, explained)
            // Written to a file, streaming or not: the same bytes.
            try context.write(streamed.sepiaTone(intensity: 0.7), toFile: dir + "/s.jpg", quality: 85)
            try context.write(full.sepiaTone(intensity: 0.7), toFile: dir + "/f.jpg", quality: 85)
            XCTAssertEqual(
                try Data(contentsOf: URL(fileURLWithPath: dir + "/s.jpg")),
                try Data(contentsOf: URL(fileURLWithPath: dir + "/f.jpg")), "\(o)")
        }
        // With applyOrientation off, every file streams as stored.
        var stored = DecodeOptions.default
        stored.applyOrientation = false
        guard case .streamedSource = try Image(contentsOfFile: dir + "/o6.jpg", options: stored).node.op else {
            return XCTFail("an orientation that is not applied must not stop streaming")
        }
    }

    /// Formats without a row reader, and `streaming: false`, are decoded when opened, and
    /// explain() says so and why.
    func testExplainSaysWhyAFileWasDecodedWhole() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pf-whole-\(UUID())").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let pixels = CodecTestSupport.smooth(width: 40, height: 30)
        let context = RenderContext(threadCount: 1)
        let cases: [(ImageFileFormat, String)] = [
            (.webp, "libwebp decodes into a buffer of the whole image"),
            (.gif, "GIF frames are composited on a canvas of the whole image"),
            (.jpeg, "streaming: false"),
        ]
        for (format, reason) in cases {
            let path = dir + "/in." + format.rawValue
            try pixels.write(toFile: path, format: format)
            let image = try Image(contentsOfFile: path, streaming: format != .jpeg)
            guard case .source = image.node.op else { return XCTFail("\(format) must be decoded whole") }
            let explained = try context.explain(image.sepiaTone())
            XCTAssertTrue(explained.contains("source 40x30 rgba8 ("), explained)
            XCTAssertTrue(
                explained.contains("\(format.rawValue.uppercased()) file \(path): decoded whole when opened (\(reason)"),
                explained)
        }
        // An image made from a buffer has no such line.
        XCTAssertFalse(try context.explain(Image(pixels).sepiaTone()).contains("decoded whole when opened"))
    }

    /// A PNG opened from a path is read from the open file as its rows are decoded (its
    /// bytes are not held); the pixels are those of a full decode, the file may be removed
    /// once opened, and a file rewritten in place makes the render throw, not crash.
    func testPNGIsReadFromTheOpenFile() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pf-pngfd-\(UUID())").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/in.png", jpegPath = dir + "/in.jpg"
        let pixels = CodecTestSupport.smooth(width: 123, height: 301)
        try pixels.write(toFile: path)
        try pixels.write(toFile: jpegPath, quality: 90)
        let context = RenderContext.floatPathOnly(threadCount: 2)  // streamed rows: float
        let streamed = try Image(contentsOfFile: path)
        guard case let .streamedSource(source) = streamed.node.op else { return XCTFail("not streamed") }
        XCTAssertEqual(source.heldBytes, 0)
        XCTAssertTrue(try context.explain(streamed.sepiaTone()).contains("the file is read as rows are decoded"))
        let jpeg = try Image(encoded: Array(try Data(contentsOf: URL(fileURLWithPath: jpegPath))))
        XCTAssertTrue(try context.explain(jpeg.sepiaTone()).contains("the file's bytes are held in memory"))
        // In memory (Image(encoded:)): the bytes are held.
        let inMemory = try Image(encoded: Array(try Data(contentsOf: URL(fileURLWithPath: path))))
        guard case let .streamedSource(memorySource) = inMemory.node.op else { return XCTFail("not streamed") }
        XCTAssertGreaterThan(memorySource.heldBytes, 0)
        let expected = try context.makeBuffer(Image(contentsOfFile: path, streaming: false).sepiaTone(), format: .rgba8)
        // Removed after opening: the open descriptor still reads it, render after render.
        try FileManager.default.removeItem(atPath: path)
        for _ in 0..<2 {
            XCTAssertEqual(
                CodecTestSupport.maximumDifference(
                    try context.makeBuffer(streamed.sepiaTone(), format: .rgba8),
                    expected), 0)
        }
        try context.write(streamed.sepiaTone(), toFile: dir + "/out.png")
        XCTAssertEqual(CodecTestSupport.maximumDifference(try PixelBuffer(contentsOfFile: dir + "/out.png"), expected), 0)
        // Rewritten in place with another size: the next render throws.
        try pixels.write(toFile: path)
        let reopened = try Image(contentsOfFile: path)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.truncate(atOffset: 0)
        try handle.write(contentsOf: try CodecTestSupport.smooth(width: 7, height: 5).encoded(as: .png))
        try handle.close()
        XCTAssertThrowsError(try context.makeBuffer(reopened.sepiaTone(), format: .rgba8)) { error in
            guard case PixelFlowError.decodingFailed = error else { return XCTFail("\(error)") }
        }
    }

    /// A JPEG opened from a path is read through libjpeg from the open file (a pread source
    /// manager, 64 KiB at a time): no bytes held, the pixels of a full decode for baseline,
    /// progressive, gray, CMYK, P3 and a file whose header spans several reads, shrunk on load
    /// too; a removed file still renders, and a truncated or rewritten one throws.
    func testJPEGIsReadFromTheOpenFile() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pf-jpegfd-\(UUID())").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let context = RenderContext.floatPathOnly(threadCount: 2)  // streamed rows: float
        // Three 60 KB APP15 segments before the frame: libjpeg skips them past its 64 KiB
        // buffer, so the header takes several reads and skips (their payload is full of EOI
        // markers, so a skip that lands wrong fails).
        let plain = try CodecTestSupport.smooth(width: 643, height: 411).encoded(as: .jpeg, quality: 95)
        var app15: [UInt8] = []
        for i in 0..<3 {
            app15 += [0xFF, 0xEF, UInt8(60_002 >> 8), UInt8(60_002 & 255)] + (0..<60_000).map { [0xFF, 0xD9, UInt8(i)][$0 % 3] }
        }
        let big = Array(plain[..<2]) + app15 + Array(plain[2...])
        let bigPath = dir + "/big.jpg"
        try Data(big).write(to: URL(fileURLWithPath: bigPath))
        XCTAssertGreaterThan(big.count, 3 * 65536)
        let paths = [
            bigPath, CodecTestSupport.fixture("progressive.jpg"), CodecTestSupport.fixture("gray.jpg"),
            CodecTestSupport.fixture("cmyk.jpg"), ColorStreamingTests.colorFixture("stream_p3.jpg"),
            ColorStreamingTests.colorFixture("stream_cmyk.jpg"),
        ]
        for path in paths {
            let streamed = try Image(contentsOfFile: path)
            guard case let .streamedSource(source) = streamed.node.op else { return XCTFail("\(path): not streamed") }
            XCTAssertEqual(source.heldBytes, 0, path)
            let inMemory = try Image(encoded: Array(try Data(contentsOf: URL(fileURLWithPath: path))), name: path)
            let full = try Image(contentsOfFile: path, streaming: false)
            let a = try context.makeBuffer(streamed.sepiaTone(), format: .rgbaF32)
            XCTAssertEqual(maxDifference(a, try context.makeBuffer(full.sepiaTone(), format: .rgbaF32)), 0, path)
            XCTAssertEqual(maxDifference(a, try context.makeBuffer(inMemory.sepiaTone(), format: .rgbaF32)), 0, path)
            XCTAssertTrue(try context.explain(streamed.sepiaTone()).contains("the file is read as rows are decoded"), path)
        }
        // Shrunk on load, from the file and from memory: the same pixels.
        let thumbnail: (Image) throws -> Image = { try $0.lanczosScaled(scale: 0.1) }
        XCTAssertTrue(try context.explain(thumbnail(Image(contentsOfFile: bigPath))).contains("shrunk 1/4 on load"))
        XCTAssertEqual(
            maxDifference(
                try context.makeBuffer(thumbnail(Image(contentsOfFile: bigPath)), format: .rgbaF32),
                try context.makeBuffer(thumbnail(Image(encoded: big)), format: .rgbaF32)), 0)
        // Removed after opening: the descriptor still reads it.
        let copy = dir + "/copy.jpg"
        try Data(big).write(to: URL(fileURLWithPath: copy))
        let opened = try Image(contentsOfFile: copy)
        try FileManager.default.removeItem(atPath: copy)
        let expected = try context.makeBuffer(Image(encoded: big).sepiaTone(), format: .rgba8)
        XCTAssertEqual(
            CodecTestSupport.maximumDifference(
                try context.makeBuffer(opened.sepiaTone(), format: .rgba8),
                expected), 0)
        try context.write(opened.sepiaTone(), toFile: dir + "/out.jpg", quality: 90)
        XCTAssertEqual(
            try Data(contentsOf: URL(fileURLWithPath: dir + "/out.jpg")),
            Data(try context.encoded(Image(encoded: big).sepiaTone(), as: .jpeg, quality: 90)))
        // Truncated in its scan data: the header reads, the render throws.
        let cut = dir + "/cut.jpg"
        try Data(big.prefix(big.count - 20_000)).write(to: URL(fileURLWithPath: cut))
        let truncated = try Image(contentsOfFile: cut)
        XCTAssertThrowsError(try context.makeBuffer(truncated, format: .rgba8)) { error in
            guard case PixelFlowError.decodingFailed = error else { return XCTFail("\(error)") }
        }
        XCTAssertThrowsError(try context.write(truncated.sepiaTone(), toFile: dir + "/cut-out.jpg"))
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/cut-out.jpg"))
        // Rewritten in place with a smaller image: the next render throws, it does not crash.
        try Data(big).write(to: URL(fileURLWithPath: copy))
        let rewritten = try Image(contentsOfFile: copy)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: copy))
        try handle.truncate(atOffset: 0)
        try handle.write(contentsOf: try CodecTestSupport.smooth(width: 7, height: 5).encoded(as: .jpeg, quality: 90))
        try handle.close()
        XCTAssertThrowsError(try context.makeBuffer(rewritten.sepiaTone(), format: .rgba8))
    }

    /// Every TIFF fixture opened from its path (read from the open file when it streams)
    /// gives the pixels of its bytes in memory and of a full decode.
    func testTIFFFromTheOpenFileEqualsTheBytesInMemory() throws {
        let dir = URL(fileURLWithPath: TIFFCodecTests.fixturePath("gray8.tif")).deletingLastPathComponent().path
        let names = try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasSuffix(".tif") }.sorted()
        XCTAssertGreaterThan(names.count, 20)
        let context = RenderContext(threadCount: 2, colorManagement: .none)
        var fromFile = 0
        for name in names {
            let path = dir + "/" + name
            let opened = try Image(contentsOfFile: path)
            let inMemory = try Image(encoded: try TIFFCodecTests.fixture(name))
            let full = try Image(contentsOfFile: path, streaming: false)
            if case let .streamedSource(source) = opened.node.op {
                XCTAssertEqual(source.heldBytes, 0, name)
                guard case .streamedSource = inMemory.node.op else { return XCTFail("\(name): streams only from a file") }
                fromFile += 1
            }
            let a = try context.makeBuffer(opened, format: .rgbaF32)
            XCTAssertEqual(CodecTestSupport.maximumDifference(a, try context.makeBuffer(inMemory, format: .rgbaF32)), 0, name)
            XCTAssertEqual(CodecTestSupport.maximumDifference(a, try context.makeBuffer(full, format: .rgbaF32)), 0, name)
        }
        XCTAssertGreaterThan(fromFile, 10)
    }

    /// Every PNM and BMP fixture, and files written here (bottom-up and top-down BMP, 16-bit
    /// and PAM with alpha), opened from its path equal their bytes in memory and a full
    /// decode; binary ones stream from the open file, holding no bytes.
    func testPNMAndBMPFromTheOpenFileEqualTheBytesInMemory() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pf-pnmfd-\(UUID())").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var paths = [
            "gray_comment.pgm", "rgb16.ppm", "rgba.pam", "palette8.bmp", "rgb24.bmp", "rgb24_topdown.bmp",
            "rgba32.bmp",
        ].map { CodecTestSupport.fixture($0) }
        let pixels = CodecTestSupport.smooth(width: 67, height: 45)
        for (name, buffer) in [
            ("a.ppm", pixels), ("b.pgm", pixels.converted(to: .gray8)), ("c.bmp", pixels),
            ("d.ppm", pixels.converted(to: .rgba16)),
        ] {
            try buffer.write(toFile: dir + "/" + name)
            paths.append(dir + "/" + name)
        }
        try Data("P2\n# ASCII\n3 2\n255\n0 10 20\n30 40 255\n".utf8).write(to: URL(fileURLWithPath: dir + "/ascii.pgm"))
        paths.append(dir + "/ascii.pgm")
        let context = RenderContext(threadCount: 2, colorManagement: .none)
        var fromFile = 0
        for path in paths {
            let opened = try Image(contentsOfFile: path)
            let inMemory = try Image(encoded: Array(try Data(contentsOf: URL(fileURLWithPath: path))))
            let full = try Image(contentsOfFile: path, streaming: false)
            if case let .streamedSource(source) = opened.node.op, source.heldBytes == 0 { fromFile += 1 }
            let a = try context.makeBuffer(opened, format: .rgbaF32)
            XCTAssertEqual(CodecTestSupport.maximumDifference(a, try context.makeBuffer(inMemory, format: .rgbaF32)), 0, path)
            XCTAssertEqual(CodecTestSupport.maximumDifference(a, try context.makeBuffer(full, format: .rgbaF32)), 0, path)
        }
        XCTAssertEqual(fromFile, paths.count - 1, "every file but the ASCII PGM streams from the file")
        guard case let .streamedSource(ascii) = try Image(contentsOfFile: dir + "/ascii.pgm").node.op else {
            return XCTFail("an ASCII PGM streams from its bytes in memory")
        }
        XCTAssertGreaterThan(ascii.heldBytes, 0)
        // Cut short after opening: the render throws, naming the file.
        let cut = dir + "/a.ppm"
        let image = try Image(contentsOfFile: cut)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: cut))
        try handle.truncate(atOffset: 100)
        try handle.close()
        XCTAssertThrowsError(try context.makeBuffer(image, format: .rgba8)) { error in
            guard case PixelFlowError.decodingFailed = error else { return XCTFail("\(error)") }
        }
    }
}
