/// The logical screen of a GIF as its frames are drawn onto it, the way browsers (Chromium,
/// Firefox) composite an animation.
///
/// ```swift
/// var canvas = try _GIFCanvas(width: 40, height: 30)
/// canvas.beginFrame(rect, disposal: 2)          // disposes of the previous frame first
/// canvas.draw(indices, in: rect, palette: palette, transparentIndex: 0)
/// let shown = canvas.buffer                     // what frame shows
/// ```
///
/// - The canvas starts transparent black; the background color index is ignored.
/// - A frame is clipped to the screen. Pixels whose index is the transparent index leave the
///   canvas as it is; indices past the end of the color map are opaque black (as Firefox
///   and Pillow pad the map).
/// - Disposal, applied when the next frame begins: 0 (none) and 1 (leave) keep the frame;
///   2 clears the frame's rectangle to transparent black (not to the background color);
///   3 restores the rectangle to what it was before the frame was drawn; 4 is taken as 3,
///   as Chromium and Firefox do for encoders that set that bit; 5...7 are taken as 0.
///
/// - Complexity: O(frame pixels) per frame; disposal 3 keeps a copy of the frame's rectangle.
struct _GIFCanvas {
    /// The canvas: `rgba8`, straight alpha.
    private(set) var buffer: PixelBuffer
    /// What the frame drawn last asks for when the next one begins.
    private var disposal = 0
    private var disposalRect = _GIFRect(x: 0, y: 0, width: 0, height: 0)
    /// The rectangle's RGBA before the last frame was drawn (disposal 3).
    private var saved: [UInt8] = []

    init(width: Int, height: Int) throws {
        buffer = try PixelBuffer(
            width: width, height: height, format: .rgba8, colorEncoding: .sRGB,
            alphaMode: .straight)
    }

    /// Disposes of the previous frame, then notes the disposal of the frame about to be drawn
    /// in `rect` (already clipped), saving the rectangle when it asks to be restored.
    mutating func beginFrame(_ rect: _GIFRect, disposal method: Int) {
        dispose()
        disposal = method == 4 ? 3 : (method <= 3 ? method : 0)
        disposalRect = rect
        if disposal == 3 {
            saved = [UInt8](repeating: 0, count: rect.width * rect.height * 4)
            buffer.withUnsafeBytes { raw in
                for row in 0..<rect.height {
                    let from = (rect.y + row) * buffer.bytesPerRow + rect.x * 4
                    for i in 0..<(rect.width * 4) { saved[row * rect.width * 4 + i] = raw[from + i] }
                }
            }
        }
    }

    /// Draws color indices (`rect.width` per row, rows packed) into `rect` (already clipped).
    ///
    /// - Parameters:
    ///   - palette: R, G, B of `colorCount` entries.
    ///   - transparentIndex: the index that leaves the canvas untouched, or -1.
    mutating func draw(
        _ indices: [UInt8], in rect: _GIFRect, palette: [UInt8], colorCount: Int,
        transparentIndex: Int
    ) {
        guard rect.width > 0, rect.height > 0 else { return }
        var table = [UInt8](repeating: 0, count: 256 * 4)
        for i in 0..<256 {
            if i < colorCount {
                table[4 * i] = palette[3 * i]; table[4 * i + 1] = palette[3 * i + 1]; table[4 * i + 2] = palette[3 * i + 2]
            }
            table[4 * i + 3] = 255
        }
        let stride = buffer.bytesPerRow
        buffer.withUnsafeMutableBytes { raw in
            let canvas = raw.baseAddress!.assumingMemoryBound(to: UInt8.self)
            table.withUnsafeBufferPointer { table in
                indices.withUnsafeBufferPointer { indices in
                    for row in 0..<rect.height {
                        let d = canvas + (rect.y + row) * stride + rect.x * 4
                        let s = row * rect.width
                        for x in 0..<rect.width {
                            let index = Int(indices[s + x])
                            if index == transparentIndex { continue }
                            d[4 * x] = table[4 * index]; d[4 * x + 1] = table[4 * index + 1]
                            d[4 * x + 2] = table[4 * index + 2]; d[4 * x + 3] = 255
                        }
                    }
                }
            }
        }
    }

    /// Applies the disposal of the frame drawn last.
    private mutating func dispose() {
        let rect = disposalRect
        guard disposal >= 2, rect.width > 0, rect.height > 0 else { return }
        let stride = buffer.bytesPerRow
        let method = disposal
        let saved = self.saved
        buffer.withUnsafeMutableBytes { raw in
            for row in 0..<rect.height {
                let to = (rect.y + row) * stride + rect.x * 4
                for i in 0..<(rect.width * 4) {
                    raw[to + i] = method == 2 ? 0 : saved[row * rect.width * 4 + i]
                }
            }
        }
        self.saved = []
        disposal = 0
    }
}

/// A rectangle of a GIF's screen, in pixels.
struct _GIFRect: Equatable {
    var x: Int, y: Int, width: Int, height: Int

    /// True when it covers all of a `width` x `height` screen.
    func covers(width w: Int, height h: Int) -> Bool { x == 0 && y == 0 && width >= w && height >= h }
}
