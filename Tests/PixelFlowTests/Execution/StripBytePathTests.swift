import Foundation
import XCTest
@testable import PixelFlow
@testable import PixelFlowGraph
@testable import PixelFlowEngine

/// Strip writes through byte plans (`RenderPlan.stripBytePlans`): a graph with a byte form
/// written to a file in strips gives the bytes of the in-memory byte render of the whole
/// rect, whatever the strip height, thread count and tile size, from a streamed source (its
/// decoded rows read in place in the window) or a buffer; `explain()` names the form, and
/// `usesBytePath = false` gives the float path's bytes.
final class StripBytePathTests: TemporaryDirectoryTestCase {
    private typealias S = CodecTestSupport

    /// A photo-like image: a smooth gradient with noise, opaque, or with a varying alpha.
    private func image(width: Int, height: Int, alpha: Bool = false) -> PixelBuffer {
        var b = S.smooth(width: width, height: height)
        let noise = S.rgba8(width: width, height: height, alpha: false, seed: 5)
        b.withUnsafeMutableRows { y, row in
            let p = row.assumingMemoryBound(to: UInt8.self)
            noise.withUnsafeBytes { n in
                let q = (n.baseAddress! + y * noise.bytesPerRow).assumingMemoryBound(to: UInt8.self)
                for i in 0..<(4 * width) {
                    p[i] = i % 4 == 3 ? (alpha ? UInt8((y * 7 + i) % 256) : 255) : p[i] &+ (q[i] & 31)
                }
            }
        }
        return b
    }

    /// Graphs with one byte form today, each with the rect written.
    private func graphs(_ source: Image) throws -> [(String, Image, Rect)] {
        let e = source.extent
        let crop = Rect(x: 7, y: 5, width: e.width - 14, height: e.height - 11)
        let scale = AffineTransform(scaleX: 0.9, y: 0.9)
        let scaled = scale.apply(to: crop).integral
        let half = Rect(x: 0, y: 0, width: (e.width / 2).rounded(.down), height: (e.height / 2).rounded(.down))
        let sharpen = [-1.0, -1, -1, -1, 16, -1, -1, -1, -1].map { $0 / 8 }
        let sepia = ColorMatrix(
            rows: [0.393, 0.769, 0.189, 0], [0.349, 0.686, 0.168, 0], [0.272, 0.534, 0.131, 0], [0, 0, 0, 1])
        return [
            (
                "crop, clamp, scale 0.9 bilinear, crop",
                try source.cropped(to: crop).clampedToExtent().transformed(by: scale).cropped(to: scaled), scaled
            ),
            ("half-size bilinear (2x2 box)", try source.transformed(by: AffineTransform(scaleX: 0.5, y: 0.5)), half),
            ("Lanczos-3 by 0.7", try source.lanczosScaled(scale: 0.7), try source.lanczosScaled(scale: 0.7).extent.integral),
            ("Gaussian sigma 2, clamped", try source.clampedToExtent().gaussianBlurred(radius: 2).cropped(to: e), e),
            (
                "unsharp mask sigma 2, clamped",
                try source.clampedToExtent().unsharpMasked(radius: 2, intensity: 1).cropped(to: e), e
            ),
            (
                "luma sharpen sigma 4 (Gaussian and blend), clamped",
                try source.clampedToExtent().sharpenedLuminance(sharpness: 1, radius: 4).cropped(to: e), e
            ),
            ("sepia over a crop", source.cropped(to: crop).applyingColorMatrix(sepia), crop),
            ("dilate radius 2, clamped", try source.clampedToExtent().morphologyMaximum(radius: 2).cropped(to: e), e),
            (
                "3x3 sharpen of a crop, clamped",
                try source.cropped(to: crop).clampedToExtent().convolved3x3(weights: sharpen).cropped(to: crop), crop
            ),
        ]
    }

    private func options(threads: Int, tile: (Int, Int), strip: Int, bytes: Bool = true) -> RenderContext.Options {
        var o = RenderContext.Options(threadCount: threads, tileWidth: tile.0, tileHeight: tile.1, colorManagement: .none)
        o.stripHeight = strip
        o.usesBytePath = bytes
        return o
    }

