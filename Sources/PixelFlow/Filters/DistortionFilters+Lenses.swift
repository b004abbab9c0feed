// Lens and framing distortions: torus lens, glass lozenge, stretch crop and Droste.
// Positions are top-left-origin pixels; angles are radians.
//
// The lenses use one thin-lens model: a point at normalized distance u in [-1, 1] from the
// lens's axis (the ring's center line, the lozenge's segment) samples the input moved toward
// the axis by (1 - 1/refraction) * offset * sqrt(1 - u^2): magnification `refraction` on the
// axis, none at the rim, continuous everywhere; refraction 1 is the identity.

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

extension FilterDescriptor {
    static func _refraction() -> FilterInput {
        .number(
            "inputRefraction", default: 1.7, identity: 1, min: 0.01, max: 10, sliderMin: 0.01, sliderMax: 5,
            summary: "The refraction index of the glass: 1 leaves the image unchanged, above 1 magnifies.")
    }

    static let torusLensDistortion = FilterDescriptor(
        name: "CITorusLensDistortion", displayName: "Torus Lens Distortion",
        summary: "Places a ring-shaped lens over the image: radius is the ring's center line, width its thickness.",
        categories: [.distortionEffect],
        inputs: [
            .image(), _center(), _radius(160, identity: nil, sliderMax: 500),
            .number(
                "inputWidth", .distance, default: 80, identity: 0, min: 0, max: 4096, sliderMin: 0, sliderMax: 200,
                summary: "The thickness of the ring, in pixels."),
            _refraction(),
        ]
    ) { a in
        let image = try a.image(), c = try a._point("inputCenter")
        let r = try a.number("inputRadius"), w = try a.number("inputWidth"), n = try a.number("inputRefraction")
        if w == 0 || n == 1 { return image }
        let h = w / 2, k = 1 - 1 / n
        let shift = Swift.abs(k) * h / 2 + 1e-9
        let e = image.extent
        return image.warped(
            named: "torusLens \(c) r\(r) w\(w) n\(n)", sampling: .bilinear,
            extent: e.isInfinite ? e : e.insetBy(dx: -shift, dy: -shift),
            regionOfInterest: { rect in
                if rect.isEmpty || rect.isInfinite { return rect }
                let d = _distanceRange(from: c, to: rect)
                if d.max <= r - h || d.min >= r + h { return rect }
                return rect.insetBy(dx: -shift, dy: -shift)
            }
        ) { x, y in
            let dx = x - c.x, dy = y - c.y
            let rho = (dx * dx + dy * dy).squareRoot()
            let off = rho - r
            if Swift.abs(off) >= h || rho == 0 { return Point(x: x, y: y) }
            let u = off / h
            let m = k * off * (1 - u * u).squareRoot() / rho
            return Point(x: x - dx * m, y: y - dy * m)
        }
    }

    static let glassLozenge = FilterDescriptor(
        name: "CIGlassLozenge", displayName: "Glass Lozenge",
        summary: "Places a lozenge-shaped lens (a capsule: the points within the radius of a segment) over the image.",
        categories: [.distortionEffect],
        inputs: [
            .image(),
            .vector(
                "inputPoint0", .position, default: [150, 150],
                summary: "One end [x y] of the lozenge's axis, in pixels, origin at the top-left."),
            .vector(
                "inputPoint1", .position, default: [350, 150],
                summary: "The other end [x y] of the lozenge's axis, in pixels, origin at the top-left."),
            _radius(100, sliderMax: 400),
            _refraction(),
        ]
    ) { a in
        let image = try a.image(), p0 = try a._point("inputPoint0"), p1 = try a._point("inputPoint1")
        let r = try a.number("inputRadius"), n = try a.number("inputRefraction")
        if r == 0 || n == 1 { return image }
        let k = 1 - 1 / n
        let shift = Swift.abs(k) * r / 2 + 1e-9
        let vx = p1.x - p0.x, vy = p1.y - p0.y, vv = vx * vx + vy * vy
        let capsule = _boundingBox([p0, p1]).insetBy(dx: -r, dy: -r)
        let e = image.extent
        return image.warped(
            named: "glassLozenge \(p0) \(p1) r\(r) n\(n)", sampling: .bilinear,
            extent: e.isInfinite ? e : e.insetBy(dx: -shift, dy: -shift),
            regionOfInterest: { rect in
                if rect.isEmpty || rect.isInfinite || rect.intersection(capsule).isEmpty { return rect }
                return rect.insetBy(dx: -shift, dy: -shift)
            }
        ) { x, y in
            let t = vv > 0 ? Swift.min(Swift.max(((x - p0.x) * vx + (y - p0.y) * vy) / vv, 0), 1) : 0
            let dx = x - (p0.x + t * vx), dy = y - (p0.y + t * vy)
            let d2 = dx * dx + dy * dy
            if d2 >= r * r { return Point(x: x, y: y) }
            let m = k * (1 - d2 / (r * r)).squareRoot()
            return Point(x: x - dx * m, y: y - dy * m)
        }
    }

