/// The description of a warp node: output position -> input position, with a sampler.
extension Warp: NodeKind {
    package var kindName: String { "warp" }
    package var label: String { description }

    package func inputRegion(_ k: Int, of node: Node, for rect: IntRect) -> IntRect { region(for: rect, input: node.inputs[k]) }

    /// The rect of `input` that outputs in `rect` read.
    package func region(for rect: IntRect, input: Node) -> IntRect {
        switch self {
        case let .affine(t, sampling):
            guard let inv = t.inverted() else { return .empty }
            let r = Warp.boundingBox(of: rect.rect, under: inv)
            let margin: Double = sampling == .nearest ? 0.5 : 1
            return IntRect(covering: r.insetBy(dx: -margin, dy: -margin))
                .intersection(IntRect(covering: input.extent))
        case let .lanczos(o, span):
            let e = IntRect(covering: input.extent)
            let xs = LanczosWeights.sourceSpan(
                outputRange: rect.x - o.x..<rect.maxX - o.x, inputSize: e.width,
                outputSize: o.width, span: span?.width)
            let ys = LanczosWeights.sourceSpan(
                outputRange: rect.y - o.y..<rect.maxY - o.y, inputSize: e.height,
                outputSize: o.height, span: span?.height)
            return IntRect(x: e.x + xs.lowerBound, y: e.y + ys.lowerBound, width: xs.count, height: ys.count)
        case let .boxShrink(k, o):
            let e = IntRect(covering: input.extent)
            let x0 = e.x + k * (rect.x - o.x), x1 = Swift.min(e.maxX, e.x + k * (rect.maxX - o.x))
            let y0 = e.y + k * (rect.y - o.y), y1 = Swift.min(e.maxY, e.y + k * (rect.maxY - o.y))
            return IntRect(x: x0, y: y0, width: Swift.max(0, x1 - x0), height: Swift.max(0, y1 - y0)).intersection(e)
        case let .custom(k):
            let margin: Double = k.sampling == .nearest ? 0.5 : 1
            let r = k.regionOfInterest(rect.rect)
            if r.isEmpty { return .empty }
            return IntRect(covering: r.insetBy(dx: -margin, dy: -margin)).intersection(IntRect(covering: input.extent))
        case let .clamp(e):
            let x0 = Swift.min(Swift.max(rect.x, e.x), e.maxX - 1), x1 = Swift.min(Swift.max(rect.maxX, e.x + 1), e.maxX)
            let y0 = Swift.min(Swift.max(rect.y, e.y), e.maxY - 1), y1 = Swift.min(Swift.max(rect.maxY, e.y + 1), e.maxY)
            return IntRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
        }
    }

    /// `t.apply(to: r)` (the bounding box of the transformed corners) without allocating: it
    /// runs per tile. The same comparisons in the same order, so the same rect.
    package static func boundingBox(of r: Rect, under t: AffineTransform) -> Rect {
        if r.isInfinite || r.isEmpty { return r }
        let p0 = t.apply(to: Point(x: r.minX, y: r.minY)), p1 = t.apply(to: Point(x: r.maxX, y: r.minY))
        let p2 = t.apply(to: Point(x: r.minX, y: r.maxY)), p3 = t.apply(to: Point(x: r.maxX, y: r.maxY))
        // As Array's min() and max(): a later value replaces only when strictly beyond.
        var x0 = p0.x, x1 = p0.x, y0 = p0.y, y1 = p0.y
        if p1.x < x0 { x0 = p1.x }
        if p2.x < x0 { x0 = p2.x }
        if p3.x < x0 { x0 = p3.x }
        if x1 < p1.x { x1 = p1.x }
        if x1 < p2.x { x1 = p2.x }
        if x1 < p3.x { x1 = p3.x }
        if p1.y < y0 { y0 = p1.y }
        if p2.y < y0 { y0 = p2.y }
        if p3.y < y0 { y0 = p3.y }
        if y1 < p1.y { y1 = p1.y }
        if y1 < p2.y { y1 = p2.y }
        if y1 < p3.y { y1 = p3.y }
        return Rect(minX: x0, minY: y0, maxX: x1, maxY: y1)
    }

    /// The inverse transform when the warp is a bilinear scale without rotation, which reads
    /// its input rows from left to right.
    package var separableScaleInverse: AffineTransform? {
        guard case let .affine(t, .bilinear) = self, let inv = t.inverted(), inv.b == 0, inv.c == 0,
            inv.a.isFinite, inv.d.isFinite, inv.tx.isFinite, inv.ty.isFinite
        else { return nil }
        return inv
    }

    /// Scales without rotation and Lanczos scales read their input row by row, so they read a
    /// stored input where it is. Rotations copy their region: reading source rows along a slant
    /// ran 1.3x slower from the buffer in memory than from the copy in the cache.
    package func readsInPlace(input k: Int) -> Bool {
        if case .lanczos = self { return true }
        if case .boxShrink = self { return true }
        return separableScaleInverse != nil
    }

    package var rowOrder: RowOrder {
        if case .clamp = self { return .rows(haloY: 0, needsStoredInput: false) }
        // A source that needs converting is converted two rows at a time, which full-width
        // rows would push out of the L1 cache.
        if separableScaleInverse != nil { return .rows(haloY: 0, needsStoredInput: true) }
        return .unordered
    }

    package var cost: Int {
        switch self {
        case .affine, .custom: return 3
        case .lanczos: return 8
        case let .boxShrink(k, _): return Swift.max(1, k * k / 4)
        case .clamp: return 1
        }
    }

    package func isIdentity(_ node: Node) -> Bool {
        switch self {
        case let .affine(t, _): return t.isIdentity
        case let .lanczos(o, nil): return o.rect == node.inputs[0].extent
        case let .boxShrink(k, o): return k == 1 && o.rect == node.inputs[0].extent
        default: return false
        }
    }

    /// Outside the clamped rect a clamp repeats its edge pixels.
    package var repeatsEdgesOutsideWindow: Bool {
        if case .clamp = self { return true }
        return false
    }

    /// Inside the clamped rect a clamp is its input.
    package func identityWindow(_ node: Node) -> IntRect? {
        if case let .clamp(e) = self { return e }
        return nil
    }

    package func fingerprint(unique: String) -> String {
        switch self {
        case let .affine(t, s): return "affine \([t.a, t.b, t.c, t.d, t.tx, t.ty].map { $0.bitPattern }) \(s)"
        case let .lanczos(o, span): return "lanczos \(o) \(span.map { [$0.width.bitPattern, $0.height.bitPattern] } ?? [])"
        case let .boxShrink(k, o): return "box shrink \(k) \(o)"
        case let .clamp(e): return "clamp \(e)"
        case let .custom(k): return "warp " + (k.sharesByName ? k.name : unique)
        }
    }
}
