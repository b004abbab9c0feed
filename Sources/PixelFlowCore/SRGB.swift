/// sRGB transfer functions (IEC 61966-2-1) and the exact 8-bit tables built from them.
///
/// Decoding an 8-bit value uses a 256-entry table. Encoding a linear value back to 8 bits
/// uses the 255 decision thresholds (the linear values of the code midpoints), found through
/// a 4096-bucket index: every bucket holds at most one threshold, so one comparison after
/// the lookup gives the exact nearest code, and `encode8(decode8(v)) == v` for every `v`.
public enum SRGB {
    /// sRGB-encoded value (0...1) to linear light. Extended for negatives by odd symmetry.
    public static func toLinear(_ v: Float) -> Float {
        let a = abs(v)
        let r = a <= 0.04045 ? a / 12.92 : powf((a + 0.055) / 1.055, 2.4)
        return v < 0 ? -r : r
    }
    /// Linear light to sRGB-encoded value. Extended for negatives by odd symmetry.
    public static func fromLinear(_ v: Float) -> Float {
        let a = abs(v)
        let r = a <= 0.0031308 ? a * 12.92 : 1.055 * powf(a, 1 / 2.4) - 0.055
        return v < 0 ? -r : r
    }

    package static func _toLinearDouble(_ v: Double) -> Double {
        v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4)
    }

    /// Linear value of each 8-bit code.
    public static let decodeTable: [Float] = (0..<256).map { Float(_toLinearDouble(Double($0) / 255)) }

    /// `thresholds[k]` is the smallest linear value that encodes to code `k + 1`.
    package static let thresholds: [Float] = {
        var t = [Float](repeating: 0, count: 256)
        for k in 0..<255 {
            // The midpoint between codes k and k+1, in linear light; then nudge it so that the
            // decoded values of k and k+1 fall on the correct sides.
            var m = Float(_toLinearDouble((Double(k) + 0.5) / 255))
            let lo = decodeTable[k], hi = decodeTable[k + 1]
            if m <= lo { m = lo.nextUp }
            if m > hi { m = hi }
            t[k] = m
        }
        t[255] = .infinity
        return t
    }()

    package static let bucketCount = 4096
    /// For bucket `i` covering linear values `[i/4096, (i+1)/4096)`, the code of its lower edge
    /// (4097 entries: the last is for the value 1).
    package static let bucketStart: [UInt8] = {
        var b = [UInt8](repeating: 0, count: bucketCount + 1)
        var k = 0
        for i in 0...bucketCount {
            let lower = Float(i) / Float(bucketCount)
            while k < 255 && thresholds[k] <= lower { k += 1 }
            b[i] = UInt8(k)
        }
        return b
    }()

    /// `bucketStart` and the threshold of that code side by side, for the gathering encoder
    /// (`pf_store_rgba8_srgb_row_run`): entry `i` holds the code `k = bucketStart[i]` in its
    /// high 32 bits and the bits of `thresholds[k]` in its low 32 bits.
    package static let bucketPairs: [UInt64] = (0...bucketCount).map { i in
        let k = bucketStart[i]
        return UInt64(k) << 32 | UInt64(thresholds[Int(k)].bitPattern)
    }

    /// Encodes a linear value to the nearest 8-bit sRGB code (values outside 0...1 clamp).
    public static func encode8(_ v: Float) -> UInt8 {
        thresholds.withUnsafeBufferPointer { t in
            bucketStart.withUnsafeBufferPointer { b in _encode8(v, t, b) }
        }
    }

    @inlinable @inline(__always)
    package static func _encode8(_ v: Float, _ t: UnsafeBufferPointer<Float>, _ b: UnsafeBufferPointer<UInt8>) -> UInt8 {
        // NaN and negatives go to 0, values >= 1 to 255.
        guard v > 0 else { return 0 }
        guard v < 1 else { return 255 }
        let i = Int(v * 4096)
        var k = Int(b[i])
        if v >= t[k] { k &+= 1 }
        return UInt8(truncatingIfNeeded: k)
    }
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif
