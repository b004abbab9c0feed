// CITextImageGenerator and CIAttributedTextImageGenerator: text drawn into an image of its
// typographic size (Sources/PixelFlow/Text, Docs/Text.md).

extension FilterDescriptor {
    /// The text generators' descriptors, listed in `builtIn`.
    static let textFilters: [FilterDescriptor] = [textImageGenerator, attributedTextImageGenerator]

    static let scaleFactorInput = FilterInput.number(
        "inputScaleFactor", default: 1, min: 0, max: 100, sliderMin: 1, sliderMax: 4,
        summary: "Pixels per point: the image is drawn this many times larger (2 for a Retina-style image).")
    static let paddingInput = FilterInput.number(
        "inputPadding", .distance, default: 0, min: 0, max: 1000, sliderMin: 0, sliderMax: 50,
        summary: "Space added around the text on every side, in points (multiplied by the scale factor).")

    /// "PixelFlow" in `HelveticaNeue` 12, black, as an `NSAttributedString` with no attributes
    /// looks; empty when fontconfig finds no font.
    static let defaultStyledText: StyledText = {
        guard let font = try? Font(name: Font.defaultName, size: 12) else { return StyledText() }
        return StyledText("PixelFlow", style: TextStyle(font: font))
    }()

    static let textImageGenerator = FilterDescriptor(
        name: "CITextImageGenerator", displayName: "Text Image Generator",
        summary:
            "White text on a transparent background, shaped by HarfBuzz and drawn from FreeType outlines; the image is the text's typographic bounds plus padding, times the scale factor.",
        categories: [.generator],
        inputs: [
            FilterInput(
                key: "inputText",
                summary:
                    "The text to draw; line breaks start new lines. Empty text gives an empty image. The default is \"PixelFlow\" (Core Image has none).",
                attributeType: nil, valueClass: .string, defaultValue: .string("PixelFlow")),
            FilterInput(
                key: "inputFontName",
                summary:
                    "A PostScript name (HelveticaNeue-Bold), a fontconfig pattern (DejaVu Sans:bold) or a font file path; names fontconfig does not know get its fallback font.",
                attributeType: nil, valueClass: .string, defaultValue: .string(Font.defaultName)),
            .number(
                "inputFontSize", default: 12, min: 1, max: 1000, sliderMin: 9, sliderMax: 128,
                summary: "The em size, in points."),
            scaleFactorInput,
            paddingInput,
        ]
    ) { a in
        let size = try a.number("inputFontSize")
        guard size.isFinite, size >= 1, size <= 1000 else {
            throw a.fail("inputFontSize", "must be a finite number in 1...1000, got \(size)")
        }
        let font = try Font(name: try a.string("inputFontName"), size: size)
        let text = StyledText(try a.string("inputText"), style: TextStyle(font: font, color: .white))
        return try Image._text(
            TextLayout(text), scaleFactor: try a.number("inputScaleFactor"), padding: try a.number("inputPadding"),
            filter: "CITextImageGenerator")
    }

    static let attributedTextImageGenerator = FilterDescriptor(
        name: "CIAttributedTextImageGenerator", displayName: "Attributed Text Image Generator",
        summary:
            "Styled text (StyledText: runs of font, size, color and extra kerning) on a transparent background; the image is the text's typographic bounds plus padding, times the scale factor.",
        categories: [.generator],
        inputs: [
            FilterInput(
                key: "inputText",
                summary:
                    "The styled text (StyledText, Core Image's NSAttributedString); from the command line, plain text in HelveticaNeue 12, black. The default is \"PixelFlow\" in that style (empty when no font is installed).",
                attributeType: nil, valueClass: .attributedString, defaultValue: .styledText(defaultStyledText)),
            scaleFactorInput,
            paddingInput,
        ]
    ) { a in
        try Image._text(
            TextLayout(try a.styledText("inputText")), scaleFactor: try a.number("inputScaleFactor"),
            padding: try a.number("inputPadding"), filter: "CIAttributedTextImageGenerator")
    }
}

extension FilterArguments {
    /// The styled text given for `key`.
    ///
    /// - Throws: ``PixelFlowError/invalidParameter(filter:key:reason:)`` when the value is not
    ///   styled text.
    public func styledText(_ key: String) throws -> StyledText {
        guard case let .styledText(t)? = values[key] else { throw fail(key, "must be styled text") }
        return t
    }
}

