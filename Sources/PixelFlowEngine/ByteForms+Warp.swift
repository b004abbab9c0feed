import CSIMD

/// A warp that the byte path samples directly, without separable taps: lowering chooses it
/// (`BytePlan.makeWarp`) for two shapes of bilinear affine warps, kernels in
/// Sources/CSIMD/include/CSIMDBytesWarp.h.
enum ByteWarp: CustomStringConvertible {
    /// A bilinear scale by exactly 1/2 whose samples fall on the centers of 2x2 blocks of the
    /// source: output (x, y) is the mean of source pixels `2x + x0, 2x + x0 + 1` times
    /// `2y + y0, 2y + y0 + 1`, rounded half up (`pf_u8_box2x2_run`).
    ///
    /// Exactness: the float path weighs the four pixels 1/4 each and rounds; the two differ
    /// only where the mean is a half, by 1 unit.
    case box2x2(x0: Int, y0: Int)
    /// A bilinear affine warp with rotation or shear of the rect `source` of the source (taps
    /// outside it transparent): output (x, y) samples at `inverse` applied to the pixel
    /// center, minus 0.5, as `affineWarpRow` (`pf_u8_affine_bilinear_rgba_run`).
    ///
    /// Exactness: positions in 32.32 fixed point from the segment's first pixel (computed in
    /// double as the float path does), sampled with 16 fractional bits and 15-bit weights, lerps
    /// on values with 7 fractional bits: below 0.032 units from the exact bilinear value of the
    /// bytes before rounding (the header's bound), so within 1 unit of the float path's byte.
    case affine(inverse: AffineTransform, source: IntRect)

    var description: String {
        switch self {
        case .box2x2: return "2x2 box (bilinear half-size scale), exact means"
        case .affine: return "affine bilinear warp, fixed-point positions and weights"
        }
    }

    /// The largest source rect side and transform coefficient the affine kernel takes: its
    /// positions then stay below 2^14 + 2 * 64 + 2 pixels, inside 16.16 fixed point.
    static let maxSide = 16384, maxCoefficient = 64.0
}

extension BytePlan {
    /// The warp form of `resample` for rendering `rect` into `buffer`, or why the float path
    /// must run; nil when the separable taps should run it (a scale that is not a 2x2 box).
    /// `make` has checked the formats and `makeResample` the color encodings.
    ///
    /// - Complexity: O(1), plus the alpha scan of a straight source (the pixels read).
    func makeWarp(
        _ resample: ByteResample, rect: IntRect, options: RenderContext.Options, buffer: PixelBuffer
    ) -> Result<BytePlan, Refusal>? {
        switch resample {
        case let .scale(inv):
            guard shrink == nil, let origin = box2x2Origin(inv, rect: rect) else { return nil }
            let read = IntRect(x: 2 * rect.x + origin.x, y: 2 * rect.y + origin.y, width: 2 * rect.width, height: 2 * rect.height)
            // Straight translucent pixels: the float path premultiplies first (the taps' prepass).
            if source.format.hasAlpha, source.alphaMode == .straight || buffer.alphaMode == .straight,
                !sourceIsOpaque(in: read)
            {
                return nil
            }
            return .success(replacing(.warp(.box2x2(x0: origin.x, y0: origin.y))))
        case let .affine(inv):
            return makeAffine(inv, buffer: buffer)
        case .lanczos3, .box, .separable:
            return nil
        }
    }

    /// The source offsets (x0, y0) when every output of `rect` is the mean of a 2x2 block of
    /// source pixels that the crops and clamps leave unchanged: `inverse` scales by exactly 2
    /// with integer translations (the sample of output x is at 2x + tx + 1/2, weights 1/2),
    /// `rect` lies inside the valid rect, and the blocks inside the source.
    private func box2x2Origin(_ inv: AffineTransform, rect: IntRect) -> (x: Int, y: Int)? {
        guard inv.a == 2, inv.d == 2, inv.b == 0, inv.c == 0, inv.tx == inv.tx.rounded(), inv.ty == inv.ty.rounded(),
            Swift.abs(inv.tx) < 1e9, Swift.abs(inv.ty) < 1e9, !rect.isEmpty
        else { return nil }
        let x0 = Int(inv.tx), y0 = Int(inv.ty)
        if let valid, !valid.contains(rect) { return nil }
        let xs = 2 * rect.x + x0..<2 * rect.maxX + x0, ys = 2 * rect.y + y0..<2 * rect.maxY + y0
        guard xs.lowerBound >= 0, xs.upperBound <= source.width, ys.lowerBound >= 0, ys.upperBound <= source.height,
            BytePlan.isIdentity(xs, xSteps), BytePlan.isIdentity(ys, ySteps)
        else { return nil }
        return (x0, y0)
    }

