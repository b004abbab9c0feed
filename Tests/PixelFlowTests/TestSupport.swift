import Foundation
import XCTest
@testable import PixelFlow
@testable import PixelFlowKernels
@testable import PixelFlowGraph
@testable import PixelFlowEngine

/// SplitMix64 (Steele, Lea and Flood, "Fast splittable pseudorandom number generators",
/// 2014): a small seeded generator so test images are the same on every run.
struct SeededRandom: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func unit() -> Float { Float(next() >> 40) / Float(1 << 24) }
}

enum TestImages {
    /// A random image; `opaque` sets alpha to 1.
    static func random(
        width: Int, height: Int, format: PixelFormat = .rgbaF32, seed: UInt64 = 1,
        opaque: Bool = false, colorEncoding: ColorEncoding? = nil, alphaMode: AlphaMode? = nil
    ) -> PixelBuffer {
        var rng = SeededRandom(seed: seed)
        var b = try! PixelBuffer(width: width, height: height, format: format, colorEncoding: colorEncoding, alphaMode: alphaMode)
        for y in 0..<height {
            for x in 0..<width {
                var v = SIMD4(rng.unit(), rng.unit(), rng.unit(), opaque ? 1 : rng.unit())
                if b.alphaMode == .premultiplied { v = v * SIMD4(v.w, v.w, v.w, 1) }
                b[x, y] = v
            }
        }
        return b
    }

    /// A smooth image with edges (gradients plus a disc), 8-bit sRGB.
    static func smooth(width: Int, height: Int) -> PixelBuffer {
        var b = try! PixelBuffer(width: width, height: height, format: .rgba8)
        for y in 0..<height {
            for x in 0..<width {
                let fx = Float(x) / Float(width), fy = Float(y) / Float(height)
                let dx = fx - 0.5, dy = fy - 0.5
                let disc: Float = dx * dx + dy * dy < 0.06 ? 1 : 0
                b[x, y] = SIMD4(fx, fy, 0.5 * (1 - disc) + 0.2 * disc, 1)
            }
        }
        return b
    }
}

/// The largest absolute difference between two float buffers of the same size.
func maxDifference(_ a: PixelBuffer, _ b: PixelBuffer, file: StaticString = #filePath, line: UInt = #line) -> Float {
    XCTAssertEqual(a.width, b.width, file: file, line: line)
    XCTAssertEqual(a.height, b.height, file: file, line: line)
    var m: Float = 0
    for y in 0..<min(a.height, b.height) {
        for x in 0..<min(a.width, b.width) {
            let d = abs(a[x, y] - b[x, y])
            m = max(m, d.max())
            if d.x.isNaN || d.y.isNaN || d.z.isNaN || d.w.isNaN { return .infinity }
        }
    }
    return m
}

/// A context that works on stored values, so filter math can be checked with plain formulas.
let rawContext = RenderContext(colorManagement: .none)

/// Renders an image over its extent into straight-alpha rgbaF32 with stored values.
func renderRaw(_ image: Image, rect: Rect? = nil, context: RenderContext = rawContext) throws -> PixelBuffer {
    try context.makeBuffer(image, rect: rect, format: .rgbaF32, colorEncoding: .sRGB, alphaMode: .straight)
}

/// The package root, found from this file's path.
let packageRoot: String = {
    var parts = "\(#filePath)".split(separator: "/", omittingEmptySubsequences: false)
    while let last = parts.last, last != "Tests" { parts.removeLast() }
    parts.removeLast()
    return parts.joined(separator: "/")
}()

/// Component-wise absolute value.
func abs(_ v: SIMD4<Float>) -> SIMD4<Float> { SIMD4(Swift.abs(v.x), Swift.abs(v.y), Swift.abs(v.z), Swift.abs(v.w)) }

/// A test case with a fresh temporary folder per test, removed afterwards.
class TemporaryDirectoryTestCase: XCTestCase {
    var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("pixelflow-tests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        if let directory { try? FileManager.default.removeItem(at: directory) }
    }

    /// Asserts that no temporary file (a name starting with `.`, as `_AtomicFile` and the spill
    /// files make them) is left in the folder.
    func assertNoTemporaryFilesLeft(
        _ message: String = "temporary files left behind", file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let left = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasPrefix(".") }
        XCTAssertEqual(left, [], message, file: file, line: line)
    }

    /// Asserts that writing the streamed `image` to `out` in strips of `stripHeight` rows, on 1
    /// and 2 threads, throws `decodingFailed` and leaves no file there, and that a full render of
    /// it throws too (a file cut or corrupted after its header).
    func assertStreamedRenderFails(
        _ image: Image, writingTo out: String, stripHeight: Int, _ label: String,
        file: StaticString = #filePath, line: UInt = #line
    ) {
        for threads in [1, 2] {
            let ctx = RenderContext(
                options: RenderContext.Options(threadCount: threads, colorManagement: .none, stripHeight: stripHeight))
            XCTAssertThrowsError(try ctx.write(image, toFile: out), label, file: file, line: line) { error in
                guard case PixelFlowError.decodingFailed = error else {
                    return XCTFail("\(label): \(error)", file: file, line: line)
                }
            }
            XCTAssertFalse(FileManager.default.fileExists(atPath: out), label, file: file, line: line)
            XCTAssertThrowsError(try ctx.makeBuffer(image), label, file: file, line: line)
        }
    }
}

