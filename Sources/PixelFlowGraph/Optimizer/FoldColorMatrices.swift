/// Folds consecutive color matrices into one: exposure, color controls, sepia, invert,
/// grayscale and CIColorMatrix are all affine maps of the unpremultiplied color, so a run of
/// them costs one matrix.
///
/// Before: `colorMatrix(B) <- colorMatrix(A) <- x`. After: `colorMatrix(B * A) <- x`.
/// The result differs from applying them one by one only by float rounding (about 1e-6).
enum FoldColorMatrices: OptimizerPass {
    package static let name = "fold color matrices"

    package static func run(_ root: Node) -> (Node, changes: Int) {
        var changes = 0
        let out = GraphWalk.rewrite(root) { n in
            guard case let .colorMatrix(outer) = n.op, case let .colorMatrix(inner) = n.inputs[0].op else { return n }
            changes += 1
            let source = n.inputs[0]
            return Node(.colorMatrix(inner.concatenating(outer)), inputs: source.inputs, extent: n.extent)
        }
        return (out, changes)
    }
}
