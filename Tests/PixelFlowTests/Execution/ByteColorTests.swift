import CSIMD
import XCTest

@testable import PixelFlow
@testable import PixelFlowEngine

/// The byte form of color matrices and grayscale (ByteColor.swift): the kernels against a
/// scalar reference, renders within 1 unit of the float path and of a reference in double
/// precision on every pixel and channel (0 for identities), the same bytes for every
/// schedule, and refused where alpha or linear light would change the result.
final class ByteColorTests: XCTestCase {
    func bytes(
        _ width: Int, _ height: Int, format: PixelFormat = .rgba8, alpha: AlphaMode = .premultiplied,
        opaque: Bool = false, seed: UInt64 = 1
    ) -> PixelBuffer {
        TestImages.randomBytes(width, height, format: format, alpha: alpha, opaque: opaque, seed: seed)
    }

    func render(_ image: Image, like dest: PixelBuffer, _ options: RenderContext.Options) throws -> PixelBuffer {
        var out = try PixelBuffer(
            width: dest.width, height: dest.height, format: dest.format, colorEncoding: dest.colorEncoding,
            alphaMode: dest.alphaMode)
        try RenderContext(options: options).render(image, rect: image.extent, to: &out)
        return out
    }

    var matrices: [(String, ColorMatrix)] { ByteFormTesting.matrices }

    func options(threads: Int = 1, tileHeight: Int = 64, bytePath: Bool = true) -> RenderContext.Options {
        var o = RenderContext.Options(threadCount: threads, tileHeight: tileHeight, colorManagement: .none)
        o.usesBytePath = bytePath
        return o
    }

    func lastLine(_ image: Image, _ dest: PixelBuffer, _ o: RenderContext.Options) throws -> String {
        String(try RenderContext(options: o).explain(image, rect: image.extent, into: dest).split(separator: "\n").last!)
    }

    /// The float path's map in double precision, one pixel at a time, from the stored bytes.
    func reference(_ src: PixelBuffer, _ m: ColorMatrix?, into dest: PixelBuffer) -> [UInt8] {
        func q(_ v: Double) -> UInt8 { UInt8(Swift.min(Swift.max((v * 255 + 0.5).rounded(.down), 0), 255)) }
        var out: [UInt8] = []
        let luma = SIMD4<Double>(0.2126, 0.7152, 0.0722, 0)
        src.withUnsafeBytes { raw in
            for y in 0..<src.height {
                for x in 0..<src.width {
                    let p = raw.baseAddress! + y * src.bytesPerRow + x * src.format.bytesPerPixel
                    var s = SIMD4<Double>(repeating: 1)
                    for c in 0..<src.format.bytesPerPixel { s[c] = Double(p.load(fromByteOffset: c, as: UInt8.self)) / 255 }
                    if src.format == .gray8 { s = SIMD4(s.x, s.x, s.x, 1) }
                    let a = s.w
                    var u = s
                    if src.alphaMode == .premultiplied, src.format == .rgba8 {
                        u = a > 0 ? SIMD4(s.x / a, s.y / a, s.z / a, a) : .zero
                    }
                    if src.alphaMode == .straight, a == 0 { u = .zero }
                    var v = u
                    if let m {
                        for k in 0..<4 { v[k] = (SIMD4<Double>(m.row(k)) * u).sum() + Double(m.bias[k]) }
                    }
                    // Premultiplied working value (alpha kept), then the store.
                    let pm = SIMD4(v.x * a, v.y * a, v.z * a, a)
                    if dest.format == .gray8 {
                        out.append(q((pm * luma).sum()))
                    } else if dest.alphaMode == .straight {
                        for k in 0..<3 { out.append(a > 0 ? q(v[k]) : 0) }
                        out.append(q(a))
                    } else {
                        for k in 0..<4 { out.append(q(pm[k])) }
                    }
                }
            }
        }
        return out
    }

    func bytesOf(_ b: PixelBuffer) -> [UInt8] { ByteFormTesting.bytes(of: b) }

    func maxDifference(_ a: [UInt8], _ b: [UInt8]) -> Int { ByteFormTesting.maxDifference(a, b) }

