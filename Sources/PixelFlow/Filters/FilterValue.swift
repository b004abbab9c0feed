/// A value given to a filter input: Core Image's NSNumber, CIVector, CIColor, CIImage,
/// NSAffineTransform, NSString and NSData, as one Swift enum.
public enum FilterValue: Sendable, Hashable, CustomStringConvertible {
    case number(Double)
    case vector([Double])
    case color(Color)
    case image(Image)
    case transform(AffineTransform)
    case string(String)
    case data([UInt8])
    case boolean(Bool)

    /// The value class name, as used in messages and in attribute dictionaries.
    public var valueClass: FilterValueClass {
        switch self {
        case .number, .boolean: return .number
        case .vector: return .vector
        case .color: return .color
        case .image: return .image
        case .transform: return .transform
        case .string: return .string
        case .data: return .data
        }
    }

    public var description: String {
        switch self {
        case let .number(v): return format(v)
        case let .vector(v): return "[" + v.map(format).joined(separator: " ") + "]"
        case let .color(c): return "[" + [c.red, c.green, c.blue, c.alpha].map(format).joined(separator: " ") + "]"
        case .image: return "<image>"
        case let .transform(t): return "[" + [t.a, t.b, t.c, t.d, t.tx, t.ty].map(format).joined(separator: " ") + "]"
        case let .string(s): return s
        case let .data(d): return "<\(d.count) bytes>"
        case let .boolean(b): return b ? "true" : "false"
        }
    }

    private func format(_ v: Double) -> String {
        v == v.rounded() && abs(v) < 1e15 ? String(Int(v)) : String(v)
    }
}

/// The class of value an input takes (Core Image's `kCIAttributeClass`).
public enum FilterValueClass: String, Sendable, CaseIterable {
    case number = "NSNumber"
    case vector = "CIVector"
    case color = "CIColor"
    case image = "CIImage"
    case transform = "NSAffineTransform"
    case string = "NSString"
    case data = "NSData"
}
