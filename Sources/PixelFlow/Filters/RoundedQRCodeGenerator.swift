// CIRoundedQRCodeGenerator: a QR code drawn with round data modules and rounded finder and
// alignment patterns, by Canvas. Apple documents the keys, not the shapes; the shapes here are
// PixelFlow's, checked readable by zxing-cpp (scripts/make_rounded_qr_fixtures.py).

extension FilterDescriptor {
    static let roundedQRCodeFilters: [FilterDescriptor] = [roundedQRCodeGenerator]

    static let roundedQRCodeGenerator = FilterDescriptor(
        name: "CIRoundedQRCodeGenerator", displayName: "Rounded QR Code Generator",
        summary:
            "A QR code with round data modules and, optionally, rounded finder and alignment patterns, with a 4-module quiet zone, scale pixels per module.",
        categories: [.generator],
        inputs: [
            FilterInput(
                key: "inputMessage", summary: "The bytes to encode (a string is taken as its UTF-8 bytes).",
                attributeType: nil, valueClass: .data, defaultValue: .data([])),
            FilterInput(
                key: "inputCorrectionLevel",
                summary: "Error correction: L (7 %), M (15 %), Q (25 %) or H (30 % of the codewords restorable).",
                attributeType: nil, valueClass: .string, defaultValue: .string("M")),
            .number("inputScale", .count, default: 10, min: 1, max: 100, summary: "Pixels per module."),
            .number(
                "inputRoundedMarkers", .count, default: 0, min: 0, max: 2,
                summary: "0: square finder and alignment patterns; 1: rounded finder patterns; 2: rounded alignment patterns too."
            ),
            .boolean("inputRoundedData", default: true, summary: "Draw data modules as dots instead of squares."),
            .number(
                "inputCenterSpaceSize", .count, default: 0, min: 0, max: 177,
                summary:
                    "The side, in modules, of a square left empty at the center (for a logo); error correction must cover it (use level H)."
            ),
            .color("inputColor0", default: Color(red: 0, green: 0, blue: 0), summary: "The color of dark modules."),
            .color("inputColor1", default: Color(red: 1, green: 1, blue: 1), summary: "The background color."),
        ]
    ) { a in
        let letter = try a.string("inputCorrectionLevel")
        guard let level = QRErrorCorrectionLevel(letter: letter) else {
            throw a.fail("inputCorrectionLevel", "must be L, M, Q or H, got '\(letter)'")
        }
        let symbol = try QRCodeEncoder(correctionLevel: level).encode(bytes: try a.data("inputMessage"))
        return try Image._roundedQRCode(
            symbol, scale: Int(try a.number("inputScale").rounded()),
            roundedMarkers: Int(try a.number("inputRoundedMarkers").rounded()),
            roundedData: try a.number("inputRoundedData") != 0,
            centerSpace: Int(try a.number("inputCenterSpaceSize").rounded()),
            foreground: try a.color("inputColor0"), background: try a.color("inputColor1"))
    }
}

extension Image {
    /// A QR code with round modules (`CIRoundedQRCodeGenerator`): data modules as dots
    /// touching their neighbours, finder patterns (with `roundedMarkers` 1 or 2) as rounded
    /// squares of radius 2, 1.5 and 1 modules, alignment patterns (with 2) as a rounded ring
    /// and a dot; a 4-module quiet zone, `scale` pixels per module.
    ///
    /// ```swift
    /// let code = try Image.roundedQRCode(message: "https://example.com", roundedMarkers: 2)
    /// ```
    ///
    /// - Parameters:
    ///   - message: the text to encode, as its UTF-8 bytes.
    ///   - correctionLevel: L, M (default), Q or H.
    ///   - scale: pixels per module, 1...100 (default 10).
    ///   - roundedMarkers: 0 square, 1 rounded finder patterns, 2 rounded alignment patterns too.
    ///   - roundedData: dots for data modules (default true).
    ///   - centerSpace: modules left empty in a centered square (default 0).
    /// - Throws: `PixelFlowError.invalidParameter` for a message too long or a value out of range.
    public static func roundedQRCode(
        message: String, correctionLevel: QRErrorCorrectionLevel = .medium, scale: Int = 10,
        roundedMarkers: Int = 0, roundedData: Bool = true, centerSpace: Int = 0
    ) throws -> Image {
        try FilterDescriptor.roundedQRCodeGenerator.apply([
            "inputMessage": .data(Array(message.utf8)), "inputCorrectionLevel": .string(correctionLevel.letter),
            "inputScale": .number(Double(scale)), "inputRoundedMarkers": .number(Double(roundedMarkers)),
            "inputRoundedData": .boolean(roundedData), "inputCenterSpaceSize": .number(Double(centerSpace)),
        ])
    }

