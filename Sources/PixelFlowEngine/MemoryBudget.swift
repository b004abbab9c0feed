#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Bytes that concurrent renders share: a render estimates what it will hold (its output
/// buffer, stage buffers, decoded rows of its sources, strips and tile scratch) and waits
/// until that much of the budget is free before it allocates anything; it gives the bytes
/// back when it ends. A render larger than the whole budget runs alone rather than failing.
///
/// Give one budget to the contexts of a server so that many requests at once cannot run it
/// out of memory; renders then queue instead of swapping or being killed.
///
/// ```swift
/// let budget = try MemoryBudget(bytes: 512 << 20)
/// var options = RenderContext.Options()
/// options.memoryBudget = budget                     // shared by every request's context
/// ```
///
/// The estimate (`RenderContext.estimatedMemory`) counts what PixelFlow allocates for the
/// render, not what the caller already holds (source buffers, the destination of
/// `render(_:to:)`) nor the libraries' own state.
///
/// `@unchecked Sendable`: its counter is only read and written under its pthread mutex.
public final class MemoryBudget: @unchecked Sendable, CustomStringConvertible {
    /// The bytes renders may hold at once.
    public let bytes: Int
    private var used = 0
    private var waiting = 0
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let condition: UnsafeMutablePointer<pthread_cond_t>

    /// A budget of `bytes`.
    ///
    /// - Throws: `invalidParameter` unless `bytes` is positive.
    public init(bytes: Int) throws {
        guard bytes > 0 else {
            throw PixelFlowError.invalidParameter(filter: "MemoryBudget", key: "bytes", reason: "must be positive, got \(bytes)")
        }
        self.bytes = bytes
        mutex = .allocate(capacity: 1)
        condition = .allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(condition, nil)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
        condition.deallocate()
    }

    /// Bytes held by running renders now.
    public var bytesInUse: Int {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return used
    }

    /// Renders waiting for bytes now.
    public var waitingRenders: Int {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return waiting
    }

    public var description: String { "MemoryBudget(\(bytes) bytes, \(bytesInUse) in use)" }

    /// Waits until `count` bytes fit beside those in use (or nothing else is in use), takes
    /// them and returns them; a cancelled render stops waiting and throws `cancelled`.
    func acquire(_ count: Int, cancellation: CancellationToken?) throws -> Int {
        let n = Swift.max(0, count)
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        waiting += 1
        defer { waiting -= 1 }
        while used > 0 && used + n > bytes {
            if cancellation?.isCancelled == true { throw PixelFlowError.cancelled }
            // Woken by each release; a bounded wait notices cancellation too.
            var deadline = timespec()
            clock_gettime(CLOCK_REALTIME, &deadline)
            deadline.tv_nsec += 50_000_000
            if deadline.tv_nsec >= 1_000_000_000 { deadline.tv_sec += 1; deadline.tv_nsec -= 1_000_000_000 }
            pthread_cond_timedwait(condition, mutex, &deadline)
        }
        used += n
        return n
    }

    /// Gives back bytes taken by `acquire`.
    func release(_ count: Int) {
        pthread_mutex_lock(mutex)
        used -= count
        pthread_cond_broadcast(condition)
        pthread_mutex_unlock(mutex)
    }
}

extension RenderContext {
    /// What a render of `rect` of the graph `root` (color-managed, as rendered) will allocate,
    /// in bytes: `destinationBytes` (a new
    /// output buffer), every stage buffer, the decoded rows of its streamed sources (a window
    /// for a streaming write, the whole image otherwise), three output strips of
    /// `stripBytesPerRow` for a streaming write, and each worker's tile scratch.
    package func estimatedMemory(_ root: Node, rect: IntRect, destinationBytes: Int, streamingRowBytes: Int?) -> Int {
        let plan = RenderPlan(root: root, rect: rect, options: options)
        var total = destinationBytes
        for n in plan.stageNodes { total += (plan.region(of: n)?.area ?? 0) * 16 }
        let schedule = StripSchedule(plan: plan, stripHeight: stripHeight(rowBytes: streamingRowBytes ?? rect.width * 4))
        for s in schedule.sources {
            let rows = streamingRowBytes == nil ? s.source.height : s.capacity
            total += rows * s.source.width * s.source.format.bytesPerPixel
        }
        if let rowBytes = streamingRowBytes {
            total += StripSchedule.outputBuffers * Swift.min(stripHeight(rowBytes: rowBytes), rect.height) * rowBytes
        }
        // Tile scratch: a few float tiles per worker (inputs, intermediates, halo).
        let grid = plan.outputGrid()
        total += options.threadCount * 4 * (grid.tileWidth + 32) * (grid.tileHeight + 32) * 16
        return total
    }

    /// Runs `body` holding `bytes` of the context's memory budget, if it has one.
    package func withMemory<R>(_ bytes: @autoclosure () -> Int, cancellation: CancellationToken?, _ body: () throws -> R) throws
        -> R
    {
        guard let budget = options.memoryBudget else { return try body() }
        let taken = try budget.acquire(bytes(), cancellation: cancellation)
        defer { budget.release(taken) }
        return try body()
    }
}
