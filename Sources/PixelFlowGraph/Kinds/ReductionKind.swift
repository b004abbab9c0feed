/// The description of a reduction node: whole regions of its inputs -> a small image. Always
/// a stage.
extension Reduction: NodeKind {
    var kindName: String { "reduction" }
    var label: String { "\(name) -> \(outputWidth)x\(outputHeight)" }
    func inputRegion(_ k: Int, of node: Node, for rect: IntRect) -> IntRect { regions[k] }
    var rowOrder: RowOrder { .unordered }
    var cost: Int { 1 }
    var stageRequirement: StageReason? { .reduction }
    func fingerprint(unique: String) -> String { "reduction \(regions) " + (sharesByName ? name : unique) }
}
