import Foundation
import XCTest
@testable import PixelFlow
@testable import PixelFlowKernels
@testable import PixelFlowGraph
@testable import PixelFlowEngine

/// Streamed JPEG sources (`Image(contentsOfFile:options:streaming:)`) and streamed JPEG writes
/// (`RenderContext.write(_:toFile:...)`): same pixels and same bytes as decoding, rendering
/// and encoding whole images, whatever the strip height and thread count; errors met
/// mid-stream throw and leave no file behind.
final class StreamingRenderTests: TemporaryDirectoryTestCase {
    private typealias S = CodecTestSupport

    /// A photo-like JPEG: a smooth gradient with noise, so that every row differs.
    private func makeJPEG(
        width: Int, height: Int, gray: Bool = false, progressive: Bool = false,
        name: String = "in.jpg"
    ) throws -> String {
        var b = S.smooth(width: width, height: height)
        let noise = S.rgba8(width: width, height: height, alpha: false, seed: 9)
        b.withUnsafeMutableRows { y, row in
            let p = row.assumingMemoryBound(to: UInt8.self)
            noise.withUnsafeBytes { n in
                let q = (n.baseAddress! + y * noise.bytesPerRow).assumingMemoryBound(to: UInt8.self)
                for i in 0..<(4 * width) where i % 4 != 3 { p[i] = p[i] &+ (q[i] & 15) }
            }
        }
        if gray { b = b.converted(to: .gray8) }
        let path = directory.appendingPathComponent(name).path
        try b.write(toFile: path, format: .jpeg, quality: 90, options: EncodeOptions(progressive: progressive))
        return path
    }

    /// The vips-bench graph: crop 10 px per edge, clamp, scale by 0.9 (bilinear), clamp,
    /// 3x3 sharpen, crop.
    private func vipsGraph(_ source: Image) throws -> (Image, Rect) {
        let e = source.extent
        let crop = Rect(x: 10, y: 10, width: e.width - 20, height: e.height - 20)
        let scale = AffineTransform(scaleX: 0.9, y: 0.9)
        let extent = scale.apply(to: crop).integral
        let shrunk = try source.cropped(to: crop).clampedToExtent().transformed(by: scale).cropped(to: extent)
        let sharpen = [-1.0, -1, -1, -1, 16, -1, -1, -1, -1].map { $0 / 8 }
        return (try shrunk.clampedToExtent().convolved3x3(weights: sharpen).cropped(to: extent), extent)
    }

