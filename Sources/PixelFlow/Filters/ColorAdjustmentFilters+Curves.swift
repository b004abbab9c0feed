// Per-channel curves: polynomials, the five-point tone curve, clamps, thresholds and the
// depth/disparity reciprocals. Kernels: Kernels/ColorEffectKernels.swift. All work on
// unpremultiplied values of the working space (linear light unless the context has no color
// management).

extension FilterDescriptor {
    /// The curve filters declared in this file, registered in `builtIn`.
    static let colorCurveFilters: [FilterDescriptor] = [
        colorPolynomial, colorCrossPolynomial, toneCurve, colorClamp,
        colorThreshold, depthToDisparity, disparityToDepth,
    ]

    static let colorPolynomial = FilterDescriptor(
        name: "CIColorPolynomial", displayName: "Color Polynomial",
        summary: "Maps each channel through a cubic: out = c0 + c1 x + c2 x^2 + c3 x^3, with coefficients per channel.",
        categories: [.colorAdjustment, .interlaced, .nonSquarePixels],
        inputs: [
            .image(),
            .vector(
                "inputRedCoefficients", default: [0, 1, 0, 0], identity: [0, 1, 0, 0],
                summary: "Coefficients c0...c3 of the red channel's polynomial."),
            .vector(
                "inputGreenCoefficients", default: [0, 1, 0, 0], identity: [0, 1, 0, 0],
                summary: "Coefficients c0...c3 of the green channel's polynomial."),
            .vector(
                "inputBlueCoefficients", default: [0, 1, 0, 0], identity: [0, 1, 0, 0],
                summary: "Coefficients c0...c3 of the blue channel's polynomial."),
            .vector(
                "inputAlphaCoefficients", default: [0, 1, 0, 0], identity: [0, 1, 0, 0],
                summary: "Coefficients c0...c3 of the alpha channel's polynomial."),
        ]
    ) { a in
        let keys = ["inputRedCoefficients", "inputGreenCoefficients", "inputBlueCoefficients", "inputAlphaCoefficients"]
        let rows = try keys.map { try a.simd4($0) }
        let image = try a.image()
        if rows.allSatisfy({ $0 == SIMD4(0, 1, 0, 0) }) { return image }
        // By degree: c[k] holds the degree-k coefficient of R, G, B, A.
        let c = (0..<4).map { k in SIMD4(rows[0][k], rows[1][k], rows[2][k], rows[3][k]) }
        let name = "polynomial " + c.map { "\($0)" }.joined(separator: " ")
        return image.applyingColorKernel(
            ColorKernel(name: name) { p, n in colorPolynomialRow(p, count: n, c[0], c[1], c[2], c[3]) })
    }

    static let colorCrossPolynomial = FilterDescriptor(
        name: "CIColorCrossPolynomial", displayName: "Color Cross Polynomial",
        summary: "Computes each color channel as a second-degree polynomial of red, green and blue, cross terms included.",
        categories: [.colorEffect, .interlaced, .nonSquarePixels],
        inputs: [
            .image(),
            .vector(
                "inputRedCoefficients", default: [1, 0, 0, 0, 0, 0, 0, 0, 0, 0], identity: [1, 0, 0, 0, 0, 0, 0, 0, 0, 0],
                summary: "Weights of r, g, b, r^2, g^2, b^2, rg, gb, br and 1 in the output red."),
            .vector(
                "inputGreenCoefficients", default: [0, 1, 0, 0, 0, 0, 0, 0, 0, 0], identity: [0, 1, 0, 0, 0, 0, 0, 0, 0, 0],
                summary: "Weights of r, g, b, r^2, g^2, b^2, rg, gb, br and 1 in the output green."),
            .vector(
                "inputBlueCoefficients", default: [0, 0, 1, 0, 0, 0, 0, 0, 0, 0], identity: [0, 0, 1, 0, 0, 0, 0, 0, 0, 0],
                summary: "Weights of r, g, b, r^2, g^2, b^2, rg, gb, br and 1 in the output blue."),
        ]
    ) { a in
        let r = try a.vector("inputRedCoefficients"), g = try a.vector("inputGreenCoefficients")
        let b = try a.vector("inputBlueCoefficients")
        let image = try a.image()
        let identity: [[Double]] = [[1, 0, 0], [0, 1, 0], [0, 0, 1]]
        if [r, g, b].enumerated().allSatisfy({ i, v in Array(v[0..<3]) == identity[i] && v[3...].allSatisfy { $0 == 0 } }) {
            return image
        }
        let k = (0..<10).map { j in SIMD4(Float(r[j]), Float(g[j]), Float(b[j]), 0) }
        let name = "crossPolynomial " + [r, g, b].map { "\($0)" }.joined(separator: " ")
        return image.applyingColorKernel(ColorKernel(name: name) { p, n in colorCrossPolynomialRow(p, count: n, k) })
    }

