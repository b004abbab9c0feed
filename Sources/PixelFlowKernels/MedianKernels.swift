import CSIMD

// Median filters on rows of `SIMD4<Float>`, per channel. Sorting networks (3x3, 5x5) are exact;
// the histogram median for larger windows works on values quantized to 256 levels.

@inline(__always) func _sort2(_ a: inout SIMD4<Float>, _ b: inout SIMD4<Float>) {
    let lo = pf_min4(a, b); b = pf_max4(a, b); a = lo
}

/// Median of three per channel (4 operations).
@inline(__always) func _median3(_ a: SIMD4<Float>, _ b: SIMD4<Float>, _ c: SIMD4<Float>) -> SIMD4<Float> {
    pf_max4(pf_min4(a, b), pf_min4(pf_max4(a, b), c))
}

/// 3x3 median of `count` pixels: `rows[j]` points at the pixel left of the first output in
/// window row `j`. Each column is sorted once (3 compare-exchanges, shared by three outputs);
/// the median is then `median3(max of the lows, median of the middles, min of the highs)`
/// (Paeth, Graphics Gems 1990). `scratch` holds `3 * (count + 2)` pixels.
///
/// - Complexity: about 18 min/max operations per pixel. Exact.
package func median3x3Row(
    _ rows: UnsafePointer<UnsafePointer<SIMD4<Float>>>, count: Int,
    into dst: UnsafeMutablePointer<SIMD4<Float>>, scratch: UnsafeMutablePointer<SIMD4<Float>>
) {
    let n = count + 2
    let lo = scratch, mid = scratch + n, hi = scratch + 2 * n
    let r0 = rows[0], r1 = rows[1], r2 = rows[2]
    for x in 0..<n {
        var a = r0[x], b = r1[x], c = r2[x]
        _sort2(&a, &b); _sort2(&b, &c); _sort2(&a, &b)
        lo[x] = a; mid[x] = b; hi[x] = c
    }
    for x in 0..<count {
        let l = pf_max4(pf_max4(lo[x], lo[x + 1]), lo[x + 2])
        let m = _median3(mid[x], mid[x + 1], mid[x + 2])
        let h = pf_min4(pf_min4(hi[x], hi[x + 1]), hi[x + 2])
        dst[x] = _median3(l, m, h)
    }
}

/// 5x5 median of `count` pixels: `rows[j]` points two pixels left of the first output in window
/// row `j`. Each column is sorted (9 compare-exchanges), neighbouring columns are merged into
/// sorted runs of ten (shared by two outputs), and each output takes the 13th of its runs with a
/// pruned merge network (`_median25`). `scratch` holds `15 * (count + 4)` pixels.
///
/// - Complexity: about 116 min/max operations per pixel. Exact.
package func median5x5Row(
    _ rows: UnsafePointer<UnsafePointer<SIMD4<Float>>>, count: Int,
    into dst: UnsafeMutablePointer<SIMD4<Float>>, scratch: UnsafeMutablePointer<SIMD4<Float>>
) {
    let n = count + 4
    let cols = scratch  // 5 per column
    let pairs = scratch + 5 * n  // 10 per column pair (x, x + 1)
    let r0 = rows[0], r1 = rows[1], r2 = rows[2], r3 = rows[3], r4 = rows[4]
    for x in 0..<n {
        var v0 = r0[x], v1 = r1[x], v2 = r2[x], v3 = r3[x], v4 = r4[x]
        _sort2(&v0, &v1); _sort2(&v3, &v4); _sort2(&v2, &v4); _sort2(&v2, &v3); _sort2(&v0, &v3)
        _sort2(&v0, &v2); _sort2(&v1, &v4); _sort2(&v1, &v3); _sort2(&v1, &v2)
        let c = cols + 5 * x
        c[0] = v0; c[1] = v1; c[2] = v2; c[3] = v3; c[4] = v4
    }
    for x in 0..<(n - 1) {
        _merge5x5(cols + 5 * x, cols + 5 * (x + 1), into: pairs + 10 * x)
    }
    for x in 0..<count {
        dst[x] = _median25(pairs + 10 * x, pairs + 10 * (x + 3), cols + 5 * (x + 2))
    }
}

