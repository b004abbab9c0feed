// Pattern and shape generators: checkerboard, stripes, rounded rectangles (filled and
// stroked), blurred rectangle, mesh of lines, uniform noise. Each builds one generator node
// whose row function lives in Kernels/GeneratorKernels.swift.
//
// Positions are in image coordinates, origin top-left, y down (Core Image's are bottom-left,
// y up, so a center or rect that is symmetric about the image's middle row lands in the same
// place, and others appear mirrored vertically).

/// A color given to a generator, converted once for both working spaces.
struct _WorkingColor: Sendable {
    let stored: SIMD4<Float>
    let linear: SIMD4<Float>
    init(_ c: Color) {
        stored = c.working(linear: false)
        linear = c.working(linear: true)
    }
    @inline(__always) func callAsFunction(_ isLinear: Bool) -> SIMD4<Float> { isLinear ? linear : stored }
}

extension Image {
    /// A generator node: `fill(x, y, count, out, linear)` writes `count` premultiplied
    /// working-space pixels of row `y` from column `x`.
    static func _generator(
        named name: String, extent: Rect,
        _ fill: @escaping @Sendable (Int, Int, Int, UnsafeMutablePointer<SIMD4<Float>>, Bool) -> Void
    ) -> Image {
        let k = GeneratorKernel(name: name, constant: nil, sharesByName: false, fill: fill)
        return Image(node: Node(.generator(k), inputs: [], extent: extent))
    }
}

extension FilterArguments {
    /// A position input `[x y]` as a point.
    func pointValue(_ key: String) throws -> Point {
        let v = try vector(key)
        guard v.count == 2 else { throw fail(key, "must have 2 components") }
        return Point(x: v[0], y: v[1])
    }

    /// A rectangle input `[x y width height]` as a rect.
    func rectValue(_ key: String) throws -> Rect {
        let v = try vector(key)
        guard v.count == 4 else { throw fail(key, "must have 4 components") }
        return Rect(x: v[0], y: v[1], width: v[2], height: v[3])
    }
}

extension FilterInput {
    /// A position `[x y]` in pixels, origin top-left, y down.
    static func position(
        _ key: String = "inputCenter", default value: [Double] = [150, 150],
        summary: String = "The center, [x y] in pixels (origin top-left, y down)."
    ) -> FilterInput {
        .vector(key, .position, default: value, summary: summary)
    }

    /// A rectangle `[x y width height]` in pixels.
    static func rectangle(_ key: String = "inputExtent", default value: [Double], summary: String) -> FilterInput {
        .vector(key, .rectangle, default: value, summary: summary)
    }
}

extension FilterDescriptor {
    static let shapeGeneratorFilters: [FilterDescriptor] = [
        checkerboardGenerator, stripesGenerator, roundedRectangleGenerator, roundedRectangleStrokeGenerator,
        blurredRectangleGenerator, meshGenerator, randomGenerator,
    ]

    static let checkerboardGenerator = FilterDescriptor(
        name: "CICheckerboardGenerator", displayName: "Checkerboard",
        summary:
            "An infinite checkerboard of two colors; squares of width pixels with a corner at the center, edges ramped over max(1, (1 - sharpness) * width) pixels.",
        categories: [.generator, .highDynamicRange],
        inputs: [
            .position(),
            .color(
                "inputColor0", default: .white,
                summary: "The color of the square right of and below the center (sRGB, unpremultiplied)."),
            .color("inputColor1", default: .black, summary: "The color of the other squares."),
            .number(
                "inputWidth", .distance, default: 80, min: 0, sliderMin: 0, sliderMax: 800,
                summary: "The width of a square in pixels (0 gives the average of the colors)."),
            .number(
                "inputSharpness", default: 1, min: 0, max: 1,
                summary: "1 gives anti-aliased sharp edges; smaller values ramp between the colors."),
        ]
    ) { a in
        let c = try a.pointValue("inputCenter")
        let p = PeriodicPattern(
            centerX: c.x, centerY: c.y, width: try a.number("inputWidth"), sharpness: try a.number("inputSharpness"))
        let c0 = _WorkingColor(try a.color("inputColor0")), c1 = _WorkingColor(try a.color("inputColor1"))
        return Image._generator(named: "checkerboard", extent: .infinite) { x, y, n, out, linear in
            checkerboardRow(x0: x, y: y, count: n, out: out, pattern: p, color0: c0(linear), color1: c1(linear))
        }
    }

