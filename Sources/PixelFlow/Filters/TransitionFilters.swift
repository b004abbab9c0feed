// Transitions: from `inputImage` at time 0 to `inputTargetImage` at time 1. Each is built from
// the engine's existing node kinds: mask generators (how much of each image shows at a pixel,
// Kernels/TransitionKernels.swift), custom warps (where an image is sampled) and blend kernels
// that weight and add images, so transitions fuse per tile and never allocate a full-size
// intermediate (except the disintegrate shadow's blur).
//
// Every transition returns the image exactly at time 0 and the target exactly at time 1 over
// the effect's rect (TransitionTests). Core Image's page curl shading, copy machine light,
// flash, ripple, mod, bars and accordion renderings are proprietary: these are documented
// approximations with the same inputs and qualitative look. Positions and angles follow
// PixelFlow's convention: origin top-left, y down, angles counterclockwise on screen.

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

extension Image {
    /// A mask image: `weights(x, y)` at each pixel center, written as-is (not color-managed).
    static func _mask(named name: String, _ weights: @escaping @Sendable (Double, Double) -> SIMD4<Float>) -> Image {
        _generator(named: name, extent: .infinite) { x, y, n, out, _ in
            let py = Double(y) + 0.5
            for i in 0..<n { out[i] = weights(Double(x + i) + 0.5, py) }
        }
    }

    /// `self * mask[channel]` on all four premultiplied channels; the extent stays `self`'s.
    func _weighted(by mask: Image, channel: Int) -> Image {
        mask.blended(
            with: self,
            kernel: BlendKernel(name: "weight by mask \(channel)", extentRule: .background, sharesByName: false) { m, dst, n in
                for i in 0..<n { dst[i] = dst[i] * m[i][channel] }
            })
    }

    /// `self + other`, premultiplied; the union of the extents.
    func _plus(_ other: Image) -> Image {
        other.blended(
            with: self,
            kernel: BlendKernel(name: "add", extentRule: .union, sharesByName: false) { fg, dst, n in
                for i in 0..<n { dst[i] = dst[i] + fg[i] }
            })
    }

    /// `rgb *= (1 - f.a) + f.rgb` with `f` the pixel of `factor`, alpha unchanged: a factor
    /// pixel `(g, g, g, 1)` scales the color by g, a transparent one leaves it alone.
    func _modulated(by factor: Image) -> Image {
        factor.blended(
            with: self,
            kernel: BlendKernel(name: "modulate", extentRule: .background, sharesByName: false) { f, dst, n in
                for i in 0..<n {
                    let k = f[i]
                    var d = dst[i]
                    let s = SIMD4<Float>(k.x, k.y, k.z, 1) + (1 - k.w)
                    d = d * SIMD4(s.x, s.y, s.z, 1)
                    dst[i] = d
                }
            })
    }

    /// `(rgb * m, m)` with `m = mask[channel]`: this image's color with the mask as its alpha.
    func _withAlpha(from mask: Image, channel: Int) -> Image {
        mask.blended(
            with: self,
            kernel: BlendKernel(name: "alpha from mask \(channel)", extentRule: .background, sharesByName: false) { m, dst, n in
                for i in 0..<n {
                    let w = m[i][channel]
                    dst[i] = SIMD4(dst[i].x * w, dst[i].y * w, dst[i].z * w, w)
                }
            })
    }

    /// `dst + (fg - dst) * amount` with this image as `dst` and `target` as `fg`.
    func _dissolved(to target: Image, amount: Float) -> Image {
        target.blended(
            with: self, kernel: BuiltinBlend.mix(amount: amount).kernel(name: "dissolve \(amount)", extentRule: .union))
    }

    /// `fg + dst` with the alpha limited to 1: light added over this image.
    func _lit(by light: Image) -> Image {
        light.blended(
            with: self,
            kernel: BlendKernel(name: "add light", extentRule: .union, sharesByName: false) { fg, dst, n in
                for i in 0..<n {
                    var d = dst[i] + fg[i]
                    d.w = Swift.min(d.w, 1)
                    dst[i] = d
                }
            })
    }
}

/// A point of a shading image for a surface tilted by `slope` (-1...1) along `(dx, dy)`:
/// the rect's center moved by `slope * 0.9` of its half size (Core Image's shading images are
/// a shaded sphere in a square, lit at the center).
@inline(__always)
func shadingPoint(_ r: Rect, _ dx: Double, _ dy: Double, _ slope: Double) -> Point {
    Point(x: r.x + r.width * (0.5 + 0.45 * slope * dx), y: r.y + r.height * (0.5 + 0.45 * slope * dy))
}

extension FilterArguments {
    /// The rect of a transition: `key` if it is not empty, else the first finite extent among
    /// `images`, else Core Image's default `[0 0 300 300]`.
    func transitionRect(_ key: String?, _ images: [Image]) throws -> Rect {
        if let key {
            let r = try rectValue(key)
            if !r.isEmpty { return r }
        }
        for i in images where !i.extent.isInfinite && !i.extent.isEmpty { return i.extent }
        return Rect(x: 0, y: 0, width: 300, height: 300)
    }