    static let stretchCrop = FilterDescriptor(
        name: "CIStretchCrop", displayName: "Stretch Crop",
        summary:
            "Fits the image to a new size by cropping part of the aspect mismatch and stretching the rest, more in the center than at the sides.",
        categories: [.distortionEffect],
        inputs: [
            .image(),
            .vector(
                "inputSize", .offset, default: [1280, 720],
                summary: "The output size [width height], in pixels; the output's origin is (0, 0)."),
            .number(
                "inputCropAmount", default: 0.25, min: 0, max: 1,
                summary: "The fraction of the aspect mismatch removed by cropping (0: stretch only, 1: crop only)."),
            .number(
                "inputCenterStretchAmount", default: 0.25, min: 0, max: 1,
                summary: "How much of the horizontal stretch goes to the center: 0 uniform, 1 all at the center."),
        ]
    ) { a in
        let image = try a.image(), size = try a.vector("inputSize")
        let crop = try a.number("inputCropAmount"), k = try a.number("inputCenterStretchAmount")
        let wo = size[0].rounded(), ho = size[1].rounded()
        guard wo >= 1, ho >= 1, wo <= 65536, ho <= 65536 else {
            throw a.fail("inputSize", "must be between 1 and 65536 pixels on each side, got \(size)")
        }
        let e = image.extent
        guard !e.isInfinite, !e.isEmpty else {
            throw PixelFlowError.invalidExtent("CIStretchCrop needs a finite, non-empty extent; crop the image first")
        }
        let wider = e.width / e.height > wo / ho
        let wc = wider ? e.width - crop * (e.width - e.height * wo / ho) : e.width
        let hc = wider ? e.height : e.height - crop * (e.height - e.width * ho / wo)
        let mx = e.midX, my = e.midY
        let sx: @Sendable (Double) -> Double = { x in
            let v = 2 * x / wo - 1
            return mx + ((1 - k) * v + k * v * Swift.abs(v)) * wc / 2
        }
        let sy: @Sendable (Double) -> Double = { y in my + (2 * y / ho - 1) * hc / 2 }
        return image.warped(
            named: "stretchCrop \(wo)x\(ho) c\(crop) k\(k)", sampling: .bilinear,
            extent: Rect(x: 0, y: 0, width: wo, height: ho),
            regionOfInterest: { r in
                if r.isEmpty || r.isInfinite { return r }
                return Rect(minX: sx(r.minX), minY: sy(r.minY), maxX: sx(r.maxX), maxY: sy(r.maxY))
            }
        ) { x, y in Point(x: sx(x), y: sy(y)) }
    }

    static let droste = FilterDescriptor(
        name: "CIDroste", displayName: "Droste",
        summary:
            "Escher's Droste spiral: repeats the image inside its inset rectangle and bends the repetitions into a spiral (annulus form of the log-polar transform; ratio = image size / inset size, 2 if the image is not larger).",
        categories: [.distortionEffect],
        inputs: [
            .image(),
            .vector(
                "inputInsetPoint0", .position, default: [200, 200],
                summary: "One corner [x y] of the inset rectangle that holds the repeated picture, in top-left-origin pixels."),
            .vector(
                "inputInsetPoint1", .position, default: [400, 400],
                summary: "The opposite corner [x y] of the inset rectangle."),
            .number(
                "inputStrands", default: 1, min: -10, max: 10, sliderMin: -2, sliderMax: 2,
                summary: "The number of spiral arms (0: concentric repetitions)."),
            .number(
                "inputPeriodicity", default: 1, min: 1, max: 5,
                summary: "The number of repetitions per turn."),
            .number(
                "inputRotation", .angle, default: 0, sliderMin: 0, sliderMax: 2 * Double.pi,
                summary: "Rotates the spiral, in radians."),
            .number(
                "inputZoom", default: 1, min: 0.01, max: 100, sliderMin: 0.01, sliderMax: 5,
                summary: "Zooms into the spiral."),
        ]
    ) { a in
        let image = try a.image(), q0 = try a._point("inputInsetPoint0"), q1 = try a._point("inputInsetPoint1")
        let strands = try a.number("inputStrands"), period = try a.number("inputPeriodicity")
        let rotation = try a.number("inputRotation"), zoom = try a.number("inputZoom")
        let e = image.extent
        let iw = Swift.abs(q1.x - q0.x), ih = Swift.abs(q1.y - q0.y)
        guard iw >= 1, ih >= 1 else {
            throw a.fail("inputInsetPoint1", "must span at least one pixel from inputInsetPoint0 on each axis")
        }
        // The repetition ratio is the image's size over the inset's; 2 when the image is
        // infinite or not larger than the inset.
        var ratio = e.isInfinite || e.isEmpty ? 2 : Swift.min(e.width / iw, e.height / ih)
        if !(ratio > 1.0001) || ratio > 1e6 { ratio = 2 }
        let c = Point(x: (q0.x + q1.x) / 2, y: (q0.y + q1.y) / 2)
        let r1 = Swift.min(iw, ih) / 2, period0 = log(ratio)
        // Log space maps by w = u * tau, tau = p1 - i p2 L / (2 pi): one turn of the output
        // moves p1 turns and p2 scalings by `ratio` in the source (a lattice vector).
        let tr = period, ti = -strands * period0 / (2 * Double.pi)
        let cr = cos(-rotation), sr = sin(-rotation)
        let reach = r1 * ratio
        return image.warped(
            named: "droste \(q0) \(q1) s\(strands) p\(period) r\(rotation) z\(zoom)", sampling: .bilinear, extent: e,
            regionOfInterest: { _ in _discBox(c, reach) }
        ) { x, y in
            let dx = x - c.x, dy = y - c.y
            let zx = (cr * dx - sr * dy) / (zoom * r1), zy = (sr * dx + cr * dy) / (zoom * r1)
            let m2 = zx * zx + zy * zy
            if m2 == 0 { return c }
            let ur = 0.5 * log(m2), ui = atan2(zy, zx)
            let wr = _mod(ur * tr - ui * ti, period0), wi = ur * ti + ui * tr
            let m = r1 * exp(wr)
            return Point(x: c.x + m * cos(wi), y: c.y + m * sin(wi))
        }
    }
}
