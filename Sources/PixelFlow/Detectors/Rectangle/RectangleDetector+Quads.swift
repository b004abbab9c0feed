#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

// The shape stage of the rectangle detector: edge pixels grouped into components, each
// component's convex hull simplified (Douglas-Peucker), and convex quadrilaterals chosen
// among the simplified hull's vertices by how well their sides lie on edges.

/// A candidate quadrilateral in working-image pixel coordinates, clockwise on screen.
struct _QuadCandidate: Sendable {
    var corners: [Point]
    /// The mean fraction of the sides lying on edges of matching direction, 0...1.
    var support: Double
    /// The fraction of edge pixels inside the quad (away from its sides), 0...1.
    var clutter: Double
    var score: Double
}

extension RectangleDetector {
    /// Groups edge pixels into components, bridging gaps of one pixel (two edge pixels are
    /// connected when they are at most 2 pixels apart on each axis). Components whose bounds
    /// are smaller than `minimumSide` on both axes are dropped. Largest first.
    static func _components(_ e: _EdgeMap, minimumSide: Double) -> [[Point]] {
        let w = e.width, h = e.height
        var seen = [Bool](repeating: false, count: w * h)
        var comps: [[Point]] = []
        var stack: [Int] = []
        e.edges.withUnsafeBufferPointer { ep in
            seen.withUnsafeMutableBufferPointer { sp in
                for start in 0..<(w * h) where ep[start] != 0 && !sp[start] {
                    var pts: [Point] = []
                    var x0 = Int.max, x1 = Int.min, y0 = Int.max, y1 = Int.min
                    sp[start] = true
                    stack.append(start)
                    while let j = stack.popLast() {
                        let y = j / w, x = j - y * w
                        pts.append(Point(x: Double(x), y: Double(y)))
                        x0 = Swift.min(x0, x); x1 = Swift.max(x1, x); y0 = Swift.min(y0, y); y1 = Swift.max(y1, y)
                        for yy in Swift.max(y - 2, 0)...Swift.min(y + 2, h - 1) {
                            for xx in Swift.max(x - 2, 0)...Swift.min(x + 2, w - 1) {
                                let k = yy * w + xx
                                if ep[k] != 0 && !sp[k] { sp[k] = true; stack.append(k) }
                            }
                        }
                    }
                    if Double(Swift.max(x1 - x0, y1 - y0)) >= minimumSide { comps.append(pts) }
                }
            }
        }
        return comps.sorted { $0.count > $1.count }
    }

