import Foundation
import XCTest
import PixelFlow

/// Runs every example end to end on small images and checks what it writes and prints,
/// including the error paths (a missing file, an unknown filter, a bad value).
///
/// FaceMarkers is not built yet (it waits for the face detector), so it is not run here.
final class ExamplesTests: TemporaryDirectoryTestCase {

    // MARK: ImagePlayground

    func testImagePlaygroundListsCategoriesWithDisplayNames() throws {
        let r = try ExampleProcess.run("ImagePlayground", ["--list"], in: directory)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.lines.contains { $0.hasPrefix("Blur (") }, r.text)
        XCTAssertTrue(r.lines.contains { $0.hasPrefix("Transition (") }, r.text)
        let blur = try XCTUnwrap(r.lines.first { $0.contains("CIGaussianBlur") })
        XCTAssertTrue(blur.hasSuffix("Gaussian Blur"), blur)

        let only = try ExampleProcess.run("ImagePlayground", ["--list", "transition"], in: directory)
        XCTAssertEqual(only.status, 0, only.stderr)
        XCTAssertTrue(only.lines[0].hasPrefix("Transition ("), only.text)
        XCTAssertEqual(
            only.lines.count - 1, Int(only.lines[0].split(separator: "(")[1].split(separator: " ")[0]), "one line per filter")
        XCTAssertTrue(only.text.contains("CIDissolveTransition"))
        XCTAssertFalse(only.text.contains("CIGaussianBlur"))

