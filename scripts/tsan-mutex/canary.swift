import Dispatch

// Eight iterations on the cores add to an unguarded field: a real race, which the sanitizer
// must report (it does in every run seen here; the lost updates show in the sum).
final class Box: @unchecked Sendable { var value = 0 }
let box = Box()
DispatchQueue.concurrentPerform(iterations: 8) { _ in
    for _ in 0..<200_000 { box.value += 1 }
}
print("unguarded:", box.value)
