import CSIMD

/// The 16-bit prepass of a byte resample (the byte form of thumbnails): before the separable
/// passes, the source pixels the taps read are box-shrunk by `factor` (1: copied) into 16-bit
/// values with 6 fractional bits, premultiplying straight alpha on the fly; the horizontal
/// pass then unpremultiplies as it stores a straight-alpha destination. So a byte resample
/// runs on straight translucent `rgba8` (the float path premultiplies, resamples and
/// unpremultiplies), and a Lanczos-3 warp over an integer box shrink of a source
/// (`Image.thumbnail`) runs as one byte form.
///
/// Exactness against the float path: the box mean is rounded to 1/64 of a unit and the
/// premultiplied values to 1/64 (`CSIMDBytesShrink.h`); the passes then add at most about 0.1
/// unit (`CSIMDBytesResample.h`), so premultiplied outputs and alpha are within 1 unit of the
/// float path's bytes. An unpremultiplied color is the ratio of two such sums, `255 C / A`:
/// its error grows as `1 / A`, so colors are within 1 unit where the output alpha is at least
/// 64, and within `1 + 64 / alpha` units below (where a few premultiplied sixty-fourths decide
/// the color, the float path's own rounding of `C / A` does as much); `ByteShrinkTests` checks
/// both bounds.
struct ByteShrink: CustomStringConvertible {
    /// The box shrink factor (1: none).
    var factor: Int
    /// Whether the source's straight alpha is premultiplied into the 16-bit values.
    var premultiplies = false
    /// Whether the destination has straight alpha: the horizontal pass unpremultiplies.
    var unpremultiplies = false

    var description: String {
        var parts: [String] = []
        if factor > 1 { parts.append("after a 1/\(factor) box shrink") }
        parts.append(premultiplies ? "premultiplied in 16 bits" : "in 16 bits")
        if unpremultiplies { parts.append("unpremultiplied on store") }
        return parts.joined(separator: ", ")
    }
}

extension BytePlan {
    /// The plan of a resample `n` whose input is an integer box shrink of a whole `rgba8` or
    /// `gray8` source at the origin (the graph of `Image.thumbnail`), or nil. Its taps read the
    /// box's output, which the 16-bit prepass computes.
    static func recognizeShrunk(_ n: Node, form: ByteForm, valid: IntRect?, streamed: [ObjectIdentifier: ByteSource]) -> BytePlan?
    {
        let m = n.inputs[0]
        guard case let .warp(.boxShrink(k, o)) = m.op, m.inputs.count == 1, o.x == 0, o.y == 0,
            let source = ByteSource.of(m.inputs[0], streamed: streamed),
            m.inputs[0].extent == Rect(x: 0, y: 0, width: Double(source.width), height: Double(source.height))
        else { return nil }
        var plan = BytePlan(
            form: form, name: n.op.label, source: source, valid: valid,
            xSteps: [.restrict(lower: 0, upper: o.width)], ySteps: [.restrict(lower: 0, upper: o.height)])
        plan.shrink = ByteShrink(factor: k)
        return plan
    }

    /// The plan with the 16-bit prepass (factor 1 unless recognized under a box shrink),
    /// premultiplying a straight `rgba8` source and unpremultiplying into a straight `rgba8`
    /// destination.
    func shrinking(into buffer: PixelBuffer) -> BytePlan {
        var plan = self
        let rgba = source.format == .rgba8
        plan.shrink = ByteShrink(
            factor: shrink?.factor ?? 1, premultiplies: rgba && source.alphaMode == .straight,
            unpremultiplies: rgba && buffer.alphaMode == .straight)
        return plan
    }

