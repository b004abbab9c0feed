import Dispatch
import Foundation
import Synchronization
import XCTest
@testable import PixelFlow
@testable import PixelFlowKernels
@testable import PixelFlowGraph
@testable import PixelFlowEngine

/// Progress reports and cancellation of the three detectors (`QRCodeDetector`,
/// `RectangleDetector`, `FaceDetector`), with the promises of renders (`CancellationTests`):
/// fractions increase and reach 1 exactly once, on success only; a cancelled detection throws
/// `PixelFlowError.cancelled`, returns no features and reports nothing after the cancel; a
/// never-cancelled token changes nothing. The face tests need the opencv-data cascades.
final class DetectorCancellationTests: XCTestCase {
    /// One detector on one image: `run` with a token and a progress callback, `plain` with
    /// neither. Features are compared through their descriptions (all three are Hashable).
    struct Case {
        var name: String
        var run: (CancellationToken?, (@Sendable (Double) -> Void)?) throws -> [AnyHashable]
        var plain: () throws -> [AnyHashable]
    }

    final class Recorder: @unchecked Sendable {
        let values = Locked<[Double]>([])
        func record(_ f: Double) { values.withLock { $0.append(f) } }
        var all: [Double] { values.withLock { $0 } }
    }

    static func qrCase(_ name: String, _ buffer: PixelBuffer, _ options: DetectorOptions) -> Case {
        let d = QRCodeDetector(options: options)
        return Case(
            name: name, run: { t, p in try d.features(in: buffer, cancellation: t, progress: p) },
            plain: { try d.features(in: buffer) })
    }

    static func rectangleCase(_ name: String, _ buffer: PixelBuffer, threads: Int) -> Case {
        let d = RectangleDetector(options: .init(maximumFeatureCount: 3, threadCount: threads))
        return Case(
            name: name, run: { t, p in try d.features(in: buffer, cancellation: t, progress: p) },
            plain: { d.features(in: buffer) })
    }

    static func faceCase(
        _ name: String, _ buffer: PixelBuffer, landmarks: Bool, threads: Int,
        angles: [Double] = []
    ) throws -> Case {
        let d = try FaceDetector(
            options: DetectorOptions(accuracy: .high),
            configuration: .init(
                cascade: .named("haarcascade_frontalface_default.xml"), rotationAngles: angles, findsLandmarks: landmarks,
                threadCount: threads))
        return Case(
            name: name, run: { t, p in try d.features(in: buffer, cancellation: t, progress: p) },
            plain: { try d.features(in: buffer) })
    }

    /// A QR code (found at full resolution), a noise image (every fallback pass runs), a
    /// document scene on 1 and 3 threads, and the group photograph on 2 threads, with
    /// landmarks and one rotation angle.
    func cases() throws -> [Case] {
        let code = try QRCodeDetectorTests.scene("PixelFlow cancellation", scale: 3).buffer
        let noise = TestImages.random(width: 90, height: 80, format: .rgba8, seed: 5)
        let (document, _) = RectangleScenes.scene(width: 240, height: 180, seed: 21, options: .init())
        let group = try PixelBuffer(contentsOfFile: FaceCascadeTests.fixtures.appendingPathComponent("group.png").path)
        return [
            Self.qrCase("qr code", code, DetectorOptions()),
            Self.qrCase("qr noise, trying harder", noise, DetectorOptions(tryHarder: true)),
            Self.rectangleCase("rectangle, 1 thread", document, threads: 1),
            Self.rectangleCase("rectangle, 3 threads", document, threads: 3),
            try Self.faceCase("faces with landmarks and a rotation", group, landmarks: true, threads: 2, angles: [20]),
        ]
    }

