extension FilterDescriptor {
    static let stylizeEdgeFilters: [FilterDescriptor] = [
        edges, sobelGradients, cannyEdgeDetector, edgeWork, lineOverlay,
        comicEffect,
    ]

    static let edges = FilterDescriptor(
        name: "CIEdges", displayName: "Edges",
        summary: "Per channel, the magnitude of the Sobel gradient times intensity; alpha 1. Edge pixels are repeated outward.",
        categories: [.stylize],
        inputs: [
            .image(),
            .number(
                "inputIntensity", default: 1, min: 0, max: 100, sliderMin: 0, sliderMax: 10,
                summary: "Scale of the gradient magnitude (a unit step gives 4 times this)."),
        ]
    ) { a in
        let k = try a.float("inputIntensity")
        return try a.image().edgeStencil(
            StencilKernel(name: "edges \(k)", haloX: 1, haloY: 1, cost: 30) { i, o, _, _ in
                edgesTile(i, o, intensity: k)
            })
    }

    static let sobelGradients = FilterDescriptor(
        name: "CISobelGradients", displayName: "Sobel Gradients",
        summary:
            "Red holds the horizontal and green the vertical Sobel gradient of the luma, raw and signed (no 0.5 offset); blue 0, alpha 1.",
        categories: [.stylize],
        inputs: [.image()]
    ) { a in
        try a.image().edgeStencil(
            StencilKernel(name: "sobelGradients", haloX: 1, haloY: 1, cost: 30) { i, o, _, _ in
                sobelGradientsTile(i, o)
            })
    }

    static let cannyEdgeDetector = FilterDescriptor(
        name: "CICannyEdgeDetector", displayName: "Canny Edge Detector",
        summary:
            "White edges on black: Gaussian, Sobel, non-maximum suppression, double threshold and a fixed number of hysteresis passes (tile-local).",
        categories: [.stylize],
        inputs: [
            .image(),
            .number(
                "inputGaussianSigma", .distance, default: 1.6, min: 0, max: 10, sliderMin: 0, sliderMax: 5,
                summary: "Standard deviation of the Gaussian applied first, in pixels."),
            .boolean(
                "inputPerceptual", default: false,
                summary: "Detect edges in the square root of the luma (closer to perceived lightness)."),
            .number(
                "inputThresholdHigh", default: 0.05, min: 0, max: 1,
                summary: "Gradient magnitude (luma per pixel) of strong edges."),
            .number(
                "inputThresholdLow", default: 0.02, min: 0, max: 1,
                summary: "Gradient magnitude of weak edges, kept when linked to strong ones."),
            .number(
                "inputHysteresisPasses", .integer, default: 1, min: 0, max: 20, sliderMin: 0, sliderMax: 10,
                summary: "Rounds of hysteresis; each links weak edges one more pixel away from strong ones."),
        ]
    ) { a in
        let sigma = try a.number("inputGaussianSigma"), perceptual = try a.number("inputPerceptual") >= 0.5
        let high = try a.float("inputThresholdHigh"), low = try a.float("inputThresholdLow")
        let passes = Int(try a.number("inputHysteresisPasses").rounded())
        let taps = GaussianPlan.exactTaps(sigma: sigma)
        let h = cannyHalo(taps: taps.count, passes: passes)
        let name = "canny \(sigma) \(perceptual) \(high) \(low) \(passes)"
        return try a.image().edgeStencil(
            StencilKernel(name: name, haloX: h, haloY: h, cost: 4 * taps.count + 40 + 10 * passes) { i, o, _, arena in
                cannyTile(i, o, taps: taps, perceptual: perceptual, high: high, low: low, passes: passes, arena: arena)
            })
    }

    static let edgeWork = FilterDescriptor(
        name: "CIEdgeWork", displayName: "Edge Work",
        summary:
            "A black and white woodcut: black where the luma is more than 0.02 below its Gaussian mean of sigma radius, white elsewhere; alpha 1.",
        categories: [.stylize],
        inputs: [
            .image(),
            .number(
                "inputRadius", .distance, default: 3, min: 0, max: 50, sliderMin: 0, sliderMax: 20,
                summary: "Standard deviation of the local mean, in pixels."),
        ]
    ) { a in
        let radius = try a.number("inputRadius")
        let image = try a.image()
        let mean = image.localMean(sigma: radius)
        let out = mean.blended(
            with: image,
            kernel: BlendKernel(name: "edgeWork", extentRule: .background) { fg, dst, n in
                for i in 0..<n {
                    let v: Float = edgeLuma(dst[i]) < edgeLuma(fg[i]) - 0.02 ? 0 : 1
                    dst[i] = SIMD4(v, v, v, 1)
                }
            })
        return out
    }

