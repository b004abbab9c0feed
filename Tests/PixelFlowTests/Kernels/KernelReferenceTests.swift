import XCTest
import CSIMD
@testable import PixelFlow
@testable import PixelFlowKernels
@testable import PixelFlowGraph
@testable import PixelFlowEngine

/// Every SIMD row kernel against a plain scalar loop on seeded random rows.
/// Tolerances are stated per kernel: 0 where the kernel does the same operations in the
/// same order as the scalar code.
final class KernelReferenceTests: XCTestCase {
    func randomRow(_ n: Int, seed: UInt64, scale: Float = 1) -> [SIMD4<Float>] {
        var r = SeededRandom(seed: seed)
        return (0..<n).map { _ in SIMD4(r.unit(), r.unit(), r.unit(), r.unit()) * scale }
    }

    func testColorMatrixRow() {
        let m = ColorMatrix(
            rows: SIMD4(0.393, 0.769, 0.189, 0.1), SIMD4(0.349, 0.686, 0.168, 0),
            SIMD4(0.272, 0.534, 0.131, -0.2), SIMD4(0, 0.5, 0, 1), bias: SIMD4(0.05, 0.02, -0.03, 0.01))
        var row = randomRow(301, seed: 1)
        let input = row
        row.withUnsafeMutableBufferPointer { colorMatrixRow($0.baseAddress!, count: $0.count, matrix: m) }
        for (i, v) in input.enumerated() {
            for c in 0..<4 {
                let r = m.row(c)
                var s: Float = r[0] * v[0]
                s += r[1] * v[1]; s += r[2] * v[2]; s += r[3] * v[3]; s += m.bias[c]
                XCTAssertEqual(row[i][c], s, accuracy: 1e-6)  // tolerance: 1e-6 (summation order)
            }
        }
    }

    func testColorMatrixConcatenation() {
        let a = ColorMatrix.colorControls(saturation: 1.2, brightness: 0.1, contrast: 1.1)
        let b = ColorMatrix.sepia(intensity: 0.7)
        let ab = a.concatenating(b)
        for v in randomRow(50, seed: 2) {
            let d = abs(ab.apply(v) - b.apply(a.apply(v))).max()
            XCTAssertLessThan(d, 1e-5)
        }
    }

    func testGammaRow() {
        for power in [0.75, 0.5, 2.25, -1.5, 2.2, 0.4545] as [Float] {
            var row = randomRow(100, seed: 3).map { $0 * 2 - 1 }
            let input = row
            row.withUnsafeMutableBufferPointer { gammaRow($0.baseAddress!, count: $0.count, power: power) }
            for (i, v) in input.enumerated() {
                for c in 0..<3 {
                    let x = Double(v[c])
                    let ref = x < 0 ? -pow(-x, Double(power)) : pow(x, Double(power))
                    // Tolerance: 2e-6 relative (fastSignedPow).
                    XCTAssertEqual(Double(row[i][c]), ref, accuracy: 2e-6 * max(1, abs(ref)))
                }
                XCTAssertEqual(row[i].w, v.w)
            }
        }
    }

