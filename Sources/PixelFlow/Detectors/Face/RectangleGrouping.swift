/// Groups overlapping detection windows into objects, as OpenCV's
/// `cv::groupRectangles(rectList, groupThreshold, eps)` does.
///
/// Two rectangles are *similar* when each of their four edges differs by at most
/// `eps x (min(w1, w2) + min(h1, h2)) / 2`; groups are the connected components of that
/// relation (OpenCV's `partition`), numbered in order of their first member. Each group is
/// replaced by its mean rectangle (sums times `1/n` in single precision, rounded half to even,
/// as `saturate_cast<int>(float)`), groups of at most `threshold` members are dropped, and so
/// is a group whose mean lies inside another kept group's mean (enlarged by `eps` of its size)
/// when that other group is larger (`n2 > max(3, n1)`) or this one is small (`n1 < 3`).
/// `threshold <= 0` returns the input unchanged.
///
/// - Complexity: O(n²) similarity tests for n rectangles, O(n) memory.
enum _RectangleGrouping {
    static func group(_ rects: [_IntRect], threshold: Int, eps: Double) -> [_IntRect] {
        groupCounting(rects, threshold: threshold, eps: eps).map(\.rect)
    }

    /// `group`, with the number of raw rectangles in each kept group (1 each when
    /// `threshold <= 0`).
    static func groupCounting(_ rects: [_IntRect], threshold: Int, eps: Double) -> [(rect: _IntRect, count: Int)] {
        guard threshold > 0, !rects.isEmpty else { return rects.map { ($0, 1) } }
        let n = rects.count
        // Union-find over the similarity graph. Sorting by x lets the inner loop stop once x
        // differences exceed the largest possible delta; components do not depend on order.
        var parent = Array(0..<n)
        func find(_ i: Int) -> Int {
            var r = i
            while parent[r] != r { r = parent[r] }
            var k = i
            while parent[k] != r { let next = parent[k]; parent[k] = r; k = next }
            return r
        }
        let order = (0..<n).sorted { rects[$0].x < rects[$1].x || (rects[$0].x == rects[$1].x && $0 < $1) }
        let maxSide = rects.map { max($0.width, $0.height) }.max() ?? 0
        let maxDelta = eps * Double(maxSide)
        for a in 0..<n {
            let i = order[a]
            let r1 = rects[i]
            var b = a + 1
            while b < n {
                let j = order[b]
                let r2 = rects[j]
                if Double(r2.x - r1.x) > maxDelta { break }
                if similar(r1, r2, eps: eps) {
                    let ri = find(i), rj = find(j)
                    if ri != rj { parent[max(ri, rj)] = min(ri, rj) }
                }
                b += 1
            }
        }
        // Label classes in order of their first member, as OpenCV's partition does.
        var label = [Int](repeating: -1, count: n)
        var classOfRoot = [Int: Int]()
        for i in 0..<n {
            let r = find(i)
            if let c = classOfRoot[r] {
                label[i] = c
            } else {
                classOfRoot[r] = classOfRoot.count
                label[i] = classOfRoot.count - 1
            }
        }
        let classes = classOfRoot.count
        var sums = [(x: Int, y: Int, w: Int, h: Int)](repeating: (0, 0, 0, 0), count: classes)
        var counts = [Int](repeating: 0, count: classes)
        for i in 0..<n {
            let c = label[i]
            sums[c].x += rects[i].x; sums[c].y += rects[i].y
            sums[c].w += rects[i].width; sums[c].h += rects[i].height
            counts[c] += 1
        }
        var means: [_IntRect] = []
        means.reserveCapacity(classes)
        for c in 0..<classes {
            let s = 1 / Float(counts[c])
            @inline(__always) func avg(_ v: Int) -> Int { Int((Float(v) * s).rounded(.toNearestOrEven)) }
            means.append(_IntRect(x: avg(sums[c].x), y: avg(sums[c].y), width: avg(sums[c].w), height: avg(sums[c].h)))
        }
        var out: [(rect: _IntRect, count: Int)] = []
        for i in 0..<classes {
            let r1 = means[i], n1 = counts[i]
            if n1 <= threshold { continue }
            var swallowed = false
            for j in 0..<classes where j != i {
                let n2 = counts[j]
                if n2 <= threshold { continue }
                let r2 = means[j]
                let dx = Int((Double(r2.width) * eps).rounded(.toNearestOrEven))
                let dy = Int((Double(r2.height) * eps).rounded(.toNearestOrEven))
                if r1.x >= r2.x - dx && r1.y >= r2.y - dy && r1.x + r1.width <= r2.x + r2.width + dx
                    && r1.y + r1.height <= r2.y + r2.height + dy && (n2 > max(3, n1) || n1 < 3)
                {
                    swallowed = true
                    break
                }
            }
            if !swallowed { out.append((r1, n1)) }
        }
        return out
    }

    /// OpenCV's `SimilarRects` predicate.
    @inline(__always)
    static func similar(_ r1: _IntRect, _ r2: _IntRect, eps: Double) -> Bool {
        let delta = eps * Double(min(r1.width, r2.width) + min(r1.height, r2.height)) * 0.5
        return Double(abs(r1.x - r2.x)) <= delta && Double(abs(r1.y - r2.y)) <= delta
            && Double(abs(r1.x + r1.width - r2.x - r2.width)) <= delta
            && Double(abs(r1.y + r1.height - r2.y - r2.height)) <= delta
    }
}