    /// Every size 1...45 (with heights cycling), gray8 and rgba8, straight, premultiplied and
    /// opaque alpha: the byte form within 1 unit of the float path and of the reference.
    func testMatchesTheFloatPath() throws {
        var checked = 0
        for w in 1...45 {
            let h = 1 + (w * 7) % 9
            let cases: [(PixelFormat, AlphaMode, Bool)] = [
                (.rgba8, .straight, false), (.rgba8, .premultiplied, false), (.rgba8, .straight, true),
                (.gray8, .premultiplied, true),
            ]
            for (ci, (format, alpha, opaque)) in cases.enumerated() {
                let src = bytes(w, h, format: format, alpha: alpha, opaque: opaque, seed: UInt64(w * 10 + ci))
                var graphs: [(String, Image, ColorMatrix?)] = matrices.map { ($0.0, Image(src).applyingColorMatrix($0.1), $0.1) }
                graphs.append(("bare", Image(src), nil))
                for (name, image, m) in graphs {
                    var dests = [try PixelBuffer(width: w, height: h, format: .gray8, alphaMode: .premultiplied)]
                    if format == .rgba8 {
                        dests.append(try PixelBuffer(width: w, height: h, format: .rgba8, alphaMode: alpha))
                    }
                    for dest in dests where !(m == nil && dest.format == format) {
                        let label = "\(name) \(w)x\(h) \(format) \(alpha) opaque \(opaque) into \(dest.format)"
                        let fast = try render(image, like: dest, options())
                        let slow = try render(image, like: dest, options(bytePath: false))
                        let line = try lastLine(image, dest, options())
                        let readsAlphaPremultiplied = name == "reads alpha" && alpha == .premultiplied && !opaque
                        let expectOn = format == dest.format || opaque || alpha == .premultiplied
                        if expectOn && !readsAlphaPremultiplied {
                            XCTAssertTrue(line.hasPrefix("byte path: on"), "\(label): \(line)")
                            if line.hasPrefix("byte path: on") { checked += 1 }
                        } else {
                            XCTAssertTrue(line.hasPrefix("byte path: off"), "\(label): \(line)")
                        }
                        XCTAssertLessThanOrEqual(maxDifference(bytesOf(fast), bytesOf(slow)), 1, label)
                        XCTAssertLessThanOrEqual(maxDifference(bytesOf(fast), reference(src, m, into: dest)), 1, label)
                    }
                }
            }
        }
        XCTAssertGreaterThan(checked, 1000)
    }

    /// The grayscale peer op's render: rgba8 tagged premultiplied into gray8, against the
    /// rounded Rec. 709 luma of the stored values.
    func testGrayscaleOfStoredValues() throws {
        let src = bytes(67, 5, alpha: .premultiplied, seed: 3)
        let dest = try PixelBuffer(width: 67, height: 5, format: .gray8)
        let out = try render(Image(src), like: dest, options())
        XCTAssertTrue(try lastLine(Image(src), dest, options()).contains("grayscale (Rec. 709 luma)"))
        XCTAssertLessThanOrEqual(maxDifference(bytesOf(out), reference(src, nil, into: dest)), 1)
    }

    /// Identity weights give back every byte; a render through an identity matrix equals the source.
    func testIdentitiesAreExact() throws {
        for alpha: AlphaMode in [.straight, .premultiplied] {
            let src = bytes(33, 4, alpha: alpha, seed: 9)
            let rows = (0..<4).map { k in SIMD4<Double>((0..<4).map { $0 == k ? 1.0 : 0.0 }) }
            let id = try XCTUnwrap(
                ByteColor(kind: .matrix, output: .rgba, rows: rows, bias: [0, 0, 0, 0], zeroesTransparent: false))
            XCTAssertEqual(id.errorBound, 0)
            var out = [UInt8](repeating: 0, count: 33 * 4)
            let input = bytesOf(src)
            pf_u8_matrix_rgba_run(input, &out, 33, id.weights, id.fixedBias, Int32(id.shift), 0)
            XCTAssertEqual(out, Array(input[0..<(33 * 4)]))
            // Near-identity: scaling by exactly 1 with an extra zero row column still runs on bytes.
            let image = Image(src).applyingColorMatrix(
                ColorMatrix(rows: [1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1], bias: [0, 0, 0, 0]))
            let dest = try PixelBuffer(width: 33, height: 4, format: .rgba8, alphaMode: alpha)
            let fast = try render(image, like: dest, options())
            let got = bytesOf(fast)
            for i in input.indices where alpha == .premultiplied || input[i / 4 * 4 + 3] > 0 {
                XCTAssertEqual(got[i], input[i], "byte \(i)")
            }
        }
    }

    /// The same bytes for 1, 2 and 3 threads and band heights 1, 7 and 64.
    func testScheduleIndependence() throws {
        let src = bytes(61, 47, alpha: .straight, seed: 5)
        let image = Image(src).applyingColorMatrix(matrices[1].1)
        let dests: [PixelBuffer] = [
            try PixelBuffer(width: 61, height: 47, format: .rgba8, alphaMode: .straight),
            try PixelBuffer(width: 61, height: 47, format: .gray8),
        ]
        for dest in dests {
            let first = try render(image, like: dest, options())
            for threads in [1, 2, 3] {
                for tile in [1, 7, 64] {
                    let out = try render(image, like: dest, options(threads: threads, tileHeight: tile))
                    XCTAssertEqual(bytesOf(out), bytesOf(first), "threads \(threads) tile height \(tile)")
                }
            }
        }
    }

