/// The catalog of named filters.
///
/// ```swift
/// FilterRegistry.filterNames(inCategories: [.colorAdjustment])
/// let sepia = FilterRegistry.descriptor(named: "CISepiaTone")   // or "SepiaTone"
/// ```
public enum FilterRegistry {
    /// Every registered descriptor, sorted by name.
    public static let all: [FilterDescriptor] = FilterDescriptor.builtIn.sorted { $0.name < $1.name }

    private static let byName: [String: FilterDescriptor] = {
        var d: [String: FilterDescriptor] = [:]
        for f in all { d[f.name] = f }
        return d
    }()

    /// The descriptor called `name`: Core Image's name (`CISepiaTone`) or the same without
    /// its `CI` prefix (`SepiaTone`).
    public static func descriptor(named name: String) -> FilterDescriptor? {
        if let f = byName[name] { return f }
        if let f = byName["CI" + name] { return f }
        if let f = byName["PF" + name] { return f }
        return nil
    }

    /// Names of the filters in every one of `categories` (their intersection); all names when
    /// `categories` is empty.
    public static func filterNames(inCategories categories: [FilterCategory] = []) -> [String] {
        all.filter { f in categories.allSatisfy(f.categories.contains) }.map(\.name)
    }

    /// Builds the named filter's output from `values`.
    public static func apply(_ name: String, _ values: [String: FilterValue?]) throws -> Image {
        guard let d = descriptor(named: name) else { throw PixelFlowError.unknownFilter(name) }
        return try d.apply(values)
    }
}

extension FilterDescriptor {
    /// Every built-in descriptor; each filter family file adds its own list.
    static var builtIn: [FilterDescriptor] {
        colorAdjustmentFilters + compositeFilters + generatorFilters + geometryFilters + blurFilters + stylizeFilters
            + blendModeFilters + reductionFilters + qrCodeFilters + roundedQRCodeFilters + code128Filters + pdf417Filters
            + aztecFilters + barcodeFilters + textFilters + toneMapFilters
            + colorCurveFilters + colorBalanceFilters + colorSpaceFilters + colorCubeFilters + colorSpaceLookupFilters
            + colorEffectFilters
            + photoEffectFilters
            + shapeGeneratorFilters + lightGeneratorFilters + gradientFilters + transitionFilters
            + perspectiveFilters + distortionFilters + tileFilters + halftoneFilters + scaleFilters
            + boxBlurFilters + motionBlurFilters + morphologyFilters + medianFilters + sharpenFilters + convolutionSizeFilters
            + stylizeEdgeFilters + stylizeToneFilters
            + stylizeMaskFilters + stylizeCellFilters + stylizeGlowFilters
            + displacementFilters + guidedFilters + perspectiveRotateFilters + stylizeShadingFilters
    }
}
