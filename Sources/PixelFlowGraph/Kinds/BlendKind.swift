/// The description of a blend node: (foreground, background) -> pixel, premultiplied.
extension BlendKernel: NodeKind {
    var kindName: String { "blend" }
    var label: String { name }
    func inputRegion(_ k: Int, of node: Node, for rect: IntRect) -> IntRect { rect }
    /// A blend only reads its inputs' pixels: a built-in blend reads stored inputs in place.
    func readsInPlace(input k: Int) -> Bool { builtin != nil }
    var rowOrder: RowOrder { .pointwise }
    var cost: Int { 1 }
    func fingerprint(unique: String) -> String { "blend \(extentRule) " + (sharesByName ? name : unique) }
}
