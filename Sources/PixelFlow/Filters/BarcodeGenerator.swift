// CIBarcodeGenerator: a barcode drawn from a descriptor (its final codewords and layout) rather
// than from a message, as Core Image's CIQRCodeDescriptor, CIAztecCodeDescriptor and
// CIPDF417CodeDescriptor describe symbols. The layouts are the generators' own
// (QRCodeEncoder.placeSymbol, AztecEncoder.place, PDF417Encoder.layout).

/// A barcode symbol described by its error-corrected codewords and layout, as Core Image's
/// `CIBarcodeDescriptor` subclasses: what `CIBarcodeGenerator` draws.
///
/// ```swift
/// let descriptor = try BarcodeDescriptor.qrCode(encoding: Array("PixelFlow".utf8))
/// let image = try Image.barcode(descriptor)       // the same pixels as CIQRCodeGenerator's
/// ```
///
/// Payload layouts (Apple documents none for Aztec and PDF417; these are PixelFlow's):
/// - QR: every codeword, data and error correction, interleaved as placed in the symbol.
/// - Aztec: every codeword (data, then check words), `capacity / wordSize` of them, packed
///   most significant bit first in bytes, the last byte padded with zeros.
/// - PDF417: every codeword (length descriptor, data, padding, check words), row by row, as
///   16-bit big-endian values.
public enum BarcodeDescriptor: Sendable, Hashable, CustomStringConvertible {
    /// A QR code (`CIQRCodeDescriptor`): version 1...40, mask pattern 0...7.
    case qrCode(payload: [UInt8], symbolVersion: Int, maskPattern: Int, errorCorrectionLevel: QRErrorCorrectionLevel)
    /// An Aztec code (`CIAztecCodeDescriptor`): 1...4 layers when compact, 1...32 otherwise.
    case aztecCode(payload: [UInt8], isCompact: Bool, layerCount: Int, dataCodewordCount: Int)
    /// A PDF417 code (`CIPDF417CodeDescriptor`): 3...90 rows of 1...30 data columns.
    case pdf417Code(payload: [UInt8], isCompact: Bool, rowCount: Int, columnCount: Int)

    /// The kind and layout, as `QR code version 2-M mask 3`.
    public var description: String {
        switch self {
        case let .qrCode(p, v, m, l): return "QR code version \(v)-\(l.letter) mask \(m), \(p.count) codewords"
        case let .aztecCode(p, c, l, d):
            return "Aztec code \(c ? "compact" : "full-range"), \(l) layers, \(d) data codewords, \(p.count) bytes"
        case let .pdf417Code(p, c, r, k):
            return "PDF417 code\(c ? " compact" : ""), \(r) rows x \(k) columns, \(p.count / 2) codewords"
        }
    }

    /// `QR code`, `Aztec code` or `PDF417 code`.
    var kindName: String {
        switch self {
        case .qrCode: return "QR code"
        case .aztecCode: return "Aztec code"
        case .pdf417Code: return "PDF417 code"
        }
    }

    static func fail(_ reason: String) -> PixelFlowError {
        .invalidParameter(filter: "CIBarcodeGenerator", key: "inputBarcodeDescriptor", reason: reason)
    }

    /// The descriptor of the QR code `CIQRCodeGenerator` makes for `message`.
    /// - Throws: `PixelFlowError.invalidParameter` for a message that fits no symbol.
    public static func qrCode(encoding message: [UInt8], correctionLevel: QRErrorCorrectionLevel = .medium) throws
        -> BarcodeDescriptor
    {
        let symbol = try QRCodeEncoder(correctionLevel: correctionLevel).encode(bytes: message)
        let blocks = symbol.version.blocks(for: correctionLevel)
        let codewords = QRCodeEncoder.interleave(symbol.dataCodewords, blocks: blocks)
        return .qrCode(
            payload: codewords, symbolVersion: symbol.version.number, maskPattern: symbol.mask,
            errorCorrectionLevel: correctionLevel)
    }

