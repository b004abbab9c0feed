// Cell filters: pixellate (square cells), hexagonal pixellate, crystallize (Voronoi cells
// of jittered seeds) and pointillize (discs at jittered seeds). Each is one nearest-sampling
// custom warp: an output pixel center p samples the input at the point that represents its
// cell, so a cell takes one input pixel's color. Positions are image coordinates in pixels,
// origin at the top-left, y down; c is `inputCenter`, the grid's origin.
//
// | filter | cells | p samples |
// |---|---|---|
// | pixellate | squares of side s, one corner at c | the square's center |
// | hexagonal pixellate | hexagons around the triangular lattice c + i (s, 0) + j (s/2, s sqrt(3)/2) | the nearest lattice point |
// | crystallize | Voronoi cells of seeds c + r (i + u, j + v), u, v in [0, 1) hashed from (i, j) | the nearest seed |
// | pointillize | discs of radius r about seeds c + 2r (i + u, j + v) | the nearest seed if within r, else transparent |
//
// The seed jitter is a fixed integer hash of the cell (SplitMix64 finalizer), so results do
// not depend on tiles or threads. Each warp's region of interest is the rect its sampled
// points can fall in: exact bounds for pixellate, the output rect grown by the cells' reach
// for the others.

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

extension FilterDescriptor {
    static let stylizeCellFilters: [FilterDescriptor] = [pixellate, hexagonalPixellate, crystallize, pointillize]

    static func _cellScale(_ key: String, _ type: FilterAttributeType, default value: Double, _ summary: String) -> FilterInput {
        .number(key, type, default: value, min: 1, max: 1000, sliderMin: 1, sliderMax: 100, summary: summary)
    }

    static let pixellate = FilterDescriptor(
        name: "CIPixellate", displayName: "Pixellate",
        summary:
            "Makes the image blocky: square cells of side scale, aligned on the center, each taking the color at its center.",
        categories: [.stylize],
        inputs: [.image(), _center(), _cellScale("inputScale", .distance, default: 8, "The side of a cell, in pixels.")]
    ) { a in
        try a.image()._pixellated(center: try a._point("inputCenter"), scale: try a.number("inputScale"))
    }

    static let hexagonalPixellate = FilterDescriptor(
        name: "CIHexagonalPixellate", displayName: "Hexagonal Pixellate",
        summary:
            "Makes the image into hexagons: cells around a triangular lattice of spacing scale, each taking the color at its center.",
        categories: [.stylize],
        inputs: [
            .image(), _center(),
            _cellScale("inputScale", .distance, default: 8, "The distance between neighbouring hexagons' centers, in pixels."),
        ]
    ) { a in
        try a.image()._hexagonalPixellated(center: try a._point("inputCenter"), scale: try a.number("inputScale"))
    }

    static let crystallize = FilterDescriptor(
        name: "CICrystallize", displayName: "Crystallize",
        summary:
            "Makes polygonal color blocks: Voronoi cells of seeds jittered on a grid of spacing radius, each taking the color at its seed.",
        categories: [.stylize],
        inputs: [
            .image(), _cellScale("inputRadius", .distance, default: 20, "The grid spacing of the seeds, in pixels."), _center(),
        ]
    ) { a in
        try a.image()._crystallized(center: try a._point("inputCenter"), radius: try a.number("inputRadius"))
    }

    static let pointillize = FilterDescriptor(
        name: "CIPointillize", displayName: "Pointillize",
        summary:
            "Renders the image as single-color discs of the radius about seeds jittered on a grid of spacing 2 radius; transparent between the discs.",
        categories: [.stylize],
        inputs: [.image(), _cellScale("inputRadius", .distance, default: 20, "The radius of the discs, in pixels."), _center()]
    ) { a in
        try a.image()._pointillized(center: try a._point("inputCenter"), radius: try a.number("inputRadius"))
    }

