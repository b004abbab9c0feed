// Kernels of stencils that read two images (see `StencilKernel.reading`): displacement and
// glass warps, He et al.'s guided filter, and shading of a height field by an environment
// image; plus the Gabor gradient bank. Each is a pure function of its input tiles and the
// absolute position of the pixel it computes, so any tiling gives the same pixels.

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// `v` clamped to [0, 1]; NaN gives 0.
@inline(__always) func _clampUnit(_ v: Float) -> Float { v > 0 ? (v < 1 ? v : 1) : 0 }

/// Bilinear sample of `src` at the image position `(px, py)` (pixel centers at half
/// integers), transparent outside `src`, as the warps sample. A position that is not a
/// number, infinite or beyond 2^30 (a gradient of infinite heights, say) is outside: it
/// gives transparent black.
@inline(__always)
func bilinearSampleAtPosition(_ src: Tile, _ px: Double, _ py: Double) -> SIMD4<Float> {
    let fx = px - 0.5, fy = py - 0.5
    guard abs(fx) < 0x1p30, abs(fy) < 0x1p30 else { return .zero }
    let flx = fx.rounded(.down), fly = fy.rounded(.down)
    return bilinearSample(src, Int(flx), Int(fly), Float(fx - flx), Float(fy - fly))
}

/// `a` modulo `b` in [0, b) for `b > 0`.
@inline(__always) func _floorMod(_ a: Int, _ b: Int) -> Int { let m = a % b; return m < 0 ? m + b : m }

// MARK: Displacement

/// `CIDisplacementDistortion` over `out.rect`: each pixel center `p` takes `image` sampled
/// (bilinear) at `p + scale * (clamp(m.r) - 0.5, clamp(m.g) - 0.5)`, where `m` is the
/// displacement map's premultiplied pixel at `p` (components clamped to [0, 1]). `image`
/// must cover `out.rect` grown by `ceil(scale / 2) + 1`, `map` must cover `out.rect`.
///
/// - Complexity: one bilinear sample per pixel.
package func displacementTile(_ image: Tile, _ map: Tile, _ out: Tile, scale: Float) {
    let o = out.rect
    for y in o.y..<o.maxY {
        let m = map.pointer(x: o.x, y: y), d = out.row(y)
        for i in 0..<o.width {
            let v = m[i]
            let dx = scale * (_clampUnit(v.x) - 0.5), dy = scale * (_clampUnit(v.y) - 0.5)
            d[i] = bilinearSampleAtPosition(image, Double(o.x + i) + 0.5 + Double(dx), Double(y) + 0.5 + Double(dy))
        }
    }
}

/// `CIGlassDistortion` over `out.rect`: the texture is repeated over the plane with the top-left
/// of one copy at `origin`; `L` is the Rec. 709 luma of its premultiplied pixels, clamped to
/// [0, 1]; each pixel center `p` takes `image` sampled at
/// `p + scale * ((L(x+1, y) - L(x-1, y)) / 2, (L(x, y+1) - L(x, y-1)) / 2)`, the image seen
/// through glass whose thickness is the texture. `texture` covers the texture's whole extent;
/// `image` covers `out.rect` grown by `ceil(scale / 2) + 1`.
///
/// - Complexity: four texture reads and one bilinear sample per pixel.
package func glassTile(_ image: Tile, _ texture: Tile, _ out: Tile, scale: Float, origin: (x: Int, y: Int)) {
    let o = out.rect, t = texture.rect
    if t.isEmpty { out.clear(); return }
    @inline(__always) func luma(_ x: Int, _ y: Int) -> Float {
        let tx = t.x + _floorMod(x - origin.x, t.width)
        let ty = t.y + _floorMod(y - origin.y, t.height)
        let v = texture.pointer(x: tx, y: ty).pointee * rec709Luma
        return _clampUnit(v.x + v.y + v.z)
    }
    for y in o.y..<o.maxY {
        let d = out.row(y)
        for i in 0..<o.width {
            let x = o.x + i
            let dx = scale * ((luma(x + 1, y) - luma(x - 1, y)) * 0.5)
            let dy = scale * ((luma(x, y + 1) - luma(x, y - 1)) * 0.5)
            d[i] = bilinearSampleAtPosition(image, Double(x) + 0.5 + Double(dx), Double(y) + 0.5 + Double(dy))
        }
    }
}

