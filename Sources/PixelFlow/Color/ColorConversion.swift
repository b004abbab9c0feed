/// Conversions of decoded pixels out of the file's color space (placeholder: CMYK naive,
/// profiles not applied yet).
enum _ColorConversion {
    /// `decoded` as a `PixelBuffer` whose values are sRGB: CMYK converted to RGB, and the
    /// profile applied when `applyProfile`.
    static func toSRGB(_ decoded: _DecodedImage, name: String, applyProfile: Bool) throws -> PixelBuffer {
        guard decoded.isCMYK else { return decoded.buffer }
        return naiveCMYKToRGB(decoded.buffer)
    }

    /// R = (1 - C)(1 - K) and likewise for G and B, on `rgba8` or `rgba16` holding CMYK;
    /// alpha becomes opaque.
    static func naiveCMYKToRGB(_ cmyk: PixelBuffer) -> PixelBuffer {
        var out = cmyk
        let w = cmyk.width
        if cmyk.format == .rgba16 {
            out.withUnsafeMutableRows { _, row in
                let p = row.assumingMemoryBound(to: UInt16.self)
                for x in 0..<w {
                    let k = 65535 - UInt32(p[4 * x + 3])
                    for c in 0..<3 { p[4 * x + c] = UInt16(((65535 - UInt32(p[4 * x + c])) * k + 32767) / 65535) }
                    p[4 * x + 3] = 65535
                }
            }
        } else {
            out.withUnsafeMutableRows { _, row in
                let p = row.assumingMemoryBound(to: UInt8.self)
                for x in 0..<w {
                    let k = 255 - UInt32(p[4 * x + 3])
                    for c in 0..<3 { p[4 * x + c] = UInt8(((255 - UInt32(p[4 * x + c])) * k + 127) / 255) }
                    p[4 * x + 3] = 255
                }
            }
        }
        return out
    }
}
