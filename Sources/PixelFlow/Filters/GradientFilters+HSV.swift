// CIHueSaturationValueGradient: a color wheel of hue by angle and saturation by radius at one
// value, in a named color space. Kernel: `hueSaturationValueRow` in
// Kernels/GeneratorKernels.swift. Apple documents the keys but not the geometry; the choices
// made here are stated on the descriptor and the method.

extension FilterDescriptor {
    static let hueSaturationValueGradient = FilterDescriptor(
        name: "CIHueSaturationValueGradient", displayName: "Hue/Saturation/Value Gradient",
        summary:
            "A color wheel of the given value: hue by angle (red at 3 o'clock, counterclockwise on screen), saturation from 0 at the center to 1 at the radius, in the encoded values of a named color space; extent [0 0 2r 2r], centered at (r, r).",
        categories: [.gradient],
        inputs: [
            .number("inputValue", default: 1, min: 0, max: 1, summary: "The value (brightness) of every color of the wheel."),
            .number(
                "inputRadius", .distance, default: 300, min: 0, max: 10000, sliderMax: 500,
                summary: "The wheel's radius in pixels; the image is twice as wide and high."),
            .number(
                "inputSoftness", default: 1, min: 0, max: 100, sliderMax: 10,
                summary: "The width in pixels of the wheel's edge, over which its coverage falls from 1 to 0."),
            .number(
                "inputDither", default: 1, min: 0, max: 10, sliderMax: 3,
                summary:
                    "Noise against banding: up to dither/2 steps of 1/255 added to each channel, the same at a position in every render."
            ),
            _colorSpaceInput("the wheel's hue, saturation and value"),
        ]
    ) { a in
        let value = Float(try a.number("inputValue")), r = try a.number("inputRadius")
        let softness = try a.number("inputSoftness"), dither = Float(try a.number("inputDither"))
        let conversion = try _colorSpaceConversion(a)
        if r == 0 { return .empty }
        return Image._generator(
            named: "hsv wheel \(value) \(r) \(softness) \(dither)", extent: Rect(x: 0, y: 0, width: 2 * r, height: 2 * r)
        ) { x, y, n, out, linear in
            hueSaturationValueRow(
                x0: x, y: y, count: n, out: out, center: (r, r), radius: r, value: value, softness: softness,
                dither: dither)
            if linear, let conversion { conversion.decode(out, count: n) }
            for i in 0..<n { out[i] *= SIMD4(out[i].w, out[i].w, out[i].w, 1) }
        }
    }
}

extension Image {
    /// A color wheel (`CIHueSaturationValueGradient`): hue by angle (red at 3 o'clock, then
    /// counterclockwise on screen through yellow and green), saturation from 0 at the center to
    /// 1 at `radius`, every color at `value`, in `colorSpace`'s encoded values. The image covers
    /// `[0, 0, 2 * radius, 2 * radius]` with the wheel's center at `(radius, radius)`.
    ///
    /// ```swift
    /// let wheel = try Image.hueSaturationValueGradient(value: 0.8, radius: 128)
    /// ```
    ///
    /// - Parameters:
    ///   - value: the brightness, 0...1 (default 1).
    ///   - radius: in pixels (default 300); 0 gives an empty image.
    ///   - softness: the width in pixels of the anti-aliased edge (default 1).
    ///   - dither: noise of up to `dither / 2` steps of 1/255 against banding (default 1; 0 for none).
    ///   - colorSpace: a `ColorSpace(named:)` name (default sRGB), or `""` for the working space.
    /// - Throws: `invalidParameter` naming the input at fault.
    public static func hueSaturationValueGradient(
        value: Double? = nil, radius: Double? = nil, softness: Double? = nil, dither: Double? = nil,
        colorSpace: String? = nil
    ) throws -> Image {
        try FilterDescriptor.hueSaturationValueGradient.apply([
            "inputValue": value.map(FilterValue.number), "inputRadius": radius.map(FilterValue.number),
            "inputSoftness": softness.map(FilterValue.number), "inputDither": dither.map(FilterValue.number),
            "inputColorSpace": colorSpace.map(FilterValue.string),
        ])
    }
}
