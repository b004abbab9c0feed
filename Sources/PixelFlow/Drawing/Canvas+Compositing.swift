// How a canvas turns polygons into pixels: rasterize, then composite each run of covered
// pixels in linear, premultiplied float and store it back in the buffer's own format.

extension Canvas {
    /// The flattening tolerance in drawing units, so that it is 0.01 pixel after `transform`.
    var tolerance: Double {
        let t = transform
        let s = Swift.max((t.a * t.a + t.b * t.b).squareRoot(), (t.c * t.c + t.d * t.d).squareRoot())
        return s.isFinite && s > 1e-9 ? _Flatten.tolerance / s : _Flatten.tolerance
    }

    /// `c` mapped to buffer coordinates.
    func mapped(_ c: [Point]) -> [Point] {
        transform.isIdentity ? c : c.map { transform.apply(to: $0) }
    }

    func _valid(_ r: Rect, allowEmpty: Bool = false) -> Bool {
        guard r.x.isFinite, r.y.isFinite, r.width.isFinite, r.height.isFinite else { return false }
        return allowEmpty ? (r.width >= 0 && r.height >= 0) : (r.width > 0 && r.height > 0)
    }

    /// True when loads decode and stores encode sRGB themselves (straight sRGB buffers, using
    /// the exact 8-bit tables).
    var _storeEncodes: Bool {
        buffer.colorEncoding == .sRGB && (buffer.alphaMode == .straight || !buffer.format.hasAlpha)
    }

    var _premultipliedSRGB: Bool {
        buffer.colorEncoding == .sRGB && buffer.alphaMode == .premultiplied && buffer.format.hasAlpha
    }

    /// Loaded values (already decoded when `_storeEncodes`) to linear premultiplied.
    func _toWorking(_ p: UnsafeMutablePointer<SIMD4<Float>>, _ n: Int) {
        if _premultipliedSRGB {
            unpremultiplyRow(p, count: n)
            _decodeSRGBInPlace(p, n)
            premultiplyRow(p, count: n)
        } else if buffer.alphaMode == .straight {
            premultiplyRow(p, count: n)
        }
    }

    /// Linear premultiplied values to what `storeRowRGBA` expects for this buffer.
    func _fromWorking(_ p: UnsafeMutablePointer<SIMD4<Float>>, _ n: Int) {
        if _premultipliedSRGB {
            unpremultiplyRow(p, count: n)
            _encodeSRGBInPlace(p, n)
            premultiplyRow(p, count: n)
        } else if buffer.alphaMode == .straight {
            unpremultiplyRow(p, count: n)
        }
    }

    /// Rasterizes `contours` (buffer coordinates) and composites `color` with the coverage
    /// of each pixel, the global alpha and the blend mode.
    mutating func _fill(_ contours: [[Point]], rule: FillRule, color: Color) {
        guard color.isFinite, !contours.isEmpty, !alpha.isNaN else { return }
        let c = color.working(linear: true)
        if c == .zero && (blendMode == .normal || alpha <= 0) { return }
        guard let raster = _ScanlineRasterizer(bounding: contours, clipWidth: buffer.width, clipHeight: buffer.height) else {
            return
        }
        let fmt = buffer.format, bpp = fmt.bytesPerPixel, stride = buffer.bytesPerRow
        let codes = _storeEncodes
        let tmp = UnsafeMutablePointer<SIMD4<Float>>.allocate(capacity: 4 * raster.width)
        defer { tmp.deallocate() }
        let me = self
        let width = raster.width
        buffer.withUnsafeMutableBytes { bytes in
            let base = bytes.baseAddress!
            func run(_ y: Int, _ x0: Int, _ cov: UnsafeBufferPointer<Double>) {
                var i = 0
                let n = cov.count
                while i < n {
                    if cov[i] == 0 { i += 1; continue }
                    var j = i
                    while j < n && cov[j] != 0 { j += 1 }
                    let count = j - i
                    let p = base + y * stride + (x0 + i) * bpp
                    loadRowRGBA(p, format: fmt, count: count, into: tmp, decodeSRGB: codes)
                    me._toWorking(tmp, count)
                    let start = i
                    if me.blendMode == .normal && me.alpha == 1 {
                        for k in 0..<count {
                            let s = c * Float(cov[start + k])
                            tmp[k] = s + tmp[k] * (1 - s.w)
                        }
                    } else {
                        let src = tmp + width
                        src.update(repeating: c, count: count)
                        me._composite(
                            src, coverage: { Float(cov[start + $0]) }, onto: tmp, count: count, scratch: tmp + 2 * width)
                    }
                    me._fromWorking(tmp, count)
                    storeRowRGBA(tmp, count: count, format: fmt, into: p, encodeSRGB: codes, scratch: tmp + 2 * width)
                    i = j
                }
            }
            raster.forEachRow(rule: rule) { y, x0, cov in
                if me._clip == nil {
                    run(y, x0, cov)
                } else {
                    me._clipped(y: y, x0: x0, cov).withUnsafeBufferPointer { run(y, x0, $0) }
                }
            }
        }
    }
}
