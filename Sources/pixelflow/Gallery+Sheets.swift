import PixelFlow

// Laying out the gallery's pictures: one image per filter (its panels side by side, each
// captioned) and one contact sheet per category (a title, then every filter's panels under
// its display name, four cells to a row).

extension Gallery {
    /// The background of every picture, and the two shades of the checkerboard shown through
    /// transparent pixels.
    static let background = SIMD4<Float>(0.13, 0.13, 0.15, 1)
    static let checkLight = SIMD4<Float>(0.80, 0.80, 0.80, 1)
    static let checkDark = SIMD4<Float>(0.62, 0.62, 0.62, 1)
    static let textColor = Color(red: 0.92, green: 0.92, blue: 0.92)
    static let captionColor = Color(red: 1, green: 0.82, blue: 0.40)

    /// The width of `count` panels side by side.
    func blockWidth(panels count: Int) -> Int { count * cellWidth + (count - 1) * Gallery.gap }

    /// A filter's own picture: its panels side by side, each over a checkerboard with its
    /// caption underneath.
    ///
    /// - Throws: `PixelFlowError` when the buffer cannot be allocated.
    func picture(of entry: Entry) throws -> PixelBuffer {
        var canvas = Canvas(
            buffer: try filled(width: blockWidth(panels: entry.panels.count), height: cellHeight + Gallery.stripHeight))
        draw(entry.panels, x: 0, y: 0, on: &canvas)
        return canvas.buffer
    }

    /// A contact sheet: `title` at the top, then each entry's display name over its panels,
    /// laid out left to right in rows of ``columns`` cells.
    ///
    /// - Throws: `PixelFlowError` when the buffer cannot be allocated.
    func sheet(title: String, entries: [Entry]) throws -> PixelBuffer {
        let gap = Gallery.gap
        let titleHeight = 2 * GalleryFont.height + 2 * gap
        let blockHeight = Gallery.stripHeight + cellHeight + Gallery.stripHeight
        // Place the blocks: a block of n panels takes n cells and moves to the next row when
        // it does not fit.
        var places: [(entry: Entry, column: Int, row: Int)] = []
        var column = 0, row = 0
        for entry in entries {
            let span = min(entry.panels.count, Gallery.columns)
            if column + span > Gallery.columns {
                column = 0
                row += 1
            }
            places.append((entry, column, row))
            column += span
        }
        let rows = places.isEmpty ? 0 : row + 1
        let width = gap + Gallery.columns * (cellWidth + gap)
        let height = titleHeight + rows * (blockHeight + gap) + gap
        var canvas = Canvas(buffer: try filled(width: width, height: height))
        GalleryFont.draw(
            GalleryFont.fitted(title, maximumWidth: width - 2 * gap, scale: 2), x: gap, y: gap, scale: 2,
            color: Gallery.textColor, on: &canvas)
        for place in places {
            let x = gap + place.column * (cellWidth + gap)
            let y = titleHeight + place.row * (blockHeight + gap)
            let panels = Array(place.entry.panels.prefix(Gallery.columns))
            let name = GalleryFont.fitted(place.entry.filter.displayName, maximumWidth: blockWidth(panels: panels.count))
            GalleryFont.draw(name, x: x, y: y + 2, color: Gallery.textColor, on: &canvas)
            draw(panels, x: x, y: y + Gallery.stripHeight, on: &canvas)
        }
        return canvas.buffer
    }

    /// Draws `panels` side by side with their top-left corner at `(x, y)`: each cell over a
    /// checkerboard of 8-pixel squares, its caption in the strip below.
    func draw(_ panels: [Panel], x: Int, y: Int, on canvas: inout Canvas) {
        var buffer = canvas.buffer
        for (i, panel) in panels.enumerated() {
            let left = x + i * (cellWidth + Gallery.gap)
            for py in 0..<min(cellHeight, panel.pixels.height) {
                for px in 0..<min(cellWidth, panel.pixels.width) {
                    let p = panel.pixels[px, py]
                    let check = (px / 8 + py / 8) % 2 == 0 ? Gallery.checkLight : Gallery.checkDark
                    var out = p * p.w + check * (1 - p.w)
                    out.w = 1
                    buffer[left + px, y + py] = out
                }
            }
        }
        canvas = Canvas(buffer: buffer)
        for (i, panel) in panels.enumerated() {
            let left = x + i * (cellWidth + Gallery.gap)
            let caption = GalleryFont.fitted(panel.caption, maximumWidth: cellWidth - 4)
            GalleryFont.draw(caption, x: left + 2, y: y + cellHeight + 2, color: Gallery.captionColor, on: &canvas)
        }
    }

    /// An opaque `rgba8` buffer filled with ``background``.
    func filled(width: Int, height: Int) throws -> PixelBuffer {
        var buffer = try PixelBuffer(width: width, height: height, format: .rgba8)
        for y in 0..<height {
            for x in 0..<width { buffer[x, y] = Gallery.background }
        }
        return buffer
    }
}
