// Halftone filters: screen the image's luma (or its CMYK inks) against a periodic pattern.
// Each is a warp-free two-node graph that runs fused in one pass: a generator carries the
// screen pattern (a threshold in [0, 1] per pixel center, per ink for CMYK) and a blend
// compares the image with it. Positions are top-left-origin pixels, angles radians.
//
// With (u, v) the pixel center relative to `inputCenter`, rotated by -angle, and w the
// screen's width (period, pixels):
//
// | screen | threshold |
// |---|---|
// | dot | 1/2 + (cos(2 pi u / w) + cos(2 pi v / w)) / 4 |
// | line | 1/2 + cos(2 pi v / w) / 2 |
// | circular | 1/2 + cos(2 pi rho / w) / 2, rho the distance to the center |
// | hatched | 1/2 + max(cos(2 pi u / w), cos(2 pi v / w)) / 2 |
//
// The output is white where the luma L (Rec. 709 weights on the working values) exceeds the
// threshold T: v = clamp(1/2 + (L - T) * k, 0, 1) with k = 1 / max(1 - sharpness, 0.001),
// alpha kept. CMYK: C = 1 - R, M = 1 - G, Y = 1 - B, K = gcr * min(C, M, Y), and each of
// C, M, Y loses ucr * K; each ink is screened with dots at angle + 15, 75, 0 and 45 degrees,
// and the inks multiply: R = (1 - c)(1 - k), G = (1 - m)(1 - k), B = (1 - y)(1 - k).

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

extension FilterDescriptor {
    static let halftoneFilters: [FilterDescriptor] = [cmykHalftone, circularScreen, dotScreen, hatchedScreen, lineScreen]

    static func _screenWidth() -> FilterInput {
        .number(
            "inputWidth", .distance, default: 6, min: 0.5, max: 4096, sliderMin: 2, sliderMax: 50,
            summary: "The period of the screen, in pixels.")
    }
    static func _sharpness() -> FilterInput {
        .number(
            "inputSharpness", default: 0.7, min: 0, max: 1,
            summary: "0 gives a soft ramp across each dot's edge, 1 a hard threshold.")
    }

    /// The screen thresholds at `(u, v)` (rotated, relative coordinates) for one pattern.
    enum _Screen: String, Sendable {
        case dot, line, circular, hatched

        @inline(__always)
        func threshold(u: Double, v: Double, width w: Double) -> Float {
            let k = 2 * Double.pi / w
            switch self {
            case .dot: return Float(0.5 + 0.25 * (cos(k * u) + cos(k * v)))
            case .line: return Float(0.5 + 0.5 * cos(k * v))
            case .circular: return Float(0.5 + 0.5 * cos(k * (u * u + v * v).squareRoot()))
            case .hatched: return Float(0.5 + 0.5 * Swift.max(cos(k * u), cos(k * v)))
            }
        }
    }

    /// The generator of `screen` thresholds, one per channel for the rotations `angles`.
    static func _screenImage(_ screen: _Screen, center c: Point, angles: [Double], width: Double) -> Image {
        let rot = angles.map { (cos($0), sin($0)) }
        let name = "screen \(screen.rawValue) \(c) a\(angles) w\(width)"
        let g = GeneratorKernel(name: name, constant: nil) { x0, y, n, out, _ in
            let dy = Double(y) + 0.5 - c.y
            for i in 0..<n {
                let dx = Double(x0 + i) + 0.5 - c.x
                var t = SIMD4<Float>(repeating: 0)
                for (j, r) in rot.enumerated() {
                    t[j] = screen.threshold(u: r.0 * dx + r.1 * dy, v: -r.1 * dx + r.0 * dy, width: width)
                }
                out[i] = t
            }
        }
        return Image(node: Node(.generator(g), inputs: [], extent: .infinite))
    }

    static func _slope(_ sharpness: Double) -> Float { Float(1 / Swift.max(1 - sharpness, 0.001)) }

