// Conversions between encodings and color spaces, and CIELAB color differences. Kernels:
// Kernels/LabKernels.swift. These filters take the working-space values as they are: the
// sRGB tone curves apply the transfer function to them, and the Lab filters read them as
// linear sRGB (D65), which they are in a color-managed context.

extension FilterDescriptor {
    /// The color-space filters declared in this file, registered in `builtIn`.
    static let colorSpaceFilters: [FilterDescriptor] = [
        linearToSRGBToneCurve, sRGBToneCurveToLinear, convertRGBtoLab,
        convertLabToRGB, labDeltaE, labDeltaE2000,
    ]

    static let linearToSRGBToneCurve = FilterDescriptor(
        name: "CILinearToSRGBToneCurve", displayName: "Linear to sRGB Tone Curve",
        summary: "Applies the sRGB encoding curve (IEC 61966-2-1) to the color channels: 12.92 x, or 1.055 x^(1/2.4) - 0.055.",
        categories: [.colorAdjustment, .interlaced, .nonSquarePixels], inputs: [.image()]
    ) { a in
        try a.image().applyingColorKernel(ColorKernel(name: "linearToSRGB") { p, n in linearToSRGBRow(p, count: n) })
    }

    static let sRGBToneCurveToLinear = FilterDescriptor(
        name: "CISRGBToneCurveToLinear", displayName: "sRGB Tone Curve to Linear",
        summary:
            "Applies the sRGB decoding curve (IEC 61966-2-1) to the color channels: x / 12.92, or ((x + 0.055) / 1.055)^2.4.",
        categories: [.colorAdjustment, .interlaced, .nonSquarePixels], inputs: [.image()]
    ) { a in
        try a.image().applyingColorKernel(ColorKernel(name: "sRGBToLinear") { p, n in sRGBToLinearRow(p, count: n) })
    }

    static let convertRGBtoLab = FilterDescriptor(
        name: "CIConvertRGBtoLab", displayName: "Convert RGB to Lab",
        summary: "Converts linear sRGB colors (D65) to CIELAB: L* in 0...100, a* and b* in about -128...128.",
        categories: [.colorEffect, .interlaced, .nonSquarePixels],
        inputs: [
            .image(),
            .boolean(
                "inputNormalize", default: false,
                summary: "Scale L* by 1/100 and a*, b* to (x + 128) / 256, so that all three lie in 0...1."),
        ]
    ) { a in
        let normalize = try a.number("inputNormalize") != 0
        return try a.image().applyingColorKernel(
            ColorKernel(name: "rgbToLab \(normalize)") { p, n in
                rgbToLabRow(p, count: n, normalize: normalize)
            })
    }

    static let convertLabToRGB = FilterDescriptor(
        name: "CIConvertLabToRGB", displayName: "Convert Lab to RGB",
        summary: "Converts CIELAB colors (L*, a*, b* in the color channels) to linear sRGB (D65).",
        categories: [.colorEffect, .interlaced, .nonSquarePixels],
        inputs: [
            .image(),
            .boolean(
                "inputNormalize", default: false,
                summary: "Read the normalized values CIConvertRGBtoLab makes with inputNormalize."),
        ]
    ) { a in
        let normalize = try a.number("inputNormalize") != 0
        return try a.image().applyingColorKernel(
            ColorKernel(name: "labToRGB \(normalize)") { p, n in
                labToRGBRow(p, count: n, normalize: normalize)
            })
    }

    static let labDeltaE = FilterDescriptor(
        name: "CILabDeltaE", displayName: "Lab Delta E",
        summary: "The CIE94 color difference of two images in every color channel, opaque: about 0...100, 2 just noticeable.",
        categories: [.colorEffect, .interlaced, .nonSquarePixels],
        inputs: [.image(summary: "The reference image."), .image("inputImage2", summary: "The image to compare with it.")]
    ) { a in
        try a.image().blended(
            with: try a.image("inputImage2"),
            kernel: BlendKernel(name: "deltaE94", extentRule: .intersection) { f, d, n in
                labDeltaERow(f, d, count: n, ciede2000: false)
            })
    }

    static let labDeltaE2000 = FilterDescriptor(
        name: "PFLabDeltaE2000", displayName: "Lab Delta E 2000",
        summary: "The CIEDE2000 color difference of two images in every color channel, opaque (Sharma, Wu and Dalal 2005).",
        categories: [.colorEffect, .interlaced, .nonSquarePixels],
        inputs: [.image(summary: "The first image."), .image("inputImage2", summary: "The image to compare with it.")]
    ) { a in
        try a.image().blended(
            with: try a.image("inputImage2"),
            kernel: BlendKernel(name: "deltaE2000", extentRule: .intersection) { f, d, n in
                labDeltaERow(f, d, count: n, ciede2000: true)
            })
    }
}

extension Image {
    /// Encodes the color channels with the sRGB curve (`CILinearToSRGBToneCurve`).
    /// - Complexity: one vectorized power per pixel.
    public func linearToSRGBToneCurve() throws -> Image {
        try FilterDescriptor.linearToSRGBToneCurve.apply(["inputImage": .image(self)])
    }

    /// Decodes the color channels with the sRGB curve (`CISRGBToneCurveToLinear`).
    /// - Complexity: one vectorized power per pixel.
    public func sRGBToneCurveToLinear() throws -> Image {
        try FilterDescriptor.sRGBToneCurveToLinear.apply(["inputImage": .image(self)])
    }

    /// CIELAB (D65) of the linear sRGB colors in the color channels (`CIConvertRGBtoLab`).
    /// - Parameter normalize: `L/100`, `(a+128)/256`, `(b+128)/256` when true (default false).
    /// - Complexity: a 3x3 matrix and three cube roots per pixel.
    public func convertedRGBToLab(normalize: Bool? = nil) throws -> Image {
        try FilterDescriptor.convertRGBtoLab.apply([
            "inputImage": .image(self), "inputNormalize": normalize.map(FilterValue.boolean),
        ])
    }

    /// Linear sRGB of the CIELAB values in the color channels (`CIConvertLabToRGB`).
    public func convertedLabToRGB(normalize: Bool? = nil) throws -> Image {
        try FilterDescriptor.convertLabToRGB.apply([
            "inputImage": .image(self), "inputNormalize": normalize.map(FilterValue.boolean),
        ])
    }

    /// CIE94 color difference from this image (the reference) to `other`, in every color
    /// channel (`CILabDeltaE`). The extent is the intersection of the two extents.
    /// - Complexity: two Lab conversions and a square root per pixel.
    public func labDeltaE(_ other: Image) throws -> Image {
        try FilterDescriptor.labDeltaE.apply(["inputImage": .image(self), "inputImage2": .image(other)])
    }

    /// CIEDE2000 color difference of this image and `other`, in every color channel
    /// (`PFLabDeltaE2000`).
    /// - Complexity: two Lab conversions and about ten transcendental calls per pixel (scalar).
    public func labDeltaE2000(_ other: Image) throws -> Image {
        try FilterDescriptor.labDeltaE2000.apply(["inputImage": .image(self), "inputImage2": .image(other)])
    }
}
