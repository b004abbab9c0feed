/// A color with red, green, blue and alpha components in 0...1 (values outside are allowed
/// for extended range), sRGB-encoded and unpremultiplied, as `CIColor` is by default.
public struct Color: Hashable, Sendable, CustomStringConvertible {
    /// The red component, sRGB-encoded, nominally in 0...1.
    public var red: Double
    /// The green component, sRGB-encoded, nominally in 0...1.
    public var green: Double
    /// The blue component, sRGB-encoded, nominally in 0...1.
    public var blue: Double
    /// The opacity, 0 (transparent) to 1 (opaque); the colour components are not multiplied by it.
    public var alpha: Double

    /// A colour from sRGB-encoded, unpremultiplied components, nominally in 0...1; `alpha`
    /// defaults to 1 (opaque).
    public init(red: Double, green: Double, blue: Double, alpha: Double = 1) {
        self.red = red; self.green = green; self.blue = blue; self.alpha = alpha
    }
    /// A gray of the given sRGB-encoded level.
    public init(white: Double, alpha: Double = 1) { self.init(red: white, green: white, blue: white, alpha: alpha) }

    /// Opaque black, `(0, 0, 0, 1)`.
    public static let black = Color(red: 0, green: 0, blue: 0)
    /// Opaque white, `(1, 1, 1, 1)`.
    public static let white = Color(red: 1, green: 1, blue: 1)
    /// Opaque red, `(1, 0, 0, 1)`.
    public static let red = Color(red: 1, green: 0, blue: 0)
    /// Opaque green, `(0, 1, 0, 1)`.
    public static let green = Color(red: 0, green: 1, blue: 0)
    /// Opaque blue, `(0, 0, 1, 1)`.
    public static let blue = Color(red: 0, green: 0, blue: 1)
    /// Fully transparent black, `(0, 0, 0, 0)`.
    public static let clear = Color(red: 0, green: 0, blue: 0, alpha: 0)

    /// True when every component is finite.
    public var isFinite: Bool { red.isFinite && green.isFinite && blue.isFinite && alpha.isFinite }

    /// The components as a vector, sRGB-encoded and unpremultiplied.
    public var simd: SIMD4<Float> { SIMD4(Float(red), Float(green), Float(blue), Float(alpha)) }

    /// The color in the working space: linear (when `linear`) and premultiplied.
    package func working(linear: Bool) -> SIMD4<Float> {
        var v = simd
        if linear { v = SIMD4(SRGB.toLinear(v.x), SRGB.toLinear(v.y), SRGB.toLinear(v.z), v.w) }
        return v * SIMD4(v.w, v.w, v.w, 1)
    }

    public var description: String { "[\(red) \(green) \(blue) \(alpha)]" }
}
