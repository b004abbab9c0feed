import XCTest
@testable import PixelFlow
@testable import PixelFlowKernels
@testable import PixelFlowGraph
@testable import PixelFlowEngine

/// Helpers shared by the warp filter tests (distortions, tiles, scaling).
enum WarpTestSupport {
    /// An opaque random image with stored values, straight alpha.
    static func source(width: Int = 64, height: Int = 48, seed: UInt64 = 77) -> PixelBuffer {
        TestImages.random(
            width: width, height: height, format: .rgbaF32, seed: seed, opaque: true,
            colorEncoding: .sRGB, alphaMode: .straight)
    }

    /// Bilinear sample of `b` at `(x, y)` as the engine takes it (pixel centers at half
    /// integers, transparent outside).
    static func bilinear(_ b: PixelBuffer, _ x: Double, _ y: Double) -> SIMD4<Float> {
        let fx = x - 0.5, fy = y - 0.5
        let x0 = Int(fx.rounded(.down)), y0 = Int(fy.rounded(.down))
        let wx = Float(fx - fx.rounded(.down)), wy = Float(fy - fy.rounded(.down))
        func at(_ i: Int, _ j: Int) -> SIMD4<Float> {
            (i >= 0 && i < b.width && j >= 0 && j < b.height) ? b[i, j] : .zero
        }
        let top = at(x0, y0) + (at(x0 + 1, y0) - at(x0, y0)) * wx
        let bottom = at(x0, y0 + 1) + (at(x0 + 1, y0 + 1) - at(x0, y0 + 1)) * wx
        return top + (bottom - top) * wy
    }

    /// Renders `image` over `window` whole, in 7x5 tiles, and over a sub-rect, and checks that
    /// the three agree exactly (a region of interest that is too small changes the tiled and
    /// sub-rect renders).
    static func assertScheduleIndependent(
        _ image: Image, window: Rect, _ what: String,
        file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let whole = try RenderContext(threadCount: 1, tileWidth: 1 << 20, tileHeight: 1 << 20, colorManagement: .none)
            .makeBuffer(image, rect: window, format: .rgbaF32)
        let tiled = try RenderContext(threadCount: 2, tileWidth: 7, tileHeight: 5, colorManagement: .none)
            .makeBuffer(image, rect: window, format: .rgbaF32)
        XCTAssertEqual(maxDifference(whole, tiled), 0, "\(what): 7x5 tiles differ from one tile", file: file, line: line)
        let sx = Int(window.width) / 3, sy = Int(window.height) / 3
        let sub = Rect(x: window.x + Double(sx), y: window.y + Double(sy), width: Double(sx + 1), height: Double(sy + 1))
        let part = try RenderContext(threadCount: 1, colorManagement: .none).makeBuffer(image, rect: sub, format: .rgbaF32)
        var worst: Float = 0
        for y in 0..<part.height {
            for x in 0..<part.width { worst = max(worst, abs(part[x, y] - whole[x + sx, y + sy]).max()) }
        }
        XCTAssertEqual(worst, 0, "\(what): a sub-rect render differs from the crop of the full render", file: file, line: line)
    }

    /// Parameters that put a filter's effect inside a 64x48 image.
    static func smallValues(_ d: FilterDescriptor, _ image: Image, other: Image) -> [String: FilterValue?] {
        var v: [String: FilterValue?] = [:]
        for input in d.inputs {
            switch input.key {
            case "inputImage": v[input.key] = .image(image)
            case "inputCenter", "inputPoint", "inputPoint0": v[input.key] = .vector([30, 22])
            case "inputPoint1": v[input.key] = .vector([44, 30])
            case "inputRadius": v[input.key] = .number(17)
            case "inputWidth":
                v[input.key] = .number(input.key == "inputWidth" && d.categories.contains(.halftoneEffect) ? 5 : 13)
            case "inputSize" where input.valueClass == .number: v[input.key] = .number(19)
            case "inputSize": v[input.key] = .vector([50, 40])
            case "inputInsetPoint0": v[input.key] = .vector([24, 18])
            case "inputInsetPoint1": v[input.key] = .vector([40, 30])
            case "inputBreakpoint0": v[input.key] = .vector([12, 10])
            case "inputBreakpoint1": v[input.key] = .vector([40, 30])
            case "inputGrowAmount": v[input.key] = .vector([9, 7])
            case "inputExtent": v[input.key] = .vector([8, 6, 40, 30])
            case "inputTopLeft": v[input.key] = .vector([6, 5])
            case "inputTopRight": v[input.key] = .vector([58, 9])
            case "inputBottomRight": v[input.key] = .vector([55, 44])
            case "inputBottomLeft": v[input.key] = .vector([9, 40])
            case "inputScale" where d.categories.contains(.geometryAdjustment): v[input.key] = .number(0.37)
            case "inputTransform": v[input.key] = .transform(AffineTransform(a: 0.8, b: 0.3, c: -0.2, d: 0.9, tx: 5, ty: -3))
            default:
                if input.valueClass == .image { v[input.key] = .image(other) }
            }
        }
        return v
    }
}

