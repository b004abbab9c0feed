// The process-wide font engine: one FreeType library, the opened faces, fontconfig's answers
// (a name to a file, a character to a fallback face), all behind one lock. FreeType allows
// one thread at a time per face and per library; text is laid out once per draw, so one lock
// costs nothing that matters.

import CFontconfig
import CFreeType
import PixelFlowCore

/// The engine's state: guarded by `_FontEngine.state`'s lock.
struct _FontEngineState {
    var library: FT_Library?
    var faces: [_FontFace.Key: _FontFace] = [:]
    /// Font names (as given to `Font(name:size:)`) to the face fontconfig chose.
    var names: [String: _FontFace.Key] = [:]
    /// (face, character) to the face fontconfig offers for a character the face lacks; nil
    /// when none has it.
    var fallbacks: [FallbackKey: _FontFace.Key?] = [:]
    var fontconfigReady = false

    struct FallbackKey: Hashable {
        let face: _FontFace.Key
        let scalar: UInt32
    }
}

/// Finds and opens fonts (fontconfig, FreeType, HarfBuzz).
enum _FontEngine {
    /// The FreeType handles inside are used only with this lock held (`Locked` is
    /// `@unchecked Sendable` for that reason).
    static let state = Locked(_FontEngineState())

    /// Runs `body` with the lock held; `body` may open faces through `face(_:in:)`.
    static func withFaces<R>(_ body: (inout _FontEngineState) throws -> R) rethrows -> R {
        try state.withLock { s in
            if s.library == nil {
                var lib: FT_Library?
                if FT_Init_FreeType(&lib) == 0 { s.library = lib }
            }
            return try body(&s)
        }
    }

    /// The opened face for `key`, opening it on first use.
    static func face(_ key: _FontFace.Key, in s: inout _FontEngineState) throws -> _FontFace {
        if let f = s.faces[key] { return f }
        guard let library = s.library else {
            throw PixelFlowError.decodingFailed(file: key.path, reason: "FreeType could not be initialized")
        }
        let f = try _FontFace(library: library, key: key)
        s.faces[key] = f
        return f
    }

    // MARK: fontconfig

    /// The face for a font name: a file path when `name` contains a slash; otherwise a
    /// PostScript name (`DejaVuSans-Bold`), a fontconfig pattern (`DejaVu Sans:bold`), or a
    /// Core Image style name whose family is written in camel case (`HelveticaNeue-Bold` is
    /// family "Helvetica Neue", style "Bold"), matched by fontconfig, which falls back to its
    /// configured sans-serif font when no installed family matches.
    static func resolve(name: String, in s: inout _FontEngineState) throws -> _FontFace {
        if name.contains("/") { return try face(_FontFace.Key(path: name, index: 0), in: &s) }
        if let key = s.names[name] { return try face(key, in: &s) }
        try ensureFontconfig(&s)
        guard let key = matchByPostScriptName(name) ?? match(pattern: pattern(forName: name)) else {
            throw PixelFlowError.invalidParameter(
                filter: "Font", key: "name",
                reason: "fontconfig found no font for '\(name)' (is any font installed? scripts/setup.sh installs DejaVu Sans)")
        }
        s.names[name] = key
        return try face(key, in: &s)
    }

    /// The face fontconfig offers for `scalar` when `primary` lacks it: the best match of
    /// `primary`'s family with a charset holding the character; nil when no font has it.
    static func fallback(for scalar: Unicode.Scalar, from primary: _FontFace, in s: inout _FontEngineState) -> _FontFace? {
        let k = _FontEngineState.FallbackKey(face: primary.key, scalar: scalar.value)
        if let known = s.fallbacks[k] { return known.flatMap { try? face($0, in: &s) } }
        var found: _FontFace.Key?
        if (try? ensureFontconfig(&s)) != nil, let p = FcPatternCreate() {
            defer { FcPatternDestroy(p) }
            add(p, FC_FAMILY, primary.familyName)
            if let cs = FcCharSetCreate() {
                FcCharSetAddChar(cs, FcChar32(scalar.value))
                FcPatternAddCharSet(p, FC_CHARSET, cs)
                FcCharSetDestroy(cs)
            }
            FcConfigSubstitute(nil, p, FcMatchPattern)
            FcDefaultSubstitute(p)
            var result = FcResultMatch
            if let set = FcFontSort(nil, p, FcTrue, nil, &result) {
                defer { FcFontSetDestroy(set) }
                for i in 0..<Int(set.pointee.nfont) {
                    guard let font = set.pointee.fonts[i] else { continue }
                    var cs: OpaquePointer?
                    guard FcPatternGetCharSet(font, FC_CHARSET, 0, &cs) == FcResultMatch, let cs,
                        FcCharSetHasChar(cs, FcChar32(scalar.value)) != 0, let key = key(of: font),
                        let f = try? face(key, in: &s), f.glyph(for: scalar) != nil
                    else { continue }
                    found = key
                    break
                }
            }
        }
        s.fallbacks[k] = .some(found)
        return found.flatMap { try? face($0, in: &s) }
    }

