// The edge stage of the rectangle detector: a downscaled luma copy, binomial smoothing,
// Sobel gradients, non-maximum suppression and hysteresis (Canny, "A Computational Approach
// to Edge Detection", IEEE PAMI 1986), with thresholds relative to the image's noise level.
//
// Every pass but the hysteresis runs on bands of rows in parallel; a band writes only its own
// rows (and its own histogram), and the histograms are summed in band order, so the edge map
// is the same whatever the thread count.

/// A single-channel float image, row-major, no padding.
struct _GrayImage: Sendable {
    var width: Int
    var height: Int
    var pixels: [Float]

    init(width: Int, height: Int, pixels: [Float]? = nil) {
        self.width = width; self.height = height
        self.pixels = pixels ?? [Float](repeating: 0, count: width * height)
    }
}

/// Gradients and the edge map of the working image.
struct _EdgeMap: Sendable {
    var width: Int, height: Int
    /// Sobel derivatives of the smoothed luma, scaled by 1/8 (luma units per pixel).
    var gx: [Float], gy: [Float], magnitude: [Float]
    /// 2 for edge pixels kept by hysteresis, 0 elsewhere.
    var edges: [UInt8]
    var edgeCount: Int
    /// `rowEdgePrefix[y * (width + 1) + x]`: the number of edge pixels in row `y` left of `x`,
    /// so that counting the edge pixels of a row span costs one subtraction.
    var rowEdgePrefix: [Int32]
    /// The hysteresis thresholds used (gradient magnitude, luma units per pixel).
    var low: Float, high: Float
}

/// A mutable plane shared by the workers of one banded pass.
///
/// `@unchecked Sendable` because it carries a raw pointer into an array the caller keeps alive
/// (and does not otherwise touch) for the whole `Scheduler.run` call. Invariant: the work item
/// for a band writes only that band's rows, or that band's own slot, so no two workers write
/// the same element and no worker reads what another writes in the same pass.
struct _SharedPlane<Element>: @unchecked Sendable {
    let base: UnsafeMutablePointer<Element>
}

/// A read-only plane shared by the workers of one banded pass (`@unchecked Sendable` for the
/// same reason as `_SharedPlane`; nobody writes it during the pass).
struct _SharedReadPlane<Element>: @unchecked Sendable {
    let base: UnsafePointer<Element>
}

extension RectangleDetector {
    /// Rows per work item of the banded passes (a fixed number, so the bands, and with them
    /// the per-band histograms, do not depend on the thread count).
    static let _bandRows = 16

    /// Runs `body` on the bands of `rows` rows (`_bandRows` each, the last one shorter) on up
    /// to `threads` workers; `body` gets the band's rows and index.
    static func _forEachBand(rows: Int, threads: Int, _ body: @Sendable (_ rows: Range<Int>, _ band: Int) -> Void) {
        let bands = (rows + _bandRows - 1) / _bandRows
        Scheduler.run(count: bands, threads: threads) { band, _ in
            body((band * _bandRows)..<Swift.min(rows, band * _bandRows + _bandRows), band)
        }
    }

    /// The Rec. 709 luma of `buffer` box-averaged over `factor` x `factor` blocks (stored
    /// values, so sRGB-encoded for 8-bit images; the detector only needs contrast). Non-finite
    /// averages become 0, and finite ones are clamped to -16...16.
    ///
    /// - Complexity: one read of every input pixel; rows in parallel.
    static func _downscaledLuma(_ buffer: PixelBuffer, factor f: Int, threads: Int = 1) -> _GrayImage {
        let w = buffer.width / f, h = buffer.height / f
        var out = _GrayImage(width: w, height: h)
        let fmt = buffer.format, stride = buffer.bytesPerRow, srcWidth = buffer.width
        buffer.withUnsafeBytes { raw in
            let src = _SharedReadPlane(base: raw.baseAddress!.assumingMemoryBound(to: UInt8.self))
            out.pixels.withUnsafeMutableBufferPointer { dst in
                let d = _SharedPlane(base: dst.baseAddress!)
                _forEachBand(rows: h, threads: threads) { rows, _ in
                    if fmt == .rgba8 {
                        _downscaledLumaRGBA8Rows(src.base, stride: stride, factor: f, width: w, rows: rows, into: d.base)
                    } else {
                        _downscaledLumaGenericRows(
                            UnsafeRawPointer(src.base), format: fmt, stride: stride, srcWidth: srcWidth,
                            factor: f, width: w, rows: rows, into: d.base)
                    }
                }
            }
        }
        return out
    }

