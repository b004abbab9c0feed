/// Makes QR code symbols (ISO/IEC 18004 model 2) from text, bytes or segments.
///
/// The encoder picks the smallest version that holds the message at the chosen level (or
/// uses a fixed one), splits text into the cheapest mix of modes, adds the terminator and
/// padding, computes the Reed-Solomon blocks, interleaves them, places the bits, and applies
/// the mask with the lowest penalty score of the eight (or a given one).
///
/// ```swift
/// let symbol = try QRCodeEncoder(correctionLevel: .high).encode("https://example.com")
/// symbol.version.number        // 3
/// symbol.matrix[0, 0]          // true: the top-left finder pattern
/// ```
///
/// - Complexity: O(s^2) per mask tried for a symbol of s x s modules, plus O(n) for n
///   characters of text.
public struct QRCodeEncoder: Sendable {
    /// How much of the symbol may be damaged and still read: about 7 % (low), 15 % (medium),
    /// 25 % (quartile) or 30 % (high) of the codewords; higher levels make larger symbols.
    public var correctionLevel: QRErrorCorrectionLevel
    /// The version to use; nil chooses the smallest one from `minimumVersion` up that holds
    /// the message.
    public var version: QRVersion?
    /// The smallest version to consider when `version` is nil.
    public var minimumVersion: QRVersion = .minimum
    /// The data mask (0...7); nil picks the one with the lowest penalty score.
    public var mask: Int?
    /// Whether text may use kanji mode for JIS X 0208 characters (shorter than UTF-8).
    public var allowsKanji = true
    /// Whether to put an ECI 26 (UTF-8) designator first when text has bytes beyond ASCII
    /// in byte mode. Off by default, like most generators: readers assume UTF-8 when the bytes
    /// are valid UTF-8, and some old readers do not understand ECI.
    public var declaresUTF8 = false

    /// An encoder with the given error correction level (medium by default), version (nil: the
    /// smallest that holds the message) and data mask (nil: the one with the lowest penalty).
    public init(correctionLevel: QRErrorCorrectionLevel = .medium, version: QRVersion? = nil, mask: Int? = nil) {
        self.correctionLevel = correctionLevel
        self.version = version
        self.mask = mask
    }

    static let filterName = "CIQRCodeGenerator"

    /// Encodes `text` with the cheapest mix of numeric, alphanumeric, byte (UTF-8) and kanji
    /// segments.
    /// - Throws: `PixelFlowError.invalidParameter` (key `inputMessage`) when the text does
    ///   not fit, or for a mask outside 0...7.
    public func encode(_ text: String) throws -> QRCodeSymbol {
        var cache: [Int: [QRSegment]] = [:]
        return try _encode { v in
            let group = v.number <= 9 ? 0 : (v.number <= 26 ? 1 : 2)
            if let s = cache[group] { return s }
            var s = QRSegment.optimalSegments(for: text, version: v, allowKanji: allowsKanji)
            if declaresUTF8, s.contains(where: { $0.mode == .byte && $0.payload.contains { $0 >= 0x80 } }) {
                s.insert(try! QRSegment.eci(26), at: 0)
            }
            cache[group] = s
            return s
        }
    }

    /// Encodes `bytes` exactly; runs of ASCII digits and alphanumeric characters may use the
    /// shorter modes, the rest is byte mode.
    /// - Throws: `PixelFlowError.invalidParameter` when the bytes do not fit.
    public func encode(bytes: [UInt8]) throws -> QRCodeSymbol {
        var cache: [Int: [QRSegment]] = [:]
        return try _encode { v in
            let group = v.number <= 9 ? 0 : (v.number <= 26 ? 1 : 2)
            if let s = cache[group] { return s }
            let s = QRSegment.optimalSegments(forBytes: bytes, version: v)
            cache[group] = s
            return s
        }
    }

    /// Encodes `segments` as given.
    /// - Throws: `PixelFlowError.invalidParameter` when they do not fit.
    public func encode(segments: [QRSegment]) throws -> QRCodeSymbol {
        try _encode { _ in segments }
    }

    private func _fail(_ reason: String, key: String = "inputMessage") -> PixelFlowError {
        .invalidParameter(filter: QRCodeEncoder.filterName, key: key, reason: reason)
    }

    private func _encode(_ segmentsFor: (QRVersion) throws -> [QRSegment]) throws -> QRCodeSymbol {
        if let m = mask, !(0...7).contains(m) { throw _fail("must be in 0...7, got \(m)", key: "mask") }
        let level = correctionLevel
        let candidates = version.map { [$0] } ?? Array(QRVersion.all[(minimumVersion.number - 1)...])
        for v in candidates {
            let segments = try segmentsFor(v)
            if let bits = QRSegment.bitLength(of: segments, version: v), bits <= v.dataCapacityBits(for: level) {
                return _build(segments, version: v)
            }
        }
        let last = candidates.last!
        let segments = try segmentsFor(last)
        let capacity = last.dataCapacityBits(for: level)
        let needed =
            QRSegment.bitLength(of: segments, version: last).map { "\($0) data bits" }
            ?? "more characters in one segment than its count field holds"
        if version != nil {
            throw _fail(
                "is too long for a version \(last.number) QR code at correction level \(level.letter): it needs \(needed), "
                    + "and that symbol holds \(capacity); use a larger version or let the encoder choose")
        }
        let lower = level == .low ? "" : " a lower correction level,"
        throw _fail(
            "is too long for a QR code at correction level \(level.letter): it needs \(needed), and the largest "
                + "symbol (version 40) holds \(capacity) at that level; use\(lower) a shorter message or structured append")
    }