final class DistortionTests: XCTestCase {
    let buffer = WarpTestSupport.source()
    var image: Image { Image(buffer) }

    /// Checks `out` against the source sampled at `map(p)` at a grid of pixel centers where
    /// the map lands inside the image.
    func assertMap(
        _ out: Image, _ map: (Double, Double) -> Point?, _ what: String, file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let b = try renderRaw(out, rect: Rect(x: 0, y: 0, width: 64, height: 48))
        var checked = 0
        for y in stride(from: 1, to: 48, by: 3) {
            for x in stride(from: 1, to: 64, by: 3) {
                guard let p = map(Double(x) + 0.5, Double(y) + 0.5) else { continue }
                guard p.x > 1, p.x < 63, p.y > 1, p.y < 47 else { continue }
                let expected = WarpTestSupport.bilinear(buffer, p.x, p.y)
                XCTAssertLessThan(abs(b[x, y] - expected).max(), 1e-5, "\(what) at (\(x), \(y))", file: file, line: line)
                checked += 1
            }
        }
        XCTAssertGreaterThan(checked, 100, what, file: file, line: line)
    }

    func testRadialMapsMatchTheirFormulas() throws {
        let c = Point(x: 30, y: 22), r = 17.0
        func polar(_ x: Double, _ y: Double) -> (Double, Double, Double) {
            let dx = x - c.x, dy = y - c.y
            return (dx, dy, (dx * dx + dy * dy).squareRoot())
        }
        try assertMap(
            try image.bumpDistorted(center: c, radius: r, scale: 0.6),
            { x, y in
                let (dx, dy, rho) = polar(x, y)
                if rho >= r { return Point(x: x, y: y) }
                let f = pow(1 - (1 - rho / r) * 0.6, 2)
                return Point(x: c.x + dx * f, y: c.y + dy * f)
            }, "bump")
        try assertMap(
            try image.pinchDistorted(center: c, radius: r, scale: 0.8),
            { x, y in
                let (dx, dy, rho) = polar(x, y)
                if rho >= r { return Point(x: x, y: y) }
                let f = min(pow(sin(Double.pi * rho / r / 2), -0.8), r / rho)
                return Point(x: c.x + dx * f, y: c.y + dy * f)
            }, "pinch")
        try assertMap(
            try image.twirlDistorted(center: c, radius: r, angle: 2),
            { x, y in
                let (dx, dy, rho) = polar(x, y)
                if rho >= r { return Point(x: x, y: y) }
                let a = 2 * pow(1 - rho / r, 2)
                return Point(x: c.x + cos(a) * dx - sin(a) * dy, y: c.y + sin(a) * dx + cos(a) * dy)
            }, "twirl")
        try assertMap(
            try image.vortexDistorted(center: c, radius: r, angle: 5),
            { x, y in
                let (dx, dy, rho) = polar(x, y)
                if rho >= r { return Point(x: x, y: y) }
                let a = 5 * (1 - rho / r)
                return Point(x: c.x + cos(a) * dx - sin(a) * dy, y: c.y + sin(a) * dx + cos(a) * dy)
            }, "vortex")
        try assertMap(
            try image.holeDistorted(center: c, radius: 6),
            { x, y in
                let (dx, dy, rho) = polar(x, y)
                if rho <= 6 { return nil }
                let f = (rho * rho - 36).squareRoot() / rho
                return Point(x: c.x + dx * f, y: c.y + dy * f)
            }, "hole")
        let splash = try FilterRegistry.apply(
            "CICircleSplashDistortion",
            ["inputImage": .image(image), "inputCenter": .vector([30, 22]), "inputRadius": .number(r)])
        try assertMap(
            splash,
            { x, y in
                let (dx, dy, rho) = polar(x, y)
                return rho <= r ? Point(x: x, y: y) : Point(x: c.x + dx * r / rho, y: c.y + dy * r / rho)
            }, "circle splash")
        let torus = try FilterRegistry.apply(
            "CITorusLensDistortion",
            [
                "inputImage": .image(image), "inputCenter": .vector([30, 22]),
                "inputRadius": .number(14), "inputWidth": .number(10), "inputRefraction": .number(2),
            ])
        try assertMap(
            torus,
            { x, y in
                let (dx, dy, rho) = polar(x, y)
                let off = rho - 14
                if abs(off) >= 5 { return Point(x: x, y: y) }
                let m = 0.5 * off * (1 - off * off / 25).squareRoot() / rho
                return Point(x: x - dx * m, y: y - dy * m)
            }, "torus lens")
    }

