extension FilterDescriptor {
    static let boxBlurFilters: [FilterDescriptor] = [boxBlur, discBlur, bokehBlur]

    static let boxBlur = FilterDescriptor(
        name: "CIBoxBlur", displayName: "Box Blur",
        summary:
            "Averages a (2r+1) x (2r+1) square around each pixel (r = radius rounded); outside the extent counts as transparent.",
        categories: [.blur],
        inputs: [
            .image(),
            .number(
                "inputRadius", .distance, default: 10, identity: 0, min: 0, max: 200,
                sliderMin: 1, sliderMax: 100, summary: "Half the side of the square, in pixels (rounded to a whole number)."),
        ]
    ) { a in
        let r = Int(try a.number("inputRadius").rounded())
        let image = try a.image()
        if r == 0 { return image }
        return image.applyingStencil(.custom(boxStencil(radius: r)))
    }

    static let discBlur = FilterDescriptor(
        name: "CIDiscBlur", displayName: "Disc Blur",
        summary: "Averages the pixels within a disc of the given radius around each pixel.",
        categories: [.blur],
        inputs: [
            .image(),
            .number(
                "inputRadius", .distance, default: 8, identity: 0, min: 0, max: 200,
                sliderMin: 0, sliderMax: 100, summary: "Radius of the disc, in pixels."),
        ]
    ) { a in
        let r = try a.number("inputRadius")
        let image = try a.image()
        if r < 1 { return image }
        return image.applyingStencil(.custom(spanStencil(name: "disc r\(r)", terms: discSpans(radius: r))))
    }

    static let bokehBlur = FilterDescriptor(
        name: "CIBokehBlur", displayName: "Bokeh Blur",
        summary: "A lens-like blur: a disc blur whose outer ring is weighted up, then softened by a small Gaussian.",
        categories: [.blur],
        inputs: [
            .image(),
            .number(
                "inputRadius", .distance, default: 20, min: 0, max: 200, sliderMin: 0, sliderMax: 100,
                summary: "Radius of the disc, in pixels."),
            .number(
                "inputRingAmount", default: 0, min: 0, max: 1,
                summary: "How much brighter the ring is than the inside of the disc (0: a plain disc)."),
            .number(
                "inputRingSize", default: 0.1, min: 0, max: 0.2,
                summary: "Width of the ring as a fraction of the radius."),
            .number(
                "inputSoftness", default: 1, min: 0, max: 10,
                summary: "Standard deviation of the Gaussian applied afterwards, in pixels."),
        ]
    ) { a in
        let r = try a.number("inputRadius"), amount = try a.number("inputRingAmount")
        let size = try a.number("inputRingSize"), softness = try a.number("inputSoftness")
        var image = try a.image()
        if r >= 1 {
            image = image.applyingStencil(
                .custom(
                    spanStencil(
                        name: "bokeh r\(r) ring \(amount) size \(size)",
                        terms: bokehSpans(radius: r, ringAmount: amount, ringSize: size))))
        }
        if softness > 0 { image = image.applyingStencil(.gaussian(sigma: softness)) }
        return image
    }

    /// Spans of the bokeh footprint: weight 1 inside the disc of radius `r (1 - ringSize)` and
    /// `1 + 4 ringAmount` on the ring out to `r` (written as outer disc minus inner disc).
    static func bokehSpans(radius r: Double, ringAmount: Double, ringSize: Double) -> [SpanTerm] {
        let gain = Float(4 * ringAmount)
        let inner = r * (1 - ringSize)
        if gain == 0 || inner >= r { return discSpans(radius: r) }
        return discSpans(radius: r, weight: 1 + gain) + discSpans(radius: inner, weight: -gain)
    }
}

