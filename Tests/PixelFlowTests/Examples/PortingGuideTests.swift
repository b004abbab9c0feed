// swift-format-ignore-file
// The `// snippet:` blocks below are shown character for character in the README and the Docs
// (the tests check it), laid out for reading there; swift-format would re-flow them.
import Foundation
import XCTest
import PixelFlow

/// The PixelFlow code of Docs/PortingFromCoreImage.md, compiled and run.
///
/// Every snippet of the page is written here between `// snippet: table` (lines of the
/// tables' PixelFlow column, one statement each) or `// snippet: block` (one fenced code
/// block) and `// end snippet`, in test functions that run it on small images and check what
/// it made. `testPageAndSnippetsAgree` reads the page and this file and fails when a code span
/// of a PixelFlow column or a fenced block of the page is not here, or a snippet here is not
/// on the page, so the two cannot drift. Fenced blocks whose first line is `// Core Image`
/// show Apple's code and are not compiled.
///
/// The module is imported without `@testable`, so the snippets use only the public API.
final class PortingGuideTests: TemporaryDirectoryTestCase {
    // MARK: Scenes

    /// A 320x240 photo of a light card on a darker background, written as a JPEG.
    func writePhoto() throws -> (path: String, pixels: PixelBuffer) {
        var canvas = Canvas(buffer: try PixelBuffer(width: 320, height: 240, format: .rgba8))
        canvas.clear(to: Color(red: 0.25, green: 0.3, blue: 0.35))
        canvas.fillPolygon(
            [Point(x: 60, y: 50), Point(x: 250, y: 60), Point(x: 240, y: 190), Point(x: 70, y: 180)],
            color: Color(white: 0.92))
        let path = directory.appendingPathComponent("photo.jpg").path
        try canvas.buffer.write(toFile: path, quality: 95)
        return (path, canvas.buffer)
    }

    /// A QR code of `message` on white, 4 pixels a module.
    func codeImage(_ message: String) throws -> Image {
        try Image.qrCode(message: message, scale: 4)
    }

    // MARK: Snippets

    func testImagesAndFilters() throws {
        let (path, pixels) = try writePhoto()
        let background = Image(color: .white)
        // snippet: table
        let image = try Image(contentsOfFile: path)
        let fromPixels = Image(pixels)
        let red = Image(color: Color(red: 1, green: 0, blue: 0))
        let filter = Filter(named: "CISepiaTone")!
        try filter.setValue(image, forKey: kCIInputImageKey)
        try filter.setValue(0.8, forKey: "inputIntensity")
        let output = filter.outputImage!
        let checked = try filter.outputImage()
        let sepia = try image.applyingFilter("CISepiaTone", parameters: ["inputIntensity": 0.8])
        let blurred = try image.applyingFilter("GaussianBlur", parameters: ["radius": 4])
        let vignette = try image.applyingFilter("CIVignetteEffect", parameters: ["inputCenter": [160, 120], "inputRadius": 100])
        let names = Filter.filterNames(inCategories: [.blur])
        let displayName = Filter.localizedName(forFilterName: "CISepiaTone")
        let attributes = filter.attributes
        let extent = image.extent
        let cropped = image.cropped(to: Rect(x: 10, y: 10, width: 100, height: 50))
        let half = try image.transformed(by: AffineTransform(scaleX: 0.5, y: 0.5))
        let turned = try image.transformed(by: AffineTransform(rotationAngle: -.pi / 2))
        let over = image.composited(over: background)
        let clamped = image.clampedToExtent()
        let center = Point(x: 150, y: 150)
        let orange = Color(red: 1, green: 0.5, blue: 0)
        // end snippet
        let context = RenderContext()
        let expected = try context.makeBuffer(image.sepiaTone(intensity: 0.8))
        XCTAssertEqual(try context.makeBuffer(output), expected)
        XCTAssertEqual(try context.makeBuffer(checked), expected)
        XCTAssertEqual(try context.makeBuffer(sepia), expected)
        XCTAssertEqual(try context.makeBuffer(blurred), try context.makeBuffer(image.gaussianBlurred(radius: 4)))
        XCTAssertEqual(vignette.extent, extent)
        XCTAssertEqual(fromPixels.extent, Rect(x: 0, y: 0, width: 320, height: 240))
        XCTAssertTrue(red.extent.isInfinite)
        XCTAssertTrue(names.contains("CIGaussianBlur"))
        XCTAssertEqual(displayName, "Sepia Tone")
        XCTAssertNotNil(attributes[kCIAttributeFilterName])
        XCTAssertEqual(extent, Rect(x: 0, y: 0, width: 320, height: 240))
        XCTAssertEqual(cropped.extent, Rect(x: 10, y: 10, width: 100, height: 50))
        XCTAssertEqual(half.extent, Rect(x: 0, y: 0, width: 160, height: 120))
        // Core Image's quarter turn counterclockwise (y up) is -pi/2 here (y down): the
        // image's top-right corner goes to the top-left.
        XCTAssertEqual(turned.extent.width, 240, accuracy: 1e-9)
        XCTAssertEqual(turned.extent.height, 320, accuracy: 1e-9)
        XCTAssertEqual(over.extent, Rect.infinite)
        XCTAssertTrue(clamped.extent.isInfinite)
        XCTAssertEqual([center.x, center.y], [150, 150])
        XCTAssertEqual(orange.green, 0.5)
    }

