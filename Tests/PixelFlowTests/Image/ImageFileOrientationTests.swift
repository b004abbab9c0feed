import Foundation
import XCTest
@testable import PixelFlow
@testable import PixelFlowKernels
@testable import PixelFlowGraph
@testable import PixelFlowEngine

/// `Image.fileOrientation`: the orientation a file declared and whether reading it applied
/// it, for every way `Image(contentsOfFile:)` and `Image(encoded:)` read a file (decoded
/// whole, streamed from bytes, streamed from the open file).
final class ImageFileOrientationTests: XCTestCase {
    typealias FileOrientation = Image.FileOrientation

    static let asStored: DecodeOptions = {
        var o = DecodeOptions.default
        o.applyOrientation = false
        return o
    }()

    func isStreamed(_ image: Image) -> Bool {
        if case .streamedSource = image.node.op { return true }
        return false
    }

    func testJPEGWithOrientation6AppliedAndNot() throws {
        let path = CodecTestSupport.fixture("orientation6.jpg")
        let bytes = try CodecTestSupport.fixtureBytes("orientation6.jpg")
        // Applied (the default): upright, decoded whole.
        for upright in [
            try Image(contentsOfFile: path), try Image(encoded: bytes),
            try Image(contentsOfFile: path, streaming: false),
        ] {
            XCTAssertEqual(upright.fileOrientation, FileOrientation(declared: .right, isApplied: true))
            XCTAssertEqual(upright.fileOrientation?.remaining, .up)
            XCTAssertEqual(upright.extent, Rect(x: 0, y: 0, width: 24, height: 40))
        }
        // Not applied: the stored pixels, streamed, and the orientation still to apply.
        let upright = try RenderContext().makeBuffer(Image(contentsOfFile: path), format: .rgba8)
        for (i, stored) in [
            try Image(contentsOfFile: path, options: Self.asStored),
            try Image(encoded: bytes, options: Self.asStored),
            try Image(contentsOfFile: path, options: Self.asStored, streaming: false),
        ].enumerated() {
            XCTAssertEqual(stored.fileOrientation, FileOrientation(declared: .right, isApplied: false), "\(i)")
            XCTAssertEqual(stored.fileOrientation?.remaining, .right)
            XCTAssertEqual(stored.extent, Rect(x: 0, y: 0, width: 40, height: 24))
            XCTAssertEqual(isStreamed(stored), i < 2, "\(i)")
            // Turning by what remains gives the upright decode, pixel for pixel.
            let turned = try stored.oriented(stored.fileOrientation?.remaining ?? .up)
            XCTAssertEqual(try RenderContext().makeBuffer(turned, format: .rgba8), upright, "\(i)")
        }
        XCTAssertEqual("\(FileOrientation(declared: .right, isApplied: false))", "orientation 6 (right), not applied")
    }

    func testStreamedMirrorAndFilesWithoutOrientation() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pf-fileorient-\(UUID())").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let buffer = CodecTestSupport.smooth(width: 21, height: 13)
        // A JPEG mirrored by its EXIF orientation 2 streams, the mirror applied in the stream.
        let mirrored = StreamingDefaultTests.withOrientation(try buffer.encoded(as: .jpeg, quality: 90), .upMirrored)
        try Data(mirrored).write(to: URL(fileURLWithPath: dir + "/m.jpg"))
        for image in [try Image(contentsOfFile: dir + "/m.jpg"), try Image(encoded: mirrored)] {
            XCTAssertTrue(isStreamed(image))
            XCTAssertEqual(image.fileOrientation, FileOrientation(declared: .upMirrored, isApplied: true))
        }
        XCTAssertEqual(
            try Image(encoded: mirrored, options: Self.asStored).fileOrientation,
            FileOrientation(declared: .upMirrored, isApplied: false))
        // PNG (streamed from the open file), PNM, BMP: they declare nothing.
        for (format, name) in [(ImageFileFormat.png, "p.png"), (.pnm, "p.ppm"), (.bmp, "p.bmp")] {
            let bytes = try buffer.encoded(as: format)
            try Data(bytes).write(to: URL(fileURLWithPath: dir + "/" + name))
            for options in [DecodeOptions.default, Self.asStored] {
                let fromFile = try Image(contentsOfFile: dir + "/" + name, options: options)
                XCTAssertTrue(isStreamed(fromFile), name)
                let expected = FileOrientation(declared: .up, isApplied: options.applyOrientation)
                XCTAssertEqual(fromFile.fileOrientation, expected, name)
                XCTAssertEqual(try Image(encoded: bytes, options: options).fileOrientation, expected, name)
                XCTAssertEqual(fromFile.fileOrientation?.remaining, .up)
            }
        }
    }

    func testTIFFOrientationStreamedFromTheOpenFile() throws {
        let path = TIFFCodecTests.fixturePath("metadata.tif")  // 12x8 stored, orientation 6
        let stored = try Image(contentsOfFile: path, options: Self.asStored)
        XCTAssertTrue(isStreamed(stored), "a TIFF whose orientation is not applied streams from the open file")
        XCTAssertEqual(stored.fileOrientation, FileOrientation(declared: .right, isApplied: false))
        let upright = try Image(contentsOfFile: path)
        XCTAssertEqual(upright.fileOrientation, FileOrientation(declared: .right, isApplied: true))
        XCTAssertEqual(upright.extent, Rect(x: 0, y: 0, width: 8, height: 12))
    }

    func testImagesNotReadFromAFileHaveNone() throws {
        let file = try Image(contentsOfFile: CodecTestSupport.fixture("orientation6.jpg"))
        XCTAssertNotNil(file.fileOrientation)
        XCTAssertNil(try file.sepiaTone().fileOrientation, "a filter's output is not the file")
        XCTAssertNil(file.cropped(to: Rect(x: 0, y: 0, width: 4, height: 4)).fileOrientation)
        XCTAssertNil(Image(CodecTestSupport.smooth(width: 4, height: 4)).fileOrientation)
        XCTAssertNil(Image(color: .red).fileOrientation)
    }

    func testOrientedForExifOrientationIsOriented() throws {
        let image = Image(CodecTestSupport.smooth(width: 7, height: 5))
        let context = RenderContext()
        for o in EXIFOrientation.allCases {
            XCTAssertEqual(
                try context.makeBuffer(image.oriented(forExifOrientation: Int32(o.rawValue)), format: .rgba8),
                try context.makeBuffer(image.oriented(o), format: .rgba8), "\(o)")
        }
        for bad: Int32 in [0, 9, -1] {
            CodecTestSupport.assertThrows(.invalidParameter) { try image.oriented(forExifOrientation: bad) }
        }
    }
}
