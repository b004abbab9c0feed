import CSIMD
import XCTest
@testable import PixelFlow
@testable import PixelFlowKernels
@testable import PixelFlowGraph
@testable import PixelFlowEngine

/// The planar point program (`pf_point_program`, `PointProgram`) against the interleaved row
/// kernels it replaces, and those kernels' alpha helpers against plain scalar loops.
/// Tolerance 0: the program does the same IEEE operations in the same order (values compared
/// with `==`, so +0 and -0 count as equal, and any NaN equals any NaN; inputs are finite).
final class PointProgramTests: XCTestCase {
    /// Finite values in [-0.5, 1.5] with alphas that include 0, 1, negative and tiny ones.
    func pixels(_ n: Int, seed: UInt64) -> [SIMD4<Float>] {
        var r = SeededRandom(seed: seed)
        return (0..<n).map { i in
            let special: [Float] = [0, 1, -0.25, 1e-30, 0.5]
            let a = i % 7 < special.count ? special[i % 7] : r.unit()
            return SIMD4(r.unit() * 2 - 0.5, r.unit() * 2 - 0.5, r.unit() * 2 - 0.5, a)
        }
    }

    let sepia = ColorMatrix(
        rows: SIMD4(0.393, 0.769, 0.189, 0), SIMD4(0.349, 0.686, 0.168, 0),
        SIMD4(0.272, 0.534, 0.131, 0), SIMD4(0, 0, 0, 1), bias: SIMD4(0.05, 0.02, -0.03, 0))
    /// Alpha feeds the colors (alpha column) but is kept.
    let alphaColumn = ColorMatrix(
        rows: SIMD4(0.9, 0.1, 0, 0.2), SIMD4(0, 1, 0.1, -0.1),
        SIMD4(0.2, 0, 0.8, 0.05), SIMD4(0, 0, 0, 1), bias: SIMD4(0.01, 0, 0.02, 0))
    /// Changes alpha.
    let general = ColorMatrix(
        rows: SIMD4(0.5, 0.2, 0.1, 0.1), SIMD4(0.1, 0.7, 0.1, 0),
        SIMD4(0, 0.3, 0.6, 0), SIMD4(0.1, 0.1, 0.1, 0.6), bias: SIMD4(0, 0.1, 0, 0.05))

    func gamma(_ p: Float) -> Op {
        var k = ColorKernel(name: "gamma \(p)") { px, n in gammaRow(px, count: n, power: p) }
        k.pointStep = PointStep.gamma(power: p)
        return .color(k)
    }

    /// The interleaved path: what `Evaluator.evaluateColorChain` runs for a chain without a program.
    func reference(_ input: [SIMD4<Float>], _ ops: [Op], unpremultiplyInput: Bool, premultiplyOutput: Bool) -> [SIMD4<Float>] {
        var row = input
        row.withUnsafeMutableBufferPointer { b in
            let p = b.baseAddress!, n = b.count
            if unpremultiplyInput { unpremultiplyRow(p, count: n) }
            for op in ops {
                switch op {
                case let .colorMatrix(m): colorMatrixRow(p, count: n, matrix: m)
                case let .color(k): k.apply(p, n)
                default: XCTFail("unexpected op")
                }
            }
            if premultiplyOutput { premultiplyRow(p, count: n) } else { zeroTransparentRow(p, count: n) }
        }
        return row
    }

    func assertSame(
        _ a: [SIMD4<Float>], _ b: [SIMD4<Float>], _ message: String, file: StaticString = #filePath, line: UInt = #line
    ) {
        XCTAssertEqual(a.count, b.count, file: file, line: line)
        func same(_ x: SIMD4<Float>, _ y: SIMD4<Float>) -> Bool {
            (0..<4).allSatisfy { x[$0] == y[$0] || (x[$0].isNaN && y[$0].isNaN) }
        }
        for i in 0..<min(a.count, b.count) where !same(a[i], b[i]) {
            XCTFail("\(message): pixel \(i): \(a[i]) != \(b[i])", file: file, line: line)
            return
        }
    }

    func testProgramMatchesTheInterleavedKernels() throws {
        let chains: [(String, [Op])] = [
            ("sepia", [.colorMatrix(sepia)]),
            ("alpha column", [.colorMatrix(alphaColumn)]),
            ("general", [.colorMatrix(general)]),
            (
                "chain5",
                [
                    .colorMatrix(
                        ColorMatrix.invert.concatenating(.colorControls(saturation: 1.2, brightness: 0.1, contrast: 1.1))),
                    gamma(0.75), .colorMatrix(sepia.concatenating(.exposure(ev: 0.5))),
                ]
            ),
            ("gammas", [gamma(0.25), gamma(1.5), gamma(-0.5), gamma(2), gamma(3.75), gamma(-2.25)]),
            // One gamma of power whole + rest / 4 (whole 0 or 1, rest 1 to 3, not inverted):
            // the pipelined loop of the AVX2 variant, with any matrices before and after it.
            ("gamma 0.75", [gamma(0.75)]),
            ("gamma 0.25, sepia", [gamma(0.25), .colorMatrix(sepia)]),
            ("sepia, gamma 0.5", [.colorMatrix(sepia), gamma(0.5)]),
            ("general, gamma 0.5, alpha column", [.colorMatrix(general), gamma(0.5), .colorMatrix(alphaColumn)]),
            // Powers above 1 overflow on the unpremultiplied tiny alphas; a matrix after an
            // infinite color computes alpha 0 * inf = NaN on the interleaved path, while the
            // program keeps a fixed alpha, so only the finite cases have a matrix after.
            (
                "two matrices, gamma 1.25, two matrices",
                [
                    .colorMatrix(sepia), .colorMatrix(alphaColumn), gamma(1.25),
                    .colorMatrix(general), .colorMatrix(sepia),
                ]
            ),
            ("sepia, gamma 1.5", [.colorMatrix(sepia), gamma(1.5)]),
            ("sepia, gamma 1.75", [.colorMatrix(sepia), gamma(1.75)]),
        ]
        for (name, ops) in chains {
            let program = try XCTUnwrap(PointProgram(ops), name)
            for count in [1, 7, 8, 9, 16, 17, 24, 25, 31, 200, 256, 1000] {
                let input = pixels(count, seed: UInt64(count))
                for unpremultiply in [false, true] {
                    for premultiply in [false, true] {
                        let expected = reference(input, ops, unpremultiplyInput: unpremultiply, premultiplyOutput: premultiply)
                        // Destinations 32-byte aligned and 16 or 32 bytes past it (non-temporal
                        // stores of 32 bytes need alignment; the program stores a misaligned
                        // first pixel plainly). The pixels around the output stay as they were.
                        for stream in [false, true] {
                            for offset in 0..<3 {
                                let raw = UnsafeMutableRawPointer.allocate(byteCount: 16 * (count + 4), alignment: 32)
                                defer { raw.deallocate() }
                                let all = raw.bindMemory(to: SIMD4<Float>.self, capacity: count + 4)
                                all.initialize(repeating: SIMD4(9, 9, 9, 9), count: count + 4)
                                input.withUnsafeBufferPointer { s in
                                    program.run(
                                        s.baseAddress!, all + offset, count: count, unpremultiplyInput: unpremultiply,
                                        premultiplyOutput: premultiply, nonTemporal: stream)
                                }
                                pf_store_fence()
                                let label =
                                    "\(name) n=\(count) unpremultiply=\(unpremultiply) premultiply=\(premultiply) stream=\(stream) offset=\(offset)"
                                assertSame(Array(UnsafeBufferPointer(start: all + offset, count: count)), expected, label)
                                for i in 0..<offset { XCTAssertEqual(all[i], SIMD4(9, 9, 9, 9), label + " before") }
                                for i in offset + count..<count + 4 {
                                    XCTAssertEqual(all[i], SIMD4(9, 9, 9, 9), label + " after")
                                }
                            }
                        }
                        // In place.
                        var inPlace = input
                        inPlace.withUnsafeMutableBufferPointer { d in
                            program.run(
                                UnsafePointer(d.baseAddress!), d.baseAddress!, count: count, unpremultiplyInput: unpremultiply,
                                premultiplyOutput: premultiply, nonTemporal: false)
                        }
                        assertSame(inPlace, expected, "\(name) n=\(count) in place")
                    }
                }
            }
        }
    }

