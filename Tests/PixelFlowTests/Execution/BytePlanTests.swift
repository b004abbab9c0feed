import XCTest
@testable import PixelFlow
@testable import PixelFlowKernels
@testable import PixelFlowGraph
@testable import PixelFlowEngine

/// The byte path (`BytePlan`) gives exactly the float path's bytes, for every schedule, and is
/// refused where it would not.
final class BytePlanTests: XCTestCase {
    /// An 8-bit buffer of random bytes (alpha 255 when `opaque`).
    func bytes(
        _ width: Int, _ height: Int, format: PixelFormat = .rgba8, alpha: AlphaMode = .premultiplied,
        opaque: Bool = false, seed: UInt64 = 1
    ) -> PixelBuffer {
        var b = try! PixelBuffer(width: width, height: height, format: format, alphaMode: alpha)
        var rng = SeededRandom(seed: seed)
        let bpp = format.bytesPerPixel, bytesPerRow = b.bytesPerRow
        b.withUnsafeMutableBytes { raw in
            for y in 0..<height {
                for x in 0..<width * bpp {
                    var v = UInt8(truncatingIfNeeded: rng.next() >> 20)
                    if opaque && bpp == 4 && x % 4 == 3 { v = 255 }
                    raw[y * bytesPerRow + x] = v
                }
            }
        }
        return b
    }

    /// The filters with a byte kernel, at several sizes.
    func filters(_ img: Image) throws -> [(String, Image)] {
        var out: [(String, Image)] = []
        for r in [1.0, 2.5, 4] {
            out.append(("max r\(r)", try img.morphologyMaximum(radius: r)))
            out.append(("min r\(r)", try img.morphologyMinimum(radius: r)))
        }
        for (w, h) in [(5.0, 5.0), (3, 8), (1, 9), (17, 4), (21, 33), (99, 71)] {
            out.append(("rect max \(w)x\(h)", try img.morphologyRectangleMaximum(width: w, height: h)))
            out.append(("rect min \(w)x\(h)", try img.morphologyRectangleMinimum(width: w, height: h)))
        }
        out.append(("CIMedianFilter", try img.medianFiltered()))
        for r in [2, 3, 5] { out.append(("median r\(r)", try img.median(radius: r))) }
        return out
    }

    func render(_ image: Image, _ rect: Rect, like dest: PixelBuffer, _ options: RenderContext.Options) throws -> PixelBuffer {
        var out = try PixelBuffer(
            width: dest.width, height: dest.height, format: dest.format,
            colorEncoding: dest.colorEncoding, alphaMode: dest.alphaMode)
        try RenderContext(options: options).render(image, rect: rect, to: &out)
        return out
    }

    /// Renders `image` over `rect` into buffers like `dest` by the float path and by the byte
    /// path with several schedules; asserts they are equal and whether the byte path ran.
    func compare(
        _ name: String, _ image: Image, rect: Rect, dest: PixelBuffer, colorManagement: RenderContext.ColorManagement,
        expectBytePath: Bool, file: StaticString = #filePath, line: UInt = #line
    ) throws {
        var floatOptions = RenderContext.Options(threadCount: 1, colorManagement: colorManagement)
        floatOptions.usesBytePath = false
        let expected = try render(image, rect, like: dest, floatOptions)
        for threads in [1, 2, 3] {
            for (tw, th) in [(256, 64), (37, 13), (7, 5)] {
                let options = RenderContext.Options(
                    threadCount: threads, tileWidth: tw, tileHeight: th, colorManagement: colorManagement)
                let explained = try RenderContext(options: options).explain(image, rect: rect, into: dest)
                let line0 = explained.split(separator: "\n").last.map(String.init) ?? ""
                XCTAssertEqual(line0.hasPrefix("byte path: on"), expectBytePath, "\(name): \(line0)", file: file, line: line)
                let out = try render(image, rect, like: dest, options)
                XCTAssertTrue(
                    out == expected,
                    "\(name): \(colorManagement), threads \(threads), tiles \(tw)x\(th) differ from the float path",
                    file: file, line: line)
            }
        }
    }

