extension FilterDescriptor {
    static let morphologyFilters: [FilterDescriptor] = [
        morphologyMaximum, morphologyMinimum, morphologyGradient, morphologyRectangleMaximum, morphologyRectangleMinimum,
    ]

    static func morphologyRadius(default value: Double, identity: Double?) -> FilterInput {
        .number(
            "inputRadius", .distance, default: value, identity: identity, min: 0, max: 100, sliderMin: 0, sliderMax: 50,
            summary: "Radius of the disc-shaped structuring element, in pixels.")
    }

    static func rectangleSide(_ key: String, _ what: String) -> FilterInput {
        .number(
            key, .distance, default: 5, min: 1, max: 401, sliderMin: 1, sliderMax: 49,
            summary: "\(what) of the structuring element in pixels (rounded, then up to an odd number).")
    }

    static let morphologyMaximum = FilterDescriptor(
        name: "CIMorphologyMaximum", displayName: "Morphology Maximum",
        summary: "Dilation: each channel becomes its maximum over a disc around the pixel.",
        categories: [.blur], inputs: [.image(), morphologyRadius(default: 0, identity: 0)]
    ) { a in
        try a.image().morphology(maximum: true, radius: try a.number("inputRadius"))
    }

    static let morphologyMinimum = FilterDescriptor(
        name: "CIMorphologyMinimum", displayName: "Morphology Minimum",
        summary: "Erosion: each channel becomes its minimum over a disc around the pixel.",
        categories: [.blur], inputs: [.image(), morphologyRadius(default: 0, identity: 0)]
    ) { a in
        try a.image().morphology(maximum: false, radius: try a.number("inputRadius"))
    }

    static let morphologyGradient = FilterDescriptor(
        name: "CIMorphologyGradient", displayName: "Morphology Gradient",
        summary: "Edges: the maximum minus the minimum over a disc around each pixel, per channel.",
        categories: [.blur], inputs: [.image(), morphologyRadius(default: 5, identity: nil)]
    ) { a in
        let r = try a.number("inputRadius")
        let image = try a.image()
        let spans = discSpans(radius: r)
        let reach = Int(r.rounded(.down))
        return image.applyingStencil(
            .custom(
                StencilKernel(
                    name: "morphology gradient r\(r)", haloX: reach, haloY: reach, cost: 8 * spans.count,
                    capabilities: [.readsInputInPlace]
                ) { input, output, _, arena in
                    let lo = arena.tile(output.rect)
                    discExtremumTile(_Maximum.self, input, output, spans: spans, arena: arena)
                    discExtremumTile(_Minimum.self, input, lo, spans: spans, arena: arena)
                    for y in output.rect.y..<output.rect.maxY {
                        let d = output.row(y), l = lo.row(y)
                        for x in 0..<output.rect.width { d[x] = d[x] - l[x] }
                    }
                }))
    }

    static let morphologyRectangleMaximum = FilterDescriptor(
        name: "CIMorphologyRectangleMaximum", displayName: "Morphology Rectangle Maximum",
        summary: "Dilation by a rectangle: each channel becomes its maximum over a width x height window.",
        categories: [.blur], inputs: [.image(), rectangleSide("inputWidth", "Width"), rectangleSide("inputHeight", "Height")]
    ) { a in
        try a.image().rectangleMorphology(maximum: true, width: try a.number("inputWidth"), height: try a.number("inputHeight"))
    }

    static let morphologyRectangleMinimum = FilterDescriptor(
        name: "CIMorphologyRectangleMinimum", displayName: "Morphology Rectangle Minimum",
        summary: "Erosion by a rectangle: each channel becomes its minimum over a width x height window.",
        categories: [.blur], inputs: [.image(), rectangleSide("inputWidth", "Width"), rectangleSide("inputHeight", "Height")]
    ) { a in
        try a.image().rectangleMorphology(maximum: false, width: try a.number("inputWidth"), height: try a.number("inputHeight"))
    }

    /// A rectangle side as the odd window size used: rounded, then up to odd.
    static func oddSide(_ v: Double) -> Int { Swift.max(1, Int(v.rounded()) | 1) }
}

