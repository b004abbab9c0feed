extension FilterDescriptor {
    static let generatorFilters: [FilterDescriptor] = [constantColorGenerator]

    static let constantColorGenerator = FilterDescriptor(
        name: "CIConstantColorGenerator", displayName: "Constant Color",
        summary: "An image of infinite extent filled with one color.",
        categories: [.generator],
        inputs: [.color("inputColor", default: .black, summary: "The color, sRGB-encoded and unpremultiplied.")]
    ) { a in
        Image(color: try a.color("inputColor"))
    }
}

extension Image {
    /// An infinite image of one color (`CIConstantColorGenerator`); validates the color.
    public static func constantColor(_ color: Color) throws -> Image {
        try FilterDescriptor.constantColorGenerator.apply(["inputColor": .color(color)])
    }
}
