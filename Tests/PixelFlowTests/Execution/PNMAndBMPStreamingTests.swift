import Foundation
import XCTest
@testable import PixelFlow
@testable import PixelFlowKernels
@testable import PixelFlowGraph
@testable import PixelFlowEngine

/// Streamed PNM and BMP sources (`_PNMRowDecoder`, `_BMPRowDecoder`) and streamed PNM and BMP
/// writes (`_PNMRowEncoder`, `_BMPRowEncoder`): the same pixels as a full decode for every
/// layout read, the same bytes as encoding the whole buffer (including the P6/P7 and 24/32-bit
/// choice made from every alpha), whatever the strip height and thread count; bad files
/// throw.
final class PNMAndBMPStreamingTests: TemporaryDirectoryTestCase {
    private typealias S = CodecTestSupport

    private func bytes(_ path: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))) }

    /// Fails with the sizes and the first differing byte (not the whole files) when `a != b`.
    private func assertSameBytes(
        _ a: [UInt8], _ b: [UInt8], _ message: @autoclosure () -> String,
        file: StaticString = #filePath, line: UInt = #line
    ) {
        guard a != b else { return }
        let first = zip(a, b).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? Swift.min(a.count, b.count)
        XCTFail("\(message()): \(a.count) bytes vs \(b.count), first difference at byte \(first)", file: file, line: line)
    }

    private func save(_ bytes: [UInt8], _ name: String) throws -> String {
        let path = directory.appendingPathComponent(name).path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    // MARK: Test files

    /// An ASCII PNM (P1, P2 or P3) of `width` x `height` with samples `sample(x, y, c)`, with
    /// comments and irregular whitespace between samples.
    private func asciiPNM(
        kind: Int, width: Int, height: Int, maxval: Int,
        sample: (Int, Int, Int) -> Int
    ) -> [UInt8] {
        let depth = kind == 3 ? 3 : 1
        var text = "P\(kind)\n# made by the streaming tests\n\(width) \(height)\n" + (kind == 1 ? "" : "\(maxval)\n")
        for y in 0..<height {
            for x in 0..<width {
                for c in 0..<depth { text += "\(sample(x, y, c))" + (x % 3 == 2 ? "  " : " ") }
            }
            text += y % 4 == 1 ? "# row \(y)\n" : "\n"
        }
        return Array(text.utf8)
    }

    /// A binary PNM or PAM with a hand-written header and samples `sample(x, y, c)`.
    private func binaryPNM(
        header: String, width: Int, height: Int, depth: Int, wide: Bool,
        sample: (Int, Int, Int) -> Int
    ) -> [UInt8] {
        var out = Array(header.utf8)
        for y in 0..<height {
            for x in 0..<width {
                for c in 0..<depth {
                    let v = sample(x, y, c)
                    if wide { out.append(UInt8(v >> 8)) }
                    out.append(UInt8(v & 0xFF))
                }
            }
        }
        return out
    }

    /// A P4 bitmap with pixel (x, y) black where `black(x, y)`.
    private func p4(width: Int, height: Int, black: (Int, Int) -> Bool) -> [UInt8] {
        var out = Array("P4\n\(width) \(height)\n".utf8)
        for y in 0..<height {
            var row = [UInt8](repeating: 0, count: (width + 7) / 8)
            for x in 0..<width where black(x, y) { row[x / 8] |= 0x80 >> UInt8(x % 8) }
            out += row
        }
        return out
    }

    /// A BMP with a 40-byte header whose stored rows are `row(y)` (the file's order), padded
    /// to 4 bytes; `height` negative for top-down.
    private func bmp(
        width: Int, height: Int, bitCount: Int, palette: [UInt8] = [], colorsUsed: Int = 0,
        row: (Int) -> [UInt8]
    ) -> [UInt8] {
        let stride = (width * bitCount + 31) / 32 * 4
        var pixels: [UInt8] = []
        for y in 0..<abs(height) {
            let r = row(y)
            pixels += r + [UInt8](repeating: 0, count: stride - r.count)
        }
        return CodecPNMAndBMPTests.bmp(
            width: width, height: height, bitCount: bitCount, extra: palette,
            pixels: pixels, colorsUsed: colorsUsed)
    }

    private static func v(_ x: Int, _ y: Int, _ c: Int, _ m: Int) -> Int { (x * 37 + y * 101 + c * 59 + x * y) % (m + 1) }

    /// Every layout the row decoders read, at odd sizes, named.
    private func layouts() throws -> [(String, [UInt8])] {
        let w = 37, h = 29, v = Self.v
        let rgba = S.rgba8(width: w, height: h, alpha: true, seed: 5)
        let opaque = S.rgba8(width: w, height: h, alpha: false, seed: 6)
        var files: [(String, [UInt8])] = []
        files.append(("P1", asciiPNM(kind: 1, width: w, height: h, maxval: 1) { x, y, _ in (x + y) % 3 == 0 ? 1 : 0 }))
        files.append(("P2", asciiPNM(kind: 2, width: w, height: h, maxval: 255) { x, y, c in v(x, y, c, 255) }))
        files.append(
            (
                "P2 maxval 1000, samples above it",
                asciiPNM(kind: 2, width: w, height: h, maxval: 1000) { x, y, c in
                    v(x, y, c, 1100)
                }
            ))
        files.append(("P2 maxval 7", asciiPNM(kind: 2, width: w, height: h, maxval: 7) { x, y, c in v(x, y, c, 7) }))
        files.append(("P3", asciiPNM(kind: 3, width: w, height: h, maxval: 255) { x, y, c in v(x, y, c, 255) }))
        files.append(
            (
                "P3 maxval 65535",
                asciiPNM(kind: 3, width: w, height: h, maxval: 65535) { x, y, c in
                    v(x, y, c, 65535) * 7 % 65536
                }
            ))
        files.append(("P4", p4(width: w, height: h) { x, y in (x * y + x) % 5 < 2 }))
        files.append(("P5", try S.gray8(width: w, height: h).encoded(as: .pnm)))
        files.append(
            (
                "P5 maxval 200",
                binaryPNM(header: "P5 \(w) \(h) 200\n", width: w, height: h, depth: 1, wide: false) {
                    x, y, c in v(x, y, c, 255)
                }
            ))
        files.append(
            (
                "P5 16-bit",
                binaryPNM(header: "P5\n\(w) \(h)\n65535\n", width: w, height: h, depth: 1, wide: true) {
                    x, y, c in v(x, y, c, 65535) * 13 % 65536
                }
            ))
        files.append(
            (
                "P5 maxval 1023",
                binaryPNM(header: "P5 \(w) \(h) 1023\n", width: w, height: h, depth: 1, wide: true) {
                    x, y, c in v(x, y, c, 1023)
                }
            ))
        files.append(("P6", try opaque.encoded(as: .pnm)))
        files.append(("P6 16-bit", try S.rgba16(width: w, height: h, alpha: false).encoded(as: .pnm)))
        files.append(("P7 RGB_ALPHA", try rgba.encoded(as: .pnm)))
        files.append(("P7 RGB_ALPHA 16-bit", try S.rgba16(width: w, height: h, alpha: true).encoded(as: .pnm)))
        files.append(
            (
                "P7 GRAYSCALE_ALPHA",
                binaryPNM(
                    header: "P7\nWIDTH \(w)\nHEIGHT \(h)\nDEPTH 2\nMAXVAL 255\nTUPLTYPE GRAYSCALE_ALPHA\nENDHDR\n",
                    width: w, height: h, depth: 2, wide: false
                ) { x, y, c in v(x, y, c, 255) }
            ))
        files.append(
            (
                "P7 GRAYSCALE",
                binaryPNM(
                    header: "P7\nWIDTH \(w)\nHEIGHT \(h)\nDEPTH 1\nMAXVAL 255\nTUPLTYPE GRAYSCALE\nENDHDR\n",
                    width: w, height: h, depth: 1, wide: false
                ) { x, y, c in v(x, y, c, 255) }
            ))
        files.append(("BMP 24-bit bottom-up", try opaque.encoded(as: .bmp)))
        files.append(
            (
                "BMP 24-bit top-down",
                bmp(width: w, height: -h, bitCount: 24) { y in
                    (0..<(3 * w)).map { UInt8(v($0, y, 0, 255)) }
                }
            ))
        files.append(("BMP 32-bit BITFIELDS with alpha", try rgba.encoded(as: .bmp)))
        files.append(
            (
                "BMP 32-bit BI_RGB with alpha",
                bmp(width: w, height: h, bitCount: 32) { y in
                    (0..<(4 * w)).map { UInt8(v($0, y, 1, 255)) }
                }
            ))
        files.append(
            (
                "BMP 32-bit BI_RGB, fourth bytes 0",
                bmp(width: w, height: -h, bitCount: 32) { y in
                    (0..<(4 * w)).map { (i: Int) -> UInt8 in i % 4 == 3 ? 0 : UInt8(v(i, y, 2, 255)) }
                }
            ))
        files.append(("BMP 8-bit gray palette", try S.gray8(width: w, height: h, seed: 8).encoded(as: .bmp)))
        let palette200: [UInt8] = (0..<200).flatMap { (i: Int) -> [UInt8] in [UInt8(i), UInt8(255 - i), UInt8(i / 2), 0] }
        files.append(
            (
                "BMP 8-bit color palette, indices past it",
                bmp(width: w, height: h, bitCount: 8, palette: palette200, colorsUsed: 200) { y in
                    (0..<w).map { UInt8(v($0, y, 0, 255)) }
                }
            ))
        let palette16: [UInt8] = (0..<16).flatMap { (i: Int) -> [UInt8] in [UInt8(16 * i), UInt8(i), UInt8(255 - 16 * i), 0] }
        files.append(
            (
                "BMP 4-bit",
                bmp(width: w, height: h, bitCount: 4, palette: palette16) { y in
                    (0..<((w + 1) / 2)).map { UInt8(v($0, y, 0, 255)) }
                }
            ))
        files.append(
            (
                "BMP 1-bit",
                bmp(width: w, height: -h, bitCount: 1, palette: [0, 0, 255, 0, 255, 255, 0, 0]) { y in
                    (0..<((w + 7) / 8)).map { UInt8(v($0, y, 3, 255)) }
                }
            ))
        // A 32-bit BI_RGB file with a single non-zero fourth byte, in its last stored row.
        files.append(
            (
                "BMP 32-bit BI_RGB, one alpha byte",
                bmp(width: w, height: h, bitCount: 32) { y in
                    (0..<(4 * w)).map { (i: Int) -> UInt8 in
                        if i % 4 != 3 { return UInt8(v(i, y, 2, 255)) }
                        return y == h - 1 && i == 7 ? 9 : 0
                    }
                }
            ))
        return files
    }

    private func fullDecode(_ bytes: [UInt8]) throws -> PixelBuffer {
        let format = try _ImageCodecs.format(of: bytes, name: "full", options: .default)
        return try _ImageCodecs.decodeStored(bytes, format: format, name: "full", options: .default).buffer
    }

    private func streamedSource(_ bytes: [UInt8], options: DecodeOptions = .default) throws -> StreamedSource? {
        let format = try _ImageCodecs.format(of: bytes, name: "streamed", options: options)
        return try _ImageCodecs.streamedSource(bytes, format: format, name: "streamed", options: options)
    }

    // MARK: Decoding

    func testRowsEqualTheFullDecodeForEveryLayout() throws {
        for (name, file) in try layouts() {
            let full = try fullDecode(file)
            guard let source = try streamedSource(file) else { XCTFail("\(name) is not streamed"); continue }
            XCTAssertEqual(source.format, full.format, name)
            XCTAssertEqual(source.width, full.width, name)
            XCTAssertEqual(source.height, full.height, name)
            if source.isOpaque { XCTAssertTrue(_Codec.isOpaque(full), "\(name) says it is opaque") }
            try assertWindowRowsEqual(source, full, bands: [1, 5, 64], name)
        }
    }

    func testOpacityComesFromTheHeader() throws {
        let opaque = try layouts().filter { try streamedSource($0.1)!.isOpaque }.map(\.0)
        XCTAssertFalse(opaque.contains("P7 RGB_ALPHA"))
        XCTAssertFalse(opaque.contains("P7 GRAYSCALE_ALPHA"))
        XCTAssertFalse(opaque.contains("BMP 32-bit BITFIELDS with alpha"))
        XCTAssertFalse(opaque.contains("BMP 32-bit BI_RGB with alpha"))
        XCTAssertFalse(opaque.contains("BMP 32-bit BI_RGB, one alpha byte"))
        for name in [
            "P3", "P6", "P6 16-bit", "P5", "BMP 24-bit bottom-up", "BMP 8-bit gray palette",
            "BMP 32-bit BI_RGB, fourth bytes 0",
        ] {
            XCTAssertTrue(opaque.contains(name), name)
        }
    }

    /// Every layout read streamed and written streamed (identity graph) gives the bytes of
    /// the fully decoded file rendered whole and encoded, at 1, 2 and 3 threads and strips
    /// of 1, 5 and 64 rows.
    func testStreamedReadAndWriteMatchFullRenderThenEncodeForEveryLayout() throws {
        for (name, file) in try layouts() {
            let full = try fullDecode(file)
            let input = try save(file, "in")
            for output in [ImageFileFormat.pnm, .bmp] {
                let pixelFormat: PixelFormat =
                    full.format == .rgba16 && output == .pnm
                    ? .rgba16
                    : (full.format == .gray8 ? .gray8 : .rgba8)
                let reference = try RenderContext(threadCount: 1, colorManagement: .none)
                    .makeBuffer(Image(full), format: pixelFormat).encoded(as: output)
                for threads in [1, 2, 3] {
                    for stripHeight in [1, 5, 64] {
                        let ctx = RenderContext(
                            options: RenderContext.Options(
                                threadCount: threads, tileWidth: 16, tileHeight: 8, colorManagement: .none,
                                stripHeight: stripHeight))
                        let out = directory.appendingPathComponent("out").path
                        try ctx.write(
                            try Image(contentsOfFile: input, streaming: true), toFile: out, format: output,
                            pixelFormat: pixelFormat)
                        assertSameBytes(
                            try bytes(out), reference,
                            "\(name) as \(output) \(pixelFormat), \(threads) thread(s), strips of \(stripHeight)")
                    }
                }
            }
        }
    }

    // MARK: Writing

    /// Buffers whose encoding depends on alpha: opaque, transparent from the first row, from a
    /// middle row, in the last row only.
    private func alphaCases(width w: Int, height h: Int) -> [(String, PixelBuffer)] {
        func withAlpha(_ b: PixelBuffer, rows: Range<Int>) -> PixelBuffer {
            var b = b
            let wide = b.format == .rgba16
            b.withUnsafeMutableRows { y, row in
                guard rows.contains(y) else { return }
                let x = (y * 7) % w
                if wide {
                    row.assumingMemoryBound(to: UInt16.self)[4 * x + 3] = 1234
                } else {
                    row.assumingMemoryBound(to: UInt8.self)[4 * x + 3] = 77
                }
            }
            return b
        }
        var cases: [(String, PixelBuffer)] = [("gray8", S.gray8(width: w, height: h))]
        for (kind, opaque) in [
            ("rgba8", S.rgba8(width: w, height: h, alpha: false)),
            ("rgba16", S.rgba16(width: w, height: h, alpha: false)),
        ] {
            cases += [
                ("\(kind) opaque", opaque), ("\(kind) alpha from row 0", withAlpha(opaque, rows: 0..<h)),
                ("\(kind) alpha from row \(h / 2)", withAlpha(opaque, rows: (h / 2)..<h)),
                ("\(kind) alpha in the last row", withAlpha(opaque, rows: (h - 1)..<h)),
            ]
        }
        return cases
    }

    /// Feeds `buffer` to a row encoder in chunks of `chunk` rows and returns the file.
    private func encodeInRows(_ buffer: PixelBuffer, as format: ImageFileFormat, chunk: Int) throws -> [UInt8] {
        let path = directory.appendingPathComponent("rows").path
        let file = try _AtomicFile(path: path)
        let encoder = try XCTUnwrap(
            try _ImageCodecs.rowEncoder(
                for: format, fileDescriptor: file.fileDescriptor, width: buffer.width, height: buffer.height,
                pixelFormat: buffer.format, quality: 90, options: .default, metadata: .none, name: path))
        try buffer.withUnsafeBytes { raw in
            var y = 0
            while y < buffer.height {
                let n = Swift.min(chunk, buffer.height - y)
                try encoder.write(rows: raw.baseAddress! + y * buffer.bytesPerRow, bytesPerRow: buffer.bytesPerRow, count: n)
                y += n
            }
        }
        try encoder.finish()
        try file.commit()
        return try bytes(path)
    }

    func testRowEncodersMatchTheWholeBufferEncodersWhateverTheAlpha() throws {
        for (name, buffer) in alphaCases(width: 23, height: 31) {
            for format in [ImageFileFormat.pnm, .bmp]
            where _ImageCodecs.hasRowEncoder(for: format, pixelFormat: buffer.format, options: .default) {
                let reference = try buffer.encoded(as: format)
                for chunk in [1, 4, 31] {
                    assertSameBytes(
                        try encodeInRows(buffer, as: format, chunk: chunk), reference,
                        "\(name) as \(format), \(chunk) row(s) at a time")
                }
            }
        }
        XCTAssertFalse(_ImageCodecs.hasRowEncoder(for: .bmp, pixelFormat: .rgba16, options: .default))
        XCTAssertFalse(_ImageCodecs.hasRowEncoder(for: .pnm, pixelFormat: .rgbaF32, options: .default))
    }

    func testRowEncodersMatchWhenRowsOverflowTheirScratch() throws {
        // 20_000 px rows: about 17 rows of 24-bit BMP or P6 fit in the encoders' 1 MiB scratch.
        for (name, buffer) in alphaCases(width: 20_000, height: 45) where !name.hasPrefix("rgba16") {
            for format in [ImageFileFormat.pnm, .bmp] {
                assertSameBytes(
                    try encodeInRows(buffer, as: format, chunk: 45), try buffer.encoded(as: format),
                    "\(name) as \(format)")
            }
        }
    }

    /// The vips-bench graph: crop, scale by 0.9, sharpen.
    private func vipsGraph(_ source: Image) throws -> (Image, Rect) {
        let e = source.extent
        let crop = Rect(x: 10, y: 10, width: e.width - 20, height: e.height - 20)
        let scale = AffineTransform(scaleX: 0.9, y: 0.9)
        let extent = scale.apply(to: crop).integral
        let shrunk = try source.cropped(to: crop).clampedToExtent().transformed(by: scale).cropped(to: extent)
        let sharpen = [-1.0, -1, -1, -1, 16, -1, -1, -1, -1].map { $0 / 8 }
        return (try shrunk.clampedToExtent().convolved3x3(weights: sharpen).cropped(to: extent), extent)
    }

    func testStreamedWriteOfAGraphIsByteIdenticalToRenderingWholeThenEncoding() throws {
        var transparentBelow = S.rgba8(width: 131, height: 97, alpha: false, seed: 11)
        transparentBelow.withUnsafeMutableRows { y, row in
            if y >= 60 { row.assumingMemoryBound(to: UInt8.self)[4 * 50 + 3] = 0 }
        }
        let inputs: [(String, [UInt8])] = [
            ("in.ppm", try S.rgba8(width: 131, height: 97, alpha: false, seed: 12).encoded(as: .pnm)),
            ("in.pam", try transparentBelow.encoded(as: .pnm)),
            ("in16.ppm", try S.rgba16(width: 131, height: 97, alpha: false).encoded(as: .pnm)),
            ("in.bmp", try transparentBelow.encoded(as: .bmp)),
        ]
        for (inputName, file) in inputs {
            let input = try save(file, inputName)
            for management in [RenderContext.ColorManagement.none, .linear] {
                for (output, pixelFormat) in [(ImageFileFormat.pnm, PixelFormat.rgba8), (.pnm, .rgba16), (.bmp, .rgba8)] {
                    let (full, rect) = try vipsGraph(try Image(contentsOfFile: input, streaming: false))
                    let reference = try RenderContext(threadCount: 1, colorManagement: management)
                        .makeBuffer(full, rect: rect, format: pixelFormat).encoded(as: output)
                    for threads in [1, 3] {
                        for stripHeight in [1, 5, 64] {
                            let ctx = RenderContext(
                                options: RenderContext.Options(
                                    threadCount: threads, tileWidth: 48, tileHeight: 16, colorManagement: management,
                                    stripHeight: stripHeight))
                            let out = directory.appendingPathComponent("out").path
                            let (image, _) = try vipsGraph(try Image(contentsOfFile: input, streaming: true))
                            try ctx.write(image, toFile: out, rect: rect, format: output, pixelFormat: pixelFormat)
                            assertSameBytes(
                                try bytes(out), reference,
                                "\(inputName) to \(output) \(pixelFormat), "
                                    + "\(management), \(threads) thread(s), strips of \(stripHeight)")
                        }
                    }
                }
            }
        }
    }

    func testGraphsNeedingRandomAccessStillRenderCorrectly() throws {
        let inputs = [
            ("in.pgm", try S.gray8(width: 57, height: 83).encoded(as: .pnm)),
            ("in.bmp", try S.rgba8(width: 57, height: 83, alpha: false).encoded(as: .bmp)),
            ("in.pam", try S.rgba8(width: 57, height: 83, alpha: true).encoded(as: .pnm)),
        ]
        let ctx = RenderContext(
            options: RenderContext.Options(
                threadCount: 2, tileWidth: 32, tileHeight: 16,
                colorManagement: .none, stripHeight: 16))
        for (name, file) in inputs {
            let input = try save(file, name)
            for output in [ImageFileFormat.pnm, .bmp] {
                func rotated(_ image: Image) throws -> Image {
                    try image.transformed(by: AffineTransform(rotationAngle: .pi / 2))
                }
                let full = try rotated(try Image(contentsOfFile: input, streaming: false))
                let reference = try ctx.makeBuffer(full, rect: full.extent.integral).encoded(as: output)
                let image = try rotated(try Image(contentsOfFile: input, streaming: true))
                let out = directory.appendingPathComponent("out").path
                try ctx.write(image, toFile: out, rect: image.extent.integral, format: output)
                assertSameBytes(try bytes(out), reference, "\(name) rotated, as \(output)")
            }
        }
    }

    // MARK: Errors

    func testBadSampleInAnASCIIFileThrowsFromTheRenderAndLeavesNoFile() throws {
        // Row 60 of 80 holds a word where a sample should be; a P2 whose samples are cut off
        // after row 50 (still at least a byte a sample, so the header read accepts it).
        var text = Array(asciiPNM(kind: 3, width: 40, height: 80, maxval: 255) { x, y, c in 100 + Self.v(x, y, c, 155) })
        let rowStart = String(decoding: text, as: UTF8.self).components(separatedBy: "\n").prefix(4 + 60)
            .reduce(0) { $0 + $1.utf8.count + 1 }
        text[rowStart + 4] = UInt8(ascii: "x")
        let wide = asciiPNM(kind: 2, width: 40, height: 80, maxval: 255) { x, y, c in 100 + Self.v(x, y, c, 155) }
        let cut = Array(wide.prefix(wide.count * 6 / 10))
        for (name, file) in [("bad.ppm", text), ("cut.pgm", cut)] {
            let path = try save(file, name)
            XCTAssertThrowsError(try PixelBuffer(contentsOfFile: path))
            let image = try Image(contentsOfFile: path, streaming: true)
            guard case .streamedSource = image.node.op else { return XCTFail("\(name) should be streamed") }
            assertStreamedRenderFails(
                image, writingTo: directory.appendingPathComponent("out.pnm").path, stripHeight: 8, name)
        }
        try assertNoTemporaryFilesLeft()
    }

    func testTruncatedBinaryFilesThrowWhenOpened() throws {
        let files = [
            ("cut.ppm", try S.rgba8(width: 30, height: 30, alpha: false).encoded(as: .pnm)),
            ("cut.pbm", p4(width: 30, height: 30) { x, _ in x % 2 == 0 }),
            ("cut.bmp", try S.rgba8(width: 30, height: 30, alpha: true).encoded(as: .bmp)),
        ]
        for (name, file) in files {
            let path = try save(Array(file.prefix(file.count - 5)), name)
            XCTAssertThrowsError(try Image(contentsOfFile: path, streaming: true)) { error in
                guard case PixelFlowError.decodingFailed = error else { return XCTFail("\(name): \(error)") }
            }
        }
        // A header cut short, and a run-length encoded BMP (not read at all).
        S.assertThrows(.decodingFailed) { try Image(encoded: Array("P6\n30 ".utf8), streaming: true) }
        let rle = CodecPNMAndBMPTests.bmp(
            width: 2, height: 2, bitCount: 8, compression: 1,
            extra: [UInt8](repeating: 0, count: 1024), pixels: [0, 1])
        S.assertThrows(.unsupportedFormat) { try Image(encoded: rle, streaming: true) }
    }

    /// Randomly damaged files (bytes changed, files cut): the streamed decode throws exactly
    /// when the full decode does, and otherwise gives its pixels.
    func testDamagedFilesStreamAsTheyDecodeFully() throws {
        var rng = SeededRandom(seed: 27)
        let seeds = try layouts().filter {
            [
                "P2", "P3", "P4", "P5 16-bit", "P7 RGB_ALPHA", "BMP 24-bit top-down",
                "BMP 32-bit BI_RGB with alpha", "BMP 4-bit",
            ].contains($0.0)
        }
        XCTAssertEqual(seeds.count, 8)
        for (name, seed) in seeds {
            for round in 0..<60 {
                var file = seed
                for _ in 0...Int(rng.next() % 4) {
                    let i = Int(rng.next() % UInt64(round % 2 == 0 ? Swift.min(file.count, 80) : file.count))
                    file[i] = UInt8(truncatingIfNeeded: rng.next())
                }
                if round % 5 == 0 { file.removeLast(Int(rng.next() % UInt64(file.count / 2))) }
                let full = Result { try fullDecode(file) }
                let streamed = Result { () throws -> RowWindow? in
                    try streamedSource(file)?.decodeFully()
                }
                switch (full, streamed) {
                case (.success(let b), .success(let window?)):
                    let rowBytes = b.width * b.format.bytesPerPixel
                    XCTAssertEqual(window.format, b.format, "\(name), round \(round)")
                    for y in 0..<b.height {
                        b.withUnsafeBytes { raw in
                            XCTAssertEqual(
                                memcmp(window.row(y), raw.baseAddress! + y * b.bytesPerRow, rowBytes), 0,
                                "\(name), round \(round), row \(y)")
                        }
                    }
                case (.failure, .failure), (.failure, .success(nil)):
                    break
                default:
                    XCTFail("\(name), round \(round): full \(full), streamed \(streamed)")
                }
            }
        }
    }

    func testLimitsAreCheckedBeforeDecoding() throws {
        let files = [
            try S.rgba8(width: 100, height: 100, alpha: false).encoded(as: .pnm),
            asciiPNM(kind: 2, width: 100, height: 100, maxval: 255) { x, _, _ in x },
            try S.rgba8(width: 100, height: 100, alpha: false).encoded(as: .bmp),
        ]
        for file in files {
            S.assertThrows(.limitExceeded) {
                try Image(encoded: file, options: DecodeOptions(maximumPixelCount: 9_999), streaming: true)
            }
            S.assertThrows(.limitExceeded) {
                try Image(encoded: file, options: DecodeOptions(maximumHeight: 99), streaming: true)
            }
        }
    }

    func testExplainNamesTheStreamedSourceAndDecodesNothing() throws {
        // The samples are garbage: explain must not read them.
        let bad = Array("P2\n64 48\n255\n".utf8) + [UInt8](repeating: UInt8(ascii: "x"), count: 64 * 48)
        let bmpFile = try S.rgba8(width: 64, height: 48, alpha: false).encoded(as: .bmp)
        let ctx = RenderContext(threadCount: 2, colorManagement: .none)
        for (file, kind, format) in [(bad, "PNM", "gray8"), (bmpFile, "BMP", "rgba8")] {
            let image = try Image(encoded: file, streaming: true)
            let graph = try image.clampedToExtent().gaussianBlurred(radius: 2).cropped(to: image.extent)
            let plan = try ctx.explain(graph)
            XCTAssertTrue(plan.contains("64x48 \(format) streamed \(kind)"), plan)
            // The same plan as over a fully decoded source of the same format, but for the
            // source's own line.
            let pixels = S.rgba8(width: 64, height: 48, alpha: false)
            let full = Image(format == "gray8" ? pixels.converted(to: .gray8) : pixels)
            let fullPlan = try ctx.explain(try full.clampedToExtent().gaussianBlurred(radius: 2).cropped(to: full.extent))
            // explain() also ends with one line on how the streamed source is read, and one on
            // the byte path (a Gaussian of rgba8 or gray8 has a byte form: a strip write reads
            // the streamed rows in place); the decoded source's plan with one on the byte path.
            XCTAssertTrue(plan.contains("streamed source 64x48 \(format) streamed \(kind): "), plan)
            func withoutSource(_ text: String) -> [Substring] {
                text.split(separator: "\n").filter {
                    !$0.drop { $0 == " " }.hasPrefix("source") && !$0.contains("streamedSource")
                        && !$0.hasPrefix("streamed source") && !$0.hasPrefix("byte path")
                }
            }
            XCTAssertEqual(withoutSource(plan), withoutSource(fullPlan), "\(plan)\n\(fullPlan)")
            XCTAssertEqual(withoutSource(plan).count, plan.split(separator: "\n").count - 3, plan)
        }
    }
}
