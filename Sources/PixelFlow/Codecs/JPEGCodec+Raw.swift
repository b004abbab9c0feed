import CCodecShims
import CSIMD
import Dispatch

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A YCbCr JPEG decoded on several threads: libjpeg-turbo's entropy decoding and inverse
/// DCT (`pf_jpeg_read_raw`, one row of MCUs, an "iMCU row", at a time) on whichever worker
/// holds the decoder, and the chroma upsampling and YCbCr to RGBA conversion
/// (`pf_jpeg_ycc_to_rgba8_row`) of the output rows on the others.
///
/// The planes go through a ring of `slots` iMCU rows, decoded and converted a group of
/// iMCU rows (about 128 K pixels) at a time. Output row `y` reads the chroma rows of its own
/// iMCU row and of the ones above and below (fancy upsampling), so a group is converted once
/// the iMCU row after it is decoded, and the slot of row `d` is reused once every output row
/// through iMCU row `d - slots + 1` is converted. Every worker decodes when it can (the
/// decoder is free and its slots are), else converts the next group that is ready, else waits
/// for the one that is working: so one thread alone also finishes, and memory stays at
/// `slots` iMCU rows of planes.
///
/// The bytes are those of `pf_jpeg_read_rows` with libjpeg-turbo's default settings (fancy
/// upsampling, its fixed-point color conversion), whatever the thread count.
///
/// `@unchecked Sendable`: the decoder is used by one worker at a time (the `decoding` flag,
/// set and cleared under the mutex), each slot is written only while no task reading it can
/// be claimed and read only after its write was published under the mutex, and each output
/// row is written by the one worker converting its task.
final class _JPEGRawPipeline: @unchecked Sendable {
    private struct State {
        var decoded = 0
        var decoding = false
        /// Output rows `0..<convertedRows` are converted.
        var convertedRows = 0
        /// The current `run`'s tasks (its rows cut at group boundaries): claimed, done.
        var nextTask = 0
        var done: [Bool] = []
        /// Workers waiting for the condition (no broadcast when there are none).
        var waiting = 0
        var error: (any Error)?
    }

    let layout: pf_jpeg_raw_layout
    private let decoder: OpaquePointer
    private let name: String
    private let options: DecodeOptions
    private let slots: Int
    /// iMCU rows per step: decoded in one go, converted as one task (fewer hand-overs).
    private let group: Int
    private let lumaBytes: Int
    private let chromaBytes: Int
    private let ring: UnsafeMutableRawPointer
    private var state = State()
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let condition: UnsafeMutablePointer<pthread_cond_t>

    /// Starts raw decoding on `decoder` (its header read, `pf_jpeg_raw_supported` true) for
    /// runs on up to `threads` threads.
    ///
    /// - Throws: `decodingFailed` for corrupt data (from `jpeg_start_decompress`).
    init(decoder: OpaquePointer, name: String, options: DecodeOptions, threads: Int) throws {
        var layout = pf_jpeg_raw_layout()
        var message = [CChar](repeating: 0, count: Int(PF_MESSAGE_CAPACITY))
        let status = pf_jpeg_start_raw(decoder, &layout, &message)
        guard status == PF_OK else { throw _JPEGCodec.error(status, message, name: name, options: options) }
        self.layout = layout
        self.decoder = decoder
        self.name = name
        self.options = options
        // About 128 K pixels a step. A task of `group` iMCU rows needs those and one above and
        // below; a group more per thread lets decoding run ahead of the workers.
        group = Swift.max(1, Swift.min(8, (1 << 17) / Swift.max(1, Int(layout.width) * Int(layout.luma_rows))))
        slots = group * (2 + Swift.max(1, threads)) + 2
        lumaBytes = Int(layout.luma_rows) * Int(layout.luma_stride)
        chromaBytes = Int(layout.chroma_rows) * Int(layout.chroma_stride)
        ring = .allocate(byteCount: slots * (lumaBytes + 2 * chromaBytes), alignment: 64)
        mutex = .allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
        condition = .allocate(capacity: 1)
        pthread_cond_init(condition, nil)
    }

