import XCTest
@testable import PixelFlow
@testable import PixelFlowKernels
@testable import PixelFlowGraph
@testable import PixelFlowEngine

/// Renders `make(Image(input))` with `context` and compares every pixel with `ref` applied to
/// the input's stored straight values, within `tolerance` (absolute, all four channels).
/// Nearly transparent expected pixels are skipped: their colors carry no precision.
func assertPointFilter(
    _ input: PixelBuffer, tolerance: Float, context: RenderContext = rawContext,
    _ make: (Image) throws -> Image, _ ref: (SIMD4<Double>) -> SIMD4<Double>,
    file: StaticString = #filePath, line: UInt = #line
) throws {
    let out = try renderRaw(try make(Image(input)), rect: input.bounds, context: context)
    var worst: Float = 0
    for y in 0..<input.height {
        for x in 0..<input.width {
            let v = input[x, y]
            let e = ref(SIMD4<Double>(Double(v.x), Double(v.y), Double(v.z), Double(v.w)))
            if e.w < 1e-3 { continue }
            let g = out[x, y]
            let d = abs(SIMD4<Float>(Float(e.x), Float(e.y), Float(e.z), Float(e.w)) - g).max()
            worst = max(worst, d.isNaN ? .infinity : d)
            if !(d <= tolerance) {
                XCTFail("(\(x), \(y)) input \(v): got \(g), expected \(e)", file: file, line: line)
                return
            }
        }
    }
}

/// Asserts that `body` throws `invalidParameter` naming `key`.
func assertThrowsInvalidParameter(_ key: String, file: StaticString = #filePath, line: UInt = #line, _ body: () throws -> Void) {
    do {
        try body()
        XCTFail("accepted a bad \(key)", file: file, line: line)
    } catch let PixelFlowError.invalidParameter(_, k, _) {
        XCTAssertEqual(k, key, file: file, line: line)
    } catch {
        XCTFail("threw \(error), not invalidParameter", file: file, line: line)
    }
}

let rec709Double = SIMD4<Double>(0.2126, 0.7152, 0.0722, 0)

func luma(_ v: SIMD4<Double>) -> Double { 0.2126 * v.x + 0.7152 * v.y + 0.0722 * v.z }

/// The color adjustment filters of Filters/ColorAdjustmentFilters+Curves.swift and +Balance.swift
/// and the sRGB curves of ColorSpaceFilters.swift, rendered end to end on stored values
/// (`colorManagement: .none`) of seeded random images and compared with scalar formulas in
/// Double written here from their definitions. Tolerances are stated at each check: 2e-6
/// for plain arithmetic in float, more where a kernel uses a table or the fast power.
final class ColorAdjustmentTests: XCTestCase {
    let w = 37, h = 23
    lazy var opaque = TestImages.random(
        width: w, height: h, format: .rgbaF32, seed: 31, opaque: true,
        colorEncoding: .sRGB, alphaMode: .straight)
    lazy var translucent = TestImages.random(
        width: w, height: h, format: .rgbaF32, seed: 32, opaque: false,
        colorEncoding: .sRGB, alphaMode: .straight)
    /// Values in -0.5...1.5, to exercise extended range.
    lazy var wide: PixelBuffer = {
        var b = TestImages.random(
            width: w, height: h, format: .rgbaF32, seed: 33, opaque: true,
            colorEncoding: .sRGB, alphaMode: .straight)
        for y in 0..<h { for x in 0..<w { var v = b[x, y] * 2 - 0.5; v.w = 1; b[x, y] = v } }
        return b
    }()

    // MARK: Curves

    func testColorPolynomial() throws {
        let c: [SIMD4<Double>] = [
            SIMD4(0.1, 0.9, -0.2, 0.3), SIMD4(0, 1.2, 0.5, -0.4), SIMD4(-0.05, 0.8, 0, 0.25), SIMD4(0, 1, 0, 0),
        ]
        try assertPointFilter(
            translucent, tolerance: 2e-6,
            {
                try $0.colorPolynomial(
                    red: SIMD4<Float>(c[0]), green: SIMD4<Float>(c[1]), blue: SIMD4<Float>(c[2]),
                    alpha: SIMD4<Float>(c[3]))
            }
        ) { v in
            var o = SIMD4<Double>.zero
            for k in 0..<4 {
                let x: Double = v[k]
                let p: SIMD4<Double> = c[k]
                o[k] = p.x + p.y * x + p.z * x * x + p.w * x * x * x
            }
            return o
        }
    }

    func testColorCrossPolynomial() throws {
        let r: [Double] = [0.9, 0.1, 0, 0.05, 0, 0, 0.1, 0, 0, 0.01]
        let g: [Double] = [0, 1, 0.1, 0, -0.1, 0, 0, 0.2, 0, 0]
        let b: [Double] = [0.1, 0, 0.8, 0, 0, 0.1, 0, 0, 0.3, -0.02]
        try assertPointFilter(opaque, tolerance: 2e-6, { try $0.colorCrossPolynomial(red: r, green: g, blue: b) }) { v in
            let terms = [v.x, v.y, v.z, v.x * v.x, v.y * v.y, v.z * v.z, v.x * v.y, v.y * v.z, v.z * v.x, 1]
            func dot(_ k: [Double]) -> Double { zip(k, terms).reduce(0) { $0 + $1.0 * $1.1 } }
            return SIMD4(dot(r), dot(g), dot(b), v.w)
        }
    }

    /// The natural cubic spline through 5 points, from the moment equations solved by
    /// Gaussian elimination (an independent route from the kernel's Thomas algorithm).
    static func naturalSpline(_ xs: [Double], _ ys: [Double]) -> (Double) -> Double {
        let h = (0..<4).map { xs[$0 + 1] - xs[$0] }
        var a = [[Double]](repeating: [Double](repeating: 0, count: 4), count: 3)
        for i in 1...3 {
            if i > 1 { a[i - 1][i - 2] = h[i - 1] }
            a[i - 1][i - 1] = 2 * (h[i - 1] + h[i])
            if i < 3 { a[i - 1][i] = h[i] }
            a[i - 1][3] = 6 * ((ys[i + 1] - ys[i]) / h[i] - (ys[i] - ys[i - 1]) / h[i - 1])
        }
        for c in 0..<3 {
            for r in (c + 1)..<3 {
                let f = a[r][c] / a[c][c]
                for k in c..<4 { a[r][k] -= f * a[c][k] }
            }
        }
        var m = [Double](repeating: 0, count: 5)
        for r in stride(from: 2, through: 0, by: -1) {
            var s = a[r][3]
            for k in (r + 1)..<3 { s -= a[r][k] * m[k + 1] }
            m[r + 1] = s / a[r][r]
        }
        return { x in
            var i = 0
            while i < 3 && x > xs[i + 1] { i += 1 }
            let t = x - xs[i], u = xs[i + 1] - x, hi = h[i]
            return (m[i] * u * u * u + m[i + 1] * t * t * t) / (6 * hi) + (ys[i] / hi - m[i] * hi / 6) * u
                + (ys[i + 1] / hi - m[i + 1] * hi / 6) * t
        }
    }

    func testToneCurveFollowsTheNaturalSpline() throws {
        let xs = [0.0, 0.2, 0.45, 0.7, 1.0], ys = [0.05, 0.3, 0.4, 0.8, 0.95]
        let s = Self.naturalSpline(xs, ys)
        let points = zip(xs, ys).map { Point(x: $0, y: $1) }
        // Table of 4096 entries read with lerp: the spline's curvature here bounds the error by 2e-6.
        try assertPointFilter(wide, tolerance: 1e-5, { try $0.toneCurve(points: points) }) { v in
            func f(_ x: Double) -> Double { s(min(max(x, 0), 1)) }
            return SIMD4(f(v.x), f(v.y), f(v.z), v.w)
        }
        // Extrapolated: linear beyond the ends with the end slopes (finite differences here).
        let d0 = (s(1e-6) - s(0)) / 1e-6, d1 = (s(1) - s(1 - 1e-6)) / 1e-6
        try assertPointFilter(wide, tolerance: 1e-4, { try $0.toneCurve(points: points, extrapolate: true) }) { v in
            func f(_ x: Double) -> Double { x < 0 ? s(0) + x * d0 : (x > 1 ? s(1) + (x - 1) * d1 : s(x)) }
            return SIMD4(f(v.x), f(v.y), f(v.z), v.w)
        }
    }