    /// The finite rect of a shading image (a unit square at the origin for an infinite one).
    func shadingRect(_ image: Image) -> Rect {
        image.extent.isInfinite || image.extent.isEmpty ? Rect(x: 0, y: 0, width: 1, height: 1) : image.extent
    }
}

extension FilterInput {
    static let transitionImage = FilterInput.image(summary: "The image at time 0.")
    static let transitionTarget = FilterInput.image("inputTargetImage", summary: "The image at time 1.")
    static func transitionTime(identity: Double? = nil) -> FilterInput {
        .number(
            "inputTime", .time, default: 0, identity: identity, min: 0, max: 1,
            summary: "The transition's progress: 0 shows the image, 1 the target.")
    }
    static func transitionExtent(default value: [Double] = [0, 0, 300, 300]) -> FilterInput {
        .rectangle(default: value, summary: "The rect the transition plays over, [x y width height] (empty: the image's extent).")
    }
}

extension FilterDescriptor {
    static let transitionFilters: [FilterDescriptor] = [
        dissolveTransition, swipeTransition, copyMachineTransition, barsSwipeTransition, modTransition,
        rippleTransition, flashTransition, disintegrateWithMaskTransition, accordionFoldTransition,
        pageCurlTransition, pageCurlWithShadowTransition,
    ]

    static let dissolveTransition = FilterDescriptor(
        name: "CIDissolveTransition", displayName: "Dissolve",
        summary: "A cross-fade: image + (target - image) * time on premultiplied working-space pixels.",
        categories: [.transition, .highDynamicRange],
        inputs: [.transitionImage, .transitionTarget, .transitionTime(identity: 0)]
    ) { a in
        try a.image()._dissolved(to: try a.image("inputTargetImage"), amount: try a.float("inputTime"))
    }

    static let swipeTransition = FilterDescriptor(
        name: "CISwipeTransition", displayName: "Swipe",
        summary:
            "A band of width pixels sweeps across the extent along angle: the image ahead of it, the target behind, a cross-fade and color at opacity inside it.",
        categories: [.transition, .highDynamicRange],
        inputs: [
            .transitionImage, .transitionTarget, .transitionExtent(),
            .color("inputColor", default: .white, summary: "The color of the band (sRGB, unpremultiplied)."),
            .transitionTime(),
            .number(
                "inputAngle", .angle, default: 0, sliderMin: -Double.pi, sliderMax: Double.pi,
                summary: "The direction the band moves, radians counterclockwise from +x."),
            .number(
                "inputWidth", .distance, default: 300, min: 0.1, sliderMin: 0.1, sliderMax: 800,
                summary: "The width of the band in pixels."),
            .number("inputOpacity", default: 0, min: 0, max: 1, summary: "The opacity of the band's color."),
        ]
    ) { a in
        let image = try a.image(), target = try a.image("inputTargetImage")
        let band = SweepBand(
            extent: try a.transitionRect("inputExtent", [image, target]), angle: try a.number("inputAngle"),
            width: try a.number("inputWidth"), time: try a.number("inputTime"))
        let opacity = try a.number("inputOpacity")
        let color = _WorkingColor(try a.color("inputColor"))
        let mask = Image._mask(named: "swipe") { x, y in
            let w = Float(band.targetWeight(x, y))
            return SIMD4(1 - w, w, 0, 0)
        }
        let mixed = image._weighted(by: mask, channel: 0)._plus(target._weighted(by: mask, channel: 1))
        if opacity == 0 { return mixed }
        let overlay = Image._generator(named: "swipe band", extent: .infinite) { x, y, n, out, linear in
            let c = color(linear), py = Double(y) + 0.5
            for i in 0..<n { out[i] = c * Float(opacity * band.bandCoverage(Double(x + i) + 0.5, py)) }
        }
        return overlay.composited(over: mixed)
    }

