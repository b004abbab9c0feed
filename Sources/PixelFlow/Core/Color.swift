/// A color with red, green, blue and alpha components in 0...1 (values outside are allowed
/// for extended range), sRGB-encoded and unpremultiplied, as `CIColor` is by default.
public struct Color: Hashable, Sendable, CustomStringConvertible {
    public var red: Double
    public var green: Double
    public var blue: Double
    public var alpha: Double

    public init(red: Double, green: Double, blue: Double, alpha: Double = 1) {
        self.red = red; self.green = green; self.blue = blue; self.alpha = alpha
    }
    /// A gray of the given sRGB-encoded level.
    public init(white: Double, alpha: Double = 1) { self.init(red: white, green: white, blue: white, alpha: alpha) }

    public static let black = Color(red: 0, green: 0, blue: 0)
    public static let white = Color(red: 1, green: 1, blue: 1)
    public static let red = Color(red: 1, green: 0, blue: 0)
    public static let green = Color(red: 0, green: 1, blue: 0)
    public static let blue = Color(red: 0, green: 0, blue: 1)
    public static let clear = Color(red: 0, green: 0, blue: 0, alpha: 0)

    /// True when every component is finite.
    public var isFinite: Bool { red.isFinite && green.isFinite && blue.isFinite && alpha.isFinite }

    /// The components as a vector, sRGB-encoded and unpremultiplied.
    public var simd: SIMD4<Float> { SIMD4(Float(red), Float(green), Float(blue), Float(alpha)) }

    /// The color in the working space: linear (when `linear`) and premultiplied.
    func working(linear: Bool) -> SIMD4<Float> {
        var v = simd
        if linear { v = SIMD4(SRGB.toLinear(v.x), SRGB.toLinear(v.y), SRGB.toLinear(v.z), v.w) }
        return v * SIMD4(v.w, v.w, v.w, 1)
    }

    public var description: String { "[\(red) \(green) \(blue) \(alpha)]" }
}
