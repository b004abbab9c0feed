import CSIMD
import XCTest

@testable import PixelFlow
@testable import PixelFlowEngine

/// The byte forms of blends, premultiplying and unpremultiplying in linear light
/// (ByteColor+LinearBlend.swift): the kernels against scalar references, renders within 1 unit
/// of the float path and of a reference in double precision on every pixel and channel (equal
/// on identities; premultiply and unpremultiply bit-identical), exhaustively over byte pairs at
/// several alpha levels, the same bytes for every schedule, refused where one side is
/// linear-tagged.
final class ByteLinearBlendTests: XCTestCase, ByteFormRendering {
    typealias Op = (SIMD4<Double>, SIMD4<Double>) -> SIMD4<Double>

    static let colorManagement = RenderContext.ColorManagement.linear

    /// The blends with a byte form (all of ByteFormTesting's), what explain names, and the
    /// premultiplied formula in double precision (linear values in 0...1).
    func blends(_ fg: PixelBuffer, _ bg: PixelBuffer) throws -> [(Image, String, Op)] {
        try ByteFormTesting.blendCases(fg, bg).map { ($0.image, $0.name, $0.op) }
    }

    /// The float path's math in double precision: decode the stored bytes, premultiply straight
    /// sources, blend, unpremultiply for a straight destination, encode.
    func reference(_ fg: PixelBuffer, _ bg: PixelBuffer, _ op: Op, into alpha: AlphaMode) -> [UInt8] {
        let f = ByteFormTesting.bytes(of: fg), b = ByteFormTesting.bytes(of: bg)
        func load(_ p: [UInt8], _ i: Int, _ mode: AlphaMode) -> SIMD4<Double> {
            let a = Double(p[4 * i + 3]) / 255
            var v = SIMD4<Double>((0..<3).map { ByteLinearTests.decode(Double(p[4 * i + $0]) / 255) } + [a])
            if mode == .straight { v = SIMD4(v.x * a, v.y * a, v.z * a, a) }
            return v
        }
        var out: [UInt8] = []
        for i in 0..<(f.count / 4) {
            let v = op(load(f, i, fg.alphaMode), load(b, i, bg.alphaMode))
            let a = Swift.min(Swift.max(v.w, 0), 1)
            for k in 0..<3 {
                if alpha == .straight {
                    out.append(a > 0 ? ByteLinearTests.q(ByteLinearTests.encode(v[k] / a)) : 0)
                } else {
                    out.append(ByteLinearTests.q(ByteLinearTests.encode(v[k])))
                }
            }
            out.append(ByteLinearTests.q(v.w))
        }
        return out
    }

    /// Every width 1...45, premultiplied sources into premultiplied rgba8, opaque straight ones
    /// into straight rgba8, and one of each: within 1 unit of the float path and of the
    /// reference on every byte; explain names the form.
    func testBlendsMatchTheFloatPath() throws {
        let modes: [(AlphaMode, AlphaMode, AlphaMode)] = [
            (.premultiplied, .premultiplied, .premultiplied), (.straight, .straight, .straight),
            (.straight, .premultiplied, .premultiplied),
        ]
        var values = 0, offByOne = 0
        for w in 1...45 {
            let h = 1 + w % 4
            for (mi, (fa, ba, da)) in modes.enumerated() {
                let fg = TestImages.randomBytes(w, h, alpha: fa, opaque: fa == .straight, seed: UInt64(700 + w + 1000 * mi))
                let bg = TestImages.randomBytes(
                    w, h, alpha: ba, opaque: ba == .straight || w % 3 == 0, seed: UInt64(800 + w + 1000 * mi))
                for (image, name, op) in try blends(fg, bg) {
                    let label = "\(name) \(w)x\(h) \(fa) \(ba) into \(da)"
                    let line = try lastLine(image, w, h, alpha: da, options())
                    XCTAssertTrue(
                        line.hasPrefix("byte path: on") && line.contains("\(name) in linear light"), "\(label): \(line)")
                    let fast = try render(image, w, h, alpha: da, options())
                    let slow = try render(image, w, h, alpha: da, options(bytePath: false))
                    XCTAssertLessThanOrEqual(ByteFormTesting.maxDifference(fast, slow), 1, label)
                    XCTAssertLessThanOrEqual(
                        ByteFormTesting.maxDifference(fast, reference(fg, bg, op, into: da)), 1, label)
                    values += fast.count
                    offByOne += zip(fast, slow).filter { $0 != $1 }.count
                }
            }
        }
        XCTAssertGreaterThan(values, 100_000)
        print("linear blends: \(offByOne) of \(values) values 1 unit from the float path")
    }

