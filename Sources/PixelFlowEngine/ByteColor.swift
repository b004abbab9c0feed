import CSIMD

/// The byte form of point color operations: a color matrix (the optimizer folds chains of
/// them into one) over an 8-bit source, or a bare `rgba8` source rendered into a `gray8`
/// buffer (grayscale: the Rec. 709 luma of the working value), as one affine map of the
/// source bytes with fixed-point weights.
///
/// Per output byte k, the float path computes `quantize8(sum_j W[k][j] s_j / 255 + B[k])` over
/// the stored bytes `s` (with the conditions of `BytePlan.makeColor`, its premultiplying and
/// unpremultiplying cancel out); the byte kernels (`pf_u8_matrix_rgba_run`,
/// `pf_u8_matrix_gray_run`, Sources/CSIMD/include/CSIMDBytesColor.h) compute
/// `floor((sum_j w[k][j] s_j + b[k] + 2^(q-1)) / 2^q)` clamped to 0...255, with
/// `w = round(W 2^q)` in signed 16 bits and `b = round(255 B 2^q)`. The error before rounding
/// is at most `(sum_j 255 |w/2^q - W| + |b/2^q - 255 B|)` units (`errorBound`, at most 0.032 for
/// q = 14; renders whose bound reaches 0.5 stay in float), so every byte is within 1 unit of the
/// float path's, and equal to it unless the exact value lies within that bound of a half unit.
/// Integer arithmetic: the bytes do not depend on threads, bands or the instruction set.
/// A `gray8` source reads as (g, g, g, 1), so its output is a function of one byte: a
/// 256-entry table made from the same affine map in double precision.
///
/// In linear light (`linear`) the map applies to decoded values: the kernels read the bytes
/// through a decode table and write through an encode table (`ByteLinear`). The same type
/// also carries the exact point forms of premultiplying, unpremultiplying and blending
/// (`Kind`), which have no weights.
struct ByteColor: CustomStringConvertible {
    /// What the render computes: four output channels or one (gray8 destination).
    enum Output { case rgba, gray }
    /// What the form runs: a matrix, grayscale, or premultiplying straight rgba8 (exact:
    /// `pf_u8_premultiply_rgba_run`, the rows are the identity), or unpremultiplying
    /// premultiplied rgba8 (`pf_u8_unpremultiply_rgba_run`, multipliers in `ByteLinear.tables`).
    /// Or source-over of two premultiplied rgba8 sources (exact:
    /// `pf_u8_source_over_rgba_run`; the plan's source is the foreground, `background` the other),
    /// or another blend with one integer formula (`formula`, `pf_u8_blend_rgba_run`).
    enum Kind { case matrix, grayscale, premultiply, unpremultiply, sourceOver, blend }

    let kind: Kind
    let output: Output
    /// The affine map in byte units: `rows[k][j]` weighs source byte j (R, G, B, A; a gray8
    /// source has only j = 0), `bias[k]` is in bytes; one row for a gray8 output.
    let rows: [SIMD4<Double>]
    let bias: [Double]
    /// Pixels whose source alpha is 0 are written as zeros (straight alpha in and out: the float
    /// path's unpremultiply of a transparent pixel).
    let zeroesTransparent: Bool
    /// Fractional bits of the weights.
    let shift: Int
    /// The weights and biases for the kernels (bias with the rounding term).
    let weights: [Int16]
    let fixedBias: [Int32]
    /// For blends, the background source.
    var background: PixelBuffer?
    /// For `.blend`, its formula.
    var formula: ByteBlendFormula?
    /// The map applies to linear-light values: sRGB-encoded bytes in and out, through the
    /// tables of ByteColor+Linear.swift (`pf_u8_linear_matrix_rgba_run`); weights then apply
    /// to linear values scaled by 32640 and the bias is in those units.
    let linear: Bool

    /// The quantized form of `rows` and `bias`, or nil when no shift from 14 (15 for gray
    /// outputs) down to 8 holds the weights in 16 bits and the biases in 24 bits.
    ///
    /// With `linear`, the weights apply to linear values times 32640 (`ByteLinear.scale`) and
    /// the bias is scaled by 128 (32640 / 255); the shift also keeps every sum of the kernel
    /// below 2^30 in magnitude.
    init?(
        kind: Kind, output: Output, rows: [SIMD4<Double>], bias: [Double], zeroesTransparent: Bool, linear: Bool = false
    ) {
        self.kind = kind
        self.output = output
        self.rows = rows
        self.bias = bias
        self.zeroesTransparent = zeroesTransparent
        self.linear = linear
        let largest = rows.map { $0.max() > -$0.min() ? $0.max() : -$0.min() }.max() ?? 0
        let biasScale = linear ? Double(ByteLinear.scale) / 255 : 1
        let largestBias = (bias.map(abs).max() ?? 0) * biasScale
        // The largest |sum| of the linear kernel: every input at most 32640.
        let largestSum =
            rows.indices.map { k in
                (0..<4).reduce(0.0) { $0 + abs(rows[k][$1]) } * Double(ByteLinear.scale) + abs(bias[k]) * biasScale
            }.max() ?? 0
        var q = output == .gray ? 15 : 14
        while q >= 8,
            largest * Double(1 << q) > 32767 || largestBias * Double(1 << q) > Double(1 << (linear ? 29 : 24))
                || (linear && largestSum * Double(1 << q) > Double(1 << 30))
        {
            q -= 1
        }
        guard q >= 8, largest.isFinite, largestBias.isFinite else { return nil }
        shift = q
        let scale = Double(1 << q)
        weights = rows.flatMap { r in (0..<4).map { Int16((r[$0] * scale).rounded()) } }
        fixedBias = bias.map { Int32(($0 * biasScale * scale).rounded()) + Int32(1 << (q - 1)) }
    }

    /// The largest difference, in byte units, between what the kernel rounds and the exact
    /// map of any source pixel (for `linear`, after encoding: see `ByteLinear.errorBound`).
    var errorBound: Double {
        if let bound = linearPointErrorBound { return bound }
        if linear { return ByteLinear.errorBound(self) }
        let scale = Double(1 << shift)
        var worst = 0.0
        for k in rows.indices {
            var e = abs(Double(fixedBias[k] - Int32(1 << (shift - 1))) / scale - bias[k])
            for j in 0..<4 { e += 255 * abs(Double(weights[4 * k + j]) / scale - rows[k][j]) }
            worst = Swift.max(worst, e)
        }
        return worst
    }

    /// The output of a gray8 source for every byte, from the map in double precision:
    /// `rows[0]` weighs g in R, G and B and 255 in A (in linear light: the decoded g and 1,
    /// and the result encoded by the float path's encoder).
    var grayTable: [UInt8] {
        (0..<256).map { g in
            let r = rows[0]
            if linear {
                let v = (r.x + r.y + r.z) * Double(SRGB.decodeTable[g]) + r.w + bias[0] / 255
                return SRGB.encode8(Float(v))
            }
            let v = (r.x + r.y + r.z) * Double(g) + r.w * 255 + bias[0]
            return UInt8(Swift.min(Swift.max((v + 0.5).rounded(.down), 0), 255))
        }
    }

    var description: String {
        if let linearPoint = linearPointDescription { return linearPoint }
        switch kind {
        case .premultiply: return "premultiply, exact"
        case .unpremultiply: return "unpremultiply, exact but at ties of 255 c / a"
        case .sourceOver: return "source-over, exact"
        case .blend: return formula.map { "\($0)" } ?? "blend"
        case .matrix, .grayscale: break
        }
        let what = kind == .grayscale ? "grayscale (Rec. 709 luma)" : "color matrix"
        let into = output == .gray ? " into luma" : ""
        let space = linear ? " in linear light (32640-step linear tables)" : ""
        return
            "\(what)\(into)\(space), fixed-point weights (\(shift) fractional bits, error < \(format3(Float(errorBound))) unit)"
    }

