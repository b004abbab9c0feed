import Foundation
import XCTest
@testable import PixelFlow
@testable import PixelFlowKernels
@testable import PixelFlowGraph
@testable import PixelFlowEngine
#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Decompression bombs: small files that declare or expand to huge images, or that make a
/// decoder loop. Each must be refused with a clear error, and `pixelflow apply BOMB out.png`
/// run as a child process must fail within a second with a peak resident size under 64 MiB
/// (the child's own `VmHWM`, which it prints when asked; see `PeakMemory` in the tool),
/// leaving no output file.
final class DecompressionBombTests: TemporaryDirectoryTestCase {
    typealias S = CodecTestSupport
    typealias Bombs = DecompressionBombs

    /// Wall time and peak memory allowed to the child that decodes a bomb.
    static let maximumSeconds = 1.0
    static let maximumResidentBytes = 64 << 20

    // MARK: In process: the error each bomb gets

    func testHeaderLiesAreRefusedBeforeAllocating() throws {
        for (name, bytes) in [
            ("png", Bombs.headerLiePNG()), ("jpeg", try Bombs.headerLieJPEG()),
            ("pnm", Bombs.headerLiePNM()), ("bmp", Bombs.headerLieBMP()),
        ] {
            let error = S.assertThrows(.limitExceeded) { try PixelBuffer(encoded: bytes, name: "bomb.\(name)") }
            XCTAssertTrue("\(String(describing: error))".contains("bomb.\(name)"), "\(name): \(String(describing: error))")
        }
    }

    func testInflatingPNGIsRefusedAtItsHeader() throws {
        let bomb = Bombs.inflatingPNG(width: 20_000, height: 20_000)
        XCTAssertLessThan(bomb.count, 4 << 20, "the bomb is small")
        S.assertThrows(.limitExceeded) { try PixelBuffer(encoded: bomb, name: "inflate.png") }
        // The same construction at a size within the limits is a valid PNG: the bomb is real.
        let small = try PixelBuffer(encoded: Bombs.inflatingPNG(width: 300, height: 200))
        XCTAssertEqual(small.width, 300)
        XCTAssertEqual(small.height, 200)
        XCTAssertEqual(small.format, .gray8)
        small.withUnsafeRows { _, row in
            for x in 0..<300 { XCTAssertEqual(row.load(fromByteOffset: x, as: UInt8.self), 0) }
        }
    }

    func testSizeLiesWithinTheLimitsNeedTheirBytes() throws {
        // 9000 x 9000 is within the default limits; the files hold a few bytes of pixels.
        S.assertThrows(.decodingFailed) { try PixelBuffer(encoded: Bombs.headerLiePNM(width: 9000, height: 9000)) }
        S.assertThrows(.decodingFailed) { try PixelBuffer(encoded: Bombs.headerLieBMP(width: 9000, height: 9000)) }
    }

    func testProgressiveJPEGWithThousandsOfScansIsRefused() throws {
        let bomb = try Bombs.manyScansJPEG(scans: 4000)
        let error = S.assertThrows(.limitExceeded) { try PixelBuffer(encoded: bomb, name: "scans.jpg") }
        XCTAssertTrue("\(String(describing: error))".contains("scans"))
        // Within the limit the same construction decodes.
        XCTAssertNoThrow(try PixelBuffer(encoded: try Bombs.manyScansJPEG(scans: 100)))
    }

    func testPNGWithThousandsOfTextChunksIsRefused() throws {
        let bomb = try Bombs.manyTextChunksPNG(chunks: 5000)
        let error = S.assertThrows(.limitExceeded) { try PixelBuffer(encoded: bomb, name: "text.png") }
        XCTAssertTrue("\(String(describing: error))".contains("chunks"))
        // A few text chunks are fine, and the limit is adjustable.
        XCTAssertNoThrow(try PixelBuffer(encoded: try Bombs.manyTextChunksPNG(chunks: 20)))
        var options = DecodeOptions.default
        options.maximumPNGAncillaryChunks = 10_000
        XCTAssertNoThrow(try PixelBuffer(encoded: bomb, options: options))
    }

