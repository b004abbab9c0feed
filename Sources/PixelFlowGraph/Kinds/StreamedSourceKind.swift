/// The description of a streamed source node: rows of a file decoded as a render needs them.
struct StreamedSourceKind: NodeKind {
    let source: StreamedSource

    var kindName: String { "streamedSource" }
    var label: String { source.description }
    func inputRegion(_ k: Int, of node: Node, for rect: IntRect) -> IntRect { .empty }
    var rowOrder: RowOrder { .pointwise }
    var cost: Int { 1 }
    var isStored: Bool { true }
    func fingerprint(unique: String) -> String { "streamed \(UInt(bitPattern: ObjectIdentifier(source).hashValue))" }
}
