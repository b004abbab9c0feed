// Light generators: lenticular halo, star shine, sunbeams. Core Image's renderings of these
// are proprietary; PixelFlow draws documented approximations with the same inputs, defaults
// and qualitative look (formulas in Kernels/GeneratorKernels.swift). The output is light:
// the color, premultiplied, scaled by an intensity, to be composited (usually added or
// screened) over a photo.

extension FilterDescriptor {
    static let lightGeneratorFilters: [FilterDescriptor] = [lenticularHaloGenerator, starShineGenerator, sunbeamsGenerator]

    static let lenticularHaloGenerator = FilterDescriptor(
        name: "CILenticularHaloGenerator", displayName: "Lenticular Halo",
        summary:
            "A lens-flare halo (an approximation of Core Image's): a ring per color channel, red outermost, spread by (1 - overlap), with angular striations.",
        categories: [.generator, .highDynamicRange],
        inputs: [
            .position(),
            .color(
                "inputColor", default: Color(red: 1, green: 0.9, blue: 0.8), summary: "The halo's color (sRGB, unpremultiplied)."),
            .number(
                "inputHaloRadius", .distance, default: 70, min: 0, sliderMin: 0, sliderMax: 1000,
                summary: "The radius of the ring's middle, in pixels."),
            .number(
                "inputHaloWidth", .distance, default: 87, min: 0, sliderMin: 0, sliderMax: 300,
                summary: "The width of each channel's ring, in pixels."),
            .number(
                "inputHaloOverlap", default: 0.77, min: 0, sliderMin: 0, sliderMax: 1,
                summary: "How much the channels' rings overlap: 1 stacks them, 0 spreads them by half the width."),
            .number(
                "inputStriationStrength", default: 0.5, min: 0, sliderMin: 0, sliderMax: 3,
                summary: "The strength of the angular striations (0: none)."),
            .number(
                "inputStriationContrast", default: 1, min: 0, sliderMin: 0, sliderMax: 5,
                summary: "The contrast of the striations."),
            .number("inputTime", .time, default: 0, min: 0, max: 1, summary: "Rotates the striation pattern (0...1)."),
        ]
    ) { a in
        let p = HaloParameters(
            center: try a.pointValue("inputCenter"), radius: try a.number("inputHaloRadius"),
            width: try a.number("inputHaloWidth"), overlap: try a.number("inputHaloOverlap"),
            striationStrength: try a.number("inputStriationStrength"),
            striationContrast: try a.number("inputStriationContrast"), time: try a.number("inputTime"))
        let c = _WorkingColor(try a.color("inputColor"))
        let reach = p.radius + p.width + 1
        let e = Rect(x: p.center.x - reach, y: p.center.y - reach, width: 2 * reach, height: 2 * reach)
        return Image._generator(named: "lenticular halo", extent: e) { x, y, n, out, linear in
            lenticularHaloRow(x0: x, y: y, count: n, out: out, p, color: c(linear))
        }
    }

    static let starShineGenerator = FilterDescriptor(
        name: "CIStarShineGenerator", displayName: "Star Shine",
        summary:
            "A star burst (an approximation of Core Image's): a white core fading to the color, plus a cross of spikes at crossAngle; infinite extent.",
        categories: [.generator, .highDynamicRange],
        inputs: [
            .position(),
            .color(
                "inputColor", default: Color(red: 1, green: 0.8, blue: 0.6),
                summary: "The color of the outer shell (sRGB, unpremultiplied)."),
            .number(
                "inputRadius", .distance, default: 50, min: 0, sliderMin: 0, sliderMax: 300,
                summary: "The radius of the star's core, in pixels."),
            .number(
                "inputCrossScale", default: 15, min: 0, sliderMin: 0, sliderMax: 100,
                summary: "The length of the spikes, in multiples of the radius times 2^epsilon."),
            .number(
                "inputCrossAngle", .angle, default: 0.6, sliderMin: -Double.pi, sliderMax: Double.pi,
                summary: "The angle of the cross in radians, counterclockwise on screen."),
            .number(
                "inputCrossOpacity", default: -2, min: -8, sliderMin: -8, sliderMax: 0,
                summary: "The spikes' brightness as a power of 2 (-2: a quarter)."),
            .number(
                "inputCrossWidth", .distance, default: 2.5, min: 0, sliderMin: 0, sliderMax: 300,
                summary: "The width of the spikes in pixels (the 1/e half-width)."),
            .number(
                "inputEpsilon", default: -2, min: -8, sliderMin: -8, sliderMax: 0,
                summary: "Scales the spikes' length by 2^epsilon."),
        ]
    ) { a in
        let p = StarShineParameters(
            center: try a.pointValue("inputCenter"), radius: try a.number("inputRadius"),
            crossScale: try a.number("inputCrossScale"), crossAngle: try a.number("inputCrossAngle"),
            crossOpacity: try a.number("inputCrossOpacity"), crossWidth: try a.number("inputCrossWidth"),
            epsilon: try a.number("inputEpsilon"))
        let c = _WorkingColor(try a.color("inputColor"))
        return Image._generator(named: "star shine", extent: .infinite) { x, y, n, out, linear in
            starShineRow(x0: x, y: y, count: n, out: out, p, color: c(linear))
        }
    }

