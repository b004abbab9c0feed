#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reads and writes at given offsets of a file (`pread`, `pwrite`), for encoders that place
/// rows where they belong in the file rather than in the order they arrive (BMP stores the
/// last row first) or that rewrite what they already wrote (`_PNMRowEncoder` widening rows).
extension _FileIO {
    /// Writes `count` bytes from `bytes` to `fd` at `offset`, retrying short and interrupted
    /// writes; the file grows as needed (a gap before `offset` reads as zeros until written).
    ///
    /// - Throws: `io` naming `name` when the write fails.
    static func writeAll(_ bytes: UnsafeRawPointer, count: Int, to fd: Int32, at offset: Int, name: String) throws {
        var done = 0
        while done < count {
            let n = pwrite(fd, bytes + done, count - done, off_t(offset + done))
            if n < 0 {
                if errno == EINTR { continue }
                throw PixelFlowError.io(file: name, reason: "cannot write: \(errorText())")
            }
            done += n
        }
    }

    /// Reads exactly `count` bytes of `fd` at `offset` into `bytes`.
    ///
    /// - Throws: `io` naming `name` when the read fails or meets the end of the file.
    static func readAll(
        into bytes: UnsafeMutableRawPointer, count: Int, from fd: Int32, at offset: Int,
        name: String
    ) throws {
        var done = 0
        while done < count {
            let n = pread(fd, bytes + done, count - done, off_t(offset + done))
            if n < 0 {
                if errno == EINTR { continue }
                throw PixelFlowError.io(file: name, reason: "cannot read back: \(errorText())")
            }
            if n == 0 { throw PixelFlowError.io(file: name, reason: "cannot read back: the file ends early") }
            done += n
        }
    }
}
