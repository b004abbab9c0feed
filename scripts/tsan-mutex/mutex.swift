import Dispatch
import Synchronization

// Eight iterations on the cores add to a counter under Synchronization.Mutex, the two ways
// PixelFlow used it: the sums are right, so any report is a misreading.
final class Box: @unchecked Sendable { var value = 0 }

// The state inside the Mutex.
let counter = Mutex(0)
DispatchQueue.concurrentPerform(iterations: 8) { _ in
    for _ in 0..<200_000 { counter.withLock { $0 += 1 } }
}
print("mutex-internal:", counter.withLock { $0 })

// A class field guarded by a Mutex<Void>.
let guardLock = Mutex(())
let box = Box()
DispatchQueue.concurrentPerform(iterations: 8) { _ in
    for _ in 0..<200_000 { guardLock.withLock { _ in box.value += 1 } }
}
print("mutex-guarded:", box.value)
