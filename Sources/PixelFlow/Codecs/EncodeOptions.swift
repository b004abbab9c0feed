/// Format-specific choices for encoding image files. JPEG quality is a separate argument of
/// `PixelBuffer.encoded(as:quality:options:)`; options that do not apply to the chosen
/// format are ignored.
///
/// ```swift
/// let bytes = try buffer.encoded(as: .png, options: EncodeOptions(interlaced: true))
/// ```
public struct EncodeOptions: Sendable, Equatable {
    /// How a JPEG stores its chroma (Cb, Cr) relative to luma.
    public enum ChromaSubsampling: String, Sendable, CaseIterable {
        /// Chroma at half the width and half the height (smallest files; the default).
        case yuv420 = "4:2:0"
        /// Chroma at half the width.
        case yuv422 = "4:2:2"
        /// Chroma at full resolution (best for sharp colored edges).
        case yuv444 = "4:4:4"
    }

    /// PNG: zlib compression level, 0 (none, fastest) ... 9 (smallest). Default 6.
    public var compressionLevel: Int
    /// PNG: write Adam7-interlaced. Default `false`.
    public var interlaced: Bool
    /// JPEG: write a progressive file. Default `false` (baseline).
    public var progressive: Bool
    /// JPEG: chroma subsampling of color images. Default `.yuv420`.
    public var chromaSubsampling: ChromaSubsampling

    /// Creates options; every parameter defaults to the value of `EncodeOptions.default`.
    public init(compressionLevel: Int = 6, interlaced: Bool = false, progressive: Bool = false,
                chromaSubsampling: ChromaSubsampling = .yuv420) {
        self.compressionLevel = compressionLevel
        self.interlaced = interlaced
        self.progressive = progressive
        self.chromaSubsampling = chromaSubsampling
    }

    /// Zlib level 6, not interlaced, baseline JPEG with 4:2:0 chroma.
    public static let `default` = EncodeOptions()
}