    /// Found by the jpeg fuzz target: 564 bytes declaring 65495 x 1512 whose scan ends at
    /// EOI after a few bytes. libjpeg fills the rest with zeros (a warning), which cost a full
    /// 99-megapixel decode and EXIF rotation; a scan cut short is now refused like a
    /// truncated file.
    /// Two 2.3 KB HEIC files found by fuzz-heif whose item declares no bit depth (libheif
    /// 1.15 reports -1): heif_decode_image allocated about 865 MB for their 64x48 image and the
    /// decode took 3.3 s and 2.5 GB before failing. They are refused before decoding now.
    func testHEIFItemWithoutBitDepthIsRefusedBeforeDecoding() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        for name in ["regression-no-bit-depth-2500mb", "regression-no-bit-depth-timeout"] {
            let found = [UInt8](try Data(contentsOf: root.appendingPathComponent("Fuzz/corpus/heif/" + name)))
            let error = S.assertThrows(.decodingFailed) { try PixelBuffer(encoded: found, name: name) }
            XCTAssertTrue("\(String(describing: error))".contains("bit depth"), String(describing: error))
            S.assertThrows(.decodingFailed) { try ImageFile(encoded: found, name: name).frames() }
        }
    }

    func testJPEGWhoseScanIsCutShortIsRefused() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        let found = [UInt8](
            try Data(
                contentsOf: root.appendingPathComponent(
                    "Fuzz/corpus/jpeg/regression-scan-cut-short-99mp.jpg")))
        let error = S.assertThrows(.decodingFailed) { try PixelBuffer(encoded: found, name: "cut.jpg") }
        XCTAssertTrue("\(String(describing: error))".contains("truncated"), String(describing: error))
        // The same for PixelFlow's own files cut in the middle of their scan data and closed
        // with an EOI marker.
        for progressive in [false, true] {
            let jpeg = try S.rgba8(width: 64, height: 64, alpha: false)
                .encoded(as: .jpeg, options: EncodeOptions(progressive: progressive))
            let cut = Array(jpeg[..<(jpeg.count * 3 / 4)]) + [0xFF, 0xD9]
            S.assertThrows(.decodingFailed) { try PixelBuffer(encoded: cut, name: "cut.jpg") }
        }
    }

    // MARK: In a child process: time and memory

    func testBombsFailFastAndSmallInAChildProcess() throws {
        let bombs: [(String, [UInt8])] = [
            ("header-lie.png", Bombs.headerLiePNG()), ("header-lie.jpg", try Bombs.headerLieJPEG()),
            ("header-lie.pgm", Bombs.headerLiePNM()), ("header-lie.bmp", Bombs.headerLieBMP()),
            ("inflate-20000.png", Bombs.inflatingPNG(width: 20_000, height: 20_000)),
            ("scans-4000.jpg", try Bombs.manyScansJPEG(scans: 4000)),
            ("text-5000.png", try Bombs.manyTextChunksPNG(chunks: 5000)),
            (
                "scan-cut-short-99mp.jpg",
                [UInt8](
                    try Data(
                        contentsOf: URL(fileURLWithPath: #filePath)
                            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
                            .deletingLastPathComponent().appendingPathComponent(
                                "Fuzz/corpus/jpeg/regression-scan-cut-short-99mp.jpg")))
            ),
            ("size-lie-9000.pgm", Bombs.headerLiePNM(width: 9000, height: 9000)),
            ("size-lie-9000.bmp", Bombs.headerLieBMP(width: 9000, height: 9000)),
        ]
        let pixelflow = try CLITests.executable("pixelflow")
        // The tool's own size before it reads a file: about 20 MiB, more under a sanitizer.
        let idle = try ChildProcess.run(pixelflow.path, ["--help"], stderrPath: directory.appendingPathComponent("idle.err").path)
        let baseline = idle.reportedPeakBytes ?? 0
        // 64 MiB in an ordinary build; under a sanitizer, whose runtime alone may pass 64 MiB,
        // the bomb may add no more than an ordinary build's 64 MiB leaves above its baseline.
        let limit = Swift.max(Self.maximumResidentBytes, baseline + Self.maximumResidentBytes - (24 << 20))
        print(
            String(
                format: "pixelflow --help: peak RSS %.1f MiB; bombs must stay under %.1f MiB",
                Double(baseline) / 1_048_576, Double(limit) / 1_048_576))
        for (name, bytes) in bombs {
            let input = directory.appendingPathComponent(name).path
            let output = directory.appendingPathComponent(name + ".out.png").path
            try Data(bytes).write(to: URL(fileURLWithPath: input))
            let child = try ChildProcess.run(
                pixelflow.path, ["apply", input, output],
                stderrPath: directory.appendingPathComponent(name + ".err").path)
            let peak = child.reportedPeakBytes ?? child.maximumResidentBytes
            print(
                String(
                    format: "bomb %@ (%d bytes): exit %d in %.3f s, peak RSS %.1f MiB (wait4: %.1f MiB)", name,
                    bytes.count, child.exitStatus, child.seconds, Double(peak) / 1_048_576,
                    Double(child.maximumResidentBytes) / 1_048_576))
            XCTAssertEqual(child.exitStatus, 1, "\(name): \(child.stderr)")
            XCTAssertTrue(child.stderr.contains(name), "\(name): the error names the file: \(child.stderr)")
            let expected = name.hasPrefix("size-lie") || name.hasPrefix("scan-cut") ? "truncated" : "exceeds the limit"
            XCTAssertTrue(child.stderr.contains(expected), "\(name): \(child.stderr)")
            XCTAssertLessThan(child.seconds, Self.maximumSeconds, "\(name): \(child.seconds) s")
            XCTAssertGreaterThan(peak, 1 << 20, "\(name): the measurement works")
            XCTAssertLessThanOrEqual(peak, child.maximumResidentBytes, "\(name): VmHWM is within wait4's figure")
            XCTAssertLessThan(peak, limit, "\(name): peak RSS \(peak >> 20) MiB")
            XCTAssertFalse(FileManager.default.fileExists(atPath: output), "\(name): no output is written")
        }
    }
}

