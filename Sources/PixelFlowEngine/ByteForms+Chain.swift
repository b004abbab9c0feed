import CSIMD

/// The chained byte form: a convolution (`ByteConvolution`) whose input, under crops and clamps,
/// is a separable byte resample (a bilinear scale or a Lanczos-3 warp, `ByteResample`) of an
/// `rgba8` or `gray8` source under crops and clamps, run in one pass on integers. The float path
/// computes the resample of the premultiplied working values, keeps it in single precision (no
/// quantization, no clamping: a Lanczos overshoot goes into the convolution as it is) and
/// quantizes only the convolution's result; the chain keeps the resample's output in signed
/// 16 bits with 6 fractional bits (value * 64) and never rounds it to bytes, which would break the
/// 1-unit bound (the sharpen mask's weights sum to 3 in magnitude, so half a unit of rounding
/// between the stages becomes 1.5 units).
///
/// Per band of output rows (full width, all threads), for each row the convolution reads (the
/// band's rows outset by the halo, sent through the crops and clamps between the convolution and
/// the resample: a clamp repeats the edge row, a crop gives a transparent row of zeros), the
/// resample's vertical pass (`pf_u8_resample_v_to16_run`) and a horizontal pass that keeps
/// 16 bits (`pf_i16_resample_h_to16_run`) compute the resampled row over the columns the band
/// reads, each column with the taps of the resample output it maps to (again through the crops
/// and clamps; none outside a crop). The rows go into a ring of `kh` rows, and each output row
/// is the convolution of the ring's rows (`pf_i16_convolve_row_run`, Sources/CSIMD/include/CSIMDBytesChain.h):
/// `floor((sum W v + B) / 2^(shift + 6))` clamped to 0...255, the weights in signed 16 bits with
/// `shift` fractional bits, 32-bit sums. Integer arithmetic throughout, so the bytes do not
/// depend on the threads, the band height or the strips.
///
/// Error bound (`Fixed.errorBound`, in units, before the final rounding): per resampled value,
/// the vertical pass's 16-bit rounding (1/128) and the y taps' quantization, times the sum of
/// |x weights|, plus the x taps' quantization over the span of the vertical pass's values,
/// plus the horizontal pass's 16-bit rounding (1/128); that times the convolution's sum |w|,
/// plus the convolution weights' quantization over the resampled values' range and the float
/// path's single-precision rounding. Lowering keeps the chain while the bound is below half a
/// unit, so every byte is within 1 unit of the float path's.
struct ByteChain: CustomStringConvertible, Sendable {
    /// The convolution (the outer stage).
    let convolution: ByteConvolution
    /// The resample (the inner stage) and its node's name.
    let resample: ByteResample
    let resampleName: String
    /// The resample's outputs outside this rect are transparent (its extent, nil when unbounded).
    let valid: IntRect?
    /// How a coordinate of the resample's input maps to a source coordinate, per axis.
    let xSteps: [BytePlan.AxisStep], ySteps: [BytePlan.AxisStep]
    /// The resample outputs the render reads (set by `BytePlan.makeChain`; the plan's `taps`
    /// are theirs).
    var region = IntRect(x: 0, y: 0, width: 0, height: 0)
    /// The convolution's fixed point over the 16-bit values (set by `BytePlan.makeChain`).
    var fixed: Fixed?
    /// The columns of the convolution's input the render reads, the x taps' lobes
    /// (`lobes`), and whether every column reads source pixels through taps that drop none
    /// (set by `BytePlan.makeChain`; a strip write's strips take them from the whole rect's plan).
    var columns = 0..<0
    var xLobes = (positive: 0.0, negative: 0.0)
    var readsAllColumns = false

    var description: String {
        "\(convolution.width)x\(convolution.height) convolution of a \(resample) (\(resampleName)), fixed-point taps and weights, 16-bit intermediate with 6 fractional bits"
    }

    /// The convolution's weights and bias in fixed point for 16-bit values with 6 fractional
    /// bits, and the chain's error bound.
    struct Fixed: Sendable {
        /// Fractional bits of the weights; the kernel shifts by `shift + 6`.
        let shift: Int
        /// The 16-bit weights in pairs, one 32-bit value per pair (CSIMDBytesChain.h).
        let pairs: [Int32]
        /// Per channel (R, G, B, A; gray uses the first): the bias times `255 * 2^(shift + 6)`
        /// plus the rounding term `2^(shift + 5)`.
        let biases: [Int32]
        /// The 16-bit weights, row-major (for the tests).
        let weights: [Int16]
        /// Units between the exact chain (real taps and weights, no rounding) and the fixed-point
        /// sum before its final rounding, plus the float path's own rounding.
        let errorBound: Double
    }

    /// The fixed point of `convolution` over values in `-limit...limit` (16 bits, 6 fractional
    /// bits), with the largest shift (at most 16) whose 32-bit sums cannot overflow; nil when
    /// none fits. `intermediateError` is the resampled values' bound and `range` their largest
    /// magnitude, in units.
    static func fixed(
        _ convolution: ByteConvolution, limit: Double, intermediateError: Double, range: Double
    ) -> Fixed? {
        let w = convolution.weights.map(Double.init)
        let b = Double(convolution.bias)
        let largest = w.map(abs).max() ?? 0
        var shift = largest == 0 ? 16 : Swift.min(16, Int((32767 / largest).exponent))
        while shift >= 0 {
            let scale = Double(1 << shift)
            let q = w.map { ($0 * scale).rounded() }
            let biasTerm = (255 * 64 * b * scale).rounded()
            let rounding = Double(1 << (shift + 5))
            let reach = limit * q.reduce(0) { $0 + abs($1) } + abs(biasTerm) + rounding
            if reach < Double(Int32.max) {
                var pairs: [Int32] = []
                for p in stride(from: 0, to: q.count, by: 2) {
                    let lo = UInt32(UInt16(bitPattern: Int16(q[p])))
                    let hi = p + 1 < q.count ? UInt32(UInt16(bitPattern: Int16(q[p + 1]))) : 0
                    pairs.append(Int32(bitPattern: lo | hi << 16))
                }
                let biases = (0..<4).map { _ in Int32(biasTerm + rounding) }
                let sumW = w.reduce(0) { $0 + abs($1) }
                var bound = intermediateError * sumW
                bound += range * zip(q, w).reduce(0) { $0 + abs($1.0 / scale - $1.1) }
                bound += abs(biasTerm / (64 * scale) - 255 * b)
                // The float path's rounding: the resample's and the convolution's sums in single
                // precision, each addition within 2^-24 of a partial sum.
                bound += range * Double(w.count + 16) * 0x1p-24 * (sumW + abs(b) + 1) * 4
                return Fixed(
                    shift: shift, pairs: pairs, biases: biases, weights: q.map { Int16($0) }, errorBound: bound)
            }
            shift -= 1
        }
        return nil
    }

    /// The largest sums of the positive and of the negative weights (as magnitudes) over the
    /// outputs of `taps`, real weights (the quantized ones plus their rounding).
    static func lobes(_ taps: ByteAxisTaps) -> (positive: Double, negative: Double) {
        var p = 0.0, n = 0.0
        for i in 0..<taps.counts.count {
            let count = Int(taps.counts[i])
            var up = 0.0, down = 0.0
            for k in 0..<count {
                let w = Double(taps.weights[i * taps.maxTaps + k])
                if w > 0 { up += w } else { down -= w }
            }
            p = Swift.max(p, (up + Double(count) / 2) / ByteAxisTaps.one)
            n = Swift.max(n, (down + Double(count) / 2) / ByteAxisTaps.one)
        }
        return (p, n)
    }
}

extension BytePlan {
    /// The chained plan when the convolution `convolution` (node `name`, transparent outside
    /// `valid`, its input mapped by `xs`, `ys`) reads the resample node `node`; nil when `node`
    /// has no byte resample; or why it does not chain.
    static func recognizeChain(
        _ convolution: ByteConvolution, name: String, valid: IntRect?, xs: [AxisStep], ys: [AxisStep], node: Node,
        streamed: [ObjectIdentifier: ByteSource]
    ) -> Result<BytePlan, Refusal>? {
        guard let resample = node.op.kind.byteResample(node), node.inputs.count == 1 else { return nil }
        switch resample {
        case .scale, .lanczos3: break
        default:
            return .failure(
                Refusal(
                    "the convolution reads a \(resample) (\(node.op.label)): only bilinear scales and Lanczos-3 warps chain into a byte convolution"
                ))
        }
        guard convolution.width % 2 == 1, convolution.height % 2 == 1 else {
            return .failure(Refusal("a convolution of even size does not chain over a resample"))
        }
        if convolution.keepsAlpha {
            return .failure(
                Refusal("the RGB variant of the convolution (alpha kept from the center pixel) does not chain over a resample"))
        }
        let inner: BytePlan
        switch recognize(node, streamed: streamed) {
        case let .success(p): inner = p
        case let .failure(why): return .failure(Refusal("the convolution's input: \(why)"))
        }
        guard inner.shrink == nil else {
            return .failure(
                Refusal("the convolution reads a resample with a box-shrink prepass (\(inner.summary)), which does not chain"))
        }
        var plan = BytePlan(
            form: .convolution(convolution), name: name, source: inner.source, valid: valid, xSteps: xs, ySteps: ys)
        plan.chain = ByteChain(
            convolution: convolution, resample: resample, resampleName: inner.name, valid: inner.valid,
            xSteps: inner.xSteps, ySteps: inner.ySteps)
        return .success(plan)
    }

    /// The chained plan for rendering `rect` into `buffer` with its taps and fixed point, or why
    /// the float path must run (`BytePlan.make` has checked the formats):
    /// - no sRGB decoding or encoding (in linear light both stages weigh linear values);
    /// - the chain's error bound (`ByteChain`) is below half a unit and every sum fits 32 bits;
    /// - premultiplication changes nothing: source and destination tagged premultiplied, or
    ///   every alpha byte the taps read is 255 (scanned; a streamed source counts when its file
    ///   has no alpha) and, into a straight destination, no tap and no window reads a
    ///   transparent pixel and the convolution's opaque alpha `sum w + bias` is 1. A straight
    ///   translucent source would need the 16-bit premultiplying prepass, which does not chain.
    ///
    /// - Complexity: O(outputs x taps) for the taps, plus the alpha scan of straight sources.
    func makeChain(
        _ chain: ByteChain, rect: IntRect, options: RenderContext.Options, buffer: PixelBuffer, reusing earlier: BytePlan?
    ) -> Result<BytePlan, Refusal> {
        if options.colorManagement == .linear, source.colorEncoding == .sRGB || buffer.colorEncoding == .sRGB {
            return .failure(
                Refusal(
                    "a convolution of a resample in linear light: the float path weighs linear values, not the sRGB-encoded bytes (stays in float)"
                ))
        }
        var plan = self
        var chain = chain
        // The resample outputs the convolution reads.
        let out = valid.map { rect.intersection($0) } ?? rect
        let h = halo
        func span(_ range: Range<Int>, _ steps: [AxisStep]) -> Range<Int> {
            var lo = Int.max, hi = Int.min
            for v in range { if let s = BytePlan.map(v, steps) { lo = Swift.min(lo, s); hi = Swift.max(hi, s) } }
            return lo <= hi ? lo..<hi + 1 : 0..<0
        }
        // The strips of a strip write read the same columns as the whole rect: its x taps and
        // what follows from them (made once, not per strip: thousands of outputs each).
        chain.columns = out.isEmpty ? 0..<0 : out.x - h.x..<out.maxX + h.x
        let e = earlier?.chain
        let reused = e != nil && earlier?.taps != nil && e!.columns == chain.columns && !chain.columns.isEmpty
        if !out.isEmpty {
            let xr = reused ? e!.region.x..<e!.region.maxX : span(chain.columns, xSteps)
            let yr = span(out.y - h.y..<out.maxY + h.y, ySteps)
            if !xr.isEmpty, !yr.isEmpty {
                chain.region = IntRect(x: xr.lowerBound, y: yr.lowerBound, width: xr.count, height: yr.count)
            }
        }
        let inner = BytePlan(
            form: .resample(chain.resample), name: chain.resampleName, source: source, valid: chain.valid,
            xSteps: chain.xSteps, ySteps: chain.ySteps)
        let region = chain.region
        let taps: ByteResampleTaps
        if reused, let t = earlier?.taps, !region.isEmpty {
            taps = ByteResampleTaps(
                x: t.x, y: ByteResampleTaps.axis(chain.resample, plan: inner, rect: region, horizontal: false))
            chain.xLobes = e!.xLobes
            chain.readsAllColumns = e!.readsAllColumns
        } else {
            taps = ByteResampleTaps(chain.resample, plan: inner, rect: region)
            chain.xLobes = ByteChain.lobes(taps.x)
            chain.readsAllColumns =
                !taps.x.dropsTaps && taps.x.counts.allSatisfy { $0 > 0 }
                && chain.columns.allSatisfy { BytePlan.map($0, xSteps) != nil }
        }
        plan.taps = taps
        // Overshoot and error of the 16-bit resampled values (ByteChain's comment).
        // Bytes 0...255 resample to values in -255 (px ny + nx py) ... 255 (px py + nx ny), the
        // vertical pass's to a span of 255 (py + ny).
        let (px, nx) = chain.xLobes, (py, ny) = ByteChain.lobes(taps.y)
        let sx = px + nx, sy = py + ny
        let range = 255 * Swift.max(1, px * py + nx * ny, px * ny + nx * py)
        guard 64 * range + 64 < 32767 else {
            return .failure(
                Refusal(
                    "the resample's overshoot (\(range / 255)x) does not fit the 16-bit intermediate (stays in float)"))
        }
        // The x taps' quantization over values spanning 255 sy: their errors sum to at most
        // 2^-15, so about the middle of the span they weigh at most half of it each way.
        let intermediate =
            1.0 / 128 + sx * (1.0 / 128 + taps.y.quantizationError)
            + (taps.x.quantizationError + 255 * 0x1p-15) * Swift.max(1, sy)
        guard
            let fixed = ByteChain.fixed(
                chain.convolution, limit: 32767, intermediateError: intermediate, range: range)
        else {
            return .failure(Refusal("the convolution's weights do not fit 16-bit fixed point with 32-bit sums (stays in float)"))
        }
        guard fixed.errorBound < 0.5 else {
            return .failure(
                Refusal(
                    "the chained \(chain.convolution.width)x\(chain.convolution.height) convolution of the resample is up to \(fixed.errorBound) units from the exact value (half a unit or more stays in float)"
                ))
        }
        chain.fixed = fixed
        plan.chain = chain
        guard source.format.hasAlpha, !(source.alphaMode == .premultiplied && buffer.alphaMode == .premultiplied) else {
            return .success(plan)
        }
        guard plan.sourceIsOpaque(for: rect) else {
            return .failure(
                Refusal(
                    "straight alpha with pixels that are not opaque: the resample's premultiplying prepass does not chain (stays in float)"
                ))
        }
        if buffer.alphaMode == .straight {
            guard abs(chain.convolution.opaqueAlpha - 1) <= 1e-6 else {
                return .failure(
                    Refusal(
                        "the convolution's weights and bias sum to \(chain.convolution.opaqueAlpha), not 1: unpremultiplying into a straight destination would change the colors"
                    ))
            }
            let readsAll =
                chain.readsAllColumns && !taps.y.dropsTaps && taps.y.counts.allSatisfy { $0 > 0 }
                && (out.y - h.y..<out.maxY + h.y).allSatisfy { BytePlan.map($0, ySteps) != nil }
            guard readsAll else {
                return .failure(
                    Refusal(
                        "taps or windows at the edges read transparent pixels: unpremultiplying into a straight destination would change the colors"
                    ))
            }
        }
        return .success(plan)
    }

    /// Output rows per band of the chain: two bands per thread, 24 to 128 rows (each band
    /// resamples `kh - 1` rows more than it outputs: 1/12 more work for a 3x3 at 24). Never
    /// changes the pixels.
    static func chainBandHeight(rows: Int, threads: Int) -> Int {
        Swift.max(24, Swift.min(128, (rows + 2 * threads - 1) / Swift.max(1, 2 * threads)))
    }

    /// Renders `rect` into `buffer` with the chain (see `ByteChain`): full-width bands of output
    /// rows on all threads, a ring of the convolution's input rows in 16 bits per band.
    ///
    /// - Complexity: per output row, about (1 + 2 halo / band) resampled rows (vertical and
    ///   horizontal taps per value) plus width x channels x convolution taps multiply-adds;
    ///   scratch of `kh + 1` 16-bit rows per thread.
    func runChain(_ chain: ByteChain, rect: IntRect, into buffer: inout PixelBuffer, options: RenderContext.Options) {
        // `makeChain` has set the fixed point and the taps.
        let fixed = chain.fixed!, taps = self.taps!
        let control = RenderControl.current
        let bpp = source.format.bytesPerPixel
        let out = valid.map { rect.intersection($0) } ?? rect
        let kw = chain.convolution.width, kh = chain.convolution.height
        let h = halo
        let width = out.width + 2 * h.x
        let q = chain.region
        let xt = taps.x, yt = taps.y
        let columns = xt.span ?? 0...0
        // The x taps per column the convolution reads (relative to the first source column).
        var xStarts = [Int32](repeating: 0, count: Swift.max(1, width)), xCounts = xStarts
        var xWeights = [Int16](repeating: 0, count: Swift.max(1, width) * xt.maxTaps)
        for i in 0..<(out.isEmpty ? 0 : width) {
            guard let c = BytePlan.map(out.x - h.x + i, xSteps), c >= q.x, c < q.maxX else { continue }
            let k = c - q.x
            xStarts[i] = xt.starts[k] - Int32(columns.lowerBound)
            xCounts[i] = xt.counts[k]
            for t in 0..<xt.maxTaps { xWeights[i * xt.maxTaps + t] = xt.weights[k * xt.maxTaps + t] }
        }
        // The y taps' index per row the convolution reads (nil: a transparent row).
        let rowIndex: [Int?] = (out.isEmpty ? [] : Array(out.y - h.y..<out.maxY + h.y)).map { r in
            guard let v = BytePlan.map(r, ySteps), v >= q.y, v < q.maxY, yt.counts[v - q.y] > 0 else { return nil }
            return v - q.y
        }
        let band = BytePlan.chainBandHeight(rows: out.height, threads: options.threadCount)
        let bands = out.isEmpty ? 0 : (out.height + band - 1) / band
        control?.setTotal(Swift.max(1, bands))
        let midCount = columns.count * bpp
        let rowLength = width * bpp
        source.withRows { src in
            let dstBytesPerRow = buffer.bytesPerRow
            buffer.withUnsafeMutableBytes { raw in
                let dst = SharedPixels(base: raw.baseAddress!, bytesPerRow: dstBytesPerRow)
                @Sendable func row(_ y: Int) -> UnsafeMutablePointer<UInt8> {
                    (dst.base + (y - rect.y) * dst.bytesPerRow).assumingMemoryBound(to: UInt8.self)
                }
                // Transparent outside the valid rect.
                for y in rect.y..<rect.maxY {
                    if out.isEmpty || y < out.y || y >= out.maxY {
                        row(y).update(repeating: 0, count: rect.width * bpp)
                    } else {
                        row(y).update(repeating: 0, count: (out.x - rect.x) * bpp)
                        (row(y) + (out.maxX - rect.x) * bpp).update(repeating: 0, count: (rect.maxX - out.maxX) * bpp)
                    }
                }
                guard bands > 0 else {
                    control?.advance(1)
                    return
                }
                xStarts.withUnsafeBufferPointer { xs in
                    xCounts.withUnsafeBufferPointer { xc in
                        xWeights.withUnsafeBufferPointer { xw in
                            let xTable = ByteTapPointers(
                                starts: xs.baseAddress!, counts: xc.baseAddress!, weights: xw.baseAddress!,
                                maxTaps: xt.maxTaps, pairsFrom: nil)
                            Scheduler.run(count: bands, threads: options.threadCount) { b, arena in
                                // One pixel more, zero: the horizontal kernel may read it with weight 0.
                                let mid = arena.allocate(midCount + bpp, of: Int16.self)
                                (mid + midCount).update(repeating: 0, count: bpp)
                                let ring = arena.allocate(kh * rowLength, of: Int16.self)
                                let sources = arena.allocate(Swift.max(1, yt.maxTaps), of: UnsafePointer<UInt8>?.self)
                                let window = arena.allocate(kh, of: UnsafePointer<Int16>?.self)
                                let y0 = b * band, y1 = Swift.min(out.height, y0 + band)
                                // Rows y0 ..< y1 + 2 halo of the convolution's input (relative to
                                // out.y - halo), each into ring slot (index mod kh).
                                for r in y0..<y1 + kh - 1 {
                                    let slot = ring + (r % kh) * rowLength
                                    if let yi = rowIndex[r] {
                                        let count = Int(yt.counts[yi]), s = Int(yt.starts[yi])
                                        for k in 0..<count { sources[k] = src.pixels(columns.lowerBound, s + k, bpp: bpp) }
                                        yt.weights.withUnsafeBufferPointer { w in
                                            pf_u8_resample_v_to16_run(
                                                sources, w.baseAddress! + yi * yt.maxTaps, count, midCount, mid)
                                        }
                                        pf_i16_resample_h_to16_run(
                                            mid, bpp, xTable.starts, xTable.counts, xTable.weights, xTable.maxTaps, width, slot)
                                    } else {
                                        slot.update(repeating: 0, count: rowLength)
                                    }
                                    let o = r - (kh - 1)
                                    guard o >= y0 else { continue }
                                    for j in 0..<kh { window[j] = UnsafePointer(ring + ((o + j) % kh) * rowLength) }
                                    fixed.pairs.withUnsafeBufferPointer { pairs in
                                        fixed.biases.withUnsafeBufferPointer { biases in
                                            pf_i16_convolve_row_run(
                                                window, kw, kh, bpp, pairs.baseAddress!, biases.baseAddress!, fixed.shift + 6,
                                                out.width, row(out.y + o) + (out.x - rect.x) * bpp)
                                        }
                                    }
                                }
                                control?.advance(1)
                            }
                        }
                    }
                }
            }
        }
    }
}

extension ByteResampleTaps {
    init(x: ByteAxisTaps, y: ByteAxisTaps) {
        self.x = x
        self.y = y
    }

    /// The taps of one axis of `resample` for the outputs of `rect`, as `init(_:plan:rect:)`
    /// makes them.
    static func axis(_ resample: ByteResample, plan: BytePlan, rect: IntRect, horizontal: Bool) -> ByteAxisTaps {
        let valid = plan.valid
        let range = horizontal ? rect.x..<rect.maxX : rect.y..<rect.maxY
        let steps = horizontal ? plan.xSteps : plan.ySteps
        return ByteAxisTaps(
            outputs: range,
            taps: resample.axisTaps(range, horizontal: horizontal) { o in
                valid.map { horizontal ? o >= $0.x && o < $0.maxX : o >= $0.y && o < $0.maxY } ?? true
            },
            map: { BytePlan.map($0, steps) })
    }
}
