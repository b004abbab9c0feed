/// Arithmetic in GF(2^8) built on the primitive polynomial x^8 + x^4 + x^3 + x^2 + 1
/// (0x11D), the field of QR code Reed-Solomon codes (ISO/IEC 18004 §7.5.2).
///
/// Addition is XOR; multiplication goes through tables of powers and logarithms of the
/// primitive element alpha = 2.
///
/// ```swift
/// GaloisField256.multiply(0x02, 0x80)       // 0x1D: x * x^7 = x^8 reduces by 0x11D
/// GaloisField256.exp(8)                     // alpha^8 = 0x1D
/// ```
///
/// - Complexity: O(1) per operation; 768 bytes of tables built once.
public enum GaloisField256 {
    /// `_exp[i]` = alpha^i for i in 0..<510 (doubled so sums of two logarithms need no modulo).
    static let _exp: [UInt8] = {
        var t = [UInt8](repeating: 0, count: 512)
        var x = 1
        for i in 0..<255 {
            t[i] = UInt8(x)
            t[i + 255] = UInt8(x)
            x <<= 1
            if x & 0x100 != 0 { x ^= 0x11D }
        }
        t[510] = t[0]
        t[511] = t[1]
        return t
    }()

    /// `_log[a]` = i with alpha^i = a, for a != 0; `_log[0]` is unused.
    static let _log: [UInt8] = {
        var t = [UInt8](repeating: 0, count: 256)
        for i in 0..<255 { t[Int(_exp[i])] = UInt8(i) }
        return t
    }()

    /// alpha^`power`, for any integer power (taken modulo 255).
    public static func exp(_ power: Int) -> UInt8 {
        var p = power % 255
        if p < 0 { p += 255 }
        return _exp[p]
    }

    /// The logarithm of `a` to base alpha, 0...254.
    /// - Precondition: `a != 0`.
    public static func log(_ a: UInt8) -> Int {
        precondition(a != 0, "log(0) is undefined in GF(256)")
        return Int(_log[Int(a)])
    }

    /// The product `a * b`.
    @inline(__always)
    public static func multiply(_ a: UInt8, _ b: UInt8) -> UInt8 {
        if a == 0 || b == 0 { return 0 }
        return _exp[Int(_log[Int(a)]) + Int(_log[Int(b)])]
    }

    /// The quotient `a / b`.
    /// - Precondition: `b != 0`.
    public static func divide(_ a: UInt8, _ b: UInt8) -> UInt8 {
        precondition(b != 0, "division by zero in GF(256)")
        if a == 0 { return 0 }
        return _exp[Int(_log[Int(a)]) + 255 - Int(_log[Int(b)])]
    }

    /// The multiplicative inverse of `a`.
    /// - Precondition: `a != 0`.
    public static func inverse(_ a: UInt8) -> UInt8 { divide(1, a) }
}
