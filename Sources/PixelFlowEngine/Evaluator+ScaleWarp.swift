import CSIMD

/// Bilinear affine warps without rotation or shear (scales, flips and translations), the
/// common resize case, computed separably: the source columns and weights once per tile, the
/// rows once per output row, and each output row from just the two source rows it reads.
///
/// The samples are the generic path's (`affineWarpRow`), bit for bit: the same positions
/// (see `bilinearAxisSamples`), and the same interpolation (`pf_bilinear_row`, or
/// `bilinearSample` at the edges of the source). What changes is where the source rows come
/// from: a float source already in the working representation is read in place, another
/// source is converted two rows at a time (in the L1 cache) instead of into a tile covering
/// the whole region of interest, and any other input is computed into that tile as before.
extension Evaluator {
    /// Whether `inverse` (output to source) has no cross terms, so the warp is separable.
    static func isSeparableScale(_ inverse: AffineTransform) -> Bool {
        inverse.b == 0 && inverse.c == 0 && inverse.a.isFinite && inverse.d.isFinite
            && inverse.tx.isFinite && inverse.ty.isFinite
    }

    /// Fills `out` with `input` warped by the separable `inverse`, sampling bilinearly inside
    /// `roi` (the warp's region of interest, non-empty).
    ///
    /// - Complexity: per output pixel, 4 source pixels read and 9 vector operations; per tile,
    ///   O(width + height) for the sample tables, and scratch for 2 source rows (sources that
    ///   need converting) or the whole region of interest (inputs that need computing).
    func evaluateScaleWarp(_ inverse: AffineTransform, _ input: Node, roi r: IntRect, into out: Tile, arena: Arena) {
        let o = out.rect
        let xIndex = arena.allocate(o.width, of: Int.self), xWeight = arena.allocate(o.width, of: Float.self)
        let yIndex = arena.allocate(o.height, of: Int.self), yWeight = arena.allocate(o.height, of: Float.self)
        let cols = bilinearAxisSamples(
            scale: inverse.a, offset: inverse.tx, start: o.x, count: o.width,
            lo: r.x, hi: r.maxX, index: xIndex, weight: xWeight)
        let rows = bilinearAxisSamples(
            scale: inverse.d, offset: inverse.ty, start: o.y, count: o.height,
            lo: r.y, hi: r.maxY, index: yIndex, weight: yWeight)
        // The exact half-size case: consecutive outputs two source pixels apart, weights 1/2.
        var half = !cols.interior.isEmpty
        for i in cols.interior
        where xWeight[i] != 0.5 || xIndex[i] != xIndex[cols.interior.lowerBound] + 2 * (i - cols.interior.lowerBound) {
            half = false
            break
        }

        /// Output row `oy` (relative) from `pair`, a tile holding the source rows
        /// `{iy, iy + 1}` that lie inside `r`, with `r`'s columns.
        func row(_ oy: Int, _ pair: Tile) {
            let dst = out.row(o.y + oy)
            let iy = r.y + yIndex[oy], wy = yWeight[oy]
            let full = iy >= r.y && iy + 1 < r.maxY
            var i = 0
            if full, !cols.interior.isEmpty {
                let top = UnsafePointer(pair.row(iy)), bottom = UnsafePointer(pair.row(iy + 1))
                let lo = cols.interior.lowerBound
                if half && wy == 0.5 {
                    pf_bilinear_half_row(top + xIndex[lo], bottom + xIndex[lo], cols.interior.count, dst + lo)
                } else {
                    pf_bilinear_row(top, bottom, xIndex + lo, xWeight + lo, wy, cols.interior.count, dst + lo)
                }
            }
            // Columns outside the interior: transparent, or sampled with the edge checks.
            while i < o.width {
                if full && i == cols.interior.lowerBound && !cols.interior.isEmpty { i = cols.interior.upperBound; continue }
                dst[i] = cols.defined.contains(i) ? bilinearSample(pair, r.x + xIndex[i], iy, xWeight[i], wy) : .zero
                i += 1
            }
        }
        /// The rows of `r` among `iy` and `iy + 1`.
        func pairRange(_ oy: Int) -> Range<Int> {
            let iy = r.y + yIndex[oy]
            return Swift.max(iy, r.y)..<Swift.min(iy + 2, r.maxY)
        }
        func clearUndefinedRows() {
            for oy in 0..<o.height where !rows.defined.contains(oy) {
                out.row(o.y + oy).update(repeating: .zero, count: o.width)
            }
        }

        if let m = stageBuffers[ObjectIdentifier(input)], m.tile.rect.contains(r) {
            let src = m.tile.view(r)
            clearUndefinedRows()
            for oy in rows.defined {
                let p = pairRange(oy); row(oy, src.view(IntRect(x: r.x, y: p.lowerBound, width: r.width, height: p.count)))
            }
            return
        }
        if case let .source(b) = input.op, IntRect(covering: input.extent).contains(r) {
            let decode = linear && b.colorEncoding == .sRGB
            let premultiply = b.alphaMode == .straight && b.format.hasAlpha
            let bpr = b.bytesPerRow, bpp = b.format.bytesPerPixel
            b.withUnsafeBytes { raw in
                let base = raw.baseAddress!
                clearUndefinedRows()
                if b.format == .rgbaF32, !decode, !premultiply, bpr % 16 == 0 {
                    // Already working values: read in place (warps only read their source).
                    let px = UnsafeMutableRawPointer(mutating: base).assumingMemoryBound(to: SIMD4<Float>.self)
                    let stride = bpr / 16
                    for oy in rows.defined {
                        let p = pairRange(oy)
                        row(
                            oy,
                            Tile(
                                base: px + p.lowerBound * stride + r.x, stride: stride,
                                rect: IntRect(x: r.x, y: p.lowerBound, width: r.width, height: p.count)))
                    }
                    return
                }
                // Two converted rows, reused when the next output row reads the same ones.
                let scratch = arena.allocate(2 * r.width, of: SIMD4<Float>.self)
                var first = Int.min, held = 0
                func load(_ y: Int, into slot: Int) {
                    let d = scratch + slot * r.width
                    loadRowRGBA(base + y * bpr + r.x * bpp, format: b.format, count: r.width, into: d, decodeSRGB: decode)
                    if premultiply { premultiplyRow(d, count: r.width) }
                }
                // 8-bit rows averaged 2x2 straight from the bytes when every column is interior.
                let bytesHalf = b.format == .rgba8 && !decode && !premultiply && half && cols.interior == 0..<o.width
                for oy in rows.defined {
                    let p = pairRange(oy)
                    let iy = r.y + yIndex[oy]
                    if bytesHalf && yWeight[oy] == 0.5 && iy >= r.y && iy + 1 < r.maxY {
                        let top = base + iy * bpr + (r.x + xIndex[0]) * 4
                        pf_bilinear_half_rgba8_row_run(
                            top.assumingMemoryBound(to: UInt8.self),
                            (top + bpr).assumingMemoryBound(to: UInt8.self), o.width, out.row(o.y + oy))
                        continue
                    }
                    if p.lowerBound == first && p.count <= held {
                        // Same rows.
                    } else if p.lowerBound == first + 1 && held == 2 {
                        scratch.update(from: scratch + r.width, count: r.width)
                        if p.count == 2 { load(p.lowerBound + 1, into: 1) }
                        first = p.lowerBound; held = p.count
                    } else {
                        for k in 0..<p.count { load(p.lowerBound + k, into: k) }
                        first = p.lowerBound; held = p.count
                    }
                    row(
                        oy,
                        Tile(
                            base: scratch, stride: r.width,
                            rect: IntRect(x: r.x, y: p.lowerBound, width: r.width, height: p.count)))
                }
            }
            return
        }
        let src = arena.tile(r)
        evaluate(input, into: src, arena: arena)
        clearUndefinedRows()
        for oy in rows.defined {
            let p = pairRange(oy); row(oy, src.view(IntRect(x: r.x, y: p.lowerBound, width: r.width, height: p.count)))
        }
    }
}
