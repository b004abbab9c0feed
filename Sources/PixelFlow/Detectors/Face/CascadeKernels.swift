import Dispatch
import Synchronization

/// The pixel kernels the cascade detector runs before evaluating windows: OpenCV-compatible
/// grayscale conversion, bit-exact bilinear downscaling, and integral images (sum, squared sum,
/// tilted sum). Each matches the OpenCV function named in its comment bit for bit, which is
/// what makes detections match `CascadeClassifier::detectMultiScale`.

/// An 8-bit grayscale image, rows packed (stride == width).
struct _Gray8: Sendable {
    var width: Int
    var height: Int
    var pixels: [UInt8]

    init(width: Int, height: Int, pixels: [UInt8]) {
        precondition(pixels.count == width * height)
        self.width = width; self.height = height; self.pixels = pixels
    }
}

enum _CascadeKernels {
    // MARK: Grayscale

    /// OpenCV's `cvtColor(BGR2GRAY)` on 8-bit values: `(1868 B + 9617 G + 4899 R + 8192) >> 14`
    /// (the weights 0.114, 0.587, 0.299 in 14-bit fixed point).
    @inline(__always)
    static func grayFromRGB(_ r: UInt8, _ g: UInt8, _ b: UInt8) -> UInt8 {
        UInt8(truncatingIfNeeded: (Int32(b) &* 1868 &+ Int32(g) &* 9617 &+ Int32(r) &* 4899 &+ 8192) >> 14)
    }

    /// A float channel value (0...1) as the 8-bit value an image file would hold: clamped,
    /// NaN as 0, rounded to nearest.
    @inline(__always)
    static func byteFromUnit(_ v: Float) -> UInt8 {
        guard v > 0 else { return 0 }  // also NaN
        guard v < 1 else { return 255 }
        return UInt8(v * 255 + 0.5)
    }

    /// The grayscale image OpenCV's detector would see for `buffer` (as loaded by `imread`):
    /// gray8 as is; rgba8 through `grayFromRGB` (alpha ignored, as `imread` drops it); rgba16
    /// through its high bytes; float formats clamped to 0...1 and scaled to 0...255 (NaN as 0).
    static func gray(from buffer: PixelBuffer) -> _Gray8 {
        let w = buffer.width, h = buffer.height
        var out = [UInt8](repeating: 0, count: w * h)
        out.withUnsafeMutableBufferPointer { dst in
            buffer.withUnsafeRows { y, row in
                let d = dst.baseAddress! + y * w
                switch buffer.format {
                case .gray8:
                    d.update(from: row.assumingMemoryBound(to: UInt8.self), count: w)
                case .rgba8:
                    let s = row.assumingMemoryBound(to: UInt8.self)
                    for x in 0..<w { d[x] = grayFromRGB(s[4 * x], s[4 * x + 1], s[4 * x + 2]) }
                case .bgra8, .argb8:
                    let s = row.assumingMemoryBound(to: UInt32.self), layout = buffer.format.packedLayout!
                    for x in 0..<w {
                        let p = UInt32(littleEndian: s[x])
                        d[x] = grayFromRGB(layout.red(p), layout.green(p), layout.blue(p))
                    }
                case .rgba16:
                    let s = row.assumingMemoryBound(to: UInt16.self)
                    for x in 0..<w {
                        d[x] = grayFromRGB(UInt8(s[4 * x] >> 8), UInt8(s[4 * x + 1] >> 8), UInt8(s[4 * x + 2] >> 8))
                    }
                case .rgbaF32:
                    let s = row.assumingMemoryBound(to: Float.self)
                    for x in 0..<w {
                        d[x] = grayFromRGB(byteFromUnit(s[4 * x]), byteFromUnit(s[4 * x + 1]), byteFromUnit(s[4 * x + 2]))
                    }
                case .grayF32:
                    let s = row.assumingMemoryBound(to: Float.self)
                    for x in 0..<w { d[x] = byteFromUnit(s[x]) }
                }
            }
        }
        return _Gray8(width: w, height: h, pixels: out)
    }

    // MARK: Resize

    /// Source index and 8-bit fixed-point weights (summing to 256) per destination column or
    /// row, as OpenCV's bit-exact linear interpolation (`INTER_LINEAR_EXACT`) computes them:
    /// the source position `(d + 0.5) * scale - 0.5` with `scale = 1 / (dst / src)` in double,
    /// the fraction rounded half-to-even to 1/256; positions left of the first sample or right
    /// of the last one take that sample alone.
    static func linearExactTaps(source: Int, destination: Int) -> (index: [Int32], weight: [UInt16]) {
        var index = [Int32](repeating: 0, count: destination)
        var weight = [UInt16](repeating: 256, count: destination)
        let scale = 1.0 / (Double(destination) / Double(source))
        for d in 0..<destination {
            let f = scale * (Double(d) + 0.5) - 0.5
            let i = f.rounded(.down)
            if i >= 0 && source > 1 {
                if i < Double(source - 1) {
                    let c1 = ((f - i) * 256).rounded(.toNearestOrEven)
                    index[d] = Int32(i)
                    weight[d] = UInt16(256 - c1)
                } else {
                    index[d] = Int32(source - 1)
                    weight[d] = 256
                }
            } else {
                index[d] = 0
                weight[d] = 256
            }
        }
        return (index, weight)
    }

