import XCTest
@testable import PixelFlow
@testable import PixelFlowKernels
@testable import PixelFlowGraph
@testable import PixelFlowEngine

/// `Image.applyingFilter(_:parameters:)`, Core Image's `applyingFilter`, against the registry
/// it stands for: the same pixels for every spelling of names and keys, the same errors.
final class ImageApplyingFilterTests: XCTestCase {
    let photo = Image(TestImages.random(width: 23, height: 17, format: .rgba8, seed: 26, opaque: true))
    let background = Image(TestImages.random(width: 23, height: 17, format: .rgba8, seed: 27))

    /// The pixels of `image`, exactly as written to an 8-bit file.
    func pixels(_ image: Image) throws -> PixelBuffer {
        try RenderContext().makeBuffer(image, rect: Rect(x: 0, y: 0, width: 23, height: 17), format: .rgba8)
    }

    /// The error `body` throws, or nil (with a failure) when it throws none.
    func error(_ body: () throws -> Image, file: StaticString = #filePath, line: UInt = #line) -> PixelFlowError? {
        do {
            _ = try body()
            XCTFail("nothing was thrown", file: file, line: line)
        } catch let e as PixelFlowError {
            return e
        } catch {
            XCTFail("not a PixelFlowError: \(error)", file: file, line: line)
        }
        return nil
    }

    func testPortedCoreImageSnippetEqualsTheRegistry() throws {
        let image = photo
        let ported = try image.applyingFilter("CISepiaTone", parameters: ["inputIntensity": 0.8])
        let registry = try FilterRegistry.apply("CISepiaTone", ["inputImage": .image(photo), "inputIntensity": .number(0.8)])
        XCTAssertEqual(try pixels(ported), try pixels(registry))
        XCTAssertNotEqual(try pixels(ported), try pixels(photo), "the filter did something")
    }

    func testShortNamesAndKeysGiveTheSamePixels() throws {
        let expected = try pixels(photo.sepiaTone(intensity: 0.8))
        for (name, key) in [
            ("SepiaTone", "intensity"), ("CISepiaTone", "Intensity"), ("SepiaTone", "inputIntensity"),
            ("CISepiaTone", "INTENSITY"),
        ] {
            XCTAssertEqual(try pixels(photo.applyingFilter(name, parameters: [key: 0.8])), expected, "\(name) \(key)")
        }
        // No parameters: every input takes its default (intensity 1).
        XCTAssertEqual(try pixels(photo.applyingFilter("CISepiaTone")), try pixels(photo.sepiaTone()))
    }

    func testEveryKindOfValueReadsAsTheRegistrysValue() throws {
        let radius = 3.0  // a variable, as ported code passes them
        let cases: [(Image, Image)] = [
            (
                try photo.applyingFilter("CISourceOverCompositing", parameters: ["inputBackgroundImage": background]),
                try FilterRegistry.apply(
                    "CISourceOverCompositing",
                    ["inputImage": .image(photo), "inputBackgroundImage": .image(background)])
            ),
            (
                try photo.applyingFilter(
                    "ColorMonochrome",
                    parameters: [
                        "color": Color(red: 0.2, green: 0.5, blue: 0.9),
                        "intensity": Float(0.5),
                    ]),
                try photo.colorMonochrome(color: Color(red: 0.2, green: 0.5, blue: 0.9), intensity: 0.5)
            ),
            (
                try photo.applyingFilter(
                    "CIVignetteEffect",
                    parameters: [
                        "inputCenter": Point(x: 8, y: 5), "inputRadius": radius,
                        "inputIntensity": 1,
                    ]),
                try FilterRegistry.apply(
                    "CIVignetteEffect",
                    [
                        "inputImage": .image(photo), "inputCenter": .vector([8, 5]),
                        "inputRadius": .number(3), "inputIntensity": .number(1),
                    ])
            ),
            (
                try photo.applyingFilter("CIVignetteEffect", parameters: ["center": [8, 5], "radius": 3]),
                try FilterRegistry.apply(
                    "CIVignetteEffect",
                    [
                        "inputImage": .image(photo), "inputCenter": .vector([8, 5]),
                        "inputRadius": .number(3),
                    ])
            ),
            (
                try photo.applyingFilter("CICrop", parameters: ["inputRectangle": Rect(x: 2, y: 3, width: 10, height: 9)]),
                photo.cropped(to: Rect(x: 2, y: 3, width: 10, height: 9))
            ),
            (
                try photo.applyingFilter(
                    "CIAffineTransform", parameters: ["inputTransform": AffineTransform(translationX: 2, y: 1)]),
                try photo.transformed(by: AffineTransform(translationX: 2, y: 1))
            ),
            (
                try photo.applyingFilter(
                    "CINinePartTiled",
                    parameters: [
                        "inputFlipYTiles": false, "inputBreakpoint0": [4.0, 4],
                        "inputBreakpoint1": [18, 12], "inputGrowAmount": [0, 0],
                    ]),
                photo
            ),
            (
                try photo.applyingFilter("CISepiaTone", parameters: ["inputIntensity": FilterValue.number(0.25)]),
                try photo.sepiaTone(intensity: 0.25)
            ),
        ]
        for (i, (ported, expected)) in cases.enumerated() {
            XCTAssertEqual(ported.extent, expected.extent, "case \(i)")
            XCTAssertEqual(try pixels(ported), try pixels(expected), "case \(i)")
        }
    }

