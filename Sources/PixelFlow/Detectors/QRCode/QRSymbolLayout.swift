/// Where everything sits in a symbol of one version: the function patterns (finder,
/// separators, timing, alignment, the dark module), the areas reserved for format and
/// version information, and the order in which codeword bits fill the rest
/// (ISO/IEC 18004 §6.3 and §7.7.3).
///
/// Coordinates are (x, y) = (column, row) from the top-left corner; arrays are row-major.
struct QRSymbolLayout {
    let version: QRVersion
    let size: Int
    /// Modules that are not data: function patterns and reserved information areas.
    private(set) var isFunction: [Bool]
    /// The colors of the function patterns (format and version areas are left light).
    private(set) var pattern: [Bool]

    init(version: QRVersion) {
        self.version = version
        size = version.size
        isFunction = [Bool](repeating: false, count: size * size)
        pattern = isFunction
        _drawPatterns()
    }

    private mutating func _set(_ x: Int, _ y: Int, _ dark: Bool) {
        isFunction[y * size + x] = true
        pattern[y * size + x] = dark
    }

    private mutating func _drawPatterns() {
        // Timing patterns: row 6 and column 6, dark on even positions.
        for i in 0..<size {
            _set(6, i, i % 2 == 0)
            _set(i, 6, i % 2 == 0)
        }
        // Finder patterns with their light separators.
        for (cx, cy) in [(3, 3), (size - 4, 3), (3, size - 4)] {
            for dy in -4...4 {
                for dx in -4...4 {
                    let x = cx + dx, y = cy + dy
                    guard x >= 0, x < size, y >= 0, y < size else { continue }
                    let ring = max(abs(dx), abs(dy))
                    _set(x, y, ring != 2 && ring != 4)
                }
            }
        }
        // Alignment patterns at every pair of centres, except over the finder patterns.
        let centers = version.alignmentPatternCenters
        let last = centers.count - 1
        for (i, cy) in centers.enumerated() {
            for (j, cx) in centers.enumerated() {
                if (i == 0 && j == 0) || (i == 0 && j == last) || (i == last && j == 0) { continue }
                for dy in -2...2 {
                    for dx in -2...2 { _set(cx + dx, cy + dy, max(abs(dx), abs(dy)) != 1) }
                }
            }
        }
        // Format information areas (drawn later) and the dark module.
        for (x, y) in QRSymbolLayout.formatPositions(size: size, copy: 0) + QRSymbolLayout.formatPositions(size: size, copy: 1) {
            _set(x, y, false)
        }
        _set(8, size - 8, true)
        // Version information areas (versions 7 and up).
        if version.number >= 7 {
            for (x, y) in QRSymbolLayout.versionPositions(size: size, copy: 0)
                + QRSymbolLayout.versionPositions(size: size, copy: 1)
            {
                _set(x, y, false)
            }
        }
    }

    /// Positions of format bits 0 (least significant) ... 14 in `copy` 0 (around the top-left
    /// finder) or 1 (split under the top-right and beside the bottom-left finder).
    static func formatPositions(size: Int, copy: Int) -> [(Int, Int)] {
        if copy == 0 {
            return (0...5).map { (8, $0) } + [(8, 7), (8, 8), (7, 8)] + (9...14).map { (14 - $0, 8) }
        }
        return (0...7).map { (size - 1 - $0, 8) } + (8...14).map { (8, size - 15 + $0) }
    }

    /// Positions of version bits 0 (least significant) ... 17 in `copy` 0 (above the
    /// bottom-left finder) or 1 (left of the top-right finder).
    static func versionPositions(size: Int, copy: Int) -> [(Int, Int)] {
        (0..<18).map { i in
            let a = size - 11 + i % 3, b = i / 3
            return copy == 0 ? (b, a) : (a, b)
        }
    }

    /// Indices (y * size + x) of the data modules in placement order: two-module columns
    /// from the right edge leftwards, alternately upwards and downwards, skipping the
    /// vertical timing pattern; within a column pair the right module first.
    func dataPositions() -> [Int] {
        var order: [Int] = []
        order.reserveCapacity(version.dataModuleCount)
        var right = size - 1
        var upward = true
        while right >= 1 {
            if right == 6 { right = 5 }
            for step in 0..<size {
                let row = (upward ? size - 1 - step : step) * size
                if !isFunction[row + right] { order.append(row + right) }
                if !isFunction[row + right - 1] { order.append(row + right - 1) }
            }
            upward.toggle()
            right -= 2
        }
        return order
    }
}
