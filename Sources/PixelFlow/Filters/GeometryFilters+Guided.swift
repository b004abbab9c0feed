// Guided filtering (CIGuidedFilter) and guided upsampling (CIEdgePreserveUpsampleFilter).
//
// Both run He, Sun and Tang's guided filter ("Guided Image Filtering", ECCV 2010; TPAMI 35(6),
// 2013) with the guide's Rec. 709 luma as a gray guide: the output is, in every window, an
// affine function of the guide's luma fitted to the input by least squares (regularized by
// epsilon), averaged over the windows covering the pixel. Box means are running sums, so the
// cost does not depend on the radius. The input is first resampled (bilinear, edges repeated)
// onto the guide's extent when the two differ: that is the guided upsampling of He et al.
// (section 4.5 of the TPAMI paper), which CIEdgePreserveUpsampleFilter uses here in place of
// joint bilateral upsampling. Both images are read with their edge pixels repeated, and the
// output has the guide's extent.

extension FilterDescriptor {
    static let guidedFilters: [FilterDescriptor] = [guidedFilter, edgePreserveUpsample]

    /// Radii above this are rejected: the filter's halo is about twice the radius.
    static let guidedFilterMaximumRadius = 50.0

    static let guidedFilter = FilterDescriptor(
        name: "CIGuidedFilter", displayName: "Guided Filter",
        summary:
            "Smooths the image while keeping the guide's edges (He et al.'s guided filter, gray guide = the guide's luma); the image is first resampled onto the guide's extent when they differ.",
        categories: [.geometryAdjustment],
        inputs: [
            .image(summary: "The image to filter (upsampled onto the guide's extent when smaller)."),
            .image("inputGuideImage", summary: "The guide: its luma's edges are kept. It sets the output's extent."),
            .number(
                "inputRadius", .distance, default: 1, identity: 0, min: 0, max: guidedFilterMaximumRadius, sliderMin: 0,
                sliderMax: 20,
                summary: "Half the side of the square windows, in guide pixels (rounded to a whole number)."),
            .number(
                "inputEpsilon", default: 0.0001, min: 0, max: 1, sliderMin: 0, sliderMax: 0.1,
                summary: "Regularization: luma variances well below it are smoothed over, well above it kept as edges."),
        ]
    ) { a in
        let r = Int(try a.number("inputRadius").rounded())
        return try _guided(
            try a.image(), guide: try a.image("inputGuideImage"), radius: r,
            epsilon: Float(try a.number("inputEpsilon")), arguments: a, guideKey: "inputGuideImage")
    }

    static let edgePreserveUpsample = FilterDescriptor(
        name: "CIEdgePreserveUpsampleFilter", displayName: "Edge Preserve Upsample Filter",
        summary:
            "Upsamples the small image to the input image's extent, then guided-filters it with the input image's luma as guide, so the result follows the large image's edges.",
        categories: [.geometryAdjustment],
        inputs: [
            .image(summary: "The large image whose luma guides the upsampling; it sets the output's extent."),
            .image("inputSmallImage", summary: "The small image to upsample."),
            .number(
                "inputSpatialSigma", default: 3, min: 0, max: 5, sliderMin: 0, sliderMax: 5,
                summary:
                    "The window radius in small-image pixels (times the upsampling factor, rounded, at most 50 guide pixels); 0 gives plain bilinear upsampling."
            ),
            .number(
                "inputLumaSigma", default: 0.15, min: 0, max: 1, sliderMin: 0, sliderMax: 1,
                summary: "Luma difference that counts as an edge; its square is the guided filter's epsilon."),
        ]
    ) { a in
        let guide = try a.image(), small = try a.image("inputSmallImage")
        let spatial = try a.number("inputSpatialSigma"), luma = try a.number("inputLumaSigma")
        let ge = guide.extent, se = small.extent
        var factor = 1.0
        if !ge.isInfinite, !se.isInfinite, se.width > 0, se.height > 0 {
            factor = Swift.max(1, ge.width / se.width, ge.height / se.height)
        }
        let r = Int(Swift.min(guidedFilterMaximumRadius, (spatial * factor).rounded()))
        return try _guided(
            small, guide: guide, radius: r, epsilon: Float(luma * luma), arguments: a, guideKey: "inputImage",
            inputKey: "inputSmallImage")
    }

