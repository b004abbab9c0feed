#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Replaces a file's contents all at once: readers see the old file or the new one, never
/// a part, and a failure leaves the old file as it was.
///
/// The bytes go to a temporary file `.NAME.XXXXXX` in the destination's folder (so that the
/// final `rename` stays within one file system), which is flushed with `fsync` and renamed
/// over the destination; the temporary file is removed on any failure. A new file gets mode
/// 0644; an existing regular file keeps its mode.
enum AtomicFileWriter {
    static func write(_ bytes: [UInt8], toFile path: String) throws {
        let file = try _AtomicFile(path: path)
        try _FileIO.writeAll(bytes, to: file.fileDescriptor, name: path)
        try file.commit()
    }
}

/// An atomic replacement of a file written bit by bit (by a streaming encoder): the bytes go
/// to the temporary file behind `fileDescriptor`; `commit()` flushes it and renames it over
/// the destination. If `commit()` is never called or fails, the temporary file is removed
/// when the object goes away, and the destination is untouched (see `AtomicFileWriter`).
///
/// `@unchecked Sendable`: a streaming write hands the descriptor to one codec thread at a
/// time and commits only after that thread is done.
final class _AtomicFile: @unchecked Sendable {
    let path: String
    /// The temporary file, open for writing.
    let fileDescriptor: Int32
    private let folder: String
    private let temporary: String
    private var isOpen = true
    private var renamed = false

    /// Creates the temporary file `.NAME.XXXXXX` beside `path` (mode 0644, or an existing
    /// regular file's mode).
    ///
    /// - Throws: `io` when `path` is not a file name or the folder is not writable.
    init(path: String) throws {
        guard !path.isEmpty, !path.hasSuffix("/") else {
            throw PixelFlowError.io(file: path, reason: "not a file name")
        }
        let folder: String, base: String
        if let slash = path.lastIndex(of: "/") {
            folder = slash == path.startIndex ? "/" : String(path[..<slash])
            base = String(path[path.index(after: slash)...])
        } else {
            (folder, base) = (".", path)
        }
        var template = Array("\(folder == "/" ? "" : folder)/.\(base).XXXXXX".utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else {
            throw PixelFlowError.io(file: path, reason: "cannot create a temporary file in \(folder): \(_FileIO.errorText())")
        }
        self.path = path
        self.folder = folder
        fileDescriptor = fd
        temporary = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        var mode: mode_t = 0o644
        var existing = stat()
        if stat(path, &existing) == 0, existing.st_mode & S_IFMT == S_IFREG { mode = existing.st_mode & 0o7777 }
        _ = fchmod(fd, mode)
    }

    deinit {
        if isOpen { close(fileDescriptor) }
        if !renamed { unlink(temporary) }
    }

    /// Flushes the temporary file and renames it over the destination.
    ///
    /// - Throws: `io` when flushing, closing or renaming fails (the destination is then untouched).
    func commit() throws {
        precondition(isOpen && !renamed, "an atomic file is committed once")
        guard fsync(fileDescriptor) == 0 else {
            throw PixelFlowError.io(file: path, reason: "cannot flush: \(_FileIO.errorText())")
        }
        isOpen = false
        guard close(fileDescriptor) == 0 else {
            throw PixelFlowError.io(file: path, reason: "cannot close: \(_FileIO.errorText())")
        }
        guard rename(temporary, path) == 0 else {
            throw PixelFlowError.io(file: path, reason: "cannot replace: \(_FileIO.errorText())")
        }
        renamed = true
        // Make the rename itself durable; a failure here does not undo the write.
        let folderFD = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if folderFD >= 0 {
            _ = fsync(folderFD)
            close(folderFD)
        }
    }
}
