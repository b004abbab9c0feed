// Generator row functions: each fills `count` premultiplied working-space pixels of row `y`
// from column `x0`, evaluating its formula at the pixel centers `(x + 0.5, y + 0.5)`.
// Positions are computed per pixel (never incrementally along a row), so a pixel's value does
// not depend on the tile it falls in. Colors arrive already converted to the working space and
// premultiplied (`Color.working(linear:)`); the functions never look at color management.
//
// Edges are anti-aliased analytically by the pixel's coverage: for a shape with signed
// distance `d` (negative inside, in pixels), coverage = clamp(0.5 - d, 0, 1), exact for a
// straight edge crossing a square pixel along an axis and within 0.1 otherwise.
//
// Tolerance against a scalar reference (GeneratorTests, GradientTests): 1e-6 for the shape,
// pattern and gradient kernels (the same Double math, rounded to Float once); 1e-5 for the
// light kernels (libm's sin/exp).

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

// MARK: Shared helpers

/// `v` limited to 0...1.
@inline(__always)
func _unit(_ v: Double) -> Double { v < 0 ? 0 : (v > 1 ? 1 : v) }

/// `a + (b - a) * t` on premultiplied colors.
@inline(__always)
func _mix(_ a: SIMD4<Float>, _ b: SIMD4<Float>, _ t: Double) -> SIMD4<Float> { a + (b - a) * Float(t) }

/// Hermite smoothstep of `t` in 0...1: `t^2 (3 - 2t)`.
@inline(__always)
func _smoothstep(_ t: Double) -> Double { t * t * (3 - 2 * t) }

/// The pixel's coverage by a rect: the product of its overlap along each axis, each
/// `clamp(distance to the nearer edge + 0.5, 0, 1)` (1 for an infinite rect).
@inline(__always)
func rectCoverage(_ x: Double, _ y: Double, _ r: Rect) -> Double {
    if r.isInfinite { return 1 }
    let cx = _unit(Swift.min(x - r.x, r.x + r.width - x) + 0.5)
    let cy = _unit(Swift.min(y - r.y, r.y + r.height - y) + 0.5)
    return cx * cy
}

// MARK: Checkerboard and stripes

/// A square wave along one axis: +m on even cells (`floor((p - origin) / period)` even), -m on
/// odd ones, where m rises linearly from 0 at each cell edge to 1 at `transition / 2` pixels
/// from it. A period of 0 (or less) gives 0 everywhere: the average of the two colors.
@inline(__always)
func softSquareWave(_ p: Double, origin: Double, period: Double, transition: Double) -> Double {
    if !(period > 0) { return 0 }
    let u = (p - origin) / period
    let cell = u.rounded(.down)
    let f = u - cell
    let edge = Swift.min(f, 1 - f) * period
    let m = Swift.min(1, 2 * edge / transition)
    return cell.truncatingRemainder(dividingBy: 2) == 0 ? m : -m
}

/// Where a checkerboard or stripes pattern starts, its cell width and the width of the ramp
/// between colors: `max(1, (1 - sharpness) * width)` pixels (one pixel is the anti-aliased edge).
struct PeriodicPattern: Sendable {
    var centerX: Double
    var centerY: Double
    var width: Double
    var sharpness: Double
    var transition: Double { Swift.max(1, (1 - sharpness) * width) }
}

/// Checkerboard: `t = (1 - wx * wy) / 2` with `w` the soft square waves along x and y;
/// `color0` where `t = 0` (the cell whose top-left corner is the center), `color1` where 1.
func checkerboardRow(
    x0: Int, y: Int, count: Int, out: UnsafeMutablePointer<SIMD4<Float>>,
    pattern p: PeriodicPattern, color0: SIMD4<Float>, color1: SIMD4<Float>
) {
    let tw = p.transition
    let wy = softSquareWave(Double(y) + 0.5, origin: p.centerY, period: p.width, transition: tw)
    for i in 0..<count {
        let wx = softSquareWave(Double(x0 + i) + 0.5, origin: p.centerX, period: p.width, transition: tw)
        out[i] = _mix(color0, color1, 0.5 - 0.5 * wx * wy)
    }
}