    /// Every pair of color bytes (foreground 0...255 against background 0...255 in R, and in G
    /// and B shifted) at alpha pairs from transparent to opaque, for every blend: within 1 unit of
    /// the float path on every value.
    func testEveryBytePair() throws {
        let alphas: [(UInt8, UInt8)] = [(255, 255), (128, 200), (37, 255), (255, 0), (0, 90), (1, 254)]
        for (fa, ba) in alphas {
            var fg = try PixelBuffer(width: 256, height: 256, format: .rgba8, alphaMode: .premultiplied)
            var bg = fg
            fg.withUnsafeMutableBytes { f in
                bg.withUnsafeMutableBytes { b in
                    for y in 0..<256 {
                        for x in 0..<256 {
                            let p = y * 1024 + x * 4
                            f[p] = UInt8(x); f[p + 1] = UInt8(y); f[p + 2] = UInt8((x + y) & 255); f[p + 3] = fa
                            b[p] = UInt8(y); b[p + 1] = UInt8(x); b[p + 2] = UInt8((x * 7 + y) & 255); b[p + 3] = ba
                        }
                    }
                }
            }
            for (image, name, _) in try blends(fg, bg) {
                XCTAssertTrue(try lastLine(image, 256, 256, options()).hasPrefix("byte path: on"), name)
                let fast = try render(image, 256, 256, options(threads: 2))
                let slow = try render(image, 256, 256, options(threads: 2, bytePath: false))
                XCTAssertLessThanOrEqual(ByteFormTesting.maxDifference(fast, slow), 1, "\(name) alphas \(fa) \(ba)")
            }
        }
    }

    /// Identities: a transparent foreground over a background, and mixes at amounts 0 and 1,
    /// give the float path's bytes exactly (the decode and encode tables round-trip every byte).
    func testIdentitiesAreExact() throws {
        let bg = TestImages.randomBytes(37, 5, seed: 9), other = TestImages.randomBytes(37, 5, seed: 10)
        let clear = try PixelBuffer(width: 37, height: 5, format: .rgba8, alphaMode: .premultiplied)
        let cases: [Image] = [
            Image(clear).composited(over: Image(bg)), try Image(other).mixed(with: Image(bg), amount: 0),
            try Image(other).mixed(with: Image(bg), amount: 1),
        ]
        for image in cases {
            XCTAssertTrue(try lastLine(image, 37, 5, options()).hasPrefix("byte path: on"))
            XCTAssertEqual(try render(image, 37, 5, options()), try render(image, 37, 5, options(bytePath: false)))
        }
        let tables = ByteLinear.tables
        for v in 0..<256 { XCTAssertEqual(Int(tables.encode[Int(tables.decode[v])]), v, "round trip of \(v)") }
    }

    /// The same bytes for 1, 2 and 3 threads and band heights 1, 7 and 64.
    func testScheduleIndependence() throws {
        let fg = TestImages.randomBytes(61, 47, seed: 17), bg = TestImages.randomBytes(61, 47, seed: 18)
        var images = try blends(fg, bg).map { ($0.0, $0.1, AlphaMode.premultiplied) }
        images.append((Image(TestImages.randomBytes(61, 47, alpha: .straight, seed: 19)), "premultiply", .premultiplied))
        images.append((Image(fg), "unpremultiply", .straight))
        for (image, name, alpha) in images {
            let first = try render(image, 61, 47, alpha: alpha, options())
            for threads in [1, 2, 3] {
                for tile in [1, 7, 64] {
                    XCTAssertEqual(
                        try render(image, 61, 47, alpha: alpha, options(threads: threads, tileHeight: tile)), first,
                        "\(name) threads \(threads) tile height \(tile)")
                }
            }
        }
    }

