@testable import PixelFlow

/// Helpers shared by the byte-form tests (ByteColorTests, ByteLinearTests, ByteBlendTests).
enum ByteFormTesting {
    /// The rows of `b` without padding, `width * bytesPerPixel` bytes each.
    static func bytes(of b: PixelBuffer) -> [UInt8] {
        var out: [UInt8] = []
        b.withUnsafeBytes { raw in
            for y in 0..<b.height { out += raw[y * b.bytesPerRow..<y * b.bytesPerRow + b.width * b.format.bytesPerPixel] }
        }
        return out
    }

    /// Renders `image` into a new `rgba8` buffer of `w` x `h` with `alpha`; its bytes.
    static func render(_ image: Image, _ w: Int, _ h: Int, alpha: AlphaMode, _ o: RenderContext.Options) throws -> [UInt8] {
        var out = try PixelBuffer(width: w, height: h, format: .rgba8, alphaMode: alpha)
        try RenderContext(options: o).render(image, rect: image.extent, to: &out)
        return bytes(of: out)
    }

    /// The last line of `explain` for that render (`byte path: ...`).
    static func lastLine(_ image: Image, _ w: Int, _ h: Int, alpha: AlphaMode, _ o: RenderContext.Options) throws -> String {
        let dest = try PixelBuffer(width: w, height: h, format: .rgba8, alphaMode: alpha)
        return String(try RenderContext(options: o).explain(image, rect: image.extent, into: dest).split(separator: "\n").last!)
    }

    /// The largest difference between two byte arrays, element by element.
    static func maxDifference(_ a: [UInt8], _ b: [UInt8]) -> Int {
        zip(a, b).map { abs(Int($0) - Int($1)) }.max() ?? 0
    }

    /// Matrices that keep alpha: sepia, a saturation/brightness/contrast mix, an inversion,
    /// one that reads alpha, and a wide one (coefficients up to 3).
    static let matrices: [(String, ColorMatrix)] = [
        (
            "sepia",
            ColorMatrix(rows: [0.393, 0.769, 0.189, 0], [0.349, 0.686, 0.168, 0], [0.272, 0.534, 0.131, 0], [0, 0, 0, 1])
        ),
        ("controls", ColorMatrix.colorControls(saturation: 1.4, brightness: 0.05, contrast: 1.2)),
        ("invert", ColorMatrix(rows: [-1, 0, 0, 0], [0, -1, 0, 0], [0, 0, -1, 0], [0, 0, 0, 1], bias: [1, 1, 1, 0])),
        ("reads alpha", ColorMatrix(rows: [0.5, 0.1, 0, 0.3], [0, 0.9, 0, 0], [0.2, 0.2, 0.2, 0.1], [0, 0, 0, 1])),
        (
            "wide",
            ColorMatrix(
                rows: [3, -2.5, 0.7, 0], [-1.2, 2.9, -0.4, 0], [0.1, -0.3, 2.2, 0], [0, 0, 0, 1], bias: [-0.2, 0.1, 0.3, 0])
        ),
    ]

    /// A blend in the tests: the graph, what explain names, whether the byte form is exact on
    /// stored values, and the premultiplied formula in double precision (values in 0...1) as the
    /// filters define it.
    typealias BlendCase = (
        image: Image, name: String, exact: Bool, op: (SIMD4<Double>, SIMD4<Double>) -> SIMD4<Double>
    )

