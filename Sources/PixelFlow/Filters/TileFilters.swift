// Tile filters: periodic warps with infinite extents. Each maps an output position into one
// source tile (a parallelogram, hexagon wedge or triangle of the input around `inputCenter`,
// `inputWidth` pixels across, rotated by `inputAngle` radians) by a symmetry group of the
// plane, so the region of interest is the source tile's bounding box. Positions are
// top-left-origin pixels. Op tile is the exception: each tile shows the image near that
// tile, so its extent is the input's grown by the largest shift.
//
// | filter | group | fold |
// |---|---|---|
// | fourfold translated, parallelogram's translations | p1 | wrap lattice coordinates into [-1/2, 1/2) |
// | fourfold reflected, parallelogram | pmm (cmm when oblique) | mirror lattice coordinates into [-1/2, 1/2] |
// | fourfold rotated | p4 | 2x2 cell, quadrants rotated by 90 degrees |
// | eightfold reflected | p4m | mirror into the square, then across its diagonal |
// | glide reflected | pg | odd columns mirrored in y |
// | sixfold rotated / reflected, twelvefold reflected | p6 / p3m1-like / p6m | hexagon of the nearest lattice point, angle folded by 60 degrees / mirrored every 60 / mirrored every 30 |
// | triangle tile, triangle kaleidoscope | p3m1 (*333) | reflections in the triangle's sides |
// | kaleidoscope | dihedral D_count | polar angle mirrored every pi / count |

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

extension FilterDescriptor {
    static let tileFilters: [FilterDescriptor] = [
        affineClamp, affineTile, clamp, eightfoldReflectedTile, fourfoldReflectedTile, fourfoldRotatedTile,
        fourfoldTranslatedTile, glideReflectedTile, kaleidoscope, opTile, parallelogramTile, perspectiveTile,
        sixfoldReflectedTile, sixfoldRotatedTile, triangleKaleidoscope, triangleTile, twelvefoldReflectedTile,
    ]

    static func _tileAngle() -> FilterInput {
        .number(
            "inputAngle", .angle, default: 0, sliderMin: -Double.pi, sliderMax: Double.pi,
            summary: "The rotation of the tiles, in radians.")
    }
    static func _tileWidth(_ value: Double = 100) -> FilterInput {
        .number(
            "inputWidth", .distance, default: value, min: 0.01, max: 65536, sliderMin: 1, sliderMax: 200,
            summary: "The width of a tile, in pixels.")
    }
    static func _acuteAngle() -> FilterInput {
        .number(
            "inputAcuteAngle", .angle, default: Double.pi / 2, min: 0.01, max: Double.pi - 0.01,
            summary: "The angle between the tile's sides, in radians.")
    }

    /// An infinite periodic warp: `fold` maps lattice coordinates of the output (axes of length
    /// `width`, rotated by `angle`, about `center`) to lattice coordinates in `[lo, hi]^2`.
    static func _latticeTile(
        _ a: FilterArguments, kind: String, acute: Double = Double.pi / 2, lo: Double = -0.5, hi: Double = 0.5,
        fold: @escaping @Sendable (Double, Double) -> (Double, Double)
    ) throws -> Image {
        let image = try a.image(), c = try a._point("inputCenter")
        let angle = try a.number("inputAngle"), width = try a.number("inputWidth")
        let frame = _LatticeFrame(origin: c, angle: angle, width: width, acute: acute)
        guard frame.isValid else { throw a.fail("inputWidth", "gives a degenerate tile") }
        let box = frame.box(lo: lo, hi: hi)
        return image.warped(
            named: "\(kind) \(c) a\(angle) w\(width) t\(acute)", sampling: .bilinear, extent: .infinite,
            regionOfInterest: { _ in box }
        ) { x, y in
            let (u, v) = frame.local(Point(x: x, y: y))
            let (fu, fv) = fold(u, v)
            return frame.image(fu, fv)
        }
    }