    func testRendering() throws {
        let (path, _) = try writePhoto()
        let output = try Image(contentsOfFile: path).sepiaTone()
        let outPath = directory.appendingPathComponent("out.png").path
        // snippet: table
        let context = RenderContext()
        let pixels = try context.makeBuffer(output)
        try context.write(output, toFile: outPath)
        let jpeg = try context.encoded(output, as: .jpeg, quality: 90)
        let part = try context.makeBuffer(output, rect: Rect(x: 0, y: 0, width: 64, height: 64))
        let bgraPixels = try context.makeBuffer(output, format: .bgra8)
        // end snippet
        // rgba8 renders take the byte path (a linear-light color matrix on bytes), bgra8 ones
        // the float path: within 1 unit (Docs/Architecture.md, "Byte forms").
        XCTAssertLessThanOrEqual(
            ByteFormTesting.maxDifference(
                ByteFormTesting.bytes(of: bgraPixels.converted(to: .rgba8)), ByteFormTesting.bytes(of: pixels)), 1)
        XCTAssertEqual([pixels.width, pixels.height], [320, 240])
        XCTAssertEqual(try PixelBuffer(contentsOfFile: outPath), pixels)
        XCTAssertEqual(try PixelBuffer(encoded: jpeg).width, 320)
        XCTAssertEqual([part.width, part.height], [64, 64])
    }

    func testOrientation() throws {
        let path = directory.appendingPathComponent("rotated.jpg").path
        try FileManager.default.copyItem(atPath: fixturePath("orientation6.jpg"), toPath: path)
        let image = try Image(contentsOfFile: path)
        // snippet: table
        let upright = try image.oriented(.right)
        let upright6 = try image.oriented(forExifOrientation: 6)
        let declared = image.fileOrientation?.declared
        // end snippet
        XCTAssertEqual(upright.extent, upright6.extent)
        XCTAssertEqual(declared, .right)
        // snippet: block
        // PixelFlow turns files upright as it reads them; to get the stored pixels, as
        // CIImage(contentsOf:) does, and turn them yourself:
        var options = DecodeOptions.default
        options.applyOrientation = false
        let stored = try Image(contentsOfFile: path, options: options)
        let orientation = stored.fileOrientation?.remaining ?? .up  // .right for EXIF orientation 6
        let turned = try stored.oriented(orientation)
        // end snippet
        let context = RenderContext()
        XCTAssertEqual(orientation, .right)
        XCTAssertEqual(try context.makeBuffer(turned), try context.makeBuffer(image))
    }

