/// The description of a streamed source node: rows of a file decoded as a render needs them.
package struct StreamedSourceKind: NodeKind {
    package let source: StreamedSource

    package var kindName: String { "streamedSource" }
    package var label: String { source.description }
    package func inputRegion(_ k: Int, of node: Node, for rect: IntRect) -> IntRect { .empty }
    package var rowOrder: RowOrder { .pointwise }
    package var cost: Int { 1 }
    package var isStored: Bool { true }
    package func fingerprint(unique: String) -> String { "streamed \(UInt(bitPattern: ObjectIdentifier(source).hashValue))" }
}