    /// The descriptor of the Aztec code `CIAztecCodeGenerator` makes for `message`.
    /// - Throws: as `Image.aztecCode(message:correctionLevel:layers:compact:)`.
    public static func aztecCode(
        encoding message: [UInt8], correctionLevel: Double = 23, layers: Int = 0, compact: Bool? = nil
    ) throws -> BarcodeDescriptor {
        let symbol = try AztecEncoder.symbol(for: message, correctionPercent: correctionLevel, layers: layers, compact: compact)
        var bits: [Bool] = []
        for w in symbol.codewords {
            for i in stride(from: symbol.wordSize - 1, through: 0, by: -1) { bits.append((w >> i) & 1 == 1) }
        }
        var payload = [UInt8](repeating: 0, count: (bits.count + 7) / 8)
        for (i, b) in bits.enumerated() where b { payload[i >> 3] |= 0x80 >> UInt8(i & 7) }
        return .aztecCode(
            payload: payload, isCompact: symbol.compact, layerCount: symbol.layers, dataCodewordCount: symbol.dataCodewords)
    }

    /// The descriptor of the PDF417 code `CIPDF417BarcodeGenerator` makes for `message` with
    /// its other inputs at their defaults.
    /// - Throws: as `Image.pdf417Barcode(message:columns:rows:correctionLevel:compaction:compact:aspectRatio:)`.
    public static func pdf417Code(encoding message: [UInt8], correctionLevel: Int = 2, compact: Bool = false) throws
        -> BarcodeDescriptor
    {
        var options = PDF417Encoder.Options()
        options.correctionLevel = correctionLevel
        options.compact = compact
        let symbol = try PDF417Encoder.symbol(for: message, options: options)
        var payload: [UInt8] = []
        for c in symbol.codewords { payload += [UInt8(c >> 8), UInt8(c & 0xFF)] }
        return .pdf417Code(payload: payload, isCompact: compact, rowCount: symbol.rows, columnCount: symbol.columns)
    }
}

extension FilterDescriptor {
    static let barcodeFilters: [FilterDescriptor] = [barcodeGenerator]

    /// The default descriptor: the QR code of "PixelFlow" (Core Image has none).
    static let defaultBarcodeDescriptor = try! BarcodeDescriptor.qrCode(encoding: Array("PixelFlow".utf8))

    static let barcodeGenerator = FilterDescriptor(
        name: "CIBarcodeGenerator", displayName: "Barcode Generator",
        summary:
            "A QR, Aztec or PDF417 code drawn from a descriptor (its error-corrected codewords and layout), as the generator of that kind draws it.",
        categories: [.generator],
        inputs: [
            FilterInput(
                key: "inputBarcodeDescriptor",
                summary: "The symbol to draw (BarcodeDescriptor); the default is the QR code of \"PixelFlow\".",
                attributeType: nil, valueClass: .barcodeDescriptor, defaultValue: .barcodeDescriptor(defaultBarcodeDescriptor))
        ]
    ) { a in
        try Image.barcode(try a.barcodeDescriptor("inputBarcodeDescriptor"))
    }
}

extension FilterArguments {
    /// The barcode descriptor given for `key`.
    ///
    /// - Throws: ``PixelFlowError/invalidParameter(filter:key:reason:)`` when the value is not a descriptor.
    public func barcodeDescriptor(_ key: String) throws -> BarcodeDescriptor {
        guard case let .barcodeDescriptor(d)? = values[key] else { throw fail(key, "must be a barcode descriptor") }
        return d
    }
}

