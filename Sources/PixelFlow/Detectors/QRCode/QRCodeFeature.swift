/// A QR code found and read by `QRCodeDetector` (Core Image's `CIQRCodeFeature`).
///
/// Corners are the outer corners of the symbol (module-space (0, 0), (n, 0), (n, n), (0, n),
/// without the quiet zone) in image coordinates: origin at the top-left, y down, pixels.
/// "Top-left" is the symbol's own top-left (the corner with the finder pattern whose
/// neighbours are the other two), whatever the code's rotation in the image.
public struct QRCodeFeature: Sendable, Hashable {
    /// The symbol's top-left outer corner, in image pixels.
    public var topLeft: Point
    /// The symbol's top-right outer corner, in image pixels.
    public var topRight: Point
    /// The symbol's bottom-right outer corner, in image pixels.
    public var bottomRight: Point
    /// The symbol's bottom-left outer corner, in image pixels.
    public var bottomLeft: Point
    /// The decoded text; nil when the data names a character set PixelFlow does not decode
    /// (`bytes` still holds it). See `QRCodeDecoded.message`.
    public var message: String?
    /// `message`, under the name of Core Image's `CIQRCodeFeature.messageString`.
    public var messageString: String? { message }
    /// The payload bytes of all segments.
    public var bytes: [UInt8]
    /// The symbol's version (1...40), which sets its size: `17 + 4 * version` modules a side.
    public var version: QRVersion
    /// The error correction level the symbol declares.
    public var correctionLevel: QRErrorCorrectionLevel
    /// Codewords Reed-Solomon decoding corrected.
    public var correctedErrors: Int
    /// Position in a structured-append sequence, when the symbol is part of one.
    public var structuredAppend: QRStructuredAppendInfo?
    /// Whether the symbol was seen mirrored (from behind glass, or in a mirrored image).
    public var isMirrored: Bool
    /// The full decoding result (segments, mask, data codewords).
    public var decoded: QRCodeDecoded

    /// The four corners in the order top-left, top-right, bottom-right, bottom-left.
    public var corners: [Point] { [topLeft, topRight, bottomRight, bottomLeft] }

    /// The smallest axis-aligned rectangle that holds the four corners.
    public var bounds: Rect {
        let xs = corners.map(\.x), ys = corners.map(\.y)
        return Rect(minX: xs.min()!, minY: ys.min()!, maxX: xs.max()!, maxY: ys.max()!)
    }

    /// Average module size in pixels along the symbol's sides.
    public var moduleSize: Double {
        func d(_ a: Point, _ b: Point) -> Double { ((a.x - b.x) * (a.x - b.x) + (a.y - b.y) * (a.y - b.y)).squareRoot() }
        let sides = d(topLeft, topRight) + d(topRight, bottomRight) + d(bottomRight, bottomLeft) + d(bottomLeft, topLeft)
        return sides / 4 / Double(version.size)
    }

    /// A feature with the given corners, in image pixels, and what decoding the symbol gave;
    /// `message`, `bytes`, `version` and the other fields are taken from `decoded`.
    public init(topLeft: Point, topRight: Point, bottomRight: Point, bottomLeft: Point, decoded: QRCodeDecoded) {
        self.topLeft = topLeft
        self.topRight = topRight
        self.bottomRight = bottomRight
        self.bottomLeft = bottomLeft
        self.decoded = decoded
        message = decoded.message
        bytes = decoded.bytes
        version = decoded.version
        correctionLevel = decoded.correctionLevel
        correctedErrors = decoded.correctedErrors
        structuredAppend = decoded.structuredAppend
        isMirrored = decoded.isMirrored
    }
}
