import CCodecShims

/// One compressed band from `pf_jpeg_encode_band`, its bytes malloc'd until written.
///
/// `@unchecked Sendable`: the bytes belong to whoever holds the value; it is handed from the
/// thread that compressed it to the one that writes and frees it, never shared.
private struct _JPEGCompressedBand: @unchecked Sendable {
    let bytes: UnsafeMutablePointer<UInt8>
    let count: Int
}

/// A baseline JPEG compressed in bands of whole rows of MCUs on several threads, as pigz
/// deflates: each band is an independent libjpeg-turbo compression with the same settings
/// and a restart marker after every row of MCUs (`pf_jpeg_encode_band`), and the bands are
/// written in order as one file: the headers of the first, then each band's entropy-coded
/// data after an RST marker numbered for the whole image, one EOI.
///
/// Since restarts reset the DC predictors and the standard Huffman tables are used, the file
/// is byte for byte the one a single libjpeg compression with `restart_in_rows = 1` writes
/// (`pf_jpeg_encode_restart`), for every thread count. The bands (`bandRows`) depend on the
/// image's size and subsampling only: about 256 K pixels each, whole rows of MCUs.
///
/// `@unchecked Sendable`: the sink is called by one worker at a time (`_InOrderWork.run`),
/// and the state is otherwise used only by the owner, between calls.
final class _JPEGBandEncoder: @unchecked Sendable {
    let name: String
    let width: Int
    let height: Int
    /// 1 (gray8) or 4 (rgba8, alpha ignored).
    let components: Int
    let quality: Int
    /// `PF_JPEG_SUBSAMPLING_*`.
    let subsampling: Int
    let threads: Int
    let bandRows: Int
    let metadata: _EmbeddedMetadata
    /// Bands compressed and written so far.
    private(set) var bandsWritten = 0
    /// Where the bytes go, in order.
    private let sink: @Sendable (UnsafeRawBufferPointer) throws -> Void

    var bandCount: Int { (height + bandRows - 1) / bandRows }

    /// A band encoder for these settings, or nil when the file is written by one compression:
    /// progressive, `restartMarkers` off, or an image smaller than two bands.
    init?(
        width: Int, height: Int, format: PixelFormat, quality: Int, options: EncodeOptions,
        metadata: _EmbeddedMetadata, name: String,
        sink: @escaping @Sendable (UnsafeRawBufferPointer) throws -> Void
    ) {
        let components = format == .gray8 ? 1 : 4
        let subsampling = _JPEGCodec.subsampling(options.chromaSubsampling)
        guard let rows = Self.bandRows(width: width, height: height, components: components, subsampling: subsampling),
            !options.progressive, options.restartMarkers
        else { return nil }
        self.name = name
        self.width = width
        self.height = height
        self.components = components
        self.quality = quality
        self.subsampling = subsampling
        self.metadata = metadata
        self.sink = sink
        bandRows = rows
        threads = Swift.max(1, options.threadCount ?? RenderContext.activeProcessorCount)
    }

    /// Rows per band for an image of this size: whole rows of MCUs, about 2^18 pixels, or nil
    /// when that makes fewer than two bands (or a side is not a valid JPEG size).
    static func bandRows(width: Int, height: Int, components: Int, subsampling: Int) -> Int? {
        guard width > 0, height > 0, width <= 65_535, height <= 65_535 else { return nil }
        let mcu = Int(pf_jpeg_mcu_height(Int32(components), Int32(subsampling)))
        let rows = mcu * Swift.max(1, (1 << 18) / (width * mcu))
        return height > rows ? rows : nil
    }

    /// Compresses the next `count` bands on up to `threads` threads and writes them in order.
    /// `rows` must hold every row of those bands.
    ///
    /// - Throws: `encodingFailed` (out of memory), or what the sink throws; the encoder is then
    ///   unusable.
    func compress(bands count: Int, rows: _EncoderRows) throws {
        precondition(count >= 0 && bandsWritten + count <= bandCount, "bands past the end of the image")
        let first = bandsWritten
        try _InOrderWork.run(count: count, threads: threads) { i -> _JPEGCompressedBand in
            let start = (first + i) * self.bandRows
            let rowCount = Swift.min(self.bandRows, self.height - start)
            precondition(start >= rows.firstRow, "rows of the band are missing")
            var message = [CChar](repeating: 0, count: Int(PF_MESSAGE_CAPACITY))
            var output: UnsafeMutablePointer<UInt8>?
            var size = 0
            let status = self.metadata.withBlocks { blocks in
                pf_jpeg_encode_band(
                    rows.row(start), rows.stride, UInt32(self.width), UInt32(rowCount), UInt32(self.height),
                    UInt32(start), Int32(self.components), Int32(self.quality), Int32(self.subsampling),
                    blocks, &output, &size, &message)
            }
            guard status == PF_OK, let output else {
                pf_free(output)
                throw PixelFlowError.encodingFailed(file: self.name, reason: "JPEG: " + _Codec.message(message))
            }
            return _JPEGCompressedBand(bytes: output, count: size)
        } consume: { band in
            defer { pf_free(band.bytes) }
            try self.sink(UnsafeRawBufferPointer(start: band.bytes, count: band.count))
        } discard: { band in
            pf_free(band.bytes)
        }
        bandsWritten += count
    }
}
