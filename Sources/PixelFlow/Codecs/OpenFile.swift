#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A regular file kept open for positional reads (`pread`), so that a streamed source reads
/// its bytes as its rows need them instead of holding the whole file in memory.
///
/// The descriptor is closed when the last source and decoder using it go. A file replaced
/// by a rename while open is still read whole (the descriptor keeps the old file); a file
/// rewritten in place may fail to decode, with a thrown error.
///
/// `@unchecked Sendable`: its stored properties never change and `pread` does not move a
/// shared offset, so any number of threads may read at once.
final class _OpenFile: @unchecked Sendable {
    let name: String
    let fileDescriptor: Int32
    /// The size when the file was opened.
    let size: Int

    /// Opens `path` for reading, or returns nil when it is not a regular file (a pipe, a
    /// device: the caller reads it whole).
    ///
    /// - Throws: `io` when it cannot be opened or is a folder; `limitExceeded` when larger
    ///   than `limit` bytes.
    init?(path: String, limit: Int) throws {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw PixelFlowError.io(file: path, reason: "cannot open: \(_FileIO.errorText())") }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let text = _FileIO.errorText()
            close(fd)
            throw PixelFlowError.io(file: path, reason: "cannot stat: \(text)")
        }
        let type = info.st_mode & S_IFMT
        guard type == S_IFREG else {
            close(fd)
            if type == S_IFDIR { throw PixelFlowError.io(file: path, reason: "is a folder, not a file") }
            return nil
        }
        let size = Int(info.st_size)
        guard size <= limit else {
            close(fd)
            throw PixelFlowError.limitExceeded(what: "\(path): file size in bytes", value: size, limit: limit)
        }
        name = path
        fileDescriptor = fd
        self.size = size
    }

    deinit { close(fileDescriptor) }

    /// Up to `count` bytes from `offset`: fewer at the end of the file.
    ///
    /// - Throws: `io` when reading fails.
    func read(at offset: Int, count: Int) throws -> [UInt8] {
        let wanted = Swift.max(0, Swift.min(count, size - offset))
        guard wanted > 0 else { return [] }
        var bytes = [UInt8](repeating: 0, count: wanted)
        var done = 0
        try bytes.withUnsafeMutableBytes { raw in
            while done < wanted {
                let n = pread(fileDescriptor, raw.baseAddress! + done, wanted - done, off_t(offset + done))
                if n < 0 {
                    if errno == EINTR { continue }
                    throw PixelFlowError.io(file: name, reason: "cannot read: \(_FileIO.errorText())")
                }
                if n == 0 { break }
                done += n
            }
        }
        return done == wanted ? bytes : Array(bytes[0..<done])
    }
}

extension _ImageCodecs {
    /// A streamed source read from the open `file` with positional reads, for the formats
    /// that can be (JPEG, PNG, TIFF, binary PNM, BMP), or nil: the caller then reads the whole file and decides with
    /// `streamDecision`, which also gives the reason of a full decode.
    ///
    /// Returns the source and the orientation the file declares, as `_StreamDecision.streamed`.
    static func streamedSource(file: _OpenFile, options: DecodeOptions) throws
        -> (source: StreamedSource, declared: EXIFOrientation)?
    {
        guard options.imageIndex == 0 else { return nil }
        let head = try file.read(at: 0, count: 64)
        switch ImageFileFormat.sniff(head) {
        case .jpeg:
            // libjpeg reads the file through a pread source manager, 64 KiB at a time.
            let header = try _JPEGCodec.header(file, options: options)
            guard wholeDecodeReason(header, options: options) == nil else { return nil }
            let source = try StreamedSource(
                jpeg: _JPEGInput(file: file), name: file.name, options: options,
                rawCMYK: header.isCMYK)
            return (
                try finished(source, header: header, name: file.name, options: options),
                header.metadata.orientation
            )
        case .png:
            guard let prefix = try _PNGCodec.headerPrefix(file, options: options) else { return nil }
            let (header, info) = try _PNGCodec.readHeader(prefix, name: file.name, options: options)
            guard info.interlaced == 0, wholeDecodeReason(header, options: options) == nil else { return nil }
            let source = try StreamedSource(png: _PNGFileBytes(file: file), name: file.name, options: options)
            return (
                try finished(source, header: header, name: file.name, options: options),
                header.metadata.orientation
            )
        case .tiff:
            let bytes = _TIFFRowDecoder.Bytes(file: file)
            let header = try _TIFFCodec.header(bytes, name: file.name, options: options)
            guard wholeDecodeReason(header, options: options) == nil,
                let source = try StreamedSource(tiff: bytes, name: file.name, options: options)
            else { return nil }
            return (
                try finished(source, header: header, name: file.name, options: options),
                header.metadata.orientation
            )
        case .pnm:
            // Binary files only (ASCII rows are parsed from bytes in memory); a header longer
            // than the prefix, or any error, is left to the whole-file path to report.
            let prefix = try file.read(at: 0, count: 1 << 20)
            guard let header = try? _PNMCodec.readHeader(prefix, name: file.name, options: options, fileSize: file.size),
                header.kind >= 4
            else { return nil }
            return (StreamedSource(pnm: file, header: header), .up)
        case .bmp:
            let prefix = try file.read(at: 0, count: 1 << 20)
            guard let header = try? _BMPCodec.readHeader(prefix, name: file.name, options: options, file: file) else {
                return nil
            }
            return (StreamedSource(bmp: file, header: header), .up)
        default:
            return nil
        }
    }
}
