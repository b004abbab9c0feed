import Foundation
import XCTest

@testable import PixelFlow
@testable import PixelFlowKernels
@testable import PixelFlowGraph
@testable import PixelFlowEngine

/// `pixelflow generate`, run as a subprocess: finite and infinite extents, `--size`, formats,
/// standard output, `hex:` messages, and the exit statuses of errors.
final class GenerateCLITests: TemporaryDirectoryTestCase {
    private func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    func testBarcodeIsWrittenAtItsExtent() throws {
        let r = try CLIProcess.run(
            ["generate", "CICode128BarcodeGenerator inputMessage=PixelFlow inputQuietSpace=10", "code.png"], in: directory)
        XCTAssertEqual(r.status, 0, r.stderr)
        let written = try PixelBuffer(contentsOfFile: path("code.png"))
        let expected = try RenderContext().makeBuffer(try Image.code128Barcode(message: "PixelFlow", quietSpace: 10))
        XCTAssertEqual([written.width, written.height], [134 + 20, 32 + 20])
        for y in 0..<written.height {
            for x in 0..<written.width { XCTAssertEqual(written[x, y], expected[x, y], "(\(x), \(y))") }
        }
    }

    func testHexMessageAndShortKeys() throws {
        let r = try CLIProcess.run(
            ["generate", "Code128BarcodeGenerator message=hex:094142 quietSpace=0", "t.png"], in: directory)
        XCTAssertEqual(r.status, 0, r.stderr)
        let written = try PixelBuffer(contentsOfFile: path("t.png"))
        // TAB A B: start A, 3 characters, check, stop: 5 * 11 + 13 modules.
        XCTAssertEqual(written.width, 68)
        XCTAssertEqual(try Code128Encoder.symbols(for: [9, 65, 66]).count, 5)
    }

    func testInfiniteExtentNeedsASize() throws {
        let missing = try CLIProcess.run(["generate", "CICheckerboardGenerator", "board.png"], in: directory)
        XCTAssertEqual(missing.status, 2)
        XCTAssertTrue(missing.stderr.contains("--size"), missing.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("board.png")))
        let r = try CLIProcess.run(
            ["generate", "CICheckerboardGenerator inputWidth=8", "board.jpg", "--size", "64x40"], in: directory)
        XCTAssertEqual(r.status, 0, r.stderr)
        let info = try ImageFile(contentsOfFile: path("board.jpg")).info
        XCTAssertEqual([info.width, info.height, info.format == .jpeg ? 1 : 0], [64, 40, 1])
    }

    func testFiniteExtentWithASizeAndStandardOutput() throws {
        let r = try CLIProcess.run(
            ["generate", "CIQRCodeGenerator inputMessage=hi", "-", "--size", "10x12", "--format", "bmp"], in: directory)
        XCTAssertEqual(r.status, 0, r.stderr)
        let buffer = try PixelBuffer(encoded: r.stdout)
        XCTAssertEqual([buffer.width, buffer.height], [10, 12])
    }

    func testTextIsWrittenAtItsExtent() throws {
        let r = try CLIProcess.run(
            ["generate", "CITextImageGenerator inputText=Hello inputFontSize=40 inputFontName=DejaVuSans", "text.png"],
            in: directory)
        XCTAssertEqual(r.status, 0, r.stderr)
        let written = try PixelBuffer(contentsOfFile: path("text.png"))
        let expected = try Image.text("Hello", fontName: "DejaVuSans", fontSize: 40)
        XCTAssertEqual([Double(written.width), Double(written.height)], [expected.extent.width, expected.extent.height])
        // Plain text for the attributed generator: black, in the default font at 12.
        let a = try CLIProcess.run(["generate", "CIAttributedTextImageGenerator inputText=Hi", "a.png"], in: directory)
        XCTAssertEqual(a.status, 0, a.stderr)
        let hi = try PixelBuffer(contentsOfFile: path("a.png"))
        let plain = try Image.text("Hi", fontSize: 12)
        XCTAssertEqual([Double(hi.width), Double(hi.height)], [plain.extent.width, plain.extent.height])
        var inked = 0
        for y in 0..<hi.height {
            for x in 0..<hi.width where hi[x, y].w > 0 {
                inked += 1
                XCTAssertEqual(hi[x, y].x, 0, "black text")
            }
        }
        XCTAssertGreaterThan(inked, 10)
    }

    func testErrors() throws {
        let cases: [([String], Int32, String)] = [
            (["generate", "CISepiaTone", "x.png"], 2, "takes an image"),
            (["generate", "NoSuchFilter", "x.png"], 2, "unknown filter"),
            (["generate", "CICode128BarcodeGenerator inputMessage=hex:0", "x.png"], 2, "hex"),
            (["generate", "CICode128BarcodeGenerator inputMessage=é", "x.png"], 1, "ASCII"),
            (["generate", "CICode128BarcodeGenerator", "x.unknown"], 2, "format"),
            (["generate", "CICheckerboardGenerator", "x.png", "--size", "0x5"], 2, "--size"),
            (["generate", "CICode128BarcodeGenerator"], 2, "needs a filter and an output"),
            (["generate", "CITextImageGenerator inputFontName=/no/such.ttf", "x.png"], 1, "/no/such.ttf"),
            (["generate", "CITextImageGenerator inputFontSize=nan", "x.png"], 2, "inputFontSize"),
        ]
        for (arguments, status, text) in cases {
            let r = try CLIProcess.run(arguments, in: directory)
            XCTAssertEqual(r.status, status, "\(arguments): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains(text), "\(arguments): \(r.stderr)")
            XCTAssertFalse(FileManager.default.fileExists(atPath: path("x.png")), "\(arguments)")
        }
    }
}
