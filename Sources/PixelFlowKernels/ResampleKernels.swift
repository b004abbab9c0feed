import CSIMD

// Resampling kernels: affine warps with nearest or bilinear sampling, and antialiased
// Lanczos-3 scaling. Pixel centers sit at half-integer coordinates.

/// Fills `count` pixels of output row `y`, starting at column `x0`, by sampling `src` at
/// `inverse` applied to each output pixel center. Samples outside `src.rect` are transparent.
/// Coordinates are computed per pixel (not incrementally) so results never depend on where
/// a tile starts. Bilinear sampling runs in C (`pf_affine_bilinear_row_run`, coordinates four
/// pixels at a time). Tolerance against a scalar reference: 0.
package func affineWarpRow(
    _ src: Tile, inverse t: AffineTransform, sampling: Sampling, x0: Int, y: Int,
    count: Int, into dst: UnsafeMutablePointer<SIMD4<Float>>
) {
    let r = src.rect
    let cy = Double(y) + 0.5
    let bx = t.c * cy + t.tx, by = t.d * cy + t.ty
    switch sampling {
    case .bilinear:
        pf_affine_bilinear_row_run(src.base, src.stride, r.x, r.y, r.width, r.height, t.a, t.b, bx, by, x0, count, dst)
    case .nearest:
        for i in 0..<count {
            let cx = Double(x0 + i) + 0.5
            let sx = t.a * cx + bx, sy = t.b * cx + by
            let ix = Int((sx).rounded(.down)), iy = Int((sy).rounded(.down))
            if ix >= r.x && ix < r.maxX && iy >= r.y && iy < r.maxY {
                dst[i] = src.pointer(x: ix, y: iy).pointee
            } else {
                dst[i] = .zero
            }
        }
    }
}

/// Fills `count` pixels of output row `y` from `x0` by sampling `src` with `sampling` where
/// `map` sends each output pixel center. Samples outside `src.rect` are transparent.
package func customWarpRow(
    _ src: Tile, sampling: Sampling, map: (_ x: Double, _ y: Double) -> Point, x0: Int, y: Int, count: Int,
    into dst: UnsafeMutablePointer<SIMD4<Float>>
) {
    let r = src.rect
    let cy = Double(y) + 0.5
    for i in 0..<count {
        let p = map(Double(x0 + i) + 0.5, cy)
        switch sampling {
        case .nearest:
            guard p.x.isFinite, p.y.isFinite, p.x >= Double(r.x), p.x < Double(r.maxX), p.y >= Double(r.y), p.y < Double(r.maxY)
            else {
                dst[i] = .zero
                continue
            }
            dst[i] = src.pointer(x: Int(p.x.rounded(.down)), y: Int(p.y.rounded(.down))).pointee
        case .bilinear:
            let fx = p.x - 0.5, fy = p.y - 0.5
            guard fx > Double(r.x - 1), fx < Double(r.maxX), fy > Double(r.y - 1), fy < Double(r.maxY) else {
                dst[i] = .zero
                continue
            }
            let flx = fx.rounded(.down), fly = fy.rounded(.down)
            dst[i] = bilinearSample(src, Int(flx), Int(fly), Float(fx - flx), Float(fy - fly))
        }
    }
}

@inline(__always)
package func bilinearSample(_ src: Tile, _ ix: Int, _ iy: Int, _ wx: Float, _ wy: Float) -> SIMD4<Float> {
    let r = src.rect
    if ix >= r.x && ix + 1 < r.maxX && iy >= r.y && iy + 1 < r.maxY {
        let p = src.pointer(x: ix, y: iy)
        let q = p + src.stride
        let top = p[0] + (p[1] - p[0]) * wx
        let bottom = q[0] + (q[1] - q[0]) * wx
        return top + (bottom - top) * wy
    }
    @inline(__always) func at(_ x: Int, _ y: Int) -> SIMD4<Float> {
        (x >= r.x && x < r.maxX && y >= r.y && y < r.maxY) ? src.pointer(x: x, y: y).pointee : .zero
    }
    let p00 = at(ix, iy), p10 = at(ix + 1, iy), p01 = at(ix, iy + 1), p11 = at(ix + 1, iy + 1)
    let top = p00 + (p10 - p00) * wx
    let bottom = p01 + (p11 - p01) * wx
    return top + (bottom - top) * wy
}

