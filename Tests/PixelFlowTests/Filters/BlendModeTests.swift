import XCTest
@testable import PixelFlow
@testable import PixelFlowKernels
@testable import PixelFlowGraph
@testable import PixelFlowEngine

/// The composite operations of Filters/BlendModeFilters.swift rendered end to end and compared
/// with plain scalar formulas written here from the W3C Compositing and Blending Level 1
/// specification (general formula, separable and non-separable modes), Porter-Duff, and Core
/// Image's definitions, on stored values (`colorManagement: .none`) of seeded random
/// translucent images.
///
/// Tolerance: 1e-6 on premultiplied results (absolute; relative above 1 for divide, whose
/// quotient is unbounded); the largest error seen is 2.2e-7. The kernels unpremultiply
/// `v * a / a`, which differs from the straight value `v` by an ulp, and the premultiplied
/// rewrites reorder a few products.
final class BlendModeTests: XCTestCase {
    let w = 37, h = 23
    lazy var foreground = TestImages.random(
        width: w, height: h, format: .rgbaF32, seed: 21, opaque: false,
        colorEncoding: .sRGB, alphaMode: .straight)
    lazy var background = TestImages.random(
        width: w, height: h, format: .rgbaF32, seed: 22, opaque: false,
        colorEncoding: .sRGB, alphaMode: .straight)
    lazy var opaqueImage = TestImages.random(
        width: w, height: h, format: .rgbaF32, seed: 23, opaque: true,
        colorEncoding: .sRGB, alphaMode: .straight)

    /// Renders into premultiplied rgbaF32: the working values themselves, without conversion.
    func renderPremultiplied(_ image: Image, rect: Rect? = nil) throws -> PixelBuffer {
        try rawContext.makeBuffer(image, rect: rect, format: .rgbaF32, colorEncoding: .sRGB, alphaMode: .premultiplied)
    }

    // MARK: Scalar references (Double, straight colors, written from the specifications)

    typealias RGB = (r: Double, g: Double, b: Double)

    /// W3C color-dodge.
    static func colorDodge(_ cb: Double, _ cs: Double) -> Double {
        if cb == 0 { return 0 }
        if cs >= 1 { return 1 }
        return min(1, cb / (1 - cs))
    }

    /// W3C color-burn.
    static func colorBurn(_ cb: Double, _ cs: Double) -> Double {
        if cb == 1 { return 1 }
        if cs == 0 { return 0 }
        return 1 - min(1, (1 - cb) / cs)
    }

    /// W3C hard-light.
    static func hardLight(_ cb: Double, _ cs: Double) -> Double {
        if cs <= 0.5 { return cb * 2 * cs }
        let s = 2 * cs - 1
        return cb + s - cb * s  // screen(cb, 2cs - 1)
    }

    /// W3C soft-light.
    static func softLight(_ cb: Double, _ cs: Double) -> Double {
        if cs <= 0.5 { return cb - (1 - 2 * cs) * cb * (1 - cb) }
        let d = cb <= 0.25 ? ((16 * cb - 12) * cb + 4) * cb : cb.squareRoot()
        return cb + (2 * cs - 1) * (d - cb)
    }

    /// The separable blend function of `mode`, or nil for the non-separable modes.
    static func separable(_ mode: BlendMode) -> ((Double, Double) -> Double)? {
        switch mode {
        case .multiply: return { cb, cs in cb * cs }
        case .screen: return { cb, cs in cb + cs - cb * cs }
        case .overlay: return { cb, cs in hardLight(cs, cb) }
        case .darken: return { cb, cs in min(cb, cs) }
        case .lighten: return { cb, cs in max(cb, cs) }
        case .colorDodge: return colorDodge
        case .colorBurn: return colorBurn
        case .hardLight: return hardLight
        case .softLight: return softLight
        case .difference: return { cb, cs in abs(cb - cs) }
        case .exclusion: return { cb, cs in cb + cs - 2 * cb * cs }
        case .linearBurn: return { cb, cs in cb + cs - 1 }
        case .linearDodge: return { cb, cs in cb + cs }
        case .linearLight: return { cb, cs in cb + 2 * cs - 1 }
        case .pinLight: return { cb, cs in cs <= 0.5 ? min(cb, 2 * cs) : max(cb, 2 * cs - 1) }
        case .vividLight: return { cb, cs in cs <= 0.5 ? colorBurn(cb, 2 * cs) : colorDodge(cb, 2 * cs - 1) }
        case .divide: return { cb, cs in cs == 0 ? 1 : cb / cs }
        case .subtract: return { cb, cs in max(cb - cs, 0) }
        case .hue, .saturation, .color, .luminosity: return nil
        }
    }