    static let copyMachineTransition = FilterDescriptor(
        name: "CICopyMachineTransition", displayName: "Copy Machine",
        summary:
            "A copier's light bar (an approximation of Core Image's) sweeps across the extent along angle, revealing the target behind it; the light is added.",
        categories: [.transition, .highDynamicRange],
        inputs: [
            .transitionImage, .transitionTarget, .transitionExtent(),
            .color(
                "inputColor", default: Color(red: 0.6, green: 1, blue: 0.8),
                summary: "The color of the light (sRGB, unpremultiplied)."),
            .transitionTime(),
            .number(
                "inputAngle", .angle, default: 0, sliderMin: 0, sliderMax: 2 * Double.pi,
                summary: "The direction the light moves, radians counterclockwise from +x."),
            .number(
                "inputWidth", .distance, default: 200, min: 0.1, sliderMin: 0.1, sliderMax: 500,
                summary: "The width of the light bar in pixels."),
            .number(
                "inputOpacity", default: 1.3, min: 0, sliderMin: 0, sliderMax: 3,
                summary: "The brightness of the light at its leading edge."),
        ]
    ) { a in
        let image = try a.image(), target = try a.image("inputTargetImage")
        let band = SweepBand(
            extent: try a.transitionRect("inputExtent", [image, target]), angle: try a.number("inputAngle"),
            width: try a.number("inputWidth"), time: try a.number("inputTime"))
        let opacity = try a.number("inputOpacity")
        let color = _WorkingColor(try a.color("inputColor"))
        let mask = Image._mask(named: "copy machine") { x, y in
            let w = Float(band.targetWeight(x, y))
            return SIMD4(1 - w, w, 0, 0)
        }
        let mixed = image._weighted(by: mask, channel: 0)._plus(target._weighted(by: mask, channel: 1))
        // Light: brightest at the leading edge, fading to 30 % at the trailing one.
        let light = Image._generator(named: "copy machine light", extent: .infinite) { x, y, n, out, linear in
            let c = color(linear), py = Double(y) + 0.5
            for i in 0..<n {
                let px = Double(x + i) + 0.5
                let u = _unit(band.position(px, py))
                let l = opacity * band.bandCoverage(px, py) * (0.3 + 0.7 * (1 - u) * (1 - u))
                var v = c * Float(l)
                v.w = c.w * Float(Swift.min(1, l))
                out[i] = v
            }
        }
        return mixed._lit(by: light)
    }

    static let barsSwipeTransition = FilterDescriptor(
        name: "CIBarsSwipeTransition", displayName: "Bars Swipe",
        summary:
            "The image slides out along angle in bars width pixels across, each bar delayed by up to barOffset pixels, uncovering the target.",
        categories: [.transition, .highDynamicRange],
        inputs: [
            .transitionImage, .transitionTarget,
            .number(
                "inputAngle", .angle, default: Double.pi, min: 0, max: 2 * Double.pi,
                summary: "The direction the bars move, radians counterclockwise from +x."),
            .number("inputWidth", .distance, default: 30, min: 2, max: 300, summary: "The width of a bar in pixels."),
            .number(
                "inputBarOffset", default: 10, min: 1, max: 100, summary: "The largest delay between bars, in pixels of travel."),
            .transitionTime(),
        ]
    ) { a in
        let image = try a.image(), target = try a.image("inputTargetImage")
        let g = BarsSweep(
            page: try a.transitionRect(nil, [image, target]), angle: try a.number("inputAngle"),
            width: try a.number("inputWidth"), offset: try a.number("inputBarOffset"), time: try a.number("inputTime"))
        let moved = image.warped(
            named: "bars swipe", sampling: .bilinear,
            extent: sweptRect(image.extent, g.dx, g.dy, g.travel + 1),
            regionOfInterest: { r in sweptRect(r, -g.dx, -g.dy, g.travel) }
        ) { x, y in g.source(x, y) }
        let mask = Image._mask(named: "bars swipe") { x, y in SIMD4(repeating: Float(1 - g.coverage(x, y))) }
        return moved._plus(target._weighted(by: mask, channel: 0))
    }

    static let modTransition = FilterDescriptor(
        name: "CIModTransition", displayName: "Mod",
        summary:
            "The target shows through holes (an approximation of Core Image's) that grow in a rotated brick pattern of cells 2 radius wide, shrinking away from the center.",
        categories: [.transition, .highDynamicRange],
        inputs: [
            .transitionImage, .transitionTarget, .position(), .transitionTime(),
            .number(
                "inputAngle", .angle, default: 2, sliderMin: -Double.pi, sliderMax: Double.pi,
                summary: "The rotation of the hole pattern in radians."),
            .number(
                "inputRadius", .distance, default: 150, min: 1, sliderMin: 1, sliderMax: 200,
                summary: "Half the size of a cell of the pattern at the center, in pixels."),
            .number(
                "inputCompression", .distance, default: 300, min: 1, sliderMin: 1, sliderMax: 800,
                summary: "The distance over which cells halve in size away from the center, in pixels."),
        ]
    ) { a in
        let image = try a.image(), target = try a.image("inputTargetImage")
        let g = ModHoles(
            center: try a.pointValue("inputCenter"), angle: try a.number("inputAngle"), radius: try a.number("inputRadius"),
            compression: try a.number("inputCompression"), time: try a.number("inputTime"))
        let mask = Image._mask(named: "mod") { x, y in
            let w = Float(g.targetWeight(x, y))
            return SIMD4(1 - w, w, 0, 0)
        }
        return image._weighted(by: mask, channel: 0)._plus(target._weighted(by: mask, channel: 1))
    }