    /// `_downscaledLuma` for rows `rows` of an rgba8 buffer: integer weights 54, 183, 19 (/256)
    /// summed over each block in 32 bits (exact), then scaled once.
    static func _downscaledLumaRGBA8Rows(
        _ base: UnsafePointer<UInt8>, stride: Int, factor f: Int, width w: Int,
        rows: Range<Int>, into dst: UnsafeMutablePointer<Float>
    ) {
        let acc = UnsafeMutablePointer<UInt32>.allocate(capacity: w)
        defer { acc.deallocate() }
        let scale = 1 / (Float(f * f) * 256 * 255)
        if f > 1 && f <= 257 {
            // The f rows' bytes summed first, 16 at a time (f x 255 fits 16 bits), then each
            // block's channels and the weights: the same integers as the loop below, in
            // fewer instructions.
            let n = w * f * 4, vectors = n / 16
            let sums = UnsafeMutableRawPointer.allocate(byteCount: 2 * n, alignment: 64)
            defer { sums.deallocate() }
            let s16 = sums.assumingMemoryBound(to: UInt16.self)
            for oy in rows {
                sums.initializeMemory(as: UInt8.self, repeating: 0, count: 2 * n)
                for sy in (oy * f)..<(oy * f + f) {
                    let p = UnsafeRawPointer(base + sy * stride)
                    for v in 0..<vectors {
                        let bytes = p.loadUnaligned(fromByteOffset: 16 &* v, as: SIMD16<UInt8>.self)
                        let old = sums.loadUnaligned(fromByteOffset: 32 &* v, as: SIMD16<UInt16>.self)
                        sums.storeBytes(
                            of: old &+ SIMD16<UInt16>(truncatingIfNeeded: bytes), toByteOffset: 32 &* v, as: SIMD16<UInt16>.self)
                    }
                    for i in (16 * vectors)..<n { s16[i] &+= UInt16(p.load(fromByteOffset: i, as: UInt8.self)) }
                }
                let o = dst + oy * w
                for ox in 0..<w {
                    var r: UInt32 = 0, g: UInt32 = 0, b: UInt32 = 0
                    var q = s16 + 4 &* f &* ox
                    for _ in 0..<f {
                        r &+= UInt32(q[0]); g &+= UInt32(q[1]); b &+= UInt32(q[2])
                        q += 4
                    }
                    o[ox] = Float(54 &* r &+ 183 &* g &+ 19 &* b) * scale
                }
            }
            return
        }
        for oy in rows {
            acc.update(repeating: 0, count: w)
            for sy in (oy * f)..<(oy * f + f) {
                let p = base + sy * stride
                if f == 1 {
                    for ox in 0..<w {
                        let q = p + 4 &* ox
                        acc[ox] = 54 &* UInt32(q[0]) &+ 183 &* UInt32(q[1]) &+ 19 &* UInt32(q[2])
                    }
                } else {
                    for ox in 0..<w {
                        var s: UInt32 = 0
                        var q = p + 4 &* f &* ox
                        for _ in 0..<f {
                            s &+= 54 &* UInt32(q[0]) &+ 183 &* UInt32(q[1]) &+ 19 &* UInt32(q[2])
                            q += 4
                        }
                        acc[ox] &+= s
                    }
                }
            }
            let o = dst + oy * w
            for ox in 0..<w { o[ox] = Float(acc[ox]) * scale }
        }
    }

