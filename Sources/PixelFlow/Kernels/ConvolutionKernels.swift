import CSIMD

// Correlation kernels on rows of `SIMD4<Float>` pixels. Weights apply without flipping:
// `out[x] = sum_k w[k] * in[x + k - radius]`.

/// Horizontal correlation: `dst[x] = sum_k taps[k] * src[x + k]` for `count` pixels, where
/// `src` points at the left end of the window of `dst[0]` (`taps.count - 1` extra pixels).
/// Four outputs per step share each tap's broadcast; each output still sums in tap order.
/// Tolerance against a scalar reference: 0 (sums in tap order).
func correlateRowHorizontal(_ src: UnsafePointer<SIMD4<Float>>, taps: UnsafeBufferPointer<Float>,
                            count: Int, into dst: UnsafeMutablePointer<SIMD4<Float>>) {
    let n = taps.count
    let t = taps.baseAddress!
    var x = 0
    while x + 4 <= count {
        var a0 = SIMD4<Float>(repeating: 0), a1 = a0, a2 = a0, a3 = a0
        let s = src + x
        for k in 0..<n {
            let w = t[k]
            a0 = a0 + s[k] * w; a1 = a1 + s[k + 1] * w; a2 = a2 + s[k + 2] * w; a3 = a3 + s[k + 3] * w
        }
        dst[x] = a0; dst[x + 1] = a1; dst[x + 2] = a2; dst[x + 3] = a3
        x &+= 4
    }
    while x < count {
        var acc = SIMD4<Float>(repeating: 0)
        let s = src + x
        for k in 0..<n { acc = acc + s[k] * t[k] }
        dst[x] = acc
        x &+= 1
    }
}

/// Vertical correlation: `dst[x] = sum_k taps[k] * rows[k][x]` for `count` pixels.
/// Processes four pixels per step so the accumulators stay in registers.
/// Tolerance against a scalar reference: 0 (sums in tap order).
func correlateRowsVertical(_ rows: UnsafePointer<UnsafePointer<SIMD4<Float>>>, taps: UnsafeBufferPointer<Float>,
                           count: Int, into dst: UnsafeMutablePointer<SIMD4<Float>>) {
    let n = taps.count
    var x = 0
    while x + 4 <= count {
        var a0 = SIMD4<Float>(repeating: 0), a1 = a0, a2 = a0, a3 = a0
        for k in 0..<n {
            let r = rows[k] + x
            let w = taps[k]
            a0 = a0 + r[0] * w; a1 = a1 + r[1] * w; a2 = a2 + r[2] * w; a3 = a3 + r[3] * w
        }
        dst[x] = a0; dst[x + 1] = a1; dst[x + 2] = a2; dst[x + 3] = a3
        x &+= 4
    }
    while x < count {
        var a = SIMD4<Float>(repeating: 0)
        for k in 0..<n { a = a + rows[k][x] * taps[k] }
        dst[x] = a
        x &+= 1
    }
}

