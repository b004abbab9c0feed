// Distortion filters: position warps around a center (bump, pinch, twirl, vortex, hole,
// circle splash, light tunnel, circular wrap) built on `Image.warped`, each with a region of
// interest that is exact or safely conservative. Positions are image coordinates in pixels,
// origin at the top-left, y down; angles are radians. The lens-like and framing distortions
// (torus lens, glass lozenge, stretch crop, Droste) are in DistortionFilters+Lenses.swift.
//
// Each map sends an output pixel center p to the input position it samples. With
// d = p - c, rho = |d| and t = rho / radius:
//
// | filter | inside the radius | outside |
// |---|---|---|
// | bump | c + d * (1 - (1 - t) * scale)^2 (GPUImage's bulge) | p |
// | bump linear | the same across a line through c at `angle` | p |
// | pinch | c + d * min(sin(pi t / 2)^-scale, 1 / t) (ImageMagick's implode) | p |
// | twirl | c + rotate(d, angle * (1 - t)^2) (ImageMagick's swirl) | p |
// | vortex | c + rotate(d, angle * (1 - t)) | p |
// | hole | transparent | c + d * sqrt(rho^2 - r^2) / rho |
// | circle splash | p | c + d * r / rho (the circle's pixel on the same ray) |
// | light tunnel | p | c + r * dir(theta + rotation * ln(rho / r)) |
// | circular wrap | transparent | (c.x + r * (theta - angle), c.y + rho - r) |

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

extension FilterDescriptor {
    static let distortionFilters: [FilterDescriptor] = [
        bumpDistortion, bumpDistortionLinear, circleSplashDistortion, circularWrap, holeDistortion,
        lightTunnel, pinchDistortion, twirlDistortion, vortexDistortion,
        torusLensDistortion, glassLozenge, stretchCrop, droste,
    ]

    static func _center(_ value: [Double] = [150, 150]) -> FilterInput {
        .vector(
            "inputCenter", .position, default: value,
            summary: "The center [x y] of the effect, in pixels, origin at the image's top-left.")
    }

    static func _radius(_ value: Double, identity: Double? = 0, max: Double = 4096, sliderMax: Double = 800) -> FilterInput {
        .number(
            "inputRadius", .distance, default: value, identity: identity, min: 0, max: max, sliderMin: 0, sliderMax: sliderMax,
            summary: "The radius of the affected disc, in pixels.")
    }

    /// The extent of a warp that is the identity outside the disc of `radius` and reads
    /// within `reach` inside it.
    static func _radialExtent(_ e: Rect, center: Point, radius: Double, reach: Double) -> Rect {
        if e.isInfinite || e.isEmpty { return e }
        return e.intersection(_discBox(center, reach)).isEmpty ? e : e.union(_discBox(center, radius))
    }

    static let bumpDistortion = FilterDescriptor(
        name: "CIBumpDistortion", displayName: "Bump Distortion",
        summary:
            "Bulges (scale > 0) or dents (scale < 0) the image inside a disc: GPUImage's bulge, c + d (1 - (1 - t) scale)^2.",
        categories: [.distortionEffect],
        inputs: [
            .image(), _center(), _radius(300),
            .number(
                "inputScale", default: 0.5, identity: 0, min: -1, max: 1,
                summary: "The strength: positive bulges out, negative pinches in."),
        ]
    ) { a in
        let image = try a.image(), c = try a._point("inputCenter")
        let r = try a.number("inputRadius"), s = try a.number("inputScale")
        if r == 0 || s == 0 { return image }
        let profile: @Sendable (Double) -> Double = { t in
            let q = 1 - (1 - t) * s; return q * q
        }
        let reach = r * _sampledMaximum { t in t * profile(t) }
        let shift = r * _sampledMaximum { t in t * Swift.abs(1 - profile(t)) }
        return image.warped(
            named: "bump \(c) r\(r) s\(s)", sampling: .bilinear,
            extent: _radialExtent(image.extent, center: c, radius: r, reach: reach),
            regionOfInterest: { _radialROI($0, center: c, radius: r, reach: reach, maxShift: shift) }
        ) { x, y in
            let dx = x - c.x, dy = y - c.y
            let rho = (dx * dx + dy * dy).squareRoot()
            if rho >= r { return Point(x: x, y: y) }
            let f = profile(rho / r)
            return Point(x: c.x + dx * f, y: c.y + dy * f)
        }
    }

