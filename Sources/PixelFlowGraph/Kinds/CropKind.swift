/// The description of a crop node: its input, transparent outside a rect.
struct CropKind: NodeKind {
    let rect: Rect

    var kindName: String { "crop" }
    var label: String { rect.description }
    func inputRegion(_ k: Int, of node: Node, for rect: IntRect) -> IntRect { rect }
    var rowOrder: RowOrder { .pointwise }
    var cost: Int { 0 }
    func isIdentity(_ node: Node) -> Bool {
        let e = node.inputs[0].extent
        if e.isInfinite { return rect.isInfinite }
        return !rect.isInfinite ? e.intersection(rect) == e : true
    }
    /// Inside its extent a crop is its input.
    func identityWindow(_ node: Node) -> IntRect? { IntRect(covering: node.extent) }
    func fingerprint(unique: String) -> String { "crop \([rect.x, rect.y, rect.width, rect.height].map(\.bitPattern))" }
}
