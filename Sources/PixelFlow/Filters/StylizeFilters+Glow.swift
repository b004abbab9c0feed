// Glow filters (CIBloom, CIGloom) and spot color replacement (CISpotColor).
//
// Bloom and gloom blur the image with a Gaussian of standard deviation radius (the image is
// clamped to its extent before the blur and cropped back after, so edges do not darken), then
// combine it with the image on unpremultiplied working-space values, keeping the image's
// alpha. With p the image and b the blur (straight rgb), i the intensity:
//
// | filter | rgb |
// |---|---|
// | bloom | p + i b - p i b (screen of p with i b: brightens, soft glow) |
// | gloom | p (1 - i + i b) (multiply by a mix of 1 and b: darkens; bloom on the inverted image, inverted) |
//
// Spot color: for k = 1, 2, 3, with d_k the distance between the pixel's straight rgb and
// centerColor_k's, w_k = 1 - smoothstep(closeness_k * contrast_k, closeness_k, d_k) (a hard
// step when contrast_k is 1); then rgb = mix(rgb, replacementColor_k, w_k) in order k = 1, 2,
// 3 with the weights of the original pixel. Alpha is kept. Colors are compared in the working
// space (linear light unless color management is off).

extension FilterDescriptor {
    static let stylizeGlowFilters: [FilterDescriptor] = [bloom, gloom, spotColor]

    static func _glowInputs(_ what: String) -> [FilterInput] {
        [
            .image(),
            .number(
                "inputRadius", .distance, default: 10, min: 0, max: 200, sliderMin: 0, sliderMax: 100,
                summary:
                    "The standard deviation of the blur, in pixels (at most 200: the edge-clamped blur reads 3 radius beyond the extent)."
            ),
            .number(
                "inputIntensity", default: 0.5, identity: 0, min: 0, max: 1,
                summary: "The strength of the \(what): 0 gives the image."),
        ]
    }

    static let bloom = FilterDescriptor(
        name: "CIBloom", displayName: "Bloom",
        summary: "Adds a soft glow: the image screened with intensity times its Gaussian blur, p + i b - p i b.",
        categories: [.stylize, .highDynamicRange],
        inputs: _glowInputs("glow")
    ) { a in
        let i = try a.float("inputIntensity")
        let image = try a.image()
        if i == 0 { return image }
        return image._glow(radius: try a.number("inputRadius"), name: "bloom \(i)") { p, b in p + i * b - p * i * b }
    }

    static let gloom = FilterDescriptor(
        name: "CIGloom", displayName: "Gloom",
        summary: "Dulls the highlights: the image multiplied by a mix of 1 and its Gaussian blur, p (1 - i + i b).",
        categories: [.stylize, .highDynamicRange],
        inputs: _glowInputs("gloom")
    ) { a in
        let i = try a.float("inputIntensity")
        let image = try a.image()
        if i == 0 { return image }
        return image._glow(radius: try a.number("inputRadius"), name: "gloom \(i)") { p, b in p * (1 - i + i * b) }
    }

    static func _spotInputs(_ k: Int, center: Color, replacement: Color, closeness: Double, contrast: Double) -> [FilterInput] {
        [
            .color("inputCenterColor\(k)", default: center, summary: "The color to replace (set \(k))."),
            .color("inputReplacementColor\(k)", default: replacement, summary: "The color that replaces it (set \(k))."),
            .number(
                "inputCloseness\(k)", default: closeness, min: 0, max: 2, sliderMin: 0, sliderMax: 1,
                summary: "How far from the center color a pixel is still replaced, as an rgb distance (set \(k))."),
            .number(
                "inputContrast\(k)", default: contrast, min: 0, max: 1,
                summary: "The sharpness of the edge: the replacement fades from closeness * contrast to closeness (set \(k))."),
        ]
    }

    static let spotColor = FilterDescriptor(
        name: "CISpotColor", displayName: "Spot Color",
        summary:
            "Replaces colors near up to three center colors with replacement colors, within a closeness and with an edge contrast.",
        categories: [.stylize],
        inputs: [.image()]
            + _spotInputs(
                1, center: Color(red: 0.0784, green: 0.0627, blue: 0.0706),
                replacement: Color(red: 0.4392, green: 0.1922, blue: 0.1961), closeness: 0.22, contrast: 0.98)
            + _spotInputs(
                2, center: Color(red: 0.5255, green: 0.3059, blue: 0.3451),
                replacement: Color(red: 0.9137, green: 0.5608, blue: 0.5059), closeness: 0.15, contrast: 0.98)
            + _spotInputs(
                3, center: Color(red: 0.9216, green: 0.4549, blue: 0.3333),
                replacement: Color(red: 0.9098, green: 0.7529, blue: 0.6078), closeness: 0.5, contrast: 0.99)
    ) { a in
        var sets: [(center: Color, replacement: Color, closeness: Float, contrast: Float)] = []
        for k in 1...3 {
            sets.append(
                (
                    try a.color("inputCenterColor\(k)"), try a.color("inputReplacementColor\(k)"),
                    try a.float("inputCloseness\(k)"), try a.float("inputContrast\(k)")
                ))
        }
        let name =
            "spotColor " + sets.map { "\($0.center) \($0.replacement) \($0.closeness) \($0.contrast)" }.joined(separator: " ")
        return try a.image().applyingColorKernel(
            .dependingOnWorkingSpace(name: name) { linear in
                let centers = sets.map { $0.center.workingStraight(linear: linear) }
                let replacements = sets.map { $0.replacement.workingStraight(linear: linear) }
                let his = sets.map(\.closeness), los = sets.map { $0.closeness * $0.contrast }
                return { p, n in
                    for i in 0..<n {
                        let v = p[i]
                        var out = v
                        for k in 0..<3 {
                            let w = _spotWeight(v, center: centers[k], lo: los[k], hi: his[k])
                            let r = replacements[k]
                            out = SIMD4(out.x + (r.x - out.x) * w, out.y + (r.y - out.y) * w, out.z + (r.z - out.z) * w, v.w)
                        }
                        p[i] = out
                    }
                }
            })
    }

