/// Makes structurally identical subgraphs one node: the same operation with the same
/// parameters on the same inputs. A node used twice is then computed once (the planner
/// decides whether per tile or in a buffer).
///
/// Before: `blend(a: exposure(+1) <- s, b: exposure(+1) <- s)`. After: both inputs are one node.
/// Kernels made from user closures are only shared when they are the same node, since two
/// closures cannot be compared.
enum ShareCommonSubgraphs: OptimizerPass {
    static let name = "share common subgraphs"

    static func run(_ root: Node) -> (Node, changes: Int) {
        var changes = 0
        var table: [String: Node] = [:]
        let out = GraphWalk.rewrite(root) { n in
            let key = fingerprint(n)
            if let existing = table[key], existing !== n {
                changes += 1
                return existing
            }
            table[key] = n
            return n
        }
        return (out, changes)
    }

    /// A string that is equal for two nodes exactly when they compute the same thing.
    static func fingerprint(_ n: Node) -> String {
        let inputs = n.inputs.map { "\(UInt(bitPattern: ObjectIdentifier($0).hashValue))" }.joined(separator: ",")
        let unique = "#\(UInt(bitPattern: ObjectIdentifier(n).hashValue))"
        let op: String
        switch n.op {
        case let .source(b):
            op =
                "source \(UInt(bitPattern: ObjectIdentifier(b._storage).hashValue)) \(b.width)x\(b.height) \(b.format) \(b.colorEncoding) \(b.alphaMode)"
        case let .streamedSource(s): op = "streamed \(UInt(bitPattern: ObjectIdentifier(s).hashValue))"
        case let .generator(g): op = "generator " + (g.sharesByName ? g.name : unique)
        case let .color(k): op = "color " + (k.sharesByName ? k.name : unique)
        case let .colorMatrix(m): op = "matrix " + (0..<4).map { bits(m.row($0)) }.joined(separator: ";") + "|" + bits(m.bias)
        case let .blend(k): op = "blend \(k.extentRule) " + (k.sharesByName ? k.name : unique)
        case let .warp(w):
            switch w {
            case let .affine(t, s): op = "affine \([t.a, t.b, t.c, t.d, t.tx, t.ty].map { $0.bitPattern }) \(s)"
            case let .lanczos(o, span): op = "lanczos \(o) \(span.map { [$0.width.bitPattern, $0.height.bitPattern] } ?? [])"
            case let .clamp(e): op = "clamp \(e)"
            case let .custom(k): op = "warp " + (k.sharesByName ? k.name : unique)
            }
        case let .stencil(s):
            switch s {
            case let .convolution(w, h, weights, bias, rgb):
                op = "conv \(w)x\(h) \(weights.map(\.bitPattern)) \(bias.bitPattern) \(rgb)"
            case let .gaussian(sigma): op = "gaussian \(sigma.bitPattern)"
            case let .custom(k): op = "stencil " + (k.sharesByName ? k.name : unique)
            }
        case let .crop(r): op = "crop \([r.x, r.y, r.width, r.height].map(\.bitPattern))"
        case let .reduction(r): op = "reduction \(r.regions) " + (r.sharesByName ? r.name : unique)
        }
        return op + " <- " + inputs
    }

    static func bits(_ v: SIMD4<Float>) -> String {
        "\(v.x.bitPattern),\(v.y.bitPattern),\(v.z.bitPattern),\(v.w.bitPattern)"
    }
}