extension Image {
    /// `text` drawn in white on a transparent background (`CITextImageGenerator`), as a finite
    /// image whose extent is `(0, 0, ceil((advance + 2 padding) * scaleFactor), ceil((ascent +
    /// descent + 2 padding) * scaleFactor))`: the typographic bounds of the shaped text (the sum
    /// of its advances, with kerning, by the font's ascent and descent; more lines add their
    /// line heights) plus the padding, scaled. The first baseline is at `(padding + ascent) *
    /// scaleFactor` from the top. Ink outside the typographic bounds (a swash, an accent above
    /// the ascent) is cut off, as Core Image does.
    ///
    /// ```swift
    /// let label = try Image.text("Hello, world", fontName: "DejaVu Sans", fontSize: 40, scaleFactor: 2)
    /// ```
    ///
    /// - Parameters:
    ///   - text: the characters; line breaks start new lines. Empty text gives `Image.empty`.
    ///   - fontName: as `Font(name:size:)`: a PostScript name, a fontconfig pattern or a path.
    ///   - fontSize: the em size in points, 1...1000.
    ///   - scaleFactor: pixels per point, 0...100 (0 gives an empty image).
    ///   - padding: points added on every side, 0...1000.
    /// - Throws: `PixelFlowError.invalidParameter` for a size, scale or padding out of range or
    ///   NaN; `.io` / `.decodingFailed` for a font path that is not a readable font.
    /// - Complexity: shaping O(n) in the characters; drawing O(outline length + area) of the
    ///   image, once, when the image is made.
    public static func text(
        _ text: String, fontName: String = Font.defaultName, fontSize: Double = 12, scaleFactor: Double = 1,
        padding: Double = 0
    ) throws -> Image {
        try FilterDescriptor.textImageGenerator.apply([
            "inputText": .string(text), "inputFontName": .string(fontName), "inputFontSize": .number(fontSize),
            "inputScaleFactor": .number(scaleFactor), "inputPadding": .number(padding),
        ])
    }

    /// Styled text on a transparent background (`CIAttributedTextImageGenerator`), each run in
    /// its font and color, with the extent rules of `text(_:fontName:fontSize:scaleFactor:padding:)`.
    ///
    /// - Throws: `PixelFlowError.invalidParameter` for a scale or padding out of range or NaN.
    public static func attributedText(_ text: StyledText, scaleFactor: Double = 1, padding: Double = 0) throws -> Image {
        try FilterDescriptor.attributedTextImageGenerator.apply([
            "inputText": .styledText(text), "inputScaleFactor": .number(scaleFactor), "inputPadding": .number(padding),
        ])
    }

    /// The image of a laid-out text, `scaleFactor` pixels per point, `padding` points around.
    static func _text(_ layout: TextLayout, scaleFactor: Double, padding: Double, filter: String) throws -> Image {
        guard scaleFactor.isFinite, scaleFactor >= 0 else {
            throw PixelFlowError.invalidParameter(
                filter: filter, key: "inputScaleFactor", reason: "must be a finite number >= 0, got \(scaleFactor)")
        }
        guard padding.isFinite, padding >= 0 else {
            throw PixelFlowError.invalidParameter(
                filter: filter, key: "inputPadding", reason: "must be a finite number >= 0, got \(padding)")
        }
        guard !layout.isEmpty, scaleFactor > 0 else { return .empty }
        let width = ((layout.advance + 2 * padding) * scaleFactor).rounded(.up)
        let height = ((layout.height + 2 * padding) * scaleFactor).rounded(.up)
        guard width >= 1, height >= 1, width * height <= Double(1 << 28) else {
            throw PixelFlowError.invalidDimensions(
                width: Int(Swift.min(width, 1e9)), height: Int(Swift.min(height, 1e9)),
                reason:
                    "the text image would be \(Int(Swift.min(width, 1e9)))x\(Int(Swift.min(height, 1e9))) pixels; at most 2^28 are drawn"
            )
        }
        var canvas = try Canvas(width: Int(width), height: Int(height))
        canvas.transform = AffineTransform(scaleX: scaleFactor, y: scaleFactor)
        canvas.drawText(layout, at: Point(x: padding, y: padding + layout.ascent))
        return canvas.image
    }
}
