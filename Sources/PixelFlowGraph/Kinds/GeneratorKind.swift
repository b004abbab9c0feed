/// The description of a generator node: position -> color, no inputs.
extension GeneratorKernel: NodeKind {
    var kindName: String { "generator" }
    var label: String { name }
    func inputRegion(_ k: Int, of node: Node, for rect: IntRect) -> IntRect { .empty }
    var rowOrder: RowOrder { .pointwise }
    var cost: Int { 1 }
    func fingerprint(unique: String) -> String { "generator " + (sharesByName ? name : unique) }
}