/// A child process run to completion, with what `wait4` says about it.
struct ChildProcess {
    var exitStatus: Int32
    var seconds: Double
    /// `ru_maxrss` from `wait4`, in bytes. On Linux it is at least the parent's size at the
    /// spawn (the child's exec replaces the parent's address space), so it bounds the child's
    /// peak only from above.
    var maximumResidentBytes: Int
    var stderr: String

    /// The peak the child reported itself (`pixelflow` with `PIXELFLOW_REPORT_PEAK_MEMORY`,
    /// from `VmHWM`), in bytes; nil when it printed none (not Linux).
    var reportedPeakBytes: Int? {
        guard let range = stderr.range(of: "peak resident memory ") else { return nil }
        return Int(stderr[range.upperBound...].prefix { $0.isNumber }).map { $0 * 1024 }
    }

    /// Runs `path` with `arguments` and `PIXELFLOW_REPORT_PEAK_MEMORY=1` added to the
    /// environment, standard output to /dev/null and standard error to `stderrPath`, and waits
    /// for it with `wait4`, which reports the resources of this one child (unlike
    /// `getrusage(RUSAGE_CHILDREN)`, which keeps the peak of every child so far).
    static func run(_ path: String, _ arguments: [String], stderrPath: String) throws -> ChildProcess {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, stderrPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid = pid_t()
        let start = DispatchTime.now()
        var environment: [UnsafeMutablePointer<CChar>?] = [strdup("PIXELFLOW_REPORT_PEAK_MEMORY=1")]
        var e = environ
        while let entry = e.pointee { environment.append(strdup(entry)); e += 1 }
        environment.append(nil)
        defer { environment.forEach { free($0) } }
        let spawned = posix_spawn(&pid, path, &actions, nil, argv, environment)
        guard spawned == 0 else {
            throw PixelFlowError.io(file: path, reason: "posix_spawn failed with \(spawned)")
        }
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0 {
            guard errno == EINTR else { throw PixelFlowError.io(file: path, reason: "wait4 failed with errno \(errno)") }
        }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
        let signalled = status & 0x7F != 0
        #if canImport(Darwin)
            let rssBytes = Int(usage.ru_maxrss)  // bytes on Darwin
        #else
            let rssBytes = Int(usage.ru_maxrss) * 1024  // kilobytes on Linux
        #endif
        let text = (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? ""
        return ChildProcess(
            exitStatus: signalled ? -(status & 0x7F) : (status >> 8) & 0xFF, seconds: seconds,
            maximumResidentBytes: rssBytes, stderr: text)
    }
}

/// Makers of decompression bombs, generated at test time so nothing large is committed.
enum DecompressionBombs {
    // MARK: PNG

    static let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// A PNG chunk: length, type, data, CRC.
    static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let body = Array(type.utf8) + data
        return be32(data.count) + body + be32(Int(crc32(body)))
    }

    static func ihdr(width: Int, height: Int, bitDepth: UInt8, colorType: UInt8) -> [UInt8] {
        chunk("IHDR", be32(width) + be32(height) + [bitDepth, colorType, 0, 0, 0])
    }

