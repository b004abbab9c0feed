import Dispatch
import Synchronization

/// Runs `count` work items on up to `threads` workers with `DispatchQueue.concurrentPerform`.
///
/// Workers take items in increasing order from a shared counter, each with its own `Arena`
/// (reset before every item). Which worker runs an item never changes what the item computes,
/// so results do not depend on the thread count.
enum Scheduler {
    ///
    /// When the render this runs in is cancelled (see `RenderControl`), workers stop taking
    /// items; the caller checks `RenderControl.current?.isCancelled` afterwards.
    static func run(count: Int, threads: Int, _ body: @Sendable (_ item: Int, _ arena: Arena) -> Void) {
        guard count > 0 else { return }
        let control = RenderControl.current
        let workers = Swift.max(1, Swift.min(threads, count))
        if workers == 1 {
            let arena = Arena()
            for i in 0..<count {
                if control?.isCancelled == true { return }
                arena.reset()
                body(i, arena)
            }
            return
        }
        let next = Atomic<Int>(0)
        DispatchQueue.concurrentPerform(iterations: workers) { _ in
            RenderControl.with(control) {
                let arena = Arena()
                while true {
                    if control?.isCancelled == true { break }
                    let i = next.wrappingAdd(1, ordering: .relaxed).oldValue
                    if i >= count { break }
                    arena.reset()
                    body(i, arena)
                }
            }
        }
    }
}

/// A destination that many tiles write at once.
///
/// `@unchecked Sendable` because it carries raw pointers into one `PixelBuffer` or scratch
/// buffer. Invariant: every work item writes only the rows or pixels of its own tile, the
/// tiles of one render are disjoint, and the memory outlives the `Scheduler.run` call.
struct SharedPixels: @unchecked Sendable {
    let base: UnsafeMutableRawPointer
    let bytesPerRow: Int
}
