extension FilterDescriptor {
    static let stylizeToneFilters: [FilterDescriptor] = [highlightShadowAdjust, heightFieldFromMask, spotLight]

    static let highlightShadowAdjust = FilterDescriptor(
        name: "CIHighlightShadowAdjust", displayName: "Highlight and Shadow Adjust",
        summary:
            "Scales RGB by l2 / l, where l is the luma and m its local mean (m = l at radius 0): l1 = l + 2 shadow ws l (1 - l), l2 = l1 - 2 (1 - highlight) wh l1 (1 - l1), ws = max(0, 1 - 2m)^2, wh = max(0, 2m - 1)^2.",
        categories: [.stylize],
        inputs: [
            .image(),
            .number(
                "inputRadius", .distance, default: 0, min: 0, max: 100, sliderMin: 0, sliderMax: 10,
                summary: "Standard deviation of the Gaussian local mean of the luma; 0 uses each pixel's own luma."),
            .number(
                "inputShadowAmount", default: 0, identity: 0, min: -1, max: 1,
                summary: "Lightens (positive) or darkens (negative) the shadows."),
            .number(
                "inputHighlightAmount", default: 1, identity: 1, min: 0, max: 1,
                summary: "1 keeps the highlights; lower values darken them."),
        ]
    ) { a in
        let radius = try a.number("inputRadius"), s = try a.float("inputShadowAmount"), h = try a.float("inputHighlightAmount")
        let image = try a.image()
        if s == 0 && h == 1 { return image }
        return image.localMean(sigma: radius).blended(
            with: image,
            kernel: BlendKernel(
                name: "highlightShadow \(s) \(h)",
                extentRule: .background
            ) { fg, dst, n in
                for i in 0..<n { dst[i] = highlightShadowPixel(dst[i], mean: fg[i], shadow: s, highlight: h) }
            })
    }

    static let heightFieldFromMask = FilterDescriptor(
        name: "CIHeightFieldFromMask", displayName: "Height Field From Mask",
        summary:
            "A grey height field: the premultiplied luma of the mask, Gaussian-blurred with edge pixels repeated, mapped by h = clamp(2 b - 1, 0, 1) (0 at the mask's edge, 1 deep inside); alpha 1.",
        categories: [.stylize],
        inputs: [
            .image(),
            .number(
                "inputRadius", .distance, default: 10, min: 0, max: 100, sliderMin: 0, sliderMax: 100,
                summary: "Standard deviation of the blur, in pixels."),
        ]
    ) { a in
        let radius = try a.number("inputRadius")
        let grey = try a.image().applyingColorKernel(
            ColorKernel(name: "maskLuma") { p, n in
                for i in 0..<n {
                    let l = edgeLuma(p[i]) * p[i].w
                    p[i] = SIMD4(l, l, l, 1)
                }
            })
        return grey.localMean(sigma: radius).applyingColorKernel(
            ColorKernel(name: "heightField") { p, n in
                for i in 0..<n {
                    let v = Swift.min(1, Swift.max(0, 2 * p[i].x - 1))
                    p[i] = SIMD4(v, v, v, 1)
                }
            })
    }

