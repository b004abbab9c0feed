import Foundation
import XCTest
import PixelFlow

/// The conventions every `pixelflow` subcommand follows: help with usage, options, examples
/// and exit statuses; usage errors with status 2 and a next step; runtime errors with
/// status 1 naming the file; and the batch mode's parallel run, progress and summary.
final class CLIConventionsTests: TemporaryDirectoryTestCase {
    static let subcommands = ["filters", "describe", "apply", "thumbnail", "info", "docs", "detect", "qr", "bench"]
    /// The pages of Docs/CLI.md: every subcommand, and each kind of `detect`.
    static let helpPages = [
        ["filters"], ["describe"], ["apply"], ["thumbnail"], ["info"], ["docs"], ["detect"],
        ["detect", "qr"], ["detect", "rectangles"], ["detect", "faces"], ["qr"], ["bench"],
    ]

    func testEverySubcommandHasHelpWithUsageOptionsExamplesAndExitStatus() throws {
        for command in Self.subcommands {
            for args in [[command, "--help"], [command, "-h"], ["help", command]] {
                let r = try CLIProcess.run(args, in: directory)
                XCTAssertEqual(r.status, 0, "\(args): \(r.stderr)")
                XCTAssertTrue(r.text.hasPrefix("Usage: pixelflow \(command)"), "\(args): \(r.text.prefix(200))")
                for part in ["Options:", "Examples:", "Exit status"] {
                    XCTAssertTrue(r.text.contains(part), "\(args) shows \(part)")
                }
            }
        }
        let top = try CLIProcess.run(["--help"], in: directory)
        for command in Self.subcommands { XCTAssertTrue(top.text.contains("  \(command) "), "the tool's help lists \(command)") }
    }

    func testVersionPrintsTheLibrarysVersion() throws {
        for args in [["--version"], ["version"]] {
            let r = try CLIProcess.run(args, in: directory)
            XCTAssertEqual(r.status, 0, r.stderr)
            XCTAssertEqual(r.text, "pixelflow \(PixelFlow.version)\n")
        }
        // Semantic versioning: MAJOR.MINOR.PATCH, and CHANGELOG.md has a section for it.
        let parts = PixelFlow.version.split(separator: ".")
        XCTAssertEqual(parts.count, 3)
        XCTAssertTrue(parts.allSatisfy { Int($0) != nil }, PixelFlow.version)
        let changelog = try String(contentsOfFile: packageRoot + "/CHANGELOG.md", encoding: .utf8)
        XCTAssertTrue(changelog.contains("## [\(PixelFlow.version)]"), "CHANGELOG.md has a section for \(PixelFlow.version)")
        let extra = try CLIProcess.run(["--version", "extra"], in: directory)
        XCTAssertEqual(extra.status, 2)
    }