    /// `p` resampled onto the guide's extent and guided-filtered by the guide's luma.
    static func _guided(
        _ p: Image, guide: Image, radius r: Int, epsilon: Float, arguments a: FilterArguments,
        guideKey: String, inputKey: String = "inputImage"
    ) throws -> Image {
        let ge = guide.extent
        guard !ge.isInfinite else { throw a.fail(guideKey, "must have a finite extent (it sets the output's); crop it first") }
        if ge.isEmpty { return .empty }
        let upsampled = try p._resampled(onto: ge, key: inputKey, arguments: a)
        if r == 0 { return upsampled }
        let halo = guidedFilterHalo(radius: r), whole = r > 8
        let k = StencilKernel.reading(
            [.output(grownBy: (halo, halo))], name: "guidedFilter r\(r) eps\(epsilon)", haloX: halo, haloY: halo,
            wholeRegion: whole, cost: 40
        ) { inputs, out, threads, arena in
            if whole {
                BoxPlan.runPieces(out, size: 256, threads: threads) { piece, pieceArena in
                    guidedFilterTile(inputs[0], inputs[1], piece, radius: r, epsilon: epsilon, arena: pieceArena)
                }
            } else {
                guidedFilterTile(inputs[0], inputs[1], out, radius: r, epsilon: epsilon, arena: arena)
            }
        }
        return upsampled.clampedToExtent().applyingStencil(k, reading: [guide.clampedToExtent()], extent: .infinite).cropped(
            to: ge)
    }
}

extension Image {
    /// The image scaled (bilinear, edge pixels repeated) so that its extent becomes `target`;
    /// the image itself when it already has that extent, cropped to it when it is infinite.
    func _resampled(onto target: Rect, key: String, arguments a: FilterArguments) throws -> Image {
        let e = extent
        if e == target { return self }
        // An image defined everywhere (a constant color, a clamped image) is used as it is.
        if e.isInfinite { return cropped(to: target) }
        guard e.width > 0, e.height > 0 else {
            throw a.fail(key, "must have a finite, non-empty extent to be resampled onto \(target), got \(e)")
        }
        let sx = target.width / e.width, sy = target.height / e.height
        let t = AffineTransform(a: sx, b: 0, c: 0, d: sy, tx: target.x - e.x * sx, ty: target.y - e.y * sy)
        return try clampedToExtent().transformed(by: t, sampling: .bilinear).cropped(to: target)
    }

    /// Smooths the image while keeping `guide`'s edges (`CIGuidedFilter`): He et al.'s guided
    /// filter with the guide's Rec. 709 luma `I` as a gray guide. In each `(2r+1)^2` window the
    /// output is `a I + b`, the least-squares fit of the image (each premultiplied channel) by
    /// `I` with `a` regularized by `epsilon`; the fits of the windows covering a pixel are
    /// averaged. The image is first resampled onto the guide's extent when the extents differ.
    ///
    /// - Parameters:
    ///   - guide: the image whose edges the smoothing keeps.
    ///   - radius: window half-side in guide pixels, 0...50 (default 1), rounded; 0 returns the
    ///     (resampled) image.
    ///   - epsilon: regularization, 0...1 (default 0.0001).
    /// - Complexity: five box means by running sums, about 40 operations per pixel whatever
    ///   the radius; radii above 8 run as a whole-region pass.
    public func guidedFiltered(guide: Image, radius: Double? = nil, epsilon: Double? = nil) throws -> Image {
        try FilterDescriptor.guidedFilter.apply([
            "inputImage": .image(self), "inputGuideImage": .image(guide),
            "inputRadius": radius.map(FilterValue.number),
            "inputEpsilon": epsilon.map(FilterValue.number),
        ])
    }

    /// Upsamples this (small) image onto `guide`'s extent following the guide's edges
    /// (`CIEdgePreserveUpsampleFilter`, where the guide is `inputImage` and this image
    /// `inputSmallImage`): bilinear upsampling, then a guided filter of radius
    /// `spatialSigma * factor` guide pixels (factor: the upsampling ratio, radius at most 50)
    /// and epsilon `lumaSigma^2`, with the guide's luma as guide.
    public func edgePreservingUpsampled(guide: Image, spatialSigma: Double? = nil, lumaSigma: Double? = nil) throws -> Image {
        try FilterDescriptor.edgePreserveUpsample.apply([
            "inputImage": .image(guide), "inputSmallImage": .image(self),
            "inputSpatialSigma": spatialSigma.map(FilterValue.number),
            "inputLumaSigma": lumaSigma.map(FilterValue.number),
        ])
    }
}
