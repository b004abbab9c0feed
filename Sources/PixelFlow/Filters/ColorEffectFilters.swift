// Color effects: gradient maps (color map, false color, thermal, x-ray), monochrome,
// posterize, palettes, component extremes, mask to alpha, dither and vignettes. Kernels:
// Kernels/ColorEffectKernels.swift.
//
// Two kinds of constants depend on the working space, and their kernels are built for both
// spaces (`ColorKernel.dependingOnWorkingSpace`): colors given as `Color` (sRGB-encoded) and
// colors read from images (gradients, palettes), which are rendered at build time.
// Position-dependent effects (vignettes, dither) combine the image with a generator that
// computes a factor or a noise at each pixel center, through a blend.

extension FilterDescriptor {
    /// The color effects declared in this file, registered in `builtIn`.
    static let colorEffectFilters: [FilterDescriptor] = [
        colorMap, colorMonochrome, colorPosterize, dither, falseColor,
        maskToAlpha, maximumComponent, minimumComponent, palettize,
        thermal, xRay, vignette, vignetteEffect,
    ]

    /// The most pixels a gradient or palette image may have: they are rendered when the
    /// filter is applied and searched per pixel.
    static let maximumPalettePixelCount = 4096

    /// Renders `rect` of `image` into premultiplied working-space values, for a linear working
    /// space and for stored values, with one thread each (the images are small).
    static func _renderWorkingPixels(_ image: Image, rect: Rect) throws -> (linear: [SIMD4<Float>], stored: [SIMD4<Float>]) {
        func pixels(_ b: PixelBuffer) -> [SIMD4<Float>] {
            var out: [SIMD4<Float>] = []
            out.reserveCapacity(b.width * b.height)
            for y in 0..<b.height { for x in 0..<b.width { out.append(b[x, y]) } }
            return out
        }
        let linear = try RenderContext(threadCount: 1, colorManagement: .linear)
            .makeBuffer(image, rect: rect, format: .rgbaF32, colorEncoding: .linear, alphaMode: .premultiplied)
        let stored = try RenderContext(threadCount: 1, colorManagement: .none)
            .makeBuffer(image, rect: rect, format: .rgbaF32, colorEncoding: .sRGB, alphaMode: .premultiplied)
        return (pixels(linear), pixels(stored))
    }

    /// The integral rect of a small image input, or an `invalidParameter` naming `key`.
    static func _smallImageRect(_ image: Image, _ a: FilterArguments, _ key: String, rows: Int? = nil) throws -> Rect {
        let e = image.extent
        guard !e.isInfinite, !e.isEmpty else { throw a.fail(key, "must have a finite, non-empty extent, got \(e)") }
        let r = IntRect(covering: e)
        let height = rows ?? r.height
        guard r.width * height <= maximumPalettePixelCount else {
            throw a.fail(key, "may have at most \(maximumPalettePixelCount) pixels to read, got \(r.width)x\(height)")
        }
        return Rect(x: r.x, y: r.y, width: r.width, height: height)
    }

    /// A gradient map of sRGB-encoded `stops` (evenly spaced), indexed by the sRGB-encoded
    /// luminance; used by the thermal and x-ray looks.
    static func _fixedGradientMap(_ image: Image, name: String, stops: [Color]) -> Image {
        image.applyingColorKernel(
            .dependingOnWorkingSpace(name: name) { linear in
                let table = stops.map { $0.workingStraight(linear: linear) }
                return { p, n in gradientMapRow(p, count: n, table: table, premultipliedTable: false, encodeIndex: linear) }
            })
    }

    static let colorMap = FilterDescriptor(
        name: "CIColorMap", displayName: "Color Map",
        summary: "Replaces each color by the color of a gradient image's first row at the pixel's luminance (0 left, 1 right).",
        categories: [.colorEffect, .interlaced, .nonSquarePixels],
        inputs: [
            .image(),
            FilterInput(
                key: "inputGradientImage",
                summary: "The gradient: its first row (at most 4096 pixels) is read when the filter is applied.",
                attributeType: .gradient, valueClass: .image),
        ]
    ) { a in
        let gradient = try a.image("inputGradientImage")
        let rect = try _smallImageRect(gradient, a, "inputGradientImage", rows: 1)
        let rows = try _renderWorkingPixels(gradient, rect: rect)
        let image = try a.image()
        var tables = rows
        if tables.linear.count == 1 { tables = ([rows.linear[0], rows.linear[0]], [rows.stored[0], rows.stored[0]]) }
        return image.applyingColorKernel(
            .dependingOnWorkingSpace(name: "colorMap", sharesByName: false) { linear in
                let table = linear ? tables.linear : tables.stored
                return { p, n in gradientMapRow(p, count: n, table: table, premultipliedTable: true, encodeIndex: false) }
            })
    }

