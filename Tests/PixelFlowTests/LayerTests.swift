import Foundation
import XCTest

/// The layers of Docs/Architecture.md ("Layers"): each uses only the ones below it.
///
/// Each layer is a SwiftPM target, so the compiler holds this once Package.swift's
/// dependencies point down only, which `testTargetsDependOnLowerLayersOnly` checks.
/// `testLayersNameNoTypeOfAHigherLayer` reads the sources too, so a reference upwards fails
/// here with the file and the type even before the dependency is added to make it compile.
final class LayerTests: XCTestCase {
    /// The library's targets, lowest first (Architecture.md's diagram); each is the folder
    /// Sources/NAME.
    static let targets = ["PixelFlowCore", "PixelFlowKernels", "PixelFlowGraph", "PixelFlowEngine", "PixelFlow", "PixelFlowCLI"]

    /// Backwards references allowed for now, as `file -> type` (file relative to Sources/).
    /// Empty since the engine's split (issue #19, item 5): a new entry needs a reason in
    /// Docs/Architecture.md, and an entry that is no longer true fails.
    static let knownExceptions: Set<String> = []

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

    func testLayersNameNoTypeOfAHigherLayer() throws {
        var files: [SourceFile] = []
        for (layer, target) in Self.targets.enumerated() {
            let root = packageRoot + "/Sources/" + target
            let names = try Self.swiftFiles(under: root)
            XCTAssertFalse(names.isEmpty, "no Swift file under Sources/\(target)")
            for name in names {
                let text = try String(contentsOfFile: root + "/" + name, encoding: .utf8)
                files.append(SourceFile(path: target + "/" + name, layer: layer, text: text))
            }
        }
        let (found, typeLayers) = try Self.backwardReferences(files)
        // The scan sees every layer's declarations, the engine's among them.
        for (name, target) in [
            ("PixelBuffer", "PixelFlowCore"), ("ColorMatrix", "PixelFlowKernels"), ("Node", "PixelFlowGraph"),
            ("RenderPlan", "PixelFlowEngine"), ("Image", "PixelFlow"),
        ] {
            XCTAssertEqual(typeLayers[name], Self.targets.firstIndex(of: target), "\(name) is not found declared in \(target)")
        }
        XCTAssertGreaterThan(typeLayers.count, 300, "the scan found too few types: is the pattern broken?")
        for reference in found.subtracting(Self.knownExceptions).sorted() {
            XCTFail("\(reference): a lower layer names a type of a higher one (Docs/Architecture.md, Layers)")
        }
        for reference in Self.knownExceptions.subtracting(found).sorted() {
            XCTFail("\(reference) is gone: remove it from LayerTests.knownExceptions")
        }
    }

    /// The scan itself finds a reference upwards, and not one downwards or in a comment or
    /// string: an engine file that names `Image`, as RenderContext did before the split.
    func testScanFindsAReferenceUpwards() throws {
        let files = [
            SourceFile(path: "PixelFlowGraph/Node.swift", layer: 2, text: "public final class Node {}\n"),
            SourceFile(
                path: "PixelFlowEngine/RenderContext.swift", layer: 3,
                text: "public struct RenderContext {\n    func render(_ image: Image, root: Node) {}\n}\n"),
            SourceFile(
                path: "PixelFlowEngine/Plan.swift", layer: 3,
                text: "struct Plan {\n    // an Image\n    let s = \"Image\"\n}\n"),
            SourceFile(path: "PixelFlow/Image.swift", layer: 4, text: "public struct Image {\n    let node: Node\n}\n"),
        ]
        let (found, typeLayers) = try Self.backwardReferences(files)
        XCTAssertEqual(found, ["PixelFlowEngine/RenderContext.swift -> Image"])
        XCTAssertEqual(typeLayers, ["Node": 2, "RenderContext": 3, "Plan": 3, "Image": 4])
    }

    /// A Swift file of some layer.
    struct SourceFile {
        let path: String
        let layer: Int
        let text: String
    }

    /// The references `file -> type` from a file to a type declared at file scope in a higher
    /// layer (the lowest layer declaring a name counts), and the layer of each declared name.
    static func backwardReferences(_ files: [SourceFile]) throws -> (Set<String>, [String: Int]) {
        let attributes = #"(?:@\w+(?:\([^)]*\))?\s+)*"#
        let modifiers = #"(?:(?:public|package|internal|private|fileprivate|final|indirect)\s+)*"#
        let declaration = try NSRegularExpression(
            pattern: "^" + attributes + modifiers + #"(?:struct|class|enum|protocol|typealias|actor)\s+([A-Za-z_]\w*)"#,
            options: .anchorsMatchLines)
        var layerOfType: [String: Int] = [:]
        for file in files {
            let text = file.text
            for match in declaration.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                let name = String(text[Range(match.range(at: 1), in: text)!])
                layerOfType[name] = min(layerOfType[name] ?? file.layer, file.layer)
            }
        }
        var found: Set<String> = []
        let identifier = try NSRegularExpression(pattern: #"\b[A-Za-z_]\w*\b"#)
        for file in files {
            let code = Self.code(file.text)
            for match in identifier.matches(in: code, range: NSRange(code.startIndex..., in: code)) {
                let name = String(code[Range(match.range, in: code)!])
                if let typeLayer = layerOfType[name], typeLayer > file.layer { found.insert("\(file.path) -> \(name)") }
            }
        }
        return (found, layerOfType)
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