    func testToneCurveRejectsPointsOutOfOrder() {
        assertThrowsInvalidParameter("inputPoint2") {
            _ = try Image(opaque).toneCurve(points: [
                Point(x: 0, y: 0), Point(x: 0.5, y: 0.4), Point(x: 0.5, y: 0.6),
                Point(x: 0.75, y: 0.8), Point(x: 1, y: 1),
            ])
        }
    }

    /// Points in order as Doubles but not as Floats (the table's precision), or beyond Float's
    /// range, throw instead of indexing the table with NaN (found by the filter-graph fuzzer).
    func testToneCurveRejectsARangeSinglePrecisionCannotHold() {
        for xs: [Double] in [[1e-50, 2e-50, 3e-50, 4e-50, 5e-50], [0, 1, 2, 3, 1e39], [-1e39, 0, 1, 2, 3]] {
            assertThrowsInvalidParameter("inputPoint4") {
                _ = try Image(opaque).toneCurve(points: xs.map { Point(x: $0, y: 0.5) })
            }
        }
        // The kernel itself keeps its index in the table for a degenerate table.
        let table = LookupTable1D(count: 8, lower: 0, upper: 0, extrapolate: false, lowerSlope: 0, upperSlope: 0) { $0 }
        var p = [SIMD4<Float>(0, .nan, 1, 1), SIMD4(-1, 2, .infinity, 0.5)]
        lookupTableRGBRow(&p, count: 2, table: table)
        XCTAssertEqual(p[0].w, 1)
        XCTAssertEqual(p[1].w, 0.5)
    }

    func testClampThresholdAndReciprocals() throws {
        try assertPointFilter(
            wide, tolerance: 0,
            {
                try $0.colorClamped(minimum: SIMD4(0.1, -0.2, 0, 0.5), maximum: SIMD4(0.9, 1.2, 0.5, 0.8))
            }
        ) { v in
            SIMD4(min(max(v.x, 0.1), 0.9), min(max(v.y, -0.2), 1.2), min(max(v.z, 0), 0.5), min(max(v.w, 0.5), 0.8))
        }
        try assertPointFilter(translucent, tolerance: 0, { try $0.colorThreshold(0.4) }) { v in
            SIMD4(v.x > 0.4 ? 1 : 0, v.y > 0.4 ? 1 : 0, v.z > 0.4 ? 1 : 0, v.w)
        }
        // One float division: relative 6e-8, so 1e-6 relative on values up to 1e6.
        let depth = try renderRaw(try Image(wide).depthToDisparity())
        let back = try renderRaw(try Image(wide).disparityToDepth())
        for y in 0..<h {
            for x in 0..<w {
                let v = wide[x, y]
                for c in 0..<3 {
                    let e = 1 / Double(max(v[c], 1e-6))
                    XCTAssertEqual(Double(depth[x, y][c]), e, accuracy: e * 1e-6)
                    XCTAssertEqual(Double(back[x, y][c]), e, accuracy: e * 1e-6)
                }
            }
        }
    }

    // MARK: Balance