        let bad = try ExampleProcess.run("ImagePlayground", ["--list", "Blurry"], in: directory)
        XCTAssertEqual(bad.status, 2)
        XCTAssertTrue(bad.stderr.contains("unknown category 'Blurry'") && bad.stderr.contains("Blur"), bad.stderr)
    }

    func testImagePlaygroundWritesEveryStepAndALabelledContactSheet() throws {
        let r = try ExampleProcess.run(
            "ImagePlayground",
            [
                "--size", "48x32", "--out", "steps", "--thumb", "20",
                "--filter", "CISepiaTone inputIntensity=0.8", "--filter", "LanczosScaleTransform scale=0.5",
            ], in: directory)
        XCTAssertEqual(r.status, 0, r.stderr)
        let original = try PixelBuffer(contentsOfFile: path("steps/00-original.png"))
        XCTAssertEqual(original.width, 48)
        XCTAssertEqual(original.height, 32)
        // Step 1 is exactly the library's sepia of the original.
        let sepia = try PixelBuffer(contentsOfFile: path("steps/01-CISepiaTone.png"))
        XCTAssertEqual(sepia, try RenderContext().makeBuffer(Image(original).sepiaTone(intensity: 0.8), format: .rgba8))
        // Step 2, a geometry filter, sets the new size.
        let scaled = try PixelBuffer(contentsOfFile: path("steps/02-CILanczosScaleTransform.png"))
        XCTAssertEqual(scaled.width, 24)
        XCTAssertEqual(scaled.height, 16)
        XCTAssertTrue(r.text.contains("01 CISepiaTone (Sepia Tone) inputIntensity=0.8 48x32"), r.text)

        // The sheet: three thumbnails 20 px high (30, 30 and 30 px wide), 10 px apart, and a
        // 15 px label band.
        let sheet = try PixelBuffer(contentsOfFile: path("steps/contact-sheet.png"))
        XCTAssertEqual(sheet.width, 10 + 3 * (30 + 10))
        XCTAssertEqual(sheet.height, 10 + 20 + 15 + 10)
        let background = sheet[2, 2]
        XCTAssertNotEqual(sheet[10 + 15, 10 + 10], background, "a thumbnail is drawn")
        // Labels: light pixels in the band under the first thumbnail, none under the gaps.
        var lit = 0
        for y in 36..<43 { for x in 10..<40 where sheet[x, y].x > 0.5 { lit += 1 } }
        XCTAssertGreaterThan(lit, 10, "the label under the first thumbnail is drawn")
        for y in 36..<43 { XCTAssertEqual(sheet[45, y], background) }
    }

    func testImagePlaygroundErrorsSayWhatToDo() throws {
        let unknown = try ExampleProcess.run("ImagePlayground", ["--filter", "CISepiaToon"], in: directory)
        XCTAssertEqual(unknown.status, 2)
        XCTAssertTrue(
            unknown.stderr.contains("unknown filter 'CISepiaToon'") && unknown.stderr.contains("--list"), unknown.stderr)

        let value = try ExampleProcess.run(
            "ImagePlayground", ["--size", "16x16", "--out", "o", "--filter", "CISepiaTone inputIntensity=5"], in: directory)
        XCTAssertEqual(value.status, 2)
        XCTAssertTrue(
            value.stderr.contains("inputIntensity") && value.stderr.contains("pixelflow describe CISepiaTone"), value.stderr)

        let missing = try ExampleProcess.run("ImagePlayground", ["no-such-photo.jpg"], in: directory)
        XCTAssertEqual(missing.status, 1)
        XCTAssertTrue(missing.stderr.contains("no-such-photo.jpg: no such file"), missing.stderr)

        let option = try ExampleProcess.run("ImagePlayground", ["--flter", "CISepiaTone"], in: directory)
        XCTAssertEqual(option.status, 2)
        XCTAssertTrue(option.stderr.contains("--flter") && option.stderr.contains("--help"), option.stderr)
    }

    func testImagePlaygroundReadsAUserImage() throws {
        var photo = try PixelBuffer(width: 20, height: 10, format: .rgba8)
        for y in 0..<10 { for x in 0..<20 { photo[x, y] = SIMD4(Float(x) / 20, Float(y) / 10, 0.5, 1) } }
        try photo.write(toFile: path("photo.png"))
        let r = try ExampleProcess.run(
            "ImagePlayground", ["photo.png", "--out", "o", "--filter", "CIColorInvert"], in: directory)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(
            try PixelBuffer(contentsOfFile: path("o/01-CIColorInvert.png")),
            try RenderContext().makeBuffer(Image(photo).colorInverted(), format: .rgba8))
    }

    // MARK: PocketFilters

    func testPocketFiltersIsDeterministicAndStaysInTheSliderRanges() throws {
        let args = ["--size", "40x30", "--random", "4", "--seed", "5"]
        let a = try ExampleProcess.run("PocketFilters", args + ["--out", "a"], in: directory)
        let b = try ExampleProcess.run("PocketFilters", args + ["--out", "b"], in: directory)
        XCTAssertEqual(a.status, 0, a.stderr)
        XCTAssertEqual(b.status, 0, b.stderr)
        XCTAssertEqual(a.text.replacingOccurrences(of: "-> a/", with: "-> b/"), b.text, "the same seed gives the same choices")
        let files = try FileManager.default.contentsOfDirectory(atPath: path("a")).sorted()
        XCTAssertEqual(files, try FileManager.default.contentsOfDirectory(atPath: path("b")).sorted())
        XCTAssertGreaterThanOrEqual(files.count, 2)
        for f in files {
            XCTAssertEqual(
                try Data(contentsOf: URL(fileURLWithPath: path("a/" + f))),
                try Data(contentsOf: URL(fileURLWithPath: path("b/" + f))), f)
        }
        XCTAssertTrue(a.text.hasPrefix("seed 5: 4 filters on 40x30"), a.text)
        XCTAssertEqual(a.lines.filter { $0.range(of: #"^\d+\. CI"#, options: .regularExpression) != nil }.count, 4, a.text)

        // Every random number printed lies in the slider range printed beside it.
        var checked = 0
        for line in a.lines where line.contains("(random, ") && line.contains(", slider ") {
            let value = try XCTUnwrap(Double(line.split(separator: "=")[1].split(separator: " ")[0]), line)
            let range = try XCTUnwrap(line.split(separator: "slider ").last?.dropLast())  // "lo...hi"
            let bounds = range.components(separatedBy: "...").compactMap(Double.init)
            XCTAssertEqual(bounds.count, 2, line)
            XCTAssertTrue(value >= bounds[0] - 0.001 && value <= bounds[1] + 0.001, line)
            checked += 1
        }
        let other = try ExampleProcess.run(
            "PocketFilters", ["--size", "40x30", "--random", "4", "--seed", "6", "--out", "c"], in: directory)
        XCTAssertEqual(other.status, 0, other.stderr)
        XCTAssertNotEqual(
            other.text.replacingOccurrences(of: "-> c/", with: "-> a/").replacingOccurrences(of: "seed 6", with: "seed 5"), a.text
        )
        // Over two seeds, some numeric inputs were drawn.
        XCTAssertGreaterThan(checked + other.lines.filter { $0.contains("(random, ") }.count, 0)
    }

    func testPocketFiltersReportsARejectedFilterAndGoesOn() throws {
        let r = try ExampleProcess.run(
            "PocketFilters",
            [
                "--size", "24x16", "--out", "o", "--filter", "LanczosScaleTransform inputScale=0", "--filter", "CIColorInvert",
            ], in: directory)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(
            r.text.contains("! CILanczosScaleTransform rejected its parameters") && r.text.contains("inputScale"), r.text)
        XCTAssertTrue(r.text.contains("applied 1 of 2 filters; rejected: CILanczosScaleTransform"), r.text)
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("o/01-CILanczosScaleTransform.png")))
        // The chain went on from the original.
        let original = try PixelBuffer(contentsOfFile: path("o/00-original.png"))
        let inverted = try PixelBuffer(contentsOfFile: path("o/02-CIColorInvert.png"))
        XCTAssertLessThanOrEqual(
            maxLevelDifference(inverted, try RenderContext().makeBuffer(Image(original).colorInverted(), format: .rgba8)), 1)

        let unknown = try ExampleProcess.run("PocketFilters", ["--filter", "CINoSuchFilter"], in: directory)
        XCTAssertEqual(unknown.status, 2)
        XCTAssertTrue(unknown.stderr.contains("unknown filter 'CINoSuchFilter'"), unknown.stderr)
        let missing = try ExampleProcess.run("PocketFilters", ["missing.png", "--out", "m"], in: directory)
        XCTAssertEqual(missing.status, 1)
        XCTAssertTrue(missing.stderr.contains("missing.png: no such file"), missing.stderr)
    }

    // MARK: SpookCam

    func testFaceMarkersMarksTheAstronautsFace() throws {
        let r = try ExampleProcess.run("FaceMarkers", ["--out", "faces"], in: directory)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.text.contains("1 face in 200x200"), r.text)
        // The HOG detector's box: dlib's (50, 41) to (93, 84) (Fixtures/FaceHOG/hog_fixtures.json).
        XCTAssertTrue(r.text.contains("face 1: bounds x 50 y 41 w 44 h 44"), r.text)
        XCTAssertNotNil(
            r.lines.first { $0.contains("left eye (") && $0.contains("right eye (") && $0.contains("mouth (") }, r.text)
        let marked = try PixelBuffer(contentsOfFile: path("faces/faces.png"))
        XCTAssertEqual(marked.width, 200)
        // The red square's top edge crosses the face box's top side.
        let top = marked[72, 41]
        XCTAssertGreaterThan(top.x, 0.8, "red on the face square: \(top)")
        XCTAssertLessThan(top.y, 0.3, "red on the face square: \(top)")

        let bad = try ExampleProcess.run("FaceMarkers", ["missing.png"], in: directory)
        XCTAssertEqual(bad.status, 1)
        XCTAssertTrue(bad.stderr.contains("missing.png"), bad.stderr)
    }

    func testSpookCamThreeWaysAgreeAndOnlyTheGhostChangesThePhoto() throws {
        let r = try ExampleProcess.run("SpookCam", ["--size", "64x48", "--out", "spook"], in: directory)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.text.contains("ghost 16x20 at (32, 9)"), r.text)
        for way in ["pixels", "canvas", "filters"] {
            XCTAssertNotNil(r.lines.first { $0.hasPrefix(way) && $0.contains(" ms ") }, "\(way) is timed: \(r.text)")
        }
        XCTAssertTrue(r.text.contains("max difference pixels vs filters: "), r.text)
        XCTAssertTrue(r.text.contains("the three agree within the tolerance of 1/255"), r.text)

        let photo = try PixelBuffer(contentsOfFile: path("spook/00-photo.png"))
        let pixels = try PixelBuffer(contentsOfFile: path("spook/1-pixels.png"))
        let canvas = try PixelBuffer(contentsOfFile: path("spook/2-canvas.png"))
        let filters = try PixelBuffer(contentsOfFile: path("spook/3-filters.png"))
        XCTAssertLessThanOrEqual(maxLevelDifference(pixels, filters), 1)
        XCTAssertLessThanOrEqual(maxLevelDifference(pixels, canvas), 1)
        // The three side by side, 4 white pixels apart.
        let side = try PixelBuffer(contentsOfFile: path("spook/side-by-side.png"))
        XCTAssertEqual(side.width, 3 * 64 + 8)
        XCTAssertEqual(side.height, 48)
        for (x, y) in [(5, 5), (40, 11), (60, 40)] {
            XCTAssertEqual(side[x, y].x, pixels[x, y].x, accuracy: 0.5 / 255)
            XCTAssertEqual(side[68 + x, y].x, canvas[x, y].x, accuracy: 0.5 / 255)
            XCTAssertEqual(side[136 + x, y].x, filters[x, y].x, accuracy: 0.5 / 255)
        }
        XCTAssertEqual(side[65, 20].x, 1)
        // Gray, and equal to the photo's gray outside the ghost; lighter on the ghost's body.
        let gray = try RenderContext().makeBuffer(Image(photo).grayscale(), format: .rgba8)
        for (x, y) in [(5, 5), (60, 40), (31, 30)] {
            XCTAssertEqual(filters[x, y].x, filters[x, y].y)
            XCTAssertEqual(
                Double(filters[x, y].x), Double(gray[x, y].x), accuracy: 1.5 / 255, "(\(x), \(y)) is outside the ghost")
        }
        // The ghost's head, between the eyes and the top: 70% white at half opacity, atop the
        // opaque photo: 0.35 + 0.65 x the photo's luma, in linear light.
        let luma = Double(SRGB.toLinear(gray[40, 11].x))
        let expected = Double(SRGB.fromLinear(Float(0.35 + 0.65 * luma)))
        XCTAssertEqual(Double(filters[40, 11].x), expected, accuracy: 1.5 / 255)
        XCTAssertGreaterThan(filters[40, 11].x, gray[40, 11].x + 0.05)
    }

    // MARK: LiveDetection

    func testLiveDetectionReadsQRCodesFromAStreamAndOverlaysThem() throws {
        let y4m = TestY4M(width: 120, height: 96)
        var frames: [PixelBuffer] = []
        for i in 1...3 {
            let code = try Image.qrCode(message: "LIVE \(i)", scale: 2)
            let placed = try code.transformed(by: AffineTransform(translationX: Double(10 * i), y: 10))
            let scene = placed.composited(over: Image(color: Color(white: 0.85))).cropped(
                to: Rect(x: 0, y: 0, width: 120, height: 96))
            frames.append(try RenderContext().makeBuffer(scene, format: .rgba8))
        }
        let input = y4m.stream(frames, frameParameters: "Ip")
        let r = try ExampleProcess.run("LiveDetection", ["--detect", "qr"], in: directory, stdin: input)
        XCTAssertEqual(r.status, 0, r.stderr)
        for i in 1...3 { XCTAssertTrue(r.stderr.contains("frame \(i): qr \"LIVE \(i)\""), r.stderr) }
        XCTAssertTrue(r.stderr.contains("3 frames in ") && r.stderr.contains("frames per second; 3 QR codes found"), r.stderr)

        let (header, out) = try TestY4M.parse(r.stdout, frameBytes: y4m.frameBytes)
        XCTAssertEqual(header, y4m.header)
        XCTAssertEqual(out.count, 3)
        let (_, inFrames) = try TestY4M.parse(input, frameBytes: y4m.frameBytes)
        for (i, frame) in out.enumerated() {
            XCTAssertEqual(frame.line, "FRAME Ip", "frame parameters are kept")
            // Far from the code (bottom right) the luma survives the round trip through RGB.
            let far = 90 * 120 + 110
            XCTAssertLessThanOrEqual(abs(Int(frame.planes[far]) - Int(inFrames[i].planes[far])), 2)
            // The code (version 1, 2 px per module) spans x, y in 8...50 from its origin
            // (10 (i + 1), 10), after a quiet zone of 8 px. The quiet zone is outside the quad
            // and keeps its luma; the symbol's middle is under the translucent quad.
            let quiet = (10 + 3) * 120 + (10 * (i + 1) + 3)
            XCTAssertLessThanOrEqual(abs(Int(frame.planes[quiet]) - Int(inFrames[i].planes[quiet])), 2)
            let inside = (10 + 8 + 21) * 120 + (10 * (i + 1) + 8 + 21)  // the symbol's middle
            let changed = (0..<y4m.width * y4m.height).filter { frame.planes[$0] != inFrames[i].planes[$0] }.count
            XCTAssertGreaterThan(changed, 400, "the quad covers the symbol")
            XCTAssertNotEqual(frame.planes[inside], inFrames[i].planes[inside])
        }
    }

    func testLiveDetectionReadsMonoAndVideoRangeStreams() throws {
        let code = try Image.qrCode(message: "range", scale: 2)
        let frame = try RenderContext().makeBuffer(code, format: .rgba8)
        for chroma in ["mono", "420mpeg2", "420"] {
            let y4m = TestY4M(width: frame.width, height: frame.height, chroma: chroma)
            let r = try ExampleProcess.run("LiveDetection", [], in: directory, stdin: y4m.stream([frame]))
            XCTAssertEqual(r.status, 0, "\(chroma): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains("frame 1: qr \"range\""), "\(chroma): \(r.stderr)")
            let (header, out) = try TestY4M.parse(r.stdout, frameBytes: y4m.frameBytes)
            XCTAssertEqual(header, y4m.header)
            XCTAssertEqual(out.count, 1)
            // The white corner (outside the quad) keeps its luma in the stream's own range:
            // 255 in full range (mono), 235 in video range (C420, C420mpeg2).
            XCTAssertEqual(Int(out[0].planes[0]), chroma == "mono" ? 255 : 235, accuracy: 1, chroma)
        }
    }

    func testLiveDetectionFindsARectangleIn444Frames() throws {
        let y4m = TestY4M(width: 160, height: 120, chroma: "444")
        var canvas = Canvas(buffer: try PixelBuffer(width: 160, height: 120, format: .rgba8))
        canvas.clear(to: Color(red: 0.9, green: 0.9, blue: 0.85))
        // A card seen at a slight angle. (The detector finds tilted quads; a perfectly
        // axis-aligned rectangle with sharp edges is not reported by it today.)
        let card = [Point(x: 45, y: 28), Point(x: 122, y: 36), Point(x: 115, y: 92), Point(x: 38, y: 84)]
        canvas.fillPolygon(card, color: Color(red: 0.1, green: 0.1, blue: 0.2))
        let frame = canvas.buffer
        let r = try ExampleProcess.run(
            "LiveDetection", ["--detect", "rectangles"], in: directory, stdin: y4m.stream([frame, frame]))
        XCTAssertEqual(r.status, 0, r.stderr)
        let line = try XCTUnwrap(r.stderr.split(separator: "\n").first { $0.hasPrefix("frame 1: rectangle at") }, r.stderr)
        // The corners, each within 2.5 pixels of the drawn card's.
        let numbers = line.split(whereSeparator: { "(), ".contains($0) }).compactMap { Double($0) }
        XCTAssertEqual(numbers.count, 8, String(line))
        let want = card.flatMap { [$0.x, $0.y] }
        for (got, w) in zip(numbers, want) { XCTAssertEqual(got, w, accuracy: 2.5, String(line)) }
        XCTAssertTrue(r.stderr.contains("2 frames in "), r.stderr)
        let (header, out) = try TestY4M.parse(r.stdout, frameBytes: y4m.frameBytes)
        XCTAssertEqual(header, y4m.header)
        XCTAssertEqual(out.count, 2)
    }

    func testLiveDetectionRejectsMalformedStreams() throws {
        let cases: [(bytes: [UInt8], says: String)] = [
            (Array("hello world\n".utf8), "not a YUV4MPEG2 stream"),
            ([], "the input is empty"),
            (Array("YUV4MPEG2 H10 C420jpeg\n".utf8), "no valid width"),
            (Array("YUV4MPEG2 W8 H8 C420p10\n".utf8), "unsupported chroma layout C420p10"),
            (
                Array("YUV4MPEG2 W8 H8 C420jpeg\nFRAME\n".utf8) + [UInt8](repeating: 0, count: 50),
                "frame 1 is truncated: 50 of 96 bytes"
            ),
            (Array("YUV4MPEG2 W4 H4 C444\nFRAMX\n".utf8), "expected a 'FRAME' line"),
        ]
        for c in cases {
            let r = try ExampleProcess.run("LiveDetection", [], in: directory, stdin: c.bytes)
            XCTAssertEqual(r.status, 1, c.says)
            XCTAssertTrue(r.stderr.contains(c.says), "\(c.says): \(r.stderr)")
        }
        // No stream at all (standard input not a terminal, but empty, as in CI): say how to
        // run the demo instead.
        let empty = try ExampleProcess.run("LiveDetection", [], in: directory, stdin: [])
        XCTAssertTrue(empty.stderr.contains("swift run LiveDetection --demo"), empty.stderr)
        let bad = try ExampleProcess.run("LiveDetection", ["--detect", "faces"], in: directory, stdin: [])
        XCTAssertEqual(bad.status, 2)
        XCTAssertTrue(bad.stderr.contains("qr or rectangles"), bad.stderr)
    }

    func testLiveDetectionDemoWritesAStreamAndFrames() throws {
        let r = try ExampleProcess.run(
            "LiveDetection", ["--demo", "--frames", "2", "--size", "240x180", "--out", "live"], in: directory)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("frame 2: qr \"PixelFlow LiveDetection\""), r.stderr)
        let stream = Array(try Data(contentsOf: URL(fileURLWithPath: path("live/annotated.y4m"))))
        let (header, frames) = try TestY4M.parse(stream, frameBytes: TestY4M(width: 240, height: 180).frameBytes)
        XCTAssertTrue(header.hasPrefix("YUV4MPEG2 W240 H180 "), header)
        XCTAssertEqual(frames.count, 2)
        XCTAssertEqual(try PixelBuffer(contentsOfFile: path("live/frame-0002.png")).width, 240)
    }

    // MARK: Transitions

    func testTransitionsWritesNumberedFramesOfADissolve() throws {
        let r = try ExampleProcess.run(
            "Transitions",
            [
                "--size", "40x30", "--frames", "3", "--out", "t",
                "--filter", "CIDissolveTransition", "--filter", "SwipeTransition",
            ], in: directory)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.text.contains("CIDissolveTransition (Dissolve): 3 frames"), r.text)
        let f = try (0..<3).map { try PixelBuffer(contentsOfFile: path("t/DissolveTransition/frame-00\($0).png")) }
        XCTAssertEqual(f[0].width, 40)
        XCTAssertNotEqual(f[0], f[2])
        // A dissolve is a cross-fade in linear light: the middle frame is the mean of the ends.
        let linear = f.map { $0.converted(to: .rgbaF32, colorEncoding: .linear) }
        var worst: Float = 0
        for y in 0..<30 {
            for x in 0..<40 { worst = max(worst, abs(linear[1][x, y] - (linear[0][x, y] + linear[2][x, y]) / 2).max()) }
        }
        XCTAssertLessThan(worst, 0.01)
        for i in 0..<3 { XCTAssertTrue(FileManager.default.fileExists(atPath: path("t/SwipeTransition/frame-00\(i).png"))) }
    }

    func testTransitionsRendersEveryTransitionAndAStream() throws {
        let all = try ExampleProcess.run("Transitions", ["--size", "24x16", "--frames", "2", "--out", "all"], in: directory)
        XCTAssertEqual(all.status, 0, all.stderr)
        let names = FilterRegistry.filterNames(inCategories: [.transition])
        XCTAssertGreaterThanOrEqual(names.count, 2)
        for name in names {
            let folder = path("all/" + name.dropFirst(2))
            XCTAssertEqual(
                try FileManager.default.contentsOfDirectory(atPath: folder).sorted(), ["frame-000.png", "frame-001.png"], name)
        }

        let y4m = try ExampleProcess.run(
            "Transitions", ["--size", "24x16", "--frames", "2", "--y4m", "-", "--filter", "CIDissolveTransition"], in: directory)
        XCTAssertEqual(y4m.status, 0, y4m.stderr)
        let (header, frames) = try TestY4M.parse(y4m.stdout, frameBytes: TestY4M(width: 24, height: 16).frameBytes)
        XCTAssertEqual(header, "YUV4MPEG2 W24 H16 F25:1 Ip A1:1 C420jpeg XCOLORRANGE=FULL")
        XCTAssertEqual(frames.count, 2)
        XCTAssertTrue(y4m.stderr.contains("2 frames of 24x16 as YUV4MPEG2 -> standard output"), y4m.stderr)

        let bad = try ExampleProcess.run("Transitions", ["--filter", "CISepiaTone"], in: directory)
        XCTAssertEqual(bad.status, 2)
        XCTAssertTrue(bad.stderr.contains("is not a transition"), bad.stderr)
        let missing = try ExampleProcess.run("Transitions", ["a.png", "b.png"], in: directory)
        XCTAssertEqual(missing.status, 1)
        XCTAssertTrue(missing.stderr.contains("a.png: no such file"), missing.stderr)
    }

    private func path(_ name: String) -> String { directory.appendingPathComponent(name).path }
}
