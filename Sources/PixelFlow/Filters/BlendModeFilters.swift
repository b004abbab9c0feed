// Core Image's composite operations beyond source-over and source-atop (CompositeFilters.swift):
// the component-wise operators (addition, maximum, minimum, multiply), Porter-Duff source-in
// and source-out, and the 22 blend modes. Kernels: Kernels/BlendModeKernels.swift.
//
// References: W3C Compositing and Blending Level 1 (https://www.w3.org/TR/compositing-1/),
// sections 9.1.4 (general formula), 10.1 (separable modes), 10.2 (non-separable modes);
// T. Porter and T. Duff, "Compositing Digital Images", SIGGRAPH 1984 (in, out); Apple's Core
// Image Filter Reference for the modes the W3C does not define (linear burn, linear dodge,
// linear light, pin light, vivid light, divide, subtract).

/// A blend mode: how a foreground color `Cs` and a background color `Cb` combine where both
/// images are present, as a function `B(Cb, Cs)` of straight (unpremultiplied) colors.
///
/// Every mode composites with the W3C general formula, on premultiplied colors `cs`, `cb`
/// with alphas `as`, `ab`:
///
///     co = cs * (1 - ab) + cb * (1 - as) + as * ab * B(Cb, Cs)
///     ao = as + ab - as * ab
///
/// so where only one image is present the result is that image, and the extent of a blend
/// is the union of both extents. Each case is one Core Image filter, `CI<Mode>BlendMode`.
///
/// ```swift
/// let shaded = try texture.blended(over: photo, mode: .multiply)
/// let same = try FilterRegistry.apply("CIMultiplyBlendMode",
///                                     ["inputImage": .image(texture), "inputBackgroundImage": .image(photo)])
/// ```
public enum BlendMode: String, CaseIterable, Sendable {
    /// `SetLum(Cs, Lum(Cb))`: the foreground's hue and saturation with the background's luminosity.
    case color
    /// `1 - min(1, (1 - Cb) / Cs)`; 1 where `Cb = 1`, 0 where `Cs = 0`.
    case colorBurn
    /// `min(1, Cb / (1 - Cs))`; 0 where `Cb = 0`, 1 where `Cs = 1`.
    case colorDodge
    /// `min(Cb, Cs)`.
    case darken
    /// `|Cb - Cs|`.
    case difference
    /// `Cb / Cs`, and 1 where `Cs = 0`; not clamped.
    case divide
    /// `Cb + Cs - 2 * Cb * Cs`.
    case exclusion
    /// `Cb * 2Cs` where `Cs <= 0.5`, else `screen(Cb, 2Cs - 1)`.
    case hardLight
    /// `SetLum(SetSat(Cs, Sat(Cb)), Lum(Cb))`: the foreground's hue.
    case hue
    /// `max(Cb, Cs)`.
    case lighten
    /// `Cb + Cs - 1`; not clamped.
    case linearBurn
    /// `Cb + Cs`; not clamped.
    case linearDodge
    /// `Cb + 2 * Cs - 1`; not clamped.
    case linearLight
    /// `SetLum(Cb, Lum(Cs))`: the background's hue and saturation with the foreground's luminosity.
    case luminosity
    /// `Cb * Cs`.
    case multiply
    /// `hardLight(Cs, Cb)`: hard light with the roles of the images swapped.
    case overlay
    /// `min(Cb, 2Cs)` where `Cs <= 0.5`, else `max(Cb, 2Cs - 1)`.
    case pinLight
    /// `SetLum(SetSat(Cb, Sat(Cs)), Lum(Cb))`: the foreground's saturation.
    case saturation
    /// `Cb + Cs - Cb * Cs`.
    case screen
    /// W3C soft light: darkens like burning where `Cs <= 0.5`, lightens like dodging above.
    case softLight
    /// `max(Cb - Cs, 0)`.
    case subtract
    /// `colorBurn(Cb, 2Cs)` where `Cs <= 0.5`, else `colorDodge(Cb, 2Cs - 1)`.
    case vividLight

    /// Core Image's filter name, such as `CIMultiplyBlendMode`.
    public var filterName: String { "CI" + rawValue.prefix(1).uppercased() + rawValue.dropFirst() + "BlendMode" }

