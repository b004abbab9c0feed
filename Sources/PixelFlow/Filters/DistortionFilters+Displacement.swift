// Distortions driven by a second image: CIDisplacementDistortion (the map's red and green
// shift each pixel) and CIGlassDistortion (the gradient of a repeated texture's luma shifts
// it, as a sheet of uneven glass would). Both are two-input stencils
// (`StencilKernel.reading`): the image is read over the output grown by the largest possible
// shift, `scale / 2` pixels, so the region of interest is known before any pixel of the map
// is; the map is read where the output is (the glass texture over its whole extent, since it
// repeats). Positions are top-left-origin pixels, y down.

extension FilterDescriptor {
    static let displacementFilters: [FilterDescriptor] = [displacementDistortion, glassDistortion]

    /// The reach of a shift of at most `scale / 2` pixels plus the bilinear footprint.
    static func _displacementReach(_ scale: Double) -> Int { Int((scale / 2).rounded(.up)) + 1 }

    static let displacementDistortion = FilterDescriptor(
        name: "CIDisplacementDistortion", displayName: "Displacement Distortion",
        summary:
            "Shifts each pixel by the displacement image: it samples the image at p + scale (r - 0.5, g - 0.5), r and g the map's premultiplied red and green at p, clamped to [0, 1].",
        categories: [.distortionEffect],
        inputs: [
            .image(),
            .image(
                "inputDisplacementImage",
                summary:
                    "The map: red shifts right (above 0.5) or left, green down or up; transparent reads as (0, 0), a shift of -scale / 2."
            ),
            .number(
                "inputScale", .distance, default: 50, identity: 0, min: 0, max: 1000, sliderMin: 0, sliderMax: 200,
                summary: "The shift, in pixels, between map values 0 and 1."),
        ]
    ) { a in
        let image = try a.image(), map = try a.image("inputDisplacementImage")
        let scale = try a.number("inputScale")
        if scale == 0 { return image }
        let reach = _displacementReach(scale), whole = reach > 32, s = Float(scale)
        let k = StencilKernel.reading(
            [.output()], name: "displacement s\(scale)", haloX: reach, haloY: reach,
            wholeRegion: whole, cost: 8
        ) { inputs, out, threads, _ in
            if whole {
                BoxPlan.runPieces(out, size: 64, threads: threads) { piece, _ in
                    displacementTile(inputs[0], inputs[1], piece, scale: s)
                }
            } else {
                displacementTile(inputs[0], inputs[1], out, scale: s)
            }
        }
        let e = image.extent
        let extent = e.isInfinite || e.isEmpty ? e : e.insetBy(dx: -scale / 2, dy: -scale / 2)
        return image.applyingStencil(k, reading: [map], extent: extent)
    }

    static let glassDistortion = FilterDescriptor(
        name: "CIGlassDistortion", displayName: "Glass Distortion",
        summary:
            "Shows the image through glass shaped by a texture repeated over the plane: each pixel samples the image at p + scale * grad(L), L the texture's luma clamped to [0, 1], by central differences.",
        categories: [.distortionEffect],
        inputs: [
            .image(),
            .image(
                "inputTexture", summary: "The glass's thickness (its luma), repeated over the plane; it needs a finite extent."),
            _center(),
            .number(
                "inputScale", .distance, default: 200, identity: 0, min: 0, max: 1000, sliderMin: 0.001, sliderMax: 500,
                summary: "The shift, in pixels, per unit of luma gradient per pixel (at most scale / 2)."),
        ]
    ) { a in
        let image = try a.image(), texture = try a.image("inputTexture")
        let c = try a._point("inputCenter"), scale = try a.number("inputScale")
        guard !texture.extent.isInfinite else {
            throw a.fail("inputTexture", "must have a finite extent (it is repeated over the plane); crop it first")
        }
        let te = IntRect(covering: texture.extent)
        if scale == 0 || te.isEmpty { return image }
        // The texture repeats with period te.width x te.height, so only the origin modulo the
        // period matters; reducing it in Double first keeps any finite center in Int's range.
        let origin = (
            x: Int((c.x - Double(te.width) / 2).rounded().truncatingRemainder(dividingBy: Double(te.width))),
            y: Int((c.y - Double(te.height) / 2).rounded().truncatingRemainder(dividingBy: Double(te.height)))
        )
        let reach = _displacementReach(scale), whole = reach > 32, s = Float(scale)
        let k = StencilKernel.reading(
            [.fixed(te)], name: "glass \(te) at \(origin.x),\(origin.y) s\(scale)", haloX: reach, haloY: reach,
            wholeRegion: whole, cost: 12, readWhole: true
        ) { inputs, out, threads, _ in
            if whole {
                BoxPlan.runPieces(out, size: 64, threads: threads) { piece, _ in
                    glassTile(inputs[0], inputs[1], piece, scale: s, origin: origin)
                }
            } else {
                glassTile(inputs[0], inputs[1], out, scale: s, origin: origin)
            }
        }
        let e = image.extent
        let extent = e.isInfinite || e.isEmpty ? e : e.insetBy(dx: -scale / 2, dy: -scale / 2)
        return image.applyingStencil(k, reading: [texture], extent: extent)
    }
}

extension Image {
    /// Shifts each pixel by `map` (`CIDisplacementDistortion`): the output at pixel center `p`
    /// samples this image (bilinear) at `p + scale * (r - 0.5, g - 0.5)`, where `r` and `g` are
    /// the map's premultiplied red and green at `p`, clamped to [0, 1]. A 50% gray map leaves
    /// the image in place; red to the right and green downward (top-left origin).
    ///
    /// - Parameters:
    ///   - scale: the shift between map values 0 and 1, in pixels, 0...1000 (default 50).
    ///   - map: the displacement image: its red and green channels shift x and y.
    /// - Complexity: one bilinear sample per pixel; the image is read over the output grown by
    ///   `scale / 2` (a whole-region pass above a 32-pixel reach).
    public func displacementDistorted(by map: Image, scale: Double? = nil) throws -> Image {
        try FilterDescriptor.displacementDistortion.apply([
            "inputImage": .image(self), "inputDisplacementImage": .image(map),
            "inputScale": scale.map(FilterValue.number),
        ])
    }

    /// The image seen through glass shaped like `texture` (`CIGlassDistortion`): the texture is
    /// repeated over the plane with one copy centered at `center`; its Rec. 709 luma `L`
    /// (clamped to [0, 1]) is the glass's thickness, and each pixel samples the image at
    /// `p + scale * ((L(x+1) - L(x-1)) / 2, (L(y+1) - L(y-1)) / 2)`.
    ///
    /// - Throws: `invalidParameter` when the texture's extent is infinite.
    /// - Complexity: four texture reads and one bilinear sample per pixel; every tile reads the
    ///   whole texture, so keep it small (a few hundred pixels on a side).
    public func glassDistorted(texture: Image, center: Point? = nil, scale: Double? = nil) throws -> Image {
        try FilterDescriptor.glassDistortion.apply([
            "inputImage": .image(self), "inputTexture": .image(texture),
            "inputCenter": center.map(FilterValue.point),
            "inputScale": scale.map(FilterValue.number),
        ])
    }
}
