#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Raw standard input, output and error, and the few file-system queries the tool needs,
/// on top of POSIX calls (the tool does not depend on Foundation).
enum Terminal {
    /// Writes `text` and a newline to standard error.
    static func error(_ text: String) {
        writeAll(fd: 2, Array((text + "\n").utf8))
    }

    /// Writes `text` as it is (no newline added) to standard error, for progress bars.
    static func errorWithoutNewline(_ text: String) {
        writeAll(fd: 2, Array(text.utf8))
    }

    /// Writes `text` and a newline to standard output.
    static func output(_ text: String) {
        writeAll(fd: 1, Array((text + "\n").utf8))
    }

    /// Reads every byte of standard input.
    ///
    /// - Throws: `CLIError.runtime` when a read fails.
    static func readStandardInput() throws -> [UInt8] {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(0, $0.baseAddress, $0.count) }
            if n == 0 { break }
            if n < 0 {
                if errno == EINTR { continue }
                throw CLIError.runtime("cannot read standard input: \(String(cString: strerror(errno)))")
            }
            bytes.append(contentsOf: chunk[0..<n])
        }
        return bytes
    }

    /// Writes every byte of `bytes` to standard output.
    ///
    /// - Throws: `CLIError.runtime` when a write fails (for example a closed pipe).
    static func writeStandardOutput(_ bytes: [UInt8]) throws {
        if !writeAll(fd: 1, bytes) {
            throw CLIError.runtime("cannot write to standard output: \(String(cString: strerror(errno)))")
        }
    }

    /// Writes all of `bytes` to `fd`, retrying short writes; false on error.
    @discardableResult
    static func writeAll(fd: Int32, _ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let n = write(fd, raw.baseAddress! + offset, raw.count - offset)
                if n < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                offset += n
            }
            return true
        }
    }

    /// Reads every byte of the file at `path`.
    ///
    /// - Throws: `CLIError.runtime` naming the file when it cannot be opened or read.
    static func readFile(_ path: String) throws -> [UInt8] {
        let fd = open(path, O_RDONLY)
        if fd < 0 { throw CLIError.runtime("\(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n == 0 { break }
            if n < 0 {
                if errno == EINTR { continue }
                throw CLIError.runtime("\(path): \(String(cString: strerror(errno)))")
            }
            bytes.append(contentsOf: chunk[0..<n])
        }
        return bytes
    }

    /// True when `path` names an existing directory.
    static func isDirectory(_ path: String) -> Bool {
        var s = stat()
        return stat(path, &s) == 0 && (s.st_mode & S_IFMT) == S_IFDIR
    }

    /// True when `path` names an existing file system entry.
    static func exists(_ path: String) -> Bool {
        var s = stat()
        return stat(path, &s) == 0
    }

    /// True when `path` names an existing file that may not be written: no write permission
    /// for anyone (checked on the mode bits, so it holds for root too), or none for this user.
    static func isReadOnlyFile(_ path: String) -> Bool {
        var s = stat()
        guard stat(path, &s) == 0, (s.st_mode & S_IFMT) != S_IFDIR else { return false }
        return (s.st_mode & 0o222) == 0 || access(path, W_OK) != 0
    }

    /// Checks that the folder an output file goes into exists, as an atomic write needs it
    /// (it creates a temporary file there, then renames it).
    ///
    /// - Throws: `CLIError.runtime` naming the folder and the command that creates it.
    static func checkOutputFolder(of path: String) throws {
        guard path != "-" else { return }
        var folder = Substring(path)
        while folder.count > 1, folder.hasSuffix("/") { folder = folder.dropLast() }
        guard let slash = folder.lastIndex(of: "/") else { return }  // the current folder
        let dir = slash == folder.startIndex ? "/" : String(folder[..<slash])
        if isDirectory(dir) { return }
        if exists(dir) {
            throw CLIError.runtime("cannot write '\(path)': '\(dir)' is not a directory")
        }
        throw CLIError.runtime("the output directory '\(dir)' does not exist; create it first (mkdir -p '\(dir)')")
    }

    /// Writes `bytes` to a temporary file `.NAME.XXXXXX` beside `path` and renames it over
    /// `path`, so a reader never sees half a file and a failure leaves the old one.
    ///
    /// - Throws: `CLIError.runtime` naming the file and the system's reason.
    static func replaceFile(_ path: String, with bytes: [UInt8]) throws {
        func fail(_ what: String) -> CLIError {
            .runtime("cannot \(what) \(path): \(String(cString: strerror(errno)))")
        }
        let (folder, base) = splitPath(path)
        var template = Array("\(folder == "/" ? "" : folder)/.\(base).XXXXXX".utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { throw fail("write") }
        let temporary = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        var ok = fchmod(fd, 0o644) == 0 && writeAll(fd: fd, bytes) && fsync(fd) == 0
        ok = close(fd) == 0 && ok
        guard ok, rename(temporary, path) == 0 else {
            let error = fail("write")
            unlink(temporary)
            throw error
        }
    }

    /// The device and inode of `path`, identifying a file whatever path names it; nil when
    /// it does not exist.
    static func fileIdentity(_ path: String) -> FileIdentity? {
        var s = stat()
        guard stat(path, &s) == 0 else { return nil }
        return FileIdentity(device: UInt64(s.st_dev), inode: UInt64(s.st_ino))
    }
}

/// Identifies a file independently of the path used to reach it.
struct FileIdentity: Hashable {
    var device: UInt64
    var inode: UInt64
}

/// The last path component of `path` (`a/b/c.png` -> `c.png`).
func baseName(_ path: String) -> String {
    var p = Substring(path)
    while p.count > 1, p.hasSuffix("/") { p = p.dropLast() }
    return String(p.split(separator: "/").last ?? p)
}

/// The extension of the last path component, without the dot; nil when there is none.
func pathExtension(_ path: String) -> String? {
    let name = baseName(path)
    guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return nil }
    let ext = name[name.index(after: dot)...]
    return ext.isEmpty ? nil : String(ext)
}

/// `path` with its extension replaced by `ext` (or `ext` appended when it has none).
func replacingExtension(of path: String, with ext: String) -> String {
    guard let old = pathExtension(path) else { return path + "." + ext }
    return String(path.dropLast(old.count)) + ext
}

/// `dir` and `name` joined with exactly one slash.
func joinPath(_ dir: String, _ name: String) -> String {
    dir.hasSuffix("/") ? dir + name : dir + "/" + name
}