    static func lum(_ c: RGB) -> Double { 0.3 * c.r + 0.59 * c.g + 0.11 * c.b }

    static func clipColor(_ c: RGB) -> RGB {
        let l = lum(c)
        let n = min(c.r, c.g, c.b), x = max(c.r, c.g, c.b)
        var c = c
        if n < 0 { c = (l + (c.r - l) * l / (l - n), l + (c.g - l) * l / (l - n), l + (c.b - l) * l / (l - n)) }
        if x > 1 { c = (l + (c.r - l) * (1 - l) / (x - l), l + (c.g - l) * (1 - l) / (x - l), l + (c.b - l) * (1 - l) / (x - l)) }
        return c
    }

    static func setLum(_ c: RGB, _ l: Double) -> RGB {
        let d = l - lum(c)
        return clipColor((c.r + d, c.g + d, c.b + d))
    }

    static func sat(_ c: RGB) -> Double { max(c.r, c.g, c.b) - min(c.r, c.g, c.b) }

    /// W3C SetSat, written as in the specification: sort the channels into max, mid and min.
    static func setSat(_ c: RGB, _ s: Double) -> RGB {
        var v = [c.r, c.g, c.b]
        let order = [0, 1, 2].sorted { v[$0] < v[$1] }  // min, mid, max indices
        let (iMin, iMid, iMax) = (order[0], order[1], order[2])
        if v[iMax] > v[iMin] {
            v[iMid] = (v[iMid] - v[iMin]) * s / (v[iMax] - v[iMin])
            v[iMax] = s
        } else {
            v[iMid] = 0
            v[iMax] = 0
        }
        v[iMin] = 0
        return (v[0], v[1], v[2])
    }

    /// The blend function of `mode` on straight colors.
    static func blend(_ mode: BlendMode, _ cb: RGB, _ cs: RGB) -> RGB {
        if let b = separable(mode) { return (b(cb.r, cs.r), b(cb.g, cs.g), b(cb.b, cs.b)) }
        switch mode {
        case .hue: return setLum(setSat(cs, sat(cb)), lum(cb))
        case .saturation: return setLum(setSat(cb, sat(cs)), lum(cb))
        case .color: return setLum(cs, lum(cb))
        case .luminosity: return setLum(cb, lum(cs))
        default: fatalError("separable")
        }
    }

    /// W3C general formula on premultiplied output from straight inputs `f` (source) and `b`
    /// (backdrop).
    static func reference(_ mode: BlendMode, _ f: SIMD4<Float>, _ b: SIMD4<Float>) -> SIMD4<Double> {
        let fs = SIMD4<Double>(f), bs = SIMD4<Double>(b)
        let aS = fs.w, aB = bs.w
        let mixed = blend(mode, (bs.x, bs.y, bs.z), (fs.x, fs.y, fs.z))
        func ch(_ cs: Double, _ cb: Double, _ m: Double) -> Double {
            cs * aS * (1 - aB) + cb * aB * (1 - aS) + aS * aB * m
        }
        return SIMD4(ch(fs.x, bs.x, mixed.r), ch(fs.y, bs.y, mixed.g), ch(fs.z, bs.z, mixed.b), aS + aB - aS * aB)
    }

    /// Premultiplied in Float, as the source loader does, so that pixels passed through
    /// unchanged compare exactly.
    static func premultiplied(_ v: SIMD4<Float>) -> SIMD4<Double> {
        SIMD4<Double>(v * SIMD4(v.w, v.w, v.w, 1))
    }

    func assertClose(
        _ got: SIMD4<Float>, _ expected: SIMD4<Double>, tolerance: Double = 1e-6, relative: Bool = false,
        _ message: @autoclosure () -> String, file: StaticString = #filePath, line: UInt = #line
    ) {
        let g = SIMD4<Double>(got)
        for c in 0..<4 {
            let scale = relative ? max(1, abs(expected[c])) : 1
            if !(abs(g[c] - expected[c]) <= tolerance * scale) {
                XCTFail("\(message()) channel \(c): \(got) vs \(expected)", file: file, line: line)
                return
            }
        }
    }

    // MARK: Every filter against its reference

    func testEveryBlendModeMatchesTheW3CFormulaOnTranslucentImages() throws {
        let fg = Image(foreground), bg = Image(background)
        for mode in BlendMode.allCases {
            let typed = try renderPremultiplied(try fg.blended(over: bg, mode: mode))
            let named = try renderPremultiplied(
                try FilterRegistry.apply(
                    mode.filterName,
                    [
                        "inputImage": .image(fg),
                        "inputBackgroundImage": .image(bg),
                    ]))
            XCTAssertTrue(typed == named, "\(mode): typed method and registry differ")
            for y in 0..<h {
                for x in 0..<w {
                    let e = Self.reference(mode, foreground[x, y], background[x, y])
                    assertClose(typed[x, y], e, relative: mode == .divide, "\(mode) at (\(x), \(y))")
                }
            }
        }
    }

    func testComponentwiseAndPorterDuffOperatorsMatchTheirDefinitions() throws {
        let fg = Image(foreground), bg = Image(background)
        let cases: [(String, Image, (SIMD4<Double>, SIMD4<Double>) -> SIMD4<Double>)] = [
            ("CIAdditionCompositing", try fg.added(to: bg), { f, b in f + b }),
            (
                "CIMaximumCompositing", try fg.componentwiseMaximum(with: bg),
                { f, b in SIMD4(max(f.x, b.x), max(f.y, b.y), max(f.z, b.z), max(f.w, b.w)) }
            ),
            (
                "CIMinimumCompositing", try fg.componentwiseMinimum(with: bg),
                { f, b in SIMD4(min(f.x, b.x), min(f.y, b.y), min(f.z, b.z), min(f.w, b.w)) }
            ),
            ("CIMultiplyCompositing", try fg.multiplied(by: bg), { f, b in f * b }),
            ("CISourceInCompositing", try fg.composited(inside: bg), { f, b in f * b.w }),
            ("CISourceOutCompositing", try fg.composited(outside: bg), { f, b in f * (1 - b.w) }),
        ]
        for (name, image, ref) in cases {
            let out = try renderPremultiplied(image)
            let named = try renderPremultiplied(
                try FilterRegistry.apply(name, ["inputImage": .image(fg), "inputBackgroundImage": .image(bg)]))
            XCTAssertTrue(out == named, "\(name): typed method and registry differ")
            for y in 0..<h {
                for x in 0..<w {
                    let e = ref(Self.premultiplied(foreground[x, y]), Self.premultiplied(background[x, y]))
                    assertClose(out[x, y], e, tolerance: 1e-6, "\(name) at (\(x), \(y))")
                }
            }
        }
    }

    // MARK: Values checked by hand

    /// A 1x1 image of a color, premultiplied by the generator.
    func pixel(_ r: Double, _ g: Double, _ b: Double, _ a: Double = 1) -> Image {
        Image(color: Color(red: r, green: g, blue: b, alpha: a)).cropped(to: Rect(x: 0, y: 0, width: 1, height: 1))
    }

    func blendedPixel(_ fg: Image, _ bg: Image, _ mode: BlendMode) throws -> SIMD4<Float> {
        try renderPremultiplied(try fg.blended(over: bg, mode: mode))[0, 0]
    }