    static let bumpDistortionLinear = FilterDescriptor(
        name: "CIBumpDistortionLinear", displayName: "Bump Distortion Linear",
        summary: "Bulges or dents the image in a band about a line through the center: the bump profile applied across the line.",
        categories: [.distortionEffect],
        inputs: [
            .image(), _center(), _radius(300),
            .number(
                "inputAngle", .angle, default: 0, sliderMin: -Double.pi, sliderMax: Double.pi,
                summary: "The direction of the line, in radians."),
            .number(
                "inputScale", default: 0.5, identity: 0, min: -1, max: 1,
                summary: "The strength: positive bulges out, negative pinches in."),
        ]
    ) { a in
        let image = try a.image(), c = try a._point("inputCenter")
        let r = try a.number("inputRadius"), s = try a.number("inputScale"), angle = try a.number("inputAngle")
        if r == 0 || s == 0 { return image }
        let nx = -sin(angle), ny = cos(angle)
        let profile: @Sendable (Double) -> Double = { t in
            let q = 1 - (1 - t) * s; return q * q
        }
        let shift = r * _sampledMaximum { t in t * Swift.abs(1 - profile(t)) }
        let e = image.extent
        return image.warped(
            named: "bumpLinear \(c) r\(r) a\(angle) s\(s)", sampling: .bilinear,
            extent: e.isInfinite ? e : e.insetBy(dx: -shift, dy: -shift),
            regionOfInterest: { rect in
                if rect.isEmpty || rect.isInfinite { return rect }
                let ps = [(rect.minX, rect.minY), (rect.maxX, rect.minY), (rect.minX, rect.maxY), (rect.maxX, rect.maxY)]
                    .map { ($0.0 - c.x) * nx + ($0.1 - c.y) * ny }
                let lo = ps.min()!, hi = ps.max()!
                if lo >= r || hi <= -r { return rect }
                return rect.insetBy(dx: -shift, dy: -shift)
            }
        ) { x, y in
            let perp = (x - c.x) * nx + (y - c.y) * ny
            let t = Swift.abs(perp) / r
            if t >= 1 { return Point(x: x, y: y) }
            let k = perp * (profile(t) - 1)
            return Point(x: x + nx * k, y: y + ny * k)
        }
    }

    static let pinchDistortion = FilterDescriptor(
        name: "CIPinchDistortion", displayName: "Pinch Distortion",
        summary:
            "Pinches the image toward the center of a disc: ImageMagick's implode, c + d sin(pi t / 2)^-scale, read no farther than the radius.",
        categories: [.distortionEffect],
        inputs: [
            .image(), _center(), _radius(300),
            .number(
                "inputScale", default: 0.5, identity: 0, min: 0, max: 2,
                summary: "The strength of the pinch."),
        ]
    ) { a in
        let image = try a.image(), c = try a._point("inputCenter")
        let r = try a.number("inputRadius"), s = try a.number("inputScale")
        if r == 0 || s == 0 { return image }
        return image.warped(
            named: "pinch \(c) r\(r) s\(s)", sampling: .bilinear,
            extent: _radialExtent(image.extent, center: c, radius: r, reach: r),
            regionOfInterest: { _radialROI($0, center: c, radius: r, reach: r, maxShift: r) }
        ) { x, y in
            let dx = x - c.x, dy = y - c.y
            let rho = (dx * dx + dy * dy).squareRoot()
            if rho >= r { return Point(x: x, y: y) }
            if rho == 0 { return c }
            let t = rho / r
            let f = Swift.min(pow(sin(Double.pi * t / 2), -s), 1 / t)
            return Point(x: c.x + dx * f, y: c.y + dy * f)
        }
    }

