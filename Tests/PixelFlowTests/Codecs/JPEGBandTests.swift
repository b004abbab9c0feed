import CCodecShims
import Foundation
import XCTest
@testable import PixelFlow

/// The JPEG encoder in parallel bands (`_JPEGBandEncoder`, `pf_jpeg_encode_band`). Its file is
/// checked byte for byte against one libjpeg compression with a restart marker after every
/// row of MCUs (`pf_jpeg_encode_restart`, the oracle: no bands, no stitching), its pixels
/// against a file without restart markers (decoded by libjpeg-turbo: identical), its marker
/// structure by a plain walk written here, and itself across thread counts and between the
/// whole-buffer and the row encoder. scripts/check_jpeg_bands.py decodes the CLI's files with
/// Pillow and OpenCV.
final class JPEGBandTests: TemporaryDirectoryTestCase {
    private typealias S = CodecTestSupport

    /// Smooth shading plus noise, as photographs look to a JPEG encoder.
    private func photo(width: Int, height: Int, format: PixelFormat, seed: UInt64 = 7) -> PixelBuffer {
        var rng = SeededRandom(seed: seed)
        var b = try! PixelBuffer(width: width, height: height, format: .rgba8)
        b.withUnsafeMutableRows { y, row in
            let p = row.assumingMemoryBound(to: UInt8.self)
            for x in 0..<width {
                let u = Double(x) / Double(width), v = Double(y) / Double(height)
                let base = [0.5 + 0.4 * sin(9 * u + 3 * v), v, 0.5 + 0.3 * cos(7 * u * v)]
                for c in 0..<3 {
                    let n = (Double(rng.next() % 1000) / 1000 - 0.5) * 0.08
                    p[4 * x + c] = UInt8(max(0, min(255, (base[c] + n) * 255)))
                }
                p[4 * x + 3] = 255
            }
        }
        return format == .rgba8 ? b : b.converted(to: format)
    }

    private let metadata = _EmbeddedMetadata(
        iccProfile: [UInt8](repeating: 0x5A, count: 70_000),
        exif: [0x4D, 0x4D, 0, 42, 0, 0, 0, 8, 0, 0])

    private func options(_ chroma: EncodeOptions.ChromaSubsampling = .yuv420, threads: Int? = 2) -> EncodeOptions {
        EncodeOptions(chromaSubsampling: chroma, threadCount: threads)
    }

    /// One libjpeg compression of `b` with `restart_in_rows` = `restartRows`.
    private func oneCompression(
        _ b: PixelBuffer, quality: Int, chroma: EncodeOptions.ChromaSubsampling, restartRows: Int,
        metadata: _EmbeddedMetadata
    ) -> [UInt8] {
        var message = [CChar](repeating: 0, count: Int(PF_MESSAGE_CAPACITY))
        var output: UnsafeMutablePointer<UInt8>?
        var size = 0
        let status = metadata.withBlocks { blocks in
            b.withUnsafeBytes { pixels in
                pf_jpeg_encode_restart(
                    pixels.baseAddress!.assumingMemoryBound(to: UInt8.self), b.bytesPerRow, UInt32(b.width),
                    UInt32(b.height), b.format == .gray8 ? 1 : 4, Int32(quality),
                    Int32(_JPEGCodec.subsampling(chroma)), 0, Int32(restartRows), blocks, &output, &size, &message)
            }
        }
        defer { pf_free(output) }
        XCTAssertEqual(status, Int32(PF_OK), _Codec.message(message))
        guard let output else { return [] }
        return Array(UnsafeBufferPointer(start: output, count: size))
    }

    private func decode(_ bytes: [UInt8]) throws -> PixelBuffer {
        try _JPEGCodec.decodeStored(bytes, name: "band test", options: .default).buffer
    }

    private func samePixels(_ a: PixelBuffer, _ b: PixelBuffer) -> Bool {
        guard a.width == b.width, a.height == b.height, a.format == b.format else { return false }
        let rowBytes = a.width * a.format.bytesPerPixel
        return a.withUnsafeBytes { pa in
            b.withUnsafeBytes { pb in
                (0..<a.height).allSatisfy { y in
                    memcmp(pa.baseAddress! + y * a.bytesPerRow, pb.baseAddress! + y * b.bytesPerRow, rowBytes) == 0
                }
            }
        }
    }

