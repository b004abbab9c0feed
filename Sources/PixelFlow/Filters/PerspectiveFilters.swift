// Perspective filters: rectify a quadrilateral to a rectangle (CIPerspectiveCorrection) and
// map an image onto a quadrilateral (CIPerspectiveTransform, CIPerspectiveTransformWithExtent),
// through a homography and a bilinear warp. Positions are image coordinates, origin at the
// top-left, y down (Core Image's are bottom-left; flip y for its values).

extension FilterDescriptor {
    static let perspectiveFilters: [FilterDescriptor] = [
        perspectiveCorrection, perspectiveTransform, perspectiveTransformWithExtent,
    ]

    /// Core Image's default corners, flipped for a 640-pixel-high image (top-left origin).
    static let _perspectiveCornerInputs: [FilterInput] = [
        .vector(
            "inputTopLeft", .position, default: [118, 156],
            summary: "The top-left corner [x y] of the quad, in pixels, origin at the image's top-left."),
        .vector(
            "inputTopRight", .position, default: [646, 133],
            summary: "The top-right corner [x y] of the quad, in pixels, origin at the image's top-left."),
        .vector(
            "inputBottomRight", .position, default: [548, 500],
            summary: "The bottom-right corner [x y] of the quad, in pixels, origin at the image's top-left."),
        .vector(
            "inputBottomLeft", .position, default: [155, 487],
            summary: "The bottom-left corner [x y] of the quad, in pixels, origin at the image's top-left."),
    ]

    static let perspectiveCorrection = FilterDescriptor(
        name: "CIPerspectiveCorrection", displayName: "Perspective Correction",
        summary:
            "Rectifies a quadrilateral of the image (a document or sign seen at an angle) to an upright rectangle whose sides are the quad's longer opposite sides; corners are top-left-origin pixels.",
        categories: [.geometryAdjustment, .stillImage, .video],
        inputs: [.image()] + _perspectiveCornerInputs + [
            .number(
                "inputCrop", .boolean, default: 1, min: 0, max: 1,
                summary:
                    "1 keeps only the rectified rectangle (at the origin); 0 keeps the whole image, rectified by the same mapping."
            )
        ]
    ) { a in
        let image = try a.image()
        let q = try a._quad()
        let width = Swift.max(RectangleDetector._distance(q[0], q[1]), RectangleDetector._distance(q[3], q[2]))
        let height = Swift.max(RectangleDetector._distance(q[0], q[3]), RectangleDetector._distance(q[1], q[2]))
        let ow = Swift.max(1, width.rounded()), oh = Swift.max(1, height.rounded())
        guard ow <= 65536, oh <= 65536 else {
            throw PixelFlowError.limitExceeded(
                what: "CIPerspectiveCorrection output side", value: Int(Swift.max(ow, oh)), limit: 65536)
        }
        let rect = [Point(x: 0, y: 0), Point(x: ow, y: 0), Point(x: ow, y: oh), Point(x: 0, y: oh)]
        guard let toInput = Homography(from: rect, to: q), let toOutput = Homography(from: q, to: rect) else {
            throw a.fail("inputTopLeft", "and the other corners must form a convex quadrilateral, got \(q)")
        }
        let crop = Rect(x: 0, y: 0, width: ow, height: oh)
        let quadBounds = _bounds(q).insetBy(dx: -2, dy: -2)
        var extent = crop
        if try a.number("inputCrop") < 0.5, !image.extent.isInfinite, let e = toOutput.mappedBounds(of: image.extent) {
            let m = 4 * Swift.max(ow, oh)
            extent = e.intersection(crop.insetBy(dx: -m, dy: -m))
            if extent.isEmpty { extent = crop }
        }
        let fallback = image.extent.isInfinite ? quadBounds : image.extent
        return image.warped(
            named: "perspectiveCorrection \(q)", sampling: .bilinear, extent: extent,
            regionOfInterest: { r in toInput.mappedBounds(of: r) ?? fallback }
        ) { x, y in
            toInput.apply(to: Point(x: x, y: y)) ?? Point(x: .nan, y: .nan)
        }
    }

