// Scaling and straightening: bicubic (Mitchell-Netravali) and maximum-quality scaling,
// keystone correction, straighten, nine-part resizing, and UIImageView-style content modes.
// Positions are top-left-origin pixels, angles radians.
//
// The separable resamplers follow Pillow's convention (as the Lanczos transform does): for
// output pixel o the input center is (o + 1/2) * in / out, the filter's support widens by
// in / out when shrinking (antialiasing), taps stop at the input's edges and the weights are
// normalized. Each axis is one exact pass built from the graph's existing nodes:
//
// * shrinking: a stencil in input coordinates computes, at the input pixel under each
//   output's center, that output's weighted sum; a nearest-sampling warp then picks those
//   pixels into output coordinates;
// * enlarging: the nearest-sampling warp first replicates input pixels into output
//   coordinates; a stencil in output coordinates reads each tap from a copy of its pixel.
//
// Both read each input pixel through exact copies, so the result equals the direct sum.

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

extension FilterDescriptor {
    static let scaleFilters: [FilterDescriptor] = [
        bicubicScaleTransform, maximumScaleTransform, keystoneCorrectionHorizontal, keystoneCorrectionVertical,
        keystoneCorrectionCombined, straightenFilter, ninePartStretched, ninePartTiled,
    ]

    // MARK: Separable resampling

    /// Resamples `image` along one axis from `[inStart, inStart + inSize)` to
    /// `[outStart, outStart + outSize)` with `filter`.
    static func _resampleAxis(
        _ image: Image, horizontal: Bool, inStart: Int, inSize: Int,
        outStart: Int, outSize: Int, filter: _ResampleFilter
    ) -> Image {
        let scale = Double(inSize) / Double(outSize)
        // Taps per output, flattened.
        var starts = [Int](repeating: 0, count: outSize), counts = [Int](repeating: 0, count: outSize)
        var offsets = [Int](repeating: 0, count: outSize + 1), weights: [Float] = []
        for o in 0..<outSize {
            let t = filter.taps(o, inputSize: inSize, outputSize: outSize)
            starts[o] = t.start; counts[o] = t.weights.count
            weights += t.weights
            offsets[o + 1] = weights.count
        }
        // The input pixel under each output's center.
        let under = (0..<outSize).map { o in Swift.min(Swift.max(Int(((Double(o) + 0.5) * scale).rounded(.down)), 0), inSize - 1)
        }
        let e = image.extent
        @Sendable func along(_ r: Rect, _ lo: Double, _ hi: Double) -> Rect {
            horizontal
                ? Rect(minX: lo, minY: r.minY, maxX: hi, maxY: r.maxY) : Rect(minX: r.minX, minY: lo, maxX: r.maxX, maxY: hi)
        }
        let outExtent = along(e, Double(outStart), Double(outStart + outSize))
        let tag = "\(horizontal ? "h" : "v") \(inStart)+\(inSize)->\(outStart)+\(outSize) \(filter.name)"
        let maxTaps = counts.max() ?? 1
        let (starts_, counts_, offsets_, weights_) = (starts, counts, offsets, weights)

        /// The nearest-sampling warp from output coordinates to the pixel under each center.
        func pick(_ input: Image, extent: Rect) -> Image {
            input.warped(
                named: "pick \(tag)", sampling: .nearest, extent: extent,
                regionOfInterest: { r in
                    if r.isEmpty || r.isInfinite { return r }
                    let lo = horizontal ? r.minX : r.minY, hi = horizontal ? r.maxX : r.maxY
                    let o0 = Swift.min(Swift.max(Int(lo.rounded(.down)) - outStart, 0), outSize - 1)
                    let o1 = Swift.min(Swift.max(Int((hi - 1).rounded(.up)) - outStart, 0), outSize - 1)
                    return along(r, Double(inStart + under[o0]), Double(inStart + under[o1] + 1))
                }
            ) { x, y in
                let v = horizontal ? x : y
                let o = Swift.min(Swift.max(Int(v.rounded(.down)) - outStart, 0), outSize - 1)
                let s = Double(inStart + under[o]) + 0.5
                return horizontal ? Point(x: s, y: y) : Point(x: x, y: s)
            }
        }

        /// A stencil: `source(o, k)` is the coordinate along the axis of output `o`'s tap `k`,
        /// `output(c)` the output index computed at coordinate `c` (or nil).
        func stencil(
            _ input: Image, halo: Int, name: String,
            output: @escaping @Sendable (Int) -> Int?, source: @escaping @Sendable (Int, Int) -> Int
        ) -> Image {
            let k = StencilKernel(
                name: name, sharesByName: true, haloX: horizontal ? halo : 0, haloY: horizontal ? 0 : halo,
                cost: maxTaps
            ) { src, out, _, _ in
                weights_.withUnsafeBufferPointer { w in
                    for y in out.rect.y..<out.rect.maxY {
                        let row = out.row(y)
                        for x in out.rect.x..<out.rect.maxX {
                            guard let o = output(horizontal ? x : y) else { row[x - out.rect.x] = .zero; continue }
                            var acc = SIMD4<Float>(repeating: 0)
                            for j in 0..<counts_[o] {
                                let c = source(o, j)
                                let p = horizontal ? src.pointer(x: c, y: y) : src.pointer(x: x, y: c)
                                acc = acc + p.pointee * w[offsets_[o] + j]
                            }
                            row[x - out.rect.x] = acc
                        }
                    }
                }
            }
            return Image(node: Node(.stencil(.custom(k)), inputs: [input.node], extent: input.extent))
        }

        if scale >= 1 {
            var table = [Int](repeating: -1, count: inSize)
            for (o, i) in under.enumerated() { table[i] = o }
            let outputAt = table
            let halo = Int((filter.support * scale).rounded(.up)) + 2
            let summed = stencil(
                image, halo: halo, name: "resample \(tag)",
                output: { c in
                    let i = c - inStart
                    return i >= 0 && i < inSize && outputAt[i] >= 0 ? outputAt[i] : nil
                }, source: { o, j in inStart + starts_[o] + j })
            return pick(summed, extent: outExtent)
        }
        // Enlarging: the first output showing each input pixel.
        var table = [Int](repeating: 0, count: inSize)
        for o in stride(from: outSize - 1, through: 0, by: -1) { table[under[o]] = o }
        let firstOutput = table
        let replicated = pick(image, extent: outExtent)
        let halo = Int(((filter.support + 2) / scale).rounded(.up)) + 2
        return stencil(
            replicated, halo: halo, name: "resample \(tag)",
            output: { c in
                let o = c - outStart
                return o >= 0 && o < outSize ? o : nil
            }, source: { o, j in outStart + firstOutput[starts_[o] + j] })
    }

    /// The output rect of scaling `ie` by `sx`, `sy` (rounded as the Lanczos transform does).
    static func _scaledRect(_ ie: IntRect, sx: Double, sy: Double) throws -> IntRect {
        let ow = Swift.max(1, Int((Double(ie.width) * sx).rounded())), oh = Swift.max(1, Int((Double(ie.height) * sy).rounded()))
        guard ow <= 1 << 24, oh <= 1 << 24 else {
            throw PixelFlowError.limitExceeded(what: "scaled size", value: Swift.max(ow, oh), limit: 1 << 24)
        }
        return IntRect(x: Int((Double(ie.x) * sx).rounded()), y: Int((Double(ie.y) * sy).rounded()), width: ow, height: oh)
    }

    /// Separable resampling of `image`'s extent onto `out`: horizontal pass, then vertical.
    static func _resample(_ image: Image, to out: IntRect, filter: _ResampleFilter) -> Image {
        let ie = IntRect(covering: image.extent)
        var img = image
        if out.width != ie.width || out.x != ie.x {
            img = _resampleAxis(
                img, horizontal: true, inStart: ie.x, inSize: ie.width, outStart: out.x, outSize: out.width, filter: filter)
        }
        if out.height != ie.height || out.y != ie.y {
            img = _resampleAxis(
                img, horizontal: false, inStart: ie.y, inSize: ie.height, outStart: out.y, outSize: out.height, filter: filter)
        }
        return img
    }

