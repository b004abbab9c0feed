import CCodecShims
import Foundation
import XCTest
@testable import PixelFlow
@testable import PixelFlowKernels
@testable import PixelFlowGraph
@testable import PixelFlowEngine

/// PixelFlow's own matrix/TRC conversion (`_MatrixShaperConversion`) against lcms2's float
/// transform, the reference it replaces, on every 8-bit value of each channel (in 65536
/// combinations; every one of the 16.7 million with PIXELFLOW_SLOW_TESTS=1) and on 65536
/// seeded random 16-bit values, for Display P3 (the fixture: v4, parametric curves), Adobe
/// RGB and ProPhoto (v4, parametric gamma curves made by lcms2), v2 profiles written here
/// (a `curv` gamma and a `curv` table) and gray profiles.
///
/// Tolerance: |fast - lcms2| <= 1e-6 * max(1, |lcms2|) per channel. The only difference is
/// the matrix product in Float instead of lcms2's double accumulation (measured: at most
/// 2.4e-7, two units in the last place at 1).
final class MatrixShaperConversionTests: XCTestCase {
    static let tolerance: Float = 1e-6

    static func fixture(_ name: String) -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/Color/\(name)").path
    }

    static let proPhotoChromaticities = Chromaticities(
        whiteX: 0.3457, whiteY: 0.3585, redX: 0.7347, redY: 0.2653,
        greenX: 0.1596, greenY: 0.8404, blueX: 0.0366, blueY: 0.0001)

    /// An ICC v2 display profile written byte by byte: `RGB ` with colorants from
    /// `chromaticities` (their white taken as D50, as for ProPhoto) or `GRAY`, and one `curv`
    /// tone curve for every channel (`curve`: one entry is a u8.8 gamma, more a table).
    static func v2Profile(
        gray: Bool, chromaticities: Chromaticities = proPhotoChromaticities,
        curve: [UInt16]
    ) -> [UInt8] {
        func be32(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8((v >> 16) & 255), UInt8((v >> 8) & 255), UInt8(v & 255)] }
        func s15(_ v: Double) -> [UInt8] { be32(UInt32(bitPattern: Int32((v * 65536).rounded()))) }
        func sig(_ s: String) -> [UInt8] { Array(s.utf8) }
        func xyz(_ x: Double, _ y: Double, _ z: Double) -> [UInt8] { sig("XYZ ") + be32(0) + s15(x) + s15(y) + s15(z) }
        var curv = sig("curv") + be32(0) + be32(UInt32(curve.count))
        for v in curve { curv += [UInt8(v >> 8), UInt8(v & 255)] }
        while curv.count % 4 != 0 { curv.append(0) }
        var tags: [(String, [UInt8])] = [("wtpt", xyz(0.9642, 1, 0.8249))]
        if gray {
            tags.append(("kTRC", curv))
        } else {
            let m = ColorSpace._rgbToXYZ(chromaticities)
            tags += [
                ("rXYZ", xyz(m[0], m[3], m[6])), ("gXYZ", xyz(m[1], m[4], m[7])), ("bXYZ", xyz(m[2], m[5], m[8])),
                ("rTRC", curv), ("gTRC", curv), ("bTRC", curv),
            ]
        }
        var offset = 128 + 4 + 12 * tags.count
        var table = be32(UInt32(tags.count)), data: [UInt8] = []
        for (name, bytes) in tags {
            table += sig(name) + be32(UInt32(offset)) + be32(UInt32(bytes.count))
            data += bytes
            offset += bytes.count
        }
        var header = be32(UInt32(offset)) + be32(0) + be32(0x0210_0000) + sig("mntr") + sig(gray ? "GRAY" : "RGB ")
        header += sig("XYZ ") + [UInt8](repeating: 0, count: 12) + sig("acsp") + [UInt8](repeating: 0, count: 24)
        header += be32(0) + s15(0.9642) + s15(1) + s15(0.8249)
        header += [UInt8](repeating: 0, count: 128 - header.count)
        return header + table + data
    }

    /// The sRGB curve as a 1024-entry `curv` table.
    static let srgbTable: [UInt16] = (0..<1024).map { i in
        let v = Double(i) / 1023
        let l = v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4)
        return UInt16((l * 65535).rounded())
    }

    /// The RGB spaces compared, by name.
    static func rgbSpaces() throws -> [(String, ColorSpace)] {
        let p3 = try ColorSpace(iccProfile: Array(Data(contentsOf: URL(fileURLWithPath: fixture("display_p3.icc")))))
        return [
            ("Display P3 fixture", p3), ("Display P3 built-in", .displayP3), ("Adobe RGB", .adobeRGB),
            (
                "ProPhoto v4 gamma 1.8",
                try ColorSpace(name: "ProPhoto", chromaticities: proPhotoChromaticities, transferFunction: .gamma(1.8))
            ),
            ("Rec. 2020", .rec2020),
            ("ProPhoto v2 curv gamma", try ColorSpace(iccProfile: v2Profile(gray: false, curve: [0x01CD]))),
            ("ProPhoto v2 curv table", try ColorSpace(iccProfile: v2Profile(gray: false, curve: srgbTable))),
        ]
    }

    static func graySpaces() throws -> [(String, ColorSpace)] {
        [
            ("Gray sRGB curve", .sRGBGray),
            ("Gray gamma 2.2", try ColorSpace(grayName: "Gray 2.2", transferFunction: .gamma(2.2))),
            ("Gray v2 curv gamma 1.8", try ColorSpace(iccProfile: v2Profile(gray: true, curve: [0x01CD]))),
            ("Gray v2 curv table", try ColorSpace(iccProfile: v2Profile(gray: true, curve: srgbTable))),
        ]
    }

    /// lcms2's floats for `count` stored pixels, premultiplied as the decode premultiplies them.
    static func lcmsReference(_ space: ColorSpace, layout: Int, _ stored: UnsafeRawPointer, count: Int) throws
        -> [SIMD4<Float>]
    {
        let transform = try _ColorConversion.cachedTransform(
            from: space, layout, to: .linearSRGB, PF_LCMS_RGBA_FLOAT,
            name: "test")
        var out = [SIMD4<Float>](repeating: SIMD4(0, 0, 0, 1), count: count)
        out.withUnsafeMutableBufferPointer { o in
            transform.run(stored, UnsafeMutableRawPointer(o.baseAddress!), count: count)
            PixelBuffer.premultiplyFloatRow(o.baseAddress!, count: count)
        }
        return out
    }

    /// Compares the fast path with lcms2 on `count` stored pixels; returns the largest error
    /// relative to max(1, |lcms2|).
    @discardableResult
    func compare(_ space: ColorSpace, layout: Int, _ stored: UnsafeRawPointer, count: Int, _ label: String) throws
        -> Float
    {
        guard let fast = _MatrixShaperConversion(from: space, layout: layout, to: .linearSRGB) else {
            XCTFail("\(label): no matrix/TRC conversion")
            return .infinity
        }
        let reference = try Self.lcmsReference(space, layout: layout, stored, count: count)
        var got = [SIMD4<Float>](repeating: .zero, count: count)
        got.withUnsafeMutableBufferPointer { fast.convertRow(stored, into: $0.baseAddress!, count: count) }
        var worst: Float = 0, failures = 0
        for i in 0..<count {
            for c in 0..<4 {
                let error = abs(got[i][c] - reference[i][c]) / max(1, abs(reference[i][c]))
                worst = max(worst, error)
                if !(error <= Self.tolerance) {
                    failures += 1
                    if failures <= 3 { XCTFail("\(label): pixel \(i) channel \(c): \(got[i]) vs lcms2 \(reference[i])") }
                }
            }
        }
        return worst
    }

    /// Every 8-bit value of each channel, in 65536 combinations (all 2^24 when slow tests
    /// are on), alpha varying too.
    func testEvery8BitValueMatchesLcms2() throws {
        let slow = ProcessInfo.processInfo.environment["PIXELFLOW_SLOW_TESTS"] == "1"
        var stored = [UInt8]()
        if slow {
            stored.reserveCapacity(4 << 24)
            for r in 0..<256 { for g in 0..<256 { for b in 0..<256 { stored += [UInt8(r), UInt8(g), UInt8(b), 255] } } }
        } else {
            for r in 0..<256 {
                for g in 0..<256 {
                    stored += [UInt8(r), UInt8(g), UInt8((r &* 31 &+ g &* 7) & 255), UInt8((r ^ (g &* 3)) & 255)]
                }
            }
        }
        var report: [String] = []
        for (label, space) in try Self.rgbSpaces() {
            let worst = try stored.withUnsafeBytes {
                try compare(space, layout: PF_LCMS_RGBA8, $0.baseAddress!, count: stored.count / 4, label + " 8-bit")
            }
            report.append("\(label): \(worst)")
        }
        for (label, space) in try Self.graySpaces() {
            let gray = (0..<256).map { UInt8($0) }
            let worst = try gray.withUnsafeBytes {
                try compare(space, layout: PF_LCMS_GRAY8, $0.baseAddress!, count: 256, label)
            }
            report.append("\(label): \(worst)")
        }
        print("matrix/TRC vs lcms2, largest relative error:", report.joined(separator: "; "))
    }

    func testRandom16BitValuesMatchLcms2() throws {
        var rng = SeededRandom(seed: 21)
        let stored = (0..<(4 * 65536)).map { _ in UInt16(truncatingIfNeeded: rng.next()) }
        for (label, space) in try Self.rgbSpaces() {
            try stored.withUnsafeBytes {
                _ = try compare(space, layout: PF_LCMS_RGBA16, $0.baseAddress!, count: 65536, label + " 16-bit")
            }
        }
    }

    /// The matrix equals lcms2's transform of each primary at full strength (divided by the
    /// curve at 1), and, for the built-in Display P3, PixelFlow's matrix from chromaticities
    /// with Bradford adaptation (within the s15.16 rounding of the profile's colorants).
    func testMatrixIsLcms2sTransformOfThePrimaries() throws {
        for (label, space) in try Self.rgbSpaces() {
            let fast = try XCTUnwrap(_MatrixShaperConversion(from: space, layout: PF_LCMS_RGBA8, to: .linearSRGB), label)
            let primaries: [UInt8] = [255, 0, 0, 255, 0, 255, 0, 255, 0, 0, 255, 255]
            let reference = try primaries.withUnsafeBytes {
                try Self.lcmsReference(space, layout: PF_LCMS_RGBA8, $0.baseAddress!, count: 3)
            }
            for column in 0..<3 {
                for row in 0..<3 {
                    XCTAssertEqual(
                        fast.matrix[3 * row + column], Double(reference[column][row]), accuracy: 2e-6,
                        "\(label) [\(row), \(column)]")
                }
            }
        }
        let p3 = try XCTUnwrap(_MatrixShaperConversion(from: .displayP3, layout: PF_LCMS_RGBA8, to: .linearSRGB))
        let expected = try XCTUnwrap(ColorSpace._linearMatrix(from: .displayP3, to: .linearSRGB))
        for i in 0..<9 { XCTAssertEqual(p3.matrix[i], expected[i], accuracy: 2e-4, "P3 matrix entry \(i)") }
    }

    /// For matrix/TRC profiles lcms2 gives the same floats at the perceptual intent (which
    /// PixelFlow uses, and at which lcms2 forces black point compensation for v4 profiles) and
    /// at the relative colorimetric intent: the profiles have no perceptual tables and both
    /// black points are 0, so compensation is the identity.
    func testPerceptualAndRelativeIntentsAgreeForMatrixShapers() throws {
        var stored = [UInt8]()
        for v in 0..<256 { stored += [UInt8(v), UInt8(255 - v), UInt8((v * 7) & 255), 255] }
        for (label, space) in try Self.rgbSpaces() {
            var outputs: [[Float]] = []
            for intent: Int32 in [0, 1] {
                var message = [CChar](repeating: 0, count: Int(PF_MESSAGE_CAPACITY))
                let t = space.iccProfile.withUnsafeBufferPointer { s in
                    ColorSpace.linearSRGB.iccProfile.withUnsafeBufferPointer { d in
                        pf_lcms_transform_create(
                            s.baseAddress, s.count, Int32(PF_LCMS_RGBA8), d.baseAddress, d.count,
                            Int32(PF_LCMS_RGBA_FLOAT), intent, &message)
                    }
                }
                let transform = _ColorConversion.Transform(try XCTUnwrap(t, label))
                var out = [Float](repeating: 0, count: 4 * 256)
                stored.withUnsafeBytes { s in
                    out.withUnsafeMutableBytes { transform.run(s.baseAddress!, $0.baseAddress!, count: 256) }
                }
                outputs.append(out)
            }
            XCTAssertEqual(outputs[0], outputs[1], label)
        }
    }

    /// LUT-based and CMYK profiles, a source curve that lifts black (where lcms2's black
    /// point compensation would apply), and destinations with curves are left to lcms2.
    func testOtherProfilesAreLeftToLcms2() throws {
        let cmyk = try ColorSpace(iccProfile: Array(Data(contentsOf: URL(fileURLWithPath: Self.fixture("cmyk.icc")))))
        XCTAssertNil(_MatrixShaperConversion(from: cmyk, layout: PF_LCMS_CMYK8, to: .linearSRGB))
        var lifted = Self.srgbTable
        lifted[0] = 300
        let liftedSpace = try ColorSpace(iccProfile: Self.v2Profile(gray: false, curve: lifted))
        XCTAssertNil(_MatrixShaperConversion(from: liftedSpace, layout: PF_LCMS_RGBA8, to: .linearSRGB))
        XCTAssertNil(_MatrixShaperConversion(from: .displayP3, layout: PF_LCMS_RGBA8, to: .sRGB))
        XCTAssertNotNil(_MatrixShaperConversion(from: .displayP3, layout: PF_LCMS_RGBA8, to: .linearDisplayP3))
        XCTAssertNil(_MatrixShaperConversion(from: .displayP3, layout: PF_LCMS_GRAY8, to: .linearSRGB))
    }

    /// A Display P3 JPEG opens through the matrix/TRC path, streamed and decoded alike, and
    /// `explain()` says so.
    func testDisplayP3FilesUseTheMatrixShaperPath() throws {
        let path = Self.fixture("stream_p3.jpg")
        let explained = try RenderContext(threadCount: 1).explain(Image(contentsOfFile: path).sepiaTone())
        XCTAssertTrue(explained.contains("converted to linear sRGB in the stream (matrix/TRC tables)"), explained)
        let cmyk = try RenderContext(threadCount: 1).explain(Image(contentsOfFile: Self.fixture("stream_cmyk.jpg")))
        XCTAssertTrue(cmyk.contains("(lcms2)"), cmyk)
    }
}