/// Where a bilinear warp without rotation or shear samples along one axis, for the output
/// coordinates `start ..< start + count`: output `o` (center `o + 0.5`) reads the source at
/// `f = scale * (o + 0.5) + offset - 0.5`, computed in `Double` with the roundings of
/// `affineWarpRow` (which, with the cross terms zero, yields the same `f`), so the samples
/// are identical to the generic path's. Writes, for each output, `floor(f) - lo` to `index`
/// and `f - floor(f)` to `weight`; returns the outputs whose sample is defined (the generic
/// guard `lo - 1 < f < hi`) and, inside them, those whose two taps both lie in `lo ..< hi`.
/// Both are contiguous ranges because `f` is monotonic in `o`.
package func bilinearAxisSamples(
    scale: Double, offset: Double, start: Int, count: Int, lo: Int, hi: Int,
    index: UnsafeMutablePointer<Int>, weight: UnsafeMutablePointer<Float>
)
    -> (defined: Range<Int>, interior: Range<Int>)
{
    var d0 = count, d1 = 0, i0 = count, i1 = 0
    for i in 0..<count {
        let c = Double(start + i) + 0.5
        let s = scale * c + offset
        let f = s - 0.5
        guard f > Double(lo - 1), f < Double(hi) else { index[i] = 0; weight[i] = 0; continue }
        let fl = f.rounded(.down)
        let k = Int(fl)
        index[i] = k - lo
        weight[i] = Float(f - fl)
        d0 = Swift.min(d0, i); d1 = i + 1
        if k >= lo && k + 1 < hi { i0 = Swift.min(i0, i); i1 = i + 1 }
    }
    return (d0 < d1 ? d0..<d1 : 0..<0, i0 < i1 ? i0..<i1 : 0..<0)
}

/// Lanczos-3 weights for a range of output pixels along one axis, as Pillow computes them:
/// the support widens by the downscale factor (antialiasing), taps stop at the input's
/// edges and the weights of each output pixel are normalized to sum to 1.
///
/// - Complexity: O(outputs x taps) to build; taps = 6 x max(1, input/output).
package struct LanczosWeights {
    /// First input index (relative to the input origin) for each output in the range.
    package var starts: [Int]
    /// Number of taps for each output.
    package var counts: [Int]
    /// `maxTaps` weights per output.
    package var weights: [Float]
    package var maxTaps: Int

    package static func lanczos3(_ x: Double) -> Double {
        if x == 0 { return 1 }
        if x <= -3 || x >= 3 { return 0 }
        let px = Double.pi * x
        return sin(px) / px * sin(px / 3) / (px / 3)
    }

    /// Output `o`'s taps: `span` (default `inputSize`) input pixels map onto `outputSize`
    /// outputs; taps stop at `0` and `inputSize`.
    package static func window(_ o: Int, inputSize: Int, outputSize: Int, span: Double? = nil)
        -> (start: Int, count: Int, center: Double, scale: Double)
    {
        let scale = (span ?? Double(inputSize)) / Double(outputSize)
        let filterScale = Swift.max(scale, 1)
        let support = 3 * filterScale
        let center = (Double(o) + 0.5) * scale
        let lo = Swift.max(Int(center - support + 0.5), 0)
        let hi = Swift.min(Int(center + support + 0.5), inputSize)
        return (lo, Swift.max(0, hi - lo), center, filterScale)
    }

    /// The input indices (relative to the input origin) the outputs in `outputRange` read.
    package static func sourceSpan(outputRange: Range<Int>, inputSize: Int, outputSize: Int, span: Double? = nil) -> Range<Int> {
        let a = window(Swift.max(0, outputRange.lowerBound), inputSize: inputSize, outputSize: outputSize, span: span)
        let b = window(
            Swift.min(outputSize - 1, outputRange.upperBound - 1), inputSize: inputSize, outputSize: outputSize,
            span: span)
        return a.start..<Swift.max(a.start, b.start + b.count)
    }

    /// The taps of an integer box shrink by `factor` (`Warp.boxShrink`): output `o` averages
    /// the inputs `factor * o ..< factor * (o + 1)` inside `0 ..< inputSize`, each with weight
    /// 1 / (their count).
    package init(box factor: Int, outputRange: Range<Int>, inputSize: Int) {
        maxTaps = Swift.max(1, factor)
        starts = []; counts = []
        weights = [Float](repeating: 0, count: outputRange.count * maxTaps)
        for (i, o) in outputRange.enumerated() {
            let lo = Swift.min(Swift.max(0, factor * o), inputSize), hi = Swift.max(lo, Swift.min(inputSize, factor * o + factor))
            let n = hi - lo
            for k in 0..<n { weights[i * maxTaps + k] = 1 / Float(n) }
            starts.append(lo)
            counts.append(n)
        }
    }

    package init(outputRange: Range<Int>, inputSize: Int, outputSize: Int, span: Double? = nil) {
        let scale = Swift.max((span ?? Double(inputSize)) / Double(outputSize), 1)
        maxTaps = Int((3 * scale).rounded(.up)) * 2 + 2
        starts = []; counts = []
        weights = [Float](repeating: 0, count: outputRange.count * maxTaps)
        // Outputs whose first tap lies at the same offset from their center, with as many taps,
        // get the same weights (`Double(k + start) - center` is exact, so the same bits): at a
        // rational scale they repeat, and a half-size scale has one set for its interior.
        var seen: [SIMD2<UInt64>: Int] = [:]
        for (i, o) in outputRange.enumerated() {
            let w = LanczosWeights.window(o, inputSize: inputSize, outputSize: outputSize, span: span)
            let key = SIMD2((Double(w.start) - w.center).bitPattern, UInt64(w.count))
            if let j = seen[key] {
                for k in 0..<maxTaps { weights[i * maxTaps + k] = weights[j * maxTaps + k] }
                starts.append(w.start)
                counts.append(Swift.min(w.count, maxTaps))
                continue
            }
            seen[key] = i
            var ws = [Double](repeating: 0, count: w.count)
            var total = 0.0
            for k in 0..<w.count {
                let v = LanczosWeights.lanczos3((Double(k + w.start) - w.center + 0.5) / w.scale)
                ws[k] = v
                total += v
            }
            let n = Swift.min(w.count, maxTaps)
            for k in 0..<n { weights[i * maxTaps + k] = Float(total != 0 ? ws[k] / total : ws[k]) }
            starts.append(w.start)
            counts.append(n)
        }
    }
}

