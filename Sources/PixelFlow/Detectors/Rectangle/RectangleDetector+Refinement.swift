#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// Sub-pixel refinement of a detected quad on the full-resolution image: the strongest luma
// step across each side is located along its normal, a line is fitted to those points and
// neighboring lines are intersected.

extension RectangleDetector {
    /// Bilinear Rec. 709 luma of the stored values at a continuous position (pixel centers at
    /// half-integers), with edge pixels repeated.
    static func _luma(_ b: PixelBuffer, _ x: Double, _ y: Double) -> Float {
        let fx = x - 0.5, fy = y - 0.5
        let x0 = fx.rounded(.down), y0 = fy.rounded(.down)
        let wx = Float(fx - x0), wy = Float(fy - y0)
        let ix = Int(x0), iy = Int(y0)
        @inline(__always) func at(_ x: Int, _ y: Int) -> Float {
            let v = b[Swift.min(Swift.max(x, 0), b.width - 1), Swift.min(Swift.max(y, 0), b.height - 1)]
            return 0.2126 * v.x + 0.7152 * v.y + 0.0722 * v.z
        }
        let a = at(ix, iy), c = at(ix + 1, iy), d = at(ix, iy + 1), e = at(ix + 1, iy + 1)
        let top = a + (c - a) * wx, bottom = d + (e - d) * wx
        return top + (bottom - top) * wy
    }

    /// The quad `q` (full-resolution pixels, clockwise) with each corner moved to the
    /// intersection of the lines fitted to its two sides; corners whose refinement fails or
    /// moves farther than 3% of the image diagonal keep their coarse position.
    static func _refined(_ q: [Point], in b: PixelBuffer, searchRadius: Double) -> [Point] {
        var lines: [FittedLine?] = []
        for s in 0..<4 {
            let a = q[s], c = q[(s + 1) % 4]
            let dx = c.x - a.x, dy = c.y - a.y
            let len = (dx * dx + dy * dy).squareRoot()
            guard len > 4 else { lines.append(nil); continue }
            let tx = dx / len, ty = dy / len, nx = -ty, ny = tx
            let samples = Swift.min(64, Swift.max(8, Int(len / 4)))
            let steps = Int((searchRadius * 2).rounded(.up))
            var pts: [Point] = []
            var profile = [Float](repeating: 0, count: 2 * steps + 1)
            for i in 0..<samples {
                let t = 0.12 + 0.76 * (Double(i) + 0.5) / Double(samples)
                let cx = a.x + dx * t, cy = a.y + dy * t
                // Luma across the side at half-pixel steps, averaged over three positions along it.
                for k in 0...(2 * steps) {
                    let o = Double(k - steps) * 0.5
                    var v: Float = 0
                    for m in -1...1 {
                        v += _luma(b, cx + nx * o + tx * Double(m), cy + ny * o + ty * Double(m))
                    }
                    profile[k] = v / 3
                }
                var best = 0, bestD: Float = 0
                for k in 1..<(2 * steps) {
                    let d = abs(profile[k + 1] - profile[k - 1])
                    if d > bestD { bestD = d; best = k }
                }
                guard bestD > 0.02, best > 1, best < 2 * steps - 1 else { continue }
                let dm = abs(profile[best] - profile[best - 2]), dp = abs(profile[best + 2] - profile[best])
                let den = dm - 2 * bestD + dp
                let shift = den < 0 ? Double(0.5 * (dm - dp) / den) : 0
                let o = (Double(best - steps) + Swift.max(-0.5, Swift.min(0.5, shift))) * 0.5
                pts.append(Point(x: cx + nx * o, y: cy + ny * o))
            }
            guard var line = FittedLine(fitting: pts), pts.count >= 4 else { lines.append(nil); continue }
            // Drop outliers (text or clutter near the side) and refit.
            let res = pts.map { abs(($0.x - line.point.x) * line.direction.y - ($0.y - line.point.y) * line.direction.x) }
            let median = res.sorted()[res.count / 2]
            let keep = zip(pts, res).filter { $0.1 <= Swift.max(1.0, 2.5 * median) }.map(\.0)
            if keep.count >= 4, let l2 = FittedLine(fitting: keep) { line = l2 }
            lines.append(line)
        }
        let diag = (Double(b.width * b.width + b.height * b.height)).squareRoot()
        var out = q
        for i in 0..<4 {
            guard let l1 = lines[(i + 3) % 4], let l2 = lines[i], let p = l1.intersection(l2) else { continue }
            if _distance(p, q[i]) <= 0.03 * diag { out[i] = p }
        }
        return out
    }
}
