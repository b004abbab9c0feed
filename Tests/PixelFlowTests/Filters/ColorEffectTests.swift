import XCTest
@testable import PixelFlow
@testable import PixelFlowKernels
@testable import PixelFlowGraph
@testable import PixelFlowEngine

/// The color effects of Filters/ColorEffectFilters.swift, ColorCubeFilter.swift,
/// ColorAdjustmentFilters+Curves.swift (cross polynomial aside) and the CIELAB filters of
/// ColorSpaceFilters.swift, rendered end to end on stored values (`colorManagement: .none`)
/// and compared with scalar formulas in Double written here: CIE 15:2004 for CIELAB, CIE94,
/// and CIEDE2000 checked against the test data of Sharma, Wu and Dalal (2005). Tolerances are
/// stated at each check.
final class ColorEffectTests: XCTestCase {
    let w = 37, h = 23
    lazy var opaque = TestImages.random(
        width: w, height: h, format: .rgbaF32, seed: 41, opaque: true,
        colorEncoding: .sRGB, alphaMode: .straight)
    lazy var translucent = TestImages.random(
        width: w, height: h, format: .rgbaF32, seed: 42, opaque: false,
        colorEncoding: .sRGB, alphaMode: .straight)

    static func buffer(_ pixels: [SIMD4<Float>], width: Int) -> PixelBuffer {
        var b = try! PixelBuffer(
            width: width, height: pixels.count / width, format: .rgbaF32, colorEncoding: .sRGB,
            alphaMode: .straight)
        for (i, p) in pixels.enumerated() { b[i % width, i / width] = p }
        return b
    }

    // MARK: CIELAB (CIE 15:2004, D65)

