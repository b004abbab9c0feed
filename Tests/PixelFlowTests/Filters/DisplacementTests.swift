import XCTest
@testable import PixelFlow
@testable import PixelFlowKernels
@testable import PixelFlowGraph
@testable import PixelFlowEngine

/// CIDisplacementDistortion and CIGlassDistortion against scalar references written here
/// (Double positions, bilinear sampling with pixel centers at half integers, transparent
/// outside). Tolerance 2e-5: the kernel rounds the shift to Float before adding it.
/// Renders premultiplied stored values (the warps' references sample premultiplied pixels,
/// and semi-transparent edge pixels must not be unpremultiplied before comparing).
func renderPremultiplied(_ image: Image, rect: Rect? = nil) throws -> PixelBuffer {
    try rawContext.makeBuffer(image, rect: rect, format: .rgbaF32, colorEncoding: .sRGB, alphaMode: .premultiplied)
}

final class DisplacementTests: XCTestCase {
    let buffer = WarpTestSupport.source(width: 40, height: 30, seed: 7)
    let mapBuffer = WarpTestSupport.source(width: 40, height: 30, seed: 8)
    lazy var image = Image(buffer)

    static func clampUnit(_ v: Float) -> Double { Double(v > 0 ? (v < 1 ? v : 1) : 0) }

    func displacementReference(map: PixelBuffer, scale: Double, rect: Rect) -> PixelBuffer {
        var out = try! PixelBuffer(width: Int(rect.width), height: Int(rect.height), format: .rgbaF32)
        for j in 0..<out.height {
            for i in 0..<out.width {
                let x = Int(rect.x) + i, y = Int(rect.y) + j
                let m: SIMD4<Float> = (x >= 0 && y >= 0 && x < map.width && y < map.height) ? map[x, y] : .zero
                let px = Double(x) + 0.5 + scale * (Self.clampUnit(m.x) - 0.5)
                let py = Double(y) + 0.5 + scale * (Self.clampUnit(m.y) - 0.5)
                out[i, j] = WarpTestSupport.bilinear(buffer, px, py)
            }
        }
        return out
    }

    func testDisplacementMatchesTheScalarReference() throws {
        for scale in [9.0, 80.0] {  // 80: the whole-region path
            let out = try image.displacementDistorted(by: Image(mapBuffer), scale: scale)
            XCTAssertEqual(out.extent, Rect(x: -scale / 2, y: -scale / 2, width: 40 + scale, height: 30 + scale))
            let rect = Rect(x: -3, y: -3, width: 46, height: 36)
            let got = try renderPremultiplied(out, rect: rect)
            XCTAssertLessThanOrEqual(
                maxDifference(got, displacementReference(map: mapBuffer, scale: scale, rect: rect)), 2e-5, "scale \(scale)")
            try WarpTestSupport.assertScheduleIndependent(out, window: rect, "displacement \(scale)")
        }
    }

    func testAMapSmallerThanTheImageShiftsByMinusHalfTheScaleOutsideIt() throws {
        let small = WarpTestSupport.source(width: 17, height: 11, seed: 9)
        let out = try image.displacementDistorted(by: Image(small), scale: 6)
        let got = try renderPremultiplied(out, rect: buffer.bounds)
        XCTAssertLessThanOrEqual(maxDifference(got, displacementReference(map: small, scale: 6, rect: buffer.bounds)), 2e-5)
        // Outside the map: the pixel at (30, 20) shows the image at (27, 17).
        XCTAssertLessThanOrEqual(abs(got[30, 20] - buffer[27, 17]).max(), 1e-6)
    }

    func testGrayMapAndZeroScaleLeaveTheImage() throws {
        let gray = Image(color: Color(red: 0.5, green: 0.5, blue: 0.5, alpha: 1))
        let out = try image.displacementDistorted(by: gray, scale: 40)
        XCTAssertLessThanOrEqual(maxDifference(try renderPremultiplied(out, rect: buffer.bounds), buffer), 1e-6)
        let input = image
        XCTAssertEqual(try input.displacementDistorted(by: gray, scale: 0), input)
    }

    func glassReference(texture: PixelBuffer, origin: (Int, Int), scale: Double, rect: Rect) -> PixelBuffer {
        func luma(_ x: Int, _ y: Int) -> Double {
            let tx = ((x - origin.0) % texture.width + texture.width) % texture.width
            let ty = ((y - origin.1) % texture.height + texture.height) % texture.height
            let v = texture[tx, ty]
            let l = 0.2126 * v.x + 0.7152 * v.y + 0.0722 * v.z
            return Self.clampUnit(l)
        }
        var out = try! PixelBuffer(width: Int(rect.width), height: Int(rect.height), format: .rgbaF32)
        for j in 0..<out.height {
            for i in 0..<out.width {
                let x = Int(rect.x) + i, y = Int(rect.y) + j
                let px = Double(x) + 0.5 + scale * (luma(x + 1, y) - luma(x - 1, y)) / 2
                let py = Double(y) + 0.5 + scale * (luma(x, y + 1) - luma(x, y - 1)) / 2
                out[i, j] = WarpTestSupport.bilinear(buffer, px, py)
            }
        }
        return out
    }

    func testGlassDistortionMatchesTheScalarReference() throws {
        let texture = WarpTestSupport.source(width: 13, height: 9, seed: 10)
        for scale in [7.0, 90.0] {
            let out = try image.glassDistorted(texture: Image(texture), center: Point(x: 20.2, y: 14.7), scale: scale)
            // One copy's top-left at (round(20.2 - 6.5), round(14.7 - 4.5)) = (14, 10).
            let rect = Rect(x: -2, y: -2, width: 44, height: 34)
            let got = try renderPremultiplied(out, rect: rect)
            XCTAssertLessThanOrEqual(
                maxDifference(got, glassReference(texture: texture, origin: (14, 10), scale: scale, rect: rect)), 2e-5,
                "scale \(scale)")
            try WarpTestSupport.assertScheduleIndependent(out, window: rect, "glass \(scale)")
        }
    }

    /// The texture repeats, so a center moved by whole periods gives the same pixels, however
    /// far (a center beyond Int's range used to trap converting the origin).
    func testGlassCenterCountsModuloTheTexturePeriod() throws {
        let texture = WarpTestSupport.source(width: 13, height: 9, seed: 10)
        let rect = Rect(x: -2, y: -2, width: 44, height: 34)
        let near = try renderPremultiplied(
            image.glassDistorted(texture: Image(texture), center: Point(x: 20.2, y: 14.7), scale: 7), rect: rect)
        let moved = try renderPremultiplied(
            image.glassDistorted(
                texture: Image(texture), center: Point(x: 20.2 + 13 * 1_000_000, y: 14.7 - 9 * 3_000_000), scale: 7), rect: rect)
        XCTAssertEqual(maxDifference(near, moved), 0)
        for far in [1e300, -1e300, 1e19] {
            XCTAssertNoThrow(
                try renderPremultiplied(
                    image.glassDistorted(texture: Image(texture), center: Point(x: far, y: -far), scale: 7), rect: rect))
        }
    }

    func testGlassNeedsAFiniteTexture() {
        XCTAssertThrowsError(try image.glassDistorted(texture: Image(color: .white))) { error in
            guard case let PixelFlowError.invalidParameter(_, key, _) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(key, "inputTexture")
        }
    }
}