    static let colorMonochrome = FilterDescriptor(
        name: "CIColorMonochrome", displayName: "Color Monochrome",
        summary: "Tints the image with one color: luminance times the color, mixed with the original by intensity.",
        categories: [.colorEffect, .interlaced, .nonSquarePixels],
        inputs: [
            .image(),
            .color(
                "inputColor", .opaqueColor, default: Color(red: 0.6, green: 0.45, blue: 0.3),
                summary: "The tint, sRGB-encoded."),
            .number(
                "inputIntensity", default: 1, identity: 0, sliderMin: 0, sliderMax: 1,
                summary: "0 leaves the image unchanged, 1 gives the full tint."),
        ]
    ) { a in
        let c = try a.color("inputColor"), i = try a.float("inputIntensity")
        let image = try a.image()
        if i == 0 { return image }
        return image.applyingColorKernel(
            .dependingOnWorkingSpace(name: "monochrome \(c) \(i)") { linear in
                let w = c.workingStraight(linear: linear)
                func row(_ k: Int) -> SIMD4<Float> {
                    var r = rec709 * (w[k] * i)
                    r[k] += 1 - i
                    return r
                }
                let m = ColorMatrix(rows: row(0), row(1), row(2), SIMD4(0, 0, 0, 1))
                return { p, n in colorMatrixRow(p, count: n, matrix: m) }
            })
    }

    static let colorPosterize = FilterDescriptor(
        name: "CIColorPosterize", displayName: "Color Posterize",
        summary: "Snaps each color channel to one of a number of evenly spaced levels between 0 and 1.",
        categories: [.colorEffect, .interlaced, .nonSquarePixels],
        inputs: [
            .image(),
            .number(
                "inputLevels", default: 6, min: 2, sliderMin: 2, sliderMax: 30,
                summary: "Levels per channel, including 0 and 1."),
        ]
    ) { a in
        let levels = try a.float("inputLevels")
        return try a.image().applyingColorKernel(
            ColorKernel(name: "posterize \(levels)") { p, n in
                posterizeRow(p, count: n, levels: levels)
            })
    }

    static let dither = FilterDescriptor(
        name: "CIDither", displayName: "Dither",
        summary: "Adds uniform noise of amplitude intensity to the color channels; the noise is a hash of the pixel position.",
        categories: [.colorEffect],
        inputs: [
            .image(),
            .number(
                "inputIntensity", default: 0.1, identity: 0, sliderMin: 0, sliderMax: 5,
                summary: "The noise spans -intensity/2 ... intensity/2."),
        ]
    ) { a in
        let intensity = try a.float("inputIntensity")
        let image = try a.image()
        if intensity == 0 { return image }
        let noise = Image(
            node: Node(
                .generator(
                    GeneratorKernel(name: "ditherNoise", constant: nil) { x, y, n, out, _ in
                        ditherNoiseFill(x: x, y: y, count: n, out: out)
                    }), inputs: [], extent: .infinite))
        return noise.blended(
            with: image,
            kernel: BlendKernel(name: "addNoise \(intensity)", extentRule: .background) { f, d, n in
                addScaledNoiseRow(f, d, count: n, intensity: intensity)
            })
    }

    static let falseColor = FilterDescriptor(
        name: "CIFalseColor", displayName: "False Color",
        summary: "Maps luminance to a blend of two colors: the first at 0, the second at 1.",
        categories: [.colorEffect, .interlaced, .nonSquarePixels],
        inputs: [
            .image(),
            .color("inputColor0", default: Color(red: 0.3, green: 0, blue: 0), summary: "The color for black, sRGB-encoded."),
            .color("inputColor1", default: Color(red: 1, green: 0.9, blue: 0.8), summary: "The color for white, sRGB-encoded."),
        ]
    ) { a in
        let c0 = try a.color("inputColor0"), c1 = try a.color("inputColor1")
        return try a.image().applyingColorKernel(
            .dependingOnWorkingSpace(name: "falseColor \(c0) \(c1)") { linear in
                let table = [c0.workingStraight(linear: linear), c1.workingStraight(linear: linear)]
                return { p, n in gradientMapRow(p, count: n, table: table, premultipliedTable: false, encodeIndex: false) }
            })
    }