    /// Quarter powers go through a reciprocal-square-root estimate and a Newton step: check
    /// relative accuracy across magnitudes (subnormals to 1e30), and zeros, infinities, NaN.
    func testGammaRowQuarterPowersAcrossMagnitudes() {
        // The first two are the subnormals nearest 1e-44 and 3e-39, by bit pattern (literals that small warn).
        let magnitudes: [Float] = [
            Float(bitPattern: 7), Float(bitPattern: 0x0020_AAC8), 1.2e-38, 1e-30, 1e-12, 1e-5, 0.003, 0.25, 0.5, 0.9999, 1, 1.5,
            7, 1e6, 1e30,
        ]
        for power in [0.25, 0.5, 0.75, 1.25, 2.75, -0.5, -1.75] as [Float] {
            var row = magnitudes.flatMap { [SIMD4<Float>($0, -$0, $0 * 0.7, 0.5)] }
            let input = row
            row.withUnsafeMutableBufferPointer { gammaRow($0.baseAddress!, count: $0.count, power: power) }
            for (i, v) in input.enumerated() {
                for c in 0..<3 {
                    let x = Double(v[c])
                    let ref = x < 0 ? -pow(-x, Double(power)) : pow(x, Double(power))
                    guard abs(ref) < Double(Float.greatestFiniteMagnitude), abs(ref) > Double(Float.leastNormalMagnitude) else {
                        continue
                    }
                    // Tolerance: 2e-6 relative.
                    XCTAssertEqual(Double(row[i][c]), ref, accuracy: 2e-6 * abs(ref), "x \(x) power \(power)")
                }
                XCTAssertEqual(row[i].w, v.w)
            }
            var special = [SIMD4<Float>(0, -0.0, .infinity, 1), SIMD4<Float>(.nan, -.infinity, 1, 0)]
            special.withUnsafeMutableBufferPointer { gammaRow($0.baseAddress!, count: $0.count, power: power) }
            XCTAssertEqual(special[0].x, power > 0 ? 0 : .infinity)
            XCTAssertEqual(special[0].z, power > 0 ? .infinity : 0)
            XCTAssertTrue(special[1].x.isNaN)
            XCTAssertEqual(special[1].y, power > 0 ? -.infinity : -0.0)
            XCTAssertEqual(special[1].z, 1)
            XCTAssertEqual(special[1].w, 0)
        }
    }

    /// The built-in blends (C, two pixels per vector) against the scalar formulas, tolerance 0:
    /// every length from 0 to 19 and 67, destinations that start on a 16- or 32-byte
    /// boundary, plain and non-temporal stores, and the result written over the background.
    func testBlendRows() {
        let n = 67
        let fg = randomRow(n, seed: 4).map { $0 * SIMD4($0.w, $0.w, $0.w, 1) }
        var bg = randomRow(n, seed: 5).map { $0 * SIMD4($0.w, $0.w, $0.w, 1) }
        bg[3] = SIMD4(0.5, 0.25, 0, 0)  // transparent background: atop keeps alpha 0
        func reference(_ blend: BuiltinBlend, _ f: SIMD4<Float>, _ b: SIMD4<Float>) -> SIMD4<Float> {
            var r = SIMD4<Float>()
            for c in 0..<4 {
                switch blend {
                case .sourceOver: r[c] = f[c] + b[c] * (1 - f.w)
                case .sourceAtop: r[c] = c == 3 ? b.w : f[c] * b.w + b[c] * (1 - f.w)
                case let .mix(t): r[c] = b[c] * (1 - t) + f[c] * t
                }
            }
            return r
        }
        let out = UnsafeMutablePointer<SIMD4<Float>>.allocate(capacity: n + 1)
        defer { out.deallocate() }
        for blend in [BuiltinBlend.sourceOver, .sourceAtop, .mix(amount: 0.3)] {
            for count in Array(0...19) + [n] {
                for offset in 0...1 {
                    for streams in [false, true] {
                        let dst = out + offset
                        fg.withUnsafeBufferPointer { f in
                            bg.withUnsafeBufferPointer { b in
                                blend.apply(f.baseAddress!, b.baseAddress!, into: dst, count: count, nonTemporal: streams)
                            }
                        }
                        pf_store_fence()
                        for i in 0..<count {
                            XCTAssertEqual(
                                dst[i], reference(blend, fg[i], bg[i]), "\(blend) count \(count) offset \(offset) pixel \(i)")
                        }
                    }
                }
            }
            // In place over the background, as the tile path runs it.
            var inPlace = bg
            fg.withUnsafeBufferPointer { f in
                inPlace.withUnsafeMutableBufferPointer {
                    blend.kernel(name: "", extentRule: .union).apply(f.baseAddress!, $0.baseAddress!, n)
                }
            }
            for i in 0..<n { XCTAssertEqual(inPlace[i], reference(blend, fg[i], bg[i]), "\(blend) in place, pixel \(i)") }
        }
    }