    static let rippleTransition = FilterDescriptor(
        name: "CIRippleTransition", displayName: "Ripple",
        summary:
            "A circular wave grows from the center revealing the target, displaced by scale * sin in the wave's ring and shaded by the shading image (an approximation).",
        categories: [.transition, .highDynamicRange],
        inputs: [
            .transitionImage, .transitionTarget,
            .image("inputShadingImage", summary: "A shaded sphere in a square: sampled by the wave's slope to light the ring."),
            .position(), .transitionExtent(), .transitionTime(),
            .number(
                "inputWidth", .distance, default: 100, min: 1, sliderMin: 1, sliderMax: 1000,
                summary: "The width of the wave's ring in pixels."),
            .number(
                "inputScale", default: 50, min: -50, sliderMin: -50, sliderMax: 50,
                summary: "The displacement in the ring, in pixels: positive bulges, negative dimples."),
        ]
    ) { a in
        let image = try a.image(), target = try a.image("inputTargetImage"), shading = try a.image("inputShadingImage")
        let center = try a.pointValue("inputCenter")
        let wave = RippleWave(
            center: center, extent: try a.transitionRect("inputExtent", [image, target]),
            width: try a.number("inputWidth"), scale: try a.number("inputScale"), time: try a.number("inputTime"))
        let sh = a.shadingRect(shading)
        let reach = Swift.abs(wave.scale) + 1
        let mask = Image._mask(named: "ripple") { x, y in
            let w = Float(wave.targetWeight(x, y))
            return SIMD4(1 - w, w, wave.ring(x, y) == nil ? 0 : 1, 0)
        }
        let displaced = target.warped(
            named: "ripple", sampling: .bilinear,
            extent: target.extent.isInfinite ? .infinite : target.extent.insetBy(dx: -reach, dy: -reach),
            regionOfInterest: { r in r.insetBy(dx: -reach, dy: -reach) }
        ) { x, y in wave.source(x, y) }
        let light = shading.warped(
            named: "ripple shading", sampling: .bilinear, extent: .infinite,
            regionOfInterest: { _ in sh }
        ) { x, y in
            guard let u = wave.ring(x, y) else { return shadingPoint(sh, 0, 0, 0) }
            let d = wave.distance(x, y)
            let ux = d > 0 ? (x - wave.cx) / d : 0, uy = d > 0 ? (y - wave.cy) / d : 0
            return shadingPoint(sh, ux, uy, cos(.pi * u))
        }
        let shadedTarget = displaced._weighted(by: mask, channel: 1)._modulated(by: light._withAlpha(from: mask, channel: 2))
        return image._weighted(by: mask, channel: 0)._plus(shadedTarget)
    }

    static let flashTransition = FilterDescriptor(
        name: "CIFlashTransition", displayName: "Flash",
        summary:
            "A flash of light (an approximation of Core Image's) grows from the center and fades, the image switching to the target at its peak.",
        categories: [.transition, .highDynamicRange],
        inputs: [
            .transitionImage, .transitionTarget, .position(), .transitionExtent(),
            .color(
                "inputColor", default: Color(red: 1, green: 0.8, blue: 0.6),
                summary: "The color of the flash (sRGB, unpremultiplied)."),
            .transitionTime(),
            .number(
                "inputMaxStriationRadius", default: 2.58, min: 0, sliderMin: 0, sliderMax: 10,
                summary: "How far the flash's beams reach, in multiples of its disc's radius."),
            .number(
                "inputStriationStrength", default: 0.5, min: 0, sliderMin: 0, sliderMax: 3,
                summary: "The brightness of the beams."),
            .number(
                "inputStriationContrast", default: 1.375, min: 0, sliderMin: 0, sliderMax: 5,
                summary: "The contrast of the beams."),
            .number(
                "inputFadeThreshold", default: 0.85, min: 0, max: 1,
                summary: "How quickly the image switches to the target around time 0.5 (1: at once, 0: over the whole time)."),
        ]
    ) { a in
        let image = try a.image(), target = try a.image("inputTargetImage")
        let e = try a.transitionRect("inputExtent", [image, target])
        let t = try a.number("inputTime"), fade = try a.number("inputFadeThreshold")
        let h = 0.5 * (1 - fade)
        let switchAmount = h > 0 ? _smoothstep(_unit((t - (0.5 - h)) / (2 * h))) : (t >= 0.5 ? 1 : 0)
        let tri = 1 - Swift.abs(2 * t - 1)
        let f = _smoothstep(tri)
        let halfDiagonal = 0.5 * (e.width * e.width + e.height * e.height).squareRoot()
        let p = SunbeamsParameters(
            center: try a.pointValue("inputCenter"), sunRadius: f * halfDiagonal * 0.5,
            maxStriationRadius: try a.number("inputMaxStriationRadius"),
            striationStrength: try a.number("inputStriationStrength"),
            striationContrast: try a.number("inputStriationContrast"), time: t)
        let color = _WorkingColor(try a.color("inputColor"))
        let mixed = image._dissolved(to: target, amount: Float(switchAmount))
        if f == 0 { return mixed }
        let light = Image._generator(named: "flash", extent: .infinite) { x, y, n, out, linear in
            let c = color(linear), py = Double(y) + 0.5
            for i in 0..<n {
                let l = Swift.max(f * f, f * sunbeamsIntensity(Double(x + i) + 0.5, py, p))
                out[i] = c * Float(Swift.min(1, l))
            }
        }
        return light.composited(over: mixed)
    }