    private func bytes(_ path: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))) }

    /// The reference: the same graph over a fully decoded source, rendered whole, then encoded.
    private func referenceJPEG(
        _ path: String, context: RenderContext, quality: Int = 90,
        graph: (Image) throws -> (Image, Rect)
    ) throws -> [UInt8] {
        let (image, rect) = try graph(try Image(contentsOfFile: path, streaming: false))
        return try context.makeBuffer(image, rect: rect, format: .rgba8).encoded(as: .jpeg, quality: quality)
    }

    // MARK: Decoding

    func testStreamedSourceHasTheFullDecodesPixels() throws {
        for (gray, progressive) in [(false, false), (true, false), (false, true)] {
            let path = try makeJPEG(width: 123, height: 77, gray: gray, progressive: progressive)
            let full = try PixelBuffer(contentsOfFile: path)
            let streamed = try Image(contentsOfFile: path, streaming: true)
            XCTAssertEqual(streamed.extent, Rect(x: 0, y: 0, width: 123, height: 77))
            for linear in [false, true] {
                let ctx = RenderContext(threadCount: 2, colorManagement: linear ? .linear : .none)
                let a = try ctx.makeBuffer(streamed, format: .rgbaF32)
                let b = try ctx.makeBuffer(Image(full), format: .rgbaF32)
                XCTAssertEqual(maxDifference(a, b), 0, "gray \(gray) progressive \(progressive) linear \(linear)")
            }
        }
    }

    func testRowWindowDeliversTheFullDecodesRowsInBands() throws {
        let path = try makeJPEG(width: 61, height: 90)
        let full = try PixelBuffer(contentsOfFile: path)
        let source = try StreamedSource(jpeg: try bytes(path), name: path, options: .default)
        XCTAssertEqual([full.width, full.height, full.format.bytesPerPixel], [61, 90, 4])
        try assertWindowRowsEqual(source, full, bands: [1, 7, 16, 90], path)
    }

    /// A decode past more rows than the window holds (a render whose first strip reads rows
    /// far below row 0) keeps the last `capacity` rows exactly, also when the decoder converts
    /// rows on several threads in any order (the JPEG raw pipeline): each call covers at most
    /// `capacity` rows, so no two rows of a call share a slot.
    func testRowWindowDecodingPastItsCapacityKeepsTheLastRows() throws {
        let path = try makeJPEG(width: 203, height: 181)
        let full = try PixelBuffer(contentsOfFile: path)
        for threads in [1, 2, 3] {
            var options = DecodeOptions.default
            options.threadCount = threads
            let source = try StreamedSource(jpeg: try bytes(path), name: path, options: options)
            for (capacity, upTo) in [(7, 60), (16, 181), (40, 130), (161, 181)] {
                let window = try RowWindow(source: source, capacity: capacity)
                try window.decode(upTo: upTo)
                for r in upTo - capacity..<upTo {
                    full.withUnsafeBytes { raw in
                        XCTAssertEqual(
                            memcmp(window.row(r), raw.baseAddress! + r * full.bytesPerRow, 203 * 4), 0,
                            "row \(r), capacity \(capacity), \(threads) decoder thread(s)")
                    }
                }
            }
        }
    }

    // MARK: Writing

    func testStreamedWriteIsByteIdenticalToRenderingWholeThenEncoding() throws {
        let path = try makeJPEG(width: 203, height: 181)
        for management in [RenderContext.ColorManagement.none, .linear] {
            let reference = try referenceJPEG(
                path, context: RenderContext(threadCount: 1, colorManagement: management),
                graph: vipsGraph)
            for threads in [1, 2, 3] {
                for stripHeight in [1, 5, 16, 64, 1000] {
                    var options = RenderContext.Options(
                        threadCount: threads, tileWidth: 48, tileHeight: 16,
                        colorManagement: management)
                    options.stripHeight = stripHeight
                    let ctx = RenderContext(options: options)
                    let out = directory.appendingPathComponent("out-\(threads)-\(stripHeight).jpg").path
                    let (image, rect) = try vipsGraph(try Image(contentsOfFile: path, streaming: true))
                    try ctx.write(image, toFile: out, rect: rect, quality: 90)
                    XCTAssertEqual(
                        try bytes(out), reference,
                        "\(management), \(threads) thread(s), strips of \(stripHeight) rows")
                    // A fully decoded source written in strips gives the same bytes too.
                    let (fullImage, _) = try vipsGraph(try Image(contentsOfFile: path, streaming: false))
                    try ctx.write(fullImage, toFile: out, rect: rect, quality: 90)
                    XCTAssertEqual(try bytes(out), reference)
                }
            }
        }
    }

    func testStreamedWriteMatchesForGrayProgressiveAndEncoderOptions() throws {
        let path = try makeJPEG(width: 97, height: 130, gray: true, progressive: true)
        let ctx = RenderContext(
            options: RenderContext.Options(
                threadCount: 2, tileWidth: 32, tileHeight: 8,
                colorManagement: .none, stripHeight: 9))
        let encode = EncodeOptions(progressive: true, chromaSubsampling: .yuv444)
        let (image, rect) = try vipsGraph(try Image(contentsOfFile: path, streaming: true))
        let out = directory.appendingPathComponent("out.jpg").path
        try ctx.write(image, toFile: out, rect: rect, quality: 75, encodeOptions: encode)
        let (full, _) = try vipsGraph(try Image(contentsOfFile: path, streaming: false))
        let reference = try ctx.makeBuffer(full, rect: rect).encoded(as: .jpeg, quality: 75, options: encode)
        XCTAssertEqual(try bytes(out), reference)
    }

    func testGraphsNeedingRandomAccessStillRenderCorrectly() throws {
        let path = try makeJPEG(width: 90, height: 140)
        let ctx = RenderContext(
            options: RenderContext.Options(
                threadCount: 2, tileWidth: 32, tileHeight: 16,
                colorManagement: .none, stripHeight: 16))
        for (name, graph) in StreamingGraphs.randomAccess {
            let reference = try referenceJPEG(path, context: ctx, graph: graph)
            let (image, rect) = try graph(try Image(contentsOfFile: path, streaming: true))
            let out = directory.appendingPathComponent("out.jpg").path
            try ctx.write(image, toFile: out, rect: rect)
            XCTAssertEqual(try bytes(out), reference, name)
        }
    }

    func testWindowStaysAboutOneStripTallForTheVipsGraph() throws {
        let path = try makeJPEG(width: 200, height: 400)
        let (image, rect) = try vipsGraph(try Image(contentsOfFile: path, streaming: true))
        let options = RenderContext.Options(threadCount: 1, colorManagement: .none, stripHeight: 32)
        let plan = RenderPlan(root: image.node, rect: IntRect(covering: rect), options: options)
        let schedule = StripSchedule(plan: plan, stripHeight: 32)
        XCTAssertEqual(schedule.sources.count, 1)
        // The strip rendering and those the decoder may run ahead (32 / 0.9 input rows
        // each), plus the filters' margins.
        XCTAssertLessThanOrEqual(schedule.sources[0].capacity, (StripSchedule.lookahead + 1) * 36 + 8)
        let rotated = try Image(contentsOfFile: path, streaming: true).transformed(by: AffineTransform(rotationAngle: .pi / 2))
        let rotatedPlan = RenderPlan(root: rotated.node, rect: IntRect(covering: rotated.extent), options: options)
        XCTAssertEqual(StripSchedule(plan: rotatedPlan, stripHeight: 32).sources[0].capacity, 400)
    }

    // MARK: Errors

    func testTruncatedJPEGThrowsMidStreamAndLeavesNoFile() throws {
        let path = try makeJPEG(width: 160, height: 480)
        let whole = try bytes(path)
        let cut = directory.appendingPathComponent("cut.jpg").path
        try Data(whole.prefix(whole.count * 6 / 10)).write(to: URL(fileURLWithPath: cut))
        // The header is intact: the streamed image is made, the render meets the cut.
        let image = try Image(contentsOfFile: cut, streaming: true)
        let out = directory.appendingPathComponent("out.jpg").path
        for threads in [1, 2] {
            let ctx = RenderContext(
                options: RenderContext.Options(
                    threadCount: threads, colorManagement: .none,
                    stripHeight: 16))
            XCTAssertThrowsError(try ctx.write(image, toFile: out)) { error in
                guard case PixelFlowError.decodingFailed = error else { return XCTFail("\(error)") }
            }
            XCTAssertFalse(FileManager.default.fileExists(atPath: out))
            // An existing file is left as it was.
            try Data("old".utf8).write(to: URL(fileURLWithPath: out))
            XCTAssertThrowsError(try ctx.write(image, toFile: out))
            XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: out)), Data("old".utf8))
            try FileManager.default.removeItem(atPath: out)
            // A full render of the same image throws too.
            XCTAssertThrowsError(try ctx.makeBuffer(image))
        }
        try assertNoTemporaryFilesLeft()
    }

    func testCorruptScanDataThrowsMidStream() throws {
        let path = try makeJPEG(width: 160, height: 320)
        var data = try bytes(path)
        // A marker in the middle of the entropy-coded data: the scan is cut short there.
        let middle = data.count / 2
        data[middle] = 0xFF
        data[middle + 1] = 0xD9
        let bad = directory.appendingPathComponent("bad.jpg").path
        try Data(data).write(to: URL(fileURLWithPath: bad))
        let image = try Image(contentsOfFile: bad, streaming: true)
        let out = directory.appendingPathComponent("out.jpg").path
        XCTAssertThrowsError(try RenderContext(threadCount: 2, colorManagement: .none).write(image, toFile: out))
        XCTAssertFalse(FileManager.default.fileExists(atPath: out))
    }

    func testAbsurdDimensionsAreRejectedBeforeDecoding() throws {
        let lie = directory.appendingPathComponent("lie.jpg").path
        try Data(try DecompressionBombs.headerLieJPEG()).write(to: URL(fileURLWithPath: lie))
        XCTAssertThrowsError(try Image(contentsOfFile: lie, streaming: true)) { error in
            guard case PixelFlowError.limitExceeded = error else { return XCTFail("\(error)") }
        }
        let path = try makeJPEG(width: 100, height: 100)
        XCTAssertThrowsError(
            try Image(
                contentsOfFile: path, options: DecodeOptions(maximumPixelCount: 9_999),
                streaming: true)
        ) { error in
            guard case PixelFlowError.limitExceeded = error else { return XCTFail("\(error)") }
        }
        XCTAssertThrowsError(try Image(contentsOfFile: path, options: DecodeOptions(maximumHeight: 99), streaming: true))
    }

    func testBadQualityFailsBeforeTouchingTheFile() throws {
        let path = try makeJPEG(width: 40, height: 40)
        let out = directory.appendingPathComponent("out.jpg").path
        let image = try Image(contentsOfFile: path, streaming: true)
        XCTAssertThrowsError(try RenderContext(threadCount: 1).write(image, toFile: out, quality: 0))
        XCTAssertFalse(FileManager.default.fileExists(atPath: out))
    }

    func testCancelledStreamedWriteLeavesNoFile() throws {
        let path = try makeJPEG(width: 64, height: 64)
        let token = CancellationToken()
        token.cancel()
        let out = directory.appendingPathComponent("out.jpg").path
        XCTAssertThrowsError(
            try RenderContext(threadCount: 2).write(
                try Image(contentsOfFile: path, streaming: true),
                toFile: out, cancellation: token)
        ) { error in
            guard case PixelFlowError.cancelled = error else { return XCTFail("\(error)") }
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: out))
    }

    func testFilesWithoutRowDecoderAreDecodedFully() throws {
        // An Adam7 PNG: its rows are complete only after the last pass (PNGStreamingTests
        // covers the PNGs that stream).
        let png = directory.appendingPathComponent("in.png").path
        let buffer = S.rgba8(width: 20, height: 10, alpha: true)
        try buffer.write(toFile: png, format: .png, options: EncodeOptions(interlaced: true))
        let image = try Image(contentsOfFile: png, streaming: true)
        guard case .source = image.node.op else { return XCTFail("an interlaced PNG should be decoded fully") }
        XCTAssertEqual(try RenderContext(threadCount: 1, colorManagement: .none).makeBuffer(image).width, 20)
    }
}