    /// The run-time dispatched variant (AVX2 where the machine has it, with its pipelined loop
    /// for programs with one gamma) gives the same bits as the baseline build of the same code,
    /// plain and pipelined, so results do not depend on the processor or the loop.
    func testDispatchedVariantMatchesBaselineBitForBit() throws {
        let programs: [[Op]] = [
            [.colorMatrix(general), gamma(0.75), .colorMatrix(alphaColumn), gamma(-1.25), .colorMatrix(sepia)],
            [.colorMatrix(general), gamma(0.75), .colorMatrix(sepia)],
            [gamma(1.5), .colorMatrix(alphaColumn)],
            [.colorMatrix(sepia), gamma(1.25)],
        ]
        let flagSets = [
            Int32(PF_PROGRAM_UNPREMULTIPLY_INPUT | PF_PROGRAM_PREMULTIPLY_OUTPUT), Int32(PF_PROGRAM_ZERO_TRANSPARENT),
            Int32(PF_PROGRAM_UNPREMULTIPLY_INPUT | PF_PROGRAM_ZERO_TRANSPARENT), Int32(PF_PROGRAM_PREMULTIPLY_OUTPUT), 0,
        ]
        for ops in programs {
            var steps: [pf_point_step] = []
            for op in ops {
                let single = try XCTUnwrap(PointProgram([op]))
                steps.append(single.stepsForTesting[0])
            }
            for count in [5, 256, 259] {
                let input = pixels(count, seed: UInt64(9 + count))
                for flags in flagSets {
                    var a = [SIMD4<Float>](repeating: .zero, count: count), b = a, c = a
                    input.withUnsafeBufferPointer { s in
                        steps.withUnsafeBufferPointer { st in
                            a.withUnsafeMutableBufferPointer { d in
                                pf_point_program(
                                    s.baseAddress!, d.baseAddress!, count, st.baseAddress!, Int32(st.count), flags, 0)
                            }
                            b.withUnsafeMutableBufferPointer { d in
                                pf_point_program(
                                    s.baseAddress!, d.baseAddress!, count, st.baseAddress!, Int32(st.count), flags, 1)
                            }
                            c.withUnsafeMutableBufferPointer { d in
                                pf_point_program_run(
                                    s.baseAddress!, d.baseAddress!, count, st.baseAddress!, Int32(st.count), flags)
                            }
                        }
                    }
                    for i in 0..<count {
                        for (other, label) in [(b, "pipelined"), (c, "dispatched")] {
                            for ch in 0..<4 where a[i][ch].bitPattern != other[i][ch].bitPattern {
                                XCTFail(
                                    "\(ops.count) steps, flags \(flags), n=\(count), \(label): pixel \(i) channel \(ch): \(a[i]) vs \(other[i]) input \(input[i])"
                                )
                                return
                            }
                        }
                    }
                }
            }
        }
    }