    /// One-screen halftone of the luma.
    static func _lumaHalftone(_ a: FilterArguments, _ screen: _Screen, angled: Bool = true) throws -> Image {
        let image = try a.image(), c = try a._point("inputCenter"), w = try a.number("inputWidth")
        let angle = angled ? try a.number("inputAngle") : 0
        let k = _slope(try a.number("inputSharpness"))
        let pattern = _screenImage(screen, center: c, angles: [angle], width: w)
        return pattern.blended(
            with: image,
            kernel: BlendKernel(name: "halftone luma k\(k)", extentRule: .background) { fg, dst, n in
                for i in 0..<n {
                    let p = dst[i]
                    guard p.w > 0 else { dst[i] = .zero; continue }
                    let luma = (0.2126 * p.x + 0.7152 * p.y + 0.0722 * p.z) / p.w
                    let v = Swift.min(Swift.max(0.5 + (luma - fg[i].x) * k, 0), 1) * p.w
                    dst[i] = SIMD4(v, v, v, p.w)
                }
            })
    }

    static let dotScreen = FilterDescriptor(
        name: "CIDotScreen", displayName: "Dot Screen",
        summary: "Screens the luma with a rotated grid of dots (black and white).",
        categories: [.halftoneEffect],
        inputs: [.image(), _center(), _tileAngle(), _screenWidth(), _sharpness()]
    ) { a in try _lumaHalftone(a, .dot) }

    static let lineScreen = FilterDescriptor(
        name: "CILineScreen", displayName: "Line Screen",
        summary: "Screens the luma with rotated parallel lines (black and white).",
        categories: [.halftoneEffect],
        inputs: [.image(), _center(), _tileAngle(), _screenWidth(), _sharpness()]
    ) { a in try _lumaHalftone(a, .line) }

    static let hatchedScreen = FilterDescriptor(
        name: "CIHatchedScreen", displayName: "Hatched Screen",
        summary: "Screens the luma with rotated hatching: single lines in the midtones, crossed lines in the shadows.",
        categories: [.halftoneEffect],
        inputs: [.image(), _center(), _tileAngle(), _screenWidth(), _sharpness()]
    ) { a in try _lumaHalftone(a, .hatched) }

    static let circularScreen = FilterDescriptor(
        name: "CICircularScreen", displayName: "Circular Screen",
        summary: "Screens the luma with concentric circles about the center (black and white).",
        categories: [.halftoneEffect],
        inputs: [.image(), _center(), _screenWidth(), _sharpness()]
    ) { a in try _lumaHalftone(a, .circular, angled: false) }

    static let cmykHalftone = FilterDescriptor(
        name: "CICMYKHalftone", displayName: "CMYK Halftone",
        summary: "Separates the image into cyan, magenta, yellow and black inks and screens each with dots at its own angle.",
        categories: [.halftoneEffect],
        inputs: [
            .image(), _center(), _screenWidth(), _tileAngle(), _sharpness(),
            .number(
                "inputGCR", default: 1, min: 0, max: 1,
                summary: "Gray component replacement: the fraction of min(C, M, Y) printed as black."),
            .number(
                "inputUCR", default: 0.5, min: 0, max: 1,
                summary: "Under color removal: the fraction of the black taken out of C, M and Y."),
        ]
    ) { a in
        let image = try a.image(), c = try a._point("inputCenter"), w = try a.number("inputWidth")
        let angle = try a.number("inputAngle"), k = _slope(try a.number("inputSharpness"))
        let gcr = try a.float("inputGCR"), ucr = try a.float("inputUCR")
        let deg = Double.pi / 180
        let pattern = _screenImage(
            .dot, center: c, angles: [angle + 15 * deg, angle + 75 * deg, angle, angle + 45 * deg], width: w)
        return pattern.blended(
            with: image,
            kernel: BlendKernel(name: "halftone cmyk k\(k) g\(gcr) u\(ucr)", extentRule: .background) { fg, dst, n in
                for i in 0..<n {
                    let p = dst[i]
                    guard p.w > 0 else { dst[i] = .zero; continue }
                    let rgb = SIMD3(p.x, p.y, p.z) / p.w
                    let cmy = SIMD3<Float>(repeating: 1) - rgb
                    let black = gcr * Swift.min(cmy.x, Swift.min(cmy.y, cmy.z))
                    let ink = SIMD4(cmy.x - ucr * black, cmy.y - ucr * black, cmy.z - ucr * black, black)
                    var dots = SIMD4<Float>(repeating: 0.5) + (ink - fg[i]) * k
                    dots.clamp(lowerBound: SIMD4(repeating: 0), upperBound: SIMD4(repeating: 1))
                    let kk = 1 - dots.w
                    dst[i] = SIMD4((1 - dots.x) * kk * p.w, (1 - dots.y) * kk * p.w, (1 - dots.z) * kk * p.w, p.w)
                }
            })
    }
}