    /// A sub-rect of the source (crops, an offset render rect) reads the right pixels.
    func testCroppedRender() throws {
        let src = bytes(61, 47, alpha: .premultiplied, seed: 6)
        let crop = Rect(x: 5, y: 3, width: 40, height: 20)
        for image in [Image(src).applyingColorMatrix(matrices[4].1).cropped(to: crop), Image(src).cropped(to: crop)] {
            let dest = try PixelBuffer(width: 40, height: 20, format: .gray8)
            XCTAssertTrue(try lastLine(image, dest, options()).hasPrefix("byte path: on"))
            let fast = try render(image, like: dest, options())
            let slow = try render(image, like: dest, options(bytePath: false))
            XCTAssertLessThanOrEqual(maxDifference(bytesOf(fast), bytesOf(slow)), 1)
            XCTAssertGreaterThan(bytesOf(fast).map(Int.init).reduce(0, +), 0)
        }
    }

    func testRefusals() throws {
        let src = bytes(20, 6, alpha: .straight, seed: 2)
        let straight = try PixelBuffer(width: 20, height: 6, format: .rgba8, alphaMode: .straight)
        let sepia = Image(src).applyingColorMatrix(matrices[0].1)
        XCTAssertTrue(try lastLine(sepia, straight, options()).contains("byte path: on: rgba8"))
        XCTAssertTrue(try lastLine(sepia, straight, options()).contains("color matrix, fixed-point weights"))
        XCTAssertTrue(try lastLine(sepia, straight, options(bytePath: false)).hasPrefix("byte path: off: off in the context"))
        let linear = try lastLine(sepia, straight, RenderContext.Options(colorManagement: .linear))
        XCTAssertTrue(linear.contains("byte path: on: rgba8") && linear.contains("in linear light"), linear)
        let alphaMatrix = Image(src).applyingColorMatrix(
            ColorMatrix(rows: [1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 0.5]))
        XCTAssertTrue(try lastLine(alphaMatrix, straight, options()).hasPrefix("byte path: off: the color matrix changes alpha"))
        let pm = try PixelBuffer(width: 20, height: 6, format: .rgba8, alphaMode: .premultiplied)
        XCTAssertTrue(try lastLine(sepia, pm, options()).contains("pixels that are not opaque"))
        let huge = Image(src).applyingColorMatrix(ColorMatrix(rows: [200, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]))
        XCTAssertTrue(try lastLine(huge, straight, options()).contains("too large"))
        let outside = sepia.cropped(to: Rect(x: 2, y: 1, width: 10, height: 3))
        let small = try PixelBuffer(width: 12, height: 3, format: .rgba8, alphaMode: .straight)
        let why = try RenderContext(options: options()).explain(
            outside, rect: Rect(x: 0, y: 1, width: 12, height: 3), into: small)
        XCTAssertTrue(why.contains("byte path: off: the render rect reaches outside"), why)
    }

    /// Straight rgba8 rendered into a premultiplied rgba8 buffer: bit-identical to the float path.
    func testPremultiplyIsExact() throws {
        for w in 1...45 {
            let h = 1 + w % 5
            let src = bytes(w, h, alpha: .straight, seed: UInt64(w))
            let dest = try PixelBuffer(width: w, height: h, format: .rgba8, alphaMode: .premultiplied)
            XCTAssertTrue(try lastLine(Image(src), dest, options()).contains("(premultiply, exact)"))
            let fast = try render(Image(src), like: dest, options())
            let slow = try render(Image(src), like: dest, options(bytePath: false))
            XCTAssertEqual(bytesOf(fast), bytesOf(slow), "\(w)x\(h)")
        }
        // Every (color, alpha) pair against the exact rounding of c * a / 255.
        var all = [UInt8](repeating: 0, count: 256 * 256 * 4)
        for c in 0..<256 {
            for a in 0..<256 {
                all.replaceSubrange(
                    (c * 256 + a) * 4..<(c * 256 + a) * 4 + 4, with: [UInt8(c), UInt8(c), UInt8(255 - c), UInt8(a)])
            }
        }
        var out = [UInt8](repeating: 0, count: all.count)
        pf_u8_premultiply_rgba_run(all, &out, 256 * 256)
        for i in 0..<(256 * 256) {
            let a = Int(all[4 * i + 3])
            for k in 0..<3 {
                let expect = UInt8((Double(Int(all[4 * i + k]) * a) / 255).rounded())
                if out[4 * i + k] != expect { XCTFail("c \(all[4 * i + k]) a \(a): \(out[4 * i + k]) != \(expect)"); return }
            }
            XCTAssertEqual(out[4 * i + 3], all[4 * i + 3])
        }
    }