    /// A jitter in [0, 1)^2 for cell (i, j), a fixed hash of the indices.
    @inline(__always) static func _cellJitter(_ i: Int, _ j: Int) -> (Double, Double) {
        var z = UInt64(bitPattern: Int64(i)) &* 0x9E37_79B9_7F4A_7C15 ^ UInt64(bitPattern: Int64(j)) &* 0xC2B2_AE3D_27D4_EB4F
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        z ^= z >> 31
        return (Double(z >> 40) / 16_777_216, Double((z >> 8) & 0xFF_FFFF) / 16_777_216)
    }

    /// `v` rounded down, as an Int saturated to +-2^52 (NaN gives 0): a cell index for any
    /// center and scale, where a plain conversion would trap beyond Int's range.
    @inline(__always) static func _cellIndex(_ v: Double) -> Int {
        guard !v.isNaN else { return 0 }
        return Int(Swift.min(Swift.max(v.rounded(.down), -0x1p52), 0x1p52))
    }

    /// The seed nearest to q (relative to the grid origin) among the jittered seeds of cells
    /// of side `spacing`, searching the 5 x 5 cells around q's (enough: q's own seed is within
    /// spacing * sqrt(2), and seeds three cells away are farther than 2 spacing).
    @inline(__always) static func _nearestSeed(_ qx: Double, _ qy: Double, spacing: Double) -> (x: Double, y: Double, d2: Double)
    {
        let i0 = _cellIndex(qx / spacing), j0 = _cellIndex(qy / spacing)
        var best = (x: 0.0, y: 0.0, d2: Double.infinity)
        for j in (j0 - 2)...(j0 + 2) {
            for i in (i0 - 2)...(i0 + 2) {
                let (u, v) = _cellJitter(i, j)
                let sx = (Double(i) + u) * spacing, sy = (Double(j) + v) * spacing
                let d2 = (sx - qx) * (sx - qx) + (sy - qy) * (sy - qy)
                if d2 < best.d2 { best = (sx, sy, d2) }
            }
        }
        return best
    }
}

extension Image {
    /// The extent grown by `reach` on every side (infinite and empty extents unchanged).
    func _grownExtent(_ reach: Double) -> Rect {
        extent.isInfinite || extent.isEmpty ? extent : extent.insetBy(dx: -reach, dy: -reach)
    }

    func _pixellated(center c: Point, scale s: Double) -> Image {
        @Sendable func cellCenter(_ v: Double, _ o: Double) -> Double { o + ((v - o) / s).rounded(.down) * s + s / 2 }
        var e = extent
        if !e.isInfinite && !e.isEmpty {
            e = Rect(
                minX: c.x + ((e.minX - c.x) / s).rounded(.down) * s, minY: c.y + ((e.minY - c.y) / s).rounded(.down) * s,
                maxX: c.x + ((e.maxX - c.x) / s).rounded(.up) * s, maxY: c.y + ((e.maxY - c.y) / s).rounded(.up) * s)
        }
        return warped(
            named: "pixellate \(c) \(s)", sampling: .nearest, extent: e,
            regionOfInterest: { r in
                if r.isEmpty || r.isInfinite { return r }
                // Pixel centers in r run from minX + 0.5 to maxX - 0.5; the cell centers they map to
                // are monotone in them. The 1-pixel pad keeps a one-cell rect non-empty.
                return Rect(
                    minX: cellCenter(r.minX + 0.5, c.x), minY: cellCenter(r.minY + 0.5, c.y),
                    maxX: cellCenter(r.maxX - 0.5, c.x), maxY: cellCenter(r.maxY - 0.5, c.y)
                ).insetBy(dx: -1, dy: -1)
            }
        ) { x, y in
            Point(x: cellCenter(x, c.x), y: cellCenter(y, c.y))
        }
    }