    static let fourfoldTranslatedTile = FilterDescriptor(
        name: "CIFourfoldTranslatedTile", displayName: "Fourfold Translated Tile",
        summary: "Repeats a parallelogram of the image about the center by translation (group p1).",
        categories: [.tileEffect],
        inputs: [.image(), _center(), _tileAngle(), _tileWidth(), _acuteAngle()]
    ) { a in
        try _latticeTile(a, kind: "fourfoldTranslated", acute: try a.number("inputAcuteAngle")) { u, v in
            (_wrapCentered(u), _wrapCentered(v))
        }
    }

    static let fourfoldReflectedTile = FilterDescriptor(
        name: "CIFourfoldReflectedTile", displayName: "Fourfold Reflected Tile",
        summary: "Tiles a parallelogram of the image about the center, mirrored across every side (four copies per period).",
        categories: [.tileEffect],
        inputs: [.image(), _center(), _tileAngle(), _tileWidth(), _acuteAngle()]
    ) { a in
        try _latticeTile(a, kind: "fourfoldReflected", acute: try a.number("inputAcuteAngle")) { u, v in
            (_reflectCentered(u), _reflectCentered(v))
        }
    }

    static let parallelogramTile = FilterDescriptor(
        name: "CIParallelogramTile", displayName: "Parallelogram Tile",
        summary: "Reflects a parallelogram of the image in its sides and tiles the result.",
        categories: [.tileEffect],
        inputs: [.image(), _center(), _tileAngle(), _acuteAngle(), _tileWidth()]
    ) { a in
        try _latticeTile(a, kind: "parallelogram", acute: try a.number("inputAcuteAngle")) { u, v in
            (_reflectCentered(u), _reflectCentered(v))
        }
    }

    static let fourfoldRotatedTile = FilterDescriptor(
        name: "CIFourfoldRotatedTile", displayName: "Fourfold Rotated Tile",
        summary: "Tiles a square of the image rotated by 0, 90, 180 and 270 degrees about the corners of a 2x2 cell (group p4).",
        categories: [.tileEffect],
        inputs: [.image(), _center(), _tileAngle(), _tileWidth()]
    ) { a in
        try _latticeTile(a, kind: "fourfoldRotated") { u, v in
            // Cell [-1, 1)^2 about a 4-fold center; rotate each quadrant into [0, 1)^2.
            var x = u + 0.5 - 2 * ((u + 0.5 + 1) / 2).rounded(.down)
            var y = v + 0.5 - 2 * ((v + 0.5 + 1) / 2).rounded(.down)
            if x < 0 && y >= 0 {
                (x, y) = (y, -x)
            } else if x < 0 && y < 0 {
                (x, y) = (-x, -y)
            } else if x >= 0 && y < 0 {
                (x, y) = (-y, x)
            }
            return (Swift.min(x, 1) - 0.5, Swift.min(y, 1) - 0.5)
        }
    }

    static let eightfoldReflectedTile = FilterDescriptor(
        name: "CIEightfoldReflectedTile", displayName: "Eightfold Reflected Tile",
        summary:
            "Mirrors a triangle (half a square) of the image into a square and tiles it with mirrors (group p4m, eight copies per period).",
        categories: [.tileEffect],
        inputs: [.image(), _center(), _tileAngle(), _tileWidth()]
    ) { a in
        try _latticeTile(a, kind: "eightfoldReflected") { u, v in
            let x = _reflectCentered(u) + 0.5, y = _reflectCentered(v) + 0.5
            return y > x ? (y - 0.5, x - 0.5) : (x - 0.5, y - 0.5)
        }
    }

    static let glideReflectedTile = FilterDescriptor(
        name: "CIGlideReflectedTile", displayName: "Glide Reflected Tile",
        summary: "Tiles a square of the image, mirroring every other column in y (a glide reflection, group pg).",
        categories: [.tileEffect],
        inputs: [.image(), _center(), _tileAngle(), _tileWidth()]
    ) { a in
        try _latticeTile(a, kind: "glideReflected") { u, v in
            let column = (u + 0.5).rounded(.down)
            let odd = _mod(column, 2) >= 1
            let y = _wrapCentered(odd ? -v : v)
            return (_wrapCentered(u), y)
        }
    }

