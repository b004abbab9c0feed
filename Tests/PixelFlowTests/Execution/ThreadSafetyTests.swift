import Dispatch
import Foundation
import XCTest
@testable import PixelFlow
@testable import PixelFlowKernels
@testable import PixelFlowGraph
@testable import PixelFlowEngine

/// Many threads rendering shared images with one shared context. Run under
/// `swift test --sanitize=thread` to let ThreadSanitizer check it (Docs/Reliability.md).
final class ThreadSafetyTests: XCTestCase {
    /// Runs `body(i)` on `count` dedicated threads at once (not a dispatch pool, which may run
    /// them one after another), and waits for all of them.
    func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
        let done = DispatchGroup()
        for i in 0..<count {
            done.enter()
            let t = Thread {
                body(i); done.leave()
            }
            t.stackSize = 1 << 20
            t.start()
        }
        done.wait()
    }

    /// A start barrier: every worker waits until all have arrived, so their renders overlap.
    final class Barrier: @unchecked Sendable {
        private let count: Int
        private let arrived = Locked<Int>(0)
        init(_ count: Int) { self.count = count }
        func wait() {
            arrived.withLock { $0 += 1 }
            while arrived.withLock({ $0 }) < count { sched_yield() }
        }
    }

    func testManyThreadsShareOneContextAndOneGraph() throws {
        let buffer = TestImages.random(width: 96, height: 64, format: .rgba8, seed: 3)
        let shared = try Image(buffer).colorControls(saturation: 1.3).gaussianBlurred(radius: 4).cropped(to: buffer.bounds)
            .composited(atop: Image(buffer)).lanczosScaled(scale: 0.7)
        let context = RenderContext(threadCount: 2, tileWidth: 32, tileHeight: 16)
        let reference = try context.makeBuffer(shared)
        let workers = 8
        let barrier = Barrier(workers)
        let failures = Locked<[String]>([])
        onThreads(workers) { i in
            barrier.wait()
            for round in 0..<3 {
                do {
                    // Real work per worker: the shared graph plus one of its own on top.
                    let out = try context.makeBuffer(shared)
                    if out != reference { failures.withLock { $0.append("worker \(i) round \(round): shared graph differs") } }
                    let own = try shared.exposureAdjusted(ev: Double(i) / 10)
                    _ = try context.makeBuffer(own, format: .rgbaF32)
                } catch {
                    failures.withLock { $0.append("worker \(i): \(error)") }
                }
            }
        }
        XCTAssertEqual(failures.withLock { $0 }, [])
    }

    /// A deliberate data race, to prove that ThreadSanitizer is live in a sanitizer run.
    /// `Locked` serializes its holders: eight threads started together add 20 000 times each
    /// and no update is lost (an unguarded counter loses some on two cores; under the thread
    /// sanitizer this test must also report nothing).
    func testLockedLosesNoUpdate() {
        let counter = Locked(0)
        let barrier = Barrier(8)
        onThreads(8) { _ in
            barrier.wait()
            for _ in 0..<20_000 { counter.withLock { $0 += 1 } }
        }
        XCTAssertEqual(counter.withLock { $0 }, 160_000)
    }

    /// Runs only with PIXELFLOW_TSAN_CANARY=1 (it must then be reported by TSan).
    func testRacyCanary() throws {
        guard ProcessInfo.processInfo.environment["PIXELFLOW_TSAN_CANARY"] == "1" else {
            throw XCTSkip("set PIXELFLOW_TSAN_CANARY=1 under --sanitize=thread to check that races are reported")
        }
        final class Box: @unchecked Sendable { var value = 0 }
        let box = Box()
        let barrier = Barrier(2)
        onThreads(2) { _ in
            barrier.wait()
            for _ in 0..<10_000 { box.value += 1 }
        }
        XCTAssertGreaterThan(box.value, 0)
    }
}
