// The search behind `QRCodeDetector`: finder triples, grid estimation, sampling, decoding.

extension QRCodeDetector {
    /// Every code readable from dark-on-light finder patterns of `img`. Stops before the next
    /// decoding attempt once `control` is cancelled.
    static func _search(_ img: QRBinaryImage, options: DetectorOptions, control: RenderControl? = nil) -> [QRCodeFeature] {
        var evidence = QRFinderEvidence()
        return _search(img, options: options, control: control, evidence: &evidence)
    }

    /// `_search(_:options:control:)`, also setting `evidence` from the finder candidates: how
    /// much the image looks like it holds a code of this polarity, and of what module size,
    /// which decides whether costlier retries are worth it.
    /// `sparse` scans every other row and still wants two scan lines per finder candidate:
    /// for the full-resolution low-contrast pass, whose binarization turns flat areas into
    /// noise (half the rows to scan, and far fewer chance candidates to read).
    /// `finders`, when given, are this image's candidates from an earlier scan
    /// (`_scanBoth`), so that the image is not scanned again. `retry`: a pass after nothing
    /// was found, which tries at most `retryAttempts` triples.
    static func _search(
        _ img: QRBinaryImage, options: DetectorOptions, control: RenderControl?, evidence: inout QRFinderEvidence,
        sparse: Bool = false, finders given: [QRFinderPattern]? = nil, retry: Bool = false
    ) -> [QRCodeFeature] {
        let high = options.accuracy == .high
        let finders: [QRFinderPattern]
        if let given {
            finders = given
        } else {
            let scan = _scanParameters(img, options: options, sparse: sparse)
            finders = QRFinderPatternFinder.find(
                in: img, rowStep: scan.rowStep, maximumCount: scan.maximumCount, quorum: scan.quorum)
        }
        evidence = QRFinderEvidence(finders)
        guard finders.count >= 3 else { return [] }
        let triples = _plausibleTriples(finders)
        var used = [Bool](repeating: false, count: finders.count)
        var results: [QRCodeFeature] = []
        var attempts = 0
        let maximumAttempts = Swift.min(high ? 100 : 30, retry && !options.tryHarder ? retryAttempts : .max)
        let reader = QRGridReader(image: img, tries: high ? 3 : 2)
        for t in triples {
            if used[t.0] || used[t.1] || used[t.2] { continue }
            if attempts >= maximumAttempts || control?.isCancelled == true { break }
            attempts += 1
            guard let feature = reader.read(finders[t.0], finders[t.1], finders[t.2]) else { continue }
            results.append(feature)
            used[t.0] = true
            used[t.1] = true
            used[t.2] = true
            for i in finders.indices where !used[i] && _quad(feature.corners, contains: finders[i].point) {
                used[i] = true
            }
        }
        return results
    }

    /// Finder triples a retry pass tries at most (unless trying harder). Every code the hard
    /// set's retries read was read from the first triple tried; images without a code tried
    /// up to 100 in each retry pass.
    static let retryAttempts = 10

    /// How `_search` scans `img` for finder candidates: every row at accuracy high, else up
    /// to every third on large images; every other row at least when `sparse`.
    static func _scanParameters(
        _ img: QRBinaryImage, options: DetectorOptions, sparse: Bool
    ) -> (rowStep: Int, maximumCount: Int, quorum: Int?) {
        let high = options.accuracy == .high
        var rowStep = high ? 1 : Swift.max(1, Swift.min(3, Swift.min(img.width, img.height) / 360))
        if sparse { rowStep = Swift.max(rowStep, 2) }
        return (rowStep, high ? 48 : 30, sparse ? 2 : nil)
    }

    /// The finder candidates of both polarities of `img` from one scan, as `_search` would
    /// find them in `img` and in `img.inverted()`.
    static func _scanBoth(
        _ img: QRBinaryImage, options: DetectorOptions, sparse: Bool = false
    ) -> (dark: [QRFinderPattern], light: [QRFinderPattern]) {
        let scan = _scanParameters(img, options: options, sparse: sparse)
        return QRFinderPatternFinder.findBoth(
            in: img, rowStep: scan.rowStep, maximumCount: scan.maximumCount, quorum: scan.quorum)
    }