    func testHoleIsTransparentInsideAndPinchPixelsOutsideAreUnchanged() throws {
        let hole = try renderRaw(
            try image.holeDistorted(center: Point(x: 30, y: 22), radius: 8), rect: Rect(x: 0, y: 0, width: 64, height: 48))
        XCTAssertEqual(hole[30, 22].w, 0)
        let pinch = try renderRaw(
            try image.pinchDistorted(center: Point(x: 30, y: 22), radius: 10, scale: 1),
            rect: Rect(x: 0, y: 0, width: 64, height: 48))
        XCTAssertEqual(pinch[2, 2], buffer[2, 2])
        XCTAssertEqual(pinch[60, 40], buffer[60, 40])
    }

    func testZeroStrengthDistortionsGiveBackTheInput() throws {
        let bounds = Rect(x: 0, y: 0, width: 64, height: 48)
        for out in [
            try image.bumpDistorted(scale: 0), try image.bumpDistorted(radius: 0), try image.pinchDistorted(scale: 0),
            try image.twirlDistorted(angle: 0), try image.vortexDistorted(radius: 0), try image.holeDistorted(radius: 0),
        ] {
            XCTAssertEqual(maxDifference(try renderRaw(out, rect: bounds), buffer), 0)
        }
    }

    func testEveryWarpFilterHonoursItsRegionOfInterest() throws {
        let other = Image(WarpTestSupport.source(seed: 78))
        let families =
            FilterDescriptor.distortionFilters + FilterDescriptor.tileFilters + FilterDescriptor.scaleFilters
            + FilterDescriptor.halftoneFilters
        for d in families {
            let out = try d.apply(WarpTestSupport.smallValues(d, image, other: other))
            var window = out.extent.isInfinite ? Rect(x: -20, y: -15, width: 110, height: 80) : out.extent.integral
            window = window.intersection(Rect(x: -40, y: -40, width: 160, height: 130))
            try WarpTestSupport.assertScheduleIndependent(out, window: window, d.name)
        }
    }

    func testBadInputsThrow() {
        let bad: [(String, [String: FilterValue])] = [
            ("CITwirlDistortion", ["inputCenter": .vector([.nan, 3])]),
            ("CIBumpDistortion", ["inputRadius": .number(-1)]),
            ("CIPinchDistortion", ["inputScale": .number(-0.5)]),
            ("CIHoleDistortion", ["inputRadius": .number(.infinity)]),
            ("CIGlassLozenge", ["inputRefraction": .number(0)]),
            ("CIDroste", ["inputInsetPoint1": .vector([200, 200])]),
            ("CIStretchCrop", ["inputSize": .vector([0, 10])]),
        ]
        for (name, values) in bad {
            var v: [String: FilterValue?] = ["inputImage": .image(image)]
            for (k, x) in values { v[k] = x }
            XCTAssertThrowsError(try FilterRegistry.apply(name, v), name)
        }
    }

    func testStretchCropFillsTheTargetSize() throws {
        let out = try FilterRegistry.apply("CIStretchCrop", ["inputImage": .image(image), "inputSize": .vector([32, 40])])
        XCTAssertEqual(out.extent, Rect(x: 0, y: 0, width: 32, height: 40))
        let b = try renderRaw(out)
        XCTAssertEqual(b[0, 0].w, 1)
        XCTAssertEqual(b[31, 39].w, 1)
    }
}
