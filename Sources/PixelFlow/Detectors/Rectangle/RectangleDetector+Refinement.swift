#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

// Sub-pixel refinement of a detected quad on the full-resolution image: across each side,
// the strongest luma step is found and located to a fraction of a pixel, a line is fitted to
// those points, and neighboring lines are intersected.

/// Reads the Rec. 709 luma of a buffer's pixels two ways: of the stored values (what the edge
/// stage sees), and of the values decoded to linear light (where a blurred or anti-aliased
/// step is symmetric about its true position: optics and the canvas average light, not
/// encoded values). Non-finite lumas read as 0, finite ones are clamped to -16...16.
///
/// Valid only inside the `withUnsafeBytes` call that made it.
struct _LumaSampler {
    let base: UnsafeRawPointer
    let width: Int, height: Int, bytesPerRow: Int
    let format: PixelFormat
    let decodesSRGB: Bool
    /// `SRGB.decodeTable`, held once rather than looked up per pixel.
    let table: [Float] = SRGB.decodeTable

    @inline(__always) static func _sane(_ l: Float) -> Float {
        l.isFinite ? (l < -16 ? -16 : (l > 16 ? 16 : l)) : 0
    }

    /// Stored and linear luma of pixel (x, y), clamped into the image.
    @inline(__always) func pixel(_ x: Int, _ y: Int) -> SIMD2<Float> {
        let cx = Swift.min(Swift.max(x, 0), width - 1), cy = Swift.min(Swift.max(y, 0), height - 1)
        let p = base + cy * bytesPerRow + cx * format.bytesPerPixel
        let v: SIMD4<Float>
        switch format {
        case .rgba8:
            let q = p.assumingMemoryBound(to: UInt8.self)
            if decodesSRGB {
                let stored = (0.2126 * Float(q[0]) + 0.7152 * Float(q[1]) + 0.0722 * Float(q[2])) * (1 / 255)
                let linear = 0.2126 * table[Int(q[0])] + 0.7152 * table[Int(q[1])] + 0.0722 * table[Int(q[2])]
                return SIMD2(stored, linear)
            }
            v = SIMD4(Float(q[0]), Float(q[1]), Float(q[2]), 0) * (1 / 255)
        case .bgra8, .argb8:
            // The same as rgba8, on the channels' bytes.
            let c = format.packedLayout!.components(UInt32(littleEndian: p.load(as: UInt32.self)))
            if decodesSRGB {
                let stored = (0.2126 * Float(c.x) + 0.7152 * Float(c.y) + 0.0722 * Float(c.z)) * (1 / 255)
                let linear = 0.2126 * table[Int(c.x)] + 0.7152 * table[Int(c.y)] + 0.0722 * table[Int(c.z)]
                return SIMD2(stored, linear)
            }
            v = SIMD4(Float(c.x), Float(c.y), Float(c.z), 0) * (1 / 255)
        case .rgba16:
            let s = p.loadUnaligned(as: SIMD4<UInt16>.self)
            v = SIMD4(Float(s.x), Float(s.y), Float(s.z), 0) * (1 / 65535)
        case .rgbaF32:
            v = p.loadUnaligned(as: SIMD4<Float>.self)
        case .gray8:
            let g = p.load(as: UInt8.self)
            if decodesSRGB { return SIMD2(Float(g) * (1 / 255), table[Int(g)]) }
            let f = Float(g) * (1 / 255)
            return SIMD2(f, f)
        case .grayF32:
            let g = Self._sane(p.loadUnaligned(as: Float.self))
            return SIMD2(g, decodesSRGB ? SRGB.toLinear(g) : g)
        }
        let stored = Self._sane(0.2126 * v.x + 0.7152 * v.y + 0.0722 * v.z)
        guard decodesSRGB else { return SIMD2(stored, stored) }
        let l = 0.2126 * SRGB.toLinear(v.x) + 0.7152 * SRGB.toLinear(v.y) + 0.0722 * SRGB.toLinear(v.z)
        return SIMD2(stored, Self._sane(l))
    }

    /// Bilinear stored and linear luma at a continuous position (pixel centers at
    /// half-integers), edge pixels repeated; 0 far outside the image or for NaN.
    @inline(__always) func at(_ x: Double, _ y: Double) -> SIMD2<Float> {
        guard Swift.abs(x) < 1e9, Swift.abs(y) < 1e9 else { return .zero }  // also false for NaN
        let fx = x - 0.5, fy = y - 0.5
        // floor without a libm call (no rounding instruction on baseline x86-64).
        var ix = Int(fx), iy = Int(fy)
        if Double(ix) > fx { ix -= 1 }
        if Double(iy) > fy { iy -= 1 }
        let wx = Float(fx - Double(ix)), wy = Float(fy - Double(iy))
        let a = pixel(ix, iy), c = pixel(ix + 1, iy), d = pixel(ix, iy + 1), e = pixel(ix + 1, iy + 1)
        let top = a + (c - a) * wx, bottom = d + (e - d) * wx
        return top + (bottom - top) * wy
    }
}