    func testExplainShowsThePlanarProgram() throws {
        let image = Image(TestImages.random(width: 64, height: 32))
        let chain = try image.colorInverted().colorControls(saturation: 1.2, brightness: 0.1, contrast: 1.1)
            .gammaAdjusted(power: 0.75).sepiaTone(intensity: 1).exposureAdjusted(ev: 0.5)
        let plan = try RenderContext(threadCount: 1).explain(chain)
        XCTAssertTrue(plan.contains("{color chain: 3 steps, planar program"), plan)
        let posterized = try image.gammaAdjusted(power: 2.2).colorInverted()
        XCTAssertTrue(try RenderContext(threadCount: 1).explain(posterized).contains("interleaved kernels"))
    }

    func testChainsWithOtherKernelsHaveNoProgram() {
        let other = ColorKernel(name: "posterize") { _, _ in }
        XCTAssertNil(PointProgram([.colorMatrix(sepia), .color(other)]))
        XCTAssertNil(PointStep.gamma(power: 2.2), "2.2 is not a multiple of 1/4: fastSignedPow, no step")
        XCTAssertNotNil(PointStep.gamma(power: 0.75))
    }

    func testAlphaHelpersAgainstScalarLoops() {
        let input = pixels(301, seed: 4)
        var pm = input, un = input, zero = input
        pm.withUnsafeMutableBufferPointer { premultiplyRow($0.baseAddress!, count: $0.count) }
        un.withUnsafeMutableBufferPointer { unpremultiplyRow($0.baseAddress!, count: $0.count) }
        zero.withUnsafeMutableBufferPointer { zeroTransparentRow($0.baseAddress!, count: $0.count) }
        for (i, v) in input.enumerated() {
            XCTAssertEqual(pm[i], SIMD4(v.x * v.w, v.y * v.w, v.z * v.w, v.w), "premultiply \(i)")
            XCTAssertEqual(un[i], Self.unpremultiplied(v), "unpremultiply \(i)")
            XCTAssertEqual(zero[i], v.w > 0 ? v : .zero, "zero transparent \(i)")
        }
        // NaN alpha counts as transparent.
        var nan = [SIMD4<Float>(0.5, 0.5, 0.5, .nan)]
        nan.withUnsafeMutableBufferPointer { unpremultiplyRow($0.baseAddress!, count: 1) }
        XCTAssertEqual(nan[0], .zero)
    }

    /// `unpremultiplyRow` skips groups of four pixels whose alphas are all exactly 1: rows of
    /// opaque runs broken by translucent, transparent and NaN-alpha pixels at every position,
    /// every length 0...13 and start offset 0...4, against the scalar loop.
    func testUnpremultiplySkipsOpaqueGroupsExactly() {
        var r = SeededRandom(seed: 31)
        for length in 0...13 {
            for offset in 0...4 {
                for breaking in -1..<length {
                    var row = (0..<(length + offset)).map { _ in
                        SIMD4<Float>(Float(r.next() % 1000) / 999, Float(r.next() % 1000) / 999, Float(r.next() % 1000) / 999, 1)
                    }
                    if breaking >= 0 {
                        let alphas: [Float] = [0.5, 0, .nan, 0.999_999_94, 1.000_000_1]
                        row[offset + breaking].w = alphas[breaking % alphas.count]
                    }
                    let input = row
                    row.withUnsafeMutableBufferPointer { unpremultiplyRow($0.baseAddress! + offset, count: length) }
                    for (i, v) in input.enumerated() {
                        XCTAssertEqual(
                            row[i], i < offset ? v : Self.unpremultiplied(v), "length \(length), offset \(offset), pixel \(i)")
                    }
                }
            }
        }
    }

    /// The scalar reference of `unpremultiplyRow` for one pixel.
    static func unpremultiplied(_ v: SIMD4<Float>) -> SIMD4<Float> {
        if v.w == 1 { return v }
        guard v.w > 0 else { return .zero }
        let r = 1 / v.w
        return SIMD4(v.x * r, v.y * r, v.z * r, v.w)
    }
}

