import Foundation
import XCTest
import PixelFlow

/// Runs the `pixelflow` and `pixelflow-demo` executables as subprocesses and checks their
/// files, output and exit statuses against the library's own renders.
///
/// The executables are looked for next to the test binary (the build's products folder,
/// whatever `--scratch-path` was used), then in `.build/debug` of the package; set
/// `PIXELFLOW_BIN_DIR` to point elsewhere. `swift test` builds them with the tests.
final class CLITests: TemporaryDirectoryTestCase {

    // MARK: apply

    func testApplyOneFilterMatchesTheLibrary() throws {
        let input = try writeTestImage("in.png", width: 37, height: 23, seed: 1)
        let output = path("out.png")
        let r = try run("pixelflow", ["apply", input, output, "--filter", "CISepiaTone inputIntensity=0.8"])
        XCTAssertEqual(r.status, 0, r.stderr)

        let written = try PixelBuffer(contentsOfFile: output)
        // The CLI writes in strips, which take the byte path as an in-memory render does.
        let expected = try RenderContext().makeBuffer(
            Image(try PixelBuffer(contentsOfFile: input)).sepiaTone(intensity: 0.8),
            format: .rgba8)
        XCTAssertEqual(written.width, 37)
        XCTAssertEqual(written.height, 23)
        XCTAssertEqual(written[5, 7], expected[5, 7])
        XCTAssertEqual(written, expected)
    }

    func testApplyTwoFiltersCropsTheBlurBackToTheInput() throws {
        let input = try writeTestImage("in.png", width: 40, height: 30, seed: 2)
        let output = path("out.png")
        // The short names and a key without its `input` prefix are accepted too.
        let r = try run(
            "pixelflow",
            [
                "apply", input, output, "--threads", "3",
                "--filter", "ExposureAdjust inputEV=0.5", "--filter", "GaussianBlur radius=2",
            ])
        XCTAssertEqual(r.status, 0, r.stderr)

        let source = Image(try PixelBuffer(contentsOfFile: input))
        // The blur sees the edge pixels repeated beyond the input (the README's idiom).
        let chain = try source.exposureAdjusted(ev: 0.5).clampedToExtent().gaussianBlurred(radius: 2).cropped(to: source.extent)
        let expected = try RenderContext(threadCount: 1).makeBuffer(chain, format: .rgba8)
        let written = try PixelBuffer(contentsOfFile: output)
        XCTAssertEqual(written.width, 40)
        XCTAssertEqual(written.height, 30)
        XCTAssertEqual(written[0, 0], expected[0, 0])
        XCTAssertEqual(written[20, 15], expected[20, 15])
        XCTAssertEqual(written, expected)
    }

    /// Issue 23's example: a blur grows the extent by its reach and a scale after it kept
    /// that size (506x442, with a translucent border); `apply` keeps the input's size and
    /// opacity, and `--keep-extent` gives Core Image's extents.
    func testApplyKeepsTheInputsSizeWhenABlurGrowsTheExtent() throws {
        let input = try writeTestImage("photo.png", width: 1000, height: 872, seed: 7, opaque: true)
        let filters = ["--filter", "CIGaussianBlur inputRadius=2", "--filter", "CILanczosScaleTransform inputScale=0.5"]
        let r = try run("pixelflow", ["apply", input, path("half.png")] + filters)
        XCTAssertEqual(r.status, 0, r.stderr)
        let half = try PixelBuffer(contentsOfFile: path("half.png"))
        XCTAssertEqual(half.width, 500)
        XCTAssertEqual(half.height, 436)
        var minimumAlpha: Float = 1
        for x in 0..<half.width { minimumAlpha = min(minimumAlpha, half[x, 0].w, half[x, half.height - 1].w) }
        for y in 0..<half.height { minimumAlpha = min(minimumAlpha, half[0, y].w, half[half.width - 1, y].w) }
        XCTAssertEqual(minimumAlpha, 1, "no translucent border")
        XCTAssertEqual(half[0, 0].w, 1)
        XCTAssertEqual(half[499, 435].w, 1)

        let k = try run("pixelflow", ["apply", input, path("kept.png"), "--keep-extent"] + filters)
        XCTAssertEqual(k.status, 0, k.stderr)
        let kept = try PixelBuffer(contentsOfFile: path("kept.png"))
        XCTAssertEqual(kept.width, 506)
        XCTAssertEqual(kept.height, 442)
        XCTAssertLessThan(kept[0, 0].w, 0.5, "Core Image's extent: the blur fades out at the corner")

        // A blur alone keeps the size in both modes' sense of the frame; --keep-extent writes
        // the grown extent.
        let b = try run(
            "pixelflow", ["apply", input, path("blur.png"), "--keep-extent", "--filter", "CIGaussianBlur inputRadius=2"])
        XCTAssertEqual(b.status, 0, b.stderr)
        XCTAssertEqual(try PixelBuffer(contentsOfFile: path("blur.png")).width, 1012)
    }

