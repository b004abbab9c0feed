import CCodecShims

/// What an image file says about its pixels besides the pixels themselves: the color
/// profile, EXIF and XMP blocks, and the orientation.
///
/// Decoders fill it from the file (`ImageFile.metadata`); encoders write the parts that
/// `EncodeOptions` asks for. Blocks are kept as the bytes the file stores, so they round-trip
/// unchanged.
///
/// ```swift
/// let file = try ImageFile(contentsOfFile: "IMG_0001.heic")
/// file.metadata.orientation            // .right for a portrait taken with the phone upright
/// file.metadata.iccProfile?.count      // 536: Display P3
/// ```
public struct ImageMetadata: Sendable, Equatable {
    /// The embedded ICC profile, as stored (PNG's iCCP inflated, JPEG's APP2 chunks joined).
    public var iccProfile: [UInt8]?
    /// The EXIF block: a TIFF structure starting `II*\0` or `MM\0*`, without the `Exif\0\0`
    /// prefix that JPEG's APP1 segment puts before it.
    public var exif: [UInt8]?
    /// The XMP packet (UTF-8 XML), without JPEG's APP1 namespace prefix.
    public var xmp: [UInt8]?
    /// How the stored pixels must be turned to be upright, from the EXIF Orientation tag, TIFF's
    /// Orientation tag or (HEIF) the irot and imir boxes; `.up` when the file says nothing.
    /// Decoding applies it unless `DecodeOptions.applyOrientation` is false.
    public var orientation: EXIFOrientation
    /// Coding-independent code points (ITU-T H.273) from PNG's cICP chunk or a HEIF nclx box.
    public var cicp: CICP?
    /// PNG's gAMA chunk: the encoding gamma (0.45455 for a 2.2 display gamma); `nil` without one.
    public var gamma: Double?
    /// PNG's cHRM chunk: the white point and primaries; `nil` without one.
    public var chromaticities: Chromaticities?
    /// True when the file says its pixels are sRGB without embedding a profile (PNG's sRGB
    /// chunk).
    public var declaresSRGB: Bool

    /// Creates metadata; every field defaults to "the file says nothing".
    public init(
        iccProfile: [UInt8]? = nil, exif: [UInt8]? = nil, xmp: [UInt8]? = nil,
        orientation: EXIFOrientation = .up, cicp: CICP? = nil, gamma: Double? = nil,
        chromaticities: Chromaticities? = nil, declaresSRGB: Bool = false
    ) {
        self.iccProfile = iccProfile
        self.exif = exif
        self.xmp = xmp
        self.orientation = orientation
        self.cicp = cicp
        self.gamma = gamma
        self.chromaticities = chromaticities
        self.declaresSRGB = declaresSRGB
    }
}

/// Coding-independent code points (ITU-T H.273): which primaries, transfer function and
/// matrix a file's values use. PNG stores them in cICP, HEIF and AVIF in an nclx box.
public struct CICP: Sendable, Hashable {
    /// Colour primaries: 1 BT.709/sRGB, 9 BT.2020, 12 Display P3 (SMPTE EG 432-1), 2 unspecified.
    public var colorPrimaries: Int
    /// Transfer characteristics: 13 sRGB, 1/6/14/15 BT.709-like, 8 linear, 16 PQ, 18 HLG.
    public var transferCharacteristics: Int
    /// Matrix coefficients: 0 identity (RGB), 1 BT.709, 6 BT.601, 9 BT.2020.
    public var matrixCoefficients: Int
    /// True when values use the full range (0...255 for 8 bits), false for video range.
    public var fullRange: Bool

    /// Code points as H.273 numbers them; see the properties for the common values.
    public init(colorPrimaries: Int, transferCharacteristics: Int, matrixCoefficients: Int, fullRange: Bool) {
        self.colorPrimaries = colorPrimaries
        self.transferCharacteristics = transferCharacteristics
        self.matrixCoefficients = matrixCoefficients
        self.fullRange = fullRange
    }
}

/// The blocks an encoder writes into a file, resolved from `EncodeOptions` by the caller:
/// each is written as given when present and left out when `nil`.
struct _EmbeddedMetadata: Sendable, Equatable {
    /// An ICC profile (PNG iCCP, JPEG APP2, WebP ICCP, TIFF tag 34675, HEIF colr).
    var iccProfile: [UInt8]?
    /// An EXIF TIFF structure without the `Exif\0\0` prefix (each encoder adds what its
    /// container needs).
    var exif: [UInt8]?
    /// An XMP packet.
    var xmp: [UInt8]?

    static let none = _EmbeddedMetadata()

    /// Calls `body` with the shim's view of these blocks, valid during the call.
    func withBlocks<R>(_ body: (UnsafePointer<pf_metadata_blocks>) throws -> R) rethrows -> R {
        let icc = iccProfile ?? [], exif = exif ?? [], xmp = xmp ?? []
        return try icc.withUnsafeBufferPointer { i in
            try exif.withUnsafeBufferPointer { e in
                try xmp.withUnsafeBufferPointer { x in
                    var blocks = pf_metadata_blocks(
                        icc: i.baseAddress, icc_size: i.count, exif: e.baseAddress,
                        exif_size: e.count, xmp: x.baseAddress, xmp_size: x.count)
                    return try body(&blocks)
                }
            }
        }
    }
}

/// What a decoder returns: the pixels as the file stores them (orientation not applied,
/// values in the file's own color space) and the metadata that says how to read them.
struct _DecodedImage: Sendable {
    /// `gray8`, `rgba8` or `rgba16`, sRGB-tagged with straight alpha (the tag only says
    /// "integer, encoded"; the true color space is in `metadata`).
    var buffer: PixelBuffer
    var metadata: ImageMetadata
    /// True when `buffer` holds C, M, Y, K in its four channels (0 = no ink) instead of RGBA;
    /// the caller converts it, through the ICC profile when there is one.
    var isCMYK: Bool = false
}

/// One decoded frame or page with how long it shows (seconds; 0 for pages).
struct _DecodedFrame: Sendable {
    var image: _DecodedImage
    var duration: Double
}
