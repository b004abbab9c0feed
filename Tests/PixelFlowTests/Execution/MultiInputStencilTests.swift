import XCTest
@testable import PixelFlow
@testable import PixelFlowKernels
@testable import PixelFlowGraph
@testable import PixelFlowEngine

/// Stencils that read a second image (`StencilKernel.reading`): the planner asks each input
/// for its own region of interest, tile-local and whole-region kernels see the same pixels,
/// and sub-rect renders equal crops of full renders.
final class MultiInputStencilTests: XCTestCase {
    let a = WarpTestSupport.source(width: 30, height: 20, seed: 51)
    let b = WarpTestSupport.source(width: 30, height: 20, seed: 52)

    /// out(x, y) = a(x - 1, y) + b(x + 5, y - 3): input 0 has a 1-pixel halo, input 1 a
    /// shifted region.
    func shiftedSum(wholeRegion: Bool) -> Image {
        let k = StencilKernel.reading(
            [.custom { IntRect(x: $0.x + 5, y: $0.y - 3, width: $0.width, height: $0.height) }],
            name: "shifted sum \(wholeRegion)",
            haloX: 1, haloY: 1,
            wholeRegion: wholeRegion
        ) { inputs, out, _, _ in
            for y in out.rect.y..<out.rect.maxY {
                for x in out.rect.x..<out.rect.maxX {
                    out.pointer(x: x, y: y).pointee =
                        inputs[0].pointer(x: x - 1, y: y).pointee + inputs[1].pointer(x: x + 5, y: y - 3).pointee
                }
            }
        }
        return Image(a).applyingStencil(k, reading: [Image(b)], extent: Rect(x: -1, y: 0, width: 32, height: 20))
    }

    func reference() -> PixelBuffer {
        var out = try! PixelBuffer(width: 32, height: 20, format: .rgbaF32)
        for y in 0..<20 {
            for x in -1..<31 {
                let u: SIMD4<Float> = x - 1 >= 0 && x - 1 < 30 ? a[x - 1, y] : .zero
                let v: SIMD4<Float> = x + 5 < 30 && y - 3 >= 0 ? b[x + 5, y - 3] : .zero
                out[x + 1, y] = u + v
            }
        }
        return out
    }

    func testEachInputGetsItsOwnRegionOfInterest() throws {
        let image = shiftedSum(wholeRegion: false)
        let rect = IntRect(x: 4, y: 6, width: 10, height: 5)
        let plan = RenderPlan(root: image.node, rect: rect, options: RenderContext(colorManagement: .none).options)
        XCTAssertEqual(plan.regions[ObjectIdentifier(image.node.inputs[0])], IntRect(x: 3, y: 5, width: 12, height: 7))
        XCTAssertEqual(plan.regions[ObjectIdentifier(image.node.inputs[1])], IntRect(x: 9, y: 3, width: 10, height: 5))
    }

    func testTileLocalAndWholeRegionKernelsAgreeWithTheReference() throws {
        for whole in [false, true] {
            let image = shiftedSum(wholeRegion: whole)
            let context = RenderContext(colorManagement: .none)
            let got = try context.makeBuffer(image, rect: image.extent, format: .rgbaF32)
            XCTAssertEqual(maxDifference(got, reference()), 0, "whole region \(whole)")
            try WarpTestSupport.assertScheduleIndependent(image, window: image.extent, "whole region \(whole)")
        }
    }

    func testInputsReadWholeAreComputedOnceAndReadInPlace() throws {
        // Every output pixel adds the mean of the whole second image (constant region).
        let whole = IntRect(x: 0, y: 0, width: 30, height: 20)
        let k = StencilKernel.reading(
            [.fixed(whole)], name: "plus mean", haloX: 0, haloY: 0,
            readWhole: true
        ) { inputs, out, _, _ in
            var mean = SIMD4<Float>.zero
            for y in whole.y..<whole.maxY { for x in whole.x..<whole.maxX { mean += inputs[1].pointer(x: x, y: y).pointee } }
            mean /= Float(whole.width * whole.height)
            for y in out.rect.y..<out.rect.maxY {
                for x in out.rect.x..<out.rect.maxX {
                    out.pointer(x: x, y: y).pointee = inputs[0].pointer(x: x, y: y).pointee + mean
                }
            }
        }
        let second = try Image(b).exposureAdjusted(ev: 0.5)
        let image = Image(a).applyingStencil(k, reading: [second], extent: Image(a).extent)
        let plan = RenderPlan(root: image.node, rect: whole, options: RenderContext(colorManagement: .none).options)
        XCTAssertTrue(plan.stageNodes.contains { $0 === image.node.inputs[1] }, "the second input is computed once")
        let secondPixels = try RenderContext(colorManagement: .none).makeBuffer(second, rect: second.extent, format: .rgbaF32)
        var mean = SIMD4<Float>.zero
        for y in 0..<20 { for x in 0..<30 { mean += secondPixels[x, y] } }
        mean /= 600
        let got = try RenderContext(colorManagement: .none).makeBuffer(image, rect: image.extent, format: .rgbaF32)
        var worst: Float = 0
        for y in 0..<20 { for x in 0..<30 { worst = max(worst, abs(got[x, y] - (a[x, y] + mean)).max()) } }
        XCTAssertLessThanOrEqual(worst, 1e-6)
        try WarpTestSupport.assertScheduleIndependent(image, window: image.extent, "read whole")
    }
}
