extension FilterDescriptor {
    static let stylizeFilters: [FilterDescriptor] = [convolution3X3]

    static let convolution3X3 = FilterDescriptor(
        name: "CIConvolution3X3", displayName: "3 by 3 Convolution",
        summary: "Correlates the image with a 3x3 kernel (weights row by row from the top, not flipped) and adds a bias.",
        categories: [.stylize],
        inputs: [
            .image(),
            .vector(
                "inputWeights", default: [0, 0, 0, 0, 1, 0, 0, 0, 0], identity: [0, 0, 0, 0, 1, 0, 0, 0, 0],
                summary: "Nine weights, top row first."),
            .number(
                "inputBias", default: 0, identity: 0, min: -10, max: 10, sliderMin: -1, sliderMax: 1,
                summary: "Added to every channel after the weighted sum."),
        ]
    ) { a in
        let w = try a.vector("inputWeights").map(Float.init)
        let bias = try a.float("inputBias")
        let image = try a.image()
        if w == [0, 0, 0, 0, 1, 0, 0, 0, 0] && bias == 0 { return image }
        return image.applyingStencil(.convolution(width: 3, height: 3, weights: w, bias: bias, rgbOnly: false))
    }
}

extension Image {
    /// Correlates with a 3x3 kernel and adds `bias` (`CIConvolution3X3`).
    /// - Parameters:
    ///   - weights: nine weights, top row first (default: identity).
    ///   - bias: added to every channel after the weighted sum (default 0).
    public func convolved3x3(weights: [Double]? = nil, bias: Double? = nil) throws -> Image {
        try FilterDescriptor.convolution3X3.apply([
            "inputImage": .image(self), "inputWeights": weights.map(FilterValue.vector),
            "inputBias": bias.map(FilterValue.number),
        ])
    }
}
