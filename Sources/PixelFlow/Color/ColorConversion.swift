import CCodecShims

/// Conversions of pixels between color spaces through lcms2, with the transforms cached.
///
/// Decoding uses it to take pixels out of a file's color space: into sRGB at the file's bit
/// depth for a `PixelBuffer` (8 bits in, 8 bits out: lcms2's 8-bit path, which rounds each
/// channel to the nearest of 256 levels through 16-bit internal precision), or into linear
/// sRGB floats for an `Image` (the working reference: Float32, unbounded, so a Display P3
/// red keeps its out-of-sRGB-gamut value 1.2249, -0.0421, -0.0196). The rendering intent is
/// perceptual, ICC's default and Pillow's (matrix/TRC profiles give the same result for the
/// perceptual and relative colorimetric intents).
enum _ColorConversion {
    /// The ICC rendering intent of every conversion: 0, perceptual.
    static let intent: Int32 = 0

    /// The color space the stored values of `decoded` are in, when it is not sRGB and
    /// conversion applies to them: the embedded ICC profile when lcms2 parses it and its
    /// model matches the pixels (gray for `gray8`, RGB or CMYK for the others); else PNG's
    /// cICP (BT.709, Display P3 or BT.2020 primaries with sRGB, BT.709 or linear transfer),
    /// else gAMA with cHRM (or sRGB primaries). `nil` means sRGB. A profile lcms2 cannot
    /// parse is ignored, as browsers and libvips do.
    static func sourceSpace(of decoded: _DecodedImage) -> ColorSpace? {
        let gray = decoded.buffer.format == .gray8
        if let icc = decoded.metadata.iccProfile, let space = try? ColorSpace(iccProfile: icc) {
            let matches = decoded.isCMYK ? space.model == .cmyk : (gray ? space.model == .gray : space.model == .rgb)
            if matches { return space.isSRGB ? nil : space }
        }
        if decoded.isCMYK { return nil }
        if let cicp = decoded.metadata.cicp, let space = space(for: cicp, gray: gray) {
            return space.isSRGB ? nil : space
        }
        if decoded.metadata.declaresSRGB { return nil }
        if let g = decoded.metadata.gamma, g > 0, g.isFinite {
            let transfer = ColorSpace.TransferFunction.gamma(1 / g)
            if abs(1 / g - 2.2) < 0.05 && decoded.metadata.chromaticities == nil {
                // gAMA 45455 alone is how many writers say "sRGB": keep it sRGB, as browsers do.
                return nil
            }
            if gray { return try? ColorSpace(grayName: "Gray gamma \(1 / g)", transferFunction: transfer) }
            let c = decoded.metadata.chromaticities ?? ColorSpace.srgbChromaticities
            return try? ColorSpace(name: "PNG gAMA \(g)", chromaticities: c, transferFunction: transfer)
        }
        return nil
    }

    /// The space H.273 code points name, for the primaries and transfers PixelFlow knows;
    /// `nil` for others (PQ and HLG are left as stored).
    static func space(for cicp: CICP, gray: Bool) -> ColorSpace? {
        let transfer: ColorSpace.TransferFunction
        switch cicp.transferCharacteristics {
        case 13: transfer = .sRGB
        case 1, 6, 14, 15: transfer = .bt709
        case 8: transfer = .linear
        case 4: transfer = .gamma(2.2)
        case 5: transfer = .gamma(2.8)
        default: return nil
        }
        if gray { return try? ColorSpace(grayName: "H.273 gray", transferFunction: transfer) }
        let primaries: Chromaticities
        switch cicp.colorPrimaries {
        case 1, 2: primaries = ColorSpace.srgbChromaticities
        case 12: primaries = ColorSpace.displayP3Chromaticities
        case 9: primaries = ColorSpace.rec2020Chromaticities
        default: return nil
        }
        return try? ColorSpace(
            name: "H.273 \(cicp.colorPrimaries)/\(cicp.transferCharacteristics)",
            chromaticities: primaries, transferFunction: transfer)
    }