extension Image {
    /// The image of a barcode descriptor (`CIBarcodeGenerator`), as `CIQRCodeGenerator`,
    /// `CIAztecCodeGenerator` or `CIPDF417BarcodeGenerator` draws that kind: one pixel per
    /// module, black on white, with the same margins.
    ///
    /// - Throws: `PixelFlowError.invalidParameter` (key `inputBarcodeDescriptor`) when the
    ///   payload's length or values do not fit the layout, or the layout is out of range.
    public static func barcode(_ descriptor: BarcodeDescriptor) throws -> Image {
        switch descriptor {
        case let .qrCode(payload, versionNumber, mask, level):
            guard let version = QRVersion(versionNumber) else {
                throw BarcodeDescriptor.fail("symbol version must be 1...40, got \(versionNumber)")
            }
            guard (0...7).contains(mask) else { throw BarcodeDescriptor.fail("mask pattern must be 0...7, got \(mask)") }
            let blocks = version.blocks(for: level)
            let total = blocks.dataCodewords + blocks.blockCount * blocks.ecCodewordsPerBlock
            guard payload.count == total else {
                throw BarcodeDescriptor.fail(
                    "a version \(versionNumber)-\(level.letter) symbol has \(total) codewords, got \(payload.count)")
            }
            let symbol = QRCodeEncoder.placeSymbol(
                codewords: payload, dataCodewords: [], segments: [], version: version, level: level, mask: mask)
            return try qrCode(symbol)
        case let .aztecCode(payload, compact, layers, dataCount):
            guard layers >= 1, layers <= (compact ? 4 : 32) else {
                throw BarcodeDescriptor.fail(
                    "a \(compact ? "compact" : "full-range") symbol has 1...\(compact ? 4 : 32) layers, got \(layers)")
            }
            let size = AztecEncoder.wordSize(layers: layers)
            let total = AztecEncoder.capacityBits(layers: layers, compact: compact) / size
            guard payload.count == (total * size + 7) / 8 else {
                throw BarcodeDescriptor.fail(
                    "\(layers) layers hold \(total) codewords of \(size) bits: \((total * size + 7) / 8) bytes, got \(payload.count)"
                )
            }
            guard dataCount >= 1, dataCount < total, dataCount <= (compact ? 64 : 2048) else {
                throw BarcodeDescriptor.fail(
                    "data codeword count must be 1...\(min(total - 1, compact ? 64 : 2048)), got \(dataCount)")
            }
            var words: [Int] = []
            for i in 0..<total {
                var w = 0
                for b in 0..<size {
                    let bit = i * size + b
                    w = w << 1 | Int(payload[bit >> 3] >> UInt8(7 - bit & 7) & 1)
                }
                words.append(w)
            }
            let symbol = AztecEncoder.place(
                codewords: words, wordSize: size, layers: layers, compact: compact, dataCodewords: dataCount)
            return try aztecCode(symbol)
        case let .pdf417Code(payload, compact, rows, columns):
            guard (3...90).contains(rows), (1...30).contains(columns), rows * columns <= 928 else {
                throw BarcodeDescriptor.fail(
                    "rows must be 3...90 and columns 1...30 with at most 928 codewords, got \(rows) x \(columns)")
            }
            guard payload.count == 2 * rows * columns else {
                throw BarcodeDescriptor.fail(
                    "\(rows) x \(columns) codewords take \(2 * rows * columns) bytes, got \(payload.count)")
            }
            let codewords = (0..<(rows * columns)).map { Int(payload[2 * $0]) << 8 | Int(payload[2 * $0 + 1]) }
            guard codewords.allSatisfy({ $0 < 929 }) else { throw BarcodeDescriptor.fail("codewords must be below 929") }
            // The length descriptor counts the codewords before the check words: their number
            // is 2^(level + 1).
            let checks = rows * columns - codewords[0]
            guard let level = (0...8).first(where: { 2 << $0 == checks }) else {
                throw BarcodeDescriptor.fail(
                    "the length descriptor \(codewords[0]) leaves \(checks) check codewords, not 2^(level+1)")
            }
            let symbol = PDF417Encoder.layout(
                codewords: codewords, rows: rows, columns: columns, correctionLevel: level, compact: compact)
            return try pdf417Barcode(symbol)
        }
    }
}