    static let stripesGenerator = FilterDescriptor(
        name: "CIStripesGenerator", displayName: "Stripes",
        summary:
            "Infinite vertical stripes of two colors, width pixels each, starting at the center's x; edges ramped as the checkerboard's.",
        categories: [.generator, .highDynamicRange],
        inputs: [
            .position(),
            .color(
                "inputColor0", default: .white, summary: "The color of the stripe right of the center (sRGB, unpremultiplied)."),
            .color("inputColor1", default: .black, summary: "The color of the other stripes."),
            .number(
                "inputWidth", .distance, default: 80, min: 0, sliderMin: 0, sliderMax: 800,
                summary: "The width of a stripe in pixels (0 gives the average of the colors)."),
            .number(
                "inputSharpness", default: 1, min: 0, max: 1,
                summary: "1 gives anti-aliased sharp edges; smaller values ramp between the colors."),
        ]
    ) { a in
        let c = try a.pointValue("inputCenter")
        let p = PeriodicPattern(
            centerX: c.x, centerY: c.y, width: try a.number("inputWidth"), sharpness: try a.number("inputSharpness"))
        let c0 = _WorkingColor(try a.color("inputColor0")), c1 = _WorkingColor(try a.color("inputColor1"))
        return Image._generator(named: "stripes", extent: .infinite) { x, y, n, out, linear in
            stripesRow(x0: x, y: y, count: n, out: out, pattern: p, color0: c0(linear), color1: c1(linear))
        }
    }

    static let roundedRectangleGenerator = FilterDescriptor(
        name: "CIRoundedRectangleGenerator", displayName: "Rounded Rectangle",
        summary: "A rectangle with rounded corners filled with a color, anti-aliased by pixel coverage; transparent outside.",
        categories: [.generator, .highDynamicRange],
        inputs: [
            .rectangle(default: [0, 0, 100, 100], summary: "The rectangle [x y width height] in pixels."),
            .number(
                "inputRadius", .distance, default: 10, min: 0, sliderMin: 0, sliderMax: 100,
                summary: "The corner radius in pixels (at most half the shorter side)."),
            .color("inputColor", default: .white, summary: "The fill color (sRGB, unpremultiplied)."),
        ]
    ) { a in
        let r = try a.rectValue("inputExtent"), radius = try a.number("inputRadius")
        let c = _WorkingColor(try a.color("inputColor"))
        if r.isEmpty { return .empty }
        return Image._generator(named: "rounded rectangle", extent: r) { x, y, n, out, linear in
            roundedRectangleRow(x0: x, y: y, count: n, out: out, rect: r, radius: radius, strokeWidth: nil, color: c(linear))
        }
    }

    static let roundedRectangleStrokeGenerator = FilterDescriptor(
        name: "CIRoundedRectangleStrokeGenerator", displayName: "Rounded Rectangle Stroke",
        summary: "The outline of a rounded rectangle: a band width pixels wide inside its edge, anti-aliased by pixel coverage.",
        categories: [.generator, .highDynamicRange],
        inputs: [
            .rectangle(default: [0, 0, 100, 100], summary: "The outer rectangle [x y width height] in pixels."),
            .number(
                "inputRadius", .distance, default: 10, min: 0, sliderMin: 0, sliderMax: 100,
                summary: "The outer corner radius in pixels (at most half the shorter side)."),
            .color("inputColor", default: .white, summary: "The stroke color (sRGB, unpremultiplied)."),
            .number(
                "inputWidth", .distance, default: 10, min: 0, sliderMin: 0, sliderMax: 100,
                summary: "The stroke width in pixels, inside the rectangle."),
        ]
    ) { a in
        let r = try a.rectValue("inputExtent"), radius = try a.number("inputRadius"), w = try a.number("inputWidth")
        let c = _WorkingColor(try a.color("inputColor"))
        if r.isEmpty { return .empty }
        return Image._generator(named: "rounded rectangle stroke", extent: r) { x, y, n, out, linear in
            roundedRectangleRow(x0: x, y: y, count: n, out: out, rect: r, radius: radius, strokeWidth: w, color: c(linear))
        }
    }

