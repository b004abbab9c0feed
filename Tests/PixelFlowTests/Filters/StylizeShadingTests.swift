import Foundation
import XCTest
@testable import PixelFlow
@testable import PixelFlowKernels
@testable import PixelFlowGraph
@testable import PixelFlowEngine

/// CIGaborGradients, CIDepthOfField and CIShadedMaterial against scalar references written
/// here, on stored values of opaque images (so premultiplied equals straight).
final class StylizeShadingTests: XCTestCase {
    let buffer = WarpTestSupport.source(width: 37, height: 26, seed: 41)
    lazy var image = Image(buffer)

    func pixel(_ b: PixelBuffer, _ x: Int, _ y: Int) -> SIMD4<Float> {
        b[min(max(x, 0), b.width - 1), min(max(y, 0), b.height - 1)]
    }

    // MARK: Gabor gradients

    /// The odd Gabor kernel from its formula, in Double, normalized to slope 1.
    static func gaborWeights() -> [[Double]] {
        var w = [[Double]](repeating: [Double](repeating: 0, count: 5), count: 5)
        var slope = 0.0
        for j in 0..<5 {
            for i in 0..<5 {
                let dx = Double(i - 2), dy = Double(j - 2)
                w[j][i] = exp(-(dx * dx + dy * dy) / (2 * 1.25 * 1.25)) * sin(2 * Double.pi * dx / 6)
                slope += w[j][i] * dx
            }
        }
        return w.map { $0.map { $0 / slope } }
    }

    func testGaborGradientsMatchTheScalarReference() throws {
        let w = Self.gaborWeights()
        let got = try renderPremultiplied(try image.gaborGradients())
        var worst: Float = 0
        for y in 0..<buffer.height {
            for x in 0..<buffer.width {
                var gx = [0.0, 0.0, 0.0], gy = [0.0, 0.0, 0.0]
                for j in 0..<5 {
                    for i in 0..<5 {
                        let v = pixel(buffer, x + i - 2, y + j - 2)
                        let c = [Double(v.x), Double(v.y), Double(v.z)]
                        for k in 0..<3 {
                            gx[k] += w[j][i] * c[k]
                            gy[k] += w[i][j] * c[k]
                        }
                    }
                }
                let rx = gx.max { Swift.abs($0) < Swift.abs($1) }!, ry = gy.max { Swift.abs($0) < Swift.abs($1) }!
                let want = SIMD4(Float(rx), Float(ry), Float((rx * rx + ry * ry).squareRoot()), 1)
                worst = max(worst, abs(got[x, y] - want).max())
            }
        }
        XCTAssertLessThanOrEqual(worst, 2e-5)
        try WarpTestSupport.assertScheduleIndependent(try image.gaborGradients(), window: buffer.bounds, "gabor")
    }

    func testGaborGradientsOfARampAreItsSlope() throws {
        var ramp = try PixelBuffer(width: 20, height: 12, format: .rgbaF32, colorEncoding: .sRGB, alphaMode: .straight)
        for y in 0..<12 { for x in 0..<20 { ramp[x, y] = SIMD4(0.02 * Float(x), 0.01 * Float(x), 0.03 * Float(y), 1) } }
        let got = try renderPremultiplied(try Image(ramp).gaborGradients())
        // Away from the edges: largest x response is red's 0.02, largest y response blue's 0.03.
        XCTAssertEqual(got[10, 6].x, 0.02, accuracy: 1e-6)
        XCTAssertEqual(got[10, 6].y, 0.03, accuracy: 1e-6)
        XCTAssertEqual(got[10, 6].z, (0.02 * 0.02 + 0.03 * 0.03).squareRoot(), accuracy: 1e-6)
    }

    // MARK: Depth of field

    func testDepthOfFieldMixesSharpAndBlurredByTheBand() throws {
        let p0 = Point(x: 0, y: 12), p1 = Point(x: 24, y: 14)
        let out = try image.depthOfField(
            point0: p0, point1: p1, saturation: 1.3, unsharpMaskRadius: 1.5,
            unsharpMaskIntensity: 0.8, radius: 3)
        let base = try image.colorControls(saturation: 1.3)
        let sharp = try renderPremultiplied(try base.unsharpMasked(radius: 1.5, intensity: 0.8), rect: buffer.bounds)
        let blurred = try renderPremultiplied(try base.clampedToExtent().gaussianBlurred(radius: 3).cropped(to: buffer.bounds))
        let got = try renderPremultiplied(out, rect: buffer.bounds)
        let length = (24.0 * 24 + 2 * 2).squareRoot(), h = length / 4
        var worst: Float = 0, sharpSeen = 0, blurredSeen = 0
        for y in 0..<buffer.height {
            for x in 0..<buffer.width {
                let px = Double(x) + 0.5, py = Double(y) + 0.5
                let d = Swift.abs((px - p0.x) * 2 - (py - p0.y) * 24) / length
                let t = min(max((d - h) / h, 0), 1)
                let wgt = Float(1 - t * t * (3 - 2 * t))
                if wgt == 1 { sharpSeen += 1 }
                if wgt == 0 { blurredSeen += 1 }
                let want = sharp[x, y] * wgt + blurred[x, y] * (1 - wgt)
                worst = max(worst, abs(got[x, y] - want).max())
            }
        }
        XCTAssertGreaterThan(sharpSeen, 0)
        XCTAssertGreaterThan(blurredSeen, 0)
        XCTAssertLessThanOrEqual(worst, 1e-5)
        try WarpTestSupport.assertScheduleIndependent(out, window: buffer.bounds, "depth of field")
    }

