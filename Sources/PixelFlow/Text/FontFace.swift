// One opened font face (a file and a face index in it): FreeType for glyph outlines and
// metrics, HarfBuzz for shaping, both reading the same file. Faces are opened once per process
// and kept in `_FontEngine`'s cache; every call into FreeType or HarfBuzz happens under the
// engine's lock.

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif
import CFreeType
import CHarfBuzz

/// An opened face: its FreeType handle, its HarfBuzz font (scale = units per em, so shaped
/// positions come out in font units), its metrics in font units and a cache of glyph outlines.
///
/// `@unchecked Sendable`: the FreeType and HarfBuzz handles and `outlines` are only touched
/// with `_FontEngine.state`'s lock held (`_FontEngine.withFaces`); the `let` metrics are
/// immutable after `init`.
final class _FontFace: @unchecked Sendable {
    let key: _FontFace.Key
    let ftFace: FT_Face
    let hbFont: OpaquePointer
    /// Font design units per em (FreeType's `units_per_EM`).
    let unitsPerEm: Double
    /// Above the baseline, in font units (hhea ascender, as FreeType reads it); positive.
    let ascender: Double
    /// Below the baseline, in font units; positive (FreeType's descender negated).
    let descender: Double
    /// Baseline-to-baseline distance, in font units (FreeType's `height`).
    let lineSpacing: Double
    let familyName: String
    let styleName: String
    let postScriptName: String
    /// Outlines by glyph id, in font units, y up.
    var outlines: [UInt32: [_GlyphContour]] = [:]

    /// A face's identity: the file and the face index in it (a .ttc holds several).
    struct Key: Hashable, Sendable {
        let path: String
        let index: Int
    }

    /// Opens face `key.index` of `key.path`.
    ///
    /// - Throws: `PixelFlowError.io` when the file cannot be read, `.decodingFailed` when
    ///   FreeType or HarfBuzz cannot read it as a font or it has no scalable outlines.
    init(library: FT_Library, key: Key) throws {
        self.key = key
        guard access(key.path, R_OK) == 0 else {
            throw PixelFlowError.io(file: key.path, reason: "no readable font file at this path")
        }
        guard key.index >= 0, key.index < 0x10000 else {
            throw PixelFlowError.decodingFailed(file: key.path, reason: "face index \(key.index) is out of range")
        }
        var face: FT_Face?
        let error = FT_New_Face(library, key.path, FT_Long(key.index), &face)
        guard error == 0, let face else {
            throw PixelFlowError.decodingFailed(
                file: key.path, reason: "FreeType cannot open face \(key.index) of it as a font (error \(error))")
        }
        guard face.pointee.face_flags & FT_Long(FT_FACE_FLAG_SCALABLE) != 0, face.pointee.units_per_EM > 0 else {
            FT_Done_Face(face)
            throw PixelFlowError.decodingFailed(
                file: key.path, reason: "the font has no scalable outlines (bitmap fonts are not supported)")
        }
        guard let blob = hb_blob_create_from_file_or_fail(key.path) else {
            FT_Done_Face(face)
            throw PixelFlowError.io(file: key.path, reason: "HarfBuzz cannot read the file")
        }
        let hbFace = hb_face_create(blob, UInt32(key.index))
        hb_blob_destroy(blob)
        guard let font = hb_font_create(hbFace) else {
            hb_face_destroy(hbFace)
            FT_Done_Face(face)
            throw PixelFlowError.decodingFailed(file: key.path, reason: "HarfBuzz cannot make a font of it")
        }
        hb_face_destroy(hbFace)
        let upem = Int32(face.pointee.units_per_EM)
        hb_font_set_scale(font, upem, upem)
        ftFace = face
        hbFont = font
        unitsPerEm = Double(upem)
        ascender = Double(face.pointee.ascender)
        descender = -Double(face.pointee.descender)
        lineSpacing = Swift.max(Double(face.pointee.height), Double(face.pointee.ascender) - Double(face.pointee.descender))
        familyName = face.pointee.family_name.map { String(cString: $0) } ?? ""
        styleName = face.pointee.style_name.map { String(cString: $0) } ?? ""
        postScriptName = FT_Get_Postscript_Name(face).map { String(cString: $0) } ?? ""
    }