    static let toneCurve = FilterDescriptor(
        name: "CIToneCurve", displayName: "Tone Curve",
        summary: "Maps red, green and blue through a natural cubic spline drawn through five points.",
        categories: [.colorAdjustment, .interlaced, .nonSquarePixels],
        inputs: [
            .image(),
            .vector(
                "inputPoint0", .offset, default: [0, 0], identity: [0, 0],
                summary: "The first point (input, output) of the curve."),
            .vector(
                "inputPoint1", .offset, default: [0.25, 0.25], identity: [0.25, 0.25], summary: "The second point of the curve."),
            .vector(
                "inputPoint2", .offset, default: [0.5, 0.5], identity: [0.5, 0.5], summary: "The third point of the curve."),
            .vector(
                "inputPoint3", .offset, default: [0.75, 0.75], identity: [0.75, 0.75], summary: "The fourth point of the curve."),
            .vector("inputPoint4", .offset, default: [1, 1], identity: [1, 1], summary: "The fifth point of the curve."),
            .boolean(
                "inputExtrapolate", default: false,
                summary: "Continue the curve along its end slopes outside the points' inputs, instead of holding the end values."),
        ]
    ) { a in
        var xs: [Double] = [], ys: [Double] = []
        for k in 0..<5 {
            let key = "inputPoint\(k)"
            let v = try a.vector(key)
            if let last = xs.last, !(v[0] > last) {
                throw a.fail(key, "must have a larger input (x) than inputPoint\(k - 1), got \(v[0]) after \(last)")
            }
            xs.append(v[0])
            ys.append(v[1])
        }
        // The table works in Float: its input range must stay finite and non-empty there.
        guard Float(xs[0]).isFinite, Float(xs[4]).isFinite, Float(xs[0]) < Float(xs[4]) else {
            throw a.fail(
                "inputPoint4",
                "must span a finite, non-empty single-precision range of inputs with inputPoint0, got \(xs[0]) to \(xs[4])")
        }
        let extrapolate = try a.number("inputExtrapolate") != 0
        let image = try a.image()
        if extrapolate, zip(xs, ys).allSatisfy({ $0 == $1 }) { return image }
        let spline = NaturalCubicSpline(xs: xs, ys: ys)
        let table = LookupTable1D(
            count: 4096, lower: xs[0], upper: xs[4], extrapolate: extrapolate,
            lowerSlope: spline.slope(atEnd: false), upperSlope: spline.slope(atEnd: true),
            spline.value)
        let name = "toneCurve \(xs) \(ys) \(extrapolate)"
        return image.applyingColorKernel(ColorKernel(name: name) { p, n in lookupTableRGBRow(p, count: n, table: table) })
    }

    static let colorClamp = FilterDescriptor(
        name: "CIColorClamp", displayName: "Color Clamp",
        summary: "Clamps each channel, alpha included, between a minimum and a maximum.",
        categories: [.colorAdjustment, .interlaced, .nonSquarePixels],
        inputs: [
            .image(),
            .vector("inputMinComponents", default: [0, 0, 0, 0], summary: "Lower bounds of red, green, blue and alpha."),
            .vector("inputMaxComponents", default: [1, 1, 1, 1], summary: "Upper bounds of red, green, blue and alpha."),
        ]
    ) { a in
        let lo = try a.simd4("inputMinComponents"), hi = try a.simd4("inputMaxComponents")
        return try a.image().applyingColorKernel(
            ColorKernel(name: "clamp \(lo) \(hi)") { p, n in
                colorClampRow(p, count: n, lower: lo, upper: hi)
            })
    }

