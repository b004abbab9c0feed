/// What `QRCodeDecoder` read from a QR code symbol.
public struct QRCodeDecoded: Sendable, Hashable {
    /// The text, decoded per segment: numeric and alphanumeric as ASCII, kanji through
    /// Shift JIS, byte data in the character set of the ECI in force (UTF-8 for 26,
    /// ISO-8859-1 for 1 and 3, Shift JIS for 20, UTF-16BE for 25, ASCII for 27), or, with no
    /// ECI, as UTF-8 when the bytes are valid UTF-8 and ISO-8859-1 otherwise. Nil when an ECI
    /// names a character set PixelFlow does not decode or the bytes are invalid in it.
    public let message: String?
    /// The payload of all segments in order (`QRSegment.payload`): the raw message bytes.
    public let bytes: [UInt8]
    /// The segments, as the encoder would have made them.
    public let segments: [QRSegment]
    /// The symbol's version (1...40), which sets its size.
    public let version: QRVersion
    /// The error correction level the symbol's format information declares.
    public let correctionLevel: QRErrorCorrectionLevel
    /// The data mask, 0...7.
    public let mask: Int
    /// Codewords that Reed-Solomon decoding corrected, over all blocks.
    public let correctedErrors: Int
    /// Set when the symbol is part of a structured-append sequence.
    public let structuredAppend: QRStructuredAppendInfo?
    /// Whether the symbol was read from the transposed matrix (a mirrored symbol).
    public let isMirrored: Bool
    /// The corrected data codewords, in block order.
    public let dataCodewords: [UInt8]
}

/// The position of a symbol in a structured-append sequence.
public struct QRStructuredAppendInfo: Sendable, Hashable {
    /// 0-based position of this symbol.
    public let index: Int
    /// Number of symbols in the sequence, 1...16.
    public let total: Int
    /// XOR of all bytes of the whole message (`QRStructuredAppend.parity(of:)`).
    public let parity: UInt8
}