    static let maskToAlpha = FilterDescriptor(
        name: "CIMaskToAlpha", displayName: "Mask to Alpha",
        summary: "Makes a white image whose alpha is the mask's luminance (times its alpha): white opaque, black clear.",
        categories: [.colorEffect, .interlaced, .nonSquarePixels], inputs: [.image(summary: "The mask, usually grayscale.")]
    ) { a in
        try a.image().applyingColorKernel(ColorKernel(name: "maskToAlpha") { p, n in maskToAlphaRow(p, count: n) })
    }

    static let maximumComponent = FilterDescriptor(
        name: "CIMaximumComponent", displayName: "Maximum Component",
        summary: "Replaces each color by the gray of its largest channel: max(r, g, b).",
        categories: [.colorEffect, .interlaced, .nonSquarePixels], inputs: [.image()]
    ) { a in
        try a.image().applyingColorKernel(
            ColorKernel(name: "maxComponent") { p, n in componentExtremeRow(p, count: n, largest: true) })
    }

    static let minimumComponent = FilterDescriptor(
        name: "CIMinimumComponent", displayName: "Minimum Component",
        summary: "Replaces each color by the gray of its smallest channel: min(r, g, b).",
        categories: [.colorEffect, .interlaced, .nonSquarePixels], inputs: [.image()]
    ) { a in
        try a.image().applyingColorKernel(
            ColorKernel(name: "minComponent") { p, n in componentExtremeRow(p, count: n, largest: false) })
    }

    static let palettize = FilterDescriptor(
        name: "CIPalettize", displayName: "Palettize",
        summary: "Replaces each color by the nearest color of a palette image (RGB or CIELAB distance).",
        categories: [.colorEffect, .interlaced, .nonSquarePixels],
        inputs: [
            .image(),
            .image(
                "inputPaletteImage",
                summary: "The palette: every pixel of its extent (at most 4096, usually N x 1), read when the filter is applied."),
            .boolean(
                "inputPerceptual", default: false, summary: "Compare colors by CIELAB (CIE76) distance instead of RGB distance."),
        ]
    ) { a in
        let paletteImage = try a.image("inputPaletteImage")
        let rect = try _smallImageRect(paletteImage, a, "inputPaletteImage")
        let rendered = try _renderWorkingPixels(paletteImage, rect: rect)
        let perceptual = try a.number("inputPerceptual") != 0
        func straight(_ v: [SIMD4<Float>]) -> [SIMD4<Float>] {
            v.map { p in
                var c = p.w > 0 ? p / p.w : .zero
                c.w = 1
                return c
            }
        }
        return try a.image().applyingColorKernel(
            .dependingOnWorkingSpace(name: "palettize", sharesByName: false) { linear in
                let palette = straight(linear ? rendered.linear : rendered.stored)
                let keys = perceptual ? palette.map { rgbToLab($0) } : palette
                return { p, n in palettizeRow(p, count: n, palette: palette, keys: keys, perceptual: perceptual) }
            })
    }

    /// The thermal palette, sRGB-encoded: black, indigo, magenta, red, orange, yellow, white
    /// (an "iron" palette as thermal cameras show).
    static let thermalStops: [Color] = [
        Color(red: 0, green: 0, blue: 0), Color(red: 0.2, green: 0, blue: 0.55), Color(red: 0.65, green: 0, blue: 0.6),
        Color(red: 0.95, green: 0.15, blue: 0.1), Color(red: 1, green: 0.55, blue: 0), Color(red: 1, green: 0.9, blue: 0.1),
        Color(red: 1, green: 1, blue: 1),
    ]

    static let thermal = FilterDescriptor(
        name: "CIThermal", displayName: "Thermal",
        summary: "Approximates a thermal camera: luminance mapped through a black-purple-red-yellow-white palette.",
        categories: [.colorEffect], inputs: [.image()]
    ) { a in
        _fixedGradientMap(try a.image(), name: "thermal", stops: thermalStops)
    }

    static let xRay = FilterDescriptor(
        name: "CIXRay", displayName: "X-Ray",
        summary: "Approximates an x-ray film: inverted luminance with a cool blue-white tint.",
        categories: [.colorEffect], inputs: [.image()]
    ) { a in
        _fixedGradientMap(try a.image(), name: "xRay", stops: [Color(red: 0.82, green: 0.92, blue: 1), .black])
    }

