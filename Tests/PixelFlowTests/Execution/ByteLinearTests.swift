import CSIMD
import XCTest

@testable import PixelFlow
@testable import PixelFlowEngine

/// The byte form of color matrices and grayscale in linear light (ByteColor+Linear.swift): the
/// tables against the sRGB formulas, the kernels against a scalar reference, renders within 1
/// unit of the float path and of a reference in double precision on every pixel and channel,
/// the same bytes for every schedule, and refused where only one side is sRGB-encoded.
final class ByteLinearTests: XCTestCase {
    static func decode(_ v: Double) -> Double { v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4) }
    static func encode(_ x: Double) -> Double {
        let x = Swift.min(Swift.max(x, 0), 1)
        return x <= 0.0031308 ? 12.92 * x : 1.055 * pow(x, 1 / 2.4) - 0.055
    }
    static func q(_ v: Double) -> UInt8 { UInt8(Swift.min(Swift.max((v * 255 + 0.5).rounded(.down), 0), 255)) }

    func options(threads: Int = 1, tileHeight: Int = 64, bytePath: Bool = true) -> RenderContext.Options {
        var o = RenderContext.Options(threadCount: threads, tileHeight: tileHeight, colorManagement: .linear)
        o.usesBytePath = bytePath
        return o
    }

    func render(_ image: Image, like dest: PixelBuffer, _ o: RenderContext.Options) throws -> [UInt8] {
        var out = try PixelBuffer(
            width: dest.width, height: dest.height, format: dest.format, colorEncoding: dest.colorEncoding,
            alphaMode: dest.alphaMode)
        try RenderContext(options: o).render(image, rect: image.extent, to: &out)
        return bytesOf(out)
    }

    func lastLine(_ image: Image, _ dest: PixelBuffer, _ o: RenderContext.Options) throws -> String {
        String(try RenderContext(options: o).explain(image, rect: image.extent, into: dest).split(separator: "\n").last!)
    }

    func bytesOf(_ b: PixelBuffer) -> [UInt8] { ByteFormTesting.bytes(of: b) }

    func maxDifference(_ a: [UInt8], _ b: [UInt8]) -> Int { ByteFormTesting.maxDifference(a, b) }

    var matrices: [(String, ColorMatrix)] { ByteFormTesting.matrices }

    /// The float path's math in double precision, one pixel at a time: decode, unpremultiply,
    /// the matrix, premultiply, the store (luma for gray8, unpremultiply for straight), encode.
    func reference(_ src: PixelBuffer, _ m: ColorMatrix?, into dest: PixelBuffer) -> [UInt8] {
        let s = bytesOf(src)
        let bpp = src.format.bytesPerPixel
        var out: [UInt8] = []
        for i in 0..<(src.width * src.height) {
            var p = SIMD4<Double>(repeating: 1)
            for c in 0..<bpp { p[c] = Double(s[i * bpp + c]) / 255 }
            if src.format == .gray8 { p = SIMD4(p.x, p.x, p.x, 1) }
            let a = p.w
            var u = SIMD4(Self.decode(p.x), Self.decode(p.y), Self.decode(p.z), a)
            if src.alphaMode == .premultiplied, src.format == .rgba8 {
                u = a > 0 ? SIMD4(u.x / a, u.y / a, u.z / a, a) : .zero
            }
            if src.alphaMode == .straight, a == 0 { u = .zero }
            var v = u
            if let m { for k in 0..<4 { v[k] = (SIMD4<Double>(m.row(k)) * u).sum() + Double(m.bias[k]) } }
            let pm = SIMD4(v.x * a, v.y * a, v.z * a, a)
            if dest.format == .gray8 {
                out.append(Self.q(Self.encode(0.2126 * pm.x + 0.7152 * pm.y + 0.0722 * pm.z)))
            } else if dest.alphaMode == .straight {
                for k in 0..<3 { out.append(a > 0 ? Self.q(Self.encode(v[k])) : 0) }
                out.append(Self.q(a))
            } else {
                for k in 0..<3 { out.append(Self.q(Self.encode(pm[k]))) }
                out.append(Self.q(a))
            }
        }
        return out
    }

    /// Every size 1...45, gray8 and rgba8, straight, premultiplied and opaque alpha, in linear
    /// light (the default): within 1 unit of the float path and of the reference.
    func testMatchesTheFloatPath() throws {
        var checked = 0, offByOne = 0, values = 0
        for w in 1...45 {
            let h = 1 + (w * 5) % 7
            let cases: [(PixelFormat, AlphaMode, Bool)] = [
                (.rgba8, .straight, false), (.rgba8, .premultiplied, false), (.rgba8, .straight, true),
                (.gray8, .premultiplied, true),
            ]
            for (ci, (format, alpha, opaque)) in cases.enumerated() {
                let src = TestImages.randomBytes(w, h, format: format, alpha: alpha, opaque: opaque, seed: UInt64(w * 10 + ci))
                var graphs: [(String, Image, ColorMatrix?)] = matrices.map { ($0.0, Image(src).applyingColorMatrix($0.1), $0.1) }
                graphs.append(("bare", Image(src), nil))
                for (name, image, m) in graphs {
                    var dests = [try PixelBuffer(width: w, height: h, format: .gray8, alphaMode: .premultiplied)]
                    if format == .rgba8 { dests.append(try PixelBuffer(width: w, height: h, format: .rgba8, alphaMode: alpha)) }
                    for dest in dests where !(m == nil && dest.format == format) {
                        let label = "\(name) \(w)x\(h) \(format) \(alpha) opaque \(opaque) into \(dest.format)"
                        let fast = try render(image, like: dest, options())
                        let slow = try render(image, like: dest, options(bytePath: false))
                        let line = try lastLine(image, dest, options())
                        let readsAlphaPremultiplied = name == "reads alpha" && alpha == .premultiplied && !opaque
                        let expectOn = (format == dest.format || opaque || alpha == .premultiplied) && !readsAlphaPremultiplied
                        if line.hasPrefix("byte path: on") {
                            XCTAssertTrue(expectOn, "\(label): \(line)")
                            XCTAssertTrue(format == .gray8 || line.contains("in linear light"), "\(label): \(line)")
                            checked += 1
                        } else {
                            XCTAssertTrue(!expectOn || (name == "wide" && line.contains("too large")), "\(label): \(line)")
                        }
                        XCTAssertLessThanOrEqual(maxDifference(fast, slow), 1, label)
                        XCTAssertLessThanOrEqual(maxDifference(fast, reference(src, m, into: dest)), 1, label)
                        values += fast.count
                        offByOne += zip(fast, slow).filter { $0 != $1 }.count
                    }
                }
            }
        }
        XCTAssertGreaterThan(checked, 900)
        // The bytes that differ from the float path's by one are few (about 0.3% measured).
        XCTAssertLessThan(Double(offByOne) / Double(values), 0.02)
    }

    /// The same bytes for 1, 2 and 3 threads and band heights 1, 7 and 64.
    func testScheduleIndependence() throws {
        let straight = TestImages.randomBytes(61, 47, alpha: .straight, seed: 15)
        let premultiplied = TestImages.randomBytes(61, 47, alpha: .premultiplied, seed: 16)
        for (src, dest) in [
            (straight, try PixelBuffer(width: 61, height: 47, format: .rgba8, alphaMode: .straight)),
            (premultiplied, try PixelBuffer(width: 61, height: 47, format: .gray8)),
        ] {
            let image = Image(src).applyingColorMatrix(matrices[1].1)
            XCTAssertTrue(try lastLine(image, dest, options()).contains("in linear light"))
            let first = try render(image, like: dest, options())
            for threads in [1, 2, 3] {
                for tile in [1, 7, 64] {
                    XCTAssertEqual(try render(image, like: dest, options(threads: threads, tileHeight: tile)), first)
                }
            }
        }
    }

    /// The decode table within half a step (plus float rounding) of the sRGB formula; the
    /// encode table equal to the exact rounding of the formula except within 1e-3 of a tie.
    func testTables() {
        let t = ByteLinear.tables, s = Double(ByteLinear.scale)
        for v in 0..<256 {
            XCTAssertLessThanOrEqual(abs(Double(t.decode[v]) - Self.decode(Double(v) / 255) * s), 0.501, "decode \(v)")
        }
        for i in 0...ByteLinear.scale {
            let e = Self.encode(Double(i) / s) * 255
            if abs(e - e.rounded(.down) - 0.5) < 1e-3 { continue }
            if t.encode[i] != UInt8(e.rounded()) { XCTFail("encode \(i): \(t.encode[i]) != \(e)"); return }
        }
        // The identity runs within 1 unit of every byte, and its bound says so.
        let rows = (0..<4).map { k in SIMD4<Double>((0..<4).map { $0 == k ? 1.0 : 0.0 }) }
        let id = ByteColor(kind: .matrix, output: .rgba, rows: rows, bias: [0, 0, 0, 0], zeroesTransparent: false, linear: true)!
        XCTAssertLessThan(id.errorBound, 0.11)
        var all = [UInt8](repeating: 0, count: 256 * 4), out = all
        for v in 0..<256 { all.replaceSubrange(4 * v..<4 * v + 4, with: [UInt8(v), UInt8(255 - v), UInt8(v / 3), 255]) }
        pf_u8_linear_matrix_rgba_run(all, &out, 256, t.decode, t.encode, id.weights, id.fixedBias, Int32(id.shift), 0)
        XCTAssertLessThanOrEqual(maxDifference(out, all), 1)
    }

    /// The kernels against the header's formula in 64-bit integers: random weights whose sums
    /// stay below 2^30, shifts 8...14, every length 0...70 and four alignments.
    func testKernelsAgainstScalarReference() {
        var rng = SeededRandom(seed: 31)
        let t = ByteLinear.tables
        for trial in 0..<30 {
            let shift = 8 + trial % 7
            let limit = Int((1 << 30) / (4 * ByteLinear.scale + 4))
            let w = (0..<16).map { _ in Int16(Int(rng.next() % UInt64(2 * Swift.min(limit, 32767))) - Swift.min(limit, 32767)) }
            let bias = (0..<4).map { _ in Int32(Int(rng.next() % (1 << 26)) - (1 << 25)) }
            let zero = trial % 2 == 1
            for count in [0, 1, 7, 8, 9, 31, 33, 70] {
                for offset in 0..<4 {
                    let src = (0..<(count + offset) * 4).map { _ in UInt8(truncatingIfNeeded: rng.next() >> 13) }
                    var rgba = [UInt8](repeating: 7, count: count * 4), gray = [UInt8](repeating: 7, count: count)
                    src.withUnsafeBufferPointer { s in
                        let p = s.baseAddress! + 4 * offset
                        pf_u8_linear_matrix_rgba_run(p, &rgba, count, t.decode, t.encode, w, bias, Int32(shift), zero ? 1 : 0)
                        pf_u8_linear_matrix_gray_run(p, &gray, count, t.decode, t.encode, w, bias[0], Int32(shift))
                    }
                    for i in 0..<count {
                        let px = (0..<4).map { Int(src[(offset + i) * 4 + $0]) }
                        let x = [Int(t.decode[px[0]]), Int(t.decode[px[1]]), Int(t.decode[px[2]]), 128 * px[3]]
                        func channel(_ k: Int, _ b: Int32) -> UInt8 {
                            let v = (0..<4).reduce(Int(b)) { $0 + x[$1] * Int(w[4 * k + $1]) } >> shift
                            return t.encode[Swift.min(Swift.max(v, 0), ByteLinear.scale)]
                        }
                        for k in 0..<4 {
                            let expect: UInt8 = zero && px[3] == 0 ? 0 : k == 3 ? UInt8(px[3]) : channel(k, bias[k])
                            if rgba[4 * i + k] != expect {
                                XCTFail("rgba trial \(trial) count \(count) pixel \(i) channel \(k)"); return
                            }
                        }
                        if gray[i] != channel(0, bias[0]) { XCTFail("gray trial \(trial) count \(count) pixel \(i)"); return }
                    }
                }
            }
        }
    }

    func testRefusals() throws {
        let src = TestImages.randomBytes(20, 6, alpha: .straight, seed: 2)
        let sepia = Image(src).applyingColorMatrix(matrices[0].1)
        let straight = try PixelBuffer(width: 20, height: 6, format: .rgba8, alphaMode: .straight)
        XCTAssertTrue(try lastLine(sepia, straight, options()).contains("color matrix in linear light"))
        let linearDest = try PixelBuffer(
            width: 20, height: 6, format: .rgba8, colorEncoding: .linear, alphaMode: .straight)
        let why = try lastLine(sepia, linearDest, options())
        XCTAssertTrue(why.hasPrefix("byte path: off: in linear light the byte form needs sRGB decoding and encoding"), why)
        let pm = try PixelBuffer(width: 20, height: 6, format: .rgba8, alphaMode: .premultiplied)
        let premultiply = try lastLine(Image(src), pm, options())
        // Premultiplying in linear light has its own byte form (ByteLinearBlendTests).
        XCTAssertTrue(premultiply.contains("premultiply in linear light"), premultiply)
    }
}
