import XCTest
@testable import PixelFlow
@testable import PixelFlowKernels
@testable import PixelFlowGraph
@testable import PixelFlowEngine

/// The 5x5, 7x7, 9-tap and RGB convolutions against a plain correlation loop.
final class ConvolutionSizeTests: XCTestCase {
    let w = 29, h = 19
    lazy var src = premultipliedRandom(w, h, seed: 66)
    var grown: Rect { Rect(x: -4, y: -4, width: w + 8, height: h + 8) }

    func testEveryShapeMatchesALoop() throws {
        var rng = SeededRandom(seed: 9)
        for (kw, kh) in [(3, 3), (5, 5), (7, 7), (9, 1), (1, 9)] {
            for rgb in [false, true] {
                let name = FilterDescriptor.convolutionName(kw, kh, rgb: rgb)
                let weights = (0..<(kw * kh)).map { _ in Double(rng.unit()) - 0.5 }
                let bias = 0.125
                let img = try FilterRegistry.apply(
                    name,
                    [
                        "inputImage": .image(Image(src)), "inputWeights": .vector(weights),
                        "inputBias": .number(bias),
                    ])
                let out = try renderPremultiplied(img, grown)
                assertMatches(out, rect: grown, tolerance: 1e-6, name) { x, y in
                    // The output's extent is the input's grown by the kernel's half-size.
                    if x < -kw / 2 || y < -kh / 2 || x >= self.w + kw / 2 || y >= self.h + kh / 2 { return .zero }
                    var acc = SIMD4<Float>()
                    for j in 0..<kh {
                        for i in 0..<kw {
                            acc = acc + pixelOrClear(src, x + i - kw / 2, y + j - kh / 2) * Float(weights[j * kw + i])
                        }
                    }
                    let b = Float(bias)
                    if rgb { return SIMD4(acc.x + b, acc.y + b, acc.z + b, pixelOrClear(src, x, y).w) }
                    return acc + b
                }
            }
        }
    }

    func testTypedMethodsAndNames() throws {
        XCTAssertNotNil(FilterRegistry.descriptor(named: "CIConvolution9Horizontal"))
        XCTAssertNotNil(FilterRegistry.descriptor(named: "CIConvolutionRGB7X7"))
        XCTAssertEqual(FilterRegistry.descriptor(named: "CIConvolution5X5")?.input("inputWeights")?.componentCount, 25)
        XCTAssertThrowsError(try Image(src).convolved(size: 4, weights: []))
        XCTAssertThrowsError(try Image(src).convolved(size: 5, weights: [1, 2, 3]), "wrong weight count")
        let a = try renderPremultiplied(
            try Image(src).convolved9(weights: [0, 0, 0, 0, 1, 0, 0, 0, 0], vertical: true),
            Rect(x: 0, y: 0, width: w, height: h))
        XCTAssertTrue(a == src)
    }
}
