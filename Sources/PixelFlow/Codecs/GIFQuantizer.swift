/// Chooses a palette of at most 256 colors for an RGBA image and maps its pixels to it, for
/// the GIF encoder.
///
/// ```swift
/// let q = _GIFQuantizer.quantize(rgba, width: 64, height: 48, method: .medianCut,
///                                maximumColorCount: 256, dithering: true)
/// q.colorCount          // <= 256 (255 when a transparent index is reserved)
/// q.indices[y * 64 + x] // the palette index of pixel (x, y)
/// ```
///
/// - Pixels with alpha < 128 map to a reserved transparent index (the last one, after the
///   colors); the others are treated as opaque and their alpha dropped. The colors then
///   number at most `maximumColorCount - 1`.
/// - When the opaque pixels hold at most that many distinct colors, the palette is exactly
///   those colors (sorted) and every pixel maps to its own color: no loss, whatever the method.
/// - Otherwise both methods work on a histogram of 5 bits per channel (32,768 cells, as in
///   Heckbert's paper), and each palette color is the mean of the pixels in its cells, so it
///   keeps the full 8-bit precision of the image:
///   - `.medianCut`: P. Heckbert, "Color image quantization for frame buffer display",
///     SIGGRAPH 1982. Boxes of cells are split at the pixel median of their longest side;
///     the box split next is the one with the largest sum of squared errors (a common
///     refinement of Heckbert's "most pixels" rule that gives lower error).
///   - `.octree`: M. Gervautz and W. Purgathofer, "A simple method for color quantization:
///     octree quantization", 1988. The cells are the leaves of a 5-level octree; nodes are
///     merged from the deepest level up, the node with the fewest pixels first, until at most
///     the allowed number of leaves remain.
/// - Pixels map to the nearest palette color (Euclidean RGB; ties to the lower index).
///   With `dithering`, Floyd-Steinberg error diffusion (weights 7, 3, 5, 1 / 16) runs in
///   serpentine order (left to right on even rows, right to left on odd ones); no error
///   flows into or out of transparent pixels.
/// - Deterministic: one thread, integer arithmetic, every tie broken by index. The same
///   image gives the same bytes on every run.
///
/// - Complexity: O(pixels x log(palette)) typical for the mapping (a search over the
///   palette sorted by green, pruned by the green distance); O(cells x log(cells)) for the
///   palette; scratch of 32,768 cells x 4 counters plus two error rows.
enum _GIFQuantizer {
    struct Result: Equatable {
        /// R, G, B of each color (`colorCount` entries; the transparent entry is not included).
        var palette: [UInt8]
        var colorCount: Int
        /// One palette index per pixel, rows packed.
        var indices: [UInt8]
        /// `colorCount` when some pixel is transparent, else -1.
        var transparentIndex: Int
    }

    /// Quantizes `rgba` (`width` x `height` pixels, 4 bytes each, rows packed).
    ///
    /// - Parameter maximumColorCount: 2...256, the transparent index included.
    static func quantize(
        _ rgba: [UInt8], width: Int, height: Int, method: EncodeOptions.GIFQuantizer,
        maximumColorCount: Int, dithering: Bool
    ) -> Result {
        let count = width * height
        var transparent = false
        for i in 0..<count where rgba[4 * i + 3] < 128 { transparent = true; break }
        let limit = max(1, min(256, maximumColorCount) - (transparent ? 1 : 0))

        var palette: [UInt8]
        if let exact = distinctColors(rgba, count: count, limit: limit) {
            palette = []
            for c in exact { palette += [UInt8(c >> 16), UInt8((c >> 8) & 255), UInt8(c & 255)] }
            let colorCount = exact.count
            var lookup: [UInt32: UInt8] = [:]
            for (i, c) in exact.enumerated() { lookup[c] = UInt8(i) }
            var indices = [UInt8](repeating: UInt8(truncatingIfNeeded: colorCount), count: count)
            for i in 0..<count where rgba[4 * i + 3] >= 128 {
                indices[i] = lookup[packed(rgba, i)]!
            }
            return Result(
                palette: palette, colorCount: colorCount, indices: indices,
                transparentIndex: transparent ? colorCount : -1)
        }
        let histogram = Histogram(rgba, count: count)
        switch method {
        case .medianCut: palette = medianCut(histogram, limit: limit)
        case .octree: palette = octree(histogram, limit: limit)
        }
        let colorCount = palette.count / 3
        let indices = map(
            rgba, width: width, height: height, palette: palette, dithering: dithering,
            transparentIndex: colorCount)
        return Result(
            palette: palette, colorCount: colorCount, indices: indices,
            transparentIndex: transparent ? colorCount : -1)
    }