    /// The regions that edges enclose: 4-connected areas of pixels farther than one pixel
    /// from any edge pixel (the edge map dilated by 3 x 3 closes gaps of up to two pixels),
    /// not touching the image border, with bounds at least `minimumSide - 4` on both axes and
    /// an area of at least 0.4 `minimumSide`^2; each as the list of its pixels that touch the
    /// dilated edges (its outline, holes included), largest area first, at most `limit`.
    ///
    /// A card's interior is such a region even when a background line runs into one of its
    /// sides, which joins the card's edges and the line into one edge component whose outline
    /// then follows the line, not the card. (These are the hole contours that OpenCV's
    /// `findContours` reports on a dilated Canny map, as in its squares sample.)
    ///
    /// - Complexity: O(working pixels); an `Int32` label plane of scratch.
    static func _regions(_ e: _EdgeMap, minimumSide: Double, limit: Int) -> [[Point]] {
        let w = e.width, h = e.height, n = w * h
        // -1: dilated edge; 0: not yet labelled; k > 0: region k.
        var label = [Int32](repeating: 0, count: n)
        e.edges.withUnsafeBufferPointer { ep in
            label.withUnsafeMutableBufferPointer { lp in
                for y in 0..<h {
                    for x in 0..<w where ep[y * w + x] != 0 {
                        for yy in Swift.max(y - 1, 0)...Swift.min(y + 1, h - 1) {
                            for xx in Swift.max(x - 1, 0)...Swift.min(x + 1, w - 1) { lp[yy * w + xx] = -1 }
                        }
                    }
                }
            }
        }
        struct Stats { var area = 0, x0 = Int.max, x1 = Int.min, y0 = Int.max, y1 = Int.min, border = false }
        var stats: [Stats] = [Stats()]  // index 0 unused
        var stack: [Int] = []
        label.withUnsafeMutableBufferPointer { lp in
            for start in 0..<n where lp[start] == 0 {
                let k = Int32(stats.count)
                var st = Stats()
                lp[start] = k
                stack.append(start)
                while let j = stack.popLast() {
                    let y = j / w, x = j - y * w
                    st.area += 1
                    st.x0 = Swift.min(st.x0, x); st.x1 = Swift.max(st.x1, x)
                    st.y0 = Swift.min(st.y0, y); st.y1 = Swift.max(st.y1, y)
                    if x == 0 || y == 0 || x == w - 1 || y == h - 1 { st.border = true }
                    if x > 0 && lp[j - 1] == 0 { lp[j - 1] = k; stack.append(j - 1) }
                    if x < w - 1 && lp[j + 1] == 0 { lp[j + 1] = k; stack.append(j + 1) }
                    if y > 0 && lp[j - w] == 0 { lp[j - w] = k; stack.append(j - w) }
                    if y < h - 1 && lp[j + w] == 0 { lp[j + w] = k; stack.append(j + w) }
                }
                stats.append(st)
            }
        }
        let side = minimumSide - 4, minArea = 0.4 * minimumSide * minimumSide
        var chosen = (1..<stats.count).filter { k in
            let s = stats[k]
            return !s.border && Double(s.x1 - s.x0 + 1) >= side && Double(s.y1 - s.y0 + 1) >= side && Double(s.area) >= minArea
        }
        chosen.sort { stats[$0].area != stats[$1].area ? stats[$0].area > stats[$1].area : $0 < $1 }
        chosen = Array(chosen.prefix(limit))
        guard !chosen.isEmpty else { return [] }
        var slot = [Int](repeating: -1, count: stats.count)
        for (i, k) in chosen.enumerated() { slot[k] = i }
        var outlines = [[Point]](repeating: [], count: chosen.count)
        label.withUnsafeBufferPointer { lp in
            for y in 1..<(h - 1) {
                for x in 1..<(w - 1) {
                    let k = Int(lp[y * w + x])
                    guard k > 0, slot[k] >= 0 else { continue }
                    let i = y * w + x
                    if lp[i - 1] < 0 || lp[i + 1] < 0 || lp[i - w] < 0 || lp[i + w] < 0 {
                        outlines[slot[k]].append(Point(x: Double(x), y: Double(y)))
                    }
                }
            }
        }
        return outlines
    }

    /// The convex hull, clockwise on screen (y down), by Andrew's monotone chain.
    static func _convexHull(_ points: [Point]) -> [Point] {
        let p = points.sorted { $0.x != $1.x ? $0.x < $1.x : $0.y < $1.y }
        if p.count < 3 { return p }
        func cross(_ o: Point, _ a: Point, _ b: Point) -> Double {
            (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x)
        }
        var lower: [Point] = [], upper: [Point] = []
        for q in p {
            while lower.count >= 2 && cross(lower[lower.count - 2], lower[lower.count - 1], q) <= 0 { lower.removeLast() }
            lower.append(q)
        }
        for q in p.reversed() {
            while upper.count >= 2 && cross(upper[upper.count - 2], upper[upper.count - 1], q) <= 0 { upper.removeLast() }
            upper.append(q)
        }
        // Counter-clockwise in y-up terms is clockwise on screen.
        return Array(lower.dropLast() + upper.dropLast())
    }

    /// Douglas-Peucker simplification of a closed polygon (Douglas and Peucker, "Algorithms
    /// for the reduction of the number of points required to represent a digitized line or
    /// its caricature", 1973), split at the vertex farthest from the first one.
    static func _simplifyClosed(_ poly: [Point], epsilon: Double) -> [Point] {
        guard poly.count > 4 else { return poly }
        var far = 0, best = -1.0
        for (i, q) in poly.enumerated() {
            let d = _distance(q, poly[0])
            if d > best { best = d; far = i }
        }
        func dp(_ pts: ArraySlice<Point>) -> [Point] {
            guard pts.count > 2, let a = pts.first, let b = pts.last else { return Array(pts) }
            var idx = pts.startIndex, dmax = -1.0
            for i in pts.indices.dropFirst().dropLast() {
                let d = _lineDistance(pts[i], a, b)
                if d > dmax { dmax = d; idx = i }
            }
            if dmax <= epsilon { return [a, b] }
            return Array(dp(pts[pts.startIndex...idx]).dropLast()) + dp(pts[idx...])
        }
        let first = dp(poly[0...far])
        let second = dp(ArraySlice(Array(poly[far...]) + [poly[0]]))
        return Array(first.dropLast()) + Array(second.dropLast())
    }