    /// The C correlation kernels over counts and tap counts that hit their 8-pixel blocks,
    /// 2-pixel blocks and single floats, against scalar sums in tap order (tolerance 0).
    func testCorrelationKernelsAcrossSizes() {
        for ntaps in [1, 2, 3, 5, 13, 73, 130] {
            let taps = (0..<ntaps).map { Float($0 + 1) / Float(ntaps * 3) - 0.1 }
            for count in [1, 2, 3, 7, 8, 9, 16, 67] {
                let src = randomRow(count + ntaps - 1, seed: UInt64(count * 31 + ntaps), scale: 3)
                var dst = [SIMD4<Float>](repeating: .zero, count: count)
                src.withUnsafeBufferPointer { s in
                    taps.withUnsafeBufferPointer { t in
                        dst.withUnsafeMutableBufferPointer {
                            correlateRowHorizontal(s.baseAddress!, taps: t, count: count, into: $0.baseAddress!)
                        }
                    }
                }
                let rows = (0..<ntaps).map { randomRow(count, seed: UInt64(100 + $0 * 7 + count)) }
                let ptrs = rows.map { r -> UnsafeMutablePointer<SIMD4<Float>> in
                    let p = UnsafeMutablePointer<SIMD4<Float>>.allocate(capacity: count); p.initialize(from: r, count: count);
                    return p
                }
                defer { ptrs.forEach { $0.deallocate() } }
                var out = [SIMD4<Float>](repeating: .zero, count: count)
                ptrs.map { UnsafePointer($0) }.withUnsafeBufferPointer { rp in
                    taps.withUnsafeBufferPointer { t in
                        out.withUnsafeMutableBufferPointer {
                            correlateRowsVertical(rp.baseAddress!, taps: t, count: count, into: $0.baseAddress!)
                        }
                    }
                }
                for x in 0..<count {
                    var h = SIMD4<Float>.zero, v = SIMD4<Float>.zero
                    for k in 0..<ntaps { h = h + src[x + k] * taps[k]; v = v + rows[k][x] * taps[k] }
                    XCTAssertEqual(dst[x], h, "horizontal, \(ntaps) taps, count \(count), x \(x)")
                    XCTAssertEqual(out[x], v, "vertical, \(ntaps) taps, count \(count), x \(x)")
                }
            }
        }
    }

    /// The vertical correlation of several output rows at once (`pf_correlate_v_block`) against
    /// scalar sums in tap order (tolerance 0, bit patterns): 1 to 9 and 16 output rows (blocks
    /// of four and the rest), tap counts below and above four, and widths that end on its
    /// 16-float steps or not.
    func testBlockVerticalCorrelationMatchesScalarSums() {
        for ntaps in [1, 2, 3, 4, 5, 13, 61] {
            let taps = (0..<ntaps).map { Float($0 + 1) / Float(ntaps * 3) - 0.1 }
            for outputs in [1, 2, 3, 4, 5, 7, 9, 16] {
                for count in [1, 3, 4, 5, 8, 13, 67] {
                    let rows = (0..<(ntaps + outputs - 1)).map { randomRow(count, seed: UInt64(500 + $0 * 13 + count + outputs)) }
                    let ptrs = rows.map { r -> UnsafeMutablePointer<SIMD4<Float>> in
                        let p = UnsafeMutablePointer<SIMD4<Float>>.allocate(capacity: count); p.initialize(from: r, count: count);
                        return p
                    }
                    let outs = (0..<outputs).map { _ in UnsafeMutablePointer<SIMD4<Float>>.allocate(capacity: count) }
                    defer { ptrs.forEach { $0.deallocate() }; outs.forEach { $0.deallocate() } }
                    ptrs.map { UnsafePointer($0) }.withUnsafeBufferPointer { rp in
                        taps.withUnsafeBufferPointer { t in
                            outs.withUnsafeBufferPointer {
                                correlateRowsVertical(
                                    rp.baseAddress!, taps: t, count: count, into: $0.baseAddress!, outputs: outputs)
                            }
                        }
                    }
                    for j in 0..<outputs {
                        for x in 0..<count {
                            var v = SIMD4<Float>.zero
                            for k in 0..<ntaps { v = v + rows[j + k][x] * taps[k] }
                            for c in 0..<4 where outs[j][x][c].bitPattern != v[c].bitPattern {
                                XCTFail(
                                    "\(ntaps) taps, \(outputs) outputs, count \(count): row \(j) x \(x) channel \(c): \(outs[j][x][c]) != \(v[c])"
                                )
                                return
                            }
                        }
                    }
                }
            }
        }
    }

