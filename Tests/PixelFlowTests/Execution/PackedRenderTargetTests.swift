import Foundation
import XCTest

@testable import PixelFlow
@testable import PixelFlowKernels
@testable import PixelFlowGraph
@testable import PixelFlowEngine

/// Rendering into `bgra8` and `argb8` buffers, and reading them as sources: the bytes are
/// those of the same render into `rgba8`, moved to the format's order (tolerance 0), for
/// every color-management setting, alpha mode, schedule and output profile; and within one
/// 8-bit level of the reference evaluator (an independent scalar renderer).
final class PackedRenderTargetTests: XCTestCase {
    static let position: [PixelFormat: [Int]] = [.rgba8: [0, 1, 2, 3], .bgra8: [2, 1, 0, 3], .argb8: [1, 2, 3, 0]]

    /// The stored bytes of a 4 x 8-bit buffer, in R, G, B, A order per pixel.
    func rgbaBytes(_ b: PixelBuffer) -> [UInt8] {
        let pos = Self.position[b.format]!
        var out: [UInt8] = []
        b.withUnsafeRows { _, row in
            let p = row.assumingMemoryBound(to: UInt8.self)
            for x in 0..<b.width { for c in 0..<4 { out.append(p[4 * x + pos[c]]) } }
        }
        return out
    }

    /// The same pixels in another 4 x 8-bit format (written byte by byte).
    func reordered(_ b: PixelBuffer, to format: PixelFormat) throws -> PixelBuffer {
        let rgba = rgbaBytes(b), pos = Self.position[format]!
        var out = try PixelBuffer(
            width: b.width, height: b.height, format: format, colorEncoding: b.colorEncoding, alphaMode: b.alphaMode)
        out.withUnsafeMutableRows { y, row in
            for x in 0..<b.width {
                for c in 0..<4 {
                    row.storeBytes(of: rgba[4 * (y * b.width + x) + c], toByteOffset: 4 * x + pos[c], as: UInt8.self)
                }
            }
        }
        return out
    }

    /// A few graphs: a fused color chain, a blur (a stencil stage), a composite over a
    /// generator with a crop, and the source alone (a conversion without tiles for rgba8).
    func images() throws -> [(String, Image)] {
        let source = Image(TestImages.random(width: 61, height: 37, format: .rgba8, seed: 9))
        return [
            ("chain", try source.sepiaTone(intensity: 0.7).colorControls(saturation: 1.3, brightness: 0.05, contrast: 1.1)),
            ("blur", try source.gaussianBlurred(radius: 3).cropped(to: source.extent)),
            (
                "composite",
                source.composited(over: Image(color: Color(red: 0.2, green: 0.4, blue: 0.9))).cropped(to: source.extent)
            ),
            ("source", source),
        ]
    }

    func testRendersEqualTheRGBARenderReordered() throws {
        for management in [RenderContext.ColorManagement.linear, .none] {
            let context = RenderContext(colorManagement: management)
            // The byte path (rgba8 only) may be 1 unit off the float path, which the packed
            // orders share: compare with the rgba8 render of the float path.
            var floatOptions = RenderContext.Options(colorManagement: management)
            floatOptions.usesBytePath = false
            let floatContext = RenderContext(options: floatOptions)
            for (name, image) in try images() {
                for mode in [AlphaMode.straight, .premultiplied] {
                    let rgba = try floatContext.makeBuffer(image, format: .rgba8, alphaMode: mode)
                    for format in [PixelFormat.bgra8, .argb8] {
                        let made = try context.makeBuffer(image, format: format, alphaMode: mode)
                        XCTAssertEqual(made, try reordered(rgba, to: format), "\(name) \(management) \(mode) \(format)")
                        var into = try PixelBuffer(width: rgba.width, height: rgba.height, format: format, alphaMode: mode)
                        try context.render(image, to: &into)
                        XCTAssertEqual(into, made, "\(name) render(to:) \(format)")
                    }
                }
            }
        }
    }

    func testScheduleDoesNotChangeTheBytes() throws {
        let (_, image) = try images()[1]
        let one = try RenderContext(options: RenderContext.Options(threadCount: 1)).makeBuffer(image, format: .bgra8)
        var options = RenderContext.Options(threadCount: 2)
        options.tileWidth = 13
        options.tileHeight = 7
        XCTAssertEqual(try RenderContext(options: options).makeBuffer(image, format: .bgra8), one)
    }

    /// Within one level of the reference evaluator's render, quantized here.
    func testRendersMatchTheReferenceEvaluator() throws {
        for (name, image) in try images() {
            let reference = try ReferenceEvaluator.render(image, colorEncoding: .sRGB, alphaMode: .straight)
            for format in [PixelFormat.bgra8, .argb8] {
                let made = try RenderContext().makeBuffer(image, format: format)
                let bytes = rgbaBytes(made)
                var worst: Float = 0
                for y in 0..<made.height {
                    for x in 0..<made.width {
                        let r = reference[x, y]
                        for c in 0..<4 {
                            let expected = Swift.min(Swift.max(r[c], 0), 1) * 255
                            worst = Swift.max(worst, abs(Float(bytes[4 * (y * made.width + x) + c]) - expected))
                        }
                    }
                }
                XCTAssertLessThanOrEqual(worst, 1, "\(name) \(format)")
            }
        }
    }

    /// A bgra8 or argb8 source renders as the rgba8 buffer holding the same pixels.
    func testPackedSourcesRenderAsTheirRGBATwin() throws {
        let rgba = TestImages.random(width: 40, height: 30, format: .rgba8, seed: 21)
        for format in [PixelFormat.bgra8, .argb8] {
            let packed = try reordered(rgba, to: format)
            let builds: [(Image) throws -> Image] = [
                { try $0.sepiaTone(intensity: 0.5) }, { try $0.gaussianBlurred(radius: 2).cropped(to: $0.extent) },
                { try $0.morphologyMaximum(radius: 2).cropped(to: $0.extent) }, { $0 },
            ]
            for build in builds {
                for out in [PixelFormat.rgba8, .rgbaF32, .bgra8] {
                    // On the float path: the rgba8 twin alone could take a byte form (within 1 unit).
                    XCTAssertEqual(
                        try RenderContext.floatPathOnly().makeBuffer(build(Image(packed)), format: out),
                        try RenderContext.floatPathOnly().makeBuffer(build(Image(rgba)), format: out),
                        "\(format) source into \(out)")
                }
            }
        }
    }

    /// An output space known only by its ICC profile (lcms2 after the render) into bgra8.
    func testOutputProfileRendersIntoPackedFormats() throws {
        var options = RenderContext.Options(threadCount: 2)
        options.outputColorSpace = try ColorSpace(
            iccProfile: Array(
                try Data(contentsOf: URL(fileURLWithPath: packageRoot + "/Tests/PixelFlowTests/Fixtures/Color/display_p3.icc"))))
        let context = RenderContext(options: options)
        let image = try images()[0].1
        let rgba = try context.makeBuffer(image, format: .rgba8)
        XCTAssertNotEqual(rgba, try RenderContext().makeBuffer(image, format: .rgba8), "the profile changes the pixels")
        for format in [PixelFormat.bgra8, .argb8] {
            XCTAssertEqual(try context.makeBuffer(image, format: format), try reordered(rgba, to: format), "\(format)")
        }
    }
}