    func testPremultipliedRGBA8MatchesFloatPathClampedAndUnclamped() throws {
        let src = bytes(45, 37, seed: 3)
        let dest = try PixelBuffer(width: 45, height: 37, format: .rgba8, alphaMode: .premultiplied)
        for cm in [RenderContext.ColorManagement.none, .linear] {
            for (name, image) in try filters(Image(src).clampedToExtent()) {
                // Median radius 3 and up quantizes linear values: the float path differs from bytes.
                let histogram = name == "median r3" || name == "median r5"
                try compare(
                    "clamped " + name, image.cropped(to: src.bounds), rect: src.bounds, dest: dest,
                    colorManagement: cm, expectBytePath: cm == .none || !histogram)
            }
            // Transparent outside: render a rect reaching past the source on every side.
            let rect = Rect(x: -6, y: -4, width: 57, height: 45)
            let bigDest = try PixelBuffer(width: 57, height: 45, format: .rgba8, alphaMode: .premultiplied)
            for (name, image) in try filters(Image(src)) {
                let histogram = name == "median r3" || name == "median r5"
                try compare(
                    "unclamped " + name, image, rect: rect, dest: bigDest, colorManagement: cm,
                    expectBytePath: cm == .none || !histogram)
            }
        }
    }

    /// Rectangle extrema on images wider than their tiles (at least 2 KiB of row,
    /// `BytePlan.tileSize`): interior tiles read the source in place, border tiles through
    /// column runs; clamped and transparent edges, both pixel formats.
    func testWideRectangleExtremaMatchTheFloatPath() throws {
        for (format, width) in [(PixelFormat.rgba8, 1100), (.gray8, 4400)] {
            let src = bytes(width, 19, format: format, seed: 9)
            let dest = try PixelBuffer(width: width, height: 19, format: format, alphaMode: .premultiplied)
            for (w, h) in [(5.0, 5.0), (3, 7)] {
                let clamped = try Image(src).clampedToExtent().morphologyRectangleMaximum(width: w, height: h)
                    .cropped(to: src.bounds)
                try compare(
                    "wide \(format) clamped max \(w)x\(h)", clamped, rect: src.bounds, dest: dest, colorManagement: .none,
                    expectBytePath: true)
                let rect = Rect(x: -3, y: -2, width: Double(width + 6), height: 23)
                let bigDest = try PixelBuffer(width: width + 6, height: 23, format: format, alphaMode: .premultiplied)
                try compare(
                    "wide \(format) min \(w)x\(h)", try Image(src).morphologyRectangleMinimum(width: w, height: h), rect: rect,
                    dest: bigDest, colorManagement: .none, expectBytePath: true)
            }
        }
    }

    func testCropsAroundAndInsideAreFollowed() throws {
        let src = bytes(40, 30, seed: 4)
        let dest = try PixelBuffer(width: 40, height: 30, format: .rgba8, alphaMode: .premultiplied)
        let inner = Image(src).cropped(to: Rect(x: 3.5, y: 2, width: 30, height: 20.2))
        let images: [(String, Image)] = [
            (
                "crop, clamp, dilate, crop",
                try inner.clampedToExtent().morphologyRectangleMaximum(width: 7, height: 3)
                    .cropped(to: Rect(x: 1, y: 4, width: 33, height: 19))
            ),
            ("crop, median", try inner.median(radius: 2)),
            (
                "clamp, crop, erode",
                try Image(src).clampedToExtent().cropped(to: Rect(x: -5, y: -5, width: 30, height: 50))
                    .morphologyMinimum(radius: 3)
            ),
        ]
        for (name, image) in images {
            try compare(name, image, rect: src.bounds, dest: dest, colorManagement: .none, expectBytePath: true)
        }
    }

    func testStraightAlphaTakesBytePathOnlyWhenOpaque() throws {
        let opaque = bytes(41, 29, alpha: .straight, opaque: true, seed: 5)
        let translucent = bytes(41, 29, alpha: .straight, seed: 6)
        let straightDest = try PixelBuffer(width: 41, height: 29, format: .rgba8, alphaMode: .straight)
        let pmDest = try PixelBuffer(width: 41, height: 29, format: .rgba8, alphaMode: .premultiplied)
        let rect = Rect(x: -3, y: -3, width: 41, height: 29)  // reaches past the top-left: transparent pixels enter
        for cm in [RenderContext.ColorManagement.none, .linear] {
            for (name, image) in try filters(Image(opaque)) where !name.hasPrefix("median r3") && !name.hasPrefix("median r5") {
                try compare(
                    "opaque straight " + name, image, rect: rect, dest: straightDest, colorManagement: cm, expectBytePath: true)
            }
            for dest in [straightDest, pmDest] {
                try compare(
                    "opaque straight dilate into \(dest.alphaMode)", try Image(opaque).morphologyMaximum(radius: 2),
                    rect: rect, dest: dest, colorManagement: cm, expectBytePath: true)
                try compare(
                    "translucent straight median into \(dest.alphaMode)", try Image(translucent).median(radius: 2),
                    rect: rect, dest: dest, colorManagement: cm, expectBytePath: false)
            }
            // Premultiplied source into a straight buffer: unpremultiplying changes values.
            try compare(
                "premultiplied into straight", try Image(bytes(41, 29, alpha: .premultiplied, seed: 6)).median(radius: 1),
                rect: rect, dest: straightDest, colorManagement: cm, expectBytePath: false)
        }
    }

