import CSIMD

/// The byte forms of blends, premultiplying and unpremultiplying in linear light (color
/// management on, sRGB-encoded `rgba8` sources and destination).
///
/// The float path decodes each stored color byte (premultiplied bytes too: it decodes what is
/// stored), premultiplies straight sources by `alpha / 255`, blends the linear values and
/// encodes the result (after unpremultiplying for a straight destination). The byte forms:
///
/// * **Blends** (`pf_u8_linear_blend_rgba_run`, Sources/CSIMD/include/CSIMDBytesLinearBlend.h):
///   each color byte through `ByteLinear.tables.decode` (the float path's decode table times
///   32640, rounded), the formula of `ByteBlendFormula` on those linear values, rounded to an
///   integer linear value, clamped and encoded by `ByteLinear.tables.encode` (the float path's
///   encoder at every one of the 32641 values). Alpha is not decoded: it is the byte formula
///   (bit-identical, or within 1 unit for the mix). The colors are within 1 unit of the float
///   path's: the linear values differ by at most `linearBlendErrorBound` steps of 1/32640, and
///   the encoding's steepest slope (12.92 x 255 units per unit, near black) turns that into
///   less than 1 unit, so the two encoded bytes are at most one apart.
/// * **Premultiply and unpremultiply**: a color byte's result is a function of the byte and
///   its alpha, so a table of all 65536 pairs (`AlphaTable`), made by the float path's own row
///   conversions (`loadRowRGBA` decoding, `premultiplyRow` or `unpremultiplyRow`,
///   `storeRowRGBA` encoding), gives its bytes exactly (`pf_u8_alpha_table_rgba_run`).
extension ByteLinear {
    /// The 65536-entry table of a per-pixel alpha operation in linear light: entry `c + 256 a`
    /// is the float path's byte for color byte `c` under alpha byte `a`.
    ///
    /// `@unchecked Sendable` because it carries a raw pointer: written once in `init`, only read
    /// afterwards, never freed (held by a `static let`).
    struct AlphaTable: @unchecked Sendable {
        /// 65536 entries and 3 bytes of padding (the AVX2 kernel gathers 4 bytes at each index).
        let entries: UnsafePointer<UInt8>

        /// Runs the float path's conversions on every (c, a) pair: a straight source into a
        /// premultiplied buffer (`premultiply`) or a premultiplied source into a straight one.
        init(premultiply: Bool) {
            let count = 65536
            let pixels = UnsafeMutablePointer<UInt8>.allocate(capacity: 4 * count)
            for i in 0..<count {
                let c = UInt8(i & 255), a = UInt8(i >> 8)
                (pixels + 4 * i).initialize(repeating: c, count: 3)
                pixels[4 * i + 3] = a
            }
            let values = UnsafeMutablePointer<SIMD4<Float>>.allocate(capacity: count)
            let scratch = UnsafeMutablePointer<SIMD4<Float>>.allocate(capacity: count)
            loadRowRGBA(pixels, format: .rgba8, count: count, into: values, decodeSRGB: true)
            if premultiply { premultiplyRow(values, count: count) } else { unpremultiplyRow(values, count: count) }
            storeRowRGBA(values, count: count, format: .rgba8, into: pixels, encodeSRGB: true, scratch: scratch)
            let e = UnsafeMutablePointer<UInt8>.allocate(capacity: count + 3)
            for i in 0..<count { e[i] = pixels[4 * i] }
            (e + count).initialize(repeating: 0, count: 3)
            pixels.deallocate()
            values.deallocate()
            scratch.deallocate()
            entries = UnsafePointer(e)
        }
    }

    /// Straight sRGB bytes into premultiplied ones in linear light, made once.
    static let premultiplyTable = AlphaTable(premultiply: true)
    /// Premultiplied sRGB bytes into straight ones in linear light, made once.
    static let unpremultiplyTable = AlphaTable(premultiply: false)

    /// Margin, in linear steps, for the float path's own rounding (single precision: relative
    /// error of a few 1e-7 on values up to 2, well below 0.05 step of 1/32640) and the float
    /// steps of the kernel (`F B` rounded to 24 bits and the products by rounded reciprocals:
    /// below 0.01 step).
    static let floatMargin = 0.05

    /// The largest distance, in byte units after encoding, between the linear value the kernel
    /// encodes and the float path's, for a blend `formula`: in linear steps, half a step per
    /// decoded input times the largest weight it can have (`|c + s a| / 255` over the alpha
    /// bytes, plus 1 for a product term, whose other factor is at most 1), the weights'
    /// quantization for constant 14-bit weights (at most 2^-15 each, times 32640), half a step
    /// for rounding, and `floatMargin`; times the steepest slope of the encoding.
    static func blendErrorBound(_ formula: ByteBlendFormula) -> Double {
        func largest(_ c: Int16, _ s: Int16) -> Double {
            let c = Double(c), s = Double(s)
            return Swift.max(abs(c), abs(c + 255 * s))
        }
        var steps = 0.5 + floatMargin
        if formula.shift == 0 {
            let pf = largest(formula.fWeight, formula.fByBackgroundAlpha) / 255 + abs(Double(formula.product))
            let pb = largest(formula.bWeight, formula.bByForegroundAlpha) / 255 + abs(Double(formula.product))
            steps += 0.5 * (pf + pb)
        } else {
            let q = Double(1 << formula.shift)
            steps += 0.5 * (Double(formula.fWeight) + Double(formula.bWeight)) / q
            steps += 2 * Double(scale) / (2 * q)
        }
        return steps / Double(scale) * steepestSlope
    }
}

extension ByteColor {
    /// For the blends, premultiply and unpremultiply in linear light, their error bound in
    /// byte units (0: the table forms are exact); nil for the other forms.
    var linearPointErrorBound: Double? {
        guard linear else { return nil }
        switch kind {
        case .premultiply, .unpremultiply: return 0
        case .sourceOver, .blend: return formula.map(ByteLinear.blendErrorBound)
        case .matrix, .grayscale: return nil
        }
    }

    /// What `explain()` says of the linear-light blend and alpha forms.
    var linearPointDescription: String? {
        guard let bound = linearPointErrorBound else { return nil }
        switch kind {
        case .premultiply: return "premultiply in linear light (exact 65536-entry table)"
        case .unpremultiply: return "unpremultiply in linear light (exact 65536-entry table)"
        default:
            return
                "\(formula?.name ?? "blend") in linear light (32640-step linear tables, error < \(format3(Float(bound))) unit)"
        }
    }
}

extension BytePlan {
    /// Runs one row of a linear-light blend, premultiply or unpremultiply (`color.linear` with
    /// one of those kinds); false for the other forms.
    @inline(__always)
    static func runLinearPointRow(
        _ color: ByteColor, _ s: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, _ d: UnsafeMutablePointer<UInt8>,
        _ count: Int
    ) -> Bool {
        guard color.linear else { return false }
        switch color.kind {
        case .premultiply: pf_u8_alpha_table_rgba_run(s, d, count, ByteLinear.premultiplyTable.entries)
        case .unpremultiply: pf_u8_alpha_table_rgba_run(s, d, count, ByteLinear.unpremultiplyTable.entries)
        case .sourceOver, .blend:
            let tables = ByteLinear.tables
            pf_u8_linear_blend_rgba_run(s, b, d, count, tables.decode, tables.encode, color.formula!.coefficients)
        case .matrix, .grayscale: return false
        }
        return true
    }
}
