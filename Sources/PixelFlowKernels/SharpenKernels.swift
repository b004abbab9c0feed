// Sharpening and edge-aware smoothing over tiles of `SIMD4<Float>`.

/// Rec. 709 luma weights, applied to working-space RGB.
package let rec709Luma = SIMD4<Float>(0.2126, 0.7152, 0.0722, 0)

/// Unsharp masking over `output.rect`: `out = in + intensity * (in - gaussian(in))`, or with
/// `lumaOnly` the luma of `in - gaussian(in)` added to R, G and B (alpha kept). The Gaussian
/// is the exact separable one with `taps` (odd count); `input` covers `output.rect` grown by
/// `taps.count / 2`.
///
/// - Complexity: `2 * taps.count` multiply-adds per pixel plus 4 operations; scratch
///   `(height + taps.count) x width` pixels.
/// - Tolerance against a scalar reference: 0 for the blur (taps summed in order), then one
///   rounding per operation of the formula.
package func unsharpTile(_ input: Tile, _ output: Tile, taps: [Float], intensity: Float, lumaOnly: Bool, arena: Arena) {
    let o = output.rect
    if o.isEmpty { return }
    let r = taps.count / 2
    let w = o.width
    let mid = arena.tile(IntRect(x: o.x, y: o.y - r, width: w, height: o.height + 2 * r))
    let rows = arena.allocate(taps.count, of: UnsafePointer<SIMD4<Float>>.self)
    taps.withUnsafeBufferPointer { t in
        for y in mid.rect.y..<mid.rect.maxY {
            correlateRowHorizontal(UnsafePointer(input.pointer(x: o.x - r, y: y)), taps: t, count: w, into: mid.row(y))
        }
        for y in o.y..<o.maxY {
            for k in 0..<taps.count { rows[k] = UnsafePointer(mid.row(y - r + k)) }
            let d = output.row(y)
            correlateRowsVertical(rows, taps: t, count: w, into: d)
            let c = input.pointer(x: o.x, y: y)
            if lumaOnly {
                for x in 0..<w {
                    let diff = (c[x] - d[x]) * rec709Luma
                    let l = intensity * (diff.x + diff.y + diff.z)
                    d[x] = c[x] + SIMD4(l, l, l, 0)
                }
            } else {
                for x in 0..<w { d[x] = c[x] + (c[x] - d[x]) * intensity }
            }
        }
    }
}

/// The sigma filter (Lee 1983) over a 3x3 window, per channel: the mean of the neighbours
/// whose value lies within `threshold` of the center's (the center always counts). Smooths
/// noise below the threshold and keeps edges above it. `input` covers `output.rect` grown by 1.
///
/// - Complexity: 9 comparisons, selects and additions per pixel. Deterministic (fixed order).
package func sigmaFilter3x3Tile(_ input: Tile, _ output: Tile, threshold: Float) {
    let o = output.rect
    for y in o.y..<o.maxY {
        let d = output.row(y)
        let rows = (
            UnsafePointer(input.pointer(x: o.x - 1, y: y - 1)), UnsafePointer(input.pointer(x: o.x - 1, y: y)),
            UnsafePointer(input.pointer(x: o.x - 1, y: y + 1))
        )
        for x in 0..<o.width {
            let c = rows.1[x + 1]
            var sum = SIMD4<Float>(repeating: 0), n = SIMD4<Float>(repeating: 0)
            @inline(__always) func add(_ v: SIMD4<Float>) {
                let diff = v - c
                let near = (diff .<= threshold) .& (diff .>= -threshold)
                sum = sum + SIMD4(repeating: 0).replacing(with: v, where: near)
                n = n + SIMD4(repeating: 0).replacing(with: 1, where: near)
            }
            add(rows.0[x]); add(rows.0[x + 1]); add(rows.0[x + 2])
            add(rows.1[x]); add(c); add(rows.1[x + 2])
            add(rows.2[x]); add(rows.2[x + 1]); add(rows.2[x + 2])
            // The center is always near itself, so n >= 1 (NaN centers keep NaN out: n may be 0).
            n.replace(with: 1, where: n .== 0)
            d[x] = sum / n
        }
    }
}
