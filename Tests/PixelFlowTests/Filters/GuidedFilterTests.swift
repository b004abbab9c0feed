import Foundation
import XCTest
@testable import PixelFlow
@testable import PixelFlowKernels
@testable import PixelFlowGraph
@testable import PixelFlowEngine

/// CIGuidedFilter and CIEdgePreserveUpsampleFilter: against a scalar Double reference written
/// here (direct box sums, edges repeated) and against numpy values from the paper's algorithm
/// (Fixtures/Filters/guided.json, made by scripts/make_guided_filter_fixtures.py). Tolerance
/// 1e-4: Float running sums against Double, and a = cov / (var + eps) amplifies their error by
/// up to 1 / eps in flat regions.
final class GuidedFilterTests: XCTestCase {
    /// He et al.'s guided filter with a gray guide (Rec. 709 luma), direct box sums in Double,
    /// edge pixels repeated.
    static func reference(_ p: PixelBuffer, guide: PixelBuffer, radius r: Int, epsilon: Double) -> PixelBuffer {
        let w = p.width, h = p.height
        func clampX(_ x: Int) -> Int { min(max(x, 0), w - 1) }
        func clampY(_ y: Int) -> Int { min(max(y, 0), h - 1) }
        func luma(_ x: Int, _ y: Int) -> Double {
            let v = guide[clampX(x), clampY(y)]
            return 0.2126 * Double(v.x) + 0.7152 * Double(v.y) + 0.0722 * Double(v.z)
        }
        func pix(_ x: Int, _ y: Int) -> SIMD4<Double> {
            let v = p[clampX(x), clampY(y)]
            return SIMD4(Double(v.x), Double(v.y), Double(v.z), Double(v.w))
        }
        let n = Double((2 * r + 1) * (2 * r + 1))
        // a and b over the image grown by r (positions outside are read with edges repeated
        // through the box means, exactly as the filter reads a clamped image).
        let gw = w + 2 * r, gh = h + 2 * r
        var a = [SIMD4<Double>](repeating: .zero, count: gw * gh), b = a
        for j in 0..<gh {
            for i in 0..<gw {
                let x = i - r, y = j - r
                var mi = 0.0, mii = 0.0, mp = SIMD4<Double>.zero, mip = SIMD4<Double>.zero
                for dy in -r...r {
                    for dx in -r...r {
                        let l = luma(x + dx, y + dy), v = pix(x + dx, y + dy)
                        mi += l; mii += l * l; mp += v; mip += v * l
                    }
                }
                mi /= n; mii /= n; mp /= n; mip /= n
                let ak = (mip - mp * mi) / (mii - mi * mi + epsilon)
                a[j * gw + i] = ak
                b[j * gw + i] = mp - ak * mi
            }
        }
        var out = try! PixelBuffer(width: w, height: h, format: .rgbaF32)
        for y in 0..<h {
            for x in 0..<w {
                var ma = SIMD4<Double>.zero, mb = SIMD4<Double>.zero
                for dy in -r...r {
                    for dx in -r...r {
                        ma += a[(y + dy + r) * gw + x + dx + r]
                        mb += b[(y + dy + r) * gw + x + dx + r]
                    }
                }
                let q = ma / n * luma(x, y) + mb / n
                out[x, y] = SIMD4(Float(q.x), Float(q.y), Float(q.z), Float(q.w))
            }
        }
        return out
    }

    let p = WarpTestSupport.source(width: 31, height: 22, seed: 21)
    let guide = WarpTestSupport.source(width: 31, height: 22, seed: 22)

    func testMatchesTheScalarReference() throws {
        for (r, eps) in [(1, 0.01), (2, 1e-3), (11, 0.02)] {  // 11: the whole-region path
            let out = try Image(p).guidedFiltered(guide: Image(guide), radius: Double(r), epsilon: eps)
            XCTAssertEqual(out.extent, guide.bounds)
            let got = try renderPremultiplied(out)
            let want = Self.reference(p, guide: guide, radius: r, epsilon: eps)
            XCTAssertLessThanOrEqual(maxDifference(got, want), 1e-4, "radius \(r) eps \(eps)")
            try WarpTestSupport.assertScheduleIndependent(out, window: guide.bounds, "guided r\(r)")
        }
    }