    static let vignette = FilterDescriptor(
        name: "CIVignette", displayName: "Vignette",
        summary:
            "Darkens toward the corners: colors times max(0, 1 - intensity * (d / radius)^2), d the distance to the center over the half diagonal.",
        categories: [.colorEffect, .interlaced],
        inputs: [
            .image(summary: "The image; its extent must be finite (the vignette is centered on it)."),
            .number(
                "inputIntensity", default: 0, identity: 0, sliderMin: -1, sliderMax: 1,
                summary: "How much the corners darken at radius 1 (negative values lighten)."),
            .number(
                "inputRadius", default: 1, min: 0, sliderMin: 0, sliderMax: 2,
                summary: "The distance, as a fraction of the half diagonal, at which the darkening reaches intensity."),
        ]
    ) { a in
        let intensity = try a.number("inputIntensity"), radius = try a.number("inputRadius")
        let image = try a.image()
        if intensity == 0 { return image }
        let e = image.extent
        guard !e.isInfinite, !e.isEmpty else { throw a.fail("inputImage", "must have a finite, non-empty extent, got \(e)") }
        let center = Point(x: e.midX, y: e.midY)
        let half = Swift.max(1e-9, 0.5 * (e.width * e.width + e.height * e.height).squareRoot())
        return _scalingColors(of: image, byFactors: "vignette \(center) \(half) \(radius) \(intensity)") { x, y, n, out, _ in
            for i in 0..<n {
                let f = vignetteFactor(
                    px: Double(x + i) + 0.5, py: Double(y) + 0.5, center: center, halfDiagonal: half, radius: radius,
                    intensity: intensity)
                out[i] = SIMD4(f, f, f, 1)
            }
        }
    }

    static let vignetteEffect = FilterDescriptor(
        name: "CIVignetteEffect", displayName: "Vignette Effect",
        summary: "Darkens outside a circle: colors times 1 - intensity * smoothstep(radius * (1 - falloff), radius, distance).",
        categories: [.colorEffect, .interlaced],
        inputs: [
            .image(),
            .vector("inputCenter", .position, default: [150, 150], summary: "The center of the circle, in pixels."),
            .number(
                "inputRadius", .distance, default: 150, min: 0, sliderMin: 0, sliderMax: 2000,
                summary: "The radius of the circle, in pixels: the darkening is complete beyond it."),
            .number(
                "inputIntensity", default: 1, identity: 0, sliderMin: -1, sliderMax: 1,
                summary: "How much the outside darkens (negative values lighten)."),
            .number(
                "inputFalloff", default: 0.5, min: 0, max: 1,
                summary: "The width of the transition, as a fraction of the radius (0 gives a hard edge)."),
        ]
    ) { a in
        let c = try a.vector("inputCenter")
        let center = Point(x: c[0], y: c[1])
        let radius = try a.number("inputRadius"), intensity = try a.number("inputIntensity")
        let falloff = try a.number("inputFalloff")
        let image = try a.image()
        if intensity == 0 { return image }
        let name = "vignetteEffect \(center) \(radius) \(intensity) \(falloff)"
        return _scalingColors(of: image, byFactors: name) { x, y, n, out, _ in
            for i in 0..<n {
                let f = vignetteEffectFactor(
                    px: Double(x + i) + 0.5, py: Double(y) + 0.5, center: center, radius: radius, intensity: intensity,
                    falloff: falloff)
                out[i] = SIMD4(f, f, f, 1)
            }
        }
    }

    /// `image` with its colors times the gray factor field that `fill` writes (`(f, f, f, 1)`
    /// per pixel, a generator named `name`), by the `scaleColor` blend: the vignettes' shape.
    private static func _scalingColors(
        of image: Image, byFactors name: String,
        fill:
            @escaping @Sendable (_ x: Int, _ y: Int, _ count: Int, _ out: UnsafeMutablePointer<SIMD4<Float>>, _ linear: Bool)
            -> Void
    ) -> Image {
        let factor = Image(
            node: Node(.generator(GeneratorKernel(name: name, constant: nil, fill: fill)), inputs: [], extent: .infinite))
        return factor.blended(
            with: image,
            kernel: BlendKernel(name: "scaleColor", extentRule: .background) { f, d, n in
                scaleColorByFactorRow(f, d, count: n)
            })
    }
}

