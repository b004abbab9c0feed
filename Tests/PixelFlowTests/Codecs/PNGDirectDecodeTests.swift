import CCodecShims
import Foundation
import XCTest
@testable import PixelFlow

/// The direct PNG decode (`pf_png_read_pixels_direct` in Sources/CCodecShims/pf_png.c: IDAT
/// CRCs, one libdeflate inflate, `pf_png_unfilter_row`, row conversion), checked three ways:
/// the unfilter kernels against a Swift scalar reference of the specification's filters;
/// whole files that this test writes itself (every color type and bit depth, widths 1...45,
/// all five filters, stored and compressed streams) against the pixels the test knows it
/// encoded, and against libpng decoding the same file with the direct path turned off; and
/// files with faults, which must throw as they did through libpng.
final class PNGDirectDecodeTests: TemporaryDirectoryTestCase {
    private typealias S = CodecTestSupport

    // MARK: Scalar reference of the filters (PNG specification, section 9)

    private static func paeth(_ a: Int, _ b: Int, _ c: Int) -> Int {
        let p = a + b - c
        let pa = abs(p - a), pb = abs(p - b), pc = abs(p - c)
        if pa <= pb && pa <= pc { return a }
        return pb <= pc ? b : c
    }

    /// The predictor of byte `i` of a row for `filter`, from the unfiltered bytes on its
    /// left (`row`) and above (`prev`, nil for the first row).
    private static func predictor(_ filter: Int, _ row: [UInt8], _ prev: [UInt8]?, _ i: Int, _ bpp: Int) -> Int {
        let a = i >= bpp ? Int(row[i - bpp]) : 0
        let b = prev.map { Int($0[i]) } ?? 0
        let c = i >= bpp ? prev.map { Int($0[i - bpp]) } ?? 0 : 0
        switch filter {
        case 0: return 0
        case 1: return a
        case 2: return b
        case 3: return (a + b) / 2
        default: return paeth(a, b, c)
        }
    }

    /// Unfiltered `row` filtered with `filter` (what an encoder writes after the filter byte).
    private static func filter(_ filter: Int, _ row: [UInt8], _ prev: [UInt8]?, bpp: Int) -> [UInt8] {
        (0..<row.count).map { UInt8(truncatingIfNeeded: Int(row[$0]) - predictor(filter, row, prev, $0, bpp)) }
    }

    /// Filtered `src` unfiltered, one byte at a time.
    private static func unfilter(_ filter: Int, _ src: [UInt8], _ prev: [UInt8]?, bpp: Int) -> [UInt8] {
        var row = [UInt8](repeating: 0, count: src.count)
        for i in 0..<src.count { row[i] = UInt8(truncatingIfNeeded: Int(src[i]) + predictor(filter, row, prev, i, bpp)) }
        return row
    }

    // MARK: Kernels

    func testUnfilterKernelsMatchScalarReference() {
        var rng = SeededRandom(seed: 7)
        for bpp in 1...8 {
            for width in 1...45 {
                let n = width * bpp
                for filter in 0...4 {
                    for hasPrev in [false, true] {
                        let src = (0..<n).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
                        let prev: [UInt8]? = hasPrev ? (0..<n).map { _ in UInt8(truncatingIfNeeded: rng.next()) } : nil
                        let expected = Self.unfilter(filter, src, prev, bpp: bpp)
                        for kernel in [pf_png_unfilter_row, pf_png_unfilter_row_scalar] {
                            var out = [UInt8](repeating: 0xAA, count: n)
                            var inPlace = src
                            let status = src.withUnsafeBufferPointer { s in
                                withOptional(prev) { p in
                                    out.withUnsafeMutableBufferPointer { o in
                                        kernel(Int32(filter), s.baseAddress, p, o.baseAddress, n, Int32(bpp))
                                    }
                                }
                            }
                            let inPlaceStatus = withOptional(prev) { p in
                                inPlace.withUnsafeMutableBufferPointer { o in
                                    kernel(Int32(filter), o.baseAddress, p, o.baseAddress, n, Int32(bpp))
                                }
                            }
                            XCTAssertEqual(status, 0)
                            XCTAssertEqual(inPlaceStatus, 0)
                            XCTAssertEqual(out, expected, "bpp \(bpp) width \(width) filter \(filter) prev \(hasPrev)")
                            XCTAssertEqual(inPlace, expected, "in place: bpp \(bpp) width \(width) filter \(filter)")
                        }
                    }
                }
            }
        }
    }

