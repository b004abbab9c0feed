import XCTest
@testable import PixelFlow
@testable import PixelFlowKernels
@testable import PixelFlowGraph
@testable import PixelFlowEngine

/// Reductions against plain loops over the same pixels (stored values, premultiplied).
final class ReductionTests: XCTestCase {
    let w = 37, h = 23
    lazy var buffer = TestImages.random(
        width: w, height: h, format: .rgbaF32, seed: 31, colorEncoding: .sRGB, alphaMode: .premultiplied)
    lazy var image = Image(buffer)
    let ctx = RenderContext(colorManagement: .none)

    func extent(_ x: Double, _ y: Double, _ w: Double, _ h: Double) -> FilterValue { .vector([x, y, w, h]) }
    func reduce(_ name: String, _ values: [String: FilterValue?]) throws -> [SIMD4<Float>] {
        var v = values
        if v["inputImage"] == nil { v["inputImage"] = .image(image) }
        return try ctx.values(of: try FilterRegistry.apply(name, v))
    }
    func pixel(_ x: Int, _ y: Int) -> SIMD4<Float> {
        x >= 0 && y >= 0 && x < w && y < h ? buffer[x, y] : .zero
    }
    func assertClose(
        _ a: SIMD4<Float>, _ b: SIMD4<Double>, _ tol: Double = 1e-6, file: StaticString = #filePath, line: UInt = #line
    ) {
        for c in 0..<4 { XCTAssertEqual(Double(a[c]), b[c], accuracy: tol, file: file, line: line) }
    }

    func testAreaAverageIncludingOutsideTheExtent() throws {
        for (x0, y0, ww, hh) in [(0, 0, 37, 23), (5, 3, 10, 7), (30, 20, 20, 10)] {
            let v = try reduce("CIAreaAverage", ["inputExtent": extent(Double(x0), Double(y0), Double(ww), Double(hh))])
            XCTAssertEqual(v.count, 1)
            var acc = SIMD4<Double>.zero
            for y in y0..<(y0 + hh) {
                for x in x0..<(x0 + ww) { let p = pixel(x, y); acc += SIMD4(Double(p.x), Double(p.y), Double(p.z), Double(p.w)) }
            }
            assertClose(v[0], acc / Double(ww * hh))
        }
    }

    func testExtremes() throws {
        let e = extent(2, 2, 20, 15)
        let maxV = try reduce("CIAreaMaximum", ["inputExtent": e])[0]
        let minV = try reduce("CIAreaMinimum", ["inputExtent": e])[0]
        let both = try reduce("CIAreaMinMax", ["inputExtent": e])
        let red = try reduce("CIAreaMinMaxRed", ["inputExtent": e])[0]
        var lo = SIMD4<Float>(repeating: .infinity), hi = SIMD4<Float>(repeating: -.infinity)
        for y in 2..<17 { for x in 2..<22 { lo = pointwiseMin(lo, buffer[x, y]); hi = pointwiseMax(hi, buffer[x, y]) } }
        XCTAssertEqual(maxV, hi)
        XCTAssertEqual(minV, lo)
        XCTAssertEqual(both, [lo, hi])
        XCTAssertEqual(red, SIMD4(lo.x, hi.x, 0, 1))
    }

    func testAlphaExtremesTakeTheFirstPixelOnTies() throws {
        var b = try PixelBuffer(width: 6, height: 4, format: .rgbaF32, colorEncoding: .sRGB, alphaMode: .premultiplied)
        b[4, 1] = SIMD4(0.1, 0.2, 0.3, 0.9)
        b[1, 3] = SIMD4(0.3, 0.2, 0.1, 0.9)  // same alpha, later in scan order
        b[2, 2] = SIMD4(0, 0, 0.01, 0.01)
        let img = Image(b)
        let maxA = try ctx.values(
            of: try FilterRegistry.apply("CIAreaMaximumAlpha", ["inputImage": .image(img), "inputExtent": extent(0, 0, 6, 4)]))
        XCTAssertEqual(maxA, [SIMD4(0.1, 0.2, 0.3, 0.9)])
        let minA = try ctx.values(
            of: try FilterRegistry.apply("CIAreaMinimumAlpha", ["inputImage": .image(img), "inputExtent": extent(0, 0, 6, 4)]))
        XCTAssertEqual(minA, [.zero])  // (0, 0) is transparent and first
    }

    func testBoundsRed() throws {
        var b = try PixelBuffer(width: 10, height: 8, format: .rgbaF32, colorEncoding: .sRGB, alphaMode: .premultiplied)
        b[3, 2] = SIMD4(1, 0, 0, 1); b[6, 5] = SIMD4(0.5, 0, 0, 1)
        let v = try ctx.values(
            of: try FilterRegistry.apply("CIAreaBoundsRed", ["inputImage": .image(Image(b)), "inputExtent": extent(0, 0, 10, 8)]))
        assertClose(v[0], SIMD4(0.3, 2.0 / 8, 0.4, 4.0 / 8))
        let none = try ctx.values(
            of: try FilterRegistry.apply(
                "CIAreaBoundsRed",
                [
                    "inputImage": .image(Image(try PixelBuffer(width: 3, height: 3, format: .rgba8))),
                    "inputExtent": extent(0, 0, 3, 3),
                ]))
        XCTAssertEqual(none, [.zero])
    }

