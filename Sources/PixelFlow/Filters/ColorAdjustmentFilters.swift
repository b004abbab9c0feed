// Color adjustment and color effect filters of the foundation: affine ones build a
// `ColorMatrix` (which the optimizer folds), the others a `ColorKernel`.

/// Rec. 709 luma weights, as Core Image's saturation uses.
let rec709 = SIMD4<Float>(0.2126, 0.7152, 0.0722, 0)

extension ColorMatrix {
    /// `rgb *= 2^ev`, alpha unchanged.
    static func exposure(ev: Float) -> ColorMatrix {
        let s = powf(2, ev)
        return ColorMatrix(rows: SIMD4(s, 0, 0, 0), SIMD4(0, s, 0, 0), SIMD4(0, 0, s, 0), SIMD4(0, 0, 0, 1))
    }

    /// Core Image's color controls: saturation (lerp from Rec. 709 luma), then brightness
    /// (added), then contrast (`(x - 0.5) * contrast + 0.5`), on RGB; alpha unchanged.
    static func colorControls(saturation s: Float, brightness b: Float, contrast c: Float) -> ColorMatrix {
        func row(_ i: Int) -> SIMD4<Float> {
            var r = rec709 * (1 - s)
            r[i] += s
            return r * c
        }
        let k = c * b + 0.5 * (1 - c)
        return ColorMatrix(rows: row(0), row(1), row(2), SIMD4(0, 0, 0, 1), bias: SIMD4(k, k, k, 0))
    }

    /// The classic sepia matrix mixed with the identity by `intensity`.
    static func sepia(intensity i: Float) -> ColorMatrix {
        let sepia: [SIMD4<Float>] = [SIMD4(0.393, 0.769, 0.189, 0), SIMD4(0.349, 0.686, 0.168, 0), SIMD4(0.272, 0.534, 0.131, 0)]
        func row(_ k: Int) -> SIMD4<Float> {
            var id = SIMD4<Float>.zero
            id[k] = 1
            return id * (1 - i) + sepia[k] * i
        }
        return ColorMatrix(rows: row(0), row(1), row(2), SIMD4(0, 0, 0, 1))
    }

    /// `rgb = 1 - rgb`, alpha unchanged.
    static let invert = ColorMatrix(
        rows: SIMD4(-1, 0, 0, 0), SIMD4(0, -1, 0, 0), SIMD4(0, 0, -1, 0), SIMD4(0, 0, 0, 1),
        bias: SIMD4(1, 1, 1, 0))

    /// Rec. 709 luma in every color channel, alpha unchanged.
    static let grayscale = ColorMatrix(rows: rec709, rec709, rec709, SIMD4(0, 0, 0, 1))
}

extension FilterDescriptor {
    static let colorAdjustmentFilters: [FilterDescriptor] = [
        colorMatrix, exposureAdjust, colorControls, gammaAdjust,
        colorInvert, sepiaTone, grayscale,
    ]

    static let colorMatrix = FilterDescriptor(
        name: "CIColorMatrix", displayName: "Color Matrix",
        summary: "Multiplies each pixel by a 4x4 matrix and adds a bias: out.r = dot(in, R) + bias.r, and so on.",
        categories: [.colorAdjustment, .highDynamicRange],
        inputs: [
            .image(),
            .vector(
                "inputRVector", default: [1, 0, 0, 0], identity: [1, 0, 0, 0], summary: "Weights of R, G, B, A in the output red."
            ),
            .vector(
                "inputGVector", default: [0, 1, 0, 0], identity: [0, 1, 0, 0],
                summary: "Weights of R, G, B, A in the output green."),
            .vector(
                "inputBVector", default: [0, 0, 1, 0], identity: [0, 0, 1, 0],
                summary: "Weights of R, G, B, A in the output blue."),
            .vector(
                "inputAVector", default: [0, 0, 0, 1], identity: [0, 0, 0, 1],
                summary: "Weights of R, G, B, A in the output alpha."),
            .vector("inputBiasVector", default: [0, 0, 0, 0], identity: [0, 0, 0, 0], summary: "Added to each output channel."),
        ]
    ) { a in
        let m = ColorMatrix(
            rows: try a.simd4("inputRVector"), try a.simd4("inputGVector"), try a.simd4("inputBVector"),
            try a.simd4("inputAVector"), bias: try a.simd4("inputBiasVector"))
        return try a.image().applyingColorMatrix(m)
    }

    static let exposureAdjust = FilterDescriptor(
        name: "CIExposureAdjust", displayName: "Exposure Adjust",
        summary: "Scales the color channels by 2^EV in linear light, like changing a camera's exposure.",
        categories: [.colorAdjustment, .highDynamicRange],
        inputs: [
            .image(),
            .number(
                "inputEV", default: 0, identity: 0, min: -20, max: 20, sliderMin: -10, sliderMax: 10,
                summary: "Exposure change in stops."),
        ]
    ) { a in
        try a.image().applyingColorMatrix(.exposure(ev: try a.float("inputEV")))
    }

    static let colorControls = FilterDescriptor(
        name: "CIColorControls", displayName: "Color Controls",
        summary: "Adjusts saturation (mix with Rec. 709 luma), then brightness (added), then contrast (around 0.5).",
        categories: [.colorAdjustment, .highDynamicRange],
        inputs: [
            .image(),
            .number(
                "inputSaturation", default: 1, identity: 1, min: 0, max: 100, sliderMin: 0, sliderMax: 2,
                summary: "0 gives gray, 1 leaves colors, above 1 intensifies them."),
            .number(
                "inputBrightness", default: 0, identity: 0, min: -10, max: 10, sliderMin: -1, sliderMax: 1,
                summary: "Added to each color channel."),
            .number(
                "inputContrast", default: 1, identity: 1, min: 0, max: 100, sliderMin: 0.25, sliderMax: 4,
                summary: "Scales the distance of each channel from 0.5."),
        ]
    ) { a in
        try a.image().applyingColorMatrix(
            .colorControls(
                saturation: try a.float("inputSaturation"),
                brightness: try a.float("inputBrightness"),
                contrast: try a.float("inputContrast")))
    }