    static let sunbeamsGenerator = FilterDescriptor(
        name: "CISunbeamsGenerator", displayName: "Sunbeams",
        summary:
            "A sun (an approximation of Core Image's): an anti-aliased disc plus angular beams fading out to sunRadius * maxStriationRadius.",
        categories: [.generator, .highDynamicRange],
        inputs: [
            .position(),
            .color(
                "inputColor", default: Color(red: 1, green: 0.5, blue: 0),
                summary: "The color of the sun (sRGB, unpremultiplied)."),
            .number(
                "inputSunRadius", .distance, default: 40, min: 0, sliderMin: 0, sliderMax: 800,
                summary: "The radius of the sun's disc, in pixels."),
            .number(
                "inputMaxStriationRadius", default: 2.58, min: 0, sliderMin: 0, sliderMax: 10,
                summary: "How far the beams reach, in multiples of the sun's radius."),
            .number(
                "inputStriationStrength", default: 0.5, min: 0, sliderMin: 0, sliderMax: 3,
                summary: "The brightness of the beams."),
            .number(
                "inputStriationContrast", default: 1.375, min: 0, sliderMin: 0, sliderMax: 5,
                summary: "The contrast of the beams."),
            .number("inputTime", .time, default: 0, min: 0, max: 1, summary: "Rotates the beam pattern (0...1)."),
        ]
    ) { a in
        let p = SunbeamsParameters(
            center: try a.pointValue("inputCenter"), sunRadius: try a.number("inputSunRadius"),
            maxStriationRadius: try a.number("inputMaxStriationRadius"),
            striationStrength: try a.number("inputStriationStrength"),
            striationContrast: try a.number("inputStriationContrast"), time: try a.number("inputTime"))
        let c = _WorkingColor(try a.color("inputColor"))
        let reach = p.sunRadius * Swift.max(1, p.maxStriationRadius) + 1
        let e = Rect(x: p.center.x - reach, y: p.center.y - reach, width: 2 * reach, height: 2 * reach)
        return Image._generator(named: "sunbeams", extent: e) { x, y, n, out, linear in
            sunbeamsRow(x0: x, y: y, count: n, out: out, p, color: c(linear))
        }
    }
}

extension Image {
    /// A lens-flare halo (`CILenticularHaloGenerator`), an approximation of Core Image's look;
    /// see `lenticularHaloRow` for the formula. Nil arguments take Core Image's defaults.
    public static func lenticularHalo(
        center: Point? = nil, color: Color? = nil, haloRadius: Double? = nil,
        haloWidth: Double? = nil, haloOverlap: Double? = nil,
        striationStrength: Double? = nil, striationContrast: Double? = nil,
        time: Double? = nil
    ) throws -> Image {
        try FilterDescriptor.lenticularHaloGenerator.apply([
            "inputCenter": center.map { .vector([$0.x, $0.y]) }, "inputColor": color.map(FilterValue.color),
            "inputHaloRadius": haloRadius.map(FilterValue.number), "inputHaloWidth": haloWidth.map(FilterValue.number),
            "inputHaloOverlap": haloOverlap.map(FilterValue.number),
            "inputStriationStrength": striationStrength.map(FilterValue.number),
            "inputStriationContrast": striationContrast.map(FilterValue.number), "inputTime": time.map(FilterValue.number),
        ])
    }

    /// A star burst (`CIStarShineGenerator`), an approximation of Core Image's look; see
    /// `starShineRow` for the formula.
    public static func starShine(
        center: Point? = nil, color: Color? = nil, radius: Double? = nil,
        crossScale: Double? = nil, crossAngle: Double? = nil, crossOpacity: Double? = nil,
        crossWidth: Double? = nil, epsilon: Double? = nil
    ) throws -> Image {
        try FilterDescriptor.starShineGenerator.apply([
            "inputCenter": center.map { .vector([$0.x, $0.y]) }, "inputColor": color.map(FilterValue.color),
            "inputRadius": radius.map(FilterValue.number), "inputCrossScale": crossScale.map(FilterValue.number),
            "inputCrossAngle": crossAngle.map(FilterValue.number), "inputCrossOpacity": crossOpacity.map(FilterValue.number),
            "inputCrossWidth": crossWidth.map(FilterValue.number), "inputEpsilon": epsilon.map(FilterValue.number),
        ])
    }

    /// A sun with beams (`CISunbeamsGenerator`), an approximation of Core Image's look; see
    /// `sunbeamsIntensity` for the formula.
    public static func sunbeams(
        center: Point? = nil, color: Color? = nil, sunRadius: Double? = nil,
        maxStriationRadius: Double? = nil, striationStrength: Double? = nil,
        striationContrast: Double? = nil, time: Double? = nil
    ) throws -> Image {
        try FilterDescriptor.sunbeamsGenerator.apply([
            "inputCenter": center.map { .vector([$0.x, $0.y]) }, "inputColor": color.map(FilterValue.color),
            "inputSunRadius": sunRadius.map(FilterValue.number),
            "inputMaxStriationRadius": maxStriationRadius.map(FilterValue.number),
            "inputStriationStrength": striationStrength.map(FilterValue.number),
            "inputStriationContrast": striationContrast.map(FilterValue.number), "inputTime": time.map(FilterValue.number),
        ])
    }
}
