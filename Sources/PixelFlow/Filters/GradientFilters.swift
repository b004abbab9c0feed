// Gradient generators: linear, smooth linear, radial, Gaussian. Each is an infinite generator
// that mixes two colors by a parameter t(x, y) in 0...1:
//
//     out = color0 + (color1 - color0) * t
//
// on premultiplied working-space colors, as Core Image does: in linear light when color
// management is on (so a black-to-white gradient is not perceptually even), in the stored
// values when it is off. Points are in image coordinates, origin top-left, y down.

extension FilterDescriptor {
    static let gradientFilters: [FilterDescriptor] = [
        linearGradient, smoothLinearGradient, radialGradient, gaussianGradient,
        distanceGradientFromRedMask, signedDistanceGradientFromRedMask, hueSaturationValueGradient,
    ]

    private static func twoPointInputs() -> [FilterInput] {
        [
            .position(
                "inputPoint0", default: [0, 0],
                summary: "Where the gradient is color0, [x y] in pixels (origin top-left, y down)."),
            .position("inputPoint1", default: [200, 200], summary: "Where the gradient is color1, [x y] in pixels."),
            .color("inputColor0", default: .white, summary: "The color at point0 and before it (sRGB, unpremultiplied)."),
            .color("inputColor1", default: .black, summary: "The color at point1 and beyond it."),
        ]
    }

    private static func linear(_ a: FilterArguments, smooth: Bool) throws -> Image {
        let p0 = try a.pointValue("inputPoint0"), p1 = try a.pointValue("inputPoint1")
        let c0 = _WorkingColor(try a.color("inputColor0")), c1 = _WorkingColor(try a.color("inputColor1"))
        return Image._generator(named: smooth ? "smooth linear gradient" : "linear gradient", extent: .infinite) {
            x, y, n, out, lin in
            gradientRow(x0: x, y: y, count: n, out: out, color0: c0(lin), color1: c1(lin)) { px, py in
                linearGradientParameter(px, py, p0: p0, p1: p1, smooth: smooth)
            }
        }
    }

    static let linearGradient = FilterDescriptor(
        name: "CILinearGradient", displayName: "Linear Gradient",
        summary:
            "An infinite gradient from color0 at point0 to color1 at point1: t = clamp(dot(p - p0, p1 - p0) / |p1 - p0|^2, 0, 1), mixed in the working space.",
        categories: [.gradient, .highDynamicRange], inputs: twoPointInputs()
    ) { a in try linear(a, smooth: false) }

    static let smoothLinearGradient = FilterDescriptor(
        name: "CISmoothLinearGradient", displayName: "Smooth Linear Gradient",
        summary:
            "A linear gradient whose parameter goes through smoothstep, t^2 (3 - 2t), so it starts and ends without a visible kink.",
        categories: [.gradient, .highDynamicRange], inputs: twoPointInputs()
    ) { a in try linear(a, smooth: true) }

    static let radialGradient = FilterDescriptor(
        name: "CIRadialGradient", displayName: "Radial Gradient",
        summary:
            "An infinite gradient between two circles about the center: t = clamp((d - radius0) / (radius1 - radius0), 0, 1), mixed in the working space.",
        categories: [.gradient, .highDynamicRange],
        inputs: [
            .position(),
            .number(
                "inputRadius0", .distance, default: 5, min: 0, sliderMin: 0, sliderMax: 800,
                summary: "The radius where the gradient is color0, in pixels."),
            .number(
                "inputRadius1", .distance, default: 100, min: 0, sliderMin: 0, sliderMax: 800,
                summary: "The radius where the gradient is color1, in pixels (equal radii give an anti-aliased disc)."),
            .color("inputColor0", default: .white, summary: "The color at radius0 (sRGB, unpremultiplied)."),
            .color("inputColor1", default: .black, summary: "The color at radius1."),
        ]
    ) { a in
        let c = try a.pointValue("inputCenter"), r0 = try a.number("inputRadius0"), r1 = try a.number("inputRadius1")
        let c0 = _WorkingColor(try a.color("inputColor0")), c1 = _WorkingColor(try a.color("inputColor1"))
        return Image._generator(named: "radial gradient", extent: .infinite) { x, y, n, out, lin in
            gradientRow(x0: x, y: y, count: n, out: out, color0: c0(lin), color1: c1(lin)) { px, py in
                radialGradientParameter(px, py, center: c, r0: r0, r1: r1)
            }
        }
    }

