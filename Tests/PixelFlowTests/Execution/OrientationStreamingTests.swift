import Foundation
import XCTest
@testable import PixelFlow
@testable import PixelFlowKernels
@testable import PixelFlowGraph
@testable import PixelFlowEngine

/// EXIF orientations 3 to 8 are applied in the stream: 3 (turned 180 degrees) and 4 (flipped
/// top to bottom) spool rows to an unlinked temporary file and read them back bottom up; 5 to
/// 8 spool bands of columns and read each band back as rows. The pixels are those of the full
/// decode, and the temporary file never outlives the decoder.
final class OrientationStreamingTests: XCTestCase {
    private var dir = ""

    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("pf-flip-\(UUID())").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(atPath: dir) }

    /// `png` with an eXIf chunk saying `orientation` right after IHDR.
    static func pngWithOrientation(_ png: [UInt8], _ orientation: EXIFOrientation) -> [UInt8] {
        let exif: [UInt8] = [
            0x4D, 0x4D, 0, 0x2A, 0, 0, 0, 8, 0, 1, 0x01, 0x12, 0, 3, 0, 0, 0, 1,
            0, UInt8(orientation.rawValue), 0, 0, 0, 0, 0, 0,
        ]
        return Array(png[..<33]) + CodecBadInputTests.chunk("eXIf", exif) + Array(png[33...])
    }

    func save(_ bytes: [UInt8], _ name: String) throws -> String {
        let path = dir + "/" + name
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// The window's rows, all decoded, as a buffer.
    func streamedRows(_ image: Image, _ label: String) throws -> PixelBuffer? {
        guard case let .streamedSource(source) = image.node.op else {
            XCTFail("\(label): not streamed: \(image.node.op)")
            return nil
        }
        let window = try source.decodeFully()
        var out = try PixelBuffer(width: source.width, height: source.height, format: source.format)
        let rowBytes = source.width * source.format.bytesPerPixel
        out.withUnsafeMutableRows { y, row in row.copyMemory(from: window.row(y), byteCount: rowBytes) }
        return out
    }

    /// Every pixel of the streamed rows against the stored pixels moved by the orientation's
    /// definition (the scalar reference), and the rows against the full decode's, bit for bit.
    func testTurnedRowsAreTheFullDecodesAndTheReferences() throws {
        // 150 wide: bands of 64 columns, the last one 22 wide (padded in the temporary file).
        let pixels = CodecTestSupport.rgba8(width: 150, height: 37, alpha: true)
        let opaque = CodecTestSupport.smooth(width: 61, height: 47)
        let files: [(String, [UInt8], (EXIFOrientation) -> [UInt8])] = [
            ("png", try pixels.encoded(as: .png), { Self.pngWithOrientation(try! pixels.encoded(as: .png), $0) }),
            (
                "jpeg", try opaque.encoded(as: .jpeg, quality: 90),
                { StreamingDefaultTests.withOrientation(try! opaque.encoded(as: .jpeg, quality: 90), $0) }
            ),
            (
                "p3 jpeg", [],
                {
                    StreamingDefaultTests.withOrientation(
                        Array(try! Data(contentsOf: URL(fileURLWithPath: ColorStreamingTests.colorFixture("stream_p3.jpg")))), $0)
                }
            ),
            (
                "cmyk jpeg", [],
                {
                    StreamingDefaultTests.withOrientation(
                        Array(try! Data(contentsOf: URL(fileURLWithPath: ColorStreamingTests.colorFixture("stream_cmyk.jpg")))),
                        $0)
                }
            ),
        ]
        var stored = DecodeOptions.default
        stored.applyOrientation = false
        for (label, _, make) in files {
            for o in EXIFOrientation.allCases where o.rawValue >= 3 {
                let path = try save(make(o), "\(label.replacingOccurrences(of: " ", with: "_"))\(o.rawValue)")
                let name = "\(label) orientation \(o.rawValue)"
                guard let rows = try streamedRows(try Image(contentsOfFile: path), name) else { continue }
                let full = try Image(contentsOfFile: path, streaming: false)
                guard case let .source(buffer) = full.node.op else { return XCTFail("\(name): not decoded") }
                XCTAssertEqual(rows.format, buffer.format, name)
                XCTAssertEqual(CodecTestSupport.maximumDifference(rows, buffer), 0, name)
                let bitsEqual = rows.withUnsafeBytes { a in
                    buffer.withUnsafeBytes { b in
                        (0..<rows.height).allSatisfy { y in
                            memcmp(
                                a.baseAddress! + y * rows.bytesPerRow, b.baseAddress! + y * buffer.bytesPerRow,
                                rows.width * rows.format.bytesPerPixel) == 0
                        }
                    }
                }
                XCTAssertTrue(bitsEqual, name)
                // The scalar reference: where stored pixel (x, y) goes, by the orientation's
                // definition (CodecEXIFOrientationTests.destination; formats decoded as stored).
                if rows.format == .rgba8 && !label.contains("p3") && !label.contains("cmyk") {
                    let s = try PixelBuffer(contentsOfFile: path, options: stored)
                    var mismatches = 0
                    for y in 0..<s.height {
                        for x in 0..<s.width {
                            let (u, v) = CodecEXIFOrientationTests.destination(o, x, y, s.width, s.height)
                            if rows[u, v] != s[x, y] { mismatches += 1 }
                        }
                    }
                    XCTAssertEqual(mismatches, 0, name)
                }
            }
        }
    }

    /// Renders and streaming writes through a sliding window give the full decode's bytes;
    /// the temporary file goes to $TMPDIR and is unlinked at once: the folder stays empty
    /// during and after the render, and after a render that fails mid-file.
    func testTemporaryFileGoesToTMPDIRAndNeverOutlivesTheDecoder() throws {
        let spoolFolder = dir + "/tmp"
        try FileManager.default.createDirectory(atPath: spoolFolder, withIntermediateDirectories: true)
        let saved = getenv("TMPDIR").map { String(cString: $0) }
        setenv("TMPDIR", spoolFolder, 1)
        defer { if let saved { setenv("TMPDIR", saved, 1) } else { unsetenv("TMPDIR") } }
        XCTAssertEqual(_FlippedRowDecoder.temporaryFolder, spoolFolder)

        let jpeg = try CodecTestSupport.smooth(width: 177, height: 301).encoded(as: .jpeg, quality: 90)
        var options = RenderContext.Options(threadCount: 2)
        options.maximumStripBytes = 301 * 4 * 8
        let context = RenderContext(options: options)
        var streamed = try Image(color: Color(red: 0, green: 0, blue: 0))
        for o in [EXIFOrientation.down, .right] {
            let path = try save(StreamingDefaultTests.withOrientation(jpeg, o), "o\(o.rawValue).jpg")
            streamed = try Image(contentsOfFile: path)
            let full = try Image(contentsOfFile: path, streaming: false)
            let seen = SeenFiles()
            try context.write(
                streamed.sepiaTone(), toFile: dir + "/s.png",
                progress: { _ in
                    seen.add((try? FileManager.default.contentsOfDirectory(atPath: spoolFolder)) ?? ["?"])
                })
            try context.write(full.sepiaTone(), toFile: dir + "/f.png")
            XCTAssertEqual(
                try Data(contentsOf: URL(fileURLWithPath: dir + "/s.png")),
                try Data(contentsOf: URL(fileURLWithPath: dir + "/f.png")), "\(o)")
            XCTAssertEqual(seen.names, [], "\(o)")
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: spoolFolder), [], "\(o)")
        }

        // Truncated: the spooling throws from the render; nothing is left behind.
        for o in [EXIFOrientation.downMirrored, .left] {
            let truncated = try save(
                Array(StreamingDefaultTests.withOrientation(jpeg, o).prefix(jpeg.count / 2)),
                "cut.jpg")
            let cut = try Image(contentsOfFile: truncated)
            guard case .streamedSource = cut.node.op else { return XCTFail("a truncated file is streamed (header only)") }
            XCTAssertThrowsError(try context.write(cut.sepiaTone(), toFile: dir + "/cut.png")) { error in
                guard case PixelFlowError.decodingFailed = error else { return XCTFail("\(error)") }
            }
            XCTAssertThrowsError(try context.makeBuffer(cut, format: .rgba8))
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: spoolFolder), [])
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/cut.png"))

        // A temporary folder that cannot be written: an error naming it, not a crash.
        setenv("TMPDIR", dir + "/missing", 1)
        XCTAssertThrowsError(try context.makeBuffer(streamed, format: .rgba8)) { error in
            guard case let PixelFlowError.io(_, reason) = error else { return XCTFail("\(error)") }
            XCTAssertTrue(reason.contains(self.dir + "/missing"), reason)
        }
    }

    final class SeenFiles: @unchecked Sendable {
        private let lock = NSLock()
        private var all: Set<String> = []
        func add(_ names: [String]) { lock.lock(); all.formUnion(names); lock.unlock() }
        var names: [String] { lock.lock(); defer { lock.unlock() }; return all.sorted() }
    }
}