/// Vertical stripes: `t = (1 - wx) / 2`; `color0` on the stripe right of the center's x.
func stripesRow(
    x0: Int, y: Int, count: Int, out: UnsafeMutablePointer<SIMD4<Float>>,
    pattern p: PeriodicPattern, color0: SIMD4<Float>, color1: SIMD4<Float>
) {
    let tw = p.transition
    for i in 0..<count {
        let wx = softSquareWave(Double(x0 + i) + 0.5, origin: p.centerX, period: p.width, transition: tw)
        out[i] = _mix(color0, color1, 0.5 - 0.5 * wx)
    }
}

// MARK: Rectangles

/// Signed distance from `(x, y)` to a rect with corners rounded by `radius` (clamped to half
/// the shorter side): negative inside. Inigo Quilez, "2D distance functions" (box, rounded box).
@inline(__always)
func roundedRectSignedDistance(_ x: Double, _ y: Double, rect: Rect, radius: Double) -> Double {
    let hx = rect.width / 2, hy = rect.height / 2
    let r = Swift.max(0, Swift.min(radius, hx, hy))
    let qx = Swift.abs(x - (rect.x + hx)) - (hx - r)
    let qy = Swift.abs(y - (rect.y + hy)) - (hy - r)
    let ox = Swift.max(qx, 0), oy = Swift.max(qy, 0)
    return (ox * ox + oy * oy).squareRoot() + Swift.min(Swift.max(qx, qy), 0) - r
}

/// A filled rounded rect (`strokeWidth == nil`): coverage `clamp(0.5 - d, 0, 1)`; or the band
/// of `strokeWidth` pixels inside its outline: `clamp(0.5 - d) - clamp(0.5 - (d + strokeWidth))`.
func roundedRectangleRow(
    x0: Int, y: Int, count: Int, out: UnsafeMutablePointer<SIMD4<Float>>,
    rect: Rect, radius: Double, strokeWidth: Double?, color: SIMD4<Float>
) {
    let py = Double(y) + 0.5
    for i in 0..<count {
        let d = roundedRectSignedDistance(Double(x0 + i) + 0.5, py, rect: rect, radius: radius)
        var c = _unit(0.5 - d)
        if let w = strokeWidth { c -= _unit(0.5 - (d + w)) }
        out[i] = color * Float(c)
    }
}

/// The fraction of a Gaussian-blurred 1-D box `[lo, hi]` at `p`:
/// `(erf((hi - p) / (sigma sqrt 2)) - erf((lo - p) / (sigma sqrt 2))) / 2`; for `sigma == 0`
/// the overlap of the pixel `[p - 0.5, p + 0.5]` with the box.
@inline(__always)
func blurredBoxProfile(_ p: Double, lo: Double, hi: Double, sigma: Double) -> Double {
    if sigma > 0 {
        let k = 1 / (sigma * 2.0.squareRoot())
        return 0.5 * (erf((hi - p) * k) - erf((lo - p) * k))
    }
    return Swift.max(0, Swift.min(hi, p + 0.5) - Swift.max(lo, p - 0.5))
}

/// A rect convolved with an isotropic Gaussian of `sigma` pixels: separable, so the coverage is
/// the product of the x and y profiles (exact, no sampling of the blur).
func blurredRectangleRow(
    x0: Int, y: Int, count: Int, out: UnsafeMutablePointer<SIMD4<Float>>,
    rect: Rect, sigma: Double, color: SIMD4<Float>
) {
    let fy = blurredBoxProfile(Double(y) + 0.5, lo: rect.y, hi: rect.y + rect.height, sigma: sigma)
    for i in 0..<count {
        let fx = blurredBoxProfile(Double(x0 + i) + 0.5, lo: rect.x, hi: rect.x + rect.width, sigma: sigma)
        out[i] = color * Float(fx * fy)
    }
}

// MARK: Mesh

/// Distance from `(x, y)` to the segment `(ax, ay)-(bx, by)`.
@inline(__always)
func segmentDistance(_ x: Double, _ y: Double, _ ax: Double, _ ay: Double, _ bx: Double, _ by: Double) -> Double {
    let dx = bx - ax, dy = by - ay
    let len2 = dx * dx + dy * dy
    var t = len2 > 0 ? ((x - ax) * dx + (y - ay) * dy) / len2 : 0
    t = _unit(t)
    let ex = x - (ax + t * dx), ey = y - (ay + t * dy)
    return (ex * ex + ey * ey).squareRoot()
}