/// Median of a `(2r+1)^2` window per channel by a sliding histogram (Huang, Yang and Tang 1979):
/// values are quantized to 256 levels (`clamp(round(v * 255), 0, 255)`), the histogram of the
/// window moves one column per output, and the median bin is tracked incrementally. Exact for
/// inputs that are multiples of 1/255 in [0, 1] (8-bit images with color management off);
/// otherwise the result is the median rounded to the nearest 1/255, clamped to [0, 1].
///
/// `levels` holds the quantized input tile (4 bytes per pixel, `stride` pixels per row) with
/// row 0 at the first window row of output row `y0`; outputs `count` x `height` pixels.
///
/// - Complexity: O(r) per pixel (`4 (2r + 1)` histogram updates) plus O(r^2) per row; scratch
///   4 KiB.
package func medianHistogramTile(
    _ levels: UnsafePointer<SIMD4<UInt8>>, stride: Int, radius r: Int, count: Int, height: Int,
    into output: Tile
) {
    let side = 2 * r + 1
    let half = Int32((side * side) / 2)
    // Histograms (4 x 256 counts), then per channel the median bin and the count below it.
    withUnsafeTemporaryAllocation(of: Int32.self, capacity: 4 * 256 + 8) { buf in
        let h = buf.baseAddress!
        let m = UnsafeMutableRawPointer(h + 4 * 256).bindMemory(to: Int32.self, capacity: 8)
        let below = m + 4
        for y in 0..<height {
            h.update(repeating: 0, count: 4 * 256)
            for j in 0..<side {
                let row = levels + (y + j) * stride
                for i in 0..<side {
                    let v = row[i]
                    h[Int(v.x)] += 1; h[256 + Int(v.y)] += 1; h[512 + Int(v.z)] += 1; h[768 + Int(v.w)] += 1
                }
            }
            for c in 0..<4 {
                var acc: Int32 = 0, b = 0
                while acc + h[c * 256 + b] <= half { acc += h[c * 256 + b]; b += 1 }
                m[c] = Int32(b); below[c] = acc
            }
            let d = output.row(output.rect.y + y)
            d[0] = SIMD4(Float(m[0]), Float(m[1]), Float(m[2]), Float(m[3])) * (1 / 255)
            var x = 1
            while x < count {
                let bytes = UnsafeRawPointer(levels)
                for c in 0..<4 {
                    let base = h + c &* 256
                    let mc = m[c]
                    var bc = below[c]
                    var p = (y * stride + x) &* 4 &+ c
                    for _ in 0..<side {
                        let o = Int32(bytes.load(fromByteOffset: p &- 4, as: UInt8.self))
                        let n = Int32(bytes.load(fromByteOffset: p &+ (side &- 1) &* 4, as: UInt8.self))
                        base[Int(o)] &-= 1; if o < mc { bc &-= 1 }
                        base[Int(n)] &+= 1; if n < mc { bc &+= 1 }
                        p += stride &* 4
                    }
                    below[c] = bc
                }
                for c in 0..<4 {
                    var b = Int(m[c]), acc = below[c]
                    let base = h + c * 256
                    while acc > half { b -= 1; acc -= base[b] }
                    while acc + base[b] <= half { acc += base[b]; b += 1 }
                    m[c] = Int32(b); below[c] = acc
                }
                d[x] = SIMD4(Float(m[0]), Float(m[1]), Float(m[2]), Float(m[3])) * (1 / 255)
                x += 1
            }
        }
    }
}

/// Quantizes `count` pixels to levels `clamp(round(v * 255), 0, 255)` (NaN gives 0).
package func quantizeLevelsRow(_ src: UnsafePointer<SIMD4<Float>>, count: Int, into dst: UnsafeMutablePointer<SIMD4<UInt8>>) {
    for i in 0..<count {
        var s = src[i] * 255 + 0.5
        s.replace(with: 0, where: .!(s .>= 0))
        s.replace(with: 255, where: s .> 255)
        let u = pf_trunc_to_int4(s)
        dst[i] = SIMD4(
            UInt8(truncatingIfNeeded: u.x), UInt8(truncatingIfNeeded: u.y),
            UInt8(truncatingIfNeeded: u.z), UInt8(truncatingIfNeeded: u.w))
    }
}

// Generated by scripts/make_median_networks.py; do not edit by hand.

/// Merges two sorted runs of five into a sorted run of ten (Batcher's odd-even merge, 26 min/max).
@inline(__always)
func _merge5x5(_ a: UnsafePointer<SIMD4<Float>>, _ b: UnsafePointer<SIMD4<Float>>, into d: UnsafeMutablePointer<SIMD4<Float>>) {
    let t10 = pf_min4(a[0], b[0])
    let t11 = pf_max4(a[0], b[0])
    let t12 = pf_min4(a[4], b[4])
    let t13 = pf_max4(a[4], b[4])
    let t14 = pf_min4(t12, t11)
    let t15 = pf_max4(t12, t11)
    let t16 = pf_min4(a[2], b[2])
    let t17 = pf_max4(a[2], b[2])
    let t18 = pf_min4(t16, t14)
    let t19 = pf_max4(t16, t14)
    let t20 = pf_min4(t17, t15)
    let t21 = pf_max4(t17, t15)
    let t22 = pf_min4(a[1], b[1])
    let t23 = pf_max4(a[1], b[1])
    let t24 = pf_min4(a[3], b[3])
    let t25 = pf_max4(a[3], b[3])
    let t26 = pf_min4(t24, t23)
    let t27 = pf_max4(t24, t23)
    let t28 = pf_min4(t22, t18)
    let t29 = pf_max4(t22, t18)
    let t30 = pf_min4(t26, t19)
    let t31 = pf_max4(t26, t19)
    let t32 = pf_min4(t27, t20)
    let t33 = pf_max4(t27, t20)
    let t34 = pf_min4(t25, t21)
    let t35 = pf_max4(t25, t21)
    d[0] = t10
    d[1] = t28
    d[2] = t29
    d[3] = t30
    d[4] = t31
    d[5] = t32
    d[6] = t33
    d[7] = t34
    d[8] = t35
    d[9] = t13
}