    func testErrorsAreTheRegistrys() throws {
        func registry(_ name: String, _ values: [String: FilterValue]) -> PixelFlowError? {
            error { try FilterRegistry.apply(name, values.merging(["inputImage": .image(photo)]) { a, _ in a }) }
        }
        // Unknown filter.
        XCTAssertEqual(
            error { try photo.applyingFilter("CISepiaTones", parameters: ["inputIntensity": 0.5]) },
            .unknownFilter("CISepiaTones"))
        XCTAssertEqual(error { try photo.applyingFilter("CISepiaTones") }, registry("CISepiaTones", [:]))
        // Unknown key: named as given, with the filter's keys.
        let unknown = error { try photo.applyingFilter("SepiaTone", parameters: ["inputRadius": 3]) }
        XCTAssertEqual(unknown, registry("CISepiaTone", ["inputRadius": .number(3)]))
        XCTAssertTrue("\(unknown.map(String.init(describing:)) ?? "")".contains("its inputs are inputImage, inputIntensity"))
        // Wrong type, NaN, infinity, out of range, a vector of the wrong size.
        XCTAssertEqual(
            error { try photo.applyingFilter("CISepiaTone", parameters: ["intensity": "strong"]) },
            registry("CISepiaTone", ["inputIntensity": .string("strong")]))
        XCTAssertEqual(
            error { try photo.applyingFilter("CISepiaTone", parameters: ["intensity": Double.nan]) },
            registry("CISepiaTone", ["inputIntensity": .number(.nan)]))
        XCTAssertEqual(
            error { try photo.applyingFilter("CISepiaTone", parameters: ["intensity": -Double.infinity]) },
            registry("CISepiaTone", ["inputIntensity": .number(-.infinity)]))
        XCTAssertEqual(
            error { try photo.applyingFilter("CISepiaTone", parameters: ["intensity": 1.5]) },
            registry("CISepiaTone", ["inputIntensity": .number(1.5)]))
        XCTAssertEqual(
            error { try photo.applyingFilter("CIVignetteEffect", parameters: ["center": [1.0, 2, 3]]) },
            registry("CIVignetteEffect", ["inputCenter": .vector([1, 2, 3])]))
        XCTAssertEqual(
            error { try photo.applyingFilter("CISourceOverCompositing", parameters: ["backgroundImage": 1]) },
            registry("CISourceOverCompositing", ["inputBackgroundImage": .number(1)]))
        for e in [error { try photo.applyingFilter("CISepiaTone", parameters: ["intensity": 1.5]) }] {
            XCTAssertEqual(e.map(String.init(describing:)), "CISepiaTone: inputIntensity must be at most 1.0, got 1.5")
        }
    }

    func testShapesCoreImageRejectsThrowClearErrors() throws {
        // A generator has no inputImage to receive the image.
        guard case let .invalidParameter(filter, key, reason)? = error({ try photo.applyingFilter("CICheckerboardGenerator") })
        else { return XCTFail("a generator must throw invalidParameter") }
        XCTAssertEqual([filter, key], ["CICheckerboardGenerator", "inputImage"])
        XCTAssertTrue(reason.contains("FilterRegistry.apply"), reason)
        // The receiver is the input image; it cannot also be a parameter.
        guard
            case let .invalidParameter(_, key2, reason2)? = error({
                try photo.applyingFilter("CISepiaTone", parameters: [kCIInputImageKey: background])
            })
        else { return XCTFail("inputImage among the parameters must throw") }
        XCTAssertEqual(key2, "inputImage")
        XCTAssertTrue(reason2.contains("called on"), reason2)
        XCTAssertNotNil(error { try photo.applyingFilter("CISepiaTone", parameters: ["image": background]) })
        // One input under two spellings.
        XCTAssertEqual(
            error { try photo.applyingFilter("CISepiaTone", parameters: ["intensity": 0.5, "inputIntensity": 0.6]) },
            .invalidParameter(
                filter: "CISepiaTone", key: "inputIntensity",
                reason: "is given twice, as 'inputIntensity' and as 'intensity'"))
    }

    func testKeysMatchTheWayTheCommandLineMatchesThem() throws {
        let d = try XCTUnwrap(FilterRegistry.descriptor(named: "CIGaussianBlur"))
        for key in ["inputRadius", "radius", "Radius", "RADIUS", "inputradius", "INPUTRADIUS"] {
            XCTAssertEqual(d.input(matching: key)?.key, "inputRadius", key)
        }
        for key in ["", "input", "inputRadiusX", "rad", "sigma"] { XCTAssertNil(d.input(matching: key), key) }
        XCTAssertEqual(d.input(matching: "image")?.key, "inputImage")
    }
}