    /// The C gray8 store against `_luma` then `_quantize8` (tolerance 0), on random rows with
    /// values around every rounding boundary, NaN and out-of-range values, and short tails.
    func testGray8StoreMatchesLumaThenQuantize() {
        var r = SeededRandom(seed: 77)
        var row: [SIMD4<Float>] = (0..<1030).map { i in
            switch i % 5 {
            case 0: let k = Float(Int(r.unit() * 256)); return SIMD4(repeating: (k + 0.5) / 255)
            case 1: return SIMD4(r.unit() * 1.4 - 0.2, r.unit() * 1.4 - 0.2, r.unit() * 1.4 - 0.2, 1)
            default: return SIMD4(r.unit(), r.unit(), r.unit(), r.unit())
            }
        }
        row[3] = SIMD4(.nan, 0.5, 0.5, 1)
        row[7] = SIMD4(.infinity, 0, 0, 1)
        row[8] = SIMD4(-.infinity, 1, 1, 1)
        for count in [1, 3, 4, 5, 1030] {
            var out = [UInt8](repeating: 7, count: count)
            var scratch = [SIMD4<Float>](repeating: .zero, count: count)
            row.withUnsafeBufferPointer { s in
                out.withUnsafeMutableBytes { d in
                    scratch.withUnsafeMutableBufferPointer { sc in
                        storeRowRGBA(
                            s.baseAddress!, count: count, format: .gray8, into: d.baseAddress!, encodeSRGB: false,
                            scratch: sc.baseAddress!)
                    }
                }
            }
            for i in 0..<count {
                XCTAssertEqual(
                    out[i], PixelBuffer._quantize8(SIMD4(repeating: PixelBuffer._luma(row[i])))[0],
                    "pixel \(i) of \(count): \(row[i])")
            }
        }
    }

    func testCorrelationKernels() {
        let taps: [Float] = [0.1, 0.2, 0.4, 0.2, 0.1]
        let src = randomRow(40 + 4, seed: 6)
        var dst = [SIMD4<Float>](repeating: .zero, count: 40)
        src.withUnsafeBufferPointer { s in
            taps.withUnsafeBufferPointer { t in
                dst.withUnsafeMutableBufferPointer {
                    correlateRowHorizontal(s.baseAddress!, taps: t, count: 40, into: $0.baseAddress!)
                }
            }
        }
        for x in 0..<40 {
            var acc = SIMD4<Float>.zero
            for k in 0..<5 { acc += src[x + k] * taps[k] }
            XCTAssertEqual(dst[x], acc)  // tolerance: 0
        }
        // Vertical over 5 rows of 13 pixels (exercises the 4-wide loop and the tail).
        let rows = (0..<5).map { randomRow(13, seed: 10 + UInt64($0)) }
        var out = [SIMD4<Float>](repeating: .zero, count: 13)
        let ptrs = rows.map { r -> UnsafeMutablePointer<SIMD4<Float>> in
            let p = UnsafeMutablePointer<SIMD4<Float>>.allocate(capacity: 13); p.initialize(from: r, count: 13); return p
        }
        defer { ptrs.forEach { $0.deallocate() } }
        let cptrs = ptrs.map { UnsafePointer($0) }
        cptrs.withUnsafeBufferPointer { rp in
            taps.withUnsafeBufferPointer { t in
                out.withUnsafeMutableBufferPointer {
                    correlateRowsVertical(rp.baseAddress!, taps: t, count: 13, into: $0.baseAddress!)
                }
            }
        }
        for x in 0..<13 {
            var acc = SIMD4<Float>.zero
            for k in 0..<5 { acc += rows[k][x] * taps[k] }
            XCTAssertEqual(out[x], acc)  // tolerance: 0
        }
    }

