extension FilterDescriptor {
    static let motionBlurFilters: [FilterDescriptor] = [motionBlur, zoomBlur, maskedVariableBlur]

    static let motionBlur = FilterDescriptor(
        name: "CIMotionBlur", displayName: "Motion Blur",
        summary: "Averages along a line segment through each pixel, as a camera moving during the exposure would.",
        categories: [.blur],
        inputs: [
            .image(),
            .number(
                "inputRadius", .distance, default: 20, identity: 0, min: 0, max: 200, sliderMin: 0, sliderMax: 100,
                summary: "Half the length of the segment, in pixels."),
            .number(
                "inputAngle", .angle, default: 0, sliderMin: -.pi, sliderMax: .pi,
                summary: "Direction of the motion in radians, counter-clockwise from the x axis."),
        ]
    ) { a in
        let r = try a.number("inputRadius"), angle = try a.number("inputAngle")
        let image = try a.image()
        if r == 0 { return image }
        let taps = motionBlurTaps(radius: r, angle: angle)
        let hx = taps.map { abs($0.dx) }.max() ?? 0, hy = taps.map { abs($0.dy) }.max() ?? 0
        return image.applyingStencil(
            .custom(
                StencilKernel(
                    name: "motion r\(r) angle \(angle)", haloX: hx, haloY: hy, cost: taps.count,
                    capabilities: Swift.max(hx, hy) > 32 ? [.wholeRegion] : []
                ) { input, output, threads, _ in
                    BoxPlan.runPieces(output, size: 64, threads: threads) { piece, _ in
                        sparseCorrelateTile(input, piece, taps: taps)
                    }
                }))
    }

    static let zoomBlur = FilterDescriptor(
        name: "CIZoomBlur", displayName: "Zoom Blur",
        summary: "Averages along the ray from each pixel toward a center, as zooming during the exposure would.",
        categories: [.blur],
        inputs: [
            .image(),
            .vector("inputCenter", .position, default: [150, 150], summary: "The center of the zoom, in pixels."),
            .number(
                "inputAmount", .distance, default: 20, identity: 0, min: 0, max: 200, sliderMin: 0, sliderMax: 200,
                summary: "Length of the averaged segment, in pixels (at most the distance to the center)."),
        ]
    ) { a in
        let c = try a.vector("inputCenter"), amount = try a.number("inputAmount")
        let image = try a.image()
        if amount == 0 { return image }
        let halo = Int(amount.rounded(.up)) + 1
        let center = SIMD2(c[0], c[1])
        return image.applyingStencil(
            .custom(
                StencilKernel(
                    name: "zoom \(c) amount \(amount)", haloX: halo, haloY: halo, cost: 4 * halo,
                    capabilities: halo > 16 ? [.wholeRegion] : []
                ) { input, output, threads, _ in
                    BoxPlan.runPieces(output, size: 64, threads: threads) { piece, _ in
                        zoomBlurTile(input, piece, center: center, amount: amount)
                    }
                }))
    }

    /// Fractions of the radius at which `CIMaskedVariableBlur` computes Gaussian levels.
    static let maskedBlurLevels: [Double] = [0, 0.125, 0.25, 0.5, 0.75, 1]

    static let maskedVariableBlur = FilterDescriptor(
        name: "CIMaskedVariableBlur", displayName: "Masked Variable Blur",
        summary: "Blurs each pixel by a Gaussian whose radius is the mask's luma times the radius.",
        categories: [.blur],
        inputs: [
            .image(), .image("inputMask", summary: "Where to blur: luma 0 keeps the image, 1 blurs by the full radius."),
            .number(
                "inputRadius", .distance, default: 5, identity: 0, min: 0, max: 100, sliderMin: 0, sliderMax: 100,
                summary: "Standard deviation of the Gaussian where the mask is white, in pixels."),
        ]
    ) { a in
        let r = try a.number("inputRadius")
        let image = try a.image(), mask = try a.image("inputMask")
        if r == 0 { return image }
        return image.maskedVariableBlur(mask: mask, radius: r)
    }
}

