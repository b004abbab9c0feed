// Compositing filters of the foundation, on premultiplied pixels (W3C Compositing and
// Blending Level 1, Porter-Duff operators).

extension FilterDescriptor {
    static let compositeFilters: [FilterDescriptor] = [sourceOverCompositing, sourceAtopCompositing, mix]

    static let sourceOverCompositing = FilterDescriptor(
        name: "CISourceOverCompositing", displayName: "Source Over",
        summary: "Places the image over the background: image + background * (1 - image.alpha).",
        categories: [.compositeOperation, .highDynamicRange],
        inputs: [.image(), .image("inputBackgroundImage", summary: "The image underneath.")]
    ) { a in
        try a.image().composited(over: try a.image("inputBackgroundImage"))
    }

    static let sourceAtopCompositing = FilterDescriptor(
        name: "CISourceAtopCompositing", displayName: "Source Atop",
        summary: "Places the image over the background only where the background is opaque; keeps the background's alpha.",
        categories: [.compositeOperation, .highDynamicRange],
        inputs: [.image(), .image("inputBackgroundImage", summary: "The image underneath.")]
    ) { a in
        try a.image().blended(
            with: try a.image("inputBackgroundImage"),
            kernel: BuiltinBlend.sourceAtop.kernel(name: "sourceAtop", extentRule: .background))
    }

    static let mix = FilterDescriptor(
        name: "CIMix", displayName: "Mix",
        summary: "Mixes the image with the background linearly: background + (image - background) * amount.",
        categories: [.stylize, .highDynamicRange],
        inputs: [
            .image(), .image("inputBackgroundImage", summary: "The image to mix with."),
            .number("inputAmount", default: 1, min: 0, max: 1, summary: "0 gives the background, 1 the image."),
        ]
    ) { a in
        let t = try a.float("inputAmount")
        return try a.image().blended(
            with: try a.image("inputBackgroundImage"),
            kernel: BuiltinBlend.mix(amount: t).kernel(name: "mix \(t)", extentRule: .union))
    }
}

extension Image {
    /// Composites the image atop `background` (`CISourceAtopCompositing`).
    public func composited(atop background: Image) throws -> Image {
        try FilterDescriptor.sourceAtopCompositing.apply(["inputImage": .image(self), "inputBackgroundImage": .image(background)])
    }

    /// Mixes the image with `background` by `amount` (`CIMix`): 0 gives the background, 1 the image.
    public func mixed(with background: Image, amount: Double? = nil) throws -> Image {
        try FilterDescriptor.mix.apply([
            "inputImage": .image(self), "inputBackgroundImage": .image(background),
            "inputAmount": amount.map(FilterValue.number),
        ])
    }
}