    /// Renders `rect` into `buffer` with the taps `taps` through the 16-bit prepass `shrink`:
    /// first the prepass over the rect of box outputs the taps read (bands of rows on all
    /// threads, into one buffer), then as `runResample` (vertical pass over 16-bit rows).
    ///
    /// - Complexity: per source pixel read, one premultiply and add; then as `runResample`.
    ///   Scratch: the box outputs read, 2 bytes per channel.
    func runShrunkResample(
        _ taps: ByteResampleTaps, shrink: ByteShrink, rect: IntRect, into buffer: inout PixelBuffer,
        options: RenderContext.Options
    ) {
        let bpp = source.format.bytesPerPixel
        let width = rect.width
        let xt = taps.x, yt = taps.y
        guard let region = taps.sourceRegion else {
            _ = buffer.withUnsafeMutableBytes { $0.initializeMemory(as: UInt8.self, repeating: 0) }
            return
        }
        let control = RenderControl.current
        let band = BytePlan.resampleBandHeight(options)
        control?.setTotal((region.height + band - 1) / band + (rect.height + band - 1) / band)
        let k = shrink.factor
        let rowValues = region.width * bpp
        let values = UnsafeMutablePointer<Int16>.allocate(capacity: Swift.max(1, rowValues * region.height))
        defer { values.deallocate() }
        let mid16 = SharedPixels(base: UnsafeMutableRawPointer(values), bytesPerRow: rowValues * 2)
        let mode: Int32 = shrink.premultiplies ? 2 : 1
        let src = source
        // The prepass: box output (x, y) averages source [k x, k x + k) x [k y, k y + k).
        src.withRows { s in
            let x0 = k * region.x
            let inWidth = Swift.max(0, Swift.min(s.width - x0, k * region.width))
            BytePlan.runBands(region.height, band: band, threads: options.threadCount, control: control) { js, arena in
                let scratch = arena.allocate(Swift.max(1, inWidth * bpp), of: UInt32.self)
                let rows = arena.allocate(k, of: UnsafePointer<UInt8>?.self)
                for j in js {
                    s.boxShrink(
                        row: region.y + j, factor: k, x0: x0, inWidth: inWidth, outWidth: region.width, bpp: bpp,
                        mode: mode, rows: rows, scratch: scratch, into: mid16.base + j * mid16.bytesPerRow)
                }
            }
        }
        // The separable passes, as runResample's, reading the 16-bit rows.
        let unpremultiplies = shrink.unpremultiplies
        let dstBytesPerRow = buffer.bytesPerRow
        buffer.withUnsafeMutableBytes { raw in
            let dst = SharedPixels(base: raw.baseAddress!, bytesPerRow: dstBytesPerRow)
            xt.withPointers(firstColumn: region.x) { xTable in
                BytePlan.runBands(rect.height, band: band, threads: options.threadCount, control: control) { js, arena in
                    let mid = arena.allocate(Swift.max(1, rowValues), of: Int16.self)
                    let rows = arena.allocate(Swift.max(1, yt.maxTaps), of: UnsafePointer<Int16>?.self)
                    for j in js {
                        let out = (dst.base + j * dst.bytesPerRow).assumingMemoryBound(to: UInt8.self)
                        let count = Int(yt.counts[j])
                        guard count > 0 else {
                            out.update(repeating: 0, count: width * bpp)
                            continue
                        }
                        let s = Int(yt.starts[j]) - region.y
                        for t in 0..<count {
                            rows[t] = UnsafePointer(
                                (mid16.base + (s + t) * mid16.bytesPerRow).assumingMemoryBound(to: Int16.self))
                        }
                        yt.weights.withUnsafeBufferPointer { w in
                            pf_i16_resample_v_run(rows, w.baseAddress! + j * yt.maxTaps, count, rowValues, mid)
                        }
                        if unpremultiplies {
                            pf_u8_resample_h_from16_unpremultiply_run(
                                mid, xTable.starts, xTable.counts, xTable.weights, xt.maxTaps, width, out)
                        } else {
                            xTable.horizontal(mid, bpp: bpp, width: width, into: out)
                        }
                    }
                }
            }
        }
    }
}

extension SharedSourceBytes {
    /// Box output row `row` of a shrink by `factor` from source rows `factor x row ..<
    /// factor x (row + 1)` (those inside the source), columns `x0 ..< x0 + inWidth`, into
    /// `outWidth` outputs at `out` by `pf_u8_box_shrink_run` in `mode`; `rows` holds `factor`
    /// row pointers and `scratch` `inWidth x bpp` sums.
    func boxShrink(
        row: Int, factor: Int, x0: Int, inWidth: Int, outWidth: Int, bpp: Int, mode: Int32,
        rows: UnsafeMutablePointer<UnsafePointer<UInt8>?>, scratch: UnsafeMutablePointer<UInt32>,
        into out: UnsafeMutableRawPointer
    ) {
        let y0 = factor * row, y1 = Swift.min(height, y0 + factor)
        for r in 0..<Swift.max(0, y1 - y0) {
            rows[r] = pixels(x0, y0 + r, bpp: bpp)
        }
        pf_u8_box_shrink_run(rows, Swift.max(0, y1 - y0), bpp, inWidth, factor, outWidth, mode, scratch, out)
    }
}

extension BytePlan {
    /// The factor of a box shrink that runs as exact byte means (`pf_u8_box_shrink_run` mode
    /// 0, `runBoxBytes`): the root is `Warp.boxShrink` of a whole source at the origin with
    /// nothing between, the render rect lies inside the box's output, and premultiplication
    /// changes nothing (checked by `makeResample` before). Else nil (the taps run it).
    func exactBoxFactor(rect: IntRect) -> Int? {
        guard case let .resample(.box(k, o, e)) = form, shrink == nil, o.x == 0, o.y == 0,
            e == IntRect(x: 0, y: 0, width: source.width, height: source.height), o.contains(rect),
            BytePlan.isIdentity(0..<source.width, xSteps), BytePlan.isIdentity(0..<source.height, ySteps)
        else { return nil }
        return k
    }

    /// Renders `rect` of a box shrink by `k` as exact means of the source bytes (rounded half
    /// up): bands of output rows on all threads, each row from its k source rows.
    ///
    /// - Complexity: one add per source byte read; scratch of one 32-bit source row.
    func runBoxBytes(_ k: Int, rect: IntRect, into buffer: inout PixelBuffer, options: RenderContext.Options) {
        let control = RenderControl.current
        let band = BytePlan.resampleBandHeight(options)
        control?.setTotal((rect.height + band - 1) / band)
        let bpp = source.format.bytesPerPixel
        let src = source
        let dstBytesPerRow = buffer.bytesPerRow
        src.withRows { s in
            let x0 = k * rect.x
            let inWidth = Swift.max(0, Swift.min(s.width - x0, k * rect.width))
            buffer.withUnsafeMutableBytes { raw in
                let dst = SharedPixels(base: raw.baseAddress!, bytesPerRow: dstBytesPerRow)
                BytePlan.runBands(rect.height, band: band, threads: options.threadCount, control: control) { js, arena in
                    let scratch = arena.allocate(Swift.max(1, inWidth * bpp), of: UInt32.self)
                    let rows = arena.allocate(k, of: UnsafePointer<UInt8>?.self)
                    for j in js {
                        s.boxShrink(
                            row: rect.y + j, factor: k, x0: x0, inWidth: inWidth, outWidth: rect.width, bpp: bpp, mode: 0,
                            rows: rows, scratch: scratch, into: dst.base + j * dst.bytesPerRow)
                    }
                }
            }
        }
    }
}
