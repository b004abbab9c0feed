// The edge stage of the rectangle detector: a downscaled luma copy, binomial smoothing,
// Sobel gradients, non-maximum suppression and hysteresis (Canny, "A Computational Approach
// to Edge Detection", IEEE PAMI 1986), with thresholds taken from the gradient histogram.

/// A single-channel float image, row-major, no padding.
struct _GrayImage {
    var width: Int
    var height: Int
    var pixels: [Float]

    init(width: Int, height: Int, pixels: [Float]? = nil) {
        self.width = width; self.height = height
        self.pixels = pixels ?? [Float](repeating: 0, count: width * height)
    }
}

/// Gradients and the edge map of the working image.
struct _EdgeMap {
    var width: Int, height: Int
    /// Sobel derivatives of the smoothed luma, scaled by 1/8 (luma units per pixel).
    var gx: [Float], gy: [Float], magnitude: [Float]
    /// 2 for edge pixels kept by hysteresis, 0 elsewhere.
    var edges: [UInt8]
    var edgeCount: Int
}

extension RectangleDetector {
    /// The Rec. 709 luma of `buffer` box-averaged over `factor` x `factor` blocks (stored
    /// values, so sRGB-encoded for 8-bit images; the detector only needs contrast).
    static func _downscaledLuma(_ buffer: PixelBuffer, factor f: Int) -> _GrayImage {
        let w = buffer.width / f, h = buffer.height / f
        var out = _GrayImage(width: w, height: h)
        let fmt = buffer.format, stride = buffer.bytesPerRow
        let row = UnsafeMutablePointer<SIMD4<Float>>.allocate(capacity: buffer.width)
        defer { row.deallocate() }
        let acc = UnsafeMutablePointer<Float>.allocate(capacity: w)
        defer { acc.deallocate() }
        let scale = 1 / Float(f * f)
        buffer.withUnsafeBytes { raw in
            let base = raw.baseAddress!
            out.pixels.withUnsafeMutableBufferPointer { dst in
                for oy in 0..<h {
                    acc.update(repeating: 0, count: w)
                    for sy in (oy * f)..<(oy * f + f) {
                        let src = base + sy * stride
                        if fmt == .rgba8 {
                            let p = src.assumingMemoryBound(to: UInt8.self)
                            for ox in 0..<w {
                                var s: UInt32 = 0
                                var q = p + ox * f * 4
                                for _ in 0..<f {
                                    s &+= 54 &* UInt32(q[0]) &+ 183 &* UInt32(q[1]) &+ 19 &* UInt32(q[2])
                                    q += 4
                                }
                                acc[ox] += Float(s) * (1 / (256 * 255))
                            }
                        } else {
                            loadRowRGBA(src, format: fmt, count: w * f, into: row, decodeSRGB: false)
                            for ox in 0..<w {
                                var s: Float = 0
                                for k in 0..<f {
                                    let v = row[ox * f + k]
                                    s += 0.2126 * v.x + 0.7152 * v.y + 0.0722 * v.z
                                }
                                acc[ox] += s
                            }
                        }
                    }
                    for ox in 0..<w {
                        let v = acc[ox] * scale
                        dst[oy * w + ox] = v.isFinite ? v : 0
                    }
                }
            }
        }
        return out
    }

    /// Smooths with the 5-tap binomial kernel [1 4 6 4 1] / 16 (about a Gaussian of sigma 1)
    /// in both directions, repeating edge pixels.
    static func _smoothed(_ g: _GrayImage) -> _GrayImage {
        let w = g.width, h = g.height
        var tmp = [Float](repeating: 0, count: w * h)
        var out = _GrayImage(width: w, height: h)
        g.pixels.withUnsafeBufferPointer { s in
            tmp.withUnsafeMutableBufferPointer { t in
                for y in 0..<h {
                    let r = s.baseAddress! + y * w, o = t.baseAddress! + y * w
                    for x in 0..<w {
                        let a = r[Swift.max(x - 2, 0)], b = r[Swift.max(x - 1, 0)], c = r[x]
                        let d = r[Swift.min(x + 1, w - 1)], e = r[Swift.min(x + 2, w - 1)]
                        o[x] = (a + e + 4 * (b + d) + 6 * c) * (1 / 16)
                    }
                }
            }
        }
        tmp.withUnsafeBufferPointer { t in
            out.pixels.withUnsafeMutableBufferPointer { o in
                for y in 0..<h {
                    let ra = t.baseAddress! + Swift.max(y - 2, 0) * w, rb = t.baseAddress! + Swift.max(y - 1, 0) * w
                    let rc = t.baseAddress! + y * w
                    let rd = t.baseAddress! + Swift.min(y + 1, h - 1) * w, re = t.baseAddress! + Swift.min(y + 2, h - 1) * w
                    let ro = o.baseAddress! + y * w
                    for x in 0..<w {
                        ro[x] = (ra[x] + re[x] + 4 * (rb[x] + rd[x]) + 6 * rc[x]) * (1 / 16)
                    }
                }
            }
        }
        return out
    }

