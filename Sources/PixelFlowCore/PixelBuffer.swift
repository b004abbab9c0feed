/// Owned, contiguous pixel storage shared copy-on-write between `PixelBuffer` values.
///
/// `@unchecked Sendable`: the memory is only written through a uniquely referenced
/// `PixelBuffer` (copy-on-write) or, during a render, by tiles that write disjoint rows
/// (see `TileWriter`), and never reallocated after `init`.

package final class _PixelStorage: @unchecked Sendable {
    package let bytes: UnsafeMutableRawPointer
    package let count: Int
    private let allocation: LargeAllocation

    /// Storage of `byteCount` bytes (large ones on huge pages, see `LargeAllocation`), zero
    /// when `zeroed`.
    package init(byteCount: Int, zeroed: Bool = true) {
        count = byteCount
        allocation = LargeAllocation(byteCount: byteCount)
        bytes = allocation.pointer
        if zeroed && !allocation.isZeroed { bytes.initializeMemory(as: UInt8.self, repeating: 0, count: byteCount) }
    }

    package func copy() -> _PixelStorage {
        let s = _PixelStorage(byteCount: count, zeroed: false)
        s.bytes.copyMemory(from: bytes, byteCount: count)
        return s
    }

    deinit { allocation.deallocate() }
}

/// A two-dimensional array of pixels: width, height, format and row stride, with storage it
/// owns. A value type with copy-on-write storage: copies are cheap until one is mutated.
///
/// ```swift
/// var buffer = try PixelBuffer(width: 64, height: 32, format: .rgba8)
/// buffer[3, 4] = SIMD4(1, 0, 0, 1)          // opaque red, in the buffer's own encoding
/// let float = buffer.converted(to: .rgbaF32)
/// ```
///
/// Values read and written through the subscript are normalized to 0...1 for the integer
/// formats and are the buffer's stored values: sRGB-encoded for `.sRGB` buffers, with the
/// buffer's `alphaMode`. Gray formats read as `(g, g, g, 1)` and store the Rec. 709 luma of
/// what is written.
public struct PixelBuffer: Sendable {
    /// The width, in pixels (at least 1).
    public let width: Int
    /// The height, in pixels (at least 1).
    public let height: Int
    /// The layout and type of each pixel's channels.
    public let format: PixelFormat
    /// Bytes from the start of one row to the start of the next.
    public let bytesPerRow: Int
    /// How the color channels relate to light. Integer formats default to `.sRGB`, float
    /// formats to `.linear`.
    public var colorEncoding: ColorEncoding
    /// Whether the color channels are multiplied by alpha. Integer formats default to
    /// `.straight`, float formats to `.premultiplied` (the working space).
    public var alphaMode: AlphaMode
    package var _storage: _PixelStorage

    /// The largest pixel count a buffer may have (2^31), whatever the limits of a decoder.
    public static let maximumPixelCount = 1 << 31

    /// Creates a buffer filled with zeros (transparent black).
    ///
    /// - Throws: `PixelFlowError.invalidDimensions` when a side is not positive or the byte
    ///   size overflows or exceeds `maximumPixelCount` pixels.
    public init(
        width: Int, height: Int, format: PixelFormat,
        colorEncoding: ColorEncoding? = nil, alphaMode: AlphaMode? = nil
    ) throws {
        try self.init(
            _width: width, height: height, format: format, colorEncoding: colorEncoding,
            alphaMode: alphaMode, zeroed: true)
    }

    package init(
        _width width: Int, height: Int, format: PixelFormat,
        colorEncoding: ColorEncoding? = nil, alphaMode: AlphaMode? = nil, zeroed: Bool
    ) throws {
        guard width > 0, height > 0 else {
            throw PixelFlowError.invalidDimensions(width: width, height: height, reason: "width and height must be positive")
        }
        let (pixels, o1) = width.multipliedReportingOverflow(by: height)
        guard !o1, pixels <= PixelBuffer.maximumPixelCount else {
            throw PixelFlowError.invalidDimensions(
                width: width, height: height,
                reason: "more than \(PixelBuffer.maximumPixelCount) pixels")
        }
        // Rows padded to 16 bytes so float rows stay aligned.
        let row = (width * format.bytesPerPixel + 15) & ~15
        self.width = width
        self.height = height
        self.format = format
        self.bytesPerRow = row
        self.colorEncoding = colorEncoding ?? (format.isFloat ? .linear : .sRGB)
        self.alphaMode = alphaMode ?? (format.isFloat ? .premultiplied : .straight)
        self._storage = _PixelStorage(byteCount: row * height, zeroed: zeroed)
    }

    /// The buffer's size.
    public var size: Size { Size(width: Double(width), height: Double(height)) }
    /// `(0, 0, width, height)`.
    public var bounds: Rect { Rect(x: 0, y: 0, width: width, height: height) }

    package mutating func _makeUnique() {
        if !isKnownUniquelyReferenced(&_storage) { _storage = _storage.copy() }
    }

