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

    /// Bytes one pixel occupies.
    public var bytesPerPixel: Int {
        switch self {
        case .rgba8: return 4
        case .rgba16: return 8
        case .rgbaF32: return 16
        case .gray8: return 1
        case .grayF32: return 4
        }
    }

    /// Number of channels stored per pixel.
    public var channelCount: Int {
        switch self {
        case .rgba8, .rgba16, .rgbaF32: return 4
        case .gray8, .grayF32: return 1
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
