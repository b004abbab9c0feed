import Foundation
#if canImport(Glibc)
    import Glibc
#endif

/// Monotonic time in seconds.
func now() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9
}

/// Times of repeated calls, after warm-up.
struct Measurement {
    var times: [Double]
    var median: Double {
        let s = times.sorted(); return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
    }
    var minimum: Double { times.min() ?? 0 }

    /// Runs `body` `warmup` times untimed, then at least `runs` times, continuing until
    /// `minTime` seconds of timed runs or `4 * runs` runs. A body slower than `slow` seconds
    /// gets a single warm-up and no extra runs (PNG encoding takes seconds per call).
    static func run(
        warmup: Int = 2, runs: Int = 7, minTime: Double = 0.5, slow: Double = 1.0,
        _ body: () throws -> Void
    ) rethrows -> Measurement {
        var minTime = minTime
        for i in 0..<warmup {
            let t0 = now()
            try body()
            if now() - t0 > slow { minTime = 0; if i == 0 { break } }
        }
        var times: [Double] = []
        var total = 0.0
        while times.count < runs || (total < minTime && times.count < 4 * runs) {
            let t0 = now()
            try body()
            let dt = now() - t0
            times.append(dt)
            total += dt
        }
        return Measurement(times: times)
    }
}

/// Peak resident set size of this process so far, in bytes (VmHWM from /proc/self/status;
/// unlike getrusage's ru_maxrss it is not inherited from the parent across exec).
func peakResidentBytes() -> Int {
    guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
    for line in text.split(separator: "\n") where line.hasPrefix("VmHWM:") {
        let kb = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).compactMap { Int($0) }.first ?? 0
        return kb * 1024
    }
    return 0
}

/// Current resident set size of this process, in bytes (VmRSS).
func residentBytes() -> Int {
    guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
    for line in text.split(separator: "\n") where line.hasPrefix("VmRSS:") {
        let kb = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).compactMap { Int($0) }.first ?? 0
        return kb * 1024
    }
    return 0
}

/// Resets the peak resident set (VmHWM) to the current RSS (`echo 5 > /proc/self/clear_refs`,
/// Linux 4.0+), so a later peak measures only what follows. Returns false where unsupported.
@discardableResult
func resetPeakResident() -> Bool {
    guard let h = FileHandle(forWritingAtPath: "/proc/self/clear_refs") else { return false }
    defer { try? h.close() }
    do { try h.write(contentsOf: Data("5".utf8)) } catch { return false }
    return true
}
