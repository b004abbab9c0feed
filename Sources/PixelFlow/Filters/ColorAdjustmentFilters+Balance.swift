// Hue, white balance, vibrance and the absolute difference of two images. Affine ones build
// a `ColorMatrix` (which the optimizer folds); those with a color input use a kernel that
// knows the working space, because a `Color` is given sRGB-encoded and must be linearized
// only when the context works in linear light.

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

extension ColorMatrix {
    /// Rotation of RGB by `angle` radians about the gray axis `(1, 1, 1) / sqrt(3)` (Rodrigues'
    /// formula): grays are fixed, saturation and hue angle turn, red going toward green for a
    /// positive angle; alpha unchanged.
    ///
    /// Reference: P. Haeberli, "Matrix Operations for Image Processing" (1993), "Hue Rotation".
    static func hueRotation(angle: Double) -> ColorMatrix {
        let c = cos(angle), s = sin(angle)
        let k = 1 / 3.0.squareRoot()
        let d = Float(c + (1 - c) / 3), plus = Float((1 - c) / 3 + s * k), minus = Float((1 - c) / 3 - s * k)
        return ColorMatrix(rows: SIMD4(d, minus, plus, 0), SIMD4(plus, d, minus, 0), SIMD4(minus, plus, d, 0), SIMD4(0, 0, 0, 1))
    }

    /// The chromatic adaptation from the white of `neutral` to the white of `target`, each a
    /// correlated color temperature in kelvin and a tint, as a matrix on linear sRGB:
    /// `M = RGB<-XYZ * Bradford^-1 * diag(LMS_target / LMS_neutral) * Bradford * XYZ<-RGB`.
    ///
    /// The white of `(T, tint)` is the Planckian locus point of `T` (the cubic approximation
    /// of Kang et al., "Design of advanced color temperature control system for HDTV
    /// applications", J. Korean Physical Society 41(6), 2002, valid for 1667-25000 K; `T` is
    /// clamped to that range), moved perpendicular to the locus in CIE 1960 uv by
    /// `tint / 3000` (the Adobe DNG convention), positive toward green. The Bradford matrix is
    /// from K. M. Lam, "Metamerism and colour constancy", PhD thesis, University of Bradford,
    /// 1985. Lowering the neutral's temperature below the target's cools the image.
    static func temperatureAndTint(neutral: (Double, Double), target: (Double, Double)) -> ColorMatrix {
        func xyz(_ t: Double, _ tint: Double) -> [Double] {
            let (x, y) = whiteChromaticity(temperature: t, tint: tint)
            return [x / y, 1, (1 - x - y) / y]
        }
        let bradford: [[Double]] = [[0.8951, 0.2664, -0.1614], [-0.7502, 1.7135, 0.0367], [0.0389, -0.0685, 1.0296]]
        let rgbToXYZ: [[Double]] = [
            [0.4124564, 0.3575761, 0.1804375], [0.2126729, 0.7151522, 0.0721750],
            [0.0193339, 0.1191920, 0.9503041],
        ]
        func mul(_ a: [[Double]], _ b: [[Double]]) -> [[Double]] {
            (0..<3).map { i in (0..<3).map { j in (0..<3).reduce(0) { $0 + a[i][$1] * b[$1][j] } } }
        }
        func apply(_ a: [[Double]], _ v: [Double]) -> [Double] {
            (0..<3).map { i in (0..<3).reduce(0) { $0 + a[i][$1] * v[$1] } }
        }
        let src = apply(bradford, xyz(neutral.0, neutral.1)), dst = apply(bradford, xyz(target.0, target.1))
        let scale: [[Double]] = (0..<3).map { i in (0..<3).map { j in i == j ? dst[i] / src[i] : 0 } }
        let m = mul(invert3x3(rgbToXYZ), mul(invert3x3(bradford), mul(scale, mul(bradford, rgbToXYZ))))
        func row(_ i: Int) -> SIMD4<Float> { SIMD4(Float(m[i][0]), Float(m[i][1]), Float(m[i][2]), 0) }
        return ColorMatrix(rows: row(0), row(1), row(2), SIMD4(0, 0, 0, 1))
    }

