import Dispatch
import Synchronization

/// Runs `count` work items on up to `threads` workers with `DispatchQueue.concurrentPerform`.
///
/// Workers take items in increasing order from a shared counter, each with its own `Arena`
/// (reset before every item). Which worker runs an item never changes what the item computes,
/// so results do not depend on the thread count.
package enum Scheduler {
    ///
    /// When the render this runs in is cancelled (see `RenderControl`), workers stop taking
    /// items; the caller checks `RenderControl.current?.isCancelled` afterwards.
    ///
    /// With `arenas`, worker `i` uses `arenas[i]` instead of a new arena, so a render that runs
    /// many short parallel loops (a streaming render's strips) reuses warm scratch memory.
    package static func run(
        count: Int, threads: Int, arenas: ArenaPool? = nil,
        _ body: @Sendable (_ item: Int, _ arena: Arena) -> Void
    ) {
        guard count > 0 else { return }
        let control = RenderControl.current
        let workers = Swift.max(1, Swift.min(threads, count, arenas?.count ?? Int.max))
        if workers == 1 {
            let arena = arenas?[0] ?? Arena()
            for i in 0..<count {
                if control?.isCancelled == true { return }
                arena.reset()
                body(i, arena)
            }
            return
        }
        let next = Atomic<Int>(0)
        DispatchQueue.concurrentPerform(iterations: workers) { worker in
            RenderControl.with(control) {
                let arena = arenas?[worker] ?? Arena()
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
package struct SharedPixels: @unchecked Sendable {
    package let base: UnsafeMutableRawPointer
    package let bytesPerRow: Int
    package init(base: UnsafeMutableRawPointer, bytesPerRow: Int) {
        self.base = base
        self.bytesPerRow = bytesPerRow
    }
}

/// One arena per worker, kept across `Scheduler.run` calls.
///
/// `@unchecked Sendable`: `Scheduler.run` gives arena `i` only to worker `i` of one loop, and
/// the loops of a render run one after another, so no arena is used by two threads at once.
package final class ArenaPool: @unchecked Sendable {
    private let arenas: [Arena]
    package init(count: Int) { arenas = (0..<Swift.max(1, count)).map { _ in Arena() } }
    package var count: Int { arenas.count }
    subscript(i: Int) -> Arena { arenas[i] }
}
