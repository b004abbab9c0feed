import CSIMD

// Grey-scale morphology on rows of `SIMD4<Float>`: running maxima and minima per channel.
// Maximum and minimum are exact, so results never depend on evaluation order or tiling
// (for NaN lanes `pf_max4`/`pf_min4` return the other operand; -0 and +0 may come out either way).

/// The per-channel maximum or minimum, as a type so kernels specialize for each.
package protocol _Extremum {
    static func pick(_ a: SIMD4<Float>, _ b: SIMD4<Float>) -> SIMD4<Float>
}

package enum _Maximum: _Extremum {
    @inline(__always) package static func pick(_ a: SIMD4<Float>, _ b: SIMD4<Float>) -> SIMD4<Float> { pf_max4(a, b) }
}

package enum _Minimum: _Extremum {
    @inline(__always) package static func pick(_ a: SIMD4<Float>, _ b: SIMD4<Float>) -> SIMD4<Float> { pf_min4(a, b) }
}

/// Windows up to this many pixels are scanned directly; wider ones use van Herk/Gil-Werman.
let directExtremumLimit = 7

/// `dst[i] = E(src[i ..< i + width])` for `count` outputs, scanning each window.
/// - Complexity: `width - 1` operations per pixel.
@inline(__always)
func extremumRowDirect<E: _Extremum>(
    _: E.Type, _ src: UnsafePointer<SIMD4<Float>>, width: Int, count: Int,
    into dst: UnsafeMutablePointer<SIMD4<Float>>
) {
    if width == 1 { dst.update(from: src, count: count); return }
    if width == 3 {
        for i in 0..<count { dst[i] = E.pick(E.pick(src[i], src[i + 1]), src[i + 2]) }
        return
    }
    if width == 5 {
        // Pairs shared by neighbouring windows: p[i] = E(src[i], src[i+1]).
        var i = 0
        while i < count {
            let a = E.pick(src[i + 1], src[i + 2]), b = E.pick(src[i + 3], src[i + 4])
            dst[i] = E.pick(E.pick(src[i], a), b)
            i &+= 1
        }
        return
    }
    for i in 0..<count {
        var m = src[i]
        for k in 1..<width { m = E.pick(m, src[i + k]) }
        dst[i] = m
    }
}

/// `dst[i] = E(src[i ..< i + width])` for `count` outputs by van Herk/Gil-Werman: the
/// extremum of a window is that of a block suffix and the next block's prefix, with blocks of
/// `width` pixels aligned to absolute multiples of `width` (`srcStart` is the absolute position
/// of `src[0]`). `scratch` holds `2 * (count + width)` pixels.
///
/// - Complexity: 3 operations per pixel whatever `width` (van Herk 1992; Gil and Werman 1993).
func extremumRowVanHerk<E: _Extremum>(
    _: E.Type, _ src: UnsafePointer<SIMD4<Float>>, srcStart: Int, width w: Int,
    count: Int, into dst: UnsafeMutablePointer<SIMD4<Float>>,
    scratch: UnsafeMutablePointer<SIMD4<Float>>
) {
    if count <= 0 { return }
    @inline(__always) func phase(_ p: Int) -> Int { let m = (srcStart + p) % w; return m < 0 ? m + w : m }
    // suffix[p] = E(src[p ... end of p's block]) for p in 0..<count; the block end of p lies at
    // most w - 1 further, inside src.
    let suffix = scratch
    let prefix = scratch + count + w
    var p = count - 1 + (w - 1 - phase(count - 1))
    var m = src[p]
    while p >= 0 {
        if phase(p) == w - 1 { m = src[p] } else { m = E.pick(m, src[p]) }
        if p < count { suffix[p] = m }
        p -= 1
    }
    // prefix[j] = E(src[start of j's block ... j]) for j in w - 1 ..< count + w - 1; the block
    // start of j is at least j - w + 1 >= 0.
    var j = (w - 1) - phase(w - 1)
    var run = src[j]
    while j < count + w - 1 {
        if phase(j) == 0 { run = src[j] } else { run = E.pick(run, src[j]) }
        if j >= w - 1 { prefix[j] = run }
        j += 1
    }
    for i in 0..<count { dst[i] = E.pick(suffix[i], prefix[i + w - 1]) }
}

/// `dst[x] = E(rows[0][x], ..., rows[n-1][x])` for `count` pixels.
@inline(__always)
func extremumRows<E: _Extremum>(
    _: E.Type, _ rows: UnsafePointer<UnsafePointer<SIMD4<Float>>>, _ n: Int, count: Int,
    into dst: UnsafeMutablePointer<SIMD4<Float>>
) {
    dst.update(from: rows[0], count: count)
    for k in 1..<Swift.max(1, n) {
        let r = rows[k]
        for x in 0..<count { dst[x] = E.pick(dst[x], r[x]) }
    }
}