    /// Rec. 709 luma weights, as the float path's gray8 store (`pf_store_gray8_row`).
    static let luma = SIMD4<Double>(Double(Float(0.2126)), Double(Float(0.7152)), Double(Float(0.0722)), 0)
}

extension BytePlan {
    /// The byte plan of a point color render, `.failure` with the reason when the render has
    /// that shape but must stay in float, or nil when it has another shape.
    ///
    /// The shapes: a color matrix over an `rgba8` or `gray8` source, with crops above and below,
    /// rendered into a buffer of the source's format or (from `rgba8`) into `gray8`; an
    /// `rgba8` source rendered into `gray8`; a straight `rgba8` source rendered into a
    /// premultiplied `rgba8` buffer (premultiply, exact: the float path's `c/255 * a/255`
    /// rounds to the same byte as `c * a / 255`, which is never within 1/510 of a tie); a
    /// premultiplied `rgba8` source into a straight `rgba8` buffer (unpremultiply: round(255 c / a),
    /// exact but where that quotient is a tie, where the float path may round either way); and
    /// a blend whose kernel has a `ByteBlendFormula` (source-over, -atop, -in, -out, multiply
    /// compositing, the multiply and screen modes: exact by the same argument; mix and
    /// dissolve: 14-bit weights, within 1 unit) of two premultiplied `rgba8` sources of one size
    /// into premultiplied `rgba8` (or of sources whose pixels are all opaque, scanned, into
    /// either alpha mode). Blends, premultiply and unpremultiply stay in float when
    /// sRGB decoding or encoding happens (they would act on decoded values). The conditions of
    /// the matrix forms, beyond `make`'s (options):
    /// - with color management on and sRGB-tagged buffers, both source and destination are
    ///   sRGB-encoded: the map then applies to decoded values through the tables of
    ///   ByteColor+Linear.swift (`linear`; a linear-tagged side alone stays in float);
    /// - the matrix keeps alpha (its alpha row is (0, 0, 0, 1), no alpha bias);
    /// - the premultiplying and unpremultiplying around it cancel out: straight alpha in and
    ///   out into `rgba8` (transparent pixels become zeros, as the float path's unpremultiply
    ///   makes them); or a premultiplied source into a premultiplied or gray8 buffer with a
    ///   matrix that does not read alpha (the float path then works on the premultiplied
    ///   values, `ColorMatrix.premultipliedForm`, bias times alpha); or every alpha byte the
    ///   render reads is 255 (scanned);
    /// - the render rect lies inside the source and the crops (no transparent margins);
    /// - the fixed-point error bound stays below half a unit (in linear light, below
    ///   `ByteLinear.errorLimit` after encoding).
    ///
    /// - Complexity: O(nodes) plus, when the alpha decides, a scan of the source pixels read.
    static func makeColor(
        root: Node, rect: IntRect, options: RenderContext.Options, buffer: PixelBuffer,
        streamed: [ObjectIdentifier: ByteSource] = [:]
    ) -> Result<BytePlan, Refusal>? {
        var valid: IntRect?
        // Crops (identity windows, transparent outside) above and below the matrix.
        func belowCrops(_ node: Node) -> Node {
            var n = node
            while n.op.kind.identityWindow(n) != nil, !n.op.kind.repeatsEdgesOutsideWindow {
                if !n.extent.isInfinite {
                    let e = IntRect(covering: n.extent)
                    valid = valid.map { $0.intersection(e) } ?? e
                }
                n = n.inputs[0]
            }
            return n
        }
        let n = belowCrops(root)
        var matrix = ColorMatrix.identity
        let source: ByteSource
        var background: PixelBuffer?
        var formula: ByteBlendFormula?
        let kind: ByteColor.Kind
        switch n.op {
        case let .blend(k) where k.byteFormula != nil:
            guard case let .source(f) = belowCrops(n.inputs[0]).op, case let .source(b) = belowCrops(n.inputs[1]).op,
                f.format == .rgba8, b.format == .rgba8, buffer.format == .rgba8
            else { return nil }
            let name = k.byteFormula!.name
            // In linear light the blend runs on decoded values (ByteColor+LinearBlend.swift),
            // which needs all three buffers sRGB-encoded.
            guard
                options.colorManagement == .none || [f, b, buffer].allSatisfy({ $0.colorEncoding != .sRGB })
                    || [f, b, buffer].allSatisfy({ $0.colorEncoding == .sRGB })
            else {
                return .failure(
                    Refusal("\(name) in linear light needs both sources and the destination sRGB-encoded (stays in float)"))
            }
            guard f.width == b.width, f.height == b.height, IntRect(x: 0, y: 0, width: f.width, height: f.height).contains(rect),
                valid.map({ $0.contains(rect) }) ?? true
            else { return .failure(Refusal("the render rect reaches outside one of the blended sources or their crops")) }
            // Straight sources whose pixels are all opaque hold premultiplied values too, and
            // every formula then gives alpha 255, or alpha 0 with zero colors (source-out), which
            // a straight destination stores unchanged.
            let fOpaque = f.alphaMode == .straight && isOpaque(f, rect)
            let bOpaque = b.alphaMode == .straight && isOpaque(b, rect)
            guard f.alphaMode == .premultiplied || fOpaque, b.alphaMode == .premultiplied || bOpaque,
                buffer.alphaMode == .premultiplied || ((fOpaque || isOpaque(f, rect)) && (bOpaque || isOpaque(b, rect)))
            else {
                return .failure(
                    Refusal("\(name) on bytes needs premultiplied sources and destination, or opaque sources"))
            }
            source = ByteSource(f)
            background = b
            formula = k.byteFormula
            kind = formula == .sourceOver ? .sourceOver : .blend
        case let .colorMatrix(m):
            guard let s = ByteSource.any(belowCrops(n.inputs[0]), streamed: streamed) else { return nil }
            matrix = m
            source = s
            kind = .matrix
        default:
            guard let s = ByteSource.any(n, streamed: streamed), s.format == .rgba8,
                buffer.format == .rgba8 || buffer.format == .gray8
            else { return nil }
            source = s
            if buffer.format == .gray8 {
                kind = .grayscale
            } else if s.alphaMode == .straight && buffer.alphaMode == .premultiplied {
                kind = .premultiply
            } else if s.alphaMode == .premultiplied && buffer.alphaMode == .straight {
                kind = .unpremultiply
            } else {
                return nil
            }
        }
        guard source.format == .rgba8 || source.format == .gray8,
            buffer.format == source.format || (source.format == .rgba8 && buffer.format == .gray8)
        else {
            return .failure(Refusal("a color matrix from \(source.format) into \(buffer.format) has no 8-bit form"))
        }
        var linear = false
        if options.colorManagement == .linear, source.colorEncoding == .sRGB || buffer.colorEncoding == .sRGB {
            switch kind {
            case .matrix, .grayscale:
                guard source.colorEncoding == .sRGB, buffer.colorEncoding == .sRGB else {
                    return .failure(
                        Refusal(
                            "in linear light the byte form needs sRGB decoding and encoding both (source \(source.colorEncoding), destination \(buffer.colorEncoding)): stays in float"
                        ))
                }
                linear = true
            default:
                // Blends, premultiply and unpremultiply on decoded values (ByteColor+LinearBlend.swift).
                guard source.colorEncoding == .sRGB, buffer.colorEncoding == .sRGB else {
                    return .failure(
                        Refusal(
                            "\(kind == .premultiply ? "premultiplying" : kind == .unpremultiply ? "unpremultiplying" : "a blend") in linear light needs sRGB decoding and encoding both (source \(source.colorEncoding), destination \(buffer.colorEncoding)): stays in float"
                        ))
                }
                linear = true
            }
        }
        guard matrix.preservesAlpha else { return .failure(Refusal("the color matrix changes alpha")) }
        let bounds = IntRect(x: 0, y: 0, width: source.width, height: source.height)
        guard bounds.contains(rect), valid.map({ $0.contains(rect) }) ?? true else {
            return .failure(Refusal("the render rect reaches outside the source or its crops"))
        }
        let output: ByteColor.Output = buffer.format == .gray8 ? .gray : .rgba
        // The map in byte units, from stored values; `premultiplied`: on premultiplied bytes.
        func form(premultiplied: Bool, zeroes: Bool) -> Result<BytePlan, Refusal> {
            let m = premultiplied ? matrix.premultipliedForm! : matrix
            let b = premultiplied ? SIMD4<Double>.zero : SIMD4<Double>(m.bias) * 255
            var rows = (0..<4).map { SIMD4<Double>(m.row($0)) }
            var bias = (0..<4).map { b[$0] }
            if output == .gray || source.format == .gray8 {
                rows = [(0..<4).reduce(SIMD4<Double>.zero) { $0 + rows[$1] * ByteColor.luma[$1] }]
                bias = [(0..<3).reduce(0.0) { $0 + bias[$1] * ByteColor.luma[$1] }]
            }
            guard
                var color = ByteColor(
                    kind: kind, output: output, rows: rows, bias: bias, zeroesTransparent: zeroes, linear: linear),
                color.errorBound < (linear ? ByteLinear.errorLimit : 0.5)
            else {
                return .failure(Refusal("the color matrix's coefficients are too large for 16-bit fixed-point weights"))
            }
            color.background = background
            color.formula = formula
            return .success(
                BytePlan(form: .color(color), name: n.op.label, source: source, valid: nil, xSteps: [], ySteps: []))
        }
        if source.format == .gray8 || [.premultiply, .unpremultiply, .sourceOver, .blend].contains(kind) {
            return form(premultiplied: false, zeroes: false)
        }
        let premultipliedReadsNoAlpha = matrix.premultipliedForm != nil
        switch (source.alphaMode, buffer.format == .gray8 ? AlphaMode.premultiplied : buffer.alphaMode) {
        case (.straight, .straight) where buffer.format == .rgba8:
            return form(premultiplied: false, zeroes: true)
        case (.premultiplied, .premultiplied) where premultipliedReadsNoAlpha:
            return form(premultiplied: true, zeroes: false)
        default:
            guard source.isKnownOpaque || (source.buffer.map { isOpaque($0, rect) } ?? false) else {
                return .failure(
                    Refusal(
                        "\(source.alphaMode) alpha into a \(buffer.format == .gray8 ? "gray8" : "\(buffer.alphaMode)") buffer with pixels that are not opaque: premultiplying would not cancel out"
                    ))
            }
            return form(premultiplied: false, zeroes: false)
        }
    }

    /// Whether every alpha byte of `rect` of the rgba8 `source` is 255.
    private static func isOpaque(_ source: PixelBuffer, _ rect: IntRect) -> Bool {
        source.withUnsafeBytes { raw in
            (rect.y..<rect.maxY).allSatisfy { y in
                let row = raw.baseAddress! + y * source.bytesPerRow + rect.x * 4
                return pf_rgba8_all_opaque(row.assumingMemoryBound(to: UInt8.self), rect.width) != 0
            }
        }
    }

    /// Renders `rect` with the point form `color`: full-width bands of rows on all threads, each
    /// row one kernel call from the source row into the destination row.
    ///
    /// - Complexity: per pixel, 4 (gray: 1) dot products of 4 bytes; no scratch.
    func runColor(_ color: ByteColor, rect: IntRect, into buffer: inout PixelBuffer, options: RenderContext.Options) {
        let control = RenderControl.current
        let band = Swift.max(1, options.tileHeight)
        let bands = (rect.height + band - 1) / band
        control?.setTotal(bands)
        let table = source.format == .gray8 ? color.grayTable : []
        let other = color.background.map(ByteSource.init) ?? source
        other.withRows { bg in
            source.withRows { src in
                let dstBytesPerRow = buffer.bytesPerRow
                let bpp = source.format.bytesPerPixel
                buffer.withUnsafeMutableBytes { raw in
                    let dst = SharedPixels(base: raw.baseAddress!, bytesPerRow: dstBytesPerRow)
                    color.weights.withUnsafeBufferPointer { w in
                        color.fixedBias.withUnsafeBufferPointer { b in
                            table.withUnsafeBufferPointer { t in
                                let fixed = ByteColorPointers(
                                    weights: w.baseAddress!, bias: b.baseAddress!, table: table.isEmpty ? nil : t.baseAddress,
                                    tables: ByteLinear.tables)
                                let coefficients = color.formula?.coefficients
                                Scheduler.run(count: bands, threads: options.threadCount) { i, _ in
                                    for j in i * band..<Swift.min(rect.height, (i + 1) * band) {
                                        let s = src.pixels(rect.x, rect.y + j, bpp: bpp)
                                        let d = (dst.base + j * dst.bytesPerRow).assumingMemoryBound(to: UInt8.self)
                                        let b = bg.pixels(rect.x, rect.y + j, bpp: bpp)
                                        if BytePlan.runLinearPointRow(color, s, b, d, rect.width) {
                                        } else if color.kind == .sourceOver {
                                            pf_u8_source_over_rgba_run(s, b, d, rect.width)
                                        } else if let coefficients {
                                            pf_u8_blend_rgba_run(s, b, d, rect.width, coefficients)
                                        } else if color.kind == .premultiply {
                                            pf_u8_premultiply_rgba_run(s, d, rect.width)
                                        } else if color.kind == .unpremultiply {
                                            pf_u8_unpremultiply_rgba_run(s, d, rect.width, fixed.tables.multipliers)
                                        } else if let table = fixed.table {
                                            pf_u8_table_run(s, d, rect.width, table)
                                        } else if color.linear, color.output == .gray {
                                            pf_u8_linear_matrix_gray_run(
                                                s, d, rect.width, fixed.tables.decode, fixed.tables.encode, fixed.weights,
                                                fixed.bias[0], Int32(color.shift))
                                        } else if color.linear {
                                            pf_u8_linear_matrix_rgba_run(
                                                s, d, rect.width, fixed.tables.decode, fixed.tables.encode, fixed.weights,
                                                fixed.bias, Int32(color.shift), color.zeroesTransparent ? 1 : 0)
                                        } else if color.output == .gray {
                                            pf_u8_matrix_gray_run(
                                                s, d, rect.width, fixed.weights, fixed.bias[0], Int32(color.shift))
                                        } else {
                                            pf_u8_matrix_rgba_run(
                                                s, d, rect.width, fixed.weights, fixed.bias, Int32(color.shift),
                                                color.zeroesTransparent ? 1 : 0)
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
}

/// The fixed-point weights of a byte color form, read by every band at once.
///
/// `@unchecked Sendable` because it carries raw pointers: the arrays they point into are only
/// read during the render and outlive the `Scheduler.run` call (held by the
/// `withUnsafeBufferPointer` calls around it).
struct ByteColorPointers: @unchecked Sendable {
    let weights: UnsafePointer<Int16>
    let bias: UnsafePointer<Int32>
    let table: UnsafePointer<UInt8>?
    /// The process-wide tables (never freed).
    let tables: ByteLinear.Tables
}