    @inline(__always) static func packed(_ rgba: [UInt8], _ i: Int) -> UInt32 {
        UInt32(rgba[4 * i]) << 16 | UInt32(rgba[4 * i + 1]) << 8 | UInt32(rgba[4 * i + 2])
    }

    /// The distinct colors (0xRRGGBB) of the opaque pixels, sorted, or nil when there are more
    /// than `limit`.
    static func distinctColors(_ rgba: [UInt8], count: Int, limit: Int) -> [UInt32]? {
        var seen = Set<UInt32>()
        for i in 0..<count where rgba[4 * i + 3] >= 128 {
            seen.insert(packed(rgba, i))
            if seen.count > limit { return nil }
        }
        return seen.sorted()
    }

    /// Pixel counts and channel sums of the opaque pixels in cells of 5 bits per channel
    /// (cell = r >> 3 << 10 | g >> 3 << 5 | b >> 3).
    struct Histogram {
        var count = [Int](repeating: 0, count: 32768)
        var sums = [Int](repeating: 0, count: 32768 * 3)
        var squares = [Int](repeating: 0, count: 32768)
        /// The cells holding pixels, ascending.
        var occupied: [Int] = []

        init(_ rgba: [UInt8], count pixels: Int) {
            for i in 0..<pixels where rgba[4 * i + 3] >= 128 {
                let r = Int(rgba[4 * i]), g = Int(rgba[4 * i + 1]), b = Int(rgba[4 * i + 2])
                let cell = (r >> 3) << 10 | (g >> 3) << 5 | (b >> 3)
                count[cell] += 1
                sums[3 * cell] += r; sums[3 * cell + 1] += g; sums[3 * cell + 2] += b
                squares[cell] += r * r + g * g + b * b
            }
            occupied = (0..<32768).filter { count[$0] > 0 }
        }

        /// The mean color of `cells` as R, G, B.
        func mean(_ cells: ArraySlice<Int>) -> [UInt8] {
            var n = 0, r = 0, g = 0, b = 0
            for c in cells { n += count[c]; r += sums[3 * c]; g += sums[3 * c + 1]; b += sums[3 * c + 2] }
            return [UInt8((r + n / 2) / n), UInt8((g + n / 2) / n), UInt8((b + n / 2) / n)]
        }
    }

    /// Heckbert's median cut over the histogram's cells: at most `limit` colors.
    static func medianCut(_ h: Histogram, limit: Int) -> [UInt8] {
        var cells = h.occupied
        guard !cells.isEmpty else { return [] }
        // Boxes are ranges of `cells`; each box's cells are contiguous.
        var boxes: [Range<Int>] = [0..<cells.count]
        func error(_ box: Range<Int>) -> Double {
            var n = 0, r = 0, g = 0, b = 0, s = 0
            for c in cells[box] {
                n += h.count[c]; r += h.sums[3 * c]; g += h.sums[3 * c + 1]; b += h.sums[3 * c + 2]; s += h.squares[c]
            }
            return Double(s) - (Double(r) * Double(r) + Double(g) * Double(g) + Double(b) * Double(b)) / Double(n)
        }
        var errors = [error(boxes[0])]
        while boxes.count < limit {
            // The splittable box with the largest error (the first on ties).
            var chosen = -1
            for (i, box) in boxes.enumerated() where box.count > 1 && (chosen < 0 || errors[i] > errors[chosen]) {
                chosen = i
            }
            guard chosen >= 0 else { break }
            let box = boxes[chosen]
            // The longest side, in cell units (shifts 10, 5, 0 for R, G, B).
            var low = [31, 31, 31], high = [0, 0, 0]
            for c in cells[box] {
                for (k, shift) in [10, 5, 0].enumerated() {
                    let v = (c >> shift) & 31
                    low[k] = min(low[k], v); high[k] = max(high[k], v)
                }
            }
            var axis = 0
            for k in 1..<3 where high[k] - low[k] > high[axis] - low[axis] { axis = k }
            let shift = [10, 5, 0][axis]
            cells[box].sort { a, b in
                let u = (a >> shift) & 31, v = (b >> shift) & 31
                return u != v ? u < v : a < b
            }
            // The median pixel, kept so that both halves hold at least one cell.
            var total = 0
            for c in cells[box] { total += h.count[c] }
            var running = 0, split = box.lowerBound + 1
            for i in box {
                running += h.count[cells[i]]
                if 2 * running >= total { split = i + 1; break }
            }
            split = min(max(split, box.lowerBound + 1), box.upperBound - 1)
            let first = box.lowerBound..<split, second = split..<box.upperBound
            boxes[chosen] = first
            errors[chosen] = error(first)
            boxes.append(second)
            errors.append(error(second))
        }
        var palette: [UInt8] = []
        for box in boxes { palette += h.mean(cells[box]) }
        return palette
    }

