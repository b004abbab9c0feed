import Foundation
import XCTest
@testable import PixelFlow
@testable import PixelFlowKernels
@testable import PixelFlowGraph
@testable import PixelFlowEngine

// MARK: Shared helpers for the neighbourhood-filter tests

/// A seeded random premultiplied image whose stored values are the working values under
/// `rawPremultiplied` rendering.
func premultipliedRandom(_ w: Int, _ h: Int, seed: UInt64, opaque: Bool = false) -> PixelBuffer {
    TestImages.random(
        width: w, height: h, format: .rgbaF32, seed: seed, opaque: opaque, colorEncoding: .sRGB,
        alphaMode: .premultiplied)
}

/// Renders working values (color management off, premultiplied) over `rect`.
func renderPremultiplied(_ image: Image, _ rect: Rect, threads: Int = 1, tile: Int = 256) throws -> PixelBuffer {
    try RenderContext(threadCount: threads, tileWidth: tile, tileHeight: tile, colorManagement: .none)
        .makeBuffer(image, rect: rect, format: .rgbaF32, colorEncoding: .sRGB, alphaMode: .premultiplied)
}

/// The pixel at (x, y), transparent outside the buffer.
func pixelOrClear(_ b: PixelBuffer, _ x: Int, _ y: Int) -> SIMD4<Float> {
    x >= 0 && y >= 0 && x < b.width && y < b.height ? b[x, y] : .zero
}

/// Fails when `out` (covering `rect`) differs from `ref(x, y)` by more than `tolerance`.
func assertMatches(
    _ out: PixelBuffer, rect: Rect, tolerance: Float, _ what: String,
    file: StaticString = #filePath, line: UInt = #line, _ ref: (Int, Int) -> SIMD4<Float>
) {
    var worst: Float = 0, at = (0, 0)
    for y in 0..<out.height {
        for x in 0..<out.width {
            let gx = Int(rect.x) + x, gy = Int(rect.y) + y
            let d = abs(out[x, y] - ref(gx, gy)).max()
            if !(d <= worst) { worst = d.isNaN ? .infinity : d; at = (gx, gy) }
        }
    }
    XCTAssertLessThanOrEqual(worst, tolerance, "\(what): worst difference \(worst) at \(at)", file: file, line: line)
}

/// Sub-rect renders with several schedules equal the crop of a one-tile render, bit for bit.
func assertScheduleIndependent(
    _ image: Image, full: Rect, sub: Rect, _ what: String,
    file: StaticString = #filePath, line: UInt = #line
) throws {
    let whole = try renderPremultiplied(image, full, threads: 1, tile: 1 << 20)
    for (threads, tile) in [(1, 16), (3, 37), (2, 64), (2, 1 << 20)] {
        let part = try renderPremultiplied(image, sub, threads: threads, tile: tile)
        var same = true
        for y in 0..<part.height {
            for x in 0..<part.width where part[x, y] != whole[x + Int(sub.x - full.x), y + Int(sub.y - full.y)] {
                same = false
            }
        }
        XCTAssertTrue(
            same, "\(what): \(threads) threads, tiles \(tile), sub-rect \(sub) differs from the full render",
            file: file, line: line)
    }
}

/// Bilinear sample with pixel centers at integers, transparent outside.
func bilinearReference(_ b: PixelBuffer, _ px: Double, _ py: Double) -> SIMD4<Double> {
    let x0 = Int(px.rounded(.down)), y0 = Int(py.rounded(.down))
    let fx = px - Double(x0), fy = py - Double(y0)
    func p(_ x: Int, _ y: Int) -> SIMD4<Double> { SIMD4<Double>(pixelOrClear(b, x, y)) }
    return (p(x0, y0) * (1 - fx) + p(x0 + 1, y0) * fx) * (1 - fy) + (p(x0, y0 + 1) * (1 - fx) + p(x0 + 1, y0 + 1) * fx) * fy
}

// MARK: Blur filters

/// Box, disc, bokeh, motion, zoom, masked variable blur, median and noise reduction against
/// plain loops written here (transparent outside the image), on premultiplied working values.
final class BlurTests: XCTestCase {
    let w = 41, h = 29
    lazy var src = premultipliedRandom(w, h, seed: 77)
    var bounds: Rect { Rect(x: 0, y: 0, width: w, height: h) }
    /// The bounds grown by a few pixels, to check what spills past the edge.
    var grown: Rect { bounds.insetBy(dx: -3, dy: -3) }

    func boxReference(_ x: Int, _ y: Int, _ r: Int) -> SIMD4<Float> {
        var acc = SIMD4<Double>()
        for j in -r...r { for i in -r...r { acc += SIMD4<Double>(pixelOrClear(src, x + i, y + j)) } }
        return SIMD4<Float>(acc / Double((2 * r + 1) * (2 * r + 1)))
    }

