import XCTest

@testable import PixelFlow
@testable import PixelFlowEngine

/// Canvas blend modes, global alpha, saved states and image drawing, against the published
/// formulas (Porter-Duff 1984; W3C Compositing and Blending Level 1 for the separable modes)
/// written out here on premultiplied linear values, and analytic coverage of rectangles.
final class CanvasBlendTests: XCTestCase {
    typealias V = SIMD4<Double>

    /// A premultiplied working value of a straight linear color.
    func premultiplied(_ r: Double, _ g: Double, _ b: Double, _ a: Double) -> V { V(r * a, g * a, b * a, a) }

    /// The W3C separable blend function of one channel (straight values).
    func separable(_ mode: Canvas.BlendMode, _ cb: Double, _ cs: Double) -> Double? {
        switch mode {
        case .multiply: return cb * cs
        case .screen: return cb + cs - cb * cs
        case .darken: return min(cb, cs)
        case .lighten: return max(cb, cs)
        case .difference: return abs(cb - cs)
        case .exclusion: return cb + cs - 2 * cb * cs
        case .hardLight: return cs <= 0.5 ? cb * 2 * cs : cb + (2 * cs - 1) - cb * (2 * cs - 1)
        case .overlay: return cb <= 0.5 ? cs * 2 * cb : cs + (2 * cb - 1) - cs * (2 * cb - 1)
        default: return nil
        }
    }

    /// The expected premultiplied result of `mode` with source `s` and destination `d`.
    func expected(_ mode: Canvas.BlendMode, _ s: V, _ d: V) -> V? {
        let sa = s.w, da = d.w
        switch mode {
        case .normal: return s + d * (1 - sa)
        case .clear: return .zero
        case .copy: return s
        case .sourceIn: return s * da
        case .sourceOut: return s * (1 - da)
        case .sourceAtop: return s * da + d * (1 - sa)
        case .destinationOver: return s * (1 - da) + d
        case .destinationIn: return d * sa
        case .destinationOut: return d * (1 - sa)
        case .destinationAtop: return s * (1 - da) + d * sa
        case .xor: return s * (1 - da) + d * (1 - sa)
        case .plusLighter: return V(min(1, s.x + d.x), min(1, s.y + d.y), min(1, s.z + d.z), min(1, sa + da))
        case .plusDarker:
            let a = min(1, sa + da)
            return V(max(0, s.x + d.x - a), max(0, s.y + d.y - a), max(0, s.z + d.z - a), a)
        default:
            // W3C: co = cs (1 - ab) + cb (1 - as) + as ab B(cb/ab, cs/as), premultiplied.
            var out = V.zero
            for c in 0..<3 {
                guard let b = separable(mode, d[c] / da, s[c] / sa) else { return nil }
                out[c] = s[c] * (1 - da) + d[c] * (1 - sa) + sa * da * b
            }
            out.w = sa + da - sa * da
            return out
        }
    }

    /// A 4 x 1 linear premultiplied float canvas filled with `d`.
    func canvas(_ d: V) throws -> Canvas {
        var c = try Canvas(width: 4, height: 1)
        for x in 0..<4 { c.buffer[x, 0] = SIMD4(Float(d.x), Float(d.y), Float(d.z), Float(d.w)) }
        return c
    }

