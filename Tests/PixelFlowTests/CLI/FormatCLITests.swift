import Foundation
import XCTest
import PixelFlow

/// `pixelflow info` and the format and color options of `pixelflow apply` (--format for every
/// format, --quality, --lossless, --effort, --compression, --keep-profile, --keep-metadata,
/// --strip, --page), run as a subprocess on PNG and JPEG files made in a temporary folder.
///
/// The WebP, TIFF, GIF and HEIF codecs may be missing from a build: tests that write those
/// formats accept either the file or a clear "not available" error, never a half file.
final class FormatCLITests: TemporaryDirectoryTestCase {

    // MARK: info

    func testInfoPrintsOneLinePerFileForPNGAndJPEG() throws {
        try writeImage("alpha.png", width: 7, height: 5, opaque: false)
        try copyFixture("orientation6.jpg")
        let r = try CLIProcess.run(["info", "alpha.png", "orientation6.jpg"], in: directory)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.lines.count, 2, r.text)
        XCTAssertEqual(
            r.lines[0],
            "alpha.png: png 7x5, 1 image, 8-bit rgb, alpha, profile sRGB (sRGB chunk), orientation 1 (up), no EXIF or XMP")
        // The stored size (before the orientation is applied) and the EXIF block's size.
        let exif = try XCTUnwrap(try ImageFile(contentsOfFile: path("orientation6.jpg")).metadata.exif)
        XCTAssertTrue(
            r.lines[1].hasPrefix("orientation6.jpg: jpeg 40x24, 1 image, 8-bit ycbcr, no alpha, "), r.lines[1])
        XCTAssertTrue(r.lines[1].hasSuffix(", orientation 6 (right), EXIF \(exif.count) bytes"), r.lines[1])
    }

    func testInfoJSONHasTheDocumentedKeysAndValues() throws {
        try writeImage("opaque.png", width: 9, height: 4, opaque: true)
        try copyFixture("orientation6.jpg")
        let r = try CLIProcess.run(["info", "--json", "opaque.png", "orientation6.jpg"], in: directory)
        XCTAssertEqual(r.status, 0, r.stderr)
        let array = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(r.stdout)) as? [[String: Any]], r.text)
        XCTAssertEqual(array.count, 2)
        let keys: Set<String> = [
            "file", "format", "width", "height", "image_count", "animated", "bits_per_sample", "color_model",
            "has_alpha", "profile", "icc_bytes", "orientation", "orientation_name", "exif_bytes", "xmp_bytes",
        ]
        for object in array { XCTAssertEqual(Set(object.keys), keys) }
        let png = array[0], jpeg = array[1]
        XCTAssertEqual(png["file"] as? String, "opaque.png")
        XCTAssertEqual(png["format"] as? String, "png")
        XCTAssertEqual(png["width"] as? Int, 9)
        XCTAssertEqual(png["height"] as? Int, 4)
        XCTAssertEqual(png["image_count"] as? Int, 1)
        XCTAssertEqual(png["animated"] as? Bool, false)
        XCTAssertEqual(png["bits_per_sample"] as? Int, 8)
        XCTAssertEqual(png["has_alpha"] as? Bool, false)
        // PixelFlow writes sRGB as PNG's sRGB chunk: a profile with a name but no ICC bytes.
        XCTAssertEqual(png["profile"] as? String, "sRGB (sRGB chunk)", r.text)
        XCTAssertEqual(png["icc_bytes"] as? Int, 0)
        XCTAssertEqual(png["exif_bytes"] as? Int, 0)
        XCTAssertEqual(jpeg["format"] as? String, "jpeg")
        XCTAssertEqual(jpeg["color_model"] as? String, "ycbcr")
        XCTAssertEqual(jpeg["orientation"] as? Int, 6)
        XCTAssertEqual(jpeg["orientation_name"] as? String, "right")
        XCTAssertEqual(jpeg["width"] as? Int, 40)
        XCTAssertEqual(jpeg["height"] as? Int, 24)
        XCTAssertGreaterThan(jpeg["exif_bytes"] as? Int ?? 0, 0)
    }

    func testInfoReportsEachFailureAndStillPrintsTheOthers() throws {
        try writeImage("good.png", width: 3, height: 3, opaque: true)
        try Data("not an image".utf8).write(to: URL(fileURLWithPath: path("bad.png")))
        try FileManager.default.createDirectory(atPath: path("folder"), withIntermediateDirectories: true)
        let r = try CLIProcess.run(["info", "missing.png", "good.png", "bad.png", "folder"], in: directory)
        XCTAssertEqual(r.status, 1)
        XCTAssertEqual(r.lines.count, 1, r.text)
        XCTAssertTrue(r.lines[0].hasPrefix("good.png: png 3x3"), r.text)
        let errors = r.stderr.split(separator: "\n").map(String.init)
        XCTAssertEqual(errors.count, 3, r.stderr)
        XCTAssertTrue(errors[0].contains("missing.png") && errors[0].contains("no such file"), r.stderr)
        XCTAssertTrue(errors[1].contains("bad.png") && errors[1].contains("not a PNG, JPEG"), r.stderr)
        XCTAssertTrue(errors[2].contains("folder") && errors[2].contains("directory"), r.stderr)

        let json = try CLIProcess.run(["info", "--json", "good.png", "bad.png"], in: directory)
        XCTAssertEqual(json.status, 1)
        let array = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(json.stdout)) as? [[String: Any]])
        XCTAssertEqual(array.map { $0["file"] as? String }, ["good.png"])

        for args in [["info"], ["info", "-", "-"], ["info", "a.png", "--frobnicate"]] {
            let usage = try CLIProcess.run(args, in: directory)
            XCTAssertEqual(usage.status, 2, "\(args): \(usage.stderr)")
            XCTAssertTrue(usage.stdout.isEmpty)
        }
    }

    func testInfoReadsStandardInput() throws {
        try copyFixture("orientation6.jpg")
        let r = try runWithInput(["info", "-"], stdin: path("orientation6.jpg"))
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.text.hasPrefix("<stdin>: jpeg 40x24"), r.text)
        let json = try runWithInput(["info", "-", "--json"], stdin: path("orientation6.jpg"))
        XCTAssertTrue(json.text.contains("\"file\": \"-\""), json.text)
        let empty = try runWithInput(["info", "-"], stdin: nil)
        XCTAssertEqual(empty.status, 1)
        XCTAssertTrue(empty.stderr.contains("<stdin>: no data"), empty.stderr)
    }

    /// A JPEG with a Display P3 ICC profile in APP2: `info` names the profile as lcms2 reads
    /// it, and `apply --keep-profile` writes it back with it.
    func testInfoNamesAnEmbeddedICCProfile() throws {
        try copyFixture("orientation6.jpg")
        let p3 = path("p3.jpg")
        try Data(withICCProfile(try bytes(of: path("orientation6.jpg")), ColorSpace.displayP3.iccProfile))
            .write(to: URL(fileURLWithPath: p3))
        XCTAssertEqual(try ImageFile(contentsOfFile: p3).metadata.iccProfile, ColorSpace.displayP3.iccProfile)
        let r = try CLIProcess.run(["info", "p3.jpg"], in: directory)
        let json = try CLIProcess.run(["info", "p3.jpg", "--json"], in: directory)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.text.contains("profile \"Display P3\""), r.text)
        XCTAssertTrue(json.text.contains("\"profile\": \"Display P3\""), json.text)
        let kept = try CLIProcess.run(["apply", "p3.jpg", "kept.png", "--keep-profile"], in: directory)
        XCTAssertEqual(kept.status, 0, kept.stderr)
        let out = try ImageFile(contentsOfFile: path("kept.png"))
        XCTAssertEqual([out.info.width, out.info.height], [24, 40], "written upright")
        XCTAssertEqual(out.metadata.iccProfile, ColorSpace.displayP3.iccProfile)
    }

    /// `--keep-profile` on a Display P3 PNG whose colors lie outside sRGB: the output holds the
    /// input's stored values (the colors went through linear sRGB floats unclipped), while the
    /// default output is sRGB and clips them.
    func testKeepProfileKeepsColorsOutsideSRGB() throws {
        let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/Color/p3_patches.png")
        try FileManager.default.copyItem(at: fixture, to: directory.appendingPathComponent("p3.png"))
        XCTAssertEqual(try CLIProcess.run(["apply", "p3.png", "kept.png", "--keep-profile"], in: directory).status, 0)
        XCTAssertEqual(try CLIProcess.run(["apply", "p3.png", "srgb.png"], in: directory).status, 0)
        var raw = DecodeOptions()
        raw.appliesColorProfile = false
        let input = try PixelBuffer(contentsOfFile: path("p3.png"), options: raw)
        let kept = try PixelBuffer(contentsOfFile: path("kept.png"), options: raw)
        let srgb = try PixelBuffer(contentsOfFile: path("srgb.png"), options: raw)
        XCTAssertEqual(
            try ImageFile(contentsOfFile: path("kept.png")).metadata.iccProfile,
            try ImageFile(contentsOfFile: path("p3.png")).metadata.iccProfile)
        XCTAssertTrue(try ImageFile(contentsOfFile: path("srgb.png")).metadata.declaresSRGB)
        for x in stride(from: 8, to: input.width, by: 16) {
            for c in 0..<3 {
                XCTAssertEqual(kept[x, 8][c], input[x, 8][c], accuracy: 1.5 / 255, "patch at \(x)")
            }
        }
        // P3 green (0, 255, 0) is outside sRGB: in the sRGB output its red is clipped to 0.
        XCTAssertEqual(srgb[24, 8].x, 0)
        XCTAssertEqual(srgb[24, 8].y, 1)
    }

    // MARK: apply: validation

    func testNewApplyOptionsAreCheckedBeforeAnyFileIsRead() throws {
        let cases: [([String], String)] = [
            (["out.png", "--compression", "fast"], "unknown --compression 'fast'"),
            (["out.png", "--compression", "12"], "0...9"),
            (["out.png", "--compression", "lzw"], "is a TIFF compression, but the output is png"),
            (["out.jpg", "--compression", "6"], "is a PNG compression level, but the output is jpeg"),
            (["out.png", "--strip", "--keep-profile"], "--keep-profile"),
            (["out.png", "--strip", "--keep-metadata"], "--keep-metadata"),
            (["out.webp", "--effort", "12"], "--effort"),
            (["out.jpg", "--quality", "0"], "--quality"),
            (["out.png", "--page", "-1"], "--page"),
            (["out.png", "--frame", "x"], "--page"),
            (["out.tga"], "cannot tell the output format"),
            (["out.png", "--format", "tga"], "unknown --format 'tga'"),
        ]
        for (rest, hint) in cases {
            let args = ["apply", "missing.png"] + rest
            let r = try CLIProcess.run(args, in: directory)
            XCTAssertEqual(r.status, 2, "\(args): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains(hint), "\(args): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains("`pixelflow apply --help`"), r.stderr)
            XCTAssertFalse(r.stderr.contains("no such file"), "usage is checked before reading: \(r.stderr)")
        }
        let help = try CLIProcess.run(["apply", "--help"], in: directory)
        for option in ["--lossless", "--effort", "--compression", "--keep-profile", "--keep-metadata", "--strip", "--page"] {
            XCTAssertTrue(help.text.contains(option), option)
        }
    }

    // MARK: apply: formats

    func testOutputFormatFollowsTheExtension() throws {
        try writeImage("in.png", width: 12, height: 8, opaque: false)
        for (name, format) in [("a.png", ImageFileFormat.png), ("b.jpg", .jpeg), ("c.jpeg", .jpeg), ("d.bmp", .bmp)] {
            let r = try CLIProcess.run(["apply", "in.png", name], in: directory)
            XCTAssertEqual(r.status, 0, "\(name): \(r.stderr)")
            XCTAssertEqual(ImageFileFormat.sniff(try bytes(of: path(name))), format, name)
        }
        // --format wins over the extension, and takes the new names.
        let forced = try CLIProcess.run(["apply", "in.png", "e.out", "--format", "jpg"], in: directory)
        XCTAssertEqual(forced.status, 0, forced.stderr)
        XCTAssertEqual(ImageFileFormat.sniff(try bytes(of: path("e.out"))), .jpeg)
        // The new formats: the file in its format, or a clear error and no file.
        let newFormats: [(String, ImageFileFormat)] = [
            ("f.webp", .webp), ("g.tif", .tiff), ("h.tiff", .tiff), ("i.gif", .gif), ("j.heic", .heif), ("k.avif", .avif),
        ]
        for (name, format) in newFormats {
            let r = try CLIProcess.run(["apply", "in.png", name, "--quality", "80", "--effort", "1"], in: directory)
            if r.status == 0 {
                XCTAssertEqual(ImageFileFormat.sniff(try bytes(of: path(name))), format, name)
            } else {
                XCTAssertEqual(r.status, 1, "\(name): \(r.stderr)")
                XCTAssertTrue(r.stderr.contains(name) || r.stderr.contains("in.png"), r.stderr)
                XCTAssertFalse(FileManager.default.fileExists(atPath: path(name)), "no half file for \(name)")
            }
        }
    }

    func testPNGCompressionLevelChangesTheSizeNotThePixels() throws {
        try writeImage("in.png", width: 64, height: 48, opaque: true)
        for level in ["0", "9"] {
            let r = try CLIProcess.run(["apply", "in.png", "z\(level).png", "--compression", level], in: directory)
            XCTAssertEqual(r.status, 0, r.stderr)
        }
        let stored = try bytes(of: path("z0.png")), small = try bytes(of: path("z9.png"))
        XCTAssertGreaterThan(stored.count, small.count)
        XCTAssertEqual(try PixelBuffer(encoded: stored), try PixelBuffer(encoded: small))
    }

    // MARK: apply: metadata

    func testStripWritesNoColorOrMetadataChunksAndTheDefaultDecodes() throws {
        try writeImage("in.png", width: 10, height: 6, opaque: false)
        let strip = try CLIProcess.run(["apply", "in.png", "strip.png", "--strip"], in: directory)
        XCTAssertEqual(strip.status, 0, strip.stderr)
        let chunks = try pngChunkTypes(try bytes(of: path("strip.png")))
        for kind in ["iCCP", "sRGB", "cICP", "gAMA", "cHRM", "eXIf", "iTXt", "zTXt", "tEXt"] {
            XCTAssertFalse(chunks.contains(kind), "--strip leaves no \(kind): \(chunks)")
        }
        // The default output may carry the sRGB profile (iCCP or sRGB); it decodes to the same pixels.
        let plain = try CLIProcess.run(["apply", "in.png", "default.png"], in: directory)
        XCTAssertEqual(plain.status, 0, plain.stderr)
        XCTAssertEqual(try PixelBuffer(contentsOfFile: path("default.png")), try PixelBuffer(contentsOfFile: path("strip.png")))

        // A JPEG with EXIF: --strip writes no APP1 (EXIF, XMP) or APP2 (ICC) segment.
        try copyFixture("orientation6.jpg")
        let jpeg = try CLIProcess.run(["apply", "orientation6.jpg", "strip.jpg", "--strip"], in: directory)
        XCTAssertEqual(jpeg.status, 0, jpeg.stderr)
        let markers = jpegMarkers(try bytes(of: path("strip.jpg")))
        XCTAssertFalse(markers.contains(0xE1) || markers.contains(0xE2), "markers: \(markers)")
        XCTAssertEqual(try ImageFile(contentsOfFile: path("strip.jpg")).metadata, ImageMetadata())
    }

    func testKeepMetadataWritesUprightPixelsWithOrientationOne() throws {
        try copyFixture("orientation6.jpg")
        let r = try CLIProcess.run(["apply", "orientation6.jpg", "kept.jpg", "--keep-metadata"], in: directory)
        XCTAssertEqual(r.status, 0, r.stderr)
        let out = try ImageFile(contentsOfFile: path("kept.jpg"))
        XCTAssertEqual([out.info.width, out.info.height], [24, 40], "the pixels are written upright")
        // Whether or not the encoder writes the EXIF yet, its orientation must not rotate them again.
        XCTAssertEqual(out.metadata.orientation, .up)
        let plain = try CLIProcess.run(["apply", "orientation6.jpg", "plain.jpg"], in: directory)
        XCTAssertEqual(plain.status, 0, plain.stderr)
        XCTAssertNil(try ImageFile(contentsOfFile: path("plain.jpg")).metadata.exif, "EXIF is stripped by default")
    }

    // MARK: apply: pages, batch, streams

    func testPageSelectsAnImageAndAPageTheFileLacksIsARuntimeError() throws {
        try writeImage("in.png", width: 5, height: 5, opaque: true)
        let first = try CLIProcess.run(["apply", "in.png", "p0.png", "--page", "0"], in: directory)
        XCTAssertEqual(first.status, 0, first.stderr)
        let missing = try CLIProcess.run(["apply", "in.png", "p1.png", "--frame", "1"], in: directory)
        XCTAssertEqual(missing.status, 1)
        XCTAssertTrue(missing.stderr.contains("in.png") && missing.stderr.contains("0..<1"), missing.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("p1.png")))
    }

    func testBatchModeTakesTheNewOptions() throws {
        try writeImage("a.png", width: 6, height: 4, opaque: true)
        try writeImage("b.png", width: 4, height: 6, opaque: false)
        try copyFixture("orientation6.jpg")
        try FileManager.default.createDirectory(atPath: path("out"), withIntermediateDirectories: true)
        // PNG outputs take the compression level; the JPEG output ignores it.
        let r = try CLIProcess.run(
            ["apply", "a.png", "b.png", "orientation6.jpg", "out/", "--compression", "9", "--strip", "--page", "0"],
            in: directory)
        XCTAssertEqual(r.status, 0, r.stderr)
        for name in ["a.png", "b.png", "orientation6.jpg"] {
            XCTAssertTrue(FileManager.default.fileExists(atPath: path("out/" + name)), name)
        }
        // With --format every output is PNG, renamed.
        try FileManager.default.createDirectory(atPath: path("png"), withIntermediateDirectories: true)
        let png = try CLIProcess.run(
            ["apply", "orientation6.jpg", "png/", "--format", "png", "--compression", "1"],
            in: directory)
        XCTAssertEqual(png.status, 0, png.stderr)
        XCTAssertEqual(ImageFileFormat.sniff(try bytes(of: path("png/orientation6.png"))), .png)
        // A TIFF compression fits no output of this batch.
        let wrong = try CLIProcess.run(["apply", "a.png", "b.png", "out/", "--compression", "lzw"], in: directory)
        XCTAssertEqual(wrong.status, 2, wrong.stderr)
    }

    func testStandardOutputTakesTheEncoderOptions() throws {
        try writeImage("in.png", width: 16, height: 16, opaque: true)
        let r = try runWithInput(["apply", "-", "-", "--strip", "--compression", "0"], stdin: path("in.png"))
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(ImageFileFormat.sniff(r.stdout), .png)
        XCTAssertFalse(try pngChunkTypes(r.stdout).contains("iCCP"))
        XCTAssertEqual(try PixelBuffer(encoded: r.stdout), try PixelBuffer(contentsOfFile: path("in.png")))
    }

    // MARK: Helpers

    private func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    private func bytes(of file: String) throws -> [UInt8] { Array(try Data(contentsOf: URL(fileURLWithPath: file))) }

    /// Writes a small deterministic RGBA image as PNG (alpha varies unless `opaque`).
    private func writeImage(_ name: String, width: Int, height: Int, opaque: Bool) throws {
        var buffer = try PixelBuffer(width: width, height: height, format: .rgba8)
        for y in 0..<height {
            for x in 0..<width {
                let alpha: Float = opaque || x % 3 != 0 ? 1 : 0.5
                buffer[x, y] = SIMD4(Float(x) / Float(width), Float(y) / Float(height), Float((x * 7 + y * 13) % 11) / 10, alpha)
            }
        }
        try buffer.write(toFile: path(name), format: .png)
    }

    private func copyFixture(_ name: String) throws {
        let source = packageRoot + "/Tests/PixelFlowTests/Fixtures/Codecs/" + name
        try FileManager.default.copyItem(atPath: source, toPath: path(name))
    }

    /// The chunk types of a PNG file, in order.
    private func pngChunkTypes(_ png: [UInt8]) throws -> [String] {
        XCTAssertEqual(ImageFileFormat.sniff(png), .png)
        var types: [String] = []
        var offset = 8
        while offset + 8 <= png.count {
            let length = png[offset..<(offset + 4)].reduce(0) { $0 << 8 | Int($1) }
            types.append(String(decoding: png[(offset + 4)..<(offset + 8)], as: UTF8.self))
            offset += 12 + length
        }
        return types
    }

    /// The marker bytes of a JPEG's segments before the image data (0xE1 for APP1, ...).
    private func jpegMarkers(_ jpeg: [UInt8]) -> [UInt8] {
        var markers: [UInt8] = []
        var offset = 2
        while offset + 4 <= jpeg.count, jpeg[offset] == 0xFF {
            let marker = jpeg[offset + 1]
            markers.append(marker)
            if marker == 0xDA { break }
            offset += 2 + (Int(jpeg[offset + 2]) << 8 | Int(jpeg[offset + 3]))
        }
        return markers
    }

    /// `jpeg` with `profile` inserted after SOI as one APP2 `ICC_PROFILE` segment.
    private func withICCProfile(_ jpeg: [UInt8], _ profile: [UInt8]) -> [UInt8] {
        let payload = Array("ICC_PROFILE".utf8) + [0, 1, 1] + profile
        let length = payload.count + 2
        precondition(length <= 0xFFFF, "one segment holds the profile")
        let segment: [UInt8] = [0xFF, 0xE2, UInt8(length >> 8), UInt8(length & 0xFF)] + payload
        return Array(jpeg[0..<2]) + segment + Array(jpeg[2...])
    }

    /// Runs `pixelflow` with standard input read from the file `stdin` (empty when nil).
    private func runWithInput(_ arguments: [String], stdin: String?) throws -> CLIProcess.Result {
        let process = Process()
        process.executableURL = try CLIProcess.executable("pixelflow")
        process.arguments = arguments
        process.currentDirectoryURL = directory
        let outURL = directory.appendingPathComponent(".stdout-\(UUID().uuidString)")
        let errURL = directory.appendingPathComponent(".stderr-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        let out = try FileHandle(forWritingTo: outURL)
        let err = try FileHandle(forWritingTo: errURL)
        defer {
            try? out.close()
            try? err.close()
            try? FileManager.default.removeItem(at: outURL)
            try? FileManager.default.removeItem(at: errURL)
        }
        process.standardOutput = out
        process.standardError = err
        process.standardInput =
            try stdin.map { try FileHandle(forReadingFrom: URL(fileURLWithPath: $0)) } ?? FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return CLIProcess.Result(
            status: process.terminationStatus, stdout: Array(try Data(contentsOf: outURL)),
            stderr: String(decoding: try Data(contentsOf: errURL), as: UTF8.self))
    }
}