    /// The in-memory render into an rgba8 buffer, which takes the byte path (checked).
    private func inMemory(_ image: Image, rect: Rect, _ o: RenderContext.Options, _ name: String) throws -> PixelBuffer {
        let ctx = RenderContext(options: o)
        var out = try PixelBuffer(width: Int(rect.width), height: Int(rect.height), format: .rgba8)
        if o.usesBytePath {
            XCTAssertTrue(try ctx.explain(image, rect: rect, into: out).contains("byte path: on"), name)
        }
        try ctx.render(image, rect: rect, to: &out)
        return out
    }

    private func assertSamePixels(_ file: String, _ reference: PixelBuffer, _ message: String) throws {
        let written = try PixelBuffer(contentsOfFile: file)
        XCTAssertEqual(written.width, reference.width, message)
        XCTAssertEqual(written.height, reference.height, message)
        XCTAssertEqual(
            ByteFormTesting.bytes(of: written), ByteFormTesting.bytes(of: reference), message)
    }

    func testStreamedStripWritesEqualTheInMemoryByteRender() throws {
        let decoded = image(width: 157, height: 133)
        let jpeg = directory.appendingPathComponent("in.jpg").path
        try decoded.write(toFile: jpeg, format: .jpeg, quality: 92)
        let full = try PixelBuffer(contentsOfFile: jpeg)
        let out = directory.appendingPathComponent("out.png").path
        // Values where the float path differs from the byte forms: the strips took the byte path.
        var differing = 0
        for ((name, streamedGraph, rect), (_, fullGraph, _)) in zip(
            try graphs(try Image(contentsOfFile: jpeg, streaming: true)), try graphs(Image(full)))
        {
            let reference = try inMemory(fullGraph, rect: rect, options(threads: 2, tile: (64, 32), strip: 128), name)
            let explained = try RenderContext(options: options(threads: 2, tile: (64, 32), strip: 16))
                .explain(streamedGraph, rect: rect)
            XCTAssertTrue(explained.contains("strip write into rgba8 rows runs"), "\(name):\n\(explained)")
            for threads in [1, 2, 3] {
                for (tile, strip) in [((256, 64), 128), ((16, 8), 1), ((48, 16), 7), ((64, 64), 40), ((32, 8), 1000)] {
                    let ctx = RenderContext(options: options(threads: threads, tile: tile, strip: strip))
                    try ctx.write(streamedGraph, toFile: out, rect: rect)
                    try assertSamePixels(out, reference, "\(name), \(threads) thread(s), tiles \(tile), strips of \(strip)")
                    // The same graph over the decoded buffer, in strips.
                    try ctx.write(fullGraph, toFile: out, rect: rect)
                    try assertSamePixels(out, reference, "\(name) from a buffer, \(threads) thread(s), strips of \(strip)")
                }
            }
            // Float forced: the float path's bytes (within 1 unit of the byte path's).
            let floatOptions = options(threads: 2, tile: (64, 32), strip: 16, bytes: false)
            let float = try inMemory(fullGraph, rect: rect, floatOptions, name)
            try RenderContext(options: floatOptions).write(streamedGraph, toFile: out, rect: rect)
            try assertSamePixels(out, float, "\(name), usesBytePath off")
            differing += zip(ByteFormTesting.bytes(of: float), ByteFormTesting.bytes(of: reference)).filter { $0 != $1 }.count
            XCTAssertLessThanOrEqual(
                ByteFormTesting.maxDifference(ByteFormTesting.bytes(of: float), ByteFormTesting.bytes(of: reference)), 1, name)
        }
        XCTAssertGreaterThan(differing, 0)
    }

