import Foundation
import XCTest
@testable import PixelFlow
@testable import PixelFlowKernels
@testable import PixelFlowGraph
@testable import PixelFlowEngine

/// Morphology against plain loops (transparent outside the image) and against OpenCV fixtures
/// (scripts/make_blur_fixtures.py), and the median and box blur against OpenCV too.
final class MorphologyTests: XCTestCase {
    let w = 37, h = 26
    lazy var src = premultipliedRandom(w, h, seed: 91)
    var bounds: Rect { Rect(x: 0, y: 0, width: w, height: h) }
    var grown: Rect { bounds.insetBy(dx: -4, dy: -4) }

    func extremum(_ maximum: Bool, _ x: Int, _ y: Int, _ inside: (Int, Int) -> Bool, _ r: Int) -> SIMD4<Float> {
        var m = SIMD4<Float>(repeating: maximum ? -.infinity : .infinity)
        for j in -r...r {
            for i in -r...r where inside(i, j) {
                let v = pixelOrClear(src, x + i, y + j)
                m = maximum ? pointwiseMax(m, v) : pointwiseMin(m, v)
            }
        }
        return m
    }

    func testDiscMorphologyMatchesALoop() throws {
        // 2.5: direct rows only; 6 and 9.5: van Herk rows (widths above 7).
        for r in [2.5, 6, 9.5] {
            let R = Int(r)
            let inDisc = { (i: Int, j: Int) in Double(i * i + j * j) <= r * r }
            let mx = try renderPremultiplied(try Image(src).morphologyMaximum(radius: r), grown)
            assertMatches(mx, rect: grown, tolerance: 0, "max r\(r)") { extremum(true, $0, $1, inDisc, R) }
            let mn = try renderPremultiplied(try Image(src).morphologyMinimum(radius: r), grown)
            assertMatches(mn, rect: grown, tolerance: 0, "min r\(r)") { extremum(false, $0, $1, inDisc, R) }
            let g = try renderPremultiplied(try Image(src).morphologyGradient(radius: r), grown)
            assertMatches(g, rect: grown, tolerance: 0, "gradient r\(r)") {
                extremum(true, $0, $1, inDisc, R) - extremum(false, $0, $1, inDisc, R)
            }
        }
    }

    func testRectangleMorphologyMatchesALoop() throws {
        // Direct (5x3), van Herk across (15x1), down (3x13), both (11x9), and a whole-region size.
        for (rw, rh) in [(5, 3), (15, 1), (3, 13), (11, 9), (4, 6), (67, 3)] {
            let sw = FilterDescriptor.oddSide(Double(rw)), sh = FilterDescriptor.oddSide(Double(rh))
            for maximum in [true, false] {
                let img =
                    maximum
                    ? try Image(src).morphologyRectangleMaximum(width: Double(rw), height: Double(rh))
                    : try Image(src).morphologyRectangleMinimum(width: Double(rw), height: Double(rh))
                let out = try renderPremultiplied(img, grown)
                assertMatches(out, rect: grown, tolerance: 0, "\(maximum ? "max" : "min") \(rw)x\(rh)") { x, y in
                    extremum(maximum, x, y, { i, j in abs(i) <= sw / 2 && abs(j) <= sh / 2 }, max(sw, sh) / 2)
                }
                try assertScheduleIndependent(img, full: grown, sub: Rect(x: 3, y: 5, width: 25, height: 15), "rect \(rw)x\(rh)")
            }
        }
    }

    // MARK: OpenCV fixtures

    struct Fixture: Decodable {
        struct Case: Decodable {
            var name: String, kind: String
            var radius: Int?, width: Int?, height: Int?
            var output: [Double]
        }
        var width: Int, height: Int, input: [Int], cases: [Case]
    }

    func testAgainstOpenCV() throws {
        let url = URL(fileURLWithPath: packageRoot + "/Tests/PixelFlowTests/Fixtures/Blur/opencv.json")
        let f = try JSONDecoder().decode(Fixture.self, from: Data(contentsOf: url))
        var input = try PixelBuffer(
            width: f.width, height: f.height, format: .rgba8, colorEncoding: .sRGB, alphaMode: .premultiplied)
        for y in 0..<f.height {
            for x in 0..<f.width {
                let i = (y * f.width + x) * 4
                input[x, y] = SIMD4(Float(f.input[i]), Float(f.input[i + 1]), Float(f.input[i + 2]), Float(f.input[i + 3])) / 255
            }
        }
        let rect = Rect(x: 0, y: 0, width: f.width, height: f.height)
        let clamped = Image(input).clampedToExtent()
        XCTAssertEqual(f.cases.count, 14)
        for c in f.cases {
            let filtered: Image
            switch c.kind {
            case "median": filtered = try clamped.median(radius: c.radius!)
            case "dilate": filtered = try clamped.morphologyRectangleMaximum(width: Double(c.width!), height: Double(c.height!))
            case "erode": filtered = try clamped.morphologyRectangleMinimum(width: Double(c.width!), height: Double(c.height!))
            default: filtered = try clamped.boxBlurred(radius: Double(c.radius!))
            }
            let image = filtered.cropped(to: rect)
            if c.kind == "box" {
                let out = try renderPremultiplied(image, rect)
                assertMatches(out, rect: rect, tolerance: 1e-5, c.name) { x, y in
                    let i = (y * f.width + x) * 4
                    return SIMD4(Float(c.output[i]), Float(c.output[i + 1]), Float(c.output[i + 2]), Float(c.output[i + 3]))
                }
            } else {
                // 8-bit in and out, color management off: must match exactly.
                let out = try RenderContext(threadCount: 2, tileWidth: 8, tileHeight: 8, colorManagement: .none)
                    .makeBuffer(image, rect: rect, format: .rgba8, colorEncoding: .sRGB, alphaMode: .premultiplied)
                var mismatches = 0
                for y in 0..<f.height {
                    for x in 0..<f.width {
                        let i = (y * f.width + x) * 4
                        let got = out[x, y] * 255
                        for k in 0..<4 where Int(got[k].rounded()) != Int(c.output[i + k]) { mismatches += 1 }
                    }
                }
                XCTAssertEqual(mismatches, 0, "\(c.name): \(mismatches) channel values differ from OpenCV")
            }
        }
    }
}
