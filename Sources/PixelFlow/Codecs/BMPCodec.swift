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
/// Specification: Microsoft's BITMAPINFOHEADER, BITMAPV4HEADER and BITMAPV5HEADER docs.
///
/// - Complexity: O(pixels).
enum _BMPCodec {
    static func decode(_ bytes: [UInt8], name: String, options: DecodeOptions) throws -> PixelBuffer {
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
                masks = (bytes._le32(afterHeader), bytes._le32(afterHeader + 4), bytes._le32(afterHeader + 8),
                         count == 4 ? bytes._le32(afterHeader + 12) : 0)
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
              let rowsBefore = _Codec.product(rowStride, height - 1) else {
            throw failure("the image is too large")
        }
        let lastRowBytes = (rowBits + 7) / 8
        let (needed, o) = rowsBefore.addingReportingOverflow(lastRowBytes)
        guard dataOffset >= 14 + headerSize, dataOffset <= bytes.count, !o, needed <= bytes.count - dataOffset else {
            throw failure("the file is truncated: \(width)x\(height) at \(bitCount) bits needs "
                + "\(o ? "too many" : String(needed)) bytes of pixels at offset \(dataOffset), the file has \(bytes.count)")
        }

        let isGray = !palette.isEmpty && palette.allSatisfy { $0.x == $0.y && $0.y == $0.z }
        var buffer = try _Codec.makeDecodedBuffer(width: width, height: height, format: isGray ? .gray8 : .rgba8)
        let outStride = buffer.bytesPerRow
        var anyAlpha = false
        bytes.withUnsafeBufferPointer { input in
            buffer.withUnsafeMutableBytes { output in
                for y in 0..<height {
                    let src = input.baseAddress! + dataOffset + (topDown ? y : height - 1 - y) * rowStride
                    let dst = (output.baseAddress! + y * outStride).assumingMemoryBound(to: UInt8.self)
                    switch bitCount {
                    case 24:
                        for x in 0..<width {
                            dst[4 * x] = src[3 * x + 2]; dst[4 * x + 1] = src[3 * x + 1]
                            dst[4 * x + 2] = src[3 * x]; dst[4 * x + 3] = 255
                        }
                    case 32 where compression == 0:
                        for x in 0..<width {
                            dst[4 * x] = src[4 * x + 2]; dst[4 * x + 1] = src[4 * x + 1]
                            dst[4 * x + 2] = src[4 * x]; dst[4 * x + 3] = src[4 * x + 3]
                            anyAlpha = anyAlpha || src[4 * x + 3] != 0
                        }
                    case 32:
                        let r = _Mask(masks.r), g = _Mask(masks.g), b = _Mask(masks.b), a = _Mask(masks.a)
                        for x in 0..<width {
                            let v = Int(src[4 * x]) | Int(src[4 * x + 1]) << 8 | Int(src[4 * x + 2]) << 16 | Int(src[4 * x + 3]) << 24
                            dst[4 * x] = r.extract(v, absent: 0); dst[4 * x + 1] = g.extract(v, absent: 0)
                            dst[4 * x + 2] = b.extract(v, absent: 0); dst[4 * x + 3] = a.extract(v, absent: 255)
                        }
                    default:
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
            }
        }
        if bitCount == 32 && compression == 0 && !anyAlpha {
            buffer.withUnsafeMutableRows { _, row in
                let p = row.assumingMemoryBound(to: UInt8.self)
                for x in 0..<width { p[4 * x + 3] = 255 }
            }
        }
        return buffer
    }

    static func encode(_ source: PixelBuffer, name: String) throws -> [UInt8] {
        var buffer = _Codec.encodable(source)
        if buffer.format == .rgba16 { buffer = buffer.converted(to: .rgba8) }
        let w = buffer.width, h = buffer.height
        let gray = buffer.format == .gray8
        let opaque = _Codec.isOpaque(buffer)
        let bitCount = gray ? 8 : (opaque ? 24 : 32)
        let headerSize = bitCount == 32 ? 108 : 40
        let paletteSize = gray ? 256 * 4 : 0
        let dataOffset = 14 + headerSize + paletteSize
        guard w <= Int(Int32.max), h <= Int(Int32.max), let rowBits = _Codec.product(w, bitCount),
              let imageSize = _Codec.product((rowBits + 31) / 32 * 4, h),
              imageSize + dataOffset <= Int(UInt32.max) else {
            throw PixelFlowError.encodingFailed(file: name, reason: "BMP: \(w)x\(h) is too large for a BMP file")
        }
        let rowStride = (rowBits + 31) / 32 * 4
        var out: [UInt8] = []
        out.reserveCapacity(dataOffset + imageSize)
        // BITMAPFILEHEADER
        out._appendASCII("BM"); out._appendLE32(dataOffset + imageSize); out._appendLE32(0); out._appendLE32(dataOffset)
        // BITMAPINFOHEADER (bottom-up)
        out._appendLE32(headerSize); out._appendLE32(w); out._appendLE32(h); out._appendLE16(1); out._appendLE16(bitCount)
        out._appendLE32(bitCount == 32 ? 3 : 0); out._appendLE32(imageSize)
        out._appendLE32(2835); out._appendLE32(2835)                      // 72 dpi
        out._appendLE32(gray ? 256 : 0); out._appendLE32(0)
        if bitCount == 32 {
            // BITMAPV4HEADER: masks, LCS_sRGB, unused endpoints and gamma.
            out._appendLE32(0x00FF_0000); out._appendLE32(0x0000_FF00); out._appendLE32(0x0000_00FF); out._appendLE32(0xFF00_0000)
            out._appendASCII("BGRs")                                       // 'sRGB' as a little-endian UInt32
            out.append(contentsOf: repeatElement(0, count: 36 + 12))
        }
        if gray { for i in 0..<256 { out.append(contentsOf: [UInt8(i), UInt8(i), UInt8(i), 0]) } }
        let padding = rowStride - (rowBits + 7) / 8
        buffer.withUnsafeBytes { raw in
            for y in stride(from: h - 1, through: 0, by: -1) {
                let p = (raw.baseAddress! + y * buffer.bytesPerRow).assumingMemoryBound(to: UInt8.self)
                switch bitCount {
                case 8: out.append(contentsOf: UnsafeBufferPointer(start: p, count: w))
                case 24: for x in 0..<w { out.append(p[4 * x + 2]); out.append(p[4 * x + 1]); out.append(p[4 * x]) }
                default:
                    for x in 0..<w {
                        out.append(p[4 * x + 2]); out.append(p[4 * x + 1]); out.append(p[4 * x]); out.append(p[4 * x + 3])
                    }
                }
                out.append(contentsOf: repeatElement(0, count: padding))
            }
        }
        return out
    }
}

/// One BI_BITFIELDS channel mask: where the channel sits and how to scale it to 8 bits.
struct _Mask {
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