    func testBoxBlurMatchesALoop() throws {
        // 1 and 5: tile-local (restart block 8); 12: whole-region (block 64).
        for r in [1, 5, 12] {
            let out = try renderPremultiplied(try Image(src).boxBlurred(radius: Double(r)), grown)
            assertMatches(out, rect: grown, tolerance: 2e-6, "box r\(r)") { boxReference($0, $1, r) }
        }
        // Fractional radii round.
        let a = try renderPremultiplied(try Image(src).boxBlurred(radius: 2.6), bounds)
        let b = try renderPremultiplied(try Image(src).boxBlurred(radius: 3), bounds)
        XCTAssertTrue(a == b)
    }

    func testBoxBlurDoesNotDependOnTiles() throws {
        for r in [3, 8, 20] {
            let img = try Image(src).boxBlurred(radius: Double(r))
            try assertScheduleIndependent(img, full: grown, sub: Rect(x: 5, y: 3, width: 23, height: 17), "box r\(r)")
        }
    }

    func discReference(_ x: Int, _ y: Int, _ radius: Double) -> SIMD4<Float> {
        let R = Int(radius.rounded(.down))
        var acc = SIMD4<Double>(), n = 0.0
        for j in -R...R {
            for i in -R...R where Double(i * i + j * j) <= radius * radius {
                acc += SIMD4<Double>(pixelOrClear(src, x + i, y + j)); n += 1
            }
        }
        return SIMD4<Float>(acc / n)
    }

    func testDiscBlurMatchesALoop() throws {
        for r in [2.5, 8, 11.3] {
            let img = try Image(src).discBlurred(radius: r)
            let out = try renderPremultiplied(img, grown)
            assertMatches(out, rect: grown, tolerance: 3e-6, "disc r\(r)") { discReference($0, $1, r) }
            try assertScheduleIndependent(img, full: grown, sub: Rect(x: 9, y: 2, width: 20, height: 21), "disc r\(r)")
        }
    }

    func testBokehBlurWeighsTheRing() throws {
        // Without ring or softness it is the disc blur.
        let plain = try renderPremultiplied(try Image(src).bokehBlurred(radius: 6, ringAmount: 0, softness: 0), bounds)
        let disc = try renderPremultiplied(try Image(src).discBlurred(radius: 6), bounds)
        XCTAssertLessThanOrEqual(maxDifference(plain, disc), 1e-6)
        // With a ring: inner weight 1, ring weight 1 + 4 * amount (offsets past r (1 - size)).
        let r = 7.0, amount = 0.5, size = 0.2
        let out = try renderPremultiplied(
            try Image(src).bokehBlurred(radius: r, ringAmount: amount, ringSize: size, softness: 0), bounds)
        let inner = r * (1 - size)
        assertMatches(out, rect: bounds, tolerance: 5e-6, "bokeh") { x, y in
            var acc = SIMD4<Double>(), n = 0.0
            for j in -7...7 {
                for i in -7...7 {
                    let d2 = Double(i * i + j * j)
                    guard d2 <= r * r else { continue }
                    let wt = d2 <= inner * inner && abs(j) <= Int(inner) ? 1 : 1 + 4 * amount
                    acc += SIMD4<Double>(pixelOrClear(src, x + i, y + j)) * wt; n += wt
                }
            }
            return SIMD4<Float>(acc / n)
        }
    }

    func testMotionBlurMatchesBilinearSamples() throws {
        for (r, angle) in [(4.0, 0.7), (6.5, -2.0), (3, 0)] {
            let img = try Image(src).motionBlurred(radius: r, angle: angle)
            let out = try renderPremultiplied(img, grown)
            let k = Int(r.rounded(.up)), step = r / Double(k)
            assertMatches(out, rect: grown, tolerance: 3e-6, "motion r\(r) angle \(angle)") { x, y in
                var acc = SIMD4<Double>()
                for i in -k...k {
                    acc += bilinearReference(
                        src, Double(x) + Double(i) * step * cos(angle), Double(y) - Double(i) * step * sin(angle))
                }
                return SIMD4<Float>(acc / Double(2 * k + 1))
            }
        }
    }

    func testZoomBlurAveragesTowardTheCenter() throws {
        let center = Point(x: 12, y: 9), amount = 6.0
        let out = try renderPremultiplied(try Image(src).zoomBlurred(center: center, amount: amount), bounds)
        assertMatches(out, rect: bounds, tolerance: 3e-6, "zoom") { x, y in
            let vx = center.x - (Double(x) + 0.5), vy = center.y - (Double(y) + 0.5)
            let dist = (vx * vx + vy * vy).squareRoot(), len = min(amount, dist)
            let n = max(1, Int(len.rounded(.up)) + 1)
            if n == 1 || dist == 0 { return src[x, y] }
            var acc = SIMD4<Double>()
            for k in 0..<n {
                let t = Double(k) * len / Double(n - 1) / dist
                acc += bilinearReference(src, Double(x) + vx * t, Double(y) + vy * t)
            }
            return SIMD4<Float>(acc / Double(n))
        }
    }

