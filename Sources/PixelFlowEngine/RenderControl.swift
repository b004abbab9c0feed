import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Cancels renders (and other long work) from any thread.
///
/// ```swift
/// let token = CancellationToken()
/// DispatchQueue.global().asyncAfter(deadline: .now() + 0.1) { token.cancel() }
/// do { _ = try context.makeBuffer(image, cancellation: token) } catch PixelFlowError.cancelled { ... }
/// ```
public final class CancellationToken: Sendable {
    private let flag = Atomic<Bool>(false)
    /// A token that has not been cancelled.
    public init() {}
    /// Asks the work using this token to stop; it throws `PixelFlowError.cancelled` within
    /// about one tile per worker.
    public func cancel() { flag.store(true, ordering: .relaxed) }
    /// True once `cancel()` was called.
    public var isCancelled: Bool { flag.load(ordering: .relaxed) }
}

/// Progress reporting and cancellation for one render or one detection.
///
/// `Scheduler.run` finds the control of the render it runs in through a thread-local slot
/// (set on the calling thread and on every worker), so every parallel loop of a render,
/// including those inside filters, stops taking work items once the render is cancelled.
package final class RenderControl: @unchecked Sendable {
    package let token: CancellationToken?
    private let progress: (@Sendable (Double) -> Void)?
    private let state = Locked<(done: Int, total: Int, last: Double)>((0, 1, 0))

    package init(token: CancellationToken?, progress: (@Sendable (Double) -> Void)?) {
        self.token = token
        self.progress = progress
    }

    package var isCancelled: Bool { token?.isCancelled ?? false }

    package func setTotal(_ units: Int) { state.withLock { $0.total = Swift.max(1, units) } }

    /// Adds finished work units and reports the new fraction if it grew. Fractions are
    /// monotonic and 1 is reported exactly once, when the last unit is done. The callback
    /// runs under a lock, so calls never overlap.
    package func advance(_ units: Int) {
        guard let progress else { return }
        state.withLock { s in
            s.done += units
            let f = s.done >= s.total ? 1 : Swift.min(Double(s.done) / Double(s.total), 0.999_999)
            if f > s.last {
                s.last = f
                progress(f)
            }
        }
    }

    /// Starts counting finished units from 0 again for work that restarts from the beginning
    /// (a streamed PNG written again with alpha), keeping the fraction already reported, so
    /// that reports stay monotonic and 1 still comes only at the real end.
    package func restartCounting() { state.withLock { $0.done = 0 } }

    /// `advance`, unless cancelled: detectors report nothing after a cancel.
    package func advanceUnlessCancelled(_ units: Int) { if !isCancelled { advance(units) } }

    /// Throws `PixelFlowError.cancelled` once the token is cancelled.
    package func checkCancelled() throws { if isCancelled { throw PixelFlowError.cancelled } }

    /// Reports 1 if it was not reported yet: the end of work whose unit count was an upper
    /// bound (a detector that skips its fallback passes).
    package func finish() {
        guard let progress else { return }
        state.withLock { s in
            s.done = s.total
            if s.last < 1 {
                s.last = 1
                progress(1)
            }
        }
    }

    /// Runs a detector's `body` under a new control (also this thread's current control, so
    /// `Scheduler.run` stops taking work items once cancelled), for detectors' progress and
    /// cancellation. `units` is an upper bound of the units `body` advances; 1 is reported
    /// once, after `body` returns and only if the token was not cancelled by then.
    ///
    /// - Throws: `PixelFlowError.cancelled` before starting and after `body` when cancelled
    ///   (`body` may stop early and return partial results, which are then dropped), and
    ///   what `body` throws.
    package static func run<R>(
        cancellation: CancellationToken?, progress: (@Sendable (Double) -> Void)?, units: Int,
        _ body: (RenderControl) throws -> R
    ) throws -> R {
        let control = RenderControl(token: cancellation, progress: progress)
        try control.checkCancelled()
        control.setTotal(units + 1)  // the last unit is `finish`
        let result = try with(control) { try body(control) }
        try control.checkCancelled()
        control.finish()
        return result
    }

    // MARK: Thread-local current control

    nonisolated(unsafe) private static var key: pthread_key_t = {
        var k = pthread_key_t()
        pthread_key_create(&k, nil)
        return k
    }()

    /// The control of the render running on this thread, if any.
    package static var current: RenderControl? {
        guard let p = pthread_getspecific(key) else { return nil }
        return Unmanaged<RenderControl>.fromOpaque(p).takeUnretainedValue()
    }

    /// Runs `body` with `control` as this thread's current control.
    package static func with<R>(_ control: RenderControl?, _ body: () throws -> R) rethrows -> R {
        let previous = pthread_getspecific(key)
        pthread_setspecific(key, control.map { Unmanaged.passUnretained($0).toOpaque() })
        defer { pthread_setspecific(key, previous) }
        return try body()
    }
}
