// Box sums with running sums that restart at fixed absolute positions, so that every output is
// computed by the same additions whatever tile or region it falls in (see `StencilKernel`).
//
// A running sum started at absolute position `b` (a multiple of `block`) is a direct sum of the
// window at `b`, in order, followed by one `+ (entering - leaving)` per step. An output at `c`
// therefore depends only on `c`, the radius and `block`, never on where a tile starts; the price
// is that a tile must compute from the block start at or before its first output, so the
// kernels' halo is `radius + block - 1`.

/// Sums of `2 * radius + 1` pixels along a row: `dst[i] = sum(src[i - radius ... i + radius])`
/// for `count` outputs, where output 0 sits at an absolute position that is a multiple of
/// `block`, and the sum restarts (a direct sum in window order) at every multiple of `block`.
/// `src` points at the input pixel under output 0 and must be readable `radius` pixels on each
/// side. Unscaled.
///
/// - Complexity: 2 additions per pixel plus `(2 radius + 1) / block` for the restarts.
/// - Tolerance against a direct sum: `block * (2 radius + 1)` ulps of the largest value.
@inline(__always)
func boxSumRowRestarting(
    _ src: UnsafePointer<SIMD4<Float>>, count: Int, radius r: Int, block: Int,
    into dst: UnsafeMutablePointer<SIMD4<Float>>
) {
    var b = 0
    while b < count {
        let s = src + b
        var acc = s[-r]
        var k = -r + 1
        while k <= r { acc = acc + s[k]; k &+= 1 }
        dst[b] = acc
        let n = Swift.min(block, count - b)
        var i = 1
        while i < n {
            acc = acc + (s[i + r] - s[i - r - 1])
            dst[b + i] = acc
            i &+= 1
        }
        b += block
    }
}

/// A box mean of radius `r` (a `(2r+1)^2` square) over `output.rect`, from `input`, which must
/// cover `output.rect` grown by `r + block - 1` on every side (transparent outside the image).
/// Running sums restart at absolute multiples of `block` on both axes, so any tiling gives the
/// same pixels bit for bit.
///
/// - Complexity: about 4 additions and 1 multiplication per pixel, plus
///   `2 (2r + 1) / block` for restarts; scratch `(width + block) x (height + 2r + block)` pixels.
package func boxMeanTile(_ input: Tile, _ output: Tile, radius r: Int, block: Int, arena: Arena) {
    let o = output.rect
    if o.isEmpty { return }
    let hs = GaussianPlan.floorDiv(o.x, block) * block
    let vs = GaussianPlan.floorDiv(o.y, block) * block
    let w = o.maxX - hs
    let rows = o.maxY - vs + 2 * r
    let h = arena.allocate(w * rows, of: SIMD4<Float>.self)
    // Horizontal sums for rows vs - r ..< o.maxY + r.
    for j in 0..<rows {
        boxSumRowRestarting(
            UnsafePointer(input.pointer(x: hs, y: vs - r + j)), count: w, radius: r, block: block,
            into: h + j * w)
    }
    // Vertical running sums over the columns the output needs.
    let c0 = o.x - hs, cw = o.width
    let acc = arena.allocate(cw, of: SIMD4<Float>.self)
    let side = Float(2 * r + 1)
    let scale = 1 / (side * side)
    var y = vs
    while y < o.maxY {
        let i = y - vs  // row of h holding absolute row y - r
        if y % block == 0 {
            let first = h + i * w + c0
            acc.update(from: first, count: cw)
            var k = 1
            while k <= 2 * r {
                let row = h + (i + k) * w + c0
                for x in 0..<cw { acc[x] = acc[x] + row[x] }
                k += 1
            }
        } else {
            let add = h + (i + 2 * r) * w + c0, sub = h + (i - 1) * w + c0
            for x in 0..<cw { acc[x] = acc[x] + (add[x] - sub[x]) }
        }
        if y >= o.y {
            let d = output.row(y)
            for x in 0..<cw { d[x] = acc[x] * scale }
        }
        y += 1
    }
}

