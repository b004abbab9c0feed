import XCTest
@testable import PixelFlow
@testable import PixelFlowKernels
@testable import PixelFlowGraph
@testable import PixelFlowEngine

/// `Filter`, the CIFilter-shaped API: lookup, keys, attributes, setting values, output.
final class FilterAPITests: XCTestCase {
    let image = Image(TestImages.random(width: 13, height: 9, format: .rgba8, seed: 21))

    func testLookupByCoreImageNameAndShortName() throws {
        let full = try XCTUnwrap(Filter(named: "CISepiaTone"))
        let short = try XCTUnwrap(Filter(named: "SepiaTone"))
        XCTAssertEqual(full.name, "CISepiaTone")
        XCTAssertEqual(short.name, "CISepiaTone")
        XCTAssertEqual(full.descriptor.name, "CISepiaTone")
        XCTAssertNil(Filter(named: "CISepiaToon"))
        XCTAssertNil(Filter(named: ""))
        XCTAssertNil(Filter(named: "sepiatone"), "names are case-sensitive, as in Core Image")
        for d in FilterRegistry.all {
            XCTAssertEqual(Filter(named: d.name)?.name, d.name)
        }
    }

    func testKeys() throws {
        let f = try XCTUnwrap(Filter(named: "CISepiaTone"))
        XCTAssertEqual(f.inputKeys, ["inputImage", "inputIntensity"])
        XCTAssertEqual(f.outputKeys, ["outputImage"])
        XCTAssertEqual(try XCTUnwrap(Filter(named: "CIConstantColorGenerator")).inputKeys, ["inputColor"])
    }

    func testAttributesHaveCoreImageShape() throws {
        let f = try XCTUnwrap(Filter(named: "CIGaussianBlur"))
        let a = f.attributes
        XCTAssertEqual(a[kCIAttributeFilterName], .string("CIGaussianBlur"))
        XCTAssertEqual(a[kCIAttributeFilterDisplayName], .string("Gaussian Blur"))
        XCTAssertEqual(a[kCIAttributeDescription]?.stringValue, f.descriptor.summary)
        let categories = try XCTUnwrap(a[kCIAttributeFilterCategories]?.stringsValue)
        XCTAssertTrue(categories.contains("CICategoryBlur"))
        XCTAssertTrue(categories.contains("CICategoryBuiltIn"))
        XCTAssertEqual(
            Set(a.keys),
            Set([
                kCIAttributeFilterName, kCIAttributeFilterDisplayName, kCIAttributeDescription,
                kCIAttributeFilterCategories, "inputImage", "inputRadius",
            ]))

        let radius = try XCTUnwrap(a["inputRadius"]?.dictionaryValue)
        XCTAssertEqual(radius[kCIAttributeType], .string("CIAttributeTypeDistance"))
        XCTAssertEqual(radius[kCIAttributeClass], .string("NSNumber"))
        XCTAssertEqual(radius[kCIAttributeDefault], .value(.number(10)))
        XCTAssertEqual(radius[kCIAttributeIdentity], .value(.number(0)))
        XCTAssertEqual(radius[kCIAttributeMin], .number(0))
        XCTAssertEqual(radius[kCIAttributeMax], .number(1000))
        XCTAssertEqual(radius[kCIAttributeSliderMin], .number(0))
        XCTAssertEqual(radius[kCIAttributeSliderMax], .number(100))
        XCTAssertEqual(radius[kCIAttributeDisplayName], .string("Radius"))
        XCTAssertEqual(radius[kCIAttributeDescription]?.stringValue, f.descriptor.input("inputRadius")?.summary)
        XCTAssertEqual(a["inputRadius"]?[kCIAttributeDefault]?.numberValue, 10)

        let imageAttributes = try XCTUnwrap(a["inputImage"]?.dictionaryValue)
        XCTAssertEqual(imageAttributes[kCIAttributeClass], .string("CIImage"))
        XCTAssertEqual(imageAttributes[kCIAttributeType], .string("CIAttributeTypeImage"))
        XCTAssertNil(imageAttributes[kCIAttributeDefault], "an image input has no default")
        XCTAssertNil(imageAttributes[kCIAttributeMin])

        // Every filter's dictionary has the filter entries and one dictionary per input key.
        for d in FilterRegistry.all {
            let attrs = Filter(descriptor: d).attributes
            XCTAssertEqual(attrs[kCIAttributeFilterName]?.stringValue, d.name)
            XCTAssertEqual(attrs[kCIAttributeFilterCategories]?.stringsValue, d.categories.map(\.rawValue))
            for input in d.inputs {
                let entry = try XCTUnwrap(attrs[input.key]?.dictionaryValue, "\(d.name).\(input.key)")
                XCTAssertEqual(entry[kCIAttributeClass]?.stringValue, input.valueClass.rawValue, "\(d.name).\(input.key)")
                XCTAssertEqual(entry[kCIAttributeDefault]?.filterValue, input.defaultValue, "\(d.name).\(input.key)")
                XCTAssertEqual(entry[kCIAttributeIdentity]?.filterValue, input.identity, "\(d.name).\(input.key)")
                XCTAssertEqual(entry[kCIAttributeMin]?.numberValue, input.minimum, "\(d.name).\(input.key)")
                XCTAssertEqual(entry[kCIAttributeMax]?.numberValue, input.maximum, "\(d.name).\(input.key)")
            }
        }
    }