    func testHueAdjustIsARotationAboutTheGrayAxis() throws {
        let angle = 1.1
        try assertPointFilter(wide, tolerance: 2e-6, { try $0.hueAdjusted(angle: angle) }) { v in
            // Rodrigues: v cos + (k x v) sin + k (k . v)(1 - cos), k = (1, 1, 1) / sqrt 3.
            let k: Double = 1 / 3.0.squareRoot()
            let cross = SIMD3<Double>(k * (v.z - v.y), k * (v.x - v.z), k * (v.y - v.x))
            let dot: Double = k * (v.x + v.y + v.z)
            let along = SIMD3<Double>(repeating: k * dot * (1 - cos(angle)))
            let r: SIMD3<Double> = SIMD3<Double>(v.x, v.y, v.z) * cos(angle) + cross * sin(angle) + along
            return SIMD4(r.x, r.y, r.z, v.w)
        }
        // Red turns toward green for a positive angle.
        let red = try renderRaw(try Image(color: .red).hueAdjusted(angle: 0.5), rect: Rect(x: 0, y: 0, width: 1, height: 1))
        XCTAssertGreaterThan(red[0, 0].y, red[0, 0].z)
    }

    func testPlanckianLocusApproximation() {
        // CIE illuminant A is a 2856 K Planckian radiator: xy (0.44757, 0.40745).
        let a = ColorMatrix.whiteChromaticity(temperature: 2856, tint: 0)
        XCTAssertEqual(a.x, 0.44757, accuracy: 1e-3)
        XCTAssertEqual(a.y, 0.40745, accuracy: 1e-3)
        // The Planckian locus at 6500 K: xy (0.3135, 0.3237) (CIE 15:2004 tables).
        let d = ColorMatrix.whiteChromaticity(temperature: 6500, tint: 0)
        XCTAssertEqual(d.x, 0.3135, accuracy: 1e-3)
        XCTAssertEqual(d.y, 0.3237, accuracy: 1e-3)
        // A tint moves the white by tint / 3000 in uv, toward +v (green) for positive tints.
        func uv(_ p: (x: Double, y: Double)) -> (Double, Double) {
            let s = -2 * p.x + 12 * p.y + 3
            return (4 * p.x / s, 6 * p.y / s)
        }
        let t = uv(ColorMatrix.whiteChromaticity(temperature: 5000, tint: 30)),
            o = uv(ColorMatrix.whiteChromaticity(temperature: 5000, tint: 0))
        XCTAssertEqual(((t.0 - o.0) * (t.0 - o.0) + (t.1 - o.1) * (t.1 - o.1)).squareRoot(), 0.01, accuracy: 1e-6)
        XCTAssertGreaterThan(t.1, o.1)
    }

    func testTemperatureAndTintMapsTheNeutralWhiteToTheTargetWhite() throws {
        func rgbWhite(_ t: Double, _ tint: Double) -> SIMD4<Float> {
            let (x, y) = ColorMatrix.whiteChromaticity(temperature: t, tint: tint)
            let xyz = [x / y, 1, (1 - x - y) / y]
            let m = invert3x3([
                [0.4124564, 0.3575761, 0.1804375], [0.2126729, 0.7151522, 0.0721750], [0.0193339, 0.1191920, 0.9503041],
            ])
            let rgb = (0..<3).map { i in (0..<3).reduce(0.0) { $0 + m[i][$1] * xyz[$1] } }
            return SIMD4(Float(rgb[0]), Float(rgb[1]), Float(rgb[2]), 1)
        }
        for (n, t) in [((4000.0, 10.0), (6500.0, 0.0)), ((9000.0, -20.0), (5000.0, 5.0))] {
            let src = rgbWhite(n.0, n.1), dst = rgbWhite(t.0, t.1)
            var b = try PixelBuffer(width: 1, height: 1, format: .rgbaF32, colorEncoding: .sRGB, alphaMode: .straight)
            b[0, 0] = src
            let out = try renderRaw(try Image(b).temperatureAndTint(neutral: n, target: t))
            XCTAssertLessThan(abs(out[0, 0] - dst).max(), 1e-5, "\(n) -> \(t): \(out[0, 0]) vs \(dst)")
        }
        // A lower neutral temperature than the target cools the image: blue gains on red.
        var g = try PixelBuffer(width: 1, height: 1, format: .rgbaF32, colorEncoding: .sRGB, alphaMode: .straight)
        g[0, 0] = SIMD4(0.5, 0.5, 0.5, 1)
        let cooled = try renderRaw(try Image(g).temperatureAndTint(neutral: (4500, 0), target: (6500, 0)))
        XCTAssertGreaterThan(cooled[0, 0].z, cooled[0, 0].x)
    }