extension Image {
    /// Maps luminance through the first row of `gradient` (`CIColorMap`): 0 reads its left
    /// pixel, 1 its right one, with linear interpolation of premultiplied colors.
    ///
    /// The gradient row is rendered when this is called (twice, for a linear and a
    /// non-color-managed working space, one thread each), so it must be finite and at most
    /// 4096 pixels wide.
    /// - Complexity: one table lerp per pixel.
    public func colorMap(gradient: Image) throws -> Image {
        try FilterDescriptor.colorMap.apply(["inputImage": .image(self), "inputGradientImage": .image(gradient)])
    }

    /// Luminance times `color`, mixed with the original by `intensity` (`CIColorMonochrome`).
    public func colorMonochrome(color: Color? = nil, intensity: Double? = nil) throws -> Image {
        try FilterDescriptor.colorMonochrome.apply([
            "inputImage": .image(self), "inputColor": color.map(FilterValue.color),
            "inputIntensity": intensity.map(FilterValue.number),
        ])
    }

    /// Snaps each channel to `levels` evenly spaced values (`CIColorPosterize`, default 6).
    public func colorPosterized(levels: Double? = nil) throws -> Image {
        try FilterDescriptor.colorPosterize.apply(["inputImage": .image(self), "inputLevels": levels.map(FilterValue.number)])
    }

    /// Adds position-hashed uniform noise of amplitude `intensity` (`CIDither`, default 0.1).
    /// The noise depends only on the pixel's position, never on tiles or threads.
    public func dithered(intensity: Double? = nil) throws -> Image {
        try FilterDescriptor.dither.apply(["inputImage": .image(self), "inputIntensity": intensity.map(FilterValue.number)])
    }

    /// Maps luminance (clamped to 0...1) to a blend of `color0` and `color1` (`CIFalseColor`).
    public func falseColor(_ color0: Color? = nil, _ color1: Color? = nil) throws -> Image {
        try FilterDescriptor.falseColor.apply([
            "inputImage": .image(self), "inputColor0": color0.map(FilterValue.color),
            "inputColor1": color1.map(FilterValue.color),
        ])
    }

    /// White with alpha from the luminance (`CIMaskToAlpha`).
    public func maskToAlpha() throws -> Image {
        try FilterDescriptor.maskToAlpha.apply(["inputImage": .image(self)])
    }

    /// Gray of the largest color channel (`CIMaximumComponent`).
    public func maximumComponent() throws -> Image {
        try FilterDescriptor.maximumComponent.apply(["inputImage": .image(self)])
    }

    /// Gray of the smallest color channel (`CIMinimumComponent`).
    public func minimumComponent() throws -> Image {
        try FilterDescriptor.minimumComponent.apply(["inputImage": .image(self)])
    }

    /// Replaces each color by the nearest pixel color of `palette` (`CIPalettize`). The palette
    /// is rendered when this is called; it may have at most 4096 pixels.
    /// - Complexity: O(palette size) per pixel.
    public func palettized(palette: Image, perceptual: Bool? = nil) throws -> Image {
        try FilterDescriptor.palettize.apply([
            "inputImage": .image(self), "inputPaletteImage": .image(palette),
            "inputPerceptual": perceptual.map(FilterValue.boolean),
        ])
    }

    /// A thermal-camera look (`CIThermal`), an approximation: see `FilterDescriptor.thermalStops`.
    public func thermal() throws -> Image {
        try FilterDescriptor.thermal.apply(["inputImage": .image(self)])
    }

    /// An x-ray look (`CIXRay`), an approximation: inverted luminance, cool tint.
    public func xRay() throws -> Image {
        try FilterDescriptor.xRay.apply(["inputImage": .image(self)])
    }

    /// Darkens toward the corners of the extent (`CIVignette`).
    public func vignette(intensity: Double? = nil, radius: Double? = nil) throws -> Image {
        try FilterDescriptor.vignette.apply([
            "inputImage": .image(self), "inputIntensity": intensity.map(FilterValue.number),
            "inputRadius": radius.map(FilterValue.number),
        ])
    }

    /// Darkens outside a circle (`CIVignetteEffect`).
    public func vignetteEffect(
        center: Point? = nil, radius: Double? = nil, intensity: Double? = nil,
        falloff: Double? = nil
    ) throws -> Image {
        try FilterDescriptor.vignetteEffect.apply([
            "inputImage": .image(self), "inputCenter": center.map { .vector([$0.x, $0.y]) },
            "inputRadius": radius.map(FilterValue.number), "inputIntensity": intensity.map(FilterValue.number),
            "inputFalloff": falloff.map(FilterValue.number),
        ])
    }
}