    /// `v` rounded to the nearest integer, halves up (`floor(v + 0.5)` without a libm call:
    /// the baseline x86-64 target has no rounding instruction); values beyond +-1e9, and NaN,
    /// give -1, which every caller treats as outside the image.
    @inline(__always) static func _nearest(_ v: Double) -> Int {
        guard Swift.abs(v) < 1e9 else { return -1 }
        let t = v + 0.5
        let i = Int(t)
        return Double(i) > t ? i - 1 : i
    }

    @inline(__always) static func _distance(_ a: Point, _ b: Point) -> Double {
        ((a.x - b.x) * (a.x - b.x) + (a.y - b.y) * (a.y - b.y)).squareRoot()
    }

    /// Distance from `p` to the line through `a` and `b` (to `a` when they coincide).
    static func _lineDistance(_ p: Point, _ a: Point, _ b: Point) -> Double {
        let dx = b.x - a.x, dy = b.y - a.y
        let l = (dx * dx + dy * dy).squareRoot()
        if l < 1e-12 { return _distance(p, a) }
        return abs((p.x - a.x) * dy - (p.y - a.y) * dx) / l
    }

    /// The fraction of `a -> b` lying on edge pixels (within 1.5 pixels) whose gradient is
    /// within about 25 degrees of the side's normal (`whole`), and the smaller of the same
    /// fractions over the side's first and last quarters (`ends`). A line tangent to a curve
    /// (an ellipse, a disc) can lie on its edge for most of its length, but not at both ends.
    static func _sideSupport(_ e: _EdgeMap, _ a: Point, _ b: Point) -> (whole: Double, ends: Double) {
        let dx = b.x - a.x, dy = b.y - a.y
        let len = (dx * dx + dy * dy).squareRoot()
        if len < 2 { return (0, 0) }
        let nx = -dy / len, ny = dx / len
        // One sample a pixel, at most 96 (evenly spread: a fraction needs no more).
        let samples = Swift.min(96, Swift.max(8, Int(len)))
        var hits = 0, first = 0, last = 0
        let quarter = samples / 4
        let w = e.width, h = e.height
        e.edges.withUnsafeBufferPointer { ep in
            e.gx.withUnsafeBufferPointer { gxp in
                e.gy.withUnsafeBufferPointer { gyp in
                    e.magnitude.withUnsafeBufferPointer { mp in
                        for s in 0..<samples {
                            let t = 0.04 + 0.92 * (Double(s) + 0.5) / Double(samples)
                            let px = _nearest(a.x + dx * t), py = _nearest(a.y + dy * t)
                            if px < 0 || py < 0 || px >= w || py >= h { continue }
                            var hit = false
                            search: for yy in Swift.max(py - 1, 0)...Swift.min(py + 1, h - 1) {
                                for xx in Swift.max(px - 1, 0)...Swift.min(px + 1, w - 1) {
                                    let k = yy * w + xx
                                    if ep[k] == 0 { continue }
                                    let m = Double(mp[k])
                                    let c = abs(Double(gxp[k]) * nx + Double(gyp[k]) * ny)
                                    if c >= 0.9 * m { hit = true; break search }
                                }
                            }
                            if hit {
                                hits += 1
                                if s < quarter { first += 1 } else if s >= samples - quarter { last += 1 }
                            }
                        }
                    }
                }
            }
        }
        return (Double(hits) / Double(samples), Double(Swift.min(first, last)) / Double(Swift.max(quarter, 1)))
    }