    static let perspectiveTransform = FilterDescriptor(
        name: "CIPerspectiveTransform", displayName: "Perspective Transform",
        summary: "Maps the image's extent onto a quadrilateral, as if seen in perspective; corners are top-left-origin pixels.",
        categories: [.geometryAdjustment, .stillImage, .video],
        inputs: [.image()] + _perspectiveCornerInputs
    ) { a in
        let image = try a.image()
        let e = image.extent
        guard !e.isInfinite, !e.isEmpty else {
            throw PixelFlowError.invalidExtent(
                "CIPerspectiveTransform needs a finite extent; crop the image first or use CIPerspectiveTransformWithExtent")
        }
        return try _perspectiveWarp(image, from: e, to: try a._quad(), arguments: a)
    }

    static let perspectiveTransformWithExtent = FilterDescriptor(
        name: "CIPerspectiveTransformWithExtent", displayName: "Perspective Transform with Extent",
        summary:
            "Maps a rectangle of the image onto a quadrilateral, and the rest of the image along with it; positions are top-left-origin pixels.",
        categories: [.geometryAdjustment, .stillImage, .video],
        inputs: [
            .image(),
            .vector(
                "inputExtent", .rectangle, default: [0, 0, 300, 300],
                summary: "The rectangle [x y width height] whose corners go to the four points."),
        ]
            + _perspectiveCornerInputs
    ) { a in
        let r = try a.vector("inputExtent")
        guard r[2] > 0, r[3] > 0 else { throw a.fail("inputExtent", "must have a positive width and height, got \(r)") }
        return try _perspectiveWarp(
            try a.image(), from: Rect(x: r[0], y: r[1], width: r[2], height: r[3]),
            to: try a._quad(), arguments: a)
    }

    /// `image` warped so that the corners of `source` land on `q`. The output extent is the
    /// mapped image extent when it is bounded, otherwise the quad's bounding box.
    static func _perspectiveWarp(_ image: Image, from source: Rect, to q: [Point], arguments a: FilterArguments) throws -> Image {
        let corners = [
            Point(x: source.minX, y: source.minY), Point(x: source.maxX, y: source.minY),
            Point(x: source.maxX, y: source.maxY), Point(x: source.minX, y: source.maxY),
        ]
        guard let forward = Homography(from: corners, to: q), let backward = Homography(from: q, to: corners) else {
            throw a.fail("inputTopLeft", "and the other corners must form a convex quadrilateral, got \(q)")
        }
        let qb = _bounds(q)
        var extent = qb
        if !image.extent.isInfinite, let e = forward.mappedBounds(of: image.extent) {
            let m = 4 * Swift.max(qb.width, qb.height)
            extent = e.intersection(qb.insetBy(dx: -m, dy: -m))
            if extent.isEmpty { extent = qb }
        }
        let fallback = image.extent.isInfinite ? source.insetBy(dx: -source.width, dy: -source.height) : image.extent
        return image.warped(
            named: "perspectiveTransform \(source) \(q)", sampling: .bilinear, extent: extent,
            regionOfInterest: { r in backward.mappedBounds(of: r) ?? fallback }
        ) { x, y in
            backward.apply(to: Point(x: x, y: y)) ?? Point(x: .nan, y: .nan)
        }
    }

    static func _bounds(_ q: [Point]) -> Rect {
        Rect(minX: q.map(\.x).min()!, minY: q.map(\.y).min()!, maxX: q.map(\.x).max()!, maxY: q.map(\.y).max()!)
    }
}

