import CSIMD

/// The byte form of separable blurs (Gaussians up to sigma 12, box means): a resample
/// (`ByteResample.separable`) whose outputs away from the borders all read the same symmetric
/// kernel, `2r + 1` consecutive pixels. Lowering makes the taps as for any byte resample
/// (`ByteAxisTaps`: crops and clamps mapped, clamped taps merged, transparent ones dropped), and
/// this plan says which rows and columns read the whole kernel: those run the folded kernels
/// of `CSIMDBytesBlur.h`, which add the two taps at each distance before multiplying; the
/// others (the borders) run the resampling kernels. Both compute the same integer sums, so the
/// bytes are those of the resampling kernels.
///
/// Exactness against the float path: the taps' quantization error on each axis
/// (`ByteAxisTaps.quantizationError`, 0.12 units per axis for sigma 10) plus the 16-bit
/// intermediate's rounding (1/128) must stay under half a unit (`BytePlan.blurError`), else
/// the render stays in float; then every byte is within 1 unit of the float path's.
struct ByteBlur: CustomStringConvertible, Sendable {
    /// The kernel's radius r.
    let radius: Int
    /// The folded weights w[0 ... r] of each axis (14 fractional bits).
    let halfX: [Int16], halfY: [Int16]
    /// Per output row: whether it reads the whole kernel (the folded vertical kernel runs).
    let fullRows: [Bool]
    /// The output columns in runs: `fast` runs read the whole kernel from consecutive pixels
    /// (the folded horizontal kernel runs), the others run the resampling kernel.
    let runs: [(from: Int, count: Int, fast: Bool)]

    var description: String { "symmetric taps folded" }

    /// The plan of `taps` (both axes made from the same kernel of `2 radius + 1` taps), or nil
    /// when no output of either axis reads the whole kernel with weights the folded kernels
    /// accept (at least 0, symmetric, summing to at most 2^14).
    init?(_ taps: ByteResampleTaps, radius: Int) {
        let n = 2 * radius + 1
        func kernel(_ t: ByteAxisTaps) -> [Int16]? {
            guard t.maxTaps == n, let i = t.counts.firstIndex(of: Int32(n)) else { return nil }
            let w = Array(t.weights[i * n..<(i + 1) * n])
            guard w.allSatisfy({ $0 >= 0 }), w == Array(w.reversed()), w.reduce(0, { $0 + Int($1) }) <= 1 << PF_RS_WEIGHT_BITS
            else { return nil }
            return w
        }
        let kx = kernel(taps.x), ky = kernel(taps.y)
        guard kx != nil || ky != nil else { return nil }
        func isFull(_ t: ByteAxisTaps, _ i: Int, _ k: [Int16]?) -> Bool {
            guard let k else { return false }
            return t.counts[i] == Int32(n) && t.weights[i * n..<(i + 1) * n].elementsEqual(k)
        }
        self.radius = radius
        halfX = Array((kx ?? [Int16](repeating: 0, count: n))[0...radius])
        halfY = Array((ky ?? [Int16](repeating: 0, count: n))[0...radius])
        fullRows = (0..<taps.y.counts.count).map { isFull(taps.y, $0, ky) }
        var runs: [(from: Int, count: Int, fast: Bool)] = []
        let xt = taps.x
        for i in 0..<xt.counts.count {
            let fast = isFull(xt, i, kx)
            if let last = runs.last, last.fast == fast, !fast || xt.starts[i] == xt.starts[i - 1] + 1 {
                runs[runs.count - 1].count += 1
            } else {
                runs.append((i, 1, fast))
            }
        }
        self.runs = runs
    }

    /// The vertical pass of output row `j` into `mid` (`n` values): the folded kernel when the
    /// row reads the whole kernel, else `pf_u8_resample_v_to16_run` with the row's `weights`.
    func vertical(
        _ j: Int, rows: UnsafePointer<UnsafePointer<UInt8>?>, count: Int, weights: UnsafePointer<Int16>, n: Int,
        into mid: UnsafeMutablePointer<Int16>
    ) {
        if fullRows[j] {
            halfY.withUnsafeBufferPointer { pf_u8_blur_v_to16_run(rows, $0.baseAddress!, radius, n, mid) }
        } else {
            pf_u8_resample_v_to16_run(rows, weights, count, n, mid)
        }
    }

    /// The horizontal pass of one output row from `mid` (16-bit values of the source columns
    /// from `firstColumn`) into `out`: per run of columns, the folded kernel or the resampling
    /// kernel with the x taps `table` (starts relative to `firstColumn`).
    func horizontal(
        _ mid: UnsafePointer<Int16>, bpp: Int, table: ByteTapPointers, maxTaps: Int, into out: UnsafeMutablePointer<UInt8>
    ) {
        halfX.withUnsafeBufferPointer { half in
            for run in runs {
                if run.fast {
                    pf_u8_blur_h_from16_run(
                        mid + Int(table.starts[run.from]) * bpp, bpp, half.baseAddress!, radius, run.count,
                        out + run.from * bpp)
                } else {
                    pf_u8_resample_h_from16_run(
                        mid, bpp, table.starts + run.from, table.counts + run.from, table.weights + run.from * maxTaps,
                        maxTaps, run.count, out + run.from * bpp)
                }
            }
        }
    }
}

extension BytePlan {
    /// The distance bound, in units, between a separable byte blur with the taps `taps` and the
    /// exact blur of the bytes before the final rounding: each axis' quantization error, plus
    /// half a step of the 16-bit intermediate (1/128), plus 1/64 when the 16-bit prepass
    /// premultiplies (`ByteShrink`). The float path is within 1e-5 of the exact blur, so below
    /// half a unit the bytes are within 1 unit of the float path's.
    static func blurError(_ taps: ByteResampleTaps, premultiplies: Bool) -> Double {
        taps.x.quantizationError + taps.y.quantizationError + 1.0 / 128 + (premultiplies ? 1.0 / 64 : 0)
    }

    /// For a separable blur (`ByteResample.separable`), the plan made by `makeResample` with
    /// `blur` set when the folded kernels apply, or why it stays in float: when `blurError`
    /// reaches half a unit (most box means of radius 23 and more). Other resamples: the plan as is.
    func makeBlur(_ resample: ByteResample) -> Result<BytePlan, Refusal> {
        guard case let .separable(kernel) = resample, let taps else { return .success(self) }
        let bound = BytePlan.blurError(taps, premultiplies: shrink?.premultiplies ?? false)
        guard bound < 0.5 else {
            return .failure(
                Refusal(
                    "the fixed-point taps of the \(kernel.count)-tap blur are up to \(bound) units from the exact sum (half a unit or more stays in float)"
                ))
        }
        var plan = self
        if shrink == nil { plan.blur = ByteBlur(taps, radius: kernel.count / 2) }
        return .success(plan)
    }
}