extension Image {
    /// Blurs along a line (`CIMotionBlur`): the mean of `2K + 1` bilinear samples at unit
    /// spacing (`K = ceil(radius)`) on the segment of half-length `radius` through each pixel,
    /// in direction `angle` (radians, counter-clockwise on screen).
    ///
    /// - Complexity: O(radius) per pixel (the samples' bilinear weights are merged into one
    ///   sparse kernel, applied as a correlation).
    public func motionBlurred(radius: Double? = nil, angle: Double? = nil) throws -> Image {
        try FilterDescriptor.motionBlur.apply([
            "inputImage": .image(self), "inputRadius": radius.map(FilterValue.number),
            "inputAngle": angle.map(FilterValue.number),
        ])
    }

    /// Blurs toward a center (`CIZoomBlur`): each pixel is the mean of bilinear samples at unit
    /// spacing on the segment from it toward `center`, of length `min(amount, distance)`.
    /// An approximation of Core Image's, whose exact sampling is not published.
    ///
    /// - Complexity: O(amount) per pixel.
    public func zoomBlurred(center: Point? = nil, amount: Double? = nil) throws -> Image {
        try FilterDescriptor.zoomBlur.apply([
            "inputImage": .image(self), "inputCenter": center.map { .vector([$0.x, $0.y]) },
            "inputAmount": amount.map(FilterValue.number),
        ])
    }

    /// Blurs each pixel by a Gaussian of standard deviation `mask luma * radius`
    /// (`CIMaskedVariableBlur`). Computed by blending between Gaussian levels at
    /// 0, 1/8, 1/4, 1/2, 3/4 and 1 times the radius: a pixel whose sigma falls between two levels
    /// takes the linear mix of both (a documented approximation of a true per-pixel sigma). Luma
    /// is Rec. 709 on the mask's working-space values; outside the mask counts as luma 0.
    ///
    /// - Complexity: five Gaussian blurs plus a few point operations per pixel.
    public func maskedVariableBlurred(mask: Image, radius: Double? = nil) throws -> Image {
        try FilterDescriptor.maskedVariableBlur.apply([
            "inputImage": .image(self), "inputMask": .image(mask),
            "inputRadius": radius.map(FilterValue.number),
        ])
    }

    func maskedVariableBlur(mask: Image, radius r: Double) -> Image {
        let fractions = FilterDescriptor.maskedBlurLevels
        let luma = mask.applyingColorKernel(
            ColorKernel(name: "masked blur luma") { p, n in
                for i in 0..<n {
                    let v = p[i] * rec709Luma
                    let l = v.x + v.y + v.z
                    p[i] = SIMD4(l, l, l, 1)
                }
            })
        var result: Image?
        for (k, f) in fractions.enumerated() {
            let level = f == 0 ? self : applyingStencil(.gaussian(sigma: r * f))
            let lower = k > 0 ? Float(fractions[k - 1]) : nil
            let upper = k + 1 < fractions.count ? Float(fractions[k + 1]) : nil
            let at = Float(f)
            // Hat weight of this level at the mask's luma t: 1 at f, falling linearly to 0 at the
            // neighbouring levels (flat beyond the ends).
            let weighted = luma.blended(
                with: level,
                kernel: BlendKernel(
                    name: "masked blur level \(k) of \(fractions)", extentRule: .background
                ) { fg, dst, n in
                    for i in 0..<n {
                        let t = Swift.min(Swift.max(fg[i].x, 0), 1)
                        var wt: Float = 0
                        if t <= at {
                            if let lo = lower { wt = t > lo ? (t - lo) / (at - lo) : 0 } else { wt = 1 }
                        } else {
                            if let hi = upper { wt = t < hi ? (hi - t) / (hi - at) : 0 } else { wt = 1 }
                        }
                        dst[i] = dst[i] * wt
                    }
                })
            if let acc = result {
                result = weighted.blended(
                    with: acc,
                    kernel: BlendKernel(name: "masked blur sum", extentRule: .union) { fg, dst, n in
                        for i in 0..<n { dst[i] = dst[i] + fg[i] }
                    })
            } else {
                result = weighted
            }
        }
        return result!
    }
}