    /// Gervautz and Purgathofer's octree over the histogram's cells: at most `limit` colors.
    static func octree(_ h: Histogram, limit: Int) -> [UInt8] {
        // Each leaf: its level (5 = a cell), its key (the top `level` bits of R, G, B packed)
        // and the cells it holds.
        struct Leaf { var level: Int; var key: Int; var cells: [Int]; var pixels: Int }
        var leaves = h.occupied.map { Leaf(level: 5, key: $0, cells: [$0], pixels: h.count[$0]) }
        guard !leaves.isEmpty else { return [] }
        func key(_ cell: Int, level: Int) -> Int {
            let s = 5 - level
            let r = ((cell >> 10) & 31) >> s, g = ((cell >> 5) & 31) >> s, b = (cell & 31) >> s
            return (r << 10) | (g << 5) | b
        }
        var level = 4
        while leaves.count > limit && level >= 0 {
            // Group the leaves below `level` by their ancestor at `level`.
            var groups: [Int: [Int]] = [:]
            for (i, leaf) in leaves.enumerated() where leaf.level > level {
                groups[key(leaf.cells[0], level: level), default: []].append(i)
            }
            // Merge the nodes with the fewest pixels first (ties by key) until few enough.
            struct Node { var key: Int; var members: [Int]; var pixels: Int }
            var nodes: [Node] = []
            for (k, members) in groups {
                var pixels = 0
                for i in members { pixels += leaves[i].pixels }
                nodes.append(Node(key: k, members: members, pixels: pixels))
            }
            nodes.sort { $0.pixels != $1.pixels ? $0.pixels < $1.pixels : $0.key < $1.key }
            var remaining = leaves.count
            var merged = Set<Int>()
            var added: [Leaf] = []
            for node in nodes {
                if remaining <= limit { break }
                var leaf = Leaf(level: level, key: node.key, cells: [], pixels: node.pixels)
                for i in node.members { leaf.cells += leaves[i].cells; merged.insert(i) }
                leaf.cells.sort()
                added.append(leaf)
                remaining -= node.members.count - 1
            }
            leaves = leaves.enumerated().filter { !merged.contains($0.offset) }.map { $0.element } + added
            leaves.sort { $0.cells[0] < $1.cells[0] }
            level -= 1
        }
        var palette: [UInt8] = []
        for leaf in leaves { palette += h.mean(leaf.cells[...]) }
        return palette
    }

    /// The palette index of the color nearest `(r, g, b)`: a search outward from `g` over the
    /// entries sorted by green, stopped on each side once the green distance alone is worse.
    struct NearestColor {
        let r: [Int32], g: [Int32], b: [Int32], index: [Int32]

