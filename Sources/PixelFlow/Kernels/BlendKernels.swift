// Blend kernels on rows of premultiplied pixels: `dst` holds the background on entry and
// the result on exit; `fg` is the foreground.

/// Porter-Duff source-over: `fg + dst * (1 - fg.a)`.
func sourceOverRow(_ fg: UnsafePointer<SIMD4<Float>>, _ dst: UnsafeMutablePointer<SIMD4<Float>>, count: Int) {
    for i in 0..<count {
        let f = fg[i]
        dst[i] = f + dst[i] * (1 - f.w)
    }
}

/// Porter-Duff source-atop: `rgb = fg.rgb * dst.a + dst.rgb * (1 - fg.a)`, `a = dst.a`.
func sourceAtopRow(_ fg: UnsafePointer<SIMD4<Float>>, _ dst: UnsafeMutablePointer<SIMD4<Float>>, count: Int) {
    for i in 0..<count {
        let f = fg[i], b = dst[i]
        var r = f * b.w + b * (1 - f.w)
        r.w = b.w
        dst[i] = r
    }
}

/// Linear mix: `dst + (fg - dst) * amount` on all four channels.
func mixRow(_ fg: UnsafePointer<SIMD4<Float>>, _ dst: UnsafeMutablePointer<SIMD4<Float>>, count: Int, amount: Float) {
    let t = SIMD4<Float>(repeating: amount), s = 1 - t
    for i in 0..<count {
        dst[i] = dst[i] * s + fg[i] * t
    }
}