    func testBoxRowRestarting() {
        let src = randomRow(300, seed: 8)
        // Outputs centered on absolute 64...263 from a source starting at absolute 60.
        var dst = [SIMD4<Float>](repeating: .zero, count: 200)
        src.withUnsafeBufferPointer { s in
            dst.withUnsafeMutableBufferPointer {
                boxRowRestarting(
                    s.baseAddress!, srcStart: 60, outStart: 64, count: 200, radius: 3, block: 64,
                    scale: 1.0 / 7, into: $0.baseAddress!)
            }
        }
        for i in 0..<200 {
            let c = 64 + i
            var acc = SIMD4<Float>.zero
            for k in (c - 3)...(c + 3) { acc += src[k - 60] }
            XCTAssertLessThan(abs(dst[i] - acc / 7).max(), 2e-6)  // tolerance: 2e-6 (running sum drift)
        }
    }

    func testBoxPassRangesStartOnBlocks() {
        let radii = [5, 5, 6, 6]
        let p = GaussianPlan.boxPassRanges(final: 100..<300, radii: radii)
        XCTAssertEqual(p.outputs.last!.upperBound, 300)
        XCTAssertLessThanOrEqual(p.outputs.last!.lowerBound, 100)
        for (k, o) in p.outputs.enumerated() {
            XCTAssertEqual(o.lowerBound % GaussianPlan.boxBlock, 0)
            let input = k == 0 ? p.input : p.outputs[k - 1]
            XCTAssertLessThanOrEqual(input.lowerBound, o.lowerBound - radii[k])
            XCTAssertGreaterThanOrEqual(input.upperBound, o.upperBound + radii[k])
        }
    }

    func testLanczosWeightsMatchPillowDefinition() {
        // Pillow's precompute_coeffs for 10 -> 4 (downscale 2.5): support 7.5.
        let w = LanczosWeights(outputRange: 0..<4, inputSize: 10, outputSize: 4)
        for i in 0..<4 {
            let center = (Double(i) + 0.5) * 2.5
            let lo = max(Int(center - 7.5 + 0.5), 0), hi = min(Int(center + 7.5 + 0.5), 10)
            XCTAssertEqual(w.starts[i], lo)
            XCTAssertEqual(w.counts[i], hi - lo)
            var ref = (lo..<hi).map { x -> Double in
                let t = (Double(x) - center + 0.5) / 2.5
                if t == 0 { return 1 }
                if abs(t) >= 3 { return 0 }
                return sin(.pi * t) / (.pi * t) * sin(.pi * t / 3) / (.pi * t / 3)
            }
            let s = ref.reduce(0, +)
            ref = ref.map { $0 / s }
            for k in 0..<(hi - lo) { XCTAssertEqual(Double(w.weights[i * w.maxTaps + k]), ref[k], accuracy: 1e-7) }
        }
    }

    func testGaussianTapsAndBoxes() {
        let t = GaussianPlan.exactTaps(sigma: 2)
        XCTAssertEqual(t.count, 13)
        XCTAssertEqual(Double(t.reduce(0, +)), 1, accuracy: 1e-6)
        XCTAssertEqual(GaussianPlan.exactTaps(sigma: 10).count, 61)
        for sigma in [13.0, 20, 50, 100, 400] {
            let radii = GaussianPlan.boxRadii(sigma: sigma)
            // The cascade's variance: sum of ((2r+1)^2 - 1) / 12.
            let variance = radii.reduce(0.0) { $0 + (Double((2 * $1 + 1) * (2 * $1 + 1)) - 1) / 12 }
            XCTAssertEqual(variance.squareRoot(), sigma, accuracy: sigma * 0.03, "sigma \(sigma)")
        }
    }
}

