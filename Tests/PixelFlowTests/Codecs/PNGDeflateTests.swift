import CCodecShims
import Foundation
import XCTest
@testable import PixelFlow
@testable import PixelFlowKernels
@testable import PixelFlowGraph
@testable import PixelFlowEngine

/// PixelFlow's deflate encoder (`pf_deflate`, Sources/CCodecShims/pf_deflate.c), checked by
/// zlib's inflate, an independent decoder: byte streams that stress each part of it (stored
/// blocks for random bytes, 258-byte matches, every distance up to the window, dictionaries,
/// empty and one-byte pieces, long inputs) at every level, cut into pieces as the PNG encoder
/// cuts image data; then whole PNG files at every level decoded by libpng (exact pixels), by
/// zlib (the image data, against the filters' scalar reference in PNGEncoderTests), and by
/// Pillow when Python has it.
final class PNGDeflateTests: TemporaryDirectoryTestCase {
    private typealias S = CodecTestSupport

    // MARK: Streams

    /// `data` compressed at `level` in pieces of `piece` bytes, each primed with the (up to
    /// 32 KiB of) bytes before it, and framed as one zlib stream (header, pieces, adler32).
    private func zlibStream(_ data: [UInt8], level: Int32, piece: Int) -> [UInt8] {
        var stream: [UInt8] = [0x78, 0x01]
        var start = 0
        repeat {
            let end = Swift.min(data.count, start + piece)
            var out = [UInt8](repeating: 0, count: pf_deflate_bound(end - start))
            var written = 0
            let status = data.withUnsafeBufferPointer { d in
                out.withUnsafeMutableBufferPointer { o in
                    pf_deflate(
                        d.baseAddress! + start, end - start, start, level, end == data.count ? 1 : 0,
                        o.baseAddress, &written)
                }
            }
            XCTAssertEqual(status, 0)
            XCTAssertLessThanOrEqual(written, out.count)
            stream += out[0..<written]
            start = end
        } while start < data.count
        let adler = Self.adler32(data)
        return stream + [UInt8(adler >> 24), UInt8((adler >> 16) & 255), UInt8((adler >> 8) & 255), UInt8(adler & 255)]
    }

    /// Adler-32 of RFC 1950, byte by byte.
    private static func adler32(_ bytes: [UInt8]) -> UInt32 {
        var a: UInt32 = 1, b: UInt32 = 0
        for x in bytes {
            a = (a + UInt32(x)) % 65521
            b = (b + a) % 65521
        }
        return b << 16 | a
    }

    /// zlib's inflate of `stream` (which checks the adler32), or nil when it fails.
    private func inflate(_ stream: [UInt8], size: Int) -> [UInt8]? {
        var out = [UInt8](repeating: 0, count: size + 1)
        var got = 0
        let status = stream.withUnsafeBufferPointer { z in
            out.withUnsafeMutableBufferPointer { o in pf_zlib_inflate(z.baseAddress, z.count, o.baseAddress, o.count, &got) }
        }
        return status == PF_OK ? Array(out[0..<got]) : nil
    }

    /// Inputs that reach every kind of block and symbol.
    private func streams() -> [(String, [UInt8])] {
        var rng = SeededRandom(seed: 11)
        let random = (0..<200_000).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
        // Few distinct bytes: short matches everywhere, few literals.
        let lowEntropy = (0..<300_000).map { _ in UInt8(rng.next() % 3) }
        // A 300-byte motif at every shift, so matches at every distance up to the window.
        let motif = (0..<300).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
        var shifted: [UInt8] = []
        for k in 0..<900 { shifted += motif[(k % 300)...] + motif[..<(k % 300)] + [UInt8(k & 255)] }
        // Runs of one value of every length, and periods of 1 to 40 bytes.
        var runs: [UInt8] = []
        for k in 1..<700 { runs += [UInt8](repeating: UInt8(k % 7), count: k) }
        var periods: [UInt8] = []
        for p in 1...40 { for i in 0..<(97 * p) { periods.append(UInt8(truncatingIfNeeded: i % p * 37)) } }
        // A block far away repeated: matches only through a dictionary when cut into pieces.
        let far = random[0..<20_000] + lowEntropy[0..<12_000] + random[0..<20_000]
        return [
            ("empty", []), ("one byte", [42]), ("seven bytes", [1, 2, 3, 1, 2, 3, 1]),
            ("random", random), ("zeros", [UInt8](repeating: 0, count: 150_000)), ("low entropy", lowEntropy),
            ("shifted motif", shifted), ("runs", runs), ("periods", periods), ("far repeat", Array(far)),
        ]
    }

