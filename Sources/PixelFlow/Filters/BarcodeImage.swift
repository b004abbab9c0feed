extension Image {
    /// The picture of a barcode's modules, as Core Image's generators make it: opaque black
    /// modules on white in `rgba8`, each module one pixel wide and `rowHeight` pixels high,
    /// inside a white margin of `margin` pixels. `modules[row * columns + column]` is true for
    /// a dark module.
    ///
    /// - Throws: `PixelFlowError.invalidDimensions` for a picture too large to allocate.
    static func _barcode(modules: [Bool], columns: Int, rows: Int, rowHeight: Int = 1, margin: Int = 0) throws -> Image {
        precondition(modules.count == columns * rows, "one module per column and row")
        let width = columns + 2 * margin, height = rows * rowHeight + 2 * margin
        var buffer = try PixelBuffer(width: width, height: height, format: .rgba8)
        let white: UInt32 = 0xFFFF_FFFF
        let black = UInt32(littleEndian: 0xFF00_0000)  // bytes 0, 0, 0, 255
        modules.withUnsafeBufferPointer { modules in
            buffer.withUnsafeMutableRows { y, row in
                let pixels = row.assumingMemoryBound(to: UInt32.self)
                let r = (y - margin) / rowHeight
                let inside = y >= margin && r < rows
                for x in 0..<width {
                    let c = x - margin
                    pixels[x] = inside && c >= 0 && c < columns && modules[r * columns + c] ? black : white
                }
            }
        }
        return Image(buffer)
    }
}
