import Foundation
import XCTest
@testable import PixelFlow
@testable import PixelFlowKernels
@testable import PixelFlowGraph
@testable import PixelFlowEngine

/// Streamed PNG sources and streamed PNG writes: the rows of a full decode for every layout
/// (`gray8`, `rgba8`, `rgba16`), and the bytes of rendering whole then encoding, whatever the
/// strip height and thread count, including the files that must keep alpha; interlaced files
/// fall back to a full decode or a full render; bad data throws from the render.
final class PNGStreamingTests: TemporaryDirectoryTestCase {
    private typealias S = CodecTestSupport

    private func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    private func bytes(_ path: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))) }

    private func save(_ bytes: [UInt8], _ name: String) throws -> String {
        let p = path(name)
        try Data(bytes).write(to: URL(fileURLWithPath: p))
        return p
    }

    /// A smooth image with noise (every row differs), in `format`; with `alpha`, alpha varies.
    private func makeBuffer(width: Int, height: Int, format: PixelFormat, alpha: Bool = false) -> PixelBuffer {
        var b = S.smooth(width: width, height: height)
        let noise = S.rgba8(width: width, height: height, alpha: true, seed: 11)
        b.withUnsafeMutableRows { y, row in
            let p = row.assumingMemoryBound(to: UInt8.self)
            noise.withUnsafeBytes { n in
                let q = (n.baseAddress! + y * noise.bytesPerRow).assumingMemoryBound(to: UInt8.self)
                for i in 0..<(4 * width) {
                    if i % 4 != 3 { p[i] = p[i] &+ (q[i] & 15) } else if alpha { p[i] = q[i] | 1 }
                }
            }
        }
        switch format {
        case .gray8: return b.converted(to: .gray8)
        case .rgba16:
            var w = b.converted(to: .rgba16)
            // Use the low bits too, so a 16-to-8 bit slip would show.
            w.withUnsafeMutableRows { y, row in
                let p = row.assumingMemoryBound(to: UInt16.self)
                for i in 0..<(4 * width) where i % 4 != 3 || alpha { p[i] ^= UInt16((i &* 7 &+ y) & 0xFF) }
            }
            return w
        default: return b
        }
    }

    private func makePNG(
        _ name: String, width: Int, height: Int, format: PixelFormat, alpha: Bool = false,
        interlaced: Bool = false
    ) throws -> String {
        let p = path(name)
        try makeBuffer(width: width, height: height, format: format, alpha: alpha)
            .write(toFile: p, format: .png, options: EncodeOptions(interlaced: interlaced))
        return p
    }

    /// Library-made files of odd sizes in every layout, and fixtures of the other color types
    /// and depths (1-bit gray, 16-bit gray, gray + alpha, gray with tRNS, 2-bit palette + tRNS).
    private func layoutFiles() throws -> [String] {
        [
            try makePNG("gray8.png", width: 123, height: 77, format: .gray8),
            try makePNG("rgb8.png", width: 97, height: 61, format: .rgba8),
            try makePNG("rgba8.png", width: 61, height: 97, format: .rgba8, alpha: true),
            try makePNG("rgb16.png", width: 45, height: 33, format: .rgba16),
            try makePNG("rgba16.png", width: 33, height: 45, format: .rgba16, alpha: true),
        ]
            + [
                "gray1.png", "gray16.png", "gray_alpha.png", "gray_trns.png", "palette_trns.png",
                "palette8_expected.png",
            ].map(S.fixture)
    }

    /// The vips-bench graph: crop 10 px per edge, clamp, scale by 0.9, clamp, sharpen, crop.
    private func vipsGraph(_ source: Image) throws -> (Image, Rect) {
        let e = source.extent
        let crop = Rect(x: 10, y: 10, width: e.width - 20, height: e.height - 20)
        let scale = AffineTransform(scaleX: 0.9, y: 0.9)
        let extent = scale.apply(to: crop).integral
        let shrunk = try source.cropped(to: crop).clampedToExtent().transformed(by: scale).cropped(to: extent)
        let sharpen = [-1.0, -1, -1, -1, 16, -1, -1, -1, -1].map { $0 / 8 }
        return (try shrunk.clampedToExtent().convolved3x3(weights: sharpen).cropped(to: extent), extent)
    }

    private func identity(_ image: Image) throws -> (Image, Rect) { (image, image.extent) }

    /// The reference: the graph over a fully decoded source, rendered whole, then encoded.
    private func reference(
        _ file: String, context: RenderContext, pixelFormat: PixelFormat = .rgba8,
        options: EncodeOptions = .default,
        graph: (Image) throws -> (Image, Rect)
    ) throws -> [UInt8] {
        let (image, rect) = try graph(try Image(contentsOfFile: file, streaming: false))
        return try context.makeBuffer(image, rect: rect, format: pixelFormat).encoded(as: .png, options: options)
    }

    private func isStreamed(_ image: Image) -> Bool {
        if case .streamedSource = image.node.op { return true }
        return false
    }

    /// The PNG color type of the file at `path` (2 RGB, 6 RGBA) and its bit depth.
    private func colorType(_ path: String) throws -> (type: UInt8, depth: UInt8) {
        let b = try bytes(path)
        return (b[25], b[24])
    }

    // MARK: Decoding

    func testRowsEqualTheFullDecodeForEveryLayout() throws {
        for file in try layoutFiles() {
            let data = try bytes(file)
            let full = try _PNGCodec.decodeStored(data, name: file, options: .default).buffer
            let source = try StreamedSource(png: data, name: file, options: .default)
            XCTAssertEqual(source.format, full.format, file)
            XCTAssertEqual(source.width, full.width, file)
            if source.isOpaque { XCTAssertTrue(_Codec.isOpaque(full), file) }
            try assertWindowRowsEqual(source, full, bands: [1, 5, 64, full.height], file)
        }
    }

    func testStreamedImagesRenderTheFullDecodesPixels() throws {
        for file in try layoutFiles() {
            let streamed = try Image(contentsOfFile: file, streaming: true)
            XCTAssertTrue(isStreamed(streamed), file)
            let full = try Image(contentsOfFile: file, streaming: false)
            XCTAssertEqual(streamed.extent, full.extent)
            for linear in [false, true] {
                let ctx = RenderContext(threadCount: 2, colorManagement: linear ? .linear : .none)
                let a = try ctx.makeBuffer(streamed, format: .rgbaF32)
                let b = try ctx.makeBuffer(full, format: .rgbaF32)
                XCTAssertEqual(maxDifference(a, b), 0, "\(file), linear \(linear)")
            }
        }
    }

    /// Each layout written back through the streaming encoder, unchanged: the bytes of
    /// re-encoding the full decode, at every thread count and strip height.
    func testStreamedCopyIsByteIdenticalForEveryLayoutThreadCountAndStripHeight() throws {
        for file in try layoutFiles() {
            let sixteen = try PixelBuffer(contentsOfFile: file).format == .rgba16
            let pixelFormat: PixelFormat = sixteen ? .rgba16 : .rgba8
            let expected = try reference(
                file, context: RenderContext(threadCount: 1, colorManagement: .none),
                pixelFormat: pixelFormat, graph: identity)
            for threads in [1, 2, 3] {
                for stripHeight in [1, 5, 64] {
                    var options = RenderContext.Options(
                        threadCount: threads, tileWidth: 32, tileHeight: 8,
                        colorManagement: .none)
                    options.stripHeight = stripHeight
                    let out = path("copy.png")
                    try RenderContext(options: options).write(
                        try Image(contentsOfFile: file, streaming: true),
                        toFile: out, pixelFormat: pixelFormat)
                    XCTAssertEqual(try bytes(out), expected, "\(file), \(threads) thread(s), strips of \(stripHeight)")
                }
            }
        }
    }

    func testInterlacedFilesAreDecodedFully() throws {
        let file = try makePNG("adam7.png", width: 50, height: 30, format: .rgba8, alpha: true, interlaced: true)
        let image = try Image(contentsOfFile: file, streaming: true)
        XCTAssertFalse(isStreamed(image))
        XCTAssertNil(try _ImageCodecs.streamedSource(try bytes(file), format: .png, name: file, options: .default))
        XCTAssertThrowsError(try _PNGRowDecoder(file: _PNGFileBytes(try bytes(file)), name: file, options: .default))
        let ctx = RenderContext(threadCount: 1, colorManagement: .none)
        XCTAssertEqual(
            maxDifference(
                try ctx.makeBuffer(image, format: .rgbaF32),
                try ctx.makeBuffer(Image(PixelBuffer(contentsOfFile: file)), format: .rgbaF32)), 0)
    }

    func testTransposingOrientationsAndGammaAreAppliedInTheStream() throws {
        let plain = try bytes(try makePNG("plain.png", width: 20, height: 10, format: .rgba8))
        // Orientation 6 in an eXIf chunk after IHDR (big-endian TIFF, one IFD entry).
        let exif: [UInt8] = [0x4D, 0x4D, 0, 0x2A, 0, 0, 0, 8, 0, 1, 0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, 6, 0, 0, 0, 0, 0, 0]
        let rotated = try save(
            Array(plain[..<33]) + CodecBadInputTests.chunk("eXIf", exif) + Array(plain[33...]),
            "rotated.png")
        let image = try Image(contentsOfFile: rotated, streaming: true)
        XCTAssertTrue(isStreamed(image))  // its columns spooled to a temporary file
        XCTAssertEqual(image.extent.width, 10)
        let ctx0 = RenderContext(threadCount: 2)
        XCTAssertEqual(
            maxDifference(
                try ctx0.makeBuffer(image, format: .rgbaF32),
                try ctx0.makeBuffer(
                    Image(contentsOfFile: rotated, streaming: false),
                    format: .rgbaF32)), 0)
        var keep = DecodeOptions.default
        keep.applyOrientation = false
        XCTAssertTrue(isStreamed(try Image(contentsOfFile: rotated, options: keep, streaming: true)))
        // A gamma of 1.0 (linear values) must be converted: no sRGB chunk in this file. The
        // stream converts it to the full decode's linear floats.
        let noSRGB = stripSRGB(plain)
        let gamma = try save(
            Array(noSRGB[..<33]) + CodecBadInputTests.chunk("gAMA", [0, 1, 0x86, 0xA0])
                + Array(noSRGB[33...]), "linear.png")
        let linear = try Image(contentsOfFile: gamma, streaming: true)
        guard case let .streamedSource(source) = linear.node.op else { return XCTFail("gAMA 1.0 streams") }
        XCTAssertEqual(source.format, .rgbaF32)
        let ctx = RenderContext(threadCount: 2)
        XCTAssertEqual(
            maxDifference(
                try ctx.makeBuffer(linear.sepiaTone(), format: .rgbaF32),
                try ctx.makeBuffer(
                    Image(contentsOfFile: gamma, streaming: false).sepiaTone(),
                    format: .rgbaF32)), 0)
        XCTAssertTrue(isStreamed(try Image(contentsOfFile: try save(noSRGB, "untagged.png"), streaming: true)))
    }

    /// `bytes` without its sRGB chunk.
    private func stripSRGB(_ bytes: [UInt8]) -> [UInt8] {
        var out = Array(bytes[..<8])
        var offset = 8
        while offset + 12 <= bytes.count {
            let length = bytes._be32(offset)
            let end = offset + 12 + length
            if !bytes[(offset + 4)..<(offset + 8)].elementsEqual("sRGB".utf8) { out += bytes[offset..<end] }
            offset = end
        }
        return out
    }

    // MARK: Writing

    func testStreamedWriteIsByteIdenticalToRenderingWholeThenEncoding() throws {
        let cases: [(String, PixelFormat, Bool, PixelFormat)] = [
            ("rgb8", .rgba8, false, .rgba8), ("rgba8", .rgba8, true, .rgba8), ("gray8", .gray8, false, .rgba8),
            ("rgb16-to-16", .rgba16, false, .rgba16), ("rgba16-to-16", .rgba16, true, .rgba16),
            ("rgba8-to-16", .rgba8, true, .rgba16),
        ]
        for (name, format, alpha, pixelFormat) in cases {
            let file = try makePNG("\(name).png", width: 131, height: 117, format: format, alpha: alpha)
            for management in [RenderContext.ColorManagement.none, .linear] {
                let expected = try reference(
                    file, context: RenderContext(threadCount: 1, colorManagement: management),
                    pixelFormat: pixelFormat, graph: vipsGraph)
                for threads in [1, 2, 3] {
                    for stripHeight in [1, 5, 64] {
                        var options = RenderContext.Options(
                            threadCount: threads, tileWidth: 48, tileHeight: 16,
                            colorManagement: management)
                        options.stripHeight = stripHeight
                        let ctx = RenderContext(options: options)
                        let out = path("out.png")
                        let (image, rect) = try vipsGraph(try Image(contentsOfFile: file, streaming: true))
                        try ctx.write(image, toFile: out, rect: rect, pixelFormat: pixelFormat)
                        XCTAssertEqual(
                            try bytes(out), expected,
                            "\(name), \(management), \(threads) thread(s), strips of \(stripHeight)")
                        // A fully decoded source written in strips gives the same bytes too.
                        let (full, _) = try vipsGraph(try Image(contentsOfFile: file, streaming: false))
                        try ctx.write(full, toFile: out, rect: rect, pixelFormat: pixelFormat)
                        XCTAssertEqual(try bytes(out), expected, "\(name), full source")
                    }
                }
                XCTAssertEqual(try colorType(path("out.png")).type, alpha ? 6 : 2, name)
            }
        }
    }

    /// Alpha first below the maximum in the last rows: the opaque attempt is abandoned there
    /// and the file written again with alpha, as the in-memory encoder chooses; an RGBA file
    /// whose alpha is all 255 is written as RGB.
    func testAlphaFoundLateRewritesWithAlphaAndOpaqueRGBAIsWrittenAsRGB() throws {
        var b = makeBuffer(width: 80, height: 90, format: .rgba8)
        b.withUnsafeMutableRows { y, row in
            if y == 88 { row.storeBytes(of: 7, toByteOffset: 4 * 41 + 3, as: UInt8.self) }
        }
        let late = path("late.png")
        try b.write(toFile: late, format: .png)
        // An RGBA file (alpha channel stored) with every alpha 255.
        let opaqueRGBA = try save(makeOpaqueRGBA(), "opaque-rgba.png")
        XCTAssertEqual(try colorType(opaqueRGBA).type, 6)
        for (file, expectedType) in [(late, UInt8(6)), (opaqueRGBA, 2)] {
            let source = try Image(contentsOfFile: file, streaming: true)
            for stripHeight in [1, 5, 64] {
                let options = RenderContext.Options(
                    threadCount: 2, tileWidth: 32, tileHeight: 8,
                    colorManagement: .none, stripHeight: stripHeight)
                let ctx = RenderContext(options: options)
                let fractions = _Fractions()
                let out = path("out.png")
                let sepia = try source.sepiaTone()
                try ctx.write(sepia, toFile: out, progress: { fractions.append($0) })
                XCTAssertEqual(try bytes(out), try ctx.makeBuffer(sepia).encoded(as: .png), "\(file), \(stripHeight)")
                XCTAssertEqual(try colorType(out).type, expectedType)
                let f = fractions.values
                XCTAssertEqual(f, f.sorted(), "progress goes back")
                XCTAssertEqual(f.last, 1)
                XCTAssertEqual(f.filter { $0 == 1 }.count, 1)
            }
        }
        try assertNoTemporaryFilesLeft()
    }

    /// An RGBA PNG whose alpha is 255 everywhere (PixelFlow itself would write it as RGB).
    /// Made by hand: 8-bit RGBA rows in a zlib stream of stored (uncompressed) blocks.
    private func makeOpaqueRGBA() -> [UInt8] {
        let width = 23, height = 19
        var raw: [UInt8] = []
        for y in 0..<height {
            raw.append(0)  // filter None
            for x in 0..<width { raw += [UInt8(x * 11 & 255), UInt8(y * 13 & 255), UInt8((x ^ y) & 255), 255] }
        }
        // zlib stream of stored blocks (at most 65535 bytes each) with its Adler-32.
        var z: [UInt8] = [0x78, 0x01]
        var offset = 0
        repeat {
            let n = Swift.min(65535, raw.count - offset)
            z.append(offset + n == raw.count ? 1 : 0)
            z += [UInt8(n & 255), UInt8(n >> 8), UInt8(~n & 255), UInt8((~n >> 8) & 255)]
            z += raw[offset..<(offset + n)]
            offset += n
        } while offset < raw.count
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in raw { a = (a + UInt32(byte)) % 65521; b = (b + a) % 65521 }
        z._appendBE32(Int(b << 16 | a))
        return CodecBadInputTests.pngHeader(width: width, height: height) + CodecBadInputTests.chunk("IDAT", z)
            + CodecBadInputTests.chunk("IEND", [])
    }

    func testEncoderOptionsAndMetadataAreWrittenAsInMemory() throws {
        let file = try makePNG("in.png", width: 70, height: 50, format: .rgba8)
        let xmp = Array("<x:xmpmeta xmlns:x=\"adobe:ns:meta/\"/>".utf8)
        let exif: [UInt8] = [0x4D, 0x4D, 0, 0x2A, 0, 0, 0, 8, 0, 1, 0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0]
        let variants: [EncodeOptions] = [
            EncodeOptions(compressionLevel: 0), EncodeOptions(compressionLevel: 9),
            EncodeOptions(colorProfile: .none),
            EncodeOptions(metadata: ImageMetadata(exif: exif, xmp: xmp), keptMetadata: [.exif, .xmp]),
        ]
        let ctx = RenderContext(options: RenderContext.Options(threadCount: 2, colorManagement: .none, stripHeight: 7))
        for options in variants {
            let (image, rect) = try vipsGraph(try Image(contentsOfFile: file, streaming: true))
            let out = path("out.png")
            try ctx.write(image, toFile: out, rect: rect, encodeOptions: options)
            let expected = try reference(file, context: ctx, options: options, graph: vipsGraph)
            XCTAssertEqual(try bytes(out), expected, "\(options)")
        }
        // A Display P3 output profile goes through the iCCP chunk.
        var p3 = RenderContext.Options(threadCount: 2, colorManagement: .linear, stripHeight: 7)
        p3.outputColorSpace = .displayP3
        let p3ctx = RenderContext(options: p3)
        let out = path("p3.png")
        try p3ctx.write(try Image(contentsOfFile: file, streaming: true), toFile: out)
        XCTAssertEqual(try bytes(out), try p3ctx.encoded(try Image(contentsOfFile: file), as: .png))
    }

    /// The encoder alone, fed rows in uneven batches: the bytes of `_PNGCodec.encode`.
    func testRowEncoderWritesTheBytesOfTheInMemoryEncoder() throws {
        let metadata = _EmbeddedMetadata(iccProfile: ColorSpace.sRGB.iccProfile)
        for (format, alpha) in [
            (PixelFormat.rgba8, false), (.rgba8, true), (.rgba16, false), (.rgba16, true),
            (.gray8, false),
        ] {
            let buffer = makeBuffer(width: 57, height: 43, format: format, alpha: alpha)
            let expected = try _PNGCodec.encode(buffer, name: "x", options: .default, metadata: metadata)
            for assumingOpaque in [true, false] {
                let out = path("rows.png")
                let fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
                XCTAssertGreaterThanOrEqual(fd, 0)
                defer { close(fd) }
                let encoder = try _PNGRowEncoder(
                    fileDescriptor: fd, width: 57, height: 43, format: format,
                    assumingOpaque: assumingOpaque, options: .default, name: out,
                    metadata: metadata)
                var y = 0, batch = 1
                do {
                    try buffer.withUnsafeBytes { raw in
                        while y < 43 {
                            let n = Swift.min(batch, 43 - y)
                            try encoder.write(
                                rows: raw.baseAddress! + y * buffer.bytesPerRow,
                                bytesPerRow: buffer.bytesPerRow, count: n)
                            y += n
                            batch += 3
                        }
                    }
                    try encoder.finish()
                } catch is _RowEncoderAlphaFound {
                    XCTAssertTrue(assumingOpaque && alpha, "\(format)")
                    XCTAssertEqual(y, 0, "the first row has alpha")
                    continue
                }
                let written = try bytes(out)
                if assumingOpaque || !format.hasAlpha || alpha {
                    XCTAssertEqual(written, expected, "\(format), alpha \(alpha), assuming opaque \(assumingOpaque)")
                } else {
                    // Opaque rows kept as RGBA: what the in-memory encoder never writes.
                    XCTAssertEqual(written[25], 6)
                    XCTAssertEqual(try PixelBuffer(encoded: written).encoded(as: .png), expected)
                }
            }
        }
    }

    func testInterlacedOutputIsRenderedWholeWithTheSameBytes() throws {
        XCTAssertFalse(_ImageCodecs.hasRowEncoder(for: .png, pixelFormat: .rgba8, options: EncodeOptions(interlaced: true)))
        XCTAssertTrue(_ImageCodecs.hasRowEncoder(for: .png, pixelFormat: .rgba16, options: .default))
        XCTAssertFalse(_ImageCodecs.hasRowEncoder(for: .png, pixelFormat: .rgbaF32, options: .default))
        let file = try makePNG("in.png", width: 40, height: 30, format: .rgba8, alpha: true)
        let ctx = RenderContext(options: RenderContext.Options(threadCount: 2, colorManagement: .none, stripHeight: 4))
        let options = EncodeOptions(interlaced: true)
        let out = path("out.png")
        try ctx.write(try Image(contentsOfFile: file, streaming: true), toFile: out, encodeOptions: options)
        XCTAssertEqual(try bytes(out), try reference(file, context: ctx, options: options, graph: identity))
    }

    func testGraphsNeedingRandomAccessStillRenderCorrectly() throws {
        let file = try makePNG("in.png", width: 90, height: 140, format: .rgba8, alpha: true)
        let ctx = RenderContext(
            options: RenderContext.Options(
                threadCount: 2, tileWidth: 32, tileHeight: 16,
                colorManagement: .none, stripHeight: 16))
        for (name, graph) in StreamingGraphs.randomAccess {
            let expected = try reference(file, context: ctx, graph: graph)
            let (image, rect) = try graph(try Image(contentsOfFile: file, streaming: true))
            let out = path("out.png")
            try ctx.write(image, toFile: out, rect: rect)
            XCTAssertEqual(try bytes(out), expected, name)
        }
    }

    func testExplainIsUnaffected() throws {
        let file = try makePNG("in.png", width: 64, height: 48, format: .rgba8)
        let ctx = RenderContext(threadCount: 2, colorManagement: .none)
        let (streamed, rect) = try vipsGraph(try Image(contentsOfFile: file, streaming: true))
        let (full, _) = try vipsGraph(try Image(contentsOfFile: file, streaming: false))
        let a = try ctx.explain(streamed, rect: rect), b = try ctx.explain(full, rect: rect)
        XCTAssertTrue(a.contains("streamed PNG"), a)
        // Only the source's line differs, and a last line says how the source is read.
        var la = a.split(separator: "\n")
        var lb = b.split(separator: "\n")
        // The graph runs the chained byte form in strips: that line also says how the rows are
        // read (in place for the streamed source).
        if la.last?.hasPrefix("byte path: a strip write") == true, lb.last?.hasPrefix("byte path: a strip write") == true {
            XCTAssertTrue(la.last!.hasSuffix("reading the streamed rows in place"), a)
            la.removeLast()
            lb.removeLast()
        }
        XCTAssertTrue(la.last?.hasPrefix("streamed source ") == true, a)
        XCTAssertTrue(lb.last?.hasSuffix("decoded whole when opened (streaming: false)") == true, b)
        la.removeLast()
        lb.removeLast()
        XCTAssertEqual(la.count, lb.count, "\(a)\n---\n\(b)")
        XCTAssertEqual(zip(la, lb).filter { $0 != $1 }.count, 1, "\(a)\n---\n\(b)")
    }

    // MARK: Errors

    func testTruncatedPNGThrowsMidStreamAndLeavesNoFile() throws {
        let file = try makePNG("in.png", width: 160, height: 300, format: .rgba8)
        let whole = try bytes(file)
        let cut = try save(Array(whole.prefix(whole.count * 6 / 10)), "cut.png")
        let image = try Image(contentsOfFile: cut, streaming: true)
        XCTAssertTrue(isStreamed(image))
        assertStreamedRenderFails(image, writingTo: path("out.png"), stripHeight: 16, "cut.png")
        try assertNoTemporaryFilesLeft()
    }

    func testCorruptImageDataThrowsMidStream() throws {
        let file = try makePNG("in.png", width: 160, height: 200, format: .rgba8)
        for flip in [0.5, 0.9] {
            var data = try bytes(file)
            data[Int(Double(data.count) * flip)] ^= 0x5A  // breaks the IDAT's CRC or its zlib data
            let bad = try save(data, "bad.png")
            let image = try Image(contentsOfFile: bad, streaming: true)
            let out = path("out.png")
            XCTAssertThrowsError(try RenderContext(threadCount: 2, colorManagement: .none).write(image, toFile: out))
            XCTAssertFalse(FileManager.default.fileExists(atPath: out))
        }
    }

    func testLimitsAreCheckedBeforeDecoding() throws {
        let file = try makePNG("in.png", width: 100, height: 100, format: .rgba8)
        XCTAssertThrowsError(
            try Image(
                contentsOfFile: file, options: DecodeOptions(maximumPixelCount: 9_999),
                streaming: true)
        ) { error in
            guard case PixelFlowError.limitExceeded = error else { return XCTFail("\(error)") }
        }
        let lie = CodecBadInputTests.pngHeader(width: 100_000, height: 100_000) + Array(repeating: 0, count: 100)
        XCTAssertThrowsError(try Image(encoded: lie, name: "lie.png", streaming: true)) { error in
            guard case PixelFlowError.limitExceeded = error else { return XCTFail("\(error)") }
        }
    }

    func testBadCompressionLevelFailsBeforeTouchingTheFile() throws {
        let file = try makePNG("in.png", width: 20, height: 20, format: .rgba8)
        let out = path("out.png")
        XCTAssertThrowsError(
            try RenderContext(threadCount: 1).write(
                try Image(contentsOfFile: file, streaming: true),
                toFile: out,
                encodeOptions: EncodeOptions(compressionLevel: 10)))
        XCTAssertFalse(FileManager.default.fileExists(atPath: out))
    }
}

/// Progress fractions collected from the render's threads.
private final class _Fractions: @unchecked Sendable {
    private let lock = NSLock()
    private var list: [Double] = []
    func append(_ f: Double) { lock.lock(); list.append(f); lock.unlock() }
    var values: [Double] { lock.lock(); defer { lock.unlock() }; return list }
}
