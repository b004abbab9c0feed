/// An 8-bit luminance plane: what the QR code detector thresholds.
///
/// Made from any `PixelBuffer` format: gray8 is copied row by row; rgba8 uses integer Rec. 709
/// weights on the encoded values (54, 183, 19 / 256), and bgra8 and argb8 are reordered to
/// rgba8 first (the same plane); other formats go through the float
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
        if buffer.format == .bgra8 || buffer.format == .argb8 {
            self = QRLuminance(buffer.converted(to: .rgba8))
            return
        }
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

    /// The plane at half the width and height, each pixel the rounded mean of a 2 x 2 block
    /// (a trailing odd row or column is dropped): how large, blurred or noisy modules are read
    /// at a scale where the 8-pixel threshold blocks and the run-length scan suit them better.
    func halved() -> QRLuminance {
        let w = width / 2, h = height / 2
        var out = [UInt8](repeating: 0, count: w * h)
        pixels.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                for y in 0..<h {
                    let a = src.baseAddress! + 2 * y * width, b = a + width
                    let d = dst.baseAddress! + y * w
                    for x in 0..<w {
                        let sum = Int(a[2 * x]) &+ Int(a[2 * x + 1]) &+ Int(b[2 * x]) &+ Int(b[2 * x + 1])
                        d[x] = UInt8(truncatingIfNeeded: (sum &+ 2) >> 2)
                    }
                }
            }
        }
        return QRLuminance(width: w, height: h, pixels: out)
    }

    /// The plane at twice the width and height, bilinear (pixel centres aligned): how codes
    /// with modules of about 2 pixels, thinned by blur, are read when nothing else works.
    func doubled() -> QRLuminance {
        let w = width * 2, h = height * 2
        var out = [UInt8](repeating: 0, count: w * h)
        pixels.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                for y in 0..<h {
                    // Output centre y + 0.5 sits at source (y + 0.5) / 2 - 0.5.
                    let sy = Swift.max(Double(y) * 0.5 - 0.25, 0)
                    let y0 = Swift.min(Int(sy), height - 1), y1 = Swift.min(y0 + 1, height - 1)
                    let fy = Int((sy - Double(y0)) * 256)
                    let a = src.baseAddress! + y0 * width, b = src.baseAddress! + y1 * width
                    let d = dst.baseAddress! + y * w
                    for x in 0..<w {
                        let sx = Swift.max(Double(x) * 0.5 - 0.25, 0)
                        let x0 = Swift.min(Int(sx), width - 1), x1 = Swift.min(x0 + 1, width - 1)
                        let fx = Int((sx - Double(x0)) * 256)
                        let top = Int(a[x0]) * (256 - fx) + Int(a[x1]) * fx
                        let bottom = Int(b[x0]) * (256 - fx) + Int(b[x1]) * fx
                        d[x] = UInt8(truncatingIfNeeded: (top * (256 - fy) + bottom * fy + 32768) >> 16)
                    }
                }
            }
        }
        return QRLuminance(width: w, height: h, pixels: out)
    }
}