    static let lineOverlay = FilterDescriptor(
        name: "CILineOverlay", displayName: "Line Overlay",
        summary:
            "Black lines on transparent (as Core Image): noise reduction, sharpening and Sobel edges of the luma, thresholded with contrast into alpha.",
        categories: [.stylize],
        inputs: [
            .image(),
            .number(
                "inputNRNoiseLevel", default: 0.07, min: 0, max: 1, sliderMin: 0, sliderMax: 0.1,
                summary: "Luma differences below this are smoothed away first."),
            .number(
                "inputNRSharpness", default: 0.71, min: 0, max: 10, sliderMin: 0, sliderMax: 2,
                summary: "Sharpening after noise reduction."),
            .number(
                "inputEdgeIntensity", default: 1, min: 0, max: 200, sliderMin: 0, sliderMax: 200,
                summary: "Scale of the gradient magnitude."),
            .number("inputThreshold", default: 0.1, min: 0, max: 1, summary: "Edges weaker than this are dropped."),
            .number(
                "inputContrast", default: 50, min: 0.25, max: 200, sliderMin: 0.25, sliderMax: 200,
                summary: "Slope of the ramp from the threshold to opaque lines."),
        ]
    ) { a in
        let noise = try a.float("inputNRNoiseLevel"), sharp = try a.float("inputNRSharpness")
        let ei = try a.float("inputEdgeIntensity"), t = try a.float("inputThreshold"), c = try a.float("inputContrast")
        return try a.image().edgeStencil(
            StencilKernel(name: "lineOverlay \(noise) \(sharp) \(ei) \(t) \(c)", haloX: 3, haloY: 3, cost: 80) { i, o, _, arena in
                lineOverlayTile(i, o, noise: noise, sharpness: sharp, edgeIntensity: ei, threshold: t, contrast: c, arena: arena)
            })
    }

    static let comicEffect = FilterDescriptor(
        name: "CIComicEffect", displayName: "Comic Effect",
        summary: "Posterizes to 6 levels per channel and multiplies by ink: 1 - clamp((|Sobel(luma)| / 8 - 0.04) * 8, 0, 1).",
        categories: [.stylize],
        inputs: [.image()]
    ) { a in
        let image = try a.image()
        let ink = image.edgeStencil(
            StencilKernel(name: "comicInk", haloX: 1, haloY: 1, cost: 30) { i, o, _, arena in
                comicInkTile(i, o, arena: arena)
            })
        let poster = image.applyingColorKernel(
            ColorKernel(name: "posterize 6.0") { p, n in posterizeRow(p, count: n, levels: 6) })
        return ink.blended(
            with: poster,
            kernel: BlendKernel(name: "comicMultiply", extentRule: .background) { fg, dst, n in
                for i in 0..<n { dst[i] = dst[i] * SIMD4(fg[i].x, fg[i].x, fg[i].x, 1) }
            })
    }
}

extension Image {
    /// A stencil applied to the image with its edge pixels repeated outward, cropped back to
    /// its extent (infinite images directly).
    func edgeStencil(_ k: StencilKernel) -> Image {
        if extent.isInfinite { return applyingStencil(.custom(k)) }
        return clampedToExtent().applyingStencil(.custom(k)).cropped(to: extent)
    }

    /// The Gaussian mean of sigma `sigma` with edge pixels repeated, cropped to the extent;
    /// the image itself for sigma 0.
    func localMean(sigma: Double) -> Image {
        if sigma <= 0 { return self }
        if extent.isInfinite { return applyingStencil(.gaussian(sigma: sigma)) }
        return clampedToExtent().applyingStencil(.gaussian(sigma: sigma)).cropped(to: extent)
    }

    /// `CIEdges`: per channel Sobel gradient magnitude times `intensity` (default 1), alpha 1.
    public func edges(intensity: Double? = nil) throws -> Image {
        try FilterDescriptor.edges.apply(["inputImage": .image(self), "inputIntensity": intensity.map(FilterValue.number)])
    }

    /// `CISobelGradients`: `(gx, gy, 0, 1)` raw signed Sobel gradients of the luma.
    public func sobelGradients() throws -> Image {
        try FilterDescriptor.sobelGradients.apply(["inputImage": .image(self)])
    }

    /// `CICannyEdgeDetector`: white edges on black; hysteresis limited to `hysteresisPasses`.
    public func cannyEdges(
        gaussianSigma: Double? = nil, perceptual: Bool? = nil, thresholdHigh: Double? = nil,
        thresholdLow: Double? = nil, hysteresisPasses: Int? = nil
    ) throws -> Image {
        try FilterDescriptor.cannyEdgeDetector.apply([
            "inputImage": .image(self), "inputGaussianSigma": gaussianSigma.map(FilterValue.number),
            "inputPerceptual": perceptual.map { .number($0 ? 1 : 0) },
            "inputThresholdHigh": thresholdHigh.map(FilterValue.number),
            "inputThresholdLow": thresholdLow.map(FilterValue.number),
            "inputHysteresisPasses": hysteresisPasses.map { .number(Double($0)) },
        ])
    }

    /// `CIEdgeWork`: black where the luma is 0.02 below its local Gaussian mean, white elsewhere.
    public func edgeWork(radius: Double? = nil) throws -> Image {
        try FilterDescriptor.edgeWork.apply(["inputImage": .image(self), "inputRadius": radius.map(FilterValue.number)])
    }

    /// `CILineOverlay`: black edge lines on a transparent background.
    public func lineOverlay(
        noiseLevel: Double? = nil, sharpness: Double? = nil, edgeIntensity: Double? = nil,
        threshold: Double? = nil, contrast: Double? = nil
    ) throws -> Image {
        try FilterDescriptor.lineOverlay.apply([
            "inputImage": .image(self), "inputNRNoiseLevel": noiseLevel.map(FilterValue.number),
            "inputNRSharpness": sharpness.map(FilterValue.number), "inputEdgeIntensity": edgeIntensity.map(FilterValue.number),
            "inputThreshold": threshold.map(FilterValue.number), "inputContrast": contrast.map(FilterValue.number),
        ])
    }

    /// `CIComicEffect`: posterized colors with dark ink along edges.
    public func comicEffect() throws -> Image {
        try FilterDescriptor.comicEffect.apply(["inputImage": .image(self)])
    }
}