/// Box-blur kernel parameters: the restart block for a radius, and whether the kernel runs
/// tile-local or over the whole region.
package enum BoxPlan {
    /// Radii up to this run inside each tile; larger ones as a whole-region pass.
    package static let tileLocalLimit = 8

    /// Running sums restart every `block(radius:)` pixels: 8 for small radii (little extra halo
    /// per tile), and a power of two at least `2r + 1` above, so the restarts' direct sums cost
    /// under one addition per pixel.
    package static func block(radius r: Int) -> Int {
        if r <= tileLocalLimit { return 8 }
        var b = 64
        while b < 2 * r + 1 { b *= 2 }
        return b
    }

    /// Output pieces of a whole-region pass: rows and columns cut at absolute multiples of
    /// `size` (itself a multiple of the block), so each piece starts on a restart.
    package static func pieces(of rect: IntRect, size: Int) -> [IntRect] {
        var out: [IntRect] = []
        var y = rect.y
        while y < rect.maxY {
            let y1 = Swift.min(rect.maxY, (GaussianPlan.floorDiv(y, size) + 1) * size)
            var x = rect.x
            while x < rect.maxX {
                let x1 = Swift.min(rect.maxX, (GaussianPlan.floorDiv(x, size) + 1) * size)
                out.append(IntRect(x: x, y: y, width: x1 - x, height: y1 - y))
                x = x1
            }
            y = y1
        }
        return out
    }
}

/// One horizontal span of a footprint made of rows: row offset `dy`, half-width `halfWidth`
/// (the span covers `x - halfWidth ... x + halfWidth`) and its weight.
package struct SpanTerm: Sendable, Hashable {
    package var dy: Int
    package var halfWidth: Int
    package var weight: Float
}

/// The spans of a disc of radius `radius`: row `dy` covers `|dx| <= floor(sqrt(radius^2 - dy^2))`
/// for `|dy| <= floor(radius)`.
package func discSpans(radius: Double, weight: Float = 1) -> [SpanTerm] {
    let R = Int(radius.rounded(.down))
    if R < 0 { return [] }
    return (-R...R).map { dy in
        let h = Int((radius * radius - Double(dy * dy)).squareRoot().rounded(.down))
        return SpanTerm(dy: dy, halfWidth: Swift.max(0, h), weight: weight)
    }
}

/// `out(x, y) = scale * sum_t t.weight * sum(in[y + t.dy][x - t.halfWidth ... x + t.halfWidth])`:
/// a footprint made of horizontal spans (a disc, a ring), each summed with a running sum that
/// restarts at absolute multiples of `block`, terms added in order. `input` covers `output.rect`
/// grown by `max halfWidth + block - 1` across and `max |dy|` down.
///
/// - Complexity: about 3 additions per pixel per term, so O(r) for a disc of radius r;
///   scratch two rows.
package func spanSumTile(_ input: Tile, _ output: Tile, terms: [SpanTerm], scale: Float, block: Int, arena: Arena) {
    let o = output.rect
    if o.isEmpty { return }
    let hs = GaussianPlan.floorDiv(o.x, block) * block
    let w = o.maxX - hs, c0 = o.x - hs, cw = o.width
    let tmp = arena.allocate(w, of: SIMD4<Float>.self)
    let acc = arena.allocate(cw, of: SIMD4<Float>.self)
    terms.withUnsafeBufferPointer { ts in
        for y in o.y..<o.maxY {
            acc.update(repeating: .zero, count: cw)
            for t in ts {
                boxSumRowRestarting(
                    UnsafePointer(input.pointer(x: hs, y: y + t.dy)), count: w, radius: t.halfWidth,
                    block: block, into: tmp)
                let s = tmp + c0
                if t.weight == 1 {
                    for x in 0..<cw { acc[x] = acc[x] + s[x] }
                } else {
                    let wt = t.weight
                    for x in 0..<cw { acc[x] = acc[x] + s[x] * wt }
                }
            }
            let d = output.row(y)
            for x in 0..<cw { d[x] = acc[x] * scale }
        }
    }
}
