#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Whole-file reads and writes on POSIX file descriptors (the library does not use
/// Foundation). Interrupted calls are retried; errors become `PixelFlowError.io`.
enum _FileIO {
    /// The text of the current `errno`.
    static func errorText(_ code: Int32 = errno) -> String {
        guard let text = strerror(code) else { return "error \(code)" }
        return String(cString: text)
    }

    /// Every byte of the file at `path`.
    ///
    /// - Throws: `io` when it cannot be opened or read or is a folder; `limitExceeded` when
    ///   it is larger than `limit` bytes (checked before reading a regular file).
    static func readAll(path: String, limit: Int) throws -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw PixelFlowError.io(file: path, reason: "cannot open: \(errorText())") }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw PixelFlowError.io(file: path, reason: "cannot stat: \(errorText())") }
        let type = info.st_mode & S_IFMT
        if type == S_IFDIR { throw PixelFlowError.io(file: path, reason: "is a folder, not a file") }
        var expected = 0
        if type == S_IFREG {
            let size = Int(info.st_size)
            if size > limit { throw PixelFlowError.limitExceeded(what: "\(path): file size in bytes", value: size, limit: limit) }
            expected = size
        }
        return try readAll(fileDescriptor: fd, name: path, limit: limit, expectedSize: expected)
    }

    /// Every byte up to the end of `fd` (a file, pipe or terminal), at most `limit`.
    static func readAll(fileDescriptor fd: Int32, name: String, limit: Int, expectedSize: Int = 0) throws -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(min(expectedSize, limit) + 1)
        let chunk = 1 << 16
        var scratch = [UInt8](repeating: 0, count: chunk)
        while true {
            let n = scratch.withUnsafeMutableBytes { read(fd, $0.baseAddress, chunk) }
            if n < 0 {
                if errno == EINTR { continue }
                throw PixelFlowError.io(file: name, reason: "cannot read: \(errorText())")
            }
            if n == 0 { return bytes }
            if bytes.count + n > limit {
                throw PixelFlowError.limitExceeded(what: "\(name): file size in bytes", value: bytes.count + n, limit: limit)
            }
            bytes.append(contentsOf: scratch[0..<n])
        }
    }

    /// Writes all of `bytes` to `fd`, retrying short and interrupted writes.
    static func writeAll(_ bytes: [UInt8], to fd: Int32, name: String) throws {
        try bytes.withUnsafeBytes { try writeAll($0, to: fd, name: name) }
    }

    /// Writes all of `raw` to `fd`, retrying short and interrupted writes.
    static func writeAll(_ raw: UnsafeRawBufferPointer, to fd: Int32, name: String) throws {
        var done = 0
        while done < raw.count {
            let n = write(fd, raw.baseAddress! + done, raw.count - done)
            if n < 0 {
                if errno == EINTR { continue }
                throw PixelFlowError.io(file: name, reason: "cannot write: \(errorText())")
            }
            done += n
        }
    }
}
