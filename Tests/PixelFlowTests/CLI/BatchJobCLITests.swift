import Foundation
import XCTest
import PixelFlow

/// `pixelflow apply --manifest`, `--shard`, `--resume` and the JSON summary, run as
/// subprocesses of the built tool (Docs/BatchJobs.md).
final class BatchJobCLITests: TemporaryDirectoryTestCase {

    /// Issue 23's check: three shards of a manifest, run at once as a cluster would run them,
    /// write exactly the files of the unsharded run (the same pixels; the same bytes but for
    /// the JPEG's profile date), and each item is done by exactly one shard.
    func testThreeShardsTogetherEqualTheUnshardedRun() throws {
        var lines = ["# ten items: seven into the output folder, three named", ""]
        for i in 0..<10 {
            let input = try writeImage("in/p\(i).png", width: 20 + i, height: 12, seed: UInt64(i))
            switch i {
            case 2: lines.append("\(input)\tnamed/p2.jpg")
            case 5: lines.append("\(input)\tnamed/five.bmp")
            case 9: lines.append("\(input)\tnamed/last.png")
            default: lines.append(input)
            }
            if i == 4 { lines.append("   # a comment between items") }
        }
        let manifest = try write("list.txt", lines.joined(separator: "\n") + "\n")
        let filters = ["--filter", "SepiaTone", "--filter", "GaussianBlur radius=1"]
        for run in ["full", "sharded"] {
            for sub in ["plain", "named"] { try makeFolder("\(run)/\(sub)") }
        }

        let full = try run(["apply", "--manifest", manifest, "plain/", "--json"] + filters, in: "full")
        XCTAssertEqual(full.status, 0, full.stderr)
        let fullSummary = try summary(full.stdout)
        XCTAssertEqual(fullSummary["total"] as? Int, 10)
        XCTAssertEqual(fullSummary["done"] as? Int, 10)

        // The three shards at once, each writing its own summary.
        let shards = try (0..<3).map { k in
            try start(
                ["apply", "--manifest", manifest, "plain/", "--shard", "\(k)/3", "--summary-json", "../shard\(k).json"]
                    + filters, in: "sharded")
        }
        for (k, shard) in shards.enumerated() {
            let r = try shard.wait()
            XCTAssertEqual(r.status, 0, "shard \(k): \(r.stderr)")
        }

        let expected = try files(in: "full")
        XCTAssertEqual(expected.count, 10)
        XCTAssertEqual(try files(in: "sharded"), expected, "the shards' union is the unsharded run")
        for file in expected {
            XCTAssertEqual(
                try PixelBuffer(contentsOfFile: path("sharded/" + file)), try PixelBuffer(contentsOfFile: path("full/" + file)),
                "\(file) has the same pixels")
            // A JPEG embeds an ICC profile that lcms2 stamps with the time it was made
            // (Sources/CCodecShims/pf_lcms.c), so its bytes differ from one second to the
            // next; PNG (an sRGB chunk) and BMP carry no such date.
            if file.hasSuffix(".jpg") { continue }
            XCTAssertEqual(
                try Data(contentsOf: url("sharded/" + file)), try Data(contentsOf: url("full/" + file)),
                "\(file) is the same, byte for byte")
        }

        var doneBy: [String: Int] = [:]  // output -> the shard that wrote it
        for k in 0..<3 {
            let s = try summary(Array(Data(contentsOf: url("shard\(k).json"))))
            let items = try XCTUnwrap(s["items"] as? [[String: Any]])
            let positions = items.compactMap { $0["position"] as? Int }
            XCTAssertEqual(positions, Array(stride(from: k, to: 10, by: 3)), "shard \(k) takes every third item")
            XCTAssertEqual(s["total"] as? Int, 10)
            XCTAssertEqual(s["in_shard"] as? Int, positions.count)
            XCTAssertEqual(s["done"] as? Int, positions.count)
            XCTAssertEqual(s["skipped"] as? Int, 0)
            XCTAssertEqual(s["failed"] as? Int, 0)
            XCTAssertEqual((s["shard"] as? [String: Any])?["index"] as? Int, k)
            for item in items where item["status"] as? String == "done" {
                let output = try XCTUnwrap(item["output"] as? String)
                XCTAssertNil(doneBy[output], "\(output) was done by shard \(doneBy[output] ?? -1) and by shard \(k)")
                doneBy[output] = k
            }
        }
        XCTAssertEqual(doneBy.count, 10, "every item was done once")
        // Line numbers count comments and blank lines: item 5 is on line 9.
        let s1 = try summary(Array(Data(contentsOf: url("shard2.json"))))
        let item5 = (s1["items"] as? [[String: Any]])?.first { $0["position"] as? Int == 5 }
        XCTAssertEqual(item5?["line"] as? Int, 9)
        XCTAssertEqual(item5?["output"] as? String, "named/five.bmp")
    }

