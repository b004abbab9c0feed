import CCodecShims
import Dispatch

/// The conversion of stored 8- or 16-bit values in a matrix/TRC color space (an RGB profile
/// with three tone curves and three colorants, or a gray profile with one curve) into linear
/// sRGB floats, premultiplied, by PixelFlow's own row code instead of lcms2's pipeline.
///
/// Each channel goes through a table of its tone curve (2^bits floats, made once per
/// transform by lcms2's own curve evaluation, so the curve is exactly the profile's), then a
/// 3x3 matrix: the inverse of the destination's colorants times the source's (both as ICC
/// stores them, adapted to D50; for gray, the D50 white), computed in double and rounded to
/// Float. That is the arithmetic of lcms2's float pipeline for these profiles with one
/// difference: the matrix product runs in Float rather than lcms2's double accumulation, so
/// a value differs from lcms2's by a few units in the last place (tests: within 1e-6 times
/// max(1, |value|), measured 2.4e-7, over every 8-bit value and random 16-bit values of
/// Display P3, Adobe RGB, ProPhoto, Rec. 2020 and gray profiles).
///
/// The full decode (`run(from:into:)`) and streamed rows (`convertRow`) run the same row
/// function, so their floats are the same, bit for bit.
///
/// ```swift
/// if let fast = _MatrixShaperConversion(from: .displayP3, layout: PF_LCMS_RGBA8, to: .linearSRGB) {
///     fast.convertRow(storedRow, into: floatRow, count: width)
/// }
/// ```
///
/// - Complexity: per pixel, three table reads, three 4-lane multiplies and adds, one
///   premultiply; 3 KiB of tables for 8-bit values, 768 KiB for 16-bit ones.
final class _MatrixShaperConversion: Sendable {
    /// How the stored values are laid out.
    enum Layout: Sendable {
        /// 8-bit RGBA (`PF_LCMS_RGBA8`).
        case rgba8
        /// 16-bit RGBA (`PF_LCMS_RGBA16`).
        case rgba16
        /// 8-bit gray (`PF_LCMS_GRAY8`): opaque.
        case gray8
    }

    let layout: Layout
    /// The row-major matrix from linear source values to linear destination values (3x3; for
    /// gray, the destination's value of gray 1 in the first column, the rest 0), in double.
    let matrix: [Double]
    /// Per channel, `entries` floats: the tone curve at `i / (entries - 1)`.
    private let tables: [Float]
    /// The matrix's columns in Float (the fourth lane 0).
    private let red: SIMD4<Float>, green: SIMD4<Float>, blue: SIMD4<Float>

    /// The conversion from stored values of `source` in `layout` (an lcms2 layout:
    /// `PF_LCMS_RGBA8`, `PF_LCMS_RGBA16` or `PF_LCMS_GRAY8`) to floats of `destination`, or
    /// `nil` when it is not of this kind: a profile with LUTs (lcms2 reads those instead of
    /// the matrix), a destination whose curves are not linear, a source curve that does not
    /// map 0 to 0, or another layout. lcms2 converts those.
    init?(from source: ColorSpace, layout lcmsLayout: Int, to destination: ColorSpace) {
        let bits: Int
        switch (lcmsLayout, source.model) {
        case (PF_LCMS_RGBA8, .rgb): (layout, bits) = (.rgba8, 8)
        case (PF_LCMS_RGBA16, .rgb): (layout, bits) = (.rgba16, 16)
        case (PF_LCMS_GRAY8, .gray): (layout, bits) = (.gray8, 8)
        default: return nil
        }
        guard source.isMatrixShaper, destination.model == .rgb, destination.isMatrixShaper else { return nil }
        let channels = layout == .gray8 ? 1 : 3
        var tables = [Float](repeating: 0, count: channels << bits)
        var m = [Double](repeating: 0, count: 9)
        var message = [CChar](repeating: 0, count: Int(PF_MESSAGE_CAPACITY))
        let made = source.iccProfile.withUnsafeBufferPointer { s in
            destination.iccProfile.withUnsafeBufferPointer { d in
                tables.withUnsafeMutableBufferPointer { t in
                    pf_lcms_matrix_shaper_tables(
                        s.baseAddress, s.count, d.baseAddress, d.count, Int32(bits),
                        t.baseAddress, &m, &message)
                }
            }
        }
        guard made == channels, m.allSatisfy(\.isFinite), tables.allSatisfy(\.isFinite) else { return nil }
        self.tables = tables
        matrix = m
        red = SIMD4(Float(m[0]), Float(m[3]), Float(m[6]), 0)
        green = SIMD4(Float(m[1]), Float(m[4]), Float(m[7]), 0)
        blue = SIMD4(Float(m[2]), Float(m[5]), Float(m[8]), 0)
    }