    static let disintegrateWithMaskTransition = FilterDescriptor(
        name: "CIDisintegrateWithMaskTransition", displayName: "Disintegrate With Mask",
        summary:
            "Each pixel switches to the target when time passes its mask value (Rec. 709 luma, darkest first); the remaining image casts a blurred, offset shadow on the target.",
        categories: [.transition, .highDynamicRange],
        inputs: [
            .transitionImage, .transitionTarget,
            .image(
                "inputMaskImage", summary: "The mask: dark areas disintegrate first; its edge pixels extend beyond its extent."),
            .transitionTime(),
            .number(
                "inputShadowRadius", .distance, default: 8, min: 0, sliderMin: 0, sliderMax: 50,
                summary: "The blur of the shadow in pixels (Gaussian sigma radius / 2)."),
            .number("inputShadowDensity", default: 0.65, min: 0, max: 1, summary: "How dark the shadow is."),
            .vector(
                "inputShadowOffset", .offset, default: [0, -10],
                summary:
                    "The shadow's offset [dx dy] in pixels (y down: Core Image's default [0 -10] points down there, up here)."),
        ]
    ) { a in
        let image = try a.image(), target = try a.image("inputTargetImage"), maskImage = try a.image("inputMaskImage")
        let t = try a.number("inputTime"), radius = try a.number("inputShadowRadius"), density = try a.float("inputShadowDensity")
        let offset = try a.vector("inputShadowOffset")
        let eps = 0.02, threshold = t * (1 + eps) - eps / 2
        let source = maskImage.extent.isEmpty ? Image(color: .black) : maskImage.clampedToExtent()
        let weights = source.applyingColorKernel(
            ColorKernel(name: "disintegrate \(t)", sharesByName: false) { p, n in
                for i in 0..<n {
                    let v = p[i]
                    let m = _unit(Double(0.2126 * v.x + 0.7152 * v.y + 0.0722 * v.z))
                    let w = Float(_unit((threshold - m) / eps + 0.5))
                    p[i] = SIMD4(1 - w, w, 0, 1)
                }
            })
        var shadowed = target
        if radius > 0 && density > 0 {
            let blurred = try weights.gaussianBlurred(radius: radius / 2)
                .transformed(by: AffineTransform(translationX: offset[0], y: offset[1]))
            let factor = blurred.applyingColorMatrix(
                ColorMatrix(
                    rows: SIMD4(-density, 0, 0, 0), SIMD4(-density, 0, 0, 0),
                    SIMD4(-density, 0, 0, 0), SIMD4(0, 0, 0, 0),
                    bias: SIMD4(1, 1, 1, 1)))
            shadowed = target._modulated(by: factor)
        }
        return image._weighted(by: weights, channel: 0)._plus(shadowed._weighted(by: weights, channel: 1))
    }

    static let accordionFoldTransition = FilterDescriptor(
        name: "CIAccordionFoldTransition", displayName: "Accordion Fold",
        summary:
            "The image folds up like an accordion toward its bottom edge (an approximation of Core Image's), uncovering the target; folds are shaded alternately.",
        categories: [.transition, .highDynamicRange],
        inputs: [
            .transitionImage, .transitionTarget,
            .number(
                "inputBottomHeight", .distance, default: 0, min: 0, sliderMin: 0, sliderMax: 300,
                summary: "The height in pixels the folded image keeps at time 1, at the bottom of its extent."),
            .number("inputNumberOfFolds", default: 3, min: 1, max: 50, summary: "The number of panels."),
            .number("inputFoldShadowAmount", default: 0.1, min: 0, max: 1, summary: "How much tilted panels darken."),
            .transitionTime(),
        ]
    ) { a in
        let image = try a.image(), target = try a.image("inputTargetImage")
        let page = try a.transitionRect(nil, [image, target])
        let g = AccordionFold(
            page: page, bottomHeight: try a.number("inputBottomHeight"), folds: try a.number("inputNumberOfFolds"),
            amount: try a.number("inputFoldShadowAmount"), time: try a.number("inputTime"))
        let folded = image.warped(
            named: "accordion fold", sampling: .bilinear, extent: page,
            regionOfInterest: { r in Rect(x: r.x, y: page.y, width: r.width, height: page.height) }
        ) { x, y in
            g.source(x, y)
        }
        let shade = Image._mask(named: "accordion fold") { _, y in
            let s = Float(g.shade(y))
            return SIMD4(s, s, s, 1)
        }
        let cover = Image._mask(named: "accordion cover") { x, y in SIMD4(repeating: Float(1 - g.coverage(x, y))) }
        return folded._modulated(by: shade)._plus(target._weighted(by: cover, channel: 0))
    }