/// The row kernels compiled in CSIMD.c and dispatched at run time (AVX2 on this machine)
/// against the same code inlined into Swift (baseline build), bit for bit.
final class DispatchedRowKernelTests: XCTestCase {
    /// The 8-bit sRGB row load (C, gathering with AVX2 here) gives exactly the table's value
    /// for every code in every color channel and `Float(a) * (1 / 255)` for every alpha, in
    /// rows whose lengths are not multiples of 8.
    func testSRGBRowLoadMatchesTheTable() {
        var r = SeededRandom(seed: 12)
        for n in [256, 301, 13, 8, 7, 1] {
            // Pixel i holds code i in one channel (cycling), random bytes in the others.
            let bytes = (0..<n).flatMap { i -> [UInt8] in
                var p = (0..<4).map { _ in UInt8(truncatingIfNeeded: r.next()) }
                p[i % 4] = UInt8(truncatingIfNeeded: i)
                return p
            }
            var inline = [SIMD4<Float>](repeating: .zero, count: n), run = inline
            SRGB.decodeTable.withUnsafeBufferPointer { t in
                pf_load_rgba8_srgb_row(bytes, &inline, n, t.baseAddress)
                pf_load_rgba8_srgb_row_run(bytes, &run, n, t.baseAddress)
            }
            for i in 0..<n {
                let p = Array(bytes[(4 * i)..<(4 * i + 4)])
                let want = SIMD4(
                    SRGB.decodeTable[Int(p[0])], SRGB.decodeTable[Int(p[1])], SRGB.decodeTable[Int(p[2])], Float(p[3]) * (1 / 255)
                )
                for c in 0..<4 {
                    XCTAssertEqual(run[i][c].bitPattern, want[c].bitPattern, "row of \(n), pixel \(i), channel \(c)")
                    XCTAssertEqual(inline[i][c].bitPattern, want[c].bitPattern, "row of \(n), pixel \(i), channel \(c) (inline)")
                }
            }
        }
    }

    /// The 8-bit sRGB row store (C, gathering with AVX2 here) gives exactly `SRGB.encode8` for
    /// the colors and `_quantize8` for alpha: on every threshold and its neighbouring floats,
    /// every decoded code, random values around [0, 1] and the special values, in rows whose
    /// lengths are not multiples of 8.
    func testSRGBRowStoreMatchesTheScalarEncoder() {
        var values: [Float] = [
            .nan, .infinity, -.infinity, 0, -0.0, 1, Float(1).nextDown, Float(1).nextUp,
            .leastNonzeroMagnitude, -.leastNonzeroMagnitude, 0.5, 2, -1,
        ]
        for k in 0..<255 {
            var t = SRGB.thresholds[k]
            for _ in 0..<3 { t = t.nextDown }
            for _ in 0..<7 { values.append(t); t = t.nextUp }
        }
        values += SRGB.decodeTable
        var r = SeededRandom(seed: 11)
        values += (0..<4000).map { _ in r.unit() * 1.4 - 0.2 }
        for n in [values.count, 13, 8, 7, 1] {
            let pixels = (0..<n).map { i in
                SIMD4(
                    values[i % values.count], values[(i * 7 + 3) % values.count], values[(i * 13 + 5) % values.count],
                    values[(i * 31 + 1) % values.count])
            }
            var inline = [UInt8](repeating: 0, count: 4 * n), run = inline
            SRGB.thresholds.withUnsafeBufferPointer { t in
                SRGB.bucketStart.withUnsafeBufferPointer { b in
                    SRGB.bucketPairs.withUnsafeBufferPointer { p in
                        pixels.withUnsafeBufferPointer { s in
                            pf_store_rgba8_srgb_row(s.baseAddress!, &inline, n, t.baseAddress, b.baseAddress)
                            pf_store_rgba8_srgb_row_run(s.baseAddress!, &run, n, t.baseAddress, b.baseAddress, p.baseAddress)
                        }
                    }
                }
            }
            XCTAssertEqual(inline, run, "row of \(n)")
            for (i, v) in pixels.enumerated() {
                let want = [SRGB.encode8(v.x), SRGB.encode8(v.y), SRGB.encode8(v.z), PixelBuffer._quantize8(v).w]
                if Array(run[(4 * i)..<(4 * i + 4)]) != want {
                    XCTFail("pixel \(i) \(v): \(Array(run[(4 * i)..<(4 * i + 4)])) instead of \(want)")
                    break
                }
            }
        }
    }

