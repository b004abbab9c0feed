import Foundation
import XCTest
@testable import PixelFlow
@testable import PixelFlowEngine

/// CIColorCurves, CIColorCubeWithColorSpace, CIColorCubesMixedWithMask,
/// CIHueSaturationValueGradient and CISignedDistanceGradientFromRedMask against references
/// written here from the published formulas, in Double: linear interpolation found by search,
/// trilinear interpolation as a weighted sum of the eight corners, the IEC 61966-2-1 sRGB
/// curve, the published linear sRGB -> Display P3 matrix, the hexcone HSV -> RGB by sectors,
/// and distances by brute force.
final class ColorLookupTests: XCTestCase {
    // MARK: References

    /// Linear interpolation of `ys` at evenly spaced inputs over `lo...hi`, end values beyond.
    func interpolate(_ ys: [Double], _ x: Double, lo: Double, hi: Double) -> Double {
        if ys.count == 1 { return ys[0] }
        let xs = ys.indices.map { lo + Double($0) / Double(ys.count - 1) * (hi - lo) }
        let (first, last) = lo < hi ? (0, ys.count - 1) : (ys.count - 1, 0)
        if x <= xs[first] { return ys[first] }
        if x >= xs[last] { return ys[last] }
        for i in 0..<(ys.count - 1) {
            let a = Swift.min(xs[i], xs[i + 1]), b = Swift.max(xs[i], xs[i + 1])
            if x >= a && x <= b {
                let t = (x - xs[i]) / (xs[i + 1] - xs[i])
                return ys[i] + t * (ys[i + 1] - ys[i])
            }
        }
        return .nan
    }

    static func srgbEncode(_ v: Double) -> Double {
        let a = abs(v)
        let r = a <= 0.0031308 ? 12.92 * a : 1.055 * pow(a, 1 / 2.4) - 0.055
        return v < 0 ? -r : r
    }

    static func srgbDecode(_ v: Double) -> Double {
        let a = abs(v)
        let r = a <= 0.04045 ? a / 12.92 : pow((a + 0.055) / 1.055, 2.4)
        return v < 0 ? -r : r
    }

    /// Trilinear lookup of straight `rgb` (clamped to 0...1) in a cube of `d` entries per axis,
    /// as the weighted sum of the eight corners; unpremultiplied by the entry's alpha.
    func trilinear(_ cube: [SIMD4<Double>], _ d: Int, _ rgb: SIMD3<Double>) -> SIMD4<Double> {
        let c = rgb.replacing(with: 0, where: rgb .< 0).replacing(with: 1, where: rgb .> 1) * Double(d - 1)
        let i0 = SIMD3<Int>(Swift.min(Int(c.x), d - 2), Swift.min(Int(c.y), d - 2), Swift.min(Int(c.z), d - 2))
        let f = c - SIMD3(Double(i0.x), Double(i0.y), Double(i0.z))
        var sum = SIMD4<Double>.zero
        for dz in 0...1 {
            for dy in 0...1 {
                for dx in 0...1 {
                    let wx: Double = dx == 1 ? f.x : 1 - f.x
                    let wy: Double = dy == 1 ? f.y : 1 - f.y
                    let wz: Double = dz == 1 ? f.z : 1 - f.z
                    let index = ((i0.z + dz) * d + i0.y + dy) * d + i0.x + dx
                    sum += (wx * wy * wz) * cube[index]
                }
            }
        }
        return sum.w > 0 ? SIMD4(sum.x / sum.w, sum.y / sum.w, sum.z / sum.w, sum.w) : .zero
    }

    /// A random cube of `d` entries per axis and its bytes (alpha 1, colors in -0.1...1.1).
    func randomCube(_ d: Int, seed: UInt64) -> ([SIMD4<Double>], [UInt8]) {
        var rng = SeededRandom(seed: seed)
        var entries: [SIMD4<Double>] = []
        var bytes: [UInt8] = []
        for _ in 0..<(d * d * d) {
            let v = SIMD4<Float>(
                Float.random(in: -0.1...1.1, using: &rng), Float.random(in: -0.1...1.1, using: &rng),
                Float.random(in: -0.1...1.1, using: &rng), 1)
            entries.append(SIMD4(Double(v.x), Double(v.y), Double(v.z), 1))
            for c in 0..<4 { withUnsafeBytes(of: v[c].bitPattern.littleEndian) { bytes += $0 } }
        }
        return (entries, bytes)
    }

    func curvesBytes(_ entries: [SIMD3<Float>]) -> [UInt8] {
        var bytes: [UInt8] = []
        for e in entries { for c in 0..<3 { withUnsafeBytes(of: e[c].bitPattern.littleEndian) { bytes += $0 } } }
        return bytes
    }

    /// Colors of every kind: random in -0.2...1.2 with alpha 0.25...1 (straight), NaN-free.
    func colors() -> PixelBuffer {
        var b = try! PixelBuffer(width: 23, height: 9, format: .rgbaF32, colorEncoding: .sRGB, alphaMode: .straight)
        var rng = SeededRandom(seed: 41)
        for y in 0..<b.height {
            for x in 0..<b.width {
                b[x, y] = SIMD4(
                    Float.random(in: -0.2...1.2, using: &rng), Float.random(in: -0.2...1.2, using: &rng),
                    Float.random(in: -0.2...1.2, using: &rng), Float.random(in: 0.25...1, using: &rng))
            }
        }
        return b
    }

    // MARK: CIColorCurves

    func testColorCurvesInterpolateEachChannel() throws {
        let entries: [SIMD3<Float>] = [SIMD3(0.1, 0.9, 0), SIMD3(0.3, 0.2, 0.5), SIMD3(0.2, 0.6, 1), SIMD3(1, 0.4, 0.8)]
        let input = colors()
        for (lo, hi) in [(0.0, 1.0), (-0.5, 1.5), (1.0, 0.0)] {
            let out = try renderRaw(try Image(input).colorCurves(entries, domain: (lo, hi), colorSpace: ""))
            for y in 0..<input.height {
                for x in 0..<input.width {
                    let v = input[x, y]
                    for c in 0..<3 {
                        let ys = entries.map { Double($0[c]) }
                        let want = interpolate(ys, Double(v[c]), lo: lo, hi: hi)
                        XCTAssertEqual(
                            Double(out[x, y][c]), want, accuracy: 2e-6, "(\(x), \(y)) channel \(c) domain \(lo)...\(hi)")
                    }
                    XCTAssertEqual(out[x, y].w, v.w, accuracy: 1e-6)
                }
            }
        }
    }

    func testColorCurvesInSRGBUnderALinearWorkingSpace() throws {
        let entries: [SIMD3<Float>] = [SIMD3(0.2, 0, 0.1), SIMD3(0.5, 0.7, 0.3), SIMD3(0.9, 1, 1)]
        var input = colors()
        for y in 0..<input.height {
            for x in 0..<input.width { input[x, y] = input[x, y].clamped(lowerBound: .zero, upperBound: .one) }
        }
        let linear = RenderContext(colorManagement: .linear)
        // The buffer holds sRGB-encoded values; under a linear working space the filter sees
        // them decoded and encodes them again, so the curves apply to the stored values.
        let out = try renderRaw(try Image(input).colorCurves(entries), context: linear)
        for y in 0..<input.height {
            for x in 0..<input.width {
                for c in 0..<3 {
                    let want = interpolate(entries.map { Double($0[c]) }, Double(input[x, y][c]), lo: 0, hi: 1)
                    XCTAssertEqual(Double(out[x, y][c]), want, accuracy: 2e-4, "(\(x), \(y)) \(c)")
                }
            }
        }
        // The default curves are the identity.
        let same = try renderRaw(try FilterRegistry.apply("CIColorCurves", ["inputImage": .image(Image(input))]), context: linear)
        XCTAssertLessThan(maxDifference(same, input), 2e-4)
    }

    // MARK: Cubes in a color space

