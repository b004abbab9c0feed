import Foundation
import XCTest
@testable import PixelFlow
@testable import PixelFlowKernels
@testable import PixelFlowGraph
@testable import PixelFlowEngine

/// Shrink-on-load (`ShrinkSourcesOnLoad`): which graphs it rewrites and with which factor,
/// that the shrunk decode has libjpeg's rounded-up size, how far its results are from the
/// exact path (the bounds below, measured on seeded JPEGs), that the option off gives the
/// exact path's bytes, and that a streamed write of a shrunk graph is still byte-identical
/// to rendering it whole.
final class ShrinkSourcesOnLoadTests: TemporaryDirectoryTestCase {
    private typealias S = CodecTestSupport

    /// Bounds on |shrink-on-load - exact| in 8-bit levels over R, G and B of every pixel
    /// (largest, and mean over the image), measured on the seeded JPEGs of
    /// `testShrinkOnLoadStaysCloseToTheExactPath` and set a little above the worst case seen.
    /// "smooth" is photo-like (gradients, a ripple, 3 bits of noise); "detailed" adds a
    /// 5-pixel checkerboard of +-30 levels and 1.7-pixel stripes, the worst case for the
    /// DCT shrink averaging sRGB-encoded values where the exact path averages linear light.
    /// Lanczos: sizes not multiples of 8, reductions 5x to 20x; bilinear affine: sizes that are
    /// multiples of 8 (as the pass requires), 4x and 10x, where the exact path aliases.
    static let bounds: [String: (max: Int, mean: Double)] = [
        "lanczos smooth": (14, 0.6), "lanczos detailed": (14, 5.5),
        "affine smooth": (8, 1.2), "affine detailed": (60, 23.0),
    ]
    /// The largest difference of a Lanczos scale or thumbnail, whatever the content.
    static let maximumLevels = 14

    /// A photo-like JPEG: smooth gradients plus noise of `detail` (0 to 255) levels, and
    /// for a detailed one, fine stripes and a checkerboard of 5-pixel squares.
    private func makeJPEG(
        width: Int, height: Int, detailed: Bool, seed: UInt64 = 9, gray: Bool = false,
        name: String = "in.jpg"
    ) throws -> String {
        var b = S.smooth(width: width, height: height)
        let noise = S.rgba8(width: width, height: height, alpha: false, seed: seed)
        b.withUnsafeMutableRows { y, row in
            let p = row.assumingMemoryBound(to: UInt8.self)
            noise.withUnsafeBytes { n in
                let q = (n.baseAddress! + y * noise.bytesPerRow).assumingMemoryBound(to: UInt8.self)
                for x in 0..<width {
                    for c in 0..<3 {
                        var v = Int(p[4 * x + c]) + Int(q[4 * x + c] & (detailed ? 31 : 7))
                        if detailed {
                            v += ((x / 5 + y / 5) % 2 == 0 ? 30 : -30)
                            v += Int(25 * sin(Double(x) / 1.7 + Double(c)) * cos(Double(y) / 2.3))
                        }
                        p[4 * x + c] = UInt8(Swift.max(0, Swift.min(255, v)))
                    }
                }
            }
        }
        if gray { b = b.converted(to: .gray8) }
        let path = directory.appendingPathComponent(name).path
        try b.write(toFile: path, format: .jpeg, quality: 90)
        return path
    }

    private func context(shrinks: Bool, threads: Int = 2) -> RenderContext {
        RenderContext(options: RenderContext.Options(threadCount: threads, shrinksOnLoad: shrinks))
    }

    /// Max and mean absolute difference of two `rgba8` buffers, over R, G and B.
    private func difference(_ a: PixelBuffer, _ b: PixelBuffer) -> (max: Int, mean: Double) {
        XCTAssertEqual(a.width, b.width)
        XCTAssertEqual(a.height, b.height)
        var m = 0, total = 0
        for y in 0..<a.height {
            for x in 0..<a.width {
                let p = S.pixel(a, x, y), q = S.pixel(b, x, y)
                for c in 0..<3 {
                    let d = Swift.abs(p[c] - q[c])
                    m = Swift.max(m, d)
                    total += d
                }
            }
        }
        return (m, Double(total) / Double(3 * a.width * a.height))
    }