    func testDetectors() throws {
        let codeImage = try codeImage("https://example.org/pixelflow")
        let (_, photo) = try writePhoto()
        // snippet: table
        let qrDetector = QRCodeDetector(options: DetectorOptions(accuracy: .high))
        let rectangleDetector = RectangleDetector(
            options: DetectorOptions(accuracy: .high, maximumFeatureCount: 1),
            aspectRatio: 1.4)
        let codes = try qrDetector.features(in: codeImage)
        let text = codes.first?.messageString
        let bounds = codes.first?.bounds
        let quads = rectangleDetector.features(in: photo)
        let flat = try Image(photo).perspectiveCorrected(quads[0])
        let ciBounds = try qrDetector.features(in: codeImage, coordinates: .coreImage).first?.bounds
        // end snippet
        let codeHeight = codeImage.extent.height
        XCTAssertEqual(ciBounds.map { $0.y + $0.height }, bounds.map { codeHeight - $0.y })
        XCTAssertEqual(text, "https://example.org/pixelflow")
        XCTAssertNotNil(bounds)
        XCTAssertEqual(quads.count, 1)
        XCTAssertGreaterThan(flat.extent.width, 150)
    }

    func testFaceDetector() throws {
        guard (try? FaceDetector()) != nil else {
            throw XCTSkip("no face cascade installed (scripts/setup.sh installs opencv-data)")
        }
        let (_, photo) = try writePhoto()
        // snippet: table
        let faceDetector = try FaceDetector(options: DetectorOptions(accuracy: .high))
        let faces = try faceDetector.features(in: photo)
        let eye = faces.first?.leftEyePosition
        // end snippet
        XCTAssertEqual(faces.count, 0, "a card has no face")
        XCTAssertNil(eye)
    }

    func testCoordinates() throws {
        let codeImage = try codeImage("corners")
        let pixels = try RenderContext().makeBuffer(codeImage)
        let code = try XCTUnwrap(QRCodeDetector().features(in: pixels).first)
        let (_, photo) = try writePhoto()
        let quad = try XCTUnwrap(RectangleDetector().features(in: photo).first)
        let r = code.bounds
        let ciX = 40.0, ciY = 30.0
        // snippet: block
        // PixelFlow: origin at the top-left, y down. Core Image: origin at the bottom-left, y up.
        let height = Double(pixels.height)
        let ciPoint = code.topLeft.coreImageCoordinates(imageHeight: height)  // a point, either way
        let ciCorners = quad.coreImageCorners(imageHeight: Double(photo.height))  // a quad's corners
        let ciRect = Rect(x: r.x, y: height - r.maxY, width: r.width, height: r.height)  // a rect, by hand
        let position = Point(x: ciX, y: height - ciY)  // a Core Image position for a filter input
        // end snippet
        XCTAssertEqual(ciPoint.y, height - code.topLeft.y)
        XCTAssertEqual(ciCorners.count, 4)
        XCTAssertEqual(ciRect.maxY, height - r.y, accuracy: 1e-9)
        XCTAssertEqual(position.y, height - 30)
    }

