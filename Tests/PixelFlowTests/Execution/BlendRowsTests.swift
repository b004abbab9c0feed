import XCTest
@testable import PixelFlow
@testable import PixelFlowKernels
@testable import PixelFlowGraph
@testable import PixelFlowEngine

/// A blend of two sources runs chunk by chunk (`Evaluator.blendRows`), and premultiplied
/// float inputs take the built-in kernels straight from the buffers' rows (no copies,
/// non-temporal stores into a float destination); tiles of 37 pixels put rows at every
/// alignment. Every schedule must give the same bytes, and they must be the reference
/// evaluator's (Support/ReferenceEvaluator.swift): float destinations within its tolerance,
/// 8-bit ones within half a level (the store rounds to nearest).
final class BlendRowsTests: XCTestCase {
    func testChunkedBlendsMatchTheReference() throws {
        let w = 301, h = 37
        let inputs: [(String, PixelBuffer, PixelBuffer)] = [
            (
                "f32 premultiplied", TestImages.random(width: w, height: h, seed: 1, alphaMode: .premultiplied),
                TestImages.random(width: w, height: h, seed: 2, alphaMode: .premultiplied)
            ),
            (
                "f32 straight", TestImages.random(width: w, height: h, seed: 3, alphaMode: .straight),
                TestImages.random(width: w, height: h, seed: 4, alphaMode: .straight)
            ),
            (
                "rgba8 sRGB", TestImages.random(width: w, height: h, format: .rgba8, seed: 5),
                TestImages.random(width: w, height: h, format: .rgba8, seed: 6)
            ),
        ]
        for (name, a, b) in inputs {
            let blends: [(String, (Image, Image) throws -> Image)] = [
                ("atop", { try $0.composited(atop: $1) }),
                ("over", { $0.composited(over: $1) }),
                ("mix", { try $0.mixed(with: $1, amount: 0.5) }),
            ]
            for (blendName, blend) in blends {
                let image = try blend(Image(a), Image(b))
                for format in [PixelFormat.rgbaF32, .rgba8] {
                    for alpha in [AlphaMode.premultiplied, .straight] {
                        let what = "\(name) \(blendName) -> \(format) \(alpha)"
                        let template = try PixelBuffer(width: w, height: h, format: format, alphaMode: alpha)
                        let reference = try ReferenceEvaluator.render(
                            image, colorEncoding: template.colorEncoding, alphaMode: alpha)
                        // Straight alpha divides by alpha: allow for it in 8 bits, where the
                        // level is coarse anyway; float destinations are compared premultiplied.
                        let tolerance: Float = format == .rgba8 ? 0.5 / 255 + 1e-4 : ReferenceTolerance.arithmetic
                        var first: PixelBuffer?
                        for (threads, tw, th) in [(1, 256, 64), (2, 64, 64), (3, 37, 13)] {
                            var out = try PixelBuffer(width: w, height: h, format: format, alphaMode: alpha)
                            try RenderContext(threadCount: threads, tileWidth: tw, tileHeight: th).render(image, to: &out)
                            if let first {
                                XCTAssertEqual(out, first, "\(what), \(threads) threads, \(tw)x\(th) differs from 1 thread")
                            } else {
                                first = out
                                if format == .rgbaF32 && alpha == .straight { continue }
                                let d = relativeDifference(
                                    format == .rgba8
                                        ? out.converted(to: .rgbaF32, colorEncoding: template.colorEncoding, alphaMode: alpha)
                                        : out, reference)
                                XCTAssertLessThanOrEqual(
                                    d.value, tolerance, "\(what): differs from the reference at (\(d.x), \(d.y))")
                            }
                        }
                    }
                }
            }
        }
    }
}
