extension Evaluator {
    /// Below `node`, through crops and clamps, the node whose pixels are stored (a source, or
    /// a stage for which `isStage` is true), and the rect over which those stored pixels are
    /// `node`'s own: the crops' and clamps' extents and the storage's, intersected. Nil when
    /// something else (a filter to compute) comes first. The one walk behind
    /// `withPixelsInPlace`, `inPlaceRect`, `isStoredBehindCropsAndClamps` and the planner's
    /// choice of tile shape.
    static func storage(below node: Node, isStage: (Node) -> Bool) -> (node: Node, rect: IntRect)? {
        var n = node
        var rect = IntRect(covering: node.extent)
        while true {
            if isStage(n) { return (n, rect) }
            if case .source = n.op { return (n, rect.intersection(IntRect(covering: n.extent))) }
            guard let window = n.op.kind.identityWindow(n) else { return nil }
            rect = rect.intersection(window)
            n = n.inputs[0]
        }
    }

    /// True when `b` holds its pixels as the render works on them (premultiplied float, with
    /// no decoding in the working space), in rows the kernels can read in place.
    static func isStoredAsWorked(_ b: PixelBuffer, linear: Bool) -> Bool {
        b.format == .rgbaF32 && !(linear && b.colorEncoding == .sRGB) && b.alphaMode == .premultiplied && b.bytesPerRow % 16 == 0
    }

    /// `storage(below:isStage:)` with the stages computed so far.
    private func storage(below node: Node) -> (node: Node, rect: IntRect)? {
        Evaluator.storage(below: node) { materialized[ObjectIdentifier($0)] != nil }
    }

    /// Calls `body` with a tile that reads `node`'s pixels over `rect` where they already are,
    /// when they need no computing: a buffer computed in advance, or a float source stored in
    /// the working representation (premultiplied, no decoding), possibly behind crops and
    /// `clampedToExtent()` that are the identity over `rect`. Otherwise calls `body(nil)`.
    /// The tile must only be read (it may be a source buffer's storage).
    func withPixelsInPlace<R>(_ node: Node, _ rect: IntRect, _ body: (Tile?) -> R) -> R {
        guard !rect.isEmpty, let (stored, r) = storage(below: node), r.contains(rect) else { return body(nil) }
        if let m = materialized[ObjectIdentifier(stored)] {
            return m.tile.rect.contains(rect) ? body(m.tile.view(rect)) : body(nil)
        }
        guard case let .source(b) = stored.op, Evaluator.isStoredAsWorked(b, linear: linear) else { return body(nil) }
        return b.withUnsafeBytes { raw in
            let px = UnsafeMutableRawPointer(mutating: raw.baseAddress!).assumingMemoryBound(to: SIMD4<Float>.self)
            let stride = b.bytesPerRow / 16
            return body(Tile(base: px + rect.y * stride + rect.x, stride: stride, rect: rect))
        }
    }

    /// The largest rect over which `withPixelsInPlace(node, _:_:)` finds the pixels where they
    /// are (any rect inside it succeeds), or nil when it never does.
    func inPlaceRect(_ node: Node) -> IntRect? {
        guard let (stored, r) = storage(below: node), !r.isEmpty else { return nil }
        if let m = materialized[ObjectIdentifier(stored)] {
            let inner = r.intersection(m.tile.rect)
            return inner.isEmpty ? nil : inner
        }
        guard case let .source(b) = stored.op, Evaluator.isStoredAsWorked(b, linear: linear) else { return nil }
        return r
    }

    /// True when `node` is a source or a buffer computed in advance, behind crops and clamps:
    /// any row of it costs a read (in place) or a conversion of that row, with no
    /// neighbourhood to compute.
    func isStoredBehindCropsAndClamps(_ node: Node) -> Bool { storage(below: node) != nil }

    /// For a stencil output `rect` whose input region is only partly readable in place (an
    /// edge tile of a clamped or cropped source): `rect` cut into the part whose input region
    /// lies inside the pixels readable in place, first, and the strips around it (at most
    /// four), so that only the strips copy their input region. Nil when there is nothing to
    /// gain: the whole region is readable in place, or none of the output is. Each output
    /// pixel is computed with the same operations in any part, as in any tile.
    func edgeSplit(_ s: Stencil, input: Node, _ rect: IntRect) -> [IntRect]? {
        let roi = s.inputRegion(0, for: rect)
        guard let inner = inPlaceRect(input), !inner.contains(roi) else { return nil }
        let left = rect.x - roi.x, top = rect.y - roi.y
        let right = roi.maxX - rect.maxX, bottom = roi.maxY - rect.maxY
        let x0 = Swift.max(rect.x, inner.x + left), x1 = Swift.min(rect.maxX, inner.maxX - right)
        let y0 = Swift.max(rect.y, inner.y + top), y1 = Swift.min(rect.maxY, inner.maxY - bottom)
        guard x1 > x0, y1 > y0 else { return nil }
        let core = IntRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
        // Margins that depend on the rect's position would make the core's region differ.
        guard inner.contains(s.inputRegion(0, for: core)) else { return nil }
        let strips = [
            IntRect(x: rect.x, y: rect.y, width: rect.width, height: y0 - rect.y),
            IntRect(x: rect.x, y: y1, width: rect.width, height: rect.maxY - y1),
            IntRect(x: rect.x, y: y0, width: x0 - rect.x, height: y1 - y0),
            IntRect(x: x1, y: y0, width: rect.maxX - x1, height: y1 - y0),
        ]
        return [core] + strips.filter { !$0.isEmpty }
    }
}