    func testDefaultsAndSettingValues() throws {
        let f = try XCTUnwrap(Filter(named: "CISepiaTone"))
        XCTAssertEqual(f.value(forKey: "inputIntensity"), .number(1), "init sets the defaults")
        XCTAssertNil(f.value(forKey: "inputImage"))
        XCTAssertNil(f.value(forKey: "inputNothing"))

        try f.setValue(0.25, forKey: "inputIntensity")
        XCTAssertEqual(f.value(forKey: "inputIntensity"), .number(0.25))
        try f.setValue(image, forKey: kCIInputImageKey)
        XCTAssertEqual(f.value(forKey: "inputImage"), .image(image))
        try f.setValue(true, forKey: "inputIntensity")
        XCTAssertEqual(f.value(forKey: "inputIntensity"), .number(1), "a boolean given for a number is stored as 0 or 1")

        f.setDefaults()
        XCTAssertEqual(f.value(forKey: "inputIntensity"), .number(1))
        XCTAssertNil(f.value(forKey: "inputImage"), "setDefaults clears inputs without a default")

        try f.setValue(0.5, forKey: "inputIntensity")
        try f.setValue(nil, forKey: "inputIntensity")
        XCTAssertNil(f.value(forKey: "inputIntensity"), "nil clears an input")
    }

    func testTypedSettersConvertLikeCoreImage() throws {
        let color = try XCTUnwrap(Filter(named: "ConstantColorGenerator"))
        try color.setValue(Color(red: 1, green: 0.5, blue: 0), forKey: "inputColor")
        XCTAssertEqual(color.value(forKey: "inputColor"), .color(Color(red: 1, green: 0.5, blue: 0)))
        try color.setValue([0.1, 0.2, 0.3], forKey: "inputColor")
        XCTAssertEqual(color.value(forKey: "inputColor"), .color(Color(red: 0.1, green: 0.2, blue: 0.3, alpha: 1)))

        let affine = try XCTUnwrap(Filter(named: "CIAffineTransform"))
        try affine.setValue(AffineTransform(scaleX: 2, y: 3), forKey: "inputTransform")
        XCTAssertEqual(affine.value(forKey: "inputTransform"), .transform(AffineTransform(scaleX: 2, y: 3)))
        try affine.setValue([1, 0, 0, 1, 5, 6], forKey: "inputTransform")
        XCTAssertEqual(affine.value(forKey: "inputTransform"), .transform(AffineTransform(translationX: 5, y: 6)))

        let conv = try XCTUnwrap(Filter(named: "CIConvolution3X3"))
        try conv.setValue([0, 0, 0, 0, 2, 0, 0, 0, 0], forKey: "inputWeights")
        XCTAssertEqual(conv.value(forKey: "inputWeights"), .vector([0, 0, 0, 0, 2, 0, 0, 0, 0]))
    }

