import Foundation
import XCTest
@testable import PixelFlow
@testable import PixelFlowKernels
@testable import PixelFlowGraph
@testable import PixelFlowEngine

/// Writing files atomically, choosing formats by extension, and file descriptors.
final class CodecFileTests: XCTestCase {
    typealias S = CodecTestSupport

    private func contents(_ path: String) -> [UInt8]? {
        FileManager.default.contents(atPath: path).map { [UInt8]($0) }
    }

    private func permissions(_ path: String) throws -> Int {
        try XCTUnwrap(FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
    }

    func testWriteChoosesTheFormatFromTheExtension() throws {
        let folder = try S.temporaryFolder(self)
        let image = S.rgba8(width: 8, height: 5, alpha: false)
        for (name, format) in [
            ("a.png", ImageFileFormat.png), ("b.JPG", .jpeg), ("c.jpeg", .jpeg), ("d.ppm", .pnm),
            ("e.pgm", .pnm), ("f.pam", .pnm), ("g.bmp", .bmp), ("h.gif", .gif), ("no-extension", .png),
        ] {
            try image.write(toFile: folder + "/" + name)
            XCTAssertEqual(ImageFileFormat.sniff(try XCTUnwrap(contents(folder + "/" + name))), format, name)
        }
        try image.write(toFile: folder + "/forced.png", format: .bmp)
        XCTAssertEqual(ImageFileFormat.sniff(try XCTUnwrap(contents(folder + "/forced.png"))), .bmp)
    }

    func testWrittenFileDecodesAndHasMode0644() throws {
        let folder = try S.temporaryFolder(self)
        let path = folder + "/out.png"
        let image = S.rgba8(width: 12, height: 7, alpha: true)
        try image.write(toFile: path)
        XCTAssertEqual(try PixelBuffer(contentsOfFile: path), image)
        XCTAssertEqual(try permissions(path), 0o644)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder), ["out.png"], "no temporary file left")
    }

    func testReplacingKeepsTheExistingMode() throws {
        let folder = try S.temporaryFolder(self)
        let path = folder + "/private.png"
        try S.gray8(width: 3, height: 3).write(toFile: path)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
        let replacement = S.gray8(width: 4, height: 4, seed: 9)
        try replacement.write(toFile: path)
        XCTAssertEqual(try PixelBuffer(contentsOfFile: path), replacement)
        XCTAssertEqual(try permissions(path), 0o600)
    }

    func testFailedEncodeLeavesTheExistingFileIntact() throws {
        let folder = try S.temporaryFolder(self)
        let path = folder + "/keep.jpg"
        let original: [UInt8] = Array("precious bytes".utf8)
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(original)))
        let image = S.rgba8(width: 4, height: 4, alpha: false)
        S.assertThrows(.invalidParameter) { try image.write(toFile: path, quality: 0) }
        S.assertThrows(.invalidParameter) {
            try image.write(toFile: path, format: .png, options: EncodeOptions(compressionLevel: -1))
        }
        XCTAssertEqual(contents(path), original)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder), ["keep.jpg"])
    }

    func testFailedWriteLeavesTheExistingFileIntact() throws {
        let folder = try S.temporaryFolder(self)
        let image = S.rgba8(width: 4, height: 4, alpha: false)
        // A folder that does not exist.
        S.assertThrows(.io) { try image.write(toFile: folder + "/missing/out.png") }
        // A destination that is a non-empty folder: the rename fails, the temporary file goes.
        let blocker = folder + "/blocker.png"
        try FileManager.default.createDirectory(atPath: blocker, withIntermediateDirectories: false)
        XCTAssertTrue(FileManager.default.createFile(atPath: blocker + "/inside", contents: Data([1, 2, 3])))
        S.assertThrows(.io) { try image.write(toFile: blocker) }
        XCTAssertEqual(contents(blocker + "/inside"), [1, 2, 3])
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder), ["blocker.png"])
        S.assertThrows(.io) { try image.write(toFile: folder + "/") }
    }

    func testWriteFailsInAReadOnlyFolderAndKeepsTheFile() throws {
        guard getuid() != 0 else { throw XCTSkip("root ignores folder permissions") }
        let folder = try S.temporaryFolder(self)
        let path = folder + "/ro.png"
        try S.gray8(width: 2, height: 2).write(toFile: path)
        let before = contents(path)
        try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: folder)
        defer { try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder) }
        S.assertThrows(.io) { try S.gray8(width: 5, height: 5).write(toFile: path) }
        XCTAssertEqual(contents(path), before)
    }

    func testFileDescriptorReadAndWrite() throws {
        let folder = try S.temporaryFolder(self)
        let path = folder + "/fd.bmp"
        let image = S.rgba8(width: 6, height: 6, alpha: true)
        let out = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        XCTAssertGreaterThanOrEqual(out, 0)
        try image.write(toFileDescriptor: out, format: .bmp)
        close(out)
        let input = open(path, O_RDONLY)
        XCTAssertGreaterThanOrEqual(input, 0)
        defer { close(input) }
        XCTAssertEqual(try PixelBuffer(readingFileDescriptor: input, name: "fd.bmp"), image)
    }

    func testSniffingUsesBytesNotNames() throws {
        let folder = try S.temporaryFolder(self)
        let path = folder + "/actually-a-bmp.png"
        try FileManager.default.copyItem(atPath: S.fixture("rgb24.bmp"), toPath: path)
        XCTAssertEqual(try PixelBuffer(contentsOfFile: path), try PixelBuffer(contentsOfFile: S.fixture("rgb24.bmp")))

        XCTAssertEqual(ImageFileFormat.sniff([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0]), .png)
        XCTAssertNil(ImageFileFormat.sniff([0x89, 0x50, 0x4E, 0x47]))
        XCTAssertEqual(ImageFileFormat.sniff([0xFF, 0xD8, 0xFF, 0xE0]), .jpeg)
        XCTAssertEqual(ImageFileFormat.sniff(Array("P6\n1 1\n255\n".utf8)), .pnm)
        XCTAssertEqual(ImageFileFormat.sniff(Array("P7\n".utf8)), .pnm)
        XCTAssertNil(ImageFileFormat.sniff(Array("P8\n".utf8)))
        XCTAssertNil(ImageFileFormat.sniff(Array("Pixel".utf8)))
        XCTAssertEqual(ImageFileFormat.sniff(Array("BM".utf8)), .bmp)
        XCTAssertNil(ImageFileFormat.sniff([UInt8]()))
        XCTAssertEqual(ImageFileFormat.sniff([UInt8](repeating: 0xFF, count: 3)[...]), nil)

        XCTAssertEqual(ImageFileFormat(pathExtension: ".JPEG"), .jpeg)
        XCTAssertEqual(ImageFileFormat(pathExtension: "pbm"), .pnm)
        XCTAssertEqual(ImageFileFormat(pathExtension: "tiff"), .tiff)
        XCTAssertEqual(ImageFileFormat(pathExtension: "HEIC"), .heif)
        XCTAssertNil(ImageFileFormat(pathExtension: "psd"))
        XCTAssertEqual(ImageFileFormat.sniff(Array("RIFF\0\0\0\0WEBPVP8 ".utf8)), .webp)
        XCTAssertNil(ImageFileFormat.sniff(Array("RIFF\0\0\0\0WAVEfmt ".utf8)))
        XCTAssertEqual(ImageFileFormat.sniff([0x49, 0x49, 0x2A, 0]), .tiff)
        XCTAssertEqual(ImageFileFormat.sniff([0x4D, 0x4D, 0, 0x2A]), .tiff)
        XCTAssertEqual(ImageFileFormat.sniff(Array("GIF89a".utf8)), .gif)
        XCTAssertNil(ImageFileFormat.sniff(Array("GIF90a".utf8)))
        let ftyp: (String, [String]) -> [UInt8] = { major, compatible in
            var b: [UInt8] = [0, 0, 0, UInt8(16 + 4 * compatible.count)] + Array("ftyp".utf8) + Array(major.utf8) + [0, 0, 0, 0]
            for c in compatible { b += Array(c.utf8) }
            return b
        }
        XCTAssertEqual(ImageFileFormat.sniff(ftyp("heic", ["mif1", "heic"])), .heif)
        XCTAssertEqual(ImageFileFormat.sniff(ftyp("avif", ["mif1", "avif"])), .avif)
        XCTAssertEqual(ImageFileFormat.sniff(ftyp("mif1", ["mif1", "avif"])), .avif)
        XCTAssertNil(ImageFileFormat.sniff(ftyp("isom", ["isom", "mp41"])))
        XCTAssertEqual(ImageFileFormat._pathExtension(of: "a.b/c"), nil)
        XCTAssertEqual(ImageFileFormat._pathExtension(of: "dir/.hidden"), nil)
        XCTAssertEqual(ImageFileFormat._pathExtension(of: "x/y.tar.gz"), "gz")
    }
}
