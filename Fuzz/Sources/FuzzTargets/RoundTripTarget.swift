import PixelFlow

/// Encode then decode: a buffer read from the bytes is encoded in every format with options
/// from the bytes, and decoded again. PNG and PNM must give back the same pixels for
/// `rgba8`, `gray8` and `rgba16`; BMP for `rgba8` and `gray8` (and `rgba16` as `rgba8`);
/// JPEG the same size.
///
/// Layout: format byte, width byte, height byte, options byte, then the pixel bytes (cycled
/// when short).
enum RoundTripTarget {
    static func run(_ bytes: [UInt8]) {
        var r = ByteReader(bytes)
        let formats: [PixelFormat] = [.rgba8, .gray8, .rgba16, .rgbaF32, .grayF32]
        let format = formats[Int(r.byte()) % formats.count]
        let width = 1 + Int(r.byte()) % 48, height = 1 + Int(r.byte()) % 48
        let flags = r.byte()
        let pixels = Array(r.remaining)
        guard var buffer = try? PixelBuffer(width: width, height: height, format: format) else {
            preconditionFailure("a \(width)x\(height) buffer must be creatable")
        }
        buffer.withUnsafeMutableRows { _, row in
            let count = width * format.bytesPerPixel
            for i in 0..<count {
                // Float formats get whatever floats the bytes make, NaN and infinities too:
                // encoding must clamp them, though only integer formats promise exactness.
                let v: UInt8 = pixels.isEmpty ? UInt8(truncatingIfNeeded: i) : pixels[(i + count) % pixels.count]
                row.storeBytes(of: v, toByteOffset: i, as: UInt8.self)
            }
        }
        let options = EncodeOptions(
            compressionLevel: Int(flags & 7) + 1, interlaced: flags & 8 != 0,
            progressive: flags & 16 != 0,
            chromaSubsampling: EncodeOptions.ChromaSubsampling.allCases[
                Int(flags >> 5) % EncodeOptions.ChromaSubsampling.allCases.count])
        let quality = 1 + Int(flags) % 100
        for file in ImageFileFormat.allCases {
            let encoded: [UInt8]
            do {
                encoded = try buffer.encoded(as: file, quality: quality, options: options)
            } catch {
                preconditionFailure("encoding a \(width)x\(height) \(format) buffer as \(file) failed: \(error)")
            }
            let decoded: PixelBuffer
            do {
                decoded = try PixelBuffer(encoded: encoded, name: "roundtrip.\(file)")
            } catch {
                preconditionFailure("decoding PixelFlow's own \(file) of a \(width)x\(height) \(format) buffer failed: \(error)")
            }
            precondition(
                decoded.width == width && decoded.height == height,
                "\(file) changed the size \(width)x\(height) to \(decoded.width)x\(decoded.height)")
            guard !format.isFloat else { continue }
            switch file {
            case .png, .pnm:
                precondition(decoded == buffer, "\(file) did not round-trip a \(width)x\(height) \(format) buffer")
            case .bmp:
                let expected = format == .rgba16 ? buffer.converted(to: .rgba8) : buffer
                precondition(decoded == expected, "bmp did not round-trip a \(width)x\(height) \(format) buffer")
            case .jpeg:
                break
            default:
                // GIF quantizes images of more than 256 colors; the other new formats bring
                // their own checks.
                break
            }
        }
    }
}
