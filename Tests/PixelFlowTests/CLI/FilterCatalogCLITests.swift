import Foundation
import XCTest
import PixelFlow

/// `pixelflow filters`, `pixelflow describe` and `pixelflow docs`, run as subprocesses and
/// checked against the registry.
final class FilterCatalogCLITests: TemporaryDirectoryTestCase {

    // MARK: filters

    func testFiltersListsEveryNameSorted() throws {
        let r = try CLIProcess.run(["filters"], in: directory)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.lines, FilterRegistry.all.map(\.name))
        XCTAssertEqual(r.lines, r.lines.sorted())
    }

    func testFiltersByCategoryIsTheIntersection() throws {
        let blur = try CLIProcess.run(["filters", "--category", "Blur"], in: directory)
        XCTAssertEqual(blur.status, 0, blur.stderr)
        XCTAssertEqual(blur.lines, FilterRegistry.filterNames(inCategories: [.blur]))
        XCTAssertTrue(blur.lines.contains("CIGaussianBlur"))

        let expected = FilterRegistry.filterNames(inCategories: [.colorAdjustment, .highDynamicRange])
        for args in [
            ["--category", "ColorAdjustment", "--category", "HighDynamicRange"],
            ["--category", "CICategoryColorAdjustment,CICategoryHighDynamicRange"],
            ["-c", "coloradjustment, highdynamicrange"], ["--category=ColorAdjustment", "-c", "HighDynamicRange"],
        ] {
            let r = try CLIProcess.run(["filters"] + args, in: directory)
            XCTAssertEqual(r.status, 0, "\(args): \(r.stderr)")
            XCTAssertEqual(r.lines, expected, "\(args)")
        }
        // No filter is both a generator and a blur: nothing printed, success.
        let none = try CLIProcess.run(["filters", "-c", "Generator", "-c", "Blur"], in: directory)
        XCTAssertEqual(none.status, 0, none.stderr)
        XCTAssertEqual(none.lines, FilterRegistry.filterNames(inCategories: [.generator, .blur]))
    }

    func testFiltersJSON() throws {
        let r = try CLIProcess.run(["filters", "--json", "--category", "ColorEffect"], in: directory)
        XCTAssertEqual(r.status, 0, r.stderr)
        let array = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(r.stdout)) as? [[String: Any]])
        let names = FilterRegistry.filterNames(inCategories: [.colorEffect])
        XCTAssertEqual(array.map { $0["name"] as? String }, names)
        for (object, name) in zip(array, names) {
            let d = try XCTUnwrap(FilterRegistry.descriptor(named: name))
            XCTAssertEqual(Set(object.keys), ["name", "displayName", "categories"])
            XCTAssertEqual(object["displayName"] as? String, d.displayName)
            XCTAssertEqual(object["categories"] as? [String], d.categories.map(\.rawValue))
        }
        let all = try CLIProcess.run(["filters", "--json"], in: directory)
        XCTAssertEqual((try JSONSerialization.jsonObject(with: Data(all.stdout)) as? [Any])?.count, FilterRegistry.all.count)
        let empty = try CLIProcess.run(["filters", "--json", "-c", "Generator", "-c", "Blur"], in: directory)
        if FilterRegistry.filterNames(inCategories: [.generator, .blur]).isEmpty {
            XCTAssertEqual(empty.text, "[]\n")
        }
    }

    func testFiltersUsageErrors() throws {
        let unknown = try CLIProcess.run(["filters", "--category", "Blurry"], in: directory)
        XCTAssertEqual(unknown.status, 2)
        XCTAssertTrue(unknown.stderr.contains("Blurry") && unknown.stderr.contains("ColorAdjustment"), unknown.stderr)
        XCTAssertTrue(unknown.stdout.isEmpty)
        let inList = try CLIProcess.run(["filters", "--category", "Blur,Nope"], in: directory)
        XCTAssertEqual(inList.status, 2)
        XCTAssertTrue(inList.stderr.contains("Nope"), inList.stderr)
        let stray = try CLIProcess.run(["filters", "Blur"], in: directory)
        XCTAssertEqual(stray.status, 2)
        XCTAssertTrue(stray.stderr.contains("--category"), stray.stderr)
        let option = try CLIProcess.run(["filters", "--long"], in: directory)
        XCTAssertEqual(option.status, 2)
        XCTAssertTrue(option.stderr.contains("--long"), option.stderr)
    }

    // MARK: describe

    func testDescribeText() throws {
        let r = try CLIProcess.run(["describe", "SepiaTone"], in: directory)
        XCTAssertEqual(r.status, 0, r.stderr)
        let text = r.text
        XCTAssertTrue(text.hasPrefix("CISepiaTone: Sepia Tone\n"), text)
        let d = try XCTUnwrap(FilterRegistry.descriptor(named: "CISepiaTone"))
        XCTAssertTrue(text.contains(d.summary), text)
        XCTAssertTrue(text.contains("Categories: ColorEffect"), text)
        XCTAssertTrue(text.contains("inputImage (Image, CIImage), required"), text)
        XCTAssertTrue(text.contains("inputIntensity (Scalar, NSNumber)"), text)
        XCTAssertTrue(text.contains("default 1, identity 0, min 0, max 1, slider 0...1"), text)
        XCTAssertTrue(text.contains("pixelflow apply in.png out.png --filter 'CISepiaTone inputIntensity=1'"), text)

        let blur = try CLIProcess.run(["describe", "CIGaussianBlur"], in: directory)
        XCTAssertTrue(blur.text.contains("inputRadius (Distance, NSNumber)"), blur.text)
        XCTAssertTrue(blur.text.contains("default 10, identity 0, min 0, max 1000, slider 0...100"), blur.text)
    }

    func testDescribeJSON() throws {
        let r = try CLIProcess.run(["describe", "CIColorControls", "--json"], in: directory)
        XCTAssertEqual(r.status, 0, r.stderr)
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(r.stdout)) as? [String: Any])
        let d = try XCTUnwrap(FilterRegistry.descriptor(named: "CIColorControls"))
        XCTAssertEqual(Set(object.keys), ["name", "displayName", "summary", "categories", "inputs"])
        XCTAssertEqual(object["name"] as? String, "CIColorControls")
        XCTAssertEqual(object["displayName"] as? String, d.displayName)
        XCTAssertEqual(object["summary"] as? String, d.summary)
        XCTAssertEqual(object["categories"] as? [String], d.categories.map(\.rawValue))
        let inputs = try XCTUnwrap(object["inputs"] as? [[String: Any]])
        XCTAssertEqual(inputs.map { $0["key"] as? String }, d.inputKeys)
        let keys: Set<String> = [
            "key", "displayName", "type", "class", "default", "identity", "min", "max",
            "sliderMin", "sliderMax", "summary",
        ]
        for input in inputs { XCTAssertEqual(Set(input.keys), keys) }
        let contrast = try XCTUnwrap(inputs.first { $0["key"] as? String == "inputContrast" })
        let declared = try XCTUnwrap(d.input("inputContrast"))
        XCTAssertEqual(contrast["type"] as? String, "CIAttributeTypeScalar")
        XCTAssertEqual(contrast["class"] as? String, "NSNumber")
        XCTAssertEqual(contrast["default"] as? Double, 1)
        XCTAssertEqual(contrast["identity"] as? Double, 1)
        XCTAssertEqual(contrast["min"] as? Double, declared.minimum)
        XCTAssertEqual(contrast["max"] as? Double, declared.maximum)
        XCTAssertEqual(contrast["sliderMin"] as? Double, declared.sliderMinimum)
        XCTAssertEqual(contrast["sliderMax"] as? Double, declared.sliderMaximum)
        XCTAssertEqual(contrast["summary"] as? String, declared.summary)
        let image = try XCTUnwrap(inputs.first)
        XCTAssertTrue(image["default"] is NSNull)
        XCTAssertTrue(image["min"] is NSNull)

        // Vectors, colors and transforms are arrays of numbers; every filter's JSON parses.
        for d in FilterRegistry.all {
            let each = try CLIProcess.run(["describe", d.name, "--json"], in: directory)
            XCTAssertEqual(each.status, 0, "\(d.name): \(each.stderr)")
            let parsed = try JSONSerialization.jsonObject(with: Data(each.stdout)) as? [String: Any]
            XCTAssertEqual(parsed?["name"] as? String, d.name)
            XCTAssertEqual((parsed?["inputs"] as? [Any])?.count, d.inputs.count, d.name)
        }
        let matrix = try CLIProcess.run(["describe", "ColorMatrix", "--json"], in: directory)
        let m = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(matrix.stdout)) as? [String: Any])
        let r0 = try XCTUnwrap((m["inputs"] as? [[String: Any]])?.first { $0["key"] as? String == "inputRVector" })
        XCTAssertEqual(r0["default"] as? [Double], [1, 0, 0, 0])
    }

    func testDescribeUsageErrors() throws {
        let unknown = try CLIProcess.run(["describe", "CISepiaToon"], in: directory)
        XCTAssertEqual(unknown.status, 2)
        XCTAssertTrue(unknown.stderr.contains("CISepiaToon"), unknown.stderr)
        XCTAssertTrue(unknown.stderr.contains("CISepiaTone"), "suggests the near name: \(unknown.stderr)")
        XCTAssertTrue(unknown.stderr.contains("pixelflow filters"), unknown.stderr)
        XCTAssertTrue(unknown.stdout.isEmpty)
        let none = try CLIProcess.run(["describe"], in: directory)
        XCTAssertEqual(none.status, 2)
        XCTAssertTrue(none.stderr.contains("filter name"), none.stderr)
        let two = try CLIProcess.run(["describe", "SepiaTone", "GaussianBlur"], in: directory)
        XCTAssertEqual(two.status, 2)
    }

    // MARK: docs

    func testDocsWritesTheMarkdownReference() throws {
        let stdout = try CLIProcess.run(["docs"], in: directory)
        XCTAssertEqual(stdout.status, 0, stdout.stderr)
        let expected = stdout.text
        // markdownReference(), with the gallery's pictures and sheet links added between its
        // lines (and the command that regenerates both in its header comment).
        var lines = expected.split(separator: "\n", omittingEmptySubsequences: false)[...]
        for line in FilterRegistry.markdownReference().split(separator: "\n", omittingEmptySubsequences: false)
        where !line.hasPrefix("<!-- Generated") {
            guard let i = lines.firstIndex(of: line) else { return XCTFail("pixelflow docs lacks the line '\(line)'") }
            lines = lines[(i + 1)...]
        }
        XCTAssertTrue(expected.contains("[![Sepia Tone](Gallery/CISepiaTone.jpg)](Gallery/CICategoryColorEffect.jpg)"))
        XCTAssertTrue(expected.contains("--gallery Docs/Gallery`. Do not edit by hand. -->"))

        let file = directory.appendingPathComponent("Filters.md").path
        try "old".write(toFile: file, atomically: true, encoding: .utf8)
        let written = try CLIProcess.run(["docs", "--output", file], in: directory)
        XCTAssertEqual(written.status, 0, written.stderr)
        XCTAssertTrue(written.stdout.isEmpty)
        XCTAssertTrue(try String(contentsOfFile: file, encoding: .utf8) == expected)

        let relative = try CLIProcess.run(["docs", "-o", "sub.md"], in: directory)
        XCTAssertEqual(relative.status, 0, relative.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: directory.appendingPathComponent("sub.md").path))

        let missing = try CLIProcess.run(
            ["docs", "--output", directory.appendingPathComponent("no/such/dir/F.md").path],
            in: directory)
        XCTAssertEqual(missing.status, 1)
        XCTAssertTrue(missing.stderr.contains("no/such/dir/F.md"), missing.stderr)
        let stray = try CLIProcess.run(["docs", "Filters.md"], in: directory)
        XCTAssertEqual(stray.status, 2)
        XCTAssertTrue(stray.stderr.contains("--output"), stray.stderr)
    }

    // MARK: help

    func testHelpForEachCommandHasExamples() throws {
        for (command, example) in [
            ("filters", "pixelflow filters --category"), ("describe", "pixelflow describe CISepiaTone"),
            ("docs", "pixelflow docs --output"),
        ] {
            for args in [[command, "--help"], [command, "-h"], ["help", command]] {
                let r = try CLIProcess.run(args, in: directory)
                XCTAssertEqual(r.status, 0, "\(args): \(r.stderr)")
                XCTAssertTrue(r.text.contains("Usage: pixelflow \(command)"), "\(args): \(r.text)")
                XCTAssertTrue(r.text.contains("Examples:") && r.text.contains(example), "\(args): \(r.text)")
            }
        }
        let top = try CLIProcess.run(["--help"], in: directory)
        for command in ["filters", "describe", "docs", "apply"] {
            XCTAssertTrue(top.text.contains("  \(command) "), "the tool's help lists \(command): \(top.text)")
        }
    }
}

