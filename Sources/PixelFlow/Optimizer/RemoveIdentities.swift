/// Removes nodes that leave their input unchanged.
///
/// Before: `colorMatrix(identity) <- crop(covers all) <- source`. After: `source`.
/// Identities: identity color matrices (for example exposure +1 folded with exposure -1),
/// identity affine transforms, crops whose rect contains the input's extent, convolutions
/// whose kernel is a centered 1 with no bias, Gaussian blurs of sigma 0, Lanczos scales
/// onto the input's own extent.
enum RemoveIdentities: OptimizerPass {
    static let name = "remove identities"

    static func run(_ root: Node) -> (Node, changes: Int) {
        var changes = 0
        let out = GraphWalk.rewrite(root) { n in
            if isIdentity(n) { changes += 1; return n.inputs[0] }
            return n
        }
        return (out, changes)
    }

    static func isIdentity(_ n: Node) -> Bool {
        switch n.op {
        case let .colorMatrix(m): return m.isIdentity
        case let .warp(.affine(t, _)): return t.isIdentity
        case let .warp(.lanczos(o, nil)): return o.rect == n.inputs[0].extent
        case let .crop(r):
            let e = n.inputs[0].extent
            if e.isInfinite { return r.isInfinite }
            return !r.isInfinite ? e.intersection(r) == e : true
        case let .stencil(.gaussian(sigma)): return sigma == 0
        case let .stencil(.convolution(w, h, weights, bias, _)):
            guard bias == 0, weights.count == w * h else { return false }
            let center = (h / 2) * w + w / 2
            return weights.enumerated().allSatisfy { $0.offset == center ? $0.element == 1 : $0.element == 0 }
        default: return false
        }
    }
}