    /// The error bounds stay below the limit that keeps every byte within 1 unit.
    func testErrorBounds() {
        for f in ByteFormTesting.blendFormulas {
            let bound = ByteLinear.blendErrorBound(f)
            XCTAssertGreaterThan(bound, 0.05, "\(f)")
            XCTAssertLessThan(bound, ByteLinear.errorLimit, "\(f)")
        }
        XCTAssertEqual(ByteLinear.blendErrorBound(.sourceOver), 1.55 / 32640 * 12.92 * 255, accuracy: 1e-9)
    }

    /// One side linear-tagged: the blend and the alpha forms stay in float.
    func testRefusals() throws {
        let pm = TestImages.randomBytes(9, 2, seed: 5)
        var linearTagged = pm
        linearTagged.colorEncoding = .linear
        let over = Image(pm).composited(over: Image(linearTagged))
        let line = try lastLine(over, 9, 2, options())
        XCTAssertTrue(line.hasPrefix("byte path: off: source-over in linear light needs both"), line)
        let dest = try PixelBuffer(width: 9, height: 2, format: .rgba8, colorEncoding: .linear, alphaMode: .straight)
        let un = String(
            try RenderContext(options: options()).explain(Image(pm), rect: Image(pm).extent, into: dest)
                .split(separator: "\n").last!)
        XCTAssertTrue(un.hasPrefix("byte path: off: unpremultiplying in linear light needs sRGB"), un)
    }

    // MARK: Kernels

    /// The linear blend kernel against the header's formula computed in Swift (integer sums,
    /// the same single-precision steps), on any bytes, every length in a list 0...70 and four
    /// alignments.
    func testLinearBlendKernelAgainstScalarReference() {
        let tables = ByteLinear.tables
        ByteFormTesting.forEachBlendRun(seed: 31) { f, b, out, count, formula in
            pf_u8_linear_blend_rgba_run(f, b, out, count, tables.decode, tables.encode, formula.coefficients)
        } check: { formula, f, b, offset, count, out in
            for i in 0..<count {
                let p = (offset + i) * 4
                let fa = Int(f[p + 3]), ba = Int(b[p + 3])
                let wf = Int(formula.fWeight) + Int(formula.fByBackgroundAlpha) * ba
                let wb = Int(formula.bWeight) + Int(formula.bByForegroundAlpha) * fa
                let shift = Int(formula.shift)
                var expect = [Int]()
                for k in 0..<3 {
                    let F = Int(tables.decode[Int(f[p + k])]), B = Int(tables.decode[Int(b[p + k])])
                    let x = F * wf + B * wb
                    var v: Int
                    if shift > 0 {
                        v = (x + (1 << (shift - 1))) >> shift
                    } else {
                        var s = Float(x) * (1 / 255 as Float)
                        let prod = Float(F * B) * (1 / 32640 as Float)
                        if formula.product > 0 { s = s + prod } else if formula.product < 0 { s = s - prod }
                        v = Int(s.rounded(.toNearestOrEven))
                    }
                    expect.append(Int(tables.encode[Swift.min(Swift.max(v, 0), ByteLinear.scale)]))
                }
                let xa = fa * wf + ba * wb + Int(formula.product) * fa * ba
                if shift > 0 {
                    expect.append(Swift.min(255, Swift.max(0, (xa + (1 << (shift - 1))) >> shift)))
                } else {
                    expect.append(Swift.min(255, Swift.max(0, Int((Double(Swift.max(xa, 0)) / 255).rounded()))))
                }
                for k in 0..<4 where Int(out[4 * i + k]) != expect[k] {
                    XCTFail(
                        "\(formula) count \(count) offset \(offset) pixel \(i) channel \(k): \(out[4 * i + k]) != \(expect[k])")
                    return false
                }
            }
            return true
        }
    }

