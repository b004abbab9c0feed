extension FilterDescriptor {
    static let convolutionSizeFilters: [FilterDescriptor] = [
        convolution(3, 3, rgb: true), convolution(5, 5, rgb: false), convolution(5, 5, rgb: true),
        convolution(7, 7, rgb: false), convolution(7, 7, rgb: true), convolution(9, 1, rgb: false), convolution(9, 1, rgb: true),
        convolution(1, 9, rgb: false), convolution(1, 9, rgb: true),
    ]

    /// Core Image's name for a convolution of this shape: `CIConvolution5X5`,
    /// `CIConvolutionRGB9Horizontal`, ...
    static func convolutionName(_ w: Int, _ h: Int, rgb: Bool) -> String {
        let shape = h == 1 ? "9Horizontal" : w == 1 ? "9Vertical" : "\(w)X\(h)"
        return "CIConvolution" + (rgb ? "RGB" : "") + shape
    }

    /// The identity kernel: 1 at the center.
    static func identityWeights(_ w: Int, _ h: Int) -> [Double] {
        var k = [Double](repeating: 0, count: w * h)
        k[(h / 2) * w + w / 2] = 1
        return k
    }

    /// A `w` x `h` convolution descriptor (`rgb`: alpha is left as the center pixel's).
    static func convolution(_ w: Int, _ h: Int, rgb: Bool) -> FilterDescriptor {
        let n = w * h
        let shape = h == 1 ? "horizontal 9-tap" : w == 1 ? "vertical 9-tap" : "\(w)x\(h)"
        let identity = identityWeights(w, h)
        return FilterDescriptor(
            name: convolutionName(w, h, rgb: rgb),
            displayName: (h == 1 ? "9 Horizontal" : w == 1 ? "9 Vertical" : "\(w) by \(w)") + (rgb ? " RGB" : "")
                + " Convolution",
            summary: "Correlates \(rgb ? "the color channels (alpha is kept)" : "the image") with a \(shape) kernel "
                + "(weights row by row from the top, not flipped) and adds a bias.",
            categories: [.stylize],
            inputs: [
                .image(),
                .vector(
                    "inputWeights", default: identity, identity: identity,
                    summary: "\(n) weights\(h > 1 && w > 1 ? ", top row first" : w == 1 ? ", top first" : ", left first")."),
                .number(
                    "inputBias", default: 0, identity: 0, min: -10, max: 10, sliderMin: -1, sliderMax: 1,
                    summary: rgb
                        ? "Added to red, green and blue after the weighted sum."
                        : "Added to every channel after the weighted sum."),
            ]
        ) { a in
            let weights = try a.vector("inputWeights").map(Float.init)
            let bias = try a.float("inputBias")
            let image = try a.image()
            if weights == identity.map(Float.init) && bias == 0 { return image }
            return image.applyingStencil(.convolution(width: w, height: h, weights: weights, bias: bias, rgbOnly: rgb))
        }
    }
}

extension Image {
    /// Correlates with a `size` x `size` kernel (3, 5 or 7) and adds `bias`
    /// (`CIConvolution5X5`, `CIConvolution7X7`; with `rgbOnly`, `CIConvolutionRGB...`, which
    /// leaves alpha as the center pixel's and adds the bias to R, G and B only).
    ///
    /// - Parameters:
    ///   - weights: `size * size` weights, top row first, applied without flipping.
    ///   - size: the kernel's width and height: 3, 5 or 7; other sizes throw.
    ///   - bias: added to every channel after the weighted sum (default 0).
    ///   - rgbOnly: when true, alpha is the center pixel's and `bias` goes to R, G and B only.
    /// - Complexity: `size^2` multiply-adds per pixel.
    public func convolved(size: Int, weights: [Double], bias: Double = 0, rgbOnly: Bool = false) throws -> Image {
        guard [3, 5, 7].contains(size) else {
            throw PixelFlowError.invalidParameter(
                filter: "convolved(size:)", key: "size", reason: "must be 3, 5 or 7, got \(size)")
        }
        let name = FilterDescriptor.convolutionName(size, size, rgb: rgbOnly)
        return try FilterRegistry.apply(
            name, ["inputImage": .image(self), "inputWeights": .vector(weights), "inputBias": .number(bias)])
    }

    /// Correlates with nine weights along a row (`vertical` false, `CIConvolution9Horizontal`)
    /// or a column (`CIConvolution9Vertical`); `rgbOnly` picks the RGB variants.
    public func convolved9(weights: [Double], vertical: Bool = false, bias: Double = 0, rgbOnly: Bool = false) throws -> Image {
        let name = FilterDescriptor.convolutionName(vertical ? 1 : 9, vertical ? 9 : 1, rgb: rgbOnly)
        return try FilterRegistry.apply(
            name, ["inputImage": .image(self), "inputWeights": .vector(weights), "inputBias": .number(bias)])
    }
}