/// Runs the built `pixelflow` executable as a subprocess. The executable is found like
/// `CLITests` finds it: in `PIXELFLOW_BIN_DIR`, next to the test binary (the products folder
/// of whatever `--scratch-path` was used), or in the package's `.build/debug`.
enum CLIProcess {
    struct Result {
        var status: Int32
        var stdout: [UInt8]
        var stderr: String
        var text: String { String(decoding: stdout, as: UTF8.self) }
        /// Standard output split into lines, without empty ones.
        var lines: [String] { text.split(separator: "\n").map(String.init) }
    }

    struct ExecutableNotFound: Error, CustomStringConvertible {
        var description: String
    }

    /// Runs `pixelflow` with `arguments` in `directory`, with empty standard input; `environment`
    /// adds to (or replaces) the test's own variables.
    static func run(
        _ arguments: [String], in directory: URL, executable name: String = "pixelflow",
        environment: [String: String] = [:]
    ) throws -> Result {
        let process = Process()
        process.executableURL = try executable(name)
        process.arguments = arguments
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
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
        process.standardInput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return Result(
            status: process.terminationStatus, stdout: Array(try Data(contentsOf: outURL)),
            stderr: String(decoding: try Data(contentsOf: errURL), as: UTF8.self))
    }

    static func executable(_ name: String) throws -> URL {
        var folders: [URL] = []
        if let dir = ProcessInfo.processInfo.environment["PIXELFLOW_BIN_DIR"] { folders.append(URL(fileURLWithPath: dir)) }
        let testBinary = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        folders.append(testBinary.deletingLastPathComponent())
        folders.append(Bundle.main.bundleURL)
        folders.append(Bundle.main.bundleURL.deletingLastPathComponent())
        let root = URL(fileURLWithPath: packageRoot)
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
