import Foundation
import XCTest
@testable import PixelFlow
@testable import PixelFlowKernels
@testable import PixelFlowGraph
@testable import PixelFlowEngine

/// ICC color management against references computed without lcms2: the Display P3 fixtures'
/// expected values come from the published primaries and curves (numpy, in
/// Fixtures/Color/make_fixtures.py), the CMYK ones from Pillow's ImageCms.
final class ColorManagementTests: XCTestCase {
    struct Patch: Decodable {
        var x: Int, y: Int
        var stored: [Int]?
        var linear_srgb: [Double]?
        var srgb8: [Int]
        var stored_cmyk: [Int]?
    }

    struct P3Expected: Decodable {
        var matrix_p3_to_srgb: [[Double]]
        var patches: [String: [Patch]]
    }

    static func fixture(_ name: String) -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/Color/\(name)").path
    }

    static func p3Expected() throws -> P3Expected {
        try JSONDecoder().decode(P3Expected.self, from: Data(contentsOf: URL(fileURLWithPath: fixture("p3_expected.json"))))
    }

    static func cmykExpected() throws -> [String: [Patch]] {
        try JSONDecoder().decode(
            [String: [Patch]].self,
            from: Data(contentsOf: URL(fileURLWithPath: fixture("cmyk_expected.json"))))
    }

    static func rgb8(_ b: PixelBuffer, _ x: Int, _ y: Int) -> [Int] {
        let v = b[x, y]
        return [0, 1, 2].map { Int((v[$0] * 255).rounded()) }
    }

    func assertClose(
        _ a: [Int], _ b: [Int], _ tolerance: Int, _ what: String,
        file: StaticString = #filePath, line: UInt = #line
    ) {
        for (p, q) in zip(a, b) where abs(p - q) > tolerance {
            XCTFail("\(what): \(a) vs expected \(b) (tolerance \(tolerance))", file: file, line: line)
            return
        }
    }

    // MARK: ColorSpace

    func testMatrixFromChromaticitiesMatchesTheFixtureScript() throws {
        let expected = try Self.p3Expected().matrix_p3_to_srgb
        let m = try XCTUnwrap(ColorSpace._linearMatrix(from: .displayP3, to: .sRGB))
        for i in 0..<3 { for j in 0..<3 { XCTAssertEqual(m[3 * i + j], expected[i][j], accuracy: 1e-9) } }
    }

    /// A generated profile is a pure function of its parameters: lcms2 would stamp the header
    /// with the current time, so two writes of one image a second apart differed in the
    /// embedded profile's bytes. The date is fixed (2026-01-01 00:00:00) and no profile ID
    /// depends on it.
    func testGeneratedProfilesHaveAFixedDate() throws {
        let gray = try ColorSpace(grayName: "Gray 2.2", transferFunction: .gamma(2.2))
        let p3 = try ColorSpace(
            name: "P3 copy", chromaticities: ColorSpace.displayP3Chromaticities, transferFunction: .sRGB)
        for profile in [ColorSpace.displayP3.iccProfile, p3.iccProfile, gray.iccProfile] {
            let date = (0..<6).map { Int(profile[24 + 2 * $0]) << 8 | Int(profile[25 + 2 * $0]) }
            XCTAssertEqual(date, [2026, 1, 1, 0, 0, 0])
            XCTAssertEqual(Array(profile[84..<100]), [UInt8](repeating: 0, count: 16), "no profile ID")
        }
    }

    func testBuiltInSpacesAndNames() throws {
        XCTAssertTrue(ColorSpace.sRGB.isSRGB)
        XCTAssertFalse(ColorSpace.displayP3.isSRGB)
        XCTAssertFalse(ColorSpace.linearSRGB.isSRGB)
        XCTAssertEqual(ColorSpace(named: "kCGColorSpaceDisplayP3"), .displayP3)
        XCTAssertEqual(ColorSpace(named: "p3"), .displayP3)
        XCTAssertNil(ColorSpace(named: "no such space"))
        // A profile lcms2 made is read back with the same name and model, and sRGB is recognized
        // from its contents, not its name.
        let parsed = try ColorSpace(iccProfile: ColorSpace.sRGB.iccProfile)
        XCTAssertEqual(parsed.name, "sRGB")
        XCTAssertTrue(parsed.isSRGB)
        XCTAssertEqual(try ColorSpace(iccProfile: ColorSpace.sRGBGray.iccProfile).model, .gray)
        let handMade = try ColorSpace(
            iccProfile: Array(try Data(contentsOf: URL(fileURLWithPath: Self.fixture("display_p3.icc")))))
        XCTAssertEqual(handMade.name, "Display P3 (fixture)")
        XCTAssertEqual(handMade.model, .rgb)
        XCTAssertFalse(handMade.isSRGB)
        XCTAssertTrue(handMade.isMatrixShaper)
        XCTAssertThrowsError(try ColorSpace(iccProfile: [1, 2, 3]))
        XCTAssertThrowsError(
            try ColorSpace(
                name: "bad",
                chromaticities: Chromaticities(
                    whiteX: .nan, whiteY: 0.3, redX: 0.6, redY: 0.3, greenX: 0.3, greenY: 0.6, blueX: 0.15, blueY: 0.06),
                transferFunction: .sRGB))
    }

    // MARK: Display P3 in

    func testDisplayP3FilesDecodeToTheExpectedSRGBValues() throws {
        let expected = try Self.p3Expected().patches
        for (name, tolerance) in [("p3_patches.png", 1), ("p3_patches.jpg", 1)] {
            let converted = try PixelBuffer(contentsOfFile: Self.fixture(name))
            var raw = DecodeOptions()
            raw.appliesColorProfile = false
            let stored = try PixelBuffer(contentsOfFile: Self.fixture(name), options: raw)
            let file = try ImageFile(contentsOfFile: Self.fixture(name))
            XCTAssertEqual(try ColorSpace(iccProfile: XCTUnwrap(file.metadata.iccProfile)).name, "Display P3 (fixture)")
            for p in try XCTUnwrap(expected[name]) {
                // The stored values are Pillow's (libjpeg-turbo's integer IDCT both sides).
                assertClose(
                    Self.rgb8(stored, p.x, p.y), try XCTUnwrap(p.stored), name == "p3_patches.png" ? 0 : 1,
                    "\(name) stored at \(p.x)")
                assertClose(Self.rgb8(converted, p.x, p.y), p.srgb8, tolerance, "\(name) sRGB at \(p.x)")
            }
        }
    }

    func testDisplayP3ImageKeepsColorsOutsideSRGB() throws {
        let expected = try XCTUnwrap(try Self.p3Expected().patches["p3_patches.png"])
        let image = try Image(contentsOfFile: Self.fixture("p3_patches.png"))
        let context = RenderContext(threadCount: 2)
        let linear = try context.makeBuffer(image, format: .rgbaF32)
        let srgb = try context.makeBuffer(image, format: .rgba8)
        for p in expected {
            let v = linear[p.x, p.y]
            let want = try XCTUnwrap(p.linear_srgb)
            // lcms2 interpolates the profile's 1024-entry curve: within 1e-3 of the formula.
            for c in 0..<3 { XCTAssertEqual(Double(v[c]), want[c], accuracy: 1e-3, "linear at \(p.x) channel \(c)") }
            assertClose(Self.rgb8(srgb, p.x, p.y), p.srgb8, 1, "rendered sRGB at \(p.x)")
        }
        // Pure P3 red is outside sRGB: its linear sRGB green and blue are negative.
        XCTAssertLessThan(linear[8, 8].y, -0.03)
        XCTAssertGreaterThan(linear[8, 8].x, 1.2)
    }

    // MARK: Output and working spaces

    func testDisplayP3OutputGivesBackTheStoredValues() throws {
        let expected = try XCTUnwrap(try Self.p3Expected().patches["p3_patches.png"])
        let image = try Image(contentsOfFile: Self.fixture("p3_patches.png"))
        var options = RenderContext.Options(threadCount: 2)
        options.outputColorSpace = .displayP3
        let p3 = try RenderContext(options: options).makeBuffer(image, format: .rgba8)
        // The file's own profile (known only by its bytes) goes through lcms2 after the render.
        options.outputColorSpace = try ColorSpace(
            iccProfile: Array(try Data(contentsOf: URL(fileURLWithPath: Self.fixture("display_p3.icc")))))
        let own = try RenderContext(options: options).makeBuffer(image, format: .rgba8)
        for p in expected {
            assertClose(Self.rgb8(p3, p.x, p.y), try XCTUnwrap(p.stored), 1, "P3 output at \(p.x)")
            assertClose(Self.rgb8(own, p.x, p.y), try XCTUnwrap(p.stored), 1, "own-profile output at \(p.x)")
        }
    }

    func testNonSRGBCurveOutputMatchesTheFormula() throws {
        // Adobe RGB: gamma 563/256 over its primaries, computed here in Double.
        var source = try PixelBuffer(width: 4, height: 1, format: .rgba8)
        let colors: [SIMD4<Float>] = [SIMD4(0.2, 0.5, 0.8, 1), SIMD4(1, 0, 0, 1), SIMD4(0.5, 0.5, 0.5, 1), SIMD4(0, 0.7, 0.1, 1)]
        for (i, c) in colors.enumerated() { source[i, 0] = c }
        var options = RenderContext.Options(threadCount: 1)
        options.outputColorSpace = .adobeRGB
        let out = try RenderContext(options: options).makeBuffer(Image(source), format: .rgba16)
        let m = try XCTUnwrap(ColorSpace._linearMatrix(from: .sRGB, to: .adobeRGB))
        for i in 0..<4 {
            let s = source[i, 0]
            let lin = [0, 1, 2].map { c -> Double in
                let v = Double(s[c])
                return v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4)
            }
            for c in 0..<3 {
                let l = m[3 * c] * lin[0] + m[3 * c + 1] * lin[1] + m[3 * c + 2] * lin[2]
                let want = pow(min(max(l, 0), 1), 256.0 / 563.0)
                XCTAssertEqual(Double(out[i, 0][c]), want, accuracy: 2e-4, "pixel \(i) channel \(c)")
            }
        }
    }

    func testLinearDisplayP3WorkingSpace() throws {
        let source = CodecTestSupport.smooth(width: 24, height: 8)
        var options = RenderContext.Options(threadCount: 2)
        let plain = try RenderContext(options: options).makeBuffer(
            (try Image(source).gammaAdjusted(power: 0.5)), format: .rgbaF32,
            alphaMode: .straight)
        options.workingColorSpace = .linearDisplayP3
        let context = RenderContext(options: options)
        // An identity chain is the same in either working space.
        let same = try context.makeBuffer(Image(source), format: .rgba8)
        XCTAssertEqual(Array(same.withUnsafeBytes { Array($0) }), Array(source.withUnsafeBytes { Array($0) }))
        // Gamma 0.5 in linear P3 is sqrt(c) of P3 values (sign-preserving): reference computed here.
        let inverted = try context.makeBuffer(
            (try Image(source).gammaAdjusted(power: 0.5)), format: .rgbaF32, alphaMode: .straight)
        let into = try XCTUnwrap(ColorSpace._linearMatrix(from: .sRGB, to: .displayP3))
        let back = try XCTUnwrap(ColorSpace._linearMatrix(from: .displayP3, to: .sRGB))
        var differs = false
        for y in 0..<8 {
            for x in 0..<24 {
                let s = source[x, y]
                let lin = [0, 1, 2].map { c -> Double in
                    let v = Double(s[c])
                    return v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4)
                }
                let p3 = (0..<3).map { c -> Double in
                    let v = into[3 * c] * lin[0] + into[3 * c + 1] * lin[1] + into[3 * c + 2] * lin[2]
                    return v < 0 ? -(-v).squareRoot() : v.squareRoot()
                }
                for c in 0..<3 {
                    let want = back[3 * c] * p3[0] + back[3 * c + 1] * p3[1] + back[3 * c + 2] * p3[2]
                    XCTAssertEqual(Double(inverted[x, y][c]), want, accuracy: 2e-5)
                    if abs(Double(plain[x, y][c]) - want) > 1e-3 { differs = true }
                }
            }
        }
        XCTAssertTrue(differs, "gamma in linear P3 must differ from gamma in linear sRGB")
    }

    // MARK: CMYK

    func testCMYKWithAProfileConvertsAsPillowDoes() throws {
        let expected = try Self.cmykExpected()
        for name in ["cmyk_patches.jpg", "cmyk_patches.tif"] {
            let rgb = try PixelBuffer(contentsOfFile: Self.fixture(name))
            XCTAssertEqual(rgb.format, .rgba8)
            for p in try XCTUnwrap(expected[name]) {
                // lcms2 2.14 here, Pillow's 2.19: the 8-bit CMYK->Lab->sRGB path differs by a level or two.
                assertClose(Self.rgb8(rgb, p.x, p.y), p.srgb8, 3, "\(name) at \(p.x)")
            }
            // Without the profile the naive formula is used: the result differs.
            var raw = DecodeOptions()
            raw.appliesColorProfile = false
            let naive = try PixelBuffer(contentsOfFile: Self.fixture(name), options: raw)
            XCTAssertEqual(Self.rgb8(naive, 8, 8), [255, 255, 255])
            XCTAssertNotEqual(Self.rgb8(naive, 40 + 16 * 2, 8), Self.rgb8(rgb, 40 + 16 * 2, 8))
        }
    }

    // MARK: PNG color chunks

    func testPNGcICPDisplayP3IsConverted() throws {
        let png = try PixelBuffer(
            contentsOfFile: Self.fixture("p3_patches.png"), options: DecodeOptions(appliesColorProfile: false))
        var bytes = try png.encoded(as: .png, options: EncodeOptions(colorProfile: .none))
        // cICP after IHDR: Display P3 primaries (12), sRGB transfer (13), RGB (0), full range.
        let at = 8 + 25
        bytes.insert(contentsOf: CodecBadInputTests.chunk("cICP", [12, 13, 0, 1]), at: at)
        let file = try ImageFile(encoded: bytes)
        XCTAssertEqual(
            file.metadata.cicp,
            CICP(
                colorPrimaries: 12, transferCharacteristics: 13, matrixCoefficients: 0,
                fullRange: true))
        let converted = try PixelBuffer(encoded: bytes)
        for p in try XCTUnwrap(try Self.p3Expected().patches["p3_patches.png"]) {
            assertClose(Self.rgb8(converted, p.x, p.y), p.srgb8, 1, "cICP P3 at \(p.x)")
        }
    }

    func testPNGGammaWithoutChromaticitiesIsConverted() throws {
        var gray = try PixelBuffer(width: 3, height: 1, format: .gray8)
        gray.withUnsafeMutableBytes {
            $0[0] = 64; $0[1] = 128; $0[2] = 200
        }
        var bytes = try gray.encoded(as: .png, options: EncodeOptions(colorProfile: .none))
        var gama: [UInt8] = []
        gama._appendBE32(100_000)  // gamma 1.0: linear values
        bytes.insert(contentsOf: CodecBadInputTests.chunk("gAMA", gama), at: 8 + 25)
        let out = try PixelBuffer(encoded: bytes)
        for (i, v) in [64.0, 128, 200].enumerated() {
            let l = v / 255
            let want = (l <= 0.0031308 ? l * 12.92 : 1.055 * pow(l, 1 / 2.4) - 0.055) * 255
            XCTAssertEqual(Double(out.withUnsafeBytes { $0[i] }), want, accuracy: 1.0)
        }
    }

    // MARK: Writing profiles and metadata

    func testWrittenFilesCarryTheOutputProfileAndChosenMetadata() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pf-color-\(UUID())").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let image = Image(CodecTestSupport.smooth(width: 32, height: 16))
        let exif = try XCTUnwrap(try ImageFile(contentsOfFile: CodecTestSupport.fixture("orientation6.jpg")).metadata.exif)
        let xmp = Array("<x:xmpmeta xmlns:x=\"adobe:ns:meta/\"><rdf:RDF/></x:xmpmeta>".utf8)
        let input = ImageMetadata(exif: exif, xmp: xmp, orientation: .right)

        // Defaults: sRGB (an sRGB chunk in PNG, the ICC profile in JPEG), no EXIF, no XMP.
        for ext in ["png", "jpg"] {
            let path = "\(dir)/default.\(ext)"
            try RenderContext().write(image, toFile: path, encodeOptions: EncodeOptions(metadata: input))
            let file = try ImageFile(contentsOfFile: path)
            if ext == "png" {
                XCTAssertTrue(file.metadata.declaresSRGB)
                XCTAssertNil(file.metadata.iccProfile)
            } else {
                XCTAssertEqual(file.metadata.iccProfile, ColorSpace.sRGB.iccProfile)
            }
            XCTAssertNil(file.metadata.exif)
            XCTAssertNil(file.metadata.xmp)
        }
        // P3 output, EXIF and XMP kept; the orientation is reset since pixels are upright.
        var options = RenderContext.Options()
        options.outputColorSpace = .displayP3
        for ext in ["png", "jpg"] {
            let path = "\(dir)/p3.\(ext)"
            try RenderContext(options: options).write(
                image, toFile: path,
                encodeOptions: EncodeOptions(metadata: input, keptMetadata: .all))
            let file = try ImageFile(contentsOfFile: path)
            XCTAssertEqual(file.metadata.iccProfile, ColorSpace.displayP3.iccProfile, ext)
            XCTAssertEqual(file.metadata.xmp, xmp, ext)
            XCTAssertEqual(file.metadata.exif?.count, exif.count, ext)
            XCTAssertEqual(file.metadata.orientation, .up, ext)
            // Read back and converted to sRGB, the pixels are those of the sRGB render.
            let back = try PixelBuffer(contentsOfFile: path)
            let srgb = try RenderContext().makeBuffer(image, format: .rgba8)
            for x in stride(from: 0, to: 32, by: 5) {
                assertClose(Self.rgb8(back, x, 8), Self.rgb8(srgb, x, 8), ext == "png" ? 1 : 4, "\(ext) at \(x)")
            }
        }
        // No profile at all.
        try RenderContext().write(image, toFile: "\(dir)/none.png", encodeOptions: EncodeOptions(colorProfile: .none))
        let none = try ImageFile(contentsOfFile: "\(dir)/none.png")
        XCTAssertFalse(none.metadata.declaresSRGB)
        XCTAssertNil(none.metadata.iccProfile)
    }

    func testNoColorManagementConvertsNothing() throws {
        var raw = DecodeOptions()
        raw.appliesColorProfile = false
        let image = try Image(contentsOfFile: Self.fixture("p3_patches.png"), options: raw)
        let stored = try PixelBuffer(contentsOfFile: Self.fixture("p3_patches.png"), options: raw)
        var options = RenderContext.Options(colorManagement: .none)
        options.outputColorSpace = .displayP3
        let out = try RenderContext(options: options).makeBuffer(image, format: .rgba8)
        XCTAssertEqual(out.withUnsafeBytes { Array($0) }, stored.withUnsafeBytes { Array($0) })
    }
}