    /// The filter's descriptor (name, inputs, categories), as registered.
    public var descriptor: FilterDescriptor {
        // Every case has an entry: the table is built from `allCases`.
        FilterDescriptor.blendModeDescriptors[self]!
    }

    /// `Color Burn Blend Mode`, as Core Image displays it.
    var displayName: String {
        var words = ""
        for ch in rawValue {
            if ch.isUppercase { words.append(" ") }
            words.append(ch)
        }
        return words.prefix(1).uppercased() + words.dropFirst() + " Blend Mode"
    }

    /// One line saying what the mode does.
    var summary: String {
        switch self {
        case .color: return "Uses the luminosity of the background with the hue and saturation of the image."
        case .colorBurn: return "Darkens the background to reflect the image: 1 - (1 - background) / image, at least 0."
        case .colorDodge: return "Brightens the background to reflect the image: background / (1 - image), at most 1."
        case .darken: return "Keeps the darker of the image and the background, channel by channel."
        case .difference: return "Subtracts the darker of the image and the background from the lighter: |background - image|."
        case .divide: return "Divides the background by the image; 1 where the image is 0."
        case .exclusion: return "Like difference with lower contrast: background + image - 2 * background * image."
        case .hardLight: return "Multiplies or screens the background depending on the image, as a harsh spotlight would."
        case .hue: return "Uses the hue of the image with the saturation and luminosity of the background."
        case .lighten: return "Keeps the lighter of the image and the background, channel by channel."
        case .linearBurn: return "Darkens the background by the image's darkness: background + image - 1."
        case .linearDodge: return "Brightens the background by the image: background + image."
        case .linearLight: return "Burns or dodges by changing brightness depending on the image: background + 2 * image - 1."
        case .luminosity: return "Uses the luminosity of the image with the hue and saturation of the background."
        case .multiply: return "Multiplies the image by the background; the result is never lighter than either."
        case .overlay:
            return "Multiplies or screens the image depending on the background, keeping the background's highlights and shadows."
        case .pinLight:
            return "Keeps the background where it lies between 2 * image - 1 and 2 * image, else the nearer of the two."
        case .saturation: return "Uses the saturation of the image with the hue and luminosity of the background."
        case .screen: return "Multiplies the inverses of the image and the background: 1 - (1 - background) * (1 - image)."
        case .softLight: return "Darkens or lightens the background depending on the image, as a diffused spotlight would."
        case .subtract: return "Subtracts the image from the background, at least 0."
        case .vividLight:
            return "Burns or dodges by changing contrast depending on the image: color burn below 0.5, color dodge above."
        }
    }

    /// The row kernel computing this mode (Kernels/BlendModeKernels.swift).
    var kernel: BlendKernel {
        let row: @Sendable (UnsafePointer<SIMD4<Float>>, UnsafeMutablePointer<SIMD4<Float>>, Int) -> Void
        switch self {
        case .color: row = colorBlendRow
        case .colorBurn: row = colorBurnBlendRow
        case .colorDodge: row = colorDodgeBlendRow
        case .darken: row = darkenBlendRow
        case .difference: row = differenceBlendRow
        case .divide: row = divideBlendRow
        case .exclusion: row = exclusionBlendRow
        case .hardLight: row = hardLightBlendRow
        case .hue: row = hueBlendRow
        case .lighten: row = lightenBlendRow
        case .linearBurn: row = linearBurnBlendRow
        case .linearDodge: row = linearDodgeBlendRow
        case .linearLight: row = linearLightBlendRow
        case .luminosity: row = luminosityBlendRow
        case .multiply: row = multiplyBlendRow
        case .overlay: row = overlayBlendRow
        case .pinLight: row = pinLightBlendRow
        case .saturation: row = saturationBlendRow
        case .screen: row = screenBlendRow
        case .softLight: row = softLightBlendRow
        case .subtract: row = subtractBlendRow
        case .vividLight: row = vividLightBlendRow
        }
        let bytes: ByteBlendFormula? = self == .multiply ? .multiply : self == .screen ? .screen : nil
        return BlendKernel(name: rawValue + "Blend", extentRule: .union, byteFormula: bytes, apply: row)
    }
}

