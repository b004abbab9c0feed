import CSIMD

// Separable resampling of 8-bit pixels (interleaved RGBA8 or gray8) with fixed-point weights:
// the byte form of bilinear scale warps and Lanczos-3 warps (see ByteForms.swift). The row
// kernels are C (Sources/CSIMD/include/CSIMDBytesResample.h). Tolerance against the exact
// weighted sum of the bytes, rounded: 1 unit (the kernels' error before rounding is about
// 0.1 unit; see the header).

/// A resampling warp that has a separable 8-bit form: per axis, each output coordinate reads
/// a few input coordinates with real weights. A node kind declares it (`NodeKind.byteResample`)
/// with the same positions and weights as its float kernel.
package enum ByteResample: Sendable, CustomStringConvertible {
    /// Bilinear sampling under a transform without rotation or shear: output (x, y) reads
    /// input `inverse` applied to the pixel center, as `bilinearAxisSamples`.
    case scale(inverse: AffineTransform)
    /// Antialiased Lanczos-3 of the input extent `input` onto `output`, as `LanczosWeights`.
    case lanczos3(output: IntRect, inputSpan: Size?, input: IntRect)
    /// An integer box shrink by `factor` of the input extent `input` onto `output`, as
    /// `LanczosWeights(box:outputRange:inputSize:)`.
    case box(factor: Int, output: IntRect, input: IntRect)
    /// A separable blur: output `o` reads inputs `o - r ... o + r` with `taps[0 ... 2r]` on both
    /// axes (a Gaussian's exact taps, a box mean's equal ones; ByteForms+Blur.swift).
    case separable(taps: [Float])
    /// Bilinear sampling under a transform with rotation or shear: output (x, y) reads input
    /// `inverse` applied to the pixel center, as `affineWarpRow`. Not separable: it has no
    /// axis taps, and the byte path runs it as a warp (`ByteWarp`).
    case affine(inverse: AffineTransform)
    /// The taps of the outputs `outputs` on the x (`horizontal`) or y axis, as the float
    /// kernel computes them (Float weights, widened): output `i` reads `counts[i]` input
    /// coordinates from `starts[i]`, weights `weights[i * stride ..< i * stride + counts[i]]`.
    /// Outputs for which `include` is false read nothing. Not for `.affine`, which is not
    /// separable (the byte path never asks it).
    ///
    /// - Complexity: O(outputs x taps).
    package func axisTaps(_ outputs: Range<Int>, horizontal: Bool, include: (Int) -> Bool) -> (
        starts: [Int], counts: [Int], weights: [Double], stride: Int
    ) {
        var starts = [Int](repeating: 0, count: outputs.count), counts = starts
        switch self {
        case let .scale(inv):
            let scale = horizontal ? inv.a : inv.d, offset = horizontal ? inv.tx : inv.ty
            var weights = [Double](repeating: 0, count: 2 * outputs.count)
            for (i, o) in outputs.enumerated() where include(o) {
                let f = scale * (Double(o) + 0.5) + offset - 0.5
                guard f.isFinite, Swift.abs(f) < 1e15 else { continue }
                let fl = f.rounded(.down)
                let w = Float(f - fl)
                starts[i] = Int(fl)
                counts[i] = 2
                weights[2 * i] = Double(1 - w)
                weights[2 * i + 1] = Double(w)
            }
            return (starts, counts, weights, 2)
        case let .lanczos3(out, span, e):
            let first = horizontal ? out.x : out.y, size = horizontal ? out.width : out.height
            let lo = Swift.max(outputs.lowerBound, first), hi = Swift.min(outputs.upperBound, first + size)
            guard lo < hi else { return (starts, counts, [0], 1) }
            let w = LanczosWeights(
                outputRange: lo - first..<hi - first, inputSize: horizontal ? e.width : e.height, outputSize: size,
                span: horizontal ? span?.width : span?.height)
            let origin = horizontal ? e.x : e.y
            var weights = [Double](repeating: 0, count: outputs.count * w.maxTaps)
            for o in lo..<hi where include(o) {
                let i = o - outputs.lowerBound, k = o - lo
                starts[i] = origin + w.starts[k]
                counts[i] = w.counts[k]
                for t in 0..<w.counts[k] { weights[i * w.maxTaps + t] = Double(w.weights[k * w.maxTaps + t]) }
            }
            return (starts, counts, weights, w.maxTaps)
        case let .box(k, out, e):
            let first = horizontal ? out.x : out.y, size = horizontal ? out.width : out.height
            let lo = Swift.max(outputs.lowerBound, first), hi = Swift.min(outputs.upperBound, first + size)
            guard lo < hi else { return (starts, counts, [0], 1) }
            let w = LanczosWeights(box: k, outputRange: lo - first..<hi - first, inputSize: horizontal ? e.width : e.height)
            let origin = horizontal ? e.x : e.y
            var weights = [Double](repeating: 0, count: outputs.count * w.maxTaps)
            for o in lo..<hi where include(o) {
                let i = o - outputs.lowerBound, k = o - lo
                starts[i] = origin + w.starts[k]
                counts[i] = w.counts[k]
                for t in 0..<w.counts[k] { weights[i * w.maxTaps + t] = Double(w.weights[k * w.maxTaps + t]) }
            }
            return (starts, counts, weights, w.maxTaps)
        case let .separable(taps):
            let r = taps.count / 2
            var weights = [Double](repeating: 0, count: outputs.count * taps.count)
            for (i, o) in outputs.enumerated() where include(o) {
                starts[i] = o - r
                counts[i] = taps.count
                for (k, w) in taps.enumerated() { weights[i * taps.count + k] = Double(w) }
            }
            return (starts, counts, weights, taps.count)
        case .affine:
            preconditionFailure("an affine warp with rotation or shear has no separable taps")
        }
    }

    package var description: String {
        switch self {
        case .scale: return "bilinear scale"
        case let .lanczos3(o, _, _): return "lanczos3 to \(o.width)x\(o.height)"
        case let .box(k, o, _): return "box shrink 1/\(k) to \(o.width)x\(o.height)"
        case let .separable(taps): return "separable blur (\(taps.count) taps)"
        case .affine: return "affine bilinear warp"
        }
    }
}

/// The fixed-point taps of one axis of a byte resample for a range of outputs, in source
/// coordinates: output `i` reads `counts[i]` consecutive source pixels from `starts[i]`, with
/// weights `weights[i * maxTaps ..< i * maxTaps + counts[i]]` scaled by 2^14.
///
/// Input coordinates go through `map` (crops and clamps down to the source; nil is a
/// transparent pixel, whose tap is dropped); taps that land on the same source pixel are
/// merged. The quantized weights of an output sum to its real weights' sum, rounded.
package struct ByteAxisTaps {
    package var starts: [Int32] = []
    package var counts: [Int32] = []
    package var weights: [Int16] = []
    package var maxTaps = 1
    /// The source pixels read, nil when none.
    package var span: ClosedRange<Int>?
    /// Whether a tap with a weight other than 0 was dropped (read a transparent pixel).
    package var dropsTaps = false
    /// When every output averages source pixels `2i + pairsFrom` and `2i + 1 + pairsFrom`
    /// (weights 1/2, 1/2): the 2x box shrink, which `pf_u8_resample_h_from16_pairs_run`
    /// computes with the same result as the general kernel.
    package var pairsFrom: Int?
    /// The largest distance, over the outputs, between the weighted sum with the quantized
    /// weights and with the real ones, for input values in 0...255, in units.
    package var quantizationError = 0.0

    package static let one = Double(1 << PF_RS_WEIGHT_BITS)

    /// - Complexity: O(outputs x taps x steps).
    package init(
        outputs: Range<Int>, taps: (starts: [Int], counts: [Int], weights: [Double], stride: Int), map: (Int) -> Int?
    ) {
        let n = outputs.count
        starts = [Int32](repeating: 0, count: n)
        counts = [Int32](repeating: 0, count: n)
        // Source coordinates and merged weights of one output (crops and clamps map consecutive
        // coordinates to non-decreasing ones that step by at most 1, so no gaps in practice).
        var src: [Int] = [], ws: [Double] = []
        var rows: [(start: Int, begin: Int, count: Int)] = []
        var all: [Double] = []
        rows.reserveCapacity(n)
        for i in 0..<n {
            src.removeAll(keepingCapacity: true)
            ws.removeAll(keepingCapacity: true)
            // Taps whose ends map to themselves all do (the steps never skip a coordinate): no
            // merging (most outputs of a blur).
            let first = taps.starts[i], count = taps.counts[i]
            if count > 0, map(first) == first, map(first + count - 1) == first + count - 1 {
                let begin = all.count
                all.append(contentsOf: taps.weights[i * taps.stride..<i * taps.stride + count])
                rows.append((first, begin, count))
                span =
                    span.map { Swift.min($0.lowerBound, first)...Swift.max($0.upperBound, first + count - 1) }
                    ?? first...first + count - 1
                continue
            }
            for k in 0..<taps.counts[i] {
                let w = taps.weights[i * taps.stride + k]
                guard let s = map(taps.starts[i] + k) else {
                    if w != 0 { dropsTaps = true }
                    continue
                }
                // `src` holds consecutive coordinates from src[0]: add into it, growing it (with
                // zero weights in any gap) when `s` lies outside.
                if let first = src.first {
                    if s < first {
                        src.insert(contentsOf: s..<first, at: 0)
                        ws.insert(contentsOf: [Double](repeating: 0, count: first - s), at: 0)
                    } else if s > src[src.count - 1] {
                        for g in src[src.count - 1] + 1...s {
                            src.append(g)
                            ws.append(0)
                        }
                    }
                    ws[s - src[0]] += w
                } else {
                    src.append(s)
                    ws.append(w)
                }
            }
            let begin = all.count
            all.append(contentsOf: ws)
            rows.append((src.first ?? 0, begin, ws.count))
            if let a = src.first, let b = src.last, a <= b {
                span = span.map { Swift.min($0.lowerBound, a)...Swift.max($0.upperBound, b) } ?? a...b
            }
        }
        maxTaps = Swift.max(1, rows.map(\.count).max() ?? 1)
        weights = [Int16](repeating: 0, count: n * maxTaps)
        // The quantized weights of the last output (in `q`), reused when the next has the same
        // real ones. Scratch and indices rather than slices: this runs once per output of every
        // plan (each strip of a strip write), so it allocates nothing per output.
        var q = [Double](repeating: 0, count: maxTaps)
        var last: (begin: Int, count: Int)?
        let one = ByteAxisTaps.one
        all.withUnsafeBufferPointer { real in
            for (i, p) in rows.enumerated() {
                starts[i] = Int32(p.start)
                counts[i] = Int32(p.count)
                guard p.count > 0 else { continue }
                let r = p.begin
                if let last, last.count == p.count, (0..<p.count).allSatisfy({ real[last.begin + $0] == real[r + $0] }) {
                    for k in 0..<p.count { weights[i * maxTaps + k] = Int16(Swift.min(Swift.max(q[k], -32768), 32767)) }
                    continue
                }
                var sum = 0.0
                for k in 0..<p.count {
                    q[k] = (real[r + k] * one).rounded()
                    sum += real[r + k]
                }
                let target = (sum * one).rounded()
                // The rounding rest goes to the largest weight; among equal ones the middle one, so
                // a symmetric kernel (a box mean's equal taps) stays symmetric.
                var largest = 0
                let middle = Double(p.count - 1) / 2
                for k in 0..<p.count {
                    let a = Swift.abs(real[r + k]), b = Swift.abs(real[r + largest])
                    if a > b || (a == b && Swift.abs(Double(k) - middle) < Swift.abs(Double(largest) - middle)) { largest = k }
                }
                var qsum = 0.0
                for k in 0..<p.count { qsum += q[k] }
                q[largest] += target - qsum
                // Quantization error of this output for values in 0...255: 255 times the larger of
                // the positive and the negative weight errors' sums.
                var above = 0.0, below = 0.0
                for k in 0..<p.count {
                    let d = q[k] / one - real[r + k]
                    if d > 0 { above += d } else { below -= d }
                }
                quantizationError = Swift.max(quantizationError, 255 * Swift.max(above, below))
                for k in 0..<p.count { weights[i * maxTaps + k] = Int16(Swift.min(Swift.max(q[k], -32768), 32767)) }
                last = (r, p.count)
            }
        }
        let half = Int16(1 << (PF_RS_WEIGHT_BITS - 1))
        if n > 0, maxTaps == 2,
            (0..<n).allSatisfy({
                counts[$0] == 2 && starts[$0] == starts[0] + 2 * Int32($0) && weights[2 * $0] == half
                    && weights[2 * $0 + 1] == half
            })
        {
            pairsFrom = Int(starts[0])
        }
    }
}
