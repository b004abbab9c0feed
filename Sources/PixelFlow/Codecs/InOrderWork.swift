import Dispatch

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Rows of pixels `stride` bytes apart, as an encoder's parallel work reads them: image row `y`
/// (for `y >= firstRow`) starts at `base + (y - firstRow) * stride`.
///
/// `@unchecked Sendable`: it carries a raw pointer. The rows are only read, by the work items
/// of one `_InOrderWork.run` call (PNG chunks, JPEG bands), which returns before its caller may
/// change or free them.
struct _EncoderRows: @unchecked Sendable {
    let base: UnsafeRawPointer
    let stride: Int
    let firstRow: Int

    func row(_ y: Int) -> UnsafePointer<UInt8> {
        (base + (y - firstRow) * stride).assumingMemoryBound(to: UInt8.self)
    }
}

/// Rows of an image staged for an encoder that compresses pieces of whole rows (PNG chunks,
/// JPEG bands) in parallel: rows `firstRow..<rowsWritten`, `rowBytes` apart, in a buffer of
/// `capacity` rows. The encoder compresses the pieces whose rows are all staged when the
/// buffer is full (`append`) and at the end, and then keeps only the rows it still needs.
final class _RowStaging {
    let rowBytes: Int
    let capacity: Int
    /// The first row held.
    private(set) var firstRow = 0
    /// Rows taken so far: the last one held is `rowsWritten - 1`.
    private(set) var rowsWritten = 0
    private let buffer: UnsafeMutableRawPointer

    init(rowBytes: Int, capacity: Int) {
        self.rowBytes = rowBytes
        self.capacity = capacity
        buffer = .allocate(byteCount: capacity * rowBytes, alignment: 16)
    }

    deinit { buffer.deallocate() }

    /// The rows held, for the pieces' compression.
    var rows: _EncoderRows { _EncoderRows(base: UnsafeRawPointer(buffer), stride: rowBytes, firstRow: firstRow) }

    /// Copies the next `count` rows, `bytesPerRow` apart from `pixels`, calling `flush` whenever
    /// the buffer is full (it must compress pieces and `keep(from:)` a later row).
    func append(_ pixels: UnsafeRawPointer, bytesPerRow: Int, count: Int, flush: () throws -> Void) rethrows {
        var done = 0
        while done < count {
            if rowsWritten - firstRow == capacity { try flush() }
            let n = Swift.min(count - done, capacity - (rowsWritten - firstRow))
            for i in 0..<n {
                (buffer + (rowsWritten - firstRow + i) * rowBytes)
                    .copyMemory(from: pixels + (done + i) * bytesPerRow, byteCount: rowBytes)
            }
            done += n
            rowsWritten += n
        }
    }

    /// The end of the run of pieces from `first` (of `pieceCount`, `rowsPerPiece` rows each, the
    /// last cut at `height`) whose rows have all been taken.
    func completePieces(from first: Int, of pieceCount: Int, rowsPerPiece: Int, height: Int) -> Int {
        var end = first
        while end < pieceCount, Swift.min((end + 1) * rowsPerPiece, height) <= rowsWritten { end += 1 }
        return end
    }

    /// Drops the rows above `row`, moving those held from `row` on to the front.
    func keep(from row: Int) {
        let kept = rowsWritten - row
        if row > firstRow, kept > 0 {
            buffer.copyMemory(from: buffer + (row - firstRow) * rowBytes, byteCount: kept * rowBytes)
        }
        firstRow = row
    }

    /// Throws `encodingFailed` ("`format`: finished before every row was written") unless all
    /// `height` rows were taken.
    func requireAllRows(of height: Int, name: String, format: String) throws {
        guard rowsWritten == height else {
            throw PixelFlowError.encodingFailed(file: name, reason: "\(format): finished before every row was written")
        }
    }
}

/// The shared state of `_InOrderWork.run`: items claimed and consumed so far,
/// results waiting for their turn, whether a worker is consuming, the first error.
///
/// `@unchecked Sendable`: `state` is only touched inside `withLock`, under a pthread mutex
/// (which the thread sanitizer understands, unlike `Synchronization.Mutex` on Linux).
final class _InOrderState<T: Sendable>: @unchecked Sendable {
    struct State {
        var claimed = 0
        var consumed = 0
        var ready: [Int: T] = [:]
        var consuming = false
        var error: (any Error)?
    }

    private var state = State()
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    init() {
        mutex = .allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    func withLock<R>(_ body: (inout State) -> R) -> R {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return body(&state)
    }
}

/// Work items done in parallel and consumed in order, as pigz does: the PNG image data
/// chunks of `_PNGImageDataEncoder` and the JPEG bands of `_JPEGBandEncoder`.
enum _InOrderWork {
    /// Runs `work(i)` for every `i` in `0..<count` on up to `threads` threads, and `consume`
    /// on each result in the order of `i`, one at a time (on whichever worker finds the next
    /// result ready, without holding the lock while it consumes). The first error stops
    /// further work; results not consumed then go to `discard`, and the error is rethrown.
    static func run<T: Sendable>(
        count: Int, threads: Int, work: @Sendable (Int) throws -> T,
        consume: @Sendable (T) throws -> Void, discard: @Sendable (T) -> Void
    ) throws {
        typealias State = _InOrderState<T>.State
        let workers = Swift.min(threads, count)
        if workers <= 1 {
            for i in 0..<count { try consume(try work(i)) }
            return
        }
        let state = _InOrderState<T>()
        /// The next result to consume, or nil (and nobody consuming) when it is not ready.
        @Sendable func takeNext(_ s: inout State) -> T? {
            if s.error == nil, let next = s.ready.removeValue(forKey: s.consumed) { return next }
            s.consuming = false
            return nil
        }
        DispatchQueue.concurrentPerform(iterations: workers) { _ in
            while true {
                let claim: Int? = state.withLock { s in
                    guard s.error == nil, s.claimed < count else { return nil }
                    s.claimed += 1
                    return s.claimed - 1
                }
                guard let i = claim else { return }
                let result: T
                do {
                    result = try work(i)
                } catch {
                    state.withLock { s in if s.error == nil { s.error = error } }
                    return
                }
                var next: T? = state.withLock { s in
                    s.ready[i] = result
                    guard !s.consuming else { return nil }
                    s.consuming = true
                    return takeNext(&s)
                }
                while let item = next {
                    var failure: (any Error)?
                    do { try consume(item) } catch { failure = error }
                    next = state.withLock { s in
                        s.consumed += 1
                        if let failure, s.error == nil { s.error = failure }
                        return takeNext(&s)
                    }
                }
            }
        }
        let (error, left) = state.withLock { s in (s.error, Array(s.ready.values)) }
        for item in left { discard(item) }
        if let error { throw error }
    }
}