extension FilterDescriptor {
    /// The composite operations declared in this file, registered in `builtIn`.
    static let blendModeFilters: [FilterDescriptor] =
        [
            additionCompositing, maximumCompositing, minimumCompositing, multiplyCompositing,
            sourceInCompositing, sourceOutCompositing,
        ] + BlendMode.allCases.map { $0.descriptor }

    /// One descriptor per blend mode, built from the mode's metadata.
    static let blendModeDescriptors: [BlendMode: FilterDescriptor] = {
        var table: [BlendMode: FilterDescriptor] = [:]
        for mode in BlendMode.allCases {
            table[mode] = FilterDescriptor(
                name: mode.filterName, displayName: mode.displayName, summary: mode.summary,
                categories: [.compositeOperation],
                inputs: [
                    .image(summary: "The foreground image, blended onto the background."),
                    .image("inputBackgroundImage", summary: "The image underneath."),
                ]
            ) { a in
                try a.image().blended(with: try a.image("inputBackgroundImage"), kernel: mode.kernel)
            }
        }
        return table
    }()

    /// A two-image composite operation with Core Image's keys.
    private static func compositeOperation(
        _ name: String, _ displayName: String, _ summary: String, kernel kernelName: String,
        extentRule: BlendKernel.ExtentRule, bytes: ByteBlendFormula? = nil,
        _ row: @escaping @Sendable (UnsafePointer<SIMD4<Float>>, UnsafeMutablePointer<SIMD4<Float>>, Int) -> Void
    ) -> FilterDescriptor {
        FilterDescriptor(
            name: name, displayName: displayName, summary: summary,
            categories: [.compositeOperation, .highDynamicRange],
            inputs: [.image(summary: "The foreground image."), .image("inputBackgroundImage", summary: "The image underneath.")]
        ) { a in
            try a.image().blended(
                with: try a.image("inputBackgroundImage"),
                kernel: BlendKernel(name: kernelName, extentRule: extentRule, byteFormula: bytes, apply: row))
        }
    }

    static let additionCompositing = compositeOperation(
        "CIAdditionCompositing", "Addition",
        "Adds the image and the background, all four premultiplied channels, without clamping.",
        kernel: "componentAdd", extentRule: .union, additionCompositeRow)

    static let maximumCompositing = compositeOperation(
        "CIMaximumCompositing", "Maximum",
        "Keeps the larger of the image and the background in each premultiplied channel, alpha included.",
        kernel: "componentMax", extentRule: .union, maximumCompositeRow)

    static let minimumCompositing = compositeOperation(
        "CIMinimumCompositing", "Minimum",
        "Keeps the smaller of the image and the background in each premultiplied channel, alpha included.",
        kernel: "componentMin", extentRule: .union, minimumCompositeRow)

    static let multiplyCompositing = compositeOperation(
        "CIMultiplyCompositing", "Multiply",
        "Multiplies the image by the background in each premultiplied channel, alpha included.",
        kernel: "componentMultiply", extentRule: .union, bytes: .componentMultiply, multiplyCompositeRow)

    static let sourceInCompositing = compositeOperation(
        "CISourceInCompositing", "Source In",
        "Keeps the image only where the background is: image * background.alpha.",
        kernel: "sourceIn", extentRule: .intersection, bytes: .sourceIn, sourceInRow)

    static let sourceOutCompositing = compositeOperation(
        "CISourceOutCompositing", "Source Out",
        "Keeps the image only where the background is not: image * (1 - background.alpha).",
        kernel: "sourceOut", extentRule: .foreground, bytes: .sourceOut, sourceOutRow)
}

