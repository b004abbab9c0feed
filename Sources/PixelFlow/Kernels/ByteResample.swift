import CSIMD

// Separable resampling of 8-bit pixels (interleaved RGBA8 or gray8) with fixed-point weights:
// the byte form of bilinear scale warps and Lanczos-3 warps (see ByteForms.swift). The row
// kernels are C (Sources/CSIMD/include/CSIMDBytesResample.h). Tolerance against the exact
// weighted sum of the bytes, rounded: 1 unit (the kernels' error before rounding is about
// 0.1 unit; see the header).

/// A resampling warp that has a separable 8-bit form: per axis, each output coordinate reads
/// a few input coordinates with real weights. A node kind declares it (`NodeKind.byteResample`)
/// with the same positions and weights as its float kernel.
enum ByteResample: Sendable, CustomStringConvertible {
    /// Bilinear sampling under a transform without rotation or shear: output (x, y) reads
    /// input `inverse` applied to the pixel center, as `bilinearAxisSamples`.
    case scale(inverse: AffineTransform)
    /// Antialiased Lanczos-3 of the input extent `input` onto `output`, as `LanczosWeights`.
    case lanczos3(output: IntRect, inputSpan: Size?, input: IntRect)
    /// Bilinear sampling under any other affine transform (rotations, shears): not separable;
    /// runs `pf_u8_affine_bilinear_row_run`, positions as `affineWarpRow`.
    case affine(inverse: AffineTransform)

    /// Whether the resampling runs as two one-axis passes (`taps(_:horizontal:)`).
    var isSeparable: Bool {
        if case .affine = self { return false }
        return true
    }

    /// The taps of output coordinate `o` on the x (`horizontal`) or y axis: input coordinates
    /// and weights, as the float kernel computes them (Float weights, widened).
    func taps(_ o: Int, horizontal: Bool) -> [(index: Int, weight: Double)] {
        switch self {
        case let .scale(inv):
            let scale = horizontal ? inv.a : inv.d, offset = horizontal ? inv.tx : inv.ty
            let f = scale * (Double(o) + 0.5) + offset - 0.5
            guard f.isFinite, Swift.abs(f) < 1e15 else { return [] }
            let fl = f.rounded(.down)
            let w = Float(f - fl)
            return [(Int(fl), Double(1 - w)), (Int(fl) + 1, Double(w))]
        case let .lanczos3(out, span, e):
            let first = horizontal ? out.x : out.y, size = horizontal ? out.width : out.height
            let i = o - first
            guard i >= 0, i < size else { return [] }
            let w = LanczosWeights(
                outputRange: i..<i + 1, inputSize: horizontal ? e.width : e.height, outputSize: size,
                span: horizontal ? span?.width : span?.height)
            let origin = horizontal ? e.x : e.y
            return (0..<w.counts[0]).map { (origin + w.starts[0] + $0, Double(w.weights[$0])) }
        case .affine:
            return []
        }
    }

    var description: String {
        switch self {
        case .scale: return "bilinear scale"
        case let .lanczos3(o, _, _): return "lanczos3 to \(o.width)x\(o.height)"
        case .affine: return "bilinear affine"
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
struct ByteAxisTaps {
    var starts: [Int32] = []
    var counts: [Int32] = []
    var weights: [Int16] = []
    var maxTaps = 1
    /// The source pixels read, nil when none.
    var span: ClosedRange<Int>?
    /// Whether a tap with a weight other than 0 was dropped (read a transparent pixel).
    var dropsTaps = false

    static let one = Double(1 << PF_RS_WEIGHT_BITS)

    /// - Complexity: O(outputs x taps).
    init(outputs: Range<Int>, taps: (Int) -> [(index: Int, weight: Double)], map: (Int) -> Int?) {
        var perOutput: [(start: Int, weights: [Double])] = []
        perOutput.reserveCapacity(outputs.count)
        for o in outputs {
            var merged: [Int: Double] = [:]
            for t in taps(o) {
                if let s = map(t.index) {
                    merged[s, default: 0] += t.weight
                } else if t.weight != 0 {
                    dropsTaps = true
                }
            }
            guard let lo = merged.keys.min(), let hi = merged.keys.max() else {
                perOutput.append((0, []))
                continue
            }
            var ws = [Double](repeating: 0, count: hi - lo + 1)
            for (s, w) in merged { ws[s - lo] = w }
            perOutput.append((lo, ws))
            span = span.map { Swift.min($0.lowerBound, lo)...Swift.max($0.upperBound, hi) } ?? lo...hi
        }
        maxTaps = Swift.max(1, perOutput.map(\.weights.count).max() ?? 1)
        weights = [Int16](repeating: 0, count: outputs.count * maxTaps)
        for (i, p) in perOutput.enumerated() {
            starts.append(Int32(p.start))
            counts.append(Int32(p.weights.count))
            guard !p.weights.isEmpty else { continue }
            var q = p.weights.map { ($0 * ByteAxisTaps.one).rounded() }
            let target = (p.weights.reduce(0, +) * ByteAxisTaps.one).rounded()
            let largest = q.indices.max { Swift.abs(p.weights[$0]) < Swift.abs(p.weights[$1]) }!
            q[largest] += target - q.reduce(0, +)
            for (k, v) in q.enumerated() { weights[i * maxTaps + k] = Int16(Swift.min(Swift.max(v, -32768), 32767)) }
        }
    }
}