    /// `decoded` as a `PixelBuffer` whose values are sRGB at the stored depth: CMYK
    /// converted to RGB (through its profile when `applyProfile` and there is one, else
    /// `R = (1 - C)(1 - K)`), other profiles converted when `applyProfile`.
    static func toSRGB(_ decoded: _DecodedImage, name: String, applyProfile: Bool) throws -> PixelBuffer {
        let source = applyProfile ? sourceSpace(of: decoded) : nil
        guard let source else {
            return decoded.isCMYK ? naiveCMYKToRGB(decoded.buffer) : decoded.buffer
        }
        let b = decoded.buffer
        let (inLayout, outLayout, target): (Int, Int, ColorSpace)
        switch (b.format, decoded.isCMYK) {
        case (.rgba16, true): (inLayout, outLayout, target) = (PF_LCMS_CMYK16, PF_LCMS_RGBA16, .sRGB)
        case (_, true): (inLayout, outLayout, target) = (PF_LCMS_CMYK8, PF_LCMS_RGBA8, .sRGB)
        case (.gray8, _): (inLayout, outLayout, target) = (PF_LCMS_GRAY8, PF_LCMS_GRAY8, .sRGBGray)
        case (.rgba16, _): (inLayout, outLayout, target) = (PF_LCMS_RGBA16, PF_LCMS_RGBA16, .sRGB)
        default: (inLayout, outLayout, target) = (PF_LCMS_RGBA8, PF_LCMS_RGBA8, .sRGB)
        }
        let transform = try cachedTransform(from: source, inLayout, to: target, outLayout, name: name)
        var out = try PixelBuffer(
            _width: b.width, height: b.height, format: b.format, colorEncoding: .sRGB,
            alphaMode: .straight, zeroed: false)
        if decoded.isCMYK { out.fillOpaqueAlpha() }
        transform.run(from: b, into: &out)
        return out
    }

    /// `decoded` as linear sRGB floats (`rgbaF32`, linear, premultiplied: what renders read
    /// in place), converted from its color space; `nil` when it is sRGB (or `applyProfile`
    /// is false) and plain CMYK, which take the usual 8-bit path.
    static func toLinearWorking(_ decoded: _DecodedImage, name: String, applyProfile: Bool) throws -> PixelBuffer? {
        guard let conversion = try linearWorkingConversion(for: decoded, name: name, applyProfile: applyProfile)
        else { return nil }
        let b = decoded.buffer
        var out = try PixelBuffer(
            _width: b.width, height: b.height, format: .rgbaF32, colorEncoding: .linear,
            alphaMode: .straight, zeroed: false)
        conversion.run(from: b, into: &out)
        return out
    }

    /// The conversion `toLinearWorking` runs on the stored pixels of `decoded` (the file's
    /// space to linear sRGB floats), or `nil` when `toLinearWorking` returns `nil`: PixelFlow's
    /// own tables and matrix for a matrix/TRC RGB or gray profile in 8-bit (or 16-bit RGBA)
    /// values, lcms2 for the others. A streamed source runs the same conversion row by row
    /// (`_RowConversion`), so its rows are the same floats.
    static func linearWorkingConversion(for decoded: _DecodedImage, name: String, applyProfile: Bool) throws
        -> _LinearConversion?
    {
        guard applyProfile, let source = sourceSpace(of: decoded) else { return nil }
        let inLayout: Int
        switch (decoded.buffer.format, decoded.isCMYK) {
        case (.rgba16, true): inLayout = PF_LCMS_CMYK16
        case (_, true): inLayout = PF_LCMS_CMYK8
        case (.gray8, _): inLayout = PF_LCMS_GRAY8
        case (.rgba16, _): inLayout = PF_LCMS_RGBA16
        default: inLayout = PF_LCMS_RGBA8
        }
        if let fast = cachedMatrixShaper(from: source, inLayout, to: .linearSRGB) { return .matrixShaper(fast) }
        let transform = try cachedTransform(from: source, inLayout, to: .linearSRGB, PF_LCMS_RGBA_FLOAT, name: name)
        return .lcms(transform, inLayout: inLayout)
    }

    /// Whether lcms2 copies an alpha channel from pixels in `layout` (`PF_LCMS_RGBA8` and
    /// `PF_LCMS_RGBA16`); for the others the destination's alpha is set to opaque first.
    static func layoutHasAlpha(_ layout: Int) -> Bool { layout == PF_LCMS_RGBA8 || layout == PF_LCMS_RGBA16 }

    // MARK: Transforms

    /// An lcms2 transform. `@unchecked Sendable`: created with `cmsFLAGS_NOCACHE`, so
    /// lcms2 keeps no mutable state in it and `run` may be called from several threads at
    /// once; it is destroyed only when the last reference goes.
    final class Transform: @unchecked Sendable {
        let pointer: OpaquePointer
        init(_ pointer: OpaquePointer) { self.pointer = pointer }
        deinit { pf_lcms_transform_destroy(pointer) }

