import XCTest
@testable import PixelFlow
@testable import PixelFlowKernels
@testable import PixelFlowGraph
@testable import PixelFlowEngine

/// Stylize filters (masks, cells, glow, spot color) against scalar references written from
/// the formulas in the filters' file headers, on stored values (`rawContext`). Tolerances:
/// 1e-5 for per-pixel arithmetic, exact for nearest-sampling cell filters, 1e-4 for
/// bloom/gloom (a float blur against a double reference).
final class StylizeTestsA: XCTestCase {
    static let w = 29, h = 17

    func opaque(_ seed: UInt64) -> PixelBuffer {
        TestImages.random(
            width: Self.w, height: Self.h, format: .rgbaF32, seed: seed, opaque: true,
            colorEncoding: .sRGB, alphaMode: .straight)
    }

    var bounds: Rect { Rect(x: 0, y: 0, width: Self.w, height: Self.h) }

    // MARK: Masks

    func testMaskBlendsMixByTheMaskChannel() throws {
        let fg = opaque(1), bg = opaque(2), mask = opaque(3)
        let cases: [(String, (SIMD4<Float>) -> Float)] = [
            ("CIBlendWithMask", { 0.2126 * $0.x + 0.7152 * $0.y + 0.0722 * $0.z }),
            ("CIBlendWithAlphaMask", { $0.w }), ("CIBlendWithRedMask", { $0.x }), ("CIBlendWithBlueMask", { $0.z }),
        ]
        // The mask covers only the left part: outside it the background shows.
        let maskRect = Rect(x: 0, y: 0, width: 20, height: Self.h)
        for (name, weight) in cases {
            let out = try renderRaw(
                try FilterRegistry.apply(
                    name,
                    [
                        "inputImage": .image(Image(fg)), "inputBackgroundImage": .image(Image(bg)),
                        "inputMaskImage": .image(Image(mask).cropped(to: maskRect)),
                    ]),
                rect: bounds)
            var worst: Float = 0
            for y in 0..<Self.h {
                for x in 0..<Self.w {
                    let m = x < 20 ? min(max(weight(mask[x, y]), 0), 1) : 0
                    let e = fg[x, y] * m + bg[x, y] * (1 - m)
                    worst = max(worst, abs(out[x, y] - e).max())
                }
            }
            XCTAssertLessThanOrEqual(worst, 1e-5, name)
        }
        // A mask of alpha 0.5 everywhere halves an opaque image over a transparent background.
        let half = Image(color: Color(red: 1, green: 1, blue: 1, alpha: 0.5))
        let out = try renderRaw(try Image(fg).blended(with: Image.empty, alphaMask: half), rect: bounds)
        XCTAssertEqual(out[3, 4].w, 0.5, accuracy: 1e-6)
        XCTAssertEqual(out[3, 4].x, fg[3, 4].x, accuracy: 1e-5)  // straight color unchanged
    }

    func testSampleNearestIsTheIdentity() throws {
        let src = opaque(4)
        XCTAssertEqual(maxDifference(try renderRaw(try Image(src).samplingNearest(), rect: bounds), src), 0)
    }

    // MARK: Cells

    /// The input pixel at `p`, transparent outside the input.
    func pixel(_ b: PixelBuffer, _ p: (Double, Double)) -> SIMD4<Float> {
        let x = Int(p.0.rounded(.down)), y = Int(p.1.rounded(.down))
        guard x >= 0, y >= 0, x < b.width, y < b.height else { return .zero }
        return b[x, y]
    }

    /// Renders over `rect` and compares with `expected(pixel center)` exactly; returns the
    /// number of pixels compared.
    func assertCells(
        _ image: Image, _ src: PixelBuffer, rect: Rect, _ name: String,
        _ expected: (Double, Double) -> (Double, Double)?
    ) throws {
        let out = try renderRaw(image, rect: rect)
        var bad = 0
        for y in 0..<out.height {
            for x in 0..<out.width {
                let cx = rect.x + Double(x) + 0.5, cy = rect.y + Double(y) + 0.5
                let e = expected(cx, cy).map { pixel(src, $0) } ?? .zero
                if out[x, y] != e { bad += 1 }
            }
        }
        XCTAssertEqual(bad, 0, "\(name): \(bad) pixels differ")
    }