    /// The marker structure of a baseline file: SOI first, segments up to one SOS, the
    /// entropy-coded data, EOI last; the frame's size, the DRI interval, and the RST markers
    /// in the data in order (0, 1, ..., 7, 0, ...).
    private struct Layout {
        var frame: (width: Int, height: Int)?
        var restartInterval: Int?
        var restarts = 0
        var restartsInOrder = true
        var scans = 0
        var segments: [UInt8] = []
        var endsWithEOI = false
    }

    private func layout(_ f: [UInt8]) -> Layout {
        var l = Layout()
        guard f.count >= 4, f[0] == 0xFF, f[1] == 0xD8 else { return l }
        var i = 2
        while i + 4 <= f.count, f[i] == 0xFF {
            let marker = f[i + 1], length = Int(f[i + 2]) << 8 | Int(f[i + 3])
            l.segments.append(marker)
            if marker == 0xC0 { l.frame = (Int(f[i + 7]) << 8 | Int(f[i + 8]), Int(f[i + 5]) << 8 | Int(f[i + 6])) }
            if marker == 0xDD { l.restartInterval = Int(f[i + 4]) << 8 | Int(f[i + 5]) }
            i += 2 + length
            if marker == 0xDA {
                l.scans += 1
                break
            }
        }
        while i + 1 < f.count {
            if f[i] != 0xFF {
                i += 1
                continue
            }
            let next = f[i + 1]
            if (0xD0...0xD7).contains(next) {
                if Int(next - 0xD0) != l.restarts % 8 { l.restartsInOrder = false }
                l.restarts += 1
            } else if next == 0xD9 {
                l.endsWithEOI = i + 2 == f.count
                break
            } else if next != 0x00 {
                l.segments.append(next)  // any other marker in the data is wrong
            }
            i += 2
        }
        return l
    }

    /// Sizes with 2 to 90 bands, heights and widths off the MCU grid, every layout.
    private let cases: [(PixelFormat, EncodeOptions.ChromaSubsampling, Int, Int)] = [
        (.rgba8, .yuv420, 1000, 700), (.rgba8, .yuv420, 5000, 150), (.rgba8, .yuv420, 333, 2900),
        (.rgba8, .yuv422, 4097, 200), (.rgba8, .yuv444, 1025, 601), (.gray8, .yuv420, 3000, 333),
        (.gray8, .yuv420, 8000, 100),
    ]

    func testBandsAreOneCompressionWithRestartsByteForByte() throws {
        for (format, chroma, width, height) in cases {
            let b = photo(width: width, height: height, format: format)
            for quality in [90, 30] {
                let what = "\(format) \(chroma.rawValue) \(width)x\(height) q\(quality)"
                let banded = try _JPEGCodec.encode(
                    b, quality: quality, name: what, options: options(chroma), metadata: metadata)
                let oracle = oneCompression(b, quality: quality, chroma: chroma, restartRows: 1, metadata: metadata)
                XCTAssertTrue(banded == oracle, "\(what): \(banded.count) bytes, one compression \(oracle.count)")
            }
        }
    }

    func testPixelsEqualAFileWithoutRestarts() throws {
        for (format, chroma, width, height) in cases {
            let b = photo(width: width, height: height, format: format, seed: 11)
            let what = "\(format) \(chroma.rawValue) \(width)x\(height)"
            let banded = try _JPEGCodec.encode(b, quality: 90, name: what, options: options(chroma))
            var plain = options(chroma)
            plain.restartMarkers = false
            let serial = try _JPEGCodec.encode(b, quality: 90, name: what, options: plain)
            XCTAssertNil(layout(serial).restartInterval, what)
            XCTAssertTrue(banded != serial, what)
            XCTAssertTrue(samePixels(try decode(banded), try decode(serial)), what)
            XCTAssertTrue(
                serial == oneCompression(b, quality: 90, chroma: chroma, restartRows: 0, metadata: .none), what)
        }
    }