    private static func pageCurlInputs(shading: Bool) -> [FilterInput] {
        var inputs: [FilterInput] = [
            .transitionImage, .transitionTarget,
            .image("inputBacksideImage", summary: "The image on the back of the page, in page coordinates."),
        ]
        if shading {
            inputs.append(
                .image(
                    "inputShadingImage", summary: "A shaded sphere in a square: sampled by the curl's surface angle to light it.")
            )
        }
        inputs += [
            .transitionExtent(default: shading ? [0, 0, 300, 300] : [0, 0, 0, 0]), .transitionTime(),
            .number(
                "inputAngle", .angle, default: 0, sliderMin: -Double.pi, sliderMax: Double.pi,
                summary: "The direction the page curls toward, radians counterclockwise from +x; the far edge curls first."),
            .number(
                "inputRadius", .distance, default: 100, min: 0.01, sliderMin: 0.01, sliderMax: 400,
                summary: "The radius of the curl's cylinder in pixels."),
        ]
        return inputs
    }

    /// The page curl's layers, weighted: back face + front face + target.
    private static func pageCurlLayers(_ a: FilterArguments, page: Rect, curl pc: PageCurl) throws -> (Image, Image) {
        let image = try a.image(), target = try a.image("inputTargetImage"), backside = try a.image("inputBacksideImage")
        let mask = Image._mask(named: "page curl") { x, y in
            let s = pc.sample(x, y)
            let w = s.weights
            return SIMD4(Float(w.x), Float(w.y), Float(w.z), s.slope == nil ? 0 : Float(w.x + w.y))
        }
        let roi: @Sendable (Rect) -> Rect = { r in sweptRect(r, pc.dx, pc.dy, pc.reach) }
        let front = image.warped(
            named: "page curl front", sampling: .bilinear, extent: sweptRect(page, -pc.dx, -pc.dy, pc.radius),
            regionOfInterest: roi
        ) { x, y in pc.sample(x, y).front }
        let back = backside.warped(
            named: "page curl back", sampling: .bilinear, extent: sweptRect(page, -pc.dx, -pc.dy, pc.reach),
            regionOfInterest: roi
        ) { x, y in pc.sample(x, y).back }
        let layers = back._weighted(by: mask, channel: 0)._plus(front._weighted(by: mask, channel: 1))
            ._plus(target._weighted(by: mask, channel: 2))
        return (layers, mask)
    }

    static let pageCurlTransition = FilterDescriptor(
        name: "CIPageCurlTransition", displayName: "Page Curl",
        summary:
            "The page (the extent) rolls up around a cylinder of radius, showing the backside image on its back and the target beneath; the curl is lit by the shading image (an approximation).",
        categories: [.transition, .highDynamicRange], inputs: pageCurlInputs(shading: true)
    ) { a in
        let image = try a.image(), target = try a.image("inputTargetImage"), shading = try a.image("inputShadingImage")
        let page = try a.transitionRect("inputExtent", [image, target])
        let pc = PageCurl(
            page: page, angle: try a.number("inputAngle"), radius: try a.number("inputRadius"), time: try a.number("inputTime"))
        let (layers, mask) = try pageCurlLayers(a, page: page, curl: pc)
        let sh = a.shadingRect(shading)
        let light = shading.warped(
            named: "page curl shading", sampling: .bilinear, extent: .infinite,
            regionOfInterest: { _ in sh }
        ) { x, y in
            shadingPoint(sh, pc.dx, pc.dy, pc.sample(x, y).slope ?? 0)
        }
        return layers._modulated(by: light._withAlpha(from: mask, channel: 3))
    }

