/// The header of a BMP file, as `_BMPCodec.readHeader` finds it: enough to convert any row,
/// each at a known offset of the file's bytes.
struct _BMPHeader: Sendable {
    let width: Int
    let height: Int
    /// Rows stored first row first (negative height in the file) rather than last row first.
    let topDown: Bool
    /// 1, 4, 8 (palette), 24 or 32.
    let bitCount: Int
    /// 0 (BI_RGB), 3 (BI_BITFIELDS) or 6 (BI_ALPHABITFIELDS).
    let compression: Int
    /// The BI_BITFIELDS channel masks (BI_RGB: those of BGR bytes, no alpha mask).
    let red: _Mask, green: _Mask, blue: _Mask, alpha: _Mask
    /// RGBA colors (alpha 255) for 8 bits per pixel and fewer.
    let palette: [SIMD4<UInt8>]
    /// A palette made only of grays: the rows decode to `gray8`.
    let isGray: Bool
    /// Index of the first byte of the pixels.
    let dataOffset: Int
    /// Bytes from a stored row to the next (rows are padded to 4 bytes).
    let rowStride: Int
    /// 32-bit BI_RGB whose fourth bytes are all 0: opaque, as most writers leave them 0.
    let ignoresAlpha: Bool

    /// `gray8` for a gray palette, `rgba8` otherwise.
    var format: PixelFormat { isGray ? .gray8 : .rgba8 }
    /// False when the pixels carry alpha (32-bit BI_RGB with a fourth byte other than 0
    /// somewhere, or an alpha mask), even if every alpha is 255.
    var isOpaque: Bool { bitCount != 32 || (compression == 0 ? ignoresAlpha : alpha.maximum == 0) }

    /// The offset in the file of image row `y` (0 is the top): `dataOffset + y * rowStride`
    /// top-down, `dataOffset + (height - 1 - y) * rowStride` bottom-up.
    func offset(ofRow y: Int) -> Int { dataOffset + (topDown ? y : height - 1 - y) * rowStride }
}

/// Windows bitmaps in Swift.
///
/// Reads uncompressed files (BI_RGB) of 1, 4 and 8 bits per pixel (palette) and 24 and 32
/// bits, and 32-bit BI_BITFIELDS / BI_ALPHABITFIELDS with any contiguous masks; bottom-up
/// and top-down (negative height) rows, padded to 4 bytes. Info headers of 40, 52, 56, 108
/// and 124 bytes. A palette made only of grays decodes to `gray8`, everything else to
/// `rgba8`. In 32-bit BI_RGB files the fourth byte is alpha unless it is 0 everywhere
/// (then the image is opaque), as most writers leave it 0. RLE, 16-bit, embedded JPEG/PNG
/// and OS/2 headers throw `unsupportedFormat`.
///
/// Writes 24-bit BI_RGB for opaque images, 32-bit BI_BITFIELDS with a BITMAPV4HEADER
/// (alpha mask 0xFF000000, sRGB) otherwise, and 8-bit with a gray palette for `gray8`.
///
/// The whole-file decoder and encoder and the row ones (`_BMPRowDecoder`, `_BMPRowEncoder`)
/// share the header code and the per-row conversions (`convertRow`, `storeRow`), so their
/// pixels and bytes are the same.
///
/// Specification: Microsoft's BITMAPINFOHEADER, BITMAPV4HEADER and BITMAPV5HEADER docs.
///
/// - Complexity: O(pixels).
enum _BMPCodec {
    static func decode(_ bytes: [UInt8], name: String, options: DecodeOptions) throws -> PixelBuffer {
        let header = try readHeader(bytes, name: name, options: options)
        var buffer = try _Codec.makeDecodedBuffer(width: header.width, height: header.height, format: header.format)
        let outStride = buffer.bytesPerRow
        bytes.withUnsafeBufferPointer { input in
            buffer.withUnsafeMutableBytes { output in
                for y in 0..<header.height {
                    convertRow(y, of: header, from: input.baseAddress!, into: output.baseAddress! + y * outStride)
                }
            }
        }
        return buffer
    }

    /// Reads the header of the BMP file in `bytes` and checks the size against `options` and
    /// the bytes that follow (every row must be there). For 32-bit BI_RGB it also looks at
    /// the fourth byte of every pixel, up to the first that is not 0 (`ignoresAlpha`).
    ///
    /// - Throws: `unsupportedFormat` for RLE, 16-bit, embedded JPEG/PNG and OS/2 files,
    ///   `limitExceeded` for a size beyond `options`, `decodingFailed` for a bad or truncated
    ///   file.
    /// - Complexity: O(1), or O(pixels) reads (no allocation) for 32-bit BI_RGB.
    ///
    /// With `file`, `bytes` is the start of that file (its headers and palette must be in it):
    /// the rows are checked against the file's size and scanned with positional reads.
    static func readHeader(
        _ bytes: [UInt8], name: String, options: DecodeOptions,
        file: _OpenFile? = nil
    ) throws -> _BMPHeader {
        func failure(_ reason: String) -> PixelFlowError { .decodingFailed(file: name, reason: "BMP: " + reason) }
        func unsupported(_ what: String) -> PixelFlowError { .unsupportedFormat(file: name, reason: "BMP " + what) }

        guard bytes.count >= 18 else { throw failure("the file is truncated in the header") }
        let dataOffset = bytes._le32(10)
        let headerSize = bytes._le32(14)
        switch headerSize {
        case 12: throw unsupported("with an OS/2 BITMAPCOREHEADER")
        case 64: throw unsupported("with an OS/2 2.x header")
        case 40, 52, 56, 108, 124: break
        default: throw failure("unknown info header size \(headerSize)")
        }
        guard bytes.count >= 14 + headerSize else { throw failure("the file is truncated in the info header") }
        let width = Int(Int32(truncatingIfNeeded: bytes._le32(18)))
        let rawHeight = Int(Int32(truncatingIfNeeded: bytes._le32(22)))
        let bitCount = bytes._le16(28)
        let compression = bytes._le32(30)
        let colorsUsed = bytes._le32(46)
        let topDown = rawHeight < 0
        let height = abs(rawHeight)

        switch compression {
        case 0, 3, 6: break
        case 1: throw unsupported("RLE8 compression")
        case 2: throw unsupported("RLE4 compression")
        case 4: throw unsupported("with embedded JPEG data")
        case 5: throw unsupported("with embedded PNG data")
        default: throw failure("unknown compression \(compression)")
        }
        switch (bitCount, compression) {
        case (1, 0), (4, 0), (8, 0), (24, 0), (32, 0), (32, 3), (32, 6): break
        case (16, _): throw unsupported("with 16 bits per pixel")
        default: throw unsupported("with \(bitCount) bits per pixel and compression \(compression)")
        }
        try options._checkDimensions(width: width, height: height, file: name)

        // Channel masks for BI_BITFIELDS: in the header (52 bytes and up) or after it.
        var masks: (r: Int, g: Int, b: Int, a: Int) = (0x00FF_0000, 0x0000_FF00, 0x0000_00FF, 0)
        var afterHeader = 14 + headerSize
        if compression == 3 || compression == 6 {
            if headerSize >= 52 {
                masks = (bytes._le32(54), bytes._le32(58), bytes._le32(62), headerSize >= 56 ? bytes._le32(66) : 0)
            } else {
                let count = compression == 6 ? 4 : 3
                guard bytes.count >= afterHeader + 4 * count else { throw failure("the file is truncated in the color masks") }
                masks = (
                    bytes._le32(afterHeader), bytes._le32(afterHeader + 4), bytes._le32(afterHeader + 8),
                    count == 4 ? bytes._le32(afterHeader + 12) : 0
                )
                afterHeader += 4 * count
            }
        }

        // Palette: BGRx entries after the header.
        var palette: [SIMD4<UInt8>] = []
        if bitCount <= 8 {
            let maximum = 1 << bitCount
            let count = colorsUsed == 0 ? maximum : min(colorsUsed, maximum)
            guard bytes.count >= afterHeader + 4 * count else { throw failure("the file is truncated in the palette") }
            palette = (0..<count).map { i in
                let e = afterHeader + 4 * i
                return SIMD4(bytes[e + 2], bytes[e + 1], bytes[e], 255)
            }
        }

        guard let rowBits = _Codec.product(width, bitCount), let rowStride = _Codec.product((rowBits + 31) / 32, 4),
            let rowsBefore = _Codec.product(rowStride, height - 1)
        else {
            throw failure("the image is too large")
        }
        let lastRowBytes = (rowBits + 7) / 8
        let (needed, o) = rowsBefore.addingReportingOverflow(lastRowBytes)
        let total = file?.size ?? bytes.count
        guard dataOffset >= 14 + headerSize, dataOffset <= total, !o, needed <= total - dataOffset else {
            throw failure(
                "the file is truncated: \(width)x\(height) at \(bitCount) bits needs "
                    + "\(o ? "too many" : String(needed)) bytes of pixels at offset \(dataOffset), the file has \(total)")
        }

        var ignoresAlpha = false
        if bitCount == 32 && compression == 0 {
            if let file {
                ignoresAlpha = true
                scan: for y in 0..<height {
                    let row = try file.read(at: dataOffset + y * rowStride, count: 4 * width)
                    guard row.count == 4 * width else { throw failure("the file is truncated in row \(y)") }
                    for x in 0..<width where row[4 * x + 3] != 0 {
                        ignoresAlpha = false
                        break scan
                    }
                }
            } else {
                ignoresAlpha = bytes.withUnsafeBufferPointer { input in
                    for y in 0..<height {
                        let row = input.baseAddress! + dataOffset + y * rowStride
                        for x in 0..<width where row[4 * x + 3] != 0 { return false }
                    }
                    return true
                }
            }
        }
        let isGray = !palette.isEmpty && palette.allSatisfy { $0.x == $0.y && $0.y == $0.z }
        return _BMPHeader(
            width: width, height: height, topDown: topDown, bitCount: bitCount, compression: compression,
            red: _Mask(masks.r), green: _Mask(masks.g), blue: _Mask(masks.b), alpha: _Mask(masks.a),
            palette: palette, isGray: isGray, dataOffset: dataOffset, rowStride: rowStride,
            ignoresAlpha: ignoresAlpha)
    }