    func testProgressIsMonotonicAndReachesOneExactlyOnce() throws {
        for c in try cases() {
            let rec = Recorder()
            let token = CancellationToken()  // never cancelled
            let found = try c.run(token, { rec.record($0) })
            let v = rec.all
            XCTAssertGreaterThan(v.count, 1, c.name)
            XCTAssertEqual(zip(v, v.dropFirst()).filter { $0 >= $1 }.count, 0, "\(c.name): not increasing: \(v)")
            XCTAssertTrue(v.allSatisfy { $0 > 0 && $0 <= 1 }, "\(c.name): \(v)")
            XCTAssertEqual(v.filter { $0 == 1 }.count, 1, c.name)
            XCTAssertEqual(v.last, 1, c.name)
            // A never-cancelled token and a progress callback change nothing.
            XCTAssertEqual(found, try c.plain(), c.name)
            XCTAssertEqual(try c.run(nil, nil), found, c.name)
        }
    }

    func testCancelledBeforeStartingThrowsImmediately() throws {
        for c in try cases() {
            let token = CancellationToken()
            token.cancel()
            let rec = Recorder()
            XCTAssertThrowsError(try c.run(token, { rec.record($0) }), c.name) { e in
                XCTAssertEqual(e as? PixelFlowError, .cancelled, c.name)
            }
            XCTAssertEqual(rec.all, [], c.name)
        }
        // Through an image: the render is cancelled too.
        let token = CancellationToken()
        token.cancel()
        let image = Image(TestImages.random(width: 40, height: 40, format: .rgba8, seed: 2))
        XCTAssertThrowsError(try QRCodeDetector().features(in: image, cancellation: token)) { e in
            XCTAssertEqual(e as? PixelFlowError, .cancelled)
        }
        XCTAssertThrowsError(try RectangleDetector().features(in: image, cancellation: token)) { e in
            XCTAssertEqual(e as? PixelFlowError, .cancelled)
        }
    }

    /// Cancelling from the progress callback at seeded random points: the detection throws
    /// `cancelled`, never reports 1, reports nothing after the cancel and returns nothing; or,
    /// when the cancel comes with the report of 1 (the point was past the last step), the
    /// result is complete and equal to an uncancelled run.
    func testCancellationAtRandomPointsThrowsAndReturnsNoPartialResults() throws {
        var rng = SeededRandom(seed: 31)
        for c in try cases() {
            let reference = try c.plain()
            var cancelled = 0
            for _ in 0..<6 {
                let stopAt = Double(rng.unit()) * 0.98
                let token = CancellationToken()
                let rec = Recorder()
                do {
                    let found = try c.run(
                        token,
                        { f in
                            rec.record(f)
                            if f >= stopAt { token.cancel() }
                        })
                    XCTAssertEqual(rec.all.filter { $0 >= stopAt }, [1], "\(c.name): finished after a cancel at \(stopAt)")
                    XCTAssertEqual(found, reference, c.name)
                } catch let e as PixelFlowError {
                    XCTAssertEqual(e, .cancelled, c.name)
                    let v = rec.all
                    XCTAssertFalse(v.contains(1), "\(c.name): 1 reported for a cancelled detection")
                    XCTAssertEqual(v.filter { $0 >= stopAt }.count, 1, "\(c.name): reports after the cancel at \(stopAt): \(v)")
                    cancelled += 1
                }
            }
            XCTAssertGreaterThan(cancelled, 0, "\(c.name): no trial was cancelled")
        }
    }

    /// `body` detects with `token`; another thread cancels at the first progress report past
    /// `at`. Returns the time from that `cancel()` to the throw.
    func cancelFromAnotherThread(at: Double, _ body: (CancellationToken, @escaping @Sendable (Double) -> Void) throws -> Void)
        throws -> Double
    {
        let token = CancellationToken()
        let cancelledAt = Locked<Double?>(nil)
        let started = Atomic<Bool>(false)
        let progress: @Sendable (Double) -> Void = { f in
            guard f >= at, !started.exchange(true, ordering: .relaxed) else { return }
            DispatchQueue.global().async {
                cancelledAt.withLock { $0 = Self.now() }
                token.cancel()
            }
        }
        XCTAssertThrowsError(try body(token, progress)) { e in
            XCTAssertEqual(e as? PixelFlowError, .cancelled)
        }
        let end = Self.now()
        let start = try XCTUnwrap(cancelledAt.withLock { $0 }, "the detection ended before the cancel")
        return end - start
    }

