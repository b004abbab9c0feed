import Foundation
import XCTest
@testable import PixelFlow
@testable import PixelFlowKernels
@testable import PixelFlowGraph
@testable import PixelFlowEngine

/// The photo effects against values computed with numpy and scipy from the published curves
/// (scripts/make_photo_effect_fixtures.py, Docs/ColorLooks.md).
final class PhotoEffectTests: XCTestCase {
    struct Fixture: Decodable {
        struct Case: Decodable { let name: String, extrapolate: Bool, colors: [[Float]] }
        let inputs: [[Float]]
        let cases: [Case]
    }

    func load() throws -> Fixture {
        let url = URL(fileURLWithPath: packageRoot + "/Tests/PixelFlowTests/Fixtures/Filters/photo_effects.json")
        return try JSONDecoder().decode(Fixture.self, from: Data(contentsOf: url))
    }

    /// One row of sRGB-encoded colors with alpha `alpha` (stored straight).
    func row(_ colors: [[Float]], alpha: Float = 1) throws -> PixelBuffer {
        var b = try PixelBuffer(width: colors.count, height: 1, format: .rgbaF32, colorEncoding: .sRGB, alphaMode: .straight)
        for (x, c) in colors.enumerated() { b[x, 0] = SIMD4(c[0], c[1], c[2], alpha) }
        return b
    }

    func apply(_ name: String, _ image: Image, extrapolate: Bool) throws -> Image {
        let filter = try XCTUnwrap(Filter(named: "CIPhotoEffect" + name))
        try filter.setValue(image, forKey: "inputImage")
        try filter.setValue(extrapolate, forKey: "inputExtrapolate")
        return try XCTUnwrap(filter.outputImage)
    }

    func testAgainstScipyReference() throws {
        let f = try load()
        XCTAssertEqual(f.cases.count, 16)
        let input = Image(try row(f.inputs))
        let half = Image(try row(f.inputs, alpha: 0.5))
        let linear = RenderContext(colorManagement: .linear)
        for c in f.cases {
            let expected = try row(c.colors)
            // Stored values: the table (1024 entries) differs from the spline by < 1e-6.
            let raw = try renderRaw(try apply(c.name, input, extrapolate: c.extrapolate))
            XCTAssertLessThan(maxDifference(raw, expected), 2e-5, "\(c.name) \(c.extrapolate)")
            // Half-transparent pixels: the look applies to unpremultiplied colors.
            let translucent = try renderRaw(try apply(c.name, half, extrapolate: c.extrapolate))
            XCTAssertLessThan(maxDifference(translucent, try row(c.colors, alpha: 0.5)), 2e-5, "\(c.name) alpha 0.5")
            // A linear working space: the look still works on sRGB-encoded values; the sRGB
            // curves round trip within about 1e-5.
            let managed = try renderRaw(try apply(c.name, input, extrapolate: c.extrapolate), context: linear)
            XCTAssertLessThan(maxDifference(managed, expected), 1e-4, "\(c.name) \(c.extrapolate) linear")
        }
    }

    func testGrayLooksAreGrayAndTypedMethodsMatchRegistry() throws {
        let image = Image(TestImages.random(width: 13, height: 7, format: .rgba8, seed: 7, opaque: true))
        for gray in [try image.photoEffectMono(), try image.photoEffectNoir(), try image.photoEffectTonal()] {
            let b = try renderRaw(gray)
            for y in 0..<b.height {
                for x in 0..<b.width {
                    XCTAssertEqual(b[x, y].x, b[x, y].y, accuracy: 1e-6)
                    XCTAssertEqual(b[x, y].y, b[x, y].z, accuracy: 1e-6)
                }
            }
        }
        let typed: [(String, Image)] = [
            ("Chrome", try image.photoEffectChrome()), ("Fade", try image.photoEffectFade()),
            ("Instant", try image.photoEffectInstant()), ("Mono", try image.photoEffectMono()),
            ("Noir", try image.photoEffectNoir()), ("Process", try image.photoEffectProcess()),
            ("Tonal", try image.photoEffectTonal()), ("Transfer", try image.photoEffectTransfer(extrapolate: true)),
        ]
        for (name, out) in typed {
            let named = try apply(name, image, extrapolate: name == "Transfer")
            XCTAssertEqual(maxDifference(try renderRaw(out), try renderRaw(named)), 0, name)
        }
    }

    func testBadInputThrows() {
        for d in FilterDescriptor.photoEffectFilters {
            XCTAssertThrowsError(try d.apply(["inputImage": .image(Image(color: .white)), "inputExtrapolate": .number(.nan)])) {
                guard case PixelFlowError.invalidParameter = $0 else { return XCTFail("\(d.name): \($0)") }
            }
            XCTAssertThrowsError(try d.apply(["inputExtrapolate": .boolean(true)]), d.name)
        }
    }
}
