/// The description of a reduction node: whole regions of its inputs -> a small image. Always
/// a stage.
extension Reduction: NodeKind {
    package var kindName: String { "reduction" }
    package var label: String { "\(name) -> \(outputWidth)x\(outputHeight)" }
    package func inputRegion(_ k: Int, of node: Node, for rect: IntRect) -> IntRect { regions[k] }
    package var rowOrder: RowOrder { .unordered }
    package var cost: Int { 1 }
    package var stageRequirement: StageReason? { .reduction }
    package func fingerprint(unique: String) -> String { "reduction \(regions) " + (sharesByName ? name : unique) }
}