/// Anti-aliased lines of `width` pixels along the segments `[x0 y0 x1 y1]*` of `segments`:
/// coverage of one line `min(clamp(width / 2 + 0.5 - distance, 0, 1), width)` (a line thinner
/// than a pixel covers about its width), union by maximum.
/// - Complexity: O(segments) per pixel (a cheap row test skips segments far from the row).
func meshRow(
    x0: Int, y: Int, count: Int, out: UnsafeMutablePointer<SIMD4<Float>>,
    segments: [Double], width: Double, color: SIMD4<Float>
) {
    let py = Double(y) + 0.5
    let reach = width / 2 + 0.5
    segments.withUnsafeBufferPointer { s in
        for i in 0..<count {
            let px = Double(x0 + i) + 0.5
            var c = 0.0
            var k = 0
            while k + 3 < s.count {
                let ay = s[k + 1], by = s[k + 3]
                if py >= Swift.min(ay, by) - reach && py <= Swift.max(ay, by) + reach {
                    let d = segmentDistance(px, py, s[k], ay, s[k + 2], by)
                    c = Swift.max(c, Swift.min(_unit(reach - d), width))
                }
                k += 4
            }
            out[i] = color * Float(c)
        }
    }
}

// MARK: Random

/// A 32-bit integer hash with low bias ("lowbias32", C. Wellons, "Prospecting for Hash
/// Functions", 2018): every output bit depends on every input bit.
@inline(__always)
func lowbias32(_ v: UInt32) -> UInt32 {
    var x = v
    x ^= x >> 16
    x &*= 0x7FEB_352D
    x ^= x >> 15
    x &*= 0x846C_A68B
    x ^= x >> 16
    return x
}

/// Four independent uniform numbers in [0, 1) for the pixel `(x, y)`, a pure function of the
/// position (coordinates wrap modulo 2^32): channel k is `lowbias32(seed + k * 0x9E3779B9)`'s
/// top 24 bits / 2^24, with `seed = lowbias32(x ^ lowbias32(y + 0x9E3779B9))`.
@inline(__always)
func randomValues(x: Int, y: Int) -> SIMD4<Float> {
    let seed = lowbias32(UInt32(truncatingIfNeeded: x) ^ lowbias32(UInt32(truncatingIfNeeded: y) &+ 0x9E37_79B9))
    @inline(__always) func channel(_ k: UInt32) -> Float {
        Float(lowbias32(seed &+ k &* 0x9E37_79B9) >> 8) * (1.0 / 16_777_216)
    }
    return SIMD4(channel(0), channel(1), channel(2), channel(3))
}

/// Uniform noise: the unpremultiplied pixel is `randomValues(x, y)`, written premultiplied.
func randomRow(x0: Int, y: Int, count: Int, out: UnsafeMutablePointer<SIMD4<Float>>) {
    for i in 0..<count {
        let v = randomValues(x: x0 + i, y: y)
        out[i] = v * SIMD4(v.w, v.w, v.w, 1)
    }
}

// MARK: Gradients

/// Linear gradient parameter: the projection of `(x, y) - p0` on `p1 - p0`, over its length
/// squared, limited to 0...1 (0 everywhere when the points coincide); smoothstepped if `smooth`.
@inline(__always)
func linearGradientParameter(_ x: Double, _ y: Double, p0: Point, p1: Point, smooth: Bool) -> Double {
    let dx = p1.x - p0.x, dy = p1.y - p0.y
    let len2 = dx * dx + dy * dy
    guard len2 > 0 else { return 0 }
    let t = _unit(((x - p0.x) * dx + (y - p0.y) * dy) / len2)
    return smooth ? _smoothstep(t) : t
}