    /// A rotation by `angle * falloff(t)` inside the disc.
    static func _swirl(_ a: FilterArguments, kind: String, falloff: @escaping @Sendable (Double) -> Double) throws -> Image {
        let image = try a.image(), c = try a._point("inputCenter")
        let r = try a.number("inputRadius"), angle = try a.number("inputAngle")
        if r == 0 || angle == 0 { return image }
        return image.warped(
            named: "\(kind) \(c) r\(r) a\(angle)", sampling: .bilinear,
            extent: _radialExtent(image.extent, center: c, radius: r, reach: r),
            regionOfInterest: { _radialROI($0, center: c, radius: r, reach: r, maxShift: 2 * r) }
        ) { x, y in
            let dx = x - c.x, dy = y - c.y
            let rho = (dx * dx + dy * dy).squareRoot()
            if rho >= r { return Point(x: x, y: y) }
            let phi = angle * falloff(rho / r)
            let cs = cos(phi), sn = sin(phi)
            return Point(x: c.x + cs * dx - sn * dy, y: c.y + sn * dx + cs * dy)
        }
    }

    static let twirlDistortion = FilterDescriptor(
        name: "CITwirlDistortion", displayName: "Twirl Distortion",
        summary:
            "Rotates the pixels of a disc about its center, by `angle` at the center falling to 0 at the radius as (1 - t)^2 (ImageMagick's swirl).",
        categories: [.distortionEffect],
        inputs: [
            .image(), _center(), _radius(300),
            .number(
                "inputAngle", .angle, default: Double.pi, identity: 0, sliderMin: -4 * Double.pi, sliderMax: 4 * Double.pi,
                summary: "The rotation at the center, in radians."),
        ]
    ) { a in try _swirl(a, kind: "twirl") { t in (1 - t) * (1 - t) } }

    static let vortexDistortion = FilterDescriptor(
        name: "CIVortexDistortion", displayName: "Vortex Distortion",
        summary:
            "Rotates the pixels of a disc about its center like a vortex: by `angle` at the center falling linearly to 0 at the radius.",
        categories: [.distortionEffect],
        inputs: [
            .image(), _center(), _radius(300),
            .number(
                "inputAngle", .angle, default: 56.55, identity: 0, sliderMin: -94.25, sliderMax: 94.25,
                summary: "The rotation at the center, in radians."),
        ]
    ) { a in try _swirl(a, kind: "vortex") { t in 1 - t } }

    static let holeDistortion = FilterDescriptor(
        name: "CIHoleDistortion", displayName: "Hole Distortion",
        summary:
            "Opens a transparent hole of the radius and pushes the image outward, most near the hole: c + d sqrt(rho^2 - r^2) / rho.",
        categories: [.distortionEffect],
        inputs: [.image(), _center(), _radius(150)]
    ) { a in
        let image = try a.image(), c = try a._point("inputCenter"), r = try a.number("inputRadius")
        if r == 0 { return image }
        let e = image.extent
        return image.warped(
            named: "hole \(c) r\(r)", sampling: .bilinear,
            extent: e.isInfinite ? e : e.insetBy(dx: -r, dy: -r),
            regionOfInterest: { rect in
                if rect.isEmpty || rect.isInfinite { return rect }
                return _distanceRange(from: c, to: rect).max <= r ? .empty : rect.insetBy(dx: -r, dy: -r)
            }
        ) { x, y in
            let dx = x - c.x, dy = y - c.y
            let rho2 = dx * dx + dy * dy
            if rho2 <= r * r { return Point(x: Double.nan, y: Double.nan) }
            let f = (rho2 - r * r).squareRoot() / rho2.squareRoot()
            return Point(x: c.x + dx * f, y: c.y + dy * f)
        }
    }

