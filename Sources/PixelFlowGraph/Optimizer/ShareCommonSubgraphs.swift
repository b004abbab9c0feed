/// Makes structurally identical subgraphs one node: the same operation with the same
/// parameters on the same inputs. A node used twice is then computed once (the planner
/// decides whether per tile or in a buffer).
///
/// Before: `blend(a: exposure(+1) <- s, b: exposure(+1) <- s)`. After: both inputs are one node.
/// Kernels made from user closures are only shared when they are the same node, since two
/// closures cannot be compared.
enum ShareCommonSubgraphs: OptimizerPass {
    package static let name = "share common subgraphs"

    package static func run(_ root: Node) -> (Node, changes: Int) {
        var changes = 0
        var table: [String: Node] = [:]
        let out = GraphWalk.rewrite(root) { n in
            let key = fingerprint(n)
            if let existing = table[key], existing !== n {
                changes += 1
                return existing
            }
            table[key] = n
            return n
        }
        return (out, changes)
    }

    /// A string that is equal for two nodes exactly when they compute the same thing.
    static func fingerprint(_ n: Node) -> String {
        let inputs = n.inputs.map { "\(UInt(bitPattern: ObjectIdentifier($0).hashValue))" }.joined(separator: ",")
        let unique = "#\(UInt(bitPattern: ObjectIdentifier(n).hashValue))"
        let op = n.op.kind.fingerprint(unique: unique)
        return op + " <- " + inputs
    }
}