    func testKnownValues() throws {
        let half = pixel(0.5, 0.5, 0.5), quarter = pixel(0.25, 0.25, 0.25), black = pixel(0, 0, 0)
        func gray(_ v: Float) -> SIMD4<Float> { SIMD4(v, v, v, 1) }
        func check(_ fg: Image, _ bg: Image, _ mode: BlendMode, _ expected: SIMD4<Float>, line: UInt = #line) throws {
            let g = try blendedPixel(fg, bg, mode)
            XCTAssertLessThanOrEqual(abs(g - expected).max(), 1e-6, "\(mode): \(g) vs \(expected)", line: line)
        }
        try check(half, half, .screen, gray(0.75))  // 1 - 0.5 * 0.5
        try check(half, half, .multiply, gray(0.25))
        try check(half, quarter, .colorDodge, gray(0.5))  // 0.25 / (1 - 0.5)
        try check(half, quarter, .colorBurn, gray(0))  // 1 - min(1, 0.75 / 0.5)
        try check(quarter, half, .colorBurn, gray(0))  // 1 - min(1, 0.5 / 0.25)
        try check(pixel(0.8, 0.8, 0.8), half, .colorBurn, gray(0.375))  // 1 - 0.5 / 0.8
        try check(quarter, half, .difference, gray(0.25))
        try check(half, quarter, .exclusion, gray(0.5))  // 0.25 + 0.5 - 2 * 0.125
        try check(pixel(0.75, 0.75, 0.75), quarter, .softLight, gray(0.375))  // 0.25 + 0.5 * (D(0.25) - 0.25), D(0.25) = 0.5
        try check(pixel(0.75, 0.75, 0.75), quarter, .hardLight, gray(0.625))  // screen(0.25, 0.5)
        try check(quarter, pixel(0.75, 0.75, 0.75), .overlay, gray(0.625))  // hardLight with roles swapped
        try check(half, quarter, .divide, gray(0.5))  // 0.25 / 0.5
        try check(black, quarter, .divide, gray(1))  // Cs = 0 gives 1
        try check(half, quarter, .subtract, gray(0))  // max(0.25 - 0.5, 0)
        try check(quarter, half, .subtract, gray(0.25))
        try check(pixel(0.75, 0.75, 0.75), half, .linearDodge, gray(1.25))  // not clamped
        try check(half, quarter, .linearBurn, gray(-0.25))  // not clamped
        try check(pixel(0.75, 0.75, 0.75), half, .linearLight, gray(1))  // 0.5 + 1.5 - 1
        try check(quarter, pixel(0.75, 0.75, 0.75), .pinLight, gray(0.5))  // min(0.75, 0.5)
        try check(pixel(0.75, 0.75, 0.75), quarter, .pinLight, gray(0.5))  // max(0.25, 0.5)
        try check(quarter, half, .vividLight, gray(0))  // colorBurn(0.5, 0.5) = 1 - min(1, 1)
        try check(pixel(0.75, 0.75, 0.75), quarter, .vividLight, gray(0.5))  // colorDodge(0.25, 0.5)
        // Color of pure red on 50% gray: SetLum(red, 0.5) = (1.2, 0.2, 0.2), clipped toward
        // luminosity 0.5 by (1 - 0.5) / (1.2 - 0.5): (1, 2/7, 2/7).
        try check(pixel(1, 0, 0), half, .color, SIMD4(1, 2.0 / 7, 2.0 / 7, 1))
        // Luminosity of 50% gray onto red: the same colour.
        try check(half, pixel(1, 0, 0), .luminosity, SIMD4(1, 2.0 / 7, 2.0 / 7, 1))
        // Luminosity of 10% gray onto red: SetLum(red, 0.1) = (0.8, -0.2, -0.2), clipped from
        // below toward luminosity 0.1 by 0.1 / (0.1 + 0.2): (1/3, 0, 0).
        try check(pixel(0.1, 0.1, 0.1), pixel(1, 0, 0), .luminosity, SIMD4(1.0 / 3, 0, 0, 1))
        // Saturation of a gray foreground makes the background gray at its own luminosity.
        try check(half, pixel(1, 0, 0), .saturation, gray(0.3))
        // Hue of a gray foreground: SetSat(gray, s) is black, then lifted to Lum(Cb).
        try check(half, pixel(0.2, 0.4, 0.6), .hue, gray(Float(0.3 * 0.2 + 0.59 * 0.4 + 0.11 * 0.6)))
        // Translucent: screen of 50% gray at alpha 0.5 over opaque 50% gray:
        // 0.25 * 0 + 0.5 * 0.5 + 0.5 * 1 * 0.75 = 0.625, alpha 1.
        try check(pixel(0.5, 0.5, 0.5, 0.5), half, .screen, gray(0.625))
        // Component-wise operators on premultiplied values.
        let a = pixel(0.5, 0.25, 1, 0.5), b = pixel(0.25, 0.5, 0.5, 1)  // premultiplied a: (0.25, 0.125, 0.5, 0.5)
        XCTAssertEqual(try renderPremultiplied(try a.added(to: b))[0, 0], SIMD4(0.5, 0.625, 1, 1.5))
        XCTAssertEqual(try renderPremultiplied(try a.componentwiseMaximum(with: b))[0, 0], SIMD4(0.25, 0.5, 0.5, 1))
        XCTAssertEqual(try renderPremultiplied(try a.componentwiseMinimum(with: b))[0, 0], SIMD4(0.25, 0.125, 0.5, 0.5))
        XCTAssertEqual(try renderPremultiplied(try a.multiplied(by: b))[0, 0], SIMD4(0.0625, 0.0625, 0.25, 0.5))
        XCTAssertEqual(
            try renderPremultiplied(try a.composited(inside: pixel(0, 0, 0, 0.5)))[0, 0], SIMD4(0.125, 0.0625, 0.25, 0.25))
        XCTAssertEqual(
            try renderPremultiplied(try a.composited(outside: pixel(0, 0, 0, 0.75)))[0, 0], SIMD4(0.0625, 0.03125, 0.125, 0.125))
    }