    static let pageCurlWithShadowTransition = FilterDescriptor(
        name: "CIPageCurlWithShadowTransition", displayName: "Page Curl With Shadow",
        summary:
            "A page curl whose cylinder is shaded 0.6 + 0.4 cos(angle) and casts a shadow on the target, up to shadowSize * radius pixels wide (an approximation).",
        categories: [.transition, .highDynamicRange],
        inputs: pageCurlInputs(shading: false) + [
            .number(
                "inputShadowSize", .distance, default: 0.5, min: 0, max: 1,
                summary: "The shadow's width as a fraction of the curl's radius."),
            .number("inputShadowAmount", .distance, default: 0.7, min: 0, max: 1, summary: "How dark the shadow is at the curl."),
            .rectangle(
                "inputShadowExtent", default: [0, 0, 0, 0],
                summary: "The part of the page, [x y width height], that casts a shadow (empty: all of it)."),
        ]
    ) { a in
        let image = try a.image(), target = try a.image("inputTargetImage")
        let page = try a.transitionRect("inputExtent", [image, target])
        let radius = try a.number("inputRadius"), shadowWidth = try a.number("inputShadowSize") * radius
        let amount = try a.number("inputShadowAmount")
        let pc = PageCurl(
            page: page, angle: try a.number("inputAngle"), radius: radius, time: try a.number("inputTime"),
            margin: shadowWidth + 1)
        let (layers, _) = try pageCurlLayers(a, page: page, curl: pc)
        var caster = try a.rectValue("inputShadowExtent")
        if caster.isEmpty { caster = page }
        let (qlo, qhi) = projectedRange(caster, -pc.dy, pc.dx)
        let factor = Image._mask(named: "page curl shadow") { x, y in
            let s = pc.sample(x, y)
            var curl = 1.0
            if let slope = s.slope { curl = 0.6 + 0.4 * (1 - slope * slope).squareRoot() }
            var shadow = 0.0
            let dist = x * pc.dx + y * pc.dy - pc.axis
            if dist > pc.radius, shadowWidth > 0, dist - pc.radius < shadowWidth {
                let q = x * -pc.dy + y * pc.dx
                let along = _unit(Swift.min(q - qlo, qhi - q) + 0.5)
                let k = 1 - (dist - pc.radius) / shadowWidth
                shadow = amount * k * k * along
            }
            let g = Float((s.weights.x + s.weights.y) * curl + s.weights.z * (1 - shadow))
            return SIMD4(g, g, g, 1)
        }
        return layers._modulated(by: factor)
    }
}

extension Image {
    /// Cross-fades to `target` (`CIDissolveTransition`): `self + (target - self) * time`.
    /// - Parameters:
    ///   - time: 0...1 (default 0); 0 gives `self`, 1 gives `target` exactly.
    ///   - target: the image the transition ends on.
    public func dissolveTransition(to target: Image, time: Double? = nil) throws -> Image {
        try FilterDescriptor.dissolveTransition.apply([
            "inputImage": .image(self), "inputTargetImage": .image(target),
            "inputTime": time.map(FilterValue.number),
        ])
    }

    /// Swipes to `target` (`CISwipeTransition`) with a band of `width` pixels moving along
    /// `angle` across `extent`. Nil arguments take Core Image's defaults.
    public func swipeTransition(
        to target: Image, time: Double? = nil, extent: Rect? = nil, color: Color? = nil,
        angle: Double? = nil, width: Double? = nil, opacity: Double? = nil
    ) throws -> Image {
        try _bandTransition(
            .swipeTransition, to: target, time: time, extent: extent, color: color, angle: angle, width: width,
            opacity: opacity)
    }

    /// A copier's light bar reveals `target` (`CICopyMachineTransition`).
    public func copyMachineTransition(
        to target: Image, time: Double? = nil, extent: Rect? = nil, color: Color? = nil,
        angle: Double? = nil, width: Double? = nil, opacity: Double? = nil
    ) throws -> Image {
        try _bandTransition(
            .copyMachineTransition, to: target, time: time, extent: extent, color: color, angle: angle, width: width,
            opacity: opacity)
    }

    /// `descriptor` (a swipe or the copy machine, which take the same inputs) applied with
    /// these arguments; nil ones take the descriptor's defaults.
    private func _bandTransition(
        _ descriptor: FilterDescriptor, to target: Image, time: Double?, extent: Rect?, color: Color?, angle: Double?,
        width: Double?, opacity: Double?
    ) throws -> Image {
        try descriptor.apply([
            "inputImage": .image(self), "inputTargetImage": .image(target), "inputTime": time.map(FilterValue.number),
            "inputExtent": extent.map { .vector([$0.x, $0.y, $0.width, $0.height]) }, "inputColor": color.map(FilterValue.color),
            "inputAngle": angle.map(FilterValue.number), "inputWidth": width.map(FilterValue.number),
            "inputOpacity": opacity.map(FilterValue.number),
        ])
    }

    /// The image slides out in staggered bars (`CIBarsSwipeTransition`).
    public func barsSwipeTransition(
        to target: Image, time: Double? = nil, angle: Double? = nil, width: Double? = nil,
        barOffset: Double? = nil
    ) throws -> Image {
        try FilterDescriptor.barsSwipeTransition.apply([
            "inputImage": .image(self), "inputTargetImage": .image(target), "inputTime": time.map(FilterValue.number),
            "inputAngle": angle.map(FilterValue.number), "inputWidth": width.map(FilterValue.number),
            "inputBarOffset": barOffset.map(FilterValue.number),
        ])
    }

    /// The target shows through growing holes (`CIModTransition`).
    public func modTransition(
        to target: Image, time: Double? = nil, center: Point? = nil, angle: Double? = nil,
        radius: Double? = nil, compression: Double? = nil
    ) throws -> Image {
        try FilterDescriptor.modTransition.apply([
            "inputImage": .image(self), "inputTargetImage": .image(target), "inputTime": time.map(FilterValue.number),
            "inputCenter": center.map { .vector([$0.x, $0.y]) }, "inputAngle": angle.map(FilterValue.number),
            "inputRadius": radius.map(FilterValue.number), "inputCompression": compression.map(FilterValue.number),
        ])
    }

