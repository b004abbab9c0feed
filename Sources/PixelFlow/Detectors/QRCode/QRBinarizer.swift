import CSIMD

/// A thresholded image: 1 for dark, 0 for light, one byte per pixel.
struct QRBinaryImage: Sendable {
    let width: Int
    let height: Int
    /// Row-major, `width` bytes a row, each 0 or 1.
    var bits: [UInt8]
    /// The luminance the bits were thresholded from and the threshold of each 8 x 8 block
    /// (`QRBinarizer.blockSize`), for `isDarkAveraged`; empty for images made from bits only.
    var luminance: [UInt8] = []
    var thresholds: [UInt8] = []
    /// Whether dark and light are swapped relative to the luminance.
    var isInverted = false

    /// Whether pixel (x, y) is dark; pixels outside the image are light.
    @inline(__always)
    func isDark(_ x: Int, _ y: Int) -> Bool {
        x >= 0 && y >= 0 && x < width && y < height && bits[y &* width &+ x] != 0
    }

    /// Whether the pixel holding the continuous point (x, y) is dark (pixel (i, j) covers
    /// [i, i + 1) x [j, j + 1)); light outside the image and for non-finite points.
    @inline(__always)
    func isDark(at x: Double, _ y: Double) -> Bool {
        guard x >= 0, y >= 0, x < Double(width), y < Double(height) else { return false }
        return bits[Int(y) &* width &+ Int(x)] != 0
    }

    /// Whether the neighbourhood of the continuous point (x, y) is dark: the mean luminance
    /// of the (2 radius + 1)^2 pixels around it (bilinear at radius 0) against the threshold of
    /// its block. Averaging reads blurred, noisy and JPEG-damaged modules better than one
    /// thresholded pixel. Falls back to `isDark(at:)` without luminance.
    @inline(__always)
    func isDarkAveraged(at x: Double, _ y: Double, radius: Int) -> Bool {
        guard !luminance.isEmpty else { return isDark(at: x, y) }
        guard x >= 0, y >= 0, x < Double(width), y < Double(height) else { return false }
        let bs = QRBinarizer.blockSize
        let bw = (width + bs - 1) / bs
        let threshold = Double(thresholds[(Int(y) / bs) * bw + Int(x) / bs])
        let mean: Double
        if radius <= 0 {
            let fx = Swift.max(x - 0.5, 0), fy = Swift.max(y - 0.5, 0)
            let x0 = Swift.min(Int(fx), width - 1), y0 = Swift.min(Int(fy), height - 1)
            let x1 = Swift.min(x0 + 1, width - 1), y1 = Swift.min(y0 + 1, height - 1)
            let ax = fx - Double(x0), ay = fy - Double(y0)
            let top = Double(luminance[y0 * width + x0]) * (1 - ax) + Double(luminance[y0 * width + x1]) * ax
            let bottom = Double(luminance[y1 * width + x0]) * (1 - ax) + Double(luminance[y1 * width + x1]) * ax
            mean = top * (1 - ay) + bottom * ay
        } else {
            let cx = Int(x), cy = Int(y)
            var sum = 0, n = 0
            for yy in Swift.max(cy - radius, 0)...Swift.min(cy + radius, height - 1) {
                for xx in Swift.max(cx - radius, 0)...Swift.min(cx + radius, width - 1) {
                    sum += Int(luminance[yy * width + xx])
                    n += 1
                }
            }
            mean = Double(sum) / Double(n)
        }
        return isInverted ? mean > threshold : mean <= threshold
    }

    /// The same image with dark and light swapped: how light-on-dark codes are read.
    func inverted() -> QRBinaryImage {
        var flipped = bits
        flipped.withUnsafeMutableBytes { raw in
            let count = raw.count
            var i = 0
            // Eight pixels at a time (each byte is 0 or 1).
            while i &+ 8 <= count {
                let word = raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)
                raw.storeBytes(of: word ^ 0x0101_0101_0101_0101, toByteOffset: i, as: UInt64.self)
                i &+= 8
            }
            while i < count {
                raw[i] ^= 1
                i &+= 1
            }
        }
        return QRBinaryImage(
            width: width, height: height, bits: flipped, luminance: luminance,
            thresholds: thresholds, isInverted: !isInverted)
    }
}

/// Local-mean thresholding for QR codes, after ZXing's `HybridBinarizer` (block statistics,
/// threshold from a 5 x 5 neighbourhood of blocks).
///
/// The image is cut into 8 x 8 blocks. A block with enough contrast (max - min > 24) takes
/// its mean as its black point; a flat block is assumed light (min / 2) unless its
/// neighbours' black points say it sits in a dark area. Each pixel is dark when it is at
/// most the mean black point of the 5 x 5 blocks around its block. That follows uneven
/// lighting at the scale of a few modules while keeping flat areas clean.
///
/// - Complexity: two passes over the pixels plus O(blocks); `width * height` bytes out.
enum QRBinarizer {
    static let blockSize = 8
    static let minimumDynamicRange = 24
    /// The flat-block limit of the low-contrast retry: blocks spanning more than 2 gray levels
    /// are thresholded at their own mean, so modules 15-40 levels apart still separate (flat
    /// areas then binarize as noise, which the finder and format checks reject).
    static let lowContrastRange = 2
    /// The threshold neighbourhood of the low-contrast retry: 3 x 3 blocks (24 pixels) instead
    /// of 5 x 5. A faint code's threshold must come from the code itself; the wider window
    /// reached into a backdrop as dark as the code's dark modules (19 of 28 low-contrast codes
    /// of the hard set read with 3 x 3, 10 with 5 x 5).
    static let lowContrastNeighbourhood = 1

