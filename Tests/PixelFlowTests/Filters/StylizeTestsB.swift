import Foundation
import XCTest
@testable import PixelFlow
@testable import PixelFlowKernels
@testable import PixelFlowGraph
@testable import PixelFlowEngine

/// Stylize filters (edges and tone) against plain scalar references in Double over the whole
/// image, with edge pixels repeated outward (the filters clamp to the extent). Renders use
/// stored values (`colorManagement: .none`), so the working values are the buffer's.
final class StylizeTestsB: XCTestCase {
    let w = 31, h = 19
    lazy var src = premultipliedRandom(w, h, seed: 77)
    lazy var opaque = premultipliedRandom(w, h, seed: 78, opaque: true)
    var bounds: Rect { Rect(x: 0, y: 0, width: w, height: h) }

    func at(_ b: PixelBuffer, _ x: Int, _ y: Int) -> SIMD4<Double> {
        SIMD4<Double>(b[min(max(x, 0), b.width - 1), min(max(y, 0), b.height - 1)])
    }
    func luma(_ p: SIMD4<Double>) -> Double { 0.2126 * p.x + 0.7152 * p.y + 0.0722 * p.z }

    /// Gaussian of `f` with the filter's exact taps over the clamped image.
    func gaussian(_ sigma: Double, _ f: @escaping (Int, Int) -> SIMD4<Double>) -> (Int, Int) -> SIMD4<Double> {
        let taps = GaussianPlan.exactTaps(sigma: sigma).map(Double.init)
        let r = taps.count / 2
        return { x, y in
            var acc = SIMD4<Double>()
            for j in -r...r { for i in -r...r { acc += f(x + i, y + j) * (taps[i + r] * taps[j + r]) } }
            return acc
        }
    }

    func check(_ image: Image, tolerance: Double, _ what: String, _ ref: (Int, Int) -> SIMD4<Double>?) throws {
        let out = try renderPremultiplied(image, bounds)
        var worst = 0.0
        for y in 0..<h {
            for x in 0..<w {
                guard let r = ref(x, y) else { continue }
                let d = SIMD4<Double>(out[x, y]) - r
                worst = max(worst, [d.x, d.y, d.z, d.w].map(Swift.abs).max()!)
                if !(worst <= tolerance) { XCTFail("\(what) at (\(x), \(y)): \(out[x, y]) vs \(r)"); return }
            }
        }
    }

    func sobel(_ f: (Int, Int) -> SIMD4<Double>, _ x: Int, _ y: Int) -> (SIMD4<Double>, SIMD4<Double>) {
        let gx = (f(x + 1, y - 1) - f(x - 1, y - 1)) + (f(x + 1, y) - f(x - 1, y)) * 2 + (f(x + 1, y + 1) - f(x - 1, y + 1))
        let gy = (f(x - 1, y + 1) - f(x - 1, y - 1)) + (f(x, y + 1) - f(x, y - 1)) * 2 + (f(x + 1, y + 1) - f(x + 1, y - 1))
        return (gx, gy)
    }

    func testEdgesIsPerChannelSobelMagnitude() throws {
        // Tolerance 1e-5: float sums of 8 taps and a square root.
        let k = 0.8
        try check(try Image(src).edges(intensity: k), tolerance: 1e-5, "edges") { x, y in
            let (gx, gy) = sobel({ self.at(self.src, $0, $1) }, x, y)
            var m = (gx * gx + gy * gy).squareRoot() * k
            m.w = 1
            return m
        }
        XCTAssertEqual(try Image(src).edges().extent, bounds)
    }

    func testSobelGradientsAreRawSignedLumaGradients() throws {
        try check(try Image(src).sobelGradients(), tolerance: 1e-5, "sobel") { x, y in
            let (gx, gy) = self.sobel({ SIMD4(repeating: self.luma(self.at(self.src, $0, $1))) }, x, y)
            return SIMD4(gx.x, gy.x, 0, 1)
        }
    }

