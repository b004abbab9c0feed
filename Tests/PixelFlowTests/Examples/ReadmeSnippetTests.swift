// swift-format-ignore-file
// The `// snippet:` blocks below are shown character for character in the README and the Docs
// (the tests check it), laid out for reading there; swift-format would re-flow them.
import Foundation
import XCTest
import PixelFlow

/// The Swift code of README.md, compiled and run, as PortingGuideTests does for
/// Docs/PortingFromCoreImage.md.
///
/// Every ```` ```swift ```` block of the README is written here between `// snippet: block` and
/// `// end snippet`, in a test that runs it in a temporary folder holding the files it names
/// (photo.jpg, IMG_0042.heic, scan.png, portrait.png) and checks what it made.
/// `testReadmeAndSnippetsAgree` fails when a block of the README is not here or a snippet
/// here is not in the README. Two differences are allowed: a block's leading
/// `import PixelFlow` (and the blank line after it) is not repeated here, and the
/// `Package.swift` block (first line `// swift-tools-version:`) is not compiled but checked
/// against the package's own manifest by `testPackageSnippetMatchesTheManifest`.
///
/// The module is imported without `@testable`, so the snippets use only the public API.
final class ReadmeSnippetTests: TemporaryDirectoryTestCase {
    // MARK: Scenes

    /// Runs `body` with the temporary folder as the current directory, as the README's
    /// relative paths expect, and goes back after.
    func inTemporaryDirectory(_ body: () throws -> Void) throws {
        let files = FileManager.default
        let previous = files.currentDirectoryPath
        XCTAssertTrue(files.changeCurrentDirectoryPath(directory.path))
        defer { _ = files.changeCurrentDirectoryPath(previous) }
        try body()
    }

    /// A 320x240 scene: a light card on a darker background with a QR code beside it.
    func scene() throws -> PixelBuffer {
        var canvas = Canvas(buffer: try PixelBuffer(width: 320, height: 240, format: .rgba8))
        canvas.clear(to: Color(red: 0.25, green: 0.3, blue: 0.35))
        canvas.fillPolygon(
            [Point(x: 20, y: 40), Point(x: 200, y: 50), Point(x: 190, y: 200), Point(x: 30, y: 190)],
            color: Color(white: 0.92))
        var buffer = canvas.buffer
        let code = try RenderContext().makeBuffer(Image.qrCode(message: "https://example.com", scale: 3), format: .rgba8)
        for y in 0..<code.height { for x in 0..<code.width { buffer[215 + x, 60 + y] = code[x, y] } }
        return buffer
    }

    func fixture(_ path: String) -> String { packageRoot + "/Tests/PixelFlowTests/Fixtures/" + path }

    // MARK: Snippets