    static func _roundedQRCode(
        _ symbol: QRCodeSymbol, scale s: Int, roundedMarkers: Int, roundedData: Bool, centerSpace: Int,
        foreground: Color, background: Color
    ) throws -> Image {
        let n = symbol.matrix.size
        let side = (n + 8) * s
        var canvas = try Canvas(width: side, height: side)
        canvas.clear(to: background)
        let unit = Double(s), origin = 4 * unit
        func rect(_ x: Double, _ y: Double, _ w: Double, _ h: Double) -> Rect {
            Rect(x: origin + x * unit, y: origin + y * unit, width: w * unit, height: h * unit)
        }
        // Which modules belong to a pattern drawn whole.
        let finders = [(0, 0), (n - 7, 0), (0, n - 7)]
        let centers = symbol.version.alignmentPatternCenters
        var alignments: [(Int, Int)] = []
        for (i, cy) in centers.enumerated() {
            for (j, cx) in centers.enumerated() {
                let last = centers.count - 1
                if (i == 0 && j == 0) || (i == 0 && j == last) || (i == last && j == 0) { continue }
                alignments.append((cx, cy))
            }
        }
        func inFinder(_ x: Int, _ y: Int) -> Bool { finders.contains { x >= $0.0 && x < $0.0 + 7 && y >= $0.1 && y < $0.1 + 7 } }
        func inAlignment(_ x: Int, _ y: Int) -> Bool { alignments.contains { abs(x - $0.0) <= 2 && abs(y - $0.1) <= 2 } }
        let half = centerSpace / 2, c = n / 2
        func inCenter(_ x: Int, _ y: Int) -> Bool { centerSpace > 0 && abs(x - c) <= half && abs(y - c) <= half }

        var squares = Path(), dots = Path()
        for y in 0..<n {
            for x in 0..<n where symbol.matrix[x, y] {
                let finder = inFinder(x, y), alignment = inAlignment(x, y)
                if (finder && roundedMarkers >= 1) || (alignment && roundedMarkers >= 2) { continue }
                if inCenter(x, y) && !finder && !alignment { continue }
                if roundedData && !finder && !alignment {
                    dots.addEllipse(in: rect(Double(x), Double(y), 1, 1))
                } else {
                    squares.addRect(rect(Double(x), Double(y), 1, 1))
                }
            }
        }
        var shapes = Path()
        if roundedMarkers >= 1 {
            for (fx, fy) in finders {
                let x = Double(fx), y = Double(fy)
                shapes.addRoundedRect(in: rect(x, y, 7, 7), cornerWidth: 2 * unit, cornerHeight: 2 * unit)
                shapes.addRoundedRect(in: rect(x + 1, y + 1, 5, 5), cornerWidth: 1.5 * unit, cornerHeight: 1.5 * unit)
                shapes.addRoundedRect(in: rect(x + 2, y + 2, 3, 3), cornerWidth: unit, cornerHeight: unit)
            }
        }
        if roundedMarkers >= 2 {
            for (ax, ay) in alignments {
                let x = Double(ax - 2), y = Double(ay - 2)
                shapes.addRoundedRect(in: rect(x, y, 5, 5), cornerWidth: 1.5 * unit, cornerHeight: 1.5 * unit)
                shapes.addRoundedRect(in: rect(x + 1, y + 1, 3, 3), cornerWidth: unit, cornerHeight: unit)
                shapes.addEllipse(in: rect(x + 2, y + 2, 1, 1))
            }
        }
        // Nested rounded squares alternate dark and light under the even-odd rule.
        canvas.fill(shapes, rule: .evenOdd, color: foreground)
        canvas.fill(squares, color: foreground)
        canvas.fill(dots, color: foreground)
        return canvas.image
    }
}
