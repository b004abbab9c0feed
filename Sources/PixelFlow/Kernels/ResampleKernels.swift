import CSIMD

// Resampling kernels: affine warps with nearest or bilinear sampling, and antialiased
// Lanczos-3 scaling. Pixel centers sit at half-integer coordinates.

/// Fills `count` pixels of output row `y`, starting at column `x0`, by sampling `src` at
/// `inverse` applied to each output pixel center. Samples outside `src.rect` are transparent.
/// Coordinates are computed per pixel (not incrementally) so results never depend on where
/// a tile starts. Tolerance against a scalar reference: 0.
func affineWarpRow(_ src: Tile, inverse t: AffineTransform, sampling: Sampling, x0: Int, y: Int,
                   count: Int, into dst: UnsafeMutablePointer<SIMD4<Float>>) {
    let r = src.rect
    let cy = Double(y) + 0.5
    let bx = t.c * cy + t.tx, by = t.d * cy + t.ty
    for i in 0..<count {
        let cx = Double(x0 + i) + 0.5
        let sx = t.a * cx + bx, sy = t.b * cx + by
        switch sampling {
        case .nearest:
            let ix = Int((sx).rounded(.down)), iy = Int((sy).rounded(.down))
            if ix >= r.x && ix < r.maxX && iy >= r.y && iy < r.maxY {
                dst[i] = src.pointer(x: ix, y: iy).pointee
            } else {
                dst[i] = .zero
            }
        case .bilinear:
            let fx = sx - 0.5, fy = sy - 0.5
            guard fx > Double(r.x - 1), fx < Double(r.maxX), fy > Double(r.y - 1), fy < Double(r.maxY) else {
                dst[i] = .zero
                continue
            }
            let flx = fx.rounded(.down), fly = fy.rounded(.down)
            let ix = Int(flx), iy = Int(fly)
            let wx = Float(fx - flx), wy = Float(fy - fly)
            dst[i] = bilinearSample(src, ix, iy, wx, wy)
        }
    }
}

/// Fills `out` by bilinear sampling of `src` through an axis-aligned inverse transform
/// (`t.b == 0`, `t.c == 0`: scales and translations): the same samples, bit for bit, as
/// `affineWarpRow` with `.bilinear`, with each column's source position and weight computed
/// once per tile instead of once per pixel, and each row's once per row.
///
/// With `b == c == 0` the per-pixel terms `t.c * cy` and `t.b * cx` are zeros, which leave
/// `fx = t.a * cx + t.tx - 0.5` and `fy = t.d * cy + t.ty - 0.5` unchanged whatever their sign.
/// - Complexity: O(pixels); scratch: 13 bytes per output column from `arena`.
func axisAlignedBilinearWarp(_ src: Tile, inverse t: AffineTransform, into out: Tile, arena: Arena) {
    let r = src.rect
    let n = out.rect.width
    let ixs = arena.allocate(n, of: Int.self)
    let wxs = arena.allocate(n, of: Float.self)
    let inner = arena.allocate(n, of: Bool.self)
    for i in 0..<n {
        let cx = Double(out.rect.x + i) + 0.5
        let fx = t.a * cx + t.tx - 0.5
        if fx > Double(r.x - 1), fx < Double(r.maxX) {
            let flx = fx.rounded(.down)
            let ix = Int(flx)
            ixs[i] = ix &- r.x  // relative to the source tile's first column
            wxs[i] = Float(fx - flx)
            inner[i] = ix >= r.x && ix + 1 < r.maxX
        } else {
            ixs[i] = Int.min  // transparent, as `affineWarpRow` makes it
            wxs[i] = 0
            inner[i] = false
        }
    }
    for y in out.rect.y..<out.rect.maxY {
        let dst = out.row(y)
        let cy = Double(y) + 0.5
        let fy = t.d * cy + t.ty - 0.5
        guard fy > Double(r.y - 1), fy < Double(r.maxY) else {
            dst.update(repeating: .zero, count: n)
            continue
        }
        let fly = fy.rounded(.down)
        let iy = Int(fly)
        let wy = Float(fy - fly)
        if iy >= r.y && iy + 1 < r.maxY {
            // Rows inside the source: only the columns can fall on an edge. The run of inner
            // columns goes through the C row sampler (the same operations as `bilinearSample`).
            let p = src.row(iy), q = p + src.stride
            var i = 0
            while i < n {
                if inner[i] {
                    var end = i + 1
                    while end < n && inner[end] { end += 1 }
                    pf_bilinear_row(p, q, ixs + i, wxs + i, wy, end - i, dst + i)
                    i = end
                    continue
                }
                dst[i] = ixs[i] == Int.min ? .zero : bilinearSample(src, ixs[i] &+ r.x, iy, wxs[i], wy)
                i += 1
            }
        } else {
            for i in 0..<n {
                dst[i] = ixs[i] == Int.min ? .zero : bilinearSample(src, ixs[i] &+ r.x, iy, wxs[i], wy)
            }
        }
    }
}

