/// The byte forms of warps: bilinear scales and Lanczos-3 resample separably on bytes, other
/// bilinear affine warps with fixed-point bilinear taps.
extension Warp {
    /// A bilinear scale without rotation (`separableScaleInverse`), another bilinear affine
    /// warp, or a Lanczos-3 warp of an input with a finite extent; nil for nearest sampling and
    /// custom warps.
    func byteResample(_ node: Node) -> ByteResample? {
        switch self {
        case let .affine(t, sampling):
            if let inverse = separableScaleInverse { return .scale(inverse: inverse) }
            guard sampling == .bilinear, let inverse = t.inverted() else { return nil }
            return .affine(inverse: inverse)
        case let .lanczos(o, span):
            let input = node.inputs[0].extent
            guard !input.isInfinite else { return nil }
            return .lanczos3(output: o, inputSpan: span, input: IntRect(covering: input))
        case .clamp, .custom:
            return nil
        }
    }
}