    static let blurredRectangleGenerator = FilterDescriptor(
        name: "CIBlurredRectangleGenerator", displayName: "Blurred Rectangle",
        summary:
            "A rectangle of color blurred by a Gaussian of standard deviation sigma, computed exactly with erf (separable); extent grows by 4 sigma.",
        categories: [.generator, .highDynamicRange],
        inputs: [
            .rectangle(default: [0, 0, 100, 100], summary: "The rectangle [x y width height] before blurring, in pixels."),
            .number(
                "inputSigma", .distance, default: 10, min: 0, sliderMin: 0, sliderMax: 100,
                summary: "The standard deviation of the blur in pixels (0: sharp, pixel coverage)."),
            .color("inputColor", default: .white, summary: "The color (sRGB, unpremultiplied)."),
        ]
    ) { a in
        let r = try a.rectValue("inputExtent"), sigma = try a.number("inputSigma")
        let c = _WorkingColor(try a.color("inputColor"))
        if r.isEmpty { return .empty }
        let m = 4 * sigma
        return Image._generator(named: "blurred rectangle", extent: r.insetBy(dx: -m, dy: -m)) { x, y, n, out, linear in
            blurredRectangleRow(x0: x, y: y, count: n, out: out, rect: r, sigma: sigma, color: c(linear))
        }
    }

    static let meshGenerator = FilterDescriptor(
        name: "CIMeshGenerator", displayName: "Mesh",
        summary:
            "Anti-aliased lines of a color along line segments, given as one vector [x0 y0 x1 y1 ...] of 4 numbers per segment.",
        categories: [.generator, .highDynamicRange],
        inputs: [
            .number(
                "inputWidth", .distance, default: 1.5, min: 0, sliderMin: 0, sliderMax: 20,
                summary: "The line width in pixels."),
            .color("inputColor", default: .white, summary: "The line color (sRGB, unpremultiplied)."),
            FilterInput(
                key: "inputMesh",
                summary:
                    "The segments: [x0 y0 x1 y1] per segment, in pixels, concatenated (Core Image takes an array of 4-vectors).",
                attributeType: nil, valueClass: .vector, defaultValue: .vector([])),
        ]
    ) { a in
        let w = try a.number("inputWidth"), mesh = try a.vector("inputMesh")
        let c = _WorkingColor(try a.color("inputColor"))
        guard mesh.count % 4 == 0 else {
            throw a.fail("inputMesh", "must have 4 numbers per segment [x0 y0 x1 y1], got \(mesh.count) numbers")
        }
        if mesh.isEmpty || w == 0 { return .empty }
        var minX = Double.infinity, minY = Double.infinity, maxX = -Double.infinity, maxY = -Double.infinity
        for k in stride(from: 0, to: mesh.count, by: 2) {
            minX = Swift.min(minX, mesh[k]); maxX = Swift.max(maxX, mesh[k])
            minY = Swift.min(minY, mesh[k + 1]); maxY = Swift.max(maxY, mesh[k + 1])
        }
        let m = w / 2 + 1
        let e = Rect(minX: minX - m, minY: minY - m, maxX: maxX + m, maxY: maxY + m)
        return Image._generator(named: "mesh", extent: e) { x, y, n, out, linear in
            meshRow(x0: x, y: y, count: n, out: out, segments: mesh, width: w, color: c(linear))
        }
    }

    static let randomGenerator = FilterDescriptor(
        name: "CIRandomGenerator", displayName: "Random Generator",
        summary:
            "Infinite uniform noise: each pixel's R, G, B and A are independent numbers in [0, 1) hashed from its position (lowbias32), in the working space.",
        categories: [.generator], inputs: []
    ) { _ in
        Image._generator(named: "random", extent: .infinite) { x, y, n, out, _ in
            randomRow(x0: x, y: y, count: n, out: out)
        }
    }
}