    /// The affine form, or why not: an `rgba8` source under crops only (no clamps: the taps
    /// outside the crops' rect are transparent) into a premultiplied `rgba8` buffer, from a
    /// premultiplied source or one whose pixels inside that rect are opaque; a processor with
    /// AVX2 (the portable loop is slower than the float path's 4-lane kernel); sizes and
    /// coefficients within `ByteWarp`'s limits.
    private func makeAffine(_ inv: AffineTransform, buffer: PixelBuffer) -> Result<BytePlan, Refusal> {
        guard shrink == nil else { return .failure(Refusal("an affine warp over a box shrink (stays in float)")) }
        guard source.format == .rgba8 else {
            return .failure(Refusal("a gray8 affine warp (the byte form samples rgba8; stays in float)"))
        }
        guard !source.isStreamed else {
            return .failure(Refusal("an affine warp of a streamed source (the kernel gathers from whole rows of memory)"))
        }
        guard buffer.alphaMode == .premultiplied else {
            return .failure(
                Refusal("an affine warp into straight alpha: its transparent edges would need unpremultiplying (stays in float)"))
        }
        guard pf_csimd_uses_avx2() != 0 else {
            return .failure(Refusal("an affine warp without AVX2: the float path's 4-lane kernel is faster than the byte loop"))
        }
        var r = IntRect(x: 0, y: 0, width: source.width, height: source.height)
        for (steps, horizontal) in [(xSteps, true), (ySteps, false)] {
            for s in steps {
                guard case let .restrict(lo, hi) = s else {
                    return .failure(Refusal("an affine warp of a clamped input (stays in float)"))
                }
                let window =
                    horizontal
                    ? IntRect(x: lo, y: r.y, width: Swift.max(0, hi - lo), height: r.height)
                    : IntRect(x: r.x, y: lo, width: r.width, height: Swift.max(0, hi - lo))
                r = r.intersection(window)
            }
        }
        let coefficients = [inv.a, inv.b, inv.c, inv.d]
        guard r.width <= ByteWarp.maxSide, r.height <= ByteWarp.maxSide,
            coefficients.allSatisfy({ Swift.abs($0) <= ByteWarp.maxCoefficient }),
            source.bytesPerRow * (r.height + 256) < Int(Int32.max)
        else {
            return .failure(Refusal("an affine warp beyond the byte kernel's limits (sides, scale or rows of 2^31 bytes)"))
        }
        if source.alphaMode == .straight, !r.isEmpty, !sourceIsOpaque(in: r) {
            return .failure(
                Refusal("an affine warp of straight alpha with pixels that are not opaque (stays in float)"))
        }
        return .success(replacing(.warp(.affine(inverse: inv, source: r))))
    }

    /// The plan with the form `form` instead.
    private func replacing(_ form: ByteForm) -> BytePlan {
        BytePlan(form: form, name: name, source: source, valid: valid, xSteps: xSteps, ySteps: ySteps)
    }

