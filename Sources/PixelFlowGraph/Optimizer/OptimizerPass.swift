/// One rewrite of the graph: a pure function from a graph to an equivalent (or, for
/// `FoldAffineWarps`, a better) graph, with the number of changes it made.
package protocol OptimizerPass: SendableMetatype {
    /// A verb phrase naming what the pass does, as `explain()` prints it.
    static var name: String { get }
    static func run(_ root: Node) -> (Node, changes: Int)
}

/// The optimizer: the passes in order, and what each changed.
package enum Optimizer {
    package static let passes: [any OptimizerPass.Type] = [
        RemoveIdentities.self, MergeCrops.self, FoldColorMatrices.self, FoldAffineWarps.self,
        ShrinkSourcesOnLoad.self, RemoveIdentities.self, ShareCommonSubgraphs.self,
    ]

    /// Runs every pass; returns the rewritten graph and a line per pass that changed something.
    ///
    /// - Parameter shrinksOnLoad: whether `ShrinkSourcesOnLoad` runs, the one pass that
    ///   changes pixels (`RenderContext.Options.shrinksOnLoad`).
    package static func optimize(_ root: Node, shrinksOnLoad: Bool = true) -> (Node, log: [String]) {
        var node = root
        var log: [String] = []
        for p in passes {
            if !shrinksOnLoad && p == ShrinkSourcesOnLoad.self { continue }
            let (n, changes) = p.run(node)
            node = n
            if changes > 0 { log.append("\(p.name): \(changes)") }
        }
        return (node, log)
    }
}
