/// The format information (error-correction level and mask, BCH(15,5)-protected) and the
/// version information (version number, BCH(18,6)-protected) of ISO/IEC 18004 §7.9 and
/// §7.10, with nearest-codeword decoding.
///
/// - Complexity: encoding O(1); decoding compares with all 32 (or 34) valid codewords.
enum QRFormatInformation {
    /// The generator of the format information's BCH code: x^10 + x^8 + x^5 + x^4 + x^2 + x + 1.
    static let formatGenerator: UInt32 = 0x537
    /// XORed onto the format information so that it is never all zero.
    static let formatMask: UInt32 = 0x5412
    /// The generator of the version information's BCH code:
    /// x^12 + x^11 + x^10 + x^9 + x^8 + x^5 + x^2 + 1.
    static let versionGenerator: UInt32 = 0x1F25
    /// The largest Hamming distance at which a read codeword is still accepted.
    static let maximumDistance = 3

    /// The 15 format bits (after masking) for `level` and `mask`; bit 14 is sent first.
    static func formatBits(level: QRErrorCorrectionLevel, mask: Int) -> UInt32 {
        let data = level.formatBits << 3 | UInt32(mask & 7)
        var remainder = data
        for _ in 0..<10 { remainder = (remainder << 1) ^ ((remainder >> 9) * formatGenerator) }
        return (data << 10 | (remainder & 0x3FF)) ^ formatMask
    }

    /// The 18 version bits for `version` (7...40): six bits of version, twelve of BCH parity.
    static func versionBits(_ version: Int) -> UInt32 {
        var remainder = UInt32(version)
        for _ in 0..<12 { remainder = (remainder << 1) ^ ((remainder >> 11) * versionGenerator) }
        return UInt32(version) << 12 | (remainder & 0xFFF)
    }

    /// All 32 valid format codewords with what they stand for.
    static let allFormats: [(bits: UInt32, level: QRErrorCorrectionLevel, mask: Int)] =
        QRErrorCorrectionLevel.allCases.flatMap { level in
            (0..<8).map { (formatBits(level: level, mask: $0), level, $0) }
        }

    /// The level and mask whose codeword is nearest to any of `candidates` (the copies read
    /// from a symbol), with the distance; nil when none is within `maximumDistance`.
    static func decodeFormat(_ candidates: [UInt32]) -> (level: QRErrorCorrectionLevel, mask: Int, distance: Int)? {
        var best: (level: QRErrorCorrectionLevel, mask: Int, distance: Int)?
        for c in candidates {
            for f in allFormats {
                let d = (c ^ f.bits).nonzeroBitCount
                if best == nil || d < best!.distance { best = (f.level, f.mask, d) }
            }
        }
        guard let b = best, b.distance <= maximumDistance else { return nil }
        return b
    }

    /// The version (7...40) whose codeword is nearest to any of `candidates`, with the
    /// distance; nil when none is within `maximumDistance`.
    static func decodeVersion(_ candidates: [UInt32]) -> (version: Int, distance: Int)? {
        var best: (version: Int, distance: Int)?
        for c in candidates {
            for v in 7...40 {
                let d = (c ^ versionBits(v)).nonzeroBitCount
                if best == nil || d < best!.distance { best = (v, d) }
            }
        }
        guard let b = best, b.distance <= maximumDistance else { return nil }
        return b
    }
}

// MARK: Public access for detectors

extension QRVersion {
    /// The 18-bit version information codeword (versions 7 and up; nil below): six bits of
    /// version, twelve of BCH parity. Bit i (0 = least significant) sits at column
    /// `size - 11 + i % 3`, row `i / 3` (the block left of the top-right finder pattern), and
    /// transposed in the block above the bottom-left finder pattern.
    public var versionInformation: UInt32? {
        number >= 7 ? QRFormatInformation.versionBits(number) : nil
    }

    /// The version (7...40) whose version information is nearest to `bits`, when at most 3
    /// bits differ; how a detector that read a version block from an image confirms the size.
    public init?(versionInformation bits: UInt32) {
        guard let v = QRFormatInformation.decodeVersion([bits & 0x3FFFF]) else { return nil }
        self.init(_unchecked: v.version)
    }
}

extension QRCodeDecoder {
    /// The error-correction level and mask in `matrix`'s format information: the valid
    /// codeword nearest to either copy, with the number of bits that differ (0...3); nil when
    /// both copies are more than 3 bits from any valid codeword or the size is not a QR size.
    ///
    /// Cheap (30 modules): a detector can use it to check a sampling grid before decoding.
    public static func formatInformation(of matrix: QRBitMatrix)
        -> (correctionLevel: QRErrorCorrectionLevel, mask: Int, bitErrors: Int)?
    {
        let n = matrix.size
        guard QRVersion(size: n) != nil, matrix.modules.count == n * n else { return nil }
        let copies = (0..<2).map { copy -> UInt32 in
            var v: UInt32 = 0
            for (i, (x, y)) in QRSymbolLayout.formatPositions(size: n, copy: copy).enumerated()
            where matrix.modules[y * n + x] {
                v |= 1 << UInt32(i)
            }
            return v
        }
        guard let f = QRFormatInformation.decodeFormat(copies) else { return nil }
        return (f.level, f.mask, f.distance)
    }
}
