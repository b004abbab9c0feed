// The photo effects (CIPhotoEffectChrome ... CIPhotoEffectTransfer): fixed looks made of a
// saturation matrix and a tone curve per channel, on sRGB-encoded values. Apple publishes
// nothing about its curves; these are PixelFlow's own approximations, published in
// Docs/ColorLooks.md (reference values: scripts/make_photo_effect_fixtures.py). Kernels:
// `colorMatrixRow`, `lookupTablesRGBRow` and the sRGB curves, fused in one color kernel.

/// A photo effect's definition, on sRGB-encoded, unpremultiplied red, green and blue:
/// `rgb' = s * rgb + (1 - s) * luma(rgb)` with Rec. 709 weights, then each channel through the
/// natural cubic spline through its outputs at inputs 0, 0.25, 0.5, 0.75 and 1.
struct PhotoEffectLook: Sendable {
    /// The part of the name after `CIPhotoEffect`.
    let name: String
    let summary: String
    /// The saturation `s`: 0 gives gray, 1 leaves colors as they are.
    let saturation: Double
    /// Outputs of the red, green and blue curves at `PhotoEffectLook.curveInputs`.
    let red: [Double], green: [Double], blue: [Double]

    static let curveInputs: [Double] = [0, 0.25, 0.5, 0.75, 1]
    /// Rec. 709 luma weights of red, green and blue.
    static let lumaWeights: SIMD3<Double> = SIMD3(0.2126, 0.7152, 0.0722)

    /// The saturation matrix on unpremultiplied RGBA, alpha unchanged.
    var matrix: ColorMatrix {
        let w = Self.lumaWeights * (1 - saturation)
        func row(_ i: Int) -> SIMD4<Float> {
            var r = SIMD4<Float>(Float(w.x), Float(w.y), Float(w.z), 0)
            r[i] += Float(saturation)
            return r
        }
        return ColorMatrix(rows: row(0), row(1), row(2), SIMD4(0, 0, 0, 1))
    }

    /// The curve of one channel sampled into a 1024-entry table over 0...1.
    func table(_ ys: [Double], extrapolate: Bool) -> LookupTable1D {
        let spline = NaturalCubicSpline(xs: Self.curveInputs, ys: ys)
        return LookupTable1D(
            count: 1024, lower: 0, upper: 1, extrapolate: extrapolate,
            lowerSlope: spline.slope(atEnd: false), upperSlope: spline.slope(atEnd: true), spline.value)
    }
}

extension FilterDescriptor {
    /// The photo effects declared in this file, registered in `builtIn`.
    static let photoEffectFilters: [FilterDescriptor] = [
        photoEffectChrome, photoEffectFade, photoEffectInstant, photoEffectMono,
        photoEffectNoir, photoEffectProcess, photoEffectTonal, photoEffectTransfer,
    ]

    /// The descriptor of a photo effect: `inputImage` and `inputExtrapolate`, one fused color
    /// kernel (encode to sRGB when the working space is linear, matrix, curves, decode).
    static func _photoEffect(_ look: PhotoEffectLook) -> FilterDescriptor {
        FilterDescriptor(
            name: "CIPhotoEffect" + look.name, displayName: "Photo Effect " + look.name,
            summary: look.summary + " An approximation of Apple's look (see Docs/ColorLooks.md).",
            categories: [.colorEffect, .interlaced, .nonSquarePixels],
            inputs: [
                .image(),
                .boolean(
                    "inputExtrapolate", default: false,
                    summary:
                        "Continue the curves along their end slopes for values outside 0...1, instead of holding the end values."),
            ]
        ) { a in
            let extrapolate = try a.number("inputExtrapolate") != 0
            let image = try a.image()
            let m = look.matrix
            let r = look.table(look.red, extrapolate: extrapolate)
            let g = look.table(look.green, extrapolate: extrapolate)
            let b = look.table(look.blue, extrapolate: extrapolate)
            return image.applyingColorKernel(
                .dependingOnWorkingSpace(name: "photoEffect \(look.name) \(extrapolate)") { linear in
                    { p, n in
                        if linear { linearToSRGBRow(p, count: n) }
                        colorMatrixRow(p, count: n, matrix: m)
                        lookupTablesRGBRow(p, count: n, red: r, green: g, blue: b)
                        if linear { sRGBToLinearRow(p, count: n) }
                    }
                })
        }
    }