/// Radial gradient parameter: `(distance - r0) / (r1 - r0)` limited to 0...1; for equal
/// radii, the anti-aliased step `clamp(distance - r0 + 0.5, 0, 1)`.
@inline(__always)
func radialGradientParameter(_ x: Double, _ y: Double, center: Point, r0: Double, r1: Double) -> Double {
    let dx = x - center.x, dy = y - center.y
    let d = (dx * dx + dy * dy).squareRoot()
    if r1 == r0 { return _unit(d - r0 + 0.5) }
    return _unit((d - r0) / (r1 - r0))
}

/// Gaussian gradient weight of `color0`: `exp(-d^2 / (2 sigma^2))` with `sigma = radius / 3`,
/// so the weight falls to 1 % at the radius; 0 everywhere for a radius of 0.
@inline(__always)
func gaussianGradientWeight(_ x: Double, _ y: Double, center: Point, radius: Double) -> Double {
    guard radius > 0 else { return 0 }
    let dx = x - center.x, dy = y - center.y
    let sigma = radius / 3
    return exp(-(dx * dx + dy * dy) / (2 * sigma * sigma))
}

/// Fills a row with `color0 + (color1 - color0) * t(x, y)` (premultiplied working colors).
@inline(__always)
func gradientRow(
    x0: Int, y: Int, count: Int, out: UnsafeMutablePointer<SIMD4<Float>>,
    color0: SIMD4<Float>, color1: SIMD4<Float>, _ t: (Double, Double) -> Double
) {
    let py = Double(y) + 0.5
    for i in 0..<count {
        out[i] = _mix(color0, color1, t(Double(x0 + i) + 0.5, py))
    }
}

// MARK: Light (documented approximations of Core Image's proprietary looks)

/// Angular striations: a deterministic pattern of integer-frequency sines of the angle (so it
/// is continuous across ±pi), shifted by `time`, with its contrast around 0.5 scaled by
/// `contrast` and limited to 0...1.
@inline(__always)
func striationPattern(_ angle: Double, time: Double, contrast: Double, f1: Double, f2: Double) -> Double {
    let p = 0.5 + 0.25 * (sin(f1 * angle + 2 * .pi * time) + sin(f2 * angle - 4 * .pi * time + 1.3))
    return _unit(0.5 + (p - 0.5) * contrast)
}

/// Parameters of the lenticular halo (`CILenticularHaloGenerator`).
struct HaloParameters: Sendable {
    var center: Point
    var radius: Double
    var width: Double
    var overlap: Double
    var striationStrength: Double
    var striationContrast: Double
    var time: Double
}

/// Lenticular halo, an approximation: three rings, one per color channel, with the profile
/// `(1 - u^2)^2` for `u = (d - R_k) / (width / 2)`, `|u| < 1`, where red sits outermost:
/// `R_k = radius + (1 - k) * width * (1 - min(overlap, 1)) / 2` (overlap 1 stacks them into
/// a white ring). Multiplied by striations `max(0, 1 + strength * (2 s(angle) - 1))`.
/// The output is the color, premultiplied, scaled per channel; alpha is the color's alpha
/// times the largest channel intensity (at most 1).
func lenticularHaloRow(
    x0: Int, y: Int, count: Int, out: UnsafeMutablePointer<SIMD4<Float>>,
    _ p: HaloParameters, color: SIMD4<Float>
) {
    let dy = Double(y) + 0.5 - p.center.y
    let half = p.width / 2
    let spread = p.width * (1 - Swift.min(p.overlap, 1)) / 2
    for i in 0..<count {
        let dx = Double(x0 + i) + 0.5 - p.center.x
        let d = (dx * dx + dy * dy).squareRoot()
        var ring = SIMD3<Double>(0, 0, 0)
        if half > 0 {
            for k in 0..<3 {
                let u = (d - (p.radius + Double(1 - k) * spread)) / half
                if Swift.abs(u) < 1 { let v = 1 - u * u; ring[k] = v * v }
            }
        }
        let s = striationPattern(atan2(dy, dx), time: p.time, contrast: p.striationContrast, f1: 37, f2: 23)
        let stri = Swift.max(0, 1 + p.striationStrength * (2 * s - 1))
        let intensity = ring * stri
        let a = Float(Swift.min(1, intensity.max()))
        out[i] = SIMD4(color.x * Float(intensity.x), color.y * Float(intensity.y), color.z * Float(intensity.z), color.w * a)
    }
}

