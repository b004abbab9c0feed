extension FilterDescriptor {
    static let medianFilters: [FilterDescriptor] = [medianFilter, median, noiseReduction]

    static let medianFilter = FilterDescriptor(
        name: "CIMedianFilter", displayName: "Median",
        summary: "Replaces each channel by its median over the 3x3 neighbourhood; removes speckle noise and keeps edges.",
        categories: [.blur], inputs: [.image()]
    ) { a in
        try a.image().medianFiltered(radiusInPixels: 1)
    }

    static let median = FilterDescriptor(
        name: "PFMedian", displayName: "Median (any radius)",
        summary:
            "Replaces each channel by its median over a (2r+1) x (2r+1) square: exact for radius 1 and 2, on 256 levels above.",
        categories: [.blur],
        inputs: [
            .image(),
            .number(
                "inputRadius", .integer, default: 2, identity: 0, min: 0, max: 50, sliderMin: 0, sliderMax: 10,
                summary: "Half the side of the square, in whole pixels."),
        ]
    ) { a in
        try a.image().medianFiltered(radiusInPixels: Int(try a.number("inputRadius")))
    }

    static let noiseReduction = FilterDescriptor(
        name: "CINoiseReduction", displayName: "Noise Reduction",
        summary: "Smooths differences below the noise level (a 3x3 sigma filter), then sharpens what is left.",
        categories: [.blur],
        inputs: [
            .image(),
            .number(
                "inputNoiseLevel", default: 0.02, min: 0, max: 1, sliderMin: 0, sliderMax: 0.1,
                summary: "Differences from the center up to this much are averaged away."),
            .number(
                "inputSharpness", default: 0.4, min: 0, max: 10, sliderMin: 0, sliderMax: 2,
                summary: "Strength of the unsharp mask (Gaussian sigma 1) applied after smoothing."),
        ]
    ) { a in
        let level = try a.float("inputNoiseLevel"), sharpness = try a.float("inputSharpness")
        let image = try a.image()
        var out = image.applyingStencil(
            .custom(
                StencilKernel(
                    name: "sigma filter 3x3 \(level)", haloX: 1, haloY: 1, cost: 12
                ) { input, output, _, _ in
                    sigmaFilter3x3Tile(input, output, threshold: level)
                })
        ).cropped(to: image.extent)
        if sharpness > 0 { out = out.unsharpMasked(sigma: 1, intensity: sharpness, lumaOnly: false) }
        return out
    }
}

extension Image {
    /// The 3x3 median per channel (`CIMedianFilter`). See `median(radius:)`.
    public func medianFiltered() throws -> Image {
        try FilterDescriptor.medianFilter.apply(["inputImage": .image(self)])
    }

    /// The median per channel over a `(2r+1) x (2r+1)` square (`PFMedian`), transparent outside
    /// the extent (clamp the image first to match OpenCV's replicated borders).
    ///
    /// - Radius 1 and 2: sorting networks on sorted columns (Paeth's 3x3; for 5x5 Batcher merges
    ///   pruned to the middle output, about 116 min/max per pixel). Exact for any values.
    /// - Radius 3 and up: a sliding histogram (Huang 1979) on values quantized to 256 levels,
    ///   O(r) per pixel. Exact for 8-bit inputs with color management off; otherwise the median
    ///   to the nearest 1/255, clamped to [0, 1].
    public func median(radius: Int? = nil) throws -> Image {
        try FilterDescriptor.median.apply(["inputImage": .image(self), "inputRadius": radius.map { .number(Double($0)) }])
    }

    /// Reduces noise (`CINoiseReduction`), approximated: a 3x3 sigma filter (Lee 1983) averages
    /// each channel over the neighbours within `noiseLevel` of the center, then an unsharp mask
    /// of sigma 1 and intensity `sharpness` restores edges. Core Image's exact method is not
    /// published. - Complexity: about 50 operations per pixel.
    public func noiseReduced(noiseLevel: Double? = nil, sharpness: Double? = nil) throws -> Image {
        try FilterDescriptor.noiseReduction.apply([
            "inputImage": .image(self), "inputNoiseLevel": noiseLevel.map(FilterValue.number),
            "inputSharpness": sharpness.map(FilterValue.number),
        ])
    }

    func medianFiltered(radiusInPixels r: Int) -> Image {
        if r <= 0 { return self }
        return applyingStencil(
            .custom(
                StencilKernel(
                    name: "median r\(r)", haloX: r, haloY: r, cost: r <= 2 ? 20 * r * r : 8 * r,
                    capabilities: [.byteForm(.median(radius: r)), .readsInputInPlace]
                ) {
                    input, output, _, arena in
                    let o = output.rect
                    let w = o.width
                    switch r {
                    case 1:
                        let rows = arena.allocate(3, of: UnsafePointer<SIMD4<Float>>.self)
                        let scratch = arena.allocate(3 * (w + 2), of: SIMD4<Float>.self)
                        for y in o.y..<o.maxY {
                            for j in 0..<3 { rows[j] = UnsafePointer(input.pointer(x: o.x - 1, y: y - 1 + j)) }
                            median3x3Row(rows, count: w, into: output.row(y), scratch: scratch)
                        }
                    case 2:
                        let rows = arena.allocate(5, of: UnsafePointer<SIMD4<Float>>.self)
                        let scratch = arena.allocate(15 * (w + 4), of: SIMD4<Float>.self)
                        for y in o.y..<o.maxY {
                            for j in 0..<5 { rows[j] = UnsafePointer(input.pointer(x: o.x - 2, y: y - 2 + j)) }
                            median5x5Row(rows, count: w, into: output.row(y), scratch: scratch)
                        }
                    default:
                        let iw = w + 2 * r, ih = o.height + 2 * r
                        let levels = arena.allocate(iw * ih, of: SIMD4<UInt8>.self)
                        for j in 0..<ih {
                            quantizeLevelsRow(
                                UnsafePointer(input.pointer(x: o.x - r, y: o.y - r + j)), count: iw, into: levels + j * iw)
                        }
                        medianHistogramTile(levels, stride: iw, radius: r, count: w, height: o.height, into: output)
                    }
                }))
    }
}