        init(_ palette: [UInt8]) {
            let n = palette.count / 3
            let order = (0..<n).sorted { (i: Int, j: Int) -> Bool in
                let u = palette[3 * i + 1], v = palette[3 * j + 1]
                return u != v ? u < v : i < j
            }
            r = order.map { Int32(palette[3 * $0]) }
            g = order.map { Int32(palette[3 * $0 + 1]) }
            b = order.map { Int32(palette[3 * $0 + 2]) }
            index = order.map { Int32($0) }
        }

        func callAsFunction(_ cr: Int32, _ cg: Int32, _ cb: Int32) -> Int {
            // The first entry with green >= cg.
            var lo = 0, hi = g.count
            while lo < hi { let mid = (lo + hi) / 2; if g[mid] < cg { lo = mid + 1 } else { hi = mid } }
            var best = Int32.max, bestIndex = Int32.max
            var up = lo, down = lo - 1
            while up < g.count || down >= 0 {
                if up < g.count {
                    let dg = g[up] - cg
                    if dg * dg > best {
                        up = g.count
                    } else {
                        let dr = r[up] - cr, db = b[up] - cb
                        let d = dr * dr + dg * dg + db * db
                        if d < best || (d == best && index[up] < bestIndex) { best = d; bestIndex = index[up] }
                        up += 1
                    }
                }
                if down >= 0 {
                    let dg = g[down] - cg
                    if dg * dg > best {
                        down = -1
                    } else {
                        let dr = r[down] - cr, db = b[down] - cb
                        let d = dr * dr + dg * dg + db * db
                        if d < best || (d == best && index[down] < bestIndex) { best = d; bestIndex = index[down] }
                        down -= 1
                    }
                }
            }
            return Int(bestIndex)
        }
    }

    /// Maps every pixel to its nearest palette color, with serpentine Floyd-Steinberg error
    /// diffusion when `dithering`; pixels with alpha < 128 get `transparentIndex`.
    static func map(
        _ rgba: [UInt8], width: Int, height: Int, palette: [UInt8], dithering: Bool,
        transparentIndex: Int
    ) -> [UInt8] {
        var indices = [UInt8](repeating: UInt8(truncatingIfNeeded: transparentIndex), count: width * height)
        guard !palette.isEmpty else { return indices }
        let nearest = NearestColor(palette)
        let colors = palette.map { Int32($0) }
        // Errors in 1/16 units, 3 channels, one guard pixel on each side.
        var current = [Int32](repeating: 0, count: (width + 2) * 3)
        var next = current
        for y in 0..<height {
            let leftToRight = !dithering || y % 2 == 0
            let step = leftToRight ? 1 : -1
            for k in 0..<next.count { next[k] = 0 }
            var x = leftToRight ? 0 : width - 1
            for _ in 0..<width {
                let i = y * width + x
                defer { x += step }
                guard rgba[4 * i + 3] >= 128 else { continue }
                var value: (Int32, Int32, Int32) = (Int32(rgba[4 * i]), Int32(rgba[4 * i + 1]), Int32(rgba[4 * i + 2]))
                if dithering {
                    let e = 3 * (x + 1)
                    value.0 = min(255, max(0, value.0 + (current[e] + 8) >> 4))
                    value.1 = min(255, max(0, value.1 + (current[e + 1] + 8) >> 4))
                    value.2 = min(255, max(0, value.2 + (current[e + 2] + 8) >> 4))
                }
                let chosen = nearest(value.0, value.1, value.2)
                indices[i] = UInt8(chosen)
                guard dithering else { continue }
                let er = value.0 - colors[3 * chosen], eg = value.1 - colors[3 * chosen + 1]
                let eb = value.2 - colors[3 * chosen + 2]
                let ahead = 3 * (x + 1 + step), behind = 3 * (x + 1 - step), here = 3 * (x + 1)
                current[ahead] += 7 * er; current[ahead + 1] += 7 * eg; current[ahead + 2] += 7 * eb
                next[behind] += 3 * er; next[behind + 1] += 3 * eg; next[behind + 2] += 3 * eb
                next[here] += 5 * er; next[here + 1] += 5 * eg; next[here + 2] += 5 * eb
                next[ahead] += er; next[ahead + 1] += eg; next[ahead + 2] += eb
            }
            swap(&current, &next)
        }
        return indices
    }
}