    func testHistograms() throws {
        let v = try reduce(
            "CIAreaHistogram", ["inputExtent": extent(0, 0, 37, 23), "inputCount": .number(10), "inputScale": .number(2)])
        XCTAssertEqual(v.count, 10)
        var counts = [SIMD4<Double>](repeating: .zero, count: 10)
        for y in 0..<h {
            for x in 0..<w { let p = buffer[x, y]; for c in 0..<4 { counts[min(9, max(0, Int(p[c] * 10)))][c] += 1 } }
        }
        for i in 0..<10 { assertClose(v[i], counts[i] * 2 / Double(w * h)) }
        // Every channel's bins sum to the scale.
        XCTAssertEqual(Double(v.reduce(SIMD4<Float>.zero, +).x), 2, accuracy: 1e-5)

        let logH = try reduce(
            "CIAreaLogarithmicHistogram",
            [
                "inputExtent": extent(0, 0, 37, 23), "inputCount": .number(8),
                "inputMinimumStop": .number(-8), "inputMaximumStop": .number(0),
            ])
        var lc = [SIMD4<Double>](repeating: .zero, count: 8)
        for y in 0..<h {
            for x in 0..<w {
                let p = buffer[x, y];
                for c in 0..<4 {
                    let f = p[c] > 0 ? (log2(Double(p[c])) + 8) / 8 : 0
                    lc[f > 0 ? min(7, Int(f * 8)) : 0][c] += 1
                }
            }
        }
        for i in 0..<8 { assertClose(logH[i], lc[i] / Double(w * h), 1e-5) }

        let aw = try reduce("CIAreaAlphaWeightedHistogram", ["inputExtent": extent(0, 0, 37, 23), "inputCount": .number(4)])
        var ac = [SIMD4<Double>](repeating: .zero, count: 4)
        for y in 0..<h {
            for x in 0..<w {
                let p = buffer[x, y]; let u = p.w > 0 ? SIMD4(p.x / p.w, p.y / p.w, p.z / p.w, p.w) : SIMD4<Float>.zero
                for c in 0..<4 { ac[u[c] > 0 ? min(3, Int(u[c] * 4)) : 0][c] += Double(p.w) }
            }
        }
        for i in 0..<4 { assertClose(aw[i], ac[i] / Double(w * h), 1e-5) }
    }

    func testColumnAndRowAverages() throws {
        let cols = try reduce("CIColumnAverage", ["inputExtent": extent(3, 2, 9, 11)])
        XCTAssertEqual(cols.count, 9)
        let rows = try reduce("CIRowAverage", ["inputExtent": extent(3, 2, 9, 11)])
        XCTAssertEqual(rows.count, 11)
        var c0 = SIMD4<Double>.zero, r0 = SIMD4<Double>.zero
        for y in 2..<13 { let p = buffer[3, y]; c0 += SIMD4(Double(p.x), Double(p.y), Double(p.z), Double(p.w)) }
        for x in 3..<12 { let p = buffer[x, 2]; r0 += SIMD4(Double(p.x), Double(p.y), Double(p.z), Double(p.w)) }
        assertClose(cols[0], c0 / 11)
        assertClose(rows[0], r0 / 9)
    }

    func testHistogramDisplayDrawsBars() throws {
        var hb = try PixelBuffer(width: 3, height: 1, format: .rgbaF32, colorEncoding: .sRGB, alphaMode: .premultiplied)
        hb[0, 0] = SIMD4(1, 0.5, 0, 1); hb[1, 0] = SIMD4(0, 0, 0.25, 1); hb[2, 0] = SIMD4(0.1, 0.1, 0.1, 1)
        let chart = try FilterRegistry.apply(
            "CIHistogramDisplayFilter", ["inputImage": .image(Image(hb)), "inputHeight": .number(8)])
        XCTAssertEqual(chart.extent, Rect(x: 0, y: 0, width: 3, height: 8))
        let v = try ctx.values(of: chart)
        XCTAssertEqual(v[0 * 3 + 0], SIMD4(1, 0, 0, 1))  // top row, column 0: only red reaches
        XCTAssertEqual(v[7 * 3 + 0], SIMD4(1, 1, 0, 1))  // bottom row: red and green
        XCTAssertEqual(v[7 * 3 + 1], SIMD4(0, 0, 1, 1))  // blue 0.25 -> 2 rows
        XCTAssertEqual(v[5 * 3 + 1], SIMD4(0, 0, 0, 1))
        XCTAssertThrowsError(try FilterRegistry.apply("CIHistogramDisplayFilter", ["inputImage": .image(Image(color: .red))]))
    }

