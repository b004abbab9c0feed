// CIToneMapHeadroom: high-dynamic-range values brought into a smaller headroom by a documented
// highlight roll-off of PixelFlow's (`headroomRollOff`), since Apple does not publish its curve.

extension FilterDescriptor {
    /// The tone-mapping descriptors, listed in `builtIn`.
    static let toneMapFilters: [FilterDescriptor] = [toneMapHeadroom]

    static let toneMapHeadroom = FilterDescriptor(
        name: "CIToneMapHeadroom", displayName: "Tone Map Headroom",
        summary:
            "Rolls highlights off from a source headroom to a target headroom (linear light, 1 = SDR white): values up to half the target stay, above them a rational shoulder with slope 1 at the knee reaches the target at the source headroom, applied to each pixel's largest channel so hue is kept. An approximation: Apple publishes no curve.",
        categories: [.colorAdjustment, .highDynamicRange],
        inputs: [
            .image(),
            .number(
                "inputSourceHeadroom", default: 1, identity: 1, min: 1, max: 1000, sliderMin: 1, sliderMax: 16,
                summary:
                    "The brightest value of the input, relative to SDR white (Core Image reads the image's content headroom when unset; PixelFlow images carry none, so 1 leaves the image as it is)."
            ),
            .number(
                "inputTargetHeadroom", default: 1, min: 1, max: 1000, sliderMin: 1, sliderMax: 16,
                summary: "The brightest value of the output, relative to SDR white (1: SDR)."),
        ]
    ) { a in
        let source = try a.float("inputSourceHeadroom"), target = try a.float("inputTargetHeadroom")
        let image = try a.image()
        guard source > target else { return image }
        return image.applyingColorKernel(
            ColorKernel(name: "tone map headroom \(source) -> \(target)") { px, n in
                toneMapHeadroomRow(px, count: n, source: source, target: target)
            })
    }
}

extension Image {
    /// Rolls highlights off from `sourceHeadroom` to `targetHeadroom` (`CIToneMapHeadroom`):
    /// values are linear light relative to SDR white; each pixel's largest channel `m` goes
    /// through a roll-off that is the identity up to `k = targetHeadroom / 2` and above it the
    /// rational shoulder `k + (T - k) a u / (1 + (a - 1) u)`, `u = (m - k) / (S - k)`,
    /// `a = (S - k) / (T - k)` (slope 1 at the knee, `targetHeadroom` at `sourceHeadroom` and
    /// beyond), and the three channels are scaled by the same factor. A documented
    /// approximation: Apple publishes no curve. No change when `sourceHeadroom <=
    /// targetHeadroom`.
    ///
    /// - Parameters:
    ///   - sourceHeadroom: the input's brightest value, 1...1000 (default 1).
    ///   - targetHeadroom: the output's brightest value, 1...1000 (default 1).
    /// - Complexity: O(1) per pixel; fuses with the color steps around it.
    public func toneMappedHeadroom(sourceHeadroom: Double? = nil, targetHeadroom: Double? = nil) throws -> Image {
        try FilterDescriptor.toneMapHeadroom.apply([
            "inputImage": .image(self), "inputSourceHeadroom": sourceHeadroom.map(FilterValue.number),
            "inputTargetHeadroom": targetHeadroom.map(FilterValue.number),
        ])
    }
}
