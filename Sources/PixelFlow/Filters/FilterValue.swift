/// A value given to a filter input: Core Image's NSNumber, CIVector, CIColor, CIImage,
/// NSAffineTransform, NSString and NSData, as one Swift enum.
public enum FilterValue: Sendable, Hashable, CustomStringConvertible {
    /// A number (Core Image's `NSNumber`): a scalar, distance, angle in radians, count or time.
    case number(Double)
    /// A vector of numbers (`CIVector`): a position `[x, y]`, a rect `[x, y, width, height]`, a
    /// matrix row and the like.
    case vector([Double])
    /// A colour (`CIColor`), with components in 0...1 (extended range allowed).
    case color(Color)
    /// An image (`CIImage`).
    case image(Image)
    /// An affine transform (`NSAffineTransform`).
    case transform(AffineTransform)
    /// A string (`NSString`), such as the message of a code generator.
    case string(String)
    /// Raw bytes (`NSData`), such as a cube's table or a code generator's message.
    case data([UInt8])
    /// A flag; its value class is ``FilterValueClass/number``, as Core Image's `NSNumber` booleans.
    case boolean(Bool)
    /// A barcode symbol's codewords and layout (`CIBarcodeDescriptor`), for `CIBarcodeGenerator`.
    case barcodeDescriptor(BarcodeDescriptor)
    /// Text in runs of font, color and spacing (`NSAttributedString`), for
    /// `CIAttributedTextImageGenerator`.
    case styledText(StyledText)

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
        case .barcodeDescriptor: return .barcodeDescriptor
        case .styledText: return .attributedString
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
        case let .barcodeDescriptor(d): return "<\(d.kindName) descriptor>"
        case let .styledText(t): return t.string
        }
    }

    private func format(_ v: Double) -> String {
        v == v.rounded() && abs(v) < 1e15 ? String(Int(v)) : String(v)
    }
}

/// The class of value an input takes (Core Image's `kCIAttributeClass`).
public enum FilterValueClass: String, Sendable, CaseIterable {
    /// A number or a flag (`NSNumber`).
    case number = "NSNumber"
    /// A vector of numbers (`CIVector`).
    case vector = "CIVector"
    /// A colour (`CIColor`).
    case color = "CIColor"
    /// An image (`CIImage`).
    case image = "CIImage"
    /// An affine transform (`NSAffineTransform`).
    case transform = "NSAffineTransform"
    /// A string (`NSString`).
    case string = "NSString"
    /// Raw bytes (`NSData`).
    case data = "NSData"
    /// A barcode descriptor (`CIBarcodeDescriptor`).
    case barcodeDescriptor = "CIBarcodeDescriptor"
    /// Styled text (`NSAttributedString`): ``StyledText``.
    case attributedString = "NSAttributedString"
}