    /// A whole-image Canny in Float with the same order of operations; tolerance 0.
    func cannyReference(_ b: PixelBuffer, sigma: Double, high: Float, low: Float, passes: Int) -> [[Float]] {
        let taps = GaussianPlan.exactTaps(sigma: sigma), r = taps.count / 2
        func l(_ x: Int, _ y: Int) -> Float {
            let p = b[min(max(x, 0), b.width - 1), min(max(y, 0), b.height - 1)] * SIMD4<Float>(0.2126, 0.7152, 0.0722, 0)
            return p.x + p.y + p.z
        }
        let pad = r + 2 + passes + 2
        let W = b.width + 2 * pad, H = b.height + 2 * pad
        func grid(_ f: (Int, Int) -> Float) -> [[Float]] { (0..<H).map { j in (0..<W).map { i in f(i - pad, j - pad) } } }
        func g(_ a: [[Float]], _ x: Int, _ y: Int) -> Float {
            let j = y + pad, i = x + pad
            return (j >= 0 && j < H && i >= 0 && i < W) ? a[j][i] : 0
        }
        let hb = grid { x, y in
            var s: Float = 0; for k in 0..<taps.count { s += taps[k] * l(x - r + k, y) }; return s
        }
        let bl = grid { x, y in
            var s: Float = 0; for k in 0..<taps.count { s += taps[k] * g(hb, x, y - r + k) }; return s
        }
        var gxs = grid { _, _ in 0 }, gys = gxs
        let mag = grid { x, y in
            let f = { g(bl, $0, $1) }
            let gx =
                ((f(x + 1, y - 1) - f(x - 1, y - 1)) + (f(x + 1, y) - f(x - 1, y)) * 2 + (f(x + 1, y + 1) - f(x - 1, y + 1)))
                * 0.125
            let gy =
                ((f(x - 1, y + 1) - f(x - 1, y - 1)) + (f(x, y + 1) - f(x, y - 1)) * 2 + (f(x + 1, y + 1) - f(x + 1, y - 1)))
                * 0.125
            gxs[y + pad][x + pad] = gx; gys[y + pad][x + pad] = gy
            return (gx * gx + gy * gy).squareRoot()
        }
        var cls = grid { x, y in
            let gx = g(gxs, x, y), gy = g(gys, x, y), ax = Swift.abs(gx), ay = Swift.abs(gy)
            let (dx, dy) = ay <= ax * 0.41421356 ? (1, 0) : (ax <= ay * 0.41421356 ? (0, 1) : (gx * gy > 0 ? (1, 1) : (-1, 1)))
            let m = g(mag, x, y)
            guard m > g(mag, x - dx, y - dy) && m >= g(mag, x + dx, y + dy) else { return 0 }
            return m >= high ? 2 : (m >= low ? 1 : 0)
        }
        for _ in 0..<passes {
            let prev = cls
            cls = grid { x, y in
                var c = g(prev, x, y)
                if c == 1 { for j in -1...1 { for i in -1...1 where g(prev, x + i, y + j) == 2 { c = 2 } } }
                return c
            }
        }
        return cls.map { row in row.map { $0 == 2 ? 1 : 0 } }.dropFirst(pad).prefix(b.height).map {
            Array($0.dropFirst(pad).prefix(b.width))
        }
    }

    func testCannyMatchesAWholeImageReference() throws {
        let img = TestImages.random(
            width: w, height: h, format: .rgbaF32, seed: 9, opaque: true, colorEncoding: .sRGB,
            alphaMode: .premultiplied)
        for (sigma, passes) in [(1.6, 1), (1.0, 3), (0.0, 0)] {
            let ref = cannyReference(img, sigma: sigma, high: 0.05, low: 0.02, passes: passes)
            try check(
                try Image(img).cannyEdges(gaussianSigma: sigma, hysteresisPasses: passes), tolerance: 0,
                "canny sigma \(sigma) passes \(passes)"
            ) { x, y in
                let v = Double(ref[y][x])
                return SIMD4(v, v, v, 1)
            }
        }
    }

    func testCannyFindsAStepEdge() throws {
        var b = try PixelBuffer(width: 24, height: 12, format: .rgbaF32, colorEncoding: .sRGB, alphaMode: .premultiplied)
        for y in 0..<12 { for x in 0..<24 { b[x, y] = x < 12 ? SIMD4(0, 0, 0, 1) : SIMD4(1, 1, 1, 1) } }
        let out = try renderPremultiplied(try Image(b).cannyEdges(), Rect(x: 0, y: 0, width: 24, height: 12))
        for y in 0..<12 {
            let white = (0..<24).filter { out[$0, y].x == 1 }
            XCTAssertEqual(white.count, 1, "one edge pixel in row \(y): \(white)")
            XCTAssertTrue(white.allSatisfy { $0 == 11 || $0 == 12 }, "\(white)")
        }
    }

    func testEdgeWorkThresholdsAgainstTheLocalMean() throws {
        // Pixels within 1e-4 of the threshold are skipped (float vs double mean).
        let g = gaussian(2) { self.at(self.opaque, $0, $1) }
        try check(try Image(opaque).edgeWork(radius: 2), tolerance: 0, "edgeWork") { x, y in
            let l = self.luma(self.at(self.opaque, x, y)), m = self.luma(g(x, y)) - 0.02
            if Swift.abs(l - m) < 1e-4 { return nil }
            let v: Double = l < m ? 0 : 1
            return SIMD4(v, v, v, 1)
        }
        try check(try Image(opaque).edgeWork(radius: 0), tolerance: 0, "edgeWork 0") { _, _ in SIMD4(1, 1, 1, 1) }
    }

    func highlightShadowRef(_ c: SIMD4<Double>, _ mean: SIMD4<Double>, _ s: Double, _ hl: Double) -> SIMD4<Double> {
        let l = c.w > 0 ? luma(c) / c.w : 0, m = mean.w > 0 ? luma(mean) / mean.w : 0
        let ws = max(0, 1 - 2 * m), wh = max(0, 2 * m - 1)
        let l1 = l + 2 * s * ws * ws * l * (1 - l)
        let l2 = l1 - 2 * (1 - hl) * wh * wh * l1 * (1 - l1)
        let f = l > 0 ? max(0, l2) / l : 1
        return SIMD4(c.x * f, c.y * f, c.z * f, c.w)
    }