    func testUsingTheLibraryAndWritingAJPEGWithAQuality() throws {
        try scene().write(toFile: directory.appendingPathComponent("photo.jpg").path, quality: 95)
        try inTemporaryDirectory {
            // snippet: block
            let photo = try Image(contentsOfFile: "photo.jpg")          // nothing decoded into floats yet
            let result = try photo
                .exposureAdjusted(ev: 0.5)
                .colorControls(saturation: 1.2, contrast: 1.1)
                .sepiaTone(intensity: 0.6)
                .clampedToExtent().gaussianBlurred(radius: 3).cropped(to: photo.extent)
                .lanczosScaled(scale: 0.5)
            let context = RenderContext()                                 // all cores, linear working space
            try context.write(result, toFile: "out.png")                  // atomic: temp file, then rename
            let pixels = try context.makeBuffer(result, format: .rgbaF32) // or render into a PixelBuffer
            // end snippet
            XCTAssertEqual(try PixelBuffer(contentsOfFile: "out.png").width, 160)
            XCTAssertEqual(pixels.height, 120)
            XCTAssertEqual(pixels[0, 0].w, 1, accuracy: 1e-5, "the blur idiom keeps opaque edges")

            let jpegs = try {
                // snippet: block
                try context.write(result, toFile: "out.jpg", quality: 85)                  // JPEG, quality 85
                try context.write(result, toFile: "upload.bin", format: .jpeg, quality: 85) // format not from the name
                var jpeg = EncodeOptions()
                jpeg.progressive = true
                jpeg.chromaSubsampling = .yuv444                                            // sharper colored edges
                let bytes = try context.encoded(result, as: .jpeg, quality: 85, encodeOptions: jpeg)  // in memory
                try pixels.write(toFile: "pixels.jpg", quality: 85)                         // a PixelBuffer
                // end snippet
                return bytes
            }()
            for name in ["out.jpg", "upload.bin", "pixels.jpg"] {
                let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: name)))
                XCTAssertEqual(ImageFileFormat.sniff(bytes), .jpeg, name)
                XCTAssertEqual(try ImageFile(contentsOfFile: name).info.width, 160, name)
            }
            XCTAssertEqual(ImageFileFormat.sniff(jpegs), .jpeg)
            // Quality matters: 85 is smaller than 100 for the same image.
            let best = try RenderContext().encoded(result, as: .jpeg, quality: 100)
            XCTAssertLessThan(try Data(contentsOf: URL(fileURLWithPath: "out.jpg")).count, best.count)
        }
    }

    func testFiltersByName() throws {
        let photo = Image(try scene())
        // snippet: block
        let sepia = try FilterRegistry.apply("CISepiaTone", ["inputImage": .image(photo), "inputIntensity": .number(0.8)])
        let effects = FilterRegistry.filterNames(inCategories: [.colorEffect])
        let maximum = FilterRegistry.descriptor(named: "GaussianBlur")?.input("inputRadius")?.sliderMaximum   // 100
        let ported = try photo.applyingFilter("CISepiaTone", parameters: ["inputIntensity": 0.8])  // Core Image's shape
        // end snippet
        let context = RenderContext()
        XCTAssertEqual(try context.makeBuffer(sepia), try context.makeBuffer(ported))
        XCTAssertEqual(maximum, 100)
        XCTAssertTrue(effects.contains("CISepiaTone"))
    }

    func testFilesWithProfilesAndMetadata() throws {
        try FileManager.default.copyItem(atPath: fixture("HEIF/meta.heic"),
                                         toPath: directory.appendingPathComponent("IMG_0042.heic").path)
        try inTemporaryDirectory {
            // snippet: block
            let file = try ImageFile(contentsOfFile: "IMG_0042.heic")      // format, size, frames, metadata
            var options = RenderContext.Options()
            options.outputColorSpace = .displayP3                           // or .sRGB (default), ColorSpace(iccProfile:)
            try RenderContext(options: options).write(try Image(contentsOfFile: "IMG_0042.heic"), toFile: "out.webp",
                quality: 85, encodeOptions: EncodeOptions(metadata: file.metadata, keptMetadata: .all))
            // end snippet
            let written = try ImageFile(contentsOfFile: "out.webp")
            XCTAssertEqual(written.info.format, .webp)
            XCTAssertEqual(written.info.width, file.info.width)
        }
    }

    func testDetectors() throws {
        try scene().write(toFile: directory.appendingPathComponent("scan.png").path)
        try FileManager.default.copyItem(atPath: fixture("Faces/astronaut.png"),
                                         toPath: directory.appendingPathComponent("portrait.png").path)
        try inTemporaryDirectory {
            // snippet: block
            let scan = try PixelBuffer(contentsOfFile: "scan.png")          // or context.makeBuffer(image)
            for code in try QRCodeDetector().features(in: scan) {            // Docs/QRCode.md
                print(code.message ?? "(not text)", code.corners)            // top-left, top-right, bottom-right, bottom-left
            }
            if let card = RectangleDetector().features(in: scan).first {     // the most prominent quad: Docs/RectangleDetection.md
                print(card.corners, card.confidence)                         // confidence: edge support of the sides, 0...1
                let flat = try Image(scan).perspectiveCorrected(card)        // CIPerspectiveCorrection
                try RenderContext().write(flat, toFile: "card.png")
            }
            let portrait = try PixelBuffer(contentsOfFile: "portrait.png")
            for face in try FaceDetector().features(in: portrait) {          // Docs/Detectors.md
                print(face.bounds, face.leftEyePosition ?? "no eye", face.hasSmile)
            }
            // end snippet
            XCTAssertEqual(try QRCodeDetector().features(in: scan).map(\.message), ["https://example.com"])
            let card = try XCTUnwrap(RectangleDetector().features(in: scan).first)
            XCTAssertLessThan(abs(card.topLeft.x - 20) + abs(card.topLeft.y - 40), 4, "\(card.corners)")
            XCTAssertEqual(try Image(scan).perspectiveCorrected(card).extent.isEmpty, false)
            XCTAssertEqual(try FaceDetector().features(in: portrait).count, 1)
        }
    }

    // MARK: The README and this file agree

    static let readmePath = packageRoot + "/README.md"

    /// The README's ```` ```swift ```` blocks, without a leading `import PixelFlow` line and the
    /// blank line after it.
    static func readmeBlocks() throws -> [String] { try swiftBlocks(inFile: readmePath) }

    /// The ```` ```swift ```` blocks of the Markdown file at `path`, without a leading
    /// `import PixelFlow` line and the blank line after it.
    static func swiftBlocks(inFile path: String) throws -> [String] {
        let page = try String(contentsOfFile: path, encoding: .utf8)
        var blocks: [[String]] = []
        var block: [String]?
        for line in page.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if block == nil, line == "```swift" {
                block = []
            } else if block != nil, line == "```" {
                var b = block!
                if b.first == "import PixelFlow" {
                    b.removeFirst()
                    if b.first == "" { b.removeFirst() }
                }
                blocks.append(b)
                block = nil
            } else if block != nil {
                block!.append(line)
            }
        }
        return blocks.map { $0.joined(separator: "\n") }
    }

    /// The README's blocks and the compiled snippets agree but for spaces and line breaks:
    /// swift-format re-spaces end-of-line comments and breaks long lines in the tests, not in
    /// the README.
    func testReadmeAndSnippetsAgree() throws {
        let blocks = try Self.readmeBlocks().filter { !$0.hasPrefix("// swift-tools-version:") }
        let snippets = try PortingGuideTests.snippets().map { $0.lines.joined(separator: "\n") }
        XCTAssertGreaterThanOrEqual(blocks.count, 5)
        // swift-format lays out the compiled snippets (one space before an end-of-line comment,
        // line breaks), while the README keeps its hand layout: compare them without whitespace.
        func layoutFree(_ text: String) -> String { String(text.filter { !$0.isWhitespace }) }
        let compiled = Set(snippets.map(layoutFree)), shown = Set(blocks.map(layoutFree))
        for block in blocks where !compiled.contains(layoutFree(block)) {
            XCTFail("the README's Swift block is not compiled in ReadmeSnippetTests; add it as a `// snippet: block`:\n\(block)")
        }
        for snippet in snippets where !shown.contains(layoutFree(snippet)) {
            XCTFail("ReadmeSnippetTests has a snippet the README does not show:\n\(snippet)")
        }
    }

    /// The DocC articles (Sources/PixelFlow/PixelFlow.docc) show only Swift that is compiled:
    /// each of their blocks is one of the README's (compiled here) or of the porting guide's
    /// (compiled by PortingGuideTests), character for character.
    func testDocCArticlesShowCompiledSnippets() throws {
        let catalog = packageRoot + "/Sources/PixelFlow/PixelFlow.docc"
        let compiled = try Self.readmeBlocks()
            + Self.swiftBlocks(inFile: packageRoot + "/Docs/PortingFromCoreImage.md")
        let articles = try FileManager.default.contentsOfDirectory(atPath: catalog).filter { $0.hasSuffix(".md") }
        XCTAssertGreaterThanOrEqual(articles.count, 8, "the landing page, getting started and six areas")
        var shown = 0
        for article in articles.sorted() {
            for block in try Self.swiftBlocks(inFile: catalog + "/" + article) {
                shown += 1
                XCTAssertTrue(compiled.contains(block),
                              "\(article) shows Swift that neither the README nor the porting guide has:\n\(block)")
            }
        }
        XCTAssertGreaterThanOrEqual(shown, 6)
    }

    /// The README's `Package.swift` lines name what the manifest declares: its tools version,
    /// the library product, its platforms (none), and the version `from:` takes.
    func testPackageSnippetMatchesTheManifest() throws {
        let manifest = try String(contentsOfFile: packageRoot + "/Package.swift", encoding: .utf8)
        let snippet = try XCTUnwrap(Self.readmeBlocks().first { $0.hasPrefix("// swift-tools-version:") },
                                    "the README shows a Package.swift")
        let toolsLine = { (text: String) in text.split(separator: "\n").first.map(String.init) ?? "" }
        XCTAssertEqual(toolsLine(snippet), toolsLine(manifest), "the README's tools version is the package's")
        XCTAssertTrue(manifest.contains(".library(name: \"PixelFlow\", targets:"), "the product is PixelFlow")
        XCTAssertTrue(snippet.contains(".product(name: \"PixelFlow\", package: \"PixelFlow\")"), snippet)
        XCTAssertTrue(snippet.contains(".package(path: \"../PixelFlow\")"), snippet)
        // The URL form: a placeholder, clearly marked, whose last component gives the package
        // identity the product line names; the version is the current one.
        let urlLine = try XCTUnwrap(snippet.split(separator: "\n").first { $0.contains(".package(url:") })
        XCTAssertTrue(urlLine.contains("/PixelFlow.git\"") && urlLine.contains("<owner>"), String(urlLine))
        XCTAssertTrue(urlLine.contains("from: \"\(PixelFlow.version)\""), String(urlLine))
        XCTAssertTrue(snippet.contains("PLACEHOLDER"), "the placeholder URL is marked")
        if let platforms = manifest.split(separator: "\n").first(where: { $0.contains("platforms:") }) {
            XCTAssertTrue(snippet.contains(platforms.trimmingCharacters(in: .whitespaces)),
                          "the manifest declares \(platforms); the README's Package.swift must too")
        } else {
            XCTAssertFalse(snippet.contains("platforms:"))
            XCTAssertTrue(try String(contentsOfFile: Self.readmePath, encoding: .utf8).contains("declares no `platforms`"))
        }
    }
}