    /// A hexagonal tile: the source is the hexagon (circumradius width / sqrt(3)) about the center.
    static func _hexTile(_ a: FilterArguments, kind: String, wedge: Double, mirror: Bool) throws -> Image {
        let image = try a.image(), c = try a._point("inputCenter")
        let angle = try a.number("inputAngle"), width = try a.number("inputWidth")
        let cs = cos(angle), sn = sin(angle)
        let box = _discBox(c, width / 3.0.squareRoot() + 1)
        return image.warped(
            named: "\(kind) \(c) a\(angle) w\(width)", sampling: .bilinear, extent: .infinite,
            regionOfInterest: { _ in box }
        ) { x, y in
            let dx = (x - c.x) / width, dy = (y - c.y) / width
            let (hx, hy) = _hexReduce(cs * dx + sn * dy, -sn * dx + cs * dy)
            let (fx, fy) = _foldAngle(hx, hy, wedge: wedge, mirror: mirror)
            return Point(x: c.x + width * (cs * fx - sn * fy), y: c.y + width * (sn * fx + cs * fy))
        }
    }

    static let sixfoldRotatedTile = FilterDescriptor(
        name: "CISixfoldRotatedTile", displayName: "Sixfold Rotated Tile",
        summary: "Tiles hexagons made of six 60-degree wedges of the image rotated about the center (group p6).",
        categories: [.tileEffect],
        inputs: [.image(), _center(), _tileAngle(), _tileWidth()]
    ) { a in try _hexTile(a, kind: "sixfoldRotated", wedge: Double.pi / 3, mirror: false) }

    static let sixfoldReflectedTile = FilterDescriptor(
        name: "CISixfoldReflectedTile", displayName: "Sixfold Reflected Tile",
        summary: "Tiles hexagons made of a 60-degree wedge of the image mirrored six ways (mirrors every 60 degrees).",
        categories: [.tileEffect],
        inputs: [.image(), _center(), _tileAngle(), _tileWidth()]
    ) { a in try _hexTile(a, kind: "sixfoldReflected", wedge: 2 * Double.pi / 3, mirror: true) }

    static let twelvefoldReflectedTile = FilterDescriptor(
        name: "CITwelvefoldReflectedTile", displayName: "Twelvefold Reflected Tile",
        summary: "Tiles hexagons made of a 30-degree wedge of the image mirrored twelve ways (group p6m).",
        categories: [.tileEffect],
        inputs: [.image(), _center(), _tileAngle(), _tileWidth()]
    ) { a in try _hexTile(a, kind: "twelvefoldReflected", wedge: Double.pi / 3, mirror: true) }

    /// The triangle-group warp: the source is the equilateral triangle of side `side` with its
    /// centroid at `c`, rotated by `angle`.
    static func _triangleWarp(_ image: Image, name: String, c: Point, angle: Double, side: Double) -> Image {
        let cs = cos(angle), sn = sin(angle)
        let s3 = 3.0.squareRoot()
        let gx = 0.5, gy = s3 / 6
        let box = _discBox(c, side / s3 + 1)
        return image.warped(named: name, sampling: .bilinear, extent: .infinite, regionOfInterest: { _ in box }) { x, y in
            let dx = (x - c.x) / side, dy = (y - c.y) / side
            let (tx, ty) = _foldIntoTriangle(cs * dx + sn * dy + gx, -sn * dx + cs * dy + gy)
            let fx = tx - gx, fy = ty - gy
            return Point(x: c.x + side * (cs * fx - sn * fy), y: c.y + side * (sn * fx + cs * fy))
        }
    }