    /// A circular wave reveals the target (`CIRippleTransition`), lit by `shading`.
    public func rippleTransition(
        to target: Image, shading: Image, time: Double? = nil, center: Point? = nil,
        extent: Rect? = nil, width: Double? = nil, scale: Double? = nil
    ) throws -> Image {
        try FilterDescriptor.rippleTransition.apply([
            "inputImage": .image(self), "inputTargetImage": .image(target), "inputShadingImage": .image(shading),
            "inputTime": time.map(FilterValue.number), "inputCenter": center.map { .vector([$0.x, $0.y]) },
            "inputExtent": extent.map { .vector([$0.x, $0.y, $0.width, $0.height]) },
            "inputWidth": width.map(FilterValue.number), "inputScale": scale.map(FilterValue.number),
        ])
    }

    /// A flash of light hides the switch to the target (`CIFlashTransition`).
    public func flashTransition(
        to target: Image, time: Double? = nil, center: Point? = nil, extent: Rect? = nil,
        color: Color? = nil, fadeThreshold: Double? = nil
    ) throws -> Image {
        try FilterDescriptor.flashTransition.apply([
            "inputImage": .image(self), "inputTargetImage": .image(target), "inputTime": time.map(FilterValue.number),
            "inputCenter": center.map { .vector([$0.x, $0.y]) },
            "inputExtent": extent.map { .vector([$0.x, $0.y, $0.width, $0.height]) }, "inputColor": color.map(FilterValue.color),
            "inputFadeThreshold": fadeThreshold.map(FilterValue.number),
        ])
    }

    /// Pixels switch to the target in the order of `mask`'s values (`CIDisintegrateWithMaskTransition`).
    public func disintegrateTransition(
        to target: Image, mask: Image, time: Double? = nil, shadowRadius: Double? = nil,
        shadowDensity: Double? = nil, shadowOffset: Point? = nil
    ) throws -> Image {
        try FilterDescriptor.disintegrateWithMaskTransition.apply([
            "inputImage": .image(self), "inputTargetImage": .image(target), "inputMaskImage": .image(mask),
            "inputTime": time.map(FilterValue.number), "inputShadowRadius": shadowRadius.map(FilterValue.number),
            "inputShadowDensity": shadowDensity.map(FilterValue.number),
            "inputShadowOffset": shadowOffset.map { .vector([$0.x, $0.y]) },
        ])
    }

    /// The image folds up like an accordion (`CIAccordionFoldTransition`).
    public func accordionFoldTransition(
        to target: Image, time: Double? = nil, bottomHeight: Double? = nil,
        numberOfFolds: Double? = nil, foldShadowAmount: Double? = nil
    ) throws -> Image {
        try FilterDescriptor.accordionFoldTransition.apply([
            "inputImage": .image(self), "inputTargetImage": .image(target), "inputTime": time.map(FilterValue.number),
            "inputBottomHeight": bottomHeight.map(FilterValue.number),
            "inputNumberOfFolds": numberOfFolds.map(FilterValue.number),
            "inputFoldShadowAmount": foldShadowAmount.map(FilterValue.number),
        ])
    }

    /// The page curls away (`CIPageCurlTransition`), `backside` on its back, lit by `shading`.
    public func pageCurlTransition(
        to target: Image, backside: Image, shading: Image, time: Double? = nil,
        extent: Rect? = nil, angle: Double? = nil, radius: Double? = nil
    ) throws -> Image {
        try FilterDescriptor.pageCurlTransition.apply([
            "inputImage": .image(self), "inputTargetImage": .image(target), "inputBacksideImage": .image(backside),
            "inputShadingImage": .image(shading), "inputTime": time.map(FilterValue.number),
            "inputExtent": extent.map { .vector([$0.x, $0.y, $0.width, $0.height]) },
            "inputAngle": angle.map(FilterValue.number), "inputRadius": radius.map(FilterValue.number),
        ])
    }

    /// The page curls away casting a shadow (`CIPageCurlWithShadowTransition`).
    public func pageCurlWithShadowTransition(
        to target: Image, backside: Image, time: Double? = nil, extent: Rect? = nil,
        angle: Double? = nil, radius: Double? = nil, shadowSize: Double? = nil,
        shadowAmount: Double? = nil
    ) throws -> Image {
        try FilterDescriptor.pageCurlWithShadowTransition.apply([
            "inputImage": .image(self), "inputTargetImage": .image(target), "inputBacksideImage": .image(backside),
            "inputTime": time.map(FilterValue.number), "inputExtent": extent.map { .vector([$0.x, $0.y, $0.width, $0.height]) },
            "inputAngle": angle.map(FilterValue.number), "inputRadius": radius.map(FilterValue.number),
            "inputShadowSize": shadowSize.map(FilterValue.number), "inputShadowAmount": shadowAmount.map(FilterValue.number),
        ])
    }
}