        /// Converts every row of `source` into `destination` (same size).
        func run(from source: PixelBuffer, into destination: inout PixelBuffer) {
            let w = UInt32(source.width), h = UInt32(source.height)
            let sStride = source.bytesPerRow, dStride = destination.bytesPerRow
            source.withUnsafeBytes { s in
                destination.withUnsafeMutableBytes { d in
                    pf_lcms_transform_rows(pointer, s.baseAddress, sStride, d.baseAddress, dStride, w, h)
                }
            }
        }

        /// Converts every row of `buffer` in place (the layouts must have the same size).
        func runInPlace(_ buffer: inout PixelBuffer) {
            let w = UInt32(buffer.width), h = UInt32(buffer.height), stride = buffer.bytesPerRow
            buffer.withUnsafeMutableBytes { b in
                pf_lcms_transform_rows(pointer, b.baseAddress, stride, b.baseAddress, stride, w, h)
            }
        }

        /// Converts `count` pixels from `source` into `destination`.
        func run(
            _ source: UnsafeRawPointer, _ destination: UnsafeMutableRawPointer, count: Int, rows: Int = 1,
            sourceStride: Int = 0, destinationStride: Int = 0
        ) {
            pf_lcms_transform_rows(pointer, source, sourceStride, destination, destinationStride, UInt32(count), UInt32(rows))
        }
    }

    private struct Key: Hashable {
        var source: ColorSpace, inLayout: Int, destination: ColorSpace, outLayout: Int
    }

    /// The most transforms kept; beyond it the cache is emptied (profiles in a batch repeat).
    private static let capacity = 32
    private static let cache = Locked<[Key: Transform]>([:])

    /// The transform between two spaces and layouts, made once and kept.
    static func cachedTransform(
        from source: ColorSpace, _ inLayout: Int, to destination: ColorSpace, _ outLayout: Int,
        name: String
    ) throws -> Transform {
        let key = Key(source: source, inLayout: inLayout, destination: destination, outLayout: outLayout)
        if let hit = cache.withLock({ $0[key] }) { return hit }
        var message = [CChar](repeating: 0, count: Int(PF_MESSAGE_CAPACITY))
        let made = source.iccProfile.withUnsafeBufferPointer { s in
            destination.iccProfile.withUnsafeBufferPointer { d in
                pf_lcms_transform_create(
                    s.baseAddress, s.count, Int32(inLayout), d.baseAddress, d.count,
                    Int32(outLayout), intent, &message)
            }
        }
        guard let made else {
            throw PixelFlowError.decodingFailed(
                file: name,
                reason: "color profile '\(source.name)' to '\(destination.name)': " + _Codec.message(message))
        }
        let transform = Transform(made)
        cache.withLock {
            if $0.count >= capacity { $0.removeAll() }
            $0[key] = transform
        }
        return transform
    }

    private static let matrixShaperCache = Locked<[Key: _MatrixShaperConversion?]>([:])

    /// PixelFlow's own conversion between two spaces for stored values in `inLayout`
    /// (`_MatrixShaperConversion`), made once and kept, or `nil` (also kept) when lcms2 must
    /// convert them.
    static func cachedMatrixShaper(from source: ColorSpace, _ inLayout: Int, to destination: ColorSpace)
        -> _MatrixShaperConversion?
    {
        let key = Key(source: source, inLayout: inLayout, destination: destination, outLayout: PF_LCMS_RGBA_FLOAT)
        if let hit = matrixShaperCache.withLock({ $0[key] }) { return hit }
        let made = _MatrixShaperConversion(from: source, layout: inLayout, to: destination)
        matrixShaperCache.withLock {
            if $0.count >= capacity { $0.removeAll() }
            $0[key] = .some(made)
        }
        return made
    }

    /// R = (1 - C)(1 - K) and likewise for G and B, on `rgba8` or `rgba16` holding CMYK;
    /// alpha becomes opaque.
    static func naiveCMYKToRGB(_ cmyk: PixelBuffer) -> PixelBuffer {
        var out = cmyk
        let w = cmyk.width, sixteen = cmyk.format == .rgba16
        out.withUnsafeMutableRows { _, row in naiveCMYKToRGBRow(row, count: w, sixteenBits: sixteen) }
        return out
    }