    static let photoEffectChrome = _photoEffect(
        PhotoEffectLook(
            name: "Chrome", summary: "A vivid look: saturation 1.2 and a contrast S-curve.",
            saturation: 1.2, red: [0, 0.22, 0.5, 0.8, 1], green: [0, 0.22, 0.5, 0.8, 1], blue: [0, 0.22, 0.5, 0.8, 1]))

    static let photoEffectFade = _photoEffect(
        PhotoEffectLook(
            name: "Fade", summary: "A washed-out look: saturation 0.75, lifted blacks and dimmed whites, bluish shadows.",
            saturation: 0.75, red: [0.12, 0.31, 0.53, 0.75, 0.94], green: [0.12, 0.31, 0.53, 0.75, 0.94],
            blue: [0.15, 0.33, 0.53, 0.74, 0.92]))

    static let photoEffectInstant = _photoEffect(
        PhotoEffectLook(
            name: "Instant", summary: "A warm instant-film look: saturation 0.9, lifted blacks, yellowed highlights.",
            saturation: 0.9, red: [0.06, 0.3, 0.56, 0.8, 0.98], green: [0.05, 0.27, 0.52, 0.76, 0.95],
            blue: [0.1, 0.26, 0.46, 0.68, 0.88]))

    static let photoEffectMono = _photoEffect(
        PhotoEffectLook(
            name: "Mono", summary: "Black and white: the Rec. 709 luma of the sRGB-encoded color, with no curve.",
            saturation: 0, red: PhotoEffectLook.curveInputs, green: PhotoEffectLook.curveInputs,
            blue: PhotoEffectLook.curveInputs))

    static let photoEffectNoir = _photoEffect(
        PhotoEffectLook(
            name: "Noir", summary: "High-contrast black and white: luma through a steep S-curve.",
            saturation: 0, red: [0, 0.15, 0.5, 0.86, 1], green: [0, 0.15, 0.5, 0.86, 1], blue: [0, 0.15, 0.5, 0.86, 1]))

    static let photoEffectProcess = _photoEffect(
        PhotoEffectLook(
            name: "Process",
            summary: "A cross-processed look: cool, lifted blue shadows, crushed red shadows, dimmed blue highlights.",
            saturation: 1, red: [0.04, 0.2, 0.48, 0.78, 0.96], green: [0.02, 0.25, 0.53, 0.8, 1],
            blue: [0.15, 0.32, 0.5, 0.66, 0.82]))

    static let photoEffectTonal = _photoEffect(
        PhotoEffectLook(
            name: "Tonal", summary: "Soft black and white: luma with lifted blacks and slightly dimmed whites.",
            saturation: 0, red: [0.05, 0.28, 0.52, 0.76, 0.97], green: [0.05, 0.28, 0.52, 0.76, 0.97],
            blue: [0.05, 0.28, 0.52, 0.76, 0.97]))

    static let photoEffectTransfer = _photoEffect(
        PhotoEffectLook(
            name: "Transfer", summary: "A warm vintage look: saturation 1.1, warm midtones, dimmed blue.",
            saturation: 1.1, red: [0.02, 0.28, 0.56, 0.82, 1], green: [0.01, 0.25, 0.51, 0.77, 0.97],
            blue: [0.05, 0.2, 0.42, 0.66, 0.88]))
}