    /// Index triples of finder candidates that could be the three corners of one symbol, best
    /// first: module sizes within a factor 2.2, two sides within a factor 2.2 at 50 to 130
    /// degrees (a symbol tilted up to about 60 degrees towards a close camera), at least about
    /// 8 module sizes apart.
    static func _plausibleTriples(_ f: [QRFinderPattern]) -> [(Int, Int, Int)] {
        var scored: [(score: Double, triple: (Int, Int, Int))] = []
        let n = f.count
        for i in 0..<n {
            for j in (i + 1)..<Swift.max(i + 1, n) {
                for k in (j + 1)..<Swift.max(j + 1, n) {
                    let a = f[i], b = f[j], c = f[k]
                    let lo = Swift.min(a.moduleSize, b.moduleSize, c.moduleSize)
                    let hi = Swift.max(a.moduleSize, b.moduleSize, c.moduleSize)
                    guard lo > 0, hi / lo <= 2.2 else { continue }
                    var s = [a.distance(to: b), b.distance(to: c), c.distance(to: a)]
                    s.sort()
                    let mean = (a.moduleSize + b.moduleSize + c.moduleSize) / 3
                    guard s[0] / mean >= 7.8, s[1] / s[0] <= 2.2 else { continue }
                    let cosine = (s[0] * s[0] + s[1] * s[1] - s[2] * s[2]) / (2 * s[0] * s[1])
                    guard Swift.abs(cosine) < 0.64 else { continue }
                    guard (s[0] + s[1]) / 2 / mean + 7 <= 200 else { continue }
                    let score =
                        Swift.abs(cosine) + (s[1] / s[0] - 1) + (hi / lo - 1)
                        - 0.02 * Double(Swift.min(a.count, b.count, c.count, 10))
                    scored.append((score, (i, j, k)))
                }
            }
        }
        scored.sort { $0.score < $1.score }
        return scored.map(\.triple)
    }

    /// Whether `p` is inside the convex quad `q` (in order around its boundary).
    static func _quad(_ q: [Point], contains p: Point) -> Bool {
        var sign = 0.0
        for i in 0..<4 {
            let a = q[i], b = q[(i + 1) % 4]
            let cross = (b.x - a.x) * (p.y - a.y) - (b.y - a.y) * (p.x - a.x)
            if cross == 0 { continue }
            if sign == 0 { sign = cross } else if (sign > 0) != (cross > 0) { return false }
        }
        return true
    }
}

/// What one polarity's finder scan saw: the most scan lines that confirmed one candidate (0
/// without candidates), the smallest candidate's module size in pixels (infinite without),
/// and the pixels a symbol of confirmed candidates can cover.
struct QRFinderEvidence {
    var lines = 0
    var smallestModule = Double.infinity
    /// How many candidates have modules under 3 pixels.
    var smallCount = 0
    /// The bounds of every candidate, each as a square of 8 of its modules plus 16 pixels
    /// each way from its centre (the finder, its separator and the quiet zone, with room for
    /// the threshold window): a symbol whose three finders were found lies inside;
    /// `(0, 0, 0, 0)` without candidates.
    var region = (x0: 0, y0: 0, x1: 0, y1: 0)

    init() {}

    init(_ finders: [QRFinderPattern]) {
        lines = finders.map(\.count).max() ?? 0
        smallestModule = finders.map(\.moduleSize).min() ?? .infinity
        smallCount = finders.count { $0.moduleSize < 3 }
        var first = true
        for f in finders {
            let reach = 8 * f.moduleSize + 16
            guard reach.isFinite else { continue }
            let box = (
                x0: Int((f.x - reach).rounded(.down)), y0: Int((f.y - reach).rounded(.down)),
                x1: Int((f.x + reach).rounded(.up)), y1: Int((f.y + reach).rounded(.up))
            )
            region =
                first
                ? box
                : (
                    Swift.min(region.x0, box.x0), Swift.min(region.y0, box.y0),
                    Swift.max(region.x1, box.x1), Swift.max(region.y1, box.y1)
                )
            first = false
        }
    }
}

/// Reads one symbol from three finder centres: orientation, size, alignment pattern,
/// homography, sampling, decoding.
struct QRGridReader {
    let image: QRBinaryImage
    /// How many symbol sizes to try around the estimate.
    let tries: Int
    /// The finders' edge points, traced once per finder.
    let edges = QRFinderEdgeCache()

    func read(_ a: QRFinderPattern, _ b: QRFinderPattern, _ c: QRFinderPattern) -> QRCodeFeature? {
        // The top-left finder is at the corner nearest a right angle. Under strong perspective
        // that is not always the one opposite the longest side, so each corner whose angle is
        // within 50-130 degrees is tried, nearest 90 first; wrong ones fail the timing and
        // format gate.
        var corners: [(cosine: Double, tl: QRFinderPattern, p: QRFinderPattern, q: QRFinderPattern)] = []
        for (tl, p, q) in [(a, b, c), (b, c, a), (c, a, b)] {
            let e = Point(x: p.x - tl.x, y: p.y - tl.y), f = Point(x: q.x - tl.x, y: q.y - tl.y)
            let lengths = (e.x * e.x + e.y * e.y).squareRoot() * (f.x * f.x + f.y * f.y).squareRoot()
            guard lengths > 0 else { continue }
            let cosine = Swift.abs(e.x * f.x + e.y * f.y) / lengths
            if cosine < 0.64 { corners.append((cosine, tl, p, q)) }
        }
        corners.sort { $0.cosine < $1.cosine }
        for (_, tl, p, q) in corners {
            let cross = (p.x - tl.x) * (q.y - tl.y) - (p.y - tl.y) * (q.x - tl.x)
            let (tr, bl) = cross > 0 ? (p, q) : (q, p)
            if let feature = read(tl: tl, tr: tr, bl: bl) { return feature }
        }
        return nil
    }

    /// The symbol with top-left finder `tl`, top-right `tr` and bottom-left `bl`, if it decodes.
    func read(tl: QRFinderPattern, tr: QRFinderPattern, bl: QRFinderPattern) -> QRCodeFeature? {
        let msTop = moduleSize(tl, tr), msLeft = moduleSize(tl, bl)
        guard msTop > 0, msLeft > 0 else { return nil }
        let estimate = (tl.distance(to: tr) / msTop + tl.distance(to: bl) / msLeft) / 2 + 7
        guard estimate.isFinite, estimate >= 15, estimate <= 185 else { return nil }
        var sizes: [Int] = []
        let nearest = Int(((estimate - 17) / 4).rounded()) * 4 + 17
        for d in [0, 4, -4, 8, -8].prefix(tries == 3 ? 5 : 3) where (21...177).contains(nearest + d) { sizes.append(nearest + d) }
        if estimate >= 37, let v = versionFromInformation(tl: tl, tr: tr, bl: bl, msTop: msTop, msLeft: msLeft) {
            sizes.removeAll { $0 == v.size }
            sizes.insert(v.size, at: 0)
        }
        let geometry = QRFinderGeometry(image: image, cache: edges).finderSquares(tl: tl, tr: tr, bl: bl)
        for n in sizes {
            if let f = read(
                size: n, tl: tl, tr: tr, bl: bl, moduleSize: (msTop + msLeft) / 2, corners: geometry?.corners,
                squares: geometry?.squares)
            {
                return f
            }
        }
        return nil
    }