    /// `naiveCMYKToRGB` on one row of `count` pixels in place (`rgba8`, or `rgba16` when
    /// `sixteenBits`), for the full decode and for streamed rows alike.
    static func naiveCMYKToRGBRow(_ row: UnsafeMutableRawPointer, count w: Int, sixteenBits: Bool) {
        if sixteenBits {
            let p = row.assumingMemoryBound(to: UInt16.self)
            for x in 0..<w {
                let k = 65535 - UInt32(p[4 * x + 3])
                for c in 0..<3 { p[4 * x + c] = UInt16(((65535 - UInt32(p[4 * x + c])) * k + 32767) / 65535) }
                p[4 * x + 3] = 65535
            }
        } else {
            let p = row.assumingMemoryBound(to: UInt8.self)
            for x in 0..<w {
                let k = 255 - UInt32(p[4 * x + 3])
                for c in 0..<3 { p[4 * x + c] = UInt8(((255 - UInt32(p[4 * x + c])) * k + 127) / 255) }
                p[4 * x + 3] = 255
            }
        }
    }
}

extension PixelBuffer {
    /// Sets every alpha to its maximum (1 for floats); gray formats are left alone.
    mutating func fillOpaqueAlpha() {
        let w = width
        switch format {
        case .rgba8, .bgra8, .argb8:
            let a = format == .argb8 ? 0 : 3
            withUnsafeMutableRows { _, row in
                let p = row.assumingMemoryBound(to: UInt8.self)
                for x in 0..<w { p[4 * x + a] = 255 }
            }
        case .rgba16:
            withUnsafeMutableRows { _, row in
                let p = row.assumingMemoryBound(to: UInt16.self)
                for x in 0..<w { p[4 * x + 3] = 65535 }
            }
        case .rgbaF32:
            withUnsafeMutableRows { _, row in
                let p = row.assumingMemoryBound(to: Float.self)
                for x in 0..<w { p[4 * x + 3] = 1 }
            }
        case .gray8, .grayF32:
            break
        }
    }

    /// Multiplies the color of an `rgbaF32` buffer with straight alpha by its alpha and marks
    /// it premultiplied.
    mutating func premultiplyFloatInPlace() {
        guard format == .rgbaF32, alphaMode == .straight else { return }
        let w = width
        withUnsafeMutableRows { _, row in
            PixelBuffer.premultiplyFloatRow(row.assumingMemoryBound(to: SIMD4<Float>.self), count: w)
        }
        alphaMode = .premultiplied
    }

    /// `premultiplyFloatInPlace` on one row of `count` pixels, for streamed rows.
    static func premultiplyFloatRow(_ p: UnsafeMutablePointer<SIMD4<Float>>, count: Int) {
        for x in 0..<count {
            let v = p[x]
            p[x] = SIMD4(v.x * v.w, v.y * v.w, v.z * v.w, v.w)
        }
    }
}

/// How a file's stored pixels become linear sRGB floats, premultiplied: by PixelFlow's own
/// row code for matrix/TRC profiles (`_MatrixShaperConversion`), else by an lcms2 transform.
/// The full decode and streamed rows run the same arithmetic, so they give the same floats.
enum _LinearConversion: Sendable {
    /// Tone curve tables and a 3x3 matrix.
    case matrixShaper(_MatrixShaperConversion)
    /// lcms2's float pipeline, from stored pixels in `inLayout` (an lcms2 layout).
    case lcms(_ColorConversion.Transform, inLayout: Int)

    /// Converts every row of `source` into `destination` (`rgbaF32`, same size) and marks it
    /// premultiplied.
    func run(from source: PixelBuffer, into destination: inout PixelBuffer) {
        switch self {
        case let .matrixShaper(fast):
            fast.run(from: source, into: &destination)
        case let .lcms(transform, inLayout):
            if !_ColorConversion.layoutHasAlpha(inLayout) { destination.fillOpaqueAlpha() }
            transform.run(from: source, into: &destination)
            destination.premultiplyFloatInPlace()
        }
    }

    /// Converts `count` stored pixels at `source` into the floats at `row`, as `run` converts
    /// each row: for lcms2, alpha 1 first when the layout has none, the transform, then
    /// premultiplied.
    func convertRow(_ source: UnsafeRawPointer, into row: UnsafeMutablePointer<SIMD4<Float>>, count: Int) {
        switch self {
        case let .matrixShaper(fast):
            fast.convertRow(source, into: row, count: count)
        case let .lcms(transform, inLayout):
            if !_ColorConversion.layoutHasAlpha(inLayout) { for x in 0..<count { row[x].w = 1 } }
            transform.run(source, UnsafeMutableRawPointer(row), count: count)
            PixelBuffer.premultiplyFloatRow(row, count: count)
        }
    }

    /// What converts, for `explain()`: "tables and matrix" or "lcms2".
    var engine: String {
        switch self {
        case .matrixShaper: return "matrix/TRC tables"
        case .lcms: return "lcms2"
        }
    }
}
