/// The highlight roll-off of `CIToneMapHeadroom` (PixelFlow's; Apple publishes no curve), on
/// a headroom scale where 1 is SDR reference white: values up to the knee `k = target / 2`
/// stay; above it a rational shoulder `k + (target - k) a u / (1 + (a - 1) u)`, with
/// `u = (x - k) / (source - k)` and `a = (source - k) / (target - k)`, bends them onto
/// `target`, reached at `source` (values beyond the source are held there). The shoulder has
/// slope 1 at the knee, rises monotonically and is concave for every ratio of headroms (the
/// form of Reinhard's operator, x / (1 + x), shifted and scaled), where ITU-R BT.2390's
/// Hermite knee overshoots once the target is below a third of the source.
@inline(__always)
package func headroomRollOff(_ x: Float, source: Float, target: Float) -> Float {
    let k = 0.5 * target
    if x <= k { return x }
    let u = Swift.min(1, (x - k) / (source - k))
    let a = (source - k) / (target - k)
    return k + (target - k) * a * u / (1 + (a - 1) * u)
}

/// `CIToneMapHeadroom`'s row: each pixel's largest color channel `m` (unpremultiplied, linear
/// light, 1 = SDR white) is rolled off from `source` to `target` by `headroomRollOff` and the
/// three channels are scaled by `f(m) / m`, which keeps hue and saturation. Pixels whose
/// largest channel is at or below the knee, and alpha, are unchanged. Needs `source > target`.
///
/// - Complexity: O(n), in place.
package func toneMapHeadroomRow(_ p: UnsafeMutablePointer<SIMD4<Float>>, count: Int, source: Float, target: Float) {
    guard source > target else { return }
    let knee = 0.5 * target
    for i in 0..<count {
        let v = p[i]
        let m = Swift.max(v.x, Swift.max(v.y, v.z))
        guard m > knee else { continue }
        let s = headroomRollOff(m, source: source, target: target) / m
        p[i] = SIMD4(v.x * s, v.y * s, v.z * s, v.w)
    }
}
