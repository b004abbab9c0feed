/// The description of a source node: pixels of a `PixelBuffer`, stored.
package struct SourceKind: NodeKind {
    package let buffer: PixelBuffer

    package var kindName: String { "source" }
    package var label: String { "\(buffer.width)x\(buffer.height) \(buffer.format)" }
    package func inputRegion(_ k: Int, of node: Node, for rect: IntRect) -> IntRect { .empty }
    package var rowOrder: RowOrder { .pointwise }
    package var cost: Int { 1 }
    package var isStored: Bool { true }
    package func fingerprint(unique: String) -> String {
        "source \(UInt(bitPattern: ObjectIdentifier(buffer._storage).hashValue)) \(buffer.width)x\(buffer.height) "
            + "\(buffer.format) \(buffer.colorEncoding) \(buffer.alphaMode)"
    }
}