    /// Tries an n x n grid on the three finders, with the alignment pattern when found.
    /// `corners`, when the finders' edges gave them, are the symbol's outer corners (with
    /// perspective); grids from them are tried before the affine grid of the finder centres.
    /// `squares`, the finders' outer squares, give a grid fitted to all twelve of their
    /// corners, tried first (it holds under strong perspective, where extrapolated edges drift).
    func read(
        size n: Int, tl: QRFinderPattern, tr: QRFinderPattern, bl: QRFinderPattern, moduleSize: Double,
        corners: [Point]? = nil, squares: [[Point]]? = nil
    ) -> QRCodeFeature? {
        guard let version = QRVersion(size: n) else { return nil }
        let span = Double(n - 7)
        let u = Point(x: (tr.x - tl.x) / span, y: (tr.y - tl.y) / span)
        let v = Point(x: (bl.x - tl.x) / span, y: (bl.y - tl.y) / span)
        let nn = Double(n)
        let source3 = [Point(x: 3.5, y: 3.5), Point(x: nn - 3.5, y: 3.5), Point(x: 3.5, y: nn - 3.5)]
        let image3 = [tl.point, tr.point, bl.point]
        let outline = corners.flatMap {
            QRPerspectiveTransform(
                from: [Point(x: 0, y: 0), Point(x: nn, y: 0), Point(x: nn, y: nn), Point(x: 0, y: nn)], to: $0)
        }
        // Cheap gate before the alignment search: on the grid from the outline or the affine
        // grid of the three finders, the timing patterns must mostly alternate and one format
        // copy must be near a codeword.
        guard
            let affine = QRPerspectiveTransform(
                from: [source3[0], source3[1], Point(x: nn - 3.5, y: nn - 3.5), source3[2]],
                to: [image3[0], image3[1], Point(x: tr.x + bl.x - tl.x, y: tr.y + bl.y - tl.y), image3[2]])
        else { return nil }
        let fitted = squares.flatMap { QRFinderGeometry.fittedGrid(squares: $0, size: n) }
        guard
            fitted.map({ plausibleGrid($0, size: n) }) == true || outline.map({ plausibleGrid($0, size: n) }) == true
                || plausibleGrid(affine, size: n)
        else { return nil }
        // The fourth point of each grid to try, with the three finder centres.
        var fourth: [(Point, Point)] = []
        if version.number >= 2 {
            let k = nn - 10
            // Where each grid puts the alignment pattern, with that grid's module vectors there
            // (under perspective, modules near the bottom-right corner can be half or twice the
            // finders' size, and turned).
            // The grids from the finders' edges are off by a few modules at most there: 4
            // modules around is enough; the affine grid of the centres also looks 8 around.
            var guesses = [(Point(x: tl.x + k * (u.x + v.x), y: tl.y + k * (u.y + v.y)), u, v, moduleSize, [4.0, 8.0])]
            for grid in [outline, fitted] {
                guard let grid else { continue }
                let local = grid.moduleVectors(at: nn - 6.5, nn - 6.5)
                let size = (local.u.length * local.v.length).squareRoot()
                guard size.isFinite, size > 0 else { continue }
                guesses.insert((grid.apply(nn - 6.5, nn - 6.5), local.u, local.v, size, [4.0]), at: 0)
            }
            var searched: [Point] = []
            for (expected, u, v, moduleSize, radii) in guesses {
                // A guess within a module of one already searched would find the same pattern.
                if searched.contains(where: {
                    ($0.x - expected.x) * ($0.x - expected.x) + ($0.y - expected.y) * ($0.y - expected.y) < moduleSize
                        * moduleSize
                }) {
                    continue
                }
                searched.append(expected)
                if let found = findAlignment(near: expected, u: u, v: v, moduleSize: moduleSize, radii: radii),
                    !fourth.contains(where: { Swift.abs($0.1.x - found.x) + Swift.abs($0.1.y - found.y) < 0.5 })
                {
                    fourth.append((Point(x: nn - 6.5, y: nn - 6.5), found))
                }
            }
        }
        if let outline {
            fourth.append((Point(x: nn - 3.5, y: nn - 3.5), outline.apply(nn - 3.5, nn - 3.5)))
        }
        fourth.append((Point(x: nn - 3.5, y: nn - 3.5), Point(x: tr.x + bl.x - tl.x, y: tr.y + bl.y - tl.y)))
        // Each grid is read twice: one thresholded pixel per module centre, then (for blurred,
        // noisy or JPEG-damaged symbols) the mean luminance around the centre against the
        // local threshold.
        let radius = moduleSize >= 5 ? Int(moduleSize / 5) : 0
        var grids: [QRPerspectiveTransform] = []
        for (src, dst) in fourth {
            let from = [source3[0], source3[1], src, source3[2]]
            let to = [image3[0], image3[1], dst, image3[2]]
            if let t = QRPerspectiveTransform(from: from, to: to) { grids.append(t) }
        }
        var refineAfterFirst: (QRVersion, [[Point]])?
        if let fitted, let squares {
            // The finder corners and the alignment pattern together, then the finders alone.
            let alignments = fourth.filter { $0.0.x == nn - 6.5 }
            if let (src, dst) = alignments.first {
                var source: [Point] = [], target: [Point] = squares.flatMap { $0 }
                for (ox, oy) in [(0.0, 0.0), (nn - 7, 0.0), (0.0, nn - 7)] {
                    source += [
                        Point(x: ox, y: oy), Point(x: ox + 7, y: oy), Point(x: ox + 7, y: oy + 7), Point(x: ox, y: oy + 7),
                    ]
                }
                for _ in 0..<4 {
                    source.append(src)
                    target.append(dst)
                }
                if let t = QRPerspectiveTransform(fitting: source, to: target) { grids.insert(t, at: 0) }
            }
            grids.insert(fitted, at: alignments.isEmpty ? 0 : Swift.min(grids.count, 2))
            // Larger versions: every alignment pattern found near where the best grid puts it,
            // and one grid fitted to them all with the finder corners, tried second (made
            // only when the first grid fails: most codes seen at moderate angles read without).
            if version.alignmentPatternCenters.count > 2, !alignments.isEmpty {
                refineAfterFirst = (version, squares)
            }
        }
        var index = 0
        while index < grids.count {
            if index == 1, let (version, squares) = refineAfterFirst,
                let all = refinedGrid(grids[0], version: version, squares: squares)
            {
                grids.insert(all, at: 1)
            }
            let t = grids[index]
            index += 1
            var attempt: (matrix: QRBitMatrix, decoded: QRCodeDecoded)?
            for averaged in [false, true] {
                let matrix = QRBitMatrix(size: n) { x, y in
                    let p = t.apply(Double(x) + 0.5, Double(y) + 0.5)
                    return averaged ? image.isDarkAveraged(at: p.x, p.y, radius: radius) : image.isDark(at: p.x, p.y)
                }
                guard
                    QRCodeDecoder.formatInformation(of: matrix) != nil
                        || QRCodeDecoder.formatInformation(of: matrix.transposed()) != nil,
                    let decoded = try? QRCodeDecoder().decode(matrix)
                else { continue }
                attempt = (matrix, decoded)
                break
            }
            guard let decoded = attempt?.decoded else { continue }
            var corners = [t.apply(0, 0), t.apply(nn, 0), t.apply(nn, nn), t.apply(0, nn)]
            if decoded.isMirrored { corners.swapAt(1, 3) }
            guard corners.allSatisfy({ $0.x.isFinite && $0.y.isFinite }) else { continue }
            return QRCodeFeature(
                topLeft: corners[0], topRight: corners[1], bottomRight: corners[2],
                bottomLeft: corners[3], decoded: decoded)
        }
        return nil
    }

