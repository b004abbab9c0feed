/// Decodes a streamed JPEG 2, 4 or 8 times smaller when the first thing done to it is a
/// large downscale ("shrink-on-load", as libvips' thumbnail does): libjpeg's DCT scaling then
/// skips most of the decoding, and the resampler reads k^2 times fewer pixels.
///
/// Before: `lanczos3 to 1000x800 <- streamedSource(10000x8000 JPEG)`.
/// After:  `lanczos3 to 1000x800 from 2500.0x2000.0 <- streamedSource(2500x2000 JPEG shrunk 1/4 on load)`.
///
/// It rewrites a Lanczos scale (`lanczosScaled`, `resized(to:contentMode:)`, thumbnails) or
/// a bilinear affine warp that only scales and translates (`transformed(by:)`), reading a
/// streamed source (`Image(contentsOfFile:streaming: true)` of a plain JPEG) directly or
/// through color matrices (the working space's conversion). Sources decoded into buffers are
/// not rewritten: their pixels already exist.
///
/// **The factor.** The largest k in {2, 4, 8} that leaves the resampler at least a 2x
/// reduction on both axes (k <= reduction / 2), libvips' rule: the DCT shrink is close to a
/// box filter, so a Lanczos (or bilinear) pass over at least two shrunk pixels per output
/// pixel keeps the result close to the full-resolution one. A reduction below 4x is not
/// rewritten. A bilinear warp fades to transparent over one input pixel past the image's
/// edge, which is k file pixels once shrunk; so an affine warp is rewritten only when its
/// result covers whole pixels (its output edges then sample well inside the image on both
/// paths) and k divides the width and height (camera sizes are multiples of 8 or 16; else
/// the last shrunk pixel would stand partly for padding). Lanczos taps stop at the edge, so
/// any size works for it.
///
/// **Coordinates.** Pixel (x, y) of the shrunk source stands for the file's pixels
/// `[k x, k x + k) x [k y, k y + k)`, so file coordinate `p` is shrunk coordinate `p / k`
/// exactly: the affine transform is composed with a scale by k, and the Lanczos warp maps
/// the span `width / k` x `height / k` (which ends inside the last shrunk pixel when the
/// size is not a multiple of k) onto the same output rect. Every rewritten node keeps its
/// extent, so nothing downstream moves.
///
/// **Accuracy.** Not exact: the DCT shrink averages sRGB-encoded values per 8x8 block
/// (the exact path averages linear light with Lanczos weights), and the last row and
/// column average the encoder's padding. On photographs the result stays within a few
/// 8-bit levels of the exact path; `ShrinkSourcesOnLoadTests` states and checks the bounds.
/// `RenderContext.Options.shrinksOnLoad = false` (or `optimizes = false`) turns the pass off
/// and gives the exact path's bytes.
package enum ShrinkSourcesOnLoad: OptimizerPass {
    package static let name = "shrink sources on load"

    /// The least reduction left to the resampler after the shrink, on each axis.
    static let remainingReduction = 2.0

    package static func run(_ root: Node) -> (Node, changes: Int) {
        var changes = 0
        // One shrunk source per (source, factor), so equal rewrites share their decode.
        var shrunkNodes: [String: Node] = [:]
        let out = GraphWalk.rewrite(root) { n in
            guard case let .warp(warp) = n.op, n.inputs.count == 1,
                let (sourceNode, source) = streamedSource(under: n.inputs[0])
            else { return n }
            let reduction: (x: Double, y: Double)
            var factors = source.shrinkFactors
            switch warp {
            case let .lanczos(o, nil):
                reduction = (Double(source.width) / Double(o.width), Double(source.height) / Double(o.height))
            case let .affine(t, .bilinear)
            where t.b == 0 && t.c == 0 && t.a > 0 && t.d > 0
                && isWholePixels(t.apply(to: source.bounds.rect)):
                reduction = (1 / t.a, 1 / t.d)
                factors = factors.filter { source.width % $0 == 0 && source.height % $0 == 0 }
            default:
                return n
            }
            guard let k = factor(reduction: Swift.min(reduction.x, reduction.y), among: factors) else { return n }
            let key = "\(UInt(bitPattern: ObjectIdentifier(source).hashValue)) \(k)"
            let shrunkNode: Node
            if let existing = shrunkNodes[key] {
                shrunkNode = existing
            } else {
                guard let shrunk = source.shrunk(by: k) else { return n }
                shrunkNode = Node(
                    .streamedSource(shrunk), inputs: [],
                    extent: Rect(x: 0, y: 0, width: Double(shrunk.width), height: Double(shrunk.height)))
                shrunkNodes[key] = shrunkNode
            }
            let input = replacing(sourceNode, with: shrunkNode, under: n.inputs[0])
            let scaled: Warp
            switch warp {
            case let .lanczos(o, _):
                let span = Size(width: Double(source.width) / Double(k), height: Double(source.height) / Double(k))
                scaled = .lanczos(output: o, inputSpan: span)
            case let .affine(t, sampling):
                let f = Double(k)
                scaled = .affine(AffineTransform(a: t.a * f, b: 0, c: 0, d: t.d * f, tx: t.tx, ty: t.ty), sampling)
            default:
                return n
            }
            changes += 1
            return Node(.warp(scaled), inputs: [input], extent: n.extent)
        }
        return (out, changes)
    }

    /// True when `r`'s edges are whole pixel coordinates (up to rounding).
    static func isWholePixels(_ r: Rect) -> Bool {
        [r.minX, r.minY, r.maxX, r.maxY].allSatisfy { Swift.abs($0 - $0.rounded()) < 1e-9 }
    }

    /// The largest of `factors` that leaves at least `remainingReduction` of `reduction`.
    package static func factor(reduction: Double, among factors: [Int]) -> Int? {
        factors.filter { Double($0) * remainingReduction <= reduction }.max()
    }

    /// The streamed source `node` reads at its own size, at the origin, through nothing but
    /// single-input color matrices.
    package static func streamedSource(under node: Node) -> (Node, StreamedSource)? {
        var n = node
        while case .colorMatrix = n.op, n.inputs.count == 1 { n = n.inputs[0] }
        guard case let .streamedSource(s) = n.op, s.shrinkFactor == 1, n.extent == s.bounds.rect else { return nil }
        return (n, s)
    }

    /// The chain from `top` down to `source` (color matrices) rebuilt over `replacement`.
    package static func replacing(_ source: Node, with replacement: Node, under top: Node) -> Node {
        if top === source { return replacement }
        let input = replacing(source, with: replacement, under: top.inputs[0])
        return Node(top.op, inputs: [input], extent: replacement.extent)
    }
}