    /// Bilinear resize of an 8-bit plane, bit-identical to OpenCV's
    /// `resize(src, dst, size, 0, 0, INTER_LINEAR_EXACT)`: horizontal taps in 8-bit fixed point,
    /// vertical taps in 8-bit fixed point, `(sum + 2^15) >> 16`.
    ///
    /// - Complexity: O(destination pixels), one row of UInt16 scratch per source row used.
    static func resizeLinearExact(
        _ src: UnsafePointer<UInt8>, width sw: Int, height sh: Int,
        into dst: UnsafeMutablePointer<UInt8>, width dw: Int, height dh: Int, threads: Int = 1
    ) {
        if sw == dw && sh == dh {
            dst.update(from: src, count: sw * sh)
            return
        }
        let x = linearExactTaps(source: sw, destination: dw)
        let y = linearExactTaps(source: sh, destination: dh)
        let bands = threads > 1 && dh >= 64 ? min(dh / 16, threads * 4) : 1
        let shared = _SharedGray(source: src, destination: dst)
        _parallelFor(bands, threads: threads) { band in
            let r0 = band * dh / bands, r1 = (band + 1) * dh / bands
            resizeLinearExactRows(
                shared.source, width: sw, height: sh, into: shared.destination, width: dw,
                rows: r0..<r1, x: x, y: y)
        }
    }

    /// Destination rows `rows` of `resizeLinearExact`, with the taps precomputed.
    static func resizeLinearExactRows(
        _ src: UnsafePointer<UInt8>, width sw: Int, height sh: Int,
        into dst: UnsafeMutablePointer<UInt8>, width dw: Int, rows: Range<Int>,
        x: (index: [Int32], weight: [UInt16]), y: (index: [Int32], weight: [UInt16])
    ) {
        let (xi, xw) = x
        let (yi, yw) = y
        // Horizontal pass results for two source rows, cached by row index.
        var rowA = [UInt32](repeating: 0, count: dw), rowB = [UInt32](repeating: 0, count: dw)
        var rowAIndex = -1, rowBIndex = -1
        xi.withUnsafeBufferPointer { xi in
            xw.withUnsafeBufferPointer { xw in
                func horizontal(_ sy: Int, _ out: UnsafeMutablePointer<UInt32>) {
                    let s = src + sy * sw
                    for d in 0..<dw {
                        let i = Int(xi[d]), w0 = UInt32(xw[d])
                        let i1 = i + 1 < sw ? i + 1 : i
                        out[d] = w0 &* UInt32(s[i]) &+ (256 &- w0) &* UInt32(s[i1])
                    }
                }
                for dy in rows {
                    let sy = Int(yi[dy])
                    let sy1 = sy + 1 < sh ? sy + 1 : sy
                    // Reuse cached rows (consecutive destination rows share source rows).
                    if rowAIndex != sy {
                        if rowBIndex == sy {
                            swap(&rowA, &rowB); swap(&rowAIndex, &rowBIndex)
                        } else {
                            rowA.withUnsafeMutableBufferPointer { horizontal(sy, $0.baseAddress!) }
                            rowAIndex = sy
                        }
                    }
                    if rowBIndex != sy1 {
                        rowB.withUnsafeMutableBufferPointer { horizontal(sy1, $0.baseAddress!) }
                        rowBIndex = sy1
                    }
                    let w0 = UInt32(yw[dy]), w1 = 256 &- w0
                    let d = dst + dy * dw
                    rowA.withUnsafeBufferPointer { a in
                        rowB.withUnsafeBufferPointer { b in
                            for x in 0..<dw {
                                d[x] = UInt8(truncatingIfNeeded: (w0 &* a[x] &+ w1 &* b[x] &+ 32768) >> 16)
                            }
                        }
                    }
                }
            }
        }
    }

    // MARK: Integral images