    static func _scaleInputs() -> [FilterInput] {
        [
            .image(),
            .number(
                "inputScale", default: 1, identity: 1, min: 0.001, max: 64, sliderMin: 0.05, sliderMax: 1.5,
                summary: "The vertical scale factor."),
            .number(
                "inputAspectRatio", default: 1, identity: 1, min: 0.001, max: 64, sliderMin: 0.05, sliderMax: 2,
                summary: "The horizontal scale divided by the vertical one."),
        ]
    }

    /// The validated finite extent and output rect of a scale filter, or nil for no change.
    static func _scaleTarget(_ a: FilterArguments, _ image: Image) throws -> (IntRect, IntRect)? {
        let s = try a.number("inputScale"), r = try a.number("inputAspectRatio")
        guard s > 0 else { throw a.fail("inputScale", "must be above 0, got \(s)") }
        guard r > 0 else { throw a.fail("inputAspectRatio", "must be above 0, got \(r)") }
        guard !image.extent.isInfinite else {
            throw PixelFlowError.invalidExtent("\(a.filter) needs a finite extent; crop the image first")
        }
        let ie = IntRect(covering: image.extent)
        if ie.isEmpty || (s == 1 && r == 1) { return nil }
        return (ie, try _scaledRect(ie, sx: s * r, sy: s))
    }

    static let bicubicScaleTransform = FilterDescriptor(
        name: "CIBicubicScaleTransform", displayName: "Bicubic Scale Transform",
        summary: "Scales the image with a separable Mitchell-Netravali cubic (B, C), antialiased when shrinking.",
        categories: [.geometryAdjustment],
        inputs: _scaleInputs() + [
            .number(
                "inputB", default: 0, min: 0, max: 1, summary: "The cubic's B parameter (blur): 0 is sharpest, 1 a B-spline."),
            .number(
                "inputC", default: 0.75, min: 0, max: 1,
                summary: "The cubic's C parameter (ringing); B = 0, C = 0.5 is Keys' and Pillow's bicubic."),
        ]
    ) { a in
        let image = try a.image()
        guard let target = try _scaleTarget(a, image) else { return image }
        let out = target.1
        let filter = _ResampleFilter.cubic(b: try a.number("inputB"), c: try a.number("inputC"))
        return _resample(image, to: out, filter: filter)
    }

    static let maximumScaleTransform = FilterDescriptor(
        name: "CIMaximumScaleTransform", displayName: "Maximum Scale Transform",
        summary:
            "Scales with the highest quality: an area-averaging (box) reduction to twice the size, then antialiased Lanczos-3.",
        categories: [.geometryAdjustment],
        inputs: _scaleInputs()
    ) { a in
        let image = try a.image()
        guard let target = try _scaleTarget(a, image) else { return image }
        let (ie, out) = target
        let mid = IntRect(
            x: ie.x, y: ie.y, width: Swift.min(ie.width, 2 * out.width), height: Swift.min(ie.height, 2 * out.height))
        var reduced = image
        if mid.width != ie.width || mid.height != ie.height { reduced = _resample(image, to: mid, filter: .box) }
        return Image(node: Node(.warp(.lanczos(output: out)), inputs: [reduced.node], extent: out.rect))
    }

    // MARK: Straighten and keystone

    static let straightenFilter = FilterDescriptor(
        name: "CIStraightenFilter", displayName: "Straighten",
        summary:
            "Rotates the image about its center and enlarges it just enough that no transparent corner shows, keeping the extent.",
        categories: [.geometryAdjustment],
        inputs: [
            .image(),
            .number(
                "inputAngle", .angle, default: 0, identity: 0, sliderMin: -Double.pi, sliderMax: Double.pi,
                summary: "The rotation in radians; positive turns the image counterclockwise as displayed."),
        ]
    ) { a in
        let image = try a.image(), angle = try a.number("inputAngle")
        if angle == 0 { return image }
        let e = try _finiteExtent(image, a.filter)
        let cs = Swift.abs(cos(angle)), sn = Swift.abs(sin(angle))
        // On the rect of pixel centers, so that bilinear samples at the corners stay opaque.
        let w = Swift.max(e.width - 1, 1), h = Swift.max(e.height - 1, 1)
        let s = Swift.max((w * cs + h * sn) / w, (w * sn + h * cs) / h)
        let phi = -angle
        let ta = s * cos(phi), tb = s * sin(phi)
        let cx = e.midX, cy = e.midY
        let t = AffineTransform(a: ta, b: tb, c: -tb, d: ta, tx: cx - (ta * cx - tb * cy), ty: cy - (tb * cx + ta * cy))
        return try image.transformed(by: t).cropped(to: e)
    }