    /// Converts `count` stored pixels at `source` into `destination`: linear floats,
    /// premultiplied (alpha from the stored alpha, `a / 255` or `a / 65535`, as lcms2 copies
    /// it; 1 for gray).
    func convertRow(_ source: UnsafeRawPointer, into destination: UnsafeMutablePointer<SIMD4<Float>>, count: Int) {
        let red = red, green = green, blue = blue
        tables.withUnsafeBufferPointer { t in
            let t = t.baseAddress!
            switch layout {
            case .rgba8:
                let p = source.assumingMemoryBound(to: UInt8.self)
                let tg = t + 256, tb = t + 512
                for x in 0..<count {
                    let i = 4 &* x
                    let c = red * t[Int(p[i])] + green * tg[Int(p[i &+ 1])] + blue * tb[Int(p[i &+ 2])]
                    let a = Float(p[i &+ 3]) / 255
                    destination[x] = SIMD4(c.x * a, c.y * a, c.z * a, a)
                }
            case .rgba16:
                let p = source.assumingMemoryBound(to: UInt16.self)
                let tg = t + 65536, tb = t + 131072
                for x in 0..<count {
                    let i = 4 &* x
                    let c = red * t[Int(p[i])] + green * tg[Int(p[i &+ 1])] + blue * tb[Int(p[i &+ 2])]
                    let a = Float(p[i &+ 3]) / 65535
                    destination[x] = SIMD4(c.x * a, c.y * a, c.z * a, a)
                }
            case .gray8:
                let p = source.assumingMemoryBound(to: UInt8.self)
                for x in 0..<count {
                    var c = red * t[Int(p[x])]
                    c.w = 1
                    destination[x] = c
                }
            }
        }
    }

    /// The fewest pixels worth converting on several threads.
    static let parallelPixels = 1 << 16

    /// Converts every row of `source` into `destination` (`rgbaF32`, same size), marking it
    /// premultiplied; bands of rows run on `activeProcessorCount` threads when the image has
    /// at least `parallelPixels` pixels (each pixel is converted alone, so the split does not
    /// change a value).
    func run(from source: PixelBuffer, into destination: inout PixelBuffer) {
        let w = source.width, h = source.height, sStride = source.bytesPerRow, dStride = destination.bytesPerRow
        let bands = w * h >= Self.parallelPixels ? Swift.min(RenderContext.activeProcessorCount * 4, h) : 1
        source.withUnsafeBytes { s in
            destination.withUnsafeMutableBytes { d in
                guard let sBase = s.baseAddress, let dBase = d.baseAddress else { return }
                let from = SharedSourceBytes(base: sBase, bytesPerRow: sStride, width: w, height: h)
                let to = SharedPixels(base: dBase, bytesPerRow: dStride)
                let convertBand = { @Sendable (band: Int) in
                    for y in (h * band / bands)..<(h * (band + 1) / bands) {
                        self.convertRow(
                            from.base + y * from.bytesPerRow,
                            into: (to.base + y * to.bytesPerRow).assumingMemoryBound(to: SIMD4<Float>.self),
                            count: w)
                    }
                }
                if bands == 1 { convertBand(0) } else { DispatchQueue.concurrentPerform(iterations: bands, execute: convertBand) }
            }
        }
        destination.alphaMode = .premultiplied
    }
}
