/// The description of a crop node: its input, transparent outside a rect.
package struct CropKind: NodeKind {
    package let rect: Rect

    package var kindName: String { "crop" }
    package var label: String { rect.description }
    package func inputRegion(_ k: Int, of node: Node, for rect: IntRect) -> IntRect { rect }
    package var rowOrder: RowOrder { .pointwise }
    package var cost: Int { 0 }
    package func isIdentity(_ node: Node) -> Bool {
        let e = node.inputs[0].extent
        if e.isInfinite { return rect.isInfinite }
        return !rect.isInfinite ? e.intersection(rect) == e : true
    }
    /// Inside its extent a crop is its input.
    package func identityWindow(_ node: Node) -> IntRect? { IntRect(covering: node.extent) }
    package func fingerprint(unique: String) -> String { "crop \([rect.x, rect.y, rect.width, rect.height].map(\.bitPattern))" }
}