    static let colorThreshold = FilterDescriptor(
        name: "CIColorThreshold", displayName: "Color Threshold",
        summary: "Sets each color channel to 1 where it is greater than the threshold and to 0 elsewhere.",
        categories: [.colorAdjustment, .interlaced, .nonSquarePixels],
        inputs: [
            .image(),
            .number(
                "inputThreshold", default: 0.5, sliderMin: 0, sliderMax: 1,
                summary: "The level a channel must exceed to become 1."),
        ]
    ) { a in
        let t = try a.float("inputThreshold")
        return try a.image().applyingColorKernel(
            ColorKernel(name: "threshold \(t)") { p, n in
                colorThresholdRow(p, count: n, threshold: t)
            })
    }

    static let depthToDisparity = FilterDescriptor(
        name: "CIDepthToDisparity", displayName: "Depth To Disparity",
        summary: "Converts depth to disparity: 1 / depth in each color channel (depths below 1e-6 count as 1e-6).",
        categories: [.colorAdjustment], inputs: [.image(summary: "Depth, in meters.")]
    ) { a in
        try a.image().applyingColorKernel(ColorKernel(name: "reciprocal") { p, n in reciprocalRGBRow(p, count: n) })
    }

    static let disparityToDepth = FilterDescriptor(
        name: "CIDisparityToDepth", displayName: "Disparity To Depth",
        summary: "Converts disparity to depth: 1 / disparity in each color channel (disparities below 1e-6 count as 1e-6).",
        categories: [.colorAdjustment], inputs: [.image(summary: "Disparity, in 1/meters.")]
    ) { a in
        try a.image().applyingColorKernel(ColorKernel(name: "reciprocal") { p, n in reciprocalRGBRow(p, count: n) })
    }
}

/// The natural cubic spline through points with increasing `xs` (second derivative 0 at both
/// ends), in Double.
///
/// Reference: C. de Boor, A Practical Guide to Splines (1978), chapter IV; the moments come
/// from the usual tridiagonal system solved by the Thomas algorithm.
struct NaturalCubicSpline: Sendable {
    let xs: [Double]
    let ys: [Double]
    /// Second derivatives at the points.
    let m: [Double]

    init(xs: [Double], ys: [Double]) {
        self.xs = xs
        self.ys = ys
        let n = xs.count
        var m = [Double](repeating: 0, count: n)
        if n > 2 {
            let h = (0..<(n - 1)).map { xs[$0 + 1] - xs[$0] }
            var diag = [Double](repeating: 0, count: n), rhs = [Double](repeating: 0, count: n)
            var upper = [Double](repeating: 0, count: n)
            for i in 1..<(n - 1) {
                diag[i] = 2 * (h[i - 1] + h[i])
                upper[i] = h[i]
                rhs[i] = 6 * ((ys[i + 1] - ys[i]) / h[i] - (ys[i] - ys[i - 1]) / h[i - 1])
            }
            // Forward elimination (the sub-diagonal of row i is h[i - 1]), then back substitution.
            for i in 2..<(n - 1) {
                let w = h[i - 1] / diag[i - 1]
                diag[i] -= w * upper[i - 1]
                rhs[i] -= w * rhs[i - 1]
            }
            for i in stride(from: n - 2, through: 1, by: -1) {
                m[i] = (rhs[i] - upper[i] * m[i + 1]) / diag[i]
            }
        }
        self.m = m
    }

    /// The spline at `x`, for `x` within the points (the end cubics continue outside).
    func value(_ x: Double) -> Double {
        var i = 0
        while i < xs.count - 2 && x > xs[i + 1] { i += 1 }
        let h = xs[i + 1] - xs[i]
        let t = x - xs[i], u = xs[i + 1] - x
        return (m[i] * u * u * u + m[i + 1] * t * t * t) / (6 * h)
            + (ys[i] / h - m[i] * h / 6) * u + (ys[i + 1] / h - m[i + 1] * h / 6) * t
    }

