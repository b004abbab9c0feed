import Dispatch
import XCTest
@testable import PixelFlow
@testable import PixelFlowKernels
@testable import PixelFlowGraph
@testable import PixelFlowEngine

/// Progress reports and cancellation of renders.
final class CancellationTests: XCTestCase {
    let buffer = TestImages.random(width: 120, height: 90, format: .rgba8, seed: 77)

    /// A graph with a materialized stage (a large blur) and fused point operations.
    func graph() throws -> Image {
        try Image(buffer).clampedToExtent().gaussianBlurred(radius: 15).cropped(to: buffer.bounds).sepiaTone().colorInverted()
    }

    final class Recorder: @unchecked Sendable {
        let values = Locked<[Double]>([])
        func record(_ f: Double) { values.withLock { $0.append(f) } }
        var all: [Double] { values.withLock { $0 } }
    }

    func testProgressIsMonotonicAndReachesOneExactlyOnce() throws {
        for threads in [1, 2, 4] {
            let rec = Recorder()
            let ctx = RenderContext(threadCount: threads, tileWidth: 32, tileHeight: 16)
            let out = try ctx.makeBuffer(try graph(), progress: { rec.record($0) })
            let v = rec.all
            XCTAssertGreaterThan(v.count, 10)
            XCTAssertEqual(zip(v, v.dropFirst()).filter { $0 >= $1 }.count, 0, "not increasing: \(v)")
            XCTAssertEqual(v.filter { $0 == 1 }.count, 1)
            XCTAssertEqual(v.last, 1)
            XCTAssertEqual(out, try RenderContext(threadCount: 1).makeBuffer(try graph()))
        }
    }

    func testCancelledBeforeStartingThrows() throws {
        let token = CancellationToken()
        token.cancel()
        XCTAssertThrowsError(try RenderContext().makeBuffer(try graph(), cancellation: token)) { e in
            XCTAssertEqual(e as? PixelFlowError, .cancelled)
        }
    }

    /// Cancelling from the progress callback at a random point: the render throws, and stops
    /// within about one tile per worker.
    func testCancellationAtRandomTimesStopsPromptly() throws {
        var rng = SeededRandom(seed: 12)
        let ctx = RenderContext(threadCount: 3, tileWidth: 16, tileHeight: 16)
        let reference = try ctx.makeBuffer(try graph())
        for _ in 0..<8 {
            let stopAt = Double(rng.unit()) * 0.95
            let token = CancellationToken()
            let rec = Recorder()
            do {
                let out = try ctx.makeBuffer(
                    try graph(), cancellation: token,
                    progress: { f in
                        rec.record(f)
                        if f >= stopAt { token.cancel() }
                    })
                XCTAssertEqual(out, reference)  // finished before the cancel took effect
            } catch let e as PixelFlowError {
                XCTAssertEqual(e, .cancelled)
                let after = rec.all.filter { $0 > stopAt }
                // Each of the 3 workers may finish the tile it was on; a stage buffer may also complete.
                XCTAssertLessThanOrEqual(after.count, 8, "\(after.count) reports after the cancel at \(stopAt)")
            }
        }
    }

    func testCancellationFromAnotherThread() throws {
        let big = TestImages.random(width: 300, height: 200, format: .rgba8, seed: 1)
        let image = try Image(big).clampedToExtent().gaussianBlurred(radius: 8).cropped(to: big.bounds).gammaAdjusted(power: 0.7)
        let token = CancellationToken()
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.01) { token.cancel() }
        do {
            _ = try RenderContext(threadCount: 2, tileWidth: 16, tileHeight: 16).makeBuffer(image, cancellation: token)
        } catch let e as PixelFlowError {
            XCTAssertEqual(e, .cancelled)
        }
        // A new render without the token is unaffected.
        XCTAssertNoThrow(try RenderContext().makeBuffer(image))
    }

    /// `RenderContext.write` with a cancelled token throws `.cancelled` and leaves the file
    /// that was there untouched; with a live token it writes and reports progress up to 1.
    func testWriteIsCancellableAndLeavesTheFileIntact() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pf-cancel-write-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("out.png").path
        try Data("previous".utf8).write(to: URL(fileURLWithPath: path))
        let image = try Image.constantColor(Color(red: 0.2, green: 0.4, blue: 0.6)).cropped(
            to: Rect(x: 0, y: 0, width: 300, height: 200))
        let token = CancellationToken()
        token.cancel()
        XCTAssertThrowsError(try RenderContext().write(image, toFile: path, cancellation: token)) { error in
            XCTAssertEqual(error as? PixelFlowError, .cancelled)
        }
        XCTAssertEqual(try String(contentsOfFile: path, encoding: .utf8), "previous")
        let last = Locked(0.0)
        try RenderContext().write(image, toFile: path, cancellation: CancellationToken()) { f in last.withLock { $0 = f } }
        XCTAssertEqual(last.withLock { $0 }, 1)
        XCTAssertEqual(try PixelBuffer(contentsOfFile: path).width, 300)
    }
}
