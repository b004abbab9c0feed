/// A QR code made by `QRCodeEncoder`: the module matrix and the choices that produced it.
public struct QRCodeSymbol: Sendable, Hashable {
    /// The modules, without quiet zone.
    public let matrix: QRBitMatrix
    /// The version used (1...40): the symbol has `17 + 4 * version` modules a side.
    public let version: QRVersion
    /// The error correction level used.
    public let correctionLevel: QRErrorCorrectionLevel
    /// The data mask, 0...7.
    public let mask: Int
    /// The segments encoded, in order.
    public let segments: [QRSegment]
    /// The data codewords (segments, terminator and padding), before error correction.
    public let dataCodewords: [UInt8]

    /// Modules on a side, without quiet zone.
    public var size: Int { matrix.size }
}