    static let gammaAdjust = FilterDescriptor(
        name: "CIGammaAdjust", displayName: "Gamma Adjust",
        summary: "Raises each color channel to a power: sign(x) * |x|^power, alpha unchanged.",
        categories: [.colorAdjustment, .highDynamicRange],
        inputs: [
            .image(),
            .number(
                "inputPower", default: 1, identity: 1, min: 0.01, max: 100, sliderMin: 0.25, sliderMax: 4,
                summary: "The exponent."),
        ]
    ) { a in
        let p = try a.float("inputPower")
        let image = try a.image()
        if p == 1 { return image }
        var kernel = ColorKernel(name: "gamma \(p)") { px, n in gammaRow(px, count: n, power: p) }
        kernel.pointStep = PointStep.gamma(power: p)
        return image.applyingColorKernel(kernel)
    }

    static let colorInvert = FilterDescriptor(
        name: "CIColorInvert", displayName: "Color Invert",
        summary: "Inverts the color channels (1 - x), leaving alpha unchanged.",
        categories: [.colorEffect], inputs: [.image()]
    ) { a in
        try a.image().applyingColorMatrix(.invert)
    }

    static let sepiaTone = FilterDescriptor(
        name: "CISepiaTone", displayName: "Sepia Tone",
        summary: "Maps colors to the brown tones of old photographs, mixed with the original by intensity.",
        categories: [.colorEffect],
        inputs: [
            .image(),
            .number(
                "inputIntensity", default: 1, identity: 0, min: 0, max: 1,
                summary: "0 leaves the image unchanged, 1 gives full sepia."),
        ]
    ) { a in
        try a.image().applyingColorMatrix(.sepia(intensity: try a.float("inputIntensity")))
    }

    static let grayscale = FilterDescriptor(
        name: "PFGrayscale", displayName: "Grayscale",
        summary: "Replaces each color by its Rec. 709 luma (0.2126 R + 0.7152 G + 0.0722 B).",
        categories: [.colorEffect], inputs: [.image()]
    ) { a in
        try a.image().applyingColorMatrix(.grayscale)
    }
}

extension Image {
    /// Multiplies each pixel by a color matrix (`CIColorMatrix`): `out.r = dot(in, r) + bias.r`, ...
    public func colorMatrix(
        r: SIMD4<Float>? = nil, g: SIMD4<Float>? = nil, b: SIMD4<Float>? = nil,
        a: SIMD4<Float>? = nil, bias: SIMD4<Float>? = nil
    ) throws -> Image {
        func v(_ x: SIMD4<Float>?) -> FilterValue? {
            x.map { .vector([Double($0.x), Double($0.y), Double($0.z), Double($0.w)]) }
        }
        return try FilterDescriptor.colorMatrix.apply([
            "inputImage": .image(self), "inputRVector": v(r), "inputGVector": v(g),
            "inputBVector": v(b), "inputAVector": v(a), "inputBiasVector": v(bias),
        ])
    }

    /// Scales the colors by 2^`ev` in linear light (`CIExposureAdjust`).
    /// - Parameter ev: stops, -20...20 (default 0).
    public func exposureAdjusted(ev: Double? = nil) throws -> Image {
        try FilterDescriptor.exposureAdjust.apply(["inputImage": .image(self), "inputEV": ev.map(FilterValue.number)])
    }

    /// Adjusts saturation, brightness and contrast (`CIColorControls`).
    /// - Parameters:
    ///   - saturation: 0...100 (default 1; 0 is gray).
    ///   - brightness: -10...10 (default 0), added.
    ///   - contrast: 0...100 (default 1), around 0.5.
    public func colorControls(saturation: Double? = nil, brightness: Double? = nil, contrast: Double? = nil) throws -> Image {
        try FilterDescriptor.colorControls.apply([
            "inputImage": .image(self), "inputSaturation": saturation.map(FilterValue.number),
            "inputBrightness": brightness.map(FilterValue.number),
            "inputContrast": contrast.map(FilterValue.number),
        ])
    }

    /// Raises the colors to `power` (`CIGammaAdjust`), sign-preserving.
    /// - Parameter power: 0.01...100 (default 1).
    public func gammaAdjusted(power: Double? = nil) throws -> Image {
        try FilterDescriptor.gammaAdjust.apply(["inputImage": .image(self), "inputPower": power.map(FilterValue.number)])
    }

    /// Inverts the colors (`CIColorInvert`).
    public func colorInverted() throws -> Image {
        try FilterDescriptor.colorInvert.apply(["inputImage": .image(self)])
    }

    /// Sepia toning (`CISepiaTone`).
    /// - Parameter intensity: 0...1 (default 1).
    public func sepiaTone(intensity: Double? = nil) throws -> Image {
        try FilterDescriptor.sepiaTone.apply(["inputImage": .image(self), "inputIntensity": intensity.map(FilterValue.number)])
    }

    /// Rec. 709 grayscale (`PFGrayscale`).
    public func grayscale() throws -> Image {
        try FilterDescriptor.grayscale.apply(["inputImage": .image(self)])
    }
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif
