import CSIMD
import XCTest

@testable import PixelFlow
@testable import PixelFlowEngine

/// The byte forms of blends and unpremultiplication (ByteBlendFormula, ByteColor+Linear.swift's
/// multipliers): the kernels against scalar references, renders equal to the float path (the
/// exact formulas) or within 1 unit (the mix) and to a reference in double precision, the same
/// bytes for every schedule, and refused where straight alpha or linear light would change them.
final class ByteBlendTests: XCTestCase, ByteFormRendering {
    func bytes(_ w: Int, _ h: Int, alpha: AlphaMode = .premultiplied, opaque: Bool = false, seed: UInt64) -> PixelBuffer {
        TestImages.randomBytes(w, h, alpha: alpha, opaque: opaque, seed: seed)
    }

    static let colorManagement = RenderContext.ColorManagement.none

    func bytesOf(_ b: PixelBuffer) -> [UInt8] { ByteFormTesting.bytes(of: b) }

    func maxDifference(_ a: [UInt8], _ b: [UInt8]) -> Int { ByteFormTesting.maxDifference(a, b) }

    /// The blends with a byte form: the graph, what explain names, whether exact, and the
    /// premultiplied formula in double precision (values in 0...1) as the filters define it.
    func blends(_ fg: PixelBuffer, _ bg: PixelBuffer) throws -> [(
        Image, String, Bool, (SIMD4<Double>, SIMD4<Double>) -> SIMD4<Double>
    )] {
        try ByteFormTesting.blendCases(fg, bg).map { ($0.image, $0.name, $0.exact, $0.op) }
    }

    func reference(_ fg: PixelBuffer, _ bg: PixelBuffer, _ op: (SIMD4<Double>, SIMD4<Double>) -> SIMD4<Double>) -> [UInt8] {
        let f = bytesOf(fg), b = bytesOf(bg)
        var out: [UInt8] = []
        for i in 0..<(f.count / 4) {
            let s = SIMD4<Double>((0..<4).map { Double(f[4 * i + $0]) / 255 })
            let d = SIMD4<Double>((0..<4).map { Double(b[4 * i + $0]) / 255 })
            let v = op(s, d)
            for k in 0..<4 { out.append(UInt8(Swift.min(Swift.max((v[k] * 255 + 0.5).rounded(.down), 0), 255))) }
        }
        return out
    }

    /// Every width 1...45: exact blends bit-identical to the float path, the mix within 1 unit
    /// of it; all within 1 unit of the reference (0 for the exact ones, but for ties the
    /// reference's double rounding cannot have). Premultiplied sources into premultiplied
    /// rgba8, opaque straight sources into straight rgba8, and one of each.
    func testBlendsMatchTheFloatPath() throws {
        let modes: [(AlphaMode, AlphaMode, AlphaMode)] = [
            (.premultiplied, .premultiplied, .premultiplied), (.straight, .straight, .straight),
            (.straight, .premultiplied, .premultiplied),
        ]
        for w in 1...45 {
            let h = 1 + w % 4
            for (mi, (fa, ba, da)) in modes.enumerated() {
                let fg = bytes(w, h, alpha: fa, opaque: fa == .straight, seed: UInt64(300 + w + 1000 * mi))
                let bg = bytes(w, h, alpha: ba, opaque: ba == .straight || w % 3 == 0, seed: UInt64(400 + w + 1000 * mi))
                for (image, name, exact, op) in try blends(fg, bg) {
                    let label = "\(name) \(w)x\(h) \(fa) \(ba) into \(da)"
                    let line = try lastLine(image, w, h, alpha: da, options())
                    XCTAssertTrue(line.hasPrefix("byte path: on") && line.contains(name), "\(label): \(line)")
                    let fast = try render(image, w, h, alpha: da, options())
                    let slow = try render(image, w, h, alpha: da, options(bytePath: false))
                    if exact {
                        XCTAssertEqual(fast, slow, label)
                    } else {
                        XCTAssertLessThanOrEqual(maxDifference(fast, slow), 1, label)
                    }
                    XCTAssertLessThanOrEqual(maxDifference(fast, reference(fg, bg, op)), exact ? 0 : 1, label)
                }
            }
        }
    }

    /// The same bytes for 1, 2 and 3 threads and band heights 1, 7 and 64.
    func testScheduleIndependence() throws {
        let fg = bytes(61, 47, seed: 7), bg = bytes(61, 47, seed: 8)
        for (image, name, _, _) in try blends(fg, bg) {
            let first = try render(image, 61, 47, options())
            for threads in [1, 2, 3] {
                for tile in [1, 7, 64] {
                    XCTAssertEqual(
                        try render(image, 61, 47, options(threads: threads, tileHeight: tile)), first,
                        "\(name) threads \(threads) tile height \(tile)")
                }
            }
        }
    }

    func testRefusals() throws {
        let straight = bytes(9, 2, alpha: .straight, seed: 4)
        let pm = bytes(9, 2, seed: 5)
        let atop = try Image(straight).composited(atop: Image(pm))
        XCTAssertTrue(
            try lastLine(atop, 9, 2, options()).hasPrefix("byte path: off: source-atop on bytes needs premultiplied"))
        // Premultiplied translucent sources into a straight buffer: the float path unpremultiplies.
        XCTAssertTrue(
            try lastLine(try Image(pm).composited(atop: Image(pm)), 9, 2, alpha: .straight, options()).hasPrefix(
                "byte path: off: source-atop on bytes needs premultiplied"))
        let mix = try Image(pm).mixed(with: Image(pm), amount: 0.25)
        // In linear light the blend runs on decoded values (ByteLinearBlendTests).
        let linear = try lastLine(mix, 9, 2, RenderContext.Options(colorManagement: .linear))
        XCTAssertTrue(linear.hasPrefix("byte path: on") && linear.contains("mix 0.25 in linear light"), linear)
        XCTAssertTrue(try lastLine(mix, 9, 2, options(bytePath: false)).hasPrefix("byte path: off: off in the context"))
        let small = bytes(5, 2, seed: 6)
        let sizes = try Image(pm).composited(atop: Image(small))
        XCTAssertTrue(try lastLine(sizes, 9, 2, options()).contains("byte path: off: the render rect reaches outside"))
        // A blend without a byte formula keeps the float path.
        let darken = try Image(pm).blended(over: Image(pm), mode: .darken)
        XCTAssertTrue(try lastLine(darken, 9, 2, options()).hasPrefix("byte path: off"))
    }

    /// The kernel against the header's formula in integers, on any bytes (also colors above
    /// their alpha, where the division saturates), every length 0...70 and four alignments.
    func testBlendKernelAgainstScalarReference() {
        ByteFormTesting.forEachBlendRun(seed: 21) { f, b, out, count, formula in
            pf_u8_blend_rgba_run(f, b, out, count, formula.coefficients)
        } check: { formula, f, b, offset, count, out in
            for i in 0..<count {
                let p = (offset + i) * 4
                let fa = Int(f[p + 3]), ba = Int(b[p + 3])
                for k in 0..<4 {
                    let fk = Int(f[p + k]), bk = Int(b[p + k])
                    let x =
                        fk * (Int(formula.fWeight) + Int(formula.fByBackgroundAlpha) * ba)
                        + bk * (Int(formula.bWeight) + Int(formula.bByForegroundAlpha) * fa)
                        + Int(formula.product) * fk * bk
                    let expect: Int
                    if formula.shift == 0 {
                        expect = Swift.min(255, Swift.max(0, Int((Double(x) / 255).rounded())))
                    } else {
                        expect = Swift.min(255, (x + (1 << (Int(formula.shift) - 1))) >> Int(formula.shift))
                    }
                    if Int(out[4 * i + k]) != expect {
                        XCTFail(
                            "\(formula) count \(count) offset \(offset) pixel \(i) channel \(k): \(out[4 * i + k]) != \(expect)")
                        return false
                    }
                }
            }
            return true
        }
    }

    // MARK: Unpremultiply

    /// Premultiplied rgba8 into a straight rgba8 buffer: every width 1...45, within 1 unit of the
    /// float path and equal to it except where 255 c / a is a tie; the same for every schedule.
    func testUnpremultiplyMatchesTheFloatPath() throws {
        var ties = 0, pixels = 0
        for w in 1...45 {
            let h = 1 + w % 5
            let src = bytes(w, h, seed: UInt64(500 + w))
            let line = try lastLine(Image(src), w, h, alpha: .straight, options())
            XCTAssertTrue(line.contains("(unpremultiply, exact but at ties"), line)
            let fast = try render(Image(src), w, h, alpha: .straight, options())
            let slow = try render(Image(src), w, h, alpha: .straight, options(bytePath: false))
            let s = bytesOf(src)
            for i in fast.indices {
                pixels += 1
                let a = Int(s[i / 4 * 4 + 3]), c = Int(s[i])
                let tie = i % 4 != 3 && a > 0 && (510 * c) % (2 * a) == a
                if tie { ties += 1 }
                XCTAssertLessThanOrEqual(abs(Int(fast[i]) - Int(slow[i])), tie ? 1 : 0, "\(w)x\(h) byte \(i)")
            }
            for threads in [2, 3] {
                XCTAssertEqual(try render(Image(src), w, h, alpha: .straight, options(threads: threads, tileHeight: 1)), fast)
            }
        }
        XCTAssertGreaterThan(pixels, 10000)
        let linear = try lastLine(Image(bytes(4, 1, seed: 1)), 4, 1, alpha: .straight, RenderContext.Options())
        XCTAssertTrue(linear.hasPrefix("byte path: on") && linear.contains("unpremultiply in linear light"), linear)
    }

    /// Every (color, alpha) pair: the kernel gives round(255 c / a) (255 for c > a, zeros for
    /// a = 0) wherever that quotient is not a tie, and one of its two neighbours at ties.
    func testUnpremultiplyEveryPair() {
        var src = [UInt8](repeating: 0, count: 256 * 256 * 4)
        for c in 0..<256 {
            for a in 0..<256 {
                let i = (c * 256 + a) * 4
                src.replaceSubrange(i..<i + 4, with: [UInt8(c), UInt8(255 - c), UInt8(c / 2), UInt8(a)])
            }
        }
        var out = [UInt8](repeating: 0, count: src.count)
        pf_u8_unpremultiply_rgba_run(src, &out, 256 * 256, ByteLinear.tables.multipliers)
        for p in 0..<(256 * 256) {
            let a = Int(src[4 * p + 3])
            XCTAssertEqual(out[4 * p + 3], src[4 * p + 3])
            for k in 0..<3 {
                let c = Int(src[4 * p + k])
                let got = Int(out[4 * p + k])
                if a == 0 {
                    if got != 0 { XCTFail("c \(c) a 0: \(got)"); return }
                    continue
                }
                let exact = Double(255 * c) / Double(a)
                if exact >= 255 {
                    if got != 255 { XCTFail("c \(c) a \(a): \(got) != 255"); return }
                } else if (510 * c) % (2 * a) == a {
                    if got != Int(exact.rounded(.down)) && got != Int(exact.rounded(.up)) {
                        XCTFail("tie c \(c) a \(a): \(got)"); return
                    }
                } else if got != Int(exact.rounded()) {
                    XCTFail("c \(c) a \(a): \(got) != \(exact.rounded())"); return
                }
            }
        }
    }
}