extension FilterArguments {
    /// The four corner inputs, checked to form a strictly convex quadrilateral (either
    /// orientation): three collinear corners, a self-intersecting or a concave quad throw
    /// `invalidParameter` naming the offending corner.
    func _quad() throws -> [Point] {
        let keys = ["inputTopLeft", "inputTopRight", "inputBottomRight", "inputBottomLeft"]
        let q = try keys.map { k -> Point in
            let v = try vector(k)
            return Point(x: v[0], y: v[1])
        }
        var sign = 0.0
        for i in 0..<4 {
            let p = q[(i + 3) % 4], c = q[i], n = q[(i + 1) % 4]
            let ux = c.x - p.x, uy = c.y - p.y, vx = n.x - c.x, vy = n.y - c.y
            let lu = (ux * ux + uy * uy).squareRoot(), lv = (vx * vx + vy * vy).squareRoot()
            guard lu > 1e-9, lv > 1e-9 else { throw fail(keys[i], "must differ from its neighboring corners, got \(q)") }
            let s = (ux * vy - uy * vx) / (lu * lv)
            guard abs(s) > 1e-6 else {
                throw fail(keys[i], "lies on a line with its neighboring corners; the quad is degenerate: \(q)")
            }
            if sign == 0 { sign = s > 0 ? 1 : -1 }
            guard (s > 0 ? 1.0 : -1.0) == sign else {
                throw fail(
                    keys[i], "makes the quad self-intersecting or concave; corners must go around a convex quad in order: \(q)")
            }
        }
        return q
    }
}

extension Image {
    /// Rectifies the quad with the given corners to an upright rectangle
    /// (`CIPerspectiveCorrection`); corners are pixels with the origin at the top-left.
    ///
    /// - Parameters:
    ///   - crop: true (the default) keeps only the rectangle, placed at the origin.
    ///   - topLeft: the quad's top-left corner, in image pixels.
    ///   - topRight: the quad's top-right corner, in image pixels.
    ///   - bottomRight: the quad's bottom-right corner, in image pixels.
    ///   - bottomLeft: the quad's bottom-left corner, in image pixels.
    /// - Throws: `PixelFlowError.invalidParameter` for a degenerate, concave or
    ///   self-intersecting quad.
    /// - Complexity: one homography and one bilinear sample per output pixel.
    public func perspectiveCorrected(
        topLeft: Point, topRight: Point, bottomRight: Point, bottomLeft: Point,
        crop: Bool = true
    ) throws -> Image {
        try FilterDescriptor.perspectiveCorrection.apply([
            "inputImage": .image(self), "inputTopLeft": .vector([topLeft.x, topLeft.y]),
            "inputTopRight": .vector([topRight.x, topRight.y]), "inputBottomRight": .vector([bottomRight.x, bottomRight.y]),
            "inputBottomLeft": .vector([bottomLeft.x, bottomLeft.y]), "inputCrop": .boolean(crop),
        ])
    }

    /// Rectifies a detected quad (`CIPerspectiveCorrection`).
    public func perspectiveCorrected(_ feature: RectangleFeature, crop: Bool = true) throws -> Image {
        try perspectiveCorrected(
            topLeft: feature.topLeft, topRight: feature.topRight,
            bottomRight: feature.bottomRight, bottomLeft: feature.bottomLeft, crop: crop)
    }

    /// Maps the image's extent onto the quad with the given corners (`CIPerspectiveTransform`),
    /// or, when `extent` is given, maps that rect onto it (`CIPerspectiveTransformWithExtent`).
    ///
    /// - Throws: `PixelFlowError.invalidParameter` for a degenerate, concave or
    ///   self-intersecting quad; `invalidExtent` for an infinite extent without `extent`.
    public func perspectiveTransformed(
        topLeft: Point, topRight: Point, bottomRight: Point, bottomLeft: Point,
        extent: Rect? = nil
    ) throws -> Image {
        var v: [String: FilterValue?] = [
            "inputImage": .image(self), "inputTopLeft": .vector([topLeft.x, topLeft.y]),
            "inputTopRight": .vector([topRight.x, topRight.y]), "inputBottomRight": .vector([bottomRight.x, bottomRight.y]),
            "inputBottomLeft": .vector([bottomLeft.x, bottomLeft.y]),
        ]
        if let e = extent {
            v["inputExtent"] = .vector([e.x, e.y, e.width, e.height])
            return try FilterDescriptor.perspectiveTransformWithExtent.apply(v)
        }
        return try FilterDescriptor.perspectiveTransform.apply(v)
    }
}
