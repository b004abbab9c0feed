/// The centre of a finder pattern candidate (the 7 x 7 module squares in three corners of a
/// QR code), in continuous pixel coordinates.
struct QRFinderPattern: Sendable, Hashable {
    var x: Double
    var y: Double
    /// Module size estimated from the pattern's width and height, pixels.
    var moduleSize: Double
    /// How many scan lines confirmed it.
    var count: Int

    var point: Point { Point(x: x, y: y) }

    func distance(to o: QRFinderPattern) -> Double {
        ((x - o.x) * (x - o.x) + (y - o.y) * (y - o.y)).squareRoot()
    }
}

/// Finds finder pattern candidates: dark-light-dark-light-dark runs in ratio 1:1:3:1:1 on
/// scan lines, confirmed by the same ratio vertically through the run's centre, again
/// horizontally through the refined centre, and along a diagonal; nearby confirmations are
/// merged (ZXing's `FinderPatternFinder` does the same, with a state machine instead of run
/// lists).
///
/// - Complexity: O(pixels / rowStep) for the scans plus O(pattern size) per candidate.
enum QRFinderPatternFinder {
    /// Whether five run lengths look like 1:1:3:1:1 with `tolerance` modules of slack on each
    /// 1 (three times that on the 3), and at least one pixel of slack.
    @inline(__always)
    static func ratioMatches(_ c0: Int, _ c1: Int, _ c2: Int, _ c3: Int, _ c4: Int, tolerance: Double) -> Bool {
        let total = c0 + c1 + c2 + c3 + c4
        guard total >= 7, c0 > 0, c1 > 0, c2 > 0, c3 > 0, c4 > 0 else { return false }
        let m = Double(total) / 7
        let v = Swift.max(m * tolerance, 1.0)
        return Swift.abs(m - Double(c0)) <= v && Swift.abs(m - Double(c1)) <= v
            && Swift.abs(3 * m - Double(c2)) <= 3 * v
            && Swift.abs(m - Double(c3)) <= v && Swift.abs(m - Double(c4)) <= v
    }

    /// `ratioMatches(c0, c1, c2, c3, c4, tolerance: 0.5)` for the row scan, in integers: with
    /// `T` the total, each 1 within `max(T / 14, 1)` of `T / 7` is `2 |T - 7c| <= max(T, 14)`,
    /// and the 3 within three times that is `2 |3T - 7c| <= 3 max(T, 14)`. No division: the
    /// scan tests every dark run of every row.
    @inline(__always)
    static func scanRatioMatches(_ c0: Int, _ c1: Int, _ c2: Int, _ c3: Int, _ c4: Int, total t: Int) -> Bool {
        guard t >= 7 else { return false }
        let slack = Swift.max(t, 14)
        @inline(__always) func near(_ c: Int) -> Bool { 2 &* Swift.abs(t &- 7 &* c) <= slack }
        return 2 &* Swift.abs(3 &* t &- 7 &* c2) <= 3 &* slack && near(c0) && near(c1) && near(c3) && near(c4)
    }

