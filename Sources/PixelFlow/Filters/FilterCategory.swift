/// A filter category, with Core Image's name as its raw value.
public enum FilterCategory: String, Sendable, CaseIterable, Comparable {
    // Effect categories.
    /// Blurs: Gaussian, box, disc, motion, zoom and the like (`CICategoryBlur`).
    case blur = "CICategoryBlur"
    /// Adjustments of colour values: exposure, controls, matrices, curves (`CICategoryColorAdjustment`).
    case colorAdjustment = "CICategoryColorAdjustment"
    /// Colour effects: sepia, monochrome, false colour, photo effects (`CICategoryColorEffect`).
    case colorEffect = "CICategoryColorEffect"
    /// Blend modes and compositing of two images (`CICategoryCompositeOperation`).
    case compositeOperation = "CICategoryCompositeOperation"
    /// Warps that move pixels: bumps, twirls, displacement (`CICategoryDistortionEffect`).
    case distortionEffect = "CICategoryDistortionEffect"
    /// Filters that make an image from no input image: colours, patterns, codes (`CICategoryGenerator`).
    case generator = "CICategoryGenerator"
    /// Affine transforms, crops, scales and straightening (`CICategoryGeometryAdjustment`).
    case geometryAdjustment = "CICategoryGeometryAdjustment"
    /// Linear, radial and other gradients (`CICategoryGradient`).
    case gradient = "CICategoryGradient"
    /// Halftone screens: dots, lines, hatching (`CICategoryHalftoneEffect`).
    case halftoneEffect = "CICategoryHalftoneEffect"
    /// Filters that reduce an image to a few values: averages, extrema, histograms (`CICategoryReduction`).
    case reduction = "CICategoryReduction"
    /// Sharpening: unsharp mask, luminance sharpening (`CICategorySharpen`).
    case sharpen = "CICategorySharpen"
    /// Stylizing effects: pixellate, crystallize, edges, bloom (`CICategoryStylize`).
    case stylize = "CICategoryStylize"
    /// Tilings and kaleidoscopes (`CICategoryTileEffect`).
    case tileEffect = "CICategoryTileEffect"
    /// Transitions from one image to another over a time input (`CICategoryTransition`).
    case transition = "CICategoryTransition"
    // Usage categories.
    /// Usage: suited to still images (`CICategoryStillImage`).
    case stillImage = "CICategoryStillImage"
    /// Usage: suited to video frames (`CICategoryVideo`).
    case video = "CICategoryVideo"
    /// Usage: built into the library, which every PixelFlow filter is (`CICategoryBuiltIn`).
    case builtIn = "CICategoryBuiltIn"
    /// Usage: handles values outside 0...1 (`CICategoryHighDynamicRange`).
    case highDynamicRange = "CICategoryHighDynamicRange"
    /// Usage: suited to interlaced images (`CICategoryInterlaced`).
    case interlaced = "CICategoryInterlaced"
    /// Usage: suited to images with non-square pixels (`CICategoryNonSquarePixels`).
    case nonSquarePixels = "CICategoryNonSquarePixels"

    /// The effect categories (as opposed to usage categories).
    public static let effects: [FilterCategory] = [
        .blur, .colorAdjustment, .colorEffect, .compositeOperation,
        .distortionEffect, .generator, .geometryAdjustment, .gradient, .halftoneEffect, .reduction, .sharpen,
        .stylize, .tileEffect, .transition,
    ]

    /// A short name without the `CICategory` prefix, such as `ColorAdjustment`.
    public var shortName: String { String(rawValue.dropFirst("CICategory".count)) }

    /// Finds a category by its Core Image name, its short name or a case-insensitive match.
    public init?(named name: String) {
        let lower = name.lowercased()
        guard
            let c = FilterCategory.allCases.first(where: {
                $0.rawValue.lowercased() == lower || $0.shortName.lowercased() == lower
                    || String(describing: $0).lowercased() == lower
            })
        else { return nil }
        self = c
    }

    public static func < (l: FilterCategory, r: FilterCategory) -> Bool { l.rawValue < r.rawValue }
}

/// What an input means (Core Image's `kCIAttributeType`).
public enum FilterAttributeType: String, Sendable, CaseIterable {
    /// An image input (`CIAttributeTypeImage`).
    case image = "CIAttributeTypeImage"
    /// A plain number with no unit (`CIAttributeTypeScalar`).
    case scalar = "CIAttributeTypeScalar"
    /// A point in image coordinates, a 2-vector in pixels (`CIAttributeTypePosition`).
    case position = "CIAttributeTypePosition"
    /// A length in pixels, such as a radius (`CIAttributeTypeDistance`).
    case distance = "CIAttributeTypeDistance"
    /// An angle in radians (`CIAttributeTypeAngle`).
    case angle = "CIAttributeTypeAngle"
    /// A colour with alpha (`CIAttributeTypeColor`).
    case color = "CIAttributeTypeColor"
    /// A colour whose alpha is ignored (`CIAttributeTypeOpaqueColor`).
    case opaqueColor = "CIAttributeTypeOpaqueColor"
    /// A rect as a 4-vector `[x, y, width, height]` in pixels (`CIAttributeTypeRectangle`).
    case rectangle = "CIAttributeTypeRectangle"
    /// A flag (`CIAttributeTypeBoolean`).
    case boolean = "CIAttributeTypeBoolean"
    /// A whole number (`CIAttributeTypeInteger`).
    case integer = "CIAttributeTypeInteger"
    /// A whole number of things, 0 or more (`CIAttributeTypeCount`).
    case count = "CIAttributeTypeCount"
    /// A time in 0...1, the progress of a transition (`CIAttributeTypeTime`).
    case time = "CIAttributeTypeTime"
    /// A displacement, a 2-vector in pixels (`CIAttributeTypeOffset`).
    case offset = "CIAttributeTypeOffset"
    /// An affine transform (`CIAttributeTypeTransform`).
    case transform = "CIAttributeTypeTransform"
    /// A point in 3D, a 3-vector (`CIAttributeTypePosition3`).
    case position3 = "CIAttributeTypePosition3"
    /// A gradient image (`CIAttributeTypeGradient`).
    case gradient = "CIAttributeTypeGradient"
}