/// 2D correlation with a `kw` x `kh` kernel: `dst[x] = sum_{j,i} w[j*kw+i] * rows[j][x+i] + bias`,
/// where `rows[j]` points at the left end of the window row `j`. With `rgbOnly`, alpha is
/// copied from the center pixel and bias applies to RGB only. Four outputs per step share each
/// weight's broadcast; 3x3 kernels take a fully unrolled path.
/// Tolerance against a scalar reference: 0 (every output sums in row-major order, then bias).
func correlate2D(_ rows: UnsafePointer<UnsafePointer<SIMD4<Float>>>, kw: Int, kh: Int,
                 weights: UnsafeBufferPointer<Float>, bias: Float, rgbOnly: Bool,
                 count: Int, into dst: UnsafeMutablePointer<SIMD4<Float>>) {
    let b = rgbOnly ? SIMD4<Float>(bias, bias, bias, 0) : SIMD4<Float>(repeating: bias)
    let cx = kw / 2, cy = kh / 2
    let wt = weights.baseAddress!
    var x = 0
    if kw == 3 && kh == 3 {
        // In C (CSIMD): the same sums, in the same order, as the general loop below; Swift's
        // SIMD4 version of this unrolled loop became lane-by-lane scalar code.
        pf_correlate3x3_row(rows[0], rows[1], rows[2], wt, b, rgbOnly ? 1 : 0, count, dst)
        return
    }
    while x + 4 <= count {
        var a0 = SIMD4<Float>(repeating: 0), a1 = a0, a2 = a0, a3 = a0
        for j in 0..<kh {
            let r = rows[j] + x
            let wj = wt + j * kw
            for i in 0..<kw {
                let w = wj[i]
                a0 = a0 + r[i] * w; a1 = a1 + r[i + 1] * w; a2 = a2 + r[i + 2] * w; a3 = a3 + r[i + 3] * w
            }
        }
        a0 = a0 + b; a1 = a1 + b; a2 = a2 + b; a3 = a3 + b
        if rgbOnly {
            let c = rows[cy] + x + cx
            a0.w = c[0].w; a1.w = c[1].w; a2.w = c[2].w; a3.w = c[3].w
        }
        dst[x] = a0; dst[x + 1] = a1; dst[x + 2] = a2; dst[x + 3] = a3
        x &+= 4
    }
    while x < count {
        var acc = SIMD4<Float>(repeating: 0)
        for j in 0..<kh {
            let r = rows[j] + x
            for i in 0..<kw { acc = acc + r[i] * wt[j * kw + i] }
        }
        acc = acc + b
        if rgbOnly { acc.w = rows[cy][x + cx].w }
        dst[x] = acc
        x &+= 1
    }
}

/// Box means along a row with running sums that restart at every multiple of `block` in
/// absolute coordinates: `dst[i] = mean(src[c - r - srcStart ... c + r - srcStart])` for the
/// centers `c = outStart + i`, where `outStart` is a multiple of `block`. Because a restart
/// happens at fixed absolute positions, every output is computed the same way whatever range
/// is asked for, so tiles and sub-rects agree bit for bit.
/// Tolerance against a scalar reference: 1e-6 relative (at most `block` running updates).
func boxRowRestarting(_ src: UnsafePointer<SIMD4<Float>>, srcStart: Int, outStart: Int, count: Int,
                      radius r: Int, block: Int, scale: Float, into dst: UnsafeMutablePointer<SIMD4<Float>>) {
    var acc = SIMD4<Float>(repeating: 0)
    let s = src - srcStart
    for i in 0..<count {
        let c = outStart + i
        if i % block == 0 {
            acc = .zero
            for k in (c - r)...(c + r) { acc = acc + s[k] }
        } else {
            acc = acc + s[c + r] - s[c - r - 1]
        }
        dst[i] = acc * scale
    }
}

/// The same as `boxRowRestarting` down the columns of a strip: rows are `width` pixels apart,
/// row `k` of `src` is absolute row `srcStart + k`, and output row `i` is centered on absolute
/// row `outStart + i` (a multiple of `block`).
func boxColumnsRestarting(_ src: UnsafePointer<SIMD4<Float>>, width: Int, srcStart: Int, outStart: Int, count: Int,
                          radius r: Int, block: Int, scale: Float, into dst: UnsafeMutablePointer<SIMD4<Float>>,
                          accumulator acc: UnsafeMutablePointer<SIMD4<Float>>) {
    for i in 0..<count {
        let c = outStart + i
        let d = dst + i * width
        if i % block == 0 {
            acc.update(repeating: .zero, count: width)
            for k in (c - r)...(c + r) {
                let row = src + (k - srcStart) * width
                for x in 0..<width { acc[x] = acc[x] + row[x] }
            }
        } else {
            let add = src + (c + r - srcStart) * width, sub = src + (c - r - 1 - srcStart) * width
            for x in 0..<width { acc[x] = acc[x] + add[x] - sub[x] }
        }
        for x in 0..<width { d[x] = acc[x] * scale }
    }
}
