#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// With `PIXELFLOW_REPORT_PEAK_MEMORY` set, the tool ends by printing its peak resident size
/// to standard error: `pixelflow: peak resident memory N KiB`.
///
/// DecompressionBombTests uses it to check that a bomb is refused in under 64 MiB. The
/// kernel's figure for a child (`ru_maxrss` from `wait4`) cannot show that: it starts from
/// the parent's size at the spawn, since the exec replaces the parent's address space (glibc's
/// `posix_spawn` uses `CLONE_VM`). `VmHWM` in `/proc/self/status` counts only the pages of
/// the address space the tool runs in. Linux only; elsewhere nothing is printed.
enum PeakMemory {
    static func reportIfAsked() {
        guard getenv("PIXELFLOW_REPORT_PEAK_MEMORY") != nil, let kib = highWaterKiB() else { return }
        Terminal.error("pixelflow: peak resident memory \(kib) KiB")
    }

    /// The `VmHWM` line of `/proc/self/status`, in KiB, or nil when it cannot be read.
    static func highWaterKiB() -> Int? {
        let fd = open("/proc/self/status", O_RDONLY)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n <= 0 { break }
            bytes += chunk[..<n]
        }
        for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") where line.hasPrefix("VmHWM:") {
            return Int(line.dropFirst(6).filter(\.isNumber))
        }
        return nil
    }
}
