import Synchronization

/// Graph utilities shared by the optimizer passes and the planner. All of them are
/// iterative, so graphs thousands of nodes deep do not exhaust the stack.
package enum GraphWalk {
    /// Every node reachable from `root`, each once, inputs before the nodes that read them.
    package static func postOrder(_ root: Node) -> [Node] {
        GraphWalk.count()
        var order: [Node] = []
        var seen = Set<ObjectIdentifier>([ObjectIdentifier(root)])
        var stack: [(Node, Int)] = [(root, 0)]
        while let (n, i) = stack.popLast() {
            if i < n.inputs.count {
                stack.append((n, i + 1))
                let c = n.inputs[i]
                if seen.insert(ObjectIdentifier(c)).inserted { stack.append((c, 0)) }
            } else {
                order.append(n)
            }
        }
        return order
    }

    /// How many consumers each node has within the graph of `root` (the root has none).
    package static func consumerCounts(_ order: [Node]) -> [ObjectIdentifier: Int] {
        var counts: [ObjectIdentifier: Int] = [:]
        for n in order { for i in n.inputs { counts[ObjectIdentifier(i), default: 0] += 1 } }
        return counts
    }

    /// Rebuilds the graph bottom-up. `transform` sees each node with its inputs already
    /// rewritten and returns its replacement (or the node itself). Shared nodes stay shared.
    package static func rewrite(_ root: Node, _ transform: (Node) -> Node) -> Node {
        var map: [ObjectIdentifier: Node] = [:]
        for n in postOrder(root) {
            let inputs = n.inputs.map { map[ObjectIdentifier($0)]! }
            let same = zip(inputs, n.inputs).allSatisfy { $0 === $1 }
            let rebuilt = same ? n : Node(n.op, inputs: inputs, extent: n.extent)
            map[ObjectIdentifier(n)] = transform(rebuilt)
        }
        return map[ObjectIdentifier(root)]!
    }

    /// The longest path from `root` to a source, in nodes.
    package static func depth(_ root: Node) -> Int {
        var d: [ObjectIdentifier: Int] = [:]
        for n in postOrder(root) {
            d[ObjectIdentifier(n)] = 1 + (n.inputs.map { d[ObjectIdentifier($0)]! }.max() ?? 0)
        }
        return d[ObjectIdentifier(root)]!
    }
}

extension GraphWalk {
    /// Walks of the graph so far, in this process: every function that follows node inputs
    /// to find something (post-orders, the crop-and-clamp walk to stored pixels, color-chain
    /// collection, access and stage contents) counts itself here. Lowering walks; the tile loop
    /// must not, so a render's count does not depend on its tile count (PipelineTests).
    static let walks = Atomic<Int>(0)

    /// Counts one walk.
    @inline(__always)
    package static func count() { walks.add(1, ordering: .relaxed) }
}