final class PremultipliedMatrixTests: XCTestCase {
    /// The premultiplied form of an alpha-preserving matrix gives what unpremultiplying,
    /// applying and premultiplying gives.
    func testPremultipliedFormMatchesTheStraightPath() throws {
        let m = ColorMatrix.sepia(intensity: 0.7).concatenating(.colorControls(saturation: 1.2, brightness: 0.1, contrast: 1.1))
        let pm = try XCTUnwrap(m.premultipliedForm)
        var rng = SeededRandom(seed: 4)
        for _ in 0..<1000 {
            let u = SIMD4(rng.unit(), rng.unit(), rng.unit(), rng.unit())
            let c = u * SIMD4(u.w, u.w, u.w, 1)
            var expected = m.apply(u)
            expected = expected * SIMD4(expected.w, expected.w, expected.w, 1)
            XCTAssertLessThan(abs(pm.apply(c) - expected).max(), 2e-6)
        }
        XCTAssertNil(
            ColorMatrix(rows: SIMD4(1, 0, 0, 0.5), SIMD4(0, 1, 0, 0), SIMD4(0, 0, 1, 0), SIMD4(0, 0, 0, 1)).premultipliedForm)
        // End to end: a float source rendered straight into a float destination (streamed,
        // premultiplied form) agrees with the straight path.
        let src = TestImages.random(width: 45, height: 21, format: .rgbaF32, seed: 8)
        let img = try Image(src).sepiaTone(intensity: 0.6)
        let streamed = try RenderContext(threadCount: 2, tileWidth: 16, tileHeight: 8).makeBuffer(img, format: .rgbaF32)
        let straight = try RenderContext().makeBuffer(img, format: .rgbaF32, alphaMode: .straight).premultiplied()
        XCTAssertLessThan(maxDifference(streamed, straight), 2e-6)
        XCTAssertNil(
            ColorMatrix(rows: SIMD4(1, 0, 0, 0), SIMD4(0, 1, 0, 0), SIMD4(0, 0, 1, 0), SIMD4(0, 0, 0, 0.5)).premultipliedForm)
    }

    /// A lone alpha-preserving matrix on premultiplied floats runs as a one-step point program
    /// on the premultiplied pixels as they are: bit for bit `colorMatrixRow` with the
    /// premultiplied form, whether the source is read in place and streamed into the
    /// destination (any thread count, tile size or sub-rect) or loaded into tiles first (an
    /// sRGB-tagged float source, decoded in the linear working space).
    func testLoneMatrixOnPremultipliedFloatsMatchesTheRowKernel() throws {
        let m = ColorMatrix.sepia(intensity: 0.6)
        let pm = try XCTUnwrap(m.premultipliedForm)
        let w = 45, h = 21
        let src = TestImages.random(width: w, height: h, format: .rgbaF32, seed: 12, alphaMode: .premultiplied)
        var expected = (0..<h).flatMap { y in (0..<w).map { x in src[x, y] } }
        expected.withUnsafeMutableBufferPointer { colorMatrixRow($0.baseAddress!, count: $0.count, matrix: pm) }
        let img = try Image(src).sepiaTone(intensity: 0.6)
        for (threads, tw, th) in [(1, 256, 64), (2, 16, 8), (3, 7, 5)] {
            let ctx = RenderContext(threadCount: threads, tileWidth: tw, tileHeight: th)
            let out = try ctx.makeBuffer(img, format: .rgbaF32)
            for y in 0..<h {
                for x in 0..<w where out[x, y] != expected[y * w + x] {
                    XCTFail("\(threads) threads, \(tw)x\(th): pixel \(x), \(y): \(out[x, y]) != \(expected[y * w + x])")
                    return
                }
            }
            var part = try PixelBuffer(width: 19, height: 6, format: .rgbaF32)
            try ctx.render(img, rect: Rect(x: 13, y: 9, width: 19, height: 6), to: &part)
            for y in 0..<6 {
                for x in 0..<19 { XCTAssertEqual(part[x, y], expected[(y + 9) * w + x + 13], "sub-rect \(x), \(y)") }
            }
        }
        // Loaded into tiles first: the same kernel on the decoded pixels.
        var tagged = src
        tagged.colorEncoding = .sRGB
        var decoded = try RenderContext().makeBuffer(Image(tagged), format: .rgbaF32)
        decoded.withUnsafeMutableBytes { raw in
            colorMatrixRow(raw.baseAddress!.assumingMemoryBound(to: SIMD4<Float>.self), count: w * h, matrix: pm)
        }
        let out = try RenderContext(threadCount: 2, tileWidth: 16, tileHeight: 8).makeBuffer(
            Image(tagged).sepiaTone(intensity: 0.6), format: .rgbaF32)
        XCTAssertEqual(out, decoded)
    }
}