    /// Calls `body` with the buffer's bytes (rows `bytesPerRow` apart).
    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try body(UnsafeRawBufferPointer(start: _storage.bytes, count: _storage.count))
    }

    /// Calls `body` with the buffer's bytes for writing, after making the storage unique.
    public mutating func withUnsafeMutableBytes<R>(_ body: (UnsafeMutableRawBufferPointer) throws -> R) rethrows -> R {
        _makeUnique()
        return try body(UnsafeMutableRawBufferPointer(start: _storage.bytes, count: _storage.count))
    }

    /// Calls `body` with a pointer to the first byte of each row in turn.
    public func withUnsafeRows(_ body: (_ y: Int, _ row: UnsafeRawPointer) throws -> Void) rethrows {
        for y in 0..<height { try body(y, UnsafeRawPointer(_storage.bytes + y * bytesPerRow)) }
    }

    /// Calls `body` with a mutable pointer to the first byte of each row in turn.
    public mutating func withUnsafeMutableRows(_ body: (_ y: Int, _ row: UnsafeMutableRawPointer) throws -> Void) rethrows {
        _makeUnique()
        for y in 0..<height { try body(y, _storage.bytes + y * bytesPerRow) }
    }

    /// The pixel at `(x, y)` as normalized RGBA in the buffer's own encoding.
    /// Traps when `(x, y)` is outside the buffer, like an array index.
    public subscript(x: Int, y: Int) -> SIMD4<Float> {
        get {
            precondition(x >= 0 && x < width && y >= 0 && y < height, "pixel (\(x), \(y)) outside \(width)x\(height)")
            let p = UnsafeRawPointer(_storage.bytes + y * bytesPerRow + x * format.bytesPerPixel)
            switch format {
            case .rgba8:
                let v = p.loadUnaligned(as: SIMD4<UInt8>.self)
                return floats(v) / 255
            case .bgra8:
                let v = p.loadUnaligned(as: SIMD4<UInt8>.self)
                return floats(SIMD4(v.z, v.y, v.x, v.w)) / 255
            case .argb8:
                let v = p.loadUnaligned(as: SIMD4<UInt8>.self)
                return floats(SIMD4(v.y, v.z, v.w, v.x)) / 255
            case .rgba16:
                let v = p.loadUnaligned(as: SIMD4<UInt16>.self)
                return floats(v) / 65535
            case .rgbaF32:
                return p.loadUnaligned(as: SIMD4<Float>.self)
            case .gray8:
                let g = Float(p.load(as: UInt8.self)) / 255
                return SIMD4(g, g, g, 1)
            case .grayF32:
                let g = p.loadUnaligned(as: Float.self)
                return SIMD4(g, g, g, 1)
            }
        }
        set {
            precondition(x >= 0 && x < width && y >= 0 && y < height, "pixel (\(x), \(y)) outside \(width)x\(height)")
            _makeUnique()
            let p = _storage.bytes + y * bytesPerRow + x * format.bytesPerPixel
            switch format {
            case .rgba8:
                p.storeBytes(of: PixelBuffer._quantize8(newValue), as: SIMD4<UInt8>.self)
            case .bgra8:
                let q = PixelBuffer._quantize8(newValue)
                p.storeBytes(of: SIMD4(q.z, q.y, q.x, q.w), as: SIMD4<UInt8>.self)
            case .argb8:
                let q = PixelBuffer._quantize8(newValue)
                p.storeBytes(of: SIMD4(q.w, q.x, q.y, q.z), as: SIMD4<UInt8>.self)
            case .rgba16:
                p.storeBytes(of: PixelBuffer._quantize16(newValue), as: SIMD4<UInt16>.self)
            case .rgbaF32:
                p.storeBytes(of: newValue, as: SIMD4<Float>.self)
            case .gray8:
                let g = PixelBuffer._luma(newValue)
                p.storeBytes(of: PixelBuffer._quantize8(SIMD4(repeating: g))[0], as: UInt8.self)
            case .grayF32:
                p.storeBytes(of: PixelBuffer._luma(newValue), as: Float.self)
            }
        }
    }

    package static func _luma(_ v: SIMD4<Float>) -> Float {
        0.2126 * v.x + 0.7152 * v.y + 0.0722 * v.z
    }

    /// Rounds half up and clamps to 0...255 (NaN gives 0).
    @inlinable @inline(__always)
    package static func _quantize8(_ v: SIMD4<Float>) -> SIMD4<UInt8> { quantizeToUInt8(v) }

    @inlinable @inline(__always)
    package static func _quantize16(_ v: SIMD4<Float>) -> SIMD4<UInt16> { quantizeToUInt16(v) }
}

extension PixelBuffer: Equatable {
    /// Two buffers are equal when they have the same size, format, encoding, alpha mode and
    /// pixel bytes (row padding is ignored).
    public static func == (lhs: PixelBuffer, rhs: PixelBuffer) -> Bool {
        guard lhs.width == rhs.width, lhs.height == rhs.height, lhs.format == rhs.format,
            lhs.colorEncoding == rhs.colorEncoding, lhs.alphaMode == rhs.alphaMode
        else { return false }
        if lhs._storage === rhs._storage { return true }
        let n = lhs.width * lhs.format.bytesPerPixel
        for y in 0..<lhs.height
        where memcmp(
            lhs._storage.bytes + y * lhs.bytesPerRow,
            rhs._storage.bytes + y * rhs.bytesPerRow, n) != 0
        {
            return false
        }
        return true
    }
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif
