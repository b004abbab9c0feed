/// An unsharp mask, `out = in + intensity * (in - gaussian(in, sigma))` on premultiplied
/// working values (`CIUnsharpMask`), or with `lumaOnly` the Rec. 709 luma of `in - gaussian(in)`
/// times the intensity added to R, G and B, alpha kept (`CISharpenLuminance`).
///
/// The float path builds it as one of two graphs: up to sigma 3 (`GaussianPlan.tileLocalLimit`)
/// a custom stencil that fuses the blur and the difference in each tile (declaring
/// `StencilCapability.unsharpMask`), above it a whole-region Gaussian of the input blended
/// with the input by a `BlendKernel` that carries `unsharpMask`. Both compute the same formula
/// with the same exact taps; `NodeKind.byteUnsharp` recognizes either, which is how the byte
/// path finds its form (ByteForms+Unsharp.swift).
package struct UnsharpMask: Sendable, CustomStringConvertible {
    /// The Gaussian's standard deviation, in pixels.
    package var sigma: Double
    /// The factor k of the difference.
    package var intensity: Float
    /// Only the luma of the difference, added to R, G and B.
    package var lumaOnly: Bool

    package init(sigma: Double, intensity: Float, lumaOnly: Bool) {
        self.sigma = sigma
        self.intensity = intensity
        self.lumaOnly = lumaOnly
    }

    /// The Gaussian's exact taps when the float path runs them (sigma up to
    /// `GaussianPlan.exactLimit`), nil above (a cascade of boxes, a different sum).
    package var exactTaps: [Float]? {
        guard sigma > 0 else { return nil }
        if case .boxes = GaussianPlan.mode(sigma: sigma) { return nil }
        return GaussianPlan.exactTaps(sigma: sigma)
    }

    package var description: String {
        "\(lumaOnly ? "luma sharpen" : "unsharp mask") sigma \(sigma) k \(intensity)"
    }
}

/// An unsharp mask found in a graph (`NodeKind.byteUnsharp`): what it computes, the node it
/// sharpens (the Gaussian's input), and the rect outside which the output is transparent
/// (crops that the optimizer pushed into the blend's inputs), nil when none.
package struct UnsharpMatch {
    package var mask: UnsharpMask
    package var input: Node
    package var window: Rect?
}

extension Stencil {
    /// A custom kernel that declares `StencilCapability.unsharpMask` (the fused tile-local form).
    package func byteUnsharp(_ node: Node) -> UnsharpMatch? {
        guard case let .custom(k) = self, node.inputs.count == 1 else { return nil }
        for c in k.capabilities { if case let .unsharpMask(m) = c { return UnsharpMatch(mask: m, input: node.inputs[0]) } }
        return nil
    }
}

extension BlendKernel {
    /// A blend with `unsharpMask` of a Gaussian of that sigma of a node Y (input 0) and Y itself
    /// (input 1), each under crops (`MergeAndPushCrops` moves the output's crop into both). With
    /// Cf and Cb the intersections of the crops of each side, the blend is the unsharp mask of Y
    /// inside Cb when Cf contains the background's support (Cb and Y's extent), and transparent
    /// outside Cb: there the background is 0 and `0 + k (0 - g)` clamps to 0 (g, k >= 0).
    package func byteUnsharp(_ node: Node) -> UnsharpMatch? {
        guard let m = unsharpMask, node.inputs.count == 2, m.intensity >= 0 else { return nil }
        func belowCrops(_ n: Node) -> (node: Node, window: Rect) {
            var n = n, window = Rect.infinite
            while n.inputs.count == 1, n.op.kind.identityWindow(n) != nil, !n.op.kind.repeatsEdgesOutsideWindow {
                window = window.intersection(n.extent)
                n = n.inputs[0]
            }
            return (n, window)
        }
        let fg = belowCrops(node.inputs[0]), bg = belowCrops(node.inputs[1])
        guard case let .stencil(.gaussian(s)) = fg.node.op, s == m.sigma, fg.node.inputs.count == 1,
            fg.node.inputs[0] === bg.node
        else { return nil }
        let support = bg.window.intersection(bg.node.extent)
        guard support.isEmpty || fg.window.isInfinite || fg.window.intersection(support) == support else { return nil }
        return UnsharpMatch(mask: m, input: bg.node, window: bg.window.isInfinite ? nil : bg.window)
    }
}
