/// An 8-bit luminance plane: what the QR code detector thresholds.
///
/// Made from any `PixelBuffer` format: gray8 is copied row by row; rgba8 uses integer Rec. 709
/// weights on the encoded values (54, 183, 19 / 256); other formats go through the float
/// pixel accessor. Transparent pixels are taken over white (a code drawn with a transparent
/// background reads as dark on light). Linear-light float buffers are gamma-compressed with
/// a square root so the threshold sits near perceptual mid-grey.
///
/// - Complexity: one pass over the pixels; `width * height` bytes.
struct QRLuminance: Sendable {
    let width: Int
    let height: Int
    /// Row-major, `width` bytes a row.
    var pixels: [UInt8]

    init(width: Int, height: Int, pixels: [UInt8]) {
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    init(_ buffer: PixelBuffer) {
        width = buffer.width
        height = buffer.height
        let w = width
        var out = [UInt8](repeating: 0, count: width * height)
        let premultiplied = buffer.alphaMode == .premultiplied
        out.withUnsafeMutableBufferPointer { dst in
            switch buffer.format {
            case .gray8:
                buffer.withUnsafeRows { y, row in
                    let src = row.assumingMemoryBound(to: UInt8.self)
                    (dst.baseAddress! + y * w).update(from: src, count: w)
                }
            case .rgba8:
                buffer.withUnsafeRows { y, row in
                    let src = row.assumingMemoryBound(to: UInt8.self)
                    let d = dst.baseAddress! + y * w
                    for x in 0..<w {
                        let p = src + 4 * x
                        let l = (54 &* Int(p[0]) &+ 183 &* Int(p[1]) &+ 19 &* Int(p[2])) >> 8
                        let a = Int(p[3])
                        if a == 255 {
                            d[x] = UInt8(truncatingIfNeeded: l)
                        } else {
                            // Over white: straight l*a + 255*(1-a), premultiplied l + 255 - a.
                            let v = premultiplied ? l &+ 255 &- a : (l &* a &+ 255 &* (255 &- a)) / 255
                            d[x] = UInt8(clamping: v)
                        }
                    }
                }
            default:
                let linear = buffer.colorEncoding == .linear
                for y in 0..<buffer.height {
                    for x in 0..<w {
                        let p = buffer[x, y]
                        var l = 0.2126 * p.x + 0.7152 * p.y + 0.0722 * p.z
                        let a = buffer.format.hasAlpha ? p.w : 1
                        l = premultiplied ? l + (1 - a) : l * a + (1 - a)
                        if linear { l = Swift.max(l, 0).squareRoot() }
                        let v = l * 255 + 0.5
                        dst[y * w + x] = v.isNaN ? 0 : UInt8(Swift.min(Swift.max(v, 0), 255))
                    }
                }
            }
        }
        pixels = out
    }
}