    func testFileStructure() throws {
        for (format, chroma, width, height) in cases {
            let b = photo(width: width, height: height, format: format)
            let what = "\(format) \(chroma.rawValue) \(width)x\(height)"
            let file = try _JPEGCodec.encode(b, quality: 85, name: what, options: options(chroma), metadata: metadata)
            let l = layout(file)
            let mcuWidth = format == .gray8 || chroma == .yuv444 ? 8 : 16
            let mcuHeight = format == .rgba8 && chroma == .yuv420 ? 16 : 8
            XCTAssertEqual(l.frame?.width, width, what)
            XCTAssertEqual(l.frame?.height, height, what)
            XCTAssertEqual(l.restartInterval, (width + mcuWidth - 1) / mcuWidth, what)
            XCTAssertEqual(l.restarts, (height + mcuHeight - 1) / mcuHeight - 1, what)
            XCTAssertTrue(l.restartsInOrder, what)
            XCTAssertEqual(l.scans, 1, what)
            XCTAssertTrue(l.endsWithEOI, what)
            // One APP0, one EXIF APP1, two ICC APP2 (70 000 bytes), no stray markers in the data.
            XCTAssertEqual(l.segments.filter { $0 == 0xE0 }.count, 1, what)
            XCTAssertEqual(l.segments.filter { $0 == 0xE1 }.count, 1, what)
            XCTAssertEqual(l.segments.filter { $0 == 0xE2 }.count, 2, what)
            XCTAssertEqual(l.segments.last, 0xDA, what)
            let decoded = try _JPEGCodec.decodeStored(file, name: what, options: .default)
            XCTAssertEqual(decoded.metadata.iccProfile, metadata.iccProfile, what)
        }
    }

    /// `b` written by `_JPEGRowEncoder` in strips of random heights.
    private func encodeByRows(_ b: PixelBuffer, options: EncodeOptions, seed: UInt64) throws -> [UInt8] {
        let out = directory.appendingPathComponent("rows.jpg").path
        let fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        XCTAssertGreaterThanOrEqual(fd, 0)
        defer { close(fd) }
        let encoder = try _JPEGRowEncoder(
            fileDescriptor: fd, width: b.width, height: b.height, format: b.format, quality: 90,
            options: options, name: out, metadata: metadata)
        try writeInRandomStrips(b, to: encoder, seed: seed)
        return [UInt8](try Data(contentsOf: URL(fileURLWithPath: out)))
    }

    func testBytesAreTheSameForEveryThreadCountAndBothEncoders() throws {
        for (format, chroma, width, height) in cases {
            let b = photo(width: width, height: height, format: format)
            let what = "\(format) \(chroma.rawValue) \(width)x\(height)"
            let one = try _JPEGCodec.encode(
                b, quality: 90, name: what, options: options(chroma, threads: 1), metadata: metadata)
            for threads in [2, 3, nil] {
                XCTAssertTrue(
                    try _JPEGCodec.encode(
                        b, quality: 90, name: what, options: options(chroma, threads: threads), metadata: metadata)
                        == one, "\(what), \(threads.map(String.init) ?? "default") threads")
            }
            for (threads, seed) in [(1, UInt64(1)), (2, 2), (3, 3)] {
                XCTAssertTrue(
                    try encodeByRows(b, options: options(chroma, threads: threads), seed: seed) == one,
                    "\(what), row encoder, \(threads) threads")
            }
            var plain = options(chroma)
            plain.restartMarkers = false
            XCTAssertTrue(
                try encodeByRows(b, options: plain, seed: 4)
                    == (try _JPEGCodec.encode(b, quality: 90, name: what, options: plain, metadata: metadata)),
                "\(what), row encoder without restarts")
        }
    }