    /// 100_000 x 100_000 RGBA (10^10 pixels) with a few bytes of image data.
    static func headerLiePNG() -> [UInt8] {
        pngSignature + ihdr(width: 100_000, height: 100_000, bitDepth: 8, colorType: 6)
            + chunk("IDAT", [0x78, 0x9C, 0x63, 0x00, 0x00, 0x00, 0x01, 0x00, 0x01]) + chunk("IEND", [])
    }

    /// A valid 8-bit gray PNG of zeros, `width` x `height`, whose zlib stream is a fixed
    /// Huffman deflate block of 258-byte matches: about 1/160 of the pixel count in bytes
    /// (20000 x 20000 inflates 2.5 MB to 400 MB).
    static func inflatingPNG(width: Int, height: Int) -> [UInt8] {
        let raw = (width + 1) * height  // a filter byte (0) per row
        var bits = BitWriter()
        bits.write(1, count: 1)  // BFINAL
        bits.write(1, count: 2)  // BTYPE = fixed Huffman
        bits.writeHuffman(0b0011_0000, length: 8)  // literal 0
        var left = raw - 1
        var longest = BitWriter()  // a 258-byte match, written once
        writeMatch(&longest, length: 258)
        let (pattern, patternBits) = longest.pending
        while left >= 3 {
            let n = left >= 258 + 3 || left == 258 ? 258 : min(left, 255)
            if n == 258 { bits.write(pattern, count: patternBits) } else { writeMatch(&bits, length: n) }
            left -= n
        }
        for _ in 0..<left { bits.writeHuffman(0b0011_0000, length: 8) }
        bits.writeHuffman(0, length: 7)  // end of block (256)
        var zlib: [UInt8] = [0x78, 0x01] + bits.finished
        let adler = UInt32((raw % 65_521) << 16 | 1)  // Adler-32 of zeros: a = 1, b = n
        zlib += be32(Int(adler))
        return pngSignature + ihdr(width: width, height: height, bitDepth: 8, colorType: 0)
            + chunk("IDAT", zlib) + chunk("IEND", [])
    }

