// Geometry filters of the foundation: crop, affine transform and Lanczos scaling.

extension FilterDescriptor {
    static let geometryFilters: [FilterDescriptor] = [crop, affineTransform, lanczosScaleTransform]

    static let crop = FilterDescriptor(
        name: "CICrop", displayName: "Crop",
        summary: "Restricts the image to a rectangle; transparent outside it.",
        categories: [.geometryAdjustment],
        inputs: [
            .image(),
            .vector(
                "inputRectangle", .rectangle, default: [0, 0, 300, 300],
                summary: "The rectangle [x y width height] to keep, in pixels."),
        ]
    ) { a in
        let r = try a.vector("inputRectangle")
        return try a.image().cropped(to: Rect(x: r[0], y: r[1], width: r[2], height: r[3]))
    }

    static let affineTransform = FilterDescriptor(
        name: "CIAffineTransform", displayName: "Affine Transform",
        summary: "Moves, scales, rotates or shears the image with an affine transform and bilinear sampling.",
        categories: [.geometryAdjustment],
        inputs: [
            .image(),
            .transform(
                "inputTransform", default: .identity,
                summary: "Maps input coordinates to output coordinates: [a b c d tx ty]."),
        ]
    ) { a in
        try a.image().transformed(by: try a.transform("inputTransform"))
    }

    static let lanczosScaleTransform = FilterDescriptor(
        name: "CILanczosScaleTransform", displayName: "Lanczos Scale Transform",
        summary: "Scales the image with antialiased Lanczos-3 resampling (the support widens when shrinking).",
        categories: [.geometryAdjustment],
        inputs: [
            .image(),
            .number(
                "inputScale", default: 1, identity: 1, min: 0.001, max: 64, sliderMin: 0.05, sliderMax: 1.5,
                summary: "The vertical scale factor."),
            .number(
                "inputAspectRatio", default: 1, identity: 1, min: 0.001, max: 64, sliderMin: 0.05, sliderMax: 2,
                summary: "The horizontal scale divided by the vertical one."),
        ]
    ) { a in
        let s = try a.number("inputScale"), r = try a.number("inputAspectRatio")
        let image = try a.image()
        guard s > 0 else { throw a.fail("inputScale", "must be above 0, got \(s)") }
        guard r > 0 else { throw a.fail("inputAspectRatio", "must be above 0, got \(r)") }
        let e = image.extent
        guard !e.isInfinite else {
            throw PixelFlowError.invalidExtent("CILanczosScaleTransform needs a finite extent; crop the image first")
        }
        let ie = IntRect(covering: e)
        if ie.isEmpty || (s == 1 && r == 1) { return image }
        let sx = s * r, sy = s
        let ow = Swift.max(1, Int((Double(ie.width) * sx).rounded())), oh = Swift.max(1, Int((Double(ie.height) * sy).rounded()))
        guard ow <= 1 << 24, oh <= 1 << 24 else {
            throw PixelFlowError.limitExceeded(what: "scaled size", value: Swift.max(ow, oh), limit: 1 << 24)
        }
        let out = IntRect(x: Int((Double(ie.x) * sx).rounded()), y: Int((Double(ie.y) * sy).rounded()), width: ow, height: oh)
        return Image(node: Node(.warp(.lanczos(output: out)), inputs: [image.node], extent: out.rect))
    }
}

extension Image {
    /// Scales by `scale` vertically and `scale * aspectRatio` horizontally with antialiased
    /// Lanczos-3 resampling (`CILanczosScaleTransform`). The output size is the input's times
    /// the factors, rounded to whole pixels.
    ///
    /// - Complexity: about 6 x max(1, 1/scale) taps per axis per output pixel.
    public func lanczosScaled(scale: Double? = nil, aspectRatio: Double? = nil) throws -> Image {
        try FilterDescriptor.lanczosScaleTransform.apply([
            "inputImage": .image(self), "inputScale": scale.map(FilterValue.number),
            "inputAspectRatio": aspectRatio.map(FilterValue.number),
        ])
    }
}