    deinit {
        ring.deallocate()
        pthread_cond_destroy(condition)
        condition.deallocate()
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Bytes of planes held: the ring of iMCU rows.
    var heldBytes: Int { slots * (lumaBytes + 2 * chromaBytes) }

    private enum Step {
        case decode(first: Int, count: Int)
        case convert(task: Int, rows: Range<Int>)
        case done
    }

    /// Decodes output rows `rows` (the next ones: `rows.lowerBound` is the first row not
    /// decoded yet), row `y` (`width` RGBA pixels) into `row(y)`, on up to `threads`
    /// threads (the caller's and `threads - 1` others).
    ///
    /// - Throws: `decodingFailed` for corrupt or truncated data (the pipeline is then unusable).
    func run(rows: Range<Int>, threads: Int, row: @escaping @Sendable (Int) -> UnsafeMutablePointer<UInt8>) throws {
        let lumaRows = Int(layout.luma_rows)
        let count = Int(layout.imcu_rows)
        // The tasks: `rows` cut at the boundaries of groups of iMCU rows.
        var tasks: [Range<Int>] = []
        var y = rows.lowerBound
        while y < rows.upperBound {
            let end = Swift.min(rows.upperBound, (y / (group * lumaRows) + 1) * group * lumaRows)
            tasks.append(y..<end)
            y = end
        }
        let taskList = tasks
        let setUp: Bool = withLock { s in
            guard s.error == nil, s.convertedRows == rows.lowerBound, rows.upperBound <= Int(layout.height) else {
                return false
            }
            s.nextTask = 0
            s.done = [Bool](repeating: false, count: taskList.count)
            return true
        }
        precondition(setUp, "JPEG rows decoded out of order")
        guard !taskList.isEmpty else { return }
        // iMCU rows this run decodes: through the one after its last row's (fancy upsampling).
        let decodeLimit = Swift.min(count, (rows.upperBound - 1) / lumaRows + 2)
        let workers = Swift.max(1, Swift.min(threads, taskList.count + 1))
        DispatchQueue.concurrentPerform(iterations: workers) { _ in
            let scratch = UnsafeMutablePointer<UInt8>.allocate(capacity: 4 * (Int(layout.width) + 4))
            defer { scratch.deallocate() }
            var message = [CChar](repeating: 0, count: Int(PF_MESSAGE_CAPACITY))
            while true {
                switch nextStep(tasks: taskList, decodeLimit: decodeLimit, end: rows.upperBound) {
                case .done:
                    return
                case .decode(let first, let n):
                    var decoded = 0
                    var failure: (any Error)?
                    while decoded < n {
                        let base = slot(first + decoded)
                        let status = pf_jpeg_read_raw(
                            decoder, base, base + lumaBytes, base + lumaBytes + chromaBytes, &message)
                        guard status == PF_OK else {
                            failure = _JPEGCodec.error(status, message, name: name, options: options)
                            break
                        }
                        decoded += 1
                    }
                    finish {
                        $0.decoding = false
                        $0.decoded += decoded
                        if let failure { $0.error = $0.error ?? failure }
                    }
                case .convert(let task, let range):
                    convert(rows: range, scratch: scratch, row: row)
                    finish { s in
                        s.done[task] = true
                        var t = 0
                        while t < taskList.count, s.done[t] { t += 1 }
                        s.convertedRows = t == taskList.count ? rows.upperBound : taskList[t].lowerBound
                    }
                }
            }
        }
        if let error = withLock({ $0.error }) { throw error }
    }

    private func withLock<R>(_ body: (inout State) -> R) -> R {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return body(&state)
    }

    /// Under the mutex: the next thing to do, waiting while the only work left is another
    /// worker's.
    private func nextStep(tasks: [Range<Int>], decodeLimit: Int, end: Int) -> Step {
        let lumaRows = Int(layout.luma_rows)
        let count = Int(layout.imcu_rows)
        let height = Int(layout.height)
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        while true {
            if state.error != nil || state.convertedRows == end { return .done }
            // Decode iMCU row d into the slot of d - slots once no row still to convert reads it;
            // up to a group at a time.
            let d = state.decoded
            if !state.decoding {
                var n = 0
                while n < group, d + n < decodeLimit,
                    d + n < slots || state.convertedRows >= Swift.min(height, (d + n - slots + 2) * lumaRows)
                {
                    n += 1
                }
                if n > 0 {
                    state.decoding = true
                    return .decode(first: d, count: n)
                }
            }
            let t = state.nextTask
            if t < tasks.count, state.decoded >= Swift.min((tasks[t].upperBound - 1) / lumaRows + 2, count) {
                state.nextTask += 1
                return .convert(task: t, rows: tasks[t])
            }
            state.waiting += 1
            pthread_cond_wait(condition, mutex)
            state.waiting -= 1
        }
    }

    private func finish(_ update: (inout State) -> Void) {
        pthread_mutex_lock(mutex)
        update(&state)
        if state.waiting > 0 { pthread_cond_broadcast(condition) }
        pthread_mutex_unlock(mutex)
    }

    /// The first byte of iMCU row `r`'s slot: Y, then Cb, then Cr.
    private func slot(_ r: Int) -> UnsafeMutablePointer<UInt8> {
        (ring + (r % slots) * (lumaBytes + 2 * chromaBytes)).assumingMemoryBound(to: UInt8.self)
    }

    /// Chroma row `c` of plane 0 (Cb) or 1 (Cr).
    private func chromaRow(_ c: Int, plane: Int) -> UnsafeMutablePointer<UInt8> {
        let rows = Int(layout.chroma_rows)
        return slot(c / rows) + lumaBytes + plane * chromaBytes + (c % rows) * Int(layout.chroma_stride)
    }

    /// Upsamples and converts output rows `rows`.
    private func convert(
        rows: Range<Int>, scratch: UnsafeMutablePointer<UInt8>, row: (Int) -> UnsafeMutablePointer<UInt8>
    ) {
        let lumaRows = Int(layout.luma_rows)
        let halfHeight = layout.chroma_half_height != 0
        let lastChroma = Int(layout.chroma_height) - 1
        for y in rows {
            let luma = slot(y / lumaRows) + (y % lumaRows) * Int(layout.luma_stride)
            let near = halfHeight ? y / 2 : y
            let far = halfHeight ? (y & 1 == 0 ? Swift.max(near - 1, 0) : Swift.min(near + 1, lastChroma)) : near
            pf_jpeg_ycc_to_rgba8_row(
                luma, chromaRow(near, plane: 0), chromaRow(far, plane: 0),
                chromaRow(near, plane: 1), chromaRow(far, plane: 1), Int(layout.width), Int(layout.chroma_width),
                layout.chroma_half_width, layout.chroma_half_height, Int32(y & 1), scratch, row(y))
        }
    }
}