/// The 13th smallest of 25 values given as sorted runs `a` (10), `b` (10) and `c` (5): the two merges
/// that would sort them, pruned to the comparators the middle output depends on (72 min/max).
@inline(__always)
func _median25(_ a: UnsafePointer<SIMD4<Float>>, _ b: UnsafePointer<SIMD4<Float>>, _ c: UnsafePointer<SIMD4<Float>>) -> SIMD4<
    Float
> {
    let t25 = pf_min4(a[0], c[0])
    let t26 = pf_max4(a[0], c[0])
    let t27 = pf_min4(a[8], t26)
    let t28 = pf_max4(a[8], t26)
    let t29 = pf_min4(a[4], c[4])
    let t30 = pf_max4(a[4], c[4])
    let t31 = pf_min4(t29, t27)
    let t32 = pf_max4(t29, t27)
    let t33 = pf_min4(t30, t28)
    let t34 = pf_max4(t30, t28)
    let t35 = pf_min4(a[2], c[2])
    let t36 = pf_max4(a[2], c[2])
    let t37 = pf_min4(a[6], t36)
    let t38 = pf_max4(a[6], t36)
    let t39 = pf_min4(t35, t31)
    let t40 = pf_max4(t35, t31)
    let t41 = pf_min4(t37, t32)
    let t42 = pf_max4(t37, t32)
    let t43 = pf_min4(t38, t33)
    let t44 = pf_max4(t38, t33)
    let t45 = pf_min4(a[1], c[1])
    let t46 = pf_max4(a[1], c[1])
    let t47 = pf_min4(a[9], t46)
    let t48 = pf_max4(a[9], t46)
    let t49 = pf_min4(a[5], t47)
    let t50 = pf_max4(a[5], t47)
    let t51 = pf_min4(a[3], c[3])
    let t52 = pf_max4(a[3], c[3])
    let t53 = pf_min4(a[7], t52)
    let t54 = pf_max4(a[7], t52)
    let t55 = pf_min4(t51, t49)
    let t56 = pf_max4(t51, t49)
    let t57 = pf_min4(t53, t50)
    let t58 = pf_max4(t53, t50)
    let t59 = pf_min4(t54, t48)
    let t60 = pf_max4(t54, t48)
    let t61 = pf_min4(t45, t39)
    let t62 = pf_max4(t45, t39)
    let t63 = pf_min4(t55, t40)
    let t64 = pf_max4(t55, t40)
    let t65 = pf_min4(t56, t41)
    let t66 = pf_max4(t56, t41)
    let t67 = pf_min4(t57, t42)
    let t68 = pf_max4(t57, t42)
    let t69 = pf_min4(t58, t43)
    let t70 = pf_max4(t58, t43)
    let t71 = pf_min4(t59, t44)
    let t72 = pf_max4(t59, t44)
    let t73 = pf_min4(t60, t34)
    let t76 = pf_max4(t25, b[0])
    let t77 = pf_min4(t68, b[8])
    let t80 = pf_max4(t77, t76)
    let t82 = pf_max4(t64, b[4])
    let t83 = pf_min4(t72, t82)
    let t87 = pf_min4(t83, t80)
    let t92 = pf_max4(t62, b[2])
    let t93 = pf_min4(t70, t92)
    let t95 = pf_min4(t66, b[6])
    let t100 = pf_max4(t95, t93)
    let t108 = pf_max4(t100, t87)
    let t116 = pf_max4(t61, b[1])
    let t117 = pf_min4(t69, b[9])
    let t120 = pf_max4(t117, t116)
    let t122 = pf_max4(t65, b[5])
    let t123 = pf_min4(t73, t122)
    let t127 = pf_min4(t123, t120)
    let t132 = pf_max4(t63, b[3])
    let t133 = pf_min4(t71, t132)
    let t135 = pf_min4(t67, b[7])
    let t138 = pf_max4(t135, t133)
    let t145 = pf_min4(t138, t127)
    let t162 = pf_max4(t145, t108)
    return t162
}