/// Parameters of the star shine (`CIStarShineGenerator`).
struct StarShineParameters: Sendable {
    var center: Point
    var radius: Double
    var crossScale: Double
    var crossAngle: Double
    var crossOpacity: Double
    var crossWidth: Double
    var epsilon: Double
}

/// Star shine, an approximation: intensity `I = core + shell + spikes` with
/// `core = exp(-2 (d / radius)^2)` (white at the center), `shell = exp(-d / radius) / 2` (in
/// the color), and two spikes along the cross angle and its perpendicular,
/// `2^crossOpacity * exp(-(v / crossWidth)^2) * exp(-|u| / L)`, `L = crossScale * radius * 2^epsilon`.
/// The color goes from white (core) to `color`; alpha is `color.alpha * min(1, I)`.
func starShineRow(
    x0: Int, y: Int, count: Int, out: UnsafeMutablePointer<SIMD4<Float>>,
    _ p: StarShineParameters, color: SIMD4<Float>
) {
    let dy = Double(y) + 0.5 - p.center.y
    let ax = cos(p.crossAngle), ay = -sin(p.crossAngle)  // screen counterclockwise, y down
    let length = p.crossScale * p.radius * exp2(p.epsilon)
    let opacity = exp2(p.crossOpacity)
    let white = SIMD4<Float>(repeating: color.w)
    @inline(__always) func spike(_ along: Double, _ across: Double) -> Double {
        guard p.crossWidth > 0, length > 0 else { return 0 }
        let v = across / p.crossWidth
        return exp(-v * v) * exp(-Swift.abs(along) / length)
    }
    for i in 0..<count {
        let dx = Double(x0 + i) + 0.5 - p.center.x
        let d = (dx * dx + dy * dy).squareRoot()
        var core = 0.0, shell = 0.0
        if p.radius > 0 {
            let q = d / p.radius
            core = exp(-2 * q * q)
            shell = 0.5 * exp(-q)
        }
        let u = dx * ax + dy * ay, v = -dx * ay + dy * ax
        let spikes = opacity * (spike(u, v) + spike(v, u))
        let intensity = core + shell + spikes
        let tint = _mix(color, white, core)
        var px = tint * Float(intensity)
        px.w = color.w * Float(Swift.min(1, intensity))
        out[i] = px
    }
}

/// Parameters of the sunbeams (`CISunbeamsGenerator`) and of the flash transition's light.
struct SunbeamsParameters: Sendable {
    var center: Point
    var sunRadius: Double
    var maxStriationRadius: Double
    var striationStrength: Double
    var striationContrast: Double
    var time: Double
}

/// Sunbeams intensity at `(x, y)`, an approximation: `max(disc, beams)` with the anti-aliased
/// disc `clamp(sunRadius - d + 0.5, 0, 1)` and beams
/// `strength * s(angle) * clamp(1 - (d - R) / (R_max - R), 0, 1)^2`, `R_max = sunRadius *
/// maxStriationRadius` (no beams when `R_max <= R`).
@inline(__always)
func sunbeamsIntensity(_ x: Double, _ y: Double, _ p: SunbeamsParameters) -> Double {
    let dx = x - p.center.x, dy = y - p.center.y
    let d = (dx * dx + dy * dy).squareRoot()
    let disc = _unit(p.sunRadius - d + 0.5)
    let reach = p.sunRadius * p.maxStriationRadius
    var beams = 0.0
    if reach > p.sunRadius {
        var f = _unit(1 - (d - p.sunRadius) / (reach - p.sunRadius))
        f *= f
        beams =
            p.striationStrength
            * striationPattern(
                atan2(dy, dx), time: p.time, contrast: p.striationContrast,
                f1: 29, f2: 17) * f
    }
    return Swift.max(disc, beams)
}

/// Sunbeams: the color, premultiplied, times `min(1, sunbeamsIntensity)`.
func sunbeamsRow(
    x0: Int, y: Int, count: Int, out: UnsafeMutablePointer<SIMD4<Float>>,
    _ p: SunbeamsParameters, color: SIMD4<Float>
) {
    let py = Double(y) + 0.5
    for i in 0..<count {
        out[i] = color * Float(Swift.min(1, sunbeamsIntensity(Double(x0 + i) + 0.5, py, p)))
    }
}

