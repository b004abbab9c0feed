import CCodecShims
import Dispatch

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// One compressed chunk from `pf_png_deflate_chunk`, its bytes malloc'd until written.
///
/// `@unchecked Sendable`: the bytes belong to whoever holds the value; it is handed from the
/// thread that compressed it to the one that writes and frees it, never shared.
private struct _PNGCompressedChunk: @unchecked Sendable {
    var chunk: pf_png_chunk
}

/// The writer of a non-interlaced PNG: the signature, header and metadata chunks through
/// libpng (`pf_png_encoder_create`), then image data filtered and compressed in parallel,
/// pigz-style, to a file descriptor or to memory.
///
/// The filtered rows (one filter byte, then the packed samples) are cut into chunks of
/// `rowsPerChunk` whole rows, about 256 KiB, a function of the width and layout only. Each
/// chunk is compressed alone (`pf_png_deflate_chunk`: raw deflate by PixelFlow's `pf_deflate`,
/// primed with the 32 KiB of filtered bytes above it, ended by a sync flush), possibly on
/// another thread, and the chunks are written in order as one zlib stream with one adler32.
/// So the file is the same for every thread count, and whether the rows come as one buffer
/// (`_PNGCodec.encode`) or strip by strip (`_PNGRowEncoder`). Compared with one serial
/// deflate stream the zlib stream grows by a few bytes per chunk (the flush marker, a new
/// block's code tables).
///
/// `@unchecked Sendable`: during `compress(chunks:rows:)` the libpng writer is used by one
/// worker at a time (the one that set `consuming` in `_PNGInOrderState`, under its mutex),
/// and otherwise only by the owner, between calls.
final class _PNGImageDataEncoder: @unchecked Sendable {
    let name: String
    let width: Int
    let height: Int
    /// `PF_PNG_INPUT_*`.
    let input: Int32
    let level: Int32
    let threads: Int
    let rowsPerChunk: Int
    /// Rows above a chunk that its compression reads (see `pf_png_chunking`).
    let historyRows: Int
    /// Chunks compressed and written so far.
    private(set) var chunksWritten = 0
    private let encoder: OpaquePointer

    var chunkCount: Int { (height + rowsPerChunk - 1) / rowsPerChunk }

    /// Writes everything before the image data, to `fileDescriptor` or, when it is negative,
    /// to memory (`takeOutput()`).
    ///
    /// - Throws: `encodingFailed` for a size libpng refuses; `io` when writing fails.
    init(
        fileDescriptor: Int32, width: Int, height: Int, input: Int32, options: EncodeOptions,
        metadata: _EmbeddedMetadata, name: String
    ) throws {
        var chunking = pf_png_chunking()
        guard width > 0, height > 0, width <= Int(Int32.max), height <= Int(Int32.max),
            pf_png_chunking_for(UInt32(width), input, &chunking) == PF_OK
        else {
            throw PixelFlowError.encodingFailed(file: name, reason: "PNG: \(width)x\(height) is not a valid size")
        }
        self.name = name
        self.width = width
        self.height = height
        self.input = input
        let level = Int32(options.compressionLevel)
        self.level = level
        threads = Swift.max(1, options.threadCount ?? RenderContext.activeProcessorCount)
        rowsPerChunk = Int(chunking.rows_per_chunk)
        historyRows = Int(chunking.history_rows)
        var message = [CChar](repeating: 0, count: Int(PF_MESSAGE_CAPACITY))
        var made: OpaquePointer?
        let status = metadata.withBlocks { blocks in
            pf_png_encoder_create(
                fileDescriptor, UInt32(width), UInt32(height), input, level, blocks,
                _PNGCodec.writesSRGBChunk(metadata) ? 1 : 0, &made, &message)
        }
        guard status == PF_OK, let made else { throw Self.error(status, message, name: name) }
        encoder = made
    }

    deinit { pf_png_encoder_destroy(encoder) }

    /// Compresses the next `count` chunks, on up to `threads` threads, and writes them in order.
    /// `rows` must hold every row of those chunks and the `min(first row, historyRows)` rows
    /// above each.
    ///
    /// - Throws: `encodingFailed` (out of memory), `io` when writing fails; the encoder is then
    ///   unusable.
    func compress(chunks count: Int, rows: _EncoderRows) throws {
        precondition(count >= 0 && chunksWritten + count <= chunkCount, "chunks past the end of the image")
        let first = chunksWritten
        try _InOrderWork.run(count: count, threads: threads) { i -> _PNGCompressedChunk in
            let start = (first + i) * self.rowsPerChunk
            let rowCount = Swift.min(self.rowsPerChunk, self.height - start)
            let above = Swift.min(start, self.historyRows)
            precondition(start - above >= rows.firstRow, "rows above the chunk are missing")
            var chunk = pf_png_chunk()
            let status = pf_png_deflate_chunk(
                rows.row(start), rows.stride, UInt32(self.width), self.input, UInt32(above), UInt32(rowCount),
                self.level, start + rowCount == self.height ? 1 : 0, &chunk)
            guard status == PF_OK else {
                throw PixelFlowError.encodingFailed(
                    file: self.name, reason: status == PF_OUT_OF_MEMORY ? "PNG: out of memory" : "PNG: zlib failed")
            }
            return _PNGCompressedChunk(chunk: chunk)
        } consume: { compressed in
            defer { pf_free(compressed.chunk.data) }
            var message = [CChar](repeating: 0, count: Int(PF_MESSAGE_CAPACITY))
            var chunk = compressed.chunk
            let status = pf_png_encoder_write_chunk(self.encoder, &chunk, &message)
            guard status == PF_OK else { throw Self.error(status, message, name: self.name) }
        } discard: { compressed in
            pf_free(compressed.chunk.data)
        }
        chunksWritten += count
    }

    /// Writes the adler32, the last IDAT chunk and IEND once every chunk was written.
    func finish() throws {
        var message = [CChar](repeating: 0, count: Int(PF_MESSAGE_CAPACITY))
        let status = pf_png_encoder_finish(encoder, &message)
        guard status == PF_OK else { throw Self.error(status, message, name: name) }
    }

    /// The file written to memory (after `finish()`).
    func takeOutput() -> [UInt8] {
        var output: UnsafeMutablePointer<UInt8>?
        var size = 0
        pf_png_encoder_take_output(encoder, &output, &size)
        defer { pf_free(output) }
        guard let output else { return [] }
        return Array(UnsafeBufferPointer(start: output, count: size))
    }

    static func error(_ status: Int32, _ message: [CChar], name: String) -> PixelFlowError {
        if status == PF_IO_ERROR { return .io(file: name, reason: _Codec.message(message)) }
        return .encodingFailed(file: name, reason: "PNG: " + _Codec.message(message))
    }
}
