// CIGaborGradients (a bank of two odd Gabor kernels), CIDepthOfField (a tilt-shift focus band)
// and CIShadedMaterial (a height field lit by a sphere image). Positions are top-left-origin
// pixels, y down.

extension FilterDescriptor {
    static let stylizeShadingFilters: [FilterDescriptor] = [gaborGradients, depthOfField, shadedMaterial]

    static let gaborGradients = FilterDescriptor(
        name: "CIGaborGradients", displayName: "Gabor Gradients",
        summary:
            "Gradients from 5x5 odd Gabor kernels (sigma 1.25, wavelength 6) of red, green and blue: red holds the x response of largest magnitude, green the y one (signed), blue their magnitude; alpha 1.",
        categories: [.stylize],
        inputs: [.image()]
    ) { a in
        try a.image().edgeStencil(
            StencilKernel(name: "gaborGradients", haloX: 2, haloY: 2, cost: 60) { i, o, _, _ in
                gaborGradientsTile(i, o)
            })
    }

    static let depthOfField = FilterDescriptor(
        name: "CIDepthOfField", displayName: "Depth of Field",
        summary:
            "A tilt-shift look: saturates the image, keeps it sharp (unsharp-masked) near the line through the two points and blurs it away from that line.",
        categories: [.stylize],
        inputs: [
            .image(),
            .vector(
                "inputPoint0", .position, default: [0, 300],
                summary:
                    "A point [x y] of the focus line, in pixels; the band is sharp within a quarter of the points' distance of the line."
            ),
            .vector(
                "inputPoint1", .position, default: [300, 300],
                summary: "A second point [x y] of the focus line, in pixels."),
            .number(
                "inputSaturation", default: 1.5, min: 0, max: 10, sliderMin: 0, sliderMax: 10,
                summary: "Saturation of the whole image (1 keeps it)."),
            .number(
                "inputUnsharpMaskRadius", .distance, default: 2.5, min: 0, max: 100, sliderMin: 0, sliderMax: 10,
                summary: "Standard deviation of the unsharp mask applied to the sharp band, in pixels."),
            .number(
                "inputUnsharpMaskIntensity", default: 0.5, min: 0, max: 10, sliderMin: 0, sliderMax: 10,
                summary: "Strength of the unsharp mask."),
            .number(
                "inputRadius", .distance, default: 6, min: 0, max: 100, sliderMin: 0, sliderMax: 30,
                summary: "Standard deviation of the Gaussian blur away from the band, in pixels."),
        ]
    ) { a in
        let image = try a.image()
        let p0 = try a._point("inputPoint0"), p1 = try a._point("inputPoint1")
        let saturation = try a.float("inputSaturation")
        let umRadius = try a.number("inputUnsharpMaskRadius"), umIntensity = try a.float("inputUnsharpMaskIntensity")
        let radius = try a.number("inputRadius")
        let base = image.applyingColorMatrix(.colorControls(saturation: saturation, brightness: 0, contrast: 1))
        let sharp =
            umRadius > 0 && umIntensity > 0 ? base.unsharpMasked(sigma: umRadius, intensity: umIntensity, lumaOnly: false) : base
        let blurred = base.localMean(sigma: radius)
        let band = _focusBand(p0, p1)
        let mask = Image(
            node: Node(
                .generator(
                    GeneratorKernel(name: "focus band \(p0) \(p1)", constant: nil) { x, y, count, out, _ in
                        let py = Double(y) + 0.5
                        for i in 0..<count { out[i] = SIMD4(0, 0, 0, band(Double(x + i) + 0.5, py)) }
                    }), inputs: [], extent: .infinite))
        return sharp._blended(background: blurred, mask: mask, channel: .alpha)
    }

    /// The sharpness (1 sharp, 0 blurred) at a position, for the focus line through `p0` and
    /// `p1`: with `d` the distance to the line (to `p0` when the points coincide) and
    /// `h = |p1 - p0| / 4`, 1 up to `d = h`, 0 from `d = 2h`, smoothstep between.
    static func _focusBand(_ p0: Point, _ p1: Point) -> @Sendable (Double, Double) -> Float {
        let dx = p1.x - p0.x, dy = p1.y - p0.y
        let length = (dx * dx + dy * dy).squareRoot()
        let h = length / 4
        return { x, y in
            let d =
                length > 0
                ? Swift.abs((x - p0.x) * dy - (y - p0.y) * dx) / length
                : ((x - p0.x) * (x - p0.x) + (y - p0.y) * (y - p0.y)).squareRoot()
            let t: Double = h > 0 ? Swift.min(Swift.max((d - h) / h, 0), 1) : (d > 0 ? 1 : 0)
            return Float(1 - t * t * (3 - 2 * t))
        }
    }

