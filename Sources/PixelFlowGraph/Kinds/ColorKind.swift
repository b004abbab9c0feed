/// The description of a color node: pixel -> pixel on unpremultiplied values, fused with its
/// neighbours into a color chain.
extension ColorKernel: NodeKind {
    var kindName: String { "color" }
    var label: String { name }
    func inputRegion(_ k: Int, of node: Node, for rect: IntRect) -> IntRect { rect }
    var rowOrder: RowOrder { .pointwise }
    var cost: Int { 1 }
    func fingerprint(unique: String) -> String { "color " + (sharesByName ? name : unique) }
}

/// The description of a color matrix node: an affine map of unpremultiplied RGBA.
extension ColorMatrix: NodeKind {
    var kindName: String { "colorMatrix" }
    var label: String { description }
    func inputRegion(_ k: Int, of node: Node, for rect: IntRect) -> IntRect { rect }
    var rowOrder: RowOrder { .pointwise }
    var cost: Int { 1 }
    func isIdentity(_ node: Node) -> Bool { isIdentity }
    func fingerprint(unique: String) -> String {
        "matrix " + (0..<4).map { fingerprintBits(row($0)) }.joined(separator: ";") + "|" + fingerprintBits(bias)
    }
}
