import Foundation
import XCTest
@testable import PixelFlow
@testable import PixelFlowKernels
@testable import PixelFlowGraph
@testable import PixelFlowEngine

/// `pixelflow thumbnail`, run as a subprocess: the size and aspect ratio of the box, the
/// EXIF orientation, shrink-on-load against `--exact`, and the exit statuses of errors.
final class ThumbnailCLITests: TemporaryDirectoryTestCase {

    // MARK: Size and aspect ratio

    func testWidthAloneKeepsTheAspectRatio() throws {
        try writeJPEG("in.jpg", width: 1001, height: 667)
        let r = try CLIProcess.run(["thumbnail", "in.jpg", "out.jpg", "--width", "200"], in: directory)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.isEmpty)
        let info = try ImageFile(contentsOfFile: path("out.jpg")).info
        XCTAssertEqual(info.format, .jpeg)
        XCTAssertEqual([info.width, info.height], [200, 133])  // 667 * 200 / 1001 = 133.3
    }

    func testWidthAndHeightFitTheBox() throws {
        try writeJPEG("in.jpg", width: 1001, height: 667)
        let cases: [([String], [Int])] = [
            (["-W", "300", "-H", "100"], [150, 100]),  // the height limits
            (["--width", "300", "--height", "1000"], [300, 200]),  // the width limits
            (["--width=64", "--height=64"], [64, 43]),
        ]
        for (options, size) in cases {
            let r = try CLIProcess.run(["thumbnail", "in.jpg", "out.png"] + options, in: directory)
            XCTAssertEqual(r.status, 0, "\(options): \(r.stderr)")
            let info = try ImageFile(contentsOfFile: path("out.png")).info
            XCTAssertEqual(info.format, .png)
            XCTAssertEqual([info.width, info.height], size, "\(options)")
        }
    }

    func testSmallImagesAreEnlargedAndOtherFormatsWork() throws {
        var b = try PixelBuffer(width: 40, height: 30, format: .rgba8)
        for y in 0..<30 { for x in 0..<40 { b[x, y] = SIMD4(Float(x) / 40, Float(y) / 30, 0.5, 1) } }
        try b.write(toFile: path("small.png"), format: .png)
        let r = try CLIProcess.run(["thumbnail", "small.png", "big.jpg", "--width", "80", "--quality", "80"], in: directory)
        XCTAssertEqual(r.status, 0, r.stderr)
        let info = try ImageFile(contentsOfFile: path("big.jpg")).info
        XCTAssertEqual([info.width, info.height], [80, 60])
    }

    // MARK: Orientation

    func testOrientationIsAppliedAndWidthIsTheUprightWidth() throws {
        // The fixture is stored 40x24 with orientation 6: upright it is 24x40.
        try FileManager.default.copyItem(
            atPath: packageRoot + "/Tests/PixelFlowTests/Fixtures/Codecs/orientation6.jpg",
            toPath: path("o6.jpg"))
        let r = try CLIProcess.run(["thumbnail", "o6.jpg", "out.png", "--width", "12"], in: directory)
        XCTAssertEqual(r.status, 0, r.stderr)
        let thumb = try PixelBuffer(contentsOfFile: path("out.png"))
        XCTAssertEqual([thumb.width, thumb.height], [12, 20])
        // The same as scaling the upright decode (Lanczos commutes with a quarter turn, up to
        // the float sums' order).
        let upright = try Image(contentsOfFile: path("o6.jpg"))
        let reference = try RenderContext(threadCount: 1).makeBuffer(try upright.lanczosScaled(scale: 0.5), format: .rgba8)
        XCTAssertLessThanOrEqual(maxLevels(thumb, reference), 1)
    }

    func testLargeRotatedJPEGShrinksOnLoadAndIsTurnedUpright() throws {
        // A 1203x803 JPEG stored sideways (orientation 6), displayed 803 wide and 1203 tall.
        try writeJPEG("plain.jpg", width: 1203, height: 803)
        let exif = try exifSegment(of: packageRoot + "/Tests/PixelFlowTests/Fixtures/Codecs/orientation6.jpg")
        let plain = try bytes(of: path("plain.jpg"))
        try Data(Array(plain[0..<2]) + exif + Array(plain[2...])).write(to: URL(fileURLWithPath: path("o6.jpg")))
        XCTAssertEqual(try ImageFile(contentsOfFile: path("o6.jpg")).metadata.orientation, .right)

        let fast = try CLIProcess.run(["thumbnail", "o6.jpg", "fast.png", "--width", "100"], in: directory)
        let exact = try CLIProcess.run(["thumbnail", "o6.jpg", "exact.png", "--width", "100", "--exact"], in: directory)
        XCTAssertEqual(fast.status, 0, fast.stderr)
        XCTAssertEqual(exact.status, 0, exact.stderr)
        let a = try PixelBuffer(contentsOfFile: path("fast.png")), b = try PixelBuffer(contentsOfFile: path("exact.png"))
        XCTAssertEqual([a.width, a.height], [100, 150])  // 1203 * 100 / 803 = 149.8
        XCTAssertEqual([b.width, b.height], [100, 150])
        XCTAssertLessThanOrEqual(maxLevels(a, b), ShrinkSourcesOnLoadTests.maximumLevels)
        // --exact equals the thumbnail of the upright full decode (a 1/4 box shrink, then
        // Lanczos-3), up to 2 levels: the box's blocks start at the stored image's origin,
        // which is the upright image's top-right corner, so the last partial blocks differ.
        let upright = try Image(contentsOfFile: path("o6.jpg"))
        let reference = try RenderContext(threadCount: 1).makeBuffer(try upright.thumbnail(width: 100), format: .rgba8)
        XCTAssertLessThanOrEqual(maxLevels(b, reference), 2)
    }

    // MARK: Errors

    func testUsageErrorsExitWith2() throws {
        try writeJPEG("in.jpg", width: 50, height: 40)
        let cases: [([String], String)] = [
            (["thumbnail", "in.jpg", "out.jpg"], "needs --width"),
            (["thumbnail", "in.jpg"], "needs an input and an output"),
            (["thumbnail", "in.jpg", "out.jpg", "--width", "0"], "--width"),
            (["thumbnail", "in.jpg", "out.jpg", "--width", "wide"], "--width"),
            (["thumbnail", "in.jpg", "out.jpg", "--width", "10", "--height", "-3"], "--height"),
            (["thumbnail", "in.jpg", "out.jpg", "--width", "10", "--quality", "101"], "--quality"),
            (["thumbnail", "in.jpg", "out.xyz", "--width", "10"], "cannot tell the output format"),
            (["thumbnail", "in.jpg", "out.jpg", "--widht", "10"], "did you mean --width?"),
        ]
        for (args, hint) in cases {
            let r = try CLIProcess.run(args, in: directory)
            XCTAssertEqual(r.status, 2, "\(args): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains(hint), "\(args): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains("`pixelflow thumbnail"), "\(args): \(r.stderr)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("out.jpg")))
    }

    func testRuntimeErrorsExitWith1NamingTheFile() throws {
        let missing = try CLIProcess.run(["thumbnail", "nope.jpg", "out.jpg", "--width", "10"], in: directory)
        XCTAssertEqual(missing.status, 1)
        XCTAssertTrue(missing.stderr.contains("nope.jpg") && missing.stderr.contains("no such file"), missing.stderr)

        try Data("not an image".utf8).write(to: URL(fileURLWithPath: path("text.jpg")))
        let text = try CLIProcess.run(["thumbnail", "text.jpg", "out.jpg", "--width", "10"], in: directory)
        XCTAssertEqual(text.status, 1, text.stderr)
        XCTAssertTrue(text.stderr.contains("text.jpg"), text.stderr)

        // Corrupt scan data is met during the render: still status 1, and no output file.
        try writeJPEG("in.jpg", width: 600, height: 400)
        var cut = try bytes(of: path("in.jpg"))
        cut.removeLast(cut.count / 2)
        try Data(cut).write(to: URL(fileURLWithPath: path("cut.jpg")))
        let truncated = try CLIProcess.run(["thumbnail", "cut.jpg", "out.jpg", "--width", "60"], in: directory)
        XCTAssertEqual(truncated.status, 1, truncated.stderr)
        XCTAssertTrue(truncated.stderr.contains("cut.jpg"), truncated.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("out.jpg")))
    }

    // MARK: Helpers

    private func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    private func bytes(of file: String) throws -> [UInt8] { Array(try Data(contentsOf: URL(fileURLWithPath: file))) }

    /// A photo-like JPEG: gradients and a ripple.
    private func writeJPEG(_ name: String, width: Int, height: Int) throws {
        var b = try PixelBuffer(width: width, height: height, format: .rgba8)
        for y in 0..<height {
            for x in 0..<width {
                let ripple = Float(0.5 + 0.4 * sin(Double(x) / 13) * cos(Double(y) / 17))
                b[x, y] = SIMD4(Float(x) / Float(width), Float(y) / Float(height), ripple, 1)
            }
        }
        try b.write(toFile: path(name), format: .jpeg, quality: 90)
    }

    /// The APP1 "Exif" segment of a JPEG, marker included.
    private func exifSegment(of file: String) throws -> [UInt8] {
        let b = try bytes(of: file)
        var i = 2
        while i + 4 <= b.count, b[i] == 0xFF {
            let length = Int(b[i + 2]) << 8 | Int(b[i + 3])
            if b[i + 1] == 0xE1, Array(b[(i + 4)..<(i + 10)]) == Array("Exif".utf8) + [0, 0] {
                return Array(b[i..<(i + 2 + length)])
            }
            i += 2 + length
        }
        throw XCTSkip("no EXIF segment in \(file)")
    }

    /// The largest difference of R, G and B in 8-bit levels.
    private func maxLevels(_ a: PixelBuffer, _ b: PixelBuffer) -> Int {
        XCTAssertEqual([a.width, a.height], [b.width, b.height])
        let a8 = a.converted(to: .rgba8), b8 = b.converted(to: .rgba8)
        var m = 0
        for y in 0..<Swift.min(a.height, b.height) {
            for x in 0..<Swift.min(a.width, b.width) {
                let p = a8[x, y], q = b8[x, y]
                for c in 0..<3 { m = Swift.max(m, Int((Swift.abs(p[c] - q[c]) * 255).rounded())) }
            }
        }
        return m
    }
}
