/// Merges nested crops and pushes crops towards the sources, through point operations and
/// blends, so that adjacent crops meet and merge and the graph says plainly which pixels of
/// each source are used. (Rendering computes only the region each node's consumers need
/// whether or not crops were pushed; this pass keeps plans small and readable.)
///
/// Before: `crop(A) <- colorMatrix <- crop(B) <- x`. After: `colorMatrix <- crop(A & B) <- x`.
enum MergeCrops: OptimizerPass {
    package static let name = "merge and push crops"

    package static func run(_ root: Node) -> (Node, changes: Int) {
        var changes = 0
        let out = GraphWalk.rewrite(root) { n in
            guard case let .crop(r) = n.op else { return n }
            let x = n.inputs[0]
            switch x.op {
            case .crop, .color, .colorMatrix:
                changes += 1
                return push(r, onto: x)
            case let .blend(k):
                changes += 1
                let a = push(r, onto: x.inputs[0]), b = push(r, onto: x.inputs[1])
                return Node(x.op, inputs: [a, b], extent: k.extent(a.extent, b.extent))
            default:
                return n
            }
        }
        return (out, changes)
    }

    /// `crop(r) <- x`, with the crop moved below any run of point operations and merged with
    /// a crop it meets there. Iterative: long chains do not use the stack.
    static func push(_ r: Rect, onto x: Node) -> Node {
        var chain: [Node] = []
        var bottom = x
        var rect = r
        while true {
            switch bottom.op {
            case .color, .colorMatrix:
                chain.append(bottom)
                bottom = bottom.inputs[0]
                continue
            case let .crop(inner):
                let merged = rect.intersection(inner)
                rect = merged.isEmpty ? .empty : merged
                bottom = bottom.inputs[0]
                continue
            default:
                break
            }
            break
        }
        let e = bottom.extent.intersection(rect)
        var node = Node(.crop(rect), inputs: [bottom], extent: e.isEmpty ? .empty : e)
        for c in chain.reversed() { node = Node(c.op, inputs: [node], extent: node.extent) }
        return node
    }
}

extension BlendKernel {
    /// The extent of a blend of inputs with extents `fg` and `bg`.
    package func extent(_ fg: Rect, _ bg: Rect) -> Rect {
        switch extentRule {
        case .union: return fg.union(bg)
        case .background: return bg
        case .foreground: return fg
        case .intersection:
            let e = fg.intersection(bg)
            return e.isEmpty ? .empty : e
        }
    }
}
