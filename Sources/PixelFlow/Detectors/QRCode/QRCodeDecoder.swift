/// Reads a QR code from its module matrix: format and version information, unmasking,
/// de-interleaving, Reed-Solomon correction and the data segments (ISO/IEC 18004 §12).
///
/// A detector samples the symbol it found in an image into a `QRBitMatrix`, top-left finder
/// pattern at (0, 0), and calls `decode`. Rotation is the caller's job; a mirrored symbol
/// (read from behind glass, or a mirrored image) is handled here by trying the transposed
/// matrix.
///
/// ```swift
/// let decoded = try QRCodeDecoder().decode(symbol.matrix)
/// decoded.message              // "https://example.com"
/// decoded.correctedErrors      // 0
/// ```
///
/// Never traps on any matrix: a matrix that is not a readable QR code throws.
///
/// - Complexity: O(s^2) for a symbol of s x s modules, plus O(e^2) per block for e parity
///   codewords.
public struct QRCodeDecoder: Sendable {
    /// Whether to try the transposed matrix when the matrix as given cannot be read.
    public var triesMirrored = true

    /// A decoder that also tries the transposed matrix (``triesMirrored`` is true).
    public init() {}

    /// Decodes `matrix`.
    /// - Throws: `PixelFlowError.decodingFailed` (file `"QR code"`) saying what could not be
    ///   read: a size that is not 21, 25, ..., 177, unreadable format information, a block
    ///   with too many errors, or malformed data.
    public func decode(_ matrix: QRBitMatrix) throws -> QRCodeDecoded {
        do {
            return try QRCodeDecoder._decode(matrix, mirrored: false)
        } catch {
            guard triesMirrored, QRVersion(size: matrix.size) != nil, matrix.modules.count == matrix.size * matrix.size,
                let mirrored = try? QRCodeDecoder._decode(matrix.transposed(), mirrored: true)
            else { throw error }
            return mirrored
        }
    }

    static func _fail(_ reason: String) -> PixelFlowError { .decodingFailed(file: "QR code", reason: reason) }

    static func _decode(_ matrix: QRBitMatrix, mirrored: Bool) throws -> QRCodeDecoded {
        let n = matrix.size
        guard matrix.modules.count == n * n, let version = QRVersion(size: n) else {
            throw _fail("a \(n)x\(n) matrix is not a QR code size (21, 25, ..., 177 modules)")
        }
        func read(_ positions: [(Int, Int)]) -> UInt32 {
            var v: UInt32 = 0
            for (i, (x, y)) in positions.enumerated() where matrix.modules[y * n + x] { v |= 1 << UInt32(i) }
            return v
        }
        let formats = (0..<2).map { read(QRSymbolLayout.formatPositions(size: n, copy: $0)) }
        guard let format = QRFormatInformation.decodeFormat(formats) else {
            throw _fail("the format information is unreadable (more than 3 bit errors in both copies)")
        }
        if version.number >= 7 {
            let copies = (0..<2).map { read(QRSymbolLayout.versionPositions(size: n, copy: $0)) }
            if let v = QRFormatInformation.decodeVersion(copies), v.version != version.number {
                throw _fail(
                    "the version information says version \(v.version), but the matrix has \(n) modules (version \(version.number))"
                )
            }
            // Unreadable version information: the size already says which version it is.
        }

        // Read the codewords in placement order, unmasking on the way.
        let layout = QRSymbolLayout(version: version)
        let positions = layout.dataPositions()
        let total = version.totalCodewords
        var codewords = [UInt8](repeating: 0, count: total)
        matrix.modules.withUnsafeBufferPointer { modules in
            for i in 0..<(total * 8) {
                let p = positions[i]
                if modules[p] != QRMask.inverts(format.mask, x: p % n, y: p / n) {
                    codewords[i >> 3] |= 0x80 >> UInt8(i & 7)
                }
            }
        }

        // De-interleave, correct and concatenate the blocks.
        let blocks = version.blocks(for: format.level)
        var blockCodewords = (0..<blocks.blockCount).map { _ in [UInt8]() }
        var k = 0
        for i in 0...blocks.shortBlockDataCodewords {
            for b in 0..<blocks.blockCount where i < blocks.dataCodewords(inBlock: b) {
                blockCodewords[b].append(codewords[k])
                k += 1
            }
        }
        for _ in 0..<blocks.ecCodewordsPerBlock {
            for b in 0..<blocks.blockCount {
                blockCodewords[b].append(codewords[k])
                k += 1
            }
        }
        let rs = ReedSolomon(parityCount: blocks.ecCodewordsPerBlock)
        var data: [UInt8] = []
        data.reserveCapacity(blocks.dataCodewords)
        var corrected = 0
        for b in 0..<blocks.blockCount {
            guard let c = rs.correct(&blockCodewords[b], maximumErrors: blocks.correctableErrorsPerBlock) else {
                throw _fail(
                    "block \(b + 1) of \(blocks.blockCount) has more errors than level \(format.level.letter) can correct")
            }
            corrected += c
            data += blockCodewords[b].prefix(blocks.dataCodewords(inBlock: b))
        }

        let content = try QRDataStream.parse(data, version: version)
        return QRCodeDecoded(
            message: content.message, bytes: content.segments.flatMap(\.payload),
            segments: content.segments, version: version, correctionLevel: format.level,
            mask: format.mask, correctedErrors: corrected,
            structuredAppend: content.structuredAppend, isMirrored: mirrored, dataCodewords: data)
    }
}