    static let triangleTile = FilterDescriptor(
        name: "CITriangleTile", displayName: "Triangle Tile",
        summary:
            "Reflects an equilateral triangle of the image (side = width, centered on the center) in its sides to tile the plane.",
        categories: [.tileEffect],
        inputs: [.image(), _center(), _tileAngle(), _tileWidth()]
    ) { a in
        let c = try a._point("inputCenter"), angle = try a.number("inputAngle"), w = try a.number("inputWidth")
        return _triangleWarp(try a.image(), name: "triangleTile \(c) a\(angle) w\(w)", c: c, angle: angle, side: w)
    }

    static let triangleKaleidoscope = FilterDescriptor(
        name: "CITriangleKaleidoscope", displayName: "Triangle Kaleidoscope",
        summary:
            "Reflects a triangle of the image in its sides to fill the plane, darkening by `decay` per triangle size away from the point.",
        categories: [.tileEffect],
        inputs: [
            .image(),
            .vector(
                "inputPoint", .position, default: [150, 150],
                summary: "The centroid [x y] of the source triangle, in top-left-origin pixels."),
            .number(
                "inputSize", .distance, default: 700, min: 0.01, max: 65536, sliderMin: 0.01, sliderMax: 1000,
                summary: "The side of the source triangle, in pixels."),
            .number(
                "inputRotation", .angle, default: 5.924285296593801, sliderMin: 0, sliderMax: 2 * Double.pi,
                summary: "The rotation of the triangle, in radians."),
            .number(
                "inputDecay", default: 0.85, min: 0, max: 1,
                summary: "The brightness kept per triangle size of distance from the point (1: no darkening)."),
        ]
    ) { a in
        let c = try a._point("inputPoint"), size = try a.number("inputSize")
        let rot = try a.number("inputRotation"), decay = try a.number("inputDecay")
        let tiled = _triangleWarp(try a.image(), name: "triangleKaleidoscope \(c) s\(size) r\(rot)", c: c, angle: rot, side: size)
        if decay == 1 { return tiled }
        let fade = GeneratorKernel(name: "triangleKaleidoscope fade \(c) s\(size) d\(decay)", constant: nil) { x0, y, n, out, _ in
            let dy = Double(y) + 0.5 - c.y
            for i in 0..<n {
                let dx = Double(x0 + i) + 0.5 - c.x
                let f = Float(pow(decay, (dx * dx + dy * dy).squareRoot() / size))
                out[i] = SIMD4(f, f, f, 1)
            }
        }
        let mask = Image(node: Node(.generator(fade), inputs: [], extent: .infinite))
        return mask.blended(
            with: tiled,
            kernel: BlendKernel(name: "multiply rgb", extentRule: .background) { fg, dst, n in
                for i in 0..<n { dst[i] = dst[i] * SIMD4(fg[i].x, fg[i].x, fg[i].x, 1) }
            })
    }

    static let kaleidoscope = FilterDescriptor(
        name: "CIKaleidoscope", displayName: "Kaleidoscope",
        summary: "Mirrors a wedge of angle pi / count at the center around it, as a kaleidoscope with `count` pairs of mirrors.",
        categories: [.tileEffect],
        inputs: [
            .image(),
            .number(
                "inputCount", .count, default: 6, min: 1, max: 64,
                summary: "The number of mirrored pairs of wedges."),
            _center(), _tileAngle(),
        ]
    ) { a in
        let image = try a.image(), c = try a._point("inputCenter")
        let count = try a.number("inputCount"), angle = try a.number("inputAngle")
        let wedge = 2 * Double.pi / count
        let e = image.extent
        var extent = Rect.infinite
        if !e.isInfinite { extent = e.isEmpty ? .empty : _discBox(c, _distanceRange(from: c, to: e).max) }
        return image.warped(
            named: "kaleidoscope n\(count) \(c) a\(angle)", sampling: .bilinear, extent: extent,
            regionOfInterest: { r in
                if r.isEmpty || r.isInfinite { return r }
                return _discBox(c, _distanceRange(from: c, to: r).max)
            }
        ) { x, y in
            let dx = x - c.x, dy = y - c.y
            let cs = cos(angle), sn = sin(angle)
            let (fx, fy) = _foldAngle(cs * dx + sn * dy, -sn * dx + cs * dy, wedge: wedge, mirror: true)
            return Point(x: c.x + cs * fx - sn * fy, y: c.y + sn * fx + cs * fy)
        }
    }

