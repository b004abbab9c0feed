import Foundation
import XCTest
@testable import PixelFlow
@testable import PixelFlowKernels
@testable import PixelFlowGraph
@testable import PixelFlowEngine

/// The reference evaluator covers every node kind (`Op`), and agrees with values worked out by
/// hand where the engine is not involved at all.
final class ReferenceEvaluatorTests: XCTestCase {
    let a = TestImages.random(width: 23, height: 19, format: .rgba8, seed: 31)
    let b = TestImages.random(width: 23, height: 19, seed: 32, alphaMode: .premultiplied)

    /// One small graph per node kind, each rendered by the engine and by the reference, both
    /// color managements. Together they hold every `Op` case (asserted below).
    func testEveryNodeKindMatchesTheEngine() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("reference-\(UUID().uuidString).png").path
        try a.write(toFile: path)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let streamed = try Image(contentsOfFile: path, streaming: true)
        XCTAssertEqual(streamed.node.op.kindName, "streamedSource")
        let graphs: [(String, Image, Rect?)] = [
            ("source rgba8", Image(a), nil),
            ("source f32 premultiplied", Image(b), nil),
            ("streamed source", try streamed.cropped(to: Rect(x: 3, y: 2, width: 21, height: 17)).sepiaTone(intensity: 0.5), nil),
            ("generator", try Image.checkerboard(width: 5), Rect(x: -3, y: -2, width: 20, height: 15)),
            (
                "color and matrix",
                try Image(a).colorInverted().colorControls(saturation: 1.4, brightness: 0.1, contrast: 1.1)
                    .applyingColorKernel(named: "swap") { SIMD4($0.z, $0.y * $0.y, $0.x, $0.w) }, nil
            ),
            ("blend", try Image(a).composited(atop: Image(b).transformed(by: AffineTransform(translationX: 3, y: 2))), nil),
            ("crop", Image(a).cropped(to: Rect(x: 2.5, y: 3, width: 11, height: 9.5)), Rect(x: 0, y: 0, width: 23, height: 19)),
            (
                "affine bilinear", try Image(a).transformed(by: AffineTransform(rotationAngle: 0.4)),
                Rect(x: -10, y: -5, width: 40, height: 40)
            ),
            ("affine nearest", try Image(a).transformed(by: AffineTransform(scaleX: 1.7, y: 0.6), sampling: .nearest), nil),
            (
                "clamp", Image(a).cropped(to: Rect(x: 4, y: 3, width: 9, height: 8)).clampedToExtent(),
                Rect(x: -4, y: -4, width: 30, height: 27)
            ),
            ("lanczos", try Image(a).lanczosScaled(scale: 0.6), nil),
            (
                "custom warp",
                Image(a).warped(
                    named: "shear",
                    regionOfInterest: { r in
                        Rect(x: r.x, y: r.y, width: r.width + 0.3 * r.maxY + 1, height: r.height)
                    }
                ) { x, y in
                    Point(x: x + 0.3 * y, y: y)
                }, nil
            ),
            ("convolution", try Image(a).convolved3x3(weights: [1, 2, 1, 0, 0, 0, -1, -2, -1]), nil),
            ("gaussian", try Image(a).gaussianBlurred(radius: 2.5), nil),
            ("custom stencil", try Image(a).median(radius: 1), nil),
            ("reduction", try Image(a).areaAverage(in: Rect(x: 2, y: 3, width: 15, height: 11)), nil),
        ]
        var kinds = Set<String>()
        for colorManagement in [RenderContext.ColorManagement.linear, .none] {
            for (name, image, rect) in graphs {
                for n in GraphWalk.postOrder(image.node) { kinds.insert(n.op.kindName) }
                try assertMatchesReference(
                    image, rect: rect,
                    context: RenderContext(
                        threadCount: 2, tileWidth: 8, tileHeight: 8,
                        colorManagement: colorManagement),
                    colorEncoding: colorManagement == .linear ? .linear : .sRGB, "\(name), \(colorManagement)")
            }
        }
        XCTAssertEqual(
            kinds,
            [
                "source", "streamedSource", "generator", "color", "colorMatrix", "blend", "warp", "stencil",
                "crop", "reduction",
            ])
    }

    /// Values worked out by hand: an 8-bit sRGB source decodes through the table and is
    /// premultiplied; a crop is transparent outside; a nearest scale picks pixels.
    func testKnownValues() throws {
        var s = try PixelBuffer(width: 2, height: 1, format: .rgba8)
        let half = Float(128) / 255
        s[0, 0] = SIMD4(1, half, 0, half)
        s[1, 0] = SIMD4(0.2, 0.4, 0.6, 0)
        let linear = try ReferenceEvaluator.render(Image(s), rect: Rect(x: -1, y: 0, width: 3, height: 1))
        XCTAssertEqual(linear[0, 0], .zero)
        XCTAssertEqual(linear[1, 0], SIMD4(half, SRGB.decodeTable[128] * half, 0, half))
        XCTAssertEqual(linear[2, 0], .zero, "alpha 0 is transparent black whatever the stored color")
        let doubled = try ReferenceEvaluator.render(
            try Image(s).transformed(by: AffineTransform(scaleX: 2, y: 1), sampling: .nearest),
            colorManagement: .none, colorEncoding: .sRGB, alphaMode: .straight)
        XCTAssertEqual(doubled.width, 4)
        XCTAssertEqual(doubled[0, 0], doubled[1, 0])
        XCTAssertEqual(doubled[1, 0], SIMD4(1, half, 0, half))
    }
}
