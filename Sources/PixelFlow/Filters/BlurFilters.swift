extension FilterDescriptor {
    static let blurFilters: [FilterDescriptor] = [gaussianBlur]

    static let gaussianBlur = FilterDescriptor(
        name: "CIGaussianBlur", displayName: "Gaussian Blur",
        summary: "Blurs with a Gaussian of standard deviation radius; outside the extent counts as transparent.",
        categories: [.blur],
        inputs: [
            .image(),
            .number(
                "inputRadius", .distance, default: 10, identity: 0, min: 0, max: 1000,
                sliderMin: 0, sliderMax: 100, summary: "Standard deviation in pixels."),
        ]
    ) { a in
        let r = try a.number("inputRadius")
        let image = try a.image()
        if r == 0 { return image }
        return image.applyingStencil(.gaussian(sigma: r))
    }
}

extension Image {
    /// Blurs with a Gaussian of standard deviation `radius` pixels (`CIGaussianBlur`). The
    /// extent grows by the blur's reach; pixels outside the input count as transparent, so
    /// blur `clampedToExtent()` and crop back to avoid dark edges.
    ///
    /// - Parameter radius: 0...1000 (default 10).
    /// - Complexity: exact separable taps (6 sigma + 1 per axis) up to sigma 12; above, four
    ///   box passes per axis whose cost per pixel does not depend on the radius.
    public func gaussianBlurred(radius: Double? = nil) throws -> Image {
        try FilterDescriptor.gaussianBlur.apply(["inputImage": .image(self), "inputRadius": radius.map(FilterValue.number)])
    }
}