    func testApplyRefusesToReplaceAReadOnlyOutputUnlessForced() throws {
        let input = try writeTestImage("in.png", width: 12, height: 9, seed: 8)
        let output = path("locked.png")
        try Data("keep me".utf8).write(to: URL(fileURLWithPath: output))
        try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: output)
        let r = try run("pixelflow", ["apply", input, output, "--filter", "ColorInvert"])
        XCTAssertEqual(r.status, 1, r.stderr)
        XCTAssertTrue(r.stderr.contains("read-only") && r.stderr.contains("--force") && r.stderr.contains("locked.png"), r.stderr)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: output)), Data("keep me".utf8))

        let forced = try run("pixelflow", ["apply", input, output, "--filter", "ColorInvert", "--force"])
        XCTAssertEqual(forced.status, 0, forced.stderr)
        XCTAssertEqual(try PixelBuffer(contentsOfFile: output).width, 12)

        // Batch mode: the read-only output fails, the others are written.
        let second = try writeTestImage("second.png", width: 5, height: 4, seed: 9)
        try FileManager.default.createDirectory(atPath: path("out"), withIntermediateDirectories: true)
        try Data("keep me".utf8).write(to: URL(fileURLWithPath: path("out/in.png")))
        try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: path("out/in.png"))
        let batch = try run("pixelflow", ["apply", input, second, path("out")])
        XCTAssertEqual(batch.status, 1, batch.stderr)
        XCTAssertTrue(batch.stderr.contains("read-only"), batch.stderr)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path("out/in.png"))), Data("keep me".utf8))
        XCTAssertEqual(try PixelBuffer(contentsOfFile: path("out/second.png")).width, 5)
        let batchForced = try run("pixelflow", ["apply", input, second, path("out"), "--force"])
        XCTAssertEqual(batchForced.status, 0, batchForced.stderr)
    }

    func testEveryMissingOutputFolderGetsTheSameAdvice() throws {
        let input = try writeTestImage("in.png", width: 20, height: 20, seed: 10)
        let missing = path("nodir/sub")
        let cases: [[String]] = [
            ["apply", input, missing + "/out.png"],
            ["apply", input, input, missing + "/"],
            ["thumbnail", input, missing + "/t.jpg", "--width", "8"],
            ["detect", "qr", input, "--annotate", missing + "/marked.png"],
            ["qr", "encode", "hello", missing + "/code.png"],
        ]
        for args in cases {
            let r = try run("pixelflow", args)
            XCTAssertEqual(r.status, 1, "\(args): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains("create it first (mkdir -p '\(missing)')"), "\(args): \(r.stderr)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("nodir")))
    }

    func testApplyGeometryFilterSetsTheOutputSize() throws {
        let input = try writeTestImage("in.png", width: 40, height: 30, seed: 3)
        let output = path("small.bmp")
        let r = try run("pixelflow", ["apply", input, output, "--filter", "CILanczosScaleTransform inputScale=0.5"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let written = try PixelBuffer(contentsOfFile: output)
        XCTAssertEqual(try ImageFileFormat.sniff(Array(Data(contentsOf: URL(fileURLWithPath: output)))), .bmp)
        XCTAssertEqual(written.width, 20)
        XCTAssertEqual(written.height, 15)
    }

    func testApplyCompositeLoadsTheBackgroundImageAndParsesColorsAndTransforms() throws {
        let input = try writeTestImage("fg.png", width: 16, height: 12, seed: 4)
        let background = try writeTestImage("bg.png", width: 16, height: 12, seed: 5, opaque: true)
        let output = path("out.png")
        let r = try run(
            "pixelflow",
            [
                "apply", input, output,
                "--filter", "CIAffineTransform inputTransform=[1 0 0 1 0 0]",
                "--filter", "SourceOverCompositing inputBackgroundImage=\(background)",
            ])
        XCTAssertEqual(r.status, 0, r.stderr)
        let fg = Image(try PixelBuffer(contentsOfFile: input))
        let bg = Image(try PixelBuffer(contentsOfFile: background))
        let expected = try RenderContext.floatPathOnly().makeBuffer(fg.composited(over: bg), format: .rgba8)
        XCTAssertEqual(try PixelBuffer(contentsOfFile: output), expected)

        // A constant color generator ignores the chain's image: the result is cropped to the input.
        let colored = path("color.png")
        let c = try run("pixelflow", ["apply", input, colored, "--filter", "CIConstantColorGenerator inputColor=#ff8000"])
        XCTAssertEqual(c.status, 0, c.stderr)
        let buffer = try PixelBuffer(contentsOfFile: colored)
        XCTAssertEqual(buffer.width, 16)
        XCTAssertEqual(buffer[3, 3], SIMD4<Float>(1, 128.0 / 255, 0, 1))
    }

    func testSixteenBitPNGStaysSixteenBitInPNGAndIsEightBitInJPEG() throws {
        var deep = try PixelBuffer(width: 9, height: 7, format: .rgba16)
        for y in 0..<7 { for x in 0..<9 { deep[x, y] = SIMD4(Float(x) / 9, Float(y) / 7, 0.123457, 1) } }
        let input = path("deep.png")
        try deep.write(toFile: input, format: .png)
        let r = try run("pixelflow", ["apply", input, path("deep-out.png"), "--filter", "SepiaTone inputIntensity=0.5"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let written = try PixelBuffer(contentsOfFile: path("deep-out.png"))
        XCTAssertEqual(written.format, .rgba16)
        let expected = try RenderContext.floatPathOnly().makeBuffer(
            Image(try PixelBuffer(contentsOfFile: input)).sepiaTone(intensity: 0.5),
            format: .rgba16)
        XCTAssertEqual(written[4, 3], expected[4, 3])
        let j = try run("pixelflow", ["apply", input, path("deep-out.jpg")])
        XCTAssertEqual(j.status, 0, j.stderr)
        XCTAssertEqual(try PixelBuffer(contentsOfFile: path("deep-out.jpg")).format, .rgba8)
    }

    func testEmptyResultIsARuntimeError() throws {
        let input = try writeTestImage("in.png", width: 8, height: 8, seed: 16)
        let r = try run("pixelflow", ["apply", input, path("out.png"), "--filter", "CICrop inputRectangle=[100 100 10 10]"])
        XCTAssertEqual(r.status, 1)
        XCTAssertTrue(r.stderr.contains("in.png") && r.stderr.contains("empty"), r.stderr)
    }

    func testStandardInputAndOutput() throws {
        let input = try writeTestImage("in.png", width: 21, height: 13, seed: 6)
        let r = try run("pixelflow", ["apply", "-", "-", "--filter", "CIColorInvert"], stdin: input)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(ImageFileFormat.sniff(r.stdout), .png)
        let written = try PixelBuffer(encoded: r.stdout)
        let expected = try RenderContext().makeBuffer(
            Image(try PixelBuffer(contentsOfFile: input)).colorInverted(),
            format: .rgba8)
        XCTAssertEqual(written, expected)

        let jpeg = try run("pixelflow", ["apply", "-", "-", "--format", "jpeg", "--quality", "80"], stdin: input)
        XCTAssertEqual(jpeg.status, 0, jpeg.stderr)
        XCTAssertEqual(ImageFileFormat.sniff(jpeg.stdout), .jpeg)
        let decoded = try PixelBuffer(encoded: jpeg.stdout)
        XCTAssertEqual(decoded.width, 21)
        XCTAssertEqual(decoded.height, 13)
    }

    func testBatchWritesTheGoodFilesAndNamesTheBadOne() throws {
        let a = try writeTestImage("a.png", width: 12, height: 10, seed: 7)
        let c = try writeTestImage("c.png", width: 14, height: 9, seed: 8)
        let bad = path("broken.png")
        try Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 1, 2, 3, 4, 5]).write(to: URL(fileURLWithPath: bad))
        let out = path("out")
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)

        let r = try run("pixelflow", ["apply", a, bad, c, out, "--filter", "SepiaTone"])
        XCTAssertNotEqual(r.status, 0)
        XCTAssertTrue(r.stderr.contains("broken.png"), r.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: out + "/broken.png"))
        let outA = try PixelBuffer(contentsOfFile: out + "/a.png")
        let outC = try PixelBuffer(contentsOfFile: out + "/c.png")
        XCTAssertEqual(outA.width, 12)
        XCTAssertEqual(outC.width, 14)
        XCTAssertEqual(
            outA,
            try RenderContext().makeBuffer(Image(try PixelBuffer(contentsOfFile: a)).sepiaTone(), format: .rgba8))

        // A trailing slash makes two paths a batch; --format changes the extension.
        let j = try run("pixelflow", ["apply", a, out + "/", "--format", "jpeg"])
        XCTAssertEqual(j.status, 0, j.stderr)
        XCTAssertEqual(ImageFileFormat.sniff(try Data(contentsOf: URL(fileURLWithPath: out + "/a.jpg"))), .jpeg)
    }

    func testBatchNeverOverwritesAnInput() throws {
        let a = try writeTestImage("a.png", width: 8, height: 8, seed: 9)
        let b = try writeTestImage("b.png", width: 8, height: 8, seed: 10)
        let before = try Data(contentsOf: URL(fileURLWithPath: a))
        let r = try run("pixelflow", ["apply", a, b, directory.path, "--filter", "ColorInvert"])
        XCTAssertNotEqual(r.status, 0)
        XCTAssertTrue(r.stderr.contains("a.png"), r.stderr)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: a)), before)

        // Nor with one input and one output, nor a composite's second image.
        let same = try run("pixelflow", ["apply", a, a, "--filter", "ColorInvert"])
        XCTAssertEqual(same.status, 1)
        XCTAssertTrue(same.stderr.contains("a.png"), same.stderr)
        let bg = try run("pixelflow", ["apply", b, a, "--filter", "SourceOverCompositing inputBackgroundImage=\(a)"])
        XCTAssertEqual(bg.status, 1)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: a)), before)
    }

    func testUnknownFilterIsAUsageError() throws {
        let input = try writeTestImage("in.png", width: 8, height: 8, seed: 11)
        let r = try run("pixelflow", ["apply", input, path("out.png"), "--filter", "CISepiaToon inputIntensity=0.5"])
        XCTAssertEqual(r.status, 2)
        XCTAssertTrue(r.stderr.contains("CISepiaToon"), r.stderr)
        XCTAssertTrue(r.stderr.contains("pixelflow filters"), r.stderr)
        XCTAssertTrue(r.stderr.contains("CISepiaTone"), "suggests the near name: \(r.stderr)")
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("out.png")))
    }

    func testUnknownKeyAndBadValuesNameTheKey() throws {
        let input = try writeTestImage("in.png", width: 8, height: 8, seed: 12)
        for value in ["abc", "nan", "5", "inf", "[1 2]"] {
            let r = try run("pixelflow", ["apply", input, path("out.png"), "--filter", "CISepiaTone inputIntensity=\(value)"])
            XCTAssertEqual(r.status, 2, "inputIntensity=\(value): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains("inputIntensity"), "inputIntensity=\(value): \(r.stderr)")
        }
        let key = try run("pixelflow", ["apply", input, path("out.png"), "--filter", "CISepiaTone inputRadius=2"])
        XCTAssertEqual(key.status, 2)
        XCTAssertTrue(key.stderr.contains("inputRadius") && key.stderr.contains("pixelflow describe CISepiaTone"), key.stderr)
        // A value the filter itself rejects (Lanczos needs a scale above 0).
        let zero = try run("pixelflow", ["apply", input, path("out.png"), "--filter", "LanczosScaleTransform inputScale=0"])
        XCTAssertEqual(zero.status, 2)
        XCTAssertTrue(zero.stderr.contains("inputScale"), zero.stderr)
        let vector = try run("pixelflow", ["apply", input, path("out.png"), "--filter", "Convolution3X3 inputWeights=1,2,3"])
        XCTAssertEqual(vector.status, 2)
        XCTAssertTrue(vector.stderr.contains("inputWeights") && vector.stderr.contains("9"), vector.stderr)
        let option = try run("pixelflow", ["apply", input, path("out.png"), "--quality", "0"])
        XCTAssertEqual(option.status, 2)
        XCTAssertTrue(option.stderr.contains("--quality"), option.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("out.png")))
    }

    func testMissingInputFileIsNamed() throws {
        let missing = path("no-such-image.png")
        let r = try run("pixelflow", ["apply", missing, path("out.png"), "--filter", "SepiaTone"])
        XCTAssertEqual(r.status, 1)
        XCTAssertTrue(r.stderr.contains("no-such-image.png"), r.stderr)

        let input = try writeTestImage("in.png", width: 8, height: 8, seed: 13)
        let bg = try run(
            "pixelflow",
            ["apply", input, path("out.png"), "--filter", "SourceOverCompositing inputBackgroundImage=missing-bg.png"])
        XCTAssertEqual(bg.status, 1)
        XCTAssertTrue(bg.stderr.contains("missing-bg.png"), bg.stderr)
    }

    func testExplainListsEveryInputWithDefaults() throws {
        let input = try writeTestImage("in.png", width: 10, height: 10, seed: 14)
        let r = try run(
            "pixelflow",
            [
                "apply", input, path("out.png"), "--explain",
                "--filter", "ColorControls inputSaturation=1.3", "--filter", "GaussianBlur",
            ])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(
            r.stderr.contains(
                "CIColorControls inputImage=<input> inputSaturation=1.3 inputBrightness=0 (default) inputContrast=1 (default)"),
            r.stderr)
        XCTAssertTrue(r.stderr.contains("CIGaussianBlur inputImage=<step 1> inputRadius=10 (default)"), r.stderr)
        // The optimized plan: the two matrices fold into one.
        let chain = try run(
            "pixelflow",
            [
                "apply", input, path("out2.png"), "--explain",
                "--filter", "SepiaTone", "--filter", "ExposureAdjust EV=1", "--filter", "ColorInvert",
            ])
        XCTAssertEqual(chain.status, 0, chain.stderr)
        XCTAssertTrue(chain.stderr.contains("fold color matrices: 2"), chain.stderr)
        XCTAssertTrue(chain.stderr.contains("stage 1: output tiles"), chain.stderr)
    }

    func testHelp() throws {
        for args in [["--help"], ["-h"], ["apply", "--help"], ["apply", "-h"], ["help", "apply"]] {
            let r = try run("pixelflow", args)
            XCTAssertEqual(r.status, 0, "\(args): \(r.stderr)")
            let text = String(decoding: r.stdout, as: UTF8.self)
            XCTAssertTrue(text.contains("Usage: pixelflow"), "\(args): \(text)")
            XCTAssertTrue(text.contains("pixelflow apply"), "\(args): \(text)")
        }
        let none = try run("pixelflow", [])
        XCTAssertEqual(none.status, 2)
        let unknown = try run("pixelflow", ["frobnicate"])
        XCTAssertEqual(unknown.status, 2)
        XCTAssertTrue(unknown.stderr.contains("frobnicate"), unknown.stderr)
    }

    // MARK: pixelflow-demo

    func testDemoWritesEveryStepAsAValidPNG() throws {
        let out = path("demo")
        let r = try run("pixelflow-demo", ["--out", out, "--size", "96x60"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let names = [
            "00-original", "01-exposure", "02-saturation", "03-gamma", "04-sepia", "05-blur", "06-sharpen",
            "07-scale", "08-rotate", "09-composite", "10-crop",
        ]
        let printed = String(decoding: r.stdout, as: UTF8.self)
        for name in names {
            let file = out + "/" + name + ".png"
            XCTAssertTrue(printed.contains(file), "prints \(file): \(printed)")
            XCTAssertEqual(ImageFileFormat.sniff(try Data(contentsOf: URL(fileURLWithPath: file))), .png, file)
            XCTAssertNoThrow(try PixelBuffer(contentsOfFile: file), file)
        }
        let original = try PixelBuffer(contentsOfFile: out + "/00-original.png")
        XCTAssertEqual(original.width, 96)
        XCTAssertEqual(original.height, 60)
        XCTAssertEqual(try PixelBuffer(contentsOfFile: out + "/05-blur.png").width, 96)
        XCTAssertEqual(try PixelBuffer(contentsOfFile: out + "/07-scale.png").width, 48)

        // Given a file, the demo processes it instead.
        let input = try writeTestImage("photo.png", width: 30, height: 20, seed: 15, opaque: true)
        let fromFile = try run("pixelflow-demo", [input, "--out", path("demo2")])
        XCTAssertEqual(fromFile.status, 0, fromFile.stderr)
        XCTAssertEqual(try PixelBuffer(contentsOfFile: path("demo2") + "/00-original.png").width, 30)
        XCTAssertEqual(try PixelBuffer(contentsOfFile: path("demo2") + "/07-scale.png").width, 15)

        let bad = try run("pixelflow-demo", [path("missing.png"), "--out", path("demo3")])
        XCTAssertNotEqual(bad.status, 0)
        XCTAssertTrue(bad.stderr.contains("missing.png"), bad.stderr)
    }

    // MARK: Helpers

    private func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    /// Writes a deterministic image with smooth and noisy parts and varied alpha as PNG.
    private func writeTestImage(_ name: String, width: Int, height: Int, seed: UInt64, opaque: Bool = false) throws -> String {
        var state = seed &* 0x9E37_79B9_7F4A_7C15
        func unit() -> Float {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Float(state >> 40) / Float(1 << 24)
        }
        var buffer = try PixelBuffer(width: width, height: height, format: .rgba8)
        for y in 0..<height {
            for x in 0..<width {
                let fx = Float(x) / Float(width), fy = Float(y) / Float(height)
                let noise = unit()
                let alpha: Float = opaque ? 1 : (x % 5 == 0 ? 0.5 + 0.5 * unit() : 1)
                buffer[x, y] = SIMD4(fx, 0.3 + 0.4 * fy, noise, alpha)
            }
        }
        let file = path(name)
        try buffer.write(toFile: file, format: .png)
        return file
    }

    private struct ExecutableNotFound: Error, CustomStringConvertible {
        var description: String
    }

    private struct Result {
        var status: Int32
        var stdout: [UInt8]
        var stderr: String
    }

    /// Runs a built executable with `arguments`, standard input from the file `stdin` (or
    /// empty), and collects its exit status, standard output and standard error.
    private func run(_ executable: String, _ arguments: [String], stdin: String? = nil) throws -> Result {
        let binary = try Self.executable(executable)
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        process.currentDirectoryURL = directory
        let outURL = directory.appendingPathComponent("stdout-\(UUID().uuidString)")
        let errURL = directory.appendingPathComponent("stderr-\(UUID().uuidString)")
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
        if let stdin {
            process.standardInput = try FileHandle(forReadingFrom: URL(fileURLWithPath: stdin))
        } else {
            process.standardInput = FileHandle.nullDevice
        }
        try process.run()
        process.waitUntilExit()
        return Result(
            status: process.terminationStatus,
            stdout: Array(try Data(contentsOf: outURL)),
            stderr: String(decoding: try Data(contentsOf: errURL), as: UTF8.self))
    }

    /// The built executable `name`: in `PIXELFLOW_BIN_DIR`, next to the test binary, or in
    /// the package's `.build/debug`.
    static func executable(_ name: String) throws -> URL {
        var folders: [URL] = []
        if let dir = ProcessInfo.processInfo.environment["PIXELFLOW_BIN_DIR"] {
            folders.append(URL(fileURLWithPath: dir))
        }
        // The test binary runs from the products folder (`<scratch>/<triple>/debug`).
        let testBinary = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        folders.append(testBinary.deletingLastPathComponent())
        folders.append(Bundle.main.bundleURL)
        folders.append(Bundle.main.bundleURL.deletingLastPathComponent())
        folders.append(Bundle(for: CLITests.self).bundleURL.deletingLastPathComponent())
        // Tests/PixelFlowTests/CLI/CLITests.swift -> the package root.
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        folders.append(root.appendingPathComponent(".build/debug"))
        folders.append(root.appendingPathComponent(".build/release"))
        for folder in folders {
            let candidate = folder.appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        throw ExecutableNotFound(
            description:
                "the \(name) executable was not found in \(folders.map(\.path)); run `swift build` first or set PIXELFLOW_BIN_DIR"
        )
    }
}