/// Rectangle erosion or dilation over `output.rect`: the extremum of a `width` x `height`
/// window centered on each pixel (both odd), from `input` covering `output.rect` grown by
/// `width / 2`, `height / 2`. Separable: rows, then columns.
///
/// - Complexity: per pixel `min(width - 1, 3) + min(height - 1, 3)` operations (van Herk above
///   `directExtremumLimit`); scratch `(height + tileHeight)` rows.
@_specialize(exported:true,where E == _Maximum)
@_specialize(exported:true,where E == _Minimum)
package func rectangleExtremumTile<E: _Extremum>(
    _ e: E.Type, _ input: Tile, _ output: Tile, width: Int, height: Int, arena: Arena
) {
    let o = output.rect
    if o.isEmpty { return }
    let rx = width / 2, ry = height / 2
    let w = o.width
    let rowsCount = o.height + 2 * ry
    let h = arena.allocate(w * rowsCount, of: SIMD4<Float>.self)
    let scratch = arena.allocate(2 * (w + width), of: SIMD4<Float>.self)
    for j in 0..<rowsCount {
        let src = UnsafePointer(input.pointer(x: o.x - rx, y: o.y - ry + j))
        if width <= directExtremumLimit {
            extremumRowDirect(E.self, src, width: width, count: w, into: h + j * w)
        } else {
            extremumRowVanHerk(E.self, src, srcStart: o.x - rx, width: width, count: w, into: h + j * w, scratch: scratch)
        }
    }
    if height <= directExtremumLimit {
        let rows = arena.allocate(height, of: UnsafePointer<SIMD4<Float>>.self)
        for y in 0..<o.height {
            for k in 0..<height { rows[k] = UnsafePointer(h + (y + k) * w) }
            extremumRows(E.self, rows, height, count: w, into: output.row(o.y + y))
        }
        return
    }
    // Van Herk down the columns: suffix rows and prefix rows within blocks of `height` rows
    // aligned to absolute multiples of `height`.
    let suffix = arena.allocate(w * rowsCount, of: SIMD4<Float>.self)
    let prefix = arena.allocate(w * rowsCount, of: SIMD4<Float>.self)
    let top = o.y - ry  // absolute row of h's row 0
    func isBlockStart(_ j: Int) -> Bool { GaussianPlan.floorDiv(top + j, height) * height == top + j }
    // prefix rows
    for j in 0..<rowsCount {
        let s = h + j * w, d = prefix + j * w
        if j == 0 || isBlockStart(j) {
            d.update(from: s, count: w)
        } else {
            let prev = prefix + (j - 1) * w
            for x in 0..<w { d[x] = E.pick(prev[x], s[x]) }
        }
    }
    // suffix rows
    var j = rowsCount - 1
    while j >= 0 {
        let s = h + j * w, d = suffix + j * w
        if j == rowsCount - 1 || isBlockStart(j + 1) {
            d.update(from: s, count: w)
        } else {
            let next = suffix + (j + 1) * w
            for x in 0..<w { d[x] = E.pick(next[x], s[x]) }
        }
        j -= 1
    }
    // Output row y covers h rows y ... y + height - 1: the suffix of row y ends at its block end
    // (at most y + height - 1) and the prefix of row y + height - 1 starts at its block start
    // (at least y), so the partial runs at the top and bottom of h are never read.
    for y in 0..<o.height {
        let a = suffix + y * w, b = prefix + (y + height - 1) * w, d = output.row(o.y + y)
        for x in 0..<w { d[x] = E.pick(a[x], b[x]) }
    }
}

/// Erosion or dilation with a disc of radius `radius` (pixels with `dx^2 + dy^2 <= radius^2`):
/// for each output row, the extremum over the rows `dy` of a horizontal window of half-width
/// `floor(sqrt(radius^2 - dy^2))`. `input` covers `output.rect` grown by `floor(radius)`.
///
/// - Complexity: O(radius) per pixel (about 4 operations per disc row, van Herk for wide
///   rows); scratch three rows.
@_specialize(exported:true,where E == _Maximum)
@_specialize(exported:true,where E == _Minimum)
package func discExtremumTile<E: _Extremum>(_ e: E.Type, _ input: Tile, _ output: Tile, spans: [SpanTerm], arena: Arena) {
    let o = output.rect
    if o.isEmpty { return }
    let w = o.width
    let maxH = spans.map(\.halfWidth).max() ?? 0
    let tmp = arena.allocate(w, of: SIMD4<Float>.self)
    let scratch = arena.allocate(2 * (w + 2 * maxH + 1), of: SIMD4<Float>.self)
    for y in o.y..<o.maxY {
        let d = output.row(y)
        var first = true
        for t in spans {
            let width = 2 * t.halfWidth + 1
            let src = UnsafePointer(input.pointer(x: o.x - t.halfWidth, y: y + t.dy))
            let target = first ? d : tmp
            if width <= directExtremumLimit {
                extremumRowDirect(E.self, src, width: width, count: w, into: target)
            } else {
                extremumRowVanHerk(
                    E.self, src, srcStart: o.x - t.halfWidth, width: width, count: w, into: target, scratch: scratch)
            }
            if !first { for x in 0..<w { d[x] = E.pick(d[x], tmp[x]) } }
            first = false
        }
    }
}