    static let shadedMaterial = FilterDescriptor(
        name: "CIShadedMaterial", displayName: "Shaded Material",
        summary:
            "Shades a height field (its luma; lighter is higher) with a sphere image: each pixel takes the sphere's color where the sphere's normal matches the surface's.",
        categories: [.stylize],
        inputs: [
            .image(summary: "The height field: its Rec. 709 luma is the height (CIHeightFieldFromMask makes one)."),
            .image(
                "inputShadingImage",
                summary:
                    "A picture of a lit sphere filling its (finite) extent: its center shows a flat surface, its rim surfaces facing sideways."
            ),
            .number(
                "inputScale", default: 10, min: 0, max: 1000, sliderMin: 0, sliderMax: 200,
                summary: "Height of a luma step of 1, in pixels: larger values give steeper slopes."),
        ]
    ) { a in
        let image = try a.image(), shading = try a.image("inputShadingImage")
        let scale = Float(try a.number("inputScale"))
        guard !shading.extent.isInfinite else {
            throw a.fail("inputShadingImage", "must have a finite extent (the sphere fills it); crop it first")
        }
        let se = IntRect(covering: shading.extent)
        let k = StencilKernel.reading(
            [.fixed(se)], name: "shadedMaterial s\(scale) \(se)", haloX: 1, haloY: 1, cost: 20,
            readWhole: true
        ) { inputs, out, _, _ in
            shadedMaterialTile(inputs[0], inputs[1], out, scale: scale)
        }
        if image.extent.isInfinite { return image.applyingStencil(k, reading: [shading], extent: .infinite) }
        return image.clampedToExtent().applyingStencil(k, reading: [shading], extent: .infinite).cropped(to: image.extent)
    }
}

extension Image {
    /// Gabor gradients (`CIGaborGradients`): the responses of red, green and blue to two 5x5
    /// odd Gabor kernels, `exp(-(dx^2 + dy^2) / (2 * 1.25^2)) sin(2 pi dx / 6)` and its
    /// transpose, scaled so that a ramp of slope 1 gives 1. The output's red is the x response
    /// of largest magnitude among the three channels (signed), green the y one, blue
    /// `sqrt(red^2 + green^2)` (the gradient's magnitude; its direction is `atan2(green, red)`),
    /// alpha 1. Edge pixels are repeated outward.
    ///
    /// - Complexity: 50 four-lane multiply-adds per pixel.
    public func gaborGradients() throws -> Image {
        try FilterDescriptor.gaborGradients.apply(["inputImage": .image(self)])
    }

    /// A tilt-shift depth of field (`CIDepthOfField`): the image, saturated by `saturation`, is
    /// unsharp-masked (`unsharpMaskRadius`, `unsharpMaskIntensity`) near the line through
    /// `point0` and `point1` and Gaussian-blurred by `radius` away from it. With `h` a quarter of
    /// the points' distance, pixels within `h` of the line are sharp, from `2h` blurred, with a
    /// smoothstep between. Core Image does not publish its band's shape; this is PixelFlow's.
    ///
    /// - Complexity: a Gaussian blur, an unsharp mask and a few point operations per pixel.
    public func depthOfField(
        point0: Point? = nil, point1: Point? = nil, saturation: Double? = nil,
        unsharpMaskRadius: Double? = nil, unsharpMaskIntensity: Double? = nil,
        radius: Double? = nil
    ) throws -> Image {
        try FilterDescriptor.depthOfField.apply([
            "inputImage": .image(self), "inputPoint0": point0.map(FilterValue.point),
            "inputPoint1": point1.map(FilterValue.point),
            "inputSaturation": saturation.map(FilterValue.number),
            "inputUnsharpMaskRadius": unsharpMaskRadius.map(FilterValue.number),
            "inputUnsharpMaskIntensity": unsharpMaskIntensity.map(FilterValue.number),
            "inputRadius": radius.map(FilterValue.number),
        ])
    }

    /// Shades this height field with a sphere image (`CIShadedMaterial`): the height is the
    /// Rec. 709 luma; its central differences times `scale` give the normal
    /// `n = normalize(-scale dh/dx, -scale dh/dy, 1)`, and the pixel takes `shading` sampled at
    /// `c + R (n.x, n.y)` (`c` the center of its extent, `R` half its smaller side less half a
    /// pixel), times the height field's alpha.
    ///
    /// - Throws: `invalidParameter` when `shading` has an infinite extent.
    /// - Complexity: five reads and a bilinear sample per pixel; every tile reads the whole
    ///   shading image, so keep it small.
    public func shadedMaterial(shading: Image, scale: Double? = nil) throws -> Image {
        try FilterDescriptor.shadedMaterial.apply([
            "inputImage": .image(self), "inputShadingImage": .image(shading),
            "inputScale": scale.map(FilterValue.number),
        ])
    }
}