    func testPixellateTakesTheCellCenter() throws {
        let src = opaque(5)
        let c = (2.0, 3.0), s = 5.0
        let image = try Image(src).pixellated(center: Point(x: c.0, y: c.1), scale: s)
        // Cells aligned on (2, 3): the extent grows to whole cells.
        XCTAssertEqual(image.extent, Rect(minX: -3, minY: -2, maxX: 32, maxY: 18))
        try assertCells(image, src, rect: image.extent, "pixellate") { x, y in
            (c.0 + ((x - c.0) / s).rounded(.down) * s + s / 2, c.1 + ((y - c.1) / s).rounded(.down) * s + s / 2)
        }
        // Scale 1 on an integral center gives back the image.
        XCTAssertEqual(
            maxDifference(try renderRaw(try Image(src).pixellated(center: Point(x: 0, y: 0), scale: 1), rect: bounds), src), 0)
    }

    func testHexagonalPixellateTakesTheNearestLatticePoint() throws {
        let src = opaque(6)
        let c = (0.3, 0.7), s = 6.3, hh = s * 3.0.squareRoot() / 2
        let image = try Image(src).hexagonallyPixellated(center: Point(x: c.0, y: c.1), scale: s)
        try assertCells(image, src, rect: bounds.insetBy(dx: -4, dy: -4), "hexagonal pixellate") { x, y in
            var best = (0.0, 0.0), bd = Double.infinity
            for j in -10...10 {
                for i in -12...12 {
                    let px = c.0 + Double(i) * s + Double(j) * s / 2, py = c.1 + Double(j) * hh
                    let d = (px - x) * (px - x) + (py - y) * (py - y)
                    if d < bd { bd = d; best = (px, py) }
                }
            }
            return best
        }
    }

    /// The nearest jittered seed to (x, y) by brute force over a wide block of cells.
    func nearestSeed(_ x: Double, _ y: Double, c: (Double, Double), spacing: Double) -> (Double, Double, Double) {
        var best = (0.0, 0.0, Double.infinity)
        let i0 = Int(((x - c.0) / spacing).rounded(.down)), j0 = Int(((y - c.1) / spacing).rounded(.down))
        for j in (j0 - 4)...(j0 + 4) {
            for i in (i0 - 4)...(i0 + 4) {
                let (u, v) = FilterDescriptor._cellJitter(i, j)
                let sx = c.0 + (Double(i) + u) * spacing, sy = c.1 + (Double(j) + v) * spacing
                let d = (sx - x) * (sx - x) + (sy - y) * (sy - y)
                if d < best.2 { best = (sx, sy, d) }
            }
        }
        return best
    }

    func testCrystallizeTakesTheNearestSeed() throws {
        let src = opaque(7)
        let c = (150.0, 150.0), r = 4.0
        let image = try Image(src).crystallized(center: Point(x: c.0, y: c.1), radius: r)
        try assertCells(image, src, rect: bounds.insetBy(dx: -6, dy: -6), "crystallize") { x, y in
            let s = nearestSeed(x, y, c: c, spacing: r)
            return (s.0, s.1)
        }
    }

    /// A center so far away that the cell index leaves Int's range (found by the filter-graph
    /// fuzzer: the conversion trapped) renders like any other: the cell index saturates.
    func testCellFiltersWithAFarCenterRenderWithoutTrapping() throws {
        let src = opaque(9)
        for far in [1e300, -1e300, 1e19, -1e19] {
            let images = [
                try Image(src).crystallized(center: Point(x: far, y: -far), radius: 1),
                try Image(src).pointillized(center: Point(x: -far, y: far), radius: 1),
                try Image(src).hexagonallyPixellated(center: Point(x: far, y: far), scale: 1),
            ]
            for image in images {
                let out = try RenderContext().makeBuffer(image, rect: Rect(x: 0, y: 0, width: 8, height: 8), format: .rgbaF32)
                XCTAssertEqual(out.width, 8, "center \(far)")
            }
        }
        XCTAssertEqual(FilterDescriptor._cellIndex(1e300), 1 << 52)
        XCTAssertEqual(FilterDescriptor._cellIndex(-1e300), -(1 << 52))
        XCTAssertEqual(FilterDescriptor._cellIndex(.nan), 0)
        XCTAssertEqual(FilterDescriptor._cellIndex(-2.5), -3)
    }

    func testPointillizeDrawsDiscsAtTheSeeds() throws {
        let src = opaque(8)
        let c = (1.0, 2.0), r = 3.0
        let image = try Image(src).pointillized(center: Point(x: c.0, y: c.1), radius: r)
        try assertCells(image, src, rect: bounds.insetBy(dx: -3, dy: -3), "pointillize") { x, y in
            let s = nearestSeed(x, y, c: c, spacing: 2 * r)
            return s.2 > r * r ? nil : (s.0, s.1)
        }
    }