// MARK: Guided filter

/// The restart block of the guided filter's box means: 8 up to radius 8, then 32 (restart
/// cost about (2r + 1) / 32 additions per pixel, with a halo that stays small).
func guidedFilterBlock(radius r: Int) -> Int { r <= 8 ? 8 : 32 }

/// How far the guided filter reads around its output: two box means, each `r + block - 1`.
package func guidedFilterHalo(radius r: Int) -> Int { 2 * (r + guidedFilterBlock(radius: r) - 1) }

/// He, Sun and Tang's guided filter ("Guided Image Filtering", ECCV 2010 / TPAMI 2013) with a
/// gray guide, over `out.rect`: with `I` the Rec. 709 luma of the guide's premultiplied pixel
/// and `p` the input's premultiplied pixel (all four channels filtered alike), and `mean` the
/// box mean of radius `r`,
///
///     a = (mean(I p) - mean(I) mean(p)) / (mean(I^2) - mean(I)^2 + epsilon)
///     b = mean(p) - a mean(I)
///     q = mean(a) I + mean(b)
///
/// (`a = 0` where the denominator is below 1e-7). `p` and `guide` must cover `out.rect` grown by
/// `guidedFilterHalo(radius:)`. Box means are running sums restarting at absolute multiples
/// of the block (`boxMeanTile`), so tiles agree bit for bit.
///
/// - Complexity: five box means, about 40 operations per pixel whatever the radius; scratch
///   about eight tiles of the output grown by the halo.
package func guidedFilterTile(_ p: Tile, _ guide: Tile, _ out: Tile, radius r: Int, epsilon: Float, arena: Arena) {
    let block = guidedFilterBlock(radius: r)
    let h1 = r + block - 1
    let mid = out.rect.outset(h1, h1), full = out.rect.outset(2 * h1, 2 * h1)
    let g = arena.tile(full), ip = arena.tile(full)
    for y in full.y..<full.maxY {
        let gs = guide.pointer(x: full.x, y: y), ps = p.pointer(x: full.x, y: y)
        let gd = g.row(y), id = ip.row(y)
        for i in 0..<full.width {
            let v = gs[i] * rec709Luma
            let l = v.x + v.y + v.z
            gd[i] = SIMD4(l, l * l, 0, 0)
            id[i] = ps[i] * l
        }
    }
    let mG = arena.tile(mid), mP = arena.tile(mid), mIP = arena.tile(mid)
    boxMeanTile(g, mG, radius: r, block: block, arena: arena)
    boxMeanTile(p, mP, radius: r, block: block, arena: arena)
    boxMeanTile(ip, mIP, radius: r, block: block, arena: arena)
    // a into mIP, b into mP.
    for y in mid.y..<mid.maxY {
        let gr = mG.row(y), pr = mP.row(y), ir = mIP.row(y)
        for i in 0..<mid.width {
            let mi = gr[i].x
            let variance = gr[i].y - mi * mi
            let den = (variance > 0 ? variance : 0) + epsilon
            let a: SIMD4<Float> = den > 1e-7 ? (ir[i] - pr[i] * mi) / den : .zero
            ir[i] = a
            pr[i] = pr[i] - a * mi
        }
    }
    let mA = arena.tile(out.rect)
    boxMeanTile(mIP, mA, radius: r, block: block, arena: arena)
    boxMeanTile(mP, out, radius: r, block: block, arena: arena)
    for y in out.rect.y..<out.rect.maxY {
        let ar = mA.row(y), d = out.row(y), gr = g.pointer(x: out.rect.x, y: y)
        for i in 0..<out.rect.width { d[i] = ar[i] * gr[i].x + d[i] }
    }
}

// MARK: Gabor gradients

