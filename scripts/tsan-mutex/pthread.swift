import Dispatch
#if canImport(Glibc)
import Glibc
#endif

// The same as mutex.swift, guarded by a pthread_mutex_t allocated once (PixelFlow's `Locked`).
final class Box: @unchecked Sendable { var value = 0 }
final class Lock: @unchecked Sendable {
    let m: UnsafeMutablePointer<pthread_mutex_t>
    init() { m = .allocate(capacity: 1); pthread_mutex_init(m, nil) }
    func withLock<T>(_ body: () -> T) -> T { pthread_mutex_lock(m); defer { pthread_mutex_unlock(m) }; return body() }
}
let lock = Lock()
let box = Box()
DispatchQueue.concurrentPerform(iterations: 8) { _ in
    for _ in 0..<200_000 { lock.withLock { box.value += 1 } }
}
print("pthread-guarded:", box.value)
