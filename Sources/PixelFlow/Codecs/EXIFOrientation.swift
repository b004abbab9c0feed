/// How a stored image must be turned to be upright: the values of the EXIF/TIFF
/// Orientation tag (0x0112), named as in Core Image's `CGImagePropertyOrientation`.
///
/// Each case describes where the stored image's first row and first column belong:
/// `.right` (6) means the stored image must be rotated 90 degrees clockwise.
public enum EXIFOrientation: Int, Sendable, CaseIterable {
    /// 1: stored upright.
    case up = 1
    /// 2: mirrored left to right.
    case upMirrored = 2
    /// 3: rotated 180 degrees.
    case down = 3
    /// 4: mirrored top to bottom.
    case downMirrored = 4
    /// 5: transposed (mirrored along the main diagonal).
    case leftMirrored = 5
    /// 6: must be rotated 90 degrees clockwise.
    case right = 6
    /// 7: transversed (mirrored along the anti-diagonal).
    case rightMirrored = 7
    /// 8: must be rotated 90 degrees counterclockwise.
    case left = 8

    /// True when turning the image upright swaps its width and height.
    public var swapsDimensions: Bool { rawValue >= 5 }

    /// The orientation in an APP1 payload starting `"Exif\0\0"` followed by a TIFF
    /// structure (either byte order); `nil` when the tag is missing or anything is malformed.
    /// Every read is bounds-checked against the payload, so no input can crash it.
    ///
    /// - Complexity: O(entries in IFD0).
    init?(exifPayload payload: ArraySlice<UInt8>) {
        let bytes = Array(payload)
        guard bytes.count >= 14, bytes[0..<6].elementsEqual([0x45, 0x78, 0x69, 0x66, 0, 0]) else { return nil }
        let tiff = 6
        let littleEndian: Bool
        switch (bytes[tiff], bytes[tiff + 1]) {
        case (0x49, 0x49): littleEndian = true
        case (0x4D, 0x4D): littleEndian = false
        default: return nil
        }
        func u16(_ at: Int) -> Int? {
            guard at >= 0, at + 2 <= bytes.count else { return nil }
            return littleEndian ? bytes._le16(at) : bytes._be16(at)
        }
        func u32(_ at: Int) -> Int? {
            guard at >= 0, at + 4 <= bytes.count else { return nil }
            return littleEndian ? bytes._le32(at) : bytes._be32(at)
        }
        guard u16(tiff + 2) == 42, let ifdOffset = u32(tiff + 4), ifdOffset >= 8,
            let entryCount = u16(tiff + ifdOffset)
        else { return nil }
        let entries = tiff + ifdOffset + 2
        for i in 0..<entryCount {
            let entry = entries + 12 * i
            guard let tag = u16(entry) else { return nil }
            guard tag == 0x0112 else { continue }
            // Type SHORT (3), count 1: the value sits in the first 2 bytes of the field.
            guard u16(entry + 2) == 3, let count = u32(entry + 4), count >= 1,
                let value = u16(entry + 8)
            else { return nil }
            self.init(rawValue: value)
            return
        }
        return nil
    }
}

extension PixelBuffer {
    /// This buffer turned upright according to `orientation`: width and height swap for
    /// the orientations 5 to 8. Format, encoding and alpha mode are kept.
    ///
    /// ```swift
    /// let upright = stored.applyingOrientation(.right)   // rotated 90 degrees clockwise
    /// ```
    ///
    /// - Complexity: O(pixels), one copy.
    public func applyingOrientation(_ orientation: EXIFOrientation) -> PixelBuffer {
        if orientation == .up { return self }
        let w = width, h = height
        let (outW, outH) = orientation.swapsDimensions ? (h, w) : (w, h)
        // Same pixel count as self, so creating it cannot fail.
        var out = try! PixelBuffer(
            _width: outW, height: outH, format: format, colorEncoding: colorEncoding,
            alphaMode: alphaMode, zeroed: false)
        let bpp = format.bytesPerPixel, srcStride = bytesPerRow, dstStride = out.bytesPerRow
        // Each output row is a straight line through the source: a start and a step in bytes.
        func line(_ y: Int) -> (start: Int, step: Int) {
            switch orientation {
            case .up: return (y * srcStride, bpp)
            case .upMirrored: return (y * srcStride + (w - 1) * bpp, -bpp)
            case .down: return ((h - 1 - y) * srcStride + (w - 1) * bpp, -bpp)
            case .downMirrored: return ((h - 1 - y) * srcStride, bpp)
            case .leftMirrored: return (y * bpp, srcStride)
            case .right: return ((h - 1) * srcStride + y * bpp, -srcStride)
            case .rightMirrored: return ((h - 1) * srcStride + (w - 1 - y) * bpp, -srcStride)
            case .left: return ((w - 1 - y) * bpp, srcStride)
            }
        }
        withUnsafeBytes { src in
            let base = src.baseAddress!
            out.withUnsafeMutableBytes { dst in
                let dbase = dst.baseAddress!
                for y in 0..<outH {
                    let (start, step) = line(y)
                    let d = dbase + y * dstStride
                    switch bpp {
                    case 1: _copyLine(UInt8.self, base + start, step, d, outW)
                    case 4: _copyLine(UInt32.self, base + start, step, d, outW)
                    case 8: _copyLine(UInt64.self, base + start, step, d, outW)
                    default:
                        var s = start
                        for x in 0..<outW {
                            (d + x * bpp).copyMemory(from: base + s, byteCount: bpp)
                            s += step
                        }
                    }
                }
            }
        }
        return out
    }
}

@inline(__always)
private func _copyLine<P>(_: P.Type, _ src: UnsafeRawPointer, _ step: Int, _ dst: UnsafeMutableRawPointer, _ count: Int) {
    var s = src
    let size = MemoryLayout<P>.size
    for x in 0..<count {
        (dst + x &* size).storeBytes(of: s.loadUnaligned(as: P.self), as: P.self)
        s += step
    }
}
