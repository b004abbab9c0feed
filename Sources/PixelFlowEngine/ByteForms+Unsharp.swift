import CSIMD

/// The byte form of unsharp masks (`CIUnsharpMask`: `out = s + k (s - G(s))` on every channel of
/// the premultiplied values) and luma sharpening (`CISharpenLuminance`: the Rec. 709 luma of
/// `s - G(s)` times k added to R, G and B, alpha kept), for every sigma whose float Gaussian runs
/// exact taps (`UnsharpMask.exactTaps`, sigma up to 12). The float path builds either graph of
/// `UnsharpMask` (the fused tile-local stencil up to sigma 3, a whole-region Gaussian and a blend
/// above); both compute that formula with the same taps, and `NodeKind.byteUnsharp` finds it.
///
/// The Gaussian runs as the byte blur does (`ByteBlur`: taps made as for any byte resample,
/// folded kernels where a row or column reads the whole kernel), but stays in 16 bits: the
/// vertical pass into values with 6 fractional bits, the horizontal pass into values with 7
/// (`pf_i16_blur_h_to16_run`, `pf_i16_resample_h_to_blur_run`). The combine
/// (`pf_u8_unsharp_run`, `pf_u8_sharpen_luma_rgba_run`, Sources/CSIMD/include/CSIMDBytesUnsharp.h)
/// computes `s + k (s - g)` in 32-bit fixed point from the source bytes and that blur, with k
/// (or k times each luma weight) as 16-bit integers with `shift` fractional bits, rounded half up
/// and clamped to bytes.
///
/// Exactness: the blur's error (`BytePlan.blurError` of the taps, with the horizontal pass's
/// half step of 1/256 instead of a byte rounding) times k, plus the fixed-point factors' error
/// for differences up to 255, plus the float path's own rounding (`errorBound`); while that stays
/// below half a unit, every byte is within 1 unit of the float path's, else the render stays in
/// float and `explain()` gives the bound.
struct ByteUnsharp: CustomStringConvertible, Sendable {
    /// What the node computes.
    let mask: UnsharpMask
    /// The Gaussian's exact taps (as the float path's).
    let taps: [Float]
    /// Fractional bits q of the factors.
    let shift: Int
    /// The factor of an unsharp mask (k), or of a gray8 luma sharpen (k times the luma weights'
    /// sum: gray loads as (g, g, g, 1)), in fixed point.
    let intensity: Int16
    /// The luma form's factors k lumaR, k lumaG, k lumaB in fixed point (unused for masks).
    let lumaWeights: [Int16]
    /// The fixed-point factors' error, in units, for differences up to 255: (rgba8, gray8).
    let factorError: (rgba: Double, gray: Double)
    /// The exact factors' sum of magnitudes (k, or k times the luma weights' sum): how much of
    /// the blur's error reaches the output.
    let gain: Double

    var description: String {
        "\(mask), 16-bit Gaussian (\(taps.count) taps), fixed-point combine (q = \(shift))"
    }

    /// The form of `mask`, or why it stays in float (a Gaussian of boxes above sigma 12, an
    /// intensity that is negative, not finite, or too large for 16-bit factors).
    static func make(_ mask: UnsharpMask) -> Result<ByteUnsharp, BytePlan.Refusal> {
        guard let taps = mask.exactTaps else {
            return .failure(
                BytePlan.Refusal(
                    "the Gaussian of sigma \(mask.sigma) inside the \(mask) runs as a cascade of boxes in float (no byte form)"))
        }
        let k = mask.intensity
        guard k.isFinite, k >= 0 else { return .failure(BytePlan.Refusal("the intensity \(k) has no byte form")) }
        let luma = (0..<3).map { Double(k * rec709Luma[$0]) }
        let grayFactor = Double(k * rec709Luma[0] + k * rec709Luma[1] + k * rec709Luma[2])
        // The float path multiplies the luma weights' sum of the differences by k; for gray8 the
        // three differences are equal.
        let factors = mask.lumaOnly ? luma + [grayFactor] : [Double(k)]
        let largest = factors.max() ?? 0
        let sumLuma = luma.reduce(0, +)
        var q = 15
        func fits(_ q: Int) -> Bool {
            let scale = Double(1 << q)
            let quantized = factors.map { ($0 * scale).rounded() }
            let sums = mask.lumaOnly ? quantized[0] + quantized[1] + quantized[2] : quantized[0]
            return quantized.allSatisfy { $0 <= 32767 } && sums * 32640 + scale * 64 < 2_147_483_647
        }
        while q > 0, !fits(q) { q -= 1 }
        guard q > 0, largest.isFinite else {
            return .failure(BytePlan.Refusal("the intensity \(k) is too large for 16-bit fixed point (stays in float)"))
        }
        let scale = Double(1 << q)
        let quantized = factors.map { ($0 * scale).rounded() }
        let errors = zip(quantized, factors).map { 255 * abs($0 / scale - $1) }
        let u = ByteUnsharp(
            mask: mask, taps: taps, shift: q,
            intensity: Int16(mask.lumaOnly ? quantized[3] : quantized[0]),
            lumaWeights: mask.lumaOnly ? quantized[0..<3].map { Int16($0) } : [],
            factorError: mask.lumaOnly ? (errors[0] + errors[1] + errors[2], errors[3]) : (errors[0], errors[0]),
            gain: mask.lumaOnly ? sumLuma : Double(k))
        return .success(u)
    }