    /// A length-`length` match at distance 1 in the fixed Huffman code (RFC 1951 3.2.6).
    private static func writeMatch(_ bits: inout BitWriter, length: Int) {
        let bases = [
            3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115,
            131, 163, 195, 227, 258,
        ]
        let extra = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0]
        let i = bases.lastIndex { $0 <= length }!
        let code = 257 + i
        if code <= 279 {
            bits.writeHuffman(UInt32(code - 256), length: 7)
        } else {
            bits.writeHuffman(UInt32(0b1100_0000 + code - 280), length: 8)
        }
        bits.write(UInt64(length - bases[i]), count: extra[i])
        bits.writeHuffman(0, length: 5)  // distance code 0: distance 1
    }

    /// A 4 x 4 PNG with `chunks` tEXt chunks between its header and its image data.
    static func manyTextChunksPNG(chunks: Int) throws -> [UInt8] {
        let png = try CodecTestSupport.rgba8(width: 4, height: 4, alpha: true).encoded(as: .png)
        let afterHeader = 8 + 25  // signature, IHDR
        var out = Array(png[..<afterHeader])
        let text = chunk("tEXt", Array("Comment".utf8) + [0] + Array(repeating: UInt8(ascii: "x"), count: 100))
        for _ in 0..<chunks { out += text }
        return out + png[afterHeader...]
    }

    // MARK: JPEG

    /// A 16 x 16 baseline JPEG whose frame header says 65535 x 65535 (4.3 x 10^9 pixels, the
    /// most a JPEG can declare).
    static func headerLieJPEG() throws -> [UInt8] {
        var jpeg = try CodecTestSupport.rgba8(width: 16, height: 16, alpha: false).encoded(as: .jpeg)
        guard let sof = (2..<(jpeg.count - 9)).first(where: { jpeg[$0] == 0xFF && jpeg[$0 + 1] == 0xC0 }) else {
            throw PixelFlowError.mismatch("no SOF0 in PixelFlow's own JPEG")
        }
        for i in (sof + 5)...(sof + 8) { jpeg[i] = 0xFF }  // height, width
        return jpeg
    }

    /// A progressive JPEG of 16 x 16 pixels with about `scans` scans: its scans after the
    /// first, with their Huffman tables, repeated (libjpeg only warns about the repeated
    /// refinement).
    static func manyScansJPEG(scans: Int) throws -> [UInt8] {
        let jpeg = try CodecTestSupport.rgba8(width: 16, height: 16, alpha: false)
            .encoded(as: .jpeg, options: EncodeOptions(progressive: true))
        // Marker positions outside entropy-coded data: FF followed by neither 00 nor RSTn.
        var markers: [Int] = []
        var i = 2
        while i + 1 < jpeg.count {
            if jpeg[i] == 0xFF, jpeg[i + 1] != 0, !(0xD0...0xD7).contains(jpeg[i + 1]), jpeg[i + 1] != 0xFF {
                markers.append(i)
            }
            i += 1
        }
        let sos = markers.filter { jpeg[$0 + 1] == 0xDA }
        guard sos.count >= 3, let eoi = markers.last, jpeg[eoi + 1] == 0xD9 else {
            throw PixelFlowError.mismatch("PixelFlow's progressive JPEG has \(sos.count) scans")
        }
        guard let bodyStart = markers.first(where: { $0 > sos[0] }) else {
            throw PixelFlowError.mismatch("nothing after the first scan")
        }
        let head = Array(jpeg[..<bodyStart]), body = Array(jpeg[bodyStart..<eoi])
        let perBody = sos.count - 1
        var out = head
        for _ in 0..<max(1, (scans - 1) / perBody) { out += body }
        return out + [0xFF, 0xD9]
    }

    // MARK: PNM and BMP

    /// A binary PGM declaring `width` x `height` (10^10 pixels by default) with 16 bytes of pixels.
    static func headerLiePNM(width: Int = 100_000, height: Int = 100_000) -> [UInt8] {
        Array("P5\n\(width) \(height)\n255\n".utf8) + [UInt8](repeating: 7, count: 16)
    }

    /// A 24-bit BMP declaring `width` x `height` (10^10 pixels by default) with 16 bytes of pixels.
    static func headerLieBMP(width: Int = 100_000, height: Int = 100_000) -> [UInt8] {
        var out: [UInt8] = Array("BM".utf8) + le32(54 + 16) + le32(0) + le32(54)
        out += le32(40) + le32(width) + le32(height) + [1, 0, 24, 0] + le32(0) + le32(0)
        out += le32(2835) + le32(2835) + le32(0) + le32(0)
        return out + [UInt8](repeating: 9, count: 16)
    }

    // MARK: Bytes

    static func be32(_ v: Int) -> [UInt8] { [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: v >> $0) } }
    static func le32(_ v: Int) -> [UInt8] { [0, 8, 16, 24].map { UInt8(truncatingIfNeeded: v >> $0) } }

    /// CRC-32 as PNG uses it (ISO 3309, polynomial 0xEDB88320).
    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for b in bytes {
            crc ^= UInt32(b)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }
}

/// Writes a deflate bit stream: values least significant bit first, Huffman codes most
/// significant bit first (RFC 1951 3.1.1).
struct BitWriter {
    private var bytes: [UInt8] = []
    private var accumulator: UInt64 = 0
    private var used = 0

    /// Writes the low `count` bits of `value` (at most 32), least significant first.
    mutating func write(_ value: UInt64, count: Int) {
        accumulator |= (value & ((1 << UInt64(count)) - 1)) << UInt64(used)
        used += count
        while used >= 8 {
            bytes.append(UInt8(truncatingIfNeeded: accumulator))
            accumulator >>= 8
            used -= 8
        }
    }

    mutating func writeHuffman(_ code: UInt32, length: Int) {
        var reversed: UInt64 = 0
        for k in 0..<length { reversed |= UInt64((code >> UInt32(length - 1 - k)) & 1) << UInt64(k) }
        write(reversed, count: length)
    }

    /// The bits not yet in a whole byte, for a writer that holds less than 32 bits in all.
    var pending: (UInt64, Int) {
        precondition(bytes.count * 8 + used <= 32)
        var v: UInt64 = 0
        for (i, b) in bytes.enumerated() { v |= UInt64(b) << UInt64(8 * i) }
        return (v | accumulator << UInt64(8 * bytes.count), bytes.count * 8 + used)
    }

    /// The bytes written, the last one padded with zero bits.
    var finished: [UInt8] { used == 0 ? bytes : bytes + [UInt8(truncatingIfNeeded: accumulator)] }
}