    /// Whether the grid `t` (module space to image) of an n x n symbol shows timing patterns
    /// (at least 70% of the modules of row 6 and column 6 between the finder patterns
    /// alternate as they should) and format information within 2 bits of a codeword in
    /// either copy (or in the transposed reading, for mirrored symbols).
    func plausibleGrid(_ t: QRPerspectiveTransform, size n: Int) -> Bool {
        func dark(_ x: Int, _ y: Int) -> Bool {
            let p = t.apply(Double(x) + 0.5, Double(y) + 0.5)
            return image.isDark(at: p.x, p.y)
        }
        var good = 0
        for i in 8..<(n - 8) {
            let want = i % 2 == 0
            if dark(i, 6) == want { good += 1 }
            if dark(6, i) == want { good += 1 }
        }
        guard 10 * good >= 7 * 2 * (n - 16) else { return false }
        var m = QRBitMatrix(size: n)
        for copy in 0..<2 {
            for (x, y) in QRSymbolLayout.formatPositions(size: n, copy: copy) {
                m[x, y] = dark(x, y)
                m[y, x] = dark(y, x)
            }
        }
        if let f = QRCodeDecoder.formatInformation(of: m), f.bitErrors <= 2 { return true }
        if let f = QRCodeDecoder.formatInformation(of: m.transposed()), f.bitErrors <= 2 { return true }
        return false
    }

    /// Module size along the line between two finder centres, measured at both ends: from
    /// each centre, the distance to the outer edge of its pattern both ways is 7 modules.
    func moduleSize(_ a: QRFinderPattern, _ b: QRFinderPattern) -> Double {
        let one = widthAcross(a, toward: b), two = widthAcross(b, toward: a)
        switch (one, two) {
        case let (x?, y?): return (x + y) / 14
        case let (x?, nil): return x / 7
        case let (nil, y?): return y / 7
        default: return (a.moduleSize + b.moduleSize) / 2
        }
    }