    static let opTile = FilterDescriptor(
        name: "CIOpTile", displayName: "Op Tile",
        summary: "Cuts the plane into square tiles; each shows the image around the tile's center scaled by 1/scale (op-art).",
        categories: [.tileEffect],
        inputs: [
            .image(), _center(),
            .number(
                "inputScale", default: 2.8, min: 0.01, max: 100, sliderMin: 0.01, sliderMax: 10,
                summary: "The magnification inside each tile (1: the tiles show the image unchanged)."),
            _tileAngle(), _tileWidth(65),
        ]
    ) { a in
        let image = try a.image(), c = try a._point("inputCenter")
        let s = try a.number("inputScale"), angle = try a.number("inputAngle"), width = try a.number("inputWidth")
        let frame = _LatticeFrame(origin: c, angle: angle, width: width)
        let shift = Swift.abs(1 / s - 1) * width * 0.7072 + 1
        let e = image.extent
        return image.warped(
            named: "opTile \(c) s\(s) a\(angle) w\(width)", sampling: .bilinear,
            extent: e.isInfinite ? e : e.insetBy(dx: -shift, dy: -shift),
            regionOfInterest: { r in r.isInfinite ? r : r.insetBy(dx: -shift, dy: -shift) }
        ) { x, y in
            let (u, v) = frame.local(Point(x: x, y: y))
            let cu = (u + 0.5).rounded(.down), cv = (v + 0.5).rounded(.down)
            return frame.image(cu + (u - cu) / s, cv + (v - cv) / s)
        }
    }

    static let affineTile = FilterDescriptor(
        name: "CIAffineTile", displayName: "Affine Tile",
        summary: "Repeats the image's extent periodically and applies an affine transform to the tiling.",
        categories: [.tileEffect],
        inputs: [
            .image(),
            .transform(
                "inputTransform", default: .identity,
                summary: "Maps input coordinates to output coordinates: [a b c d tx ty]."),
        ]
    ) { a in
        let image = try a.image(), t = try a.transform("inputTransform")
        let e = try _finiteExtent(image, a.filter)
        guard let inv = t.inverted() else { throw a.fail("inputTransform", "must be invertible, got \(t)") }
        return image.warped(named: "affineTile \(t)", sampling: .bilinear, extent: .infinite, regionOfInterest: { _ in e }) {
            x, y in
            let p = inv.apply(to: Point(x: x, y: y))
            return _wrapIntoPixelCenters(p, e)
        }
    }

    /// `p` moved by whole periods into `e`, then into its pixel centers' range so that a
    /// bilinear sample never reads outside the tile.
    @inline(__always)
    static func _wrapIntoPixelCenters(_ p: Point, _ e: Rect) -> Point {
        let x = e.x + _mod(p.x - e.x, e.width), y = e.y + _mod(p.y - e.y, e.height)
        return Point(
            x: Swift.min(Swift.max(x, e.minX + 0.5), e.maxX - 0.5), y: Swift.min(Swift.max(y, e.minY + 0.5), e.maxY - 0.5))
    }

    static func _finiteExtent(_ image: Image, _ filter: String) throws -> Rect {
        let e = image.extent
        guard !e.isInfinite, !e.isEmpty else {
            throw PixelFlowError.invalidExtent("\(filter) needs a finite, non-empty extent; crop the image first")
        }
        return e.integral
    }

