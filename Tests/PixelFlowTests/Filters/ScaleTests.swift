import Foundation
import XCTest
@testable import PixelFlow
@testable import PixelFlowKernels
@testable import PixelFlowGraph
@testable import PixelFlowEngine

final class ScaleTests: XCTestCase {
    struct Fixture: Decodable {
        struct Case: Decodable { let width: Int; let height: Int; let pixels: [[Double]] }
        let width: Int
        let height: Int
        let pixels: [[Int]]
        let cases: [Case]
    }

    func testBicubicMatchesPillow() throws {
        let url = URL(fileURLWithPath: packageRoot + "/Tests/PixelFlowTests/Fixtures/Scale/pillow_bicubic.json")
        let f = try JSONDecoder().decode(Fixture.self, from: Data(contentsOf: url))
        var input = try PixelBuffer(
            width: f.width, height: f.height, format: .rgbaF32, colorEncoding: .sRGB, alphaMode: .straight)
        for (i, p) in f.pixels.enumerated() {
            input[i % f.width, i / f.width] = SIMD4(Float(p[0]) / 255, Float(p[1]) / 255, Float(p[2]) / 255, 1)
        }
        for c in f.cases {
            let sy = Double(c.height) / Double(f.height), sx = Double(c.width) / Double(f.width)
            let out = try Image(input).bicubicScaled(scale: sy, aspectRatio: sx / sy, b: 0, c: 0.5)
            XCTAssertEqual(IntRect(covering: out.extent), IntRect(x: 0, y: 0, width: c.width, height: c.height))
            let b = try renderRaw(out)
            var worst: Float = 0
            for (i, p) in c.pixels.enumerated() {
                let v = b[i % c.width, i / c.width]
                for ch in 0..<3 { worst = max(worst, abs(v[ch] - Float(p[ch] / 255))) }
            }
            XCTAssertLessThanOrEqual(worst, 1e-3 / 255, "\(c.width)x\(c.height): \(worst * 255) levels")
        }
    }

    func testMaximumScaleDoesNotAliasACheckerboard() throws {
        var b = try PixelBuffer(width: 96, height: 64, format: .rgbaF32, colorEncoding: .sRGB, alphaMode: .straight)
        for y in 0..<64 { for x in 0..<96 { let v: Float = (x + y) % 2 == 0 ? 1 : 0; b[x, y] = SIMD4(v, v, v, 1) } }
        let out = try renderRaw(try Image(b).maximumScaled(scale: 0.125))
        XCTAssertEqual(out.width, 12)
        XCTAssertEqual(out.height, 8)
        for y in 0..<8 { for x in 0..<12 { XCTAssertEqual(out[x, y].x, 0.5, accuracy: 0.01, "(\(x), \(y))") } }
        // Bicubic shrinking is antialiased too.
        let cubic = try renderRaw(try Image(b).bicubicScaled(scale: 0.125))
        for y in 1..<7 { for x in 1..<11 { XCTAssertEqual(cubic[x, y].x, 0.5, accuracy: 0.03) } }
    }

    func testScaleIdentitiesAndBadScales() throws {
        let src = WarpTestSupport.source()
        XCTAssertEqual(maxDifference(try renderRaw(try Image(src).bicubicScaled(scale: 1)), src), 0)
        XCTAssertEqual(maxDifference(try renderRaw(try Image(src).maximumScaled(scale: 1)), src), 0)
        XCTAssertThrowsError(try Image(src).bicubicScaled(scale: 0))
        XCTAssertThrowsError(try Image(src).maximumScaled(scale: -2))
        XCTAssertThrowsError(try Image(src).bicubicScaled(scale: .nan))
        XCTAssertThrowsError(try Image(color: Color(red: 1, green: 0, blue: 0, alpha: 1)).bicubicScaled(scale: 0.5))
    }

    func testEnlargingPassesThroughConstantsAndScheduleIndependence() throws {
        var b = try PixelBuffer(width: 10, height: 7, format: .rgbaF32, colorEncoding: .sRGB, alphaMode: .straight)
        for y in 0..<7 { for x in 0..<10 { b[x, y] = SIMD4(0.25, 0.5, 0.75, 1) } }
        let up = try Image(b).bicubicScaled(scale: 3.3, aspectRatio: 1.4)
        let out = try renderRaw(up)
        for y in 0..<out.height {
            for x in 0..<out.width { XCTAssertLessThan(abs(out[x, y] - SIMD4(0.25, 0.5, 0.75, 1)).max(), 1e-5) }
        }
        try WarpTestSupport.assertScheduleIndependent(up, window: up.extent, "bicubic up")
        let down = try Image(WarpTestSupport.source()).maximumScaled(scale: 0.21, aspectRatio: 1.7)
        try WarpTestSupport.assertScheduleIndependent(down, window: down.extent, "maximum down")
    }

