/// A font at a size: a face of a font file found by name through fontconfig or opened from a
/// path, read by FreeType (outlines, metrics) and HarfBuzz (shaping). Core Image's
/// `inputFontName` and Core Text's `CTFont` play this part on Apple platforms.
///
/// ```swift
/// let font = try Font(name: "DejaVuSans-Bold", size: 40)      // PostScript name
/// let same = try Font(name: "DejaVu Sans:bold", size: 40)     // fontconfig pattern
/// let file = try Font(filePath: "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", size: 40)
/// let line = TextLayout("Hello", font: font)                  // shaped, with kerning
/// print(line.advance, font.ascent, font.descent)
/// ```
///
/// **Names.** A name with a slash is a file path. Otherwise it is looked up, in order, as a
/// PostScript name (`NotoSansArabic-Regular`), as a fontconfig pattern when it holds a space or
/// a colon (`DejaVu Sans:bold`), and as Core Image's `Family-Style` names, the family in camel
/// case (`HelveticaNeue-Bold` asks fontconfig for family "Helvetica Neue", style "Bold").
/// fontconfig answers every name with its best match, so a family that is not installed
/// (Core Image's default `HelveticaNeue` on Linux) gets fontconfig's configured fallback,
/// DejaVu Sans on Debian with the fonts of `scripts/setup.sh`; `familyName` says which font
/// was chosen. Docs/Text.md has the details.
///
/// **Metrics** are the font's own (hhea ascender and descender, as FreeType reads them),
/// scaled to `size`: `ascent + descent` is the height of a line of text without leading.
public struct Font: Sendable, Hashable, CustomStringConvertible {
    /// The em size, in pixels (Core Graphics' points at scale 1).
    public private(set) var size: Double
    /// The font file.
    public let filePath: String
    /// The face in the file (a .ttc collection holds several), from 0.
    public let faceIndex: Int
    /// The family, as the font names it (`DejaVu Sans`).
    public let familyName: String
    /// The style, as the font names it (`Bold`, `Book`).
    public let styleName: String
    /// The PostScript name (`DejaVuSans-Bold`), empty when the font has none.
    public let postScriptName: String
    /// Design units per em: outlines and advances in the file are in these units.
    public let unitsPerEm: Double
    let ascenderUnits: Double, descenderUnits: Double, lineSpacingUnits: Double

    /// Core Image's default font name for `CITextImageGenerator`, `HelveticaNeue`; on Linux
    /// it resolves to fontconfig's sans-serif fallback unless a Helvetica Neue is installed.
    public static let defaultName = "HelveticaNeue"

    /// The font fontconfig finds for `name` (see the type's documentation), at `size` pixels.
    ///
    /// - Throws: `PixelFlowError.invalidParameter` (key `size`) for a size that is not finite
    ///   and positive (or above 10000); `PixelFlowError.io` / `.decodingFailed` for a path
    ///   that is not a readable font file; `.invalidParameter` (key `name`) when fontconfig
    ///   finds no font at all (none installed).
    public init(name: String = Font.defaultName, size: Double = 12) throws {
        try Font.check(size: size)
        let face = try _FontEngine.withFaces { s in try _FontEngine.resolve(name: name, in: &s) }
        self.init(face: face, size: size)
    }

    /// Face `faceIndex` of the font file at `filePath`, at `size` pixels.
    ///
    /// - Throws: `PixelFlowError.io` when the file does not exist or cannot be read,
    ///   `.decodingFailed` when it is not a font FreeType reads (or has no outlines), and
    ///   `.invalidParameter` (key `size`) for a size that is not finite and positive.
    public init(filePath: String, faceIndex: Int = 0, size: Double) throws {
        try Font.check(size: size)
        let face = try _FontEngine.withFaces { s in
            try _FontEngine.face(_FontFace.Key(path: filePath, index: faceIndex), in: &s)
        }
        self.init(face: face, size: size)
    }

    init(face: _FontFace, size: Double) {
        self.size = size
        filePath = face.key.path
        faceIndex = face.key.index
        familyName = face.familyName
        styleName = face.styleName
        postScriptName = face.postScriptName
        unitsPerEm = face.unitsPerEm
        ascenderUnits = face.ascender
        descenderUnits = face.descender
        lineSpacingUnits = face.lineSpacing
    }

    static func check(size: Double) throws {
        guard size.isFinite, size > 0, size <= 10000 else {
            throw PixelFlowError.invalidParameter(
                filter: "Font", key: "size", reason: "must be a finite number in (0, 10000], got \(size)")
        }
    }

    /// The same face at another size.
    ///
    /// - Throws: `PixelFlowError.invalidParameter` (key `size`) for a size that is not finite
    ///   and positive (or above 10000).
    public func withSize(_ size: Double) throws -> Font {
        try Font.check(size: size)
        var f = self
        f.size = size
        return f
    }

    /// Pixels per font unit at this size: `size / unitsPerEm`.
    public var scale: Double { size / unitsPerEm }
    /// The distance from the baseline up to the top of a line, in pixels (positive).
    public var ascent: Double { ascenderUnits * scale }
    /// The distance from the baseline down to the bottom of a line, in pixels (positive).
    public var descent: Double { descenderUnits * scale }
    /// The distance between the baselines of two lines, in pixels: ascent + descent + the
    /// font's line gap.
    public var lineHeight: Double { lineSpacingUnits * scale }

    /// Whether the font has a glyph for `scalar` (without fallback).
    public func hasGlyph(for scalar: Unicode.Scalar) -> Bool {
        _FontEngine.withFaces { s in (try? _FontEngine.face(key, in: &s))?.glyph(for: scalar) != nil }
    }

    var key: _FontFace.Key { _FontFace.Key(path: filePath, index: faceIndex) }

    /// `DejaVu Sans Book 12 (/usr/share/fonts/.../DejaVuSans.ttf)`.
    public var description: String {
        "\(familyName) \(styleName) \(size.formatted) (\(filePath)\(faceIndex == 0 ? "" : "#\(faceIndex)"))"
    }

    public static func == (a: Font, b: Font) -> Bool {
        a.filePath == b.filePath && a.faceIndex == b.faceIndex && a.size == b.size
    }

    public func hash(into h: inout Hasher) {
        h.combine(filePath)
        h.combine(faceIndex)
        h.combine(size)
    }
}

extension Double {
    /// `12` for whole numbers, `12.5` otherwise.
    fileprivate var formatted: String { self == rounded() && abs(self) < 1e15 ? String(Int(self)) : String(self) }
}