    struct Fixture: Decodable {
        struct Case: Decodable { var radius: Int; var epsilon: Double; var pixels: [Float] }
        var width: Int, height: Int
        var input: [Float], guide: [Float]
        var cases: [Case]
    }

    func testMatchesTheNumpyFixture() throws {
        let url = URL(fileURLWithPath: packageRoot + "/Tests/PixelFlowTests/Fixtures/Filters/guided.json")
        let f = try JSONDecoder().decode(Fixture.self, from: Data(contentsOf: url))
        func buffer(_ v: [Float]) throws -> PixelBuffer {
            var b = try PixelBuffer(
                width: f.width, height: f.height, format: .rgbaF32, colorEncoding: .sRGB, alphaMode: .straight)
            for y in 0..<f.height {
                for x in 0..<f.width {
                    let i = 4 * (y * f.width + x)
                    b[x, y] = SIMD4(v[i], v[i + 1], v[i + 2], v[i + 3])
                }
            }
            return b
        }
        let input = try buffer(f.input), guide = try buffer(f.guide)
        XCTAssertEqual(f.cases.count, 3)
        for c in f.cases {
            let got = try renderPremultiplied(
                try Image(input).guidedFiltered(guide: Image(guide), radius: Double(c.radius), epsilon: c.epsilon))
            let want = try buffer(c.pixels)
            XCTAssertLessThanOrEqual(maxDifference(got, want), 1e-4, "radius \(c.radius) eps \(c.epsilon)")
        }
    }

    func testRadiusZeroGivesBackTheInput() throws {
        let input = Image(p)
        XCTAssertEqual(try input.guidedFiltered(guide: Image(guide), radius: 0), input)
    }

    func testAFlatGuideGivesTheBoxMean() throws {
        // var(I) = 0: a = 0, b = mean(p), q = mean(mean(p)): two box means of radius 2.
        let flat = Image(color: Color(red: 0.3, green: 0.3, blue: 0.3, alpha: 1)).cropped(to: p.bounds)
        let got = try renderPremultiplied(try Image(p).guidedFiltered(guide: flat, radius: 2, epsilon: 0.01))
        let box = try renderPremultiplied(
            try Image(p).clampedToExtent().boxBlurred(radius: 2).boxBlurred(radius: 2).cropped(to: p.bounds))
        XCTAssertLessThanOrEqual(maxDifference(got, box), 1e-5)
    }

    func testASmallerInputIsUpsampledOntoTheGuide() throws {
        let small = WarpTestSupport.source(width: 11, height: 8, seed: 23)
        let out = try Image(small).guidedFiltered(guide: Image(guide), radius: 2, epsilon: 0.01)
        XCTAssertEqual(out.extent, guide.bounds)
        // The same as upsampling first (bilinear, edges repeated) and filtering at equal size.
        let t = AffineTransform(a: 31.0 / 11, b: 0, c: 0, d: 22.0 / 8, tx: 0, ty: 0)
        let up = try renderPremultiplied(try Image(small).clampedToExtent().transformed(by: t).cropped(to: guide.bounds))
        let want = Self.reference(up, guide: guide, radius: 2, epsilon: 0.01)
        XCTAssertLessThanOrEqual(maxDifference(try renderPremultiplied(out), want), 1e-4)
    }