    /// A streamed JPEG write whose image reads a streamed source at least as large as the output
    /// compresses on one thread (`RenderContext.readsStreamedSource`); the file is the same as
    /// with the bands on two and three threads and as the whole buffer's.
    func testStreamedWriteFromStreamedSourceIsTheBandsFile() throws {
        let b = photo(width: 1200, height: 900, format: .rgba8)
        let input = directory.appendingPathComponent("in.jpg").path
        try b.write(toFile: input, quality: 95)
        let source = try Image(contentsOfFile: input)
        let buffered = Image(try PixelBuffer(contentsOfFile: input))
        let sharpened = try source.clampedToExtent().convolved3x3(weights: [0, -1, 0, -1, 5, -1, 0, -1, 0])
            .cropped(to: source.extent)
        let extent = source.extent
        XCTAssertTrue(RenderContext.readsStreamedSource(sharpened, ofAtLeast: 1200 * 900))
        XCTAssertFalse(RenderContext.readsStreamedSource(sharpened, ofAtLeast: 1200 * 900 + 1))
        XCTAssertFalse(RenderContext.readsStreamedSource(buffered, ofAtLeast: 1))
        let ctx = RenderContext(threadCount: 2, colorManagement: .none)
        func written(_ image: Image, _ name: String, threads: Int?) throws -> [UInt8] {
            let out = directory.appendingPathComponent(name).path
            var o = EncodeOptions.default
            o.threadCount = threads
            try ctx.write(image, toFile: out, rect: extent, quality: 90, encodeOptions: o)
            return [UInt8](try Data(contentsOf: URL(fileURLWithPath: out)))
        }
        let one = try written(sharpened, "default.jpg", threads: nil)
        XCTAssertNotNil(layout(one).restartInterval, "the bands' restart markers")
        XCTAssertTrue(try written(sharpened, "two.jpg", threads: 2) == one)
        XCTAssertTrue(try written(sharpened, "three.jpg", threads: 3) == one)
        XCTAssertTrue(try ctx.encoded(sharpened, as: .jpeg, rect: extent, quality: 90) == one)
    }

    /// Small images (fewer than two bands), progressive files and `restartMarkers: false` are one
    /// compression without restart markers, as before bands existed.
    func testSmallProgressiveAndDisabledAreOneCompression() throws {
        let small = photo(width: 640, height: 400, format: .rgba8)
        XCTAssertNil(_JPEGBandEncoder.bandRows(width: 640, height: 400, components: 4, subsampling: 0))
        let file = try _JPEGCodec.encode(small, quality: 90, name: "small", options: options())
        XCTAssertTrue(file == oneCompression(small, quality: 90, chroma: .yuv420, restartRows: 0, metadata: .none))
        let large = photo(width: 1000, height: 700, format: .rgba8)
        var progressive = options()
        progressive.progressive = true
        let p = try _JPEGCodec.encode(large, quality: 90, name: "progressive", options: progressive)
        XCTAssertNil(layout(p).restartInterval)
        XCTAssertTrue(p.contains(0xFF) && p.firstRange(of: [0xFF, 0xC2]) != nil, "a progressive frame")
    }

    /// The file-size cost of the restart markers on a photograph-like image, within a bound.
    func testRestartMarkersCostLittle() throws {
        let b = photo(width: 1920, height: 1080, format: .rgba8)
        let banded = try _JPEGCodec.encode(b, quality: 90, name: "size", options: options())
        var plain = options()
        plain.restartMarkers = false
        let serial = try _JPEGCodec.encode(b, quality: 90, name: "size", options: plain)
        let mcuRows = (1080 + 15) / 16
        // Per row of MCUs: 2 marker bytes, at most 1 of padding, and the 3 DC values coded
        // whole instead of as differences (at most 3 more bytes); 6 bytes of DRI.
        XCTAssertGreaterThan(banded.count, serial.count)
        XCTAssertLessThanOrEqual(banded.count - serial.count, 6 + 6 * mcuRows)
    }

    func testBandsOffTheMCUGridAreRefused() {
        let b = photo(width: 64, height: 64, format: .rgba8)
        for (first, rows) in [(8, 16), (16, 8), (0, 0), (48, 32)] {
            var message = [CChar](repeating: 0, count: Int(PF_MESSAGE_CAPACITY))
            var output: UnsafeMutablePointer<UInt8>?
            var size = 0
            let status = b.withUnsafeBytes { pixels in
                pf_jpeg_encode_band(
                    pixels.baseAddress!.assumingMemoryBound(to: UInt8.self), b.bytesPerRow, 64, UInt32(rows), 64,
                    UInt32(first), 4, 90, Int32(PF_JPEG_SUBSAMPLING_420), nil, &output, &size, &message)
            }
            XCTAssertEqual(status, Int32(PF_ERROR), "band \(first) + \(rows)")
            XCTAssertNil(output)
            XCTAssertTrue(_Codec.message(message).contains("row of MCUs"), _Codec.message(message))
        }
    }
}