    /// Every stream at every level, whole and in pieces of several sizes (with dictionaries),
    /// inflates back exactly; the output fits `pf_deflate_bound`; random bytes grow by under 1%.
    func testEveryStreamInflatesBackAtEveryLevel() throws {
        for (name, data) in streams() {
            for level in Int32(1)...Int32(PF_DEFLATE_MAX_LEVEL) {
                for piece in [1 << 30, 65_536, 10_007] {
                    let what = "\(name), level \(level), pieces of \(piece)"
                    let stream = zlibStream(data, level: level, piece: piece)
                    XCTAssertTrue(inflate(stream, size: data.count) == data, what)
                    if name == "random", piece > data.count {
                        XCTAssertLessThan(Double(stream.count), Double(data.count) * 1.01, what)
                    }
                    if name == "zeros" { XCTAssertLessThan(stream.count, data.count / 100, what) }
                }
            }
        }
    }

    /// A piece whose bytes repeat the 32 KiB before it compresses to a few hundred bytes with
    /// that dictionary: matches reach back into it.
    func testDictionaryIsUsed() throws {
        var rng = SeededRandom(seed: 4)
        let block = (0..<30_000).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
        let data = block + block
        for level in Int32(1)...Int32(PF_DEFLATE_MAX_LEVEL) {
            var out = [UInt8](repeating: 0, count: pf_deflate_bound(block.count))
            var written = 0
            _ = data.withUnsafeBufferPointer { d in
                out.withUnsafeMutableBufferPointer { o in
                    pf_deflate(d.baseAddress! + block.count, block.count, block.count, level, 1, o.baseAddress, &written)
                }
            }
            XCTAssertLessThan(written, 400, "level \(level)")
            XCTAssertTrue(inflate(zlibStream(data, level: level, piece: block.count), size: data.count) == data)
        }
    }

    /// A level outside 1...9 is refused.
    func testBadLevelIsRefused() {
        var out = [UInt8](repeating: 0, count: 64)
        var written = 0
        let byte: [UInt8] = [1]
        for level in [Int32(0), 10, -1] {
            let status = byte.withUnsafeBufferPointer { d in
                out.withUnsafeMutableBufferPointer { o in pf_deflate(d.baseAddress, 1, 0, level, 1, o.baseAddress, &written) }
            }
            XCTAssertEqual(status, -1)
        }
    }

    // MARK: Files

    /// Random and structured images in every layout, odd widths included.
    private func images() -> [(String, PixelBuffer)] {
        var out: [(String, PixelBuffer)] = []
        for (w, h) in [(1, 1), (3, 5), (37, 29), (257, 64)] {
            out.append(("random rgba8 \(w)x\(h)", S.rgba8(width: w, height: h, alpha: true, seed: UInt64(w))))
            out.append(("random rgb8 \(w)x\(h)", S.rgba8(width: w, height: h, alpha: false, seed: UInt64(h))))
            out.append(("random gray8 \(w)x\(h)", S.gray8(width: w, height: h, seed: UInt64(w + h))))
            out.append(("random rgba16 \(w)x\(h)", S.rgba16(width: w, height: h, alpha: true, seed: UInt64(w * h))))
            out.append(("random rgb16 \(w)x\(h)", S.rgba16(width: w, height: h, alpha: false, seed: 7)))
        }
        // Flat areas, stripes and a gradient: long matches and runs.
        for format in [PixelFormat.rgba8, .gray8, .rgba16] {
            var b = try! PixelBuffer(width: 301, height: 203, format: .rgba16)
            b.withUnsafeMutableRows { y, row in
                let p = row.assumingMemoryBound(to: UInt16.self)
                for x in 0..<301 {
                    let flat: UInt16 = (x / 40 + y / 30) % 3 == 0 ? 0xFFFF : 0x3000
                    let v = x < 100 ? flat : (x < 200 ? UInt16((x % 8) * 8000) : UInt16((x * 200 + y * 50) & 0xFFFF))
                    p[4 * x] = v
                    p[4 * x + 1] = 0xFFFF &- v
                    p[4 * x + 2] = UInt16(y * 300)
                    p[4 * x + 3] = y < 100 ? 0xFFFF : UInt16(30_000 + x * 10)
                }
            }
            out.append(("structured \(format)", format == .rgba16 ? b : b.converted(to: format)))
        }
        return out
    }

