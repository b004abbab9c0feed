extension PixelBuffer {
    /// A copy of this buffer in another format, color encoding and alpha mode.
    ///
    /// Integer values map to 0...1 (`v / 255`, `v / 65535`); float values outside 0...1 clamp
    /// when stored as integers, rounding half up. Changing `colorEncoding` converts between
    /// sRGB and linear light; 8-bit sRGB decodes through a 256-entry table and encodes back
    /// exactly. Changing `alphaMode` premultiplies or unpremultiplies. Gray formats store
    /// the Rec. 709 luma.
    ///
    /// - Complexity: O(width x height), one pass, a row of scratch floats.
    public func converted(
        to format: PixelFormat, colorEncoding: ColorEncoding? = nil,
        alphaMode: AlphaMode? = nil
    ) -> PixelBuffer {
        // Creating a buffer of the same size cannot fail.
        var out = try! PixelBuffer(
            _width: width, height: height, format: format,
            colorEncoding: colorEncoding ?? (format.isFloat == self.format.isFloat ? self.colorEncoding : nil),
            alphaMode: alphaMode ?? (format.isFloat == self.format.isFloat ? self.alphaMode : nil),
            zeroed: false)
        let changeEncoding = out.colorEncoding != self.colorEncoding
        let decode = changeEncoding && self.colorEncoding == .sRGB
        let encode = changeEncoding && out.colorEncoding == .sRGB
        let inPremul = self.alphaMode == .premultiplied && self.format.hasAlpha
        let outPremul = out.alphaMode == .premultiplied && format.hasAlpha
        // Encoding changes act on straight colors.
        let unpremulFirst = inPremul && (changeEncoding || !outPremul)
        let premulAfter = outPremul && (changeEncoding || !inPremul)
        // The exact 8-bit tables are used whenever the encoding change happens at load or store.
        let decodeAtLoad = decode && !unpremulFirst
        let encodeAtStore = encode && !premulAfter
        let w = width
        let tmp = UnsafeMutablePointer<SIMD4<Float>>.allocate(capacity: w * 2)
        defer { tmp.deallocate() }
        let srcBase = _storage.bytes, srcStride = bytesPerRow, srcFormat = self.format
        let dstStride = out.bytesPerRow
        out.withUnsafeMutableBytes { dstBytes in
            for y in 0..<height {
                loadRowRGBA(
                    srcBase + y * srcStride, format: srcFormat, count: w, into: tmp,
                    decodeSRGB: decodeAtLoad)
                if unpremulFirst { unpremultiplyRow(tmp, count: w) }
                if decode && !decodeAtLoad { _decodeSRGBInPlace(tmp, w) }
                if encode && !encodeAtStore { _encodeSRGBInPlace(tmp, w) }
                if premulAfter { premultiplyRow(tmp, count: w) }
                storeRowRGBA(
                    tmp, count: w, format: format, into: dstBytes.baseAddress! + y * dstStride,
                    encodeSRGB: encodeAtStore, scratch: tmp + w)
            }
        }
        return out
    }

    /// This buffer with its color channels multiplied by alpha.
    public func premultiplied() -> PixelBuffer {
        alphaMode == .premultiplied ? self : converted(to: format, alphaMode: .premultiplied)
    }

    /// This buffer with its color channels divided by alpha (alpha-0 pixels become 0).
    public func unpremultiplied() -> PixelBuffer {
        alphaMode == .straight ? self : converted(to: format, alphaMode: .straight)
    }
}
