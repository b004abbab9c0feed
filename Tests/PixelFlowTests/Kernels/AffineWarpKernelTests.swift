import XCTest
@testable import PixelFlow
@testable import PixelFlowKernels
@testable import PixelFlowGraph
@testable import PixelFlowEngine

/// The bilinear affine warp row in C (`pf_affine_bilinear_row_run`, through `affineWarpRow`)
/// against the scalar reference below (per-pixel Double coordinates and `bilinearSample`),
/// bit for bit: rotations, scales, shears, flips, positions half outside the source or all
/// outside it, a non-finite transform, and every length from 0 to 9 plus 61 from several
/// starting columns (the C code takes coordinates four pixels at a time).
final class AffineWarpKernelTests: XCTestCase {
    func reference(_ src: Tile, inverse t: PixelFlow.AffineTransform, x0: Int, y: Int, count: Int) -> [SIMD4<Float>] {
        let r = src.rect
        let cy = Double(y) + 0.5
        let bx = t.c * cy + t.tx, by = t.d * cy + t.ty
        return (0..<count).map { i in
            let cx = Double(x0 + i) + 0.5
            let fx = (t.a * cx + bx) - 0.5, fy = (t.b * cx + by) - 0.5
            guard fx > Double(r.x - 1), fx < Double(r.maxX), fy > Double(r.y - 1), fy < Double(r.maxY) else { return .zero }
            let flx = fx.rounded(.down), fly = fy.rounded(.down)
            return bilinearSample(src, Int(flx), Int(fly), Float(fx - flx), Float(fy - fly))
        }
    }

    func testBilinearRowMatchesScalarReference() {
        var source = TestImages.random(width: 23, height: 17, seed: 9, alphaMode: .premultiplied)
        // The source seen as a tile at (5, -3), so that tile coordinates differ from buffer ones.
        let rect = IntRect(x: 5, y: -3, width: 23, height: 17)
        let transforms: [(String, PixelFlow.AffineTransform)] = [
            (
                "rotate 15",
                PixelFlow.AffineTransform(rotationAngle: 15 * .pi / 180).concatenating(
                    PixelFlow.AffineTransform(translationX: 9, y: -4))
            ),
            (
                "rotate 90",
                PixelFlow.AffineTransform(rotationAngle: .pi / 2).concatenating(PixelFlow.AffineTransform(translationX: 20, y: 1))
            ),
            (
                "scale",
                PixelFlow.AffineTransform(scaleX: 0.43, y: 1.7).concatenating(
                    PixelFlow.AffineTransform(translationX: 3.25, y: -2.5))
            ),
            ("shear", PixelFlow.AffineTransform(a: 1, b: 0.3, c: -0.45, d: 1.1, tx: 4, ty: -3)),
            (
                "flip",
                PixelFlow.AffineTransform(scaleX: -1, y: -0.75).concatenating(PixelFlow.AffineTransform(translationX: 40, y: 6))
            ),
            ("far away", PixelFlow.AffineTransform(translationX: 1e12, y: -3e15)),
            ("not finite", PixelFlow.AffineTransform(a: .nan, b: 0, c: 0, d: 1, tx: 0, ty: 0)),
        ]
        let stride = source.bytesPerRow / 16
        source.withUnsafeMutableBytes { raw in
            let tile = Tile(base: raw.baseAddress!.assumingMemoryBound(to: SIMD4<Float>.self), stride: stride, rect: rect)
            for (name, t) in transforms {
                let inv = t.inverted() ?? t
                for count in Array(0...9) + [61] {
                    for x0 in [-7, 0, 3, 18] {
                        for y in [-6, -4, 0, 6, 13, 20] {
                            var out = [SIMD4<Float>](repeating: SIMD4(repeating: 7), count: count)
                            out.withUnsafeMutableBufferPointer {
                                affineWarpRow(
                                    tile, inverse: inv, sampling: .bilinear, x0: x0, y: y, count: count, into: $0.baseAddress!)
                            }
                            let expected = reference(tile, inverse: inv, x0: x0, y: y, count: count)
                            for i in 0..<count where out[i] != expected[i] {
                                XCTFail("\(name) count \(count) x0 \(x0) y \(y) pixel \(i): \(out[i]) != \(expected[i])")
                                return
                            }
                        }
                    }
                }
            }
        }
    }
}