/// The bytes of `hex`, two hexadecimal digits a byte (how the barcode fixtures store messages).
func bytes(hex: String) -> [UInt8] {
    let digits = Array(hex.utf8)
    return stride(from: 0, to: digits.count - 1, by: 2).map {
        UInt8(String(decoding: digits[$0..<$0 + 2], as: UTF8.self), radix: 16)!
    }
}

/// The JSON fixture `name` of Tests/PixelFlowTests/Fixtures/Barcodes, decoded as `T`.
func barcodeFixture<T: Decodable>(_ name: String, as type: T.Type) throws -> T {
    let url = URL(fileURLWithPath: packageRoot).appendingPathComponent("Tests/PixelFlowTests/Fixtures/Barcodes/\(name)")
    return try JSONDecoder().decode(T.self, from: Data(contentsOf: url))
}

extension TestImages {
    /// An 8-bit buffer of random bytes; for rgba8, alpha 255 when `opaque`, else random with an
    /// eighth of the pixels transparent, and color <= alpha when premultiplied (the byte-form
    /// tests' inputs).
    static func randomBytes(
        _ width: Int, _ height: Int, format: PixelFormat = .rgba8, alpha: AlphaMode = .premultiplied,
        opaque: Bool = false, seed: UInt64 = 1
    ) -> PixelBuffer {
        var b = try! PixelBuffer(width: width, height: height, format: format, alphaMode: alpha)
        var rng = SeededRandom(seed: seed)
        let bpp = format.bytesPerPixel, bytesPerRow = b.bytesPerRow
        b.withUnsafeMutableBytes { raw in
            for y in 0..<height {
                for x in 0..<width {
                    let p = y * bytesPerRow + x * bpp
                    if bpp == 1 {
                        raw[p] = UInt8(truncatingIfNeeded: rng.next() >> 20)
                        continue
                    }
                    let r = rng.next()
                    let a: UInt8 = opaque ? 255 : (r & 7 == 0 ? 0 : UInt8(truncatingIfNeeded: r >> 8))
                    raw[p + 3] = a
                    for c in 0..<3 {
                        let v = UInt8(truncatingIfNeeded: rng.next() >> 20)
                        raw[p + c] = alpha == .premultiplied ? UInt8(Int(v) * Int(a) / 255) : v
                    }
                }
            }
        }
        return b
    }

    /// The largest difference of two 8-bit buffers, and whether every pixel meets the byte
    /// path's bound against the float path: 1 unit, and for straight `rgba8` colors
    /// `1 + 64 / alpha` where the expected alpha is below 64 (not compared at alpha 0).
    static func compareBytes(_ out: PixelBuffer, _ expected: PixelBuffer) -> (max: Int, withinBound: Bool, worst: String) {
        var m = 0, ok = true, worst = ""
        let bpp = out.format.bytesPerPixel
        let straight = out.format == .rgba8 && out.alphaMode == .straight
        out.withUnsafeBytes { pa in
            expected.withUnsafeBytes { pb in
                for y in 0..<out.height {
                    for x in 0..<out.width {
                        let p = y * out.bytesPerRow + x * bpp
                        let alpha = bpp == 4 ? Int(pb[p + 3]) : 255
                        for c in 0..<bpp {
                            let d = Swift.abs(Int(pa[p + c]) - Int(pb[p + c]))
                            let isColor = straight && c < 3
                            if isColor && alpha == 0 { continue }
                            let bound = isColor && alpha < 64 ? 1 + 64 / alpha : 1
                            if d > bound {
                                ok = false
                                worst = "(\(x), \(y)) channel \(c): \(pa[p + c]) vs \(pb[p + c]), alpha \(alpha)"
                            }
                            m = Swift.max(m, d)
                        }
                    }
                }
            }
        }
        return (m, ok, worst)
    }
}

extension TestImages {
    /// The float path's render of `image` over `rect` into a buffer of `format` with `alpha`
    /// (color management off, 1 thread), and what `explain()` says of the default render.
    static func floatPathAndExplain(_ image: Image, rect: Rect, format: PixelFormat, alpha: AlphaMode) throws -> (
        expected: PixelBuffer, explained: String
    ) {
        var floatOptions = RenderContext.Options(threadCount: 1, colorManagement: .none)
        floatOptions.usesBytePath = false
        var expected = try PixelBuffer(width: Int(rect.width), height: Int(rect.height), format: format, alphaMode: alpha)
        try RenderContext(options: floatOptions).render(image, rect: rect, to: &expected)
        let explained = try RenderContext(colorManagement: .none).explain(image, rect: rect, into: expected)
        return (expected, explained)
    }