    /// Integral image and squared integral image of an 8-bit plane, as OpenCV's
    /// `integral(src, sum, sqsum, CV_32S, CV_32S)`: `(width + 1) x (height + 1)` entries with
    /// row 0 and column 0 zero, `sum[y][x]` = sum of `src` over `[0, x) x [0, y)`. Squares are
    /// accumulated modulo 2^32 (stored as Int32 bit patterns), as OpenCV's 32-bit squared sums
    /// are; differences over a window are exact while the window's true sum of squares is
    /// below 2^32 (any window up to 66 000 pixels).
    ///
    /// Each row is a scalar prefix sum followed by a vector (SIMD8<Int32>) addition of the row
    /// above; `integralScalar` is the plain reference the tests compare it with (tolerance 0).
    ///
    /// - Complexity: O(pixels), no scratch.
    static func integral(
        _ src: UnsafePointer<UInt8>, width w: Int, height h: Int,
        sum: UnsafeMutablePointer<Int32>, squares: UnsafeMutablePointer<Int32>?, stride: Int
    ) {
        sum.update(repeating: 0, count: w + 1)
        squares?.update(repeating: 0, count: w + 1)
        for y in 0..<h {
            let s = src + y * w
            let above = sum + y * stride, row = sum + (y + 1) * stride
            row[0] = 0
            var acc: Int32 = 0
            for x in 0..<w {
                acc &+= Int32(s[x])
                row[x + 1] = acc
            }
            addRow(row + 1, above + 1, count: w)
            if let squares {
                let qa = squares + y * stride, qr = squares + (y + 1) * stride
                qr[0] = 0
                var q: UInt32 = 0
                for x in 0..<w {
                    let v = UInt32(s[x])
                    q &+= v &* v
                    qr[x + 1] = Int32(bitPattern: q)
                }
                addRow(qr + 1, qa + 1, count: w)
            }
        }
    }

    /// `integral`, on several threads: each row's prefix sums in parallel over bands of rows,
    /// then the running sums down the columns in parallel over blocks of columns (SIMD8 adds).
    /// Integer arithmetic, so the result is identical to `integral` (tests compare them).
    static func integralParallel(
        _ src: UnsafePointer<UInt8>, width w: Int, height h: Int,
        sum: UnsafeMutablePointer<Int32>, squares: UnsafeMutablePointer<Int32>?, stride: Int,
        threads: Int
    ) {
        guard threads > 1, h >= 64, w >= 64 else {
            integral(src, width: w, height: h, sum: sum, squares: squares, stride: stride)
            return
        }
        sum.update(repeating: 0, count: w + 1)
        squares?.update(repeating: 0, count: w + 1)
        let shared = _SharedIntegral(source: src, sum: sum, squares: squares)
        let bands = min(h / 8, threads * 4)
        _parallelFor(bands, threads: threads) { band in
            let y0 = band * h / bands, y1 = (band + 1) * h / bands
            for y in y0..<y1 {
                let s = shared.source + y * w
                let row = shared.sum + (y + 1) * stride
                row[0] = 0
                var acc: Int32 = 0
                for x in 0..<w { acc &+= Int32(s[x]); row[x + 1] = acc }
                if let sq = shared.squares {
                    let qr = sq + (y + 1) * stride
                    qr[0] = 0
                    var q: UInt32 = 0
                    for x in 0..<w { let v = UInt32(s[x]); q &+= v &* v; qr[x + 1] = Int32(bitPattern: q) }
                }
            }
        }
        let block = 256
        let blocks = (w + block - 1) / block
        _parallelFor(blocks * (squares == nil ? 1 : 2), threads: threads) { job in
            let plane = job < blocks ? shared.sum : shared.squares!
            let x0 = 1 + (job % blocks) * block, n = min(block, w + 1 - x0)
            for y in 1..<h {
                addRow(plane + (y + 1) * stride + x0, plane + y * stride + x0, count: n)
            }
        }
    }

    /// `row[i] &+= above[i]` for `count` entries, eight at a time.
    @inline(__always)
    static func addRow(_ row: UnsafeMutablePointer<Int32>, _ above: UnsafePointer<Int32>, count: Int) {
        var x = 0
        let r = UnsafeMutableRawPointer(row), a = UnsafeRawPointer(above)
        while x + 8 <= count {
            let v =
                r.loadUnaligned(fromByteOffset: 4 * x, as: SIMD8<Int32>.self)
                &+ a.loadUnaligned(fromByteOffset: 4 * x, as: SIMD8<Int32>.self)
            r.storeBytes(of: v, toByteOffset: 4 * x, as: SIMD8<Int32>.self)
            x += 8
        }
        while x < count { row[x] &+= above[x]; x += 1 }
    }

    /// The plain definition of `integral`, one pixel at a time: the scalar reference.
    static func integralScalar(_ src: [UInt8], width w: Int, height h: Int) -> (sum: [Int32], squares: [Int32]) {
        var sum = [Int32](repeating: 0, count: (w + 1) * (h + 1))
        var sq = [UInt32](repeating: 0, count: (w + 1) * (h + 1))
        for y in 0..<h {
            for x in 0..<w {
                let v = src[y * w + x]
                let i = (y + 1) * (w + 1) + (x + 1)
                sum[i] = Int32(v) &+ sum[i - 1] &+ sum[i - (w + 1)] &- sum[i - (w + 1) - 1]
                sq[i] = UInt32(v) &* UInt32(v) &+ sq[i - 1] &+ sq[i - (w + 1)] &- sq[i - (w + 1) - 1]
            }
        }
        return (sum, sq.map { Int32(bitPattern: $0) })
    }