    // MARK: Identity-like properties

    func testNeutralBackdropsAndSelfBlendsLeaveTheImage() throws {
        let img = Image(opaqueImage)
        let r = Image(opaqueImage).extent
        func constant(_ v: Double) -> Image { Image(color: Color(red: v, green: v, blue: v)).cropped(to: r) }
        let white = constant(1), black = constant(0), gray = constant(0.5)
        // (mode, foreground, background, expected): the opaque image comes back.
        let cases: [(BlendMode, Image, Image, String)] = [
            (.multiply, img, white, "image x white"), (.screen, img, black, "image screen black"),
            (.darken, img, white, "darken with white"), (.lighten, img, black, "lighten with black"),
            (.difference, img, black, "difference with black"), (.exclusion, img, black, "exclusion with black"),
            (.linearDodge, img, black, "linear dodge with black"), (.linearBurn, img, white, "linear burn with white"),
            (.overlay, img, gray, "overlay onto 50% gray"),
            (.hardLight, gray, img, "hard light of 50% gray"), (.softLight, gray, img, "soft light of 50% gray"),
            (.linearLight, gray, img, "linear light of 50% gray"), (.pinLight, gray, img, "pin light of 50% gray"),
            (.vividLight, gray, img, "vivid light of 50% gray"), (.colorDodge, black, img, "dodge with black"),
            (.colorBurn, white, img, "burn with white"), (.divide, white, img, "divide by white"),
            (.subtract, black, img, "subtract black"),
            (.darken, img, img, "darken self"), (.lighten, img, img, "lighten self"),
            (.hue, img, img, "hue self"), (.saturation, img, img, "saturation self"),
            (.color, img, img, "color self"), (.luminosity, img, img, "luminosity self"),
        ]
        for (mode, fg, bg, what) in cases {
            let out = try renderPremultiplied(try fg.blended(over: bg, mode: mode))
            for y in 0..<h {
                for x in 0..<w {
                    assertClose(out[x, y], SIMD4<Double>(opaqueImage[x, y]), "\(what) (\(mode)) at (\(x), \(y))")
                }
            }
        }
        // Porter-Duff: in an opaque background the image is unchanged; out of it, nothing is left.
        let t = Image(foreground)
        XCTAssertLessThan(
            maxDifference(try renderPremultiplied(try t.composited(inside: white)), try renderPremultiplied(t)), 1e-7)
        XCTAssertEqual(
            maxDifference(
                try renderPremultiplied(try t.composited(outside: white)),
                try PixelBuffer(width: w, height: h, format: .rgbaF32, alphaMode: .premultiplied)), 0)
    }