/// `LanczosWeights` for a whole range of outputs, in memory a tile loop reads without
/// allocating or bridging arrays: built once per render for the region a Lanczos node
/// produces; a tile reads the entries of its own outputs.
package final class LanczosTable: @unchecked Sendable {
    /// The output index (relative to the output origin) of entry 0.
    package let first: Int
    package let count: Int
    package let maxTaps: Int
    package let starts: UnsafeMutablePointer<Int>
    package let counts: UnsafeMutablePointer<Int>
    package let weights: UnsafeMutablePointer<Float>

    package convenience init(outputRange: Range<Int>, inputSize: Int, outputSize: Int, span: Double? = nil) {
        self.init(
            LanczosWeights(outputRange: outputRange, inputSize: inputSize, outputSize: outputSize, span: span),
            first: outputRange.lowerBound)
    }

    /// The table of the taps `w`, whose entry 0 is output `first` (default: the weights' own
    /// first output, 0 for tables made from a range starting at 0).
    package init(_ w: LanczosWeights, first: Int = 0) {
        self.first = first
        count = w.counts.count
        maxTaps = w.maxTaps
        starts = .allocate(capacity: Swift.max(1, count))
        counts = .allocate(capacity: Swift.max(1, count))
        weights = .allocate(capacity: Swift.max(1, w.weights.count))
        starts.initialize(from: w.starts, count: w.starts.count)
        counts.initialize(from: w.counts, count: w.counts.count)
        weights.initialize(from: w.weights, count: w.weights.count)
    }

    deinit {
        starts.deallocate()
        counts.deallocate()
        weights.deallocate()
    }

    /// Whether the table holds the outputs `range` (relative to the output origin).
    package func covers(_ range: Range<Int>) -> Bool { range.lowerBound >= first && range.upperBound <= first + count }
}

/// Separable Lanczos resampling: horizontal pass over the source rows, then vertical.
/// `src` must cover the spans of the outputs' taps (shifted by `inputOrigin`); `wx` and `wy`
/// hold the taps of the tile's outputs, whose first is `out.rect`'s origin minus `outputOrigin`.
package func lanczosResample(
    _ src: Tile, wx: LanczosTable, wy: LanczosTable, outputOrigin: (Int, Int), inputOrigin: (Int, Int),
    into out: Tile, arena: Arena
) {
    let w = out.rect.width
    let mid = arena.tile(IntRect(x: out.rect.x, y: src.rect.y, width: w, height: src.rect.height))
    // Horizontal: C (pf_resample_h), each output summing its taps in order.
    let shift = inputOrigin.0 - src.rect.x
    let ix = out.rect.x - outputOrigin.0 - wx.first
    for y in src.rect.y..<src.rect.maxY {
        pf_resample_h(src.row(y) + shift, wx.starts + ix, wx.counts + ix, wx.weights + ix * wx.maxTaps, wx.maxTaps, w, mid.row(y))
    }
    let rows = arena.allocate(wy.maxTaps, of: UnsafePointer<SIMD4<Float>>.self)
    let iy = out.rect.y - outputOrigin.1 - wy.first
    for j in 0..<out.rect.height {
        let n = wy.counts[iy + j]
        let y0 = wy.starts[iy + j] + inputOrigin.1
        for k in 0..<n { rows[k] = UnsafePointer(mid.row(y0 + k)) }
        correlateRowsVertical(
            rows, taps: UnsafeBufferPointer(start: wy.weights + (iy + j) * wy.maxTaps, count: n),
            count: w, into: out.row(out.rect.y + j))
    }
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif
