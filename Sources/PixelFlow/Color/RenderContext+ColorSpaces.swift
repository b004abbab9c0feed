#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif
import CCodecShims

extension RenderContext {
    /// The graph a render runs, with the context's color spaces put in as nodes:
    ///
    /// - working space other than linear sRGB: every leaf (source, streamed source,
    ///   generator) gets a color matrix from linear sRGB into the working space, and the
    ///   root one back (PixelFlow's images hold linear sRGB values between renders);
    /// - output space other than sRGB, when it was made from chromaticities: a matrix into its
    ///   primaries and, for an encoded destination whose transfer function is not sRGB's, a
    ///   color kernel that re-encodes (the store then applies the sRGB curve, so together they
    ///   apply the output curve).
    ///
    /// Output spaces known only by an ICC profile are applied after the render, by lcms2
    /// (`outputProfileTransform`). With `.none` color management the graph is unchanged.
    ///
    /// - Complexity: O(nodes); the matrices fold into neighbouring color matrices.
    func _colorManagedRoot(_ root: Node, encodedDestination: Bool) -> Node {
        guard options.colorManagement == .linear else { return root }
        var r = root
        let working = options.workingColorSpace
        if working != .linearSRGB, let into = ColorSpace._linearMatrix(from: .linearSRGB, to: working),
            let back = ColorSpace._linearMatrix(from: working, to: .linearSRGB)
        {
            let m = RenderContext._colorMatrix(into)
            r = GraphWalk.rewrite(r) { n in
                switch n.op {
                case .source, .streamedSource, .generator:
                    return Node(.colorMatrix(m), inputs: [n], extent: n.extent)
                default:
                    return n
                }
            }
            r = Node(.colorMatrix(RenderContext._colorMatrix(back)), inputs: [r], extent: r.extent)
        }
        let output = options.outputColorSpace
        if !output.isSRGB, output.model == .rgb, let transfer = output.transferFunction,
            let m = ColorSpace._linearMatrix(from: .linearSRGB, to: output)
        {
            r = Node(.colorMatrix(RenderContext._colorMatrix(m)), inputs: [r], extent: r.extent)
            if encodedDestination && transfer != .sRGB {
                r = Node(.color(RenderContext._reencodeKernel(transfer)), inputs: [r], extent: r.extent)
            }
        }
        return r
    }

    /// True when the output space must be applied by lcms2 after the render: an RGB space
    /// known only by its ICC profile, with color management on.
    var _outputNeedsProfileTransform: Bool {
        let o = options.outputColorSpace
        return options.colorManagement == .linear && !o.isSRGB && o.model == .rgb && o.transferFunction == nil
    }

    static func _colorMatrix(_ m: [Double]) -> ColorMatrix {
        ColorMatrix(
            rows: SIMD4(Float(m[0]), Float(m[1]), Float(m[2]), 0),
            SIMD4(Float(m[3]), Float(m[4]), Float(m[5]), 0),
            SIMD4(Float(m[6]), Float(m[7]), Float(m[8]), 0), SIMD4(0, 0, 0, 1))
    }

    /// x -> sRGB-decode(encode(x)) per color channel, odd-symmetric for negative values, so
    /// that the store's sRGB encoding leaves encode(x).
    static func _reencodeKernel(_ transfer: ColorSpace.TransferFunction) -> ColorKernel {
        let encode: @Sendable (Float) -> Float
        switch transfer {
        case .linear, .sRGB: encode = { $0 }
        case .gamma(let g):
            let e = Float(1 / g)
            encode = { powf($0, e) }
        case .bt709:
            encode = { $0 < 0.018 ? 4.5 * $0 : 1.099 * powf($0, 0.45) - 0.099 }
        }
        let isLinear = transfer == .linear
        @Sendable func channel(_ v: Float) -> Float {
            let a = abs(v)
            let encoded = isLinear ? a : encode(a)
            let decoded = encoded <= 0.04045 ? encoded / 12.92 : powf((encoded + 0.055) / 1.055, 2.4)
            return v < 0 ? -decoded : decoded
        }
        return ColorKernel(
            name: "output transfer \(transfer)",
            apply: { pixels, count in
                for i in 0..<count {
                    let p = pixels[i]
                    pixels[i] = SIMD4(channel(p.x), channel(p.y), channel(p.z), p.w)
                }
            })
    }

    /// Renders `rect` of `image` into `buffer` (an encoded 4 x 8-bit or 16-bit RGBA destination) in
    /// an output space known only by its ICC profile: the render gives linear sRGB floats
    /// with straight alpha, which lcms2 converts into the profile's encoded values.
    ///
    /// - Complexity: a float buffer of the rect (16 bytes a pixel) besides `buffer`.
    func _renderThroughOutputProfile(
        _ image: Image, rect: IntRect, into buffer: inout PixelBuffer,
        control: RenderControl?
    ) throws {
        var linear = try PixelBuffer(
            _width: rect.width, height: rect.height, format: .rgbaF32,
            colorEncoding: .linear, alphaMode: .straight, zeroed: false)
        var plain = self
        plain.options.outputColorSpace = .sRGB
        try plain.render(image, rect: rect, into: &linear, control: control)
        guard buffer.format.isPacked32 || buffer.format == .rgba16 else {
            throw PixelFlowError.invalidParameter(
                filter: "RenderContext", key: "outputColorSpace",
                reason:
                    "'\(options.outputColorSpace.name)' is known only by its ICC profile: render it into rgba8, bgra8, argb8 or rgba16"
            )
        }
        // Float to float, in place: lcms2 keeps matrix/TRC transforms unbounded only between
        // float layouts (to 8 bits it clips its input to sRGB's gamut first).
        let transform = try _ColorConversion.cachedTransform(
            from: .linearSRGB, PF_LCMS_RGBA_FLOAT,
            to: options.outputColorSpace, PF_LCMS_RGBA_FLOAT, name: "render")
        transform.runInPlace(&linear)
        let w = rect.width, is16 = buffer.format == .rgba16
        let layout = buffer.format.packedLayout ?? .rgba8
        let scale: Float = is16 ? 65535 : 255
        let stride = linear.bytesPerRow, outStride = buffer.bytesPerRow
        linear.withUnsafeBytes { src in
            buffer.withUnsafeMutableBytes { dst in
                for y in 0..<rect.height {
                    let s = (src.baseAddress! + y * stride).assumingMemoryBound(to: SIMD4<Float>.self)
                    let row = dst.baseAddress! + y * outStride
                    for x in 0..<w {
                        var v = s[x] * scale
                        v.replace(with: 0, where: .!(v .> 0))
                        v.replace(with: SIMD4(repeating: scale), where: v .> scale)
                        v = v.rounded(.toNearestOrAwayFromZero)
                        if is16 {
                            row.assumingMemoryBound(to: SIMD4<UInt16>.self)[x] = SIMD4<UInt16>(v)
                        } else {
                            // The bytes in the format's order (R, G, B, A for rgba8).
                            row.storeBytes(of: layout.pack(SIMD4<UInt8>(v)).littleEndian, toByteOffset: 4 * x, as: UInt32.self)
                        }
                    }
                }
            }
        }
    }
}