    /// Lays out `segments` in `version`: data codewords, error correction, placement, mask.
    private func _build(_ segments: [QRSegment], version v: QRVersion) -> QRCodeSymbol {
        let level = correctionLevel
        let blocks = v.blocks(for: level)
        let capacity = blocks.dataCodewords * 8
        var buffer = QRBitBuffer()
        for s in segments { s.write(to: &buffer, version: v) }
        buffer.append(0, length: min(4, capacity - buffer.count))
        if buffer.count % 8 != 0 { buffer.append(0, length: 8 - buffer.count % 8) }
        var data = buffer.bytes
        var pad: UInt8 = 0xEC
        while data.count < blocks.dataCodewords {
            data.append(pad)
            pad ^= 0xEC ^ 0x11
        }
        return QRCodeEncoder.makeSymbol(dataCodewords: data, segments: segments, version: v, level: level, mask: mask)
    }

    /// Finishes a symbol from its data codewords: error correction, interleaving, placement,
    /// masking (`mask`, or the lowest penalty of the eight when nil) and the format and version
    /// information.
    /// - Precondition: `dataCodewords.count == version.blocks(for: level).dataCodewords`.
    static func makeSymbol(
        dataCodewords data: [UInt8], segments: [QRSegment], version v: QRVersion,
        level: QRErrorCorrectionLevel, mask: Int?
    ) -> QRCodeSymbol {
        let blocks = v.blocks(for: level)
        precondition(data.count == blocks.dataCodewords, "version \(v)-\(level) takes \(blocks.dataCodewords) data codewords")
        let codewords = QRCodeEncoder.interleave(data, blocks: blocks)
        return placeSymbol(codewords: codewords, dataCodewords: data, segments: segments, version: v, level: level, mask: mask)
    }

    /// Places final codewords (data and error correction, interleaved) in `version`, masks
    /// them (`mask`, or the lowest penalty of the eight when nil) and writes the format and
    /// version information.
    /// - Precondition: `codewords.count` is the version's total codeword count.
    static func placeSymbol(
        codewords: [UInt8], dataCodewords data: [UInt8], segments: [QRSegment], version v: QRVersion,
        level: QRErrorCorrectionLevel, mask: Int?
    ) -> QRCodeSymbol {
        let layout = QRSymbolLayout(version: v)
        let positions = layout.dataPositions()
        var unmasked = layout.pattern
        for i in 0..<min(positions.count, codewords.count * 8) {
            unmasked[positions[i]] = (codewords[i >> 3] >> UInt8(7 - (i & 7))) & 1 == 1
        }
        let n = v.size
        var best: (score: Int, mask: Int, modules: [Bool])?
        for m in mask.map({ [$0] }) ?? Array(0...7) {
            var modules = unmasked
            for p in positions where QRMask.inverts(m, x: p % n, y: p / n) { modules[p].toggle() }
            QRCodeEncoder.drawInformation(&modules, size: n, version: v, level: level, mask: m)
            if mask != nil {
                best = (0, m, modules)
                break
            }
            let score = QRMask.penalty(modules, size: n)
            if best == nil || score < best!.score { best = (score, m, modules) }
        }
        var matrix = QRBitMatrix(size: n)
        matrix.modules = best!.modules
        return QRCodeSymbol(
            matrix: matrix, version: v, correctionLevel: level, mask: best!.mask,
            segments: segments, dataCodewords: data)
    }

    /// Splits data codewords into blocks, appends each block's parity, and interleaves:
    /// the first codeword of every block, then the second, ..., then the parity the same way.
    static func interleave(_ data: [UInt8], blocks: QRBlockStructure) -> [UInt8] {
        let rs = ReedSolomon(parityCount: blocks.ecCodewordsPerBlock)
        var dataBlocks: [[UInt8]] = []
        var parityBlocks: [[UInt8]] = []
        var offset = 0
        for b in 0..<blocks.blockCount {
            let k = blocks.dataCodewords(inBlock: b)
            let block = Array(data[offset..<(offset + k)])
            offset += k
            dataBlocks.append(block)
            parityBlocks.append(rs.parity(for: block))
        }
        var out: [UInt8] = []
        out.reserveCapacity(data.count + blocks.blockCount * blocks.ecCodewordsPerBlock)
        for i in 0...blocks.shortBlockDataCodewords {
            for block in dataBlocks where i < block.count { out.append(block[i]) }
        }
        for i in 0..<blocks.ecCodewordsPerBlock {
            for block in parityBlocks { out.append(block[i]) }
        }
        return out
    }

    /// Writes both copies of the format information and, from version 7, of the version
    /// information.
    static func drawInformation(
        _ modules: inout [Bool], size n: Int, version: QRVersion,
        level: QRErrorCorrectionLevel, mask: Int
    ) {
        let format = QRFormatInformation.formatBits(level: level, mask: mask)
        for copy in 0..<2 {
            for (i, (x, y)) in QRSymbolLayout.formatPositions(size: n, copy: copy).enumerated() {
                modules[y * n + x] = (format >> UInt32(i)) & 1 == 1
            }
        }
        if version.number >= 7 {
            let bits = QRFormatInformation.versionBits(version.number)
            for copy in 0..<2 {
                for (i, (x, y)) in QRSymbolLayout.versionPositions(size: n, copy: copy).enumerated() {
                    modules[y * n + x] = (bits >> UInt32(i)) & 1 == 1
                }
            }
        }
    }
}