    func testColorCubeWithColorSpaceMatchesTrilinearInThatSpace() throws {
        let d = 5
        let (cube, bytes) = randomCube(d, seed: 3)
        var input = colors()
        for y in 0..<input.height {
            for x in 0..<input.width { input[x, y] = input[x, y].clamped(lowerBound: .zero, upperBound: .one) }
        }
        // Stored values (no color management): the cube applies to them as they are.
        let raw = try renderRaw(try Image(input).colorCube(dimension: d, data: bytes, colorSpace: "kCGColorSpaceSRGB"))
        // Linear working space, cube in Display P3: decode sRGB, published linear sRGB -> P3
        // matrix, encode with the sRGB curve (P3 uses it), look up, and back.
        let toP3: [[Double]] = [
            [0.822_461_97, 0.177_538_03, 0], [0.033_194_20, 0.966_805_80, 0], [0.017_082_63, 0.072_397_44, 0.910_519_93],
        ]
        let fromP3: [[Double]] = [
            [1.224_940_18, -0.224_940_18, 0], [-0.042_056_95, 1.042_056_95, 0], [-0.019_637_55, -0.078_636_05, 1.098_273_60],
        ]
        let p3 = try renderRaw(
            try Image(input).colorCube(dimension: d, data: bytes, colorSpace: "kCGColorSpaceDisplayP3"),
            context: RenderContext(colorManagement: .linear))
        for y in 0..<input.height {
            for x in 0..<input.width {
                let v = input[x, y]
                let rgb = SIMD3(Double(v.x), Double(v.y), Double(v.z))
                let want = trilinear(cube, d, rgb)
                for c in 0..<3 { XCTAssertEqual(Double(raw[x, y][c]), want[c], accuracy: 2e-6, "raw (\(x), \(y)) \(c)") }
                XCTAssertEqual(raw[x, y].w, v.w, accuracy: 1e-6)

                let lin = SIMD3(Self.srgbDecode(rgb.x), Self.srgbDecode(rgb.y), Self.srgbDecode(rgb.z))
                var e = SIMD3<Double>.zero
                for r in 0..<3 { e[r] = Self.srgbEncode(toP3[r][0] * lin.x + toP3[r][1] * lin.y + toP3[r][2] * lin.z) }
                let looked = trilinear(cube, d, e)
                let back = SIMD3(Self.srgbDecode(looked.x), Self.srgbDecode(looked.y), Self.srgbDecode(looked.z))
                for r in 0..<3 {
                    let l = fromP3[r][0] * back.x + fromP3[r][1] * back.y + fromP3[r][2] * back.z
                    // Float arithmetic and the steep sRGB curve near 0: within 2e-4.
                    XCTAssertEqual(Double(p3[x, y][r]), Self.srgbEncode(l), accuracy: 2e-4, "P3 (\(x), \(y)) \(r)")
                }
            }
        }
    }

    func testColorCubesMixedWithMaskWeighsByLuma() throws {
        let d = 3
        let (cube0, bytes0) = randomCube(d, seed: 8)
        let (cube1, bytes1) = randomCube(d, seed: 9)
        var input = colors()
        for y in 0..<input.height {
            for x in 0..<input.width { input[x, y].w = 1; input[x, y] = input[x, y].clamped(lowerBound: .zero, upperBound: .one) }
        }
        var mask = try PixelBuffer(
            width: input.width, height: input.height, format: .rgbaF32, colorEncoding: .sRGB, alphaMode: .straight)
        var rng = SeededRandom(seed: 5)
        for y in 0..<mask.height {
            for x in 0..<mask.width {
                mask[x, y] = SIMD4(
                    Float.random(in: 0...1, using: &rng), Float.random(in: 0...1, using: &rng),
                    Float.random(in: 0...1, using: &rng), 1)
            }
        }
        let out = try renderRaw(
            try Image(input).colorCubesMixed(mask: Image(mask), dimension: d, cube0: bytes0, cube1: bytes1, colorSpace: ""))
        for y in 0..<input.height {
            for x in 0..<input.width {
                let v = input[x, y], m = mask[x, y]
                let rgb = SIMD3(Double(v.x), Double(v.y), Double(v.z))
                let w = 0.2126 * Double(m.x) + 0.7152 * Double(m.y) + 0.0722 * Double(m.z)
                let want = trilinear(cube0, d, rgb) * (1 - w) + trilinear(cube1, d, rgb) * w
                for c in 0..<3 { XCTAssertEqual(Double(out[x, y][c]), want[c], accuracy: 1e-5, "(\(x), \(y)) \(c)") }
            }
        }
    }

