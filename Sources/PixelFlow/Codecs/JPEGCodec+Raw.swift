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
/// (`pf_jpeg_ycc_to_rgba8_row`) of each iMCU row's output rows (a band) on the others.
///
/// The planes go through a ring of `slots` iMCU rows. Band `r` reads the chroma rows of iMCU
/// rows `r - 1`, `r` and `r + 1` (fancy upsampling's row above and below), so it is converted
/// once iMCU row `r + 1` is decoded, and the slot of row `d` is reused once bands up to
/// `d + 1` are converted. Every worker decodes when it can (the decoder is free and its slot
/// is), else converts the next band that is ready, else waits for the one that is working:
/// so one thread alone also finishes, and memory stays at `slots` iMCU rows of planes.
///
/// The bytes are those of `pf_jpeg_read_rows` with libjpeg-turbo's default settings (fancy
/// upsampling, its fixed-point color conversion), whatever the thread count.
///
/// `@unchecked Sendable`: the decoder is used by one worker at a time (the `decoding` flag,
/// set and cleared under the mutex), each slot is written only while no band reading it can
/// be claimed and read only after its write was published under the mutex, and each output
/// row is written by the one worker converting its band.
final class _JPEGRawPipeline: @unchecked Sendable {
    private struct State {
        var decoded = 0
        var decoding = false
        /// Output rows `0..<convertedRows` are converted.
        var convertedRows = 0
        /// The current `run`'s tasks (its rows cut at iMCU row boundaries): claimed, done.
        var nextTask = 0
        var done: [Bool] = []
        var error: (any Error)?
    }

    let layout: pf_jpeg_raw_layout
    private let decoder: OpaquePointer
    private let name: String
    private let options: DecodeOptions
    private let slots: Int
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
        // Band r needs slots r - 1...r + 1; a few more let decoding run ahead of the workers.
        slots = 3 + Swift.max(1, threads)
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
        case decode(Int)
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
        // The tasks: `rows` cut at iMCU row boundaries.
        var tasks: [Range<Int>] = []
        var y = rows.lowerBound
        while y < rows.upperBound {
            let end = Swift.min(rows.upperBound, (y / lumaRows + 1) * lumaRows)
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
                case .decode(let d):
                    let base = slot(d)
                    let status = pf_jpeg_read_raw(
                        decoder, base, base + lumaBytes, base + lumaBytes + chromaBytes, &message)
                    let failure =
                        status == PF_OK ? nil : _JPEGCodec.error(status, message, name: name, options: options)
                    finish {
                        $0.decoding = false
                        if let failure { $0.error = $0.error ?? failure } else { $0.decoded += 1 }
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
            // Decode iMCU row d into the slot of d - slots once no row still to convert reads it.
            let d = state.decoded
            if !state.decoding, d < decodeLimit,
                d < slots || state.convertedRows >= Swift.min(height, (d - slots + 2) * lumaRows)
            {
                state.decoding = true
                return .decode(d)
            }
            let t = state.nextTask
            if t < tasks.count, state.decoded >= Swift.min(tasks[t].lowerBound / lumaRows + 2, count) {
                state.nextTask += 1
                return .convert(task: t, rows: tasks[t])
            }
            pthread_cond_wait(condition, mutex)
        }
    }

    private func finish(_ update: (inout State) -> Void) {
        pthread_mutex_lock(mutex)
        update(&state)
        pthread_cond_broadcast(condition)
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

    /// Upsamples and converts output rows `rows`, all in one iMCU row.
    private func convert(
        rows: Range<Int>, scratch: UnsafeMutablePointer<UInt8>, row: (Int) -> UnsafeMutablePointer<UInt8>
    ) {
        let lumaRows = Int(layout.luma_rows)
        let band = rows.lowerBound / lumaRows
        let first = band * lumaRows
        let halfHeight = layout.chroma_half_height != 0
        let lastChroma = Int(layout.chroma_height) - 1
        let luma = slot(band)
        for y in rows {
            let near = halfHeight ? y / 2 : y
            let far = halfHeight ? (y & 1 == 0 ? Swift.max(near - 1, 0) : Swift.min(near + 1, lastChroma)) : near
            pf_jpeg_ycc_to_rgba8_row(
                luma + (y - first) * Int(layout.luma_stride), chromaRow(near, plane: 0), chromaRow(far, plane: 0),
                chromaRow(near, plane: 1), chromaRow(far, plane: 1), Int(layout.width), Int(layout.chroma_width),
                layout.chroma_half_width, layout.chroma_half_height, Int32(y & 1), scratch, row(y))
        }
    }
}
