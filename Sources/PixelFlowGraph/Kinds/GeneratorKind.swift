/// The description of a generator node: position -> color, no inputs.
extension GeneratorKernel: NodeKind {
    package var kindName: String { "generator" }
    package var label: String { name }
    package func inputRegion(_ k: Int, of node: Node, for rect: IntRect) -> IntRect { .empty }
    package var rowOrder: RowOrder { .pointwise }
    package var cost: Int { 1 }
    package func fingerprint(unique: String) -> String { "generator " + (sharesByName ? name : unique) }
}
