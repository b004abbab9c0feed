/// The byte forms of warps: bilinear scales and Lanczos-3 resample separably on bytes, other
/// bilinear affine warps (rotations, shears) sample with fixed-point positions and weights.
extension Warp {
    /// A bilinear scale without rotation (`separableScaleInverse`), another bilinear affine
    /// warp with a finite inverse, or a Lanczos-3 warp of an input with a finite extent; nil
    /// for nearest sampling and custom warps.
    package func byteResample(_ node: Node) -> ByteResample? {
        switch self {
        case let .affine(t, .bilinear):
            if let inv = separableScaleInverse { return .scale(inverse: inv) }
            guard let inv = t.inverted(), [inv.a, inv.b, inv.c, inv.d, inv.tx, inv.ty].allSatisfy(\.isFinite) else {
                return nil
            }
            return .affine(inverse: inv)
        case .affine:
            return nil
        case let .lanczos(o, span):
            let input = node.inputs[0].extent
            guard !input.isInfinite else { return nil }
            return .lanczos3(output: o, inputSpan: span, input: IntRect(covering: input))
        case let .boxShrink(k, o):
            let input = node.inputs[0].extent
            guard !input.isInfinite else { return nil }
            return .box(factor: k, output: o, input: IntRect(covering: input))
        case .clamp, .custom:
            return nil
        }
    }
}
