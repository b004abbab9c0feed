import XCTest

@testable import PixelFlow
@testable import PixelFlowKernels
@testable import PixelFlowGraph
@testable import PixelFlowEngine

/// The detectors read `bgra8` and `argb8` buffers as the rgba8 buffers holding the same
/// pixels: the same features, and for faces the same gray plane.
final class PackedFormatDetectorTests: XCTestCase {
    /// A photo-like scene: a light card on a darker, colored background, with a QR code on it.
    func scene() throws -> PixelBuffer {
        var canvas = Canvas(buffer: try PixelBuffer(width: 320, height: 240, format: .rgba8))
        canvas.clear(to: Color(red: 0.6, green: 0.1, blue: 0.05))
        canvas.fillPolygon(
            [Point(x: 40, y: 30), Point(x: 280, y: 40), Point(x: 270, y: 210), Point(x: 50, y: 200)],
            color: Color(red: 0.3, green: 0.9, blue: 1))
        var code = try RenderContext().makeBuffer(Image.qrCode(message: "packed pixels", scale: 3), format: .rgba8)
        code = try RenderContext().makeBuffer(Image(code).composited(over: Image(color: .white)).cropped(to: Image(code).extent))
        var out = canvas.buffer
        for y in 0..<code.height { for x in 0..<code.width { out[100 + x, 70 + y] = code[x, y] } }
        return out
    }

    func testDetectorsSeeTheSamePixels() throws {
        let rgba = try scene()
        let codes = try QRCodeDetector().features(in: rgba)
        XCTAssertEqual(codes.first?.message, "packed pixels")
        let quads = RectangleDetector().features(in: rgba)
        XCTAssertFalse(quads.isEmpty)
        for format in [PixelFormat.bgra8, .argb8] {
            let packed = rgba.converted(to: format)
            XCTAssertNotEqual(packed.withUnsafeBytes { Array($0.prefix(4)) }, rgba.withUnsafeBytes { Array($0.prefix(4)) })
            XCTAssertEqual(try QRCodeDetector().features(in: packed), codes, "\(format)")
            XCTAssertEqual(RectangleDetector().features(in: packed), quads, "\(format)")
            XCTAssertEqual(_CascadeKernels.gray(from: packed).pixels, _CascadeKernels.gray(from: rgba).pixels, "\(format)")
        }
    }
}