    /// The width of the finder pattern at `a` along the direction to `b`, pixels.
    func widthAcross(_ a: QRFinderPattern, toward b: QRFinderPattern) -> Double? {
        let d = a.distance(to: b)
        guard d > 0 else { return nil }
        let ux = (b.x - a.x) / d, uy = (b.y - a.y) / d
        let limit = 8 * a.moduleSize
        func edge(_ sign: Double) -> Double? {
            var t = 0.0
            var state = 0
            guard image.isDark(at: a.x, a.y) else { return nil }
            while t < limit {
                t += 0.5
                let dark = image.isDark(at: a.x + sign * t * ux, a.y + sign * t * uy)
                switch state {
                case 0, 2: if !dark { state += 1 }
                case 1: if dark { state = 2 }
                default: break
                }
                if state == 3 { return t - 0.25 }
            }
            return nil
        }
        guard let f = edge(1), let g = edge(-1) else { return nil }
        let w = f + g
        return 5 * Swift.abs(w / 7 - a.moduleSize) < 3 * a.moduleSize ? w : nil
    }

    /// The version read from either version information block (versions 7 and up), located
    /// from the nearby finder pattern with local module vectors.
    func versionFromInformation(
        tl: QRFinderPattern, tr: QRFinderPattern, bl: QRFinderPattern,
        msTop: Double, msLeft: Double
    ) -> QRVersion? {
        let dTop = tl.distance(to: tr), dLeft = tl.distance(to: bl)
        guard dTop > 0, dLeft > 0 else { return nil }
        let u = Point(x: (tr.x - tl.x) / dTop * msTop, y: (tr.y - tl.y) / dTop * msTop)
        let v = Point(x: (bl.x - tl.x) / dLeft * msLeft, y: (bl.y - tl.y) / dLeft * msLeft)
        func sample(_ c: QRFinderPattern, _ dx: Double, _ dy: Double) -> Bool {
            image.isDark(at: c.x + dx * u.x + dy * v.x, c.y + dx * u.y + dy * v.y)
        }
        var top: UInt32 = 0, left: UInt32 = 0
        for i in 0..<18 {
            if sample(tr, Double(-7 + i % 3), Double(i / 3 - 3)) { top |= 1 << UInt32(i) }
            if sample(bl, Double(i / 3 - 3), Double(-7 + i % 3)) { left |= 1 << UInt32(i) }
        }
        return QRVersion(versionInformation: top) ?? QRVersion(versionInformation: left)
    }

    /// The grid of a symbol of `version` fitted by least squares to the twelve outer corners of
    /// its finder `squares` and to every alignment pattern found within 2 modules of where `t`
    /// puts it (searched with `t`'s local module vectors), in two rounds: the second searches
    /// from the grid of the first. Centres that stray from the fitted grid by more than 0.75
    /// module (a look-alike in the data) are dropped before the last fit. nil when fewer than
    /// two alignment patterns are found.
    ///
    /// A homography from the finders alone is pinned down at three corners of the symbol; the
    /// alignment patterns spread over it fix its perspective where the finders say least.
    func refinedGrid(_ t: QRPerspectiveTransform, version: QRVersion, squares: [[Point]]) -> QRPerspectiveTransform? {
        let n = version.size
        let nn = Double(n)
        var finderSource: [Point] = []
        for (ox, oy) in [(0.0, 0.0), (nn - 7, 0.0), (0.0, nn - 7)] {
            finderSource += [Point(x: ox, y: oy), Point(x: ox + 7, y: oy), Point(x: ox + 7, y: oy + 7), Point(x: ox, y: oy + 7)]
        }
        let finderTarget = squares.flatMap { $0 }
        let centres = version.alignmentPatternCenters
        var modules: [Point] = []
        for cy in centres {
            for cx in centres {
                // The three corners held by finder patterns have none.
                if (cx < 10 && cy < 10) || (cx < 10 && cy > n - 10) || (cx > n - 10 && cy < 10) { continue }
                modules.append(Point(x: Double(cx) + 0.5, y: Double(cy) + 0.5))
            }
        }
        var grid = t
        var found: [Point?] = Array(repeating: nil, count: modules.count)
        var result: QRPerspectiveTransform?
        for _ in 0..<2 {
            for (i, m) in modules.enumerated() where found[i] == nil {
                let local = grid.moduleVectors(at: m.x, m.y)
                let size = (local.u.length * local.v.length).squareRoot()
                guard size.isFinite, size > 0 else { continue }
                found[i] = findAlignment(
                    near: grid.apply(m.x, m.y), u: local.u, v: local.v, moduleSize: size, radii: [2])
            }
            var source = finderSource, target = finderTarget
            for (i, p) in found.enumerated() {
                guard let p else { continue }
                source.append(modules[i])
                target.append(p)
            }
            guard source.count >= finderSource.count + 2, let fit = QRPerspectiveTransform(fitting: source, to: target)
            else { return result }
            // Drop outliers and refit.
            for (i, p) in found.enumerated() {
                guard let p else { continue }
                let q = fit.apply(modules[i].x, modules[i].y)
                let size = (fit.moduleVectors(at: modules[i].x, modules[i].y).u.length)
                if ((q.x - p.x) * (q.x - p.x) + (q.y - p.y) * (q.y - p.y)).squareRoot() > 0.75 * size { found[i] = nil }
            }
            source = finderSource
            target = finderTarget
            for (i, p) in found.enumerated() {
                guard let p else { continue }
                source.append(modules[i])
                target.append(p)
            }
            guard source.count >= finderSource.count + 2, let refit = QRPerspectiveTransform(fitting: source, to: target)
            else { return result }
            grid = refit
            result = refit
        }
        return result
    }