    /// The derivative at the first (`atEnd` false) or last point.
    func slope(atEnd: Bool) -> Double {
        let n = xs.count
        if atEnd {
            let h = xs[n - 1] - xs[n - 2]
            return (ys[n - 1] - ys[n - 2]) / h + h * (m[n - 2] + 2 * m[n - 1]) / 6
        }
        let h = xs[1] - xs[0]
        return (ys[1] - ys[0]) / h - h * (2 * m[0] + m[1]) / 6
    }
}

extension Image {
    /// Maps each channel through its own cubic (`CIColorPolynomial`):
    /// `out = c.x + c.y x + c.z x^2 + c.w x^3`. Nil coefficients are the identity `[0 1 0 0]`.
    /// - Complexity: 3 multiply-adds per channel per pixel.
    public func colorPolynomial(
        red: SIMD4<Float>? = nil, green: SIMD4<Float>? = nil, blue: SIMD4<Float>? = nil,
        alpha: SIMD4<Float>? = nil
    ) throws -> Image {
        func v(_ x: SIMD4<Float>?) -> FilterValue? {
            x.map { .vector([Double($0.x), Double($0.y), Double($0.z), Double($0.w)]) }
        }
        return try FilterDescriptor.colorPolynomial.apply([
            "inputImage": .image(self), "inputRedCoefficients": v(red), "inputGreenCoefficients": v(green),
            "inputBlueCoefficients": v(blue), "inputAlphaCoefficients": v(alpha),
        ])
    }

    /// Second-degree polynomial of r, g, b per output channel (`CIColorCrossPolynomial`); each
    /// array holds the 10 weights of r, g, b, r^2, g^2, b^2, rg, gb, br and 1.
    /// - Complexity: about 20 multiply-adds per pixel.
    public func colorCrossPolynomial(red: [Double]? = nil, green: [Double]? = nil, blue: [Double]? = nil) throws -> Image {
        try FilterDescriptor.colorCrossPolynomial.apply([
            "inputImage": .image(self), "inputRedCoefficients": red.map(FilterValue.vector),
            "inputGreenCoefficients": green.map(FilterValue.vector), "inputBlueCoefficients": blue.map(FilterValue.vector),
        ])
    }

    /// Maps red, green and blue through the natural cubic spline through `points`
    /// (`CIToneCurve`), five `(input, output)` pairs with increasing inputs; the curve is
    /// sampled into a 4096-entry table read with linear interpolation.
    /// - Throws: `invalidParameter` naming `inputPointN` when its input is not larger than the previous one.
    /// - Complexity: one table read and one lerp per channel per pixel; 16 KB table.
    public func toneCurve(points: [Point]? = nil, extrapolate: Bool? = nil) throws -> Image {
        var values: [String: FilterValue?] = [
            "inputImage": .image(self), "inputExtrapolate": extrapolate.map(FilterValue.boolean),
        ]
        for (k, p) in (points ?? []).enumerated() { values["inputPoint\(k)"] = .vector([p.x, p.y]) }
        return try FilterDescriptor.toneCurve.apply(values)
    }

    /// Clamps each channel between `minimum` and `maximum` (`CIColorClamp`).
    public func colorClamped(minimum: SIMD4<Float>? = nil, maximum: SIMD4<Float>? = nil) throws -> Image {
        func v(_ x: SIMD4<Float>?) -> FilterValue? {
            x.map { .vector([Double($0.x), Double($0.y), Double($0.z), Double($0.w)]) }
        }
        return try FilterDescriptor.colorClamp.apply([
            "inputImage": .image(self), "inputMinComponents": v(minimum),
            "inputMaxComponents": v(maximum),
        ])
    }

    /// Binarizes each color channel at `threshold` (`CIColorThreshold`, default 0.5).
    public func colorThreshold(_ threshold: Double? = nil) throws -> Image {
        try FilterDescriptor.colorThreshold.apply([
            "inputImage": .image(self), "inputThreshold": threshold.map(FilterValue.number),
        ])
    }

    /// `1 / depth` per color channel (`CIDepthToDisparity`).
    public func depthToDisparity() throws -> Image {
        try FilterDescriptor.depthToDisparity.apply(["inputImage": .image(self)])
    }

    /// `1 / disparity` per color channel (`CIDisparityToDepth`).
    public func disparityToDepth() throws -> Image {
        try FilterDescriptor.disparityToDepth.apply(["inputImage": .image(self)])
    }
}
