extension Evaluator {
    /// Calls `body` with a tile that reads `node`'s pixels over `rect` where they already are,
    /// when they need no computing: a buffer computed in advance, or a float source stored in
    /// the working representation (premultiplied, no decoding), possibly behind crops and
    /// `clampedToExtent()` that are the identity over `rect`. Otherwise calls `body(nil)`.
    /// The tile must only be read (it may be a source buffer's storage).
    func withPixelsInPlace<R>(_ node: Node, _ rect: IntRect, _ body: (Tile?) -> R) -> R {
        if rect.isEmpty { return body(nil) }
        if let m = materialized[ObjectIdentifier(node)] {
            return m.tile.rect.contains(rect) ? body(m.tile.view(rect)) : body(nil)
        }
        switch node.op {
        case let .source(b):
            guard b.format == .rgbaF32, !(linear && b.colorEncoding == .sRGB), b.alphaMode == .premultiplied,
                  b.bytesPerRow % 16 == 0, IntRect(covering: node.extent).contains(rect) else { return body(nil) }
            return b.withUnsafeBytes { raw in
                let px = UnsafeMutableRawPointer(mutating: raw.baseAddress!).assumingMemoryBound(to: SIMD4<Float>.self)
                let stride = b.bytesPerRow / 16
                return body(Tile(base: px + rect.y * stride + rect.x, stride: stride, rect: rect))
            }
        case let .warp(.clamp(e)) where e.contains(rect):
            return withPixelsInPlace(node.inputs[0], rect, body)
        case .crop where IntRect(covering: node.extent).contains(rect):
            return withPixelsInPlace(node.inputs[0], rect, body)
        default:
            return body(nil)
        }
    }
}