    /// The centre of an alignment pattern (5 x 5 modules: dark ring, light ring, dark centre)
    /// near `expected`, by matching that template on the module grid (u, v) at each position
    /// of a window, `radii` modules around in turn; the centroid of the best-matching positions.
    func findAlignment(
        near expected: Point, u: Point, v: Point, moduleSize: Double, radii: [Double] = [4, 8]
    ) -> Point? {
        var offsets: [(Double, Double, Bool)] = []
        for j in -2...2 {
            for i in -2...2 {
                offsets.append(
                    (
                        Double(i) * u.x + Double(j) * v.x, Double(i) * u.y + Double(j) * v.y,
                        Swift.max(Swift.abs(i), Swift.abs(j)) != 1
                    ))
            }
        }
        // The template's score at (x, y): how many of its 25 samples match. Below `floor` the
        // exact value does not matter (it can neither win nor pass), so the count stops as
        // soon as the misses rule `floor` out and returns -1.
        func score(_ x: Double, _ y: Double, floor: Int = 0) -> Int {
            var s = 0
            var misses = 0
            let allowed = offsets.count - floor
            for (dx, dy, dark) in offsets {
                if image.isDark(at: x + dx, y + dy) == dark {
                    s += 1
                } else {
                    misses += 1
                    if misses > allowed { return -1 }
                }
            }
            return s
        }
        guard expected.x.isFinite, expected.y.isFinite, moduleSize.isFinite, moduleSize > 0 else { return nil }
        // Half a module: every sample then still falls in its own module of the template.
        let step = Swift.max(1.0, moduleSize / 2)
        for radius in radii {
            let r = radius * moduleSize
            var best = -1
            var bestPoint = expected
            var bestDistance = Double.infinity
            var y = expected.y - r
            while y <= expected.y + r {
                var x = expected.x - r
                while x <= expected.x + r {
                    // Only a score of at least 21 (the pass mark) and the best so far matters.
                    let s = score(x, y, floor: Swift.max(best, 21))
                    let d = (x - expected.x) * (x - expected.x) + (y - expected.y) * (y - expected.y)
                    if s > best || (s == best && d < bestDistance) {
                        best = s
                        bestPoint = Point(x: x, y: y)
                        bestDistance = d
                    }
                    x += step
                }
                y += step
            }
            guard best >= 21 else { continue }
            // Refine around the coarse best, at steps of an eighth of a module (half a pixel at
            // least): the centroid of the best positions is finer than the steps, and the
            // cost no longer grows with the square of the module size.
            let reach = step + moduleSize / 2
            let fine = Swift.max(0.5, moduleSize / 8)
            var top = -1
            var sx = 0.0, sy = 0.0, count = 0.0
            var yy = bestPoint.y - reach
            while yy <= bestPoint.y + reach {
                var xx = bestPoint.x - reach
                while xx <= bestPoint.x + reach {
                    let s = score(xx, yy, floor: top)
                    if s > top {
                        top = s
                        sx = 0
                        sy = 0
                        count = 0
                    }
                    if s == top {
                        sx += xx
                        sy += yy
                        count += 1
                    }
                    xx += fine
                }
                yy += fine
            }
            return Point(x: sx / count, y: sy / count)
        }
        return nil
    }
}