    private func bytes(_ path: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))) }

    // MARK: The shrunk decode

    func testShrunkSourceHasLibjpegsRoundedUpSizeAndAveragesBlocks() throws {
        let path = try makeJPEG(width: 203, height: 117, detailed: false)
        let full = try PixelBuffer(contentsOfFile: path)
        let source = try StreamedSource(jpeg: try bytes(path), name: path, options: .default)
        XCTAssertEqual(source.shrinkFactors, [2, 4, 8])
        for k in [2, 4, 8] {
            let shrunk = try XCTUnwrap(source.shrunk(by: k))
            XCTAssertEqual(shrunk.width, (203 + k - 1) / k)
            XCTAssertEqual(shrunk.height, (117 + k - 1) / k)
            XCTAssertEqual(shrunk.shrinkFactor, k)
            XCTAssertEqual(shrunk.shrinkFactors, [], "a shrunk source does not shrink again")
            XCTAssertTrue(shrunk.description.hasSuffix("shrunk 1/\(k) on load"), shrunk.description)
            let window = try shrunk.decodeFully()
            // Each pixel is close to the mean of its k x k block of the full decode (whole
            // blocks only; the last row and column also average the encoder's padding).
            var worst = 0
            for y in 0..<(117 / k) {
                let row = window.row(y).assumingMemoryBound(to: UInt8.self)
                for x in 0..<(203 / k) {
                    for c in 0..<3 {
                        var sum = 0
                        for j in 0..<k { for i in 0..<k { sum += S.pixel(full, k * x + i, k * y + j)[c] } }
                        worst = Swift.max(worst, Swift.abs(Int(row[4 * x + c]) - (sum + k * k / 2) / (k * k)))
                    }
                }
            }
            XCTAssertLessThanOrEqual(worst, 12, "1/\(k)")
        }
        XCTAssertNil(source.shrunk(by: 3))
    }

    func testShrunkDecodeThrowsForTruncatedData() throws {
        let path = try makeJPEG(width: 300, height: 200, detailed: true)
        var data = try bytes(path)
        data.removeLast(data.count / 3)
        let image = try Image(encoded: data, name: "cut.jpg", streaming: true)
        let small = try image.lanczosScaled(scale: 0.1)
        XCTAssertThrowsError(try context(shrinks: true).makeBuffer(small, format: .rgba8)) { error in
            guard case PixelFlowError.decodingFailed(let file, _) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(file, "cut.jpg")
        }
    }

    // MARK: Where it applies

    /// The factor the optimizer chose for `image`, from the shrunk source's description.
    private func chosenFactor(_ image: Image, context: RenderContext = RenderContext(threadCount: 1)) throws -> Int? {
        let plan = RenderPlan(root: image.node, rect: IntRect(covering: image.extent), options: context.options)
        for n in GraphWalk.postOrder(plan.root) {
            if case let .streamedSource(s) = n.op, s.shrinkFactor > 1 { return s.shrinkFactor }
        }
        return nil
    }

    func testFactorLeavesAtLeastATwoTimesReduction() throws {
        let path = try makeJPEG(width: 400, height: 400, detailed: false)
        let streamed = try Image(contentsOfFile: path, streaming: true)
        let cases: [(Double, Int?)] = [
            (1, nil), (0.5, nil), (0.3, nil), (0.25, 2), (0.2, 2), (0.125, 4), (0.1, 4),
            (0.0625, 8), (0.02, 8),
        ]
        for (scale, factor) in cases {
            XCTAssertEqual(try chosenFactor(try streamed.lanczosScaled(scale: scale)), factor, "lanczos \(scale)")
            let affine = try streamed.transformed(by: AffineTransform(scaleX: scale, y: scale))
            XCTAssertEqual(try chosenFactor(affine), scale == 1 ? nil : factor, "affine \(scale)")
        }
        // The smaller reduction of the two axes decides.
        XCTAssertEqual(try chosenFactor(try streamed.lanczosScaled(scale: 0.1, aspectRatio: 3)), nil)
        XCTAssertEqual(try chosenFactor(try streamed.lanczosScaled(scale: 0.05, aspectRatio: 2)), 4)
        // An affine warp needs a factor that divides both sides and a whole-pixel result;
        // Lanczos does not.
        let even = try Image(
            contentsOfFile: try makeJPEG(width: 420, height: 300, detailed: false, name: "even.jpg"),
            streaming: true)
        XCTAssertEqual(try chosenFactor(try even.lanczosScaled(scale: 0.05)), 8)
        XCTAssertEqual(try chosenFactor(try even.transformed(by: AffineTransform(scaleX: 0.05, y: 0.05))), 4)
        let odd = try Image(
            contentsOfFile: try makeJPEG(width: 425, height: 300, detailed: false, name: "odd.jpg"),
            streaming: true)
        XCTAssertEqual(try chosenFactor(try odd.lanczosScaled(scale: 0.04)), 8)
        XCTAssertNil(try chosenFactor(try odd.transformed(by: AffineTransform(scaleX: 0.04, y: 0.04))), "425 is odd")
        XCTAssertNil(
            try chosenFactor(try even.transformed(by: AffineTransform(scaleX: 0.03, y: 0.03))),
            "12.6 x 9 pixels: the edge column fades differently")
    }

    func testOnlyStreamedSourcesAndPlainScalesAreRewritten() throws {
        let path = try makeJPEG(width: 400, height: 300, detailed: false)
        let streamed = try Image(contentsOfFile: path, streaming: true)
        let decoded = try Image(contentsOfFile: path, streaming: false)
        XCTAssertNil(try chosenFactor(try decoded.lanczosScaled(scale: 0.1)), "already decoded")
        XCTAssertNil(
            try chosenFactor(try streamed.transformed(by: AffineTransform(scaleX: 0.1, y: 0.1), sampling: .nearest)),
            "nearest sampling picks pixels")
        let rotation = AffineTransform(rotationAngle: 0.3).concatenating(AffineTransform(scaleX: 0.1, y: 0.1))
        XCTAssertNil(try chosenFactor(try streamed.transformed(by: rotation)), "not a pure scale")
        XCTAssertNil(try chosenFactor(try streamed.gammaAdjusted(power: 2).lanczosScaled(scale: 0.1)), "a filter comes first")
        XCTAssertEqual(
            try chosenFactor(try streamed.colorInverted().lanczosScaled(scale: 0.1)), 4,
            "color matrices are linear, so they commute with the scale")
        XCTAssertNil(try chosenFactor(try streamed.lanczosScaled(scale: 0.1), context: context(shrinks: false)))
        XCTAssertNil(
            try chosenFactor(
                try streamed.lanczosScaled(scale: 0.1),
                context: RenderContext(threadCount: 1, optimizes: false)))
        // Through the working space's color matrix.
        var p3 = RenderContext.Options(threadCount: 1)
        p3.workingColorSpace = .linearDisplayP3
        let ctx = RenderContext(options: p3)
        let small = try streamed.lanczosScaled(scale: 0.1)
        let plan = RenderPlan(
            root: ctx._colorManagedRoot(small.node, encodedDestination: true),
            rect: IntRect(covering: small.extent), options: ctx.options)
        XCTAssertTrue(plan.optimizerLog.contains("shrink sources on load: 1"), "\(plan.optimizerLog)")
    }

    func testExplainShowsTheShrunkSource() throws {
        let path = try makeJPEG(width: 400, height: 300, detailed: false)
        let small = try Image(contentsOfFile: path, streaming: true).lanczosScaled(scale: 0.1)
        let text = try RenderContext(threadCount: 1).explain(small)
        XCTAssertTrue(text.contains("shrink sources on load: 1"), text)
        XCTAssertTrue(text.contains("100x75 rgba8 streamed JPEG shrunk 1/4 on load"), text)
        XCTAssertTrue(text.contains("lanczos3 to 40x30 from 100.0x75.0"), text)
        let exact = try context(shrinks: false).explain(small)
        XCTAssertFalse(exact.contains("shrunk"), exact)
    }

    // MARK: Accuracy

    func testShrinkOnLoadStaysCloseToTheExactPath() throws {
        var worst: [String: (max: Int, mean: Double)] = [:]
        var report: [String] = []
        let images: [(Int, Int, Bool, UInt64, String)] = [
            (1001, 667, false, 3, "lanczos"), (1001, 667, true, 4, "lanczos"), (517, 389, true, 5, "lanczos"),
            (803, 1203, false, 6, "lanczos"), (1000, 640, false, 7, "affine"), (520, 400, true, 8, "affine"),
        ]
        for (w, h, detailed, seed, kind) in images {
            let path = try makeJPEG(width: w, height: h, detailed: detailed, seed: seed, name: "in\(seed).jpg")
            let streamed = try Image(contentsOfFile: path, streaming: true)
            var graphs: [(String, Image)] = []
            if kind == "lanczos" {
                for s in [0.2, 0.1, 0.05] { graphs.append(("\(s)", try streamed.lanczosScaled(scale: s))) }
                graphs.append(("to 80 wide", try streamed.lanczosScaled(scale: 80 / Double(w))))
            } else {
                for s in [0.25, 0.125, 0.1] {  // whole-pixel results, as the pass requires
                    graphs.append(("\(s)", try streamed.transformed(by: AffineTransform(scaleX: s, y: s))))
                }
            }
            let key = "\(kind) \(detailed ? "detailed" : "smooth")"
            for (label, image) in graphs {
                XCTAssertNotNil(try chosenFactor(image), "\(w)x\(h) \(kind) \(label) shrinks")
                let rect = IntRect(covering: image.extent).rect
                let shrunk = try context(shrinks: true).makeBuffer(image, rect: rect, format: .rgba8)
                let exact = try context(shrinks: false).makeBuffer(image, rect: rect, format: .rgba8)
                let d = difference(shrunk, exact)
                report.append("\(w)x\(h) \(key) \(label): max \(d.max) mean \(String(format: "%.2f", d.mean))")
                let old = worst[key] ?? (0, 0)
                worst[key] = (Swift.max(old.max, d.max), Swift.max(old.mean, d.mean))
                let bound = try XCTUnwrap(Self.bounds[key])
                XCTAssertLessThanOrEqual(d.max, bound.max, report.last!)
                XCTAssertLessThanOrEqual(d.mean, bound.mean, report.last!)
            }
        }
        print(
            "shrink-on-load vs exact, 8-bit levels:\n" + report.joined(separator: "\n")
                + "\nworst: \(worst.sorted { $0.key < $1.key })")
    }

    func testOptionOffGivesTheExactPathsBytes() throws {
        let path = try makeJPEG(width: 517, height: 389, detailed: true)
        let streamed = try Image(contentsOfFile: path, streaming: true)
        let decoded = try Image(contentsOfFile: path, streaming: false)
        for s in [0.2, 0.05] {
            let off = try context(shrinks: false).makeBuffer(try streamed.lanczosScaled(scale: s), format: .rgba8)
            let exact = try context(shrinks: true).makeBuffer(try decoded.lanczosScaled(scale: s), format: .rgba8)
            XCTAssertEqual(off, exact, "scale \(s)")
            // And the streamed file: the same bytes as encoding the exact render.
            let out = directory.appendingPathComponent("off.jpg").path
            try context(shrinks: false).write(try streamed.lanczosScaled(scale: s), toFile: out, quality: 85)
            XCTAssertEqual(try bytes(out), try exact.encoded(as: .jpeg, quality: 85), "scale \(s)")
        }
    }

    func testStreamedWriteOfAShrunkGraphEqualsRenderThenEncode() throws {
        let path = try makeJPEG(width: 1001, height: 667, detailed: true)
        let streamed = try Image(contentsOfFile: path, streaming: true)
        let small = try streamed.lanczosScaled(scale: 0.1)
        let reference = try context(shrinks: true, threads: 1).makeBuffer(small, format: .rgba8).encoded(as: .jpeg, quality: 90)
        for threads in [1, 2, 3] {
            for strip in [1, 5, 64] {
                var options = RenderContext.Options(threadCount: threads, stripHeight: strip)
                options.shrinksOnLoad = true
                let out = directory.appendingPathComponent("t\(threads)s\(strip).jpg").path
                try RenderContext(options: options).write(small, toFile: out, quality: 90)
                XCTAssertEqual(try bytes(out), reference, "threads \(threads) strip \(strip)")
            }
        }
    }

    func testGrayJPEGShrinks() throws {
        let path = try makeJPEG(width: 333, height: 251, detailed: false, gray: true)
        let streamed = try Image(contentsOfFile: path, streaming: true)
        let small = try streamed.lanczosScaled(scale: 0.1)
        XCTAssertEqual(try chosenFactor(small), 4)
        let d = difference(
            try context(shrinks: true).makeBuffer(small, format: .rgba8),
            try context(shrinks: false).makeBuffer(small, format: .rgba8))
        let bound = try XCTUnwrap(Self.bounds["lanczos smooth"])
        XCTAssertLessThanOrEqual(d.max, bound.max)
        XCTAssertLessThanOrEqual(d.mean, bound.mean)
    }
}