    static func _keystone(_ a: FilterArguments, horizontal: Bool, vertical: Bool) throws -> Image {
        let image = try a.image(), q = try a._quad(), focal = try a.number("inputFocalLength")
        let e = try _finiteExtent(image, a.filter)
        let (tl, tr, br, bl) = (q[0], q[1], q[2], q[3])
        let f = focal / 36 * Swift.max(e.width, e.height)
        /// The stretch 1 / cos(tilt) for guides meeting at a vanishing point `d` pixels from
        /// the image center along the corrected axis: tan(tilt) = f / d.
        func stretch(_ p0: Point, _ p1: Point, _ p2: Point, _ p3: Point, alongY: Bool) -> Double {
            let d1x = p1.x - p0.x, d1y = p1.y - p0.y, d2x = p3.x - p2.x, d2y = p3.y - p2.y
            let den = d1x * d2y - d1y * d2x
            guard Swift.abs(den) > 1e-9 else { return 1 }
            let t = ((p2.x - p0.x) * d2y - (p2.y - p0.y) * d2x) / den
            let vp = Point(x: p0.x + t * d1x, y: p0.y + t * d1y)
            let d = alongY ? Swift.abs(vp.y - e.midY) : Swift.abs(vp.x - e.midX)
            guard d.isFinite, d > 0 else { return 1 }
            return (1 + (f / d) * (f / d)).squareRoot()
        }
        var t = [tl, tr, br, bl]
        if vertical {
            let xl = (tl.x + bl.x) / 2, xr = (tr.x + br.x) / 2
            t[0].x = xl; t[3].x = xl; t[1].x = xr; t[2].x = xr
        }
        if horizontal {
            let yt = (tl.y + tr.y) / 2, yb = (bl.y + br.y) / 2
            t[0].y = yt; t[1].y = yt; t[3].y = yb; t[2].y = yb
        }
        let sy = vertical ? stretch(tl, bl, tr, br, alongY: true) : 1
        let sx = horizontal ? stretch(tl, tr, bl, br, alongY: false) : 1
        let mx = t.map(\.x).reduce(0, +) / 4, my = t.map(\.y).reduce(0, +) / 4
        t = t.map { Point(x: mx + ($0.x - mx) * sx, y: my + ($0.y - my) * sy) }
        guard let forward = Homography(from: q, to: t), let backward = Homography(from: t, to: q) else {
            throw a.fail("inputTopLeft", "and the other corners must form a convex quadrilateral, got \(q)")
        }
        var extent = e
        if let m = forward.mappedBounds(of: e) {
            let limit = e.insetBy(dx: -2 * e.width, dy: -2 * e.height)
            extent = m.intersection(limit)
            if extent.isEmpty { extent = e }
        }
        return image.warped(
            named: "keystone h\(horizontal) v\(vertical) \(q) f\(focal)", sampling: .bilinear, extent: extent,
            regionOfInterest: { r in backward.mappedBounds(of: r) ?? e }
        ) { x, y in
            backward.apply(to: Point(x: x, y: y)) ?? Point(x: Double.nan, y: Double.nan)
        }
    }

    static func _keystoneInputs() -> [FilterInput] {
        [
            .image(),
            .number(
                "inputFocalLength", default: 28, min: 1, max: 2000, sliderMin: 10, sliderMax: 200,
                summary:
                    "The 35 mm equivalent focal length of the photo, in millimetres; sets how much the corrected axis is stretched."
            ),
        ]
            + _perspectiveCornerInputs
    }

    static let keystoneCorrectionVertical = FilterDescriptor(
        name: "CIKeystoneCorrectionVertical", displayName: "Vertical Keystone Correction",
        summary:
            "Makes the left and right guides (top-left to bottom-left, top-right to bottom-right) vertical with a projective warp.",
        categories: [.geometryAdjustment],
        inputs: _keystoneInputs()
    ) { a in try _keystone(a, horizontal: false, vertical: true) }