    // MARK: Glow

    /// A Gaussian blur of the image clamped to its bounds, in doubles, with the library's taps.
    func blurred(_ b: PixelBuffer, sigma: Double) -> [[SIMD4<Double>]] {
        let taps = GaussianPlan.exactTaps(sigma: sigma).map(Double.init)
        let r = taps.count / 2
        func at(_ x: Int, _ y: Int) -> SIMD4<Double> {
            let p = b[min(max(x, 0), b.width - 1), min(max(y, 0), b.height - 1)]
            return SIMD4(Double(p.x), Double(p.y), Double(p.z), Double(p.w))
        }
        var out = [[SIMD4<Double>]](repeating: [SIMD4<Double>](repeating: .zero, count: b.width), count: b.height)
        for y in 0..<b.height {
            for x in 0..<b.width {
                var s = SIMD4<Double>.zero
                for dy in -r...r { for dx in -r...r { s += taps[dy + r] * taps[dx + r] * at(x + dx, y + dy) } }
                out[y][x] = s
            }
        }
        return out
    }

    func testBloomAndGloomCombineTheImageWithItsBlur() throws {
        let src = opaque(9)
        let sigma = 1.5, i = 0.7
        let blur = blurred(src, sigma: sigma)
        for (name, f) in [
            ("CIBloom", { (p: Double, b: Double) in p + i * b - p * i * b }),
            ("CIGloom", { (p: Double, b: Double) in p * (1 - i + i * b) }),
        ] {
            let out = try renderRaw(
                try FilterRegistry.apply(
                    name,
                    [
                        "inputImage": .image(Image(src)), "inputRadius": .number(sigma),
                        "inputIntensity": .number(i),
                    ]), rect: bounds)
            var worst = 0.0
            for y in 0..<Self.h {
                for x in 0..<Self.w {
                    let p = src[x, y], b = blur[y][x], o = out[x, y]
                    let e = [f(Double(p.x), b.x), f(Double(p.y), b.y), f(Double(p.z), b.z), 1]
                    for k in 0..<4 { worst = max(worst, Swift.abs(Double(o[k]) - e[k])) }
                }
            }
            XCTAssertLessThanOrEqual(worst, 1e-4, name)
        }
        XCTAssertEqual(maxDifference(try renderRaw(try Image(src).bloom(intensity: 0), rect: bounds), src), 0)
    }

    // MARK: Spot color

    func testSpotColorReplacesColorsNearTheCenters() throws {
        let src = opaque(10)
        let a = src[4, 5], b = src[20, 9]
        let centers = [
            Color(red: Double(a.x), green: Double(a.y), blue: Double(a.z)),
            Color(red: Double(b.x), green: Double(b.y), blue: Double(b.z)), Color(red: 0.5, green: 0.5, blue: 0.5),
        ]
        let repl = [Color(red: 1, green: 0, blue: 0), Color(red: 0, green: 1, blue: 0), Color(red: 0, green: 0, blue: 1)]
        let close = [0.3, 0.25, 0.2], contrast = [0.5, 1, 0]
        let out = try renderRaw(
            try Image(src).spotColored(
                centerColors: centers, replacementColors: repl,
                closeness: close, contrast: contrast), rect: bounds)
        var worst: Float = 0, replaced = 0
        for y in 0..<Self.h {
            for x in 0..<Self.w {
                let p = src[x, y]
                var o = p
                for k in 0..<3 {
                    let c = centers[k].simd,
                        d = ((p.x - c.x) * (p.x - c.x) + (p.y - c.y) * (p.y - c.y) + (p.z - c.z) * (p.z - c.z)).squareRoot()
                    let hi = Float(close[k]), lo = hi * Float(contrast[k])
                    let wgt: Float
                    if lo >= hi {
                        wgt = d < hi ? 1 : 0
                    } else {
                        let t = min(max((d - lo) / (hi - lo), 0), 1)
                        wgt = 1 - t * t * (3 - 2 * t)
                    }
                    if wgt > 0 { replaced += 1 }
                    let r = repl[k].simd
                    o = SIMD4(o.x + (r.x - o.x) * wgt, o.y + (r.y - o.y) * wgt, o.z + (r.z - o.z) * wgt, p.w)
                }
                worst = max(worst, abs(out[x, y] - o).max())
            }
        }
        XCTAssertLessThanOrEqual(worst, 1e-5)
        XCTAssertGreaterThan(replaced, 2, "the test reaches some replacements")
    }
}