extension Image {
    /// An infinite checkerboard (`CICheckerboardGenerator`): squares of `width` pixels, the one
    /// whose top-left corner is `center` in `color0`; edges ramp over `max(1, (1 - sharpness) * width)` pixels.
    /// - Parameters: width 0... (default 80); sharpness 0...1 (default 1).
    /// - Complexity: a few operations per pixel.
    public static func checkerboard(
        center: Point? = nil, color0: Color? = nil, color1: Color? = nil,
        width: Double? = nil, sharpness: Double? = nil
    ) throws -> Image {
        try FilterDescriptor.checkerboardGenerator.apply([
            "inputCenter": center.map { .vector([$0.x, $0.y]) }, "inputColor0": color0.map(FilterValue.color),
            "inputColor1": color1.map(FilterValue.color), "inputWidth": width.map(FilterValue.number),
            "inputSharpness": sharpness.map(FilterValue.number),
        ])
    }

    /// Infinite vertical stripes (`CIStripesGenerator`), `width` pixels each, `color0` right of `center.x`.
    public static func stripes(
        center: Point? = nil, color0: Color? = nil, color1: Color? = nil,
        width: Double? = nil, sharpness: Double? = nil
    ) throws -> Image {
        try FilterDescriptor.stripesGenerator.apply([
            "inputCenter": center.map { .vector([$0.x, $0.y]) }, "inputColor0": color0.map(FilterValue.color),
            "inputColor1": color1.map(FilterValue.color), "inputWidth": width.map(FilterValue.number),
            "inputSharpness": sharpness.map(FilterValue.number),
        ])
    }

    /// A filled rounded rectangle (`CIRoundedRectangleGenerator`); its extent is `rect`.
    public static func roundedRectangle(_ rect: Rect, radius: Double? = nil, color: Color? = nil) throws -> Image {
        try FilterDescriptor.roundedRectangleGenerator.apply([
            "inputExtent": .vector([rect.x, rect.y, rect.width, rect.height]),
            "inputRadius": radius.map(FilterValue.number), "inputColor": color.map(FilterValue.color),
        ])
    }

    /// The outline of a rounded rectangle (`CIRoundedRectangleStrokeGenerator`): a band of
    /// `width` pixels inside `rect`'s rounded edge.
    public static func roundedRectangleStroke(
        _ rect: Rect, radius: Double? = nil, color: Color? = nil,
        width: Double? = nil
    ) throws -> Image {
        try FilterDescriptor.roundedRectangleStrokeGenerator.apply([
            "inputExtent": .vector([rect.x, rect.y, rect.width, rect.height]),
            "inputRadius": radius.map(FilterValue.number), "inputColor": color.map(FilterValue.color),
            "inputWidth": width.map(FilterValue.number),
        ])
    }

    /// A rectangle blurred by a Gaussian of `sigma` pixels (`CIBlurredRectangleGenerator`),
    /// computed in closed form: `color * Fx(x) * Fy(y)`, `F` the difference of two erf.
    public static func blurredRectangle(_ rect: Rect, sigma: Double? = nil, color: Color? = nil) throws -> Image {
        try FilterDescriptor.blurredRectangleGenerator.apply([
            "inputExtent": .vector([rect.x, rect.y, rect.width, rect.height]),
            "inputSigma": sigma.map(FilterValue.number), "inputColor": color.map(FilterValue.color),
        ])
    }

    /// Anti-aliased lines along `segments` (`CIMeshGenerator`), each `(start, end)`.
    /// - Complexity: O(segments) per pixel of the segments' bounding box.
    public static func mesh(_ segments: [(Point, Point)], width: Double? = nil, color: Color? = nil) throws -> Image {
        try FilterDescriptor.meshGenerator.apply([
            "inputMesh": .vector(segments.flatMap { [$0.0.x, $0.0.y, $0.1.x, $0.1.y] }),
            "inputWidth": width.map(FilterValue.number), "inputColor": color.map(FilterValue.color),
        ])
    }

    /// Infinite uniform noise (`CIRandomGenerator`): a pure function of the pixel position, so
    /// any rect renders the same values wherever it is rendered from.
    public static func random() throws -> Image {
        try FilterDescriptor.randomGenerator.apply([:])
    }
}