    func testStraightenHasNoTransparentCorners() throws {
        let src = WarpTestSupport.source()
        let out = try renderRaw(try Image(src).straightened(angle: 0.3), rect: Rect(x: 0, y: 0, width: 64, height: 48))
        for (x, y) in [(0, 0), (63, 0), (0, 47), (63, 47)] { XCTAssertGreaterThan(out[x, y].w, 0.999, "(\(x), \(y))") }
    }

    func testKeystoneWithUprightGuidesIsTheIdentity() throws {
        let src = WarpTestSupport.source()
        for name in ["CIKeystoneCorrectionVertical", "CIKeystoneCorrectionHorizontal", "CIKeystoneCorrectionCombined"] {
            let out = try FilterRegistry.apply(
                name,
                [
                    "inputImage": .image(Image(src)), "inputTopLeft": .vector([5, 4]), "inputTopRight": .vector([50, 4]),
                    "inputBottomRight": .vector([50, 40]), "inputBottomLeft": .vector([5, 40]),
                ])
            XCTAssertLessThan(maxDifference(try renderRaw(out, rect: Rect(x: 0, y: 0, width: 64, height: 48)), src), 1e-5, name)
        }
        // Converging verticals become parallel: the guides' corners land on a rectangle.
        let out = try FilterRegistry.apply(
            "CIKeystoneCorrectionVertical",
            [
                "inputImage": .image(Image(src)), "inputTopLeft": .vector([15, 4]),
                "inputTopRight": .vector([45, 4]), "inputBottomRight": .vector([55, 40]),
                "inputBottomLeft": .vector([5, 40]),
            ])
        XCTAssertGreaterThan(out.extent.width, 64)
    }

    func testNinePartKeepsCornersAndGrows() throws {
        let src = WarpTestSupport.source()
        for name in ["CINinePartStretched", "CINinePartTiled"] {
            let out = try FilterRegistry.apply(
                name,
                [
                    "inputImage": .image(Image(src)), "inputBreakpoint0": .vector([10, 8]),
                    "inputBreakpoint1": .vector([50, 40]), "inputGrowAmount": .vector([20, 12]),
                ])
            XCTAssertEqual(out.extent, Rect(x: 0, y: 0, width: 84, height: 60))
            let b = try renderRaw(out)
            XCTAssertEqual(b[3, 2], src[3, 2], name)
            XCTAssertEqual(b[83, 59], src[63, 47], name)
            XCTAssertEqual(b[80, 3], src[60, 3], name)
        }
        let tiled = try renderRaw(
            try FilterRegistry.apply(
                "CINinePartTiled",
                [
                    "inputImage": .image(Image(src)), "inputBreakpoint0": .vector([10, 8]),
                    "inputBreakpoint1": .vector([50, 40]), "inputGrowAmount": .vector([40, 0]),
                ]))
        XCTAssertEqual(tiled[15, 5], src[15, 5])
        XCTAssertEqual(tiled[55, 5], src[15, 5])
    }

    func testContentModes() throws {
        let src = WarpTestSupport.source()
        let target = Size(width: 40, height: 40)
        let fill = try Image(src).resized(to: target, contentMode: .scaleToFill)
        XCTAssertEqual(fill.extent, Rect(x: 0, y: 0, width: 40, height: 40))
        let fit = try Image(src).resized(to: target, contentMode: .aspectFit)
        XCTAssertEqual(fit.extent, Rect(x: 0, y: 5, width: 40, height: 30))
        let cover = try Image(src).resized(to: target, contentMode: .aspectFill)
        XCTAssertEqual(cover.extent, Rect(x: 0, y: 0, width: 40, height: 40))
        let topLeft = try renderRaw(try Image(src).resized(to: target, contentMode: .topLeft))
        XCTAssertEqual(topLeft[7, 9], src[7, 9])
        let bottomRight = try renderRaw(try Image(src).resized(to: target, contentMode: .bottomRight))
        XCTAssertEqual(bottomRight[39, 39], src[63, 47])
        let center = try renderRaw(try Image(src).resized(to: target, contentMode: .center))
        XCTAssertEqual(center[0, 0], src[12, 4])
        XCTAssertThrowsError(try Image(src).resized(to: Size(width: 0, height: 5), contentMode: .center))
        XCTAssertThrowsError(try Image(src).resized(to: Size(width: .nan, height: 5), contentMode: .aspectFit))
    }
}
