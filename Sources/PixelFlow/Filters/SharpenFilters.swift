extension FilterDescriptor {
    static let sharpenFilters: [FilterDescriptor] = [unsharpMask, sharpenLuminance]

    static let unsharpMask = FilterDescriptor(
        name: "CIUnsharpMask", displayName: "Unsharp Mask",
        summary: "Sharpens edges: adds intensity times the difference between the image and its Gaussian blur.",
        categories: [.sharpen],
        inputs: [
            .image(),
            .number(
                "inputRadius", .distance, default: 2.5, identity: 0, min: 0, max: 100, sliderMin: 0, sliderMax: 100,
                summary: "Standard deviation of the Gaussian, in pixels."),
            .number(
                "inputIntensity", default: 0.5, identity: 0, min: 0, max: 10, sliderMin: 0, sliderMax: 1,
                summary: "How much of the difference to add."),
        ]
    ) { a in
        let r = try a.number("inputRadius"), k = try a.float("inputIntensity")
        let image = try a.image()
        if r == 0 || k == 0 { return image }
        return image.unsharpMasked(sigma: r, intensity: k, lumaOnly: false)
    }

    static let sharpenLuminance = FilterDescriptor(
        name: "CISharpenLuminance", displayName: "Sharpen Luminance",
        summary: "Sharpens luma only: adds sharpness times the luma of the difference between the image and its Gaussian blur.",
        categories: [.sharpen],
        inputs: [
            .image(),
            .number(
                "inputSharpness", default: 0.4, identity: 0, min: 0, max: 10, sliderMin: 0, sliderMax: 2,
                summary: "How much of the luma difference to add."),
            .number(
                "inputRadius", .distance, default: 1.69, identity: 0, min: 0, max: 100, sliderMin: 0, sliderMax: 20,
                summary: "Standard deviation of the Gaussian, in pixels."),
        ]
    ) { a in
        let r = try a.number("inputRadius"), k = try a.float("inputSharpness")
        let image = try a.image()
        if r == 0 || k == 0 { return image }
        return image.unsharpMasked(sigma: r, intensity: k, lumaOnly: true)
    }
}

extension Image {
    /// Sharpens (`CIUnsharpMask`): `out = in + intensity * (in - gaussian(in, radius))` on
    /// premultiplied working values, all four channels, cropped to the input's extent.
    ///
    /// - Complexity: the Gaussian's cost (exact separable taps, fused with the difference in
    ///   one tile pass up to sigma 3; whole-region passes above) plus 3 operations per pixel.
    public func unsharpMasked(radius: Double? = nil, intensity: Double? = nil) throws -> Image {
        try FilterDescriptor.unsharpMask.apply([
            "inputImage": .image(self), "inputRadius": radius.map(FilterValue.number),
            "inputIntensity": intensity.map(FilterValue.number),
        ])
    }

    /// Sharpens luma only (`CISharpenLuminance`): the Rec. 709 luma of `in - gaussian(in, radius)`,
    /// times `sharpness`, is added to R, G and B; alpha is kept. Cropped to the input's extent.
    public func sharpenedLuminance(sharpness: Double? = nil, radius: Double? = nil) throws -> Image {
        try FilterDescriptor.sharpenLuminance.apply([
            "inputImage": .image(self), "inputSharpness": sharpness.map(FilterValue.number),
            "inputRadius": radius.map(FilterValue.number),
        ])
    }

    func unsharpMasked(sigma: Double, intensity k: Float, lumaOnly: Bool) -> Image {
        let name = "\(lumaOnly ? "sharpen luma" : "unsharp") sigma \(sigma) k \(k)"
        let mask = UnsharpMask(sigma: sigma, intensity: k, lumaOnly: lumaOnly)
        let out: Image
        if GaussianPlan.mode(sigma: sigma) == .tileLocal {
            let taps = GaussianPlan.exactTaps(sigma: sigma)
            let r = taps.count / 2
            out = applyingStencil(
                .custom(
                    StencilKernel(
                        name: name, haloX: r, haloY: r, cost: 2 * taps.count, capabilities: [.unsharpMask(mask)]
                    ) { input, output, _, arena in
                        unsharpTile(input, output, taps: taps, intensity: k, lumaOnly: lumaOnly, arena: arena)
                    }))
        } else {
            let blurred = applyingStencil(.gaussian(sigma: sigma))
            var kernel = BlendKernel(name: name, extentRule: .union) { fg, dst, n in
                if lumaOnly {
                    for i in 0..<n {
                        let diff = (dst[i] - fg[i]) * rec709Luma
                        let l = k * (diff.x + diff.y + diff.z)
                        dst[i] = dst[i] + SIMD4(l, l, l, 0)
                    }
                } else {
                    for i in 0..<n { dst[i] = dst[i] + (dst[i] - fg[i]) * k }
                }
            }
            kernel.unsharpMask = mask
            out = blurred.blended(with: self, kernel: kernel)
        }
        return extent.isInfinite ? out : out.cropped(to: extent)
    }
}