// MARK: Distance transform

/// The exact squared Euclidean distance transform of one line, in place: on entry `f[i]` is 0
/// on mask samples and a large number elsewhere; on exit `f[i] = min_j (i - j)^2 + f_entry[j]`.
/// P. Felzenszwalb and D. Huttenlocher, "Distance Transforms of Sampled Functions", Theory of
/// Computing 8 (2012): the lower envelope of parabolas. `v` and `z` are scratch of `n` and
/// `n + 1` elements.
/// - Complexity: O(n).
func squaredDistanceTransform1D(
    _ f: UnsafeMutablePointer<Double>, count n: Int,
    v: UnsafeMutablePointer<Int>, z: UnsafeMutablePointer<Double>,
    scratch d: UnsafeMutablePointer<Double>
) {
    if n == 0 { return }
    var k = 0
    v[0] = 0
    z[0] = -Double.infinity
    z[1] = Double.infinity
    if n > 1 {
        for q in 1..<n {
            var s: Double
            repeat {
                let p = v[k]
                s = ((f[q] + Double(q * q)) - (f[p] + Double(p * p))) / Double(2 * q - 2 * p)
                if s <= z[k] { k -= 1 } else { break }
            } while k >= 0
            k += 1
            v[k] = q
            z[k] = s
            z[k + 1] = Double.infinity
        }
    }
    k = 0
    for q in 0..<n {
        while z[k + 1] < Double(q) { k += 1 }
        let p = v[k]
        d[q] = Double((q - p) * (q - p)) + f[p]
    }
    f.update(from: d, count: n)
}

/// Squared Euclidean distances, row-major over `tile`'s rect, from each pixel to the nearest
/// pixel whose red is above 0.5 (`inside == false`) or not above it (`inside == true`); `big`
/// (more than any distance in the rect) where there is none. Felzenszwalb-Huttenlocher, two
/// passes of `squaredDistanceTransform1D`. The caller deallocates the result.
func squaredMaskDistances(_ tile: Tile, toInside inside: Bool, big: Double) -> UnsafeMutablePointer<Double> {
    let w = tile.rect.width, h = tile.rect.height
    let g = UnsafeMutablePointer<Double>.allocate(capacity: w * h)
    let n = Swift.max(w, h)
    let line = UnsafeMutablePointer<Double>.allocate(capacity: n)
    let d = UnsafeMutablePointer<Double>.allocate(capacity: n)
    let z = UnsafeMutablePointer<Double>.allocate(capacity: n + 1)
    let v = UnsafeMutablePointer<Int>.allocate(capacity: n)
    defer { line.deallocate(); d.deallocate(); z.deallocate(); v.deallocate() }
    for y in 0..<h {
        let row = tile.row(tile.rect.y + y)
        for x in 0..<w { g[y * w + x] = (row[x].x > 0.5) != inside ? 0 : big }
    }
    for x in 0..<w {
        for y in 0..<h { line[y] = g[y * w + x] }
        squaredDistanceTransform1D(line, count: h, v: v, z: z, scratch: d)
        for y in 0..<h { g[y * w + x] = line[y] }
    }
    for y in 0..<h {
        squaredDistanceTransform1D(g + y * w, count: w, v: v, z: z, scratch: d)
    }
    return g
}

/// `min(1, distance / maximumDistance)` of a squared distance (1 for `big` or more; with
/// `maximumDistance` 0, 1 for any distance above 0).
@inline(__always) func normalizedDistance(_ squared: Double, maximumDistance: Double, big: Double) -> Double {
    if squared >= big { return 1 }
    let dist = squared.squareRoot()
    if maximumDistance > 0 { return Swift.min(1, dist / maximumDistance) }
    return dist > 0 ? 1 : 0
}