extension Image {
    /// Averages a `(2r+1) x (2r+1)` square around each pixel (`CIBoxBlur`), with `r` the radius
    /// rounded to a whole number. Pixels outside the input count as transparent; blur
    /// `clampedToExtent()` and crop back to avoid dark edges.
    ///
    /// - Parameter radius: 0...200 (default 10).
    /// - Complexity: separable running sums, about 6 operations per pixel whatever the radius.
    ///   The sums restart at absolute multiples of a block (8 pixels up to radius 8, then a power
    ///   of two of at least `2r + 1`, at most 256), so tiles agree bit for bit; radii above 8
    ///   run as a whole-region pass.
    public func boxBlurred(radius: Double? = nil) throws -> Image {
        try FilterDescriptor.boxBlur.apply(["inputImage": .image(self), "inputRadius": radius.map(FilterValue.number)])
    }

    /// Averages the pixels within a disc around each pixel (`CIDiscBlur`): offsets with
    /// `dx^2 + dy^2 <= radius^2`, each with the same weight.
    ///
    /// - Parameter radius: 0...200 (default 8).
    /// - Complexity: O(radius) per pixel: one restarting running sum per disc row.
    public func discBlurred(radius: Double? = nil) throws -> Image {
        try FilterDescriptor.discBlur.apply(["inputImage": .image(self), "inputRadius": radius.map(FilterValue.number)])
    }

    /// A lens-like blur (`CIBokehBlur`), approximated: a disc blur whose outer ring (the last
    /// `ringSize` of the radius) weighs `1 + 4 ringAmount`, followed by a Gaussian of standard
    /// deviation `softness`. Core Image's exact kernel is not published.
    ///
    /// - Complexity: O(radius) per pixel.
    public func bokehBlurred(
        radius: Double? = nil, ringAmount: Double? = nil, ringSize: Double? = nil,
        softness: Double? = nil
    ) throws -> Image {
        try FilterDescriptor.bokehBlur.apply([
            "inputImage": .image(self), "inputRadius": radius.map(FilterValue.number),
            "inputRingAmount": ringAmount.map(FilterValue.number), "inputRingSize": ringSize.map(FilterValue.number),
            "inputSoftness": softness.map(FilterValue.number),
        ])
    }
}

/// The stencil of a box mean of radius `r`.
func boxStencil(radius r: Int) -> StencilKernel {
    let block = BoxPlan.block(radius: r)
    let whole = r > BoxPlan.tileLocalLimit
    let halo = r + block - 1
    return StencilKernel(
        name: "box r\(r)", haloX: halo, haloY: halo, cost: 6,
        capabilities: [.readsInputInPlace, .separableTaps([Float](repeating: 1 / Float(2 * r + 1), count: 2 * r + 1))]
            + (whole ? [.wholeRegion] : [])
    ) { input, output, threads, arena in
        if whole {
            BoxPlan.runPieces(output, size: Swift.max(256, 2 * block), threads: threads) { piece, a in
                boxMeanTile(input, piece, radius: r, block: block, arena: a)
            }
        } else {
            boxMeanTile(input, output, radius: r, block: block, arena: arena)
        }
    }
}

/// The stencil of a weighted span footprint (disc and bokeh blurs), normalized by the sum of
/// its weights; whole-region above `BoxPlan.tileLocalLimit`.
func spanStencil(name: String, terms: [SpanTerm]) -> StencilKernel {
    let reach = terms.map(\.halfWidth).max() ?? 0
    let rows = terms.map { abs($0.dy) }.max() ?? 0
    let block = BoxPlan.block(radius: reach)
    let whole = Swift.max(reach, rows) > BoxPlan.tileLocalLimit
    var total: Double = 0
    for t in terms { total += Double(t.weight) * Double(2 * t.halfWidth + 1) }
    let scale = Float(1 / Swift.max(total, 1e-30))
    return StencilKernel(
        name: name, haloX: reach + block - 1, haloY: rows, cost: 3 * Swift.max(1, terms.count),
        capabilities: [.readsInputInPlace] + (whole ? [.wholeRegion] : [])
    ) { input, output, threads, arena in
        if whole {
            BoxPlan.runPieces(output, size: Swift.max(256, 2 * block), threads: threads) { piece, a in
                spanSumTile(input, piece, terms: terms, scale: scale, block: block, arena: a)
            }
        } else {
            spanSumTile(input, output, terms: terms, scale: scale, block: block, arena: arena)
        }
    }
}