    static func now() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }

    /// The group photograph tiled to 1920 x 1080: a long detection with many pyramid levels.
    func hdGroup() throws -> PixelBuffer {
        let tile = try PixelBuffer(contentsOfFile: FaceCascadeTests.fixtures.appendingPathComponent("group.png").path)
            .converted(to: .rgba8)
        var big = try PixelBuffer(width: 1920, height: 1080, format: .rgba8)
        let tw = tile.width, th = tile.height, tbpr = tile.bytesPerRow
        big.withUnsafeMutableBytes { dst in
            tile.withUnsafeBytes { src in
                for y in 0..<1080 {
                    for x0 in stride(from: 0, to: 1920, by: tw) {
                        let n = min(tw, 1920 - x0) * 4
                        let d = dst.baseAddress! + y * 1920 * 4 + x0 * 4
                        memcpy(d, src.baseAddress! + (y % th) * tbpr, n)
                    }
                }
            }
        }
        return big
    }

    /// Faces on a 1920 x 1080 image at accuracy high on 2 threads, cancelled from another
    /// thread at the first progress report (after the first pyramid level or levels, at least
    /// a few percent of the windows): the detection throws within a small part of the time
    /// those took (measured here, so no absolute threshold; a whole detection takes
    /// about 17 s in a debug build, which this test avoids). The unit of work is one band of
    /// at most 8 window rows per worker, or one level's resize and integrals.
    func testFaceCancellationFromAnotherThreadIsPrompt() throws {
        let buffer = try hdGroup()
        let d = try FaceDetector(
            options: DetectorOptions(accuracy: .high),
            configuration: .init(cascade: .named("haarcascade_frontalface_default.xml"), threadCount: 2))
        let t0 = Self.now()
        let firstReport = Locked<Double?>(nil)
        let latency = try cancelFromAnotherThread(at: 0) { token, progress in
            _ = try d.features(
                in: buffer, cancellation: token,
                progress: { f in
                    firstReport.withLock { $0 = $0 ?? Self.now() }
                    progress(f)
                })
        }
        let firstLevel = try XCTUnwrap(firstReport.withLock { $0 }) - t0
        XCTAssertLessThan(latency, firstLevel / 2, "cancel took \(latency) s; the first level \(firstLevel) s")
        print("faces 1920x1080: first level \(firstLevel) s, cancel-to-throw \(latency) s")
    }

    /// The same for rectangles on a 1920 x 1080 scene (3 threads) and for QR codes on a
    /// 960 x 540 noise image trying harder (six passes, the last two at twice the
    /// resolution); cancelled at the first report, so the work left is at most one pass.
    func testRectangleAndQRCancellationFromAnotherThreadIsPrompt() throws {
        let (scene, _) = RectangleScenes.scene(width: 1920, height: 1080, seed: 8, options: .init())
        let rectangles = RectangleDetector(options: .init(threadCount: 3))
        var t0 = Self.now()
        _ = try rectangles.features(in: scene, cancellation: CancellationToken())
        var full = Self.now() - t0
        var latency = try cancelFromAnotherThread(at: 0) { token, progress in
            _ = try rectangles.features(in: scene, cancellation: token, progress: progress)
        }
        XCTAssertLessThan(latency, full / 2, "rectangles: cancel took \(latency) s; the whole detection \(full) s")
        print("rectangles 1920x1080: whole detection \(full) s, cancel-to-throw \(latency) s")

        let noise = TestImages.random(width: 960, height: 540, format: .rgba8, seed: 9)
        let qr = QRCodeDetector(options: DetectorOptions(tryHarder: true))
        t0 = Self.now()
        _ = try qr.features(in: noise, cancellation: CancellationToken())
        full = Self.now() - t0
        latency = try cancelFromAnotherThread(at: 0) { token, progress in
            _ = try qr.features(in: noise, cancellation: token, progress: progress)
        }
        XCTAssertLessThan(latency, full / 2, "qr: cancel took \(latency) s; the whole detection \(full) s")
        print("qr 960x540 noise: whole detection \(full) s, cancel-to-throw \(latency) s")
    }
}