extension Image {
    /// Dilation (`maximum`, `CIMorphologyMaximum`) or erosion (`CIMorphologyMinimum`) with a disc:
    /// each channel becomes its maximum or minimum over the offsets with `dx^2 + dy^2 <= radius^2`.
    /// Outside the extent counts as transparent (zero).
    ///
    /// - Complexity: O(radius) per pixel: per disc row a van Herk/Gil-Werman running extremum
    ///   (3 operations per pixel) or a direct scan for rows up to 7 pixels.
    public func morphologyMaximum(radius: Double? = nil) throws -> Image {
        try FilterDescriptor.morphologyMaximum.apply(["inputImage": .image(self), "inputRadius": radius.map(FilterValue.number)])
    }

    /// Erosion with a disc (`CIMorphologyMinimum`); see `morphologyMaximum(radius:)`.
    public func morphologyMinimum(radius: Double? = nil) throws -> Image {
        try FilterDescriptor.morphologyMinimum.apply(["inputImage": .image(self), "inputRadius": radius.map(FilterValue.number)])
    }

    /// The morphological gradient (`CIMorphologyGradient`): dilation minus erosion with a disc
    /// of `radius`, per channel. - Complexity: twice `morphologyMaximum`.
    public func morphologyGradient(radius: Double? = nil) throws -> Image {
        try FilterDescriptor.morphologyGradient.apply(["inputImage": .image(self), "inputRadius": radius.map(FilterValue.number)])
    }

    /// Dilation by a `width` x `height` rectangle (`CIMorphologyRectangleMaximum`); sides are
    /// rounded, then made odd by adding one, so the window is centered.
    ///
    /// - Complexity: separable; per axis `side - 1` operations per pixel up to 7, else 3 (van
    ///   Herk/Gil-Werman with blocks aligned to absolute multiples of the side).
    public func morphologyRectangleMaximum(width: Double? = nil, height: Double? = nil) throws -> Image {
        try FilterDescriptor.morphologyRectangleMaximum.apply([
            "inputImage": .image(self), "inputWidth": width.map(FilterValue.number),
            "inputHeight": height.map(FilterValue.number),
        ])
    }

    /// Erosion by a `width` x `height` rectangle (`CIMorphologyRectangleMinimum`).
    public func morphologyRectangleMinimum(width: Double? = nil, height: Double? = nil) throws -> Image {
        try FilterDescriptor.morphologyRectangleMinimum.apply([
            "inputImage": .image(self), "inputWidth": width.map(FilterValue.number),
            "inputHeight": height.map(FilterValue.number),
        ])
    }

    func morphology(maximum: Bool, radius r: Double) -> Image {
        if r < 1 { return self }
        let spans = discSpans(radius: r)
        let reach = Int(r.rounded(.down))
        return applyingStencil(
            .custom(
                StencilKernel(
                    name: "morphology \(maximum ? "max" : "min") r\(r)", haloX: reach, haloY: reach, cost: 4 * spans.count,
                    capabilities: [.byteForm(.spans(maximum: maximum, spans: spans)), .readsInputInPlace]
                ) { input, output, _, arena in
                    if maximum {
                        discExtremumTile(_Maximum.self, input, output, spans: spans, arena: arena)
                    } else {
                        discExtremumTile(_Minimum.self, input, output, spans: spans, arena: arena)
                    }
                }))
    }

    func rectangleMorphology(maximum: Bool, width: Double, height: Double) -> Image {
        let w = FilterDescriptor.oddSide(width), h = FilterDescriptor.oddSide(height)
        if w == 1 && h == 1 { return self }
        return applyingStencil(
            .custom(
                StencilKernel(
                    name: "morphology rect \(maximum ? "max" : "min") \(w)x\(h)", haloX: w / 2, haloY: h / 2,
                    cost: 6,
                    capabilities: [.byteForm(.rectangle(maximum: maximum, width: w, height: h)), .readsInputInPlace]
                        + (w > 64 || h > 64 ? [.wholeRegion] : [])
                ) {
                    input, output, threads, arena in
                    if w > 64 || h > 64 {
                        BoxPlan.runPieces(output, size: 256, threads: threads) { piece, a in
                            if maximum {
                                rectangleExtremumTile(_Maximum.self, input, piece, width: w, height: h, arena: a)
                            } else {
                                rectangleExtremumTile(_Minimum.self, input, piece, width: w, height: h, arena: a)
                            }
                        }
                    } else if maximum {
                        rectangleExtremumTile(_Maximum.self, input, output, width: w, height: h, arena: arena)
                    } else {
                        rectangleExtremumTile(_Minimum.self, input, output, width: w, height: h, arena: arena)
                    }
                }))
    }
}