    /// The runs of equal values in `row` (`width` bytes, each 0 or 1) into `starts` and
    /// `lengths` (room for `width` runs); returns how many. Eight pixels at a time: the XOR of
    /// the row with itself shifted by one pixel has a 1 in byte i exactly where pixel i + 1
    /// starts a new run, so each run costs a trailing-zero count, not a loop of its own.
    @inline(__always)
    static func runs(
        of row: UnsafePointer<UInt8>, width w: Int, starts: UnsafeMutablePointer<Int>, lengths: UnsafeMutablePointer<Int>
    ) -> Int {
        var n = 0
        var start = 0
        var x = 0
        let raw = UnsafeRawPointer(row)
        while x &+ 9 <= w {
            var t =
                UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: x, as: UInt64.self))
                ^ UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: x &+ 1, as: UInt64.self))
            while t != 0 {
                let end = x &+ (t.trailingZeroBitCount >> 3) &+ 1
                starts[n] = start
                lengths[n] = end &- start
                n &+= 1
                start = end
                t &= t &- 1
            }
            x &+= 8
        }
        while x &+ 1 < w {
            if row[x] != row[x &+ 1] {
                starts[n] = start
                lengths[n] = x &+ 1 &- start
                n &+= 1
                start = x &+ 1
            }
            x &+= 1
        }
        starts[n] = start
        lengths[n] = w &- start
        return n &+ 1
    }

    /// Runs across the pattern through (x, y) along (dx, dy), outwards both ways from the
    /// centre run; the centre position along the line (in steps from (x, y), continuous) and
    /// the total length in steps, when the runs match 1:1:3:1:1.
    static func crossCheck(
        _ img: QRBinaryImage, x: Int, y: Int, dx: Int, dy: Int, maxRun: Int,
        tolerance: Double, dark on: UInt8 = 1
    ) -> (center: Double, total: Int)? {
        let w = img.width, h = img.height
        guard x >= 0, y >= 0, x < w, y < h else { return nil }
        // How many steps fit inside the image from (x, y) along (dx, dy) and back.
        func room(_ p: Int, _ d: Int, _ size: Int) -> Int { d > 0 ? size - 1 - p : (d < 0 ? p : Int.max) }
        let ahead = Swift.min(room(x, dx, w), room(y, dy, h))
        let behind = Swift.min(room(x, -dx, w), room(y, -dy, h))
        let stride = dy * w + dx
        return img.bits.withUnsafeBufferPointer { buffer -> (center: Double, total: Int)? in
            let p = buffer.baseAddress! + (y * w + x)
            guard p[0] == on else { return nil }
            // Backwards from the centre pixel (included).
            var i = 0
            var back = 0
            while i <= behind, p[-i &* stride] == on { back += 1; i += 1; if back > 3 * maxRun { return nil } }
            var c1 = 0
            while i <= behind, p[-i &* stride] != on { c1 += 1; i += 1; if c1 > maxRun { return nil } }
            guard i <= behind else { return nil }
            var c0 = 0
            while i <= behind, p[-i &* stride] == on { c0 += 1; i += 1; if c0 > maxRun { return nil } }
            // Forwards.
            var j = 1
            var fwd = 0
            while j <= ahead, p[j &* stride] == on { fwd += 1; j += 1; if fwd > 3 * maxRun { return nil } }
            var c3 = 0
            while j <= ahead, p[j &* stride] != on { c3 += 1; j += 1; if c3 > maxRun { return nil } }
            guard j <= ahead else { return nil }
            var c4 = 0
            while j <= ahead, p[j &* stride] == on { c4 += 1; j += 1; if c4 > maxRun { return nil } }
            let c2 = back + fwd
            guard ratioMatches(c0, c1, c2, c3, c4, tolerance: tolerance) else { return nil }
            // Centre run covers steps -(back - 1) ... fwd; its middle, in continuous steps.
            let center = (Double(-(back - 1)) + Double(fwd + 1)) / 2
            return (center, c0 + c1 + c2 + c3 + c4)
        }
    }

    /// Finder pattern candidates in `img`, most confirmed first. With `rowStep` 1 a candidate
    /// needs two scan lines (a finder pattern's centre is 3 modules high), which removes most
    /// chance matches in noise and texture; `quorum` sets that number for any step (default:
    /// 2 at step 1, else 1).
    static func find(in img: QRBinaryImage, rowStep: Int, maximumCount: Int, quorum: Int? = nil) -> [QRFinderPattern] {
        find(in: img, rowStep: rowStep, maximumCount: maximumCount, quorum: quorum, polarities: [1])[0]
    }

    /// The candidates of both polarities from one scan of `img`: `dark` as
    /// `find(in: img, ...)` gives them and `light` as `find(in: img.inverted(), ...)` would
    /// (the same candidates, in the same order). The runs of each row are found once and
    /// tested for both patterns, which halves the scan when both polarities are searched.
    static func findBoth(
        in img: QRBinaryImage, rowStep: Int, maximumCount: Int, quorum: Int? = nil
    ) -> (dark: [QRFinderPattern], light: [QRFinderPattern]) {
        let both = find(in: img, rowStep: rowStep, maximumCount: maximumCount, quorum: quorum, polarities: [1, 0])
        return (both[0], both[1])
    }

    /// `find` for each of `polarities` (the bit value of a pattern's dark modules: 1 for
    /// dark-on-light, 0 for light-on-dark), from one pass over the rows.
    static func find(
        in img: QRBinaryImage, rowStep: Int, maximumCount: Int, quorum: Int?, polarities: [UInt8]
    ) -> [[QRFinderPattern]] {
        let w = img.width, h = img.height
        guard w >= 7, h >= 7 else { return polarities.map { _ in [] } }
        // Per polarity: candidates still being confirmed (seen on a recent row), and the
        // finished ones.
        var active = polarities.map { _ in [(pattern: QRFinderPattern, lastRow: Int)]() }
        var finished = polarities.map { _ in [QRFinderPattern]() }
        var starts = [Int](repeating: 0, count: w + 1)
        var lengths = [Int](repeating: 0, count: w + 1)
        let quorum = quorum ?? (rowStep == 1 ? 2 : 1)
        img.bits.withUnsafeBufferPointer { bits in
            starts.withUnsafeMutableBufferPointer { startsOut in
                lengths.withUnsafeMutableBufferPointer { lengthsOut in
                    var y = rowStep / 2
                    while y < h {
                        // Retire candidates no longer under the scan line.
                        for i in active.indices where !active[i].isEmpty {
                            var kept: [(pattern: QRFinderPattern, lastRow: Int)] = []
                            for a in active[i] {
                                if Double(y - a.lastRow) > Swift.max(2 * Double(rowStep), 2 * a.pattern.moduleSize) {
                                    if a.pattern.count >= quorum { finished[i].append(a.pattern) }
                                } else {
                                    kept.append(a)
                                }
                            }
                            active[i] = kept
                        }
                        let row = bits.baseAddress! + y * w
                        // Runs of this row; run k has value row[0] iff k is even.
                        let n = runs(of: row, width: w, starts: startsOut.baseAddress!, lengths: lengthsOut.baseAddress!)
                        for (i, on) in polarities.enumerated() {
                            // The first run of the pattern's dark value is run 0 or 1.
                            var k = row[0] == on ? 2 : 3
                            while k + 2 < n {
                                let total =
                                    lengthsOut[k - 2] + lengthsOut[k - 1] + lengthsOut[k] + lengthsOut[k + 1]
                                    + lengthsOut[k + 2]
                                if total >= minimumTotal,
                                    scanRatioMatches(
                                        lengthsOut[k - 2], lengthsOut[k - 1], lengthsOut[k], lengthsOut[k + 1],
                                        lengthsOut[k + 2], total: total)
                                {
                                    let cx = Double(startsOut[k]) + Double(lengthsOut[k]) / 2
                                    if let p = confirm(img, cx: cx, cy: Double(y) + 0.5, total: total, dark: on) {
                                        merge(p, row: y, into: &active[i])
                                        k += 4
                                        continue
                                    }
                                }
                                k += 2
                            }
                        }
                        y += rowStep
                    }
                }
            }
        }
        return polarities.indices.map { i in
            var done = finished[i]
            for a in active[i] where a.pattern.count >= quorum { done.append(a.pattern) }
            // Merge what the scan split (a pattern retired and seen again further down).
            var merged: [(pattern: QRFinderPattern, lastRow: Int)] = []
            for p in done { merge(p, row: 0, into: &merged) }
            var found = merged.map(\.pattern)
            found.sort { ($0.count, $0.moduleSize) > ($1.count, $1.moduleSize) }
            return Array(found.prefix(maximumCount))
        }
    }

    /// Fewest pixels across a finder pattern: modules of about 1.5 px and up (2 px modules
    /// thin to this under blur and rotation).
    static let minimumTotal = 10

    /// Slack of the vertical and horizontal checks, in modules on each 1 of 1:1:3:1:1: wider
    /// than the scan's 0.5 because a finder seen at a steep angle has runs of 1-2 pixels
    /// across its compressed direction.
    static let crossTolerance = 0.65

    /// Vertical, horizontal and diagonal checks through a horizontal hit.
    static func confirm(_ img: QRBinaryImage, cx: Double, cy: Double, total: Int, dark on: UInt8 = 1) -> QRFinderPattern? {
        let ix = Int(cx), iy = Int(cy)
        // A finder foreshortened by a steep tilt can be 2.5 times as high as it is wide, or the
        // other way round: a linear map keeps the 1:1:3:1:1 ratios along every line through the
        // centre, but not the extents across different directions.
        guard
            let v = crossCheck(
                img, x: ix, y: iy, dx: 0, dy: 1, maxRun: total * 5 / 2, tolerance: crossTolerance, dark: on)
        else { return nil }
        guard 5 * v.total <= 25 * total / 2, 5 * total <= 25 * v.total / 2 else { return nil }
        let maxRun = Swift.max(total, v.total)
        let y = Double(iy) + v.center
        guard let hz = crossCheck(img, x: ix, y: Int(y), dx: 1, dy: 0, maxRun: maxRun, tolerance: crossTolerance, dark: on) else {
            return nil
        }
        let x = Double(ix) + hz.center
        guard
            let d = crossCheck(img, x: Int(x), y: Int(y), dx: 1, dy: 1, maxRun: maxRun, tolerance: 0.75, dark: on)
                ?? crossCheck(img, x: Int(x), y: Int(y), dx: 1, dy: -1, maxRun: maxRun, tolerance: 0.75, dark: on)
        else { return nil }
        _ = d
        let moduleSize = Double(hz.total + v.total) / 14
        return QRFinderPattern(x: x, y: y, moduleSize: moduleSize, count: 1)
    }

    /// Adds `p` to `list`, averaging it into a candidate at about the same place and scale.
    static func merge(_ p: QRFinderPattern, row: Int, into list: inout [(pattern: QRFinderPattern, lastRow: Int)]) {
        for i in list.indices {
            let q = list[i].pattern
            let reach = Swift.max(q.moduleSize, p.moduleSize) * 1.5
            if Swift.abs(q.x - p.x) <= reach, Swift.abs(q.y - p.y) <= reach,
                Swift.abs(q.moduleSize - p.moduleSize) <= Swift.max(1, 0.5 * q.moduleSize)
            {
                let n = Double(q.count), m = Double(p.count)
                list[i] = (
                    QRFinderPattern(
                        x: (q.x * n + p.x * m) / (n + m), y: (q.y * n + p.y * m) / (n + m),
                        moduleSize: (q.moduleSize * n + p.moduleSize * m) / (n + m),
                        count: q.count + p.count), Swift.max(row, list[i].lastRow)
                )
                return
            }
        }
        list.append((p, row))
    }
}
