import Dispatch
import Foundation
import XCTest
@testable import PixelFlow
@testable import PixelFlowKernels
@testable import PixelFlowGraph
@testable import PixelFlowEngine

/// `MemoryBudget`: renders wait for bytes instead of failing, never hold more than the budget
/// together (a single render larger than it runs alone), and give everything back.
final class MemoryBudgetTests: XCTestCase {
    func testBadBudgetsThrow() {
        XCTAssertThrowsError(try MemoryBudget(bytes: 0))
        XCTAssertThrowsError(try MemoryBudget(bytes: -5))
    }

    func testConcurrentHoldersNeverExceedTheBudget() throws {
        let budget = try MemoryBudget(bytes: 100)
        let peak = Locked<(now: Int, max: Int)>((0, 0))
        DispatchQueue.concurrentPerform(iterations: 16) { i in
            let n = 30 + (i % 3) * 10  // 30, 40 or 50 bytes
            let taken = try! budget.acquire(n, cancellation: nil)
            peak.withLock {
                $0.now += taken; $0.max = max($0.max, $0.now)
            }
            usleep(2_000)
            peak.withLock { $0.now -= taken }
            budget.release(taken)
        }
        XCTAssertLessThanOrEqual(peak.withLock { $0.max }, 100)
        XCTAssertEqual(budget.bytesInUse, 0)
    }

    func testARenderLargerThanTheBudgetRunsAlone() throws {
        let budget = try MemoryBudget(bytes: 10)
        let first = try budget.acquire(1_000, cancellation: nil)
        XCTAssertEqual(budget.bytesInUse, 1_000)
        let done = DispatchSemaphore(value: 0)
        let started = Date()
        DispatchQueue.global().async {
            let second = try! budget.acquire(5, cancellation: nil)  // waits for the first
            budget.release(second)
            done.signal()
        }
        usleep(50_000)
        XCTAssertEqual(budget.waitingRenders, 1)
        budget.release(first)
        XCTAssertEqual(done.wait(timeout: .now() + 5), .success)
        XCTAssertGreaterThan(Date().timeIntervalSince(started), 0.04)
        XCTAssertEqual(budget.bytesInUse, 0)
    }

    func testCancelledWaitThrows() throws {
        let budget = try MemoryBudget(bytes: 10)
        let held = try budget.acquire(10, cancellation: nil)
        let token = CancellationToken()
        token.cancel()
        XCTAssertThrowsError(try budget.acquire(5, cancellation: token)) { XCTAssertEqual($0 as? PixelFlowError, .cancelled) }
        budget.release(held)
    }

    func testRendersShareABudgetAndGiveTheSameBytes() throws {
        let source = CodecTestSupport.smooth(width: 300, height: 200)
        let image = try Image(source).sepiaTone(intensity: 0.7).gaussianBlurred(radius: 3)
        let plain = RenderContext(threadCount: 1)
        let expected = try plain.makeBuffer(image, rect: Image(source).extent)
        let one = plain.estimatedMemory(
            image, rect: IntRect(x: 0, y: 0, width: 300, height: 200),
            destinationBytes: 300 * 200 * 4, streamingRowBytes: nil)
        var options = RenderContext.Options(threadCount: 1)
        options.memoryBudget = try MemoryBudget(bytes: one * 3 / 2)  // room for one render at a time
        let shared = RenderContext(options: options)
        let results = Locked<[PixelBuffer]>([])
        DispatchQueue.concurrentPerform(iterations: 6) { _ in
            let b = try! shared.makeBuffer(image, rect: Image(source).extent)
            results.withLock { $0.append(b) }
        }
        XCTAssertEqual(results.withLock { $0.count }, 6)
        for b in results.withLock({ $0 }) { XCTAssertEqual(CodecTestSupport.maximumDifference(b, expected), 0) }
        XCTAssertEqual(options.memoryBudget?.bytesInUse, 0)
    }
}