    func testEveryBlendModeMatchesItsFormulaWithCoverageAndAlpha() throws {
        // Source: straight linear (0.8, 0.3, 0.6) at alpha 0.9, global alpha 0.5 -> Sa 0.45.
        // Colors are given sRGB-encoded; decode to linear for the expectation.
        let srgb = (r: 0.8, g: 0.3, b: 0.6)
        let lin = (SRGB.toLinear(Float(srgb.r)), SRGB.toLinear(Float(srgb.g)), SRGB.toLinear(Float(srgb.b)))
        let s = premultiplied(Double(lin.0), Double(lin.1), Double(lin.2), 0.9 * 0.5)
        let d = premultiplied(0.2, 0.7, 0.4, 0.6)
        var checked = 0
        for mode in Canvas.BlendMode.allCases {
            guard let full = expected(mode, s, d) else { continue }
            checked += 1
            var c = try canvas(d)
            c.alpha = 0.5
            c.blendMode = mode
            // x 0..<1.5: pixel 0 fully covered, pixel 1 half covered, pixels 2-3 untouched.
            c.fillRect(
                Rect(x: 0, y: 0, width: 1.5, height: 1), color: Color(red: srgb.r, green: srgb.g, blue: srgb.b, alpha: 0.9))
            let half = d + (full - d) * 0.5
            for ch in 0..<4 {
                XCTAssertEqual(Double(c.buffer[0, 0][ch]), full[ch], accuracy: 2e-5, "\(mode) full, channel \(ch)")
                XCTAssertEqual(Double(c.buffer[1, 0][ch]), half[ch], accuracy: 2e-5, "\(mode) half, channel \(ch)")
                XCTAssertEqual(Double(c.buffer[2, 0][ch]), d[ch], accuracy: 1e-7, "\(mode) untouched")
            }
        }
        XCTAssertEqual(checked, 21)  // normal, 10 Porter-Duff, 2 plus, 8 separable W3C modes.
        // The non-separable modes keep the W3C alpha and differ from normal.
        for mode in [Canvas.BlendMode.hue, .saturation, .color, .luminosity, .colorDodge, .colorBurn, .softLight] {
            var c = try canvas(d)
            c.blendMode = mode
            c.fillRect(Rect(x: 0, y: 0, width: 1, height: 1), color: Color(red: 0.9, green: 0.1, blue: 0.3, alpha: 1))
            XCTAssertEqual(c.buffer[0, 0].w, 1, accuracy: 1e-6, "\(mode)")
        }
    }

    func testSavedStatesRestoreTransformAlphaAndBlendMode() throws {
        var c = try Canvas(width: 8, height: 8)
        c.transform = AffineTransform(translationX: 2, y: 1)
        c.alpha = 0.25
        c.blendMode = .multiply
        c.saveState()
        c.transform = .identity
        c.alpha = 1
        c.blendMode = .copy
        c.saveState()
        c.alpha = 0.1
        XCTAssertEqual(c.savedStateCount, 2)
        c.restoreState()
        XCTAssertEqual(c.alpha, 1)
        XCTAssertEqual(c.blendMode, .copy)
        c.restoreState()
        XCTAssertEqual(c.transform, AffineTransform(translationX: 2, y: 1))
        XCTAssertEqual(c.alpha, 0.25)
        XCTAssertEqual(c.blendMode, .multiply)
        // Colors and line style are state too.
        c.fillColor = .red
        c.lineStyle.width = 3
        c.saveState()
        c.fillColor = .blue
        c.strokeColor = .green
        c.lineStyle = StrokeStyle(width: 7, cap: .round, dash: [1, 2])
        c.restoreState()
        XCTAssertEqual(c.fillColor, .red)
        XCTAssertEqual(c.strokeColor, Color(red: 0, green: 0, blue: 0))
        XCTAssertEqual(c.lineStyle, StrokeStyle(width: 3))
        c.restoreState()  // unbalanced: ignored, as in Core Graphics
        XCTAssertEqual(c.savedStateCount, 0)
        XCTAssertEqual(c.alpha, 0.25)
        // fill(_:) and stroke(_:) take the state's colors and line style.
        var d = try Canvas(width: 20, height: 10)
        var box = Path()
        box.addRect(Rect(x: 2, y: 2, width: 6, height: 6))
        d.fillColor = Color(red: 1, green: 1, blue: 1, alpha: 0.5)
        d.fill(box)
        XCTAssertEqual(d.buffer[4, 4].w, 0.5, accuracy: 1e-6)
        var line = Path()
        line.move(to: Point(x: 10, y: 5))
        line.addLine(to: Point(x: 20, y: 5))
        d.strokeColor = .white
        d.lineStyle = StrokeStyle(width: 2)
        d.stroke(line)
        XCTAssertEqual(d.buffer[15, 4].w, 1, accuracy: 1e-6)
        XCTAssertEqual(d.buffer[15, 2].w, 0)
    }

