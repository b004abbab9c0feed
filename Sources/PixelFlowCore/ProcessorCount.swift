#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// How many processors this process may use: the online processors, fewer when the process's
/// CPU affinity allows fewer (`taskset`, a Slurm or cpuset allocation, read from /proc) or when its control
/// group has a CPU quota (a Kubernetes or Docker CPU limit: quota / period, rounded up).
package enum ProcessorCount {
    /// The count, computed once per process.
    package static let available: Int = {
        let online = Swift.max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
        var count = online
        if let affinity = affinityCount() { count = Swift.min(count, affinity) }
        if let quota = cgroupQuota() { count = Swift.min(count, quota) }
        return Swift.max(1, count)
    }()

    /// The processors in this process's affinity mask, from the `Cpus_allowed` line of
    /// `/proc/self/status` (hexadecimal, in comma-separated groups), or nil where there is no
    /// such file (not Linux).
    package static func affinityCount(status: String = "/proc/self/status") -> Int? {
        guard let f = fopen(status, "r") else { return nil }
        defer { fclose(f) }
        var buffer = [CChar](repeating: 0, count: 4096)
        while fgets(&buffer, Int32(buffer.count), f) != nil {
            let line = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            guard line.hasPrefix("Cpus_allowed:") else { continue }
            var bits = 0
            for c in line.dropFirst("Cpus_allowed:".count) {
                if let v = c.hexDigitValue { bits += v.nonzeroBitCount }
            }
            return bits > 0 ? bits : nil
        }
        return nil
    }

    /// Whole processors of the CPU quota of this process's control group, or nil when there
    /// is none: cgroup v2's `cpu.max` ("QUOTA PERIOD" or "max PERIOD"), else cgroup v1's
    /// `cpu.cfs_quota_us` and `cpu.cfs_period_us` (quota -1: none).
    package static func cgroupQuota(root: String = "/sys/fs/cgroup") -> Int? {
        if let line = readSmallFile(root + "/cpu.max") {
            let parts = line.split(whereSeparator: { $0 == " " || $0 == "\n" })
            guard parts.count >= 2, let quota = Double(parts[0]), let period = Double(parts[1]) else { return nil }
            return wholeProcessors(quota: quota, period: period)
        }
        if let q = readSmallFile(root + "/cpu/cpu.cfs_quota_us"), let p = readSmallFile(root + "/cpu/cpu.cfs_period_us"),
            let quota = Double(q.trimmingWhitespace()), let period = Double(p.trimmingWhitespace())
        {
            return wholeProcessors(quota: quota, period: period)
        }
        return nil
    }

    /// `quota / period` rounded up, at least 1; nil for no quota (negative) or nonsense values.
    package static func wholeProcessors(quota: Double, period: Double) -> Int? {
        guard quota > 0, period > 0, quota.isFinite, period.isFinite else { return nil }
        let n = (quota / period).rounded(.up)
        return n < 1e6 ? Swift.max(1, Int(n)) : nil
    }

    /// The first 256 bytes of a file as text, or nil when it cannot be read.
    private static func readSmallFile(_ path: String) -> String? {
        guard let f = fopen(path, "r") else { return nil }
        defer { fclose(f) }
        var buffer = [CChar](repeating: 0, count: 257)
        guard fgets(&buffer, 256, f) != nil else { return nil }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

extension String {
    fileprivate func trimmingWhitespace() -> String {
        String(drop { $0 == " " || $0 == "\n" }.reversed().drop { $0 == " " || $0 == "\n" }.reversed())
    }
}
