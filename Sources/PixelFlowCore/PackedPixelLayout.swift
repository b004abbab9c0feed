/// Where the four channels of a 4 x 8-bit pixel (`rgba8`, `bgra8`, `argb8`) sit in one
/// `UInt32`, and the component accessors of Apple-platform pixel code.
///
/// A pixel's *packed value* is its four bytes read as a little-endian `UInt32`: byte 0 in
/// bits 0-7, byte 3 in bits 24-31. On little-endian processors (x86-64, arm64) that is what
/// loading a `UInt32` from the pixel's address gives, so code that walks a
/// `CGBitmapContext`'s data as `UInt32` reads the same numbers here:
///
/// | format | bytes in memory | packed value | Apple's name |
/// |---|---|---|---|
/// | `rgba8` | R G B A | `0xAABBGGRR` | `kCVPixelFormatType_32RGBA`, `kCIFormatRGBA8` |
/// | `bgra8` | B G R A | `0xAARRGGBB` | `kCVPixelFormatType_32BGRA`, `kCIFormatBGRA8` |
/// | `argb8` | A R G B | `0xBBGGRRAA` | `kCVPixelFormatType_32ARGB`, `kCIFormatARGB8` |
///
/// SpookCam's macros (`#define R(x) (Mask8(x))`, `G(x)` from bit 8, `B(x)` from bit 16,
/// `A(x)` from bit 24, on RGBA bytes) are `red(_:)`, `green(_:)`, `blue(_:)` and `alpha(_:)`
/// of `.rgba8`; its `RGBAMake(r, g, b, a)` is `pack(red:green:blue:alpha:)`:
///
/// ```swift
/// let layout = PackedPixelLayout.bgra8
/// let pixel = buffer[packed: 3, 4]          // buffer.format == .bgra8
/// let gray = (UInt32(layout.red(pixel)) + UInt32(layout.green(pixel)) + UInt32(layout.blue(pixel))) / 3
/// buffer[packed: 3, 4] = layout.pack(red: UInt8(gray), green: UInt8(gray), blue: UInt8(gray),
///                                    alpha: layout.alpha(pixel))
/// ```
public struct PackedPixelLayout: Sendable, Hashable, CustomStringConvertible {
    /// The bit position of red in the packed value: 0, 8, 16 or 24.
    public let redShift: UInt32
    /// The bit position of green in the packed value.
    public let greenShift: UInt32
    /// The bit position of blue in the packed value.
    public let blueShift: UInt32
    /// The bit position of alpha in the packed value.
    public let alphaShift: UInt32
    /// The format whose layout this is.
    public let format: PixelFormat

    private init(_ format: PixelFormat, red: UInt32, green: UInt32, blue: UInt32, alpha: UInt32) {
        self.format = format
        (redShift, greenShift, blueShift, alphaShift) = (red, green, blue, alpha)
    }

    /// `rgba8`: bytes R, G, B, A; packed `0xAABBGGRR` (red in the low byte).
    public static let rgba8 = PackedPixelLayout(.rgba8, red: 0, green: 8, blue: 16, alpha: 24)
    /// `bgra8`: bytes B, G, R, A; packed `0xAARRGGBB` (`kCVPixelFormatType_32BGRA`).
    public static let bgra8 = PackedPixelLayout(.bgra8, red: 16, green: 8, blue: 0, alpha: 24)
    /// `argb8`: bytes A, R, G, B; packed `0xBBGGRRAA` (`kCVPixelFormatType_32ARGB`, whose
    /// big-endian reading is `0xAARRGGBB`).
    public static let argb8 = PackedPixelLayout(.argb8, red: 8, green: 16, blue: 24, alpha: 0)

    /// The red byte of a packed pixel.
    @inlinable public func red(_ pixel: UInt32) -> UInt8 { UInt8(truncatingIfNeeded: pixel >> redShift) }
    /// The green byte of a packed pixel.
    @inlinable public func green(_ pixel: UInt32) -> UInt8 { UInt8(truncatingIfNeeded: pixel >> greenShift) }
    /// The blue byte of a packed pixel.
    @inlinable public func blue(_ pixel: UInt32) -> UInt8 { UInt8(truncatingIfNeeded: pixel >> blueShift) }
    /// The alpha byte of a packed pixel.
    @inlinable public func alpha(_ pixel: UInt32) -> UInt8 { UInt8(truncatingIfNeeded: pixel >> alphaShift) }

    /// The packed value of a pixel with these channel bytes.
    @inlinable
    public func pack(red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8) -> UInt32 {
        UInt32(red) << redShift | UInt32(green) << greenShift | UInt32(blue) << blueShift
            | UInt32(alpha) << alphaShift
    }

    /// A packed pixel's channels in R, G, B, A order.
    @inlinable
    public func components(_ pixel: UInt32) -> SIMD4<UInt8> {
        SIMD4(red(pixel), green(pixel), blue(pixel), alpha(pixel))
    }

    /// The packed value of channels given in R, G, B, A order.
    @inlinable
    public func pack(_ components: SIMD4<UInt8>) -> UInt32 {
        pack(red: components.x, green: components.y, blue: components.z, alpha: components.w)
    }

    /// `pixel`, packed in this layout, repacked in `other`'s.
    @inlinable
    public func convert(_ pixel: UInt32, to other: PackedPixelLayout) -> UInt32 {
        other.pack(components(pixel))
    }

    public var description: String { format.rawValue }
}
