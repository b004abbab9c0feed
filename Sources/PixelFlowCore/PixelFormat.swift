/// How the pixels of a `PixelBuffer` are laid out in memory.
public enum PixelFormat: String, Sendable, CaseIterable, CustomStringConvertible {
    /// 4 x UInt8 per pixel, RGBA order, sRGB-encoded by default.
    case rgba8
    /// 4 x UInt16 per pixel (native byte order), RGBA order, as 16-bit PNGs hold.
    case rgba16
    /// 4 x Float32 per pixel (`SIMD4<Float>`), RGBA order.
    case rgbaF32
    /// 1 x UInt8 per pixel (luminance).
    case gray8
    /// 1 x Float32 per pixel (luminance).
    case grayF32
    /// 4 x UInt8 per pixel in the byte order B, G, R, A: Core Video's
    /// `kCVPixelFormatType_32BGRA` and Core Image's `kCIFormatBGRA8`, what a `CGBitmapContext`
    /// with `kCGBitmapByteOrder32Little` and alpha first holds. Read as a little-endian `UInt32`
    /// (the native order on x86-64 and arm64) a pixel is `0xAARRGGBB`: blue in bits 0-7,
    /// green 8-15, red 16-23, alpha 24-31. sRGB-encoded by default, like `rgba8`.
    case bgra8
    /// 4 x UInt8 per pixel in the byte order A, R, G, B: Core Video's
    /// `kCVPixelFormatType_32ARGB` and Core Image's `kCIFormatARGB8` (big-endian ARGB). Read as
    /// a little-endian `UInt32` a pixel is `0xBBGGRRAA`: alpha in bits 0-7, red 8-15, green
    /// 16-23, blue 24-31 (a big-endian load gives `0xAARRGGBB`). sRGB-encoded by default.
    case argb8

    /// Bytes one pixel occupies.
    public var bytesPerPixel: Int {
        switch self {
        case .rgba8, .bgra8, .argb8: return 4
        case .rgba16: return 8
        case .rgbaF32: return 16
        case .gray8: return 1
        case .grayF32: return 4
        }
    }

    /// Number of channels stored per pixel.
    public var channelCount: Int {
        switch self {
        case .rgba8, .bgra8, .argb8, .rgba16, .rgbaF32: return 4
        case .gray8, .grayF32: return 1
        }
    }

    /// The 4 x 8-bit formats (`rgba8`, `bgra8`, `argb8`): one byte per channel, four bytes a
    /// pixel, in different orders. `PixelBuffer`'s packed accessors take these.
    public var isPacked32: Bool { packedLayout != nil }

    /// Where each channel sits in a pixel read as one little-endian `UInt32`, for the
    /// 4 x 8-bit formats; nil for the others. See ``PackedPixelLayout``.
    public var packedLayout: PackedPixelLayout? {
        switch self {
        case .rgba8: return .rgba8
        case .bgra8: return .bgra8
        case .argb8: return .argb8
        case .rgba16, .rgbaF32, .gray8, .grayF32: return nil
        }
    }

    /// True for the floating-point formats.
    public var isFloat: Bool { self == .rgbaF32 || self == .grayF32 }
    /// True when the format stores an alpha channel.
    public var hasAlpha: Bool { channelCount == 4 }

    public var description: String { rawValue }
}

/// Whether color channels are stored multiplied by alpha.
public enum AlphaMode: String, Sendable {
    /// Color channels are independent of alpha (PNG files, most 8-bit data).
    case straight
    /// Color channels are multiplied by alpha (the working space, compositing).
    case premultiplied
}

/// How the stored values relate to light.
public enum ColorEncoding: String, Sendable {
    /// Values are sRGB-encoded (gamma-compressed), as image files store them.
    case sRGB
    /// Values are proportional to light, with sRGB primaries.
    case linear
}