    /// In linear light (color management on, the default) a color matrix runs through the
    /// byte form's tables (`ByteLinear`), in strips as in memory; resamples stay in float.
    func testLinearLightSepiaStripsEqualTheInMemoryByteRender() throws {
        let jpeg = directory.appendingPathComponent("in.jpg").path
        try image(width: 141, height: 97).write(toFile: jpeg, format: .jpeg, quality: 90)
        let full = Image(try PixelBuffer(contentsOfFile: jpeg))
        let streamed = try Image(contentsOfFile: jpeg, streaming: true)
        let out = directory.appendingPathComponent("out.png").path
        var base = options(threads: 2, tile: (64, 32), strip: 16)
        base.colorManagement = .linear
        let reference = try inMemory(try full.sepiaTone(intensity: 1), rect: full.extent, base, "linear sepia")
        let text = try RenderContext(options: base).explain(try streamed.sepiaTone(intensity: 1))
        XCTAssertTrue(text.contains("strip write into rgba8 rows runs") && text.contains("in linear light (32640-step"), text)
        for threads in [1, 3] {
            for (tile, strip) in [((16, 8), 1), ((256, 64), 33)] {
                var o = options(threads: threads, tile: tile, strip: strip)
                o.colorManagement = .linear
                try RenderContext(options: o).write(try streamed.sepiaTone(intensity: 1), toFile: out)
                try assertSamePixels(out, reference, "\(threads) thread(s), strips of \(strip)")
            }
        }
    }

    func testTranslucentStreamedPNGStripsEqualTheInMemoryRender() throws {
        let decoded = image(width: 101, height: 87, alpha: true)
        let png = directory.appendingPathComponent("in.png").path
        try decoded.write(toFile: png, format: .png)
        let out = directory.appendingPathComponent("out.png").path
        for ((name, streamedGraph, rect), (_, fullGraph, _)) in zip(
            try graphs(try Image(contentsOfFile: png, streaming: true)), try graphs(Image(decoded)))
        {
            // The in-memory render scans alpha and may choose differently: compare with the
            // float path's bytes within the byte forms' bound, and across schedules exactly.
            let float = try inMemory(fullGraph, rect: rect, options(threads: 2, tile: (64, 32), strip: 16, bytes: false), name)
            var first: [UInt8]?
            for threads in [1, 3] {
                for (tile, strip) in [((256, 64), 128), ((16, 8), 3)] {
                    let ctx = RenderContext(options: options(threads: threads, tile: tile, strip: strip))
                    try ctx.write(streamedGraph, toFile: out, rect: rect)
                    let written = ByteFormTesting.bytes(of: try PixelBuffer(contentsOfFile: out))
                    if let first {
                        XCTAssertEqual(written, first, "\(name), \(threads) thread(s), strips of \(strip)")
                    } else {
                        first = written
                    }
                    // Straight colors may differ by more where alpha is small (the 16-bit
                    // prepass's bound): compare premultiplied-scale differences.
                    let f = ByteFormTesting.bytes(of: float)
                    var worst = 0
                    for i in stride(from: 0, to: f.count, by: 4) {
                        let a = Int(f[i + 3])
                        for c in 0..<4 {
                            let d = abs(Int(written[i + c]) - Int(f[i + c]))
                            let allowed = c == 3 || a >= 64 ? 1 : (a == 0 ? 255 : 1 + 64 / a)
                            if d > allowed { worst = Swift.max(worst, d) }
                        }
                    }
                    XCTAssertEqual(worst, 0, "\(name): beyond the byte forms' bound")
                }
            }
        }
    }

    func testExplainSaysWhyAStripWriteStaysInFloat() throws {
        let jpeg = directory.appendingPathComponent("in.jpg").path
        try image(width: 64, height: 48).write(toFile: jpeg, format: .jpeg, quality: 90)
        let source = try Image(contentsOfFile: jpeg, streaming: true)
        var o = options(threads: 2, tile: (64, 32), strip: 16)
        // A rotation reads through the affine form, which gathers from whole rows in memory.
        let rotated = try source.transformed(by: AffineTransform(rotationAngle: 0.3))
        let text = try RenderContext(options: o).explain(rotated, rect: rotated.extent.integral)
        XCTAssertTrue(text.contains("off for a strip write into rgba8 rows: an affine warp of a streamed source"), text)
        o.usesBytePath = false
        let scaled = try source.transformed(by: AffineTransform(scaleX: 0.9, y: 0.9))
        let off = try RenderContext(options: o).explain(scaled, rect: scaled.extent.integral)
        XCTAssertTrue(off.contains("off for a strip write into rgba8 rows: off in the context's options"), off)
    }
}