    func testCoreImageCoordinates() throws {
        let (_, pixels) = try writePhoto()
        let image = Image(pixels), photo = image
        // snippet: table
        let ported = try image.applyingFilter("CIVignetteEffect", parameters: ["inputCenter": [100, 60], "inputRadius": 80], coordinates: .coreImage)
        let glow = try FilterRegistry.apply("CIRadialGradient", ["inputCenter": .vector([100, 60])], coordinates: .coreImage, imageHeight: 240)
        let ciCropped = try image.cropped(to: Rect(x: 10, y: 20, width: 100, height: 50), coordinates: .coreImage)
        let ciExtent = ciCropped.extent(coordinates: .coreImage, imageHeight: image.extent.height)
        // end snippet
        let context = RenderContext()
        XCTAssertEqual(
            try context.makeBuffer(ported),
            try context.makeBuffer(image.applyingFilter("CIVignetteEffect", parameters: ["inputCenter": [100, 180], "inputRadius": 80])))
        let frame = Rect(x: 0, y: 0, width: 320, height: 240)
        XCTAssertEqual(
            try context.makeBuffer(glow, rect: frame),
            try context.makeBuffer(FilterRegistry.apply("CIRadialGradient", ["inputCenter": .vector([100, 180])]), rect: frame))
        XCTAssertEqual(ciCropped.extent, Rect(x: 10, y: 170, width: 100, height: 50))
        XCTAssertEqual(ciExtent, Rect(x: 10, y: 20, width: 100, height: 50))
        let filter = Filter(named: "CIVignetteEffect")!
        try filter.setValue(image, forKey: kCIInputImageKey)
        // snippet: table
        filter.coordinates = .coreImage
        // end snippet
        try filter.setValue([100, 60], forKey: "inputCenter")
        try filter.setValue(80, forKey: "inputRadius")
        XCTAssertEqual(try context.makeBuffer(try filter.outputImage()), try context.makeBuffer(ported))
        guard (try? FaceDetector()) != nil else {
            throw XCTSkip("no face cascade installed (scripts/setup.sh installs opencv-data)")
        }
        // snippet: block
        // Core Image's numbers, unchanged: the option says whose coordinates they are.
        let vignetted = try photo.applyingFilter(
            "CIVignetteEffect", parameters: ["inputCenter": [100, 60], "inputRadius": 80], coordinates: .coreImage)
        let corner = try photo.cropped(to: Rect(x: 10, y: 20, width: 100, height: 50), coordinates: .coreImage)
        let ciFaces = try FaceDetector().features(in: pixels, coordinates: .coreImage)  // bounds, eyes, mouth
        let ciQuads = try RectangleDetector().features(in: pixels, coordinates: .coreImage)  // corners
        // end snippet
        XCTAssertEqual(try context.makeBuffer(vignetted), try context.makeBuffer(ported))
        XCTAssertEqual(corner.extent, ciCropped.extent)
        XCTAssertTrue(ciFaces.isEmpty, "a card has no face")
        let quads = RectangleDetector().features(in: pixels)
        XCTAssertEqual(ciQuads.map(\.topLeft), quads.map { Point(x: $0.topLeft.x, y: 240 - $0.topLeft.y) })
    }