extension Image {
    /// The Chrome look (`CIPhotoEffectChrome`): saturation 1.2 and a contrast S-curve, on
    /// sRGB-encoded values. An approximation: the curves are published in Docs/ColorLooks.md.
    ///
    /// ```swift
    /// let vivid = try photo.photoEffectChrome()
    /// ```
    ///
    /// - Parameter extrapolate: continue the curves beyond 0...1 along their end slopes
    ///   (default false: hold the end values).
    /// - Complexity: a 3x3 matrix and three table reads per pixel (plus the sRGB curves in a
    ///   color-managed context); 12 KB of tables.
    public func photoEffectChrome(extrapolate: Bool? = nil) throws -> Image {
        try FilterDescriptor.photoEffectChrome.apply([
            "inputImage": .image(self), "inputExtrapolate": extrapolate.map(FilterValue.boolean),
        ])
    }

    /// The Fade look (`CIPhotoEffectFade`): saturation 0.75, lifted blacks, dimmed whites.
    /// An approximation (Docs/ColorLooks.md); costs as ``photoEffectChrome(extrapolate:)``.
    public func photoEffectFade(extrapolate: Bool? = nil) throws -> Image {
        try FilterDescriptor.photoEffectFade.apply([
            "inputImage": .image(self), "inputExtrapolate": extrapolate.map(FilterValue.boolean),
        ])
    }

    /// The Instant look (`CIPhotoEffectInstant`): warm instant film, saturation 0.9.
    /// An approximation (Docs/ColorLooks.md); costs as ``photoEffectChrome(extrapolate:)``.
    public func photoEffectInstant(extrapolate: Bool? = nil) throws -> Image {
        try FilterDescriptor.photoEffectInstant.apply([
            "inputImage": .image(self), "inputExtrapolate": extrapolate.map(FilterValue.boolean),
        ])
    }

    /// Black and white (`CIPhotoEffectMono`): the Rec. 709 luma of the sRGB-encoded color.
    /// An approximation (Docs/ColorLooks.md); costs as ``photoEffectChrome(extrapolate:)``.
    public func photoEffectMono(extrapolate: Bool? = nil) throws -> Image {
        try FilterDescriptor.photoEffectMono.apply([
            "inputImage": .image(self), "inputExtrapolate": extrapolate.map(FilterValue.boolean),
        ])
    }

    /// High-contrast black and white (`CIPhotoEffectNoir`): luma through a steep S-curve.
    /// An approximation (Docs/ColorLooks.md); costs as ``photoEffectChrome(extrapolate:)``.
    public func photoEffectNoir(extrapolate: Bool? = nil) throws -> Image {
        try FilterDescriptor.photoEffectNoir.apply([
            "inputImage": .image(self), "inputExtrapolate": extrapolate.map(FilterValue.boolean),
        ])
    }

    /// The cross-processed look (`CIPhotoEffectProcess`): cool, with blue shadows.
    /// An approximation (Docs/ColorLooks.md); costs as ``photoEffectChrome(extrapolate:)``.
    public func photoEffectProcess(extrapolate: Bool? = nil) throws -> Image {
        try FilterDescriptor.photoEffectProcess.apply([
            "inputImage": .image(self), "inputExtrapolate": extrapolate.map(FilterValue.boolean),
        ])
    }

    /// Soft black and white (`CIPhotoEffectTonal`): luma with lifted blacks.
    /// An approximation (Docs/ColorLooks.md); costs as ``photoEffectChrome(extrapolate:)``.
    public func photoEffectTonal(extrapolate: Bool? = nil) throws -> Image {
        try FilterDescriptor.photoEffectTonal.apply([
            "inputImage": .image(self), "inputExtrapolate": extrapolate.map(FilterValue.boolean),
        ])
    }

    /// The warm vintage look (`CIPhotoEffectTransfer`): saturation 1.1, warm midtones.
    /// An approximation (Docs/ColorLooks.md); costs as ``photoEffectChrome(extrapolate:)``.
    public func photoEffectTransfer(extrapolate: Bool? = nil) throws -> Image {
        try FilterDescriptor.photoEffectTransfer.apply([
            "inputImage": .image(self), "inputExtrapolate": extrapolate.map(FilterValue.boolean),
        ])
    }
}