    /// A bad manifest is a usage error (2) that names the line, before anything is written.
    func testManifestErrorsNameTheLineAndNothingRuns() throws {
        let a = try writeImage("a.png", width: 8, height: 6, seed: 1)
        let b = try writeImage("sub/a.png", width: 8, height: 6, seed: 2)
        try makeFolder("out")
        let cases: [(manifest: String, folder: [String], line: Int, message: String)] = [
            ("# ok\n\(a)\n\(a)\tx.png\textra\n", ["out/"], 3, "3 fields separated by tabs"),
            ("\(a)\t\n", ["out/"], 1, "the output path after the tab is empty"),
            ("\t\(a)\n", ["out/"], 1, "the input path is empty"),
            ("\n\n-\n", ["out/"], 3, "cannot be a manifest item"),
            ("\(a)\tout/a.unknown\n", [], 1, "cannot tell the output format from 'out/a.unknown'"),
            ("\(a)\tout/x.png\n\(b)\t./out/sub/../x.png\n", [], 2, "is also the output of line 1"),
            ("\(a)\n#\n\(b)\n", ["out/"], 3, "the output 'out/a.png' is also the output of line 1"),
            ("\(a)\tout/x.png\n\(b)\n", [], 2, "has no output: give the output folder"),
        ]
        for c in cases {
            let manifest = try write("list.txt", c.manifest)
            let r = try run(["apply", "--manifest", manifest] + c.folder + ["--filter", "ColorInvert"])
            XCTAssertEqual(r.status, 2, "\(c.manifest): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains("list.txt:\(c.line): "), "\(c.manifest): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains(c.message), "\(c.manifest): \(r.stderr)")
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: path("out")), [], "nothing ran")
        }
        // Bytes that are not UTF-8.
        try Data([0x61, 0x0A, 0xFF, 0xFE, 0x0A]).write(to: url("bytes.txt"))
        let bytes = try run(["apply", "--manifest", path("bytes.txt"), "out/"])
        XCTAssertEqual(bytes.status, 2, bytes.stderr)
        XCTAssertTrue(bytes.stderr.contains("bytes.txt:2: the line is not UTF-8"), bytes.stderr)

        // The command line around a manifest.
        let good = try write("good.txt", "\(a)\n")
        let usage: [([String], String)] = [
            (["--manifest", good, "out/", "--shard", "3/3"], "shards are numbered from 0"),
            (["--manifest", good, "out/", "--shard", "/3"], "is an environment variable unset"),
            (["--manifest", good, "out/", "--shard", "1"], "is not INDEX/COUNT"),
            (["--manifest", good, "out/", "--shard", "0/0"], "the count must be"),
            (["--manifest", good, a, "out/"], "give only the output folder"),
            ([a, "single.png", "--resume"], "--resume works in batch mode only"),
            ([a, "single.png", "--shard", "0/2", "--json"], "--shard, --json work in batch mode only"),
        ]
        for (args, message) in usage {
            let r = try run(["apply"] + args)
            XCTAssertEqual(r.status, 2, "\(args): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains(message), "\(args): \(r.stderr)")
        }
        let missing = try run(["apply", "--manifest", path("nothere.txt"), "out/"])
        XCTAssertEqual(missing.status, 1, missing.stderr)
        XCTAssertTrue(missing.stderr.contains("nothere.txt: no such file"), missing.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: path("out")), [])
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("single.png")))
    }

    /// The summary counts and lists every item of the shard with its error; the human output
    /// is unchanged. The manifest may come from standard input, and --shard splits a
    /// command line's inputs too.
    func testSummaryListsEveryItemWithItsError() throws {
        var lines: [String] = []
        for i in 0..<3 { lines.append(try writeImage("ok\(i).png", width: 9, height: 7, seed: UInt64(i))) }
        lines.append(path("missing.png"))
        try Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 1, 2, 3]).write(to: url("broken.png"))
        lines.append(path("broken.png"))
        let manifest = try write("list.txt", lines.joined(separator: "\n"))  // no final newline
        try makeFolder("out")

        let r = try run(
            ["apply", "--manifest", "-", "out", "--json", "--summary-json", "summary.json", "-f", "ColorInvert"],
            stdin: manifest)
        XCTAssertEqual(r.status, 1, r.stderr)
        XCTAssertTrue(r.stderr.contains("pixelflow apply: 3 processed, 2 failed, in "), r.stderr)
        XCTAssertEqual(Data(r.stdout), try Data(contentsOf: url("summary.json")), "--json and --summary-json agree")
        let s = try summary(r.stdout)
        XCTAssertEqual(s["total"] as? Int, 5)
        XCTAssertEqual(s["in_shard"] as? Int, 5)
        XCTAssertEqual(s["done"] as? Int, 3)
        XCTAssertEqual(s["skipped"] as? Int, 0)
        XCTAssertEqual(s["failed"] as? Int, 2)
        XCTAssertTrue(s["shard"] is NSNull)
        let items = try XCTUnwrap(s["items"] as? [[String: Any]])
        XCTAssertEqual(items.map { $0["status"] as? String }, ["done", "done", "done", "failed", "failed"])
        XCTAssertEqual(items.map { $0["line"] as? Int }, [1, 2, 3, 4, 5])
        XCTAssertTrue(items[0]["error"] is NSNull)
        let missingError = try XCTUnwrap(items[3]["error"] as? String)
        XCTAssertTrue(missingError.contains("missing.png: no such file"), missingError)
        XCTAssertTrue((items[4]["error"] as? String ?? "").contains("broken.png"))
        XCTAssertEqual(items[1]["output"] as? String, "out/ok1.png")
        XCTAssertEqual(try PixelBuffer(contentsOfFile: path("out/ok1.png")).width, 9)

        // Inputs on the command line, shard 1 of 2: the second and fourth; shard 5 of 6 is empty.
        let inputs = (0..<3).map { path("ok\($0).png") } + [path("broken.png")]
        try makeFolder("cmd")
        let c = try run(["apply"] + inputs + ["cmd/", "--shard", "1/2", "--json"])
        XCTAssertEqual(c.status, 1, c.stderr)
        let cs = try summary(c.stdout)
        XCTAssertEqual((cs["items"] as? [[String: Any]])?.map { $0["position"] as? Int }, [1, 3])
        XCTAssertEqual((cs["items"] as? [[String: Any]])?.map { $0["line"] is NSNull }, [true, true])
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: path("cmd")), ["ok1.png"])
        let empty = try run(["apply"] + inputs + ["cmd/", "--shard", "5/6", "--json"])
        XCTAssertEqual(empty.status, 0, empty.stderr)
        XCTAssertEqual(try summary(empty.stdout)["in_shard"] as? Int, 0)
    }

    /// A job killed with SIGKILL leaves every output whole or absent (its temporary files
    /// aside); `--resume` keeps the whole ones, removes the temporary files of its own outputs
    /// only, and writes the rest, so the result equals an uninterrupted run.
    func testAKilledRunLeavesNoHalfFileAndResumeFinishesIt() throws {
        let count = 6
        let source = try writeImage("in/p0.png", width: 700, height: 600, seed: 5)
        var lines: [String] = []
        for i in 0..<count {
            let input = path("in/p\(i).png")
            if i > 0 { try FileManager.default.copyItem(atPath: source, toPath: input) }
            lines.append(input)
        }
        let manifest = try write("list.txt", lines.joined(separator: "\n") + "\n")
        let filters = ["--filter", "GaussianBlur radius=8", "--filter", "SepiaTone", "-j", "1"]
        try makeFolder("ref")
        let reference = try run(["apply", "--manifest", manifest, "ref/"] + filters)
        XCTAssertEqual(reference.status, 0, reference.stderr)

        try makeFolder("out")
        let job = try start(["apply", "--manifest", manifest, "out/"] + filters)
        let deadline = Date().addingTimeInterval(120)
        while try visibleFiles("out").isEmpty, job.process.isRunning, Date() < deadline { usleep(5_000) }
        kill(job.process.processIdentifier, SIGKILL)
        let killed = try job.wait()
        XCTAssertEqual(killed.status, SIGKILL, "killed, not finished: \(killed.stderr)")
        let written = try visibleFiles("out")
        XCTAssertFalse(written.isEmpty)
        XCTAssertLessThan(written.count, count, "the job was killed before the end")
        for file in written {
            XCTAssertEqual(
                try Data(contentsOf: url("out/" + file)), try Data(contentsOf: url("ref/" + file)),
                "\(file) is whole")
        }
        // Temporary files: whatever the kill left, one planted for a manifest output, and
        // two that are not this run's (another name, not mkstemp's form) and must stay.
        try Data("half".utf8).write(to: url("out/.p\(count - 1).png.Ab12Cd"))
        try Data("other".utf8).write(to: url("out/.other.png.Ab12Cd"))
        try Data("mine".utf8).write(to: url("out/.p1.png.keep"))

        let resumed = try run(["apply", "--manifest", manifest, "out/", "--resume", "--json"] + filters)
        XCTAssertEqual(resumed.status, 0, resumed.stderr)
        XCTAssertTrue(resumed.stderr.contains("--resume: removed "), resumed.stderr)
        XCTAssertTrue(resumed.stderr.contains("skipped (output exists)"), resumed.stderr)
        let s = try summary(resumed.stdout)
        XCTAssertEqual(s["skipped"] as? Int, written.count)
        XCTAssertEqual(s["done"] as? Int, count - written.count)
        let skipped = (s["items"] as? [[String: Any]] ?? []).filter { $0["status"] as? String == "skipped" }
        XCTAssertEqual(
            Set(skipped.compactMap { ($0["output"] as? String)?.split(separator: "/").last.map(String.init) }), Set(written))
        XCTAssertEqual(try visibleFiles("out"), try visibleFiles("ref"))
        for file in try visibleFiles("ref") {
            XCTAssertEqual(try Data(contentsOf: url("out/" + file)), try Data(contentsOf: url("ref/" + file)), file)
        }
        let hidden = try FileManager.default.contentsOfDirectory(atPath: path("out")).filter { $0.hasPrefix(".") }
        XCTAssertEqual(Set(hidden), [".other.png.Ab12Cd", ".p1.png.keep"], "only this run's temporary files are removed")

        // Everything exists now: a second resume does nothing.
        let again = try run(["apply", "--manifest", manifest, "out/", "--resume", "--json"] + filters)
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertEqual(try summary(again.stdout)["skipped"] as? Int, count)
        XCTAssertEqual(try summary(again.stdout)["done"] as? Int, 0)
    }

    // MARK: Helpers

    private func path(_ name: String) -> String { directory.appendingPathComponent(name).path }
    private func url(_ name: String) -> URL { directory.appendingPathComponent(name) }

    private func makeFolder(_ name: String) throws {
        try FileManager.default.createDirectory(atPath: path(name), withIntermediateDirectories: true)
    }

    private func write(_ name: String, _ text: String) throws -> String {
        try Data(text.utf8).write(to: url(name))
        return path(name)
    }

    /// Writes a seeded noise image as PNG and returns its absolute path.
    private func writeImage(_ name: String, width: Int, height: Int, seed: UInt64) throws -> String {
        try makeFolder((name as NSString).deletingLastPathComponent)
        var state = seed &+ 0x9E37_79B9_7F4A_7C15
        var buffer = try PixelBuffer(width: width, height: height, format: .rgba8)
        buffer.withUnsafeMutableRows { _, row in
            for i in 0..<(width * 4) {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                row.storeBytes(of: i % 4 == 3 ? 255 : UInt8(truncatingIfNeeded: state >> 56), toByteOffset: i, as: UInt8.self)
            }
        }
        try buffer.write(toFile: path(name), format: .png)
        return path(name)
    }

    /// The files under `folder`, recursively, as relative paths; hidden files left out.
    private func files(in folder: String) throws -> Set<String> {
        let root = path(folder)
        var found: Set<String> = []
        for relative in try FileManager.default.subpathsOfDirectory(atPath: root)
        where !relative.split(separator: "/").contains(where: { $0.hasPrefix(".") }) {
            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: root + "/" + relative, isDirectory: &isFolder), !isFolder.boolValue {
                found.insert(relative)
            }
        }
        return found
    }

    private func visibleFiles(_ folder: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: path(folder)).filter { !$0.hasPrefix(".") }.sorted()
    }

    private func summary(_ bytes: [UInt8]) throws -> [String: Any] {
        let object = try JSONSerialization.jsonObject(with: Data(bytes))
        return try XCTUnwrap(object as? [String: Any], String(decoding: bytes, as: UTF8.self))
    }

    /// A started `pixelflow`; `wait()` collects its status and output.
    private struct Running {
        var process: Process
        var out: URL
        var err: URL

        func wait() throws -> CLIProcess.Result {
            process.waitUntilExit()
            defer {
                try? FileManager.default.removeItem(at: out)
                try? FileManager.default.removeItem(at: err)
            }
            return CLIProcess.Result(
                status: process.terminationStatus, stdout: Array(try Data(contentsOf: out)),
                stderr: String(decoding: try Data(contentsOf: err), as: UTF8.self))
        }
    }

    /// Starts `pixelflow` with `arguments` in the subfolder `folder` of the test's folder,
    /// standard input from the file `stdin` (or empty).
    private func start(_ arguments: [String], in folder: String = "", stdin: String? = nil) throws -> Running {
        let process = Process()
        process.executableURL = try CLIProcess.executable("pixelflow")
        process.arguments = arguments
        process.currentDirectoryURL = url(folder)
        let id = UUID().uuidString
        let out = directory.appendingPathComponent(".stdout-\(id)")
        let err = directory.appendingPathComponent(".stderr-\(id)")
        _ = FileManager.default.createFile(atPath: out.path, contents: nil)
        _ = FileManager.default.createFile(atPath: err.path, contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: out)
        process.standardError = try FileHandle(forWritingTo: err)
        process.standardInput =
            try stdin.map { try FileHandle(forReadingFrom: URL(fileURLWithPath: $0)) } ?? FileHandle.nullDevice
        try process.run()
        return Running(process: process, out: out, err: err)
    }

    private func run(_ arguments: [String], in folder: String = "", stdin: String? = nil) throws -> CLIProcess.Result {
        try start(arguments, in: folder, stdin: stdin).wait()
    }
}