    static let keystoneCorrectionHorizontal = FilterDescriptor(
        name: "CIKeystoneCorrectionHorizontal", displayName: "Horizontal Keystone Correction",
        summary: "Makes the top and bottom guides horizontal with a projective warp.",
        categories: [.geometryAdjustment],
        inputs: _keystoneInputs()
    ) { a in try _keystone(a, horizontal: true, vertical: false) }

    static let keystoneCorrectionCombined = FilterDescriptor(
        name: "CIKeystoneCorrectionCombined", displayName: "Combined Keystone Correction",
        summary: "Makes the four guides an upright rectangle with a projective warp.",
        categories: [.geometryAdjustment],
        inputs: _keystoneInputs()
    ) { a in try _keystone(a, horizontal: true, vertical: true) }

    // MARK: Nine-part images

    static func _ninePartInputs() -> [FilterInput] {
        [
            .image(),
            .vector(
                "inputBreakpoint0", .position, default: [50, 50],
                summary: "The [x y] where the left column and top row end, in top-left-origin pixels."),
            .vector(
                "inputBreakpoint1", .position, default: [150, 150],
                summary: "The [x y] where the right column and bottom row start."),
            .vector(
                "inputGrowAmount", .offset, default: [100, 100], identity: [0, 0],
                summary: "How many pixels [x y] the middle column and row grow by."),
        ]
    }

    /// Builds a nine-part image: corners kept, the middle column and row mapped by `middle`
    /// (an offset into the output's middle -> an offset into the input's middle, per axis).
    static func _ninePart(
        _ a: FilterArguments, kind: String,
        middle: @escaping @Sendable (_ offset: Double, _ inputLength: Double, _ outputLength: Double, _ y: Bool) -> Double
    ) throws -> Image {
        let image = try a.image(), b0 = try a._point("inputBreakpoint0"), b1 = try a._point("inputBreakpoint1")
        let grow = try a.vector("inputGrowAmount")
        let e = try _finiteExtent(image, a.filter)
        if grow[0] == 0 && grow[1] == 0 { return image }
        let x0 = Swift.min(Swift.max(Swift.min(b0.x, b1.x), e.minX), e.maxX),
            x1 = Swift.min(Swift.max(Swift.max(b0.x, b1.x), e.minX), e.maxX)
        let y0 = Swift.min(Swift.max(Swift.min(b0.y, b1.y), e.minY), e.maxY),
            y1 = Swift.min(Swift.max(Swift.max(b0.y, b1.y), e.minY), e.maxY)
        let mw = x1 - x0, mh = y1 - y0
        guard mw + grow[0] >= 0, mh + grow[1] >= 0 else {
            throw a.fail("inputGrowAmount", "must not shrink the middle below zero (middle is \(mw)x\(mh)), got \(grow)")
        }
        let gx = grow[0], gy = grow[1]
        let ex0 = e.minX + 0.5, ex1 = e.maxX - 0.5, ey0 = e.minY + 0.5, ey1 = e.maxY - 0.5
        @Sendable func mapAxis(_ v: Double, _ lo: Double, _ len: Double, _ g: Double, _ isY: Bool) -> Double {
            if v < lo || g == 0 { return v }
            if v < lo + len + g {
                // An empty middle repeats the pixel next to the breakpoint.
                if len == 0 { return isY ? Swift.min(Swift.max(lo, ey0), ey1) : Swift.min(Swift.max(lo, ex0), ex1) }
                return lo + middle(v - lo, len, len + g, isY)
            }
            return v - g
        }
        let extent = Rect(x: e.x, y: e.y, width: e.width + gx, height: e.height + gy)
        return image.warped(
            named: "\(kind) \(b0) \(b1) \(grow)", sampling: .bilinear, extent: extent,
            regionOfInterest: { r in
                if r.isEmpty || r.isInfinite { return r }
                func span(_ lo: Double, _ hi: Double, _ m0: Double, _ len: Double, _ g: Double, _ isY: Bool) -> (Double, Double) {
                    var a = Swift.min(mapAxis(lo, m0, len, g, isY), mapAxis(hi, m0, len, g, isY))
                    var b = Swift.max(mapAxis(lo, m0, len, g, isY), mapAxis(hi, m0, len, g, isY))
                    if hi > m0 && lo < m0 + len + g { a = Swift.min(a, m0 - 1); b = Swift.max(b, m0 + len + 1) }
                    return (a, b)
                }
                let (ax, bx) = span(r.minX, r.maxX, x0, mw, gx, false), (ay, by) = span(r.minY, r.maxY, y0, mh, gy, true)
                return Rect(minX: ax, minY: ay, maxX: bx, maxY: by)
            }
        ) { x, y in Point(x: mapAxis(x, x0, mw, gx, false), y: mapAxis(y, y0, mh, gy, true)) }
    }

