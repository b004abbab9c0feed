/// Removes nodes that leave their input unchanged.
///
/// Before: `colorMatrix(identity) <- crop(covers all) <- source`. After: `source`.
/// Identities: identity color matrices (for example exposure +1 folded with exposure -1),
/// identity affine transforms, crops whose rect contains the input's extent, convolutions
/// whose kernel is a centered 1 with no bias, Gaussian blurs of sigma 0, Lanczos scales
/// onto the input's own extent.
enum RemoveIdentities: OptimizerPass {
    package static let name = "remove identities"

    package static func run(_ root: Node) -> (Node, changes: Int) {
        var changes = 0
        let out = GraphWalk.rewrite(root) { n in
            if isIdentity(n) { changes += 1; return n.inputs[0] }
            return n
        }
        return (out, changes)
    }

    /// Whether `n` leaves its input unchanged, as its kind says (`NodeKind.isIdentity`).
    package static func isIdentity(_ n: Node) -> Bool { n.op.kind.isIdentity(n) }
}
