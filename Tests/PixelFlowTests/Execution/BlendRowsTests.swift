import XCTest
@testable import PixelFlow

/// A blend of two sources runs chunk by chunk (`Evaluator.blendRows`); it must give exactly
/// the bytes of the tile-by-tile path, which the same graph takes when an input is not a bare
/// source (here a crop, kept because the context does not optimize). Premultiplied float
/// inputs take the built-in kernels straight from the buffers' rows (no copies, non-temporal
/// stores into a float destination); tiles of 37 pixels put rows at every alignment.
final class BlendRowsTests: XCTestCase {
    func testChunkedBlendsMatchTheTilePathBitForBit() throws {
        let w = 301, h = 37
        let inputs: [(String, PixelBuffer, PixelBuffer)] = [
            ("f32 premultiplied", TestImages.random(width: w, height: h, seed: 1, alphaMode: .premultiplied),
             TestImages.random(width: w, height: h, seed: 2, alphaMode: .premultiplied)),
            ("f32 straight", TestImages.random(width: w, height: h, seed: 3, alphaMode: .straight),
             TestImages.random(width: w, height: h, seed: 4, alphaMode: .straight)),
            ("rgba8 sRGB", TestImages.random(width: w, height: h, format: .rgba8, seed: 5),
             TestImages.random(width: w, height: h, format: .rgba8, seed: 6)),
        ]
        for (name, a, b) in inputs {
            let blends: [(String, (Image, Image) throws -> Image)] = [
                ("atop", { try $0.composited(atop: $1) }),
                ("over", { $0.composited(over: $1) }),
                ("mix", { try $0.mixed(with: $1, amount: 0.5) }),
            ]
            for (blendName, blend) in blends {
                let chunked = try blend(Image(a), Image(b))
                let tiled = try blend(Image(a).cropped(to: a.bounds), Image(b).cropped(to: b.bounds))
                for format in [PixelFormat.rgbaF32, .rgba8] {
                    for alpha in [AlphaMode.premultiplied, .straight] {
                        var reference = try PixelBuffer(width: w, height: h, format: format, alphaMode: alpha)
                        try RenderContext(threadCount: 1, optimizes: false).render(tiled, to: &reference)
                        for (threads, tw, th) in [(1, 256, 64), (2, 64, 64), (3, 37, 13)] {
                            var out = try PixelBuffer(width: w, height: h, format: format, alphaMode: alpha)
                            try RenderContext(threadCount: threads, tileWidth: tw, tileHeight: th).render(chunked, to: &out)
                            XCTAssertEqual(out, reference, "\(name) \(blendName) -> \(format) \(alpha), \(threads) threads, \(tw)x\(th)")
                        }
                    }
                }
            }
        }
    }
}