    func testDrawingAndPixels() throws {
        let (path, pixels) = try writePhoto()
        let image = try Image(contentsOfFile: path)
        let bgra = pixels.converted(to: .bgra8)
        // snippet: table
        var canvas = Canvas(buffer: pixels)
        canvas.strokeRect(Rect(x: 20, y: 20, width: 80, height: 40), width: 2, color: .red)
        canvas.fillEllipse(in: Rect(x: 120, y: 20, width: 40, height: 40), color: .green)
        canvas.saveState()
        canvas.alpha = 0.5
        canvas.blendMode = .sourceAtop
        try canvas.draw(image, in: Rect(x: 40, y: 40, width: 64, height: 48))
        canvas.restoreState()
        var arc = Path()
        arc.addArc(center: Point(x: 60, y: 60), radius: 20, startAngle: 0, endAngle: .pi, clockwise: true)
        canvas.stroke(arc, style: StrokeStyle(width: 3, cap: .round, dash: [6, 4]), color: .blue)
        canvas.clip(to: Rect(x: 0, y: 0, width: 160, height: 120))
        let font = try Font(name: "DejaVuSans-Bold", size: 18)
        canvas.drawText("Hi", at: Point(x: 20, y: 80 + font.ascent), font: font, color: .white)
        let line = TextLayout("Hi", font: font)
        canvas.drawText(line, at: Point(x: 60, y: 110))
        let label = try Image.text("Hello", fontSize: 24, scaleFactor: 2)
        let styled = try Image.attributedText(StyledText("Hi", style: TextStyle(font: font, color: .white)))
        let drawn = canvas.buffer
        let value = pixels[3, 4]
        let color = bgra[packed: 3, 4]
        let red = PackedPixelLayout.bgra8.red(color)
        let bubble = try image.resizableImage(
            capInsets: EdgeInsets(top: 14, left: 20, bottom: 14, right: 20),
            targetSize: Size(width: 300, height: 80), resizingMode: .stretch)
        let thumb = try image.resized(to: Size(width: 200, height: 200), contentMode: .aspectFill)
        // end snippet
        XCTAssertNotEqual(drawn, pixels)
        XCTAssertEqual(canvas.alpha, 1, "restored")
        XCTAssertEqual(canvas.blendMode, .normal, "restored")
        XCTAssertGreaterThan(drawn[60, 80].z, drawn[60, 80].x, "the blue dashed arc passes (60, 80)")
        XCTAssertEqual(value.w, 1)
        XCTAssertEqual(Float(red) / 255, value.x)
        XCTAssertEqual(color >> 24, 255, "alpha in the high byte")
        XCTAssertEqual(bubble.extent, Rect(x: 0, y: 0, width: 300, height: 80))
        XCTAssertEqual(thumb.extent, Rect(x: 0, y: 0, width: 200, height: 200))
        XCTAssertGreaterThan(line.advance, 0)
        XCTAssertEqual(label.extent.height, (2 * TextLayout("Hello", font: try Font(size: 24)).height).rounded(.up))
        XCTAssertEqual(styled.extent.width, line.advance.rounded(.up))
    }

    func testCustomKernels() throws {
        let (path, _) = try writePhoto()
        let image = try Image(contentsOfFile: path)
        // snippet: block
        // A CIColorKernel's job, as a Swift closure on unpremultiplied linear RGBA: it fuses with
        // the filters around it like the built-in ones.
        let swapped = image.applyingColorKernel(named: "swap red and blue") { p in
            SIMD4(p.z, p.y, p.x, p.w)
        }
        // end snippet
        let a = try RenderContext().makeBuffer(image), b = try RenderContext().makeBuffer(swapped)
        XCTAssertEqual(b[5, 5].x, a[5, 5].z, accuracy: 1 / 255)
    }

    // MARK: The page and this file agree

    static let pagePath = packageRoot + "/Docs/PortingFromCoreImage.md"

    func fixturePath(_ name: String) -> String { packageRoot + "/Tests/PixelFlowTests/Fixtures/Codecs/" + name }

