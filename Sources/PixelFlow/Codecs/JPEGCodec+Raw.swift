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
        var nextBand = 0
        var converted: [Bool]
        var convertedPrefix = 0
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
    private var state: State
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let condition: UnsafeMutablePointer<pthread_cond_t>

    /// Starts raw decoding on `decoder` (its header read, `pf_jpeg_raw_supported` true).
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
        state = State(converted: [Bool](repeating: false, count: Int(layout.imcu_rows)))
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

    private enum Step {
        case decode(Int)
        case convert(Int)
        case done
    }

    /// Decodes the whole image, output row `y` (`width` RGBA pixels) into `row(y)`, on up to
    /// `threads` threads.
    ///
    /// - Throws: `decodingFailed` for corrupt or truncated data.
    func run(threads: Int, row: @escaping @Sendable (Int) -> UnsafeMutablePointer<UInt8>) throws {
        let count = Int(layout.imcu_rows)
        DispatchQueue.concurrentPerform(iterations: Swift.max(1, Swift.min(threads, count))) { _ in
            let scratch = UnsafeMutablePointer<UInt8>.allocate(capacity: 4 * (Int(layout.width) + 4))
            defer { scratch.deallocate() }
            var message = [CChar](repeating: 0, count: Int(PF_MESSAGE_CAPACITY))
            while true {
                let step = nextStep(count: count)
                switch step {
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
                case .convert(let band):
                    convert(band: band, scratch: scratch, row: row)
                    finish { s in
                        s.converted[band] = true
                        while s.convertedPrefix < count, s.converted[s.convertedPrefix] { s.convertedPrefix += 1 }
                    }
                }
            }
        }
        if let error = state.error { throw error }
    }

    /// Under the mutex: the next thing to do, waiting while the only work left is another
    /// worker's.
    private func nextStep(count: Int) -> Step {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        while true {
            if state.error != nil || state.convertedPrefix == count { return .done }
            let d = state.decoded
            if !state.decoding, d < count, d < slots || state.convertedPrefix >= d - slots + 2 {
                state.decoding = true
                return .decode(d)
            }
            let band = state.nextBand
            if band < count, state.decoded >= Swift.min(band + 2, count) {
                state.nextBand += 1
                return .convert(band)
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

    /// Upsamples and converts the output rows of iMCU row `band`.
    private func convert(
        band: Int, scratch: UnsafeMutablePointer<UInt8>, row: (Int) -> UnsafeMutablePointer<UInt8>
    ) {
        let lumaRows = Int(layout.luma_rows)
        let first = band * lumaRows
        let last = Swift.min(Int(layout.height), first + lumaRows)
        let halfHeight = layout.chroma_half_height != 0
        let lastChroma = Int(layout.chroma_height) - 1
        let luma = slot(band)
        for y in first..<last {
            let near = halfHeight ? y / 2 : y
            let far = halfHeight ? (y & 1 == 0 ? Swift.max(near - 1, 0) : Swift.min(near + 1, lastChroma)) : near
            pf_jpeg_ycc_to_rgba8_row(
                luma + (y - first) * Int(layout.luma_stride), chromaRow(near, plane: 0), chromaRow(far, plane: 0),
                chromaRow(near, plane: 1), chromaRow(far, plane: 1), Int(layout.width), Int(layout.chroma_width),
                layout.chroma_half_width, layout.chroma_half_height, Int32(y & 1), scratch, row(y))
        }
    }
}