    /// Renders `rect` with the warp form `warp`: full-width bands of output rows on all
    /// threads, as many for each (`balancedBands`; band height never changes the pixels: each
    /// row is computed alone).
    ///
    /// - Complexity: the box reads 4 source bytes per output byte; the affine warp gathers 4
    ///   pixels per output pixel inside the source's image and writes zeros elsewhere.
    func runWarp(_ warp: ByteWarp, rect: IntRect, into buffer: inout PixelBuffer, options: RenderContext.Options) {
        let control = RenderControl.current
        let (band, bands) = BytePlan.balancedBands(rows: rect.height, options)
        control?.setTotal(bands)
        let bpp = source.format.bytesPerPixel
        let width = rect.width
        let valid = self.valid
        source.withRows { s in
            let dstBytesPerRow = buffer.bytesPerRow
            buffer.withUnsafeMutableBytes { raw in
                let dst = SharedPixels(base: raw.baseAddress!, bytesPerRow: dstBytesPerRow)
                BytePlan.runBands(rect.height, band: band, threads: options.threadCount, control: control) { js, _ in
                    for j in js {
                        let out = (dst.base + j * dst.bytesPerRow).assumingMemoryBound(to: UInt8.self)
                        let y = rect.y + j
                        switch warp {
                        case let .box2x2(x0, y0):
                            let sy = 2 * y + y0
                            let sx = 2 * rect.x + x0
                            pf_u8_box2x2_run(s.pixels(sx, sy, bpp: bpp), s.pixels(sx, sy + 1, bpp: bpp), bpp, width, out)
                        case let .affine(inv, r):
                            var outputs = rect.x..<rect.maxX
                            if let v = valid {
                                let lo = Swift.min(Swift.max(rect.x, v.x), rect.maxX)
                                outputs =
                                    y >= v.y && y < v.maxY ? lo..<Swift.max(lo, Swift.min(rect.maxX, v.maxX)) : rect.x..<rect.x
                            }
                            let segment = BytePlan.affineSegment(inv, source: r, y: y, outputs: outputs)
                            out.update(repeating: 0, count: (segment.lowerBound - rect.x) * 4)
                            (out + (segment.upperBound - rect.x) * 4).update(
                                repeating: 0, count: (rect.maxX - segment.upperBound) * 4)
                            guard !segment.isEmpty else { continue }
                            let p = BytePlan.affinePositions(inv, source: r, x: segment.lowerBound, y: y)
                            let origin = (s.base + r.y * s.bytesPerRow + r.x * 4).assumingMemoryBound(to: UInt8.self)
                            pf_u8_affine_bilinear_rgba_run(
                                origin, s.bytesPerRow, r.width, r.height, p.fx, p.fy, p.dx, p.dy, segment.count,
                                out + (segment.lowerBound - rect.x) * 4)
                        }
                    }
                }
            }
        }
    }

    /// The fixed-point positions of output pixel (x, y) and the steps to the next pixel of the
    /// row, relative to `source`'s origin, scaled by 2^32: `inverse` applied to the pixel
    /// center, minus 0.5, in double as the float path (`pf_affine_bilinear_row`), rounded.
    static func affinePositions(_ inv: AffineTransform, source r: IntRect, x: Int, y: Int) -> (
        fx: Int64, fy: Int64, dx: Int64, dy: Int64
    ) {
        let one = 4_294_967_296.0
        let cx = Double(x) + 0.5, cy = Double(y) + 0.5
        let bx = inv.c * cy + inv.tx, by = inv.d * cy + inv.ty
        let fx = (inv.a * cx + bx) - 0.5 - Double(r.x), fy = (inv.b * cx + by) - 0.5 - Double(r.y)
        return (
            Int64((fx * one).rounded()), Int64((fy * one).rounded()), Int64((inv.a * one).rounded()),
            Int64((inv.b * one).rounded())
        )
    }

    /// The outputs of row `y` (within `outputs`) whose sample may have a tap inside `source`:
    /// where both positions lie in (-1, side), found in double and widened by a pixel on each
    /// side (the kernel's masks make the extra pixels transparent). Outside it every tap is
    /// outside, so the float path writes 0 there too.
    static func affineSegment(_ inv: AffineTransform, source r: IntRect, y: Int, outputs: Range<Int>) -> Range<Int> {
        guard !outputs.isEmpty, !r.isEmpty else { return outputs.lowerBound..<outputs.lowerBound }
        let cy = Double(y) + 0.5
        var lo = Double(outputs.lowerBound), hi = Double(outputs.upperBound)
        // Position along the row: slope * x + offset.
        for (slope, offset, side) in [
            (inv.a, inv.a * 0.5 + inv.c * cy + inv.tx - 0.5 - Double(r.x), Double(r.width)),
            (inv.b, inv.b * 0.5 + inv.d * cy + inv.ty - 0.5 - Double(r.y), Double(r.height)),
        ] {
            if slope == 0 {
                if !(offset > -1 && offset < side) { return outputs.lowerBound..<outputs.lowerBound }
                continue
            }
            let a = (-1 - offset) / slope, b = (side - offset) / slope
            lo = Swift.max(lo, Swift.min(a, b) - 1)
            hi = Swift.min(hi, Swift.max(a, b) + 1)
        }
        guard lo < hi else { return outputs.lowerBound..<outputs.lowerBound }
        let first = Swift.max(outputs.lowerBound, Int(lo.rounded(.down)))
        let last = Swift.min(outputs.upperBound, Int(hi.rounded(.up)))
        return first < last ? first..<last : outputs.lowerBound..<outputs.lowerBound
    }
}
