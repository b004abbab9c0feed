import CSIMD

// Row kernels that convert between stored pixel formats and `SIMD4<Float>` values.
// Pure functions on rows: they know nothing of tiles, graphs or color management policy.

/// Loads `count` pixels of `format` into float RGBA. With `decodeSRGB`, the color channels
/// are converted from sRGB encoding to linear light (8-bit through the exact 256-entry table).
/// Alpha and premultiplication are left as stored.

package func loadRowRGBA(
    _ src: UnsafeRawPointer, format: PixelFormat, count: Int,
    into dst: UnsafeMutablePointer<SIMD4<Float>>, decodeSRGB: Bool
) {
    switch format {
    case .rgba8, .bgra8, .argb8:
        let bytes = src.assumingMemoryBound(to: UInt8.self)
        let order = format._byteOrder
        if decodeSRGB {
            // `SIMD4(t[r], t[g], t[b], Float(a) * (1 / 255))` per pixel, in C (gathering 8
            // pixels at a time with AVX2; tested equal bit for bit).
            SRGB.decodeTable.withUnsafeBufferPointer { t in
                pf_load_4x8_srgb_row_run(bytes, dst, count, t.baseAddress, order)
            }
        } else {
            // `floats(pixel) * (1 / 255)` per pixel, lanes put in RGBA order, vectorized
            // (CSIMDRowKernels.h; tested equal for all 256 values in every order).
            pf_load_4x8_row_run(bytes, dst, count, order)
        }
    case .rgba16:
        let s = src.assumingMemoryBound(to: SIMD4<UInt16>.self)
        for i in 0..<count { dst[i] = floats(s[i]) * (1 / 65535) }
        if decodeSRGB { _decodeSRGBInPlace(dst, count) }
    case .rgbaF32:
        dst.update(from: src.assumingMemoryBound(to: SIMD4<Float>.self), count: count)
        if decodeSRGB { _decodeSRGBInPlace(dst, count) }
    case .gray8:
        let s = src.assumingMemoryBound(to: UInt8.self)
        if decodeSRGB {
            SRGB.decodeTable.withUnsafeBufferPointer { t in
                for i in 0..<count { let g = t[Int(s[i])]; dst[i] = SIMD4(g, g, g, 1) }
            }
        } else {
            for i in 0..<count { let g = Float(s[i]) * (1 / 255); dst[i] = SIMD4(g, g, g, 1) }
        }
    case .grayF32:
        let s = src.assumingMemoryBound(to: Float.self)
        for i in 0..<count { let g = s[i]; dst[i] = SIMD4(g, g, g, 1) }
        if decodeSRGB { _decodeSRGBInPlace(dst, count) }
    }
}

package func _decodeSRGBInPlace(_ p: UnsafeMutablePointer<SIMD4<Float>>, _ count: Int) {
    for i in 0..<count {
        let v = p[i]
        p[i] = SIMD4(SRGB.toLinear(v.x), SRGB.toLinear(v.y), SRGB.toLinear(v.z), v.w)
    }
}

package func _encodeSRGBInPlace(_ p: UnsafeMutablePointer<SIMD4<Float>>, _ count: Int) {
    for i in 0..<count {
        let v = p[i]
        p[i] = SIMD4(SRGB.fromLinear(v.x), SRGB.fromLinear(v.y), SRGB.fromLinear(v.z), v.w)
    }
}

/// Stores `count` float RGBA pixels as `format`. With `encodeSRGB`, the color channels are
/// converted from linear light to sRGB encoding first (8-bit through the exact encoder).
/// Integer formats round half up and clamp; NaN stores as 0. `scratch` (at least `count`
/// pixels) may be overwritten; `src` is not modified.

package func storeRowRGBA(
    _ src: UnsafePointer<SIMD4<Float>>, count: Int, format: PixelFormat,
    into dst: UnsafeMutableRawPointer, encodeSRGB: Bool,
    scratch: UnsafeMutablePointer<SIMD4<Float>>
) {
    switch format {
    case .rgba8, .bgra8, .argb8:
        let d = dst.assumingMemoryBound(to: UInt8.self)
        let order = format._byteOrder
        if encodeSRGB {
            // `SRGB._encode8` per color channel and `PixelBuffer._quantize8` for alpha, in C
            // (gathering 8 pixels at a time with AVX2; tested equal byte for byte).
            SRGB.thresholds.withUnsafeBufferPointer { t in
                SRGB.bucketStart.withUnsafeBufferPointer { b in
                    SRGB.bucketPairs.withUnsafeBufferPointer { p in
                        pf_store_4x8_srgb_row_run(src, d, count, t.baseAddress, b.baseAddress, p.baseAddress, order)
                    }
                }
            }
        } else {
            // `PixelBuffer._quantize8` per pixel, bytes put in the format's order, vectorized
            // (CSIMDRowKernels.h; tested equal bit for bit).
            pf_store_4x8_row_run(src, d, count, order)
        }
    case .rgba16:
        var s = src
        if encodeSRGB { scratch.update(from: src, count: count); _encodeSRGBInPlace(scratch, count); s = UnsafePointer(scratch) }
        let d = dst.assumingMemoryBound(to: SIMD4<UInt16>.self)
        for i in 0..<count { d[i] = PixelBuffer._quantize16(s[i]) }
    case .rgbaF32:
        let d = dst.assumingMemoryBound(to: SIMD4<Float>.self)
        d.update(from: src, count: count)
        if encodeSRGB { _encodeSRGBInPlace(d, count) }
    case .gray8:
        let d = dst.assumingMemoryBound(to: UInt8.self)
        if encodeSRGB {
            for i in 0..<count { d[i] = SRGB.encode8(PixelBuffer._luma(src[i])) }
        } else {
            pf_store_gray8_row_run(src, d, count)
        }
    case .grayF32:
        let d = dst.assumingMemoryBound(to: Float.self)
        for i in 0..<count {
            let g = PixelBuffer._luma(src[i])
            d[i] = encodeSRGB ? SRGB.fromLinear(g) : g
        }
    }
}

/// Multiplies the color channels by alpha, in place (vector C code: `pf_premultiply`).
package func premultiplyRow(_ p: UnsafeMutablePointer<SIMD4<Float>>, count: Int) {
    pf_premultiply(p, count)
}

/// Divides the color channels by alpha (as a multiply by `1 / alpha`), in place; pixels
/// with alpha 1 are unchanged and pixels whose alpha is not above 0 become (0, 0, 0, 0).
/// Branch-free C (`pf_unpremultiply`); the scalar reference is in the tests.
package func unpremultiplyRow(_ p: UnsafeMutablePointer<SIMD4<Float>>, count: Int) {
    pf_unpremultiply(p, count)
}

/// Sets pixels whose alpha is not above 0 to (0, 0, 0, 0), in place: what a premultiply
/// followed by an unpremultiply does to them, without touching the others.
package func zeroTransparentRow(_ p: UnsafeMutablePointer<SIMD4<Float>>, count: Int) {
    pf_zero_unless_positive_alpha(p, count)
}

extension PixelFormat {
    /// The CSIMD byte order (`PF_ORDER_RGBA`, `_BGRA`, `_ARGB`) of a 4 x 8-bit format; RGBA
    /// for the others, which do not use it.
    var _byteOrder: Int32 {
        switch self {
        case .bgra8: return Int32(PF_ORDER_BGRA)
        case .argb8: return Int32(PF_ORDER_ARGB)
        default: return Int32(PF_ORDER_RGBA)
        }
    }
}