    func testWhitePointAdjustScalesByTheColorInTheWorkingSpace() throws {
        let c = Color(red: 1, green: 0.8, blue: 0.6)
        try assertPointFilter(translucent, tolerance: 2e-6, { try $0.whitePointAdjusted(color: c) }) { v in
            SIMD4(v.x * 1, v.y * 0.8, v.z * 0.6, v.w)
        }
        // In a linear context the color is linearized first.
        let linearInput = TestImages.random(
            width: w, height: h, format: .rgbaF32, seed: 34, opaque: true,
            colorEncoding: .linear, alphaMode: .straight)
        let out = try RenderContext().makeBuffer(
            try Image(linearInput).whitePointAdjusted(color: c), format: .rgbaF32,
            colorEncoding: .linear, alphaMode: .straight)
        let k = SIMD4<Float>(1, SRGB.toLinear(0.8), SRGB.toLinear(0.6), 1)
        XCTAssertLessThan(
            maxDifference(
                out,
                {
                    var b = linearInput
                    for y in 0..<h { for x in 0..<w { b[x, y] = linearInput[x, y] * k } }
                    return b
                }()), 2e-6)
    }

    func testVibrance() throws {
        try assertPointFilter(wide, tolerance: 2e-6, { try $0.vibrance(amount: 0.7) }) { v in
            let l = luma(v)
            let s = min(max(max(v.x, v.y, v.z) - min(v.x, v.y, v.z), 0), 1)
            let k = 1 + 0.7 * (1 - s)
            return SIMD4(l + (v.x - l) * k, l + (v.y - l) * k, l + (v.z - l) * k, v.w)
        }
    }

    func testColorAbsoluteDifference() throws {
        let other = TestImages.random(
            width: w, height: h, format: .rgbaF32, seed: 35, opaque: false,
            colorEncoding: .sRGB, alphaMode: .straight)
        let out = try renderRaw(try Image(translucent).absoluteDifference(with: Image(other)))
        for y in 0..<h {
            for x in 0..<w {
                let a = translucent[x, y], b = other[x, y]
                let alpha = a.w * b.w
                XCTAssertEqual(out[x, y].w, alpha, accuracy: 1e-6)
                if alpha < 1e-2 { continue }
                for c in 0..<3 { XCTAssertEqual(out[x, y][c], abs(a[c] - b[c]), accuracy: 1e-4, "(\(x), \(y))") }
            }
        }
    }

    // MARK: sRGB curves

    func testSRGBToneCurves() throws {
        func encode(_ x: Double) -> Double {
            let a = abs(x)
            let r = a <= 0.0031308 ? a * 12.92 : 1.055 * pow(a, 1 / 2.4) - 0.055
            return x < 0 ? -r : r
        }
        func decode(_ x: Double) -> Double {
            let a = abs(x)
            let r = a <= 0.04045 ? a / 12.92 : pow((a + 0.055) / 1.055, 2.4)
            return x < 0 ? -r : r
        }
        // fastSignedPow: 2e-6 relative, on values up to about 1.5 here.
        try assertPointFilter(wide, tolerance: 5e-6, { try $0.linearToSRGBToneCurve() }) { v in
            SIMD4(encode(v.x), encode(v.y), encode(v.z), v.w)
        }
        try assertPointFilter(wide, tolerance: 5e-6, { try $0.sRGBToneCurveToLinear() }) { v in
            SIMD4(decode(v.x), decode(v.y), decode(v.z), v.w)
        }
    }
}
