import CSIMD
import Foundation

// Edge detectors for the Stylize filters, over tiles of premultiplied `SIMD4<Float>`.
// Every output pixel is computed from its own neighbourhood by a fixed sequence of
// operations, so results never depend on tiling or threads.
//
// Sobel weights are the classic [-1 0 1; -2 0 2; -1 0 1] (and its transpose, y pointing down).

/// Rec. 709 luma of a working-space pixel (premultiplied values give premultiplied luma).
@inline(__always) package func edgeLuma(_ p: SIMD4<Float>) -> Float {
    let v = p * rec709Luma
    return v.x + v.y + v.z
}

/// `CIEdges` over `output.rect`: per channel, `intensity * sqrt(gx^2 + gy^2)` of the raw
/// Sobel gradients (a unit step gives 4); alpha is 1. `input` covers `output.rect` grown by 1.
/// - Complexity: about 20 operations and one vector square root per pixel.
package func edgesTile(_ input: Tile, _ output: Tile, intensity: Float) {
    let o = output.rect
    for y in o.y..<o.maxY {
        let a = UnsafePointer(input.pointer(x: o.x - 1, y: y - 1)), b = UnsafePointer(input.pointer(x: o.x - 1, y: y)),
            c = UnsafePointer(input.pointer(x: o.x - 1, y: y + 1))
        let d = output.row(y)
        for x in 0..<o.width {
            let gx = (a[x + 2] - a[x]) + (b[x + 2] - b[x]) * 2 + (c[x + 2] - c[x])
            let gy = (c[x] - a[x]) + (c[x + 1] - a[x + 1]) * 2 + (c[x + 2] - a[x + 2])
            var m = pf_sqrt4(gx * gx + gy * gy) * intensity
            m.w = 1
            d[x] = m
        }
    }
}

/// `CISobelGradients` over `output.rect`: `(gx, gy, 0, 1)` with the raw (unnormalized,
/// signed) Sobel gradients of the Rec. 709 luma. `input` covers `output.rect` grown by 1.
package func sobelGradientsTile(_ input: Tile, _ output: Tile) {
    let o = output.rect
    for y in o.y..<o.maxY {
        let a = UnsafePointer(input.pointer(x: o.x - 1, y: y - 1)), b = UnsafePointer(input.pointer(x: o.x - 1, y: y)),
            c = UnsafePointer(input.pointer(x: o.x - 1, y: y + 1))
        let d = output.row(y)
        for x in 0..<o.width {
            let a0 = edgeLuma(a[x]), a1 = edgeLuma(a[x + 1]), a2 = edgeLuma(a[x + 2])
            let b0 = edgeLuma(b[x]), b2 = edgeLuma(b[x + 2])
            let c0 = edgeLuma(c[x]), c1 = edgeLuma(c[x + 1]), c2 = edgeLuma(c[x + 2])
            let gx = (a2 - a0) + (b2 - b0) * 2 + (c2 - c0)
            let gy = (c0 - a0) + (c1 - a1) * 2 + (c2 - a2)
            d[x] = SIMD4(gx, gy, 0, 1)
        }
    }
}

/// A plane of `Float` with its absolute origin, for multi-step scalar stencils.
struct EdgePlane {
    package var base: UnsafeMutablePointer<Float>
    package var x0: Int, y0: Int, width: Int, height: Int
    init(_ arena: Arena, x0: Int, y0: Int, width: Int, height: Int) {
        base = arena.allocate(Swift.max(1, width * height), of: Float.self)
        self.x0 = x0; self.y0 = y0; self.width = width; self.height = height
    }
    @inline(__always) subscript(x: Int, y: Int) -> Float {
        get { base[(y - y0) * width + (x - x0)] }
        nonmutating set { base[(y - y0) * width + (x - x0)] = newValue }
    }
}

/// The luma plane of `input` over `output.rect` grown by `g` on every side.
func lumaPlane(_ input: Tile, around o: IntRect, grow g: Int, perceptual: Bool = false, arena: Arena) -> EdgePlane {
    let p = EdgePlane(arena, x0: o.x - g, y0: o.y - g, width: o.width + 2 * g, height: o.height + 2 * g)
    for y in p.y0..<(p.y0 + p.height) {
        let s = input.pointer(x: p.x0, y: y)
        for i in 0..<p.width {
            var l = edgeLuma(s[i])
            if perceptual { l = Swift.max(0, l).squareRoot() }
            p[p.x0 + i, y] = l
        }
    }
    return p
}

/// Sobel gradients of a plane, normalized to a derivative (divided by 8), at `(x, y)`.
@inline(__always) func planeSobel(_ p: EdgePlane, _ x: Int, _ y: Int) -> (Float, Float) {
    let a0 = p[x - 1, y - 1], a1 = p[x, y - 1], a2 = p[x + 1, y - 1]
    let b0 = p[x - 1, y], b2 = p[x + 1, y]
    let c0 = p[x - 1, y + 1], c1 = p[x, y + 1], c2 = p[x + 1, y + 1]
    let gx = ((a2 - a0) + (b2 - b0) * 2 + (c2 - c0)) * 0.125
    let gy = ((c0 - a0) + (c1 - a1) * 2 + (c2 - a2)) * 0.125
    return (gx, gy)
}