    /// Samples the input at `inverse(p)` moved into the pixel centers of `e` (edge pixels
    /// repeat to infinity).
    static func _clampWarp(_ image: Image, name: String, inverse: AffineTransform, to e: Rect) -> Image {
        let x0 = e.minX + 0.5, x1 = e.maxX - 0.5, y0 = e.minY + 0.5, y1 = e.maxY - 0.5
        @Sendable func clampPoint(_ p: Point) -> Point {
            Point(x: Swift.min(Swift.max(p.x, x0), x1), y: Swift.min(Swift.max(p.y, y0), y1))
        }
        return image.warped(
            named: name, sampling: .bilinear, extent: .infinite,
            regionOfInterest: { r in
                if r.isInfinite { return e }
                let b = inverse.apply(to: r)
                let p = clampPoint(Point(x: b.minX, y: b.minY)), q = clampPoint(Point(x: b.maxX, y: b.maxY))
                return Rect(minX: p.x - 0.5, minY: p.y - 0.5, maxX: q.x + 0.5, maxY: q.y + 0.5)
            }
        ) { x, y in clampPoint(inverse.apply(to: Point(x: x, y: y))) }
    }

    static let affineClamp = FilterDescriptor(
        name: "CIAffineClamp", displayName: "Affine Clamp",
        summary: "Applies an affine transform and repeats the transformed image's edge pixels to infinity.",
        categories: [.tileEffect],
        inputs: [
            .image(),
            .transform(
                "inputTransform", default: .identity,
                summary: "Maps input coordinates to output coordinates: [a b c d tx ty]."),
        ]
    ) { a in
        let image = try a.image(), t = try a.transform("inputTransform")
        let e = try _finiteExtent(image, a.filter)
        guard let inv = t.inverted() else { throw a.fail("inputTransform", "must be invertible, got \(t)") }
        return _clampWarp(image, name: "affineClamp \(t)", inverse: inv, to: e)
    }

    static let clamp = FilterDescriptor(
        name: "CIClamp", displayName: "Clamp",
        summary: "Keeps a rectangle of the image and repeats its edge pixels to infinity.",
        categories: [.tileEffect],
        inputs: [
            .image(),
            .vector(
                "inputExtent", .rectangle, default: [0, 0, 640, 80],
                summary: "The rectangle [x y width height] to keep, in top-left-origin pixels."),
        ]
    ) { a in
        let v = try a.vector("inputExtent")
        let r = Rect(x: v[0], y: v[1], width: v[2], height: v[3]).integral
        guard r.width >= 1, r.height >= 1 else {
            throw a.fail("inputExtent", "must be at least one pixel wide and high, got \(v)")
        }
        return _clampWarp(try a.image(), name: "clamp \(r)", inverse: .identity, to: r)
    }

    static let perspectiveTile = FilterDescriptor(
        name: "CIPerspectiveTile", displayName: "Perspective Tile",
        summary:
            "Tiles the image's extent periodically and maps the tile onto a quadrilateral in perspective; corners are top-left-origin pixels.",
        categories: [.tileEffect],
        inputs: [.image()] + _perspectiveCornerInputs
    ) { a in
        let image = try a.image(), q = try a._quad()
        let e = try _finiteExtent(image, a.filter)
        let corners = [
            Point(x: e.minX, y: e.minY), Point(x: e.maxX, y: e.minY), Point(x: e.maxX, y: e.maxY), Point(x: e.minX, y: e.maxY),
        ]
        guard let toInput = Homography(from: q, to: corners) else {
            throw a.fail("inputTopLeft", "and the other corners must form a convex quadrilateral, got \(q)")
        }
        return image.warped(named: "perspectiveTile \(q)", sampling: .bilinear, extent: .infinite, regionOfInterest: { _ in e }) {
            x, y in
            guard let p = toInput.apply(to: Point(x: x, y: y)) else { return Point(x: Double.nan, y: Double.nan) }
            return _wrapIntoPixelCenters(p, e)
        }
    }
}