    func testSetValueRejectsUnknownKeysAndBadValuesNamingTheKey() throws {
        let f = try XCTUnwrap(Filter(named: "CISepiaTone"))
        func assertRejects(
            _ value: FilterValue?, _ key: String, containing text: String,
            file: StaticString = #filePath, line: UInt = #line
        ) {
            XCTAssertThrowsError(try f.setValue(value, forKey: key), file: file, line: line) { error in
                guard case let .invalidParameter(filter, k, reason)? = error as? PixelFlowError else {
                    return XCTFail("expected invalidParameter, got \(error)", file: file, line: line)
                }
                XCTAssertEqual(filter, "CISepiaTone", file: file, line: line)
                XCTAssertEqual(k, key, file: file, line: line)
                XCTAssertTrue(reason.contains(text), "\(reason) should contain \(text)", file: file, line: line)
            }
        }
        try f.setValue(0.5, forKey: "inputIntensity")
        assertRejects(.number(0.5), "inputRadius", containing: "inputIntensity")
        assertRejects(nil, "inputRadius", containing: "not an input")
        assertRejects(.number(.nan), "inputIntensity", containing: "finite")
        assertRejects(.number(.infinity), "inputIntensity", containing: "finite")
        assertRejects(.number(-0.1), "inputIntensity", containing: "at least 0")
        assertRejects(.number(1.5), "inputIntensity", containing: "at most 1")
        assertRejects(.vector([1, 2]), "inputIntensity", containing: "NSNumber")
        assertRejects(.image(image), "inputIntensity", containing: "NSNumber")
        assertRejects(.number(1), "inputImage", containing: "CIImage")
        XCTAssertEqual(f.value(forKey: "inputIntensity"), .number(0.5), "a rejected value leaves the old one")

        let conv = try XCTUnwrap(Filter(named: "CIConvolution3X3"))
        XCTAssertThrowsError(try conv.setValue([1, 2, 3], forKey: "inputWeights"))
        XCTAssertThrowsError(try conv.setValue([0, 0, 0, 0, .nan, 0, 0, 0, 0], forKey: "inputWeights"))
        let color = try XCTUnwrap(Filter(named: "CIConstantColorGenerator"))
        XCTAssertThrowsError(try color.setValue(Color(red: .nan, green: 0, blue: 0), forKey: "inputColor"))
        let affine = try XCTUnwrap(Filter(named: "CIAffineTransform"))
        XCTAssertThrowsError(
            try affine.setValue(
                AffineTransform(a: .infinity, b: 0, c: 0, d: 1, tx: 0, ty: 0),
                forKey: "inputTransform"))
    }

    func testOutputImageMatchesTheTypedMethod() throws {
        let f = try XCTUnwrap(Filter(named: "CISepiaTone"))
        try f.setValue(image, forKey: "inputImage")
        try f.setValue(0.7, forKey: "inputIntensity")
        let viaFilter = try f.outputImage()
        let typed = try image.sepiaTone(intensity: 0.7)
        XCTAssertEqual(viaFilter.extent, typed.extent)
        XCTAssertEqual(try renderRaw(viaFilter), try renderRaw(typed))
        XCTAssertNotNil(f.outputImage)

        // A cleared number takes its default.
        try f.setValue(nil, forKey: "inputIntensity")
        XCTAssertEqual(try renderRaw(f.outputImage()), try renderRaw(image.sepiaTone()))

        // A generator needs no image.
        let gen = try XCTUnwrap(Filter(named: "CIConstantColorGenerator"))
        try gen.setValue(Color.red, forKey: "inputColor")
        XCTAssertTrue(try gen.outputImage().extent.isInfinite)
    }