    // MARK: Extents

    func testDifferentExtentsKeepEachImageAloneAndNothingOutside() throws {
        // Foreground on [0, 20) x [0, 15), background on [12, 37) x [6, 23): they overlap on
        // [12, 20) x [6, 15); [20, 37) x [0, 6) is outside both.
        let fgRect = Rect(x: 0, y: 0, width: 20, height: 15), bgRect = Rect(x: 12, y: 6, width: 25, height: 17)
        let fg = Image(foreground).cropped(to: fgRect), bg = Image(background).cropped(to: bgRect)
        let union = Rect(x: 0, y: 0, width: 37, height: 23)
        func region(_ x: Int, _ y: Int) -> (inF: Bool, inB: Bool) {
            (x < 20 && y < 15, x >= 12 && y >= 6)
        }
        for mode in BlendMode.allCases {
            let image = try fg.blended(over: bg, mode: mode)
            XCTAssertEqual(image.extent, union, "\(mode)")
            let out = try renderPremultiplied(image)
            for y in 0..<h {
                for x in 0..<w {
                    let (inF, inB) = region(x, y)
                    let f = inF ? Self.premultiplied(foreground[x, y]) : .zero
                    let b = inB ? Self.premultiplied(background[x, y]) : .zero
                    switch (inF, inB) {
                    case (true, true):
                        assertClose(
                            out[x, y], Self.reference(mode, foreground[x, y], background[x, y]),
                            relative: mode == .divide, "\(mode) overlap (\(x), \(y))")
                    case (true, false): XCTAssertEqual(SIMD4<Double>(out[x, y]), f, "\(mode) foreground only (\(x), \(y))")
                    case (false, true): XCTAssertEqual(SIMD4<Double>(out[x, y]), b, "\(mode) background only (\(x), \(y))")
                    case (false, false): XCTAssertEqual(out[x, y], .zero, "\(mode) outside both (\(x), \(y))")
                    }
                }
            }
        }
        // Component-wise operators: union extents.
        XCTAssertEqual(try fg.added(to: bg).extent, union)
        XCTAssertEqual(try fg.componentwiseMaximum(with: bg).extent, union)
        XCTAssertEqual(try fg.componentwiseMinimum(with: bg).extent, union)
        XCTAssertEqual(try fg.multiplied(by: bg).extent, union)
        let added = try renderPremultiplied(try fg.added(to: bg))
        XCTAssertEqual(SIMD4<Double>(added[3, 3]), Self.premultiplied(foreground[3, 3]))
        XCTAssertEqual(SIMD4<Double>(added[30, 20]), Self.premultiplied(background[30, 20]))
        XCTAssertEqual(added[30, 2], .zero)
        let minimum = try renderPremultiplied(try fg.componentwiseMinimum(with: bg))
        XCTAssertEqual(minimum[3, 3], .zero)
        XCTAssertEqual(minimum[30, 20], .zero)
        // Porter-Duff: source-in lives on the intersection, source-out on the foreground.
        let inside = try fg.composited(inside: bg), outside = try fg.composited(outside: bg)
        XCTAssertEqual(inside.extent, Rect(x: 12, y: 6, width: 8, height: 9))
        XCTAssertEqual(outside.extent, fgRect)
        let insidePx = try renderPremultiplied(inside, rect: union), outsidePx = try renderPremultiplied(outside, rect: union)
        for y in 0..<h {
            for x in 0..<w {
                let (inF, inB) = region(x, y)
                let f = inF ? Self.premultiplied(foreground[x, y]) : .zero
                let bA = inB ? Double(background[x, y].w) : 0
                assertClose(insidePx[x, y], f * bA, tolerance: 1e-7, "source-in (\(x), \(y))")
                assertClose(outsidePx[x, y], f * (1 - bA), tolerance: 1e-7, "source-out (\(x), \(y))")
            }
        }
    }