    func testDispatchedRowKernelsMatchTheInlineOnes() {
        var r = SeededRandom(seed: 5)
        let n = 301
        var floats = (0..<n).map { _ in SIMD4<Float>(r.unit() * 1.2 - 0.1, r.unit(), r.unit(), r.unit()) }
        floats[3] = SIMD4(.nan, .infinity, -.infinity, -0.0)
        floats[4] = SIMD4(0.5 / 255, 1.5 / 255, 254.5 / 255, 1)
        let bytes = (0..<(4 * n)).map { _ in UInt8(truncatingIfNeeded: r.next()) }
        var a8 = [UInt8](repeating: 0, count: 4 * n), b8 = a8
        var ag = [UInt8](repeating: 0, count: n), bg = ag
        var af = [SIMD4<Float>](repeating: .zero, count: n), bf = af
        floats.withUnsafeBufferPointer { s in
            pf_store_rgba8_row(s.baseAddress!, &a8, n)
            pf_store_rgba8_row_run(s.baseAddress!, &b8, n)
            pf_store_gray8_row(s.baseAddress!, &ag, n)
            pf_store_gray8_row_run(s.baseAddress!, &bg, n)
        }
        pf_load_rgba8_row(bytes, &af, n)
        pf_load_rgba8_row_run(bytes, &bf, n)
        XCTAssertEqual(a8, b8)
        XCTAssertEqual(ag, bg)
        XCTAssertEqual(af.map { $0.x.bitPattern }, bf.map { $0.x.bitPattern })
        XCTAssertEqual(af.map { $0.w.bitPattern }, bf.map { $0.w.bitPattern })
        // Half-size bilinear from two 8-bit rows of 2 * count pixels.
        for count in [1, 3, 4, 5, 8, 150] {
            var h1 = [SIMD4<Float>](repeating: SIMD4(repeating: 9), count: count + 1), h2 = h1
            bytes.withUnsafeBufferPointer { b in
                let top = b.baseAddress!, bottom = b.baseAddress! + 8 * count
                pf_bilinear_half_rgba8_row(top, bottom, count, &h1)
                pf_bilinear_half_rgba8_row_run(top, bottom, count, &h2)
            }
            for ch in 0..<4 {
                XCTAssertEqual(
                    h1.map { $0[ch].bitPattern }, h2.map { $0[ch].bitPattern }, "half bilinear n=\(count) channel \(ch)")
            }
        }
        let w: [Float] = [-2, -1, 0, -1, 1, 1, 0, 1, 2.5]
        floats.withUnsafeBufferPointer { s in
            let p = s.baseAddress!
            for rgbOnly: Int32 in [0, 1] {
                for count in [1, 2, 3, 8, n - 4] {
                    var c1 = [SIMD4<Float>](repeating: SIMD4(repeating: 9), count: n - 2), c2 = c1
                    pf_correlate3x3_row(p, p + 1, p + 2, w, SIMD4(0.1, 0.3, -0.2, 0.05), rgbOnly, count, &c1)
                    pf_correlate3x3_row_run(p, p + 1, p + 2, w, SIMD4(0.1, 0.3, -0.2, 0.05), rgbOnly, count, &c2)
                    for ch in 0..<4 {
                        XCTAssertEqual(
                            c1.map { $0[ch].bitPattern }, c2.map { $0[ch].bitPattern },
                            "n=\(count) rgbOnly=\(rgbOnly) channel \(ch)")
                    }
                }
            }
        }
    }
}