    func testOutputImageThrowsOrIsNilWhenItCannotBeBuilt() throws {
        let f = try XCTUnwrap(Filter(named: "CISepiaTone"))
        XCTAssertThrowsError(try f.outputImage()) { error in
            XCTAssertEqual(
                error as? PixelFlowError,
                .invalidParameter(filter: "CISepiaTone", key: "inputImage", reason: "is required (CIImage)"))
        }
        XCTAssertNil(f.outputImage, "like CIFilter.outputImage, nil when the image is missing")

        // Values within min...max that the filter itself rejects: an infinite image to scale.
        let lanczos = try XCTUnwrap(Filter(named: "CILanczosScaleTransform"))
        try lanczos.setValue(Image(color: .red), forKey: "inputImage")
        try lanczos.setValue(0.5, forKey: "inputScale")
        XCTAssertThrowsError(try lanczos.outputImage()) { error in
            guard case .invalidExtent? = error as? PixelFlowError else { return XCTFail("\(error)") }
        }
        XCTAssertNil(lanczos.outputImage)

        // A second image that is missing.
        let over = try XCTUnwrap(Filter(named: "SourceOverCompositing"))
        try over.setValue(image, forKey: "inputImage")
        XCTAssertThrowsError(try over.outputImage()) { error in
            guard case let .invalidParameter(_, key, _)? = error as? PixelFlowError else { return XCTFail("\(error)") }
            XCTAssertEqual(key, "inputBackgroundImage")
        }
    }

    func testCopyIsIndependent() throws {
        let f = try XCTUnwrap(Filter(named: "CISepiaTone"))
        try f.setValue(0.3, forKey: "inputIntensity")
        let g = f.copy()
        try g.setValue(0.9, forKey: "inputIntensity")
        XCTAssertEqual(f.value(forKey: "inputIntensity"), .number(0.3))
        XCTAssertEqual(g.value(forKey: "inputIntensity"), .number(0.9))
        XCTAssertEqual(g.name, f.name)
        XCTAssertTrue(f.description.contains("CISepiaTone") && f.description.contains("inputIntensity=0.3"), f.description)
    }

    func testFilterNamesInCategoriesIsTheIntersection() throws {
        let all = Filter.filterNames(inCategories: [])
        XCTAssertEqual(all, FilterRegistry.all.map(\.name))
        XCTAssertEqual(all, all.sorted())
        XCTAssertEqual(Filter.filterNames(), all)
        XCTAssertEqual(Filter.filterNames(inCategories: [.builtIn]), all, "every built-in filter is in CICategoryBuiltIn")

        let blur = Filter.filterNames(inCategories: [.blur])
        XCTAssertTrue(blur.contains("CIGaussianBlur"))
        XCTAssertFalse(blur.contains("CISepiaTone"))
        for category in FilterCategory.allCases {
            let names = Filter.filterNames(inCategories: [category])
            XCTAssertEqual(names, all.filter { FilterRegistry.descriptor(named: $0)!.categories.contains(category) })
            for other in [FilterCategory.highDynamicRange, .colorAdjustment, .video] {
                let both = Filter.filterNames(inCategories: [category, other])
                XCTAssertEqual(both, names.filter(Filter.filterNames(inCategories: [other]).contains), "\(category) & \(other)")
            }
        }
    }

    func testLocalizedName() {
        XCTAssertEqual(Filter.localizedName(forFilterName: "CISepiaTone"), "Sepia Tone")
        XCTAssertEqual(Filter.localizedName(forFilterName: "GaussianBlur"), "Gaussian Blur")
        XCTAssertNil(Filter.localizedName(forFilterName: "CINoSuchFilter"))
    }
}
