extension FilterDescriptor {
    /// The QR code generator's descriptor (`CIQRCodeGenerator`), listed in `builtIn`.
    static let qrCodeFilters: [FilterDescriptor] = [qrCodeGenerator]

    static let qrCodeGenerator = FilterDescriptor(
        name: "CIQRCodeGenerator", displayName: "QR Code Generator",
        summary: "A QR code of the message: one pixel per module, black on white, with a 4-module quiet zone.",
        categories: [.generator],
        inputs: [
            FilterInput(
                key: "inputMessage", summary: "The bytes to encode (a string is taken as its UTF-8 bytes).",
                attributeType: nil, valueClass: .data, defaultValue: .data([])),
            FilterInput(
                key: "inputCorrectionLevel",
                summary: "Error correction: L (7 %), M (15 %), Q (25 %) or H (30 % of the codewords restorable).",
                attributeType: nil, valueClass: .string, defaultValue: .string("M")),
        ]
    ) { a in
        let letter = try a.string("inputCorrectionLevel")
        guard let level = QRErrorCorrectionLevel(letter: letter) else {
            throw a.fail("inputCorrectionLevel", "must be L, M, Q or H, got '\(letter)'")
        }
        let symbol = try QRCodeEncoder(correctionLevel: level).encode(bytes: try a.data("inputMessage"))
        return try Image.qrCode(symbol)
    }
}

extension Image {
    /// A QR code of `message` (`CIQRCodeGenerator`): black modules on white, opaque, with a
    /// 4-module quiet zone, `scale` pixels per module; the image's extent is
    /// `(0, 0, (size + 8) * scale, (size + 8) * scale)` for a symbol of `size` modules.
    ///
    /// The message is encoded as its UTF-8 bytes, like the filter's `inputMessage`, in the
    /// cheapest mix of numeric, alphanumeric and byte segments; readers decode it back to the
    /// same text. For kanji mode or your own segments, make a symbol with `QRCodeEncoder` and
    /// use `qrCode(_:scale:quietZone:)`.
    ///
    /// ```swift
    /// let code = try Image.qrCode(message: "https://example.com", correctionLevel: .quartile, scale: 8)
    /// try RenderContext().write(code, toFile: "code.png")
    /// ```
    ///
    /// - Parameters:
    ///   - message: the text to encode (as UTF-8 bytes).
    ///   - correctionLevel: L, M (the default, as Core Image), Q or H.
    ///   - version: a fixed symbol version; nil picks the smallest that holds the message.
    ///   - scale: pixels per module, 1...100 (nearest neighbour: every module is a sharp square).
    /// - Throws: `PixelFlowError.invalidParameter` (key `inputMessage`) when the message does
    ///   not fit version 40 (or `version`) at the level, or for a scale out of range.
    /// - Complexity: O(s^2) to encode and choose the mask for an s x s symbol, plus one
    ///   pass over the output pixels.
    public static func qrCode(
        message: String, correctionLevel: QRErrorCorrectionLevel = .medium,
        version: QRVersion? = nil, scale: Int = 1
    ) throws -> Image {
        try qrCode(bytes: Array(message.utf8), correctionLevel: correctionLevel, version: version, scale: scale)
    }

    /// A QR code of `bytes`; see `qrCode(message:correctionLevel:version:scale:)`.
    public static func qrCode(
        bytes: [UInt8], correctionLevel: QRErrorCorrectionLevel = .medium,
        version: QRVersion? = nil, scale: Int = 1
    ) throws -> Image {
        if version == nil, scale == 1 {
            return try FilterDescriptor.qrCodeGenerator.apply([
                "inputMessage": .data(bytes),
                "inputCorrectionLevel": .string(correctionLevel.letter),
            ])
        }
        let symbol = try QRCodeEncoder(correctionLevel: correctionLevel, version: version).encode(bytes: bytes)
        return try qrCode(symbol, scale: scale)
    }

    /// The image of an encoded symbol: black modules on white, opaque, `scale` pixels per
    /// module, with a light margin of `quietZone` modules (the standard asks for 4).
    /// - Throws: `PixelFlowError.invalidParameter` for a scale outside 1...100 or a quiet
    ///   zone outside 0...100.
    public static func qrCode(_ symbol: QRCodeSymbol, scale: Int = 1, quietZone: Int = 4) throws -> Image {
        guard (1...100).contains(scale) else {
            throw PixelFlowError.invalidParameter(
                filter: "CIQRCodeGenerator", key: "scale", reason: "must be in 1...100, got \(scale)")
        }
        guard (0...100).contains(quietZone) else {
            throw PixelFlowError.invalidParameter(
                filter: "CIQRCodeGenerator", key: "quietZone",
                reason: "must be in 0...100, got \(quietZone)")
        }
        let m = symbol.matrix
        let side = (m.size + 2 * quietZone) * scale
        var buffer = try PixelBuffer(width: side, height: side, format: .rgba8)
        let white: UInt32 = 0xFFFF_FFFF
        let black = UInt32(littleEndian: 0xFF00_0000)  // bytes 0, 0, 0, 255
        m.modules.withUnsafeBufferPointer { modules in
            buffer.withUnsafeMutableRows { y, row in
                let pixels = row.assumingMemoryBound(to: UInt32.self)
                let my = y / scale - quietZone
                for x in 0..<side {
                    let mx = x / scale - quietZone
                    let dark = my >= 0 && my < m.size && mx >= 0 && mx < m.size && modules[my * m.size + mx]
                    pixels[x] = dark ? black : white
                }
            }
        }
        return Image(buffer)
    }
}