/// Fills `count` pixels of output row `y` from `x0` by sampling `src` where `kernel.map`
/// sends each output pixel center. Samples outside `src.rect` are transparent.
func customWarpRow(_ src: Tile, kernel: WarpKernel, x0: Int, y: Int, count: Int,
                   into dst: UnsafeMutablePointer<SIMD4<Float>>) {
    let r = src.rect
    let cy = Double(y) + 0.5
    for i in 0..<count {
        let p = kernel.map(Double(x0 + i) + 0.5, cy)
        switch kernel.sampling {
        case .nearest:
            guard p.x.isFinite, p.y.isFinite, p.x >= Double(r.x), p.x < Double(r.maxX), p.y >= Double(r.y), p.y < Double(r.maxY) else {
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
func bilinearSample(_ src: Tile, _ ix: Int, _ iy: Int, _ wx: Float, _ wy: Float) -> SIMD4<Float> {
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

/// Lanczos-3 weights for a range of output pixels along one axis, as Pillow computes them:
/// the support widens by the downscale factor (antialiasing), taps stop at the input's
/// edges and the weights of each output pixel are normalized to sum to 1.
///
/// - Complexity: O(outputs x taps) to build; taps = 6 x max(1, input/output).
struct LanczosWeights {
    /// First input index (relative to the input origin) for each output in the range.
    var starts: [Int]
    /// Number of taps for each output.
    var counts: [Int]
    /// `maxTaps` weights per output.
    var weights: [Float]
    var maxTaps: Int

    static func lanczos3(_ x: Double) -> Double {
        if x == 0 { return 1 }
        if x <= -3 || x >= 3 { return 0 }
        let px = Double.pi * x
        return sin(px) / px * sin(px / 3) / (px / 3)
    }

    static func window(_ o: Int, inputSize: Int, outputSize: Int) -> (start: Int, count: Int, center: Double, scale: Double) {
        let scale = Double(inputSize) / Double(outputSize)
        let filterScale = Swift.max(scale, 1)
        let support = 3 * filterScale
        let center = (Double(o) + 0.5) * scale
        let lo = Swift.max(Int(center - support + 0.5), 0)
        let hi = Swift.min(Int(center + support + 0.5), inputSize)
        return (lo, Swift.max(0, hi - lo), center, filterScale)
    }

    /// The input indices (relative to the input origin) the outputs in `outputRange` read.
    static func sourceSpan(outputRange: Range<Int>, inputSize: Int, outputSize: Int) -> Range<Int> {
        let a = window(Swift.max(0, outputRange.lowerBound), inputSize: inputSize, outputSize: outputSize)
        let b = window(Swift.min(outputSize - 1, outputRange.upperBound - 1), inputSize: inputSize, outputSize: outputSize)
        return a.start ..< Swift.max(a.start, b.start + b.count)
    }

    init(outputRange: Range<Int>, inputSize: Int, outputSize: Int) {
        let scale = Swift.max(Double(inputSize) / Double(outputSize), 1)
        maxTaps = Int((3 * scale).rounded(.up)) * 2 + 2
        starts = []; counts = []
        weights = [Float](repeating: 0, count: outputRange.count * maxTaps)
        for (i, o) in outputRange.enumerated() {
            let w = LanczosWeights.window(o, inputSize: inputSize, outputSize: outputSize)
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

/// Separable Lanczos resampling: horizontal pass over the source rows, then vertical.
/// `src` must cover the spans of `wx` and `wy` (shifted by `inputOrigin`).
func lanczosResample(_ src: Tile, wx: LanczosWeights, wy: LanczosWeights, inputOrigin: (Int, Int),
                     into out: Tile, arena: Arena) {
    let w = out.rect.width
    let mid = arena.tile(IntRect(x: out.rect.x, y: src.rect.y, width: w, height: src.rect.height))
    wx.weights.withUnsafeBufferPointer { wts in
        for y in src.rect.y..<src.rect.maxY {
            let srow = src.row(y)
            let mrow = mid.row(y)
            for i in 0..<w {
                let base = srow + (wx.starts[i] + inputOrigin.0 - src.rect.x)
                let ww = wts.baseAddress! + i * wx.maxTaps
                var acc = SIMD4<Float>(repeating: 0)
                for k in 0..<wx.counts[i] { acc = acc + base[k] * ww[k] }
                mrow[i] = acc
            }
        }
    }
    let rows = arena.allocate(wy.maxTaps, of: UnsafePointer<SIMD4<Float>>.self)
    wy.weights.withUnsafeBufferPointer { wts in
        for (j, y) in (out.rect.y..<out.rect.maxY).enumerated() {
            let n = wy.counts[j]
            let y0 = wy.starts[j] + inputOrigin.1
            for k in 0..<n { rows[k] = UnsafePointer(mid.row(y0 + k)) }
            correlateRowsVertical(rows, taps: UnsafeBufferPointer(rebasing: wts[(j * wy.maxTaps)..<(j * wy.maxTaps + n)]),
                                  count: w, into: out.row(y))
        }
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