    /// `v`, an offset into a middle of `len` pixels, moved onto its pixel centers
    /// `[0.5, len - 0.5]` (its center when it is less than a pixel), so that bilinear sampling
    /// of the middle never blends in the corner pixels beside it, nor the transparent outside
    /// of the image when a corner is empty.
    static func _insideMiddle(_ v: Double, _ len: Double) -> Double {
        len >= 1 ? Swift.min(Swift.max(v, 0.5), len - 0.5) : len / 2
    }

    static let ninePartStretched = FilterDescriptor(
        name: "CINinePartStretched", displayName: "Nine Part Stretched",
        summary:
            "Grows the image by stretching its middle column and row, keeping the four corners (a resizable image with cap insets).",
        categories: [.distortionEffect],
        inputs: _ninePartInputs()
    ) { a in
        try _ninePart(a, kind: "ninePartStretched") { off, len, outLen, _ in
            outLen > 0 ? _insideMiddle(off * len / outLen, len) : 0
        }
    }

    static let ninePartTiled = FilterDescriptor(
        name: "CINinePartTiled", displayName: "Nine Part Tiled",
        summary:
            "Grows the image by repeating its middle column and row, keeping the four corners; optionally flips every other tile row.",
        categories: [.distortionEffect],
        inputs: _ninePartInputs() + [
            .boolean(
                "inputFlipYTiles", default: true,
                summary: "Mirrors every other repetition of the middle row vertically, so tiles meet without seams.")
        ]
    ) { a in
        let flip = try a.number("inputFlipYTiles") >= 0.5
        return try _ninePart(a, kind: "ninePartTiled flip\(flip)") { off, len, _, isY in
            guard len > 0 else { return 0 }
            let k = (off / len).rounded(.down)
            let f = off - k * len
            let v = (flip && isY && _mod(k, 2) >= 1) ? len - f : f
            return _insideMiddle(v, len)
        }
    }
}

// MARK: Typed API

/// How `Image.resized(to:contentMode:)` places the image in the target size, as
/// UIImageView's content modes do.
public enum ContentMode: String, Sendable, CaseIterable {
    /// Scales each axis to fill the target (the aspect ratio may change).
    case scaleToFill
    /// Scales uniformly to fit inside the target, centered; the rest stays transparent.
    case aspectFit
    /// Scales uniformly to cover the target, centered; the overflow is cropped.
    case aspectFill
    /// No scaling; the image's center at the target's center.
    case center, top, bottom, left, right, topLeft, topRight, bottomLeft, bottomRight
}

extension Image {
    /// Scales with a Mitchell-Netravali cubic (`CIBicubicScaleTransform`); B = 0, C = 0.5
    /// matches Pillow's BICUBIC. The output size is the input's times the factors, rounded.
    ///
    /// - Complexity: 4 x max(1, 1/scale) taps per axis per output pixel.
    public func bicubicScaled(scale: Double? = nil, aspectRatio: Double? = nil, b: Double? = nil, c: Double? = nil) throws
        -> Image
    {
        try FilterDescriptor.bicubicScaleTransform.apply([
            "inputImage": .image(self), "inputScale": scale.map(FilterValue.number),
            "inputAspectRatio": aspectRatio.map(FilterValue.number),
            "inputB": b.map(FilterValue.number), "inputC": c.map(FilterValue.number),
        ])
    }