    func _hexagonalPixellated(center c: Point, scale s: Double) -> Image {
        let h = s * 3.0.squareRoot() / 2
        // Every point is within s / sqrt(3) of a lattice point.
        return warped(
            named: "hexagonal pixellate \(c) \(s)", sampling: .nearest, extent: _grownExtent(s),
            regionOfInterest: { r in r.isInfinite || r.isEmpty ? r : r.insetBy(dx: -(s + 1), dy: -(s + 1)) }
        ) { x, y in
            let qx = x - c.x, qy = y - c.y
            let j0 = FilterDescriptor._cellIndex(qy / h)
            var best = (x: 0.0, y: 0.0, d2: Double.infinity)
            // The nearest lattice point lies in one of the two rows around q (the covering
            // radius s / sqrt(3) is less than the row spacing h), and in its row it is the
            // rounded column.
            for j in j0...(j0 + 1) {
                let shift = Double(j) * s / 2
                let i = ((qx - shift) / s).rounded(.toNearestOrAwayFromZero)
                let px = i * s + shift, py = Double(j) * h
                let d2 = (px - qx) * (px - qx) + (py - qy) * (py - qy)
                if d2 < best.d2 { best = (px, py, d2) }
            }
            return Point(x: c.x + best.x, y: c.y + best.y)
        }
    }

    func _crystallized(center c: Point, radius r: Double) -> Image {
        let reach = 1.5 * r
        return warped(
            named: "crystallize \(c) \(r)", sampling: .nearest, extent: _grownExtent(reach),
            regionOfInterest: { q in q.isInfinite || q.isEmpty ? q : q.insetBy(dx: -(reach + 1), dy: -(reach + 1)) }
        ) { x, y in
            let s = FilterDescriptor._nearestSeed(x - c.x, y - c.y, spacing: r)
            return Point(x: c.x + s.x, y: c.y + s.y)
        }
    }

    func _pointillized(center c: Point, radius r: Double) -> Image {
        return warped(
            named: "pointillize \(c) \(r)", sampling: .nearest, extent: _grownExtent(r),
            regionOfInterest: { q in q.isInfinite || q.isEmpty ? q : q.insetBy(dx: -(r + 1), dy: -(r + 1)) }
        ) { x, y in
            let s = FilterDescriptor._nearestSeed(x - c.x, y - c.y, spacing: 2 * r)
            if s.d2 > r * r { return Point(x: .nan, y: .nan) }  // between the discs: transparent
            return Point(x: c.x + s.x, y: c.y + s.y)
        }
    }

    /// Square cells of side `scale` aligned on `center` (default [150 150]), each taking the
    /// color at its center (`CIPixellate`).
    ///
    /// - Parameters:
    ///   - scale: 1...1000 (default 8).
    ///   - center: the point the cells are aligned on, in pixels (default (150, 150)).
    public func pixellated(center: Point? = nil, scale: Double? = nil) throws -> Image {
        try FilterDescriptor.pixellate.apply([
            "inputImage": .image(self), "inputCenter": center.map { .vector([$0.x, $0.y]) },
            "inputScale": scale.map(FilterValue.number),
        ])
    }

    /// Hexagonal cells around a triangular lattice of spacing `scale` through `center`, each
    /// taking the color at its center (`CIHexagonalPixellate`).
    public func hexagonallyPixellated(center: Point? = nil, scale: Double? = nil) throws -> Image {
        try FilterDescriptor.hexagonalPixellate.apply([
            "inputImage": .image(self), "inputCenter": center.map { .vector([$0.x, $0.y]) },
            "inputScale": scale.map(FilterValue.number),
        ])
    }

    /// Voronoi cells of seeds jittered on a grid of spacing `radius` (`CICrystallize`), each
    /// taking the color at its seed.
    public func crystallized(center: Point? = nil, radius: Double? = nil) throws -> Image {
        try FilterDescriptor.crystallize.apply([
            "inputImage": .image(self), "inputCenter": center.map { .vector([$0.x, $0.y]) },
            "inputRadius": radius.map(FilterValue.number),
        ])
    }

    /// Discs of `radius` about seeds jittered on a grid of spacing 2 radius, each the color at
    /// its seed, transparent between them (`CIPointillize`).
    public func pointillized(center: Point? = nil, radius: Double? = nil) throws -> Image {
        try FilterDescriptor.pointillize.apply([
            "inputImage": .image(self), "inputCenter": center.map { .vector([$0.x, $0.y]) },
            "inputRadius": radius.map(FilterValue.number),
        ])
    }
}