    /// Renders `image` over `rect` into a buffer of `format` with `alpha` once per schedule
    /// (threads 1...3 and four tile sizes with `schedules`, else one) and checks each render
    /// against `expected` (the float path's) within the byte path's bound (`compareBytes`;
    /// within 1 unit everywhere when `strict`), and that every schedule gives the same bytes.
    static func checkSchedules(
        _ image: Image, rect: Rect, format: PixelFormat, alpha: AlphaMode, expected: PixelBuffer, schedules: Bool,
        strict: Bool = false, label: String, file: StaticString, line: UInt
    ) throws {
        var first: PixelBuffer?
        let schedulesTried = schedules ? [(1, 256, 64), (2, 37, 13), (3, 7, 1), (2, 256, 1)] : [(1, 256, 64)]
        for (threads, tw, th) in schedulesTried {
            let options = RenderContext.Options(threadCount: threads, tileWidth: tw, tileHeight: th, colorManagement: .none)
            var out = try PixelBuffer(width: Int(rect.width), height: Int(rect.height), format: format, alphaMode: alpha)
            try RenderContext(options: options).render(image, rect: rect, to: &out)
            let r = compareBytes(out, expected)
            XCTAssertTrue(r.withinBound, "\(label): \(r.worst)", file: file, line: line)
            if strict { XCTAssertLessThanOrEqual(r.max, 1, label, file: file, line: line) }
            if let first {
                XCTAssertTrue(out == first, "\(label): threads \(threads), tiles \(tw)x\(th) differ", file: file, line: line)
            } else {
                first = out
            }
        }
    }
}

extension RenderContext {
    /// A default context on the float path only (`usesBytePath` off), for tests that compare
    /// two routes of one graph bit for bit where only one route can take a byte form: a file's
    /// streamed rows (what `pixelflow apply` renders from), bgra8 and argb8 sources. The byte
    /// forms of color matrices in linear light are within 1 unit of the float path, not equal
    /// to it (ByteLinearTests), so an 8-bit buffer in memory may differ by that unit.
    static func floatPathOnly(threadCount: Int? = nil) -> RenderContext {
        var o = Options()
        if let threadCount { o.threadCount = threadCount }
        o.usesBytePath = false
        return RenderContext(options: o)
    }
}

extension TestImages {
    /// `rect` of `image` rendered with `options` into a new buffer like `dest` (its format,
    /// encoding and alpha mode; `rect`'s size): the byte-form tests' renders.
    static func render(_ image: Image, _ rect: Rect, like dest: PixelBuffer, _ options: RenderContext.Options) throws
        -> PixelBuffer
    {
        var out = try PixelBuffer(
            width: Int(rect.width), height: Int(rect.height), format: dest.format,
            colorEncoding: dest.colorEncoding, alphaMode: dest.alphaMode)
        try RenderContext(options: options).render(image, rect: rect, to: &out)
        return out
    }

    /// The largest difference between two 8-bit buffers of one size, over every byte of every
    /// pixel.
    static func maxDifference(_ a: PixelBuffer, _ b: PixelBuffer) -> Int {
        var m = 0
        a.withUnsafeBytes { pa in
            b.withUnsafeBytes { pb in
                for y in 0..<a.height {
                    for x in 0..<a.width * a.format.bytesPerPixel {
                        m = Swift.max(m, Swift.abs(Int(pa[y * a.bytesPerRow + x]) - Int(pb[y * b.bytesPerRow + x])))
                    }
                }
            }
        }
        return m
    }
}

/// Asserts that `source`, decoded through a `RowWindow` of each capacity in `bands` (band by
/// band, top to bottom), gives every row of `full` byte for byte.
func assertWindowRowsEqual(
    _ source: StreamedSource, _ full: PixelBuffer, bands: [Int], _ label: String,
    file: StaticString = #filePath, line: UInt = #line
) throws {
    let rowBytes = full.width * full.format.bytesPerPixel
    for band in bands {
        let window = try RowWindow(source: source, capacity: band)
        var y = 0
        while y < full.height {
            let end = Swift.min(full.height, y + band)
            try window.decode(upTo: end)
            for r in y..<end {
                full.withUnsafeBytes { raw in
                    XCTAssertEqual(
                        memcmp(window.row(r), raw.baseAddress! + r * full.bytesPerRow, rowBytes), 0,
                        "\(label): row \(r), window of \(band)", file: file, line: line)
                }
            }
            y = end
        }
    }
}

/// Graphs over a streamed image that read its rows out of order (a rotation, a flip, a stage
/// computed before the strips), for the streaming tests: each gives the image to render and
/// the rect to render.
enum StreamingGraphs {
    static var randomAccess: [(String, (Image) throws -> (Image, Rect))] {
        [
            (
                "rotation by 90 degrees",
                { image in
                    let r = try image.transformed(by: AffineTransform(rotationAngle: .pi / 2))
                    return (r, r.extent.integral)
                }
            ),
            (
                "flip upside down",
                { image in
                    let r = try image.transformed(by: AffineTransform(scaleX: 1, y: -1))
                    return (r, r.extent.integral)
                }
            ),
            (
                "large blur (a stage computed in advance)",
                { image in
                    let r = try image.clampedToExtent().gaussianBlurred(radius: 40).cropped(to: image.extent)
                    return (r, image.extent)
                }
            ),
        ]
    }
}