    static let gaussianGradient = FilterDescriptor(
        name: "CIGaussianGradient", displayName: "Gaussian Gradient",
        summary:
            "color0 at the center fading to color1 with a Gaussian of sigma radius / 3: t = 1 - exp(-d^2 / (2 sigma^2)); Core Image's exact falloff is undocumented.",
        categories: [.gradient, .highDynamicRange],
        inputs: [
            .position(),
            .color("inputColor0", default: .white, summary: "The color at the center (sRGB, unpremultiplied)."),
            .color("inputColor1", default: .clear, summary: "The color far from the center."),
            .number(
                "inputRadius", .distance, default: 300, min: 0, sliderMin: 0, sliderMax: 800,
                summary: "The radius in pixels at which color0 has faded to 1 % (0: color1 everywhere)."),
        ]
    ) { a in
        let c = try a.pointValue("inputCenter"), r = try a.number("inputRadius")
        let c0 = _WorkingColor(try a.color("inputColor0")), c1 = _WorkingColor(try a.color("inputColor1"))
        return Image._generator(named: "gaussian gradient", extent: .infinite) { x, y, n, out, lin in
            gradientRow(x0: x, y: y, count: n, out: out, color0: c1(lin), color1: c0(lin)) { px, py in
                gaussianGradientWeight(px, py, center: c, radius: r)
            }
        }
    }
}

extension FilterDescriptor {
    static let distanceGradientFromRedMask = FilterDescriptor(
        name: "CIDistanceGradientFromRedMask", displayName: "Distance Gradient From Red Mask",
        summary:
            "An infinite image whose gray is 0 where the mask's red exceeds 0.5 and the distance to the nearest such pixel over maximumDistance elsewhere (at most 1); exact Euclidean distance transform.",
        categories: [.gradient], inputs: _distanceInputs("The distance in pixels that maps to 1.")
    ) { a in
        try _distanceGradient(a, signed: false)
    }

    static let signedDistanceGradientFromRedMask = FilterDescriptor(
        name: "CISignedDistanceGradientFromRedMask", displayName: "Signed Distance Gradient From Red Mask",
        summary:
            "An infinite image whose gray is the distance to the mask's edge over maximumDistance, clamped to 1: positive outside the mask (distance to the nearest mask pixel), negative inside it (distance to the nearest pixel outside); exact Euclidean distance transforms.",
        categories: [.gradient],
        inputs: _distanceInputs("The distance in pixels that maps to 1 (and to -1 inside the mask).")
    ) { a in
        try _distanceGradient(a, signed: true)
    }

    /// The inputs of the two distance gradients: the mask and the maximum distance.
    static func _distanceInputs(_ maximumSummary: String) -> [FilterInput] {
        [
            .image(
                summary:
                    "The mask: a pixel belongs to it where its red channel (working space) exceeds 0.5; needs a finite extent."),
            .number("inputMaximumDistance", .distance, default: 10, min: 0, max: 1000, summary: maximumSummary),
        ]
    }

    /// The two distance gradients: one stage over the mask's extent grown by the maximum
    /// distance, 1 beyond it.
    static func _distanceGradient(_ a: FilterArguments, signed: Bool) throws -> Image {
        let mask = try a.image(), maxD = try a.number("inputMaximumDistance")
        guard !mask.extent.isInfinite else { throw a.fail("inputImage", "must have a finite extent; crop it first") }
        let e = IntRect(covering: mask.extent)
        let one = Image(color: .white)
        if e.isEmpty { return one }
        let m = Int(maxD.rounded(.up)) + 1
        let region = e.outset(m, m)
        guard region.width * region.height <= 1 << 28 else {
            throw PixelFlowError.limitExceeded(
                what: "\(a.filter) region in pixels", value: region.width * region.height, limit: 1 << 28)
        }
        // A stage boundary computed once over the whole region (a distance transform reads
        // arbitrarily far), placed back at the region's origin; beyond it every pixel is
        // outside the mask and at least maximumDistance from it, so 1.
        let field = Image.reduction(
            "\(signed ? "signed " : "")distance gradient \(maxD)", inputs: [mask], regions: [region],
            width: region.width, height: region.height
        ) { tiles, _, out in
            distanceGradient(tiles[0], maximumDistance: maxD, signed: signed, into: out)
        }
        let placed = try field.transformed(by: AffineTransform(translationX: Double(region.x), y: Double(region.y)))
        return placed.composited(over: one)
    }
}

