// Correlation kernels on rows of `SIMD4<Float>` pixels. Weights apply without flipping:
// `out[x] = sum_k w[k] * in[x + k - radius]`.

/// Horizontal correlation: `dst[x] = sum_k taps[k] * src[x + k]` for `count` pixels, where
/// `src` points at the left end of the window of `dst[0]` (`taps.count - 1` extra pixels).
/// Tolerance against a scalar reference: 0 (sums in tap order).
func correlateRowHorizontal(_ src: UnsafePointer<SIMD4<Float>>, taps: UnsafeBufferPointer<Float>,
                            count: Int, into dst: UnsafeMutablePointer<SIMD4<Float>>) {
    let n = taps.count
    for x in 0..<count {
        var acc = SIMD4<Float>(repeating: 0)
        let s = src + x
        for k in 0..<n { acc = acc + s[k] * taps[k] }
        dst[x] = acc
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
/// copied from the center pixel and bias applies to RGB only.
/// Tolerance against a scalar reference: 0 (sums in row-major order).
func correlate2D(_ rows: UnsafePointer<UnsafePointer<SIMD4<Float>>>, kw: Int, kh: Int,
                 weights: UnsafeBufferPointer<Float>, bias: Float, rgbOnly: Bool,
                 count: Int, into dst: UnsafeMutablePointer<SIMD4<Float>>) {
    let b = rgbOnly ? SIMD4<Float>(bias, bias, bias, 0) : SIMD4<Float>(repeating: bias)
    let cx = kw / 2, cy = kh / 2
    for x in 0..<count {
        var acc = SIMD4<Float>(repeating: 0)
        for j in 0..<kh {
            let r = rows[j] + x
            for i in 0..<kw { acc = acc + r[i] * weights[j * kw + i] }
        }
        acc = acc + b
        if rgbOnly { acc.w = rows[cy][x + cx].w }
        dst[x] = acc
    }
}

/// Fixed-point scale of the box filters' running sums: values are summed as integers in
/// units of 2^-32, so a running sum equals a fresh sum exactly and the result does not depend
/// on where the sum started (tiles, sub-rects). Values beyond +-2^30 clamp; NaN counts as 0.
let boxFixedScale: Float = 4_294_967_296

@inline(__always)
func toFixed(_ v: SIMD4<Float>) -> SIMD4<Int64> {
    var s = v * boxFixedScale
    let lim: Float = 4.6e18
    s.replace(with: 0, where: .!(s .== s))
    s.replace(with: lim, where: s .> lim)
    s.replace(with: -lim, where: s .< -lim)
    return SIMD4<Int64>(s.rounded(.toNearestOrEven))
}

/// Box mean along a row: `dst[x] = mean(src[x ... x + 2r])` for `count` outputs, where `src`
/// holds `count + 2r` pixels. Running sums in fixed point (see `boxFixedScale`): exact and
/// independent of where the row starts.
func boxRowHorizontal(_ src: UnsafePointer<SIMD4<Float>>, radius r: Int, count: Int, scale: Float,
                      into dst: UnsafeMutablePointer<SIMD4<Float>>) {
    let w = 2 * r + 1
    let out = SIMD4<Double>(repeating: Double(scale) / Double(boxFixedScale))
    var acc = SIMD4<Int64>(repeating: 0)
    for k in 0..<w { acc &+= toFixed(src[k]) }
    dst[0] = SIMD4<Float>(SIMD4<Double>(acc) * out)
    if count > 1 {
        for x in 1..<count {
            acc &+= toFixed(src[x + w - 1]) &- toFixed(src[x - 1])
            dst[x] = SIMD4<Float>(SIMD4<Double>(acc) * out)
        }
    }
}