    /// The distance bound, in units, between this form's value before its final rounding and
    /// the exact formula on the bytes, for the taps of a render: the blur's error times the
    /// gain, the factors' error, and the float path's rounding (its taps summed in single
    /// precision, then the difference and the product: 2^-24 relative per operation).
    func errorBound(_ taps: ByteResampleTaps, gray: Bool) -> Double {
        let blur = taps.x.quantizationError + taps.y.quantizationError + 1.0 / 128 + 1.0 / 256
        let float = 255 * (1 + gain) * Double(self.taps.count + 8) * 0x1p-24
        return gain * blur + (gray ? factorError.gray : factorError.rgba) + float
    }
}

extension BytePlan {
    /// The plan of a byte unsharp mask for rendering `rect` into `buffer`, with its taps, or why
    /// the float path must run (`BytePlan.make` has checked the formats):
    /// - no sRGB decoding or encoding (color management off, or linear-tagged buffers): in linear
    ///   light the float path blurs and sharpens linear values (stays in float);
    /// - `ByteUnsharp.errorBound` below half a unit;
    /// - premultiplication changes nothing: source and destination are tagged premultiplied, or
    ///   every alpha byte the taps read is 255 (scanned) and, into a straight destination, no tap
    ///   reads a transparent pixel (output alpha 255). Straight translucent sources stay in float.
    ///
    /// - Complexity: O(outputs x taps) for the taps, plus the alpha scan of straight sources.
    func makeUnsharp(
        _ unsharp: ByteUnsharp, rect: IntRect, options: RenderContext.Options, buffer: PixelBuffer
    ) -> Result<BytePlan, Refusal> {
        if options.colorManagement == .linear, source.colorEncoding == .sRGB || buffer.colorEncoding == .sRGB {
            return .failure(
                Refusal(
                    "sharpening in linear light: the float path blurs linear values, not the sRGB-encoded bytes (stays in float)"
                ))
        }
        var plan = self
        let taps = ByteResampleTaps(.separable(taps: unsharp.taps), plan: self, rect: rect)
        plan.taps = taps
        let bound = unsharp.errorBound(taps, gray: source.format == .gray8)
        guard bound < 0.5 else {
            return .failure(
                Refusal(
                    "the \(unsharp.mask) on bytes is up to \(bound) units from the exact formula (half a unit or more stays in float)"
                ))
        }
        if source.format.hasAlpha, !(source.alphaMode == .premultiplied && buffer.alphaMode == .premultiplied) {
            guard plan.sourceIsOpaque(for: rect) else {
                return .failure(
                    Refusal(
                        "straight alpha with pixels that are not opaque: premultiplying would change the values (stays in float)")
                )
            }
            if buffer.alphaMode == .straight, taps.x.dropsTaps || taps.y.dropsTaps {
                return .failure(
                    Refusal(
                        "the Gaussian reads transparent pixels at the edges: unpremultiplying into a straight destination would change the colors"
                    ))
            }
        }
        plan.blur = ByteBlur(taps, radius: unsharp.taps.count / 2)
        return .success(plan)
    }