    // MARK: Shaded material

    func shadingReference(height: PixelBuffer, shading: PixelBuffer, scale: Double) -> PixelBuffer {
        var out = try! PixelBuffer(width: height.width, height: height.height, format: .rgbaF32)
        func h(_ x: Int, _ y: Int) -> Double {
            let v = pixel(height, x, y)
            return 0.2126 * Double(v.x) + 0.7152 * Double(v.y) + 0.0722 * Double(v.z)
        }
        let cx = Double(shading.width) / 2, cy = Double(shading.height) / 2
        let radius = Double(min(shading.width, shading.height)) / 2 - 0.5
        for y in 0..<height.height {
            for x in 0..<height.width {
                let gx = scale * (h(x + 1, y) - h(x - 1, y)) / 2, gy = scale * (h(x, y + 1) - h(x, y - 1)) / 2
                let len = (gx * gx + gy * gy + 1).squareRoot()
                out[x, y] = WarpTestSupport.bilinear(shading, cx - radius * gx / len, cy - radius * gy / len) * height[x, y].w
            }
        }
        return out
    }

    func testShadedMaterialMatchesTheScalarReference() throws {
        let shading = WarpTestSupport.source(width: 21, height: 15, seed: 42)
        for scale in [0.0, 3.0, 40.0] {
            let out = try image.shadedMaterial(shading: Image(shading), scale: scale)
            XCTAssertEqual(out.extent, buffer.bounds)
            let got = try renderPremultiplied(out)
            // Float gradients against Double; bilinear weights from Float positions.
            XCTAssertLessThanOrEqual(
                maxDifference(got, shadingReference(height: buffer, shading: shading, scale: scale)), 1e-4,
                "scale \(scale)")
            try WarpTestSupport.assertScheduleIndependent(out, window: buffer.bounds, "shaded material \(scale)")
        }
    }

    func testAFlatHeightFieldShowsTheSpheresCenter() throws {
        var sphere = try PixelBuffer(width: 9, height: 9, format: .rgbaF32, colorEncoding: .sRGB, alphaMode: .straight)
        for y in 0..<9 { for x in 0..<9 { sphere[x, y] = SIMD4(Float(x) / 8, Float(y) / 8, 0.5, 1) } }
        let flat = Image(color: Color(red: 0.4, green: 0.4, blue: 0.4, alpha: 1)).cropped(
            to: Rect(x: 0, y: 0, width: 5, height: 4))
        let got = try renderPremultiplied(try flat.shadedMaterial(shading: Image(sphere), scale: 50))
        XCTAssertLessThanOrEqual(abs(got[2, 2] - SIMD4(0.5, 0.5, 0.5, 1)).max(), 1e-6)
    }

    /// Found by the filter-graph fuzzer: infinite heights on both sides of a pixel make its
    /// gradient NaN, and sampling the shading image at a NaN position trapped converting it to
    /// an Int. Such a position is outside the shading image: the pixel is transparent.
    func testNaNGradientGivesTransparentNotATrap() throws {
        var heights = try PixelBuffer(width: 5, height: 3, format: .rgbaF32, alphaMode: .premultiplied)
        for y in 0..<3 { for x in 0..<5 { heights[x, y] = SIMD4(0.5, 0.5, 0.5, 1) } }
        heights[1, 1] = SIMD4(.infinity, .infinity, .infinity, 1)
        heights[3, 1] = SIMD4(.infinity, .infinity, .infinity, 1)
        let shading = WarpTestSupport.source(width: 9, height: 9, seed: 7)
        let got = try renderPremultiplied(try Image(heights).shadedMaterial(shading: Image(shading), scale: 3))
        XCTAssertEqual(got[2, 1], .zero)
        XCTAssertNotEqual(got[0, 0], .zero)
    }

    func testShadingImageMustBeFinite() {
        XCTAssertThrowsError(try image.shadedMaterial(shading: Image(color: .white))) { error in
            guard case let PixelFlowError.invalidParameter(_, key, _) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(key, "inputShadingImage")
        }
    }
}