    /// The outer boundary of a component, traced clockwise (Moore-neighbor tracing) around
    /// the component dilated by one pixel, so that one-pixel gaps do not break it. Unlike the
    /// convex hull, it keeps a document's corners when a background line touches one.
    static func _outerBoundary(_ comp: [Point]) -> [Point] {
        guard let first = comp.first else { return [] }
        var x0 = Int(first.x), x1 = x0, y0 = Int(first.y), y1 = y0
        for p in comp {
            x0 = Swift.min(x0, Int(p.x)); x1 = Swift.max(x1, Int(p.x))
            y0 = Swift.min(y0, Int(p.y)); y1 = Swift.max(y1, Int(p.y))
        }
        // A mask with a one-pixel empty margin around the dilated component.
        let ox = x0 - 2, oy = y0 - 2, w = x1 - x0 + 5, h = y1 - y0 + 5
        var mask = [Bool](repeating: false, count: w * h)
        for p in comp {
            let cx = Int(p.x) - ox, cy = Int(p.y) - oy
            for dy in -1...1 { for dx in -1...1 { mask[(cy + dy) * w + cx + dx] = true } }
        }
        guard let start = mask.firstIndex(of: true) else { return [] }
        // Clockwise on screen from west: W, NW, N, NE, E, SE, S, SW.
        let dxs = [-1, -1, 0, 1, 1, 1, 0, -1], dys = [0, -1, -1, -1, 0, 1, 1, 1]
        var out: [Point] = []
        var cx = start % w, cy = start / w
        var back = 0  // the search starts from the west neighbor, outside the blob
        let limit = 4 * mask.count
        var firstMove: (Int, Int)? = nil
        for _ in 0..<limit {
            out.append(Point(x: Double(cx + ox), y: Double(cy + oy)))
            var found = -1
            for k in 0..<8 {
                let d = (back + k) % 8
                let nx = cx + dxs[d], ny = cy + dys[d]
                if nx >= 0, ny >= 0, nx < w, ny < h, mask[ny * w + nx] { found = d; break }
            }
            if found < 0 { break }
            let nx = cx + dxs[found], ny = cy + dys[found]
            if let f = firstMove, cx == start % w, cy == start / w, f == (nx, ny), out.count > 1 { out.removeLast(); break }
            if firstMove == nil { firstMove = (nx, ny) }
            // The next search starts just after the neighbor preceding the found one.
            back = (found + 6) % 8
            cx = nx; cy = ny
        }
        return out
    }

    /// Quadrilaterals bounded by four of the long straight runs of a component's outline:
    /// its convex hull and its outer boundary are simplified (Douglas-Peucker, tolerance 0.5%
    /// of the perimeter, at least 1.5 pixels), the ten longest simplified segments at least
    /// 30% of the minimum side long are kept, and each four of them, in order along the
    /// outline, give a quad whose corners are the intersections of neighboring segments'
    /// lines. Corners that smoothing rounded off, or that a background line touching the
    /// quad hides, are restored by the intersections. Each quad is snapped to the edges and
    /// scored.
    func _candidates(_ comp: [Point], edges e: _EdgeMap, minimumSide: Double) -> [_QuadCandidate] {
        var out: [_QuadCandidate] = []
        let imageArea = Double(e.width * e.height)
        let margin = 0.1 * Double(Swift.max(e.width, e.height))
        for outline in [Self._convexHull(comp), Self._outerBoundary(comp)] where outline.count >= 4 {
            var perimeter = 0.0
            for i in 0..<outline.count { perimeter += Self._distance(outline[i], outline[(i + 1) % outline.count]) }
            var eps = Swift.max(1.5, 0.005 * perimeter)
            var poly = Self._simplifyClosed(outline, epsilon: eps)
            while poly.count > 48 {
                eps *= 1.4
                poly = Self._simplifyClosed(outline, epsilon: eps)
            }
            // Long segments, in order along the outline.
            var segments: [(a: Point, b: Point, length: Double, index: Int)] = []
            for i in 0..<poly.count {
                let a = poly[i], b = poly[(i + 1) % poly.count]
                let l = Self._distance(a, b)
                if l >= 0.3 * minimumSide { segments.append((a, b, l, i)) }
            }
            if segments.count < 4 { continue }
            if segments.count > 10 {
                segments = Array(segments.sorted { $0.length > $1.length }.prefix(10)).sorted { $0.index < $1.index }
            }
            let lines = segments.map { s in
                FittedLine(point: s.a, direction: Point(x: (s.b.x - s.a.x) / s.length, y: (s.b.y - s.a.y) / s.length))
            }
            let n = lines.count
            for i in 0..<n {
                for j in (i + 1)..<n {
                    for k in (j + 1)..<n {
                        for l in (k + 1)..<n {
                            let ls = [lines[i], lines[j], lines[k], lines[l]]
                            var q: [Point] = []
                            for c in 0..<4 {
                                guard let p = ls[(c + 3) % 4].intersection(ls[c]),
                                    p.x > -margin, p.y > -margin,
                                    p.x < Double(e.width) + margin, p.y < Double(e.height) + margin
                                else { break }
                                q.append(p)
                            }
                            guard q.count == 4 else { continue }
                            if _Flatten.signedArea2(q) < 0 { q.reverse() }
                            guard Self._isConvex(q), let snapped = Self._snapped(q, edges: e),
                                let c = _score(snapped, edges: e, minimumSide: minimumSide, imageArea: imageArea)
                            else { continue }
                            out.append(c)
                        }
                    }
                }
            }
        }
        return out
    }