    /// The region of interest of a warp that is the identity inside the disc and reads the
    /// disc (its circle) outside it.
    static func _outsideROI(_ rect: Rect, center c: Point, radius r: Double) -> Rect {
        if rect.isEmpty || rect.isInfinite { return rect }
        return _distanceRange(from: c, to: rect).max <= r ? rect : rect.union(_discBox(c, r))
    }

    static let circleSplashDistortion = FilterDescriptor(
        name: "CICircleSplashDistortion", displayName: "Circle Splash Distortion",
        summary: "Keeps a disc and spreads its circumference outward: each pixel outside takes the circle's color on its ray.",
        categories: [.distortionEffect],
        inputs: [.image(), _center(), _radius(150, identity: nil)]
    ) { a in
        let image = try a.image(), c = try a._point("inputCenter"), r = try a.number("inputRadius")
        return image.warped(
            named: "circleSplash \(c) r\(r)", sampling: .bilinear, extent: .infinite,
            regionOfInterest: { _outsideROI($0, center: c, radius: r) }
        ) { x, y in
            let dx = x - c.x, dy = y - c.y
            let rho = (dx * dx + dy * dy).squareRoot()
            if rho <= r { return Point(x: x, y: y) }
            let f = r / rho
            return Point(x: c.x + dx * f, y: c.y + dy * f)
        }
    }

    static let lightTunnel = FilterDescriptor(
        name: "CILightTunnel", displayName: "Light Tunnel Distortion",
        summary: "Keeps a disc and draws its circumference outward as a spiral tunnel: c + r dir(theta + rotation ln(rho / r)).",
        categories: [.distortionEffect],
        inputs: [
            .image(), _center(),
            .number(
                "inputRotation", .angle, default: 0, sliderMin: 0, sliderMax: 2 * Double.pi,
                summary: "The twist of the tunnel, in radians per e-fold of distance."),
            _radius(100, identity: nil, sliderMax: 500),
        ]
    ) { a in
        let image = try a.image(), c = try a._point("inputCenter")
        let r = try a.number("inputRadius"), rot = try a.number("inputRotation")
        return image.warped(
            named: "lightTunnel \(c) r\(r) rot\(rot)", sampling: .bilinear, extent: .infinite,
            regionOfInterest: { _outsideROI($0, center: c, radius: r) }
        ) { x, y in
            let dx = x - c.x, dy = y - c.y
            let rho = (dx * dx + dy * dy).squareRoot()
            if rho <= r { return Point(x: x, y: y) }
            if r == 0 { return c }
            let phi = atan2(dy, dx) + rot * log(rho / r)
            return Point(x: c.x + r * cos(phi), y: c.y + r * sin(phi))
        }
    }

    static let circularWrap = FilterDescriptor(
        name: "CICircularWrap", displayName: "Circular Wrap Distortion",
        summary:
            "Wraps the image around a transparent disc: the row through the center lies on the circle, the column x = c.x + r (theta - angle) at angle theta.",
        categories: [.distortionEffect],
        inputs: [
            .image(), _center(), _radius(150, identity: nil),
            .number(
                "inputAngle", .angle, default: 0, sliderMin: -Double.pi, sliderMax: Double.pi,
                summary: "The angle, in radians, at which the center column lies."),
        ]
    ) { a in
        let image = try a.image(), c = try a._point("inputCenter")
        let r = try a.number("inputRadius"), angle = try a.number("inputAngle")
        var extent = Rect.infinite
        let e = image.extent
        if !e.isInfinite {
            let outer = r + e.maxY - c.y
            extent = outer > r && !e.isEmpty ? _discBox(c, outer) : .empty
        }
        return image.warped(
            named: "circularWrap \(c) r\(r) a\(angle)", sampling: .bilinear, extent: extent,
            regionOfInterest: { rect in
                if rect.isEmpty || rect.isInfinite { return rect }
                let d = _distanceRange(from: c, to: rect)
                if d.max <= r { return .empty }
                let y0 = c.y + Swift.max(d.min, r) - r, y1 = c.y + d.max - r
                return Rect(x: c.x - Double.pi * r - 1, y: y0, width: 2 * Double.pi * r + 2, height: y1 - y0)
            }
        ) { x, y in
            let dx = x - c.x, dy = y - c.y
            let rho = (dx * dx + dy * dy).squareRoot()
            if rho < r { return Point(x: Double.nan, y: Double.nan) }
            var theta = atan2(dy, dx) - angle
            theta -= 2 * Double.pi * ((theta + Double.pi) / (2 * Double.pi)).rounded(.down)
            return Point(x: c.x + r * theta, y: c.y + rho - r)
        }
    }
}