    func testMaskedVariableBlurFollowsTheMask() throws {
        let image = Image(src)
        let white = Image(color: .white).cropped(to: bounds), black = Image(color: .black).cropped(to: bounds)
        let full = try renderPremultiplied(try image.maskedVariableBlurred(mask: white, radius: 4), bounds)
        let gauss = try renderPremultiplied(try image.gaussianBlurred(radius: 4), bounds)
        XCTAssertLessThanOrEqual(maxDifference(full, gauss), 1e-5, "white mask: the full Gaussian")
        let none = try renderPremultiplied(try image.maskedVariableBlurred(mask: black, radius: 4), bounds)
        XCTAssertLessThanOrEqual(maxDifference(none, src), 1e-6, "black mask: the input")
        // Luma 0.375 lies halfway between the 1/4 and 1/2 levels: the mean of sigma 2 and 4.
        let gray = Image(color: Color(red: 0.375, green: 0.375, blue: 0.375)).cropped(to: bounds)
        let mid = try renderPremultiplied(try image.maskedVariableBlurred(mask: gray, radius: 8), bounds)
        let g2 = try renderPremultiplied(try image.gaussianBlurred(radius: 2), bounds)
        let g4 = try renderPremultiplied(try image.gaussianBlurred(radius: 4), bounds)
        assertMatches(mid, rect: bounds, tolerance: 1e-5, "gray mask") { x, y in (g2[x, y] + g4[x, y]) * 0.5 }
    }

    func medianReference(_ b: PixelBuffer, _ x: Int, _ y: Int, _ r: Int, quantized: Bool = false) -> SIMD4<Float> {
        var out = SIMD4<Float>()
        for c in 0..<4 {
            var v: [Float] = []
            for j in -r...r {
                for i in -r...r {
                    let p = pixelOrClear(b, x + i, y + j)[c]
                    v.append(quantized ? (min(max(p, 0), 1) * 255 + 0.5).rounded(.down) / 255 : p)
                }
            }
            v.sort()
            out[c] = v[v.count / 2]
        }
        return out
    }

    func testMedianMatchesSorting() throws {
        // Radius 1 and 2 (networks) are exact on any floats; 3 and 4 (histogram) on 256 levels.
        for r in [1, 2, 3, 4] {
            let out = try renderPremultiplied(try Image(src).median(radius: r), grown)
            assertMatches(out, rect: grown, tolerance: r <= 2 ? 0 : 1e-6, "median r\(r)") {
                medianReference(src, $0, $1, r, quantized: r > 2)
            }
        }
        let ci = try renderPremultiplied(try Image(src).medianFiltered(), bounds)
        let r1 = try renderPremultiplied(try Image(src).median(radius: 1), bounds)
        XCTAssertTrue(ci == r1, "CIMedianFilter is the 3x3 median")
        try assertScheduleIndependent(
            try Image(src).median(radius: 3), full: grown, sub: Rect(x: 4, y: 4, width: 19, height: 13), "median r3")
    }

    func testNoiseReductionSmoothsBelowTheLevel() throws {
        let level: Float = 0.3
        let out = try renderPremultiplied(try Image(src).noiseReduced(noiseLevel: Double(level), sharpness: 0), bounds)
        assertMatches(out, rect: bounds, tolerance: 1e-6, "sigma filter") { x, y in
            let c = src[x, y]
            var sum = SIMD4<Float>(), n = SIMD4<Float>()
            for j in -1...1 {
                for i in -1...1 {
                    let v = pixelOrClear(src, x + i, y + j)
                    for k in 0..<4 where abs(v[k] - c[k]) <= level { sum[k] += v[k]; n[k] += 1 }
                }
            }
            return sum / n
        }
        let same = try renderPremultiplied(try Image(src).noiseReduced(noiseLevel: 0, sharpness: 0), bounds)
        XCTAssertLessThanOrEqual(maxDifference(same, src), 1e-6)
    }

    func testBadRadiiThrowAndHugeOnesAreCapped() throws {
        let image = Image(src)
        for bad in [-1.0, .nan, .infinity, 201] {
            XCTAssertThrowsError(try image.boxBlurred(radius: bad), "box \(bad)")
            XCTAssertThrowsError(try image.discBlurred(radius: bad), "disc \(bad)")
            XCTAssertThrowsError(try image.motionBlurred(radius: bad), "motion \(bad)")
            XCTAssertThrowsError(try image.morphologyMaximum(radius: bad), "morphology \(bad)")
        }
        XCTAssertThrowsError(try image.median(radius: 51))
        XCTAssertThrowsError(try image.median(radius: -1))
        XCTAssertThrowsError(try image.morphologyRectangleMaximum(width: 0))
        // The largest radius renders a small image with memory bounded by image plus halo.
        let out = try renderPremultiplied(try image.boxBlurred(radius: 200), bounds)
        XCTAssertEqual(out.width, w)
    }
}