    /// The fraction of the pixels inside `q` shrunk by 10% towards its centroid (so the band
    /// along its sides, where its own edges lie, is left out) that are edge pixels.
    ///
    /// - Complexity: O(rows of `q`), with the edge map's row prefix counts.
    static func _interiorEdgeDensity(_ e: _EdgeMap, _ quad: [Point]) -> Double {
        let cx = (quad[0].x + quad[1].x + quad[2].x + quad[3].x) / 4
        let cy = (quad[0].y + quad[1].y + quad[2].y + quad[3].y) / 4
        let q = quad.map { Point(x: cx + 0.9 * ($0.x - cx), y: cy + 0.9 * ($0.y - cy)) }
        let w = e.width, h = e.height
        var top = q[0].y, bottom = q[0].y
        for p in q.dropFirst() { top = Swift.min(top, p.y); bottom = Swift.max(bottom, p.y) }
        let y0 = Swift.max(0, Int(Swift.max(top, -1).rounded(.up))),
            y1 = Swift.min(h - 1, Int(Swift.min(bottom, Double(h)).rounded(.down)))
        guard y0 <= y1 else { return 0 }
        var count = 0, total = 0
        e.rowEdgePrefix.withUnsafeBufferPointer { pp in
            for y in y0...y1 {
                let yc = Double(y)
                var lo = Double.infinity, hi = -Double.infinity
                for i in 0..<4 {
                    let a = q[i], b = q[(i + 1) % 4]
                    guard (a.y <= yc && yc <= b.y) || (b.y <= yc && yc <= a.y) else { continue }
                    let x = a.y == b.y ? a.x : a.x + (yc - a.y) / (b.y - a.y) * (b.x - a.x)
                    let x2 = a.y == b.y ? b.x : x
                    lo = Swift.min(lo, x, x2); hi = Swift.max(hi, x, x2)
                }
                guard lo <= hi else { continue }
                let x0 = Swift.max(0, Int(Swift.max(lo, -1).rounded(.up)))
                let x1 = Swift.min(w - 1, Int(Swift.min(hi, Double(w)).rounded(.down)))
                if x0 > x1 { continue }
                let row = pp.baseAddress! + y * (w + 1)
                count += Int(row[x1 + 1] - row[x0])
                total += x1 - x0 + 1
            }
        }
        return total > 0 ? Double(count) / Double(total) : 0
    }

    /// True when `q` turns clockwise on screen at every corner.
    static func _isConvex(_ q: [Point]) -> Bool {
        for i in 0..<4 {
            let p = q[(i + 3) % 4], c = q[i], n = q[(i + 1) % 4]
            if (c.x - p.x) * (n.y - c.y) - (c.y - p.y) * (n.x - c.x) <= 0 { return false }
        }
        return true
    }

