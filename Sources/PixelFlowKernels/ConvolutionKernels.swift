import CSIMD

// Correlation kernels on rows of `SIMD4<Float>` pixels. Weights apply without flipping:
// `out[x] = sum_k w[k] * in[x + k - radius]`.

/// Horizontal correlation: `dst[x] = sum_k taps[k] * src[x + k]` for `count` pixels, where
/// `src` points at the left end of the window of `dst[0]` (`taps.count - 1` extra pixels).
/// Runs in C on the row as flat floats (`pf_correlate_h`, AVX2 when the processor has it);
/// each output sums its taps in order starting from 0.
/// Tolerance against a scalar reference: 0 (sums in tap order).
package func correlateRowHorizontal(
    _ src: UnsafePointer<SIMD4<Float>>, taps: UnsafeBufferPointer<Float>,
    count: Int, into dst: UnsafeMutablePointer<SIMD4<Float>>
) {
    UnsafeRawPointer(src).withMemoryRebound(to: Float.self, capacity: 4 * (count + taps.count)) { s in
        UnsafeMutableRawPointer(dst).withMemoryRebound(to: Float.self, capacity: 4 * count) { d in
            pf_correlate_h_run(s, taps.baseAddress, Int32(taps.count), 4 * count, d)
        }
    }
}

/// Vertical correlation: `dst[x] = sum_k taps[k] * rows[k][x]` for `count` pixels, in C on
/// flat floats (`pf_correlate_v`, AVX2 when the processor has it).
/// Tolerance against a scalar reference: 0 (sums in tap order).
package func correlateRowsVertical(
    _ rows: UnsafePointer<UnsafePointer<SIMD4<Float>>>, taps: UnsafeBufferPointer<Float>,
    count: Int, into dst: UnsafeMutablePointer<SIMD4<Float>>
) {
    let r = UnsafeRawPointer(rows).assumingMemoryBound(to: UnsafePointer<Float>?.self)
    UnsafeMutableRawPointer(dst).withMemoryRebound(to: Float.self, capacity: 4 * count) { d in
        pf_correlate_v_run(r, taps.baseAddress, Int32(taps.count), 4 * count, d)
    }
}

/// Vertical correlation of `outputs` consecutive rows at once: `dsts[j][x] = sum_k taps[k] *
/// rows[j + k][x]`, with `taps.count + outputs - 1` input rows. The same sums as
/// `correlateRowsVertical` row by row (`pf_correlate_v_block`: four output rows share each
/// input load, so an input row is read once per block instead of once per tap).
/// Tolerance against a scalar reference: 0 (sums in tap order).
package func correlateRowsVertical(
    _ rows: UnsafePointer<UnsafePointer<SIMD4<Float>>>, taps: UnsafeBufferPointer<Float>,
    count: Int, into dsts: UnsafePointer<UnsafeMutablePointer<SIMD4<Float>>>, outputs: Int
) {
    let r = UnsafeRawPointer(rows).assumingMemoryBound(to: UnsafePointer<Float>?.self)
    let d = UnsafeRawPointer(dsts).assumingMemoryBound(to: UnsafeMutablePointer<Float>?.self)
    pf_correlate_v_block_run(r, taps.baseAddress, Int32(taps.count), 4 * count, d, Int32(outputs))
}

/// 2D correlation with a `kw` x `kh` kernel: `dst[x] = sum_{j,i} w[j*kw+i] * rows[j][x+i] + bias`,
/// where `rows[j]` points at the left end of the window row `j`. With `rgbOnly`, alpha is
/// copied from the center pixel and bias applies to RGB only. Four outputs per step share each
/// weight's broadcast; 3x3 kernels run in `pf_correlate3x3_row` (CSIMD.h), two pixels per step.
/// Tolerance against a scalar reference: 0 (every output sums in row-major order, then bias).
package func correlate2D(
    _ rows: UnsafePointer<UnsafePointer<SIMD4<Float>>>, kw: Int, kh: Int,
    weights: UnsafeBufferPointer<Float>, bias: Float, rgbOnly: Bool,
    count: Int, into dst: UnsafeMutablePointer<SIMD4<Float>>
) {
    let b = rgbOnly ? SIMD4<Float>(bias, bias, bias, 0) : SIMD4<Float>(repeating: bias)
    let cx = kw / 2, cy = kh / 2
    let wt = weights.baseAddress!
    var x = 0
    if kw == 3 && kh == 3 {
        // In C (CSIMD.h): Swift's code for this loop split the lanes and spilled registers.
        // `bias + 0` turns a bias of -0 into +0, so that a sum starting from the first
        // product rounds as one starting from +0 would.
        let bz = b + SIMD4<Float>(repeating: 0)
        pf_correlate3x3_row_run(rows[0], rows[1], rows[2], wt, bz, rgbOnly ? 1 : 0, count, dst)
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
package func boxRowRestarting(
    _ src: UnsafePointer<SIMD4<Float>>, srcStart: Int, outStart: Int, count: Int,
    radius r: Int, block: Int, scale: Float, into dst: UnsafeMutablePointer<SIMD4<Float>>
) {
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
package func boxColumnsRestarting(
    _ src: UnsafePointer<SIMD4<Float>>, width: Int, srcStart: Int, outStart: Int, count: Int,
    radius r: Int, block: Int, scale: Float, into dst: UnsafeMutablePointer<SIMD4<Float>>,
    accumulator acc: UnsafeMutablePointer<SIMD4<Float>>
) {
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