    /// Three flat colors in known proportions: k-means with 3 clusters finds them.
    func testKMeansFindsFlatColors() throws {
        var b = try PixelBuffer(width: 30, height: 10, format: .rgbaF32, colorEncoding: .sRGB, alphaMode: .premultiplied)
        let colors: [SIMD4<Float>] = [SIMD4(0.9, 0.1, 0.1, 1), SIMD4(0.1, 0.8, 0.2, 1), SIMD4(0.2, 0.2, 0.9, 1)]
        for y in 0..<10 { for x in 0..<30 { b[x, y] = colors[x < 15 ? 0 : (x < 24 ? 1 : 2)] } }
        let v = try ctx.values(of: try Image(b).kMeans(in: Rect(x: 0, y: 0, width: 30, height: 10), count: 3, passes: 5))
        XCTAssertEqual(v.count, 3)
        let found = v.map { SIMD4($0.x / $0.w, $0.y / $0.w, $0.z / $0.w, $0.w) }.sorted { $0.w > $1.w }
        XCTAssertEqual(found[0].w, 0.5, accuracy: 1e-6)
        XCTAssertEqual(found[1].w, 0.3, accuracy: 1e-6)
        XCTAssertEqual(found[2].w, 0.2, accuracy: 1e-6)
        for (f, c) in zip(found, colors) { XCTAssertLessThan(abs(SIMD4(f.x, f.y, f.z, 1) - c).max(), 1e-5) }
    }

    func testPaletteCentroid() throws {
        var b = try PixelBuffer(width: 4, height: 2, format: .rgbaF32, colorEncoding: .sRGB, alphaMode: .premultiplied)
        for x in 0..<4 { b[x, 0] = SIMD4(0.8, 0.1, 0.1, 1); b[x, 1] = SIMD4(0.1, 0.1, 0.7 + Float(x) * 0.05, 1) }
        var p = try PixelBuffer(width: 3, height: 1, format: .rgbaF32, colorEncoding: .sRGB, alphaMode: .premultiplied)
        p[0, 0] = SIMD4(1, 0, 0, 1); p[1, 0] = SIMD4(0, 0, 1, 1); p[2, 0] = SIMD4(0, 1, 0, 1)
        let v = try ctx.values(
            of: try FilterRegistry.apply(
                "CIPaletteCentroid", ["inputImage": .image(Image(b)), "inputPaletteImage": .image(Image(p))]))
        XCTAssertLessThan(abs(v[0] - SIMD4(0.8, 0.1, 0.1, 1)).max(), 1e-6)
        XCTAssertLessThan(abs(v[1] - SIMD4(0.1, 0.1, 0.775, 1)).max(), 1e-6)
        XCTAssertEqual(v[2], SIMD4(0, 1, 0, 1))  // no pixel closest: kept
    }

    func testOtsuSeparatesTwoModes() throws {
        XCTAssertEqual(FilterDescriptor.otsuThreshold([0, 10, 10, 0, 0, 0, 10, 10]), 3.0 / 8, accuracy: 1e-12)
        var b = try PixelBuffer(width: 20, height: 10, format: .rgbaF32, colorEncoding: .sRGB, alphaMode: .straight)
        for y in 0..<10 { for x in 0..<20 { b[x, y] = x < 12 ? SIMD4(0.2, 0.2, 0.2, 1) : SIMD4(0.7, 0.75, 0.8, 1) } }
        let out = try renderRaw(try Image(b).colorThresholdOtsu())
        XCTAssertEqual(out[3, 3], SIMD4(0, 0, 0, 1))
        XCTAssertEqual(out[15, 3], SIMD4(1, 1, 1, 1))
    }

    func testBadExtentsThrow() {
        XCTAssertThrowsError(try reduce("CIAreaAverage", ["inputExtent": extent(0, 0, 0, 5)]))
        XCTAssertThrowsError(try reduce("CIAreaAverage", ["inputExtent": extent(0, 0, 1e6, 1e6)])) { e in
            guard case PixelFlowError.limitExceeded = e else { return XCTFail("\(e)") }
        }
        XCTAssertThrowsError(try reduce("CIAreaAverage", ["inputExtent": extent(0, 0, .nan, 5)]))
        XCTAssertThrowsError(try FilterRegistry.apply("CIColorThresholdOtsu", ["inputImage": .image(Image(color: .red))]))
    }

    func testReductionIsAStageAndDeterministic() throws {
        let avg = try image.gaussianBlurred(radius: 1).areaAverage(in: Rect(x: 1, y: 1, width: 30, height: 20))
        let plan = RenderPlan(root: avg.node, rect: IntRect(x: 0, y: 0, width: 1, height: 1), options: .init())
        XCTAssertTrue(plan.explain().contains("reduction"), plan.explain())
        let a = try RenderContext(threadCount: 1, tileWidth: 7, tileHeight: 5).values(of: avg)
        let b = try RenderContext(threadCount: 3, tileWidth: 64, tileHeight: 64).values(of: avg)
        XCTAssertEqual(a, b)
    }
}