    /// `_downscaledLuma` for rows `rows` of a buffer of any format (converted row by row).
    static func _downscaledLumaGenericRows(
        _ base: UnsafeRawPointer, format fmt: PixelFormat, stride: Int, srcWidth: Int,
        factor f: Int, width w: Int, rows: Range<Int>, into dst: UnsafeMutablePointer<Float>
    ) {
        let row = UnsafeMutablePointer<SIMD4<Float>>.allocate(capacity: srcWidth)
        defer { row.deallocate() }
        let acc = UnsafeMutablePointer<Float>.allocate(capacity: w)
        defer { acc.deallocate() }
        let scale = 1 / Float(f * f)
        for oy in rows {
            acc.update(repeating: 0, count: w)
            for sy in (oy * f)..<(oy * f + f) {
                loadRowRGBA(base + sy * stride, format: fmt, count: w * f, into: row, decodeSRGB: false)
                for ox in 0..<w {
                    var s: Float = 0
                    for k in 0..<f {
                        let v = row[ox * f + k]
                        s += 0.2126 * v.x + 0.7152 * v.y + 0.0722 * v.z
                    }
                    acc[ox] += s
                }
            }
            // Non-finite values become 0 and the rest is clamped to -16...16 (room for
            // extended-range values, none for overflow in the gradients).
            for ox in 0..<w {
                let v = acc[ox] * scale
                dst[oy * w + ox] = v.isFinite ? (v < -16 ? -16 : (v > 16 ? 16 : v)) : 0
            }
        }
    }

    /// Smooths with the 5-tap binomial kernel [1 4 6 4 1] / 16 (about a Gaussian of sigma 1)
    /// in both directions, repeating edge pixels.
    static func _smoothed(_ g: _GrayImage, threads: Int = 1) -> _GrayImage {
        let w = g.width, h = g.height
        var tmp = [Float](repeating: 0, count: w * h)
        var out = _GrayImage(width: w, height: h)
        g.pixels.withUnsafeBufferPointer { s in
            tmp.withUnsafeMutableBufferPointer { t in
                let src = _SharedReadPlane(base: s.baseAddress!), dst = _SharedPlane(base: t.baseAddress!)
                _forEachBand(rows: h, threads: threads) { rows, _ in
                    for y in rows {
                        let r = src.base + y * w, o = dst.base + y * w
                        if w < 5 {
                            for x in 0..<w {
                                let a = r[Swift.max(x - 2, 0)], b = r[Swift.max(x - 1, 0)], c = r[x]
                                let d = r[Swift.min(x + 1, w - 1)], e = r[Swift.min(x + 2, w - 1)]
                                o[x] = (a + e + 4 * (b + d) + 6 * c) * (1 / 16)
                            }
                            continue
                        }
                        // Borders with repeated pixels, then the interior without clamping.
                        o[0] = (r[0] + r[2] + 4 * (r[0] + r[1]) + 6 * r[0]) * (1 / 16)
                        o[1] = (r[0] + r[3] + 4 * (r[0] + r[2]) + 6 * r[1]) * (1 / 16)
                        o[w - 2] = (r[w - 4] + r[w - 1] + 4 * (r[w - 3] + r[w - 1]) + 6 * r[w - 2]) * (1 / 16)
                        o[w - 1] = (r[w - 3] + r[w - 1] + 4 * (r[w - 2] + r[w - 1]) + 6 * r[w - 1]) * (1 / 16)
                        for x in 2..<(w - 2) {
                            o[x] = (r[x - 2] + r[x + 2] + 4 * (r[x - 1] + r[x + 1]) + 6 * r[x]) * (1 / 16)
                        }
                    }
                }
            }
        }
        tmp.withUnsafeBufferPointer { t in
            out.pixels.withUnsafeMutableBufferPointer { o in
                let src = _SharedReadPlane(base: t.baseAddress!), dst = _SharedPlane(base: o.baseAddress!)
                _forEachBand(rows: h, threads: threads) { rows, _ in
                    for y in rows {
                        let ra = src.base + Swift.max(y - 2, 0) * w, rb = src.base + Swift.max(y - 1, 0) * w
                        let rc = src.base + y * w
                        let rd = src.base + Swift.min(y + 1, h - 1) * w, re = src.base + Swift.min(y + 2, h - 1) * w
                        let ro = dst.base + y * w
                        for x in 0..<w {
                            ro[x] = (ra[x] + re[x] + 4 * (rb[x] + rd[x]) + 6 * rc[x]) * (1 / 16)
                        }
                    }
                }
            }
        }
        return out
    }

