#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

// Line-sampling blurs: fixed sparse correlations (motion) and per-pixel rays (zoom).

/// One tap of a sparse correlation: offset and weight.
package struct SparseTap: Sendable, Hashable {
    package var dx: Int
    package var dy: Int
    package var weight: Float
}

/// The taps of a motion blur: `2K + 1` bilinear samples at unit spacing (`K = ceil(radius)`,
/// spacing `radius / K`) along the direction `angle` (radians, counter-clockwise on screen, so
/// `(cos a, -sin a)` in y-down pixels), each spread over its four neighbours, equal offsets
/// merged, weights summing to 1. Sorted by (dy, dx) so rows are read in order.
package func motionBlurTaps(radius: Double, angle: Double) -> [SparseTap] {
    let k = Swift.max(1, Int(radius.rounded(.up)))
    let step = radius / Double(k)
    let ux = cos(angle) * step, uy = -sin(angle) * step
    var weights: [SIMD2<Int>: Double] = [:]
    let w = 1 / Double(2 * k + 1)
    for i in -k...k {
        let px = Double(i) * ux, py = Double(i) * uy
        let x0 = px.rounded(.down), y0 = py.rounded(.down)
        let fx = px - x0, fy = py - y0
        let ix = Int(x0), iy = Int(y0)
        for (dx, dy, f) in [(0, 0, (1 - fx) * (1 - fy)), (1, 0, fx * (1 - fy)), (0, 1, (1 - fx) * fy), (1, 1, fx * fy)]
        where f > 0 {
            weights[SIMD2(ix + dx, iy + dy), default: 0] += f * w
        }
    }
    return weights.map { SparseTap(dx: $0.key.x, dy: $0.key.y, weight: Float($0.value)) }
        .sorted { ($0.dy, $0.dx) < ($1.dy, $1.dx) }
}

/// `out(x, y) = sum_t t.weight * in(x + t.dx, y + t.dy)`, taps in order; `input` covers
/// `output.rect` grown by the largest offsets.
///
/// - Complexity: one multiply-add per tap per pixel (O(radius) for a motion blur).
package func sparseCorrelateTile(_ input: Tile, _ output: Tile, taps: [SparseTap]) {
    let o = output.rect
    let w = o.width
    for y in o.y..<o.maxY {
        let d = output.row(y)
        d.update(repeating: .zero, count: w)
        for t in taps {
            let s = input.pointer(x: o.x + t.dx, y: y + t.dy)
            let wt = t.weight
            for x in 0..<w { d[x] = d[x] + s[x] * wt }
        }
    }
}

/// Bilinear sample of `tile` at pixel-index position `(px, py)` (pixel centers at integers),
/// transparent outside the tile.
@inline(__always)
package func bilinearSample(_ tile: Tile, _ px: Float, _ py: Float) -> SIMD4<Float> {
    let x0f = px.rounded(.down), y0f = py.rounded(.down)
    let fx = px - x0f, fy = py - y0f
    let x0 = Int(x0f), y0 = Int(y0f)
    let r = tile.rect
    @inline(__always) func at(_ x: Int, _ y: Int) -> SIMD4<Float> {
        x >= r.x && x < r.maxX && y >= r.y && y < r.maxY ? tile.pointer(x: x, y: y).pointee : .zero
    }
    let top = at(x0, y0) * (1 - fx) + at(x0 + 1, y0) * fx
    let bottom = at(x0, y0 + 1) * (1 - fx) + at(x0 + 1, y0 + 1) * fx
    return top * (1 - fy) + bottom * fy
}

/// Zoom blur: each output pixel averages bilinear samples at unit spacing along the segment from
/// its center toward `center`, of length `min(amount, distance to center)`. `input` covers
/// `output.rect` grown by `ceil(amount) + 1`.
///
/// - Complexity: O(amount) samples per pixel.
package func zoomBlurTile(_ input: Tile, _ output: Tile, center: SIMD2<Double>, amount: Double) {
    let o = output.rect
    for y in o.y..<o.maxY {
        let d = output.row(y)
        for x in o.x..<o.maxX {
            let px = Double(x) + 0.5, py = Double(y) + 0.5
            let vx = center.x - px, vy = center.y - py
            let dist = (vx * vx + vy * vy).squareRoot()
            let len = Swift.min(amount, dist)
            let n = Swift.max(1, Int(len.rounded(.up)) + 1)
            if n == 1 || dist == 0 {
                d[x - o.x] = input.pointer(x: x, y: y).pointee
                continue
            }
            let sx = vx / dist * len / Double(n - 1), sy = vy / dist * len / Double(n - 1)
            var acc = SIMD4<Float>(repeating: 0)
            for k in 0..<n {
                acc = acc + bilinearSample(input, Float(Double(x) + Double(k) * sx), Float(Double(y) + Double(k) * sy))
            }
            d[x - o.x] = acc * (1 / Float(n))
        }
    }
}