    static let spotLight = FilterDescriptor(
        name: "CISpotLight", displayName: "Spot Light",
        summary:
            "Lights the image as a flat surface: RGB times color times brightness * max(0, L.z) * max(0, -L.S)^concentration (L: pixel to light, S: light to target); alpha kept. Positions have a top-left origin.",
        categories: [.stylize],
        inputs: [
            .image(),
            .vector(
                "inputLightPosition", .position3, default: [400, 600, 150],
                summary: "Position of the light (x, y, z), z above the image."),
            .vector("inputLightPointsAt", .position3, default: [200, 200, 0], summary: "Where the light points (x, y, z)."),
            .number(
                "inputBrightness", .distance, default: 3, min: 0, max: 100, sliderMin: 0, sliderMax: 10,
                summary: "Scale of the light."),
            .number(
                "inputConcentration", default: 0.1, min: 0, max: 100, sliderMin: 0.001, sliderMax: 1.5,
                summary: "Exponent of the spot's falloff away from its axis."),
            .color("inputColor", default: .white, summary: "Color of the light."),
        ]
    ) { a in
        let p = try a.vector("inputLightPosition"), t = try a.vector("inputLightPointsAt")
        let light = SIMD3(p[0], p[1], p[2]), at = SIMD3(t[0], t[1], t[2])
        let b = try a.number("inputBrightness"), c = try a.number("inputConcentration")
        let color = try a.color("inputColor")
        let gen = Image(
            node: Node(
                .generator(
                    GeneratorKernel(name: "spotLight \(light) \(at) \(b) \(c) \(color)", constant: nil) { x, y, n, out, linear in
                        let rgb = color.working(linear: linear)
                        for i in 0..<n {
                            let f = spotLightFactor(
                                px: Double(x + i) + 0.5, py: Double(y) + 0.5, light: light, pointsAt: at,
                                brightness: b, concentration: c)
                            out[i] = SIMD4(rgb.x * f, rgb.y * f, rgb.z * f, 1)
                        }
                    }), inputs: [], extent: .infinite))
        return gen.blended(
            with: try a.image(),
            kernel: BlendKernel(name: "spotLightMultiply", extentRule: .background) { fg, dst, n in
                for i in 0..<n { dst[i] = dst[i] * SIMD4(fg[i].x, fg[i].y, fg[i].z, 1) }
            })
    }
}

/// `CIHighlightShadowAdjust` on one premultiplied pixel given the local mean pixel.
@inline(__always) func highlightShadowPixel(_ c: SIMD4<Float>, mean: SIMD4<Float>, shadow s: Float, highlight h: Float) -> SIMD4<
    Float
> {
    let l = c.w > 0 ? edgeLuma(c) / c.w : 0
    let m = mean.w > 0 ? edgeLuma(mean) / mean.w : 0
    let ws = Swift.max(0, 1 - 2 * m), wh = Swift.max(0, 2 * m - 1)
    let l1 = l + 2 * s * (ws * ws) * l * (1 - l)
    let l2 = l1 - 2 * (1 - h) * (wh * wh) * l1 * (1 - l1)
    let f: Float = l > 0 ? Swift.max(0, l2) / l : 1
    return SIMD4(c.x * f, c.y * f, c.z * f, c.w)
}

extension Image {
    /// `CIHighlightShadowAdjust`: luma-based shadow lift and highlight compression.
    public func highlightShadowAdjusted(
        radius: Double? = nil, shadowAmount: Double? = nil,
        highlightAmount: Double? = nil
    ) throws -> Image {
        try FilterDescriptor.highlightShadowAdjust.apply([
            "inputImage": .image(self), "inputRadius": radius.map(FilterValue.number),
            "inputShadowAmount": shadowAmount.map(FilterValue.number),
            "inputHighlightAmount": highlightAmount.map(FilterValue.number),
        ])
    }

    /// `CIHeightFieldFromMask`: a grey height field from the mask's blurred luma.
    public func heightFieldFromMask(radius: Double? = nil) throws -> Image {
        try FilterDescriptor.heightFieldFromMask.apply([
            "inputImage": .image(self), "inputRadius": radius.map(FilterValue.number),
        ])
    }

    /// `CISpotLight`: the image lit by a spot light (positions with a top-left origin).
    public func spotLight(
        position: [Double]? = nil, pointsAt: [Double]? = nil, brightness: Double? = nil,
        concentration: Double? = nil, color: Color? = nil
    ) throws -> Image {
        try FilterDescriptor.spotLight.apply([
            "inputImage": .image(self), "inputLightPosition": position.map(FilterValue.vector),
            "inputLightPointsAt": pointsAt.map(FilterValue.vector), "inputBrightness": brightness.map(FilterValue.number),
            "inputConcentration": concentration.map(FilterValue.number), "inputColor": color.map(FilterValue.color),
        ])
    }
}
