import XCTest
@testable import PixelFlow
@testable import PixelFlowKernels
@testable import PixelFlowGraph
@testable import PixelFlowEngine

/// `Image.resizableImage(capInsets:targetSize:resizingMode:)` against a scalar reference of
/// UIKit's nine-part drawing, written from its definition: corners copied, edges and middle
/// stretched (bilinear between the middle's own pixel centers) or tiled from the top-left cap.
///
/// Tolerance: 0 for corners and tiles (whole-pixel copies) and 2e-6 for stretched parts
/// (one bilinear interpolation in Float against the same in Double).
final class ResizableImageTests: XCTestCase {
    /// The source position (pixel-center coordinates) that output position `p` reads along
    /// one axis of `size` pixels with caps `lo` and `hi`, grown to `out` pixels.
    static func referenceSource(_ p: Double, size: Double, lo: Double, hi: Double, out: Double, mode: ResizingMode) -> Double {
        if p < lo { return p }
        if p >= out - hi { return p - (out - size) }
        let middle = size - lo - hi, outMiddle = out - lo - hi
        let offset: Double
        switch mode {
        case .stretch: offset = (p - lo) * middle / outMiddle
        case .tile: offset = (p - lo).truncatingRemainder(dividingBy: middle)
        }
        return lo + min(max(offset, 0.5), middle - 0.5)
    }

    /// Bilinear sampling of `src` at (x, y), pixel centers at half-integers, in Double.
    static func bilinear(_ src: PixelBuffer, _ x: Double, _ y: Double) -> SIMD4<Double> {
        func taps(_ v: Double, _ n: Int) -> [(Int, Double)] {
            let i = Int((v - 0.5).rounded(.down)), t = v - 0.5 - Double(i)
            return t == 0 ? [(i, 1)] : [(i, 1 - t), (min(i + 1, n - 1), t)]
        }
        var sum = SIMD4<Double>.zero
        for (j, wy) in taps(y, src.height) {
            for (i, wx) in taps(x, src.width) {
                let p = src[i, j]
                sum += SIMD4(Double(p.x), Double(p.y), Double(p.z), Double(p.w)) * (wx * wy)
            }
        }
        return sum
    }

    /// The reference image, and for each pixel whether it is a plain copy (exact).
    static func reference(_ src: PixelBuffer, _ c: EdgeInsets, width: Int, height: Int, mode: ResizingMode)
        -> [(x: Int, y: Int, value: SIMD4<Double>, exact: Bool)]
    {
        var out: [(Int, Int, SIMD4<Double>, Bool)] = []
        for y in 0..<height {
            for x in 0..<width {
                let sx = referenceSource(
                    Double(x) + 0.5, size: Double(src.width), lo: c.left, hi: c.right,
                    out: Double(width), mode: mode)
                let sy = referenceSource(
                    Double(y) + 0.5, size: Double(src.height), lo: c.top, hi: c.bottom,
                    out: Double(height), mode: mode)
                let exact = sx == sx.rounded(.down) + 0.5 && sy == sy.rounded(.down) + 0.5
                out.append((x, y, bilinear(src, sx, sy), exact))
            }
        }
        return out
    }

    func check(
        _ src: PixelBuffer, _ caps: EdgeInsets, _ w: Int, _ h: Int, _ mode: ResizingMode,
        file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let out = try Image(src).resizableImage(
            capInsets: caps, targetSize: Size(width: Double(w), height: Double(h)),
            resizingMode: mode)
        XCTAssertEqual(out.extent, Rect(x: 0, y: 0, width: w, height: h), file: file, line: line)
        let got = try renderRaw(out)
        var worst = 0.0, inexact = 0
        for r in Self.reference(src, caps, width: w, height: h, mode: mode) {
            let g = got[r.x, r.y]
            let diff = SIMD4(Double(g.x), Double(g.y), Double(g.z), Double(g.w)) - r.value
            let d = max(max(abs(diff.x), abs(diff.y)), max(abs(diff.z), abs(diff.w)))
            if r.exact {
                XCTAssertEqual(
                    g, SIMD4<Float>(Float(r.value.x), Float(r.value.y), Float(r.value.z), Float(r.value.w)),
                    "\(mode) \(caps) \(w)x\(h) at (\(r.x), \(r.y))", file: file, line: line)
            } else {
                inexact += 1
                worst = max(worst, d)
            }
        }
        XCTAssertLessThanOrEqual(worst, 2e-6, "\(mode) \(caps) \(w)x\(h)", file: file, line: line)
        if mode == .tile { XCTAssertEqual(inexact, 0, "whole-pixel tiles are copies", file: file, line: line) }
    }

    func testMatchesTheScalarReference() throws {
        let src = TestImages.random(width: 13, height: 11, format: .rgbaF32, seed: 9, opaque: true)
        let cases: [(EdgeInsets, Int, Int)] = [
            (EdgeInsets(top: 3, left: 4, bottom: 2, right: 3), 30, 20),  // grow both ways
            (EdgeInsets(top: 3, left: 4, bottom: 2, right: 3), 9, 7),  // shrink to the caps
            (EdgeInsets(top: 3, left: 4, bottom: 2, right: 3), 10, 11),  // shrink one axis, keep the other
            (EdgeInsets(top: 0, left: 0, bottom: 0, right: 0), 27, 16),  // no caps: the whole image
            (EdgeInsets(top: 5, left: 6, bottom: 5, right: 6), 40, 23),  // a one-pixel middle
            (EdgeInsets(top: 0, left: 2, bottom: 4, right: 0), 21, 17),  // caps on two sides
        ]
        for (caps, w, h) in cases {
            for mode in ResizingMode.allCases { try check(src, caps, w, h, mode) }
        }
    }