    /// CIE 1931 xy of the Planckian locus at `temperature` kelvin (Kang et al. 2002), clamped
    /// to 1667-25000 K, moved by `tint / 3000` along the locus normal in CIE 1960 uv.
    static func whiteChromaticity(temperature: Double, tint: Double) -> (x: Double, y: Double) {
        func locus(_ t0: Double) -> (u: Double, v: Double) {
            let t = Swift.min(Swift.max(t0, 1667), 25000)
            let t1 = 1e3 / t, t2 = t1 * t1, t3 = t2 * t1
            let x =
                t <= 4000
                ? -0.2661239 * t3 - 0.2343589 * t2 + 0.8776956 * t1 + 0.179910
                : -3.0258469 * t3 + 2.1070379 * t2 + 0.2226347 * t1 + 0.240390
            let x2 = x * x, x3 = x2 * x
            let y: Double
            if t <= 2222 {
                y = -1.1063814 * x3 - 1.34811020 * x2 + 2.18555832 * x - 0.20219683
            } else if t <= 4000 {
                y = -0.9549476 * x3 - 1.37418593 * x2 + 2.09137015 * x - 0.16748867
            } else {
                y = 3.0817580 * x3 - 5.87338670 * x2 + 3.75112997 * x - 0.37001483
            }
            let d = -2 * x + 12 * y + 3
            return (4 * x / d, 6 * y / d)
        }
        var (u, v) = locus(temperature)
        if tint != 0 {
            // The normal to the locus, from a central difference in temperature, pointing to +v (green).
            let t = Swift.min(Swift.max(temperature, 1667 + 10), 25000 - 10)
            let a = locus(t - 10), b = locus(t + 10)
            var nu = -(b.v - a.v), nv = b.u - a.u
            if nv < 0 { nu = -nu; nv = -nv }
            let len = (nu * nu + nv * nv).squareRoot()
            u += nu / len * tint / 3000
            v += nv / len * tint / 3000
        }
        let d = 2 * u - 8 * v + 4
        return (3 * u / d, 2 * v / d)
    }
}

extension Color {
    /// The unpremultiplied color in the working space: linear light when `linear`, the
    /// stored (sRGB-encoded) values otherwise.
    func workingStraight(linear: Bool) -> SIMD4<Float> {
        let v = simd
        return linear ? SIMD4(SRGB.toLinear(v.x), SRGB.toLinear(v.y), SRGB.toLinear(v.z), v.w) : v
    }
}

extension ColorKernel {
    /// A kernel whose constants differ between a linear and a non-color-managed working space:
    /// `make(linear)` is called once for each space at build time and returns the row function.
    static func dependingOnWorkingSpace(
        name: String, sharesByName: Bool = true,
        _ make: (_ linear: Bool) -> @Sendable (UnsafeMutablePointer<SIMD4<Float>>, Int) -> Void
    ) -> ColorKernel {
        let linear = make(true), stored = make(false)
        return ColorKernel(
            name: name, sharesByName: sharesByName, apply: linear,
            applyInSpace: { p, n, isLinear in isLinear ? linear(p, n) : stored(p, n) })
    }
}

extension FilterDescriptor {
    /// The balance filters declared in this file, registered in `builtIn`.
    static let colorBalanceFilters: [FilterDescriptor] = [
        hueAdjust, temperatureAndTint, whitePointAdjust, vibrance,
        colorAbsoluteDifference,
    ]

    static let hueAdjust = FilterDescriptor(
        name: "CIHueAdjust", displayName: "Hue Adjust",
        summary: "Turns the hue of every color by an angle: a rotation of RGB about the gray axis.",
        categories: [.colorAdjustment, .interlaced, .nonSquarePixels, .highDynamicRange],
        inputs: [
            .image(),
            .number(
                "inputAngle", .angle, default: 0, identity: 0, sliderMin: -.pi, sliderMax: .pi,
                summary: "The rotation in radians; red turns toward green for positive angles."),
        ]
    ) { a in
        try a.image().applyingColorMatrix(.hueRotation(angle: try a.number("inputAngle")))
    }

    static let temperatureAndTint = FilterDescriptor(
        name: "CITemperatureAndTint", displayName: "Temperature and Tint",
        summary: "White balance: adapts colors seen under the neutral's illuminant (kelvin, tint) to the target's (Bradford).",
        categories: [.colorAdjustment, .interlaced, .nonSquarePixels, .highDynamicRange],
        inputs: [
            .image(),
            .vector(
                "inputNeutral", .offset, default: [6500, 0], identity: [6500, 0],
                summary: "The illuminant the image was taken under: correlated color temperature in kelvin and tint."),
            .vector(
                "inputTargetNeutral", .offset, default: [6500, 0], identity: [6500, 0],
                summary: "The illuminant to adapt to: temperature in kelvin and tint."),
        ]
    ) { a in
        let n = try a.vector("inputNeutral"), t = try a.vector("inputTargetNeutral")
        let image = try a.image()
        if n == t { return image }
        return image.applyingColorMatrix(.temperatureAndTint(neutral: (n[0], n[1]), target: (t[0], t[1])))
    }