/// The odd (sine-phase) Gabor kernel behind `CIGaborGradients`, 5 x 5, for the x derivative:
/// `w(dx, dy) = exp(-(dx^2 + dy^2) / (2 sigma^2)) sin(2 pi dx / lambda)` with sigma 1.25 and
/// lambda 6 pixels, scaled so that a ramp of slope 1 gives exactly 1. Row-major, `dy` from -2.
/// The y kernel is its transpose.
let gaborKernel5x5: [Float] = {
    let sigma = 1.25, lambda = 6.0
    var w = [Double](repeating: 0, count: 25)
    var slope = 0.0
    for j in -2...2 {
        for i in -2...2 {
            let v = exp(-Double(i * i + j * j) / (2 * sigma * sigma)) * sin(2 * Double.pi * Double(i) / lambda)
            w[(j + 2) * 5 + (i + 2)] = v
            slope += v * Double(i)
        }
    }
    return w.map { Float($0 / slope) }
}()

/// `CIGaborGradients` over `out.rect` from `input` (covering `out.rect` grown by 2): the x and
/// y Gabor responses of red, green and blue; the output's red is the x response of largest
/// magnitude (signed), green the y response of largest magnitude (signed), blue
/// `sqrt(red^2 + green^2)`, alpha 1.
///
/// - Complexity: 50 SIMD multiply-adds per pixel.
package func gaborGradientsTile(_ input: Tile, _ out: Tile) {
    let o = out.rect
    gaborKernel5x5.withUnsafeBufferPointer { w in
        for y in o.y..<o.maxY {
            let d = out.row(y)
            for i in 0..<o.width {
                let x = o.x + i
                var gx = SIMD4<Float>.zero, gy = SIMD4<Float>.zero
                for j in 0..<5 {
                    let row = input.pointer(x: x - 2, y: y - 2 + j)
                    for k in 0..<5 {
                        let v = row[k]
                        gx = gx + v * w[j * 5 + k]
                        gy = gy + v * w[k * 5 + j]
                    }
                }
                let rx = _largestMagnitude(gx), ry = _largestMagnitude(gy)
                d[i] = SIMD4(rx, ry, (rx * rx + ry * ry).squareRoot(), 1)
            }
        }
    }
}

/// The one of `v.x`, `v.y`, `v.z` with the largest magnitude (the first on ties).
@inline(__always) func _largestMagnitude(_ v: SIMD4<Float>) -> Float {
    var best = v.x
    if Swift.abs(v.y) > Swift.abs(best) { best = v.y }
    if Swift.abs(v.z) > Swift.abs(best) { best = v.z }
    return best
}

// MARK: Shaded material

/// `CIShadedMaterial` over `out.rect`: the height `h` is the Rec. 709 luma of the height
/// image's premultiplied pixel; its central differences times `scale` give the surface normal
/// `n = normalize(-scale dh/dx, -scale dh/dy, 1)`; the output is the shading image sampled
/// (bilinear) at `c + R (n.x, n.y)`, with `c` the center of the shading image's extent and `R`
/// half its smaller side less half a pixel (a sphere seen from the front: its center shows the
/// color of a flat surface), times the height image's alpha. `height` covers `out.rect` grown
/// by 1; `shading` covers the shading image's extent.
///
/// - Complexity: five reads and one bilinear sample per pixel.
package func shadedMaterialTile(_ height: Tile, _ shading: Tile, _ out: Tile, scale: Float) {
    let o = out.rect, s = shading.rect
    if s.isEmpty { out.clear(); return }
    let cx = Double(s.x) + Double(s.width) / 2, cy = Double(s.y) + Double(s.height) / 2
    let radius = Swift.max(0, Double(Swift.min(s.width, s.height)) / 2 - 0.5)
    @inline(__always) func h(_ x: Int, _ y: Int) -> Float {
        let v = height.pointer(x: x, y: y).pointee * rec709Luma
        return v.x + v.y + v.z
    }
    for y in o.y..<o.maxY {
        let d = out.row(y)
        for i in 0..<o.width {
            let x = o.x + i
            let gx = scale * ((h(x + 1, y) - h(x - 1, y)) * 0.5)
            let gy = scale * ((h(x, y + 1) - h(x, y - 1)) * 0.5)
            let len = (Double(gx) * Double(gx) + Double(gy) * Double(gy) + 1).squareRoot()
            let nx = -Double(gx) / len, ny = -Double(gy) / len
            let c = bilinearSampleAtPosition(shading, cx + radius * nx, cy + radius * ny)
            d[i] = c * height.pointer(x: x, y: y).pointee.w
        }
    }
}
