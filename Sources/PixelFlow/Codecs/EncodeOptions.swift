/// Format-specific choices for encoding image files. Quality (JPEG, lossy WebP, HEIF, AVIF)
/// is a separate argument of `PixelBuffer.encoded(as:quality:options:)`; options that do not
/// apply to the chosen format are ignored.
///
/// ```swift
/// let bytes = try buffer.encoded(as: .png, options: EncodeOptions(interlaced: true))
/// let webp = try buffer.encoded(as: .webp, options: EncodeOptions(lossless: true, effort: 6))
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

    /// How a TIFF's strips are compressed.
    public enum TIFFCompression: String, Sendable, CaseIterable {
        /// No compression.
        case none
        /// Lempel-Ziv-Welch, with horizontal differencing.
        case lzw
        /// zlib's Deflate (Adobe Deflate, tag value 8), with horizontal differencing.
        case deflate
        /// Apple's PackBits run-length coding.
        case packBits = "packbits"
        /// JPEG (new-style, tag value 7), 8-bit only; lossy, at the encoder's quality.
        case jpeg
    }

    /// How a GIF's palette of at most 256 colors is chosen from the image.
    public enum GIFQuantizer: String, Sendable, CaseIterable {
        /// Heckbert's median cut: boxes of the color cube split at the median of their longest side.
        case medianCut = "mediancut"
        /// An octree of colors, merged from the deepest level up (Gervautz and Purgathofer).
        case octree
    }

    /// Which color profile is written into the file.
    public enum ColorProfileEmbedding: Sendable, Equatable {
        /// The profile of the color space the pixels are in: sRGB for ordinary buffers, the
        /// context's output color space for a render (the default).
        case automatic
        /// No profile: readers assume sRGB.
        case none
    }

    /// Which metadata blocks of `metadata` are written.
    public struct MetadataKinds: OptionSet, Sendable, Hashable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }
        /// The EXIF block (its orientation tag is reset to 1, since pixels are written upright).
        public static let exif = MetadataKinds(rawValue: 1)
        /// The XMP packet.
        public static let xmp = MetadataKinds(rawValue: 2)
        /// EXIF and XMP.
        public static let all: MetadataKinds = [.exif, .xmp]
    }

    /// PNG: compression level, 0 (none, fastest) ... 9 (smallest). Default 2.
    ///
    /// Level 0 stores the rows unfiltered. Levels 1...9 filter each row (the filter with the
    /// least sum of absolute residuals) and deflate the image data with PixelFlow's own
    /// encoder, whose match search grows with the level: 1...4 take, at each position, the
    /// longest match among the last 1, 2, 4 or 8 positions that share its next 6 bytes;
    /// 5...9 follow longer chains and match lazily, as zlib's upper levels do. The default
    /// was zlib's level 6 until 2026-11: level 2 is about ten times faster on one core and
    /// writes less than zlib's level 6 on photographs. Against libvips' default `pngsave`
    /// (zlib-ng level 6, no filter) its files are 0.6 to 0.7 times the size on photographs
    /// and 0.7 to 1.0 on flat graphics, but up to 1.034 on images whose colors lie near one
    /// curve, such as a sepia render, where rows without filters compress better
    /// (Docs/Formats.md gives the figures). OpenCV's default is level 1 and Pillow's 6;
    /// their levels are zlib's, so equal numbers do not mean equal files. An
    /// Adam7-interlaced file is written by libpng with zlib at this level.
    public var compressionLevel: Int
    /// PNG: write Adam7-interlaced. Default `false`.
    public var interlaced: Bool
    /// PNG and JPEG: how many threads compress the image data of a non-interlaced PNG or
    /// the bands of a baseline JPEG with `restartMarkers`, at least 1; `nil` (the default)
    /// uses every active processor, or the context's `threadCount` when a `RenderContext`
    /// writes the file. The bytes written are the same for every count.
    public var threadCount: Int?
    /// JPEG: write a progressive file. Default `false` (baseline).
    public var progressive: Bool
    /// JPEG: end every row of MCUs (16 rows with 4:2:0 chroma, else 8) of a baseline file
    /// with a restart marker, so that bands of rows are compressed in parallel; only images
    /// large enough for at least two bands of about 256 K pixels each get them. Default `true`.
    ///
    /// The pixels decoded are the same either way; the markers and the bit padding before
    /// them add about 4 bytes per row of MCUs, 0.03% to 0.1% of a photograph at q50...q95
    /// (scripts/check_jpeg_bands.py). `false` writes none and compresses on one thread.
    /// Progressive files never have them. Set it on a value (`options.restartMarkers = false`);
    /// the initializer leaves it `true`.
    public var restartMarkers: Bool
    /// JPEG: chroma subsampling of color images. Default `.yuv420`.
    public var chromaSubsampling: ChromaSubsampling
    /// WebP, AVIF and HEIC: compress without loss (quality then trades size for speed).
    /// Default `false`.
    public var lossless: Bool
    /// WebP, AVIF and HEIC: how hard the encoder works for a smaller file, 0 (fastest) ... 9
    /// (smallest). WebP's method is `min(effort, 6)`; AVIF's speed is `9 - effort`. Default 4.
    public var effort: Int
    /// TIFF: the compression of the strips. Default `.deflate`.
    public var tiffCompression: TIFFCompression
    /// GIF: how the palette is chosen. Default `.medianCut`.
    public var gifQuantizer: GIFQuantizer
    /// GIF: spread each pixel's quantization error to its neighbours (Floyd-Steinberg).
    /// Default `true`.
    public var dithering: Bool
    /// GIF: the most colors in the palette, 2 ... 256 (one of them is kept for transparency
    /// when the image has any). Default 256.
    public var maximumColorCount: Int
    /// Which color profile is embedded. Default `.automatic`.
    public var colorProfile: ColorProfileEmbedding
    /// EXIF and XMP to write where the format has a place for them, filtered by
    /// `keptMetadata`; its color profile and orientation are not used. Default: none.
    public var metadata: ImageMetadata?
    /// Which blocks of `metadata` are written. Default `[]`: metadata is stripped, as sharp
    /// and libvips' `strip` do, and only the color profile is written.
    public var keptMetadata: MetadataKinds

    /// Creates options; every parameter defaults to the value of `EncodeOptions.default`.
    public init(
        compressionLevel: Int = 2, interlaced: Bool = false, progressive: Bool = false,
        chromaSubsampling: ChromaSubsampling = .yuv420, lossless: Bool = false, effort: Int = 4,
        tiffCompression: TIFFCompression = .deflate, gifQuantizer: GIFQuantizer = .medianCut,
        dithering: Bool = true, maximumColorCount: Int = 256,
        colorProfile: ColorProfileEmbedding = .automatic, metadata: ImageMetadata? = nil,
        keptMetadata: MetadataKinds = [], threadCount: Int? = nil
    ) {
        restartMarkers = true
        self.compressionLevel = compressionLevel
        self.threadCount = threadCount
        self.interlaced = interlaced
        self.progressive = progressive
        self.chromaSubsampling = chromaSubsampling
        self.lossless = lossless
        self.effort = effort
        self.tiffCompression = tiffCompression
        self.gifQuantizer = gifQuantizer
        self.dithering = dithering
        self.maximumColorCount = maximumColorCount
        self.colorProfile = colorProfile
        self.metadata = metadata
        self.keptMetadata = keptMetadata
    }

    /// PNG compression level 2, not interlaced, baseline JPEG with 4:2:0 chroma, lossy WebP/AVIF at
    /// effort 4, Deflate TIFF, median-cut dithered GIF; the color profile written, EXIF and
    /// XMP stripped.
    public static let `default` = EncodeOptions()

    /// These options with `threadCount` set to `threads` when it is `nil`: what a render's
    /// write uses, so that the context's thread count also bounds the encoder's.
    func _withThreads(_ threads: Int) -> EncodeOptions {
        var o = self
        if o.threadCount == nil { o.threadCount = threads }
        return o
    }

    /// Throws `invalidParameter` unless `effort` is in 0...9, `maximumColorCount` in 2...256
    /// and `threadCount`, when set, at least 1.
    func _validate(format: ImageFileFormat) throws {
        if let threadCount, threadCount < 1 {
            throw PixelFlowError.invalidParameter(
                filter: "\(format.rawValue) encoder", key: "threadCount",
                reason: "must be at least 1, got \(threadCount)")
        }
        guard (0...9).contains(effort) else {
            throw PixelFlowError.invalidParameter(
                filter: "\(format.rawValue) encoder", key: "effort",
                reason: "must be in 0...9, got \(effort)")
        }
        guard (2...256).contains(maximumColorCount) else {
            throw PixelFlowError.invalidParameter(
                filter: "\(format.rawValue) encoder", key: "maximumColorCount",
                reason: "must be in 2...256, got \(maximumColorCount)")
        }
    }
}