    /// Scales with area averaging followed by Lanczos-3 (`CIMaximumScaleTransform`): no
    /// aliasing however far it shrinks.
    ///
    /// - Complexity: about 1/scale + 12 taps per axis per output pixel.
    public func maximumScaled(scale: Double? = nil, aspectRatio: Double? = nil) throws -> Image {
        try FilterDescriptor.maximumScaleTransform.apply([
            "inputImage": .image(self), "inputScale": scale.map(FilterValue.number),
            "inputAspectRatio": aspectRatio.map(FilterValue.number),
        ])
    }

    /// Rotates by `angle` radians about the center and enlarges to hide the corners
    /// (`CIStraightenFilter`).
    public func straightened(angle: Double) throws -> Image {
        try FilterDescriptor.straightenFilter.apply(["inputImage": .image(self), "inputAngle": .number(angle)])
    }

    /// The image resized into `size` (output rect `[0, 0, width, height]`, top-left origin)
    /// as UIImageView's `contentMode` would show it: Lanczos-3 scaling (for the scale modes),
    /// a whole-pixel translation and a crop to the target.
    ///
    /// ```swift
    /// let thumb = try photo.resized(to: Size(width: 200, height: 200), contentMode: .aspectFill)
    /// ```
    ///
    /// - Throws: `invalidParameter` for a size below one pixel or not finite;
    ///   `invalidExtent` for an infinite or empty image.
    public func resized(to size: Size, contentMode: ContentMode) throws -> Image {
        let tw = size.width.rounded(), th = size.height.rounded()
        guard tw.isFinite, th.isFinite, tw >= 1, th >= 1, tw <= 16_777_216, th <= 16_777_216 else {
            throw PixelFlowError.invalidParameter(
                filter: "resized", key: "size", reason: "must be between 1 and 2^24 pixels on each side, got \(size)")
        }
        let e = extent
        guard !e.isInfinite, !e.isEmpty else {
            throw PixelFlowError.invalidExtent("resized(to:contentMode:) needs a finite, non-empty extent")
        }
        var img = self
        let fx = tw / e.width, fy = th / e.height
        switch contentMode {
        case .scaleToFill: img = try lanczosScaled(scale: fy, aspectRatio: fx / fy)
        case .aspectFit: img = try lanczosScaled(scale: Swift.min(fx, fy))
        case .aspectFill: img = try lanczosScaled(scale: Swift.max(fx, fy))
        default: break
        }
        let s = img.extent
        let left = -s.minX, right = tw - s.maxX, midX = ((tw - s.width) / 2).rounded(.down) - s.minX
        let top = -s.minY, bottom = th - s.maxY, midY = ((th - s.height) / 2).rounded(.down) - s.minY
        let dx: Double, dy: Double
        switch contentMode {
        case .scaleToFill, .aspectFit, .aspectFill, .center: dx = midX; dy = midY
        case .top: dx = midX; dy = top
        case .bottom: dx = midX; dy = bottom
        case .left: dx = left; dy = midY
        case .right: dx = right; dy = midY
        case .topLeft: dx = left; dy = top
        case .topRight: dx = right; dy = top
        case .bottomLeft: dx = left; dy = bottom
        case .bottomRight: dx = right; dy = bottom
        }
        return try img.transformed(by: AffineTransform(translationX: dx, y: dy)).cropped(
            to: Rect(x: 0, y: 0, width: tw, height: th))
    }