extension FilterArguments {
    /// A 2-vector input as a point.
    func _point(_ key: String) throws -> Point {
        let v = try vector(key)
        guard v.count == 2 else { throw fail(key, "must have 2 components, got \(v.count)") }
        return Point(x: v[0], y: v[1])
    }
}

extension Image {
    /// Bulges (`scale > 0`) or dents the disc of `radius` about `center` (`CIBumpDistortion`):
    /// the pixel at distance rho samples `c + d (1 - (1 - rho/r) scale)^2` (GPUImage's bulge).
    /// Positions are top-left-origin pixels.
    ///
    /// - Complexity: one bilinear sample per pixel.
    public func bumpDistorted(center: Point? = nil, radius: Double? = nil, scale: Double? = nil) throws -> Image {
        try FilterDescriptor.bumpDistortion.apply([
            "inputImage": .image(self), "inputCenter": center.map(FilterValue.point),
            "inputRadius": radius.map(FilterValue.number), "inputScale": scale.map(FilterValue.number),
        ])
    }

    /// Pinches the disc about `center` (`CIPinchDistortion`, ImageMagick's implode).
    public func pinchDistorted(center: Point? = nil, radius: Double? = nil, scale: Double? = nil) throws -> Image {
        try FilterDescriptor.pinchDistortion.apply([
            "inputImage": .image(self), "inputCenter": center.map(FilterValue.point),
            "inputRadius": radius.map(FilterValue.number), "inputScale": scale.map(FilterValue.number),
        ])
    }

    /// Twirls the disc about `center` by `angle` radians at the center (`CITwirlDistortion`).
    public func twirlDistorted(center: Point? = nil, radius: Double? = nil, angle: Double? = nil) throws -> Image {
        try FilterDescriptor.twirlDistortion.apply([
            "inputImage": .image(self), "inputCenter": center.map(FilterValue.point),
            "inputRadius": radius.map(FilterValue.number), "inputAngle": angle.map(FilterValue.number),
        ])
    }

    /// Swirls the disc about `center` like a vortex (`CIVortexDistortion`).
    public func vortexDistorted(center: Point? = nil, radius: Double? = nil, angle: Double? = nil) throws -> Image {
        try FilterDescriptor.vortexDistortion.apply([
            "inputImage": .image(self), "inputCenter": center.map(FilterValue.point),
            "inputRadius": radius.map(FilterValue.number), "inputAngle": angle.map(FilterValue.number),
        ])
    }

    /// Opens a transparent hole of `radius` at `center` (`CIHoleDistortion`).
    public func holeDistorted(center: Point? = nil, radius: Double? = nil) throws -> Image {
        try FilterDescriptor.holeDistortion.apply([
            "inputImage": .image(self), "inputCenter": center.map(FilterValue.point),
            "inputRadius": radius.map(FilterValue.number),
        ])
    }
}

extension FilterValue {
    /// A point as a 2-vector value.
    static func point(_ p: Point) -> FilterValue { .vector([p.x, p.y]) }
}
