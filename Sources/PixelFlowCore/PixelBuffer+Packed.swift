// Packed 32-bit access to the 4 x 8-bit formats (`rgba8`, `bgra8`, `argb8`), for code ported
// from Apple platforms that walks bitmap data as `UInt32` pixels.

extension PixelBuffer {
    /// The pixel at `(x, y)` of a 4 x 8-bit buffer as its packed `UInt32`: its four bytes read
    /// in little-endian order, whatever the processor (see ``PackedPixelLayout``; for
    /// `bgra8` that is `0xAARRGGBB`). Setting it writes the four bytes back.
    ///
    /// ```swift
    /// var pixels = buffer.converted(to: .bgra8)
    /// let layout = pixels.format.packedLayout!
    /// pixels[packed: 0, 0] = layout.pack(red: 255, green: 0, blue: 0, alpha: 255)
    /// ```
    ///
    /// Traps when `(x, y)` is outside the buffer, like an array index, or when the format is
    /// not a 4 x 8-bit one (`format.packedLayout` is nil).
    public subscript(packed x: Int, y: Int) -> UInt32 {
        get {
            precondition(format.isPacked32, "packed access needs rgba8, bgra8 or argb8, not \(format)")
            precondition(x >= 0 && x < width && y >= 0 && y < height, "pixel (\(x), \(y)) outside \(width)x\(height)")
            let p = UnsafeRawPointer(_storage.bytes + y * bytesPerRow + 4 * x)
            return UInt32(littleEndian: p.load(as: UInt32.self))
        }
        set {
            precondition(format.isPacked32, "packed access needs rgba8, bgra8 or argb8, not \(format)")
            precondition(x >= 0 && x < width && y >= 0 && y < height, "pixel (\(x), \(y)) outside \(width)x\(height)")
            _makeUnique()
            (_storage.bytes + y * bytesPerRow + 4 * x).storeBytes(of: newValue.littleEndian, as: UInt32.self)
        }
    }

    /// Calls `body` with the pixels of a 4 x 8-bit buffer as `UInt32` words: pixel `(x, y)` is
    /// `pixels[y * pixelsPerRow + x]` (`pixelsPerRow` is `bytesPerRow / 4`, at least `width`;
    /// the words past `width` in a row are padding).
    ///
    /// The words are in the processor's byte order: on little-endian processors (x86-64,
    /// arm64) each is the pixel's packed value (``PackedPixelLayout``); elsewhere pass it
    /// through `UInt32(littleEndian:)` first.
    ///
    /// - Precondition: `format.packedLayout` is not nil.
    public func withUnsafePackedPixels<R>(
        _ body: (_ pixels: UnsafeBufferPointer<UInt32>, _ pixelsPerRow: Int) throws -> R
    ) rethrows -> R {
        precondition(format.isPacked32, "packed access needs rgba8, bgra8 or argb8, not \(format)")
        let words = UnsafePointer(_storage.bytes.assumingMemoryBound(to: UInt32.self))
        return try body(UnsafeBufferPointer(start: words, count: _storage.count / 4), bytesPerRow / 4)
    }

    /// `withUnsafePackedPixels` for writing, after making the storage unique.
    ///
    /// - Precondition: `format.packedLayout` is not nil.
    public mutating func withUnsafeMutablePackedPixels<R>(
        _ body: (_ pixels: UnsafeMutableBufferPointer<UInt32>, _ pixelsPerRow: Int) throws -> R
    ) rethrows -> R {
        precondition(format.isPacked32, "packed access needs rgba8, bgra8 or argb8, not \(format)")
        _makeUnique()
        let words = _storage.bytes.assumingMemoryBound(to: UInt32.self)
        return try body(UnsafeMutableBufferPointer(start: words, count: _storage.count / 4), bytesPerRow / 4)
    }
}