    /// 1 - smoothstep(lo, hi, distance(rgb, center)); a step at hi when lo >= hi.
    @inline(__always) static func _spotWeight(_ v: SIMD4<Float>, center c: SIMD4<Float>, lo: Float, hi: Float) -> Float {
        let dx = v.x - c.x, dy = v.y - c.y, dz = v.z - c.z
        let d = (dx * dx + dy * dy + dz * dz).squareRoot()
        if !(lo < hi) { return d < hi ? 1 : 0 }
        let t = Swift.min(Swift.max((d - lo) / (hi - lo), 0), 1)
        return 1 - t * t * (3 - 2 * t)
    }
}

extension Image {
    /// Combines the image with its Gaussian blur (edges clamped) through `f(p, b)` on straight
    /// rgb, keeping the image's alpha and extent.
    func _glow(radius r: Double, name: String, _ f: @escaping @Sendable (SIMD4<Float>, SIMD4<Float>) -> SIMD4<Float>) -> Image {
        let blurred: Image
        if r == 0 {
            blurred = self
        } else if extent.isInfinite || extent.isEmpty {
            blurred = applyingStencil(.gaussian(sigma: r))
        } else {
            blurred = clampedToExtent().applyingStencil(.gaussian(sigma: r)).cropped(to: extent)
        }
        return blended(
            with: blurred,
            kernel: BlendKernel(name: "\(name) r\(r)", extentRule: .foreground) { fg, dst, n in
                for i in 0..<n {
                    let p = fg[i], b = dst[i]
                    if !(p.w > 0) { dst[i] = .zero; continue }
                    let ps = SIMD4(p.x / p.w, p.y / p.w, p.z / p.w, 1)
                    let bs = b.w > 0 ? SIMD4(b.x / b.w, b.y / b.w, b.z / b.w, 1) : SIMD4<Float>(0, 0, 0, 1)
                    let o = f(ps, bs)
                    dst[i] = SIMD4(o.x * p.w, o.y * p.w, o.z * p.w, p.w)
                }
            })
    }

    /// Adds a soft glow (`CIBloom`): the image screened with `intensity` times its Gaussian
    /// blur of standard deviation `radius`.
    ///
    /// - Parameters: radius 0...200 (default 10), intensity 0...1 (default 0.5).
    public func bloom(radius: Double? = nil, intensity: Double? = nil) throws -> Image {
        try FilterDescriptor.bloom.apply([
            "inputImage": .image(self), "inputRadius": radius.map(FilterValue.number),
            "inputIntensity": intensity.map(FilterValue.number),
        ])
    }

    /// Dulls the highlights (`CIGloom`): the image multiplied by `1 - intensity + intensity * blur`.
    ///
    /// - Parameters: radius 0...200 (default 10), intensity 0...1 (default 0.5).
    public func gloom(radius: Double? = nil, intensity: Double? = nil) throws -> Image {
        try FilterDescriptor.gloom.apply([
            "inputImage": .image(self), "inputRadius": radius.map(FilterValue.number),
            "inputIntensity": intensity.map(FilterValue.number),
        ])
    }

    /// Replaces colors near `centerColors` with `replacementColors` (`CISpotColor`). Each
    /// argument, when given, lists up to three values for sets 1, 2, 3; missing ones keep
    /// Core Image's defaults.
    public func spotColored(
        centerColors: [Color] = [], replacementColors: [Color] = [],
        closeness: [Double] = [], contrast: [Double] = []
    ) throws -> Image {
        var v: [String: FilterValue?] = ["inputImage": .image(self)]
        for (k, c) in centerColors.prefix(3).enumerated() { v["inputCenterColor\(k + 1)"] = .color(c) }
        for (k, c) in replacementColors.prefix(3).enumerated() { v["inputReplacementColor\(k + 1)"] = .color(c) }
        for (k, x) in closeness.prefix(3).enumerated() { v["inputCloseness\(k + 1)"] = .number(x) }
        for (k, x) in contrast.prefix(3).enumerated() { v["inputContrast\(k + 1)"] = .number(x) }
        return try FilterDescriptor.spotColor.apply(v)
    }
}
