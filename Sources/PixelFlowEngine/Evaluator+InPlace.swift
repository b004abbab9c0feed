extension Evaluator {
    /// Below `node`, through crops and clamps, the node whose pixels are stored (a source, or
    /// a stage for which `isStage` is true), and the rect over which those stored pixels are
    /// `node`'s own: the crops' and clamps' extents and the storage's, intersected. Nil when
    /// something else (a filter to compute) comes first. The one walk behind
    /// lowering's in-place reads (`StoredPixels`), the whole-region Gaussian's row reads and the
    /// choice of tile shape.
    static func storage(below node: Node, isStage: (Node) -> Bool) -> (node: Node, rect: IntRect)? {
        GraphWalk.count()
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

    /// Calls `body` with a tile that reads `pixels` over `rect` where they are stored (a source
    /// buffer holding working values, or a stage's buffer, as lowering found them below an
    /// input), or `body(nil)` when `rect` is not inside them. The tile must only be read (it
    /// may be a source buffer's storage). No graph walk: lowering found the pixels.
    func withPixelsInPlace<R>(_ pixels: StoredPixels?, _ rect: IntRect, _ body: (Tile?) -> R) -> R {
        guard let pixels, !rect.isEmpty, pixels.rect.contains(rect) else { return body(nil) }
        if let b = pixels.buffer {
            return b.withUnsafeBytes { raw in
                let px = UnsafeMutableRawPointer(mutating: raw.baseAddress!).assumingMemoryBound(to: SIMD4<Float>.self)
                let stride = b.bytesPerRow / 16
                return body(Tile(base: px + rect.y * stride + rect.x, stride: stride, rect: rect))
            }
        }
        guard let m = stageBuffers[ObjectIdentifier(pixels.node)], m.tile.rect.contains(rect) else { return body(nil) }
        return body(m.tile.view(rect))
    }

    /// Calls `body` with the pixels of `input` over `rect`: read where they are stored when
    /// lowering found them there (`stored`, see `withPixelsInPlace`), else computed into a
    /// tile of `arena`. For kernels that only read their input.
    func withInput<R>(_ input: Node, stored: StoredPixels?, _ rect: IntRect, arena: Arena, _ body: (Tile) -> R) -> R {
        withPixelsInPlace(stored, rect) { inPlace in
            if let inPlace { return body(inPlace) }
            let src = arena.tile(rect)
            evaluate(input, into: src, arena: arena)
            return body(src)
        }
    }

    /// For a stencil output `rect` whose input region is only partly readable in place (an
    /// edge tile of a clamped or cropped source): `rect` cut into the part whose input region
    /// lies inside the pixels readable in place, first, and the margins around it (at most
    /// four), so that only the margins copy their input region. `inner` is the rect readable
    /// in place (the pipeline's edge-split rule, `Step.edgeSplit`); the parts go to `parts`
    /// (room for 5, in the arena: this runs per tile) and their count is returned, 0 when there
    /// is nothing to gain (the whole region is readable in place, or none of the output is).
    /// Each output pixel is computed with the same operations in any part, as in any tile.
    static func edgeSplit(
        _ s: Stencil, inner: IntRect, _ rect: IntRect, into parts: UnsafeMutablePointer<IntRect>
    ) -> Int {
        let roi = s.inputRegion(0, for: rect)
        guard !inner.contains(roi) else { return 0 }
        let left = rect.x - roi.x, top = rect.y - roi.y
        let right = roi.maxX - rect.maxX, bottom = roi.maxY - rect.maxY
        let x0 = Swift.max(rect.x, inner.x + left), x1 = Swift.min(rect.maxX, inner.maxX - right)
        let y0 = Swift.max(rect.y, inner.y + top), y1 = Swift.min(rect.maxY, inner.maxY - bottom)
        guard x1 > x0, y1 > y0 else { return 0 }
        let core = IntRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
        // Margins that depend on the rect's position would make the core's region differ.
        guard inner.contains(s.inputRegion(0, for: core)) else { return 0 }
        parts[0] = core
        // The margins around the core (no closure: this runs per tile).
        var count = 1
        let above = IntRect(x: rect.x, y: rect.y, width: rect.width, height: y0 - rect.y)
        if !above.isEmpty { parts[count] = above; count += 1 }
        let below = IntRect(x: rect.x, y: y1, width: rect.width, height: rect.maxY - y1)
        if !below.isEmpty { parts[count] = below; count += 1 }
        let leftStrip = IntRect(x: rect.x, y: y0, width: x0 - rect.x, height: y1 - y0)
        if !leftStrip.isEmpty { parts[count] = leftStrip; count += 1 }
        let rightStrip = IntRect(x: x1, y: y0, width: rect.maxX - x1, height: y1 - y0)
        if !rightStrip.isEmpty { parts[count] = rightStrip; count += 1 }
        return count
    }
}
