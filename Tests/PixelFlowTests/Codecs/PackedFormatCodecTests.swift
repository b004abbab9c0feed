import Foundation
import XCTest

@testable import PixelFlow
@testable import PixelFlowKernels
@testable import PixelFlowGraph
@testable import PixelFlowEngine

/// Every encoder takes `bgra8` and `argb8` buffers, converted to `rgba8` at the codec
/// boundary: the file's bytes are those of the rgba8 buffer holding the same pixels.
final class PackedFormatCodecTests: TemporaryDirectoryTestCase {
    /// `rgba` reordered, byte by byte, into `format` (Core Video's BGRA and ARGB orders).
    func twin(of rgba: PixelBuffer, in format: PixelFormat) throws -> PixelBuffer {
        let position = format == .bgra8 ? [2, 1, 0, 3] : [1, 2, 3, 0]
        var out = try PixelBuffer(
            width: rgba.width, height: rgba.height, format: format, colorEncoding: rgba.colorEncoding,
            alphaMode: rgba.alphaMode)
        rgba.withUnsafeRows { y, src in
            out.withUnsafeMutableRows { yy, dst in
                guard yy == y else { return }
                for x in 0..<rgba.width {
                    for c in 0..<4 {
                        dst.storeBytes(
                            of: src.load(fromByteOffset: 4 * x + c, as: UInt8.self), toByteOffset: 4 * x + position[c],
                            as: UInt8.self)
                    }
                }
            }
        }
        return out
    }

    func testEveryWriterTakesPackedFormats() throws {
        let opaque = TestImages.random(width: 33, height: 21, format: .rgba8, seed: 4, opaque: true)
        let translucent = TestImages.random(width: 33, height: 21, format: .rgba8, seed: 5)
        var premultiplied = translucent
        premultiplied.alphaMode = .premultiplied
        var written = 0
        for rgba in [opaque, translucent, premultiplied] {
            for format in ImageFileFormat.allCases {
                let expected: [UInt8]
                do {
                    expected = try rgba.encoded(as: format)
                } catch PixelFlowError.encodingFailed {
                    continue  // no encoder for this format in the installed library (HEIF, AVIF)
                }
                for packed in [PixelFormat.bgra8, .argb8] {
                    let buffer = try twin(of: rgba, in: packed)
                    XCTAssertEqual(try buffer.encoded(as: format), expected, "\(packed) as \(format) \(rgba.alphaMode)")
                    written += 1
                }
            }
        }
        XCTAssertGreaterThanOrEqual(written, 2 * 3 * 6, "png, jpeg, pnm, bmp, webp, tiff at least")
    }

    func testFilesWrittenFromPackedBuffersAndRenders() throws {
        let rgba = TestImages.random(width: 40, height: 24, format: .rgba8, seed: 8)
        let image = try Image(rgba).sepiaTone(intensity: 0.6)
        let context = RenderContext.floatPathOnly()  // packed sources: float
        func bytes(_ path: String) throws -> Data { try Data(contentsOf: URL(fileURLWithPath: path)) }
        for ext in ["png", "jpg", "tif", "webp", "bmp", "pam"] {
            let rendered = directory.appendingPathComponent("rendered.\(ext)").path
            try context.write(image, toFile: rendered)
            let stored = directory.appendingPathComponent("stored.\(ext)").path
            try rgba.write(toFile: stored)
            for packed in [PixelFormat.bgra8, .argb8] {
                let path = directory.appendingPathComponent("rendered-\(packed).\(ext)").path
                try context.write(image, toFile: path, pixelFormat: packed)
                XCTAssertEqual(try bytes(path), try bytes(rendered), "\(packed) render to .\(ext)")
                let bufferPath = directory.appendingPathComponent("stored-\(packed).\(ext)").path
                try twin(of: rgba, in: packed).write(toFile: bufferPath)
                XCTAssertEqual(try bytes(bufferPath), try bytes(stored), "\(packed) buffer to .\(ext)")
            }
        }
    }
}