    /// Renders `rect` into `buffer` with the byte unsharp mask: full-width bands of output rows on
    /// all threads (as `runResample`); per output row, the vertical pass into 16-bit values, the
    /// horizontal pass into 16-bit values with 7 fractional bits, and the combine with the source
    /// row (read in place when the crops and clamps leave the row's columns unchanged, gathered
    /// otherwise); zeros outside `valid`.
    ///
    /// - Complexity: per output row, (source columns read) x channels x vertical taps plus
    ///   width x channels x (horizontal taps + 4) operations; scratch of three rows.
    func runUnsharp(_ unsharp: ByteUnsharp, rect: IntRect, into buffer: inout PixelBuffer, options: RenderContext.Options) {
        // `makeUnsharp` has made the taps.
        let taps = self.taps!
        let control = RenderControl.current
        let band = BytePlan.resampleBandHeight(options)
        control?.setTotal((rect.height + band - 1) / band)
        let bpp = source.format.bytesPerPixel
        let width = rect.width, n = width * bpp
        let xt = taps.x, yt = taps.y
        let columns = xt.span ?? 0...0
        let midCount = columns.count * bpp
        let blur = self.blur
        let inner = valid.map { rect.intersection($0) } ?? rect
        let ySteps = self.ySteps
        // The source column of each output (-1: transparent), and the first when they are
        // consecutive source columns (the row is read in place).
        let centers = (rect.x..<rect.maxX).map { BytePlan.map($0, xSteps).map(Int32.init) ?? -1 }
        let direct: Int? =
            centers.first.flatMap { c in c >= 0 && centers.indices.allSatisfy { centers[$0] == c + Int32($0) } ? Int(c) : nil }
        let luma = unsharp.mask.lumaOnly && bpp == 4
        source.withRows { src in
            let dstBytesPerRow = buffer.bytesPerRow
            buffer.withUnsafeMutableBytes { raw in
                let dst = SharedPixels(base: raw.baseAddress!, bytesPerRow: dstBytesPerRow)
                xt.withPointers(firstColumn: columns.lowerBound) { xTable in
                    BytePlan.runBands(rect.height, band: band, threads: options.threadCount, control: control) { js, arena in
                        let mid = arena.allocate(Swift.max(1, midCount), of: Int16.self)
                        let g = arena.allocate(Swift.max(1, n), of: Int16.self)
                        let gathered = arena.allocate(Swift.max(1, n), of: UInt8.self)
                        let rows = arena.allocate(Swift.max(1, yt.maxTaps), of: UnsafePointer<UInt8>?.self)
                        for j in js {
                            let y = rect.y + j
                            let out = (dst.base + j * dst.bytesPerRow).assumingMemoryBound(to: UInt8.self)
                            guard !inner.isEmpty, y >= inner.y, y < inner.maxY, xt.span != nil else {
                                out.update(repeating: 0, count: n)
                                continue
                            }
                            // The vertical pass (zeros when no tap reads a source row).
                            let count = Int(yt.counts[j])
                            let s = Int(yt.starts[j])
                            for k in 0..<count { rows[k] = src.pixels(columns.lowerBound, s + k, bpp: bpp) }
                            yt.weights.withUnsafeBufferPointer { w in
                                let wj = w.baseAddress! + j * yt.maxTaps
                                if let blur {
                                    blur.vertical(j, rows: rows, count: count, weights: wj, n: midCount, into: mid)
                                } else {
                                    pf_u8_resample_v_to16_run(rows, wj, count, midCount, mid)
                                }
                            }
                            unsharp.horizontal(
                                mid, bpp: bpp, blur: blur, table: xTable, maxTaps: xt.maxTaps, width: width, into: g)
                            // The source row under the outputs.
                            let center: UnsafePointer<UInt8>
                            if let sy = BytePlan.map(y, ySteps), let direct {
                                center = src.pixels(direct, sy, bpp: bpp)
                            } else if let sy = BytePlan.map(y, ySteps) {
                                let row = src.pixels(0, sy, bpp: bpp)
                                for i in 0..<width {
                                    let c = Int(centers[i])
                                    for ch in 0..<bpp { gathered[i * bpp + ch] = c < 0 ? 0 : row[c * bpp + ch] }
                                }
                                center = UnsafePointer(gathered)
                            } else {
                                gathered.update(repeating: 0, count: n)
                                center = UnsafePointer(gathered)
                            }
                            if luma {
                                unsharp.lumaWeights.withUnsafeBufferPointer {
                                    pf_u8_sharpen_luma_rgba_run(center, g, width, $0.baseAddress!, unsharp.shift, out)
                                }
                            } else {
                                pf_u8_unsharp_run(center, g, n, unsharp.intensity, unsharp.shift, out)
                            }
                            // Transparent outside the valid columns.
                            out.update(repeating: 0, count: (inner.x - rect.x) * bpp)
                            (out + (inner.maxX - rect.x) * bpp).update(
                                repeating: 0, count: (rect.maxX - inner.maxX) * bpp)
                        }
                    }
                }
            }
        }
    }
}

extension ByteUnsharp {
    /// The horizontal pass of one output row from `mid` (16-bit values of the source columns
    /// the row reads) into `g` (16-bit values with 7 fractional bits): per run of columns of
    /// `blur`, the folded kernel or the taps `table`; all columns by the taps without `blur`.
    func horizontal(
        _ mid: UnsafePointer<Int16>, bpp: Int, blur: ByteBlur?, table: ByteTapPointers, maxTaps: Int, width: Int,
        into g: UnsafeMutablePointer<Int16>
    ) {
        guard let blur else {
            pf_i16_resample_h_to_blur_run(mid, bpp, table.starts, table.counts, table.weights, maxTaps, width, g)
            return
        }
        blur.halfX.withUnsafeBufferPointer { half in
            for run in blur.runs {
                if run.fast {
                    pf_i16_blur_h_to16_run(
                        mid + Int(table.starts[run.from]) * bpp, bpp, half.baseAddress!, blur.radius, run.count,
                        g + run.from * bpp)
                } else {
                    pf_i16_resample_h_to_blur_run(
                        mid, bpp, table.starts + run.from, table.counts + run.from, table.weights + run.from * maxTaps,
                        maxTaps, run.count, g + run.from * bpp)
                }
            }
        }
    }
}
