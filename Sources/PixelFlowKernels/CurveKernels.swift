// Per-channel curves: a separate 1D table for red, green and blue (photo effects,
// CIColorCurves).

extension LookupTable1D {
    /// The table at `v`, read with linear interpolation: inputs outside `lower...upper` hold the
    /// end values, or continue along the end slopes when `extrapolate` is set; NaN reads the
    /// first entry.
    @inline(__always)
    func _read(_ t: UnsafeBufferPointer<Float>, _ v: Float, scale: Float) -> Float {
        let n = t.count
        if extrapolate {
            if v < lower { return t[0] + (v - lower) * lowerSlope }
            if v > upper { return t[n - 1] + (v - upper) * upperSlope }
        }
        var c = v
        if !(c >= lower) { c = lower }  // below, or NaN
        if c > upper { c = upper }
        let s = (c - lower) * scale
        var k = s.rounded(.down)
        if k > Float(n - 2) { k = Float(n - 2) }
        if !(k >= 0) { k = 0 }
        let j = Int(k)
        let a = t[j], b = t[j + 1]
        return a + (b - a) * (s - k)
    }
}

/// Applies `red`, `green` and `blue` (each at least 2 entries) to their channels, alpha
/// unchanged, one channel at a time over the row. Tolerance: 1e-6 against the interpolated
/// tables computed in Double (the same reads as `lookupTableRGBRow`, per channel).
package func lookupTablesRGBRow(
    _ p: UnsafeMutablePointer<SIMD4<Float>>, count: Int, red: LookupTable1D, green: LookupTable1D, blue: LookupTable1D
) {
    @inline(__always) func channel(_ ch: Int, _ table: LookupTable1D) {
        let scale = Float(table.values.count - 1) / (table.upper - table.lower)
        table.values.withUnsafeBufferPointer { t in
            for i in 0..<count { p[i][ch] = table._read(t, p[i][ch], scale: scale) }
        }
    }
    channel(0, red)
    channel(1, green)
    channel(2, blue)
}