    /// The quad with each side replaced by the line fitted to the edge pixels near it (within
    /// a band of 5% of its length, at least 3 pixels, gradient across the side), and each
    /// corner by the intersection of its sides' lines; nil when a side finds too few edge
    /// pixels or the corners move farther than a fifth of the shorter adjacent side. Hull
    /// vertices cut corners that smoothing rounded off; the fitted lines restore them.
    static func _snapped(_ q: [Point], edges e: _EdgeMap) -> [Point]? {
        var lines: [FittedLine] = []
        let w = e.width, h = e.height
        for s in 0..<4 {
            let a = q[s], b = q[(s + 1) % 4]
            let dx = b.x - a.x, dy = b.y - a.y
            let len = (dx * dx + dy * dy).squareRoot()
            guard len >= 4 else { return nil }
            let nx = -dy / len, ny = dx / len
            let band = Int(Swift.max(3, 0.05 * len).rounded(.up))
            // One sample a pixel, at most 64: the refinement on the full-resolution image
            // places the sides precisely; this only has to find their lines.
            let samples = Swift.min(64, Int(len))
            var pts: [Point] = []
            e.edges.withUnsafeBufferPointer { ep in
                e.gx.withUnsafeBufferPointer { gxp in
                    e.gy.withUnsafeBufferPointer { gyp in
                        e.magnitude.withUnsafeBufferPointer { mp in
                            for i in 0..<samples {
                                let t = 0.1 + 0.8 * (Double(i) + 0.5) / Double(samples)
                                let cx = a.x + dx * t, cy = a.y + dy * t
                                // The nearest matching edge pixel: offsets 0, -1, +1, -2, +2, ...
                                probe: for step in 0...(2 * band) {
                                    let o = step & 1 == 0 ? step / 2 : -(step + 1) / 2
                                    let px = _nearest(cx + nx * Double(o)), py = _nearest(cy + ny * Double(o))
                                    if px < 0 || py < 0 || px >= w || py >= h { continue }
                                    let k = py * w + px
                                    if ep[k] == 0 { continue }
                                    let c = abs(Double(gxp[k]) * nx + Double(gyp[k]) * ny)
                                    if c < 0.9 * Double(mp[k]) { continue }
                                    pts.append(Point(x: Double(px), y: Double(py)))
                                    break probe
                                }
                            }
                        }
                    }
                }
            }
            guard pts.count >= Swift.max(4, samples / 3), var line = FittedLine(fitting: pts) else { return nil }
            let near = pts.filter {
                abs(($0.x - line.point.x) * line.direction.y - ($0.y - line.point.y) * line.direction.x) <= 1.5
            }
            if near.count >= 4, let l2 = FittedLine(fitting: near) { line = l2 }
            lines.append(line)
        }
        var out: [Point] = []
        for i in 0..<4 {
            guard let p = lines[(i + 3) % 4].intersection(lines[i]) else { return nil }
            let limit = 0.2 * Swift.min(_distance(q[i], q[(i + 1) % 4]), _distance(q[i], q[(i + 3) % 4]))
            guard _distance(p, q[i]) <= limit else { return nil }
            out.append(p)
        }
        return _isConvex(out) ? out : nil
    }

    /// Scores a clockwise quad, or nil when it is too small, too skewed or poorly supported.
    func _score(_ q: [Point], edges e: _EdgeMap, minimumSide: Double, imageArea: Double) -> _QuadCandidate? {
        var sides: [Double] = []
        for s in 0..<4 { sides.append(Self._distance(q[s], q[(s + 1) % 4])) }
        guard sides.min()! >= minimumSide else { return nil }
        // Interior angles between 35 and 145 degrees.
        for s in 0..<4 {
            let p = q[(s + 3) % 4], c = q[s], nx = q[(s + 1) % 4]
            let ux = p.x - c.x, uy = p.y - c.y, vx = nx.x - c.x, vy = nx.y - c.y
            let cosA = (ux * vx + uy * vy) / ((ux * ux + uy * uy).squareRoot() * (vx * vx + vy * vy).squareRoot())
            if abs(cosA) > 0.82 { return nil }
        }
        var supports: [Double] = []
        for s in 0..<4 {
            let sup = Self._sideSupport(e, q[s], q[(s + 1) % 4])
            if sup.whole < 0.5 || sup.ends < 0.35 { return nil }
            supports.append(sup.whole)
        }
        let support = supports.reduce(0, +) / 4
        guard support >= 0.7 else { return nil }
        let area = abs(_Flatten.signedArea2(q)) / 2
        // Prominence: well-supported sides, size, and a calm interior. A quad full of edges
        // (a QR code, a window grid, a patch of texture) ranks below a plain card or a
        // document with a few lines of text (clutter about 0.04-0.11 in the tests; a QR
        // code's is 0.2-0.3).
        let clutter = Self._interiorEdgeDensity(e, q)
        var score = support * support * (area / imageArea).squareRoot() / (1 + 3 * clutter)
        if let hint = options.aspectRatio, hint > 0, hint.isFinite {
            let width = (sides[0] + sides[2]) / 2, height = (sides[1] + sides[3]) / 2
            let r = width / Swift.max(height, 1e-9)
            // Either orientation of the hinted rectangle counts.
            let off = Swift.min(abs(log(r / hint)), abs(log(r * hint)))
            let tol = log(1 + Swift.max(options.aspectRatioTolerance, 1e-6))
            score *= 0.5 + 0.5 * Swift.max(0, 1 - off / (2 * tol))
            if off > 2 * tol { score *= 0.5 }
        }
        return _QuadCandidate(corners: q, support: support, clutter: clutter, score: score)
    }
}