extension RectangleDetector {
    /// The quad `q` (full-resolution pixels, clockwise) with each corner moved to the
    /// intersection of the lines fitted to its two sides; corners whose refinement fails or
    /// moves farther than 3% of the image diagonal keep their coarse position.
    ///
    /// Along each side, at up to 64 places, the luma profile across the side is sampled every
    /// half pixel within `searchRadius` (each sample the mean of three along the side). The
    /// strongest step of the stored values picks the edge; its position is the centroid of the
    /// linear-light profile's differences within 2 pixels of it (the position of the ideal step
    /// with the same area, exact for an anti-aliased or symmetrically blurred straight edge).
    /// A total-least-squares line through those positions, refitted without the outliers
    /// (text or clutter near the side), is the side.
    ///
    /// - Complexity: at most 4 x 64 x (4 `searchRadius` + 1) x 3 bilinear samples.
    static func _refined(_ q: [Point], in b: PixelBuffer, searchRadius: Double) -> [Point] {
        let decodes = b.colorEncoding == .sRGB
        var lines: [FittedLine?] = []
        b.withUnsafeBytes { raw in
            let sampler = _LumaSampler(
                base: raw.baseAddress!, width: b.width, height: b.height, bytesPerRow: b.bytesPerRow,
                format: b.format, decodesSRGB: decodes)
            for s in 0..<4 {
                lines.append(_refinedSide(q[s], q[(s + 1) % 4], sampler: sampler, searchRadius: searchRadius))
            }
        }
        let diag = (Double(b.width * b.width + b.height * b.height)).squareRoot()
        var out = q
        for i in 0..<4 {
            guard let l1 = lines[(i + 3) % 4], let l2 = lines[i], let p = l1.intersection(l2) else { continue }
            if _distance(p, q[i]) <= 0.03 * diag { out[i] = p }
        }
        return out
    }

    /// The line of the side `a -> c`, located on the image (see `_refined`), or nil when too
    /// few places show a step.
    static func _refinedSide(_ a: Point, _ c: Point, sampler: _LumaSampler, searchRadius: Double) -> FittedLine? {
        let dx = c.x - a.x, dy = c.y - a.y
        let len = (dx * dx + dy * dy).squareRoot()
        guard len > 4, searchRadius.isFinite, searchRadius > 0 else { return nil }
        let tx = dx / len, ty = dy / len, nx = -ty, ny = tx
        let samples = Swift.min(64, Swift.max(8, Int(len / 4)))
        let steps = Swift.min(64, Int((searchRadius * 2).rounded(.up)))
        guard steps >= 3 else { return nil }
        var pts: [Point] = []
        pts.reserveCapacity(samples)
        var stored = [Float](repeating: 0, count: 2 * steps + 1), linear = stored
        for i in 0..<samples {
            let t = 0.12 + 0.76 * (Double(i) + 0.5) / Double(samples)
            let cx = a.x + dx * t, cy = a.y + dy * t
            for k in 0...(2 * steps) {
                let o = Double(k - steps) * 0.5
                let px = cx + nx * o, py = cy + ny * o
                let v = sampler.at(px - tx, py - ty) + sampler.at(px, py) + sampler.at(px + tx, py + ty)
                stored[k] = v.x * (1 / 3); linear[k] = v.y * (1 / 3)
            }
            // The strongest step of the stored values, away from the ends of the profile.
            var best = 0, bestD: Float = 0
            for k in 1..<(2 * steps) {
                let d = Swift.abs(stored[k + 1] - stored[k - 1])
                if d > bestD { bestD = d; best = k }
            }
            guard bestD > 0.02, best > 1, best < 2 * steps - 1 else { continue }
            // The centroid of the linear-light differences of the step's sign within 2 pixels.
            let rising = stored[best + 1] > stored[best - 1]
            var sum: Float = 0, moment: Float = 0
            for k in Swift.max(0, best - 4)..<Swift.min(2 * steps, best + 4) {
                let e = rising ? linear[k + 1] - linear[k] : linear[k] - linear[k + 1]
                if e > 0 { sum += e; moment += e * (Float(k) + 0.5) }
            }
            guard sum > 1e-5 else { continue }
            let o = (Double(moment / sum) - Double(steps)) * 0.5
            pts.append(Point(x: cx + nx * o, y: cy + ny * o))
        }
        guard pts.count >= 4, var line = FittedLine(fitting: pts) else { return nil }
        // Drop outliers (text or clutter near the side) and refit.
        let res = pts.map { line.distance(to: $0) }
        let median = res.sorted()[res.count / 2]
        let keep = zip(pts, res).filter { $0.1 <= Swift.max(1.0, 2.5 * median) }.map(\.0)
        if keep.count >= 4, let l2 = FittedLine(fitting: keep) { line = l2 }
        return line
    }
}