    static func lab(_ v: SIMD4<Double>) -> SIMD3<Double> {
        let x = (0.4124564 * v.x + 0.3575761 * v.y + 0.1804375 * v.z) / 0.95047
        let y = 0.2126729 * v.x + 0.7151522 * v.y + 0.0721750 * v.z
        let z = (0.0193339 * v.x + 0.1191920 * v.y + 0.9503041 * v.z) / 1.08883
        func f(_ t: Double) -> Double { t > pow(6.0 / 29, 3) ? cbrt(t) : t / (3 * pow(6.0 / 29, 2)) + 4.0 / 29 }
        return SIMD3(116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z)))
    }

    func testRGBToLabAndBack() throws {
        // The cube root goes through fastExp2(fastLog2): 2e-6 relative, times 500 in a*.
        try assertPointFilter(opaque, tolerance: 2e-3, { try $0.convertedRGBToLab() }) { v in
            let l = Self.lab(v)
            return SIMD4(l.x, l.y, l.z, v.w)
        }
        try assertPointFilter(opaque, tolerance: 2e-5, { try $0.convertedRGBToLab(normalize: true) }) { v in
            let l = Self.lab(v)
            return SIMD4(l.x / 100, (l.y + 128) / 256, (l.z + 128) / 256, v.w)
        }
        for normalize in [false, true] {
            try assertPointFilter(
                translucent, tolerance: 2e-5,
                {
                    try $0.convertedRGBToLab(normalize: normalize).convertedLabToRGB(normalize: normalize)
                }
            ) { $0 }
        }
        // White is L* 100, a* = b* = 0.
        let white = try renderRaw(try Image(color: .white).convertedRGBToLab(), rect: Rect(x: 0, y: 0, width: 1, height: 1))
        XCTAssertEqual(white[0, 0].x, 100, accuracy: 1e-3)
        XCTAssertEqual(white[0, 0].y, 0, accuracy: 1e-3)
        XCTAssertEqual(white[0, 0].z, 0, accuracy: 1e-3)
    }

    /// CIEDE2000 in Double, transcribed from Sharma, Wu and Dalal (2005), equations (1)-(22).
    static func ciede2000(_ l1: SIMD3<Double>, _ l2: SIMD3<Double>) -> Double {
        let c1 = (l1.y * l1.y + l1.z * l1.z).squareRoot(), c2 = (l2.y * l2.y + l2.z * l2.z).squareRoot()
        let cb7 = pow((c1 + c2) / 2, 7)
        let g = 0.5 * (1 - (cb7 / (cb7 + pow(25, 7))).squareRoot())
        let a1 = (1 + g) * l1.y, a2 = (1 + g) * l2.y
        let cp1 = (a1 * a1 + l1.z * l1.z).squareRoot(), cp2 = (a2 * a2 + l2.z * l2.z).squareRoot()
        func hue(_ b: Double, _ a: Double) -> Double {
            if a == 0 && b == 0 { return 0 }
            let h = atan2(b, a) * 180 / .pi
            return h < 0 ? h + 360 : h
        }
        let h1 = hue(l1.z, a1), h2 = hue(l2.z, a2)
        var dh = 0.0
        if cp1 * cp2 != 0 { dh = h2 - h1; if dh > 180 { dh -= 360 } else if dh < -180 { dh += 360 } }
        let dL = l2.x - l1.x, dC = cp2 - cp1, dH = 2 * (cp1 * cp2).squareRoot() * sin(dh * .pi / 360)
        let lb = (l1.x + l2.x) / 2, cb = (cp1 + cp2) / 2
        var hb = h1 + h2
        if cp1 * cp2 != 0 { hb = abs(h1 - h2) <= 180 ? hb / 2 : (hb < 360 ? (hb + 360) / 2 : (hb - 360) / 2) }
        let r = Double.pi / 180
        let t =
            1 - 0.17 * cos((hb - 30) * r) + 0.24 * cos(2 * hb * r) + 0.32 * cos((3 * hb + 6) * r) - 0.20 * cos((4 * hb - 63) * r)
        let dTheta = 30 * exp(-pow((hb - 275) / 25, 2))
        let cb7p = pow(cb, 7)
        let rc = 2 * (cb7p / (cb7p + pow(25, 7))).squareRoot()
        let sl = 1 + 0.015 * pow(lb - 50, 2) / (20 + pow(lb - 50, 2)).squareRoot()
        let sc = 1 + 0.045 * cb, sh = 1 + 0.015 * cb * t
        let rt = -sin(2 * dTheta * r) * rc
        return (pow(dL / sl, 2) + pow(dC / sc, 2) + pow(dH / sh, 2) + rt * (dC / sc) * (dH / sh)).squareRoot()
    }

    /// Table 1 of Sharma, Wu and Dalal (2005): (L1, a1, b1), (L2, a2, b2), dE00.
    static let sharmaPairs: [(SIMD3<Double>, SIMD3<Double>, Double)] = [
        (SIMD3(50, 2.6772, -79.7751), SIMD3(50, 0, -82.7485), 2.0425),
        (SIMD3(50, 3.1571, -77.2803), SIMD3(50, 0, -82.7485), 2.8615),
        (SIMD3(50, 2.8361, -74.0200), SIMD3(50, 0, -82.7485), 3.4412),
        (SIMD3(50, -1.3802, -84.2814), SIMD3(50, 0, -82.7485), 1.0000),
        (SIMD3(50, -1.1848, -84.8006), SIMD3(50, 0, -82.7485), 1.0000),
        (SIMD3(50, -0.9009, -85.5211), SIMD3(50, 0, -82.7485), 1.0000),
        (SIMD3(50, 0, 0), SIMD3(50, -1, 2), 2.3669),
        (SIMD3(50, -1, 2), SIMD3(50, 0, 0), 2.3669),
        (SIMD3(50, 2.4900, -0.0010), SIMD3(50, -2.4900, 0.0009), 7.1792),
        (SIMD3(50, 2.4900, -0.0010), SIMD3(50, -2.4900, 0.0010), 7.1792),
        (SIMD3(50, 2.4900, -0.0010), SIMD3(50, -2.4900, 0.0011), 7.2195),
        (SIMD3(50, 2.4900, -0.0010), SIMD3(50, -2.4900, 0.0012), 7.2195),
        (SIMD3(50, -0.0010, 2.4900), SIMD3(50, 0.0009, -2.4900), 4.8045),
        (SIMD3(50, -0.0010, 2.4900), SIMD3(50, 0.0010, -2.4900), 4.8045),
        (SIMD3(50, -0.0010, 2.4900), SIMD3(50, 0.0011, -2.4900), 4.7461),
        (SIMD3(50, 2.5, 0), SIMD3(50, 0, -2.5), 4.3065),
        (SIMD3(50, 2.5, 0), SIMD3(73, 25, -18), 27.1492),
        (SIMD3(50, 2.5, 0), SIMD3(61, -5, 29), 22.8977),
        (SIMD3(50, 2.5, 0), SIMD3(56, -27, -3), 31.9030),
        (SIMD3(50, 2.5, 0), SIMD3(58, 24, 15), 19.4535),
        (SIMD3(50, 2.5, 0), SIMD3(50, 3.1736, 0.5854), 1.0000),
        (SIMD3(50, 2.5, 0), SIMD3(50, 3.2972, 0), 1.0000),
        (SIMD3(50, 2.5, 0), SIMD3(50, 1.8634, 0.5757), 1.0000),
        (SIMD3(50, 2.5, 0), SIMD3(50, 3.2592, 0.3350), 1.0000),
        (SIMD3(60.2574, -34.0099, 36.2677), SIMD3(60.4626, -34.1751, 39.4387), 1.2644),
        (SIMD3(63.0109, -31.0961, -5.8663), SIMD3(62.8187, -29.7946, -4.0864), 1.2630),
        (SIMD3(61.2901, 3.7196, -5.3901), SIMD3(61.4292, 2.2480, -4.9620), 1.8731),
        (SIMD3(35.0831, -44.1164, 3.7933), SIMD3(35.0232, -40.0716, 1.5901), 1.8645),
        (SIMD3(22.7233, 20.0904, -46.6940), SIMD3(23.0331, 14.9730, -42.5619), 2.0373),
        (SIMD3(36.4612, 47.8580, 18.3852), SIMD3(36.2715, 50.5065, 21.2231), 1.4146),
        (SIMD3(90.8027, -2.0831, 1.4410), SIMD3(91.1528, -1.6435, 0.0447), 1.4441),
        (SIMD3(90.9257, -0.5406, -0.9208), SIMD3(88.6381, -0.8985, -0.7239), 1.5381),
        (SIMD3(6.7747, -0.2908, -2.4247), SIMD3(5.8714, -0.0985, -2.2286), 0.6377),
        (SIMD3(2.0776, 0.0795, -1.1350), SIMD3(0.9033, -0.0636, -0.5514), 0.9082),
    ]

    func testCIEDE2000AgainstSharmaTestData() {
        for (i, (a, b, e)) in Self.sharmaPairs.enumerated() {
            // The table has 4 decimals; the Double reference must round to it.
            XCTAssertEqual(Self.ciede2000(a, b), e, accuracy: 5.1e-5, "pair \(i + 1), reference")
            // The Float kernel: 4 decimals plus float rounding of values up to 100.
            let k = deltaE2000(SIMD4(Float(a.x), Float(a.y), Float(a.z), 1), SIMD4(Float(b.x), Float(b.y), Float(b.z), 1))
            XCTAssertEqual(Double(k), e, accuracy: 2e-4, "pair \(i + 1), kernel")
        }
    }

    func testLabDeltaEFilters() throws {
        let other = TestImages.random(
            width: w, height: h, format: .rgbaF32, seed: 43, opaque: true,
            colorEncoding: .sRGB, alphaMode: .straight)
        let e94 = try renderRaw(try Image(opaque).labDeltaE(Image(other)))
        let e00 = try renderRaw(try Image(opaque).labDeltaE2000(Image(other)))
        for y in 0..<h {
            for x in 0..<w {
                func d(_ v: SIMD4<Float>) -> SIMD4<Double> { SIMD4(Double(v.x), Double(v.y), Double(v.z), Double(v.w)) }
                let l1 = Self.lab(d(opaque[x, y])), l2 = Self.lab(d(other[x, y]))
                // CIE 116-1995, graphic arts.
                let dl = l1.x - l2.x
                let c1 = (l1.y * l1.y + l1.z * l1.z).squareRoot(), c2 = (l2.y * l2.y + l2.z * l2.z).squareRoot()
                let dc = c1 - c2
                let dh2 = max(0, pow(l1.y - l2.y, 2) + pow(l1.z - l2.z, 2) - dc * dc)
                let ref94 = (dl * dl + pow(dc / (1 + 0.045 * c1), 2) + dh2 / pow(1 + 0.015 * c1, 2)).squareRoot()
                // Lab in float through the fast cube root: about 2e-3 absolute, so 5e-3 on a difference.
                XCTAssertEqual(Double(e94[x, y].x), ref94, accuracy: 5e-3, "(\(x), \(y))")
                XCTAssertEqual(e94[x, y].w, 1)
                XCTAssertEqual(Double(e00[x, y].y), Self.ciede2000(l1, l2), accuracy: 5e-3, "(\(x), \(y))")
            }
        }
    }

    // MARK: Color cube

    func testColorCubeInterpolatesTrilinearly() throws {
        let d = 5
        var rng = SeededRandom(seed: 44)
        var entries: [SIMD4<Float>] = []
        for _ in 0..<(d * d * d) { entries.append(SIMD4(rng.unit(), rng.unit(), rng.unit(), 0.5 + 0.5 * rng.unit())) }
        let data = ColorCubeTable(dimension: d, entries: entries).bytes
        func ref(_ v: SIMD4<Double>, extrapolate: Bool) -> SIMD4<Double> {
            var idx = [Int](repeating: 0, count: 3), f = [Double](repeating: 0, count: 3)
            for c in 0..<3 {
                let x = extrapolate ? v[c] : min(max(v[c], 0), 1)
                let s = x * Double(d - 1)
                idx[c] = min(max(Int(s.rounded(.down)), 0), d - 2)
                f[c] = s - Double(idx[c])
            }
            var acc = SIMD4<Double>.zero
            for corner in 0..<8 {
                let o = [corner & 1, (corner >> 1) & 1, (corner >> 2) & 1]
                var wgt = 1.0
                for c in 0..<3 { wgt *= o[c] == 1 ? f[c] : 1 - f[c] }
                let e = entries[((idx[2] + o[2]) * d + idx[1] + o[1]) * d + idx[0] + o[0]]
                acc += SIMD4(Double(e.x), Double(e.y), Double(e.z), Double(e.w)) * wgt
            }
            return SIMD4(acc.x / acc.w, acc.y / acc.w, acc.z / acc.w, acc.w * v.w)
        }
        try assertPointFilter(translucent, tolerance: 2e-6, { try $0.colorCube(dimension: d, data: data) }) {
            ref($0, extrapolate: false)
        }
        var wide = opaque
        for y in 0..<h { for x in 0..<w { var v = opaque[x, y] * 1.4 - 0.2; v.w = 1; wide[x, y] = v } }
        try assertPointFilter(wide, tolerance: 1e-5, { try $0.colorCube(dimension: d, data: data, extrapolate: true) }) {
            ref($0, extrapolate: true)
        }
        try assertPointFilter(wide, tolerance: 2e-6, { try $0.colorCube(dimension: d, data: data) }) {
            ref($0, extrapolate: false)
        }
    }

    func testColorCubeRejectsBadDimensionsAndData() {
        let image = Image(opaque)
        let cube3 = ColorCubeTable.identity(dimension: 3).bytes
        assertThrowsInvalidParameter("inputCubeData") { _ = try image.colorCube(dimension: 4, data: cube3) }
        assertThrowsInvalidParameter("inputCubeData") { _ = try image.colorCube(dimension: 3, data: Array(cube3.dropLast())) }
        assertThrowsInvalidParameter("inputCubeDimension") { _ = try image.colorCube(dimension: 1, data: cube3) }
        assertThrowsInvalidParameter("inputCubeDimension") { _ = try image.colorCube(dimension: 129, data: cube3) }
        assertThrowsInvalidParameter("inputCubeDimension") {
            _ = try FilterDescriptor.colorCube.apply(["inputImage": .image(image), "inputCubeDimension": .number(.nan)])
        }
        assertThrowsInvalidParameter("inputCubeDimension") {
            _ = try FilterDescriptor.colorCube.apply(["inputImage": .image(image), "inputCubeDimension": .number(2.5)])
        }
        var nan = cube3
        let bits = Float.nan.bitPattern
        for k in 0..<4 { nan[20 + k] = UInt8(truncatingIfNeeded: bits >> (8 * UInt32(k))) }
        assertThrowsInvalidParameter("inputCubeData") { _ = try image.colorCube(dimension: 3, data: nan) }
        // A correct identity cube of another size gives the input back.
        XCTAssertNoThrow(
            try {
                let out = try renderRaw(try image.colorCube(dimension: 3, data: cube3))
                XCTAssertLessThan(maxDifference(out, self.opaque), 2e-6)
            }())
    }

    // MARK: Gradient maps and tints

    func testColorMapReadsTheGradientsFirstRow() throws {
        let row: [SIMD4<Float>] = [SIMD4(0, 0, 0.2, 1), SIMD4(1, 0, 0, 0.5), SIMD4(0.2, 0.9, 0.1, 1), SIMD4(1, 1, 1, 1)]
        // A second row that must be ignored.
        let gradient = Self.buffer(row + [SIMD4<Float>](repeating: SIMD4(0.5, 0.5, 0.5, 1), count: 4), width: 4)
        try assertPointFilter(translucent, tolerance: 2e-6, { try $0.colorMap(gradient: Image(gradient)) }) { v in
            let s = min(max(luma(v), 0), 1) * 3
            let j = min(Int(s), 2), f = s - Double(j)
            func pm(_ p: SIMD4<Float>) -> SIMD4<Double> {
                SIMD4(Double(p.x * p.w), Double(p.y * p.w), Double(p.z * p.w), Double(p.w))
            }
            let g = pm(row[j]) + (pm(row[j + 1]) - pm(row[j])) * f
            return SIMD4(g.x / g.w, g.y / g.w, g.z / g.w, g.w * v.w)
        }
        assertThrowsInvalidParameter("inputGradientImage") { _ = try Image(opaque).colorMap(gradient: Image(color: .red)) }
    }

    func testMonochromeFalseColorThermalXRay() throws {
        let c = Color(red: 0.6, green: 0.45, blue: 0.3)
        try assertPointFilter(translucent, tolerance: 2e-6, { try $0.colorMonochrome(color: c, intensity: 0.7) }) { v in
            let l = luma(v)
            return SIMD4(0.3 * v.x + 0.7 * l * 0.6, 0.3 * v.y + 0.7 * l * 0.45, 0.3 * v.z + 0.7 * l * 0.3, v.w)
        }
        let c0 = Color(red: 0.3, green: 0, blue: 0, alpha: 0.8), c1 = Color(red: 1, green: 0.9, blue: 0.8)
        try assertPointFilter(translucent, tolerance: 2e-6, { try $0.falseColor(c0, c1) }) { v in
            let l = min(max(luma(v), 0), 1)
            let a = SIMD4(0.3, 0, 0, 0.8), b = SIMD4(1, 0.9, 0.8, 1.0)
            var o = a + (b - a) * l
            o.w *= v.w
            return o
        }
        // X-ray: black becomes the cool white, white becomes black (stored values).
        let bw = Self.buffer([SIMD4(0, 0, 0, 1), SIMD4(1, 1, 1, 1)], width: 2)
        let x = try renderRaw(try Image(bw).xRay())
        XCTAssertLessThan(abs(x[0, 0] - SIMD4(0.82, 0.92, 1, 1)).max(), 1e-6)
        XCTAssertLessThan(abs(x[1, 0] - SIMD4(0, 0, 0, 1)).max(), 1e-6)
        // Thermal: the ends of the palette, and the gradient map formula in between.
        let stops = FilterDescriptor.thermalStops.map { SIMD4<Double>($0.red, $0.green, $0.blue, 1) }
        try assertPointFilter(opaque, tolerance: 2e-6, { try $0.thermal() }) { v in
            let s = min(max(luma(v), 0), 1) * Double(stops.count - 1)
            let j = min(Int(s), stops.count - 2), f = s - Double(j)
            var o = stops[j] + (stops[j + 1] - stops[j]) * f
            o.w = v.w
            return o
        }
    }

    func testColorsAreLinearizedInALinearContext() throws {
        let input = TestImages.random(
            width: w, height: h, format: .rgbaF32, seed: 45, opaque: true,
            colorEncoding: .linear, alphaMode: .straight)
        let c = Color(red: 0.6, green: 0.45, blue: 0.3)
        let out = try RenderContext().makeBuffer(
            try Image(input).colorMonochrome(color: c), format: .rgbaF32,
            colorEncoding: .linear, alphaMode: .straight)
        let k = SIMD4<Float>(SRGB.toLinear(0.6), SRGB.toLinear(0.45), SRGB.toLinear(0.3), 0)
        for y in 0..<h {
            for x in 0..<w {
                let v = input[x, y]
                var e = k * (0.2126 * v.x + 0.7152 * v.y + 0.0722 * v.z)
                e.w = 1
                XCTAssertLessThan(abs(out[x, y] - e).max(), 2e-6)
            }
        }
    }

    func testPosterizeComponentsAndMaskToAlpha() throws {
        try assertPointFilter(translucent, tolerance: 1e-6, { try $0.colorPosterized(levels: 4) }) { v in
            func q(_ x: Double) -> Double { (x * 3 + 0.5).rounded(.down) / 3 }
            return SIMD4(q(v.x), q(v.y), q(v.z), v.w)
        }
        try assertPointFilter(translucent, tolerance: 0, { try $0.maximumComponent() }) { v in
            let m = max(v.x, v.y, v.z)
            return SIMD4(m, m, m, v.w)
        }
        try assertPointFilter(translucent, tolerance: 0, { try $0.minimumComponent() }) { v in
            let m = min(v.x, v.y, v.z)
            return SIMD4(m, m, m, v.w)
        }
        try assertPointFilter(translucent, tolerance: 2e-6, { try $0.maskToAlpha() }) { v in
            SIMD4(1, 1, 1, min(max(luma(v) * v.w, 0), 1))
        }
    }

    func testPalettizePicksTheNearestPaletteColor() throws {
        let palette: [SIMD4<Float>] = [
            SIMD4(0, 0, 0, 1), SIMD4(1, 1, 1, 1), SIMD4(0.9, 0.1, 0.1, 1), SIMD4(0.1, 0.6, 0.2, 1),
            SIMD4(0.2, 0.3, 0.9, 1), SIMD4(0.8, 0.8, 0.2, 1),
        ]
        let image = Image(Self.buffer(palette, width: palette.count))
        for perceptual in [false, true] {
            try assertPointFilter(translucent, tolerance: 0, { try $0.palettized(palette: image, perceptual: perceptual) }) { v in
                func key(_ c: SIMD4<Double>) -> SIMD3<Double> { perceptual ? Self.lab(c) : SIMD3(c.x, c.y, c.z) }
                let k = key(v)
                let best = palette.min { a, b in
                    let ka = key(SIMD4(Double(a.x), Double(a.y), Double(a.z), 1)) - k
                    let kb = key(SIMD4(Double(b.x), Double(b.y), Double(b.z), 1)) - k
                    return (ka * ka).sum() < (kb * kb).sum()
                }!
                return SIMD4(Double(best.x), Double(best.y), Double(best.z), v.w)
            }
        }
    }

    // MARK: Position-dependent effects

    func testDitherIsBoundedAndDependsOnlyOnPosition() throws {
        let image = try Image(opaque).dithered(intensity: 0.2)
        let out = try renderRaw(image)
        var sum = 0.0
        for y in 0..<h {
            for x in 0..<w {
                let d = out[x, y] - opaque[x, y]
                XCTAssertLessThanOrEqual(abs(d).max(), 0.1 + 1e-6)
                XCTAssertEqual(d.w, 0)
                sum += Double(d.x + d.y + d.z)
                let n = ditherNoise(x: x, y: y)
                XCTAssertEqual(d.x, n.x * 0.2, accuracy: 1e-6)
            }
        }
        XCTAssertLessThan(abs(sum / Double(3 * w * h)), 0.01, "the noise has zero mean")
        // A sub-rect renders the same pixels as the whole.
        let part = try renderRaw(image, rect: Rect(x: 5, y: 3, width: 10, height: 7))
        for y in 0..<7 { for x in 0..<10 { XCTAssertEqual(part[x, y], out[x + 5, y + 3]) } }
    }

    func testVignettes() throws {
        let cx = Double(w) / 2, cy = Double(h) / 2, half = 0.5 * (Double(w * w + h * h)).squareRoot()
        let out = try renderRaw(try Image(opaque).vignette(intensity: 0.8, radius: 0.9))
        for y in 0..<h {
            for x in 0..<w {
                let dx = (Double(x) + 0.5 - cx) / half, dy = (Double(y) + 0.5 - cy) / half
                let f = max(0, 1 - 0.8 * (dx * dx + dy * dy) / 0.81)
                let v = opaque[x, y]
                let e = SIMD4<Float>(Float(Double(v.x) * f), Float(Double(v.y) * f), Float(Double(v.z) * f), v.w)
                XCTAssertLessThan(abs(out[x, y] - e).max(), 2e-6, "(\(x), \(y))")
            }
        }
        let center = Point(x: 15, y: 9)
        let effect = try renderRaw(try Image(opaque).vignetteEffect(center: center, radius: 12, intensity: 0.9, falloff: 0.5))
        for y in 0..<h {
            for x in 0..<w {
                let d = ((Double(x) + 0.5 - 15) * (Double(x) + 0.5 - 15) + (Double(y) + 0.5 - 9) * (Double(y) + 0.5 - 9))
                    .squareRoot()
                let t = min(max((d - 6) / 6, 0), 1)
                let f = 1 - 0.9 * t * t * (3 - 2 * t)
                let v = opaque[x, y]
                let e = SIMD4<Float>(Float(Double(v.x) * f), Float(Double(v.y) * f), Float(Double(v.z) * f), v.w)
                XCTAssertLessThan(abs(effect[x, y] - e).max(), 2e-6, "(\(x), \(y))")
            }
        }
    }
}