    /// Source-over of two premultiplied rgba8 sources into premultiplied rgba8: bit-identical to
    /// the float path; refused for straight alpha.
    func testSourceOverIsExact() throws {
        for w in 1...45 {
            let h = 1 + w % 4
            let fg = bytes(w, h, alpha: .premultiplied, seed: UInt64(100 + w))
            let bg = bytes(w, h, alpha: .premultiplied, opaque: w % 3 == 0, seed: UInt64(200 + w))
            let image = Image(fg).composited(over: Image(bg))
            let dest = try PixelBuffer(width: w, height: h, format: .rgba8, alphaMode: .premultiplied)
            XCTAssertTrue(try lastLine(image, dest, options()).contains("(source-over, exact)"))
            let fast = try render(image, like: dest, options())
            let slow = try render(image, like: dest, options(bytePath: false))
            XCTAssertEqual(bytesOf(fast), bytesOf(slow), "\(w)x\(h)")
        }
        let straight = bytes(9, 2, alpha: .straight, seed: 4)
        let dest = try PixelBuffer(width: 9, height: 2, format: .rgba8, alphaMode: .premultiplied)
        XCTAssertTrue(
            try lastLine(Image(straight).composited(over: Image(straight)), dest, options()).hasPrefix(
                "byte path: off: source-over on bytes needs premultiplied"))
        // Every (foreground alpha, background byte) pair against the exact formula.
        var fgAll = [UInt8](repeating: 0, count: 256 * 256 * 4), bgAll = fgAll
        for a in 0..<256 {
            for b in 0..<256 {
                let i = (a * 256 + b) * 4
                fgAll.replaceSubrange(i..<i + 4, with: [UInt8(a / 2), UInt8(a), 0, UInt8(a)])
                bgAll.replaceSubrange(i..<i + 4, with: [UInt8(b), UInt8(255 - b), UInt8(b), 255])
            }
        }
        var out = [UInt8](repeating: 0, count: fgAll.count)
        pf_u8_source_over_rgba_run(fgAll, bgAll, &out, 256 * 256)
        for i in 0..<(256 * 256 * 4) {
            let a = Int(fgAll[i / 4 * 4 + 3])
            let expect = UInt8(Swift.min(255, Int(fgAll[i]) + Int((Double(Int(bgAll[i]) * (255 - a)) / 255).rounded())))
            if out[i] != expect { XCTFail("byte \(i): \(out[i]) != \(expect)"); return }
        }
    }

    // MARK: Kernels against scalar references, independent of the engine

    func testKernelsAgainstScalarReference() {
        var rng = SeededRandom(seed: 11)
        for trial in 0..<40 {
            let shift = 8 + trial % 8
            let w = (0..<16).map { _ in Int16(truncatingIfNeeded: Int(rng.next() % 65536) - 32768) }
            let bias = (0..<4).map { _ in Int32(Int(rng.next() % (1 << 22)) - (1 << 21)) }
            for count in [0, 1, 7, 8, 9, 31, 32, 33, 70] {
                for offset in 0..<4 {
                    let src = (0..<(count + offset) * 4).map { _ in UInt8(truncatingIfNeeded: rng.next() >> 13) }
                    let zero = (trial & 1) == 1
                    var rgba = [UInt8](repeating: 7, count: count * 4), gray = [UInt8](repeating: 7, count: count)
                    var table = (0..<256).map { UInt8(255 - $0) }
                    src.withUnsafeBufferPointer { s in
                        let p = s.baseAddress! + offset * 4
                        pf_u8_matrix_rgba_run(p, &rgba, count, w, bias, Int32(shift), zero ? 1 : 0)
                        pf_u8_matrix_gray_run(p, &gray, count, w, bias[0], Int32(shift))
                    }
                    var tabled = [UInt8](repeating: 0, count: count)
                    src.withUnsafeBufferPointer { s in pf_u8_table_run(s.baseAddress! + offset, &tabled, count, &table) }
                    for i in 0..<count {
                        let px = (0..<4).map { Int(src[(offset + i) * 4 + $0]) }
                        func dot(_ k: Int, _ b: Int32) -> UInt8 {
                            let s = (0..<4).reduce(Int(b)) { $0 + px[$1] * Int(w[4 * k + $1]) } >> shift
                            return UInt8(Swift.min(Swift.max(s, 0), 255))
                        }
                        for k in 0..<4 {
                            let expect = zero && px[3] == 0 ? 0 : dot(k, bias[k])
                            XCTAssertEqual(rgba[4 * i + k], expect, "rgba trial \(trial) count \(count) pixel \(i) channel \(k)")
                        }
                        XCTAssertEqual(gray[i], dot(0, bias[0]), "gray trial \(trial) count \(count) pixel \(i)")
                        XCTAssertEqual(tabled[i], 255 - src[offset + i])
                    }
                }
            }
        }
    }
}