    func testDashJIsJobsAndThreadsHasNoShortForm() throws {
        try writeImage("in.png", width: 8, height: 6, seed: 1)
        let input = path("in.png")
        try FileManager.default.createDirectory(atPath: path("out"), withIntermediateDirectories: true)
        // -j 0 is refused naming --jobs, as make -j and parallel -j users expect.
        let zero = try CLIProcess.run(["apply", input, "out/", "-j", "0"], in: directory)
        XCTAssertEqual(zero.status, 2)
        XCTAssertTrue(zero.stderr.contains("'--jobs'"), zero.stderr)
        let ok = try CLIProcess.run(["apply", input, "out/", "-j", "2", "--filter", "ColorInvert"], in: directory)
        XCTAssertEqual(ok.status, 0, ok.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: path("out/in.png")))
        for command in ["apply", "thumbnail"] {
            let help = try CLIProcess.run([command, "--help"], in: directory).text
            XCTAssertFalse(help.contains("-j, --threads"), command)
        }
        XCTAssertTrue(try CLIProcess.run(["apply", "--help"], in: directory).text.contains("-j, --jobs N"))
    }

    func testDetectHelpIsPerKind() throws {
        let general = try CLIProcess.run(["detect", "--help"], in: directory).text
        for (kind, own) in [("qr", "--try-harder"), ("rectangles", "\"confidence\""), ("faces", "--cascade PATH")] {
            let r = try CLIProcess.run(["detect", kind, "--help"], in: directory)
            XCTAssertEqual(r.status, 0, r.stderr)
            XCTAssertTrue(r.text.hasPrefix("Usage: pixelflow detect \(kind) IN"), "\(kind): \(r.text.prefix(120))")
            XCTAssertTrue(r.text.contains(own), "detect \(kind) --help shows \(own)")
            XCTAssertTrue(r.text.contains("Options:") && r.text.contains("Examples:") && r.text.contains("Exit status"))
            XCTAssertNotEqual(r.text, general)
            // With an input too, as a user adds --help to the command they were writing.
            XCTAssertEqual(try CLIProcess.run(["detect", kind, "x.png", "--help"], in: directory).text, r.text)
        }
        XCTAssertFalse(try CLIProcess.run(["detect", "rectangles", "--help"], in: directory).text.contains("--try-harder"))
        // The help says --json and --annotate combine, which they do (QRCLITests runs them together).
        XCTAssertTrue(general.contains("Combines with\n") || general.contains("Combines with"), general)
        XCTAssertFalse(general.contains("not with --json"))
    }

    func testUnknownOptionsAreUsageErrorsWithASuggestionAndThePointerToHelp() throws {
        for command in Self.subcommands where command != "bench" {
            let r = try CLIProcess.run([command, "--frobnicate"], in: directory)
            XCTAssertEqual(r.status, 2, command)
            XCTAssertTrue(r.stderr.hasPrefix("pixelflow \(command): unknown option '--frobnicate'"), r.stderr)
            XCTAssertTrue(r.stderr.contains("`pixelflow \(command) --help`"), r.stderr)
            XCTAssertTrue(r.stdout.isEmpty, "errors go to standard error")
        }
        let near = try CLIProcess.run(["apply", "a.png", "b.png", "--threds", "2"], in: directory)
        XCTAssertEqual(near.status, 2)
        XCTAssertTrue(near.stderr.contains("did you mean --threads?"), near.stderr)
    }

    func testUsageErrorsSayWhatToDo() throws {
        let cases: [([String], String)] = [
            (["describe"], "`pixelflow filters` lists them"),
            (["describe", "GausianBlur"], "did you mean CIGaussianBlur"),
            (["qr", "encode", "only-text"], "`pixelflow qr encode 'hello' code.png`"),
            (["detect", "squares", "x.png"], "use qr, rectangles or faces"),
            (["apply", "in.png"], "`pixelflow apply --help`"),
            (["apply", "in.png", "out.png", "--filter", "CISepiaTone inputIntensity=5"], "must be in 0...1"),
            (["apply", "in.png", "out.png", "--filter", "GaussianBlur inputRadius=-1"], "must be in 0...1000"),
            (["apply", "in.png", "out.png", "--filter", "CISepiaTone inputIntensity=strong"], "must be a number in 0...1"),
            (["apply", "in.png", "out.png", "--jobs", "0"], "--jobs"),
        ]
        for (args, hint) in cases {
            let r = try CLIProcess.run(args, in: directory)
            XCTAssertEqual(r.status, 2, "\(args): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains(hint), "\(args): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains("`pixelflow "), "\(args) points to a command to run: \(r.stderr)")
        }
    }

    func testMissingFilesAreRuntimeErrorsNamingThePath() throws {
        for args in [["apply", "nope.png", "out.png"], ["detect", "qr", "nope.png"], ["detect", "rectangles", "nope.png"]] {
            let r = try CLIProcess.run(args, in: directory)
            XCTAssertEqual(r.status, 1, "\(args): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains("nope.png") && r.stderr.contains("no such file"), "\(args): \(r.stderr)")
        }
        try FileManager.default.createDirectory(atPath: path("folder"), withIntermediateDirectories: true)
        let dir = try CLIProcess.run(["apply", "missing-dir-input.png", "folder/x/out.png"], in: directory)
        XCTAssertEqual(dir.status, 1)
    }

    func testDocsCLIShowsEverySubcommandsCurrentHelp() throws {
        let doc = try String(contentsOfFile: packageRoot + "/Docs/CLI.md", encoding: .utf8)
        for page in Self.helpPages {
            let command = page.joined(separator: " ")
            var help = try CLIProcess.run(page + ["--help"], in: directory).text
            // bench appends the benchmark's own options; the page shows the command's part.
            if let end = help.range(of: "\n\nThe benchmark's options") { help = String(help[..<end.lowerBound]) + "\n" }
            XCTAssertTrue(
                doc.contains("### pixelflow \(command)\n\n```text\n" + help + "```"),
                "Docs/CLI.md shows the current `pixelflow \(command) --help`; regenerate it with `bash scripts/make_cli_doc.sh`")
        }
    }

    // MARK: Batch

    func testBatchRunsInParallelReportsEachFileAndSummarizes() throws {
        let names = ["a.png", "b.png", "c.png", "d.png"]
        for (i, n) in names.enumerated() { try writeImage(n, width: 10 + i, height: 8, seed: UInt64(i)) }
        try Data("not an image".utf8).write(to: URL(fileURLWithPath: path("bad.png")))
        for dir in ["out1", "out3"] {
            try FileManager.default.createDirectory(atPath: path(dir), withIntermediateDirectories: true)
        }
        // An older output of the failing file must survive.
        try Data("keep me".utf8).write(to: URL(fileURLWithPath: path("out3/bad.png")))

        let inputs = ["a.png", "bad.png", "b.png", "c.png", "d.png"]
        let r = try CLIProcess.run(["apply"] + inputs + ["out3", "--jobs", "3", "--filter", "CISepiaTone"], in: directory)
        XCTAssertEqual(r.status, 1, r.stderr)
        let lines = r.stderr.split(separator: "\n").map(String.init)
        // Not a terminal: one plain line per file, then the summary.
        XCTAssertEqual(lines.filter { $0.range(of: #"^\[\d/5\] "#, options: .regularExpression) != nil }.count, 5, r.stderr)
        for n in names { XCTAssertTrue(lines.contains { $0.hasSuffix("] \(n) -> out3/\(n)") }, "\(n): \(r.stderr)") }
        XCTAssertTrue(lines.contains { $0.contains("failed: ") && $0.contains("bad.png") }, r.stderr)
        let summary = try XCTUnwrap(lines.last)
        XCTAssertTrue(summary.hasPrefix("pixelflow apply: 4 processed, 1 failed, in "), summary)
        XCTAssertTrue(summary.contains("failed: bad.png"), summary)
        XCTAssertFalse(r.stderr.contains("\r"), "no progress bar when standard error is not a terminal")
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path("out3/bad.png"))), Data("keep me".utf8))

        // One job at a time gives the same files, byte for byte.
        let serial = try CLIProcess.run(["apply"] + names + ["out1/", "--jobs", "1", "--filter", "CISepiaTone"], in: directory)
        XCTAssertEqual(serial.status, 0, serial.stderr)
        XCTAssertTrue(serial.stderr.contains("4 processed, 0 failed"), serial.stderr)
        for n in names {
            let parallel = try Data(contentsOf: URL(fileURLWithPath: path("out3/" + n)))
            XCTAssertEqual(parallel, try Data(contentsOf: URL(fileURLWithPath: path("out1/" + n))), n)
            let expected = try RenderContext().makeBuffer(
                Image(try PixelBuffer(contentsOfFile: path(n))).sepiaTone(), format: .rgba8)
            XCTAssertEqual(try PixelBuffer(contentsOfFile: path("out3/" + n)), expected, n)
        }
    }

    func testBatchDrawsAProgressBarOnATerminal() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/script") else {
            throw XCTSkip("needs script(1) from util-linux to give the tool a terminal")
        }
        for n in ["a.png", "b.png", "c.png"] { try writeImage(n, width: 8, height: 8, seed: 3) }
        try FileManager.default.createDirectory(atPath: path("out"), withIntermediateDirectories: true)
        let tool = try CLIProcess.executable("pixelflow").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        // script runs the command on a pseudo-terminal and copies what it shows to its output.
        process.arguments = ["-qec", "'\(tool)' apply a.png b.png c.png out/ --filter ColorInvert", "/dev/null"]
        process.currentDirectoryURL = directory
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let shown = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, shown)
        XCTAssertTrue(shown.contains("\r\u{1B}[K[########################] 100% 3/3"), shown)
        XCTAssertTrue(shown.contains("[........................]   0% 0/3"), shown)
        XCTAssertTrue(shown.contains("3 processed, 0 failed"), shown)
        XCTAssertFalse(shown.contains("[1/3]"), "no plain lines on a terminal: \(shown)")
    }

    func testOverwriteLetsAnOutputReplaceAnInput() throws {
        try writeImage("a.png", width: 8, height: 6, seed: 1)
        try writeImage("b.png", width: 8, height: 6, seed: 2)
        let before = try PixelBuffer(contentsOfFile: path("a.png"))
        let refused = try CLIProcess.run(["apply", "a.png", "b.png", ".", "--filter", "ColorInvert"], in: directory)
        XCTAssertEqual(refused.status, 1)
        XCTAssertTrue(
            refused.stderr.contains("refusing to overwrite the input") && refused.stderr.contains("--overwrite"), refused.stderr)
        XCTAssertEqual(try PixelBuffer(contentsOfFile: path("a.png")), before)

        let r = try CLIProcess.run(["apply", "a.png", "b.png", ".", "--overwrite", "--filter", "ColorInvert"], in: directory)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(
            try PixelBuffer(contentsOfFile: path("a.png")),
            try RenderContext.floatPathOnly().makeBuffer(Image(before).colorInverted(), format: .rgba8))
        let single = try CLIProcess.run(["apply", "b.png", "b.png", "--overwrite", "--filter", "ColorInvert"], in: directory)
        XCTAssertEqual(single.status, 0, single.stderr)
    }

    func testExplainPrintsTheOptimizedPlan() throws {
        try writeImage("a.png", width: 8, height: 8, seed: 4)
        let r = try CLIProcess.run(
            ["apply", "a.png", "out.png", "--explain", "--filter", "ExposureAdjust EV=1", "--filter", "SepiaTone"], in: directory)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("filter chain (2 filters):"), r.stderr)
        XCTAssertTrue(r.stderr.contains("plan for a.png:"), r.stderr)
        XCTAssertTrue(r.stderr.contains("fold color matrices"), r.stderr)
        let help = try CLIProcess.run(["apply", "--help"], in: directory)
        XCTAssertTrue(help.text.contains("--explain") && help.text.contains("optimized render plan"), help.text)
    }

    // MARK: bench

    func testBenchRunsTheBenchmarkAndPassesItsExitStatus() throws {
        let r = try CLIProcess.run(
            [
                "bench", "--filter", "CIColorInvert", "--size", "16x16", "--runs", "1", "--warmup", "0",
                "--min-time", "0", "--threads", "1", "--no-roofline",
            ], in: directory)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.text.contains("CIColorInvert") && r.text.contains("MPix/s"), r.text)

        let bad = try CLIProcess.run(["bench", "--frobnicate"], in: directory)
        XCTAssertEqual(bad.status, 2, "the benchmark's usage error status comes through")
        XCTAssertTrue(bad.stderr.contains("pixelflow-bench: unknown argument --frobnicate"), bad.stderr)

        let help = try CLIProcess.run(["bench", "--help"], in: directory)
        XCTAssertEqual(help.status, 0)
        XCTAssertTrue(help.text.contains("The benchmark's options") && help.text.contains("usage: pixelflow-bench"), help.text)
    }

    func testBenchWithoutTheBenchmarkSaysHowToBuildIt() throws {
        // A copy of the tool in a folder without pixelflow-bench.
        let lonely = path("lonely")
        try FileManager.default.createDirectory(atPath: lonely, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: try CLIProcess.executable("pixelflow").path, toPath: lonely + "/pixelflow")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: lonely + "/pixelflow")
        process.arguments = ["bench", "--smoke"]
        let err = Pipe()
        process.standardError = err
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let message = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 1, message)
        XCTAssertTrue(message.contains("pixelflow-bench was not found in \(lonely)"), message)
        XCTAssertTrue(message.contains("swift build -c release --product pixelflow-bench"), message)
    }

    // MARK: Helpers

    private func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    private func writeImage(_ name: String, width: Int, height: Int, seed: UInt64) throws {
        var rng = SeededRandom(seed: seed)
        var b = try PixelBuffer(width: width, height: height, format: .rgba8)
        for y in 0..<height { for x in 0..<width { b[x, y] = SIMD4(rng.unit(), rng.unit(), rng.unit(), 1) } }
        try b.write(toFile: path(name))
    }
}
