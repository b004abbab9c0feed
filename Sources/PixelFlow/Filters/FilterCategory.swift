/// A filter category, with Core Image's name as its raw value.
public enum FilterCategory: String, Sendable, CaseIterable, Comparable {
    // Effect categories.
    case blur = "CICategoryBlur"
    case colorAdjustment = "CICategoryColorAdjustment"
    case colorEffect = "CICategoryColorEffect"
    case compositeOperation = "CICategoryCompositeOperation"
    case distortionEffect = "CICategoryDistortionEffect"
    case generator = "CICategoryGenerator"
    case geometryAdjustment = "CICategoryGeometryAdjustment"
    case gradient = "CICategoryGradient"
    case halftoneEffect = "CICategoryHalftoneEffect"
    case reduction = "CICategoryReduction"
    case sharpen = "CICategorySharpen"
    case stylize = "CICategoryStylize"
    case tileEffect = "CICategoryTileEffect"
    case transition = "CICategoryTransition"
    // Usage categories.
    case stillImage = "CICategoryStillImage"
    case video = "CICategoryVideo"
    case builtIn = "CICategoryBuiltIn"
    case highDynamicRange = "CICategoryHighDynamicRange"
    case interlaced = "CICategoryInterlaced"
    case nonSquarePixels = "CICategoryNonSquarePixels"

    /// The effect categories (as opposed to usage categories).
    public static let effects: [FilterCategory] = [.blur, .colorAdjustment, .colorEffect, .compositeOperation,
        .distortionEffect, .generator, .geometryAdjustment, .gradient, .halftoneEffect, .reduction, .sharpen,
        .stylize, .tileEffect, .transition]

    /// A short name without the `CICategory` prefix, such as `ColorAdjustment`.
    public var shortName: String { String(rawValue.dropFirst("CICategory".count)) }

    /// Finds a category by its Core Image name, its short name or a case-insensitive match.
    public init?(named name: String) {
        let lower = name.lowercased()
        guard let c = FilterCategory.allCases.first(where: {
            $0.rawValue.lowercased() == lower || $0.shortName.lowercased() == lower
                || String(describing: $0).lowercased() == lower
        }) else { return nil }
        self = c
    }

    public static func < (l: FilterCategory, r: FilterCategory) -> Bool { l.rawValue < r.rawValue }
}

/// What an input means (Core Image's `kCIAttributeType`).
public enum FilterAttributeType: String, Sendable, CaseIterable {
    case image = "CIAttributeTypeImage"
    case scalar = "CIAttributeTypeScalar"
    case position = "CIAttributeTypePosition"
    case distance = "CIAttributeTypeDistance"
    case angle = "CIAttributeTypeAngle"
    case color = "CIAttributeTypeColor"
    case opaqueColor = "CIAttributeTypeOpaqueColor"
    case rectangle = "CIAttributeTypeRectangle"
    case boolean = "CIAttributeTypeBoolean"
    case integer = "CIAttributeTypeInteger"
    case count = "CIAttributeTypeCount"
    case time = "CIAttributeTypeTime"
    case offset = "CIAttributeTypeOffset"
    case transform = "CIAttributeTypeTransform"
    case position3 = "CIAttributeTypePosition3"
    case gradient = "CIAttributeTypeGradient"
}
