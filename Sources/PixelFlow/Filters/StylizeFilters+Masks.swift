// Mask blends (CIBlendWithMask, CIBlendWithAlphaMask, CIBlendWithRedMask,
// CIBlendWithBlueMask) and CISampleNearest.
//
// A mask blend gives `image * m + background * (1 - m)` on premultiplied working-space
// pixels, where m, clamped to [0, 1], is read from the mask's premultiplied pixel: its
// Rec. 709 luma (0.2126 r + 0.7152 g + 0.0722 b), its alpha, its red or its blue. Outside the
// mask's extent the mask is transparent, so m = 0 and the background shows.
//
// The three images are combined by three blend nodes, with no new node kind:
// `image * m` (extent: image ∩ mask), `background * (1 - m)` (extent: background), and
// their sum (extent: the union). The mask is evaluated twice, once per product.

extension FilterDescriptor {
    static let stylizeMaskFilters: [FilterDescriptor] = [
        blendWithMask, blendWithAlphaMask, blendWithRedMask, blendWithBlueMask, sampleNearest,
    ]

    /// Which component of the mask weighs the image.
    enum _MaskChannel: String, Sendable {
        case luma, alpha, red, blue

        @inline(__always) func weight(_ m: SIMD4<Float>) -> Float {
            let w: Float
            switch self {
            case .luma: w = 0.2126 * m.x + 0.7152 * m.y + 0.0722 * m.z
            case .alpha: w = m.w
            case .red: w = m.x
            case .blue: w = m.z
            }
            return Swift.min(Swift.max(w, 0), 1)  // NaN-free inputs give a value in [0, 1]
        }
    }

    static func _maskBlend(_ name: String, _ display: String, _ channel: _MaskChannel, _ what: String) -> FilterDescriptor {
        FilterDescriptor(
            name: name, displayName: display,
            summary:
                "Mixes the image with the background by the mask's \(what): image * m + background * (1 - m), on premultiplied pixels.",
            categories: [.stylize, .highDynamicRange],
            inputs: [
                .image(), .image("inputBackgroundImage", summary: "The image shown where the mask is 0."),
                .image("inputMaskImage", summary: "The mask: its \(what) weighs the image (1) against the background (0)."),
            ]
        ) { a in
            try a.image()._blended(
                background: try a.image("inputBackgroundImage"), mask: try a.image("inputMaskImage"), channel: channel)
        }
    }

    static let blendWithMask = _maskBlend("CIBlendWithMask", "Blend With Mask", .luma, "luma")
    static let blendWithAlphaMask = _maskBlend("CIBlendWithAlphaMask", "Blend With Alpha Mask", .alpha, "alpha")
    static let blendWithRedMask = _maskBlend("CIBlendWithRedMask", "Blend With Red Mask", .red, "red component")
    static let blendWithBlueMask = _maskBlend("CIBlendWithBlueMask", "Blend With Blue Mask", .blue, "blue component")

    static let sampleNearest = FilterDescriptor(
        name: "CISampleNearest", displayName: "Sample Nearest",
        summary:
            "Gives back the image. In Core Image it makes the next resampling nearest-neighbour; PixelFlow's warps take their sampling as a parameter instead, so this is the identity.",
        categories: [.stylize, .highDynamicRange],
        inputs: [.image()]
    ) { a in
        try a.image()
    }
}

extension Image {
    func _blended(background: Image, mask: Image, channel: FilterDescriptor._MaskChannel) -> Image {
        let c = channel
        let weighted = blended(
            with: mask,
            kernel: BlendKernel(name: "times mask \(c.rawValue)", extentRule: .intersection) { fg, dst, n in
                for i in 0..<n { dst[i] = fg[i] * c.weight(dst[i]) }
            })
        let rest = background.blended(
            with: mask,
            kernel: BlendKernel(name: "times 1 - mask \(c.rawValue)", extentRule: .foreground) { fg, dst, n in
                for i in 0..<n { dst[i] = fg[i] * (1 - c.weight(dst[i])) }
            })
        return weighted.blended(
            with: rest,
            kernel: BlendKernel(name: "plus", extentRule: .union) { fg, dst, n in
                for i in 0..<n { dst[i] = fg[i] + dst[i] }
            })
    }

    /// Mixes the image with `background` by `mask`'s Rec. 709 luma (`CIBlendWithMask`):
    /// `image * m + background * (1 - m)` on premultiplied pixels, m clamped to [0, 1].
    public func blended(with background: Image, mask: Image) throws -> Image {
        try FilterDescriptor.blendWithMask.apply([
            "inputImage": .image(self), "inputBackgroundImage": .image(background),
            "inputMaskImage": .image(mask),
        ])
    }

    /// Mixes the image with `background` by `mask`'s alpha (`CIBlendWithAlphaMask`).
    public func blended(with background: Image, alphaMask mask: Image) throws -> Image {
        try FilterDescriptor.blendWithAlphaMask.apply([
            "inputImage": .image(self), "inputBackgroundImage": .image(background),
            "inputMaskImage": .image(mask),
        ])
    }

    /// Mixes the image with `background` by `mask`'s red component (`CIBlendWithRedMask`).
    public func blended(with background: Image, redMask mask: Image) throws -> Image {
        try FilterDescriptor.blendWithRedMask.apply([
            "inputImage": .image(self), "inputBackgroundImage": .image(background),
            "inputMaskImage": .image(mask),
        ])
    }

    /// Mixes the image with `background` by `mask`'s blue component (`CIBlendWithBlueMask`).
    public func blended(with background: Image, blueMask mask: Image) throws -> Image {
        try FilterDescriptor.blendWithBlueMask.apply([
            "inputImage": .image(self), "inputBackgroundImage": .image(background),
            "inputMaskImage": .image(mask),
        ])
    }

    /// The image itself (`CISampleNearest`). Core Image uses this filter to make the next
    /// resampling nearest-neighbour; in PixelFlow, pass `sampling: .nearest` to
    /// `transformed(by:sampling:)` instead.
    public func samplingNearest() throws -> Image {
        try FilterDescriptor.sampleNearest.apply(["inputImage": .image(self)])
    }
}
