/// How much of a QR code can be damaged and still be read: one of the four error-correction
/// levels of ISO/IEC 18004.
///
/// Higher levels spend more codewords on Reed-Solomon parity, so the same message needs a
/// larger symbol. The approximate share of codewords that can be restored is 7 % (L), 15 % (M),
/// 25 % (Q) and 30 % (H).
///
/// ```swift
/// let level = QRErrorCorrectionLevel(letter: "Q")   // .quartile
/// level?.letter                                    // "Q"
/// ```
public enum QRErrorCorrectionLevel: Int, Sendable, Hashable, CaseIterable, Comparable, CustomStringConvertible {
    /// About 7 % of the codewords can be restored.
    case low = 0
    /// About 15 % of the codewords can be restored; Core Image's default.
    case medium = 1
    /// About 25 % of the codewords can be restored.
    case quartile = 2
    /// About 30 % of the codewords can be restored.
    case high = 3

    /// The level called `letter`: `"L"`, `"M"`, `"Q"` or `"H"` (case-insensitive).
    public init?(letter: String) {
        switch letter.uppercased() {
        case "L": self = .low
        case "M": self = .medium
        case "Q": self = .quartile
        case "H": self = .high
        default: return nil
        }
    }

    /// The level's letter, as Core Image's `inputCorrectionLevel` spells it.
    public var letter: String {
        switch self {
        case .low: return "L"
        case .medium: return "M"
        case .quartile: return "Q"
        case .high: return "H"
        }
    }

    /// The two bits that stand for the level in the format information (ISO/IEC 18004
    /// Table 12): L = 01, M = 00, Q = 11, H = 10.
    var formatBits: UInt32 {
        switch self {
        case .low: return 0b01
        case .medium: return 0b00
        case .quartile: return 0b11
        case .high: return 0b10
        }
    }

    /// The level whose format-information bits are `bits` (the low two bits are used).
    init(formatBits bits: UInt32) {
        switch bits & 3 {
        case 0b01: self = .low
        case 0b00: self = .medium
        case 0b11: self = .quartile
        default: self = .high
        }
    }

    public static func < (l: Self, r: Self) -> Bool { l.rawValue < r.rawValue }
    public var description: String { letter }
}
