import Foundation
import PixelFlow

/// SplitMix64: a small deterministic generator for the test image.
struct SplitMix64 {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    /// Uniform in [lo, hi).
    mutating func uniform(_ lo: Double = 0, _ hi: Double = 1) -> Double {
        lo + (hi - lo) * Double(next() >> 11) / Double(1 << 53)
    }
}

/// A deterministic RGBA8 test image in the style of the peer benchmark's generator
/// (../shared/peers/bench_peers.py `_one_image`): smooth sinusoidal gradients, 90 shapes
/// (antialiased discs, hard-edged rectangles, soft blobs, thick lines, some translucent),
/// a fine texture patch and mild noise (about 3/255). Alpha stays above 0 everywhere, so
/// straight-alpha color operations are defined on every pixel.
///
/// It is not bit-identical to the peers' image; `scripts/bench-compare.sh` passes the
/// peers' own images (`--image`, `--image-b`, `--png`, `--jpeg`) so both sides measure the
/// same pixels, which matters for the codecs.
func makeTestImage(width w: Int, height h: Int, seed: UInt64 = 42) throws -> PixelBuffer {
    var rng = SplitMix64(state: seed)
    let ph = (0..<6).map { _ in rng.uniform(0, 2 * .pi) }
    var img = [SIMD4<Float>](repeating: .zero, count: w * h)
    let twoPi = 2 * Double.pi
    for y in 0..<h {
        let v = Double(y) / Double(h)
        for x in 0..<w {
            let u = Double(x) / Double(w)
            let r = 0.5 + 0.30 * sin(twoPi * (0.7 * u + 0.2 * v) + ph[0]) + 0.10 * cos(twoPi * 3 * v + ph[1])
            let g = 0.5 + 0.30 * sin(twoPi * (0.3 * u - 0.8 * v) + ph[2]) + 0.08 * sin(twoPi * 5 * u * v + ph[3])
            let b = 0.40 + 0.35 * u * v + 0.10 * sin(twoPi * 4 * u + ph[4])
            img[y * w + x] = SIMD4(Float(r), Float(g), Float(b), 1)
        }
    }
    let s = Double(w) / 3840
    for _ in 0..<90 {
        let kind = Int(rng.next() % 4)
        let col = SIMD4<Float>(Float(rng.uniform()), Float(rng.uniform()), Float(rng.uniform()), 0)
        let opacity = rng.uniform(0.55, 1)
        let cx = rng.uniform(0, Double(w)), cy = rng.uniform(0, Double(h))
        let rad = rng.uniform(20, 260) * s
        let angle = rng.uniform(0, .pi), thickness = rng.uniform(1.5, 6) * s
        let translucent = rng.uniform() < 0.3, alphaCut = rng.uniform(0.2, 0.7)
        let x0 = max(0, Int(cx - rad - 2)), x1 = min(w, Int(cx + rad + 3))
        let y0 = max(0, Int(cy - rad - 2)), y1 = min(h, Int(cy + rad + 3))
        if x1 <= x0 || y1 <= y0 { continue }
        let nx = -sin(angle), ny = cos(angle)
        for y in y0..<y1 {
            for x in x0..<x1 {
                let gx = Double(x), gy = Double(y)
                var m: Double
                switch kind {
                case 0: m = min(max(rad - ((gx - cx) * (gx - cx) + (gy - cy) * (gy - cy)).squareRoot() + 0.5, 0), 1)
                case 1: m = abs(gx - cx) < rad && abs(gy - cy) < rad * 0.6 ? 1 : 0
                case 2: m = exp(-((gx - cx) * (gx - cx) + (gy - cy) * (gy - cy)) / (rad * rad * 0.25))
                default:
                    let dist = abs((gx - cx) * nx + (gy - cy) * ny), along = abs((gx - cx) * ny - (gy - cy) * nx)
                    m = along < rad ? min(max(thickness + 0.5 - dist, 0), 1) : 0
                }
                m *= opacity
                let fm = Float(m)
                var p = img[y * w + x]
                let a = p.w
                p = p * (1 - fm) + col * fm
                p.w = translucent ? a * (1 - fm * Float(alphaCut)) : a
                img[y * w + x] = p
            }
        }
    }
    // Texture patch.
    let ty = Int(Double(h) * 0.62), tx = Int(Double(w) * 0.08), th = Int(Double(h) * 0.2), tw = Int(Double(w) * 0.2)
    for py in 0..<th {
        for px in 0..<tw {
            let t = Float(0.5 + 0.5 * sin(Double(px) * 0.9 / s) * cos(Double(py) * 0.6 / s))
            var p = img[(ty + py) * w + tx + px]
            let a = p.w
            p = p * 0.7 + SIMD4(repeating: 0.3 * t)
            p.w = a
            img[(ty + py) * w + tx + px] = p
        }
    }
    var out = try PixelBuffer(width: w, height: h, format: .rgba8)
    out.withUnsafeMutableRows { y, row in
        let p = row.assumingMemoryBound(to: UInt8.self)
        for x in 0..<w {
            var v = img[y * w + x]
            // Noise: sum of three uniforms, standard deviation about 0.012.
            for c in 0..<3 {
                let n = (rng.uniform() + rng.uniform() + rng.uniform() - 1.5) * 0.024
                v[c] += Float(n)
            }
            for c in 0..<4 { p[4 * x + c] = UInt8(max(0, min(255, (v[c] * 255 + 0.5).rounded(.down)))) }
            if p[4 * x + 3] == 0 { p[4 * x + 3] = 1 }
        }
    }
    return out
}

/// The same buffer turned by 180 degrees (the peer benchmark's B image for `--image`).
func rotated180(_ b: PixelBuffer) throws -> PixelBuffer {
    var out = try PixelBuffer(width: b.width, height: b.height, format: b.format)
    let w = b.width, h = b.height, bpp = b.format.bytesPerPixel, bpr = b.bytesPerRow
    b.withUnsafeBytes { src in
        out.withUnsafeMutableRows { y, row in
            for x in 0..<w {
                (row + x * bpp).copyMemory(from: src.baseAddress! + (h - 1 - y) * bpr + (w - 1 - x) * bpp, byteCount: bpp)
            }
        }
    }
    return out
}

/// Loads an image file as rgba8 (sRGB-tagged, straight alpha, as decoded).
func loadRGBA8(_ path: String) throws -> PixelBuffer {
    let b = try PixelBuffer(contentsOfFile: path)
    if b.format == .rgba8 { return b }
    return b.converted(to: .rgba8, colorEncoding: .sRGB, alphaMode: .straight)
}

/// Reads a whole file.
func readBytes(_ path: String) throws -> [UInt8] {
    guard let d = FileManager.default.contents(atPath: path) else { fail("cannot read \(path)") }
    return [UInt8](d)
}

extension PixelBuffer {
    /// The same storage, tagged with another alpha mode (no pixel changes). Tagging straight
    /// data `.premultiplied` makes the engine use the stored values as they are, which is
    /// what the peers do for filters that apply to all four channels.
    func tagged(_ mode: AlphaMode) -> PixelBuffer {
        var b = self
        b.alphaMode = mode
        return b
    }
}