    /// Converts image row `y` (0 is the top) of the file whose bytes start at `file` into
    /// `row` (`width * header.format.bytesPerPixel` bytes). `readHeader` checked that the
    /// row is within the file.
    ///
    /// - Complexity: O(width).
    static func convertRow(
        _ y: Int, of header: _BMPHeader, from file: UnsafePointer<UInt8>,
        into row: UnsafeMutableRawPointer
    ) {
        convertRow(of: header, stored: file + header.offset(ofRow: y), into: row)
    }

    /// Converts the stored row at `src` (its bytes as in the file) into `row`.
    static func convertRow(of header: _BMPHeader, stored src: UnsafePointer<UInt8>, into row: UnsafeMutableRawPointer) {
        let width = header.width, bitCount = header.bitCount
        let dst = row.assumingMemoryBound(to: UInt8.self)
        switch bitCount {
        case 24:
            for x in 0..<width {
                dst[4 * x] = src[3 * x + 2]; dst[4 * x + 1] = src[3 * x + 1]
                dst[4 * x + 2] = src[3 * x]; dst[4 * x + 3] = 255
            }
        case 32 where header.compression == 0:
            let opaque = header.ignoresAlpha
            for x in 0..<width {
                dst[4 * x] = src[4 * x + 2]; dst[4 * x + 1] = src[4 * x + 1]
                dst[4 * x + 2] = src[4 * x]; dst[4 * x + 3] = opaque ? 255 : src[4 * x + 3]
            }
        case 32:
            let r = header.red, g = header.green, b = header.blue, a = header.alpha
            for x in 0..<width {
                let v = Int(src[4 * x]) | Int(src[4 * x + 1]) << 8 | Int(src[4 * x + 2]) << 16 | Int(src[4 * x + 3]) << 24
                dst[4 * x] = r.extract(v, absent: 0); dst[4 * x + 1] = g.extract(v, absent: 0)
                dst[4 * x + 2] = b.extract(v, absent: 0); dst[4 * x + 3] = a.extract(v, absent: 255)
            }
        default:
            let palette = header.palette, isGray = header.isGray
            let perByte = 8 / bitCount, valueMask = (1 << bitCount) - 1
            for x in 0..<width {
                let byte = Int(src[x / perByte])
                let index = (byte >> (8 - bitCount * (x % perByte + 1))) & valueMask
                // An index past the palette reads as black, as in most decoders.
                let color = index < palette.count ? palette[index] : SIMD4(0, 0, 0, 255)
                if isGray {
                    dst[x] = color.x
                } else {
                    dst[4 * x] = color.x; dst[4 * x + 1] = color.y; dst[4 * x + 2] = color.z; dst[4 * x + 3] = 255
                }
            }
        }
    }

    static func encode(_ source: PixelBuffer, name: String) throws -> [UInt8] {
        var buffer = _Codec.encodable(source)
        if buffer.format == .rgba16 { buffer = buffer.converted(to: .rgba8) }
        let w = buffer.width, h = buffer.height
        let bitCount = buffer.format == .gray8 ? 8 : (_Codec.isOpaque(buffer) ? 24 : 32)
        let header = try fileHeader(width: w, height: h, bitCount: bitCount, name: name)
        let rowStride = fileRowStride(width: w, bitCount: bitCount)
        var out = [UInt8](repeating: 0, count: header.count + rowStride * h)
        out.withUnsafeMutableBufferPointer { o in
            _ = UnsafeMutableBufferPointer(rebasing: o[..<header.count]).initialize(from: header)
            // Bottom-up: the last row first.
            buffer.withUnsafeRows { y, row in
                storeRow(row, width: w, bitCount: bitCount, to: o.baseAddress! + header.count + (h - 1 - y) * rowStride)
            }
        }
        return out
    }

