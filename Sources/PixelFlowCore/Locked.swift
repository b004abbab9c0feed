#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A value that threads share, read and written only under a `pthread_mutex_t`.
///
/// PixelFlow guards shared state with this rather than `Synchronization.Mutex`: on Linux,
/// `Mutex` locks with futex system calls that the thread sanitizer does not model, so every
/// access inside its `withLock` is reported as a race (Docs/Reliability.md has the
/// reproducer). The sanitizer understands pthread mutexes, so a run stays quiet unless there is
/// a real race. The mutex is allocated once and never moves.
///
/// ```swift
/// let hits = Locked([Int]())
/// DispatchQueue.concurrentPerform(iterations: 4) { i in hits.withLock { $0.append(i) } }
/// ```
///
/// `@unchecked Sendable`: `state` is only touched between `pthread_mutex_lock` and
/// `pthread_mutex_unlock` of `mutex`.
package final class Locked<State>: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var state: State

    /// A lock around `initial`.
    package init(_ initial: State) {
        state = initial
        mutex = .allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` on the state with the lock held; `body` must not call back into this lock.
    @inline(__always)
    package func withLock<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&state)
    }
}