    /// The face's glyph for `scalar`, nil when it has none (glyph 0, `.notdef`).
    func glyph(for scalar: Unicode.Scalar) -> UInt32? {
        let g = FT_Get_Char_Index(ftFace, FT_ULong(scalar.value))
        return g == 0 ? nil : UInt32(g)
    }

    /// The outline of glyph `id` in font units (y up), unhinted and unscaled; empty for a
    /// glyph without contours (a space) or one FreeType cannot load.
    func outline(of id: UInt32) -> [_GlyphContour] {
        if let cached = outlines[id] { return cached }
        var contours: [_GlyphContour] = []
        let flags = FT_Int32(FT_LOAD_NO_SCALE | FT_LOAD_NO_HINTING | FT_LOAD_NO_BITMAP)
        if FT_Load_Glyph(ftFace, FT_UInt(id), flags) == 0, let slot = ftFace.pointee.glyph,
            slot.pointee.format == FT_GLYPH_FORMAT_OUTLINE
        {
            contours = _OutlineDecomposer.contours(of: &slot.pointee.outline)
        }
        outlines[id] = contours
        return contours
    }

    /// The advance of glyph `id` in font units, from the font's metrics (hmtx).
    func advance(of id: UInt32) -> Double {
        Double(hb_font_get_glyph_h_advance(hbFont, id))
    }
}

/// One closed contour of a glyph outline: a start point and segments, in font units, y up.
struct _GlyphContour: Sendable, Hashable {
    /// A segment from the previous point.
    enum Segment: Sendable, Hashable {
        case line(Point)
        case quad(control: Point, to: Point)
        case cubic(control1: Point, control2: Point, to: Point)
    }
    var start: Point
    var segments: [Segment] = []
}

/// Reads an `FT_Outline` through `FT_Outline_Decompose` into `_GlyphContour`s.
enum _OutlineDecomposer {
    /// The contours being collected; passed to the C callbacks as their user pointer.
    final class Sink {
        var contours: [_GlyphContour] = []
    }

    static func point(_ v: UnsafePointer<FT_Vector>?) -> Point {
        guard let v else { return .zero }
        return Point(x: Double(v.pointee.x), y: Double(v.pointee.y))
    }

    static func contours(of outline: inout FT_Outline) -> [_GlyphContour] {
        let sink = Sink()
        var funcs = FT_Outline_Funcs(
            move_to: { to, user in
                let sink = Unmanaged<Sink>.fromOpaque(user!).takeUnretainedValue()
                sink.contours.append(_GlyphContour(start: _OutlineDecomposer.point(to)))
                return 0
            },
            line_to: { to, user in
                let sink = Unmanaged<Sink>.fromOpaque(user!).takeUnretainedValue()
                guard !sink.contours.isEmpty else { return 1 }
                sink.contours[sink.contours.count - 1].segments.append(.line(_OutlineDecomposer.point(to)))
                return 0
            },
            conic_to: { control, to, user in
                let sink = Unmanaged<Sink>.fromOpaque(user!).takeUnretainedValue()
                guard !sink.contours.isEmpty else { return 1 }
                sink.contours[sink.contours.count - 1].segments.append(
                    .quad(control: _OutlineDecomposer.point(control), to: _OutlineDecomposer.point(to)))
                return 0
            },
            cubic_to: { c1, c2, to, user in
                let sink = Unmanaged<Sink>.fromOpaque(user!).takeUnretainedValue()
                guard !sink.contours.isEmpty else { return 1 }
                sink.contours[sink.contours.count - 1].segments.append(
                    .cubic(
                        control1: _OutlineDecomposer.point(c1), control2: _OutlineDecomposer.point(c2),
                        to: _OutlineDecomposer.point(to)))
                return 0
            },
            shift: 0, delta: 0)
        let status = withExtendedLifetime(sink) {
            FT_Outline_Decompose(&outline, &funcs, Unmanaged.passUnretained(sink).toOpaque())
        }
        return status == 0 ? sink.contours.filter { !$0.segments.isEmpty } : []
    }
}
