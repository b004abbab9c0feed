import Foundation
import XCTest
@testable import PixelFlow

/// Files are read as streamed sources by default, with the same pixels as a full decode, and
/// `explain()` says how they are read.
final class StreamingDefaultTests: XCTestCase {
    func testJPEGIsStreamedByDefaultWithTheSamePixels() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pf-stream-\(UUID())").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/in.jpg"
        try CodecTestSupport.smooth(width: 301, height: 1203).write(toFile: path, quality: 90)
        let streamed = try Image(contentsOfFile: path)
        guard case .streamedSource = streamed.node.op else { return XCTFail("not streamed: \(streamed.node.op)") }
        let full = try Image(contentsOfFile: path, streaming: false)
        guard case .source = full.node.op else { return XCTFail("streaming: false must decode") }
        let context = RenderContext(threadCount: 2)
        let chain: (Image) throws -> Image = { try $0.sepiaTone(intensity: 0.5) }
        let a = try context.makeBuffer(chain(streamed)), b = try context.makeBuffer(chain(full))
        XCTAssertEqual(CodecTestSupport.maximumDifference(a, b), 0)
        let plan = try context.explain(chain(streamed))
        XCTAssertTrue(plan.contains("streamed source 301x1203 rgba8 streamed JPEG: a streaming write decodes it into a window of"),
                      plan)
        // A 90-degree rotation reads whole columns: explain says it is decoded whole.
        let rotated = try streamed.transformed(by: AffineTransform(rotationAngle: .pi / 2))
        XCTAssertTrue(try context.explain(rotated).contains("read in random order: decoded whole"))
        // Files that need a conversion are decoded at once (here: an orientation to apply).
        let oriented = try Image(contentsOfFile: CodecTestSupport.fixture("orientation6.jpg"))
        guard case .source = oriented.node.op else { return XCTFail("an oriented JPEG must be decoded") }
    }
}
