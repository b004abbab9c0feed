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

    /// The `width` x `height` pixels from (x, y) (within the plane): how a retry looks only
    /// where the finder candidates are.
    func cropped(x: Int, y: Int, width w: Int, height h: Int) -> QRLuminance {
        precondition(x >= 0 && y >= 0 && w >= 0 && h >= 0 && x + w <= width && y + h <= height)
        if x == 0 && y == 0 && w == width && h == height { return self }
        var out = [UInt8](repeating: 0, count: w * h)
        pixels.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                for row in 0..<h {
                    (dst.baseAddress! + row * w).update(from: src.baseAddress! + (y + row) * width + x, count: w)
                }
            }
        }
        return QRLuminance(width: w, height: h, pixels: out)
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
    ///
    /// Output pixel 2i + 1/2 sits at source i + 1/4 and 2i - 1/2 at i - 1/4 (clamped at the
    /// borders), so every output pixel weighs two source columns 3:1 and two rows 3:1: fixed
    /// weights of 192 and 64 (of 256), in integers. Each output row blends its two source rows
    /// first (one pass, contiguous), then each pair of output pixels comes from two or three
    /// blended columns; the sum is the same as blending columns first, exactly.
    ///
    /// - Complexity: O(output pixels), no floating point; one row of scratch.
    func doubled() -> QRLuminance {
        let w = width * 2, h = height * 2
        var out = [UInt8](repeating: 0, count: w * h)
        guard width > 0, height > 0 else { return QRLuminance(width: w, height: h, pixels: out) }
        var blended = [Int32](repeating: 0, count: width)
        let sw = width
        pixels.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                blended.withUnsafeMutableBufferPointer { col in
                    for y in 0..<h {
                        let (y0, y1, fy) = QRLuminance._doubledTap(y, count: height)
                        let a = src.baseAddress! + y0 &* sw, b = src.baseAddress! + y1 &* sw
                        let wa = Int32(256 &- fy), wb = Int32(fy)
                        for x in 0..<sw { col[x] = Int32(a[x]) &* wa &+ Int32(b[x]) &* wb }
                        let d = dst.baseAddress! + y &* w
                        // Output 0 is column 0; 2i (i >= 1) is 64 col[i - 1] + 192 col[i];
                        // 2i + 1 is 192 col[i] + 64 col[min(i + 1, last)].
                        d[0] = UInt8(truncatingIfNeeded: (col[0] &* 256 &+ 32768) >> 16)
                        for i in 0..<sw {
                            let c = col[i]
                            let next = col[Swift.min(i &+ 1, sw &- 1)]
                            d[2 &* i &+ 1] = UInt8(truncatingIfNeeded: (c &* 192 &+ next &* 64 &+ 32768) >> 16)
                            if i &+ 1 < sw {
                                d[2 &* i &+ 2] = UInt8(truncatingIfNeeded: (c &* 64 &+ next &* 192 &+ 32768) >> 16)
                            }
                        }
                    }
                }
            }
        }
        return QRLuminance(width: w, height: h, pixels: out)
    }

    /// The two source positions and the second one's weight (of 256) of output position `i`
    /// of a doubled axis of `count` source pixels: centre i + 1/2 sits at source i / 2 - 1/4.
    @inline(__always)
    static func _doubledTap(_ i: Int, count: Int) -> (Int, Int, Int) {
        if i == 0 { return (0, 0, 0) }
        let half = i >> 1
        if i & 1 == 0 {
            // Source half - 1/4: a quarter of half - 1, three quarters of half.
            return (half - 1, half, 192)
        }
        // Source half + 1/4.
        return (half, Swift.min(half + 1, count - 1), 64)
    }
}