    /// Every image at every level (0...9): libpng decodes the exact pixels back, the image data
    /// inflates with zlib to one filter byte plus the row per row, and the file is the same
    /// bytes at 1 and 2 threads.
    func testFilesRoundTripAtEveryLevel() throws {
        for (name, b) in images() {
            for level in 0...9 {
                let what = "\(name), level \(level)"
                let one = try b.encoded(as: .png, options: EncodeOptions(compressionLevel: level, threadCount: 1))
                let two = try b.encoded(as: .png, options: EncodeOptions(compressionLevel: level, threadCount: 2))
                XCTAssertTrue(one == two, "\(what): thread counts differ")
                XCTAssertEqual(try PixelBuffer(encoded: one), b, what)
                let channels = b.format == .gray8 ? 1 : (_Codec.isOpaque(b) ? 3 : 4)
                let rowBytes = b.width * channels * (b.format == .rgba16 ? 2 : 1)
                XCTAssertEqual(try imageData(one)?.count, b.height * (rowBytes + 1), what)
            }
        }
    }

    /// The IDAT chunks of a PNG joined and inflated by zlib.
    private func imageData(_ file: [UInt8]) throws -> [UInt8]? {
        var zlib: [UInt8] = []
        var offset = 8
        while offset + 12 <= file.count {
            let length = file._be32(offset)
            if file[(offset + 4)..<(offset + 8)].elementsEqual("IDAT".utf8) { zlib += file[(offset + 8)..<(offset + 8 + length)] }
            offset += 12 + length
        }
        return inflate(zlib, size: 1 << 24)
    }

    /// Pillow (whose PNG decoder is its own, over zlib) reads every image at levels 1, 2, 6
    /// and 9 back to the same samples (the high bytes of 16-bit RGB and RGBA, which Pillow
    /// reads as 8-bit). Skipped when `python3` with Pillow and NumPy is not installed.
    func testPillowDecodesEveryLevel() throws {
        let check = Process()
        check.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        check.arguments = ["python3", "-c", "import PIL, numpy"]
        check.standardError = FileHandle.nullDevice
        guard (try? check.run()) != nil else { throw XCTSkip("no python3") }
        check.waitUntilExit()
        guard check.terminationStatus == 0 else { throw XCTSkip("python3 has no Pillow and NumPy") }

        // Each file beside its expected samples (the PNG's own layout: 16-bit big-endian).
        var names: [String] = []
        for (index, (_, b)) in images().enumerated() {
            let channels = b.format == .gray8 ? 1 : (_Codec.isOpaque(b) ? 3 : 4)
            var samples: [UInt8] = []
            for y in 0..<b.height {
                for x in 0..<b.width {
                    let p = S.pixel(b, x, y)
                    for c in 0..<channels {
                        if b.format == .rgba16 {
                            samples += [UInt8(p[c] >> 8), UInt8(p[c] & 255)]
                        } else {
                            samples.append(UInt8(p[c]))
                        }
                    }
                }
            }
            for level in [1, 2, 6, 9] {
                let name = "image\(index)-level\(level)"
                let png = try b.encoded(as: .png, options: EncodeOptions(compressionLevel: level))
                try Data(png).write(to: directory.appendingPathComponent(name + ".png"))
                try Data(samples).write(to: directory.appendingPathComponent(name + ".raw"))
                names.append(name)
            }
        }
        let script = """
            import sys, numpy as np
            from PIL import Image
            bad = []
            for name in sys.argv[2:]:
                im = Image.open(f"{sys.argv[1]}/{name}.png")
                im.load()
                raw = open(f"{sys.argv[1]}/{name}.raw", "rb").read()
                a = np.asarray(im)
                if a.dtype != np.uint8:
                    a = a.astype(">u2")
                elif len(raw) == 2 * a.size:
                    raw = raw[0::2]  # Pillow reads 16-bit RGB(A) as 8-bit: the high bytes
                if a.tobytes() != raw:
                    bad.append(f"{name} ({im.mode})")
            print(" ".join(bad))
            sys.exit(1 if bad else 0)
            """
        let run = Process()
        run.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        run.arguments = ["python3", "-c", script, directory.path] + names
        let pipe = Pipe()
        run.standardOutput = pipe
        try run.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        run.waitUntilExit()
        XCTAssertEqual(run.terminationStatus, 0, "Pillow read different samples: \(output)")
    }
}