    func testHighlightShadowAdjustMatchesTheFormula() throws {
        // Tolerance 2e-5: a few float operations and a division by alpha.
        for (radius, s, hl) in [(0.0, 0.6, 0.3), (0.0, -0.5, 1.0), (2.5, 0.8, 0.2), (4.0, 0.3, 0.7)] {
            let g = gaussian(radius) { self.at(self.src, $0, $1) }
            try check(
                try Image(src).highlightShadowAdjusted(radius: radius, shadowAmount: s, highlightAmount: hl),
                tolerance: 2e-5, "highlight/shadow \(radius) \(s) \(hl)"
            ) { x, y in
                self.highlightShadowRef(self.at(self.src, x, y), radius == 0 ? self.at(self.src, x, y) : g(x, y), s, hl)
            }
        }
    }

    func testHeightFieldFromMask() throws {
        // Tolerance 1e-5 (the blur sums in float).
        for radius in [0.0, 2.0, 5.0] {
            let g = gaussian(radius) { SIMD4(repeating: self.luma(self.at(self.src, $0, $1))) }
            try check(try Image(src).heightFieldFromMask(radius: radius), tolerance: 1e-5, "height field \(radius)") { x, y in
                let v = min(1, max(0, 2 * g(x, y).x - 1))
                return SIMD4(v, v, v, 1)
            }
        }
    }

    func testComicEffectIsInkTimesPosterized() throws {
        // Tolerance 1e-4 (the ink ramp multiplies float errors by 8); opaque so unpremultiplying is exact.
        try check(try Image(opaque).comicEffect(), tolerance: 1e-4, "comic") { x, y in
            let (gx, gy) = self.sobel({ SIMD4(repeating: self.luma(self.at(self.opaque, $0, $1))) }, x, y)
            let m = (gx.x * gx.x + gy.x * gy.x).squareRoot() / 8
            let ink = 1 - min(1, max(0, (m - 0.04) * 8))
            let c = self.at(self.opaque, x, y)
            let p = SIMD4(
                (c.x * 5 + 0.5).rounded(.down) / 5, (c.y * 5 + 0.5).rounded(.down) / 5, (c.z * 5 + 0.5).rounded(.down) / 5, 1)
            return SIMD4(p.x * ink, p.y * ink, p.z * ink, 1)
        }
    }

    func testLineOverlayIsBlackLinesOnTransparent() throws {
        // Tolerance 2e-3 on alpha (contrast 50 times float errors); pixels whose sigma-filter
        // decisions sit within 1e-5 of the noise level would be ambiguous and are not in this image.
        let (noise, sharp, ei, t, c) = (0.07, 0.71, 1.0, 0.1, 50.0)
        func l(_ x: Int, _ y: Int) -> Double { luma(at(opaque, x, y)) }
        func f(_ x: Int, _ y: Int) -> Double {
            let cv = l(x, y)
            var s = 0.0, n = 0.0
            for j in -1...1 { for i in -1...1 { let v = l(x + i, y + j); if Swift.abs(v - cv) <= noise { s += v; n += 1 } } }
            return s / n
        }
        func sh(_ x: Int, _ y: Int) -> Double {
            var s = 0.0
            for j in -1...1 { for i in -1...1 { s += f(x + i, y + j) } }
            return f(x, y) + sharp * (f(x, y) - s / 9)
        }
        try check(try Image(opaque).lineOverlay(), tolerance: 2e-3, "line overlay") { x, y in
            let (gx, gy) = self.sobel({ SIMD4(repeating: sh($0, $1)) }, x, y)
            let e = ei * (gx.x * gx.x + gy.x * gy.x).squareRoot() / 8
            return SIMD4(0, 0, 0, min(1, max(0, (e - t) * c)))
        }
        // A flat image has no lines.
        let flat = Image(color: Color(red: 0.3, green: 0.6, blue: 0.2)).cropped(to: bounds)
        try check(try flat.lineOverlay(), tolerance: 0, "flat") { _, _ in SIMD4(0, 0, 0, 0) }
    }

    func testSpotLightMatchesTheLightingFormula() throws {
        // Tolerance 1e-5 relative to values up to the brightness.
        let pos = [20.0, 5, 30], target = [10.0, 12, 0], b = 2.5, conc = 0.7
        try check(
            try Image(src).spotLight(position: pos, pointsAt: target, brightness: b, concentration: conc),
            tolerance: 3e-5, "spot light"
        ) { x, y in
            let p = SIMD3(Double(x) + 0.5, Double(y) + 0.5, 0)
            var L = SIMD3(pos[0], pos[1], pos[2]) - p
            L /= (L * L).sum().squareRoot()
            var S = SIMD3(target[0] - pos[0], target[1] - pos[1], target[2] - pos[2])
            S /= (S * S).sum().squareRoot()
            let f = b * max(0, L.z) * pow(max(0, -(L * S).sum()), conc)
            let c = self.at(self.src, x, y)
            return SIMD4(c.x * f, c.y * f, c.z * f, c.w)
        }
    }
}