    /// The headers `encode` writes before the rows of a bottom-up file of `bitCount` bits
    /// (8: BITMAPINFOHEADER and a gray palette; 24: BITMAPINFOHEADER; 32: BITMAPV4HEADER with
    /// BI_BITFIELDS masks and LCS_sRGB).
    ///
    /// - Throws: `encodingFailed` when the file would exceed 4 GiB, the format's limit.
    static func fileHeader(width w: Int, height h: Int, bitCount: Int, name: String) throws -> [UInt8] {
        let gray = bitCount == 8
        let headerSize = bitCount == 32 ? 108 : 40
        let paletteSize = gray ? 256 * 4 : 0
        let dataOffset = 14 + headerSize + paletteSize
        guard w <= Int(Int32.max), h <= Int(Int32.max), let rowBits = _Codec.product(w, bitCount),
            let imageSize = _Codec.product((rowBits + 31) / 32 * 4, h),
            imageSize + dataOffset <= Int(UInt32.max)
        else {
            throw PixelFlowError.encodingFailed(file: name, reason: "BMP: \(w)x\(h) is too large for a BMP file")
        }
        var out: [UInt8] = []
        out.reserveCapacity(dataOffset)
        // BITMAPFILEHEADER
        out._appendASCII("BM"); out._appendLE32(dataOffset + imageSize); out._appendLE32(0); out._appendLE32(dataOffset)
        // BITMAPINFOHEADER (bottom-up)
        out._appendLE32(headerSize); out._appendLE32(w); out._appendLE32(h); out._appendLE16(1); out._appendLE16(bitCount)
        out._appendLE32(bitCount == 32 ? 3 : 0); out._appendLE32(imageSize)
        out._appendLE32(2835); out._appendLE32(2835)  // 72 dpi
        out._appendLE32(gray ? 256 : 0); out._appendLE32(0)
        if bitCount == 32 {
            // BITMAPV4HEADER: masks, LCS_sRGB, unused endpoints and gamma.
            out._appendLE32(0x00FF_0000); out._appendLE32(0x0000_FF00); out._appendLE32(0x0000_00FF); out._appendLE32(0xFF00_0000)
            out._appendASCII("BGRs")  // 'sRGB' as a little-endian UInt32
            out.append(contentsOf: repeatElement(0, count: 36 + 12))
        }
        if gray { for i in 0..<256 { out.append(contentsOf: [UInt8(i), UInt8(i), UInt8(i), 0]) } }
        return out
    }

    /// Bytes of a stored row of `width` pixels at `bitCount` bits, padded to 4 bytes.
    static func fileRowStride(width: Int, bitCount: Int) -> Int { (width * bitCount + 31) / 32 * 4 }

    /// Writes one row of `width` pixels (`gray8` for 8 bits, `rgba8` for 24 and 32) as a
    /// stored row (BGR or BGRA, padded with zeros) into `out` (`fileRowStride` bytes).
    static func storeRow(_ row: UnsafeRawPointer, width w: Int, bitCount: Int, to out: UnsafeMutablePointer<UInt8>) {
        let p = row.assumingMemoryBound(to: UInt8.self)
        let stride = fileRowStride(width: w, bitCount: bitCount), used = w * bitCount / 8
        switch bitCount {
        case 8:
            out.update(from: p, count: w)
        case 24:
            for x in 0..<w { out[3 * x] = p[4 * x + 2]; out[3 * x + 1] = p[4 * x + 1]; out[3 * x + 2] = p[4 * x] }
        default:
            for x in 0..<w {
                out[4 * x] = p[4 * x + 2]; out[4 * x + 1] = p[4 * x + 1]; out[4 * x + 2] = p[4 * x]; out[4 * x + 3] = p[4 * x + 3]
            }
        }
        (out + used).update(repeating: 0, count: stride - used)
    }
}

/// One BI_BITFIELDS channel mask: where the channel sits and how to scale it to 8 bits.
struct _Mask: Sendable {
    let mask: Int, shift: Int, maximum: Int

    init(_ mask: Int) {
        let m = mask & 0xFFFF_FFFF
        self.mask = m
        shift = m == 0 ? 0 : m.trailingZeroBitCount
        maximum = m >> shift
    }

    @inline(__always) func extract(_ pixel: Int, absent: UInt8) -> UInt8 {
        guard maximum > 0 else { return absent }
        let v = (pixel & mask) >> shift
        return maximum == 255 ? UInt8(v) : UInt8((v * 255 + maximum / 2) / maximum)
    }
}