    /// The alpha-table kernel against a plain lookup, every length in a list and four alignments.
    func testAlphaTableKernelAgainstScalarReference() {
        var rng = SeededRandom(seed: 41)
        let table = ByteLinear.premultiplyTable.entries
        for count in [0, 1, 7, 8, 9, 15, 16, 17, 33, 70] {
            for offset in 0..<4 {
                let s = (0..<(count + offset) * 4).map { _ in UInt8(truncatingIfNeeded: rng.next() >> 19) }
                var out = [UInt8](repeating: 7, count: count * 4)
                s.withUnsafeBufferPointer { sp in pf_u8_alpha_table_rgba_run(sp.baseAddress! + 4 * offset, &out, count, table) }
                for i in 0..<count {
                    let p = (offset + i) * 4, a = Int(s[p + 3])
                    let expect = (0..<3).map { table[Int(s[p + $0]) + 256 * a] } + [s[p + 3]]
                    XCTAssertEqual(Array(out[4 * i..<4 * i + 4]), expect, "count \(count) offset \(offset) pixel \(i)")
                }
            }
        }
    }

    // MARK: Premultiply and unpremultiply

    /// Every (color, alpha) pair, as a 256 x 256 image: premultiplying a straight source and
    /// unpremultiplying a premultiplied one give the float path's bytes exactly, and are within
    /// 1 unit of the formulas in double precision (decode, times or over alpha, encode).
    func testAlphaFormsEveryPair() throws {
        for straight in [true, false] {
            var src = try PixelBuffer(
                width: 256, height: 256, format: .rgba8, alphaMode: straight ? .straight : .premultiplied)
            src.withUnsafeMutableBytes { raw in
                for a in 0..<256 {
                    for c in 0..<256 {
                        let p = a * 1024 + c * 4
                        raw[p] = UInt8(c); raw[p + 1] = UInt8(255 - c); raw[p + 2] = UInt8(c / 3); raw[p + 3] = UInt8(a)
                    }
                }
            }
            let into: AlphaMode = straight ? .premultiplied : .straight
            let line = try lastLine(Image(src), 256, 256, alpha: into, options())
            XCTAssertTrue(line.hasPrefix("byte path: on") && line.contains("premultiply in linear light"), line)
            let fast = try render(Image(src), 256, 256, alpha: into, options())
            let slow = try render(Image(src), 256, 256, alpha: into, options(bytePath: false))
            XCTAssertEqual(fast, slow, straight ? "premultiply" : "unpremultiply")
            let s = ByteFormTesting.bytes(of: src)
            var worst = 0
            for i in fast.indices where i % 4 != 3 {
                let a = Double(s[i / 4 * 4 + 3]) / 255, x = ByteLinearTests.decode(Double(s[i]) / 255)
                let exact: UInt8
                if straight {
                    exact = ByteLinearTests.q(ByteLinearTests.encode(x * a))
                } else {
                    exact = a > 0 ? ByteLinearTests.q(ByteLinearTests.encode(x / a)) : 0
                }
                worst = Swift.max(worst, abs(Int(fast[i]) - Int(exact)))
            }
            XCTAssertLessThanOrEqual(worst, 1, straight ? "premultiply" : "unpremultiply")
        }
    }

    /// Every width 1...45 of random images: bit-identical to the float path.
    func testAlphaFormsMatchTheFloatPath() throws {
        for w in 1...45 {
            let h = 1 + w % 5
            let straight = TestImages.randomBytes(w, h, alpha: .straight, seed: UInt64(900 + w))
            let pm = TestImages.randomBytes(w, h, seed: UInt64(950 + w))
            XCTAssertEqual(
                try render(Image(straight), w, h, options()), try render(Image(straight), w, h, options(bytePath: false)))
            XCTAssertEqual(
                try render(Image(pm), w, h, alpha: .straight, options()),
                try render(Image(pm), w, h, alpha: .straight, options(bytePath: false)))
        }
    }
}