    func testGray8() throws {
        let src = bytes(43, 31, format: .gray8, seed: 7)
        let dest = try PixelBuffer(width: 43, height: 31, format: .gray8)
        for cm in [RenderContext.ColorManagement.none, .linear] {
            for (name, image) in try filters(Image(src).clampedToExtent()) {
                let histogram = name == "median r3" || name == "median r5"
                try compare(
                    "gray " + name, image.cropped(to: src.bounds), rect: src.bounds, dest: dest, colorManagement: cm,
                    expectBytePath: cm == .none || !histogram)
            }
        }
    }

    func testFallsBackWhereTheFloatPathDiffers() throws {
        let src = bytes(30, 20, seed: 8)
        let image = try Image(src).morphologyMaximum(radius: 2)
        let explain = { (options: RenderContext.Options, dest: PixelBuffer, img: Image) throws -> String in
            String(try RenderContext(options: options).explain(img, rect: src.bounds, into: dest).split(separator: "\n").last!)
        }
        let pm = try PixelBuffer(width: 30, height: 20, format: .rgba8, alphaMode: .premultiplied)
        var off = RenderContext.Options(colorManagement: .none); off.usesBytePath = false
        XCTAssertTrue(try explain(off, pm, image).hasPrefix("byte path: off: off in the context's options"))
        var naive = RenderContext.Options(colorManagement: .none); naive.optimizes = false
        XCTAssertTrue(try explain(naive, pm, image).hasPrefix("byte path: off: optimization is off"))
        let none = RenderContext.Options(colorManagement: .none)
        let f32 = try PixelBuffer(width: 30, height: 20, format: .rgbaF32)
        XCTAssertTrue(try explain(none, f32, image).hasPrefix("byte path: off: the destination is rgbaF32"))
        let gray = try PixelBuffer(width: 30, height: 20, format: .gray8)
        XCTAssertTrue(try explain(none, gray, image).hasPrefix("byte path: off"))
        // A color filter between the source and the stencil.
        let inverted = try Image(src).colorInverted().morphologyMaximum(radius: 2)
        XCTAssertTrue(try explain(none, pm, inverted).hasPrefix("byte path: off: the stencil's input is not"))
        // Gradient (max minus min) is not an order statistic.
        XCTAssertTrue(
            try explain(none, pm, try Image(src).morphologyGradient(radius: 2)).hasPrefix("byte path: off: the output is not"))
        // A mismatched encoding (sRGB source, linear-tagged destination) does not round-trip.
        let linearDest = try PixelBuffer(width: 30, height: 20, format: .rgba8, colorEncoding: .linear, alphaMode: .premultiplied)
        XCTAssertTrue(try explain(RenderContext.Options(), linearDest, image).hasPrefix("byte path: off: decoding and encoding"))
        try compare(
            "sRGB into linear-tagged", image, rect: src.bounds, dest: linearDest, colorManagement: .linear, expectBytePath: false)
        // Without a destination, explain() says the shape fits.
        XCTAssertTrue(try RenderContext().explain(image).contains("byte path: possible"))
    }

    func testRoundTripTables() {
        for format in [PixelFormat.rgba8, .gray8] {
            for linear in [false, true] {
                let key = ByteRoundTrip.Key(format: format, decode: linear, encode: linear)
                XCTAssertTrue(ByteRoundTrip.isExact(key), "\(key)")
                XCTAssertEqual(ByteRoundTrip.quantizesExactly(key), !linear, "\(key)")
            }
            XCTAssertFalse(ByteRoundTrip.isExact(.init(format: format, decode: true, encode: false)))
        }
    }
}
