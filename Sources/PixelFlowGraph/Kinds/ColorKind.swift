/// The description of a color node: pixel -> pixel on unpremultiplied values, fused with its
/// neighbours into a color chain.
extension ColorKernel: NodeKind {
    package var kindName: String { "color" }
    package var label: String { name }
    package func inputRegion(_ k: Int, of node: Node, for rect: IntRect) -> IntRect { rect }
    package var rowOrder: RowOrder { .pointwise }
    package var cost: Int { 1 }
    package func fingerprint(unique: String) -> String { "color " + (sharesByName ? name : unique) }
}

/// The description of a color matrix node: an affine map of unpremultiplied RGBA.
extension ColorMatrix: NodeKind {
    package var kindName: String { "colorMatrix" }
    package var label: String { description }
    package func inputRegion(_ k: Int, of node: Node, for rect: IntRect) -> IntRect { rect }
    package var rowOrder: RowOrder { .pointwise }
    package var cost: Int { 1 }
    package func isIdentity(_ node: Node) -> Bool { isIdentity }
    package func fingerprint(unique: String) -> String {
        "matrix " + (0..<4).map { fingerprintBits(row($0)) }.joined(separator: ";") + "|" + fingerprintBits(bias)
    }
}