extension Image {
    /// The distance gradient of a mask (`CIDistanceGradientFromRedMask`): 0 on pixels whose red
    /// exceeds 0.5, `min(1, distance / maximumDistance)` elsewhere; an infinite image.
    /// - Complexity: O(pixels) of the mask's extent grown by `maximumDistance`, computed once
    ///   per render as a stage boundary (Felzenszwalb-Huttenlocher distance transform).
    public func distanceGradientFromRedMask(maximumDistance: Double? = nil) throws -> Image {
        try FilterDescriptor.distanceGradientFromRedMask.apply([
            "inputImage": .image(self),
            "inputMaximumDistance": maximumDistance.map(FilterValue.number),
        ])
    }

    /// The signed distance gradient of a mask (`CISignedDistanceGradientFromRedMask`):
    /// `min(1, d / maximumDistance)` outside the pixels whose red exceeds 0.5 (`d` the distance
    /// to the nearest of them) and minus the same measure inside (`d` the distance to the
    /// nearest pixel outside); an infinite image, 1 far from the mask.
    ///
    /// ```swift
    /// let field = try mask.signedDistanceGradientFromRedMask(maximumDistance: 20)
    /// ```
    ///
    /// Keep the output in a float format: 8-bit formats clamp the negative half to 0.
    /// - Complexity: O(pixels) of the mask's extent grown by `maximumDistance`, two distance
    ///   transforms computed once per render as a stage boundary.
    public func signedDistanceGradientFromRedMask(maximumDistance: Double? = nil) throws -> Image {
        try FilterDescriptor.signedDistanceGradientFromRedMask.apply([
            "inputImage": .image(self),
            "inputMaximumDistance": maximumDistance.map(FilterValue.number),
        ])
    }
}

extension Image {
    /// An infinite linear gradient (`CILinearGradient`) from `color0` at `point0` to `color1`
    /// at `point1`, constant beyond them. Nil arguments take Core Image's defaults.
    public static func linearGradient(
        from point0: Point? = nil, to point1: Point? = nil,
        color0: Color? = nil, color1: Color? = nil
    ) throws -> Image {
        try FilterDescriptor.linearGradient.apply([
            "inputPoint0": point0.map { .vector([$0.x, $0.y]) }, "inputPoint1": point1.map { .vector([$0.x, $0.y]) },
            "inputColor0": color0.map(FilterValue.color), "inputColor1": color1.map(FilterValue.color),
        ])
    }

    /// A linear gradient eased by smoothstep (`CISmoothLinearGradient`).
    public static func smoothLinearGradient(
        from point0: Point? = nil, to point1: Point? = nil,
        color0: Color? = nil, color1: Color? = nil
    ) throws -> Image {
        try FilterDescriptor.smoothLinearGradient.apply([
            "inputPoint0": point0.map { .vector([$0.x, $0.y]) }, "inputPoint1": point1.map { .vector([$0.x, $0.y]) },
            "inputColor0": color0.map(FilterValue.color), "inputColor1": color1.map(FilterValue.color),
        ])
    }

    /// A radial gradient (`CIRadialGradient`): `color0` within `radius0` of `center`, `color1`
    /// beyond `radius1`, linear between.
    public static func radialGradient(
        center: Point? = nil, radius0: Double? = nil, radius1: Double? = nil,
        color0: Color? = nil, color1: Color? = nil
    ) throws -> Image {
        try FilterDescriptor.radialGradient.apply([
            "inputCenter": center.map { .vector([$0.x, $0.y]) }, "inputRadius0": radius0.map(FilterValue.number),
            "inputRadius1": radius1.map(FilterValue.number), "inputColor0": color0.map(FilterValue.color),
            "inputColor1": color1.map(FilterValue.color),
        ])
    }

    /// A Gaussian spot (`CIGaussianGradient`): `color0` at `center` fading to `color1`, with
    /// sigma `radius / 3`.
    public static func gaussianGradient(
        center: Point? = nil, color0: Color? = nil, color1: Color? = nil,
        radius: Double? = nil
    ) throws -> Image {
        try FilterDescriptor.gaussianGradient.apply([
            "inputCenter": center.map { .vector([$0.x, $0.y]) }, "inputColor0": color0.map(FilterValue.color),
            "inputColor1": color1.map(FilterValue.color), "inputRadius": radius.map(FilterValue.number),
        ])
    }
}