    func testNoCapsStretchIsOpaqueToTheEdges() throws {
        // The middle is sampled between its own pixel centers: no transparent fringe.
        let src = TestImages.random(width: 8, height: 6, format: .rgbaF32, seed: 3, opaque: true)
        let out = try renderRaw(
            Image(src).resizableImage(
                capInsets: .zero, targetSize: Size(width: 20, height: 15),
                resizingMode: .stretch))
        for y in 0..<15 { for x in 0..<20 { XCTAssertEqual(out[x, y].w, 1, "(\(x), \(y))") } }
    }

    func testTilesRepeatTheMiddleUnflipped() throws {
        let src = TestImages.random(width: 10, height: 10, format: .rgba8, seed: 4, opaque: true)
        let caps = EdgeInsets(all: 2)
        let out = try renderRaw(Image(src).resizableImage(capInsets: caps, targetSize: Size(width: 26, height: 26)))
        let plain = try renderRaw(Image(src))
        for y in 2..<24 {
            for x in 2..<24 { XCTAssertEqual(out[x, y], plain[2 + (x - 2) % 6, 2 + (y - 2) % 6], "(\(x), \(y))") }
        }
    }

    func testAnImageAwayFromTheOriginKeepsItsOrigin() throws {
        let src = TestImages.random(width: 9, height: 7, format: .rgbaF32, seed: 5, opaque: true)
        let moved = try Image(src).transformed(by: AffineTransform(translationX: 5, y: -3))
        let caps = EdgeInsets(top: 2, left: 3, bottom: 2, right: 3)
        for mode in ResizingMode.allCases {
            let out = try moved.resizableImage(capInsets: caps, targetSize: Size(width: 15, height: 12), resizingMode: mode)
            XCTAssertEqual(out.extent, Rect(x: 5, y: -3, width: 15, height: 12))
            let atOrigin = try Image(src).resizableImage(
                capInsets: caps, targetSize: Size(width: 15, height: 12), resizingMode: mode)
            XCTAssertEqual(try renderRaw(out), try renderRaw(atOrigin), "\(mode)")
        }
    }

    func testSameSizeIsTheImage() throws {
        let image = Image(TestImages.random(width: 9, height: 7, format: .rgba8, seed: 6))
        let same = try image.resizableImage(
            capInsets: EdgeInsets(all: 2), targetSize: Size(width: 9, height: 7),
            resizingMode: .stretch)
        XCTAssertEqual(try renderRaw(same), try renderRaw(image))
    }

    func testBadArgumentsThrow() {
        let image = Image(TestImages.random(width: 10, height: 8, format: .rgba8, seed: 7))
        let size = Size(width: 20, height: 20)
        for caps in [
            EdgeInsets(top: -1, left: 0, bottom: 0, right: 0), EdgeInsets(top: .nan, left: 0, bottom: 0, right: 0),
            EdgeInsets(top: 0, left: 6, bottom: 0, right: 5), EdgeInsets(top: 4, left: 0, bottom: 5, right: 0),
            EdgeInsets(top: 0, left: 5, bottom: 0, right: 5), EdgeInsets(top: .infinity, left: 0, bottom: 0, right: 0),
        ] {
            CodecTestSupport.assertThrows(.invalidParameter) { try image.resizableImage(capInsets: caps, targetSize: size) }
        }
        let caps = EdgeInsets(top: 3, left: 3, bottom: 3, right: 3)
        for bad in [
            Size(width: 5, height: 20), Size(width: 20, height: 5), Size(width: .nan, height: 20),
            Size(width: 20, height: .infinity), Size(width: 0, height: 0),
        ] {
            CodecTestSupport.assertThrows(.invalidParameter) { try image.resizableImage(capInsets: caps, targetSize: bad) }
            CodecTestSupport.assertThrows(.invalidParameter) {
                try image.resizableImage(capInsets: .zero, targetSize: bad.width == 0 ? bad : Size(width: .nan, height: 1))
            }
        }
        // A middle of zero width is fine while the width does not change.
        XCTAssertNoThrow(
            try image.resizableImage(
                capInsets: EdgeInsets(top: 0, left: 5, bottom: 0, right: 5),
                targetSize: Size(width: 10, height: 30)))
        XCTAssertThrowsError(try Image(color: .red).resizableImage(capInsets: .zero, targetSize: size)) { error in
            guard case PixelFlowError.invalidExtent = error else { return XCTFail("\(error)") }
        }
    }

    func testEdgeInsets() {
        let r = Rect(x: 10, y: 20, width: 100, height: 50)
        XCTAssertEqual(r.inset(by: EdgeInsets(top: 1, left: 2, bottom: 3, right: 4)), Rect(x: 12, y: 21, width: 94, height: 46))
        XCTAssertEqual(r.inset(by: EdgeInsets(all: -1)), Rect(x: 9, y: 19, width: 102, height: 52))
        XCTAssertTrue(r.inset(by: EdgeInsets(top: 0, left: 60, bottom: 0, right: 60)).isEmpty)
        XCTAssertEqual(r.inset(by: .zero), r)
    }
}
