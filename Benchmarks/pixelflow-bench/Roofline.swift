import Dispatch
#if canImport(Glibc)
    import Glibc
#endif

/// The machine's memory-copy bandwidth, measured in the same run as the filters: `memcpy`
/// of a 256 MiB buffer (by default) (well beyond the caches), split across `threads` workers.
struct Roofline {
    /// Bytes per second for copying (each byte read once and written once).
    var copyBytesPerSecond: Double
    var threads: Int

    /// Megapixels per second a pass that reads and writes `bytesPerPixel` each way could reach.
    func bound(bytesPerPixelRead r: Int, written w: Int) -> Double {
        // memcpy moves n bytes read + n bytes written in the measured time.
        copyBytesPerSecond * 2 / Double(r + w) / 1e6
    }

    static func measure(threads: Int, runs: Int = 7, megabytes: Int = 256) -> Roofline {
        let n = megabytes << 20
        let src = UnsafeMutableRawPointer.allocate(byteCount: n, alignment: 64)
        let dst = UnsafeMutableRawPointer.allocate(byteCount: n, alignment: 64)
        defer { src.deallocate(); dst.deallocate() }
        memset(src, 1, n); memset(dst, 2, n)
        let chunk = n / threads
        let s = UInt(bitPattern: src), d = UInt(bitPattern: dst)
        let m = Measurement.run(warmup: 1, runs: runs, minTime: 0) {
            if threads == 1 {
                memcpy(dst, src, n)
            } else {
                DispatchQueue.concurrentPerform(iterations: threads) { i in
                    memcpy(
                        UnsafeMutableRawPointer(bitPattern: d + UInt(i * chunk))!,
                        UnsafeRawPointer(bitPattern: s + UInt(i * chunk))!, chunk)
                }
            }
        }
        return Roofline(copyBytesPerSecond: Double(n) / m.median, threads: threads)
    }
}
