/// How a stencil is computed, as lowering chooses its kernel.
package enum StencilForm {
    /// A 2-D correlation, row by row (`correlate2D`).
    case correlation2D(width: Int, height: Int, weights: [Float], bias: Float, rgbOnly: Bool)
    /// Separable taps inside each tile: horizontal over the halo rows, then vertical.
    case separableTaps(sigma: Double)
    /// Separable passes over the whole region, as a stage (`GaussianPass`): exact taps, or a
    /// cascade of box filters whose cost does not grow with the radius.
    case wholeRegionPasses(sigma: Double, mode: GaussianPlan.Mode)
    /// A kernel written as code (`StencilKernel`).
    case closure(StencilKernel)
}

/// What a stencil says about itself: the facts lowering reads (see `NodeKind`). Gaussians and
/// convolutions are ordinary stencils here, with the same kind of capabilities as kernels
/// written as code.
package struct StencilTraits {
    package var halo: (x: Int, y: Int)
    package var cost: Int
    /// The kernel only reads input 0, so it may read stored pixels in place.
    package var readsInputInPlace: Bool
    /// When the stencil runs over its whole region as a stage: what the passes are.
    package var wholeRegion: String?
    /// The whole-region passes can write their output straight into a destination buffer
    /// (so a render whose output is this stage runs no output tiles).
    package var writesIntoDestination: Bool
    /// Further inputs beyond input 0.
    package var extraInputCount: Int
    package var byteForm: ByteStencil?
    package var form: StencilForm
}

extension Stencil: NodeKind {
    package var traits: StencilTraits {
        switch self {
        case let .convolution(w, h, weights, bias, rgb):
            return StencilTraits(
                halo: halo, cost: Swift.max(1, w * h / 3), readsInputInPlace: true, wholeRegion: nil,
                writesIntoDestination: false, extraInputCount: 0, byteForm: nil,
                form: .correlation2D(width: w, height: h, weights: weights, bias: bias, rgbOnly: rgb))
        case let .gaussian(sigma):
            let mode = GaussianPlan.mode(sigma: sigma)
            let tiles = mode == .tileLocal
            return StencilTraits(
                halo: halo, cost: Swift.max(1, GaussianPlan.exactRadius(sigma: sigma)), readsInputInPlace: true,
                wholeRegion: tiles ? nil : "whole-region blur passes", writesIntoDestination: !tiles,
                extraInputCount: 0, byteForm: nil,
                form: tiles ? .separableTaps(sigma: sigma) : .wholeRegionPasses(sigma: sigma, mode: mode))
        case let .custom(k):
            return StencilTraits(
                halo: halo, cost: Swift.max(1, k.cost), readsInputInPlace: k.readsInputInPlace,
                wholeRegion: k.isWholeRegion ? "whole-region kernel" : nil, writesIntoDestination: false,
                extraInputCount: k.extraInputCount, byteForm: k.byteForm, form: .closure(k))
        }
    }

    package var kindName: String { "stencil" }

    /// How far the stencil reaches on each side, in pixels (asked per tile: no allocation).
    package var halo: (x: Int, y: Int) {
        switch self {
        case let .convolution(w, h, _, _, _): return (w / 2, h / 2)
        case let .gaussian(sigma):
            let r = GaussianPlan.kernelRadius(sigma: sigma)
            return (r, r)
        case let .custom(k): return (k.haloX, k.haloY)
        }
    }
    package var label: String { description }

    package func inputRegion(_ k: Int, of node: Node, for rect: IntRect) -> IntRect { inputRegion(k, for: rect) }

    /// The rect of input `k` that outputs in `rect` read.
    package func inputRegion(_ k: Int, for rect: IntRect) -> IntRect {
        switch self {
        case let .gaussian(sigma): return GaussianPlan.inputRect(sigma: sigma, for: rect)
        case let .custom(kernel) where k > 0: return kernel.inputRegion(k, for: rect)
        default:
            let h = halo
            return rect.outset(h.x, h.y)
        }
    }

    package func readsInPlace(input k: Int) -> Bool { k == 0 && traits.readsInputInPlace }

    package var rowOrder: RowOrder {
        let t = traits
        if t.wholeRegion != nil || t.extraInputCount > 0 { return .unordered }
        // Taller reaches only when the input is read in place: a copied region would repeat
        // the halo rows of every band.
        if t.halo.y <= 2 { return .rows(haloY: t.halo.y, needsStoredInput: false) }
        return t.readsInputInPlace ? .rows(haloY: t.halo.y, needsStoredInput: true) : .unordered
    }

    package var cost: Int { traits.cost }
    package var byteForm: ByteStencil? { traits.byteForm }
    package var stageRequirement: StageReason? { traits.wholeRegion.map(StageReason.wholeRegion) }

    package func isIdentity(_ node: Node) -> Bool {
        switch self {
        case let .gaussian(sigma): return sigma == 0
        case let .convolution(w, h, weights, bias, _):
            guard bias == 0, weights.count == w * h else { return false }
            let center = (h / 2) * w + w / 2
            return weights.enumerated().allSatisfy { $0.offset == center ? $0.element == 1 : $0.element == 0 }
        case .custom: return false
        }
    }

    package func fingerprint(unique: String) -> String {
        switch self {
        case let .convolution(w, h, weights, bias, rgb):
            return "conv \(w)x\(h) \(weights.map(\.bitPattern)) \(bias.bitPattern) \(rgb)"
        case let .gaussian(sigma): return "gaussian \(sigma.bitPattern)"
        case let .custom(k): return "stencil " + (k.sharesByName ? k.name : unique)
        }
    }

    /// How the stencil runs, for `explain()`.
    package var formNote: String? {
        switch traits.form {
        case .separableTaps: return "exact taps in tiles"
        case .wholeRegionPasses(_, .boxes(let r)): return "\(r.count) box passes, radii \(r)"
        case .wholeRegionPasses: return "exact taps, whole-region passes"
        case .correlation2D, .closure: return nil
        }
    }
}