    // MARK: Hue, saturation and value

    /// Hexcone HSV -> RGB by sectors (Smith 1978).
    static func hsvToRGB(_ h: Double, _ s: Double, _ v: Double) -> SIMD3<Double> {
        let h6 = (h - h.rounded(.down)) * 6
        let i = Int(h6.rounded(.down)) % 6, f = h6 - h6.rounded(.down)
        let p = v * (1 - s), q = v * (1 - s * f), t = v * (1 - s * (1 - f))
        switch i {
        case 0: return SIMD3(v, t, p)
        case 1: return SIMD3(q, v, p)
        case 2: return SIMD3(p, v, t)
        case 3: return SIMD3(p, q, v)
        case 4: return SIMD3(t, p, v)
        default: return SIMD3(v, p, q)
        }
    }

    func testHueSaturationValueWheelMatchesHexcone() throws {
        let r = 12.0
        let wheel = try Image.hueSaturationValueGradient(value: 0.8, radius: r, softness: 1.5, dither: 0)
        XCTAssertEqual(wheel.extent, Rect(x: 0, y: 0, width: 24, height: 24))
        let out = try renderRaw(wheel)
        for y in 0..<24 {
            for x in 0..<24 {
                let dx = Double(x) + 0.5 - r, dy = Double(y) + 0.5 - r
                let d = hypot(dx, dy)
                let coverage = Swift.min(1, Swift.max(0, (r - d) / 1.5))
                XCTAssertEqual(Double(out[x, y].w), coverage, accuracy: 1e-6, "(\(x), \(y))")
                guard coverage > 0 else { continue }
                var hue = atan2(-dy, dx) / (2 * .pi)
                if hue < 0 { hue += 1 }
                let want = Self.hsvToRGB(hue, Swift.min(1, d / r), 0.8)
                for c in 0..<3 { XCTAssertEqual(Double(out[x, y][c]), want[c], accuracy: 1e-5, "(\(x), \(y)) \(c)") }
            }
        }
        // Red at 3 o'clock, green a third of a turn counterclockwise (up and left on screen).
        XCTAssertGreaterThan(out[23, 12].x, 0.75)
        XCTAssertLessThan(out[23, 12].y, 0.2)
        let gx = Int(r + 10 * cos(2 * .pi / 3)), gy = Int(r - 10 * sin(2 * .pi / 3))
        XCTAssertGreaterThan(out[gx, gy].y, out[gx, gy].x + 0.3)
    }

    func testHueSaturationValueDitherIsBoundedAndTheSameEveryRender() throws {
        let plain = try renderRaw(try Image.hueSaturationValueGradient(radius: 20, dither: 0))
        let dithered = try Image.hueSaturationValueGradient(radius: 20, dither: 2)
        let a = try renderRaw(dithered)
        var options = RenderContext.Options()
        options.colorManagement = .none
        options.threadCount = 1
        options.tileWidth = 7
        options.tileHeight = 5
        let b = try renderRaw(dithered, context: RenderContext(options: options))
        XCTAssertEqual(maxDifference(a, b), 0)
        var largest: Float = 0
        for y in 0..<40 {
            for x in 0..<40 where plain[x, y].w == 1 { largest = Swift.max(largest, abs(a[x, y].x - plain[x, y].x)) }
        }
        XCTAssertGreaterThan(largest, 0.5 / 255)
        XCTAssertLessThanOrEqual(largest, 1.0 / 255 + 1e-6)
    }

    // MARK: Signed distance