/// The distance gradient of `tile` (`CIDistanceGradientFromRedMask`): gray `min(1, d /
/// maximumDistance)` with `d` the Euclidean distance to the nearest pixel whose red is above
/// 0.5 (0 on those pixels), exact (Felzenszwalb-Huttenlocher). With `signed`
/// (`CISignedDistanceGradientFromRedMask`), pixels of the mask take minus the same measure of
/// their distance to the nearest pixel outside it, so the two sides meet at -1/max and +1/max.
/// Tolerance: exact distances in Double, then one rounding to Float.
/// - Complexity: O(pixels), one or two transforms.
func distanceGradient(
    _ tile: Tile, maximumDistance: Double, signed: Bool = false, into out: UnsafeMutablePointer<SIMD4<Float>>
) {
    let w = tile.rect.width, h = tile.rect.height
    if w <= 0 || h <= 0 { return }
    let big = Double(w * w + h * h) + 1
    let outside = squaredMaskDistances(tile, toInside: false, big: big)
    defer { outside.deallocate() }
    let inside = signed ? squaredMaskDistances(tile, toInside: true, big: big) : nil
    defer { inside?.deallocate() }
    for i in 0..<(w * h) {
        var t = normalizedDistance(outside[i], maximumDistance: maximumDistance, big: big)
        if let inside, outside[i] == 0 {
            t = -normalizedDistance(inside[i], maximumDistance: maximumDistance, big: big)
        }
        let f = Float(t)
        out[i] = SIMD4(f, f, f, 1)
    }
}

// MARK: Hue, saturation and value wheel

/// A value in [0, 1) from a pixel's position alone (the same for every tile and thread): an
/// integer hash of `x` and `y` (multiply, xor-shift, multiply).
@inline(__always) func positionNoise(_ x: Int, _ y: Int) -> Float {
    var h = UInt32(truncatingIfNeeded: x) &* 0x9E37_79B1 ^ UInt32(truncatingIfNeeded: y) &* 0x85EB_CA77
    h ^= h >> 15
    h = h &* 0x2C1B_3C6D
    h ^= h >> 12
    h = h &* 0x297A_2D39
    h ^= h >> 15
    return Float(h >> 8) * (1 / 16_777_216)
}

/// One row of a hue-saturation-value wheel (`CIHueSaturationValueGradient`), straight RGBA in
/// the encoded values of the wheel's color space: at distance `d` from `center` and angle `a`
/// (counterclockwise on screen from the +x axis, y down), hue `a / 2pi`, saturation
/// `min(1, d / radius)`, value `value`, RGB by the standard hexcone formula
/// `v * (1 - s + s * clamp(|fract(h + k) * 6 - 3| - 1, 0, 1))`, k = 1, 2/3, 1/3; plus
/// `(positionNoise - 0.5) * dither / 255` on each channel. Alpha is the coverage
/// `clamp((radius - d) / softness, 0, 1)` (with softness 0: 1 within the radius). Pixel
/// centers at +0.5. Tolerance: 1e-5 against the same formulas in Double.
func hueSaturationValueRow(
    x0: Int, y: Int, count: Int, out: UnsafeMutablePointer<SIMD4<Float>>,
    center: (x: Double, y: Double), radius: Double, value: Float, softness: Double, dither: Float
) {
    let dy = Double(y) + 0.5 - center.y
    for i in 0..<count {
        let dx = Double(x0 + i) + 0.5 - center.x
        let d = (dx * dx + dy * dy).squareRoot()
        let coverage: Double
        if softness > 0 {
            coverage = Swift.min(1, Swift.max(0, (radius - d) / softness))
        } else {
            coverage = d <= radius ? 1 : 0
        }
        if coverage <= 0 {
            out[i] = .zero
            continue
        }
        var hue = atan2(-dy, dx) / (2 * Double.pi)
        if hue < 0 { hue += 1 }
        let s = Float(Swift.min(1, d / radius))
        let k = SIMD3<Float>(1, 2.0 / 3, 1.0 / 3) + Float(hue)
        let f = k - k.rounded(.down)
        let g = f * 6 - 3
        let ramp = pointwiseMin(pointwiseMax(g.replacing(with: -g, where: g .< 0) - 1, .zero), SIMD3(repeating: 1))
        var rgb = value * (1 - s + s * ramp)
        if dither != 0 { rgb += (positionNoise(x0 + i, y) - 0.5) * dither / 255 }
        out[i] = SIMD4(rgb, Float(coverage))
    }
}
