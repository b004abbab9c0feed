import CSIMD

/// The byte form of 2-D convolutions (`CIConvolution3X3`, `5X5`, `7X7`, their RGB variants, and
/// `CIConvolution9Horizontal` / `9Vertical`): the float path computes per channel
/// `quantize8(sum_k w_k v_k + bias)` of the working values v (the stored bytes / 255 without
/// color management, premultiplied), alpha included, or with the RGB variants alpha copied from
/// the center pixel and no bias on it. On bytes s that is `sum_k w_k s_k + 255 bias` rounded
/// and clamped to 0...255, which the kernel (`pf_u8_convolve_row_run`,
/// Sources/CSIMD/include/CSIMDBytesConvolve.h) computes with weights quantized to signed 16 bits
/// with `shift` fractional bits (14 and up; fewer when a weight's magnitude exceeds 2, down to
/// 1): 16-bit values times weights by `pmaddwd`, two taps per instruction, into 32-bit sums;
/// `floor((sum W_k s_k + B) / 2^shift)`, B holding the bias and the rounding term.
///
/// Exactness: the sum is exact in integers; its distance from the exact map is at most
/// `errorBound` (the weights' and the bias's quantization times 255, plus the float path's own
/// rounding of a sum in single precision). Both the float path's byte and this byte are then
/// within `0.5 + bound` of the exact value, so they differ by at most 1 while the bound is below
/// 1; lowering keeps the form while it is below half a unit (as the blurs do), else the render
/// stays in float and `explain()` says why. Identity and integer-over-power-of-two kernels (the
/// sharpen mask `[-1 -1 -1; -1 16 -1; -1 -1 -1] / 8`) quantize exactly.
struct ByteConvolution: CustomStringConvertible, Sendable {
    /// The kernel's width and height (odd, at most 81 taps).
    let width: Int, height: Int
    /// The float path's weights, row-major from the top left, and bias.
    let weights: [Float], bias: Float
    /// The RGB variant: alpha is the center pixel's, the bias goes to R, G and B only.
    let keepsAlpha: Bool

    /// The convolution of `node`, when it is one with at most 81 taps.
    init?(_ node: Node) {
        guard node.inputs.count == 1, let s = node.op.kind as? Stencil,
            case let .convolution(w, h, weights, bias, rgb) = s,
            w >= 1, h >= 1, w * h <= 81, weights.count == w * h, weights.allSatisfy(\.isFinite), bias.isFinite
        else { return nil }
        width = w
        height = h
        self.weights = weights
        self.bias = bias
        keepsAlpha = rgb
        fixedPoint = ByteConvolution.fixedPoint(weights: weights, bias: bias, keepsAlpha: rgb)
    }

    /// How far the kernel reaches on each side.
    var halo: (x: Int, y: Int) { (width / 2, height / 2) }

    var description: String {
        "\(width)x\(height) convolution\(keepsAlpha ? " of the colors" : ""), fixed-point weights"
            + (fixedPoint?.small != nil ? ", small integers in 16-bit sums" : "")
    }

    /// The weights and bias in fixed point for the kernel, with the bound of their error.
    struct FixedPoint: Sendable {
        /// Fractional bits of the weights.
        let shift: Int
        /// The 16-bit weights in pairs, one 32-bit value per pair (`CSIMDBytesConvolve.h`).
        let pairs: [Int32]
        /// Per channel (R, G, B, A; gray uses the first): the bias times `255 * 2^shift` plus the
        /// rounding term `2^(shift - 1)`.
        let biases: [Int32]
        /// The 16-bit weights, row-major (for the tests' scalar reference).
        let weights: [Int16]
        /// At most this many units between the exact sum of the float weights and the fixed-point
        /// sum before its final rounding, plus the float path's own rounding error.
        let errorBound: Double
        /// When every weight is a small integer over a power of two (`k / 2^m`, |k| <= 127,
        /// 1 <= m <= 7) and the bias times 255 too, and every sum fits 16 bits: those integers
        /// as byte pairs, the biases with the rounding term, and m, for the 16-bit AVX2 loop
        /// of `pf_u8_convolve_row_small_run` (the same outputs as the 32-bit kernel).
        let small: (pairs: [Int16], biases: [Int16], shift: Int)?
    }

    /// The fixed-point form, or nil when a weight is too large for 16 bits with a fractional
    /// bit, or a sum could leave 32 bits.
    let fixedPoint: FixedPoint?

    /// Quantizes `weights` and `bias` (see `FixedPoint`).
    static func fixedPoint(weights: [Float], bias: Float, keepsAlpha: Bool) -> FixedPoint? {
        let w = weights.map(Double.init)
        let b = Double(bias)
        let largest = w.map(abs).max() ?? 0
        let shift = largest == 0 ? 16 : Swift.min(16, Int((32767 / largest).exponent))
        guard shift >= 1 else { return nil }
        let scale = Double(1 << shift)
        let q = w.map { Int16(($0 * scale).rounded()) }
        let channelBias = (0..<4).map { c in keepsAlpha && c == 3 ? 0 : b }
        let biasTerms = channelBias.map { (255 * $0 * scale).rounded() }
        let biases = biasTerms.map { $0 + Double(1 << (shift - 1)) }
        let reach = 255 * q.reduce(0.0) { $0 + abs(Double($1)) } + (biases.map(abs).max() ?? 0)
        guard reach < Double(Int32.max) else { return nil }
        var pairs: [Int32] = []
        for p in stride(from: 0, to: q.count, by: 2) {
            let lo = UInt32(UInt16(bitPattern: q[p]))
            let hi = p + 1 < q.count ? UInt32(UInt16(bitPattern: q[p + 1])) : 0
            pairs.append(Int32(bitPattern: lo | hi << 16))
        }
        var bound = 0.0
        for k in 0..<w.count { bound += 255 * abs(Double(q[k]) / scale - w[k]) }
        bound += zip(biasTerms, channelBias).map { abs($0 / scale - 255 * $1) }.max() ?? 0
        // The float path sums the products in single precision: each addition rounds by at most
        // 2^-24 of a partial sum, which stays below sum |w| + |bias| (values in 0...1).
        let magnitude = w.reduce(0) { $0 + abs($1) } + abs(b) + 1
        bound += 255 * Double(w.count + 3) * 0x1p-24 * magnitude
        return FixedPoint(
            shift: shift, pairs: pairs, biases: biases.map { Int32($0) }, weights: q, errorBound: bound,
            small: smallIntegers(w, channelBias, shift: shift, weights: q, biases: biases))
    }

    /// The small-integer form of `FixedPoint.small`, checked to give the 32-bit kernel's sums
    /// scaled by `2^(shift - m)`.
    private static func smallIntegers(
        _ w: [Double], _ channelBias: [Double], shift: Int, weights q: [Int16], biases: [Double]
    ) -> (pairs: [Int16], biases: [Int16], shift: Int)? {
        for m in 1...Swift.min(7, shift) {
            let scale = Double(1 << m)
            let k = w.map { $0 * scale }
            guard k.allSatisfy({ $0 == $0.rounded() && abs($0) <= 127 }) else { continue }
            let b = channelBias.map { 255 * $0 * scale + scale / 2 }
            guard b.allSatisfy({ $0 == $0.rounded() }) else { continue }
            let positive = 255 * k.filter { $0 > 0 }.reduce(0, +), negative = 255 * k.filter { $0 < 0 }.reduce(0, +)
            guard b.allSatisfy({ $0 + positive <= 32767 && $0 + negative >= -32768 }) else { return nil }
            let up = Double(1 << (shift - m))
            guard zip(k, q).allSatisfy({ $0 * up == Double($1) }), zip(b, biases).allSatisfy({ $0 * up == $1 }) else {
                return nil
            }
            var pairs: [Int16] = []
            for p in stride(from: 0, to: k.count, by: 2) {
                let lo = UInt16(UInt8(bitPattern: Int8(k[p])))
                let hi = p + 1 < k.count ? UInt16(UInt8(bitPattern: Int8(k[p + 1]))) : 0
                pairs.append(Int16(bitPattern: lo | hi << 8))
            }
            return (pairs, b.map { Int16($0) }, m)
        }
        return nil
    }

    /// The output alpha of an opaque window, `sum w + bias` (1 for the RGB variant).
    var opaqueAlpha: Double {
        keepsAlpha ? 1 : weights.reduce(0) { $0 + Double($1) } + Double(bias)
    }
}

extension BytePlan {
    /// The plan of a byte convolution for rendering `rect` into `buffer`, or why the float path
    /// must run (`BytePlan.make` has checked the formats):
    /// - no sRGB decoding or encoding (color management off, or linear-tagged buffers): in
    ///   linear light the float path weighs linear values, which a weighted sum of the encoded
    ///   bytes does not give (that case stays in float);
    /// - the fixed-point weights' error bound is below half a unit (`ByteConvolution.fixedPoint`);
    /// - premultiplication changes nothing: source and destination are tagged premultiplied, or
    ///   every alpha byte the render reads is 255 (scanned) and, into a straight destination, no
    ///   window reads a transparent pixel outside an extent and an opaque window's alpha
    ///   `sum w + bias` is 1 (the RGB variants keep 1), so the float path's unpremultiply has
    ///   nothing to change.
    ///
    /// - Complexity: O(taps) plus the alpha scan of straight sources.
    func makeConvolution(
        _ convolution: ByteConvolution, rect: IntRect, options: RenderContext.Options, buffer: PixelBuffer
    ) -> Result<BytePlan, Refusal> {
        if let refusal = linearLightRefusal("convolving", options: options, buffer: buffer) { return .failure(refusal) }
        guard let fixed = convolution.fixedPoint else {
            return .failure(Refusal("a convolution weight is too large for 16-bit fixed point (stays in float)"))
        }
        guard fixed.errorBound < 0.5 else {
            return .failure(
                Refusal(
                    "the fixed-point weights of the \(convolution.width)x\(convolution.height) convolution are up to \(fixed.errorBound) units from the exact sum (half a unit or more stays in float)"
                ))
        }
        guard source.format.hasAlpha, !(source.alphaMode == .premultiplied && buffer.alphaMode == .premultiplied) else {
            return .success(self)
        }
        guard sourceIsOpaque(for: rect) else {
            return .failure(
                Refusal("straight alpha with pixels that are not opaque: premultiplying would change the values"))
        }
        if buffer.alphaMode == .straight {
            guard abs(convolution.opaqueAlpha - 1) <= 1e-6 else {
                return .failure(
                    Refusal(
                        "the convolution's weights and bias sum to \(convolution.opaqueAlpha), not 1: unpremultiplying into a straight destination would change the colors"
                    ))
            }
            guard readsOnlySourcePixels(rect) else {
                return .failure(
                    Refusal(
                        "windows at the edges read transparent pixels: unpremultiplying into a straight destination would change the colors"
                    ))
            }
        }
        return .success(self)
    }

    /// Whether every window of the outputs of `rect` inside `valid` reads source pixels (no tap
    /// outside an extent without a clamp).
    func readsOnlySourcePixels(_ rect: IntRect) -> Bool {
        let out = valid.map { rect.intersection($0) } ?? rect
        if out.isEmpty { return true }
        let h = halo
        return (out.x - h.x..<out.maxX + h.x).allSatisfy { BytePlan.map($0, xSteps) != nil }
            && (out.y - h.y..<out.maxY + h.y).allSatisfy { BytePlan.map($0, ySteps) != nil }
    }

    /// Renders `rect` into `buffer` with the fixed-point convolution, in the tiles of the
    /// windowed forms (`runTiles`): per output row, `pf_u8_convolve_row_run` over the tile's
    /// input rows (read in place inside the source, gathered at its borders).
    ///
    /// - Complexity: width x height x channels x taps multiply-adds.
    func runConvolution(
        _ convolution: ByteConvolution, rect: IntRect, into buffer: inout PixelBuffer, options: RenderContext.Options
    ) {
        // `makeConvolution` has checked that the fixed-point form exists.
        let fixed = convolution.fixedPoint!
        let kw = convolution.width, kh = convolution.height
        let keep: Int32 = convolution.keepsAlpha ? 1 : 0
        let small = fixed.small
        runTiles(rect: rect, into: &buffer, options: options) { input, output, stride, width, height, bpp, _ in
            fixed.pairs.withUnsafeBufferPointer { pairs in
                fixed.biases.withUnsafeBufferPointer { biases in
                    guard let small else {
                        for y in 0..<height {
                            pf_u8_convolve_row_run(
                                input + y, kw, kh, bpp, pairs.baseAddress!, biases.baseAddress!, fixed.shift, keep, width,
                                output + y * stride)
                        }
                        return
                    }
                    small.pairs.withUnsafeBufferPointer { sp in
                        small.biases.withUnsafeBufferPointer { sb in
                            for y in 0..<height {
                                pf_u8_convolve_row_small_run(
                                    input + y, kw, kh, bpp, pairs.baseAddress!, biases.baseAddress!, fixed.shift,
                                    sp.baseAddress!, sb.baseAddress!, small.shift, keep, width, output + y * stride)
                            }
                        }
                    }
                }
            }
        }
    }
}