    /// The image resized to `targetSize` with its corners kept: UIKit's
    /// `resizableImage(withCapInsets:resizingMode:)` drawn at a size. `capInsets` cut the
    /// image into nine parts; the four corners are copied unchanged, the top and bottom edges
    /// grow (or shrink) horizontally only, the left and right edges vertically only, and the
    /// middle both ways, by stretching or by repeating it whole (`resizingMode`). The result's
    /// extent has the image's origin and `targetSize`.
    ///
    /// Built on `CINinePartStretched` and `CINinePartTiled` (without flipped tiles), with the
    /// breakpoints at the insets and the grow amount `targetSize` minus the image's size.
    /// Stretching samples the middle bilinearly between its own pixel centers, so neither the
    /// corners nor the transparent outside blend into it; with whole-pixel insets and size,
    /// corners and tiles are exact copies.
    ///
    /// ```swift
    /// // UIKit: let bubble = image.resizableImage(withCapInsets: UIEdgeInsets(top: 14, left: 20, bottom: 14, right: 20),
    /// //                                        resizingMode: .stretch)   // then drawn in a 300x80 frame
    /// let bubble = try image.resizableImage(capInsets: EdgeInsets(top: 14, left: 20, bottom: 14, right: 20),
    ///                                       targetSize: Size(width: 300, height: 80), resizingMode: .stretch)
    /// ```
    ///
    /// - Parameters:
    ///   - capInsets: the corners' sizes, in pixels from each edge (top-left origin); each at
    ///     least 0, `left + right` at most the width and `top + bottom` at most the height.
    ///   - targetSize: the output size, in pixels, at least the caps (`left + right` by
    ///     `top + bottom`) and at least 1 on each side.
    ///   - resizingMode: `.tile` (UIKit's default for `resizableImage(withCapInsets:)`) or
    ///     `.stretch`.
    /// - Throws: `invalidExtent` for an infinite or empty image; `invalidParameter` for
    ///   insets or a size that break the rules above, or caps that leave no middle along an
    ///   axis whose size changes.
    /// - Complexity: one bilinear read per output pixel, no scratch.
    public func resizableImage(capInsets: EdgeInsets, targetSize: Size, resizingMode: ResizingMode = .tile) throws -> Image {
        let e = extent
        guard !e.isInfinite, !e.isEmpty else {
            throw PixelFlowError.invalidExtent(
                "resizableImage(capInsets:targetSize:resizingMode:) needs a finite, non-empty extent")
        }
        func fail(_ key: String, _ reason: String) -> PixelFlowError {
            .invalidParameter(filter: "resizableImage", key: key, reason: reason)
        }
        let c = capInsets
        guard c.isFinite, c.top >= 0, c.left >= 0, c.bottom >= 0, c.right >= 0 else {
            throw fail("capInsets", "must be finite and at least 0, got \(c)")
        }
        guard c.left + c.right <= e.width, c.top + c.bottom <= e.height else {
            throw fail(
                "capInsets",
                "must fit in the image (\(e.width)x\(e.height)): left + right at most the width, "
                    + "top + bottom at most the height, got \(c)")
        }
        let w = targetSize.width, h = targetSize.height
        guard w.isFinite, h.isFinite, w >= Swift.max(1, c.left + c.right), h >= Swift.max(1, c.top + c.bottom) else {
            throw fail(
                "targetSize",
                "must be finite, at least 1 and at least the caps (\(c.left + c.right)x\(c.top + c.bottom)), "
                    + "got \(w)x\(h)")
        }
        let middle = e.inset(by: c)
        if (middle.width == 0 && w != e.width) || (middle.height == 0 && h != e.height) {
            throw fail(
                "capInsets",
                "leave no middle to \(resizingMode.rawValue) between them, but targetSize \(w)x\(h) "
                    + "changes the size \(e.width)x\(e.height) along that axis")
        }
        var values: [String: FilterValue?] = [
            "inputImage": .image(self), "inputBreakpoint0": .vector([middle.minX, middle.minY]),
            "inputBreakpoint1": .vector([middle.maxX, middle.maxY]), "inputGrowAmount": .vector([w - e.width, h - e.height]),
        ]
        switch resizingMode {
        case .stretch:
            return try FilterDescriptor.ninePartStretched.apply(values)
        case .tile:
            values["inputFlipYTiles"] = .boolean(false)
            return try FilterDescriptor.ninePartTiled.apply(values)
        }
    }
}

/// How `Image.resizableImage(capInsets:targetSize:resizingMode:)` fills the parts between
/// the caps: UIKit's `UIImage.ResizingMode`.
public enum ResizingMode: String, Sendable, CaseIterable {
    /// Repeats the middle parts whole, from the top-left caps on (`CINinePartTiled`).
    case tile
    /// Scales the middle parts to fill (`CINinePartStretched`).
    case stretch
}