/// The halo `cannyTile` needs: the Gaussian's radius, 1 for Sobel, 1 for non-maximum
/// suppression and 1 per hysteresis pass.
package func cannyHalo(taps: Int, passes: Int) -> Int { taps / 2 + 2 + passes }

/// Canny edge detection over `output.rect`, tile-local: Rec. 709 luma (its square root when
/// `perceptual`), the separable Gaussian `taps`, Sobel gradients divided by 8, non-maximum
/// suppression along the gradient direction quantized to 0/45/90/135 degrees (a pixel is kept
/// when its magnitude is > the neighbour behind it and >= the one ahead), then thresholds:
/// strong `>= high`, weak `>= low`. Hysteresis is limited to `passes` rounds, each promoting a
/// weak pixel with a strong 8-neighbour to strong, so an edge grows at most `passes` pixels
/// from a strong one (unlike unbounded hysteresis). Output white `(1,1,1,1)` on strong, black
/// opaque elsewhere. `input` covers `output.rect` grown by `cannyHalo`.
package func cannyTile(
    _ input: Tile, _ output: Tile, taps: [Float], perceptual: Bool, high: Float, low: Float, passes: Int,
    arena: Arena
) {
    let o = output.rect
    if o.isEmpty { return }
    let r = taps.count / 2
    let halo = cannyHalo(taps: taps.count, passes: passes)
    let lum = lumaPlane(input, around: o, grow: halo, perceptual: perceptual, arena: arena)
    let gb = 2 + passes
    // Horizontal pass over all rows of `lum`, columns grown by gb.
    let hb = EdgePlane(arena, x0: o.x - gb, y0: lum.y0, width: o.width + 2 * gb, height: lum.height)
    for y in hb.y0..<(hb.y0 + hb.height) {
        for x in hb.x0..<(hb.x0 + hb.width) {
            var acc: Float = 0
            for k in 0..<taps.count { acc += taps[k] * lum[x - r + k, y] }
            hb[x, y] = acc
        }
    }
    let bl = EdgePlane(arena, x0: o.x - gb, y0: o.y - gb, width: o.width + 2 * gb, height: o.height + 2 * gb)
    for y in bl.y0..<(bl.y0 + bl.height) {
        for x in bl.x0..<(bl.x0 + bl.width) {
            var acc: Float = 0
            for k in 0..<taps.count { acc += taps[k] * hb[x, y - r + k] }
            bl[x, y] = acc
        }
    }
    let gm = 1 + passes
    let mag = EdgePlane(arena, x0: o.x - gm, y0: o.y - gm, width: o.width + 2 * gm, height: o.height + 2 * gm)
    let dir = EdgePlane(arena, x0: mag.x0, y0: mag.y0, width: mag.width, height: mag.height)
    for y in mag.y0..<(mag.y0 + mag.height) {
        for x in mag.x0..<(mag.x0 + mag.width) {
            let (gx, gy) = planeSobel(bl, x, y)
            mag[x, y] = (gx * gx + gy * gy).squareRoot()
            dir[x, y] = cannyDirection(gx, gy)
        }
    }
    var cls = EdgePlane(arena, x0: o.x - passes, y0: o.y - passes, width: o.width + 2 * passes, height: o.height + 2 * passes)
    for y in cls.y0..<(cls.y0 + cls.height) {
        for x in cls.x0..<(cls.x0 + cls.width) {
            let m = mag[x, y]
            let (dx, dy) = cannyStep(dir[x, y])
            let keep = m > mag[x - dx, y - dy] && m >= mag[x + dx, y + dy]
            cls[x, y] = !keep ? 0 : (m >= high ? 2 : (m >= low ? 1 : 0))
        }
    }
    var p = passes
    while p > 0 {
        p -= 1
        let next = EdgePlane(arena, x0: o.x - p, y0: o.y - p, width: o.width + 2 * p, height: o.height + 2 * p)
        for y in next.y0..<(next.y0 + next.height) {
            for x in next.x0..<(next.x0 + next.width) {
                var c = cls[x, y]
                if c == 1 {
                    for j in -1...1 { for i in -1...1 where cls[x + i, y + j] == 2 { c = 2 } }
                }
                next[x, y] = c
            }
        }
        cls = next
    }
    for y in o.y..<o.maxY {
        let d = output.row(y)
        for x in 0..<o.width {
            let v: Float = cls[o.x + x, y] == 2 ? 1 : 0
            d[x] = SIMD4(v, v, v, 1)
        }
    }
}

