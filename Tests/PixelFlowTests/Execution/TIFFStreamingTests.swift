import Foundation
import XCTest
@testable import PixelFlow
@testable import PixelFlowKernels
@testable import PixelFlowGraph
@testable import PixelFlowEngine

/// Streamed TIFF sources (strips and tiles decoded band by band) and streamed TIFF writes
/// (strip by strip to the file): the rows of a full decode and the bytes of encoding the
/// whole buffer, whatever the strip height and thread count.
final class TIFFStreamingTests: TemporaryDirectoryTestCase {
    private typealias S = CodecTestSupport

    private func bytes(_ path: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))) }

    private func save(_ bytes: [UInt8], _ name: String) throws -> String {
        let path = directory.appendingPathComponent(name).path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// An uncompressed little-endian TIFF of `samples` 8 or 16-bit samples per pixel (the
    /// last one unassociated alpha when `alpha`), in strips of `rowsPerStrip` rows or in
    /// `tile` x `tile` tiles, with pixel values from a seeded generator.
    private func makeTIFF(
        width: Int, height: Int, samples: Int, bits: Int = 8, alpha: Bool = false,
        rowsPerStrip: Int? = nil, tile: Int? = nil, seed: UInt64 = 5,
        pastTheEnd: Bool = false
    ) -> [UInt8] {
        var rng = SeededRandom(seed: seed)
        let pixelBytes = samples * bits / 8
        var chunks: [[UInt8]] = []
        if let tile {
            for _ in stride(from: 0, to: height, by: tile) {
                for _ in stride(from: 0, to: width, by: tile) {
                    chunks.append((0..<(tile * tile * pixelBytes)).map { _ in UInt8(truncatingIfNeeded: rng.next()) })
                }
            }
        } else {
            let rps = rowsPerStrip ?? height
            for y in stride(from: 0, to: height, by: rps) {
                let rows = Swift.min(rps, height - y)
                chunks.append((0..<(rows * width * pixelBytes)).map { _ in UInt8(truncatingIfNeeded: rng.next()) })
            }
        }
        var out: [UInt8] = Array("II".utf8) + [42, 0]
        out._appendLE32(0)  // patched below
        var offsets: [Int] = []
        for c in chunks {
            offsets.append(out.count)
            out += c
            if out.count % 2 == 1 { out.append(0) }
        }
        // Arrays outside the directory: offsets, byte counts, bits per sample.
        func array(_ values: [Int], type: Int) -> Int {
            let at = out.count
            for v in values { if type == 3 { out._appendLE16(v) } else { out._appendLE32(v) } }
            if out.count % 2 == 1 { out.append(0) }
            return at
        }
        // A truncated file whose directory survived: the second half of the strips lie beyond its end.
        if pastTheEnd { for i in (offsets.count / 2)..<offsets.count { offsets[i] += 1 << 24 } }
        let offsetsAt = array(offsets, type: 4), countsAt = array(chunks.map(\.count), type: 4)
        let bitsAt = array(Array(repeating: bits, count: samples), type: 3)
        let color = alpha ? samples - 1 : samples
        var entries: [(Int, Int, Int, Int)] = [  // tag, type, count, value or offset
            (256, 4, 1, width), (257, 4, 1, height),
            (258, 3, samples, samples == 1 ? bits : (samples == 2 ? bits | bits << 16 : bitsAt)),
            (259, 3, 1, 1), (262, 3, 1, color >= 3 ? 2 : 1), (277, 3, 1, samples), (284, 3, 1, 1),
        ]
        if let tile {
            entries += [
                (322, 4, 1, tile), (323, 4, 1, tile), (324, 4, chunks.count, chunks.count == 1 ? offsets[0] : offsetsAt),
                (325, 4, chunks.count, chunks.count == 1 ? chunks[0].count : countsAt),
            ]
        } else {
            entries += [
                (273, 4, chunks.count, chunks.count == 1 ? offsets[0] : offsetsAt), (278, 4, 1, rowsPerStrip ?? height),
                (279, 4, chunks.count, chunks.count == 1 ? chunks[0].count : countsAt),
            ]
        }
        if alpha { entries.append((338, 3, 1, 2)) }
        entries.sort { $0.0 < $1.0 }
        let ifd = out.count
        out._appendLE16(entries.count)
        for (tag, type, count, value) in entries {
            out._appendLE16(tag)
            out._appendLE16(type)
            out._appendLE32(count)
            if type == 3 && count == 1 { out._appendLE16(value); out._appendLE16(0) } else { out._appendLE32(value) }
        }
        out._appendLE32(0)
        out[4] = UInt8(ifd & 255); out[5] = UInt8(ifd >> 8 & 255); out[6] = UInt8(ifd >> 16 & 255); out[7] = UInt8(ifd >> 24)
        return out
    }

    /// Every row the streamed source gives, through windows of `capacity` rows, equals the
    /// full decode's.
    private func assertStreamsLikeFullDecode(
        _ bytes: [UInt8], _ label: String,
        file: StaticString = #filePath, line: UInt = #line
    ) throws {
        guard let source = try StreamedSource(tiff: bytes, name: label, options: .default) else {
            return XCTFail("\(label) should stream", file: file, line: line)
        }
        let full = try _ImageCodecs.decodeStored(bytes, format: .tiff, name: label, options: .default).buffer
        XCTAssertEqual(source.format, full.format, label, file: file, line: line)
        XCTAssertEqual([source.width, source.height], [full.width, full.height], label, file: file, line: line)
        try assertWindowRowsEqual(source, full, bands: [1, 5, 64], label, file: file, line: line)
    }

    // MARK: Decoding

    func testEveryFixtureStreamsWithTheFullDecodesRowsOrNotAtAll() throws {
        // Read through libtiff's RGBA interface: decoded fully. CMYK streams its ink values.
        let notStreamed: Set<String> = ["ycbcr_uncompressed.tif", "ycbcr_orientation3.tif"]
        let folder = URL(fileURLWithPath: TIFFCodecTests.fixturePath(""))
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".tif") }.sorted()
        XCTAssertGreaterThan(names.count, 30)
        for name in names {
            let data = try TIFFCodecTests.fixture(name)
            if notStreamed.contains(name) {
                XCTAssertNil(try StreamedSource(tiff: data, name: name, options: .default), name)
            } else {
                try assertStreamsLikeFullDecode(data, name)
            }
        }
    }

    func testTiledRowsPerStripOneAndMultiStrip16BitFilesStream() throws {
        try assertStreamsLikeFullDecode(makeTIFF(width: 37, height: 29, samples: 3, tile: 16), "tiled rgb8")
        try assertStreamsLikeFullDecode(
            makeTIFF(width: 50, height: 33, samples: 4, bits: 16, alpha: true, tile: 16),
            "tiled rgba16")
        try assertStreamsLikeFullDecode(makeTIFF(width: 41, height: 23, samples: 3, rowsPerStrip: 1), "rgb8 rps 1")
        try assertStreamsLikeFullDecode(
            makeTIFF(width: 41, height: 23, samples: 2, alpha: true, rowsPerStrip: 1),
            "gray+alpha rps 1")
        try assertStreamsLikeFullDecode(
            makeTIFF(width: 45, height: 71, samples: 3, bits: 16, rowsPerStrip: 7),
            "rgb16 strips of 7")
        // Compressed multi-strip 16-bit files, as PixelFlow writes them (strips of 64 KiB).
        let rgba16 = S.rgba16(width: 301, height: 157, alpha: true)
        for compression in [EncodeOptions.TIFFCompression.deflate, .lzw, .packBits] {
            let encoded = try rgba16.encoded(as: .tiff, options: EncodeOptions(tiffCompression: compression))
            try assertStreamsLikeFullDecode(encoded, "rgba16 \(compression)")
        }
    }

    func testStreamedImageRendersLikeTheFullDecode() throws {
        let path = try save(makeTIFF(width: 67, height: 45, samples: 4, alpha: true, tile: 16), "tiled.tif")
        let streamed = try Image(contentsOfFile: path, streaming: true)
        guard case .streamedSource = streamed.node.op else { return XCTFail("a plain TIFF should stream") }
        let full = Image(try PixelBuffer(contentsOfFile: path))
        for threads in [1, 2, 3] {
            for linear in [false, true] {
                let ctx = RenderContext(threadCount: threads, colorManagement: linear ? .linear : .none)
                let a = try ctx.makeBuffer(try streamed.sepiaTone(), format: .rgbaF32)
                let b = try ctx.makeBuffer(try full.sepiaTone(), format: .rgbaF32)
                XCTAssertEqual(maxDifference(a, b), 0, "\(threads) thread(s), linear \(linear)")
            }
        }
        // explain() describes the streamed source and the same plan otherwise.
        let ctx = RenderContext(threadCount: 2, colorManagement: .none)
        let explained = try ctx.explain(try streamed.sepiaTone())
        XCTAssertTrue(explained.contains("streamed TIFF"), explained)
        let fullExplained = try ctx.explain(try full.sepiaTone())
        // ... plus one line on how the streamed source is read (before the byte path's line:
        // a strip write reads the streamed rows in place).
        XCTAssertEqual(explained.split(separator: "\n").count, fullExplained.split(separator: "\n").count + 1)
        XCTAssertEqual(explained.split(separator: "\n").filter { $0.hasPrefix("streamed source ") }.count, 1, explained)
        XCTAssertTrue(explained.split(separator: "\n").last?.contains("reading the streamed rows in place") == true, explained)
    }

    func testFilesWithProfilesStreamAndHugeStripsAreDecodedFully() throws {
        // An ICC profile other than sRGB and an orientation 6: converted and turned in the
        // stream, with the full decode's values.
        let withProfile = try Image(encoded: try TIFFCodecTests.fixture("metadata.tif"), streaming: true)
        guard case .streamedSource = withProfile.node.op else { return XCTFail("metadata.tif streams") }
        let wholeProfile = try Image(encoded: try TIFFCodecTests.fixture("metadata.tif"), streaming: false)
        let ctx = RenderContext(threadCount: 2)
        XCTAssertEqual(
            maxDifference(
                try ctx.makeBuffer(withProfile, format: .rgbaF32),
                try ctx.makeBuffer(wholeProfile, format: .rgbaF32)), 0)
        // One PackBits strip of 5000 rows: taller than a band may be.
        var tall: [UInt8] = Array("II".utf8) + [42, 0]
        tall._appendLE32(8)
        let width = 10, height = 5000
        let stripAt = tall.count
        for y in 0..<height {
            tall.append(UInt8(width - 1))
            for x in 0..<width { tall.append(UInt8(truncatingIfNeeded: x * 7 + y)) }
        }
        let stripBytes = tall.count - stripAt
        let ifd = tall.count
        let entries: [(Int, Int, Int)] = [
            (256, 4, width), (257, 4, height), (258, 3, 8), (259, 3, 32773), (262, 3, 1),
            (273, 4, stripAt), (277, 3, 1), (278, 4, height), (279, 4, stripBytes),
        ]
        tall._appendLE16(entries.count)
        for (tag, type, value) in entries {
            tall._appendLE16(tag); tall._appendLE16(type); tall._appendLE32(1)
            if type == 3 { tall._appendLE16(value); tall._appendLE16(0) } else { tall._appendLE32(value) }
        }
        tall._appendLE32(0)
        tall[4] = UInt8(ifd & 255); tall[5] = UInt8(ifd >> 8 & 255); tall[6] = UInt8(ifd >> 16 & 255); tall[7] = 0
        XCTAssertNil(try StreamedSource(tiff: tall, name: "tall", options: .default))
        let image = try Image(encoded: tall, streaming: true)
        guard case .source = image.node.op else { return XCTFail("a 5000-row strip should be decoded fully") }
        XCTAssertEqual(try RenderContext(threadCount: 1, colorManagement: .none).makeBuffer(image).height, height)
        // Limits are checked before anything is decoded.
        let path = try save(makeTIFF(width: 100, height: 100, samples: 3, rowsPerStrip: 10), "big.tif")
        XCTAssertThrowsError(
            try Image(
                contentsOfFile: path, options: DecodeOptions(maximumPixelCount: 9_999),
                streaming: true)
        ) { error in
            guard case PixelFlowError.limitExceeded = error else { return XCTFail("\(error)") }
        }
    }

    // MARK: Writing

    /// A render of `graph` over the file at `path`, streamed and written to a TIFF, gives the
    /// bytes of rendering it whole over a fully decoded source and encoding the buffer.
    private func assertStreamedWrite(
        _ path: String, pixelFormat: PixelFormat = .rgba8,
        encode: EncodeOptions = .default, threads: [Int] = [1, 2, 3],
        stripHeights: [Int] = [1, 5, 64],
        graph: (Image) throws -> (Image, Rect), _ label: String,
        file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let (fullImage, rect) = try graph(try Image(contentsOfFile: path, streaming: false))
        // Streamed writes take the byte path where an in-memory render into a buffer does
        // (StripBytePathTests), so the reference is the in-memory render.
        let referenceOptions = RenderContext.Options(threadCount: 1, colorManagement: .none)
        let reference = try RenderContext(options: referenceOptions)
            .makeBuffer(fullImage, rect: rect, format: pixelFormat).encoded(as: .tiff, options: encode)
        for t in threads {
            for h in stripHeights {
                var options = RenderContext.Options(threadCount: t, tileWidth: 32, tileHeight: 16, colorManagement: .none)
                options.stripHeight = h
                let out = directory.appendingPathComponent("out-\(t)-\(h).tif").path
                let (image, _) = try graph(try Image(contentsOfFile: path, streaming: true))
                try RenderContext(options: options).write(
                    image, toFile: out, rect: rect, pixelFormat: pixelFormat,
                    encodeOptions: encode)
                XCTAssertEqual(
                    try bytes(out), reference, "\(label): \(t) thread(s), strips of \(h)",
                    file: file, line: line)
            }
        }
        try assertNoTemporaryFilesLeft("temporary or spill files left behind", file: file, line: line)
    }

    private func sepia(_ image: Image) throws -> (Image, Rect) {
        let r = try image.sepiaTone()
        return (r, image.extent)
    }

    func testStreamedWriteIsByteIdenticalToRenderingWholeThenEncoding() throws {
        let tiled = try save(makeTIFF(width: 77, height: 53, samples: 3, tile: 16), "tiled.tif")
        let rps1 = try save(makeTIFF(width: 61, height: 40, samples: 3, rowsPerStrip: 1), "rps1.tif")
        let rgb16 = try save(
            try S.rgba16(width: 150, height: 230, alpha: false)
                .encoded(as: .tiff, options: EncodeOptions(tiffCompression: .deflate)), "rgb16.tif")
        for compression in [EncodeOptions.TIFFCompression.none, .lzw, .deflate, .packBits, .jpeg] {
            try assertStreamedWrite(
                tiled, encode: EncodeOptions(tiffCompression: compression), graph: sepia,
                "tiled, \(compression)")
        }
        try assertStreamedWrite(rps1, encode: EncodeOptions(tiffCompression: .lzw), graph: sepia, "rows per strip 1")
        try assertStreamedWrite(
            rgb16, pixelFormat: .rgba16, encode: EncodeOptions(tiffCompression: .deflate),
            graph: sepia, "16-bit")
        try assertStreamedWrite(
            rps1, pixelFormat: .gray8, encode: EncodeOptions(tiffCompression: .deflate),
            graph: sepia, "gray8")
        // Metadata: the default profile, and XMP kept from the options.
        var withXMP = EncodeOptions(tiffCompression: .packBits)
        withXMP.metadata = ImageMetadata(xmp: Array("<x:xmpmeta/>".utf8))
        withXMP.keptMetadata = [.xmp]
        try assertStreamedWrite(rps1, encode: withXMP, threads: [2], stripHeights: [7], graph: sepia, "xmp")
    }

    /// RGB while every alpha is the maximum, RGBA from the first translucent row on, as the
    /// in-memory encoder decides for the whole buffer.
    func testAlphaAppearingMidImageSwitchesToRGBAWithTheSameBytes() throws {
        for (row, label) in [(nil, "opaque"), (0, "first row"), (37, "middle"), (88, "last row")] as [(Int?, String)] {
            var b = S.rgba8(width: 71, height: 89, alpha: false, seed: 11)
            if let row {
                b.withUnsafeMutableRows { y, p in
                    if y >= row { p.storeBytes(of: UInt8(200), toByteOffset: 4 * (y % 71) + 3, as: UInt8.self) }
                }
            }
            var b16 = b.converted(to: .rgba16)
            if let row {  // 16-bit alpha one below the maximum
                b16.withUnsafeMutableRows { y, p in
                    if y == row { p.storeBytes(of: UInt16(65534), toByteOffset: 6, as: UInt16.self) }
                }
            }
            let p8 = try save(try b.encoded(as: .png), "alpha.png")
            let p16 = try save(try b16.encoded(as: .png), "alpha16.png")
            let identity: (Image) throws -> (Image, Rect) = { ($0, $0.extent) }
            for compression in [EncodeOptions.TIFFCompression.none, .deflate, .jpeg] {
                try assertStreamedWrite(
                    p8, encode: EncodeOptions(tiffCompression: compression), threads: [2],
                    stripHeights: [1, 16], graph: identity, "\(label), \(compression)")
            }
            try assertStreamedWrite(
                p16, pixelFormat: .rgba16, encode: EncodeOptions(tiffCompression: .lzw),
                threads: [2], stripHeights: [5], graph: identity, "\(label), 16-bit")
        }
    }

    func testGraphsNeedingRandomAccessStillRenderCorrectly() throws {
        let path = try save(makeTIFF(width: 90, height: 140, samples: 3, rowsPerStrip: 9), "in.tif")
        try assertStreamedWrite(
            path, threads: [2], stripHeights: [16],
            graph: { image in
                let r = try image.transformed(by: AffineTransform(rotationAngle: .pi / 2))
                return (r, r.extent.integral)
            }, "rotation by 90 degrees")
    }

    // MARK: Errors

    func testTruncatedAndCorruptTIFFsThrowFromTheRenderAndLeaveNoFile() throws {
        let encoded = try S.rgba8(width: 160, height: 480, alpha: false)
            .encoded(as: .tiff, options: EncodeOptions(tiffCompression: .deflate))
        // The directory sits at the end: cut into the strips but keep it by corrupting bytes.
        var corrupt = encoded
        for i in (encoded.count / 2)..<(encoded.count / 2 + 64) { corrupt[i] ^= 0x5A }
        let bad = try save(corrupt, "bad.tif")
        let image = try Image(contentsOfFile: bad, streaming: true)
        guard case .streamedSource = image.node.op else { return XCTFail("the header is intact: it should stream") }
        let out = directory.appendingPathComponent("out.tif").path
        for threads in [1, 2] {
            let ctx = RenderContext(
                options: RenderContext.Options(
                    threadCount: threads, colorManagement: .none,
                    stripHeight: 16))
            XCTAssertThrowsError(try ctx.write(try image.sepiaTone(), toFile: out)) { error in
                guard case PixelFlowError.decodingFailed = error else { return XCTFail("\(error)") }
            }
            XCTAssertFalse(FileManager.default.fileExists(atPath: out))
            XCTAssertThrowsError(try ctx.makeBuffer(image))
        }
        // A strip whose offset points past the end of the file (a truncated file whose
        // directory survived).
        let truncated = try save(
            makeTIFF(width: 40, height: 40, samples: 3, rowsPerStrip: 4, pastTheEnd: true),
            "cut.tif")
        let cut = try Image(contentsOfFile: truncated, streaming: true)
        guard case .streamedSource = cut.node.op else { return XCTFail("the directory is intact: it should stream") }
        XCTAssertThrowsError(try RenderContext(threadCount: 2, colorManagement: .none).write(cut, toFile: out)) { error in
            guard case PixelFlowError.decodingFailed = error else { return XCTFail("\(error)") }
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: out))
        try assertNoTemporaryFilesLeft()
    }
}
