import XCTest
@testable import PixelFlow
@testable import PixelFlowKernels
@testable import PixelFlowGraph
@testable import PixelFlowEngine

/// `_GIFQuantizer` on seeded random and smooth images: palette bounds, error bounds against
/// a uniform 3-3-2 palette, exactness for few colors, the effect of dithering, determinism.
final class GIFQuantizerTests: XCTestCase {
    /// Packed RGBA of `width` x `height`: uniform random colors, or a smooth gradient.
    static func image(width: Int, height: Int, smooth: Bool, seed: UInt64 = 1) -> [UInt8] {
        var rng = SeededRandom(seed: seed)
        var out = [UInt8](repeating: 255, count: width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                let i = 4 * (y * width + x)
                if smooth {
                    out[i] = UInt8(255 * x / (width - 1))
                    out[i + 1] = UInt8(255 * y / (height - 1))
                    out[i + 2] = UInt8((x + y) * 255 / (width + height - 2))
                } else {
                    for c in 0..<3 { out[i + c] = UInt8(truncatingIfNeeded: rng.next()) }
                }
            }
        }
        return out
    }

    /// Mean squared error per channel between `rgba` and its quantized version.
    static func meanSquaredError(_ rgba: [UInt8], _ q: _GIFQuantizer.Result) -> Double {
        var sum = 0
        for (i, index) in q.indices.enumerated() {
            for c in 0..<3 {
                let d = Int(rgba[4 * i + c]) - Int(q.palette[3 * Int(index) + c])
                sum += d * d
            }
        }
        return Double(sum) / Double(q.indices.count * 3)
    }

    /// The error of the uniform 3-3-2 palette (nearest level on each axis).
    static func uniformError(_ rgba: [UInt8]) -> Double {
        func nearest(_ v: Int, levels: Int) -> Int {
            let step = 255.0 / Double(levels - 1)
            return Int((Double(Int((Double(v) / step).rounded())) * step).rounded())
        }
        var sum = 0
        for i in 0..<(rgba.count / 4) {
            for (c, levels) in [(0, 8), (1, 8), (2, 4)] {
                let v = Int(rgba[4 * i + c])
                let d = v - nearest(v, levels: levels)
                sum += d * d
            }
        }
        return Double(sum) / Double(rgba.count / 4 * 3)
    }

    func testPaletteBoundsAndErrorAgainstUniformPalette() {
        // Bounds (mean squared error per channel, 256 colors, no dithering). Uniform random
        // colors: 3-3-2 gives about 275 and 256 equal cubes about 135; measured 146 (median
        // cut) and 169 (octree). The smooth gradient (a 2-D surface in the cube, 16 x 16
        // pixel cells at best, about 15): measured 19 and 24.
        for (smooth, bound) in [(false, 180.0), (true, 30.0)] {
            let rgba = Self.image(width: 96, height: 64, smooth: smooth)
            let uniform = Self.uniformError(rgba)
            for method in EncodeOptions.GIFQuantizer.allCases {
                for count in [2, 16, 255, 256] {
                    let q = _GIFQuantizer.quantize(
                        rgba, width: 96, height: 64, method: method, maximumColorCount: count,
                        dithering: false)
                    XCTAssertLessThanOrEqual(q.colorCount, count)
                    XCTAssertEqual(q.palette.count, 3 * q.colorCount)
                    XCTAssertEqual(q.transparentIndex, -1)
                    XCTAssertTrue(q.indices.allSatisfy { Int($0) < q.colorCount }, "\(method) \(count)")
                    if count == 256 {
                        let mse = Self.meanSquaredError(rgba, q)
                        XCTAssertLessThan(mse, bound, "\(method) smooth=\(smooth)")
                        XCTAssertLessThan(mse, uniform, "\(method) smooth=\(smooth)")
                    }
                }
            }
        }
    }

    func testTransparencyReservesAnIndex() {
        var rgba = Self.image(width: 40, height: 30, smooth: false, seed: 3)
        for i in stride(from: 0, to: 40 * 30, by: 7) { rgba[4 * i + 3] = UInt8(i % 128) }
        for method in EncodeOptions.GIFQuantizer.allCases {
            for dithering in [false, true] {
                let q = _GIFQuantizer.quantize(
                    rgba, width: 40, height: 30, method: method, maximumColorCount: 16,
                    dithering: dithering)
                XCTAssertLessThanOrEqual(q.colorCount, 15)
                XCTAssertEqual(q.transparentIndex, q.colorCount)
                for i in 0..<(40 * 30) {
                    XCTAssertEqual(rgba[4 * i + 3] < 128, Int(q.indices[i]) == q.transparentIndex)
                }
            }
        }
    }

    func testFewColorsAreKeptExactly() {
        var rng = SeededRandom(seed: 9)
        let colors = (0..<256).map { _ in (0..<3).map { _ in UInt8(truncatingIfNeeded: rng.next()) } }
        var rgba = [UInt8](repeating: 255, count: 50 * 40 * 4)
        for i in 0..<(50 * 40) { for c in 0..<3 { rgba[4 * i + c] = colors[i % 256][c] } }
        for method in EncodeOptions.GIFQuantizer.allCases {
            let q = _GIFQuantizer.quantize(
                rgba, width: 50, height: 40, method: method, maximumColorCount: 256,
                dithering: false)
            XCTAssertEqual(Self.meanSquaredError(rgba, q), 0)
        }
    }

    func testDitheringLowersTheErrorOfLocalAverages() {
        // 4x4 box averages of a smooth gradient quantized to 16 colors: error diffusion keeps
        // the averages closer to the source than nearest-color mapping does (median cut:
        // 80 against 216).
        let (w, h) = (128, 64)
        let rgba = Self.image(width: w, height: h, smooth: true)
        func boxError(_ q: _GIFQuantizer.Result) -> Double {
            var sum = 0.0
            for by in stride(from: 0, to: h, by: 4) {
                for bx in stride(from: 0, to: w, by: 4) {
                    for c in 0..<3 {
                        var a = 0, b = 0
                        for y in by..<(by + 4) {
                            for x in bx..<(bx + 4) {
                                let i = y * w + x
                                a += Int(rgba[4 * i + c]); b += Int(q.palette[3 * Int(q.indices[i]) + c])
                            }
                        }
                        sum += pow(Double(a - b) / 16, 2)
                    }
                }
            }
            return sum / Double(w * h / 16 * 3)
        }
        for method in EncodeOptions.GIFQuantizer.allCases {
            let plain = _GIFQuantizer.quantize(
                rgba, width: w, height: h, method: method, maximumColorCount: 16,
                dithering: false)
            let dithered = _GIFQuantizer.quantize(
                rgba, width: w, height: h, method: method, maximumColorCount: 16,
                dithering: true)
            XCTAssertEqual(plain.palette, dithered.palette)
            XCTAssertLessThan(boxError(dithered), boxError(plain) * 0.6, "\(method)")
        }
    }

    func testOutputIsDeterministic() {
        let rgba = Self.image(width: 64, height: 48, smooth: false, seed: 5)
        for method in EncodeOptions.GIFQuantizer.allCases {
            let a = _GIFQuantizer.quantize(
                rgba, width: 64, height: 48, method: method, maximumColorCount: 64,
                dithering: true)
            let b = _GIFQuantizer.quantize(
                rgba, width: 64, height: 48, method: method, maximumColorCount: 64,
                dithering: true)
            XCTAssertEqual(a, b)
        }
    }

    func testNearestColorMatchesABruteForceSearch() {
        var rng = SeededRandom(seed: 12)
        let palette = (0..<(3 * 37)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
        let nearest = _GIFQuantizer.NearestColor(palette)
        for _ in 0..<2000 {
            let c = (0..<3).map { _ in Int32(rng.next() % 256) }
            var best = Int32.max, bestIndex = 0
            for i in 0..<37 {
                var d: Int32 = 0
                for k in 0..<3 { let e = Int32(palette[3 * i + k]) - c[k]; d += e * e }
                if d < best { best = d; bestIndex = i }
            }
            XCTAssertEqual(nearest(c[0], c[1], c[2]), bestIndex)
        }
    }
}