/// The gradient direction quantized: 0 horizontal gradient, 1 vertical, 2 down-right
/// diagonal (y down), 3 down-left. tan(22.5 degrees) = 0.41421356.
@inline(__always) func cannyDirection(_ gx: Float, _ gy: Float) -> Float {
    let ax = Swift.abs(gx), ay = Swift.abs(gy)
    if ay <= ax * 0.41421356 { return 0 }
    if ax <= ay * 0.41421356 { return 1 }
    return gx * gy > 0 ? 2 : 3
}

@inline(__always) func cannyStep(_ d: Float) -> (Int, Int) {
    switch d {
    case 0: return (1, 0)
    case 1: return (0, 1)
    case 2: return (1, 1)
    default: return (-1, 1)
    }
}

/// `CILineOverlay`'s edge alpha over `output.rect`: on the Rec. 709 luma, a 3x3 sigma filter
/// (the mean of the neighbours within `noise` of the center), then a 3x3 sharpening
/// `s = f + sharpness * (f - mean3x3(f))`, then `e = edgeIntensity * |Sobel(s)| / 8`, and
/// `alpha = clamp((e - threshold) * contrast, 0, 1)`; the output is black `(0, 0, 0, alpha)`
/// premultiplied. `input` covers `output.rect` grown by 3.
package func lineOverlayTile(
    _ input: Tile, _ output: Tile, noise: Float, sharpness: Float, edgeIntensity: Float,
    threshold: Float, contrast: Float, arena: Arena
) {
    let o = output.rect
    if o.isEmpty { return }
    let lum = lumaPlane(input, around: o, grow: 3, arena: arena)
    let f = EdgePlane(arena, x0: o.x - 2, y0: o.y - 2, width: o.width + 4, height: o.height + 4)
    for y in f.y0..<(f.y0 + f.height) {
        for x in f.x0..<(f.x0 + f.width) {
            let c = lum[x, y]
            var sum: Float = 0, n: Float = 0
            for j in -1...1 {
                for i in -1...1 {
                    let v = lum[x + i, y + j]
                    if Swift.abs(v - c) <= noise { sum += v; n += 1 }
                }
            }
            f[x, y] = n > 0 ? sum / n : c
        }
    }
    let s = EdgePlane(arena, x0: o.x - 1, y0: o.y - 1, width: o.width + 2, height: o.height + 2)
    for y in s.y0..<(s.y0 + s.height) {
        for x in s.x0..<(s.x0 + s.width) {
            var sum: Float = 0
            for j in -1...1 { for i in -1...1 { sum += f[x + i, y + j] } }
            let c = f[x, y]
            s[x, y] = c + sharpness * (c - sum / 9)
        }
    }
    for y in o.y..<o.maxY {
        let d = output.row(y)
        for x in 0..<o.width {
            let (gx, gy) = planeSobel(s, o.x + x, y)
            let e = edgeIntensity * (gx * gx + gy * gy).squareRoot()
            let a = Swift.min(1, Swift.max(0, (e - threshold) * contrast))
            d[x] = SIMD4(0, 0, 0, a)
        }
    }
}

/// `CIComicEffect`'s ink over `output.rect`: `v = 1 - clamp((|Sobel(luma)| / 8 - 0.04) * 8, 0, 1)`,
/// output `(v, v, v, 1)`. `input` covers `output.rect` grown by 1.
package func comicInkTile(_ input: Tile, _ output: Tile, arena: Arena) {
    let o = output.rect
    if o.isEmpty { return }
    let lum = lumaPlane(input, around: o, grow: 1, arena: arena)
    for y in o.y..<o.maxY {
        let d = output.row(y)
        for x in 0..<o.width {
            let (gx, gy) = planeSobel(lum, o.x + x, y)
            let m = (gx * gx + gy * gy).squareRoot()
            let v = 1 - Swift.min(1, Swift.max(0, (m - 0.04) * 8))
            d[x] = SIMD4(v, v, v, 1)
        }
    }
}

/// The spot light factor at pixel center `(px, py)` on the plane z = 0 with normal (0, 0, 1):
/// `brightness * max(0, L.z) * max(0, -L . S)^concentration`, where `L` is the unit vector
/// from the pixel to the light and `S` the unit vector from the light to where it points.
package func spotLightFactor(
    px: Double, py: Double, light: SIMD3<Double>, pointsAt: SIMD3<Double>,
    brightness: Double, concentration: Double
) -> Float {
    var l = light - SIMD3(px, py, 0)
    let ll = (l * l).sum().squareRoot()
    if ll == 0 { return 0 }
    l /= ll
    var s = pointsAt - light
    let sl = (s * s).sum().squareRoot()
    s = sl == 0 ? SIMD3(0, 0, -1) : s / sl
    let cosSpot = Swift.max(0, -(l * s).sum())
    let spot = concentration == 0 ? 1 : pow(cosSpot, concentration)
    return Float(brightness * Swift.max(0, l.z) * spot)
}