    static func ensureFontconfig(_ s: inout _FontEngineState) throws {
        if s.fontconfigReady { return }
        guard FcInit() != 0 else {
            throw PixelFlowError.invalidParameter(filter: "Font", key: "name", reason: "fontconfig could not be initialized")
        }
        s.fontconfigReady = true
    }

    /// A font whose PostScript name is exactly `name` (ignoring case), if fontconfig has one.
    static func matchByPostScriptName(_ name: String) -> _FontFace.Key? {
        guard let p = FcPatternCreate() else { return nil }
        defer { FcPatternDestroy(p) }
        add(p, FC_POSTSCRIPT_NAME, name)
        guard let set = FcFontList(nil, p, nil) else { return nil }
        defer { FcFontSetDestroy(set) }
        guard set.pointee.nfont > 0, let font = set.pointee.fonts[0] else { return nil }
        return key(of: font)
    }

    /// The fontconfig pattern a name stands for: the name itself when it has fontconfig syntax
    /// (a space or a colon), else `Family-Style` with the family's camel case split.
    static func pattern(forName name: String) -> OpaquePointer? {
        if name.contains(" ") || name.contains(":") {
            return name.withCString { FcNameParse(UnsafeRawPointer($0).assumingMemoryBound(to: FcChar8.self)) }
        }
        guard let p = FcPatternCreate() else { return nil }
        let parts = name.split(separator: "-", maxSplits: 1).map(String.init)
        let family = parts.first ?? name
        add(p, FC_FAMILY, splitCamelCase(family))
        if splitCamelCase(family) != family { add(p, FC_FAMILY, family) }
        if parts.count == 2, !parts[1].isEmpty { add(p, FC_STYLE, splitCamelCase(parts[1])) }
        return p
    }

    /// "HelveticaNeue" -> "Helvetica Neue", "DejaVuSans" -> "Deja Vu Sans"; a name without
    /// an inner capital after a lower-case letter is returned as it is.
    static func splitCamelCase(_ s: String) -> String {
        var out = ""
        var previousLower = false
        for ch in s {
            if ch.isUppercase && previousLower { out.append(" ") }
            out.append(ch)
            previousLower = ch.isLowercase
        }
        return out
    }

    /// fontconfig's best match for `pattern` (consumed).
    static func match(pattern: OpaquePointer?) -> _FontFace.Key? {
        guard let p = pattern else { return nil }
        defer { FcPatternDestroy(p) }
        FcConfigSubstitute(nil, p, FcMatchPattern)
        FcDefaultSubstitute(p)
        var result = FcResultMatch
        guard let m = FcFontMatch(nil, p, &result) else { return nil }
        defer { FcPatternDestroy(m) }
        return key(of: m)
    }

    static func key(of font: OpaquePointer) -> _FontFace.Key? {
        var file: UnsafeMutablePointer<FcChar8>?
        guard FcPatternGetString(font, FC_FILE, 0, &file) == FcResultMatch, let file else { return nil }
        var index: Int32 = 0
        if FcPatternGetInteger(font, FC_INDEX, 0, &index) != FcResultMatch { index = 0 }
        let path = String(cString: UnsafeRawPointer(file).assumingMemoryBound(to: CChar.self))
        return _FontFace.Key(path: path, index: Int(index))
    }

    static func add(_ p: OpaquePointer, _ object: String, _ value: String) {
        _ = value.withCString { v in
            FcPatternAddString(p, object, UnsafeRawPointer(v).assumingMemoryBound(to: FcChar8.self))
        }
    }
}
