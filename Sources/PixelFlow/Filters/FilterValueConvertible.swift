/// A Swift value that can be given to a filter input by key: what a Core Image parameter
/// dictionary (`[String: Any]`) holds, typed.
///
/// Numbers (`Double`, `Float`, `Int`), `Bool`, `String`, `Image`, `Color`, `AffineTransform`,
/// `Point` (a 2-vector, Core Image's `CIVector(x:y:)`), `Rect` (a 4-vector `[x y width height]`,
/// `CIVector(cgRect:)`), arrays of floating-point numbers (a vector; `[150, 150]` is one) and
/// `FilterValue` itself conform, so a parameter dictionary mixes them as Core Image code does:
///
/// ```swift
/// let radius = 4.0
/// let out = try photo.applyingFilter("CIBloom", parameters: ["inputRadius": radius, "inputIntensity": 1])
/// let mixed = try photo.applyingFilter("CIDissolveTransition",
///                                      parameters: ["inputTargetImage": other, "inputTime": 0.25])
/// ```
///
/// Bytes for a data input (`CIQRCodeGenerator`'s `inputMessage`) go as `FilterValue.data(bytes)`
/// or as a `String` (its UTF-8). The value is checked by the filter (class, NaN, range) when
/// the filter is built, as for `FilterRegistry.apply(_:_:)`.
public protocol FilterValueConvertible {
    /// The value as a filter input takes it.
    var filterValue: FilterValue { get }
}

extension FilterValue: FilterValueConvertible {
    public var filterValue: FilterValue { self }
}

extension Double: FilterValueConvertible {
    public var filterValue: FilterValue { .number(self) }
}

extension Float: FilterValueConvertible {
    public var filterValue: FilterValue { .number(Double(self)) }
}

extension Int: FilterValueConvertible {
    public var filterValue: FilterValue { .number(Double(self)) }
}

extension Bool: FilterValueConvertible {
    public var filterValue: FilterValue { .boolean(self) }
}

extension String: FilterValueConvertible {
    public var filterValue: FilterValue { .string(self) }
}

extension Image: FilterValueConvertible {
    public var filterValue: FilterValue { .image(self) }
}

extension Color: FilterValueConvertible {
    public var filterValue: FilterValue { .color(self) }
}

extension AffineTransform: FilterValueConvertible {
    public var filterValue: FilterValue { .transform(self) }
}

extension Point: FilterValueConvertible {
    /// `[x y]`, as `CIVector(x:y:)`.
    public var filterValue: FilterValue { .vector([x, y]) }
}

extension Rect: FilterValueConvertible {
    /// `[x y width height]`, as `CIVector(cgRect:)` (top-left origin, as every PixelFlow rect).
    public var filterValue: FilterValue { .vector([x, y, width, height]) }
}

extension Array: FilterValueConvertible where Element: BinaryFloatingPoint {
    /// The components as a vector.
    public var filterValue: FilterValue { .vector(map { Double($0) }) }
}