    func testDrawImageIntoARect() throws {
        // A 3 x 2 image of one color drawn into a fractional rect: inside pixels take the
        // color, edge pixels their exact area of the rect, pixels outside stay.
        var picture = try PixelBuffer(width: 3, height: 2, format: .rgbaF32)
        for y in 0..<2 { for x in 0..<3 { picture[x, y] = SIMD4(0.5, 0.25, 0.125, 1) } }
        var c = try Canvas(width: 12, height: 10)
        let rect = Rect(x: 2.5, y: 1, width: 6, height: 4.25)
        try c.draw(picture, in: rect)
        var area = 0.0
        for y in 0..<10 {
            for x in 0..<12 {
                let ox = max(0, min(Double(x + 1), rect.maxX) - max(Double(x), rect.minX))
                let oy = max(0, min(Double(y + 1), rect.maxY) - max(Double(y), rect.minY))
                let cover = ox * oy
                area += Double(c.buffer[x, y].w)
                XCTAssertEqual(Double(c.buffer[x, y].w), cover, accuracy: 1e-6, "(\(x), \(y))")
                XCTAssertEqual(Double(c.buffer[x, y].x), 0.5 * cover, accuracy: 1e-5, "(\(x), \(y))")
            }
        }
        XCTAssertEqual(area, 6 * 4.25, accuracy: 1e-4)
    }

    func testGhostAtHalfAlphaSourceAtop() throws {
        // SpookCam's overlay: a ghost at alpha 0.5, source-atop, on a photo with a transparent
        // hole: where the photo is transparent nothing is painted.
        var photo = try Canvas(width: 6, height: 4)
        photo.fillRect(Rect(x: 0, y: 0, width: 6, height: 4), color: Color(red: 0.2, green: 0.4, blue: 0.6, alpha: 1))
        photo.blendMode = .clear
        photo.fillRect(Rect(x: 4, y: 0, width: 2, height: 4), color: .white)
        let d = photo.buffer[0, 0]
        var ghost = try PixelBuffer(width: 2, height: 2, format: .rgbaF32)
        for y in 0..<2 { for x in 0..<2 { ghost[x, y] = SIMD4(0.9, 0.9, 0.9, 0.8) } }
        photo.blendMode = .sourceAtop
        photo.alpha = 0.5
        try photo.draw(ghost, in: Rect(x: 2, y: 0, width: 4, height: 4), interpolation: .nearest)
        let s = SIMD4<Float>(0.9, 0.9, 0.9, 0.8) * 0.5
        let want = s * d.w + d * (1 - s.w)
        for y in 0..<4 {
            XCTAssertEqual(photo.buffer[0, y], d)
            for ch in 0..<4 { XCTAssertEqual(photo.buffer[3, y][ch], want[ch], accuracy: 1e-6) }
            XCTAssertEqual(photo.buffer[4, y], .zero)
            XCTAssertEqual(photo.buffer[5, y], .zero)
        }
    }

    func testDrawnImagesAreTheSameForEveryThreadCountAndTileSize() throws {
        let picture = TestImages.random(width: 37, height: 23, format: .rgba8, seed: 9)
        var results: [PixelBuffer] = []
        for (threads, tile) in [(1, 256), (2, 16), (3, 7)] {
            var options = RenderContext.Options()
            options.threadCount = threads
            options.tileWidth = tile
            options.tileHeight = tile
            var c = try Canvas(width: 50, height: 40)
            c.transform = AffineTransform(rotationAngle: 0.3).concatenating(AffineTransform(translationX: 12, y: 3))
            c.blendMode = .screen
            try c.draw(Image(picture), in: Rect(x: 1.5, y: 2.25, width: 30, height: 20), context: RenderContext(options: options))
            results.append(c.buffer)
        }
        XCTAssertEqual(maxDifference(results[0], results[1]), 0)
        XCTAssertEqual(maxDifference(results[0], results[2]), 0)
        XCTAssertGreaterThan(results[0][20, 15].w, 0)
    }

    func testBadImageInputThrows() throws {
        var c = try Canvas(width: 4, height: 4)
        XCTAssertThrowsError(try c.draw(Image(color: .red), in: Rect(x: 0, y: 0, width: 2, height: 2)))
        let p = try PixelBuffer(width: 2, height: 2, format: .rgba8)
        XCTAssertThrowsError(try c.draw(p, in: Rect(x: 0, y: .nan, width: 2, height: 2)))
        XCTAssertThrowsError(try c.draw(p, in: Rect(x: 0, y: 0, width: 0, height: 2)))
        c.alpha = .nan
        try c.draw(p, in: Rect(x: 0, y: 0, width: 2, height: 2))
        XCTAssertEqual(c.buffer[0, 0], .zero)
    }
}