    static let whitePointAdjust = FilterDescriptor(
        name: "CIWhitePointAdjust", displayName: "White Point Adjust",
        summary: "Maps white to the given color and every other color in proportion: rgb * color.",
        categories: [.colorAdjustment, .interlaced, .nonSquarePixels, .highDynamicRange],
        inputs: [
            .image(),
            FilterInput(
                key: "inputColor", summary: "The new white, sRGB-encoded; its alpha is ignored.",
                attributeType: .color, valueClass: .color, defaultValue: .color(.white), identity: .color(.white)),
        ]
    ) { a in
        let c = try a.color("inputColor")
        let image = try a.image()
        if c.red == 1, c.green == 1, c.blue == 1 { return image }
        return image.applyingColorKernel(
            .dependingOnWorkingSpace(name: "whitePoint \(c)") { linear in
                var w = c.workingStraight(linear: linear)
                w.w = 1
                let m = ColorMatrix(rows: SIMD4(w.x, 0, 0, 0), SIMD4(0, w.y, 0, 0), SIMD4(0, 0, w.z, 0), SIMD4(0, 0, 0, 1))
                return { p, n in colorMatrixRow(p, count: n, matrix: m) }
            })
    }

    static let vibrance = FilterDescriptor(
        name: "CIVibrance", displayName: "Vibrance",
        summary: "Raises the saturation of dull colors more than that of vivid ones (lowers it for negative amounts).",
        categories: [.colorAdjustment, .interlaced, .nonSquarePixels, .highDynamicRange],
        inputs: [
            .image(),
            .number(
                "inputAmount", default: 0, identity: 0, sliderMin: -1, sliderMax: 1,
                summary: "Saturation gain for a gray color: 1 + amount * (1 - saturation)."),
        ]
    ) { a in
        let amount = try a.float("inputAmount")
        let image = try a.image()
        if amount == 0 { return image }
        return image.applyingColorKernel(
            ColorKernel(name: "vibrance \(amount)") { p, n in vibranceRow(p, count: n, amount: amount) })
    }

    static let colorAbsoluteDifference = FilterDescriptor(
        name: "CIColorAbsoluteDifference", displayName: "Color Absolute Difference",
        summary: "The absolute difference of two images' colors, with alpha the product of their alphas.",
        categories: [.colorAdjustment, .interlaced, .nonSquarePixels, .highDynamicRange],
        inputs: [.image(summary: "The first image."), .image("inputImage2", summary: "The image to subtract.")]
    ) { a in
        try a.image().blended(
            with: try a.image("inputImage2"),
            kernel: BlendKernel(name: "absoluteDifference", extentRule: .intersection) { f, d, n in
                absoluteDifferenceRow(f, d, count: n)
            })
    }
}

extension Image {
    /// Rotates hues by `angle` radians about the gray axis (`CIHueAdjust`).
    /// - Complexity: a 3x3 matrix per pixel, folded with neighbouring matrices.
    public func hueAdjusted(angle: Double? = nil) throws -> Image {
        try FilterDescriptor.hueAdjust.apply(["inputImage": .image(self), "inputAngle": angle.map(FilterValue.number)])
    }

    /// White balance from the illuminant `neutral` to `target`, each (kelvin, tint)
    /// (`CITemperatureAndTint`, both default (6500, 0)).
    /// - Complexity: a 3x3 matrix per pixel, folded with neighbouring matrices.
    public func temperatureAndTint(
        neutral: (temperature: Double, tint: Double)? = nil,
        target: (temperature: Double, tint: Double)? = nil
    ) throws -> Image {
        try FilterDescriptor.temperatureAndTint.apply([
            "inputImage": .image(self), "inputNeutral": neutral.map { .vector([$0.temperature, $0.tint]) },
            "inputTargetNeutral": target.map { .vector([$0.temperature, $0.tint]) },
        ])
    }

    /// Maps white to `color` (`CIWhitePointAdjust`): `rgb * color` in the working space.
    public func whitePointAdjusted(color: Color? = nil) throws -> Image {
        try FilterDescriptor.whitePointAdjust.apply(["inputImage": .image(self), "inputColor": color.map(FilterValue.color)])
    }

    /// Saturates dull colors more than vivid ones (`CIVibrance`), `amount` in about -1...1.
    public func vibrance(amount: Double? = nil) throws -> Image {
        try FilterDescriptor.vibrance.apply(["inputImage": .image(self), "inputAmount": amount.map(FilterValue.number)])
    }

    /// `|self - other|` per color channel, alpha the product (`CIColorAbsoluteDifference`).
    /// The extent is the intersection of the two extents.
    public func absoluteDifference(with other: Image) throws -> Image {
        try FilterDescriptor.colorAbsoluteDifference.apply(["inputImage": .image(self), "inputImage2": .image(other)])
    }
}