    /// The snippets of the calling test file (`file`, this one by default): `(kind, lines)`,
    /// each de-indented by its first line's indent. ReadmeSnippetTests uses it too.
    static func snippets(inFile file: String = #filePath) throws -> [(kind: String, lines: [String])] {
        let source = try String(contentsOfFile: file, encoding: .utf8)
        var out: [(String, [String])] = []
        var current: (kind: String, lines: [String])?
        for line in source.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("// snippet: ") {
                current = (String(trimmed.dropFirst("// snippet: ".count)), [])
            } else if trimmed == "// end snippet", let c = current {
                let indent = c.lines.first.map { $0.prefix { $0 == " " }.count } ?? 0
                out.append((c.kind, c.lines.map { String($0.dropFirst(Swift.min(indent, $0.prefix { $0 == " " }.count))) }))
                current = nil
            } else if current != nil {
                current!.lines.append(line)
            }
        }
        return out
    }

    /// The page's fenced code blocks other than Core Image's, and the code spans of the
    /// PixelFlow column of its tables.
    static func pageCode(_ page: String) -> (blocks: [String], spans: [String]) {
        var blocks: [String] = [], spans: [String] = []
        var block: [String]?
        var pixelFlowColumn: Int?
        for line in page.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if line.hasPrefix("```") {
                if let b = block {
                    if b.first != "// Core Image" { blocks.append(b.joined(separator: "\n")) }
                    block = nil
                } else {
                    block = []
                }
                continue
            }
            if block != nil {
                block!.append(line)
                continue
            }
            guard line.hasPrefix("|") else {
                pixelFlowColumn = nil
                continue
            }
            // Cells between the outer bars; code spans hold no bar.
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).dropFirst().dropLast()
                .map { $0.trimmingCharacters(in: .whitespaces) }
            if pixelFlowColumn == nil {
                pixelFlowColumn = cells.firstIndex(of: "PixelFlow") ?? -1
                continue
            }
            guard let k = pixelFlowColumn, k >= 0, k < cells.count, !cells[k].hasPrefix("---") else { continue }
            let parts = cells[k].split(separator: "`", omittingEmptySubsequences: false)
            spans += stride(from: 1, to: parts.count, by: 2).map { String(parts[$0]) }
        }
        return (blocks, spans)
    }

    func testPageAndSnippetsAgree() throws {
        let page = try String(contentsOfFile: Self.pagePath, encoding: .utf8)
        let (blocks, spans) = Self.pageCode(page)
        let snippets = try Self.snippets()
        XCTAssertFalse(blocks.isEmpty)
        XCTAssertFalse(spans.isEmpty)
        // Table lines: each a whole statement. A statement written over two lines in this file
        // is one span on the page, its lines joined by a space (none after an open bracket).
        var tableLines: [String] = []
        for s in snippets where s.kind == "table" {
            for line in s.lines {
                let t = line.trimmingCharacters(in: .whitespaces)
                if t.isEmpty { continue }
                if line.hasPrefix(" "), let last = tableLines.popLast() {
                    tableLines.append(last + (last.hasSuffix("(") || last.hasSuffix("[") ? "" : " ") + t)
                } else {
                    tableLines.append(t)
                }
            }
        }
        let codeBlocks = snippets.filter { $0.kind == "block" }.map { $0.lines.joined(separator: "\n") }
        XCTAssertEqual(snippets.count, snippets.filter { $0.kind == "table" || $0.kind == "block" }.count)
        for span in spans where !tableLines.contains(span) {
            XCTFail("the page's table code `\(span)` is not compiled in PortingGuideTests; add it to a `// snippet: table`")
        }
        for line in tableLines where !spans.contains(line) {
            XCTFail("PortingGuideTests has table line `\(line)` that the page's PixelFlow columns do not show")
        }
        for block in blocks where !codeBlocks.contains(block) {
            XCTFail("the page's code block is not compiled in PortingGuideTests:\n\(block)")
        }
        for block in codeBlocks where !blocks.contains(block) {
            XCTFail("PortingGuideTests has a code block the page does not show:\n\(block)")
        }
    }

    /// The page lists every filter whose description calls it an approximation of Core
    /// Image's, and every name it lists is a filter.
    func testApproximationsAreListed() throws {
        let page = try String(contentsOfFile: Self.pagePath, encoding: .utf8)
        let start = try XCTUnwrap(page.range(of: "## Filters that are approximations"))
        let section = page[start.upperBound...].prefix { $0 != "#" }
        for d in FilterRegistry.all where d.summary.lowercased().contains("approximat") {
            XCTAssertTrue(section.contains("`\(d.name)`"), "\(d.name) is an approximation; list it on the page")
        }
        let listed = section.split(separator: "`").enumerated().filter { $0.offset % 2 == 1 }.map { String($0.element) }
            .filter { $0.hasPrefix("CI") }
        XCTAssertGreaterThan(listed.count, 10)
        for name in listed { XCTAssertNotNil(FilterRegistry.descriptor(named: name), "\(name) is not a filter") }
    }
}