    func testUnfilterRejectsUnknownFilterByte() {
        let src: [UInt8] = [1, 2, 3, 4]
        var out: [UInt8] = [9, 9, 9, 9]
        for kernel in [pf_png_unfilter_row, pf_png_unfilter_row_scalar] {
            XCTAssertEqual(kernel(5, src, UnsafePointer<UInt8>?.none, &out, 4, 4), -1)
            XCTAssertEqual(out, [9, 9, 9, 9])
        }
    }

    // MARK: Files written here

    /// A PNG of `samples` (big-endian for 16 bits), rows filtered with `filters(y)`, its
    /// image data in IDAT chunks of at most `chunk` bytes, stored or compressed by pf_deflate,
    /// with the chunks `before` (PLTE, tRNS) between IHDR and the image data.
    private static func png(
        width: Int, height: Int, colorType: UInt8, depth: Int, rows: [[UInt8]], filters: (Int) -> Int,
        compressed: Bool, chunk: Int = 1000, extra: [UInt8] = [], before: [UInt8] = []
    ) -> [UInt8] {
        let channels = [0: 1, 2: 3, 3: 1, 4: 2, 6: 4][Int(colorType)]!
        let bpp = Swift.max(1, channels * depth / 8)
        var data: [UInt8] = []
        for y in 0..<height {
            let f = filters(y)
            data.append(UInt8(f))
            data += filter(f, rows[y], y > 0 ? rows[y - 1] : nil, bpp: bpp)
        }
        data += extra
        var ihdr: [UInt8] = []
        ihdr._appendBE32(width)
        ihdr._appendBE32(height)
        ihdr += [UInt8(depth), colorType, 0, 0, 0]
        let stream = zlib(data, compressed: compressed)
        var file = _PNGCodec.signature + CodecBadInputTests.chunk("IHDR", ihdr) + before
        var start = 0
        repeat {
            let end = Swift.min(stream.count, start + chunk)
            file += CodecBadInputTests.chunk("IDAT", Array(stream[start..<end]))
            start = end
        } while start < stream.count
        return file + CodecBadInputTests.chunk("IEND", [])
    }

    /// `data` as a zlib stream: stored blocks, or one pf_deflate piece at level 6.
    private static func zlib(_ data: [UInt8], compressed: Bool) -> [UInt8] {
        var out: [UInt8] = [0x78, 0x01]
        if compressed {
            var piece = [UInt8](repeating: 0, count: pf_deflate_bound(data.count))
            var written = 0
            let status = pf_deflate(data, data.count, 0, 6, 1, &piece, &written)
            precondition(status == 0)
            out += piece[..<written]
        } else {
            var start = 0
            repeat {
                let end = Swift.min(data.count, start + 65535)
                let n = end - start
                out += [end == data.count ? 1 : 0, UInt8(n & 255), UInt8(n >> 8), UInt8(~n & 255), UInt8((~n >> 8) & 255)]
                out += data[start..<end]
                start = end
            } while start < data.count
        }
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in data {
            a = (a + UInt32(byte)) % 65521
            b = (b + a) % 65521
        }
        out._appendBE32(Int((b << 16) | a))
        return out
    }

    /// The decoded bytes PixelFlow promises for `rows` of `channels` samples of `depth` bits:
    /// gray8 for 8-bit gray, else RGBA (gray repeated, alpha the maximum when absent) at the
    /// file's depth, 16-bit values native-endian.
    private static func expected(_ rows: [[UInt8]], width: Int, channels: Int, depth: Int) -> [UInt8] {
        var out: [UInt8] = []
        for row in rows {
            for x in 0..<width {
                let sample: (Int) -> Int = { c in
                    depth == 8
                        ? Int(row[channels * x + c])
                        : Int(row[2 * (channels * x + c)]) << 8 | Int(row[2 * (channels * x + c) + 1])
                }
                let maximum = depth == 8 ? 255 : 65535
                if channels == 1 && depth == 8 {
                    out.append(UInt8(sample(0)))
                    continue
                }
                let rgba: [Int]
                switch channels {
                case 1: rgba = [sample(0), sample(0), sample(0), maximum]
                case 2: rgba = [sample(0), sample(0), sample(0), sample(1)]
                case 3: rgba = [sample(0), sample(1), sample(2), maximum]
                default: rgba = [sample(0), sample(1), sample(2), sample(3)]
                }
                for v in rgba {
                    if depth == 8 { out.append(UInt8(v)) } else { withUnsafeBytes(of: UInt16(v)) { out += $0 } }
                }
            }
        }
        return out
    }