    /// Bins of the gradient-magnitude histogram, over magnitudes 0..<1 (a unit step, smoothed,
    /// has a magnitude of about 0.31; larger values go to the last bin).
    static let _histogramBins = 1024

    /// Sobel gradients, non-maximum suppression along the gradient and hysteresis.
    ///
    /// The thresholds follow the image's noise level rather than its content: with `m` the
    /// median gradient magnitude over all pixels (most pixels of a photograph are not on an
    /// edge, so `m` measures noise and texture), the high threshold is `max(4 m, floor)` and
    /// the low one `max(0.4 high, 2 m, floor / 2)`. (A percentile of the edge pixels'
    /// magnitudes, as before, let one high-contrast pattern such as a QR code raise the
    /// thresholds above every other edge in the image, so a card beside it was never seen.)
    static func _edges(_ g: _GrayImage, floor: Float, threads: Int = 1) -> _EdgeMap {
        let w = g.width, h = g.height, n = w * h
        var gx = [Float](repeating: 0, count: n), gy = gx, mag = gx
        let bins = _histogramBins, bands = (h + _bandRows - 1) / _bandRows
        var hists = [Int32](repeating: 0, count: bins * Swift.max(bands, 1))
        g.pixels.withUnsafeBufferPointer { sp in
            gx.withUnsafeMutableBufferPointer { gxp in
                gy.withUnsafeMutableBufferPointer { gyp in
                    mag.withUnsafeMutableBufferPointer { mp in
                        hists.withUnsafeMutableBufferPointer { hp in
                            let s = _SharedReadPlane(base: sp.baseAddress!)
                            let ox = _SharedPlane(base: gxp.baseAddress!), oy = _SharedPlane(base: gyp.baseAddress!)
                            let om = _SharedPlane(base: mp.baseAddress!), oh = _SharedPlane(base: hp.baseAddress!)
                            _forEachBand(rows: h, threads: threads) { rows, band in
                                let hist = oh.base + band * bins
                                for y in rows {
                                    _sobelRow(
                                        s.base, width: w, height: h, y: y, gx: ox.base + y * w, gy: oy.base + y * w,
                                        magnitude: om.base + y * w)
                                    let m = om.base + y * w
                                    for x in 0..<w {
                                        hist[Int(Swift.min(m[x] * Float(bins), Float(bins - 1)))] &+= 1
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        // The median magnitude: the lower edge of the bin holding it.
        var cum = 0, median: Float = 0
        for k in 0..<bins {
            for band in 0..<bands { cum += Int(hists[band * bins + k]) }
            if 2 * cum >= n { median = Float(k) / Float(bins); break }
        }
        let high = Swift.max(4 * median, floor)
        let low = Swift.max(0.4 * high, 2 * median, 0.5 * floor)
        // Non-maximum suppression in four direction bins, classifying what survives: 2 strong
        // (>= high), 1 weak (>= low), 0 nothing. The image border is never an edge.
        var cls = [UInt8](repeating: 0, count: n)
        if w >= 3 && h >= 3 {
            mag.withUnsafeBufferPointer { mp in
                gx.withUnsafeBufferPointer { gxp in
                    gy.withUnsafeBufferPointer { gyp in
                        cls.withUnsafeMutableBufferPointer { cp in
                            let m = _SharedReadPlane(base: mp.baseAddress!), dx = _SharedReadPlane(base: gxp.baseAddress!)
                            let dy = _SharedReadPlane(base: gyp.baseAddress!), c = _SharedPlane(base: cp.baseAddress!)
                            _forEachBand(rows: h, threads: threads) { rows, _ in
                                for y in rows where y > 0 && y < h - 1 {
                                    _suppressRow(
                                        m.base, gx: dx.base, gy: dy.base, width: w, y: y, low: low, high: high,
                                        into: c.base + y * w)
                                }
                            }
                        }
                    }
                }
            }
        }
        // Hysteresis: grow from strong pixels through weak ones (8-connected); kept pixels become 3.
        var edgeCount = 0
        var stack: [Int] = []
        cls.withUnsafeMutableBufferPointer { cp in
            for i in 0..<n where cp[i] == 2 {
                cp[i] = 3; edgeCount += 1
                stack.append(i)
                while let j = stack.popLast() {
                    let y = j / w, x = j - y * w
                    for yy in Swift.max(y - 1, 0)...Swift.min(y + 1, h - 1) {
                        for xx in Swift.max(x - 1, 0)...Swift.min(x + 1, w - 1) {
                            let k = yy * w + xx
                            if cp[k] == 1 || cp[k] == 2 {
                                cp[k] = 3; edgeCount += 1
                                stack.append(k)
                            }
                        }
                    }
                }
            }
        }
        // The edge map and its row prefix counts.
        var edges = [UInt8](repeating: 0, count: n)
        var prefix = [Int32](repeating: 0, count: (w + 1) * h)
        cls.withUnsafeBufferPointer { cp in
            edges.withUnsafeMutableBufferPointer { ep in
                prefix.withUnsafeMutableBufferPointer { pp in
                    for y in 0..<h {
                        var run: Int32 = 0
                        let c = cp.baseAddress! + y * w, e = ep.baseAddress! + y * w, p = pp.baseAddress! + y * (w + 1)
                        for x in 0..<w {
                            p[x] = run
                            if c[x] == 3 { e[x] = 2; run &+= 1 }
                        }
                        p[w] = run
                    }
                }
            }
        }
        return _EdgeMap(
            width: w, height: h, gx: gx, gy: gy, magnitude: mag, edges: edges, edgeCount: edgeCount,
            rowEdgePrefix: prefix, low: low, high: high)
    }

    /// Sobel derivatives (scaled by 1/8) and their magnitude for row `y`, repeating edge pixels.
    @inline(__always)
    static func _sobelRow(
        _ s: UnsafePointer<Float>, width w: Int, height h: Int, y: Int, gx: UnsafeMutablePointer<Float>,
        gy: UnsafeMutablePointer<Float>, magnitude m: UnsafeMutablePointer<Float>
    ) {
        let r0 = s + Swift.max(y - 1, 0) * w, r1 = s + y * w, r2 = s + Swift.min(y + 1, h - 1) * w
        @inline(__always) func at(_ x: Int, _ xl: Int, _ xr: Int) {
            let dx = (r0[xr] - r0[xl]) + 2 * (r1[xr] - r1[xl]) + (r2[xr] - r2[xl])
            let dy = (r2[xl] - r0[xl]) + 2 * (r2[x] - r0[x]) + (r2[xr] - r0[xr])
            let a = dx * 0.125, b = dy * 0.125
            gx[x] = a; gy[x] = b
            m[x] = (a * a + b * b).squareRoot()
        }
        if w < 2 {
            for x in 0..<w { at(x, x, x) }
            return
        }
        at(0, 0, 1)
        for x in 1..<(w - 1) { at(x, x - 1, x + 1) }
        at(w - 1, w - 2, w - 1)
    }

    /// Non-maximum suppression of row `y` (1 <= y < height - 1): a pixel survives when its
    /// magnitude is a maximum across the edge (strictly above the neighbor before it, at least
    /// the one after it, so a symmetric ridge keeps exactly one pixel); survivors are classified
    /// 2 (>= high) or 1 (>= low).
    @inline(__always)
    static func _suppressRow(
        _ mp: UnsafePointer<Float>, gx: UnsafePointer<Float>, gy: UnsafePointer<Float>, width w: Int, y: Int,
        low: Float, high: Float, into c: UnsafeMutablePointer<UInt8>
    ) {
        for x in 1..<(w - 1) {
            let i = y * w + x
            let m = mp[i]
            if m < low { continue }
            let ax = Swift.abs(gx[i]), ay = Swift.abs(gy[i])
            let a: Float, b: Float
            if ay <= 0.4142 * ax {
                a = mp[i - 1]; b = mp[i + 1]
            } else if ax <= 0.4142 * ay {
                a = mp[i - w]; b = mp[i + w]
            } else if (gx[i] > 0) == (gy[i] > 0) {
                a = mp[i - w - 1]; b = mp[i + w + 1]
            } else {
                a = mp[i - w + 1]; b = mp[i + w - 1]
            }
            if m > a && m >= b { c[x] = m >= high ? 2 : 1 }
        }
    }
}
