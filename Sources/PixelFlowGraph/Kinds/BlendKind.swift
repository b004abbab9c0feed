/// The description of a blend node: (foreground, background) -> pixel, premultiplied.
extension BlendKernel: NodeKind {
    package var kindName: String { "blend" }
    package var label: String { name }
    package func inputRegion(_ k: Int, of node: Node, for rect: IntRect) -> IntRect { rect }
    /// A blend only reads its inputs' pixels: a built-in blend reads stored inputs in place.
    package func readsInPlace(input k: Int) -> Bool { builtin != nil }
    package var rowOrder: RowOrder { .pointwise }
    package var cost: Int { 1 }
    package func fingerprint(unique: String) -> String { "blend \(extentRule) " + (sharesByName ? name : unique) }
}