    private static func bytes(_ buffer: PixelBuffer) -> [UInt8] {
        let rowBytes = buffer.width * buffer.format.bytesPerPixel
        var out: [UInt8] = []
        buffer.withUnsafeBytes { p in
            for y in 0..<buffer.height {
                out += UnsafeRawBufferPointer(rebasing: p[(y * buffer.bytesPerRow)..<(y * buffer.bytesPerRow + rowBytes)])
            }
        }
        return out
    }

    /// `bytes` decoded through `pf_png_read_pixels` in the layout `_PNGCodec.outputLayout`
    /// picks, with the direct path allowed or not (libpng alone), and whether it was taken.
    private static func decode(_ bytes: [UInt8], direct: Bool) throws -> (buffer: PixelBuffer, directly: Bool) {
        try bytes.withUnsafeBufferPointer { input in
            let decoder = pf_png_decoder_create(input.baseAddress, input.count)!
            defer { pf_png_decoder_destroy(decoder) }
            pf_png_decoder_set_direct(decoder, direct ? 1 : 0)
            var message = [CChar](repeating: 0, count: Int(PF_MESSAGE_CAPACITY))
            var header = pf_png_header()
            guard pf_png_read_header(decoder, &header, &message) == PF_OK else {
                throw PixelFlowError.decodingFailed(file: "test", reason: _Codec.message(message))
            }
            let (format, output) = _PNGCodec.outputLayout(header)
            var buffer = try PixelBuffer(width: Int(header.width), height: Int(header.height), format: format)
            let stride = buffer.bytesPerRow
            let status = buffer.withUnsafeMutableBytes { p in
                pf_png_read_pixels(decoder, output, p.baseAddress!.assumingMemoryBound(to: UInt8.self), stride, &message)
            }
            guard status == PF_OK else { throw PixelFlowError.decodingFailed(file: "test", reason: _Codec.message(message)) }
            return (buffer, pf_png_decoder_decoded_directly(decoder) != 0)
        }
    }

    private static func decodeWithLibpng(_ bytes: [UInt8]) throws -> PixelBuffer {
        let (buffer, directly) = try decode(bytes, direct: false)
        precondition(!directly)
        return buffer
    }

    func testDirectDecodeMatchesReferenceAndLibpng() throws {
        var rng = SeededRandom(seed: 11)
        let layouts: [(colorType: UInt8, channels: Int)] = [(0, 1), (2, 3), (4, 2), (6, 4)]
        for (colorType, channels) in layouts {
            for depth in [8, 16] {
                for width in 1...45 {
                    let height = 1 + width % 7
                    let rowBytes = width * channels * depth / 8
                    // Smooth rows with noise, so the filters see both runs and jumps.
                    let rows = (0..<height).map { y in
                        (0..<rowBytes).map { i in UInt8(truncatingIfNeeded: i * 3 + y * 7 + Int(rng.next() % 5)) }
                    }
                    let compressed = width % 2 == 0
                    let file = Self.png(
                        width: width, height: height, colorType: colorType, depth: depth, rows: rows,
                        filters: { ($0 + width) % 5 }, compressed: compressed, chunk: 1 + width * 3)
                    let label = "type \(colorType) depth \(depth) width \(width) compressed \(compressed)"
                    let decoded = try PixelBuffer(encoded: file, name: label)
                    XCTAssertEqual(decoded.format, depth == 16 ? .rgba16 : channels == 1 ? .gray8 : .rgba8, label)
                    let expected = Self.expected(rows, width: width, channels: channels, depth: depth)
                    XCTAssertEqual(Self.bytes(decoded), expected, label)
                    let direct = try Self.decode(file, direct: true)
                    XCTAssertTrue(direct.directly, label)
                    XCTAssertEqual(Self.bytes(direct.buffer), expected, label)
                    XCTAssertEqual(Self.bytes(try Self.decodeWithLibpng(file)), expected, "libpng: " + label)
                }
            }
        }
    }