    /// Sobel gradients, non-maximum suppression along the gradient and hysteresis. The high
    /// threshold is the 85th percentile of the suppressed magnitudes, at least `floor`; the
    /// low one is 0.4 times the high one.
    static func _edges(_ g: _GrayImage, floor: Float) -> _EdgeMap {
        let w = g.width, h = g.height, n = w * h
        var gx = [Float](repeating: 0, count: n), gy = gx, mag = gx
        var nms = gx
        var edges = [UInt8](repeating: 0, count: n)
        var edgeCount = 0
        g.pixels.withUnsafeBufferPointer { sp in
            let s = sp.baseAddress!
            gx.withUnsafeMutableBufferPointer { gxp in
                gy.withUnsafeMutableBufferPointer { gyp in
                    mag.withUnsafeMutableBufferPointer { mp in
                        for y in 0..<h {
                            let r0 = s + Swift.max(y - 1, 0) * w, r1 = s + y * w, r2 = s + Swift.min(y + 1, h - 1) * w
                            for x in 0..<w {
                                let xl = Swift.max(x - 1, 0), xr = Swift.min(x + 1, w - 1)
                                let dx = (r0[xr] - r0[xl]) + 2 * (r1[xr] - r1[xl]) + (r2[xr] - r2[xl])
                                let dy = (r2[xl] - r0[xl]) + 2 * (r2[x] - r0[x]) + (r2[xr] - r0[xr])
                                let i = y * w + x
                                gxp[i] = dx * 0.125; gyp[i] = dy * 0.125
                                mp[i] = (gxp[i] * gxp[i] + gyp[i] * gyp[i]).squareRoot()
                            }
                        }
                    }
                }
            }
        }
        // Non-maximum suppression in four direction bins; the image border is never an edge.
        var maxMag: Float = 0
        mag.withUnsafeBufferPointer { mp in
            gx.withUnsafeBufferPointer { gxp in
                gy.withUnsafeBufferPointer { gyp in
                    nms.withUnsafeMutableBufferPointer { np in
                        if h < 3 || w < 3 { return }
                        for y in 1..<(h - 1) {
                            for x in 1..<(w - 1) {
                                let i = y * w + x
                                let m = mp[i]
                                if m <= 0 { continue }
                                let ax = abs(gxp[i]), ay = abs(gyp[i])
                                let a: Float, b: Float
                                if ay <= 0.4142 * ax {
                                    a = mp[i - 1]; b = mp[i + 1]
                                } else if ax <= 0.4142 * ay {
                                    a = mp[i - w]; b = mp[i + w]
                                } else if (gxp[i] > 0) == (gyp[i] > 0) {
                                    a = mp[i - w - 1]; b = mp[i + w + 1]
                                } else {
                                    a = mp[i - w + 1]; b = mp[i + w - 1]
                                }
                                if m > a && m >= b {
                                    np[i] = m
                                    if m > maxMag { maxMag = m }
                                }
                            }
                        }
                    }
                }
            }
        }
        guard maxMag > floor else {
            return _EdgeMap(width: w, height: h, gx: gx, gy: gy, magnitude: mag, edges: edges, edgeCount: 0)
        }
        // Thresholds from the histogram of suppressed magnitudes.
        let bins = 512
        var hist = [Int](repeating: 0, count: bins)
        var total = 0
        let binScale = Float(bins - 1) / maxMag
        for v in nms where v > 0 {
            hist[Int(v * binScale)] += 1
            total += 1
        }
        var cum = 0, p85: Float = maxMag
        for (k, c) in hist.enumerated() {
            cum += c
            if Float(cum) >= 0.85 * Float(total) { p85 = Float(k + 1) / binScale; break }
        }
        let high = Swift.max(p85, floor), low = Swift.max(0.4 * high, 0.5 * floor)
        // Hysteresis: grow from strong pixels through weak ones (8-connected).
        var stack: [Int] = []
        nms.withUnsafeBufferPointer { np in
            edges.withUnsafeMutableBufferPointer { ep in
                for i in 0..<n where np[i] >= high && ep[i] == 0 {
                    ep[i] = 2; edgeCount += 1
                    stack.append(i)
                    while let j = stack.popLast() {
                        let y = j / w, x = j - y * w
                        for dy in -1...1 {
                            let yy = y + dy
                            if yy < 0 || yy >= h { continue }
                            for dx in -1...1 {
                                let xx = x + dx
                                if xx < 0 || xx >= w { continue }
                                let k = yy * w + xx
                                if ep[k] == 0 && np[k] >= low {
                                    ep[k] = 2; edgeCount += 1
                                    stack.append(k)
                                }
                            }
                        }
                    }
                }
            }
        }
        return _EdgeMap(width: w, height: h, gx: gx, gy: gy, magnitude: mag, edges: edges, edgeCount: edgeCount)
    }
}