    /// The tilted (45°) integral image of OpenCV's `integral(src, sum, sqsum, tilted)`:
    /// `tilted[Y][X]` = sum of `src(x, y)` over `y < Y`, `|x - X + 1| <= Y - 1 - y`, the
    /// triangle with its apex at pixel `(X - 1, Y - 1)` opening upwards.
    ///
    /// Computed as the difference of two diagonal running sums of row prefix sums `P_y`:
    /// `A(X, Y) = A(X + 1, Y - 1) + P_{Y-1}(X)` (with `A(X, Y)` the full sum of rows `< Y` for
    /// `X >= width`) and `B(X, Y) = B(X - 1, Y - 1) + P_{Y-1}(X - 1)` (`B(0, Y) = 0`), so that
    /// `tilted = A - B` (exact in wrapping Int32 arithmetic).
    ///
    /// - Complexity: O(pixels); three rows of scratch.
    static func tiltedIntegral(
        _ src: UnsafePointer<UInt8>, width w: Int, height h: Int,
        tilted: UnsafeMutablePointer<Int32>, stride: Int
    ) {
        tilted.update(repeating: 0, count: w + 1)
        var prefix = [Int32](repeating: 0, count: w + 1)
        var a = [Int32](repeating: 0, count: w + 2), aNext = a
        var b = [Int32](repeating: 0, count: w + 1), bNext = b
        var total: Int32 = 0  // sum of rows < Y
        for y in 1...max(h, 1) where h > 0 {
            let s = src + (y - 1) * w
            var acc: Int32 = 0
            prefix[0] = 0
            for x in 0..<w { acc &+= Int32(s[x]); prefix[x + 1] = acc }
            let newTotal = total &+ acc
            // A(X, y) for X in 0...w, with A(w + 1, y - 1) = total (full rows).
            a[w + 1] = total
            for x in 0...w { aNext[x] = a[x + 1] &+ prefix[x] }
            aNext[w + 1] = newTotal
            bNext[0] = 0
            if w >= 1 { for x in 1...w { bNext[x] = b[x - 1] &+ prefix[x - 1] } }
            let t = tilted + y * stride
            for x in 0...w { t[x] = aNext[x] &- bNext[x] }
            swap(&a, &aNext); swap(&b, &bNext)
            total = newTotal
        }
    }

    /// The tilted integral from its definition, one pixel at a time: the scalar reference.
    static func tiltedIntegralReference(_ src: [UInt8], width w: Int, height h: Int) -> [Int32] {
        var out = [Int32](repeating: 0, count: (w + 1) * (h + 1))
        for Y in 0...h {
            for X in 0...w {
                var s: Int32 = 0
                for y in 0..<Y {
                    for x in 0..<w where abs(x - X + 1) <= Y - 1 - y { s &+= Int32(src[y * w + x]) }
                }
                out[Y * (w + 1) + X] = s
            }
        }
        return out
    }
}

/// Runs `body(0..<count)` on up to `threads` workers (`DispatchQueue.concurrentPerform`), items
/// taken in increasing order from a shared counter; inline when one thread or one item.
func _parallelFor(_ count: Int, threads: Int, _ body: @Sendable (Int) -> Void) {
    guard count > 0 else { return }
    let workers = min(threads, count)
    if workers <= 1 {
        for i in 0..<count { body(i) }
        return
    }
    let next = Atomic<Int>(0)
    DispatchQueue.concurrentPerform(iterations: workers) { _ in
        while true {
            let i = next.wrappingAdd(1, ordering: .relaxed).oldValue
            if i >= count { break }
            body(i)
        }
    }
}

/// Source and destination planes of a banded resize.
///
/// `@unchecked Sendable`: raw pointers; invariant: every band writes only its own destination
/// rows and reads the source, which nobody writes during the call; both outlive it.
struct _SharedGray: @unchecked Sendable {
    let source: UnsafePointer<UInt8>
    let destination: UnsafeMutablePointer<UInt8>
}

/// The planes of a parallel integral.
///
/// `@unchecked Sendable`: raw pointers; invariant: in the first phase each band writes only its
/// own rows, in the second each job only its own columns of one plane; the memory outlives the
/// call.
struct _SharedIntegral: @unchecked Sendable {
    let source: UnsafePointer<UInt8>
    let sum: UnsafeMutablePointer<Int32>
    let squares: UnsafeMutablePointer<Int32>?
}