    /// Every blend with a byte form, of `fg` over `bg`.
    static func blendCases(_ fg: PixelBuffer, _ bg: PixelBuffer) throws -> [BlendCase] {
        let f = Image(fg), b = Image(bg)
        func compose(_ s: SIMD4<Double>, _ d: SIMD4<Double>, _ m: SIMD4<Double>) -> SIMD4<Double> {
            var m = m
            m.w = s.w * d.w
            return s * (1 - d.w) + d * (1 - s.w) + m
        }
        return [
            (f.composited(over: b), "source-over", true, { s, d in s + d * (1 - s.w) }),
            (
                try f.composited(atop: b), "source-atop", true,
                { s, d in
                    var r = s * d.w + d * (1 - s.w); r.w = d.w; return r
                }
            ),
            (try f.composited(inside: b), "source-in", true, { s, d in s * d.w }),
            (try f.composited(outside: b), "source-out", true, { s, d in s * (1 - d.w) }),
            (try f.multiplied(by: b), "multiply compositing", true, { s, d in s * d }),
            (try f.blended(over: b, mode: .multiply), "multiply blend", true, { s, d in compose(s, d, s * d) }),
            (
                try f.blended(over: b, mode: .screen), "screen blend", true,
                { s, d in compose(s, d, d * s.w + s * d.w - s * d) }
            ),
            (try f.mixed(with: b, amount: 0.5), "mix 0.5", false, { s, d in (s + d) * 0.5 }),
            (try f.mixed(with: b, amount: 0.3), "mix 0.3", false, { s, d in d * 0.7 + s * 0.3 }),
            (try b.dissolveTransition(to: f, time: 0.85), "mix 0.85", false, { s, d in d * 0.15 + s * 0.85 }),
        ]
    }

    /// The blend formulas the kernel tests run: every built-in one and three mixes.
    static let blendFormulas: [ByteBlendFormula] = [
        .sourceOver, .sourceAtop, .sourceIn, .sourceOut, .componentMultiply, .multiply, .screen, .mix(0)!, .mix(1)!,
        .mix(0.37)!,
    ]

    /// Runs a blend kernel on random foreground and background bytes (any values, colors above
    /// alpha too) for every formula, lengths 0...70 and four alignments, and hands each result to
    /// `check` with the inputs (pixel i of the output is pixel `offset + i` of `f` and `b`);
    /// stops at the first `false`.
    static func forEachBlendRun(
        seed: UInt64,
        kernel: (UnsafePointer<UInt8>, UnsafePointer<UInt8>, UnsafeMutablePointer<UInt8>, Int, ByteBlendFormula) -> Void,
        check: (_ formula: ByteBlendFormula, _ f: [UInt8], _ b: [UInt8], _ offset: Int, _ count: Int, _ out: [UInt8]) -> Bool
    ) {
        var rng = SeededRandom(seed: seed)
        for formula in blendFormulas {
            for count in [0, 1, 7, 8, 9, 15, 16, 17, 33, 70] {
                for offset in 0..<4 {
                    let f = (0..<(count + offset) * 4).map { _ in UInt8(truncatingIfNeeded: rng.next() >> 17) }
                    let b = (0..<(count + offset) * 4).map { _ in UInt8(truncatingIfNeeded: rng.next() >> 23) }
                    var out = [UInt8](repeating: 7, count: count * 4)
                    f.withUnsafeBufferPointer { fp in
                        b.withUnsafeBufferPointer { bp in
                            out.withUnsafeMutableBufferPointer { o in
                                kernel(fp.baseAddress! + 4 * offset, bp.baseAddress! + 4 * offset, o.baseAddress!, count, formula)
                            }
                        }
                    }
                    if !check(formula, f, b, offset, count, out) { return }
                }
            }
        }
    }
}

/// Rendering helpers of the byte-form tests that use one color management setting.
protocol ByteFormRendering {
    static var colorManagement: RenderContext.ColorManagement { get }
}

extension ByteFormRendering {
    /// Options with `Self.colorManagement`, the schedule and whether the byte path may run.
    func options(threads: Int = 1, tileHeight: Int = 64, bytePath: Bool = true) -> RenderContext.Options {
        var o = RenderContext.Options(threadCount: threads, tileHeight: tileHeight, colorManagement: Self.colorManagement)
        o.usesBytePath = bytePath
        return o
    }

    func render(_ image: Image, _ w: Int, _ h: Int, alpha: AlphaMode = .premultiplied, _ o: RenderContext.Options) throws
        -> [UInt8]
    { try ByteFormTesting.render(image, w, h, alpha: alpha, o) }

    func lastLine(_ image: Image, _ w: Int, _ h: Int, alpha: AlphaMode = .premultiplied, _ o: RenderContext.Options) throws
        -> String
    { try ByteFormTesting.lastLine(image, w, h, alpha: alpha, o) }
}
