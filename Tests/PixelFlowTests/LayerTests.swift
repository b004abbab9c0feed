import Foundation
import XCTest

/// The layers of Docs/Architecture.md ("Layers"): each uses only the ones below it.
///
/// Where a layer is a SwiftPM target of its own, the compiler holds this once Package.swift's
/// dependencies point down only, which `testTargetsDependOnLowerLayersOnly` checks. The layers
/// kept together in the PixelFlow target are folders; `testFoldersNameNoTypeOfAHigherLayer`
/// scans their files for the names of types declared in higher folders.
final class LayerTests: XCTestCase {
    /// The library's targets, lowest first (Architecture.md's diagram).
    static let targets = ["PixelFlowCore", "PixelFlowKernels", "PixelFlowGraph", "PixelFlow", "PixelFlowCLI"]

    /// The folders of Sources/PixelFlow, lowest layer first; folders on one line are one layer.
    static let folders: [[String]] = [
        ["Execution"],
        ["Image", "Filters", "Codecs", "Color", "Drawing", "Text", "Detectors"],
    ]

    /// The backwards references that the target split of issue #19 (item 5) has still to
    /// remove, as `file -> type` (file relative to Sources/PixelFlow). The list may only
    /// shrink: a new entry fails the test, and so does an entry that is no longer true.
    static let knownExceptions: Set<String> = [
        "Execution/MemoryBudget.swift -> Image",
        "Execution/RenderContext+Streaming.swift -> Image",
        "Execution/RenderContext+Streaming.swift -> _AtomicFile",
        "Execution/RenderContext.swift -> ColorSpace",
        "Execution/RenderContext.swift -> Image",
        "Execution/RenderPlan+Explain.swift -> Image",
    ]

    func testTargetsDependOnLowerLayersOnly() throws {
        let manifest = try String(contentsOfFile: packageRoot + "/Package.swift", encoding: .utf8)
        let dependencies = try Self.targetDependencies(manifest)
        for (index, target) in Self.targets.enumerated() {
            let found = try XCTUnwrap(dependencies[target], "Package.swift declares no target \(target)")
            for dependency in found where Self.targets.contains(dependency) {
                let layer = Self.targets.firstIndex(of: dependency)!
                XCTAssertLessThan(layer, index, "\(target) depends on \(dependency), a layer above it or its own")
            }
        }
        // Every library target named PixelFlow* is a layer of the diagram.
        for target in dependencies.keys where target.hasPrefix("PixelFlow") && !target.hasSuffix("Tests") {
            XCTAssertTrue(Self.targets.contains(target), "\(target) is in no layer of LayerTests.targets")
        }
    }

    func testFoldersNameNoTypeOfAHigherLayer() throws {
        let root = packageRoot + "/Sources/PixelFlow"
        let files = try Self.swiftFiles(under: root)
        var layerOfFolder: [String: Int] = [:]
        for (layer, names) in Self.folders.enumerated() { for name in names { layerOfFolder[name] = layer } }
        func layer(_ file: String) -> Int? { layerOfFolder[String(file.prefix { $0 != "/" })] }

        // Types declared at file scope, by the lowest layer that declares one of that name.
        let attributes = #"(?:@\w+(?:\([^)]*\))?\s+)*"#
        let modifiers = #"(?:(?:public|package|internal|private|fileprivate|final|indirect)\s+)*"#
        let declaration = try NSRegularExpression(
            pattern: "^" + attributes + modifiers + #"(?:struct|class|enum|protocol|typealias|actor)\s+([A-Za-z_]\w*)"#,
            options: .anchorsMatchLines)
        var layerOfType: [String: Int] = [:]
        var texts: [String: String] = [:]
        for file in files {
            let text = try String(contentsOfFile: root + "/" + file, encoding: .utf8)
            texts[file] = Self.code(text)
            guard let fileLayer = layer(file) else { continue }
            for match in declaration.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                let name = String(text[Range(match.range(at: 1), in: text)!])
                layerOfType[name] = min(layerOfType[name] ?? fileLayer, fileLayer)
            }
        }
        XCTAssertGreaterThan(layerOfType.count, 100, "the scan found too few types: is the pattern broken?")

        var found: Set<String> = []
        let identifier = try NSRegularExpression(pattern: #"\b[A-Za-z_]\w*\b"#)
        for (file, code) in texts {
            guard let fileLayer = layer(file) else { continue }
            for match in identifier.matches(in: code, range: NSRange(code.startIndex..., in: code)) {
                let name = String(code[Range(match.range, in: code)!])
                if let typeLayer = layerOfType[name], typeLayer > fileLayer { found.insert("\(file) -> \(name)") }
            }
        }
        for reference in found.subtracting(Self.knownExceptions).sorted() {
            XCTFail("\(reference): a lower layer names a type of a higher one (Docs/Architecture.md, Layers)")
        }
        for reference in Self.knownExceptions.subtracting(found).sorted() {
            XCTFail("\(reference) is gone: remove it from LayerTests.knownExceptions")
        }
    }

    /// `target name -> dependency names` of the `.target` and `.executableTarget` lines.
    static func targetDependencies(_ manifest: String) throws -> [String: [String]] {
        let target = try NSRegularExpression(
            pattern: #"\.(?:target|executableTarget|testTarget)\(\s*name:\s*"([^"]+)"(?:\s*,\s*dependencies:\s*\[([^\]]*)\])?"#)
        let quoted = try NSRegularExpression(pattern: #""([^"]+)""#)
        var result: [String: [String]] = [:]
        for match in target.matches(in: manifest, range: NSRange(manifest.startIndex..., in: manifest)) {
            let name = String(manifest[Range(match.range(at: 1), in: manifest)!])
            var dependencies: [String] = []
            if let range = Range(match.range(at: 2), in: manifest) {
                let list = String(manifest[range])
                for item in quoted.matches(in: list, range: NSRange(list.startIndex..., in: list)) {
                    dependencies.append(String(list[Range(item.range(at: 1), in: list)!]))
                }
            }
            result[name] = dependencies
        }
        return result
    }

    /// The Swift files under `root`, as paths relative to it.
    static func swiftFiles(under root: String) throws -> [String] {
        let enumerator = try XCTUnwrap(FileManager.default.enumerator(atPath: root))
        return enumerator.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }.sorted()
    }

    /// `text` without comments and string literals, whose words are not references.
    static func code(_ text: String) -> String {
        var out = ""
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            var l = String(line)
            l = l.replacingOccurrences(of: #""(?:\\.|[^"\\])*""#, with: "\"\"", options: .regularExpression)
            if let comment = l.range(of: "//") { l = String(l[..<comment.lowerBound]) }
            out += l + "\n"
        }
        return out
    }
}