    /// The thresholded image of `lum`; blocks whose max - min is at most `minimumRange` count
    /// as flat, and each block's threshold is the mean black point of the (2r + 1)^2 blocks
    /// around it (`neighbourhood` r).
    static func binarize(
        _ lum: QRLuminance, minimumRange: Int = minimumDynamicRange,
        neighbourhood r: Int = 2
    ) -> QRBinaryImage {
        let w = lum.width, h = lum.height
        var bits = [UInt8](repeating: 0, count: w * h)
        guard w > 0, h > 0 else { return QRBinaryImage(width: w, height: h, bits: bits) }
        let bs = blockSize
        let bw = (w + bs - 1) / bs, bh = (h + bs - 1) / bs
        var blackPoints = [Int](repeating: 0, count: bw * bh)
        var thresholds = [UInt8](repeating: 0, count: bw * bh)
        lum.pixels.withUnsafeBufferPointer { px in
            blackPoints.withUnsafeMutableBufferPointer { bp in
                for by in 0..<bh {
                    let y0 = by * bs, y1 = Swift.min(y0 + bs, h)
                    for bx in 0..<bw {
                        let x0 = bx * bs, x1 = Swift.min(x0 + bs, w)
                        var sum = 0, lo = 255, hi = 0
                        if x1 - x0 == 8 {
                            // Eight pixels a row as one vector (CSIMD: Swift's generic
                            // SIMD8<UInt8> widening and reductions lower to scalar code).
                            var vsum: UInt32 = 0
                            var vlo: UInt8 = 0, vhi: UInt8 = 0
                            pf_block8_stats(px.baseAddress! + y0 * w + x0, w, Int32(y1 - y0), &vsum, &vlo, &vhi)
                            sum = Int(vsum)
                            lo = Int(vlo)
                            hi = Int(vhi)
                        } else {
                            for y in y0..<y1 {
                                let row = px.baseAddress! + y * w
                                for x in x0..<x1 {
                                    let v = Int(row[x])
                                    sum &+= v
                                    if v < lo { lo = v }
                                    if v > hi { hi = v }
                                }
                            }
                        }
                        let count = (y1 - y0) * (x1 - x0)
                        var average: Int
                        if hi - lo > minimumRange {
                            average = sum / count
                        } else {
                            average = lo / 2
                            if by > 0 && bx > 0 {
                                let neighbours =
                                    (bp[(by - 1) * bw + bx] + 2 * bp[by * bw + bx - 1] + bp[(by - 1) * bw + bx - 1]) / 4
                                if lo < neighbours { average = neighbours }
                            }
                        }
                        bp[by * bw + bx] = average
                    }
                }
            }
            // Each block's threshold: the mean black point of the 5 x 5 blocks around it
            // (shifted inwards at the borders).
            blackPoints.withUnsafeBufferPointer { bp in
                thresholds.withUnsafeMutableBufferPointer { tp in
                    for by in 0..<bh {
                        let cy = Swift.min(Swift.max(by, r), Swift.max(bh - 1 - r, r))
                        let ylo = Swift.max(cy - r, 0), yhi = Swift.min(cy + r, bh - 1)
                        for bx in 0..<bw {
                            let cx = Swift.min(Swift.max(bx, r), Swift.max(bw - 1 - r, r))
                            let xlo = Swift.max(cx - r, 0), xhi = Swift.min(cx + r, bw - 1)
                            var sum = 0
                            for yy in ylo...yhi {
                                let r = bp.baseAddress! + yy &* bw
                                for xx in xlo...xhi { sum &+= r[xx] }
                            }
                            let n = (yhi - ylo + 1) * (xhi - xlo + 1)
                            tp[by * bw + bx] = UInt8(clamping: sum / n)
                        }
                    }
                }
            }
            // Each block row's thresholds spread to one byte per column, then every row of the
            // block row compared with them in one loop (which the compiler vectorizes).
            var spread = [UInt8](repeating: 0, count: w)
            bits.withUnsafeMutableBufferPointer { out in
                spread.withUnsafeMutableBufferPointer { t in
                    for by in 0..<bh {
                        for bx in 0..<bw {
                            let threshold = thresholds[by * bw + bx]
                            for x in (bx * bs)..<Swift.min(bx * bs + bs, w) { t[x] = threshold }
                        }
                        for y in (by * bs)..<Swift.min(by * bs + bs, h) {
                            let row = px.baseAddress! + y &* w
                            let o = out.baseAddress! + y &* w
                            for x in 0..<w { o[x] = row[x] <= t[x] ? 1 : 0 }
                        }
                    }
                }
            }
        }
        return QRBinaryImage(width: w, height: h, bits: bits, luminance: lum.pixels, thresholds: thresholds)
    }
}