    func testEdgePreservingUpsampleIsTheGuidedFilterOfTheUpsampledImage() throws {
        let small = WarpTestSupport.source(width: 8, height: 6, seed: 24)
        // Factor max(31 / 8, 22 / 6) = 3.875: radius round(1.5 * 3.875) = 6; epsilon 0.2^2.
        let out = try Image(small).edgePreservingUpsampled(guide: Image(guide), spatialSigma: 1.5, lumaSigma: 0.2)
        let viaGuided = try Image(small).guidedFiltered(guide: Image(guide), radius: 6, epsilon: Double(Float(0.2 * 0.2)))
        XCTAssertEqual(maxDifference(try renderPremultiplied(out), try renderPremultiplied(viaGuided)), 0)
        // Spatial sigma 0: plain bilinear upsampling.
        let plain = try Image(small).edgePreservingUpsampled(guide: Image(guide), spatialSigma: 0)
        let t = AffineTransform(a: 31.0 / 8, b: 0, c: 0, d: 22.0 / 6, tx: 0, ty: 0)
        let bilinear = try Image(small).clampedToExtent().transformed(by: t).cropped(to: guide.bounds)
        XCTAssertEqual(maxDifference(try renderPremultiplied(plain), try renderPremultiplied(bilinear)), 0)
    }

    func testEdgePreservingUpsampleRecoversTheGuidesEdge() throws {
        // The small image is the guide averaged over 4x4 blocks, with the guide's step inside a
        // block: guided upsampling puts back a sharp step where the guide has it, which
        // bilinear upsampling smears. (It does not undo the smear farther out: windows on one
        // side of the edge fit a constant, the mean of the smeared input, so up to 2r pixels
        // keep part of it.)
        var large = try PixelBuffer(width: 32, height: 16, format: .rgbaF32, colorEncoding: .sRGB, alphaMode: .straight)
        for y in 0..<16 { for x in 0..<32 { large[x, y] = x < 15 ? SIMD4(0.1, 0.1, 0.1, 1) : SIMD4(0.9, 0.9, 0.9, 1) } }
        var small = try PixelBuffer(width: 8, height: 4, format: .rgbaF32, colorEncoding: .sRGB, alphaMode: .straight)
        for y in 0..<4 {
            for x in 0..<8 {
                var sum = SIMD4<Float>.zero
                for j in 0..<4 { for i in 0..<4 { sum += large[4 * x + i, 4 * y + j] } }
                small[x, y] = sum / 16
            }
        }
        let guided = try renderPremultiplied(
            try Image(small).edgePreservingUpsampled(guide: Image(large), spatialSigma: 1, lumaSigma: 0.05))
        let plain = try renderPremultiplied(try Image(small).edgePreservingUpsampled(guide: Image(large), spatialSigma: 0))
        // Bilinear upsampling spreads the step over 8 pixels (0.15 per pixel at most); the guided
        // result jumps where the guide does, between x = 14 and 15, in every row.
        for y in 0..<16 {
            let jumpGuided = guided[15, y].x - guided[14, y].x, jumpPlain = plain[15, y].x - plain[14, y].x
            XCTAssertGreaterThan(jumpGuided, 0.4, "row \(y)")
            XCTAssertLessThan(jumpPlain, 0.16, "row \(y)")
            for x in 1..<32 where x != 15 {
                XCTAssertLessThan(Swift.abs(guided[x, y].x - guided[x - 1, y].x), jumpGuided / 4, "row \(y), x \(x)")
            }
        }
    }

    func testAnInfiniteInputIsReadOverTheGuide() throws {
        // A constant image is its own box mean: a = 0, b = the color, whatever the guide.
        let color = Color(red: 0.25, green: 0.5, blue: 0.75, alpha: 1)
        let out = try Image(color: color).guidedFiltered(guide: Image(guide), radius: 3, epsilon: 0.01)
        XCTAssertEqual(out.extent, guide.bounds)
        let got = try renderPremultiplied(out)
        for y in 0..<got.height {
            for x in 0..<got.width { XCTAssertLessThanOrEqual(abs(got[x, y] - SIMD4(0.25, 0.5, 0.75, 1)).max(), 1e-5) }
        }
    }

    func testAGuideWithAnInfiniteExtentThrows() {
        XCTAssertThrowsError(try Image(p).guidedFiltered(guide: Image(color: .white))) { error in
            guard case let PixelFlowError.invalidParameter(_, key, _) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(key, "inputGuideImage")
        }
    }
}