extension Image {
    /// Blends the image onto `background` with `mode` (`CI<Mode>BlendMode`).
    ///
    /// ```swift
    /// let shaded = try texture.blended(over: photo, mode: .softLight)
    /// ```
    ///
    /// With premultiplied colors `cs` (this image) and `cb` (the background), alphas `as`, `ab`
    /// and straight colors `Cs = cs / as`, `Cb = cb / ab`, the result is
    /// `cs * (1 - ab) + cb * (1 - as) + as * ab * B(Cb, Cs)` with alpha `as + ab - as * ab`,
    /// where `B` is the mode's function (see `BlendMode`). Where only one image is present the
    /// result is that image; the extent is the union of the two extents. Values are those of
    /// the working space (linear light unless the context has no color management) and are
    /// not clamped unless the mode's formula clamps.
    ///
    /// - Parameters:
    ///   - background: the backdrop (`inputBackgroundImage`).
    ///   - mode: the blend function.
    /// - Returns: the blended image; nothing is computed until it is rendered.
    /// - Complexity: O(1) to build. Per pixel when rendered: a few multiply-adds for the modes
    ///   that work on premultiplied values (multiply, screen, darken, lighten, difference,
    ///   exclusion, linear burn/dodge/light, pin light, subtract), plus two divisions for the
    ///   others (one for divide); no scratch memory beyond the tile of each input.
    /// - SeeAlso: W3C Compositing and Blending Level 1, sections 9.1.4, 10.1 and 10.2.
    public func blended(over background: Image, mode: BlendMode) throws -> Image {
        try mode.descriptor.apply(["inputImage": .image(self), "inputBackgroundImage": .image(background)])
    }

    /// Adds the image and `background` (`CIAdditionCompositing`): `fg + bg` on all four
    /// premultiplied channels, unclamped, so alphas and colors may exceed 1.
    ///
    /// The extent is the union of the two extents.
    /// - Complexity: one addition per channel per pixel.
    public func added(to background: Image) throws -> Image {
        try FilterDescriptor.additionCompositing.apply(["inputImage": .image(self), "inputBackgroundImage": .image(background)])
    }

    /// The per-channel maximum of the image and `background` (`CIMaximumCompositing`), on
    /// premultiplied values, alpha included.
    ///
    /// The extent is the union of the two extents.
    /// - Complexity: one comparison per channel per pixel.
    public func componentwiseMaximum(with background: Image) throws -> Image {
        try FilterDescriptor.maximumCompositing.apply(["inputImage": .image(self), "inputBackgroundImage": .image(background)])
    }

    /// The per-channel minimum of the image and `background` (`CIMinimumCompositing`), on
    /// premultiplied values, alpha included.
    ///
    /// The extent is the union of the two extents; outside their intersection the result is
    /// transparent (for non-negative values).
    /// - Complexity: one comparison per channel per pixel.
    public func componentwiseMinimum(with background: Image) throws -> Image {
        try FilterDescriptor.minimumCompositing.apply(["inputImage": .image(self), "inputBackgroundImage": .image(background)])
    }

    /// The image multiplied by `background` (`CIMultiplyCompositing`): `fg * bg` on all four
    /// premultiplied channels, alpha included.
    ///
    /// Unlike `blended(over:mode: .multiply)`, which keeps each image where the other is
    /// transparent, this is transparent wherever either image is. The extent is the union of
    /// the two extents, as in Core Image.
    /// - Complexity: one multiplication per channel per pixel.
    public func multiplied(by background: Image) throws -> Image {
        try FilterDescriptor.multiplyCompositing.apply(["inputImage": .image(self), "inputBackgroundImage": .image(background)])
    }

    /// The image kept only where `background` is (`CISourceInCompositing`, Porter-Duff
    /// "source in"): `fg * bg.alpha`.
    ///
    /// The background's colors do not show; only its alpha masks the image. The extent is the
    /// intersection of the two extents.
    /// - Complexity: four multiplications per pixel.
    public func composited(inside background: Image) throws -> Image {
        try FilterDescriptor.sourceInCompositing.apply(["inputImage": .image(self), "inputBackgroundImage": .image(background)])
    }

    /// The image kept only where `background` is not (`CISourceOutCompositing`, Porter-Duff
    /// "source out"): `fg * (1 - bg.alpha)`.
    ///
    /// The background's colors do not show. The extent is the image's extent.
    /// - Complexity: four multiplications per pixel.
    public func composited(outside background: Image) throws -> Image {
        try FilterDescriptor.sourceOutCompositing.apply(["inputImage": .image(self), "inputBackgroundImage": .image(background)])
    }
}
