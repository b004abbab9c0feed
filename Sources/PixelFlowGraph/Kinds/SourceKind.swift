/// The description of a source node: pixels of a `PixelBuffer`, stored.
struct SourceKind: NodeKind {
    let buffer: PixelBuffer

    var kindName: String { "source" }
    var label: String { "\(buffer.width)x\(buffer.height) \(buffer.format)" }
    func inputRegion(_ k: Int, of node: Node, for rect: IntRect) -> IntRect { .empty }
    var rowOrder: RowOrder { .pointwise }
    var cost: Int { 1 }
    var isStored: Bool { true }
    func fingerprint(unique: String) -> String {
        "source \(UInt(bitPattern: ObjectIdentifier(buffer._storage).hashValue)) \(buffer.width)x\(buffer.height) "
            + "\(buffer.format) \(buffer.colorEncoding) \(buffer.alphaMode)"
    }
}