    // MARK: Registry metadata

    func testRegistryListsEveryCompositeOperationWithCoreImageMetadata() throws {
        let compositing = [
            "CIAdditionCompositing": "Addition", "CIMaximumCompositing": "Maximum",
            "CIMinimumCompositing": "Minimum", "CIMultiplyCompositing": "Multiply",
            "CISourceAtopCompositing": "Source Atop", "CISourceInCompositing": "Source In",
            "CISourceOutCompositing": "Source Out", "CISourceOverCompositing": "Source Over",
        ]
        let modes = [
            "Color", "ColorBurn", "ColorDodge", "Darken", "Difference", "Divide", "Exclusion", "HardLight",
            "Hue", "Lighten", "LinearBurn", "LinearDodge", "LinearLight", "Luminosity", "Multiply", "Overlay",
            "PinLight", "Saturation", "Screen", "SoftLight", "Subtract", "VividLight",
        ]
        XCTAssertEqual(BlendMode.allCases.map(\.filterName), modes.map { "CI\($0)BlendMode" })
        let listed = Set(FilterRegistry.filterNames(inCategories: [.compositeOperation]))
        for (name, display) in compositing {
            let d = try XCTUnwrap(FilterRegistry.descriptor(named: name), name)
            XCTAssertEqual(d.displayName, display)
            XCTAssertTrue(d.categories.contains(.highDynamicRange), name)
            XCTAssertEqual(d.inputKeys, ["inputImage", "inputBackgroundImage"], name)
            XCTAssertTrue(listed.contains(name), name)
        }
        for mode in BlendMode.allCases {
            let d = try XCTUnwrap(FilterRegistry.descriptor(named: mode.filterName))
            XCTAssertEqual(d.displayName, mode.displayName)
            XCTAssertFalse(d.categories.contains(.highDynamicRange), d.name)
            XCTAssertTrue(d.categories.contains(.builtIn), d.name)
            XCTAssertEqual(d.inputKeys, ["inputImage", "inputBackgroundImage"], d.name)
            XCTAssertFalse(d.summary.isEmpty)
            XCTAssertTrue(listed.contains(d.name))
        }
        XCTAssertEqual(BlendMode.colorBurn.displayName, "Color Burn Blend Mode")
        XCTAssertNotNil(FilterRegistry.descriptor(named: "SoftLightBlendMode"))
        XCTAssertEqual(FilterDescriptor.blendModeFilters.count, 28)  // + source-over and source-atop in CompositeFilters
        XCTAssertEqual(Set(FilterDescriptor.blendModeFilters.map(\.name)).count, 28)
        // A missing background is reported with its key.
        XCTAssertThrowsError(try FilterRegistry.apply("CIHueBlendMode", ["inputImage": .image(Image(foreground))])) { e in
            guard case let PixelFlowError.invalidParameter(_, key, _) = e else { return XCTFail("\(e)") }
            XCTAssertEqual(key, "inputBackgroundImage")
        }
    }

    // MARK: Schedule independence

    func testTileSizeAndThreadsDoNotChangeBlends() throws {
        let fg = Image(foreground).cropped(to: Rect(x: 3, y: 2, width: 30, height: 18)), bg = Image(background)
        for mode in [BlendMode.softLight, .hue, .divide, .pinLight] {
            let image = try fg.blended(over: bg, mode: mode)
            let reference = try RenderContext(threadCount: 1, tileWidth: 1 << 20, tileHeight: 1 << 20, colorManagement: .none)
                .makeBuffer(image, format: .rgbaF32)
            for (threads, tw, th) in [(2, 16, 16), (3, 7, 5)] {
                let out = try RenderContext(threadCount: threads, tileWidth: tw, tileHeight: th, colorManagement: .none)
                    .makeBuffer(image, format: .rgbaF32)
                XCTAssertTrue(out == reference, "\(mode): threads \(threads) tile \(tw)x\(th)")
            }
            try assertMatchesReference(image, context: RenderContext(colorManagement: .none), colorEncoding: .sRGB, "\(mode)")
        }
    }
}
