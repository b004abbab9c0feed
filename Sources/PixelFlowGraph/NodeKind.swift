/// What a node kind says about itself, in one place per kind (Graph/Kinds/): the facts that
/// lowering (`RenderPlan`, `Pipeline`), `explain()`, the byte path and the optimizer passes
/// need, so that none of them matches on `Op` cases of its own. `Op.kind` is the one switch
/// from a node's operation to its description.
///
/// A node's domain of definition is its `Node.extent`, which the code that builds the node
/// computes (a stencil grows its input's by the halo, a blend follows its `ExtentRule`).
package protocol NodeKind {
    /// The kind's name as `explain()` prints it ("stencil").
    var kindName: String { get }
    /// The node's parameters in a few words ("gaussian sigma 2.0").
    var label: String { get }
    /// The rect of input `k` of `node` that outputs in `rect` read (its region of interest).
    func inputRegion(_ k: Int, of node: Node, for rect: IntRect) -> IntRect
    /// Whether the kernel only reads input `k`, so that it may read the pixels where they are
    /// stored (a source buffer, a stage buffer) instead of a copy.
    func readsInPlace(input k: Int) -> Bool
    /// How output rows read input rows, for lowering's choice of tiles or full-width bands.
    var rowOrder: RowOrder { get }
    /// Rough cost per output pixel, in point operations.
    var cost: Int { get }
    /// The exact 8-bit form of the node, if it has one (see `BytePlan`).
    var byteForm: ByteStencil? { get }
    /// The separable 8-bit resampling form of `node`, if it has one (see `ByteForm`).
    func byteResample(_ node: Node) -> ByteResample?
    /// The unsharp mask that `node` computes, the node it sharpens and where, if it is one (see
    /// `UnsharpMask`).
    func byteUnsharp(_ node: Node) -> UnsharpMatch?
    /// A string equal for two nodes of this kind exactly when they compute the same thing from
    /// the same inputs; `unique` is a string no other node has (for closures that cannot be
    /// compared).
    func fingerprint(unique: String) -> String
    /// Whether `node` leaves its input 0 unchanged.
    func isIdentity(_ node: Node) -> Bool
    /// Why the node must be a stage of its own whatever reads it, if it must.
    var stageRequirement: StageReason? { get }
    /// For nodes that equal their input 0 over a rect (crops inside their extent, clamps
    /// inside the clamped rect): that rect, through which stored pixels may be read in place.
    func identityWindow(_ node: Node) -> IntRect?
    /// For a node with an identity window: true when outside it the node repeats the window's
    /// edge pixels (clamps), false when it is transparent there (crops).
    var repeatsEdgesOutsideWindow: Bool { get }
    /// Whether the node's pixels are stored (sources): no neighbourhood to compute.
    var isStored: Bool { get }
}

extension NodeKind {
    package func readsInPlace(input k: Int) -> Bool { false }
    package var byteForm: ByteStencil? { nil }
    package func byteResample(_ node: Node) -> ByteResample? { nil }
    package func byteUnsharp(_ node: Node) -> UnsharpMatch? { nil }
    package func isIdentity(_ node: Node) -> Bool { false }
    package var stageRequirement: StageReason? { nil }
    package func identityWindow(_ node: Node) -> IntRect? { nil }
    package var repeatsEdgesOutsideWindow: Bool { false }
    package var isStored: Bool { false }
}

/// How a node's output rows read its input rows (`NodeKind.rowOrder`).
package enum RowOrder: Equatable {
    /// Pixel by pixel: output pixel (x, y) reads input pixel (x, y) only.
    case pointwise
    /// Each output row reads the input rows within `haloY` of it, from left to right; with
    /// `needsStoredInput`, only efficiently when the input is read in place (a copied input
    /// would repeat its halo rows' work in every band).
    case rows(haloY: Int, needsStoredInput: Bool)
    /// Anything else (rotations, general warps, wide or multi-input stencils, reductions).
    case unordered
}

/// Why a node is a stage: computed into a buffer of its own before the stages that read it.
package enum StageReason: Equatable, CustomStringConvertible {
    /// Reductions compute their output from whole input regions.
    case reduction
    /// Every tile of the named multi-input stencil reads the node whole.
    case readWhole(by: String)
    /// The kind runs as passes over its whole region (a large Gaussian, a kernel with running
    /// state across rows); the string names the passes.
    case wholeRegion(String)
    /// The context does not optimize: each node is its own stage.
    case optimizationOff
    /// Read by several consumers and costly enough to compute once.
    case shared(uses: Int, cost: Int)
    /// Fused evaluation would nest deeper than `RenderPlan.maximumStageDepth`.
    case depth(Int)

    package var description: String {
        switch self {
        case .reduction: return "reduction"
        case let .readWhole(name): return "read whole by every tile of \(name)"
        case let .wholeRegion(what): return what
        case .optimizationOff: return "optimization off: one pass per node"
        case let .shared(uses, cost): return "used \(uses) times, cost \(cost) per pixel"
        case let .depth(d): return "stage depth \(d)"
        }
    }
}

extension Op {
    /// The node kind's description: the one switch on `Op` that lowering goes through.
    package var kind: any NodeKind {
        switch self {
        case let .source(b): return SourceKind(buffer: b)
        case let .streamedSource(s): return StreamedSourceKind(source: s)
        case let .generator(g): return g
        case let .color(k): return k
        case let .colorMatrix(m): return m
        case let .blend(k): return k
        case let .warp(w): return w
        case let .stencil(s): return s
        case let .crop(r): return CropKind(rect: r)
        case let .reduction(r): return r
        }
    }

    package var kindName: String { kind.kindName }
    package var label: String { kind.label }
}

/// Bit patterns of a vector, for fingerprints.
func fingerprintBits(_ v: SIMD4<Float>) -> String {
    "\(v.x.bitPattern),\(v.y.bitPattern),\(v.z.bitPattern),\(v.w.bitPattern)"
}