    func testSignedDistanceGradientIsTheDistanceToTheOtherSide() throws {
        var mask = try PixelBuffer(width: 19, height: 15, format: .rgbaF32, colorEncoding: .sRGB, alphaMode: .straight)
        var inside: Set<[Int]> = []
        for y in 3...9 { for x in 4...12 where !(x > 9 && y > 6) { mask[x, y] = SIMD4(1, 0, 0, 1); inside.insert([x, y]) } }
        mask[16, 12] = SIMD4(0.8, 0, 0, 1)
        inside.insert([16, 12])
        let maxD = 4.0
        let image = try Image(mask).signedDistanceGradientFromRedMask(maximumDistance: maxD)
        XCTAssertTrue(image.extent.isInfinite)
        let rect = Rect(x: -6, y: -6, width: 31, height: 27)
        let b = try rawContext.makeBuffer(image, rect: rect, format: .rgbaF32, colorEncoding: .sRGB, alphaMode: .straight)
        for y in 0..<b.height {
            for x in 0..<b.width {
                let p = [x - 6, y - 6]
                let isIn = inside.contains(p)
                var best = Double.infinity
                // The nearest pixel of the other side (outside the buffer counts as outside).
                for qy in (p[1] - 8)...(p[1] + 8) {
                    for qx in (p[0] - 8)...(p[0] + 8) where inside.contains([qx, qy]) != isIn {
                        best = Swift.min(best, hypot(Double(qx - p[0]), Double(qy - p[1])))
                    }
                }
                let magnitude = Swift.min(1, best / maxD)
                XCTAssertEqual(Double(b[x, y].x), isIn ? -magnitude : magnitude, accuracy: 1e-6, "\(p)")
            }
        }
        let far = try rawContext.makeBuffer(image, rect: Rect(x: 400, y: 400, width: 1, height: 1), format: .rgbaF32)
        XCTAssertEqual(far[0, 0].x, 1)
    }

    // MARK: Registry, bad input

    func testBadInputThrowsNamingTheKey() {
        let image = Image(TestImages.random(width: 5, height: 4))
        let cases: [(String, String, FilterValue)] = [
            ("CIColorCurves", "inputCurvesData", .data([1, 2, 3])),
            ("CIColorCurves", "inputCurvesData", .data([])),
            ("CIColorCurves", "inputCurvesData", .data(curvesBytes([SIMD3(.nan, 0, 0)]))),
            ("CIColorCurves", "inputCurvesDomain", .vector([0.5, 0.5])),
            ("CIColorCurves", "inputCurvesDomain", .vector([0, .infinity])),
            ("CIColorCurves", "inputColorSpace", .string("no such space")),
            ("CIColorCurves", "inputColorSpace", .string("gray")),
            ("CIColorCubeWithColorSpace", "inputCubeData", .data([0, 1])),
            ("CIColorCubeWithColorSpace", "inputCubeDimension", .number(1)),
            ("CIColorCubeWithColorSpace", "inputColorSpace", .string("nope")),
            ("CIColorCubesMixedWithMask", "inputCube1Data", .data([9])),
            ("CIHueSaturationValueGradient", "inputRadius", .number(-1)),
            ("CIHueSaturationValueGradient", "inputValue", .number(.nan)),
            ("CIHueSaturationValueGradient", "inputDither", .number(11)),
            ("CISignedDistanceGradientFromRedMask", "inputMaximumDistance", .number(-1)),
        ]
        for (name, key, value) in cases {
            var values: [String: FilterValue?] = [key: value]
            let descriptor = FilterRegistry.descriptor(named: name)
            XCTAssertNotNil(descriptor, name)
            if descriptor?.input("inputImage") != nil { values["inputImage"] = .image(image) }
            if descriptor?.input("inputMaskImage") != nil { values["inputMaskImage"] = .image(image) }
            XCTAssertThrowsError(try FilterRegistry.apply(name, values), "\(name) \(key)") { error in
                guard case let PixelFlowError.invalidParameter(filter, k, _) = error else { return XCTFail("\(error)") }
                XCTAssertEqual(filter, name)
                XCTAssertEqual(k, key)
            }
        }
        XCTAssertThrowsError(try Image(color: .red).signedDistanceGradientFromRedMask())
        XCTAssertEqual(try Image.hueSaturationValueGradient(radius: 0).extent, .empty)
    }
}