    func testDirectDecodeOfPalettesMatchesReferenceAndLibpng() throws {
        var rng = SeededRandom(seed: 13)
        for paletteSize in [1, 2, 17, 256] {
            let colors = (0..<(3 * paletteSize)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            for alphaCount in [0, 1, paletteSize] where alphaCount <= paletteSize {
                let alphas = (0..<alphaCount).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
                var before = CodecBadInputTests.chunk("PLTE", colors)
                if alphaCount > 0 { before += CodecBadInputTests.chunk("tRNS", alphas) }
                for width in [1, 2, 3, 15, 16, 17, 45] {
                    let height = 1 + width % 5
                    let rows = (0..<height).map { _ in (0..<width).map { _ in UInt8(rng.next() % UInt64(paletteSize)) } }
                    let file = Self.png(
                        width: width, height: height, colorType: 3, depth: 8, rows: rows, filters: { ($0 + width) % 5 },
                        compressed: width % 2 == 1, chunk: 7, before: before)
                    var expected: [UInt8] = []
                    for row in rows {
                        for index in row.map(Int.init) {
                            expected += colors[(3 * index)..<(3 * index + 3)]
                            expected.append(index < alphaCount ? alphas[index] : 255)
                        }
                    }
                    let label = "palette \(paletteSize) alphas \(alphaCount) width \(width)"
                    let direct = try Self.decode(file, direct: true)
                    XCTAssertTrue(direct.directly, label)
                    XCTAssertEqual(direct.buffer.format, .rgba8, label)
                    XCTAssertEqual(Self.bytes(direct.buffer), expected, label)
                    XCTAssertEqual(Self.bytes(try PixelBuffer(encoded: file)), expected, label)
                    XCTAssertEqual(Self.bytes(try Self.decodeWithLibpng(file)), expected, "libpng: " + label)
                }
            }
        }
        // An index past the palette's end is left to libpng (the direct path steps aside), which
        // decodes as before.
        let colors: [UInt8] = [10, 20, 30, 40, 50, 60]
        let rows: [[UInt8]] = [[0, 1, 2, 1], [1, 0, 0, 1]]
        let file = Self.png(
            width: 4, height: 2, colorType: 3, depth: 8, rows: rows, filters: { _ in 0 }, compressed: true,
            before: CodecBadInputTests.chunk("PLTE", colors))
        let outside = Result { try Self.decode(file, direct: true) }
        if case .success(let decoded) = outside { XCTAssertFalse(decoded.directly) }
        let libpng = Result { try Self.bytes(Self.decodeWithLibpng(file)) }
        switch (outside, libpng) {
        case (.success(let a), .success(let b)): XCTAssertEqual(Self.bytes(a.buffer), b)
        case (.failure, .failure): break
        default: XCTFail("the direct and libpng decodes disagree on an index past the palette")
        }
    }

    func testDirectDecodeOfEncodedImagesAndFilesOnDisk() throws {
        let folder = try S.temporaryFolder(self)
        let images = [
            S.rgba8(width: 333, height: 47, alpha: true), S.rgba8(width: 45, height: 90, alpha: false),
            S.gray8(width: 101, height: 33), S.rgba16(width: 77, height: 21, alpha: true),
            S.rgba16(width: 64, height: 9, alpha: false), S.smooth(width: 300, height: 200),
        ]
        for (i, image) in images.enumerated() {
            for level in [0, 1, 9] {
                let png = try image.encoded(as: .png, options: EncodeOptions(compressionLevel: level))
                let libpng = Self.bytes(try Self.decodeWithLibpng(png))
                XCTAssertTrue(try Self.decode(png, direct: true).directly, "image \(i) level \(level)")
                XCTAssertEqual(Self.bytes(try PixelBuffer(encoded: png)), libpng, "image \(i) level \(level)")
                let path = folder + "/direct-\(i)-\(level).png"
                try Data(png).write(to: URL(fileURLWithPath: path))
                XCTAssertEqual(Self.bytes(try PixelBuffer(contentsOfFile: path)), libpng, "file \(i) level \(level)")
            }
        }
        // The fixtures, direct or not: layouts that go through libpng (1- and 2-bit, tRNS
        // without a palette, interlaced) decode as before.
        let fixtures = [
            "gray1.png": false, "gray16.png": true, "gray_alpha.png": true, "gray_trns.png": false,
            "palette8_expected.png": true, "palette_trns.png": false,
        ]
        for (name, direct) in fixtures.sorted(by: { $0.key < $1.key }) {
            let bytes = try S.fixtureBytes(name)
            XCTAssertEqual(try Self.decode(bytes, direct: true).directly, direct, name)
            XCTAssertEqual(Self.bytes(try PixelBuffer(encoded: bytes)), Self.bytes(try Self.decodeWithLibpng(bytes)), name)
        }
        let interlaced = try images[0].encoded(as: .png, options: EncodeOptions(interlaced: true))
        XCTAssertFalse(try Self.decode(interlaced, direct: true).directly)
        XCTAssertEqual(Self.bytes(try PixelBuffer(encoded: interlaced)), Self.bytes(images[0]))
    }

    func testDirectDecodeFaultsStillThrow() throws {
        let width = 20, height = 6
        let rows = (0..<height).map { y in (0..<(width * 4)).map { UInt8(truncatingIfNeeded: $0 * 5 + y) } }
        let good = Self.png(
            width: width, height: height, colorType: 6, depth: 8, rows: rows, filters: { $0 % 5 }, compressed: true)
        XCTAssertTrue(try Self.decode(good, direct: true).directly)
        // A filter byte above 4.
        var badFilter = Self.png(
            width: width, height: height, colorType: 6, depth: 8, rows: rows, filters: { $0 == 3 ? 1 : 0 }, compressed: false)
        let filterOffset = badFilter.count - 12 - 4 - 4 - (width * 4 + 1) * 3  // row 3's filter byte in the stored stream
        XCTAssertEqual(badFilter[filterOffset], 1)
        badFilter[filterOffset] = 5
        // Re-write the IDAT CRC so that only the filter byte is wrong.
        let idatStart = 8 + 25
        let idatLength = Int(badFilter._be32(idatStart))
        let body = Array(badFilter[(idatStart + 4)..<(idatStart + 8 + idatLength)])
        let crc = CodecBadInputTests.crc32(body)
        for k in 0..<4 { badFilter[idatStart + 8 + idatLength + k] = UInt8(truncatingIfNeeded: crc >> (24 - 8 * k)) }
        S.assertThrows(.decodingFailed) { try PixelBuffer(encoded: badFilter, name: "filter.png") }
        // Too little image data: the stream ends a row early.
        let short = Self.png(
            width: width, height: height, colorType: 6, depth: 8, rows: rows, filters: { _ in 0 }, compressed: true)
        var shortHeader = short
        shortHeader[8 + 8 + 7] = UInt8(height + 1)  // claim one more row
        let ihdrCRC = CodecBadInputTests.crc32(Array(shortHeader[12..<29]))
        for k in 0..<4 { shortHeader[29 + k] = UInt8(truncatingIfNeeded: ihdrCRC >> (24 - 8 * k)) }
        S.assertThrows(.decodingFailed) { try PixelBuffer(encoded: shortHeader, name: "short.png") }
        // A bad IDAT CRC, and a file cut inside the image data.
        var badCRC = good
        badCRC[badCRC.count - 13] ^= 0x01
        S.assertThrows(.decodingFailed) { try PixelBuffer(encoded: badCRC, name: "crc.png") }
        S.assertThrows(.decodingFailed) { try PixelBuffer(encoded: Array(good[..<(good.count - 30)]), name: "cut.png") }
        // Too much image data is ignored, as libpng does; the pixels are the first rows'.
        let long = Self.png(
            width: width, height: height, colorType: 6, depth: 8, rows: rows, filters: { _ in 2 }, compressed: true,
            extra: [UInt8](repeating: 0, count: 100))
        let longDecoded = try Self.decode(long, direct: true)
        XCTAssertFalse(longDecoded.directly)
        XCTAssertEqual(Self.bytes(longDecoded.buffer), Self.expected(rows, width: width, channels: 4, depth: 8))
        XCTAssertEqual(Self.bytes(try PixelBuffer(encoded: long)), Self.expected(rows, width: width, channels: 4, depth: 8))
    }
}

/// `body` with a pointer to `array`'s bytes, or nil.
private func withOptional<R>(_ array: [UInt8]?, _ body: (UnsafePointer<UInt8>?) -> R) -> R {
    guard let array else { return body(nil) }
    return array.withUnsafeBufferPointer { body($0.baseAddress) }
}
